#!/usr/bin/env bash
# --flashback on a MariaDB with its default binlog_row_metadata (NO_LOG: no column names in the
# log) and no --schema: the undo is written as inverted row events in BINLOG statements, as
# mariadb-binlog --flashback writes it. Applied to the end state it gives back the start state
# (CHECKSUM TABLE), as mariadb-binlog --flashback's own undo does.
#   tests/integration/flashback_minimal.sh PORT
source "$(dirname "$0")/lib.sh"
PORT=${1:?port}
start_server src "$PORT"
sql "$PORT" -e "SELECT @@binlog_row_metadata, @@binlog_row_image" | grep -qE "(NO_LOG|MINIMAL)\s+FULL" ||
  fail "the server is not on the default row metadata (no column names) and FULL image"
sql "$PORT" <<'SQL'
CREATE DATABASE f;
CREATE TABLE f.t (id INT PRIMARY KEY, v VARCHAR(40), n BIGINT, d DECIMAL(10,3), b BLOB,
  dt DATETIME(3), e ENUM('x','y'), s SET('a','b','c'), u FLOAT) ENGINE=InnoDB;
CREATE TABLE f.nokey (a INT, b VARCHAR(20)) ENGINE=InnoDB;
CREATE TABLE f.wide (id INT PRIMARY KEY, payload VARCHAR(2000)) ENGINE=InnoDB;
INSERT INTO f.t VALUES (1, 'one', 1, 1.5, 'b1', '2026-01-01 00:00:01.5', 'x', 'a', 1.25),
  (2, 'two', -2, -2.25, NULL, NULL, 'y', 'a,b', NULL);
INSERT INTO f.nokey VALUES (1, 'a'), (1, 'a'), (2, 'b');
SQL
checksums() { sql "$PORT" -N -e "CHECKSUM TABLE f.t, f.nokey, f.wide"; }
checksums >"$WORK/start"
# The range in a file of its own: its CREATE TABLEs are in the file before.
read -r file0 end0 < <(sql "$PORT" -N -e "SHOW MASTER STATUS" | cut -f1,2)
sql "$PORT" -e "FLUSH BINARY LOGS"
start=$(sql "$PORT" -N -e "SHOW MASTER STATUS" | cut -f2)
file=$(sql "$PORT" -N -e "SHOW MASTER STATUS" | cut -f1)
sql "$PORT" <<'SQL'
INSERT INTO f.t VALUES (3, 'three', 3, 3.333, 'blob', '2026-03-03 03:03:03.333', NULL, '', 3.5);
UPDATE f.t SET v = 'TWO', n = n * 10, s = 'c' WHERE id = 2;
DELETE FROM f.t WHERE id = 1;
BEGIN;
UPDATE f.nokey SET b = 'z' WHERE a = 1 LIMIT 1;
DELETE FROM f.nokey WHERE a = 2;
INSERT INTO f.nokey VALUES (5, NULL);
UPDATE f.t SET u = u + 1 WHERE id = 3;
COMMIT;
INSERT INTO f.wide SELECT seq, REPEAT(CHAR(65 + seq % 26), 1000 + seq) FROM f.seq_1_to_60;
UPDATE f.wide SET payload = CONCAT(payload, '!') WHERE id % 3 = 0;
DELETE FROM f.wide WHERE id > 50;
SQL
checksums >"$WORK/end"
cmp -s "$WORK/start" "$WORK/end" && fail "the workload changed nothing"
sql "$PORT" -e "FLUSH BINARY LOGS"
F=$WORK/src/binlog/$file

"$BINRECOVER" --flashback --start-position="$start" "$F" >"$WORK/undo.sql" ||
  fail "--flashback on a MINIMAL-metadata binlog failed"
grep -q "^BINLOG '" "$WORK/undo.sql" || fail "the undo has no BINLOG statement"
grep -q "^DELETE\|^INSERT\|^UPDATE" "$WORK/undo.sql" && fail "plain SQL without column names"
sql "$PORT" <"$WORK/undo.sql" || fail "the undo did not apply"
checksums >"$WORK/after_undo"
cmp -s "$WORK/start" "$WORK/after_undo" ||
  fail "after the undo: $(tr '\n' ' ' <"$WORK/after_undo"), expected $(tr '\n' ' ' <"$WORK/start")"
pass "binrecover --flashback (BINLOG form) gives back the start state"

# mariadb-binlog's own undo of the same range, from the same end state, gives the same.
"$BINRECOVER" --skip-gtids --start-position="$start" "$F" | sql "$PORT" || fail "redo failed"
checksums >"$WORK/redo"
cmp -s "$WORK/end" "$WORK/redo" || fail "redo did not give the end state"
mariadb-binlog --no-defaults --flashback --start-position="$start" "$F" | sql "$PORT" ||
  fail "mariadb-binlog --flashback's undo did not apply"
checksums >"$WORK/after_mariadb"
cmp -s "$WORK/start" "$WORK/after_mariadb" || fail "mariadb-binlog --flashback gives another state"
pass "mariadb-binlog --flashback's undo gives the same start state"

# Read from the file with the CREATE TABLEs (started at its end): the undo learns the columns
# from them, and is plain SQL that gives back the start state too.
"$BINRECOVER" --skip-gtids --start-position="$start" "$F" | sql "$PORT" || fail "redo failed"
"$BINRECOVER" --flashback --start-position="$end0" "$WORK/src/binlog/$file0" "$F" >"$WORK/undo2.sql" ||
  fail "--flashback from the end of the file with the DDL failed"
grep -q "^BINLOG '" "$WORK/undo2.sql" && fail "the undo of tables whose CREATE TABLE was read has BINLOG"
grep -q '^UPDATE `f`.`t` SET `id`=' "$WORK/undo2.sql" || fail "no plain SQL with the learned column names"
sql "$PORT" <"$WORK/undo2.sql" || fail "the plain-SQL undo did not apply"
checksums >"$WORK/after_undo2"
cmp -s "$WORK/start" "$WORK/after_undo2" || fail "the plain-SQL undo gives another state"
pass "--flashback learns the columns from the CREATE TABLEs before --start-position: plain SQL, the same start state"
