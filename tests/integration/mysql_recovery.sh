#!/usr/bin/env bash
# Issue 13's end-to-end test on a real MySQL 9.7 (GTID_MODE=ON, zstd compression, FULL row
# metadata, PARTIAL_JSON): a workload with savepoints, XA (two-phase and one-phase), tagged
# GTIDs, generated (virtual and stored) and invisible columns, a trigger, a procedure and a
# function, CREATE TABLE ... SELECT, users, a role and grants, a mid-log ALTER, a temporary table
# dropped at disconnect, YEAR next to signed and unsigned integers; a dump with --source-data=2
# in the middle; then DROP DATABASE w1. Each recovery path is compared with the source's state
# just before the DROP: every table by CHECKSUM TABLE and rows (invisible columns included),
# routines, triggers, users and grants, and gtid_executed. MySQL's own mysqlbinlog piped into
# MySQL's own client is run the same way, as the reference.
source "$(dirname "$0")/lib.sh"
PA=${1:-23651}
PT=$((PA + 1))
MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
"$MYSQL_SERVER" chroot > /dev/null || fail "cannot build the MySQL chroot (see above)"
mstart() { SERVERS_MYSQL+=("$WORK/$1"); "$MYSQL_SERVER" start "$WORK/$1" "${@:2}"; }
# MySQL's own client and tools (from the chroot).
mysql_client() { "$MYSQL_SERVER" exec mysql --no-defaults -h127.0.0.1 -P"$1" -uroot "${@:2}"; }
BR=("$BINRECOVER")
CONN=(--no-defaults --no-progress -h127.0.0.1 -uroot)

mstart a "$PA"
mstart t "$PT"
# state PORT: everything a restore must give back, as text.
state() {
  local p=$1 t
  for t in acct audit snap docs; do
    echo "== w1.$t"
    sql "$p" -N -e "CHECKSUM TABLE w1.$t" 2>&1 | cut -f2
    if [ "$t" = acct ]; then
      sql "$p" -N -e "SELECT *, secret FROM w1.acct ORDER BY id" 2>&1
    else
      sql "$p" -N -e "SELECT * FROM w1.$t ORDER BY id" 2>&1
    fi
  done
  echo "== other.t"
  sql "$p" -N -e "SELECT * FROM other.t ORDER BY id" 2>&1
  echo "== routines and triggers"
  sql "$p" -N -e "SELECT routine_schema, routine_name, routine_definition FROM
    information_schema.routines WHERE routine_schema = 'w1' ORDER BY 1, 2;
    SELECT trigger_name, action_statement FROM information_schema.triggers
    WHERE trigger_schema = 'w1' ORDER BY 1" 2>&1
  echo "== accounts"
  sql "$p" -N -e "SHOW GRANTS FOR 'app'@'localhost'; SHOW GRANTS FOR 'reader'" 2>&1
  sql "$p" -N -e "SELECT user, host, authentication_string FROM mysql.user
    WHERE user IN ('app', 'reader') ORDER BY 1" 2>&1
  echo "== gtid_executed"
  sql "$p" -N -e "SELECT @@global.gtid_executed" 2>&1
}
sql "$PA" -e "CREATE DATABASE other; CREATE TABLE other.t (id INT PRIMARY KEY, v INT);
  INSERT INTO other.t VALUES (1, 1)"

sql "$PA" <<'SQL'
CREATE DATABASE w1;
USE w1;
CREATE TABLE acct (id INT PRIMARY KEY AUTO_INCREMENT, owner VARCHAR(20), bal DECIMAL(10,2),
  bal2 DECIMAL(12,2) AS (bal * 2) VIRTUAL, tag VARCHAR(30) AS (CONCAT(owner, '#', yr)) STORED,
  secret INT INVISIBLE DEFAULT 7, yr YEAR, n SMALLINT, u TINYINT UNSIGNED, KEY (tag));
CREATE TABLE audit (id INT PRIMARY KEY AUTO_INCREMENT, acct_id INT, what VARCHAR(20),
  at DATETIME(3));
CREATE TRIGGER acct_ai AFTER INSERT ON acct FOR EACH ROW
  INSERT INTO audit (acct_id, what, at) VALUES (NEW.id, 'insert', '2026-01-01 00:00:00.123');
