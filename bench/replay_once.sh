#!/usr/bin/env bash
# One replay into a MariaDB target made fresh first (the workload's database `w` and
# binrecover's own dropped, RESET MASTER): the unit that bench/paired.sh times, e.g.
#   bash bench/paired.sh -n 7 -- \
#     'bash bench/replay_once.sh build/binrecover 23990 F --parallel 8' \
#     'bash bench/replay_once.sh build/binrecover 23990 F'
# with a target started by scripts/mariadb_server.sh start DIR 23990 --server-id=2
# --log-slave-updates=ON and F a log of bench/workloads.sh (BENCH_KEEP=1 keeps it).
#   bash bench/replay_once.sh BINRECOVER PORT FILE [REPLAY OPTIONS...]
set -euo pipefail
bin=$1 port=$2 file=$3
shift 3
mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot \
  -e "DROP DATABASE IF EXISTS w; DROP DATABASE IF EXISTS binrecover; RESET MASTER"
state=$(mktemp -u "${TMPDIR:-/tmp}/binrecover-replay-once.XXXXXX")
trap 'rm -f "$state" "$state.lock" "$state.journal"' EXIT
"$bin" replay --no-defaults --no-progress -h127.0.0.1 -P"$port" -uroot "$@" \
  --state-file="$state" "$file"
