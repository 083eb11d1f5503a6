#!/usr/bin/env bash
# Tables that are not transactional (MyISAM; Aria on MariaDB) replayed exactly once (issue 30),
# on real servers (ports PA, PA+1). The source commits their rows without an Xid: a COMMIT cannot
# take them back, so no progress row inside their transaction can say whether they were applied.
#  - a log of single-row writes to a keyed and a keyless MyISAM table (and an Aria one),
#    between InnoDB transactions, replayed serially, with --parallel 8 and with
#    --merge-transactions 4: the target equals the source;
#  - a DDL (an ALTER TABLE waiting on a metadata lock the test holds), binrecover killed: not
#    marked in doubt (its GTID tells), --resume ends equal to the source; MariaDB: the target
#    killed there instead, the ALTER run by hand, --resume --in-doubt=applied: that ALTER left
#    out, the one right after it applied (the answer is for one unit);
#  - the crash window: the replay's write to the keyless MyISAM table waits on a table lock
#    (held by the test: a certain moment), binrecover is killed with SIGKILL, the lock let go:
#    the waiting statement ends on the target, its rows applied. `--resume` must not apply them
#    again (a keyless table takes a second copy silently):
#      * into a target whose binary log keeps the unit's GTID: the GTID tells, resume goes on;
#      * MariaDB only: into a target without a binary log, nothing can tell: --resume stops (exit
#        2) naming the unit, and after a look at the target --in-doubt=applied finishes it;
#      * the target itself killed instead while the write waits: its restart, --resume applies
#        the write once;
#  - the same for statement-based transactions (binlog_format=STATEMENT) on a table InnoDB in
#    the log and MyISAM on the target: every mode, a kill while an INSERT waits (the GTID
#    tells), and into a target without a binary log (--resume asks).
# With "mysql" after the port: MySQL 9.7 source and targets (GTIDs on: gtid_executed tells
# whether the rows are there, with or without the target's binary log).
source "$(dirname "$0")/lib.sh"
# (--parallel's units on all its sessions from the first: the width control would keep a log
# this short on one session, and the test is of the engine side by side; docs/testing.md)
export BINRECOVER_TEST_WIDTH_FLIP=1000000000
PA=${1:-24521}
PT=$((PA + 1))
FLAVOR=${2:-mariadb}
ROUNDS=${NONTRANS_ROUNDS:-40}
if [ "$FLAVOR" = mysql ]; then
  use_mysql
  start_mysql a "$PA"
  start_mysql t "$PT" --server-id=2
  aria=MyISAM
  engines=MyISAM
  strip=" --gtids=strip"  # (a merged transaction would keep one GTID)
  reset_logs="RESET BINARY LOGS AND GTIDS"
  restart() { "$MYSQL_SERVER" restart "$WORK/t" "$PT" > /dev/null; }
else
  start_server a "$PA"
  start_server t "$PT" --server-id=2
  aria=Aria
  engines="MyISAM and Aria"
  strip=""
  reset_logs="RESET MASTER"
  restart() { "$ROOT/scripts/mariadb_server.sh" restart "$WORK/t" "$PT" > /dev/null; }
fi