CREATE PROCEDURE bump(IN d INT) UPDATE acct SET bal = bal + d;
CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2;
INSERT INTO acct (owner, bal, yr, n, u) VALUES ('ann', 10.50, 2024, -32768, 255), ('bob', 20, 1999, 5, 0);
SQL
# The dump, with its binlog coordinates (CHANGE REPLICATION SOURCE TO ... in a comment).
"$MYSQL_SERVER" exec mysqldump --no-defaults -h127.0.0.1 -P"$PA" -uroot --source-data=2 \
  --single-transaction --routines --triggers --databases w1 other > "$WORK/dump.sql" ||
  fail "mysqldump failed"
grep -q "CHANGE REPLICATION SOURCE TO" "$WORK/dump.sql" || fail "no coordinates in the dump"

sql "$PA" <<'SQL'
USE w1;
INSERT INTO acct (owner, bal, secret, yr, n, u) VALUES ('cy', 30, 99, 2001, -1, 128);
BEGIN;
INSERT INTO acct (owner, bal, yr, n) VALUES ('dee', 1, 2002, 2);
SAVEPOINT s1;
INSERT INTO acct (owner, bal, yr, n) VALUES ('eve', 2, 2003, 3);
ROLLBACK TO SAVEPOINT s1;
UPDATE acct SET bal = bal + 1 WHERE owner = 'ann';
COMMIT;
CALL bump(5);
XA START 'x2';
UPDATE acct SET n = n - 1 WHERE owner = 'bob';
XA END 'x2';
XA PREPARE 'x2';
XA COMMIT 'x2';
XA START 'x1';
DELETE FROM acct WHERE owner = 'dee';
XA END 'x1';
XA COMMIT 'x1' ONE PHASE;
SET gtid_next = 'AUTOMATIC:batch';
INSERT INTO acct (owner, bal, yr, n) VALUES ('fay', 7.25, 2010, 10);
UPDATE acct SET bal = bal * 2 WHERE owner = 'fay';
SET gtid_next = 'AUTOMATIC';
CREATE TABLE snap SELECT id, owner, bal FROM acct;
ALTER TABLE acct ADD COLUMN note VARCHAR(10) DEFAULT 'n' AFTER bal;
UPDATE acct SET note = 'late', bal = bal + twice(1) WHERE id <= 2;
CREATE TABLE docs (id INT PRIMARY KEY, j JSON, big INT AS (JSON_EXTRACT(j, '$.a')) VIRTUAL);
INSERT INTO docs (id, j) VALUES (1, '{"a": 1, "s": "x"}'), (2, '{"a": 2}');
UPDATE docs SET j = JSON_SET(j, '$.s', 'yy') WHERE id = 1;
UPDATE docs SET id = 3 WHERE id = 2;
CREATE USER 'app'@'localhost' IDENTIFIED BY 'pw1';
CREATE ROLE 'reader';
GRANT SELECT ON w1.* TO 'reader';
GRANT 'reader' TO 'app'@'localhost';
ALTER USER 'app'@'localhost' IDENTIFIED BY 'pw2';
GRANT INSERT ON w1.acct TO 'app'@'localhost';
SET SESSION binlog_format = STATEMENT;
CREATE TEMPORARY TABLE tmp1 (x INT);
INSERT INTO tmp1 VALUES (1);
SQL
sql "$PA" -e "FLUSH BINARY LOGS"
state "$PA" > "$WORK/mid.state"
read -r mid_file mid_pos < <(sql "$PA" -N -e "SHOW BINARY LOG STATUS" | cut -f1,2)
# The last file without column names in its table maps: --rows-as-sql then takes them from
# the dump and the log's DDL, and --flashback writes BINLOG statements of inverted events.
sql "$PA" -e "SET GLOBAL binlog_row_metadata = MINIMAL"
sql "$PA" w1 <<'SQL'
INSERT INTO acct (owner, bal, yr, n) VALUES ('gus', 3, 2020, 20);
UPDATE docs SET id = 4 WHERE id = 3;
UPDATE snap SET bal = 0 WHERE id = 1;
INSERT INTO other.t VALUES (2, 2);
DELETE FROM audit WHERE id = 1;
SQL
# Column names again; a DELETE of a row of acct, whose trigger fires on INSERT: undone by plain
# SQL, the INSERT would fire it and add an audit row the source never had.
sql "$PA" -e "SET GLOBAL binlog_row_metadata = FULL"
state "$PA" > "$WORK/pre3.state"
read -r pre3_file pre3_pos < <(sql "$PA" -N -e "SHOW BINARY LOG STATUS" | cut -f1,2)
sql "$PA" -e "DELETE FROM w1.acct WHERE owner = 'cy'"

