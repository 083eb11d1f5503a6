#!/usr/bin/env bash
# Exactly once across crashes, on a real MariaDB target (ports PA, PA+1): the workload of
# parallel_workload.sh (its counter and its table without a key show a transaction applied
# twice; every table's checksum one left out) replayed serially and with --parallel 8, and
# stopped at random moments (CRASH_RUNS of each, default 20): the target killed with SIGKILL
# (then restarted), binrecover killed with SIGKILL, SIGINT and SIGTERM. Each time
# `replay --resume` finishes it, and the target equals the source. The target has a server id of
# its own (as a recovery target does), so its GTIDs settle a DDL that was running.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/parallel_workload.sh"
PA=${1:-23721}
PT=$((PA + 1))
RUNS=${CRASH_RUNS:-20}
# CRASH_WORKERS, CRASH_HOW, CRASH_EXTRA (more replay options, e.g. --progress-table=none, which
# makes the test fail: the state file alone is one transaction behind after some kills)
read -r -a EXTRA <<< "${CRASH_EXTRA:-}"
start_server a "$PA"
start_server t "$PT" --server-id=2
run_workload "$PA" "${PARALLEL_N:-60}"
sql "$PA" -e "FLUSH BINARY LOGS"
mapfile -t files < <(binlogs_between "$WORK/a/binlog" mysql-bin.000001)
unset 'files[${#files[@]}-1]'
content "$PA" > "$WORK/expected"

replay() {
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
    --state-file="$WORK/r.state" "${EXTRA[@]}" "$@" "${files[@]}"
}
fresh_target() {
  sql "$PT" -e "DROP DATABASE IF EXISTS par; DROP DATABASE IF EXISTS binrecover; RESET MASTER"
  rm -f "$WORK/r.state" "$WORK/r.state.lock"
}

for workers in ${CRASH_WORKERS:-1 8}; do
  # How long a whole replay takes: the stops fall inside it.
  fresh_target
  start=$(date +%s%N)
  replay --parallel "$workers" 2> "$WORK/full.err" || { cat "$WORK/full.err"; fail "replay"; }
  ms=$((($(date +%s%N) - start) / 1000000))
  content "$PT" > "$WORK/got"
  diff "$WORK/expected" "$WORK/got" || fail "--parallel $workers: an uninterrupted replay differs"
  for how in ${CRASH_HOW:-target-kill kill int term}; do
    stopped_mid=0
    for run in $(seq 1 "$RUNS"); do
      fresh_target
      delay=$((RANDOM % (ms * 9 / 10 + 1)))
      (exec "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
        --state-file="$WORK/r.state" --parallel "$workers" "${EXTRA[@]}" "${files[@]}" \
        2> "$WORK/first.err") &
      pid=$!  # binrecover's own pid (exec)
      sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
      case $how in
        target-kill) kill -9 "$(cat "$WORK/t/mysqld.pid")" ;;
        kill) kill -9 "$pid" 2> /dev/null || true ;;
        int) kill -INT "$pid" 2> /dev/null || true ;;
        term) kill -TERM "$pid" 2> /dev/null || true ;;
      esac
      rc=0
      { wait "$pid"; } 2> /dev/null || rc=$?
      if [ "$how" = target-kill ]; then
        "$ROOT/scripts/mariadb_server.sh" restart "$WORK/t" "$PT" > /dev/null
      fi
      case "$how:$rc" in
        *:0) ;;                            # it had finished
        target-kill:6 | kill:137 | int:130 | term:130 | term:143) stopped_mid=$((stopped_mid + 1)) ;;
        *) cat "$WORK/first.err"; fail "--parallel $workers, $how after ${delay} ms: exit $rc" ;;
      esac
      if [ "$how" = int ] || [ "$how" = term ]; then
        # (a signal before binrecover has set up its handler ends it at once, silently)
        [ $rc = 0 ] || [ ! -s "$WORK/first.err" ] ||
          grep -q "stopped by SIG.*continue there with --resume" "$WORK/first.err" ||
          { cat "$WORK/first.err"; fail "--parallel $workers, $how: no resume message"; }
      fi
      rc=0
      replay --parallel "$workers" --resume 2> "$WORK/resume.err" || rc=$?
      if [ $rc = 2 ] && grep -q "there is no replay state file" "$WORK/resume.err"; then
        # Stopped before anything was applied or recorded: a new replay.
        rc=0
        replay --parallel "$workers" 2> "$WORK/resume.err" || rc=$?
      fi
      [ $rc = 0 ] || { cat "$WORK/first.err" "$WORK/resume.err"; fail "--parallel $workers, $how after ${delay} ms: --resume exited $rc"; }
      content "$PT" > "$WORK/got"
      diff "$WORK/expected" "$WORK/got" > "$WORK/diff" ||
        { cat "$WORK/diff" "$WORK/first.err" "$WORK/resume.err"; fail "--parallel $workers, $how after ${delay} ms, resumed: the target differs"; }
    done
    [ "$stopped_mid" -ge $((RUNS / 2)) ] ||
      fail "--parallel $workers, $how: only $stopped_mid of $RUNS stops came before the end"
    pass "--parallel $workers, $how at $RUNS random moments ($stopped_mid mid-replay), --resume: target equals the source, counter and keyless table exact"
  done
done
