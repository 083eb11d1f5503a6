#!/usr/bin/env bash
# Exactly once across crashes, on a real MariaDB target (ports PA, PA+1): the workload of
# parallel_workload.sh (its counter and its table without a key show a transaction applied
# twice; every table's checksum one left out) replayed serially, with --parallel 8 and with
# --server-applier --parallel 8 (at the end), every other run merging small transactions
# (--merge-transactions 4), and stopped at moments spread over the replay (CRASH_RUNS of each
# kind, default 8: one at a random point of each eighth of its time, see moment below; SIGINT
# and SIGTERM, the same graceful stop, half as many each): the target killed with SIGKILL (then
# restarted), binrecover killed with SIGKILL, SIGINT and SIGTERM. Each time
# `replay --resume` finishes it, and the target equals the source. The target has a server id of
# its own (as a recovery target does), so its GTIDs settle a DDL that was running.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/parallel_workload.sh"
PA=${1:-23721}
PT=$((PA + 1))
RUNS=${CRASH_RUNS:-8}
# moment MS N K: when the Nth (from 0) of K stops falls, in ms: a random point of the Nth of K
# equal slices of the first 90 % of a replay that takes MS. Spread so, a few stops cover the
# whole replay (the start, DDL, bulk and the end) as many random ones would by chance.
moment() {
  local w=$(($1 * 9 / 10))
  echo $((($2 * w + (RANDOM * 32768 + RANDOM) % (w + 1)) / $3))
}
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

"$BINRECOVER" events --format=tsv "${files[@]}" > "$WORK/events.tsv"

# in_doubt_answer: what a DBA does when --resume cannot settle a DDL that was running (MariaDB,
# the target restarted): looks on the target for what the state file's unit in doubt does.
in_doubt_answer() {
  local at stmt t q
  at=$(sed -n 's/^in_doubt_begin=//p' "$WORK/r.state")
  stmt=$(awk -F'\t' -v at="$at" '$2 >= at && $3 == "Query" { print $6; exit }' "$WORK/events.tsv")
  case $stmt in
    "CREATE DATABASE par"*) q="SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'par'" ;;
    "CREATE TABLE par."*)
      t=${stmt#CREATE TABLE par.}
      t=${t%% *}
      q="SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'par' AND TABLE_NAME = '$t'" ;;
    "ALTER TABLE par.child ADD COLUMN extra"*)
      q="SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'par' AND TABLE_NAME = 'child' AND COLUMN_NAME = 'extra'" ;;
    *) fail "a unit in doubt that the test cannot look at: $stmt" ;;
  esac
  if [ "$(sql "$PT" -N -e "$q")" = 1 ]; then echo applied; else echo not-applied; fi
}

replay() {
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
    --state-file="$WORK/r.state" "${EXTRA[@]}" "$@" "${files[@]}"
}
fresh_target() {
  sql "$PT" -e "DROP DATABASE IF EXISTS par; DROP DATABASE IF EXISTS binrecover; RESET MASTER"
  rm -f "$WORK/r.state" "$WORK/r.state.lock"
}
# others_gone [SQL CONDITION]: the target has no session but this query's (and those the
# condition leaves out). A stopped replay's sessions stay on the target until it notices the
# client is gone (and a statement in flight ends); --resume refuses to start while the stopped
# run's own session still holds the replay's lock on the target, so it waits for this first.
others_gone() {
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST
    WHERE ID <> CONNECTION_ID() AND ${1:-TRUE}" 2> /dev/null)" = 0 ]
}