sql "$PA" -e "CREATE DATABASE nt;
  CREATE TABLE nt.k (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=MyISAM;
  CREATE TABLE nt.l (id INT, v INT) ENGINE=MyISAM;
  CREATE TABLE nt.a (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=$aria;
  CREATE TABLE nt.i (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
  CREATE TABLE nt.j (id INT, v INT) ENGINE=InnoDB;
  CREATE TABLE nt.x (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
  CREATE TABLE nt.s (id INT, v INT) ENGINE=InnoDB;
  FLUSH BINARY LOGS"
{
  for r in $(seq 1 "$ROUNDS"); do
    echo "INSERT INTO nt.k VALUES ($r, 0);"
    echo "INSERT INTO nt.l VALUES ($r, $r);"
    echo "BEGIN; INSERT INTO nt.i (id, v) VALUES ($r, $r); COMMIT;"
    echo "INSERT INTO nt.j VALUES ($r, $r);"
    echo "BEGIN; INSERT INTO nt.x VALUES ($r, $r); INSERT INTO nt.j VALUES (-$r, $r); COMMIT;"
    echo "INSERT INTO nt.a VALUES ($r, $r);"
    echo "UPDATE nt.k SET v = v + 1 WHERE id = $(((r + 1) / 2));"
    echo "UPDATE nt.l SET v = v + 1 WHERE id = $(((r + 2) / 3));"
    echo "DELETE FROM nt.a WHERE id = $((r - 1));"
    [ "$r" != $((ROUNDS / 2)) ] || echo "ALTER TABLE nt.i ADD COLUMN w INT NOT NULL DEFAULT 7;
      ALTER TABLE nt.i ADD COLUMN w2 INT NOT NULL DEFAULT 8;"
  done
} | sql "$PA" nt
sql "$PA" -e "FLUSH BINARY LOGS"
mapfile -t files < <(binlogs_between "$WORK/a/binlog" mysql-bin.000001 mysql-bin.000002)
# (the DDL's file apart: the crash parts lock a table that the replay of the rest writes)
[ ${#files[@]} = 2 ] || fail "the source's binlogs: ${files[*]}"
ddl_file=${files[0]}
dml_files=("${files[1]}")
content() {
  sql "$1" -N -e "CHECKSUM TABLE nt.k, nt.l, nt.a, nt.i; SELECT COUNT(*), SUM(v) FROM nt.l;
    SELECT COUNT(*), SUM(id), SUM(v) FROM nt.j; SELECT COUNT(*), SUM(v) FROM nt.x"
}
content "$PA" > "$WORK/expected"

replay() {
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
    --state-file="$WORK/r.state" "$@"
}
fresh_target() {
  sql "$PT" -e "DROP DATABASE IF EXISTS nt; DROP DATABASE IF EXISTS binrecover; $reset_logs"
  rm -f "$WORK"/r.state*
}
same() {
  content "$PT" > "$WORK/got"
  diff "$WORK/expected" "$WORK/got" > /dev/null || { diff "$WORK/expected" "$WORK/got"; fail "$1: the target differs from the source"; }
}

for mode in "" "--parallel 8" "--merge-transactions 4$strip" "--parallel 8 --merge-transactions 4$strip"; do
  fresh_target
  # shellcheck disable=SC2086
  replay $mode "${files[@]}" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "replay $mode"; }
  same "replay ${mode:-(serial)}"
done
pass "a log of $engines writes between InnoDB transactions: serial, --parallel 8, --merge-transactions 4 and both equal the source"

# One MyISAM statement whose rows pass the target's max_allowed_packet (1 MiB here): several
# BINLOG statements, each logged by the target as a group of its own. MariaDB: each must carry
# the unit's GTID (a group with the target's next sequence number makes the next unit of the
# log look applied, and a --resume would leave it out). MySQL: the second one failed (1837,
# GTID_NEXT used up by the first) with the unit's GTID already in gtid_executed, and --resume
# left the rest out (3,706 rows of 20,001): its statements now go with the target's own GTIDs,
# the unit's GTID logged once all of it ran. The same held in memory and in pieces
# (--transaction-memory=1M: a unit too large to hold).
sql "$PA" -e "FLUSH BINARY LOGS"
big_file=$WORK/a/binlog/$(sql "$PA" -N -e "SHOW BINARY LOGS" | tail -1 | cut -f1)
sql "$PA" -e "CREATE DATABASE big; CREATE TABLE big.m (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=MyISAM"
if [ "$FLAVOR" = mysql ]; then
  sql "$PA" big -e "SET SESSION cte_max_recursion_depth = 100000;
    INSERT INTO m WITH RECURSIVE s (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 20000)
      SELECT n, REPEAT('x', 200) FROM s"
else
  sql "$PA" big -e "INSERT INTO m SELECT seq, REPEAT('x', 200) FROM seq_1_to_20000"
fi
sql "$PA" big -e "INSERT INTO m VALUES (0, 'after'); FLUSH BINARY LOGS"
map=$(sql "$PT" -N -e "SELECT @@GLOBAL.max_allowed_packet")
if [ "$FLAVOR" = mysql ]; then gtid_re='[0-9a-f-]+:[0-9]+'; else gtid_re='[0-9]+-[0-9]+-[0-9]+'; fi
src_gtids() {  # the log's GTIDs, one a line
  "$BINRECOVER" events --format=tsv "$big_file" |
    awk -F'\t' -v re="$gtid_re" '$3 == "Gtid" && match($6, re) { print substr($6, RSTART, RLENGTH) }' | sort -u
}
# The target's GTIDs of the log's server (MariaDB: of each group in its binary log; MySQL: its
# gtid_executed, one a line), and the groups of its binary log with one.
tgt_gtids() {
  if [ "$FLAVOR" = mysql ]; then
    local uuid
    uuid=$(src_gtids | head -1 | cut -d: -f1)
    # (the client writes the value's line breaks as \n: they are taken out by the server; with
    # them, a set whose first UUID is the target's own showed none of the log's)
    sql "$PT" -N -e "SELECT REPLACE(@@GLOBAL.gtid_executed, '\n', '')" | tr ',' '\n' | grep "^$uuid:" |
      sed "s/^$uuid://" | tr ':' '\n' | while IFS=- read -r from to; do
        for n in $(seq "$from" "${to:-$from}"); do echo "$uuid:$n"; done
      done | sort -u
  else
    tgt_groups | sort -u
  fi
}
tgt_groups() {  # (MariaDB) the GTID of each group of the target's binary log from the log's server
  sql "$PT" -N -e "SHOW BINLOG EVENTS IN '$(sql "$PT" -N -e "SHOW MASTER STATUS" | cut -f1)'" |
    awk -F'\t' -v re="$gtid_re" '$3 == "Gtid" && match($6, re) { print substr($6, RSTART, RLENGTH) }' |
    grep '^0-1-'
}
# Whether the statement went as several on the target (else the test shows nothing): MariaDB:
# more groups of the log's GTIDs than it has; MySQL: GTIDs of the target's own.
several() {
  if [ "$FLAVOR" = mysql ]; then
    sql "$PT" -N -e "SELECT @@GLOBAL.gtid_executed" | grep -q "$(sql "$PT" -N -e "SELECT @@GLOBAL.server_uuid")"
  else
    [ "$(tgt_groups | wc -l)" -gt "$(src_gtids | wc -l)" ]
  fi
}
big_target() {
  sql "$PT" -e "DROP DATABASE IF EXISTS big; SET GLOBAL max_allowed_packet = 1048576"
  fresh_target
}
big_rows() { sql "$PT" -N -e "SELECT COUNT(*) FROM big.m"; }
for mode in "" "--transaction-memory=1M" "--parallel 8 --transaction-memory=1M"; do
  big_target
  # shellcheck disable=SC2086
  replay $mode "$big_file" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "replay $mode of the large MyISAM statement"; }
  [ "$(src_gtids)" = "$(tgt_gtids)" ] || fail "replay $mode: the target has GTIDs $(tgt_gtids | tr '\n' ' ')(the log: $(src_gtids | tr '\n' ' '))"
  [ "$(big_rows)" = 20001 ] || fail "replay $mode: big.m has $(big_rows) rows, not 20001"
  several || fail "replay $mode: the large statement went as one statement: the test shows nothing"
done
pass "a MyISAM statement of 4 MB as several BINLOG statements under a 1 MiB max_allowed_packet, held and in pieces: every row, the target's GTIDs those of the log"

# The kill in its middle: a certain moment (the fault point after its second piece), part of
# its rows on the target. Nothing can tell how much: --resume stops naming it (exit 2); after
# a look (here: its rows deleted), --in-doubt=not-applied applies it whole.
big_target
(BINRECOVER_TEST_PAUSE_AFTER_PIECES=2 exec "$BINRECOVER" replay --no-defaults --no-progress \
  -h127.0.0.1 -P"$PT" -uroot --state-file="$WORK/r.state" --transaction-memory=1M "$big_file" \
  > /dev/null 2> "$WORK/pause.err") &
pid=$!
paused() { grep -q "test pause: 2 pieces applied" "$WORK/pause.err"; }
WAIT_FOR_SHOW=$WORK/pause.err wait_for 120 "the replay did not reach its fault point" paused
kill -9 "$pid"
wait "$pid" 2> /dev/null || true
part=$(big_rows)
[ "$part" -gt 0 ] && [ "$part" -lt 20000 ] || fail "the killed replay left $part rows, not part of the statement's"
rc=0
replay --resume --transaction-memory=1M "$big_file" 2> "$WORK/r.err" || rc=$?
[ "$rc" = 2 ] || { cat "$WORK/r.err"; fail "--resume after a kill inside the MyISAM statement: exit $rc, not 2"; }
grep -q "the statement at $(basename "$big_file"):[0-9]* (not a transaction: none, part or all of it may be on the target)" "$WORK/r.err" ||
  { cat "$WORK/r.err"; fail "--resume did not name the statement in doubt"; }
[ "$(big_rows)" = "$part" ] || fail "the refused --resume changed big.m"
sql "$PT" -e "DELETE FROM big.m"
replay --resume --in-doubt=not-applied --transaction-memory=1M "$big_file" 2> "$WORK/r.err" ||
  { cat "$WORK/r.err"; fail "--resume --in-doubt=not-applied"; }
[ "$(big_rows)" = 20001 ] || fail "--resume --in-doubt=not-applied: big.m has $(big_rows) rows, not 20001"
[ "$(src_gtids)" = "$(tgt_gtids)" ] || fail "--resume --in-doubt=not-applied: the target has GTIDs $(tgt_gtids | tr '\n' ' ')(the log: $(src_gtids | tr '\n' ' '))"
sql "$PT" -e "SET GLOBAL max_allowed_packet = $map; DROP DATABASE big"
pass "binrecover killed inside a MyISAM statement in pieces ($part of 20001 rows): --resume stops naming it (exit 2); after a look, --in-doubt=not-applied ends with every row"

# Waiting: the replay's statement (INFO LIKE $WAITING) waits for the test's lock.
WAITING="BINLOG%"
waiting() {
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST
    WHERE STATE LIKE 'Waiting for table%' AND INFO LIKE '$WAITING'")" -ge 1 ]
}
gone() {  # no session of the stopped replay on the target
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST
    WHERE ID <> CONNECTION_ID() AND USER <> 'event_scheduler' AND COMMAND <> 'Daemon'")" = 0 ]
}
# crash_in_window WHO [replay options]: the DML replayed until its first write to nt.l waits
# on the lock ($HOLD); WHO (binrecover or target) killed with SIGKILL there; the lock let go.
HOLD="LOCK TABLES nt.l READ"
crash_in_window() {
  local who=$1 pid
  shift
  fresh_target
  replay "$ddl_file" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "replay of the DDL"; }
  [ -z "${AFTER_DDL:-}" ] || sql "$PT" -e "$AFTER_DDL"
  rm -f "$WORK"/r.state*
  hold lk "$PT" "$HOLD"
  (exec "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
    --state-file="$WORK/r.state" "$@" "${dml_files[@]}" > /dev/null 2> "$WORK/crash.err") &
  pid=$!  # (binrecover's own: exec)
  WAIT_FOR_SHOW=$WORK/crash.err wait_for 120 "the replay's write to nt.l did not wait on the lock" waiting
  if [ "$who" = target ]; then
    kill -9 "$(cat "$WORK/t/mysqld.pid")"
    wait "$pid" 2> /dev/null || true
    release lk
    restart
  else
    kill -9 "$pid"
    wait "$pid" 2> /dev/null || true
    [ "$(sed -n 's/^position=//p' "$WORK/r.state")" != "$(stat -c %s "${dml_files[0]}")" ] ||
      fail "the killed replay had got to the end (the test reached no window)"
    release lk
    wait_for 120 "the killed replay's session is still on the target" gone
  fi
}

crash_in_window binrecover
[ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM nt.l")" -ge 1 ] ||
  fail "the write that waited on the lock did not run after the kill (the test reached no window)"
replay --resume "${dml_files[@]}" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "--resume after the kill in the window"; }
same "binrecover killed while a MyISAM write waited, --resume"
pass "binrecover killed while its MyISAM write waited on a lock, the write ended after: --resume leaves it out (the target's GTIDs tell), the target equals the source"

