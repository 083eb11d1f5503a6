#!/usr/bin/env bash
# shellcheck disable=SC2016  # backquotes in single quotes are markdown
# Benchmark: the time until the database is back, by every way of applying a binlog, side by
# side on the same machine, into a fresh MariaDB each run:
#   mb_pipe  mariadb-binlog F | mariadb
#   br_pipe  binrecover F | mariadb
#   replay   binrecover replay F                 (one session, crash-safe)
#   par4     binrecover replay --parallel 4 F
#   par8     binrecover replay --parallel 8 F
#   par8n    binrecover replay --parallel 8 --no-preserve-commit-order F
#   replaym  binrecover replay --merge-transactions 8 F (up to 8 small transactions as one)
#   par8m    binrecover replay --parallel 8 --merge-transactions 8 F
#   sa1      binrecover replay --server-applier F (the target's own applier, binrecover its source)
#   sa8      binrecover replay --server-applier --parallel 8 F (slave_parallel_threads=8)
#   sa8m     the same with --merge-transactions 8 (up to 8 small transactions committed as one)
#   relay8   MariaDB's own parallel applier: a replica (slave_parallel_threads=8, optimistic) of a
#            server whose binlog is F, from START SLAVE until MASTER_GTID_WAIT of F's last GTID
# F: the first BENCH_REPLAY_MB MiB of the bench binlog (bench/run.sh generates and caches it),
# cut at a transaction's end. Every target runs with its binary log on and log_slave_updates,
# so each way writes the same binlog; once with innodb_flush_log_at_trx_commit=1 (the default)
# and once with 2. The tables' CHECKSUM TABLE must be equal after every run.
#   bash bench/replay.sh [BINLOG]
# Environment: BENCH_RUNS (3, the median is reported), BENCH_PORT (23395), BENCH_REPLAY_MB (100),
# BENCH_METHODS (all), BENCH_FLUSH ("1 2"), BINRECOVER (build/binrecover), BENCH_SOCKET (1: the
# ways reach the target through its socket, as a replay on the target's host would; default TCP
# to 127.0.0.1, whose loopback costs the machine a packet's work each way a transaction).
# Writes the table to stdout and to bench/results/replay.md (BENCH_RESULT names another file).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
root=$PWD
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_PORT=${BENCH_PORT:-23395}
BENCH_REPLAY_MB=${BENCH_REPLAY_MB:-100}
BENCH_METHODS=${BENCH_METHODS:-mb_pipe br_pipe replay replaym par4 par8 par8m sa1 sa8 sa8m relay8}
BENCH_FLUSH=${BENCH_FLUSH:-1 2}
BINRECOVER=${BINRECOVER:-$root/build/binrecover}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/binrecover
src=${1:-$(ls -S "$cache"/bench-*/mysql-bin.000001 2> /dev/null | head -1)}
[ -f "$src" ] || { echo "bench: no binlog: run bash bench/run.sh first, or name one" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-bench-replay.XXXXXX")
trap 'for s in srv source; do scripts/mariadb_server.sh stop "$work/$s" > /dev/null 2>&1 || true; done
  [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
log() { echo "bench: $*" >&2; }

# The prefix: up to the end of the first transaction past BENCH_REPLAY_MB MiB.
"$BINRECOVER" events --format=tsv "$src" > "$work/events.tsv"
cut=$(awk -F'\t' -v at=$((BENCH_REPLAY_MB * 1048576)) '$3 == "Xid" && $5 >= at { print $5; exit }' \
  "$work/events.tsv")
[ -n "$cut" ] || cut=$(stat -c %s "$src")
F=$work/bench.000001
head -c "$cut" "$src" > "$F"
"$BINRECOVER" events --format=tsv "$F" > "$work/events.tsv"
transactions=$(awk -F'\t' '$3 == "Xid"' "$work/events.tsv" | wc -l)
rows=$("$BINRECOVER" --base64-output=decode-rows -v "$F" | grep -c '^### \(INSERT\|UPDATE\|DELETE\) ')
last_gtid=$(awk -F'\t' '$3 == "Gtid" { g = $6 } END { sub(/^BEGIN GTID /, "", g); sub(/ .*/, "", g); print g }' \
  "$work/events.tsv")
mb=$(awk -v b="$cut" 'BEGIN { printf "%.1f", b / 1048576 }')
log "input: $mb MiB, $transactions transactions, $rows row changes, last GTID $last_gtid"

port=$BENCH_PORT
# relay8: a source server whose binary log is F (started once), replicated by a fresh replica
# each run: its I/O thread copies F over loopback while 8 applier threads apply it. (The
# "binlog as relay log" trick crashes MariaDB 10.11.19's parallel applier: signal 11 in
# apply_event_and_update_pos_for_parallel.)
source_port=$((BENCH_PORT + 1))
if [[ " $BENCH_METHODS " == *" relay8 "* ]]; then
  server_with_binlog "$work/source" "$source_port" "$F"
fi
conn=(--no-defaults -h127.0.0.1 -P"$port" -uroot)
[ "${BENCH_SOCKET:-0}" = 1 ] && conn=(--no-defaults -S "$work/srv/mysqld.sock" -uroot)
client=(mariadb "${conn[@]}" --max-allowed-packet=1G)
server_opts() {  # FLUSH: the target's options
  echo "--innodb-flush-log-at-trx-commit=$1 --innodb-buffer-pool-size=512M"
  echo "--innodb-log-file-size=256M --log-slave-updates=ON --server-id=2 --max-allowed-packet=1G"
}
checksum() {  # CHECKSUM TABLE of every table outside the system schemas, by name
  local tables
  tables=$("${client[@]}" -N -e "SELECT GROUP_CONCAT(CONCAT('\`', TABLE_SCHEMA, '\`.\`', TABLE_NAME, '\`')
    ORDER BY TABLE_SCHEMA, TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA NOT IN
    ('mysql', 'information_schema', 'performance_schema', 'sys', 'binrecover') AND TABLE_TYPE = 'BASE TABLE'")
  [ -n "$tables" ] && [ "$tables" != NULL ] || { log "no tables on the target"; return 1; }
  "${client[@]}" -N -e "CHECKSUM TABLE $tables" | awk '{ print $1 "=" $2 }' | tr '\n' ' '
}

# The machine's busy CPU time so far, in clock ticks of all cores (/proc/stat: every state but
# idle and iowait): what every process of a way used, the target, binrecover, the clients, the
# kernel's network and disk work for them. On C cores no way can take less than CPU / C seconds.
busy_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
# The CPU ticks of the processes this script waited for (binrecover, mariadb-binlog, the
# client: /proc/$$/stat's cutime + cstime) and of the target's server (utime + stime).
client_ticks() { awk '{ print $16 + $17 }' "/proc/$$/stat"; }
target_ticks() { awk '{ print $14 + $15 }' "/proc/$(cat "$work/srv/mysqld.pid")/stat"; }

# br_replay OPTION...: binrecover replay of F with the options; its retries (the report's) go to
# $work/retries.
br_replay() {
  rm -f "$work/report.json"
  "$BINRECOVER" replay "${conn[@]}" --no-progress --state-file="$work/state" \
    --report="$work/report.json" "$@" "$F"
  sed -n 's/.*"retries":\([0-9]*\).*/\1/p' "$work/report.json" > "$work/retries"
}

# run METHOD FLUSH: one run into a fresh server; appends "seconds" to $work/METHOD.FLUSH and the
# machine's CPU seconds during it to $work/METHOD.FLUSH.cpu.
run() {
  local m=$1 flush=$2 t0 t1 replica=()
  [ "$m" = relay8 ] && replica=(--skip-slave-start --slave-parallel-threads=8
    --slave-parallel-mode=optimistic)
  # shellcheck disable=SC2046
  scripts/mariadb_server.sh start "$work/srv" "$port" $(server_opts "$flush") "${replica[@]}" > /dev/null
  [ "$m" = relay8 ] && "${client[@]}" -e "CHANGE MASTER TO MASTER_HOST='127.0.0.1',
      MASTER_PORT=$source_port, MASTER_USER='root', MASTER_LOG_FILE='mysql-bin.000001',
      MASTER_LOG_POS=4, MASTER_USE_GTID=no"
  rm -f "$work/state" "$work/retries"
  c0=$(busy_ticks)
  k0=$(client_ticks)
  s0=$(target_ticks)
  t0=$(date +%s.%N)
  case $m in
    mb_pipe) mariadb-binlog --no-defaults "$F" | "${client[@]}" ;;
    br_pipe) "$BINRECOVER" "$F" | "${client[@]}" ;;
    replay) br_replay ;;
    par4) br_replay --parallel 4 ;;
    par8) br_replay --parallel 8 ;;
    par8n) br_replay --parallel 8 --no-preserve-commit-order ;;
    replaym) br_replay --merge-transactions 8 ;;
    par8m) br_replay --parallel 8 --merge-transactions 8 ;;
    sa1) br_replay --server-applier ;;
    sa8) br_replay --server-applier --parallel 8 ;;
    sa8m) br_replay --server-applier --parallel 8 --merge-transactions 8 ;;
    relay8) "${client[@]}" -N -e "START SLAVE; SELECT MASTER_GTID_WAIT('$last_gtid', 3600)" |
      grep -qx 0 || { log "relay8: MASTER_GTID_WAIT failed"; exit 1; } ;;
  esac
  t1=$(date +%s.%N)
  c1=$(busy_ticks)
  k1=$(client_ticks)
  s1=$(target_ticks)
  local sum retried
  # The target's parallel applier retries a transaction that conflicted with an earlier one.
  retried=$("${client[@]}" -N -e "SHOW GLOBAL STATUS LIKE 'Slave_retried_transactions'" | cut -f2)
  [ "${retried:-0}" = 0 ] || log "$m flush=$flush: the target retried $retried transaction(s)"
  sum=$(checksum)
  scripts/mariadb_server.sh stop "$work/srv"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' >> "$work/$m.$flush"
  awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f\n", (b - a) / hz }' \
    >> "$work/$m.$flush.cpu"
  awk -v a="$k0" -v b="$k1" -v c="$s0" -v d="$s1" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.2f %.2f\n", (b - a) / hz, (d - c) / hz }' >> "$work/$m.$flush.split"
  cat "$work/retries" 2> /dev/null >> "$work/$m.$flush.retries" || true
  if [ ! -f "$work/sum" ]; then
    echo "$sum" > "$work/sum"
  elif [ "$sum" != "$(cat "$work/sum")" ]; then
    log "$m (flush $flush): CHECKSUM TABLE differs: $sum vs $(cat "$work/sum")"
    exit 1
  fi
}

