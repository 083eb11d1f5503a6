#!/usr/bin/env bash
# --rows-as-sql on a real MariaDB that logs no column names (binlog_row_metadata at its default,
# NO_LOG), with --schema naming them from the dump, and the binlog's own DDL in between:
#  - ALTER TABLE in the middle of the log (a column added FIRST, one dropped, one moved with
#    MODIFY ... AFTER, one renamed), a table created mid-log, a table renamed: restore the dump,
#    apply binrecover's plain SQL from the dump's coordinates, and every table equals the
#    source's (SELECT and CHECKSUM TABLE) — rows before and after each ALTER went to the right
#    columns; unsigned values at their limits only come out right with the schema's UNSIGNED;
#  - without --schema: exit 0, one warning per table that columns are written by position;
#  - --flashback --schema (the current tables) over the writes after the last DDL gives back
#    the state at that point.
source "$(dirname "$0")/lib.sh"
PA=${1:-23581}
PB=$((PA + 1))
start_server a "$PA" --binlog-format=ROW
start_server b "$PB"

sql "$PA" -e "CREATE DATABASE shop;
  CREATE TABLE shop.t (id INT UNSIGNED NOT NULL, big BIGINT UNSIGNED, small TINYINT UNSIGNED,
    name VARCHAR(20) CHARSET utf8mb4, kind ENUM('a','b','c'), flags SET('x','y','z'),
    note TEXT, PRIMARY KEY (id));
  CREATE TABLE shop.nopk (a INT, b VARCHAR(10));
  INSERT INTO shop.t VALUES (1, 18446744073709551615, 255, 'first', 'b', 'x,z', 'n1'),
    (2, 0, 0, 'zweite ✓', 'c', '', NULL);
  INSERT INTO shop.nopk VALUES (1, 'one'), (1, 'one'), (2, 'two')"
mariadb-dump --no-defaults -h127.0.0.1 -P"$PA" -uroot --master-data=2 --flush-logs \
  --single-transaction -B shop > "$WORK/dump.sql"
read -r start_file start_pos < <(sed -n \
  "s/^-- CHANGE MASTER TO MASTER_LOG_FILE='\([^']*\)', MASTER_LOG_POS=\([0-9]*\);.*/\1 \2/p" \
  "$WORK/dump.sql")
[ -n "$start_file" ] || fail "no coordinates in the dump"

sql "$PA" shop <<'SQL'
INSERT INTO t VALUES (3, 4294967296, 200, 'before alter', 'a', 'y', 'n3');
UPDATE t SET name = 'first, updated', big = 18446744073709551614 WHERE id = 1;
UPDATE nopk SET b = 'uno' WHERE a = 1 LIMIT 1;
ALTER TABLE t ADD COLUMN z INT UNSIGNED FIRST, DROP COLUMN note, MODIFY small TINYINT UNSIGNED AFTER name;
INSERT INTO t VALUES (4000000000, 4, 5, 'after alter', 7, 'b', 'x,y');
UPDATE t SET z = 4294967295, small = 1 WHERE id = 2;
ALTER TABLE t CHANGE name label VARCHAR(20) CHARSET utf8mb4, RENAME COLUMN kind TO sort;
UPDATE t SET label = 'renamed' WHERE id = 3;
DELETE FROM t WHERE id = 2;
CREATE TABLE added (k INT UNSIGNED PRIMARY KEY, v VARCHAR(10));
INSERT INTO added VALUES (4294967295, 'max'), (1, 'one');
UPDATE added SET v = 'uno' WHERE k = 1;
RENAME TABLE nopk TO nopk2;
SQL
tables="t added nopk2"
snapshot() {  # PORT
  for t in $tables; do
    sql "$1" -N -e "SELECT * FROM shop.$t ORDER BY 1, 2; CHECKSUM TABLE shop.$t"
  done
}
# The state after the last DDL, and where the log is then: the --flashback range starts here.
snapshot "$PA" > "$WORK/mid"
read -r mid_file mid_pos < <(sql "$PA" -N -e "SHOW MASTER STATUS" | cut -f1,2)
sql "$PA" shop <<'SQL'
DELETE FROM nopk2 WHERE b = 'one';
INSERT INTO nopk2 VALUES (3, 'three');
UPDATE t SET big = 7, flags = 'z' WHERE id = 1;
INSERT INTO added VALUES (5, 'five');
DELETE FROM added WHERE k = 4294967295;
SQL
snapshot "$PA" > "$WORK/expected"
mapfile -t files < <(binlogs_between "$WORK/a/binlog" "$start_file")