# restart_killed_target: the SIGKILLed target started again (crash recovery). Returns 1 when
# MariaDB itself cannot: its recovery crashed (seen once in CI: a segfault after "SYS_COLUMNS.POS
# mismatch" for a table whose DDL the kill interrupted, a server bug). That run says nothing
# about binrecover: the target is made anew and the run not counted; any other failure fails.
server_recovery_crashes=0
restart_killed_target() {
  "$ROOT/scripts/mariadb_server.sh" restart "$WORK/t" "$PT" > /dev/null 2> "$WORK/restart.err" && return 0
  grep -q "got signal" "$WORK/t/error.log" ||
    { cat "$WORK/restart.err"; fail "the killed target did not start again"; }
  echo "(the target's own crash recovery crashed: $(grep -m1 -E '\[ERROR\]' "$WORK/t/error.log");" \
    "a new target, the run not counted)"
  server_recovery_crashes=$((server_recovery_crashes + 1))
  [ "$server_recovery_crashes" -le 3 ] || { cat "$WORK/restart.err"; fail "the target's crash recovery crashed 4 times"; }
  "$ROOT/scripts/mariadb_server.sh" stop "$WORK/t" > /dev/null 2>&1 || true
  "$ROOT/scripts/mariadb_server.sh" start "$WORK/t" "$PT" --server-id=2 > /dev/null
  return 1
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
    # (SIGINT and SIGTERM end a run the same graceful way, each at half the moments of a kill)
    runs=$RUNS
    [ "$how" = int ] || [ "$how" = term ] && runs=$(((RUNS + 1) / 2))
    stopped_mid=0
    in_doubt=0
    tries=0
    # Until RUNS stops fell mid-replay: a replay that ends before its stop shortens the window
    # to its own length (the machine runs faster than when the window was measured).
    while [ "$stopped_mid" -lt "$runs" ]; do
      tries=$((tries + 1))
      [ "$tries" -le $((runs * 3)) ] ||
        fail "--parallel $workers, $how: only $stopped_mid of $((tries - 1)) stops came before the end"
      fresh_target
      # (every other run, and its resume, merges small transactions: --merge-transactions 4)
      merge=()
      [ $((tries % 2)) = 0 ] && merge=(--merge-transactions 4)
      # (the others go from all sessions taking units to one and back every 7 units, the
      # width control's test fault point: a stop finds either; these on all sessions, which
      # the width control would not take on a log this short)
      flip=1000000000
      [ $((tries % 2)) = 1 ] && flip=7
      delay=$(moment "$ms" "$stopped_mid" "$runs")
      t0=$(date +%s%N)
      (BINRECOVER_TEST_WIDTH_FLIP=$flip exec "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
        --state-file="$WORK/r.state" --parallel "$workers" "${merge[@]}" "${EXTRA[@]}" "${files[@]}" \
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
      # (the run's own time, before the restart of a killed target: else a run that ended before
      # its stop never shortens the window, and the stops keep falling after the end)
      took=$((($(date +%s%N) - t0) / 1000000))
      if [ "$how" = target-kill ] && ! restart_killed_target; then
        continue
      fi
      wait_for 120 "--parallel $workers, $how: the stopped replay's sessions stayed on the target" others_gone
      case "$how:$rc" in
        *:0) # it had finished
          [ "$took" -lt "$ms" ] && ms=$took ;;
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
      replay --parallel "$workers" "${merge[@]}" --resume 2> "$WORK/resume.err" || rc=$?
      if [ $rc = 2 ] && grep -q -- "--in-doubt=applied or --in-doubt=not-applied" "$WORK/resume.err"; then
        [ "$how" = target-kill ] || { cat "$WORK/resume.err"; fail "--parallel $workers, $how: a DDL in doubt without a restart of the target"; }
        rc=0
        answer=$(in_doubt_answer)
        in_doubt=$((in_doubt + 1))
        replay --parallel "$workers" "${merge[@]}" --resume --in-doubt="$answer" 2> "$WORK/resume.err" || rc=$?
      fi
      if [ $rc = 2 ] && grep -q "there is no replay state file" "$WORK/resume.err"; then
        # Stopped before anything was applied or recorded: a new replay.
        rc=0
        replay --parallel "$workers" "${merge[@]}" 2> "$WORK/resume.err" || rc=$?
      fi
      [ $rc = 0 ] || { cat "$WORK/first.err" "$WORK/resume.err"; fail "--parallel $workers, $how after ${delay} ms: --resume exited $rc"; }
      content "$PT" > "$WORK/got"
      diff "$WORK/expected" "$WORK/got" > "$WORK/diff" ||
        { cat "$WORK/diff" "$WORK/first.err" "$WORK/resume.err"; fail "--parallel $workers, $how after ${delay} ms, resumed: the target differs"; }
    done
    pass "--parallel $workers, $how at $runs moments spread over the replay ($tries runs, every other with --merge-transactions 4; $in_doubt with a DDL in doubt settled by looking), --resume: target equals the source, counter and keyless table exact"
  done
done

# A DDL in doubt, on purpose: an ALTER TABLE ... ALGORITHM=COPY of 300,000 rows, stopped while
# the target runs it. (1) binrecover killed: the ALTER goes on on the target; --resume waits for
# that session to end, then the target's GTIDs say the ALTER is there. (2) the target killed:
# after its restart MariaDB's GTIDs cannot tell; --resume stops and asks, the DBA looks and
# resumes with --in-doubt. (3) the same, but as if the target had started again in the second
# it had started in before (the state file's server_started set to the new start): its new
# binary log still tells the restart, and --resume asks.
sql "$PA" -e "CREATE DATABASE slow; CREATE TABLE slow.t (id INT PRIMARY KEY, v VARCHAR(100));
  INSERT INTO slow.t SELECT seq, REPEAT('v', 90) FROM slow.seq_1_to_300000;
  ALTER TABLE slow.t ADD COLUMN w INT NOT NULL DEFAULT 1, ALGORITHM=COPY;
  INSERT INTO slow.t VALUES (0, 'after', 2); FLUSH BINARY LOGS"
mapfile -t files < <(binlogs_between "$WORK/a/binlog" mysql-bin.000001)
unset 'files[${#files[@]}-1]'
"$BINRECOVER" events --format=tsv "${files[@]}" > "$WORK/events.tsv"
slow_sum() { sql "$1" -N -e "CHECKSUM TABLE slow.t; SELECT COUNT(*), SUM(w) FROM slow.t"; }
slow_sum "$PA" > "$WORK/slow.expected"
# The moments. The replay first runs up to the ALTER (--stop-gtid) and goes on from there
# (--resume). (2), (3): a session of the test's own has read slow.t in an open transaction: the
# ALTER copies the table and then waits for that session's metadata lock to put the copy in
# place, where it certainly is when the target is killed. (1) cannot be held so (an ALTER that
# waits for a metadata lock is ended by the target within a second of its client's end, so it
# would not go on): once the target reports the ALTER copying rows, the target is paused
# (SIGSTOP), binrecover killed and the target let go on: mid-ALTER for certain when the target's
# binary log did not hold the ALTER while it was paused (else that round again); --resume
# saying the target has it shows it waited for the ALTER's end.
alter_gtid=$(awk -F'\t' '$3 == "Gtid" { g = $6 } $3 == "Query" && $6 ~ /^ALTER TABLE slow\.t/ { print g }' \
  "$WORK/events.tsv" | sed 's/^.*GTID //')
[ -n "$alter_gtid" ] || fail "no GTID of the ALTER TABLE slow.t in the log"
alter_in() {  # STATE: the ALTER runs on the target, in that state
  kill -0 "$pid" 2> /dev/null || { cat "$WORK/first.err"; fail "$how: the replay ended before the ALTER was $1"; }
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST
    WHERE INFO LIKE 'ALTER TABLE slow.t%' AND STATE = '$1'" 2> /dev/null)" = 1 ]
}
for how in kill target-kill same-second; do
  for attempt in 1 2 3 4 5 6; do
    [ "$attempt" -lt 6 ] || fail "kill during the ALTER: the copy ended before the target was paused 5 times"
    sql "$PT" -e "DROP DATABASE IF EXISTS par; DROP DATABASE IF EXISTS slow;
      DROP DATABASE IF EXISTS binrecover; RESET MASTER"
    rm -f "$WORK/r.state" "$WORK/r.state.lock"
    replay --stop-gtid="$alter_gtid" 2> "$WORK/first.err" ||
      { cat "$WORK/first.err"; fail "$how: the replay up to the ALTER"; }
    [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM slow.t")" = 300000 ] &&
      [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = 'slow' AND TABLE_NAME = 't' AND COLUMN_NAME = 'w'")" = 0 ] ||
      fail "$how: the replay up to the ALTER did not stop before it"
    [ "$how" = kill ] || hold mdl "$PT" "BEGIN; SELECT COUNT(*) FROM slow.t WHERE id = 1"
    (exec "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
      --state-file="$WORK/r.state" --resume "${files[@]}" 2> "$WORK/first.err") &
    pid=$!
    if [ "$how" = kill ]; then
      wait_for 300 "$how: the target did not report the ALTER copying rows" alter_in "copy to tmp table"
    else
      wait_for 300 "$how: the ALTER did not come to wait for the metadata lock" \
        alter_in "Waiting for table metadata lock"
    fi
    # (not marked in doubt: the target binlogs, its GTID tells whether the ALTER ran, unless
    # the target started again since, which --resume sees and then asks)
    grep -q '^in_doubt_begin=' "$WORK/r.state" && fail "$how: the ALTER is marked in doubt (a synced write per DDL): $(cat "$WORK/r.state")"
    if [ "$how" = kill ]; then
      # The target paused (SIGSTOP), then binrecover killed: the ALTER certainly had not ended
      # when its client did if the target's binary log (complete before any commit returns)
      # does not hold it yet; else the copy beat the pause (a loaded machine): the round again.
      kill -STOP "$(cat "$WORK/t/mysqld.pid")"
      if grep -aqF "ADD COLUMN w INT NOT NULL DEFAULT 1" "$WORK"/t/binlog/mysql-bin.[0-9]*; then
        kill -CONT "$(cat "$WORK/t/mysqld.pid")"
        kill -9 "$pid"
        { wait "$pid"; } 2> /dev/null || true
        echo "(kill during the ALTER: the copy ended before the pause; again)"
        continue
      fi
      kill -9 "$pid"
      { wait "$pid"; } 2> /dev/null || true
      kill -CONT "$(cat "$WORK/t/mysqld.pid")"
    else
      kill -9 "$(cat "$WORK/t/mysqld.pid")"
      { wait "$pid"; } 2> /dev/null || true
    fi
    if [ "$how" = kill ]; then
      # (the ALTER goes on on the target; the killed run's other session is gone before --resume)
      wait_for 120 "kill during the ALTER: the killed replay's session stayed on the target" \
        others_gone "COALESCE(INFO, '') NOT LIKE 'ALTER TABLE slow.t%'"
    else
      release mdl
      "$ROOT/scripts/mariadb_server.sh" restart "$WORK/t" "$PT" > /dev/null
      if [ "$how" = same-second ]; then
        now=$(sql "$PT" -N -e "SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE FROM
          information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'Uptime'")
        grep -q '^server_started=' "$WORK/r.state" || fail "same-second: no server_started: $(cat "$WORK/r.state")"
        sed -i "s/^server_started=.*/server_started=$now/" "$WORK/r.state"
      fi
    fi
    break
  done
  rc=0
  replay --resume 2> "$WORK/resume.err" || rc=$?
  if [ "$how" = kill ]; then
    [ $rc = 0 ] || { cat "$WORK/resume.err"; fail "kill during the ALTER: --resume exited $rc"; }
    grep -q "1 unit(s) that are not transactions .* were on the target already" "$WORK/resume.err" ||
      { cat "$WORK/resume.err"; fail "kill during the ALTER: not settled by the target's GTIDs"; }
  else
    [ $rc = 2 ] && grep -q -- "--in-doubt=applied or --in-doubt=not-applied" "$WORK/resume.err" ||
      { cat "$WORK/resume.err"; fail "target killed during the ALTER: --resume exited $rc without asking"; }
    if [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = 'slow' AND TABLE_NAME = 't' AND COLUMN_NAME = 'w'")" = 1 ]; then
      answer=applied
    else
      answer=not-applied
    fi
    replay --resume --in-doubt="$answer" 2> "$WORK/resume.err" ||
      { cat "$WORK/resume.err"; fail "target killed during the ALTER: --resume --in-doubt=$answer failed"; }
  fi
  slow_sum "$PT" > "$WORK/slow.got"
  diff "$WORK/slow.expected" "$WORK/slow.got" || fail "$how during the ALTER: slow.t differs"
  content "$PT" > "$WORK/got"
  diff "$WORK/expected" "$WORK/got" || fail "$how during the ALTER: par differs"
  pass "$how during an ALTER TABLE on the target: $( [ "$how" = kill ] && echo "--resume waited for the target to finish it and its GTID settled it" || echo "--resume asked, --in-doubt=$answer (looked up) finished it"); the tables equal the source's"
done

# --server-applier --parallel 8 (the target's own applier, binrecover its replication source):
# stopped at RUNS moments spread over the replay, by turns the target killed (restarted), binrecover killed
# (SIGKILL) and terminated (SIGTERM), then --resume: the target equals the source each time.
# (A DDL that a kill of the target cuts between its execution and its gtid_slave_pos record is
# run again and fails: the DBA's answer, as docs/usage.md says, is to look and, the change being
# there, set gtid_slave_pos to its GTID and resume.)
mapfile -t files < <(binlogs_between "$WORK/a/binlog" mysql-bin.000001)
unset 'files[${#files[@]}-1]'
sa() {
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot --server-applier -D \
    --parallel 8 --window=1 --state-file="$WORK/r.state" "$@" "${sa_files[@]}"
}
# (the workload's files only: the slow ALTER's are the test above's)
sa_files=()
for f in "${files[@]}"; do
  "$BINRECOVER" events "$f" > "$WORK/ev.txt" 2> /dev/null || true
  grep -q "slow" "$WORK/ev.txt" && break
  sa_files+=("$f")
done
fresh_sa() {
  sql "$PT" -e "DROP DATABASE IF EXISTS par; DROP DATABASE IF EXISTS slow; DROP DATABASE IF EXISTS binrecover;
    RESET MASTER; SET GLOBAL gtid_slave_pos = ''"
  rm -f "$WORK/r.state" "$WORK/r.state.lock"
}
fresh_sa
start=$(date +%s%N)
sa 2> "$WORK/full.err" || { cat "$WORK/full.err"; fail "--server-applier"; }
ms=$((($(date +%s%N) - start) / 1000000))
content "$PT" > "$WORK/got"
diff "$WORK/expected" "$WORK/got" || fail "--server-applier: an uninterrupted replay differs"
stopped_mid=0 tries=0 redone=0 torn=0
# restart_target: starts the killed target again. A kill while binrecover set up its replication
# connection can leave master-binrecover.info empty (MariaDB creates it, then writes it), and
# MariaDB then refuses to start: the DBA's step of docs/usage.md is taken, and counted.
restart_target() {
  local d=$WORK/t/data
  "$ROOT/scripts/mariadb_server.sh" restart "$WORK/t" "$PT" > /dev/null 2> "$WORK/restart.err" && return
  grep -q "Initialized Master_info from 'master-binrecover.info' failed" "$WORK/restart.err" ||
    { cat "$WORK/restart.err"; fail "--server-applier: the killed target did not start again"; }
  rm -f "$d/master-binrecover.info" "$d/relay-log-binrecover.info" "$d/"*relay-bin-binrecover.*
  sed -i '/^binrecover$/d' "$d/multi-master.info"
  torn=$((torn + 1))
  "$ROOT/scripts/mariadb_server.sh" restart "$WORK/t" "$PT" > /dev/null
}
hows=(target-kill kill term)
while [ "$stopped_mid" -lt "$RUNS" ]; do
  tries=$((tries + 1))
  [ "$tries" -le $((RUNS * 3)) ] || fail "--server-applier: only $stopped_mid of $((tries - 1)) stops came before the end"
  how=${hows[$((tries % 3))]}
  # (every other run merges transactions: exactly once holds for the merged ones too)
  merge=()
  [ $((tries % 2)) = 1 ] && merge=(--merge-transactions 8)
  fresh_sa
  delay=$(moment "$ms" "$stopped_mid" "$RUNS")
  t0=$(date +%s%N)
  (exec "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot --server-applier -D \
    --parallel 8 --window=1 --state-file="$WORK/r.state" "${merge[@]}" "${sa_files[@]}" 2> "$WORK/first.err") &
  pid=$!
  sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
  case $how in
    target-kill) kill -9 "$(cat "$WORK/t/mysqld.pid")" ;;
    kill) kill -9 "$pid" 2> /dev/null || true ;;
    term) kill -TERM "$pid" 2> /dev/null || true ;;
  esac
  rc=0
  { wait "$pid"; } 2> /dev/null || rc=$?
  took=$((($(date +%s%N) - t0) / 1000000))  # (before a restart: see above)
  [ "$how" = target-kill ] && restart_target
  case "$how:$rc" in
    *:0) [ "$took" -lt "$ms" ] && ms=$took ;;
    target-kill:6 | kill:137 | term:130 | term:143) stopped_mid=$((stopped_mid + 1)) ;;
    *) cat "$WORK/first.err"; fail "--server-applier, $how after ${delay} ms: exit $rc" ;;
  esac
  rc=0
  sa --resume "${merge[@]}" 2> "$WORK/resume.err" || rc=$?
  if [ $rc = 2 ] && grep -q "there is no replay state file" "$WORK/resume.err"; then
    rc=0
    sa "${merge[@]}" 2> "$WORK/resume.err" || rc=$?
  fi
  if [ $rc = 6 ] && [ "$how" = target-kill ] &&
    grep -q "error 10\(07\|50\|60\|61\)" "$WORK/resume.err"; then
    # A DDL run again after the target's restart: its change is there (the error says so).
    g=$(sed -n 's/.*replication stopped applying \([0-9]*-[0-9]*-[0-9]*\) .*/\1/p' "$WORK/resume.err")
    [ -n "$g" ] || { cat "$WORK/resume.err"; fail "--server-applier: no GTID in the error"; }
    sql "$PT" -e "SET GLOBAL gtid_slave_pos = '$g'"
    redone=$((redone + 1))
    rc=0
    sa --resume "${merge[@]}" 2> "$WORK/resume.err" || rc=$?
  fi
  [ $rc = 0 ] || { cat "$WORK/first.err" "$WORK/resume.err"; fail "--server-applier, $how after ${delay} ms: --resume exited $rc"; }
  content "$PT" > "$WORK/got"
  diff "$WORK/expected" "$WORK/got" > "$WORK/diff" ||
    { cat "$WORK/diff" "$WORK/first.err" "$WORK/resume.err"; fail "--server-applier, $how after ${delay} ms, resumed: the target differs"; }
done
pass "--server-applier --parallel 8 stopped at $RUNS moments spread over the replay (the target killed, binrecover killed and terminated by turns, every other run with --merge-transactions 8; $tries runs, $redone DDL run again after a target kill and settled by its GTID, $torn empty master-binrecover.info removed), --resume: target equals the source, counter and keyless table exact"
