#!/usr/bin/env bash
# binrecover replay --parallel on a real target (mariadb: MariaDB 10.11; mysql: MySQL 9.7 of
# the sid chroot, GTID_MODE=ON, compressed transactions), ports PA and PA+1:
#  - the workload of parallel_workload.sh (4 clients at once: hot rows, a foreign key with
#    cascades, unique keys reused, a counter and a table without a key, DDL in the middle, a
#    statement-format segment) replayed with --parallel 1, 4 and 8, and 8 without the commit
#    order: every table's CHECKSUM TABLE equals the source's (and so the serial replay's);
#  - with the commit order kept (--parallel 8), a sampler reading the target while the replay
#    runs only ever sees the marks of a prefix of the source's commits (and sees the replay
#    part-way at least once: each mode's replay runs up to par.child's creation, then goes on
#    with --resume while a session of the test's own holds par.child's metadata lock, which the
#    DDL between the halves waits for until a read has seen that); the workers did run side by
#    side (the report's max_busy);
#  - a second replay with the same state file while one runs is refused (exit 2).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/parallel_workload.sh"
# (every unit on all the sessions: the test is of the engine side by side, not of the width
# control, which would take most of this log of hot rows to one session; docs/testing.md)
export BINRECOVER_TEST_WIDTH_FLIP=1000000000
FLAVOR=${1:?mariadb or mysql}
PA=${2:-23711}
PT=$((PA + 1))
N=${PARALLEL_N:-100}

if [ "$FLAVOR" = mysql ]; then
  MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
  "$MYSQL_SERVER" chroot > /dev/null || fail "cannot build the MySQL chroot (see above)"
  # (the Performance Schema on, which mysql_server.sh leaves off: held-lock reads the target's
  # lock waits in sys.innodb_lock_waits)
  for p in a:"$PA" t:"$PT"; do
    SERVERS_MYSQL+=("$WORK/${p%%:*}")
    "$MYSQL_SERVER" start "$WORK/${p%%:*}" "${p#*:}" --performance-schema=ON
  done
  reset_gtids="RESET BINARY LOGS AND GTIDS"
else
  start_server a "$PA"
  start_server t "$PT"
  reset_gtids="RESET MASTER"
fi

run_workload "$PA" "$N"
sql "$PA" -e "FLUSH BINARY LOGS"
mapfile -t files < <(binlogs_between "$WORK/a/binlog" mysql-bin.000001)
unset 'files[${#files[@]}-1]'  # the new empty one
content "$PA" > "$WORK/expected"
marks_order "${files[@]}" > "$WORK/order"
total=$(grep -c . "$WORK/order")
[ "$total" = "$((8 * N + 21))" ] || fail "the binlogs hold $total marks, not $((8 * N + 21))"
[ "$(sql "$PA" -N -e 'SELECT COUNT(*) FROM par.marks')" = "$total" ] || fail "marks on the source"

# (where the first run of each mode stops: the GTID event of CREATE TABLE par.users)
schema_at=$("$BINRECOVER" events --format=tsv "${files[0]}" |
  awk -F'\t' '$3 == "Gtid" { g = $2 } $3 == "Query" && $6 ~ /^CREATE TABLE par\.users/ && !d { print g; d = 1 }')
