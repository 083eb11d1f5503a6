#!/usr/bin/env bash
# MySQL 9.7 paths that failed on a real workload (issue 33, item 3), each restored and compared
# with the source's tables:
#  - --rows-as-sql after a (compressed) transaction, then CREATE TABLE ... SELECT: its rows go
#    as BINLOG after the format description, which may not run while GTID_NEXT still holds the
#    transaction before's GTID (was: 1837, then 1609 and the table missing);
#  - --flashback of a table with generated columns created before --start-position: the undo
#    must not set them (was: 3105, the table not reverted);
#  - a MySQL log's SQL for MariaDB (--target-flavor=mariadb): no GTID_NEXT reaches it, and
#    STATEMENT temporal values round as a MariaDB replica rounds them.
#   mysql_paths.sh PORT   (MySQL on PORT, MariaDB on PORT+2)
source "$(dirname "$0")/lib.sh"
PM=${1:?port}
PA=$((PM + 2))
MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
"$MYSQL_SERVER" chroot > /dev/null || fail "cannot build the MySQL chroot (see above)"
cleanup_mysql() {
  "$MYSQL_SERVER" discard "$WORK/my" || true
  cleanup
}
trap cleanup_mysql EXIT
"$MYSQL_SERVER" start "$WORK/my" "$PM"
M() { sql "$PM" "$@"; }
B() { "$BINRECOVER" --no-defaults "$@"; }
log_of() {  # log_of SQL: runs it in a binlog of its own, prints that binlog's path
  local f
  M -e "FLUSH BINARY LOGS"
  f=$(M -N -e "SHOW BINARY LOG STATUS" | cut -f1)
  M -e "$1" || fail "the workload failed"
  M -e "FLUSH BINARY LOGS"
  cp "$WORK/my/binlog/$f" "$WORK/$f"
  echo "$WORK/$f"
}
table() { M -N -e "SELECT * FROM $1 ORDER BY 1"; }