# A table InnoDB in the log and MyISAM on the target (made so by hand): a COMMIT that does not
# come takes nothing back there. The write to it waits on the test's table lock, binrecover is
# killed, the lock let go: the write ends on the target. Before, the unit went as a transaction
# with its progress row inside (rolled back with the session), and --resume applied it again
# (nt.j: a second copy of the row). The log's transactions that write nt.j and the InnoDB nt.x
# go each statement on its own, each with the unit's GTID (MariaDB: in a transaction, the row
# of nt.j was a group of its own and the COMMIT's took the target's next sequence number).
AFTER_DDL="ALTER TABLE nt.j ENGINE=MyISAM"
HOLD="LOCK TABLES nt.j READ"
crash_in_window binrecover
AFTER_DDL=""
HOLD="LOCK TABLES nt.l READ"
[ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM nt.j")" -ge 1 ] ||
  fail "the write to nt.j that waited on the lock did not run after the kill (the test reached no window)"
replay --resume "${dml_files[@]}" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "--resume after the kill in the window of nt.j"; }
j() { sql "$1" -N -e "SELECT COUNT(*), SUM(id), SUM(v) FROM nt.j"; }
[ "$(j "$PT")" = "$(j "$PA")" ] || fail "nt.j, MyISAM on the target: $(j "$PT") (count, sums), the source $(j "$PA")"
x() { sql "$1" -N -e "SELECT COUNT(*), SUM(v) FROM nt.x"; }
[ "$(x "$PT")" = "$(x "$PA")" ] || fail "nt.x: $(x "$PT") (count, sum), the source $(x "$PA")"
if [ "$FLAVOR" = mariadb ]; then
  "$BINRECOVER" events --format=tsv "$ddl_file" "${dml_files[@]}" |
    awk -F'\t' '$3 == "Gtid" && match($6, /[0-9]+-[0-9]+-[0-9]+/) { print substr($6, RSTART, RLENGTH) }' |
    sort -u > "$WORK/log.gtids"
  sql "$PT" -N -e "SHOW BINLOG EVENTS IN '$(sql "$PT" -N -e "SHOW MASTER STATUS" | cut -f1)'" |
    awk -F'\t' '$3 == "Gtid" && match($6, /0-1-[0-9]+/) { print substr($6, RSTART, RLENGTH) }' |
    sort -u > "$WORK/target.gtids"
  extra=$(comm -13 "$WORK/log.gtids" "$WORK/target.gtids" | tr '\n' ' ')
  [ -z "$extra" ] || fail "the target logged GTIDs the log does not have: $extra"
  # Replayed to the end of the first transaction of nt.x and nt.j: the target's binlog state
  # names its GTID, not the next one (which the next unit of the log has).
  read -r stop gtid < <("$BINRECOVER" events --format=tsv "${dml_files[0]}" | awk -F'\t' '
    $3 == "Gtid" { match($6, /[0-9]+-[0-9]+-[0-9]+/); g = substr($6, RSTART, RLENGTH) }
    $3 == "Table_map" && $6 ~ /\(nt\.x\)/ { x = 1 }
    x && $3 == "Xid" { print $5, g; exit }')
  fresh_target
  replay "$ddl_file" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "replay of the DDL"; }
  rm -f "$WORK"/r.state*
  sql "$PT" -e "ALTER TABLE nt.j ENGINE=MyISAM"
  replay --stop-position="$stop" "${dml_files[0]}" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "replay to $stop"; }
  state=$(sql "$PT" -N -e "SELECT @@GLOBAL.gtid_binlog_state" | tr ',' '\n' | grep '^0-1-')
  [ "$state" = "$gtid" ] || fail "replayed to the end of $gtid (nt.x and nt.j, MyISAM on the target): the target's binlog state says $state"