state "$PA" > "$WORK/expected.state"
for t in w1.acct w1.audit w1.snap w1.docs other.t; do  # what the drill verifies
  printf '%s\t%s\t%s\n' "$t" "$(sql "$PA" -N -e "SELECT COUNT(*) FROM $t")" \
    "$(sql "$PA" -N -e "CHECKSUM TABLE $t" | cut -f2)"
done > "$WORK/expect.tsv"
sql "$PA" -e "DROP DATABASE w1; INSERT INTO other.t VALUES (3, 3)"
# The listing of every file equals the server's SHOW BINLOG EVENTS, row for row.
for f in $(sql "$PA" -N -e "SHOW BINARY LOGS" | cut -f1); do
  sql "$PA" -N -B -e "SHOW BINLOG EVENTS IN '$f'" > "$WORK/server.tsv"
  "$BINRECOVER" events --format=tsv "$WORK/a/binlog/$f" > "$WORK/ours.tsv" || fail "events $f failed"
  diff "$WORK/server.tsv" "$WORK/ours.tsv" ||
    fail "the listing of $f differs from MySQL's SHOW BINLOG EVENTS"
done
pass "events --format=tsv equals SHOW BINLOG EVENTS for every file of the workload"
"$BINRECOVER" events --format=tsv --index-file="$WORK/a/binlog/mysql-bin.index" > "$WORK/all.tsv"
read -r drop_file drop_pos < <(awk -F'\t' '$3 == "Query" && $6 ~ /DROP DATABASE w1/ { print $1, $2; exit }' "$WORK/all.tsv")
[ -n "$drop_file" ] || fail "DROP DATABASE not found"
read -r dump_file dump_pos < <(sed -n "s/.*SOURCE_LOG_FILE='\([^']*\)', SOURCE_LOG_POS=\([0-9]*\).*/\1 \2/p" "$WORK/dump.sql")
mapfile -t files < <(binlogs_between "$WORK/a/binlog" "$dump_file" "$drop_file")

PM=$((PA + 2))
start_server m "$PM"  # a MariaDB target (path 8)

# fresh_target: an empty target with the dump restored (gtid_executed = the dump's GTID_PURGED).
fresh_target() {
  sql "$PT" -e "DROP DATABASE IF EXISTS w1; DROP DATABASE IF EXISTS other;
    DROP USER IF EXISTS 'app'@'localhost', 'reader'; RESET BINARY LOGS AND GTIDS"
  mysql_client "$PT" < "$WORK/dump.sql" || fail "restoring the dump failed"
}
# check LABEL [new-gtids]: the target equals the source before the DROP (with new-gtids: except
# gtid_executed, which then holds the dump's GTIDs and new ones of the target's own).
check() {
  state "$PT" > "$WORK/actual.state"
  if [ "${2:-}" = new-gtids ]; then
    sed -i '/^== gtid_executed/,$d' "$WORK/actual.state"
    sed '/^== gtid_executed/,$d' "$WORK/expected.state" > "$WORK/expected.nogtid"
  else
    cp "$WORK/expected.state" "$WORK/expected.nogtid"
  fi
  diff "$WORK/expected.nogtid" "$WORK/actual.state" > "$WORK/state.diff" ||
    { head -40 "$WORK/state.diff" >&2; fail "$1: the target differs from the source before the DROP"; }
  pass "$1: every table, routine, trigger, account and gtid_executed equal to the source"
}

# 0. The reference: MySQL's own mysqlbinlog piped into MySQL's own client.
path_0() {
fresh_target
"$MYSQL_SERVER" exec mysqlbinlog --start-position="$dump_pos" --stop-position="$drop_pos" \
  "${files[@]}" > "$WORK/mysqlbinlog.sql" || fail "mysqlbinlog failed"
mysql_client "$PT" < "$WORK/mysqlbinlog.sql" || fail "mysqlbinlog's output failed"
check "reference: mysqlbinlog | mysql"
}

