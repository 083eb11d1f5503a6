#!/usr/bin/env bash
# MySQL-only encodings in real MySQL binlogs of ../shared/corpus, decoded by --rows-as-sql and
# checked against values established without binrecover:
#  - VECTOR (MySQL 9): each value is the IEEE-754 float32 little-endian array the statement
#    stored; the expected bytes are computed here by perl's pack("f<"), from the numbers;
#  - binary JSON with opaque values (MySQL 9.0.1): DATE, DATETIME(6) and TIME render as MySQL's
#    JSON text does ("2012-03-18", "2012-03-18 11:30:45.000000", "87:31:46.654321"), DECIMAL
#    keeps its scale (9.00), and a BIT value reads "base64:type15:VQ==" (b'01010101' = 'U' =
#    base64 VQ==, MySQL's documented rendering of JSON_OBJECTAGG('a', b'01010101')); each set
#    back with its type (JSON_SET: X'55', CAST(... AS DATE / DATETIME(6) / TIME(6) / DECIMAL));
#  - column names and primary keys from the table maps' optional metadata (FULL), and
#    signedness from MINIMAL metadata: a TINYINT UNSIGNED column decoded as such.
# Skipped with a message when the corpus is absent.
source "$(dirname "$0")/lib.sh"
corpus=$ROOT/../shared/corpus
if [ ! -d "$corpus" ]; then
  echo "SKIPPED: ../shared/corpus not present"
  exit 77  # ctest reports it as skipped (SKIP_RETURN_CODE)
fi
# (the default output writes the LOAD DATA files of the 5.1 logs into a new folder under TMPDIR,
# which it leaves for mysql to read: here in the test's own folder)
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"
rows() { "$BINRECOVER" --no-defaults --rows-as-sql "$corpus/$1" 2> "$WORK/err" | grep -E '^(INSERT|UPDATE|DELETE)'; }
floats() { perl -e 'print uc unpack("H*", pack("f<*", @ARGV))' -- "$@"; }
expect() {  # FILE TEXT: the rows of FILE include TEXT (a fixed string)
  rows "$1" > "$WORK/rows"
  grep -qF -- "$2" "$WORK/rows" || { cat "$WORK/rows" "$WORK/err"; fail "$1: missing $2"; }
}

v=mysql-server-9.7/std_data/rpl_vector_binlog.000001
expect $v "INSERT INTO \`test\`.\`t1\` (\`c1\`, \`v1\`) VALUES (1, X'$(floats 1 2 3 4)')"
expect $v "VALUES (2, X'$(floats 1.1 2.1 3.1 4.1)')"
expect $v "VALUES (3, X'$(floats 1.2 2.2 3.2 4.2)')"
v=rust_mysql_common/test-data/binlogs/vector.binlog
expect $v "INSERT INTO \`dtb\`.\`foo\` (\`id\`, \`vector_column\`) VALUES (1, X'$(floats 1.1 2.2 3.3)')"
expect $v "VALUES (2, X'$(floats 1 -1 0)')"
expect $v "(\`id\`, \`vector_column\`, \`foo\`, \`vector_column2\`) VALUES (1, X'$(floats 1.1 2.2)', NULL, X'$(floats 1.1 2.2 3.3 4.4)')"
# (foo is TEXT utf8mb4: MySQL's COLUMN_CHARSET has an entry for each VECTOR column before it)
expect $v "VALUES (2, X'$(floats 1.01 -1.01)', _utf8mb4'bar', X'$(floats 42 43 44 45)')"
expect $v "DELETE FROM \`dtb\`.\`bar\` WHERE \`id\`=2"
expect $v "VALUES (3, X'$(floats 2.01 -2.01)', NULL, X'$(floats 42.1 43.2 44.3 45.4)')"
pass "VECTOR values equal the float32 arrays, names and keys from the table maps"

