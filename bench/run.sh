#!/usr/bin/env bash
# shellcheck disable=SC2016  # backquotes in single quotes are markdown, not command substitution
# Benchmark: binrecover vs mariadb-binlog on a large ROW-format binlog written by a real MariaDB.
#   bash bench/run.sh                 # BENCH_MB=300 by default
#   BENCH_MB=50 bash bench/run.sh     # a smaller binlog (cached separately)
# Environment:
#   BENCH_MB     target binlog size in MiB (default 300)
#   BENCH_PORT   TCP port of the throwaway server used to generate the binlog (default 23390)
#   BENCH_RUNS   timed runs per command; the best is reported (default 5)
#   BINRECOVER   binary under test (default build/binrecover; build it with cmake --build build)
#   XDG_CACHE_HOME  the binlog is cached in ${XDG_CACHE_HOME:-$HOME/.cache}/binrecover/bench-<key>/
# The table goes to stdout and to bench/results/latest.md. Exit status 1 if binrecover fails or
# its output disagrees with mariadb-binlog's (number of '# at ' lines, or the SQL it would run).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

BENCH_MB=${BENCH_MB:-300}
BENCH_PORT=${BENCH_PORT:-23390}
BENCH_RUNS=${BENCH_RUNS:-5}
BINRECOVER=${BINRECOVER:-$root/build/binrecover}
[[ $BENCH_MB =~ ^[0-9]+$ && $BENCH_MB -gt 0 ]] || { echo "BENCH_MB must be a positive integer" >&2; exit 2; }

log() { echo "bench: $*" >&2; }

[ -x "$BINRECOVER" ] || { log "$BINRECOVER not found; build it first: cmake --build build"; exit 2; }
if [ ! -x /usr/bin/time ]; then
  log "installing GNU time"
  apt-get install -y time >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y time >/dev/null; }
fi
mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)
for tool in "$mariadbd" mariadb mariadb-binlog mariadb-install-db; do
  command -v "$tool" >/dev/null || { log "$tool is missing (scripts/setup.sh installs MariaDB)"; exit 2; }
done

# ---------------------------------------------------------------------------------------------
# 1. The binlog: generated once per (workload, size, server version), then reused from the cache.

# Starts a server, loads bench/workload.sql and calls bench.gen_chunk() until the binary log has
# reached the target size, then stops the server cleanly (which closes the last file properly).
# Its text is part of the cache key, as are workload.sql, BENCH_MB and `mariadbd --version`.
generate() {
  local out=$1 srv=$2 start end k=0 size=0 target=$((BENCH_MB * 1048576))
  local client=(mariadb --no-defaults -h127.0.0.1 -P"$BENCH_PORT" -uroot --default-character-set=utf8mb4)
  start=$(date +%s.%N)
  nice -n 10 scripts/mariadb_server.sh start "$srv" "$BENCH_PORT" \
    --max-binlog-size=1G --binlog-row-image=FULL --binlog-annotate-row-events=ON \
    --binlog-row-metadata=FULL \
    --sync-binlog=0 --innodb-flush-log-at-trx-commit=0 \
    --innodb-buffer-pool-size=256M --innodb-log-file-size=256M
  "${client[@]}" < bench/workload.sql
  while [ "$size" -lt "$target" ]; do
    k=$((k + 1))
    # ~5 MiB of binlog per call; fixed seeds so the row data is the same on every rebuild.
    "${client[@]}" bench -e "SET @@rand_seed1 = $k, @@rand_seed2 = $((k * 7919)); CALL gen_chunk(500)"
    size=$(stat -c %s "$srv"/binlog/mysql-bin.[0-9]* | awk '{ n += $1 } END { print n }')
    if [ $((k % 10)) -eq 0 ]; then log "  $((size / 1048576)) / $BENCH_MB MiB"; fi
  done
  scripts/mariadb_server.sh stop "$srv"
  end=$(date +%s.%N)
  local files=()
  while read -r f; do
    f=$(basename "$f")
    mv "$srv/binlog/$f" "$out/"
    files+=("$f")
  done < "$srv/binlog/mysql-bin.index"
  printf '%s\n' "${files[@]}" > "$out/files"
  {
    echo "generated=$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')"
    echo "chunks=$k"
    echo "bytes=$(cd "$out" && cat "${files[@]}" | wc -c)"
    echo "server=$("$mariadbd" --version)"
  } > "$out/meta"
}

cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/binrecover
key=$({ declare -f generate; cat bench/workload.sql; echo "BENCH_MB=$BENCH_MB"; "$mariadbd" --version; } |
  sha256sum | cut -c1-16)
cache=$cache_root/bench-$key
if [ -f "$cache/meta" ]; then
  log "reusing cached binlog $cache"