# 1. SQL restore.
path_1() {
fresh_target
"$BINRECOVER" --start-position="$dump_pos" --stop-position="$drop_pos" "${files[@]}" > "$WORK/plain.sql" ||
  fail "binrecover exited $?"
mysql_client "$PT" < "$WORK/plain.sql" || fail "binrecover's SQL failed in mysql"
check "binrecover | mysql"
}

# 2. --skip-gtids into GTID_MODE=ON: new GTIDs, and the client exits 0.
path_2() {
fresh_target
"$BINRECOVER" --skip-gtids --start-position="$dump_pos" --stop-position="$drop_pos" "${files[@]}" \
  > "$WORK/skip.sql" || fail "binrecover --skip-gtids exited $?"
mysql_client "$PT" < "$WORK/skip.sql" || fail "binrecover --skip-gtids output failed in mysql"
check "binrecover --skip-gtids | mysql (GTID_MODE=ON)" new-gtids
}

# 3. replay, with each --gtids mode.
path_3() {
for mode in keep skip-applied strip; do
  fresh_target
  rm -f "$WORK/r.state"
  "$BINRECOVER" replay "${CONN[@]}" -P"$PT" --state-file="$WORK/r.state" --gtids="$mode" \
    --start-position="$dump_pos" --stop-position="$drop_pos" "${files[@]}" 2> "$WORK/replay.err" ||
    { cat "$WORK/replay.err" >&2; fail "replay --gtids=$mode failed"; }
  if [ "$mode" = strip ]; then check "replay --gtids=$mode" new-gtids; else check "replay --gtids=$mode"; fi
done
}

# 4. --rows-as-sql: plain SQL from the row events. The dump gives the tables' definitions
# (--schema): generated columns are left out of the statements (the server computes them).
path_4() {
fresh_target
# Plain SQL of a table with triggers fires them again: warned, and --trigger-tables=binlog
# writes that table's rows as BINLOG statements (which fire none).
"$BINRECOVER" --rows-as-sql --schema="$WORK/dump.sql" --start-position="$dump_pos" \
  --stop-position="$drop_pos" "${files[@]}" > /dev/null 2> "$WORK/rows.err" ||
  fail "binrecover --rows-as-sql exited $?"
grep -q "w1.acct has triggers (acct_ai)" "$WORK/rows.err" || fail "no warning about acct's trigger"
"$BINRECOVER" --rows-as-sql --trigger-tables=binlog --schema="$WORK/dump.sql" \
  --start-position="$dump_pos" --stop-position="$drop_pos" "${files[@]}" \
  > "$WORK/rows.sql" 2> "$WORK/rows.err" || fail "binrecover --rows-as-sql exited $?"
if grep -q "has triggers" "$WORK/rows.err"; then fail "warned about triggers with --trigger-tables=binlog"; fi
mysql_client "$PT" < "$WORK/rows.sql" || fail "--rows-as-sql output failed in mysql"
check "binrecover --rows-as-sql --trigger-tables=binlog | mysql"
if grep -q "bal2" "$WORK/rows.sql"; then fail "--rows-as-sql wrote the generated column bal2"; fi
}

# 5. --flashback of a range: the target as the source before the DROP; undoing everything after
# the FLUSH gives back the source's state at the FLUSH (new GTIDs: compared without them).
path_5() {
"$BINRECOVER" --flashback --schema="$WORK/dump.sql" --start-position="$mid_pos" --stop-position="$drop_pos" \
  "$WORK/a/binlog/$mid_file" > "$WORK/flashback.sql" 2> "$WORK/flashback.err" ||
  { cat "$WORK/flashback.err" >&2; fail "--flashback exited $?"; }
grep -q "^BINLOG" "$WORK/flashback.sql" || fail "--flashback wrote no BINLOG statement"
mysql_client "$PT" < "$WORK/flashback.sql" || fail "the --flashback output failed in mysql"
state "$PT" | sed '/^== gtid_executed/,$d' > "$WORK/actual.state"
sed '/^== gtid_executed/,$d' "$WORK/mid.state" | diff - "$WORK/actual.state" ||
  fail "--flashback did not give back the state at the FLUSH"
grep -q "Update_rows_partial" <("$BINRECOVER" events "$WORK/a/binlog/$mid_file") ||
  fail "no partial update event in the flashback's range"
pass "--flashback of the last file (BINLOG form, a partial-JSON update event with whole images): the target equals the source at the FLUSH"

# ... and of the DELETE on acct (a table with a trigger: its undo is an inverted event, which
# fires no trigger), from the state before the DROP. The dump names the trigger and the
# generated columns (it predates the range's own DDL).
fresh_target
mysql_client "$PT" < "$WORK/plain.sql" || fail "restoring the state before the DROP failed"
"$BINRECOVER" --flashback --schema="$WORK/dump.sql" --start-position="$pre3_pos" --stop-position="$drop_pos" \
  "$WORK/a/binlog/$pre3_file" > "$WORK/flashback3.sql" || fail "--flashback exited $?"
mysql_client "$PT" < "$WORK/flashback3.sql" || fail "the --flashback output failed in mysql"
state "$PT" | sed '/^== gtid_executed/,$d' > "$WORK/actual.state"
sed '/^== gtid_executed/,$d' "$WORK/pre3.state" | diff - "$WORK/actual.state" ||
  fail "--flashback of a DELETE on a table with a trigger did not give back the state before it"
pass "--flashback of a DELETE on a table with a trigger: the state before it, no trigger fired"
}