[ -n "$schema_at" ] || fail "no CREATE TABLE par.users in ${files[0]}"
fresh_target() {
  sql "$PT" -e "DROP DATABASE IF EXISTS par; DROP DATABASE IF EXISTS binrecover; $reset_gtids"
  rm -f "$WORK/r.state" "$WORK/r.state.lock"
}
# The waits of the transactions blocked by the session holding row 0 (its connection id in
# $holder), "transaction started-waiting" each (sys.innodb_lock_waits, MariaDB and MySQL alike).
held_row_waits() {
  sql "$PT" -N -e "SELECT CONCAT(waiting_trx_id, ' ', wait_started) FROM sys.innodb_lock_waits
    WHERE blocking_pid = $holder"
}
held_row_waited_for() {
  local w
  kill -0 "$rp" 2> /dev/null || { cat "$WORK/replay.err"; fail "replay --parallel $mode ended with the row held"; }
  w=$(held_row_waits) || return 1
  waiter=$(sed -n 1p <<< "$w")
  [ -n "$waiter" ]
}
held_row_wait_ended() {
  local w
  kill -0 "$rp" 2> /dev/null || { cat "$WORK/replay.err"; fail "replay --parallel $mode ended with the row held"; }
  w=$(held_row_waits) || return 1
  ! grep -qxF "$waiter" <<< "$w"
}
alter_waits() {  # the ALTER TABLE par.child waits for the metadata lock held by the session
  kill -0 "$rp" 2> /dev/null || { cat "$WORK/replay.err"; fail "replay --parallel $mode ended with par.child's lock held"; }
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID()
    AND INFO LIKE '%ALTER TABLE par.child%' AND STATE = 'Waiting for table metadata lock'" 2> /dev/null)" = 1 ]
}
seen_part_way() {
  local samples mid bad
  read -r samples mid bad < <(prefix_check "$WORK/samples")
  [ "$mid" -ge 1 ]
}
# (the last: a target whose sessions binlog statements, where the workers keep REPEATABLE READ
# and its gap locks, so that units wait for each other's locks and are run again)
# (held-lock: a session of the test's own holds a row of par.hot while the replay runs: the
# unit that needs it times out waiting, is run again, and the later units that wait for their
# turn to commit are rolled back and run again after it; the lock is let go once that wait
# has ended, see below)
# (merge: --merge-transactions 4, on MySQL with --gtids=strip: its gtid_mode=ON target would
# keep only one GTID of each group, so it is refused without it)
modes=(1 4 8 "8 --no-preserve-commit-order" "8 held-lock" "1 merge" "8 merge")
[ "$FLAVOR" = mariadb ] && modes+=("8 repeatable-read")
merge_opts=(--merge-transactions 4)
[ "$FLAVOR" = mysql ] && merge_opts+=(--gtids=strip)
for mode in "${modes[@]}"; do
  fresh_target
  read -r workers extra <<< "$mode"
  held=
  merged=
  if [ "$extra" = merge ]; then
    merged=1
    extra="${merge_opts[*]}"
  elif [ "$extra" = repeatable-read ]; then
    extra=
    sql "$PT" -e "SET GLOBAL binlog_format = 'STATEMENT'"
  elif [ "$extra" = held-lock ]; then
    extra=
    held=1
  fi
  # (mariadb, 4: the target logs every statement, see below)
  logged=
  if [ "$FLAVOR" = mariadb ] && [ "$mode" = 4 ]; then
    logged=$WORK/general-$workers.log
    sql "$PT" -e "SET GLOBAL general_log_file = '$logged', general_log = 1"
  fi
  # The moments are certain. The replay first applies the log up to par.child's creation
  # (--stop-position: the GTID event before CREATE TABLE par.users), and goes on from there with
  # --resume while sessions of the test's own hold what it will need: par.child's metadata lock
  # (an open transaction that read it), which the ALTER TABLE between the workload's halves
  # waits for, every unit before it committed: the target is then part-way for certain, and the
  # lock is let go once a read of the sampler has seen that. (held-lock: also row 0 of par.hot,
  # which the clients update from their 32nd transaction on; let go once a worker's wait for it
  # has ended with the row still held, a timeout.)
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
    --state-file="$WORK/r.state" --parallel "$workers" $extra --stop-position="$schema_at" \
    "${files[0]}" 2> "$WORK/replay.err" ||
    { cat "$WORK/replay.err"; fail "replay --parallel $mode up to par.child"; }
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'par'")" = 3 ] &&
    [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM par.hot")" = 8 ] ||
    fail "replay --parallel $mode up to par.child: not where the first run was to stop"
  hold mdl "$PT" "BEGIN; SELECT COUNT(*) FROM par.child"
  if [ -n "$held" ]; then
    hold row0 "$PT" "BEGIN; SELECT CONCAT('conn ', CONNECTION_ID()); SELECT id FROM par.hot WHERE id = 0 FOR UPDATE"
    holder=$(sed -n 's/^conn //p' "$WORK/row0.out")
  fi
  rm -f "$WORK/stop"
  sampler "$WORK/samples" &
  spid=$!
  rc=0
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
    --state-file="$WORK/r.state" --parallel "$workers" $extra --resume \
    --report="$WORK/report.json" "${files[@]}" 2> "$WORK/replay.err" &
  rp=$!
  if [ -n "$held" ]; then
    # A worker waits for row 0; that wait ends while the row is still held: it timed out (the
    # workers' innodb_lock_wait_timeout is 1 s) and the unit is run again. Then the row is let
    # go (before binrecover's 20 tries of the unit are spent).
    waiter=
    wait_for 120 "replay --parallel $mode: no worker waited for the held row" held_row_waited_for
    wait_for 120 "replay --parallel $mode: the wait for the held row did not end" held_row_wait_ended
    release row0
  fi
  wait_for 120 "replay --parallel $mode: the ALTER TABLE par.child did not wait for its lock" alter_waits
  wait_for 120 "replay --parallel $mode: no read of the target saw the replay part-way" seen_part_way
  release mdl
  wait "$rp" || rc=$?
  touch "$WORK/stop"
  wait "$spid"
  sql "$PT" -e "SET GLOBAL binlog_format = 'ROW'"
  [ $rc = 0 ] || { cat "$WORK/replay.err"; fail "replay --parallel $mode exited $rc"; }
  content "$PT" > "$WORK/got"
  diff "$WORK/expected" "$WORK/got" || fail "replay --parallel $mode: the target differs from the source"
  grep -q "\"workers\":$workers," "$WORK/report.json" || fail "report: $(cat "$WORK/report.json")"
  # (the turn watch: on MySQL with the order kept, through the Performance Schema, on here)
  watch=none
  [ "$FLAVOR" = mysql ] && [ "$workers" -gt 1 ] && [[ "$extra" != *no-preserve-commit-order* ]] &&
    watch=performance_schema
  grep -q "\"lock_watch\":\"$watch\"," "$WORK/report.json" ||
    fail "replay --parallel $mode: not the lock watch $watch: $(cat "$WORK/report.json")"
  busy=$(sed -n 's/.*"max_busy":\([0-9]*\).*/\1/p' "$WORK/report.json")
  alone=$(sed -n 's/.*"alone":\([0-9]*\).*/\1/p' "$WORK/report.json")
  retries=$(sed -n 's/.*"retries":\([0-9]*\).*/\1/p' "$WORK/report.json")
  [ "$alone" -ge 23 ] || fail "replay --parallel $mode applied $alone units alone (DDL, statements)"
  read -r samples mid bad < <(prefix_check "$WORK/samples")
  if [ "$workers" -gt 1 ]; then
    [ "$busy" -ge 2 ] || fail "replay --parallel $mode: never more than $busy worker busy at once"
  fi
  if [ -n "$logged" ]; then
    # A worker's session is not sent a setting it already has: each transaction sets its own
    # gtid_seq_no, but the log's server_id only the first time on each session and after a
    # unit that may change the session (DDL, a statement's own text).
    sql "$PT" -e "SET GLOBAL general_log = 0"
    gtids=$("$BINRECOVER" events --format=tsv "${files[@]}" | awk -F'\t' '$3 == "Gtid"' | wc -l)
    seq_nos=$(grep -c 'SET @@session.gtid_seq_no=' "$logged")
    server_ids=$(grep -c 'SET @@session.server_id=' "$logged")
    [ "$seq_nos" -ge "$gtids" ] && [ $((server_ids * 4)) -lt "$gtids" ] ||
      fail "replay --parallel $mode: $gtids transactions, gtid_seq_no set $seq_nos times, server_id $server_ids times"
    echo "--parallel $mode: $gtids transactions; gtid_seq_no set $seq_nos times, server_id $server_ids times"
  fi
  if [ -n "$held" ]; then
    [ "$retries" -ge 1 ] || fail "replay --parallel $mode: no unit was run again ($(cat "$WORK/report.json"))"
  fi
  if [ -n "$merged" ]; then
    m=$(sed -n 's/.*"merged":\([0-9]*\),"merged_into":\([0-9]*\).*/\1 \2/p' "$WORK/report.json")
    read -r m_units m_groups <<< "$m"
    [ "${m_units:-0}" -ge $((2 * N)) ] && [ "$m_groups" -le $((m_units / 2)) ] ||
      fail "replay --parallel $mode merged too little: $(cat "$WORK/report.json")"
    extra=
    mode="$mode (${merge_opts[*]}: $m_units transactions in $m_groups)"
  fi
  if [ -z "$extra" ]; then
    [ "$mid" -ge 1 ] || fail "replay --parallel $mode: the sampler never saw the replay part-way ($samples samples)"
    [ "$bad" = 0 ] || fail "replay --parallel $mode: the sampler saw $bad states that are no prefix of the source's commits"
    pass "$FLAVOR replay --parallel $mode: tables equal the source's; $samples reads of the target ($mid part-way) all saw a prefix of its history; up to $busy workers busy, $retries run again"
  else
    pass "$FLAVOR replay --parallel $mode: tables equal the source's ($bad of $samples reads saw a state the source never had, as --no-preserve-commit-order allows); up to $busy workers busy"
  fi