j=rust_mysql_common/test-data/binlogs/json-opaque.binlog
# Each document's text, and for the values whose type that text does not carry, the expression
# of their type JSON_SET puts back in it (the opaque VARCHAR the BIT became, a DATE, a TIME...).
ins="INSERT INTO \`foo\`.\`test\` (\`a\`) VALUES ("
expect $j "${ins}JSON_SET(_utf8mb4'{\"a\": \"base64:type15:VQ==\"}', _utf8mb4'\$.\"a\"', X'55'))"
expect $j "${ins}JSON_SET(_utf8mb4'{\"b\": \"2012-03-18\"}', _utf8mb4'\$.\"b\"', CAST('2012-03-18' AS DATE)))"
expect $j "${ins}JSON_SET(_utf8mb4'{\"c\": \"2012-03-18 11:30:45.000000\"}', _utf8mb4'\$.\"c\"', CAST('2012-03-18 11:30:45.000000' AS DATETIME(6))))"
expect $j "${ins}JSON_SET(_utf8mb4'{\"c\": \"87:31:46.654321\"}', _utf8mb4'\$.\"c\"', CAST('87:31:46.654321' AS TIME(6))))"
expect $j "${ins}JSON_SET(_utf8mb4'{\"d\": 123.456}', _utf8mb4'\$.\"d\"', CAST('123.456' AS DECIMAL(6,3))))"
expect $j "${ins}JSON_SET(_utf8mb4'{\"e\": 9.00}', _utf8mb4'\$.\"e\"', CAST('9.00' AS DECIMAL(11,2))))"
expect $j "${ins}_utf8mb4'{\"e\": [0, 1, true, false]}')"
expect $j "${ins}_utf8mb4'{\"e\": null}')"
pass "binary JSON opaque values (date, datetime, time, decimal, bit) as MySQL renders them, with their types"

m=rust_mysql_common/test-data/binlogs/minimal_row_metadata.000001
rows "$m" > "$WORK/rows"
grep -q "is not in the schema and the binlog carries no column names" "$WORK/err" ||
  fail "$m: MINIMAL metadata without names should warn"
# The table map at 312 (62 bytes) ends its MINIMAL optional metadata with SIGNEDNESS: type 1,
# length 1, bitmap 0x20 over the three LONG columns (1, 4, 5; MSB first): column 5 unsigned.
[ "$(od -An -tx1 -j $((312 + 49)) -N 3 "$corpus/$m" | tr -d ' \n')" = 010120 ] ||
  fail "$m: the SIGNEDNESS field is not where the format puts it"
grep -qF "INSERT INTO \`noria\`.\`t1\` (\`@1\`, \`@3\`, \`@5\`) VALUES (1, _utf8mb4'a', 3230202323)" \
  "$WORK/rows" || { cat "$WORK/rows"; fail "$m: column 5 not decoded as INT UNSIGNED"; }
pass "MINIMAL metadata: signedness applied (3230202323, not -1064764973), positional names warned"