# 6. plan with the dump: the DROP DATABASE is the destructive event (not the DROP TEMPORARY
# TABLE the server logged when the session with tmp1 ended); its first command restores.
path_6() {
"$BINRECOVER" plan --dump="$WORK/dump.sql" --index-file="$WORK/a/binlog/mysql-bin.index" \
  > "$WORK/plan.txt" || fail "plan failed"
grep -q "DROP DATABASE" "$WORK/plan.txt" || { cat "$WORK/plan.txt"; fail "plan did not find the DROP DATABASE"; }
if grep -qi "TEMPORARY" "$WORK/plan.txt"; then cat "$WORK/plan.txt"; fail "plan calls DROP TEMPORARY TABLE destructive"; fi
cmd=$(grep -A1 "^Recover to just before" "$WORK/plan.txt" | tail -1 | sed 's/^ *//')
[ -n "$cmd" ] || { cat "$WORK/plan.txt"; fail "plan printed no command"; }
fresh_target
cmd=${cmd%| mysql}
eval "${cmd/#binrecover/\"$BINRECOVER\"}" > "$WORK/plan.sql" || fail "plan's command failed: $cmd"
mysql_client "$PT" < "$WORK/plan.sql" || fail "plan's command's SQL failed in mysql"
check "plan's first command ($cmd)"
}

# 7. drill on the target (a server of our own): restore, replay to just before the damage,
# verify against the source's tables; a wrong expectation must fail it.
path_7() {
sql "$PT" -e "DROP DATABASE IF EXISTS w1; DROP DATABASE IF EXISTS other;
  DROP USER IF EXISTS 'app'@'localhost', 'reader'; RESET BINARY LOGS AND GTIDS"
rc=0
"$BINRECOVER" drill "${CONN[@]}" -P"$PT" --dump="$WORK/dump.sql" \
  --index-file="$WORK/a/binlog/mysql-bin.index" --expect="$WORK/expect.tsv" \
  --report="$WORK/drill.json" > "$WORK/drill.out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$WORK/drill.out"; fail "the drill failed (exit $rc)"; }
grep -q '"passed":true' "$WORK/drill.json" || fail "the drill report does not say passed"
check "drill (restore + replay to just before the DROP DATABASE)"
}

