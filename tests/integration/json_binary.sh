#!/usr/bin/env bash
# Binary JSON decoding against a real MySQL 9.7 (scripts/mysql_server.sh): JSON documents of
# every kind (nested and large >64 KiB objects and arrays, 100 levels deep, unicode and escapes,
# integer limits, doubles of every magnitude including 1000 random ones, DECIMAL, DATE, TIME,
# DATETIME, TIMESTAMP and binary opaque values, top-level scalars, an empty value) are inserted
# with ROW logging (transaction compression on), then json_binary_check's decoding of the
# binlog must equal, line for line, what the server prints for SELECT j FROM t.
source "$(dirname "$0")/lib.sh"
PORT=${1:-23541}
CHECK=${JSON_BINARY_CHECK:-$ROOT/build/tests/json_binary_check}
[ -x "$CHECK" ] || fail "json_binary_check not built ($CHECK)"
MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
"$MYSQL_SERVER" chroot > /dev/null || fail "cannot build the MySQL chroot (see above)"

SERVERS_MYSQL+=("$WORK/a")
"$MYSQL_SERVER" start "$WORK/a" "$PORT"

sql "$PORT" <<'SQL'
SET SESSION sql_mode = '';  -- allows the zero DATE below
CREATE DATABASE j;
USE j;
CREATE TABLE t (id INT PRIMARY KEY, j JSON NOT NULL);
CREATE TABLE src (ts TIMESTAMP(6), y YEAR, g GEOMETRY);
INSERT INTO src VALUES ('2038-01-19 03:14:07.999999', 2024, ST_GeomFromText('POINT(1 2)'));
INSERT INTO t VALUES (1, '{"a": 1, "b": [true, null]}');
INSERT INTO t VALUES (2, JSON_OBJECT('bb', 1, 'a', 2, 'ccc', 3, 'nested', JSON_OBJECT('x', JSON_ARRAY(1, 'two', 3.5, JSON_ARRAY(), JSON_OBJECT()))));
INSERT INTO t VALUES (3, '{}'), (4, '[]'), (5, 'null'), (6, 'true'), (7, 'false');
INSERT INTO t VALUES (8, '"just a string"'), (9, '42'), (10, '-1.25'), (11, '""');
INSERT INTO t VALUES (12, CAST('[-32768, 32767, 65535, 65536, -2147483648, 2147483647, 4294967295, 4294967296, -9223372036854775808, 9223372036854775807, 18446744073709551615, 18446744073709551616, 0, -1]' AS JSON));
INSERT INTO t VALUES (13, CAST('[1.0, -1.5, 0.1, 0.0, -0.0, 100.0, 3.141592653589793, 123456789012.5, 1e14, 1e15, 1.5e15, 1e21, 123456789012345678.0, 1234567890123456.5, 0.0001, 1e-15, 1.25e-15, 1e-16, 1.5e-7, -2.5e-20, 1e100, 1.7976931348623157e308, 2.2250738585072014e-308, 5e-324, 0.30000000000000004, 9007199254740993.0, 1e-5, 12345.678e-10]' AS JSON));
INSERT INTO t SELECT 14, JSON_ARRAYAGG(RAND(n) * POW(10, n % 70 - 35) * IF(n % 3 = 0, -1, 1))
  FROM (WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 1000) SELECT n FROM s) x;
INSERT INTO t VALUES (15, JSON_OBJECT('q', 'a"b\\c/', 'ctl', CONVERT(CONCAT(CHAR(1), CHAR(8), CHAR(9), CHAR(10), CHAR(12), CHAR(13), CHAR(31), CHAR(127)) USING utf8mb4), 'uni', 'ключ 値 😀 é'));
INSERT INTO t VALUES (16, JSON_OBJECT('ключ', 1, '😀', 2, 'tab\tkey', 3, 'quote"key', 4));
INSERT INTO t VALUES (17, JSON_OBJECT('d', CAST(12.5 AS DECIMAL(5,2)), 'neg', CAST(-0.001 AS DECIMAL(10,3)), 'zero', CAST(0 AS DECIMAL(4,2)), 'int', CAST(7 AS DECIMAL(3,0)),
  'big', CAST('12345678901234567890123456789012345.123456789012345678901234567890' AS DECIMAL(65,30)), 'small', CAST(-0.5 AS DECIMAL(1,1))));
INSERT INTO t VALUES (18, JSON_OBJECT('dt', CAST('2012-03-18 11:30:45' AS DATETIME), 'dt6', CAST('1999-12-31 23:59:59.123456' AS DATETIME(6)), 'now', CAST(NOW() AS DATETIME),
  'now6', NOW(6), 'd', CAST('2012-03-18' AS DATE), 'zero_d', CAST('0000-00-00' AS DATE), 'today', CURDATE()));
INSERT INTO t VALUES (19, JSON_ARRAY(CAST('-838:59:59' AS TIME), CAST('838:59:59' AS TIME), CAST('12:34:56.789' AS TIME(3)), CAST('00:00:00' AS TIME), CAST('-00:00:01.5' AS TIME(1)), CAST('87:31:46.654321' AS TIME(6))));
INSERT INTO t SELECT 20, JSON_OBJECT('ts', ts, 'y', y, 'g', g) FROM src;
INSERT INTO t VALUES (21, JSON_ARRAY(x'cafe', x'', REPEAT(x'00ff', 50), b'101', CAST('blob text' AS BINARY)));
INSERT INTO t VALUES (22, CAST(CAST(1.5 AS DECIMAL(3,1)) AS JSON)), (23, CAST(CAST('2020-02-29 01:02:03.000004' AS DATETIME(6)) AS JSON)), (24, CAST(CAST('10:00' AS TIME) AS JSON));
INSERT INTO t VALUES (25, JSON_OBJECT('big', REPEAT('x', 70000), 'n', 1, 'nested', JSON_OBJECT('a', JSON_ARRAY(1, 2, 3)), 'neg', -5, 'u', 70000));
INSERT INTO t VALUES (26, CAST(CONCAT('[', REPEAT('"abc", -7, 100000, true, ', 5000), '1.5]') AS JSON));
INSERT INTO t VALUES (27, CAST(CONCAT(REPEAT('{"a": [', 50), '1', REPEAT(']}', 50)) AS JSON));
INSERT INTO t VALUES (28, CAST(CONCAT(REPEAT('[', 100), REPEAT(']', 100)) AS JSON));
INSERT INTO t VALUES (29, JSON_OBJECT('dup', 1, 'dup', 2, '', 'empty key'));
INSERT IGNORE INTO t VALUES (999, NULL);
SQL

sql "$PORT" -N -B -r -e "SELECT j FROM j.t ORDER BY id" > "$WORK/expected" ||
  fail "SELECT from the server failed"
mapfile -t logs < <(ls "$WORK"/a/binlog/mysql-bin.[0-9]*)
"$CHECK" "${logs[@]}" > "$WORK/actual" || fail "json_binary_check failed on ${logs[*]}"
rows=$(wc -l < "$WORK/expected")
[ "$rows" -ge 30 ] || fail "expected at least 30 rows, the server has $rows"
grep -qx null "$WORK/expected" || fail "the empty value did not come back as null"
if ! cmp -s "$WORK/expected" "$WORK/actual"; then
  diff <(cut -c1-300 "$WORK/expected") <(cut -c1-300 "$WORK/actual") | head -40 >&2
  fail "decoded JSON differs from the server's SELECT (first 300 characters of each line above)"
fi
pass "MySQL 9.7: $rows JSON documents decoded from the binlog equal the server's SELECT ($(wc -c < "$WORK/expected") bytes)"