fi
[ "$(sql "$PT" -N -e "SELECT LOWER(ENGINE) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'nt' AND TABLE_NAME = 'j'")" = myisam ] ||
  fail "nt.j is not MyISAM on the target (the test shows nothing)"
pass "binrecover killed while its write to a table MyISAM on the target (InnoDB in the log) waited on a lock: --resume leaves it out, each row once"

# The same with statement-based rows: a log written with binlog_format=STATEMENT, its
# transactions on nt.s (keyless, InnoDB in the log, MyISAM on the target) and nt.x. Before, a
# statement's unit went as a transaction with its progress row inside, and --resume after the
# kill in the window applied the waiting INSERT again (a second copy of its row). Each mode
# (serial, --parallel 8, --merge-transactions 4, both) equals the source first.
sql "$PA" -e "FLUSH BINARY LOGS"
sbr_file=$WORK/a/binlog/$(sql "$PA" -N -e "SHOW BINARY LOGS" | tail -1 | cut -f1)
{
  echo "SET SESSION binlog_format = STATEMENT;"
  echo "BEGIN; INSERT INTO nt.x VALUES (1000, 0); COMMIT;"  # (the kill below: after a unit committed)
  for r in $(seq 1 20); do
    echo "BEGIN; INSERT INTO nt.s VALUES ($r, $r); COMMIT;"
    echo "BEGIN; UPDATE nt.s SET v = v + 1 WHERE id = $(((r + 1) / 2)); INSERT INTO nt.x VALUES ($((r + 1000)), $r); COMMIT;"
    echo "BEGIN; DELETE FROM \`nt\`.\`s\` WHERE id = $((r - 5)); COMMIT;"
  done
} | sql "$PA" nt
sql "$PA" -e "FLUSH BINARY LOGS"
"$BINRECOVER" events --format=tsv "$sbr_file" | awk -F'\t' '$3 == "Query" && $6 ~ /INSERT INTO nt.s/' | grep -q . ||
  fail "the statement-based log has no INSERT statement (the test shows nothing)"