# 8. A MySQL log into MariaDB (a migration): without --target-flavor=mariadb the SQL fails
# there (GTID_NEXT); with it, and with replay (which asks its server), the statements replay
# as a MariaDB replica applies them: fractional seconds rounded as MySQL rounded them.
path_8() {
sql "$PA" -e "FLUSH BINARY LOGS"
read -r mig_file mig_pos < <(sql "$PA" -N -e "SHOW BINARY LOG STATUS" | cut -f1,2)
sql "$PA" <<'SQL'
CREATE DATABASE mig;
SET SESSION binlog_format = STATEMENT;
CREATE TABLE mig.t (id INT PRIMARY KEY, d DATETIME(2), t TIME(1), s VARCHAR(10));
INSERT INTO mig.t VALUES (1, '2026-01-01 10:00:00.129', '10:00:00.16', 'é');
INSERT INTO mig.t VALUES (2, '2026-01-01 10:00:00.999', '-00:00:00.96', 'x');
SQL
sql "$PA" -N -e "SELECT * FROM mig.t ORDER BY id" > "$WORK/mig.expected"
grep -q "10:00:00.13" "$WORK/mig.expected" || fail "MySQL did not round (test premise)"
"$BINRECOVER" --start-position="$mig_pos" "$WORK/a/binlog/$mig_file" > "$WORK/mig.plain.sql"
sql "$PM" < "$WORK/mig.plain.sql" 2> /dev/null &&
  fail "a MySQL log's SQL (GTID_NEXT) ran in MariaDB without --target-flavor (test premise)"
sql "$PM" -e "DROP DATABASE IF EXISTS mig"
"$BINRECOVER" --target-flavor=mariadb --start-position="$mig_pos" "$WORK/a/binlog/$mig_file" \
  > "$WORK/mig.sql" || fail "--target-flavor=mariadb exited $?"
if grep -q "GTID_NEXT= '" "$WORK/mig.sql"; then fail "--target-flavor=mariadb wrote GTID_NEXT"; fi
sql "$PM" < "$WORK/mig.sql" || fail "the MySQL log's SQL failed in MariaDB (see $WORK/mig.sql)"
sql "$PM" -N -e "SELECT * FROM mig.t ORDER BY id" | diff "$WORK/mig.expected" - ||
  fail "mig.t in MariaDB differs from MySQL's (fractional seconds?)"
sql "$PM" -e "DROP DATABASE mig"
"$BINRECOVER" replay "${CONN[@]}" -P"$PM" --state-file="$WORK/mig.state" \
  --start-position="$mig_pos" "$WORK/a/binlog/$mig_file" 2> "$WORK/mig.err" ||
  { cat "$WORK/mig.err" >&2; fail "replay of a MySQL log into MariaDB failed"; }
sql "$PM" -N -e "SELECT * FROM mig.t ORDER BY id" | diff "$WORK/mig.expected" - ||
  fail "mig.t replayed into MariaDB differs from MySQL's"
pass "MySQL log into MariaDB (--target-flavor=mariadb and replay): no GTID_NEXT, fractional seconds rounded as MySQL did, rows equal"
}

# 9. replay stopped and resumed: (a) at a file boundary (the first file alone, then --resume
# over all of them; new GTIDs, so a transaction applied twice would show as a duplicate);
# (b) mid-file, by killing the target (kill -9) while replay waits on a lock, restarting it
# (crash recovery) and resuming: nothing applied twice, nothing skipped.
path_9() {
fresh_target
rm -f "$WORK/r.state"
"$BINRECOVER" replay "${CONN[@]}" -P"$PT" --state-file="$WORK/r.state" --gtids=strip \
  --start-position="$dump_pos" "${files[0]}" 2> "$WORK/r1.err" ||
  { cat "$WORK/r1.err" >&2; fail "replay of the first file failed"; }
"$BINRECOVER" replay "${CONN[@]}" -P"$PT" --state-file="$WORK/r.state" --gtids=strip --resume \
  --stop-position="$drop_pos" "${files[@]}" 2> "$WORK/r2.err" ||
  { cat "$WORK/r2.err" >&2; fail "replay --resume at the file boundary failed"; }
check "replay --resume at a file boundary (--gtids=strip)" new-gtids

fresh_target
rm -f "$WORK/k.state"
# A gap lock where the last file inserts other.t (2, 2): replay waits there, mid-file. The lock
# is taken, by a session of the test's own, before the replay starts, and held until the
# target is killed; the replay's sessions wait for a lock as long as the target lets them
# (the global innodb_lock_wait_timeout they start with: an hour here).
sql "$PT" -e "SET GLOBAL innodb_lock_wait_timeout = 3600"
hold gap "$PT" "BEGIN; SELECT * FROM other.t WHERE id = 2 FOR UPDATE"
"$BINRECOVER" replay "${CONN[@]}" -P"$PT" --state-file="$WORK/k.state" \
  --start-position="$dump_pos" --stop-position="$drop_pos" "${files[@]}" 2> "$WORK/k.err" &
replayer=$!
lock_waited() {
  kill -0 "$replayer" 2> /dev/null || { cat "$WORK/k.err" >&2; fail "replay ended before it waited on the lock"; }
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.innodb_trx
    WHERE trx_state = 'LOCK WAIT'" 2> /dev/null)" = 1 ]
}
wait_for 180 "replay never waited on the lock" lock_waited
tpid=$(cat "$WORK/t/mysqld.pid")
kill -9 "$tpid"
wait_for 120 "the killed target (pid $tpid) did not end" ended "$tpid"
rc=0
wait "$replayer" || rc=$?
release gap
[ "$rc" != 0 ] || fail "replay exited 0 although its server was killed"
[ -s "$WORK/k.state" ] || { cat "$WORK/k.err" >&2; fail "no state after the kill"; }
"$MYSQL_SERVER" restart "$WORK/t" "$PT" || fail "the target did not restart"
"$BINRECOVER" replay "${CONN[@]}" -P"$PT" --state-file="$WORK/k.state" --resume \
  --stop-position="$drop_pos" "${files[@]}" 2> "$WORK/k2.err" ||
  { cat "$WORK/k.err" "$WORK/k2.err" >&2; fail "replay --resume after the kill failed"; }