for flush in $BENCH_FLUSH; do
  for _ in $(seq 1 "$BENCH_RUNS"); do
    for m in $BENCH_METHODS; do
      run "$m" "$flush"
      log "$m flush=$flush: $(tail -1 "$work/$m.$flush") s, machine CPU $(tail -1 "$work/$m.$flush.cpu") s (clients, target: $(tail -1 "$work/$m.$flush.split"))"
    done
  done
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
{
  echo "# Replay benchmark"
  echo
  echo "- command: \`$([ "${BENCH_SOCKET:-0}" = 1 ] && echo "BENCH_SOCKET=1 ")BENCH_METHODS=\"$BENCH_METHODS\" bash bench/replay.sh\` (median of $BENCH_RUNS runs, each into a fresh server)"
  echo "- input: the first $mb MiB of $(basename "$src")${1:+ ($1)}: $transactions transactions, $rows row changes"
  echo "- machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); $(mariadbd --version | head -1)"
  echo "- binrecover: git $(git rev-parse --short HEAD 2> /dev/null || echo unknown); $(date -u '+%Y-%m-%d %H:%M UTC')"
  for flush in $BENCH_FLUSH; do
    echo
    echo "innodb_flush_log_at_trx_commit=$flush:"
    echo
    echo "| method | seconds | transactions/s | rows/s | vs mb_pipe | machine CPU s | CPU s / $(nproc) cores | clients CPU s | target CPU s | retries |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    base=$(median "$work/mb_pipe.$flush" 2> /dev/null || echo 0)
    for m in $BENCH_METHODS; do
      s=$(median "$work/$m.$flush")
      c=$(median "$work/$m.$flush.cpu")
      # (binrecover's retries: the most of any run; "-" for the ways that are not binrecover replay)
      re=$(sort -n "$work/$m.$flush.retries" 2> /dev/null | tail -1)
      cl=$(cut -d' ' -f1 "$work/$m.$flush.split" > "$work/x" && median "$work/x")
      tg=$(cut -d' ' -f2 "$work/$m.$flush.split" > "$work/x" && median "$work/x")
      awk -v m="$m" -v s="$s" -v t="$transactions" -v r="$rows" -v b="$base" -v c="$c" -v n="$(nproc)" \
        -v re="${re:--}" -v cl="$cl" -v tg="$tg" 'BEGIN {
        printf "| %s | %.2f | %.0f | %.0f | %s | %.2f | %.2f | %.2f | %.2f | %s |\n", m, s, t / s,
          r / s, (b > 0 ? sprintf("%.2fx", b / s) : "-"), c, c / n, cl, tg, re }'
    done
  done
  echo
  echo "machine CPU s: the busy time of all cores during the run (/proc/stat, median), every process"
  echo "included; CPU s / cores: the least wall time that work can take on this machine. clients:"
  echo "the processes the bench ran (binrecover, mariadb-binlog, the client); target: its server."
  echo
  echo "CHECKSUM TABLE equal after every run: $(cat "$work/sum")"
} | tee "${BENCH_RESULT:-bench/results/replay.md}"