done

if [ "$FLAVOR" = mysql ]; then
  # Without --gtids=strip the target would keep one GTID of each merged group: refused.
  fresh_target
  rc=0
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
    --state-file="$WORK/r.state" --merge-transactions 4 "${files[@]}" 2> "$WORK/refused.err" || rc=$?
  [ $rc = 2 ] && grep -q "gtid_mode=ON" "$WORK/refused.err" ||
    { cat "$WORK/refused.err"; fail "--merge-transactions into a target keeping GTIDs exited $rc"; }
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'par'")" = 0 ] ||
    fail "the refused merged replay applied something"
  pass "mysql: --merge-transactions into a target that keeps the log's GTIDs is refused (exit 2)"
fi

# One replay per state file: the first is held up by a global read lock, which a session of
# the test's own holds until the second has tried.
fresh_target
hold gate "$PT" "FLUSH TABLES WITH READ LOCK"
"$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
  --state-file="$WORK/r.state" --parallel 2 "${files[@]}" 2> "$WORK/first.err" &
first=$!
# (the first has locked the state file once the lock file holds its pid, written after)
first_locked() {
  kill -0 "$first" 2> /dev/null || { cat "$WORK/first.err"; fail "the first replay ended under the read lock"; }
  [ "$(cat "$WORK/r.state.lock" 2> /dev/null)" = "$first" ]
}
wait_for 120 "the first replay did not lock its state file" first_locked
rc=0
"$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
  --state-file="$WORK/r.state" --resume "${files[@]}" 2> "$WORK/second.err" || rc=$?
