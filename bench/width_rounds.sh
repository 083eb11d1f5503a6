#!/usr/bin/env bash
# Benchmark: serial replay against --parallel 8 (or any ways of `binrecover replay`, from any
# builds) on the hard workloads of bench/workloads_lib.sh, in alternating rounds into one
# MariaDB target: each round runs every way once, from the next way each round, the target
# emptied between runs (its databases dropped, RESET MASTER). A few percent between serial and --parallel, which a fresh
# server per run (bench/workloads.sh) hides under its start-up and the disk's first syncs, show
# here as medians of many rounds.
#   bash bench/width_rounds.sh [WORKLOAD...]          (default: moves unique hot small ddl)
# Environment: BENCH_ROUNDS (9), BENCH_TX (650 transactions a client), BENCH_PORT (23950: the
# source, +1 the target), BENCH_TMPFS=1 (the target's data in /dev/shm: no disk syncs, the
# CPU's cost alone), BENCH_WAYS (the ways, ';'-separated, each "NAME|BINARY|OPTIONS"; default
# "serial|B|;par8|B|--parallel 8" with B the binary under test, BINRECOVER or build/binrecover;
# BINARY `mariadb-binlog`: `mariadb-binlog OPTIONS F | mariadb`), BENCH_DELAY_MS (none: each
# way reaches the target through bench/delay_proxy.py, which delays every byte by that many ms
# each way: a target on another host, where a transaction's round trip sets the pace).
# Prints per workload and way: the median wall time in ms, every run's, the ratio to the first
# way, and --report's sessions (s), transactions on one session (n), width changes (ch) and
# retries (r) of the last run. Every run's CHECKSUM TABLE must equal the source's.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BENCH_ROUNDS=${BENCH_ROUNDS:-9}
BENCH_TX=${BENCH_TX:-650}
BENCH_PORT=${BENCH_PORT:-23950}
B=${BINRECOVER:-$root/build/binrecover}
BENCH_WAYS=${BENCH_WAYS:-serial|$B|;par8|$B|--parallel 8}
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(moves unique hot small ddl)
work=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-bench-rounds.XXXXXX")
tgt=$work/tgt
[ "${BENCH_TMPFS:-0}" = 1 ] && tgt=$(mktemp -d /dev/shm/binrecover-bench-rounds.XXXXXX)
# shellcheck disable=SC2154  # (d: the trap's own loop)
trap 'for d in "$work/src" "$tgt"; do scripts/mariadb_server.sh discard "$d" > /dev/null 2>&1 || true; done
  [ -z "${proxy:-}" ] || kill "$proxy" 2> /dev/null || true
  rm -rf "$work" "$tgt"' EXIT
PS=$BENCH_PORT
PT=$((BENCH_PORT + 1))
RP=$PT  # (the port the ways reach the target at: the proxy's with BENCH_DELAY_MS)
sql() {  # PORT ARGS...
  local p=$1
  shift
  mariadb --no-defaults -h127.0.0.1 -P"$p" -uroot "$@"
}
checksum() {  # PORT
  local tables
  tables=$(sql "$1" -N -e "SELECT GROUP_CONCAT(CONCAT('w.', TABLE_NAME) ORDER BY TABLE_NAME)
    FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'w'")
  sql "$1" -N -e "CHECKSUM TABLE $tables" | awk '{ print $1 "=" $2 }' | tr '\n' ' '
}
field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$2" 2> /dev/null || true; }
source bench/workloads_lib.sh

scripts/mariadb_server.sh start "$work/src" "$PS" --binlog-format=ROW > /dev/null
scripts/mariadb_server.sh start "$tgt" "$PT" --innodb-flush-log-at-trx-commit=1 \
  --innodb-buffer-pool-size=512M --innodb-log-file-size=256M --log-slave-updates=ON \
  --server-id=2 --max-allowed-packet=1G > /dev/null
IFS=';' read -r -a ways <<< "$BENCH_WAYS"
if [ -n "${BENCH_DELAY_MS:-}" ]; then
  RP=$((BENCH_PORT + 2))
  python3 bench/delay_proxy.py "$RP" "$PT" "$(awk -v m="$BENCH_DELAY_MS" 'BEGIN { print m / 1000 }')" &
  proxy=$!
  disown "$proxy"  # (write_log's `wait` for its clients must not wait for it)
  for _ in $(seq 100); do sql "$RP" -e "DO 0" 2> /dev/null && break; sleep 0.1; done
fi
echo "# rounds: $BENCH_ROUNDS; target: $([ "${BENCH_TMPFS:-0}" = 1 ] && echo tmpfs || echo disk), flush=1$([ -z "${BENCH_DELAY_MS:-}" ] || echo ", reached through a proxy delaying ${BENCH_DELAY_MS} ms each way"); $(nproc) cores; git $(git rev-parse --short HEAD 2> /dev/null || echo unknown)"
for w in "${workloads[@]}"; do
  write_log "$w" "$PS" "$work/src" "$work/$w.000001"
  expected=$(checksum "$PS")
  declare -A times=()
  for ((r = 0; r < BENCH_ROUNDS; r++)); do
    # (each round starts at the next way: a run pays for the one before it, the target's
    # background work after DROP DATABASE, and always after the same way it paid 14% on the
    # ddl log)
    for ((k = 0; k < ${#ways[@]}; k++)); do
      way=${ways[$(((r + k) % ${#ways[@]}))]}
      IFS='|' read -r name bin opts <<< "$way"
      sql "$PT" -e "DROP DATABASE IF EXISTS w; DROP DATABASE IF EXISTS binrecover; RESET MASTER"
      rm -f "$work/state" "$work/state".*
      t0=$(date +%s%N)
      rm -f "$work/$name.json"
      if [ "$bin" = mariadb-binlog ]; then  # (the vendor's pipe: not crash-safe, no state)
        # shellcheck disable=SC2086  # (the way's options, one word each)
        mariadb-binlog --no-defaults $opts "$work/$w.000001" 2> "$work/err" |
          mariadb --no-defaults -h127.0.0.1 -P"$RP" -uroot 2>> "$work/err" ||
          { cat "$work/err"; echo "bench: $w $name failed" >&2; exit 1; }
      else
        # shellcheck disable=SC2086  # (the way's options, one word each)
        "$bin" replay --no-defaults --no-progress -h127.0.0.1 -P"$RP" -uroot $opts \
          --state-file="$work/state" --report="$work/$name.json" "$work/$w.000001" \
          2> "$work/err" || { cat "$work/err"; echo "bench: $w $name failed" >&2; exit 1; }
      fi
      t1=$(date +%s%N)
      [ "$(checksum "$PT")" = "$expected" ] || { echo "bench: $w $name: CHECKSUM TABLE differs" >&2; exit 1; }
      times[$name]+="$(((t1 - t0) / 1000000)) "
    done
  done
  echo "## $w ($(grep -c . <<< "$(tr ' ' '\n' <<< "${times[${ways[0]%%|*}]}")") runs each)"
  base=
  for way in "${ways[@]}"; do
    name=${way%%|*}
    med=$(tr ' ' '\n' <<< "${times[$name]}" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    [ -n "$base" ] || base=$med
    j=$work/$name.json
    printf '%-8s %6s ms  x%.3f  (%s) s=%s n=%s ch=%s r=%s\n' "$name" "$med" \
      "$(awk -v a="$med" -v b="$base" 'BEGIN { print a / b }')" "${times[$name]% }" \
      "$(field sessions "$j")" "$(field narrowed "$j")" "$(field width_changes "$j")" "$(field retries "$j")"
  done
  unset times
done