else
  log "generating a ${BENCH_MB} MiB ROW binlog into $cache (about 10 s per 100 MiB)"
  mkdir -p "$cache_root"
  work=$(mktemp -d "$cache_root/.gen-XXXXXX")
  trap 'scripts/mariadb_server.sh stop "$work/srv" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  mkdir "$work/out"
  generate "$work/out" "$work/srv"
  rm -rf "$cache"
  mv "$work/out" "$cache"
  rm -rf "$work"
  trap - EXIT
fi
mapfile -t names < "$cache/files"
files=()
for f in "${names[@]}"; do files+=("$cache/$f"); done
gen_seconds=$(sed -n 's/^seconds=//p' "$cache/meta")
gen_date=$(sed -n 's/^generated=//p' "$cache/meta")
bytes=$(cat "${files[@]}" | wc -c)
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
log "binlog: ${#files[@]} file(s), $mb MiB, generated $gen_date in ${gen_seconds}s"

# ---------------------------------------------------------------------------------------------
# 2. Timings: every command BENCH_RUNS times, interleaved (so background load hits all alike),
#    output to /dev/null; best wall time (clock around /usr/bin/time, ms resolution) and the CPU
#    time (user + system, all threads) of that run, highest peak RSS (/usr/bin/time %M).

labels=(mb_sql br_sql br_events cat mb_decode br_decode br_rows_sql mb_flashback br_flashback)
declare -A cmdline desc best cpu rss failed
cmdline[mb_sql]="mariadb-binlog --no-defaults"
cmdline[br_sql]="$BINRECOVER"
cmdline[br_events]="$BINRECOVER events"
cmdline[cat]="cat"
cmdline[mb_decode]="mariadb-binlog --no-defaults --base64-output=decode-rows -v"
desc[mb_sql]='`mariadb-binlog --no-defaults FILES`'
desc[br_sql]='`binrecover FILES`'
desc[br_events]='`binrecover events FILES`'
desc[cat]='`cat FILES`'
desc[mb_decode]='`mariadb-binlog --no-defaults --base64-output=decode-rows -v FILES`'
cmdline[br_decode]="$BINRECOVER --base64-output=decode-rows -v"
desc[br_decode]='`binrecover --base64-output=decode-rows -v FILES`'
cmdline[br_rows_sql]="$BINRECOVER --rows-as-sql"
desc[br_rows_sql]='`binrecover --rows-as-sql FILES`'
# Undo SQL cannot undo the workload's DDL: both tools start at the first row transaction.
fb_start=$("$BINRECOVER" events --format=tsv "${files[0]}" |
  awk -F'\t' '!found && $3 == "Gtid" && $6 ~ /^BEGIN GTID/ { print $2; found = 1 }')
cmdline[mb_flashback]="mariadb-binlog --no-defaults --flashback --start-position=$fb_start"
desc[mb_flashback]='`mariadb-binlog --no-defaults --flashback --start-position=P FILES`'
cmdline[br_flashback]="$BINRECOVER --flashback --start-position=$fb_start"
desc[br_flashback]='`binrecover --flashback --start-position=P FILES`'

