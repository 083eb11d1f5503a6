#!/usr/bin/env bash
# XA transactions replayed exactly once across crashes, on a real MariaDB target (ports PA,
# PA+1). An XA unit (the XA PREPARE group, XA COMMIT, XA ROLLBACK) is not a transaction the
# progress row can ride on, and replay no longer marks it in the state file before it runs (a
# disk sync per unit made an XA-heavy log 1.6 times as slow as mariadb-binlog | mariadb): its
# GTID says whether the target has it, and a resumed run leaves out the XA units at its start
# that the target has. Here a log of XA transactions (committed, rolled back, one phase) between
# plain ones with savepoints is replayed serially and with --parallel 8, stopped at certain
# moments (a fault point: right after an XA PREPARE unit, right after an XA COMMIT unit) by a
# SIGKILL of binrecover, or of binrecover and the target (restarted), and resumed: the target
# equals the source, the counter and the keyless table exact, no XA transaction left prepared.
# With "mysql" after the port: the same on MySQL 9.7 (source and target, GTIDs on): there the
# target's gtid_executed records the progress and tells whether an XA unit ran.
source "$(dirname "$0")/lib.sh"
# (--parallel's units on all its sessions from the first: the width control would keep a log
# this short on one session, and the test is of the engine side by side; docs/testing.md)
export BINRECOVER_TEST_WIDTH_FLIP=1000000000
PA=${1:-24461}
FLAVOR=${2:-mariadb}
start_pair "$PA" "$FLAVOR"

sql "$PA" -e "CREATE DATABASE x;
  CREATE TABLE x.counter (id INT PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB;
  INSERT INTO x.counter VALUES (1, 0);
  CREATE TABLE x.nokey (k INT, c INT) ENGINE=InnoDB;
  CREATE TABLE x.marks (k INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;"
workload() {  # FROM TO: XA units (prepared, rolled back, one phase) between plain ones
  local i body
  for ((i = $1; i <= $2; i++)); do
    body="INSERT INTO x.marks VALUES ($i, 0); UPDATE x.counter SET n = n + 1 WHERE id = 1;
      INSERT INTO x.nokey VALUES ($i, 1);"
    case $((i % 6)) in
      0 | 3) echo "XA START 'p$i'; $body XA END 'p$i'; XA PREPARE 'p$i'; XA COMMIT 'p$i';" ;;
      1 | 4) echo "BEGIN; $body SAVEPOINT s1; UPDATE x.marks SET v = 1 WHERE k = $i;
        SAVEPOINT s2; INSERT INTO x.nokey VALUES ($i, 2); ROLLBACK TO SAVEPOINT s2;
        RELEASE SAVEPOINT s1; COMMIT;" ;;
      2) echo "XA START 'o$i'; $body XA END 'o$i'; XA COMMIT 'o$i' ONE PHASE;" ;;
      5) echo "XA START 'r$i'; $body XA END 'r$i'; XA PREPARE 'r$i'; XA ROLLBACK 'r$i';" ;;
    esac
  done
}
workload 1 90 | sql "$PA"
sql "$PA" -e "FLUSH BINARY LOGS"
mapfile -t files < <(binlogs_between "$WORK/a/binlog" mysql-bin.000001)
unset 'files[${#files[@]}-1]'
content() {
  sql "$1" -N -e "CHECKSUM TABLE x.counter, x.nokey, x.marks; SELECT 'counter', n FROM x.counter;
    SELECT 'nokey', COUNT(*) FROM x.nokey; SELECT 'marks', COUNT(*), SUM(v) FROM x.marks;
    XA RECOVER"
}
content "$PA" > "$WORK/expected"
grep -q "^counter	75$" "$WORK/expected" || { cat "$WORK/expected"; fail "the source's counter"; }

# The units as the walker counts them (a file's header events are units too), each with its
# GTID's sequence number and what it is: "prepare" (an XA PREPARE group), "commit" (XA COMMIT).
"$BINRECOVER" events --format=tsv "${files[@]}" | awk -F'\t' '
  $3 ~ /^(Gtid|Format_desc|Gtid_list|Binlog_checkpoint|Previous_gtids)$/ {
    k++; kind[k] = "other"; at[k] = $2 }
  $3 == "Gtid" { s = $6; sub(/.*GTID [0-9]+-[0-9]+-/, "", s); sub(/.*:/, "", s); seq[k] = s }
  $3 == "XA_prepare" { kind[k] = "prepare" }
  $3 == "Query" && $6 ~ /^XA COMMIT/ && $6 !~ /ONE PHASE/ { kind[k] = "commit" }
  END { for (i = 1; i <= k; i++) print i, kind[i], seq[i] + 0, at[i] }' > "$WORK/units"
# (the 3rd XA PREPARE unit and the 3rd XA COMMIT unit: well after the DDL at the start)
prepare_unit=$(awk '$2 == "prepare" && ++n == 3 { print $1; exit }' "$WORK/units")
commit_unit=$(awk '$2 == "commit" && ++n == 3 { print $1; exit }' "$WORK/units")
[ -n "$prepare_unit" ] && [ -n "$commit_unit" ] || fail "no XA units in the log"