first_locked || fail "the first replay let go of its state file under the read lock"
[ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'par'")" = 0 ] ||
  fail "the first replay applied something under the read lock"
release gate
wait "$first" || { cat "$WORK/first.err"; fail "the first replay failed"; }
[ $rc = 2 ] && grep -q "one replay per state file" "$WORK/second.err" ||
  { cat "$WORK/second.err"; fail "a second replay with the same state file exited $rc"; }
content "$PT" > "$WORK/got"
diff "$WORK/expected" "$WORK/got" || fail "the first replay's target differs"
pass "$FLAVOR: a second replay with the same state file is refused while the first runs"

# A log whose format description changes between files (binlog_checksum turned on: the first
# file's events carry no checksum, the second's do), replayed with --parallel 4: the first file's units on fd.t
# are held back (a session of the test's own holds fd.t's table lock, which they wait for)
# until the second file's units on fd.u have run on the target, so the reader has the second
# file's format description by then; the first file's units must still be applied with the
# first file's. (Each worker once ran the latest one, and read it as the reader replaced it:
# 1064 errors on garbage statements in drills, BINLOG statements read with another checksum.)
# (SET GLOBAL binlog_checksum starts a file: the first without checksums, the second with)
sql "$PA" -e "SET GLOBAL binlog_checksum = NONE"
fd_first=$(basename "$(tail -1 "$WORK/a/binlog/mysql-bin.index")")
sql "$PA" -e "CREATE DATABASE fd; CREATE TABLE fd.t (id INT PRIMARY KEY, v INT);
  CREATE TABLE fd.u (id INT PRIMARY KEY, v INT); INSERT INTO fd.t VALUES (1, 0);
  INSERT INTO fd.u VALUES (2, 0);
  UPDATE fd.t SET v = v + 1 WHERE id = 1; UPDATE fd.t SET v = v + 10 WHERE id = 1;
  UPDATE fd.t SET v = v + 100 WHERE id = 1; UPDATE fd.t SET v = v + 1000 WHERE id = 1;
  SET GLOBAL binlog_checksum = CRC32;
  INSERT INTO fd.u VALUES (3, 3); UPDATE fd.u SET v = v + 100 WHERE id = 2;
  FLUSH BINARY LOGS"
