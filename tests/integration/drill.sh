#!/usr/bin/env bash
# binrecover drill, the one-line DR drill, on a real MariaDB: the seed scenario's dump and
# binlogs; drill starts its own throwaway server (mariadbd from PATH), restores the dump, replays
# to just before the DROP DATABASE it finds itself, and verifies every table against an
# expectation taken from the source just before the drop. A wrong expectation fails (exit 7).
source "$(dirname "$0")/lib.sh"
PA=${1:-23491}
FORMAT=${2:-ROW}
start_server a "$PA" --binlog-format="$FORMAT"
sql "$PA" -e "CREATE DATABASE shop; CREATE DATABASE other"
mariadb-dump --no-defaults -h127.0.0.1 -P"$PA" -uroot --master-data=2 --flush-logs \
  --single-transaction -B shop > "$WORK/dump.sql"
sql "$PA" shop <<'SQL'
CREATE TABLE orders (id INT PRIMARY KEY, note VARCHAR(20), amount DECIMAL(10,2));
INSERT INTO orders VALUES (1, 'one', 10.50), (2, 'two', 20.00), (3, '三', 30.25);
FLUSH BINARY LOGS;
UPDATE orders SET amount = amount * 2 WHERE id = 2;
CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, what TEXT);
INSERT INTO audit (what) VALUES ('opened'), ('closed');
SQL
sql "$PA" -N -e "SELECT CONCAT('shop.', table_name) FROM information_schema.tables
  WHERE table_schema = 'shop' ORDER BY table_name" | while read -r t; do
  printf '%s\t%s\t%s\n' "$t" "$(sql "$PA" -N -e "SELECT COUNT(*) FROM $t")" \
    "$(sql "$PA" -N -e "CHECKSUM TABLE $t" | cut -f2)"
done > "$WORK/expected.tsv"
sql "$PA" -e "DROP DATABASE shop; CREATE DATABASE shop; CREATE TABLE shop.junk (a INT)"

rc=0
"$BINRECOVER" drill --dump="$WORK/dump.sql" --index-file="$WORK/a/binlog/mysql-bin.index" \
  --database=shop --expect="$WORK/expected.tsv" --report="$WORK/report.json" \
  > "$WORK/drill.out" 2>&1 || rc=$?
cat "$WORK/drill.out"
[ $rc = 0 ] || fail "the drill failed (exit $rc)"
grep -q '"passed":true' "$WORK/report.json" || fail "the report does not say passed"
grep -q '"name":"replay binlogs","ok":true' "$WORK/report.json" || fail "no replay step in the report"
grep -q '"table":"shop.orders","rows":3' "$WORK/report.json" || fail "orders not verified"
grep -q "DROP DATABASE shop" "$WORK/drill.out" || fail "the drill did not stop before the DROP"
pass "drill ($FORMAT): restored, replayed to just before the DROP DATABASE, $(grep -c . "$WORK/expected.tsv") tables equal the source"

# A wrong expectation must fail the drill with exit 7, naming the table.
sed 's/^\(shop.orders\t\)3/\14/' "$WORK/expected.tsv" > "$WORK/wrong.tsv"
rc=0
"$BINRECOVER" drill --dump="$WORK/dump.sql" --index-file="$WORK/a/binlog/mysql-bin.index" \
  --database=shop --expect="$WORK/wrong.tsv" > "$WORK/drill2.out" 2>&1 || rc=$?
[ $rc = 7 ] || { cat "$WORK/drill2.out"; fail "a wrong expectation gave exit $rc, not 7"; }
grep -q "^! shop.orders" "$WORK/drill2.out" || fail "the mismatching table is not named"
# No leftovers: the throwaway server is gone and its folder removed.
! pgrep -f "binrecover-drill-" > /dev/null || fail "a drill server is still running"
ls -d "${TMPDIR:-/tmp}"/binrecover-drill-* > /dev/null 2>&1 && fail "a drill folder was left behind"
pass "drill ($FORMAT): a wrong expectation fails with exit 7 and names the table; nothing left behind"

# A given server instead of a throwaway one, and the target as a GTID (the DROP's).
drop_gtid=$("$BINRECOVER" events --format=tsv --index-file="$WORK/a/binlog/mysql-bin.index" |
  awk -F'\t' '$3 == "Gtid" { g = $6 } $3 == "Query" && $6 ~ /DROP DATABASE shop/ { print g; exit }' |
  sed 's/^\(BEGIN \)\{0,1\}GTID //')
[ -n "$drop_gtid" ] || fail "no GTID found for the DROP"
PT=$((PA + 20))
start_server target "$PT"
rc=0
"$BINRECOVER" drill --dump="$WORK/dump.sql" --index-file="$WORK/a/binlog/mysql-bin.index" \
  --database=shop --stop-gtid="$drop_gtid" --expect="$WORK/expected.tsv" \
  -h 127.0.0.1 -P "$PT" -u root > "$WORK/drill3.out" 2>&1 || rc=$?
cat "$WORK/drill3.out"
[ $rc = 0 ] || fail "the drill against a given server failed (exit $rc)"
grep -q "the given server" "$WORK/drill3.out" || fail "the drill did not use the given server"
[ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM shop.orders")" = 3 ] || fail "the given server lacks the restored data"
pass "drill ($FORMAT): a given server and a GTID target ($drop_gtid)"