replay() {
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
    --state-file="$WORK/r.state" "$@" "${files[@]}"
}
fresh_target() {
  sql "$PT" -e "DROP DATABASE IF EXISTS x; DROP DATABASE IF EXISTS binrecover; $reset_logs"
  rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal"
}
source_uuid=
[ "$FLAVOR" = mysql ] && source_uuid=$(sql "$PA" -N -e "SELECT @@GLOBAL.server_uuid")
# has_seq N: the target has logged the source's GTID N (0-1-N; MySQL: UUID:N): the fault point
# was reached
has_seq() {
  if [ "$FLAVOR" = mysql ]; then
    sql "$PT" -N -e "SELECT GTID_SUBSET('$source_uuid:$1', @@GLOBAL.gtid_executed)" \
      > "$WORK/state.now" 2>&1 && [ "$(cat "$WORK/state.now")" = 1 ]
    return
  fi
  sql "$PT" -N -e "SELECT @@GLOBAL.gtid_binlog_state" > "$WORK/state.now" 2>&1 || return 1
  tr ',' '\n' < "$WORK/state.now" | awk -F- -v n="$1" '$1 == 0 && $2 == 1 && $3 >= n { ok = 1 }
    END { exit !ok }'
}
others_gone() {
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST
    WHERE ID <> CONNECTION_ID() AND COMMAND <> 'Daemon'" 2> /dev/null)" = 0 ]
}

xa_units=$(awk '$2 == "prepare" || $2 == "commit"' "$WORK/units" | wc -l)
sets() { sql "$PT" -N -e "SHOW GLOBAL STATUS LIKE 'Com_set_option'" | cut -f2; }
for workers in 1 8; do
  fresh_target
  sets_before=$(sets)
  replay --parallel "$workers" --report="$WORK/report.json" 2> "$WORK/full.err" ||
    { cat "$WORK/full.err"; fail "replay --parallel $workers"; }
  sets_by[$workers]=$(($(sets) - sets_before))
  content "$PT" > "$WORK/got"
  diff "$WORK/expected" "$WORK/got" || fail "--parallel $workers: the replay differs from the source"
  # (a worker's session is not sent the settings it has again after a SAVEPOINT, ROLLBACK TO
  # or XA statement: taken for statements that may change them, each sent every setting again,
  # --parallel 8 cost a SAVEPOINT-heavy log's target twice serial replay's CPU)
  if [ "$workers" = 8 ] && [ "${sets_by[8]}" -gt $((sets_by[1] * 5 / 4 + 100)) ]; then
    fail "--parallel 8 sent $((sets_by[8])) SETs, serial replay ${sets_by[1]}"
  fi
  # (with the commit order kept the XA units go to the workers: their GTIDs tell whether they
  # ran, so they need not wait alone for every unit before them)
  alone=$(sed -n 's/.*"alone":\([0-9]*\).*/\1/p' "$WORK/report.json")
  if [ "$workers" = 8 ] && [ "$alone" -ge "$xa_units" ]; then
    cat "$WORK/report.json"
    fail "--parallel 8: $alone units applied alone, for $xa_units XA units: they did not go to the workers"
  fi
  # (MariaDB: an XA unit later than the target's GTIDs at the start that the target has was
  # applied by this replay; MySQL's gtid_executed is an exact set)
  [ "$FLAVOR" = mysql ] || grep -q '^target_gtids_at_start=' "$WORK/r.state" ||
    { cat "$WORK/r.state"; fail "the state file does not keep the target's GTIDs at the start"; }
  for stop in prepare commit; do
    unit=$prepare_unit
    [ "$stop" = commit ] && unit=$commit_unit
    read -r seq at < <(awk -v u="$unit" '$1 == u { print $3, $4 }' "$WORK/units")
    for how in kill target-kill; do
      what="$FLAVOR: --parallel $workers, stopped right after an XA ${stop^^} unit (unit $unit, GTID $seq), $how"
      fresh_target
      BINRECOVER_TEST_PAUSE_AFTER_UNITS=$unit "$BINRECOVER" replay --no-defaults --no-progress \
        -h127.0.0.1 -P"$PT" -uroot --state-file="$WORK/r.state" --parallel "$workers" \
        "${files[@]}" 2> "$WORK/first.err" &
      pid=$!
      WAIT_FOR_SHOW=$WORK/state.now wait_for 120 "$what: the target never logged $seq" has_seq "$seq"
      # (the fault point holds everything after the unit: the next unit's GTID is not there)
      wait_for 60 "$what: the replay never reached its pause" grep -q "test pause" "$WORK/first.err"
      ! has_seq $((seq + 1)) || fail "$what: the target has the GTID after the unit's ($(cat "$WORK/state.now"))"
      kill -9 "$pid"
      { wait "$pid"; } 2> /dev/null || true
      if [ "$how" = target-kill ]; then
        kill -9 "$(cat "$WORK/t/mysqld.pid")"
        "$server_script" restart "$WORK/t" "$PT" > /dev/null
      fi
      wait_for 120 "$what: the killed replay's sessions stayed on the target" others_gone
      # (the state file says the replay is before the unit when no state was written since:
      # then only the target's GTIDs tell that the XA unit ran)
      behind=0
      if [ -e "$WORK/r.state" ]; then
        pos=$(sed -n 's/^position=//p' "$WORK/r.state")
        [ "$pos" -le "$at" ] && behind=1
      fi
      rc=0
      replay --parallel "$workers" --resume 2> "$WORK/resume.err" || rc=$?
      if [ $rc = 2 ] && grep -q "there is no replay state file" "$WORK/resume.err"; then
        rc=0
        replay --parallel "$workers" 2> "$WORK/resume.err" || rc=$?
      fi
      [ $rc = 0 ] || { cat "$WORK/first.err" "$WORK/resume.err"; fail "$what: --resume exited $rc"; }
      content "$PT" > "$WORK/got"
      diff "$WORK/expected" "$WORK/got" > "$WORK/diff" ||
        { cat "$WORK/diff" "$WORK/resume.err"; fail "$what: resumed, the target differs from the source"; }
      # (MySQL: a resumed run leaves out every GTID the target has, silently)
      if [ "$behind" = 1 ] && [ "$FLAVOR" != mysql ]; then
        grep -q "where the replay continued were on the target already" "$WORK/resume.err" ||
          { cat "$WORK/r.state" "$WORK/resume.err"; fail "$what: the state was behind the XA unit, and --resume did not say it left it out"; }
      fi
      pass "$what: --resume ends equal to the source (state file behind the unit: $behind)"
    done
  done