# 1. CREATE TABLE ... SELECT after a compressed transaction, as --rows-as-sql.
M -e "CREATE DATABASE c; CREATE TABLE c.a (id INT PRIMARY KEY, v VARCHAR(20))"
F=$(log_of "INSERT INTO c.a VALUES (1,'x'),(2,'y'); CREATE TABLE c.b AS SELECT * FROM c.a;
  INSERT INTO c.b VALUES (3,'z'); CREATE TABLE c.c (id INT PRIMARY KEY) SELECT id FROM c.a")
B events "$F" | grep -q Transaction_payload || fail "the INSERT is not a compressed transaction"
for t in c.a c.b c.c; do table "$t" > "$WORK/want.$t"; done
B --rows-as-sql "$F" > "$WORK/ctas.sql" || fail "--rows-as-sql exited $?"
M -e "DROP TABLE c.b, c.c; DELETE FROM c.a; RESET BINARY LOGS AND GTIDS"
M < "$WORK/ctas.sql" || fail "the --rows-as-sql output of CREATE TABLE ... SELECT does not replay"
for t in c.a c.b c.c; do
  table "$t" | cmp -s - "$WORK/want.$t" || fail "$t differs after --rows-as-sql"
done
pass "MySQL 9.7 --rows-as-sql: a compressed transaction, then CREATE TABLE ... SELECT twice: c.a, c.b, c.c equal"

# 2. --flashback of a table with VIRTUAL and STORED generated columns made before the range.
F=$(log_of "CREATE TABLE c.g (id INT PRIMARY KEY, a INT, b INT AS (a*2) VIRTUAL,
  c INT AS (a+1) STORED); INSERT INTO c.g (id, a) VALUES (1,10),(2,20),(3,30)")
table c.g > "$WORK/g.before"
start=$(M -N -e "SHOW BINARY LOG STATUS" | cut -f2)
G=$(log_of "INSERT INTO c.g (id, a) VALUES (4,40); UPDATE c.g SET a=a+1 WHERE id<3;
  DELETE FROM c.g WHERE id=3")
# The range starts at the end of the file with the CREATE TABLE: the undo learns the columns.
B --flashback --start-position="$(stat -c %s "$F")" "$F" "$G" > "$WORK/undo.sql" ||
  fail "--flashback exited $?"
grep -qE '`[bc]`(=|,|\))' "$WORK/undo.sql" &&
  fail "the undo sets generated columns: $(grep -m1 -E '`[bc]`(=|,|\))' "$WORK/undo.sql")"
M < "$WORK/undo.sql" || fail "the undo does not apply"
table c.g | cmp -s - "$WORK/g.before" || fail "c.g is not reverted: $(table c.g | tr '\n' ' ')"
pass "MySQL 9.7 --flashback of a table with generated columns: no generated column set, c.g reverted ($start)"

# 3. For MariaDB: no GTID_NEXT, and STATEMENT temporal values rounded as a replica rounds them.
F=$(log_of "SET SESSION binlog_format=STATEMENT; CREATE TABLE c.t (id INT PRIMARY KEY, t TIME(0),
  d DATETIME(1), s TIMESTAMP(2) NULL); INSERT INTO c.t VALUES (1, '00:00:00.999',
  '2020-01-01 10:00:00.96', '2020-01-01 10:00:00.996'); SET SESSION binlog_format=ROW")
table c.t > "$WORK/t.mysql"
start_server a "$PA"
sql "$PA" -e "CREATE DATABASE c"
B --target-flavor=mariadb "$F" > "$WORK/to_maria.sql"
grep -v '^#' "$WORK/to_maria.sql" | grep -i 'GTID_NEXT' | grep -v '/\*!50700 ' &&
  fail "GTID_NEXT reaches MariaDB outside a MySQL-only comment"
sql "$PA" < "$WORK/to_maria.sql" || fail "the SQL for MariaDB does not replay"
sql "$PA" -N -e "SELECT * FROM c.t ORDER BY 1" | cmp -s - "$WORK/t.mysql" ||
  fail "temporal values: MariaDB has $(sql "$PA" -N -e "SELECT * FROM c.t" | tr '\t' ' '), MySQL $(tr '\t' ' ' < "$WORK/t.mysql")"
for f in "$ROOT"/../shared/corpus/mysql-server-9.7-datadirs/wl12261_upgrade_80013/data_80013/binlog.000001 \
  "$ROOT"/../shared/corpus/mysql-server-9.7/std_data/bug27213339-bin.000001; do
  [ -f "$f" ] || continue
  B --target-flavor=mariadb "$f" 2> /dev/null | grep -v '^#' | grep -i 'GTID_NEXT' | grep -v '/\*!50700 ' &&
    fail "$(basename "$f") (MySQL $(B events "$f" | sed -n 2p | grep -o 'ver: [0-9.]*')): GTID_NEXT for MariaDB"
done
pass "a MySQL log's SQL for MariaDB: no GTID_NEXT (9.7, 8.0, 5.7 anonymous logs), temporal values rounded as in MySQL"

# 4. Memory flat over MySQL's compressed transactions (issue 35): each transaction is a payload
#    event whose events are unpacked as they are read. A log of 10 bulk transactions and one of
#    40: the larger must not take more memory (the arena was never given back between payloads:
#    70 MB for a 1 MB log) nor fault pages in again for each transaction.
bulk() {  # bulk FIRST LAST: INSERT ... SELECTs of 1,000 rows of ~1 KB, one transaction each
  echo "SET SESSION cte_max_recursion_depth = 100000;"
  for ((i = $1; i <= $2; i++)); do
    echo "INSERT INTO c.w WITH RECURSIVE q(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM q
      WHERE n < 1000) SELECT n + $i * 10000, CONCAT(n, REPEAT('abcdefghij', 100)) FROM q;"
  done
}
M -e "CREATE TABLE c.w (id INT PRIMARY KEY, v VARCHAR(1300))"
F10=$(log_of "$(bulk 1 10)")
F40=$(log_of "$(bulk 11 50)")
[ "$(B events "$F40" | grep -c Transaction_payload)" -ge 40 ] || fail "the bulk log has no 40 compressed transactions"
for mode in "" "-v" "events" "--rows-as-sql"; do
  # shellcheck disable=SC2086
  /usr/bin/time -f "%R %M" -o "$WORK/t10" "$BINRECOVER" --no-defaults $mode "$F10" > /dev/null ||
    fail "binrecover $mode $F10 failed"
  # shellcheck disable=SC2086
  /usr/bin/time -f "%R %M" -o "$WORK/t40" "$BINRECOVER" --no-defaults $mode "$F40" > /dev/null ||
    fail "binrecover $mode $F40 failed"
  read -r f1 m1 < "$WORK/t10"
  read -r f2 m2 < "$WORK/t40"
  [ $((f2 * 10)) -lt $((f1 * 15)) ] ||
    fail "${mode:-SQL}: $f1 page faults for 10 compressed transactions, $f2 for 40"
  [ $((m2 * 10)) -lt $((m1 * 12)) ] || fail "${mode:-SQL}: peak $m1 KiB for 10 compressed transactions, $m2 KiB for 40"
  echo "  ${mode:-SQL}: $f1 / $f2 minor faults, $m1 / $m2 KiB peak for 10 / 40 compressed transactions"
done
pass "MySQL 9.7 compressed transactions: memory and page faults flat when the log has 4x as many"