s_rows() { sql "$1" -N -e "SELECT COUNT(*), SUM(id), SUM(v) FROM nt.s; SELECT COUNT(*), SUM(v) FROM nt.x WHERE id >= 1000"; }
for mode in "" "--parallel 8" "--merge-transactions 4$strip" "--parallel 8 --merge-transactions 4$strip"; do
  fresh_target
  replay "$ddl_file" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "replay of the DDL"; }
  sql "$PT" -e "ALTER TABLE nt.s ENGINE=MyISAM"
  rm -f "$WORK"/r.state*
  # shellcheck disable=SC2086
  replay $mode "$sbr_file" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "replay $mode of the statement-based log"; }
  [ "$(s_rows "$PT")" = "$(s_rows "$PA")" ] || fail "replay ${mode:-(serial)} of the statement-based log: $(s_rows "$PT" | tr '\n' ' ')(counts, sums), the source $(s_rows "$PA" | tr '\n' ' ')"
done
AFTER_DDL="ALTER TABLE nt.s ENGINE=MyISAM"
HOLD="LOCK TABLES nt.s READ"
WAITING="INSERT INTO nt.s%"
saved_dml=("${dml_files[@]}")
dml_files=("$sbr_file")
crash_in_window binrecover
[ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM nt.s")" -ge 1 ] ||
  fail "the INSERT into nt.s that waited on the lock did not run after the kill (the test reached no window)"
