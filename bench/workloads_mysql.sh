#!/usr/bin/env bash
# Benchmark: bench/workloads.sh's workloads on MySQL 9.7 (issue 30: parallel replay never slower
# than serial, on a MySQL target too). Each workload (bench/workloads_lib.sh) is written by its
# clients at once on a throwaway MySQL source (scripts/mysql_server.sh: GTIDs on, ROW format),
# then replayed into a fresh MySQL target per run (innodb_flush_log_at_trx_commit=1,
# sync_binlog=1, binary log on, the Performance Schema on as MySQL has it by default; its
# tables first made by a replay of the workload's first file, not timed) by each way:
#   my_pipe  mysqlbinlog F | mysql   (MySQL 9.7's own tools, run in the chroot of
#            scripts/mysql_server.sh: its time includes the chroot's start, about 0.13 s here)
#   replay   binrecover replay F
#   par8     binrecover replay --parallel 8 F
#   par8n    binrecover replay --parallel 8 --no-preserve-commit-order F
# Seconds (median of BENCH_RUNS runs, the ways in turn), binrecover's retries (the most of the
# runs, from --report); the target's tables must equal the source's (CHECKSUM TABLE) after
# every run.
#   bash bench/workloads_mysql.sh [WORKLOAD...]
# Environment: BENCH_TX (650 per client), BENCH_PORT (23970: the source; the target +1),
# BENCH_RUNS (3), BENCH_METHODS (my_pipe replay par8 par8n), MOVES_ROUNDS (40), BINRECOVER.
# Results: bench/results/workloads_mysql.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BENCH_TX=${BENCH_TX:-650}
BENCH_PORT=${BENCH_PORT:-23970}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_METHODS=${BENCH_METHODS:-my_pipe replay par8 par8n}
BINRECOVER=${BINRECOVER:-$root/build/binrecover}
export MOVES_FLAVOR=mysql
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(upsert unique hot replace small emails savepoint moves ddl keyless myisam)
work=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-bench-mysql.XXXXXX")
# shellcheck disable=SC2154  # (s: the trap's own loop)
trap 'for s in src tgt; do scripts/mysql_server.sh discard "$work/$s" > /dev/null 2>&1 || true; done
  [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
log() { echo "bench: $*" >&2; }
PS=$BENCH_PORT
PT=$((BENCH_PORT + 1))
sql() {  # PORT ARGS...
  local p=$1
  shift
  mariadb --no-defaults -h127.0.0.1 -P"$p" -uroot --default-character-set=utf8mb4 "$@"
}
source bench/workloads_lib.sh

checksum() {  # PORT: CHECKSUM TABLE of the workload's tables
  local tables
  tables=$(sql "$1" -N -e "SELECT GROUP_CONCAT(CONCAT('w.', TABLE_NAME) ORDER BY TABLE_NAME)
    FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'w'")
  sql "$1" -N -e "CHECKSUM TABLE $tables" | awk '{ print $1 "=" $2 }' | tr '\n' ' '
}

# run WORKLOAD METHOD: one run into a fresh target; appends its seconds to $work/W.M and its
# retries to $work/W.M.retries.
run() {
  local w=$1 m=$2 t0 t1 sum
  scripts/mysql_server.sh start "$work/tgt" "$PT" --server-id=2 --performance-schema=ON > /dev/null
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
    --state-file="$work/state0" "$work/$w.0" 2> "$work/err" || { cat "$work/err"; exit 1; }
  rm -f "$work/state0" "$work/state0".* "$work/state" "$work/state".* "$work/report.json"
  local br=("$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot
    --state-file="$work/state" --report="$work/report.json")
  t0=$(date +%s.%N)
  # shellcheck disable=SC2016  # (my_pipe's $1 and $2: the chroot's bash expands them)
  case $m in
    my_pipe) scripts/mysql_server.sh exec bash -c 'mysqlbinlog --no-defaults "$1" |
      mysql --no-defaults -h127.0.0.1 -P"$2" -uroot' my_pipe "$work/$w.1" "$PT" ;;
    replay) "${br[@]}" "$work/$w.1" ;;
    par8) "${br[@]}" --parallel 8 "$work/$w.1" ;;
    par8n) "${br[@]}" --parallel 8 --no-preserve-commit-order "$work/$w.1" ;;
    *) log "no way $m" && exit 2 ;;
  esac
  t1=$(date +%s.%N)
  sum=$(checksum "$PT")
  scripts/mysql_server.sh discard "$work/tgt"
  rm -rf "$work/tgt"
  [ "$sum" = "$(cat "$work/$w.sum")" ] ||
    { log "$w $m: CHECKSUM TABLE differs: $sum vs $(cat "$work/$w.sum")"; exit 1; }
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >> "$work/$w.$m"
  if [ -f "$work/report.json" ]; then
    sed -n 's/.*"retries":\([0-9]*\).*/\1/p' "$work/report.json" >> "$work/$w.$m.retries"
  fi
}