mapfile -t fd_files < <(binlogs_between "$WORK/a/binlog" "$fd_first")
unset 'fd_files[${#fd_files[@]}-1]'
[ "${#fd_files[@]}" = 2 ] || fail "the checksum change made ${#fd_files[@]} files, not 2"
fd_sum() {
  sql "$1" -N -e "SELECT GROUP_CONCAT(id, ':', v ORDER BY id) FROM fd.t;
    SELECT GROUP_CONCAT(id, ':', v ORDER BY id) FROM fd.u" | paste -sd' '
}
# (the first run stops at the GTID event of the first UPDATE)
update_at=$("$BINRECOVER" events --format=tsv "${fd_files[0]}" |
  awk -F'\t' '$3 == "Gtid" { g = $2 } $3 ~ /^Update_rows/ { print g; exit }')
[ -n "$update_at" ] || fail "no UPDATE fd.t in ${fd_files[0]}"
sql "$PT" -e "DROP DATABASE IF EXISTS fd"
rm -f "$WORK/r.state" "$WORK/r.state.lock"
"$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
  --state-file="$WORK/r.state" --parallel 4 --stop-position="$update_at" "${fd_files[0]}" \
  2> "$WORK/fd.err" || { cat "$WORK/fd.err"; fail "the replay up to the first UPDATE fd.t"; }
[ "$(fd_sum "$PT")" = "1:0 2:0" ] || fail "the replay up to the first UPDATE fd.t: $(fd_sum "$PT")"
# finish_held_replay HOLD ERR WHAT SUM: lets the held session HOLD go; the replay in the
# background ($rp, its messages in ERR) must then end with 0 and SUM give the same on the
# target as on the source.
finish_held_replay() {
  local rc=0
  release "$1"
  wait "$rp" || rc=$?
  [ $rc = 0 ] || { cat "$2"; fail "$3 exited $rc"; }
  [ "$("$4" "$PT")" = "$("$4" "$PA")" ] ||
    fail "$3: the target has $("$4" "$PT"), the source $("$4" "$PA")"
}
hold fdlock "$PT" "LOCK TABLES fd.t READ"
"$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
  --state-file="$WORK/r.state" --parallel 4 --resume "${fd_files[@]}" 2> "$WORK/fd.err" &
rp=$!
# (the second file's two units ran: their changes wait, uncommitted, for their turn)
second_file_ran() {
  kill -0 "$rp" 2> /dev/null || { cat "$WORK/fd.err"; fail "the replay ended with fd.t locked"; }
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.INNODB_TRX
    WHERE trx_rows_modified > 0" 2> /dev/null)" -ge 2 ]
}
wait_for 120 "the second file's units did not run while the first's were held" second_file_ran
finish_held_replay fdlock "$WORK/fd.err" "replay --parallel 4 across the checksum change" fd_sum
pass "$FLAVOR: replay --parallel 4 across a format description change (binlog_checksum on), the first file's units held until the second file's ran: each applied with its own file's format description, fd.t and fd.u equal the source's"