replay --resume "${dml_files[@]}" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "--resume after the kill in the window of nt.s"; }
[ "$(s_rows "$PT")" = "$(s_rows "$PA")" ] || fail "nt.s (MyISAM on the target), statement-based, killed and resumed: $(s_rows "$PT" | tr '\n' ' ')(counts, sums), the source $(s_rows "$PA" | tr '\n' ' ')"
dml_files=("${saved_dml[@]}")
AFTER_DDL=""
HOLD="LOCK TABLES nt.l READ"
WAITING="BINLOG%"
pass "statement-based transactions on a table MyISAM on the target (InnoDB in the log): every mode equals the source; binrecover killed while an INSERT waited on a lock: --resume leaves it out, each row once"

# Rows applied under READ COMMITTED, in serial replay too (InnoDB then takes no gap locks for
# them, as mysqlbinlog's output and the servers' appliers do; under REPEATABLE READ a later
# unit could wait on the locks of an XA transaction the log left prepared: MySQL, 1205 where
# the source never waited). Read off the target while the replay's first InnoDB insert waits
# on the test's uncommitted row of the same key.
fresh_target
replay "$ddl_file" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "replay of the tables"; }
rm -f "$WORK"/r.state*
hold iso "$PT" "BEGIN; INSERT INTO nt.i (id, v) VALUES (1, 0)"
(exec "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
  --state-file="$WORK/r.state" "${dml_files[@]}" > /dev/null 2> "$WORK/rc.err") &
