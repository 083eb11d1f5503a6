#!/usr/bin/env bash
# Benchmark: replay of the workloads where parallel replay is hardest (issue 30), each one a
# binlog of its own written by a real MariaDB with 4 clients at once, then replayed by every way
# with bench/replay.sh (fresh target each run, CHECKSUM TABLE equal after every run): upsert,
# unique, hot, replace, small, emails, savepoint, moves, ddl, keyless, myisam
# (bench/workloads_lib.sh says what each is). bench/workloads_mysql.sh does the same on MySQL
# 9.7.
# Each workload runs BENCH_TX transactions per client (default 650: 2,600 in all).
#   bash bench/workloads.sh [WORKLOAD...]
# Environment: BENCH_TX, BENCH_PORT (23900; bench/replay.sh gets BENCH_PORT+10), BENCH_RUNS (3),
# BENCH_METHODS (mb_pipe replay par8 par8n replaym par8m), BENCH_FLUSH (1), BINRECOVER.
# Results: bench/results/workload-NAME.md, and bench/results/workloads.md (a summary table).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BENCH_TX=${BENCH_TX:-650}
BENCH_PORT=${BENCH_PORT:-23900}
export BENCH_RUNS=${BENCH_RUNS:-3}
export BENCH_METHODS=${BENCH_METHODS:-mb_pipe replay par8 par8n replaym par8m}
export BENCH_FLUSH=${BENCH_FLUSH:-1}
export BINRECOVER=${BINRECOVER:-$root/build/binrecover}
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(upsert unique hot replace small emails savepoint moves ddl keyless myisam)
work=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-bench-workloads.XXXXXX")
trap 'scripts/mariadb_server.sh stop "$work/src" > /dev/null 2>&1 || true
  [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
log() { echo "bench: $*" >&2; }

source bench/workloads_lib.sh

scripts/mariadb_server.sh start "$work/src" "$BENCH_PORT" --binlog-format=ROW > /dev/null
summary=()
for w in "${workloads[@]}"; do
  log "$w: writing the binlog ($BENCH_TX transactions from each of $(clients "$w") clients)"
  write_log "$w" "$BENCH_PORT" "$work/src" "$work/$w.000001"
  BENCH_PORT=$((BENCH_PORT + 10)) BENCH_RESULT="bench/results/workload-$w.md" \
    bash bench/replay.sh "$work/$w.000001" > /dev/null
  summary+=("$w")
done

{
  echo "# Replay of the hard workloads"
  echo
  echo "- command: \`bash bench/workloads.sh\` ($BENCH_TX transactions from each of 4 clients per workload; median of $BENCH_RUNS runs; innodb_flush_log_at_trx_commit=$BENCH_FLUSH)"
  echo "- binrecover: git $(git rev-parse --short HEAD 2> /dev/null || echo unknown); $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores"
  echo
  echo "seconds (binrecover's retries in brackets), each way into a fresh MariaDB:"
  echo
  printf '| workload |'; for m in $BENCH_METHODS; do printf ' %s |' "$m"; done; echo
  printf '|---|'; for _ in $BENCH_METHODS; do printf -- '---|'; done; echo
  for w in "${summary[@]}"; do
    printf '| %s |' "$w"
    for m in $BENCH_METHODS; do
      awk -F'|' -v m=" $m " '$2 == m { gsub(/ /, "", $3); gsub(/ /, "", $9); printf " %s%s |", $3,
        ($9 != "" && $9 != "-" ? " (" $9 ")" : "") }' "bench/results/workload-$w.md"
    done
    echo
  done
} | tee bench/results/workloads.md