scripts/mysql_server.sh start "$work/src" "$PS" > /dev/null
for w in "${workloads[@]}"; do
  log "$w: writing the binlog ($BENCH_TX transactions from each of $(clients "$w") clients)"
  sql "$PS" -e "DROP DATABASE IF EXISTS w; RESET BINARY LOGS AND GTIDS"
  { echo "CREATE DATABASE w; USE w;"; schema "$w"; } | sql "$PS"
  sql "$PS" -e "FLUSH BINARY LOGS"
  for c in $(seq 1 "$(clients "$w")"); do
    client "$w" "$c" > "$work/client$c.sql"
    sql "$PS" < "$work/client$c.sql" &
  done
  wait
  sql "$PS" -e "FLUSH BINARY LOGS"
  cp "$work/src/binlog/mysql-bin.000001" "$work/$w.0"
  cp "$work/src/binlog/mysql-bin.000002" "$work/$w.1"
  checksum "$PS" > "$work/$w.sum"
  for _ in $(seq 1 "$BENCH_RUNS"); do
    for m in $BENCH_METHODS; do
      run "$w" "$m"
      log "$w $m: $(tail -1 "$work/$w.$m") s"
    done
  done
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
{
  echo "# Replay of the hard workloads into MySQL"
  echo
  echo "- command: \`BENCH_METHODS=\"$BENCH_METHODS\" bash bench/workloads_mysql.sh\` ($BENCH_TX transactions from each of 4 clients, moves $((${MOVES_ROUNDS:-40} * 18)) transactions from one; median of $BENCH_RUNS runs, each into a fresh MySQL 9.7 target, flush=1, sync_binlog=1, Performance Schema on)"
  echo "- binrecover: git $(git rev-parse --short HEAD 2> /dev/null || echo unknown); $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores"
  echo
  echo "seconds (binrecover's retries, the most of the runs, in brackets; par8 / replay last):"
  echo
  printf '| workload |'
  for m in $BENCH_METHODS; do printf ' %s |' "$m"; done
  echo ' par8 / replay |'
  printf '|---|'
  for _ in $BENCH_METHODS; do printf -- '---|'; done
  echo '---|'
  for w in "${workloads[@]}"; do
    printf '| %s |' "$w"
    for m in $BENCH_METHODS; do
      re=$(sort -n "$work/$w.$m.retries" 2> /dev/null | tail -1 || true)
      printf ' %s%s |' "$(median "$work/$w.$m")" "${re:+ ($re)}"
    done
    if [ -f "$work/$w.par8" ] && [ -f "$work/$w.replay" ]; then
      awk -v a="$(median "$work/$w.par8")" -v b="$(median "$work/$w.replay")" \
        'BEGIN { printf " %.2f |\n", a / b }'
    else
      echo ' - |'
    fi
  done
  echo
  echo "CHECKSUM TABLE equal to the source's after every run."
} | tee bench/results/workloads_mysql.md