rp=$!
isolation() {
  sql "$PT" -N -e "SELECT trx_isolation_level FROM information_schema.INNODB_TRX
    WHERE trx_state = 'LOCK WAIT'"
}
insert_waits() { ended "$rp" || [ -n "$(isolation)" ]; }
wait_for 120 "the replay's insert never waited for the test's row" insert_waits
level=$(isolation)
release iso
rc=0
wait "$rp" || rc=$?
[ $rc = 0 ] || { cat "$WORK/rc.err"; fail "the serial replay that waited exited $rc"; }
[ "$level" = "READ COMMITTED" ] || fail "serial replay applied rows under '$level', not READ COMMITTED"
same "serial replay after a wait"
pass "serial replay applies rows under READ COMMITTED (read off the target while its insert waited on the test's row), equal to the source"

# A DDL: the ALTER waits for the metadata lock of the test's open transaction on nt.i, then
# binrecover is killed; the target ends the ALTER or runs it when the lock goes: its GTID tells.
HOLD="BEGIN; SELECT COUNT(*) FROM nt.i"
WAITING="ALTER TABLE nt.i%"
crash_in_window binrecover
HOLD="LOCK TABLES nt.l READ"
WAITING="BINLOG%"
grep -q '^in_doubt_begin=' "$WORK/r.state" && fail "the ALTER was marked in doubt (its GTID tells): $(cat "$WORK/r.state")"
replay --resume "${dml_files[@]}" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "--resume after the kill during the ALTER"; }
same "binrecover killed while its ALTER TABLE waited, --resume"
pass "binrecover killed while its ALTER TABLE waited for a metadata lock: --resume (no unit marked in doubt) ends equal to the source"

if [ "$FLAVOR" = mariadb ]; then
  # The target killed while the first ALTER waits, restarted: its GTIDs cannot tell (MariaDB's
  # crash recovery may finish a DDL without logging its GTID). The DBA runs that ALTER by hand
  # (not logged) and answers --in-doubt=applied at once: that ALTER is left out, the second
  # one (right after it, also where the replay continues) applied.
  HOLD="BEGIN; SELECT COUNT(*) FROM nt.i"
  WAITING="ALTER TABLE nt.i%"
  crash_in_window target
  HOLD="LOCK TABLES nt.l READ"
  WAITING="BINLOG%"
  sql "$PT" -e "SET SESSION sql_log_bin = 0; ALTER TABLE nt.i ADD COLUMN w INT NOT NULL DEFAULT 7"
  replay --resume --in-doubt=applied "${dml_files[@]}" 2> "$WORK/r.err" ||
    { cat "$WORK/r.err"; fail "--resume --in-doubt=applied after the target's kill during the ALTER"; }
  same "the target killed while its ALTER TABLE waited, the ALTER run by hand, --resume --in-doubt=applied"
  pass "the target killed while an ALTER TABLE waited, restarted: --in-doubt=applied answers for that ALTER alone (the next DDL applied), equal to the source"