check "replay killed mid-file with its target (kill -9), target restarted, --resume"
}

# 10. --database=w1: the account statements (CREATE USER, CREATE ROLE, GRANT role, ALTER USER,
# all run under USE w1) stay with the GRANTs on w1 that need them, as mysqlbinlog keeps them.
path_10() {
fresh_target
"$BINRECOVER" --database=w1 --start-position="$dump_pos" --stop-position="$drop_pos" \
  "${files[@]}" > "$WORK/w1.sql" || fail "--database=w1 exited $?"
mysql_client "$PT" < "$WORK/w1.sql" || fail "--database=w1 output failed in mysql (see $WORK/w1.sql)"
state "$PT" | sed '/^== other.t/,/^== routines/{/^== routines/!d}; /^== gtid_executed/,$d' > "$WORK/actual.state"
sed '/^== other.t/,/^== routines/{/^== routines/!d}; /^== gtid_executed/,$d' "$WORK/expected.state" |
  diff - "$WORK/actual.state" || fail "--database=w1: w1, its routines or its accounts differ"
pass "--database=w1 | mysql: w1's tables, routines, triggers, users, role and grants equal to the source"
}

# 11. --include-gtids / --exclude-gtids (GTID sets, tagged ones too): the transactions kept are
# those MySQL's mysqlbinlog keeps with the same option.
path_11() {
uuid=$(sql "$PA" -N -e "SELECT @@server_uuid")
for opt in "--include-gtids=$uuid:batch:2,$uuid:1-8" "--exclude-gtids=$uuid:batch:1-2,$uuid:10-12"; do
  "$MYSQL_SERVER" exec mysqlbinlog "$opt" "${files[@]}" | grep -o "GTID_NEXT= '[^']*'" |
    grep -v AUTOMATIC > "$WORK/g.theirs" || true
  "$BINRECOVER" "$opt" "${files[@]}" | grep -o "GTID_NEXT= '[^']*'" | grep -v AUTOMATIC > "$WORK/g.ours" || true
  [ -s "$WORK/g.theirs" ] || fail "mysqlbinlog $opt kept no transaction (test premise)"
  diff "$WORK/g.theirs" "$WORK/g.ours" || fail "$opt: the transactions kept differ from mysqlbinlog's"
  "$BINRECOVER" "${files[@]}" | grep -c "GTID_NEXT= '$uuid" > "$WORK/g.all"
  [ "$(wc -l < "$WORK/g.ours")" -lt "$(cat "$WORK/g.all")" ] || fail "$opt left nothing out"
done
rc=0
"$BINRECOVER" --include-gtids=nonsense "${files[@]}" > /dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "--include-gtids=nonsense gave exit $rc, not 2"
pass "--include-gtids / --exclude-gtids (tagged too) keep what mysqlbinlog keeps"
}

# Each path runs on its own (a subshell): one that fails is reported, and the others still run.
failed=()
for n in 0 1 2 3 4 5 6 7 8 9 10 11; do
  set +e
  (
    set -e
    "path_$n"
  )
  rc=$?
  set -e
  [ $rc = 0 ] || failed+=("$n")
done
[ ${#failed[@]} = 0 ] || fail "paths that failed: ${failed[*]}"