# A session of an earlier run that the target still runs (a statement in flight when that run
# was killed) holds its worker's lock: a new run waits for it before it reads anything. The
# lock names are read from a run paused by the fault point (the target's user locks); after a
# SIGKILL a session of the test's own takes worker 2's, as the earlier session would.
if [ "$FLAVOR" = mysql ]; then
  user_locks="SELECT OBJECT_NAME FROM performance_schema.metadata_locks
    WHERE OBJECT_TYPE = 'USER LEVEL LOCK'"
else
  sql "$PT" -e "INSTALL SONAME 'metadata_lock_info'" 2> /dev/null || true
  user_locks="SELECT TABLE_SCHEMA FROM information_schema.METADATA_LOCK_INFO
    WHERE LOCK_TYPE = 'User lock'"
fi
# (the target's GTIDs of the run before forgotten too: else they would be applied already)
sql "$PT" -e "DROP DATABASE IF EXISTS fd; DROP DATABASE IF EXISTS binrecover; $reset_gtids"
rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal"
# (the pause after the file's header units and the three DDLs; awk reads to the end)
el_units=$("$BINRECOVER" events --format=tsv "${fd_files[@]}" | awk -F'\t' '
  $3 ~ /^(Gtid|Anonymous_gtid)$/ && ++g == 4 && !done { print k; done = 1 }
  $3 ~ /^(Gtid|Anonymous_gtid|Format_desc|Gtid_list|Binlog_checkpoint|Previous_gtids)$/ { k++ }')
(BINRECOVER_TEST_PAUSE_AFTER_UNITS=$el_units exec "$BINRECOVER" replay --no-defaults --no-progress \
  -h127.0.0.1 -P"$PT" -uroot --state-file="$WORK/r.state" --parallel 4 "${fd_files[@]}" \
  2> "$WORK/el.err") &
rp=$!
el_paused() { grep -qs "test pause: $el_units units" "$WORK/el.err"; }
WAIT_FOR_SHOW=$WORK/el.err wait_for 120 "the replay never reached unit $el_units" el_paused
# (worker 0's: the others open their sessions at the first unit for them, after the pause;
# worker 2's lock has the same name but its number)
w0=$(sql "$PT" -N -e "$user_locks" | grep -x 'binrecover:[0-9]*:w0') ||
  fail "no lock of worker 0 among the target's user locks: $(sql "$PT" -N -e "$user_locks")"
w2=${w0%w0}w2
kill -9 "$rp"
{ wait "$rp"; } 2> /dev/null || true
before=$(fd_sum "$PT")  # (fd and its two tables made, no row yet)
# (the killed run's sessions end as the target notices their connections closed: the lock is
# taken at once (that run's worker 2 never opened: the fault point came first), and the new run
# starts once none of the killed run's sessions is left)
hold earlier "$PT" "SELECT CONCAT('got ', GET_LOCK('$w2', 120))"
grep -qx "got 1" "$WORK/earlier.out" || fail "the test's session did not get $w2: $(cat "$WORK/earlier.out")"
only_ours() {
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST
    WHERE ID <> CONNECTION_ID() AND USER = 'root' AND COMMAND NOT IN ('Daemon', 'Binlog Dump')")" = 1 ]
}
wait_for 120 "sessions of the killed replay stayed on the target" only_ours
"$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
  --state-file="$WORK/r.state" --parallel 4 --resume "${fd_files[@]}" 2> "$WORK/el.err" &
rp=$!
waits_for_w2() {
  kill -0 "$rp" 2> /dev/null || { cat "$WORK/el.err"; fail "the replay did not wait for $w2"; }
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST
    WHERE INFO LIKE 'SELECT GET_LOCK(%' AND STATE = 'User lock'")" = 1 ]
}
wait_for 120 "the replay did not wait for the earlier session's lock" waits_for_w2
# (it waits with its one control session, before its workers' sessions are opened: the test's
# holding session and that one are all the target's clients)
clients=$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST
  WHERE ID <> CONNECTION_ID() AND USER = 'root' AND COMMAND NOT IN ('Daemon', 'Binlog Dump')")