fi

crash_in_window target
replay --resume "${dml_files[@]}" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "--resume after the target's kill"; }
same "the target killed while a MyISAM write waited, --resume"
pass "the target killed while a MyISAM write waited: --resume applies it once"

if [ "$FLAVOR" = mariadb ]; then
  "$ROOT/scripts/mariadb_server.sh" stop "$WORK/t" > /dev/null
  start_server t "$PT" --server-id=2 --skip-log-bin
  reset_logs=""
  crash_in_window binrecover
  rc=0
  replay --resume "${dml_files[@]}" 2> "$WORK/r.err" || rc=$?
  [ $rc = 2 ] && grep -q "in-doubt=applied" "$WORK/r.err" ||
    { cat "$WORK/r.err"; fail "--resume into a target without a binary log: exit $rc, not 2 asking for --in-doubt"; }
  at=$(sed -n 's/^in_doubt_begin=//p' "$WORK/r.state")
  [ -n "$at" ] || fail "the state file names no unit in doubt"
  # (the DBA's look: the row the unit in doubt writes is there)
  "$BINRECOVER" -v --start-position="$at" --stop-position="$(sed -n 's/^in_doubt_end=//p' "$WORK/r.state")" \
    "${dml_files[@]}" | grep -q "INSERT INTO \`nt\`.\`l\`" || fail "the unit in doubt ($at) is not the write to nt.l"
  replay --resume --in-doubt=applied "${dml_files[@]}" 2> "$WORK/r.err" ||
    { cat "$WORK/r.err"; fail "--resume --in-doubt=applied"; }
  same "a target without a binary log, --resume --in-doubt=applied"
  pass "a target without a binary log: --resume stops naming the MyISAM write in doubt (exit 2); --in-doubt=applied after a look ends equal to the source"
  # The statement-based INSERT into nt.s (MyISAM on the target) there: nothing tells either.
  # (Before, it went as a transaction with its progress row: --resume applied it again.)
  AFTER_DDL="ALTER TABLE nt.s ENGINE=MyISAM"
  HOLD="LOCK TABLES nt.s READ"
  WAITING="INSERT INTO nt.s%"
  dml_files=("$sbr_file")
  crash_in_window binrecover
  rc=0
  replay --resume "${dml_files[@]}" 2> "$WORK/r.err" || rc=$?
  [ $rc = 2 ] && grep -q "in-doubt=applied" "$WORK/r.err" ||
    { cat "$WORK/r.err"; fail "--resume of the statement-based log into a target without a binary log: exit $rc, not 2 asking for --in-doubt"; }
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM nt.s")" = 1 ] || fail "the refused --resume changed nt.s"
  replay --resume --in-doubt=applied "${dml_files[@]}" 2> "$WORK/r.err" ||
    { cat "$WORK/r.err"; fail "--resume --in-doubt=applied of the statement-based log"; }
  [ "$(s_rows "$PT")" = "$(s_rows "$PA")" ] || fail "nt.s, statement-based, a target without a binary log, --in-doubt=applied: $(s_rows "$PT" | tr '\n' ' ')(counts, sums), the source $(s_rows "$PA" | tr '\n' ' ')"
  pass "a target without a binary log: --resume stops naming the statement-based INSERT into a table MyISAM there (exit 2); --in-doubt=applied ends equal to the source"
fi