sql "$PB" < "$WORK/dump.sql" || fail "restoring the dump failed"
"$BINRECOVER" --rows-as-sql --schema="$WORK/dump.sql" --start-position="$start_pos" \
  "${files[@]}" > "$WORK/rows.sql" 2> "$WORK/rows.err" ||
  { cat "$WORK/rows.err"; fail "binrecover --rows-as-sql --schema failed"; }
[ ! -s "$WORK/rows.err" ] || { cat "$WORK/rows.err"; fail "warnings with a complete schema"; }
grep -q 'INSERT INTO `shop`.`t` (`z`, `id`, `big`, `name`, `small`' "$WORK/rows.sql" ||
  fail "the row after the first ALTER was not written with its new column order"
grep -q "18446744073709551614" "$WORK/rows.sql" || fail "BIGINT UNSIGNED not decoded unsigned"
sql "$PB" < "$WORK/rows.sql" || fail "applying the plain SQL failed (see $WORK/rows.sql)"
snapshot "$PB" > "$WORK/actual"
diff "$WORK/expected" "$WORK/actual" || fail "tables differ after --rows-as-sql --schema"
pass "--schema + the binlog's ALTER/CREATE/RENAME: $(grep -c '^INSERT\|^UPDATE\|^DELETE' "$WORK/rows.sql") row statements, every table equals the source"

# Without --schema: positional names, one warning per table, exit 0.
"$BINRECOVER" --rows-as-sql --start-position="$start_pos" "${files[@]}" > "$WORK/pos.sql" \
  2> "$WORK/pos.err" || { cat "$WORK/pos.err"; fail "positional output exited non-zero"; }
grep -q 'INSERT INTO `shop`.`t` (`@1`, `@2`' "$WORK/pos.sql" || fail "no positional names"
grep -q "shop.t is not in the schema and the binlog carries no column names" "$WORK/pos.err" ||
  { cat "$WORK/pos.err"; fail "no warning about positional names"; }
[ "$(grep -c 'is not in the schema' "$WORK/pos.err")" = 3 ] ||
  { cat "$WORK/pos.err"; fail "expected one warning per table (3)"; }
pass "without --schema: positional names, one warning per table"

# --flashback with --schema (today's tables, `mariadb-dump --no-data`, as a DBA would take it:
# no DDL since the range's start) on a log without names: undoing everything after the last
# DDL turns the restored-and-replayed server back into the state at that point.
mariadb-dump --no-defaults -h127.0.0.1 -P"$PA" -uroot --no-data -B shop > "$WORK/now.sql"
"$BINRECOVER" --flashback --schema="$WORK/now.sql" --start-position="$mid_pos" \
  "$WORK/a/binlog/$mid_file" > "$WORK/undo.sql" 2> "$WORK/undo.err" ||
  { cat "$WORK/undo.err"; fail "--flashback --schema failed"; }
sql "$PB" < "$WORK/undo.sql" || fail "applying the undo SQL failed (see $WORK/undo.sql)"
snapshot "$PB" > "$WORK/undone"
diff "$WORK/mid" "$WORK/undone" || fail "--flashback --schema did not give back the state"
pass "--flashback --schema: $(grep -c '^BEGIN' "$WORK/undo.sql") transactions undone, tables equal the state after the last DDL"