[ "$clients" = 2 ] ||
  fail "the replay waited for $w2 with $((clients - 1)) sessions open, not one: $(sql "$PT" -e "SHOW PROCESSLIST")"
[ "$(fd_sum "$PT")" = "$before" ] ||
  fail "the replay applied while an earlier session held $w2: $(fd_sum "$PT")"
release earlier
rc=0
wait "$rp" || rc=$?
[ $rc = 0 ] || { cat "$WORK/el.err"; fail "replay --resume after the earlier session exited $rc"; }
[ "$(fd_sum "$PT")" = "$(fd_sum "$PA")" ] ||
  fail "after the earlier session: the target has $(fd_sum "$PT"), the source $(fd_sum "$PA")"
pass "$FLAVOR: a new replay waits for a session of a killed one still on the target (its worker lock held), then applies: equal to the source"

# A unit applied alone (here a statement as the log has it) waits for a row lock of a session
# not the replay's as serial replay does: the workers' short wait (none on MariaDB with the
# order kept, 1 s otherwise) made it fail at once with 1205 and the replay stop. The moment is
# certain: the wait has lasted 2 s by the target's clock when the row is let go.
sql "$PA" -e "FLUSH BINARY LOGS"
fl_first=$(basename "$(tail -1 "$WORK/a/binlog/mysql-bin.index")")
sql "$PA" -e "CREATE DATABASE fl; CREATE TABLE fl.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
  INSERT INTO fl.t VALUES (1, 0), (2, 0); SET SESSION binlog_format = 'STATEMENT';
  UPDATE fl.t SET v = v + 1 WHERE id = 1; SET SESSION binlog_format = 'ROW';
  UPDATE fl.t SET v = v + 10 WHERE id = 2; FLUSH BINARY LOGS"
mapfile -t fl_files < <(binlogs_between "$WORK/a/binlog" "$fl_first")
unset 'fl_files[${#fl_files[@]}-1]'
fl_sum() { sql "$1" -N -e "SELECT GROUP_CONCAT(id, ':', v ORDER BY id) FROM fl.t"; }
for mode in "" --no-preserve-commit-order; do
  sql "$PT" -e "DROP DATABASE IF EXISTS fl; DROP DATABASE IF EXISTS binrecover; $reset_gtids"
  rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal"
  # (the table made first, then its row 1 held by a session of the test's own)
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot --parallel 4 \
    --state-file="$WORK/r.state" --stop-position="$(
      "$BINRECOVER" events --format=tsv "${fl_files[0]}" |
        awk -F'\t' '$3 ~ /^(Gtid|Anonymous_gtid)$/ { g = $2 }
          $3 == "Query" && $6 ~ /^UPDATE/ && !p { print g; p = 1 }')" \
    "${fl_files[0]}" 2> "$WORK/fl.err" ||
    { cat "$WORK/fl.err"; fail "replay --parallel 4 $mode up to the statement"; }
  [ "$(fl_sum "$PT")" = "1:0,2:0" ] || fail "replay up to the statement: $(fl_sum "$PT")"
  hold flrow "$PT" "BEGIN; SELECT id FROM fl.t WHERE id = 1 FOR UPDATE"
  # shellcheck disable=SC2086
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot --parallel 4 $mode \
    --state-file="$WORK/r.state" --resume "${fl_files[@]}" 2> "$WORK/fl.err" &
  rp=$!
  waited_2s() {
    kill -0 "$rp" 2> /dev/null || { cat "$WORK/fl.err"; fail "replay --parallel 4 $mode ended while row 1 was held"; }
    [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.INNODB_TRX
      WHERE trx_state = 'LOCK WAIT' AND trx_wait_started <= NOW() - INTERVAL 2 SECOND")" = 1 ]
  }
  wait_for 120 "replay --parallel 4 $mode: the statement did not wait for row 1" waited_2s
  finish_held_replay flrow "$WORK/fl.err" "replay --parallel 4 $mode (row 1 let go)" fl_sum
done
pass "$FLAVOR: a statement applied alone waits for a row lock of another session as serial replay does (2 s and more), with and without commit order, then applies: equal to the source"