cat "${files[@]}" > /dev/null # warm the page cache
tfile=$(mktemp)
trap 'rm -f "$tfile" "$tfile.err"' EXIT
for run in $(seq 1 "$BENCH_RUNS"); do
  for l in "${labels[@]}"; do
    log "run $run/$BENCH_RUNS: ${cmdline[$l]##*/} ..."
    t0=$(date +%s%N)
    # shellcheck disable=SC2086  # cmdline holds a command and its options
    if ! nice -n 5 /usr/bin/time -f '%e %M %U %S' -o "$tfile" ${cmdline[$l]} "${files[@]}" > /dev/null 2>"$tfile.err"; then
      failed[$l]=$(grep -v -m1 '^[0-9.]* [0-9]* [0-9.]* [0-9.]*$' "$tfile" || echo "non-zero exit status")
      log "${cmdline[$l]} failed (${failed[$l]}): $(head -3 "$tfile.err")"
    fi
    t1=$(date +%s%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    read -r _ kb user sys < <(tail -1 "$tfile")
    if [ -z "${best[$l]:-}" ] || awk -v a="$secs" -v b="${best[$l]}" 'BEGIN { exit !(a < b) }'; then
      best[$l]=$secs
      cpu[$l]=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    fi
    if [ -z "${rss[$l]:-}" ] || [ "$kb" -gt "${rss[$l]}" ]; then rss[$l]=$kb; fi
  done
done
rm -f "$tfile.err"

# ---------------------------------------------------------------------------------------------
# 3. Correctness, cheaply: one more untimed run of each SQL producer. The number of '# at ' lines
#    must match, and so must the statements themselves (every line that is not a '#' comment or
#    blank, with the "ROLLBACK /* added by ... */" signature normalised).
summarize() { # prints "<count of '# at ' lines> <md5 of the SQL lines>"
  { "$@" || true; } | awk '
    /^# at / { n++ }
    !/^#/ && !/^$/ { sub(/added by (binrecover|mysqlbinlog)/, "added by X"); print | "md5sum"; sql = 1 }
    END { if (sql) close("md5sum"); else print "d41d8cd98f00b204e9800998ecf8427e -"; print n + 0 }' | { read -r md5 _; read -r n; echo "$n $md5"; }
}
log "correctness check ..."
read -r mb_at mb_md5 < <(summarize nice -n 5 mariadb-binlog --no-defaults "${files[@]}")
read -r br_at br_md5 < <(summarize nice -n 5 "$BINRECOVER" "${files[@]}")
status=0
at_verdict="equal"
[ "$mb_at" = "$br_at" ] || { at_verdict="**DIFFERENT**"; status=1; }
sql_verdict="identical"
[ "$mb_md5" = "$br_md5" ] || { sql_verdict="**DIFFERENT**"; status=1; }
[ -z "${failed[br_sql]:-}${failed[br_events]:-}" ] || status=1

# ---------------------------------------------------------------------------------------------
# 4. Report.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'; }
row() {
  local l=$1 note=$2 mbs
  mbs=$(awk -v m="$mb" -v s="${best[$l]}" 'BEGIN { if (s > 0) printf "%.0f", m / s; else print "inf" }')
  local secs=${best[$l]}
  [ -z "${failed[$l]:-}" ] || secs="$secs (FAILED: ${failed[$l]})"
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "${desc[$l]}" "$mb" "$secs" "${cpu[$l]}" "$mbs" \
    "$(awk -v k="${rss[$l]}" 'BEGIN { printf "%.1f", k / 1024 }')" "$note"
}
if [ "$BINRECOVER" -ef "$root/build/binrecover" ]; then
  binary="git $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  git diff --quiet HEAD -- binlog cli recovery CMakeLists.txt 2>/dev/null ||
    binary="$binary (with uncommitted changes)"
  stale=$(find binlog cli recovery CMakeLists.txt -newer "$BINRECOVER" -type f 2>/dev/null | head -3 | tr '\n' ' ')
else # built elsewhere: the checkout's commit says nothing about it
  binary="BINRECOVER=$BINRECOVER ($("$BINRECOVER" --version 2>/dev/null || true), built $(date -u -r "$BINRECOVER" '+%Y-%m-%d %H:%M UTC'))"
  stale=
fi
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem=$(free -g | awk '/^Mem:/ { print $2 " GiB total, " $7 " GiB available" }')

report=$(
  echo "# binrecover benchmark"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "- command: \`BENCH_MB=$BENCH_MB bash bench/run.sh\` (best of $BENCH_RUNS runs, output to /dev/null, page cache warm)"
  echo "- machine: $(nproc) CPUs ($cpu), memory $mem, load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- mariadb-binlog: $(mariadb-binlog --version)"
  echo "- binrecover: $binary, $BINRECOVER"
  [ -z "$stale" ] || echo "- WARNING: sources newer than the binary (rebuild?): $stale"
  echo "- binlog: ${names[*]} = $mb MiB ($bytes bytes), ROW format, written by $(sed -n 's/^server=//p' "$cache/meta");" \
       "generated $gen_date in ${gen_seconds}s; cache $cache"
  echo
  echo "| command | input MiB | seconds | CPU s | MiB/s | peak RSS MiB | ratio |"
  echo "|---|---:|---:|---:|---:|---:|---|"
  row mb_sql ""
  row br_sql "speed-up **$(ratio "${best[mb_sql]}" "${best[br_sql]}")x** (mariadb-binlog time / binrecover time)"
  row br_events "$(ratio "${best[br_events]}" "${best[cat]}")x the time of \`cat\`"
  row cat "lower bound: reading the files"
  row mb_decode ""
  row br_decode "speed-up **$(ratio "${best[mb_decode]}" "${best[br_decode]}")x** over mariadb-binlog -v"
  row br_rows_sql "executable SQL with column names: speed-up **$(ratio "${best[mb_decode]}" "${best[br_rows_sql]}")x** over mariadb-binlog -v"
  row mb_flashback ""
  row br_flashback "speed-up **$(ratio "${best[mb_flashback]}" "${best[br_flashback]}")x** over mariadb-binlog --flashback"
  echo
  echo "Seconds: wall time of the best run; CPU s: user + system time of that run (all threads)."
  echo
  echo "Correctness (one extra untimed run of each): \`# at \` lines: mariadb-binlog $mb_at, binrecover $br_at ($at_verdict);" \
       "SQL lines (non-comment, non-blank): md5 $mb_md5 vs $br_md5 ($sql_verdict)."
)
mkdir -p bench/results
printf '%s\n' "$report" > bench/results/latest.md
printf '%s\n' "$report"
log "written to bench/results/latest.md"
exit $status