done

# An XA unit on a worker that meets a lock rolls back as an XA transaction (XA END, XA
# ROLLBACK) and runs again from its XA START: here a session of the test holds the counter row
# that every unit of a second log updates, the replay of that log (--parallel 8) meets it, and
# the lock is let go once a replay session waits for it (a held lock: a certain moment). The
# target ends equal to the source, nothing left prepared, and the replay counted the retries.
fresh_target
replay 2> "$WORK/full.err" || { cat "$WORK/full.err"; fail "replay of the first log"; }
workload 93 120 | sql "$PA"  # (its first unit: an XA PREPARE group)
sql "$PA" -e "FLUSH BINARY LOGS"
mapfile -t files2 < <(binlogs_between "$WORK/a/binlog" "$(basename "${files[-1]}")")
files2=("${files2[@]:1}")
unset 'files2[${#files2[@]}-1]'
content "$PA" > "$WORK/expected2"
rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal"
mkfifo "$WORK/holder.in"
sql "$PT" --unbuffered < "$WORK/holder.in" > "$WORK/holder.out" 2>&1 &
holder=$!
exec {hold}> "$WORK/holder.in"
echo "BEGIN; SELECT n FROM x.counter WHERE id = 1 FOR UPDATE; SELECT 'held';" >&"$hold"
wait_for 60 "the test's session never held the counter row" grep -q held "$WORK/holder.out"
"$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
  --state-file="$WORK/r.state" --parallel 8 --report="$WORK/report2.json" "${files2[@]}" \
  2> "$WORK/locked.err" &
pid=$!
# (MariaDB's workers wait for no lock: a unit that meets one runs again at once. MySQL's wait
# 1 s: the lock is let go once a second attempt waits for it (another transaction id waiting:
# the units after this one wait for it, none runs beside it on the row), else a lock let go
# within the second made no retry, and the test failed on a loaded machine)
waiters=" "
waiting() {  # (or the replay ended: its exit code says how)
  local id
  ! kill -0 "$pid" 2> /dev/null && return 0
  for id in $(sql "$PT" -N -e "SELECT trx_id FROM information_schema.INNODB_TRX
    WHERE trx_state = 'LOCK WAIT'"); do
    case "$waiters" in *" $id "*) ;; *) waiters="$waiters$id " ;; esac
  done
  [ "$(wc -w <<< "$waiters")" -ge "$([ "$FLAVOR" = mysql ] && echo 2 || echo 1)" ]
}
wait_for 120 "no replay session waited (again) for the held counter row" waiting
echo "COMMIT;" >&"$hold"
exec {hold}>&-
wait "$holder" || true
rc=0
wait "$pid" || rc=$?
[ $rc = 0 ] || { cat "$WORK/locked.err"; fail "the replay that met a held lock exited $rc"; }
content "$PT" > "$WORK/got"
diff "$WORK/expected2" "$WORK/got" || fail "the replay that met a held lock differs from the source"
retries=$(sed -n 's/.*"retries":\([0-9]*\).*/\1/p' "$WORK/report2.json")
[ "${retries:-0}" -ge 1 ] || { cat "$WORK/report2.json"; fail "the held lock caused no retry"; }
pass "$FLAVOR: --parallel 8 met a held lock on the row every XA unit updates: $retries retries, the target equals the source, nothing left prepared"