# MySQL 5.1 before 5.1.18: pre-GA rows events (Write/Update/Delete_rows_event_old) after table
# maps without column metadata. -v (and -vv, DECODE-ROWS) reads the file as the default output
# does, with a note in place of row values, as the servers' own mysqlbinlog -v (it decoded none);
# --rows-as-sql refuses them (exit 5) naming the event. (-v failed: "Table_map: needs 1 more
# bytes", "Write_rows_event_old: needs 4 more bytes".)
for f in mariadb-server-10.11/suite/binlog/std_data/ver_5_1_17.001 \
  mariadb-server-10.11/suite/binlog/std_data/bug32407.001 \
  mysql-server-9.7/suite/binlog/std_data/ver_5_1-wl2325_r.001; do
  [ -f "$corpus/$f" ] || fail "$f: missing from the corpus"
  "$BINRECOVER" --no-defaults "$corpus/$f" > "$WORK/plain" 2> /dev/null || fail "$f: the default output failed"
  for mode in -v -vv "--base64-output=decode-rows -v"; do
    # shellcheck disable=SC2086
    "$BINRECOVER" --no-defaults $mode "$corpus/$f" > "$WORK/out" 2> "$WORK/err" ||
      fail "$f $mode: exit $?: $(cat "$WORK/err")"
    grep -q "^# (no row values: this rows event of MySQL 5.1 before 5.1.18" "$WORK/out" ||
      fail "$f $mode: no note for the pre-GA rows events"
  done
  # -v adds comment lines only: the SQL is the default output's (LOAD DATA's folder aside).
  sql_of() { grep -v '^#' | sed 's#/binrecover-load-[A-Za-z0-9]*/#/LOAD/#'; }
  "$BINRECOVER" --no-defaults -v "$corpus/$f" 2> /dev/null | sql_of > "$WORK/v.sql"
  sql_of < "$WORK/plain" | cmp -s - "$WORK/v.sql" || fail "$f: -v changes the SQL"
  rc=0
  "$BINRECOVER" --no-defaults --rows-as-sql "$corpus/$f" > /dev/null 2> "$WORK/err" || rc=$?
  [ "$rc" = 5 ] && grep -q "_event_old: a rows event of MySQL 5.1 before 5.1.18" "$WORK/err" ||
    fail "$f --rows-as-sql: exit $rc, $(cat "$WORK/err")"
  rc=0
  "$BINRECOVER" --no-defaults stats "$corpus/$f" > /dev/null 2> "$WORK/err" || rc=$?
  [ "$rc" = 5 ] && grep -q "cannot be counted: a table map of MySQL 5.1 before 5.1.18" "$WORK/err" ||
    fail "$f stats: exit $rc, $(cat "$WORK/err")"
done
pass "MySQL 5.1 pre-GA rows events: -v reads them with a note, --rows-as-sql and stats refuse them (exit 5)"

# MySQL 4.0/4.1 logs (binlog version 3) store where an event starts in its header's log_pos;
# servers and mysqlbinlog read it as where it ends (adding the event's size): every event's
# End_log_pos is then the next event's position. (It was listed as stored: the start.)
for f in mariadb-server-10.11/suite/binlog/std_data/binlog_old_version_4_1.000001 \
  mariadb-server-10.11/std_data/bug47142_master-bin.000001; do
  "$BINRECOVER" --no-defaults events --format=tsv "$corpus/$f" > "$WORK/ev.tsv" || fail "$f: events failed"
  awk -F'\t' 'NR > 1 && prev != $2 { bad = 1; print "End_log_pos " prev " before the event at " $2 }
    { prev = $5 } END { exit bad || NR < 3 }' "$WORK/ev.tsv" || fail "$f: End_log_pos is not where the next event starts"
done
pass "binlog version 3 (MySQL 4.x): End_log_pos is each event's end, as servers read it"

# An Incident event of a kind servers do not define (66, written on purpose by MariaDB's test
# for bug 40482) is listed as unknown, not as NONE (0).
"$BINRECOVER" --no-defaults events --format=tsv "$corpus/mariadb-server-10.11/std_data/bug40482-bin.000001" |
  grep -qP '\tIncident\t.*\t#66 \(unknown\)$' || fail "bug40482: incident 66 not listed as unknown"
pass "an Incident of an unknown kind is listed as unknown"

# Aurora's padding event (type 100, flagged ignorable) is listed as MariaDB's client lists it.
"$BINRECOVER" --no-defaults events --format=tsv \
  "$corpus/mysql-binlog-connector-java/src/test/resources/mysql-bin.aurora-padding" |
  grep -qP '^\S+\t281\tUnknown\t\d+\t1209\t# Ignorable event type 100 \(Unknown\)$' ||
  fail "aurora-padding: the ignorable event at 281 is not listed as such"
pass "an unknown event flagged ignorable is listed as one"
