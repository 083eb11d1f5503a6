#!/usr/bin/env bash
# MySQL 9.7 with foreign keys in the SQL layer (innodb_native_foreign_keys=OFF, its default):
# the source logs a cascade's child rows before the parent's change, and 9.7 refuses the
# parent's row event where its key changed only in letter case (ON UPDATE CASCADE, a _ci key):
# 1451, for MySQL's own replica too. On real servers (ports PA, PA+1):
#  - `replay` stops with exit 6 naming the failing event, where to --resume, and that
#    --rows-as-sql applies such transactions; `--resume --rows-as-sql` then ends equal to the
#    source;
#  - `replay --rows-as-sql` from the start ends equal to the source.
source "$(dirname "$0")/lib.sh"
PA=${1:-24571}
start_pair "$PA" mysql
[ "$(sql "$PT" -N -e "SELECT @@innodb_native_foreign_keys")" = 0 ] ||
  fail "the target's foreign keys are InnoDB's: the case this test is of is not there"

sql "$PA" -e "FLUSH BINARY LOGS"
first=$(sql "$PA" -N -e "$binlog_status" | cut -f1)
sql "$PA" -e "CREATE DATABASE fk;
  CREATE TABLE fk.p (id INT PRIMARY KEY, k VARCHAR(20) NOT NULL, UNIQUE KEY (k)) ENGINE=InnoDB;
  CREATE TABLE fk.c (id INT PRIMARY KEY, pk VARCHAR(20) NOT NULL, FOREIGN KEY (pk)
    REFERENCES fk.p (k) ON UPDATE CASCADE ON DELETE CASCADE) ENGINE=InnoDB;
  INSERT INTO fk.p VALUES (1, 'abc'), (2, 'xyz'), (3, 'mno');
  INSERT INTO fk.c VALUES (10, 'abc'), (11, 'abc'), (12, 'xyz'), (13, 'mno');
  UPDATE fk.p SET k = 'ABC' WHERE id = 1;
  UPDATE fk.p SET k = 'xyy' WHERE id = 2;
  DELETE FROM fk.p WHERE id = 3;
  INSERT INTO fk.c VALUES (14, 'Abc');"
sql "$PA" -e "FLUSH BINARY LOGS"
mapfile -t files < <(binlogs_between "$WORK/a/binlog" "$first")
unset 'files[${#files[@]}-1]'  # (the new empty one)
content() { sql "$1" -N -e "SELECT * FROM fk.p ORDER BY id; SELECT * FROM fk.c ORDER BY id"; }
expected=$(content "$PA")

R=(--no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot --state-file="$WORK/r.state")
rc=0
"$BINRECOVER" replay "${R[@]}" "${files[@]}" 2> "$WORK/r.err" || rc=$?
[ $rc = 6 ] || { cat "$WORK/r.err"; fail "replay exited $rc, not 6 (MySQL 9.7 applies the case-only parent change now?)"; }
grep -q "server error 1451" "$WORK/r.err" && grep -q "continue there with --resume" "$WORK/r.err" &&
  grep -q -- "--rows-as-sql applies such transactions" "$WORK/r.err" ||
  { cat "$WORK/r.err"; fail "the stop does not say 1451, where to resume and that --rows-as-sql applies it"; }
"$BINRECOVER" replay "${R[@]}" --resume --rows-as-sql "${files[@]}" 2> "$WORK/r2.err" ||
  { cat "$WORK/r2.err"; fail "--resume --rows-as-sql failed"; }
[ "$(content "$PT")" = "$expected" ] || fail "--resume --rows-as-sql: the target differs from the source"
pass "replay stopped on the case-only parent change with 1451 (exit 6), naming --rows-as-sql; --resume --rows-as-sql: the target equals the source"

sql "$PT" -e "DROP DATABASE fk; DROP DATABASE IF EXISTS binrecover; $reset_logs"
rm -f "$WORK/r.state"
"$BINRECOVER" replay "${R[@]}" --rows-as-sql "${files[@]}" 2> "$WORK/r3.err" ||
  { cat "$WORK/r3.err"; fail "replay --rows-as-sql failed"; }
[ "$(content "$PT")" = "$expected" ] || fail "replay --rows-as-sql: the target differs from the source"
pass "replay --rows-as-sql from the start: the target equals the source"
