#!/usr/bin/env bash
# binrecover plan on a real MariaDB, in the binlog format $1 (ROW or STATEMENT), with no position
# typed by hand:
#  1. the seed scenario: dump (--master-data=2 --flush-logs), a day of changes over several
#     files, DROP DATABASE, later writes elsewhere. `plan --dump` finds the DROP and prints the
#     recovery command; running it on a server restored from the dump gives zyyshop exactly as
#     it was just before the drop.
#  2. --skip-event: a DROP TABLE in the middle of a day of writes. Replaying everything except
#     it gives the same content as a reference server on which the DROP never ran.
#  3. mass deletes are found: DELETE without WHERE (statement), DELETE of many rows (row).
source "$(dirname "$0")/lib.sh"
FORMAT=${1:?ROW or STATEMENT}
PA=${2:-23471}
PB=$((PA + 1))
PR=$((PA + 2))

run_plan_command() {  # run the command line plan printed, against the server on port $1
  local port=$1 cmd=$2
  cmd=${cmd%| mysql}
  eval "${cmd/#binrecover/\"$BINRECOVER\"} --timezone=UTC" > "$WORK/replay.sql" ||
    fail "the printed command failed: $cmd"
  sql "$port" < "$WORK/replay.sql" || fail "replaying the printed command failed: $cmd"
}

# --- 1. seed scenario -------------------------------------------------------------------------
start_server a "$PA" --binlog-format="$FORMAT"
sql "$PA" -e "CREATE DATABASE zyyshop; CREATE DATABASE other;
  CREATE TABLE other.t2 (id INT PRIMARY KEY, v VARCHAR(20))"
mariadb-dump --no-defaults -h127.0.0.1 -P"$PA" -uroot --master-data=2 --flush-logs \
  --single-transaction -B zyyshop > "$WORK/dump.sql"
sql "$PA" zyyshop <<'SQL'
CREATE TABLE tt (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(16),
                 sex ENUM('m','w'), age TINYINT UNSIGNED, classid CHAR(6));
INSERT INTO tt (name, sex, age, classid) VALUES ('张三', 'm', 18, 'c101'), ('王五', 'w', 19, 'c101');
FLUSH BINARY LOGS;
INSERT INTO tt (name, sex, age, classid) VALUES ('赵六', 'm', 20, 'c102'), ('孙七', 'w', 21, 'c102');
UPDATE tt SET name = '李四' WHERE id = 4;
DELETE FROM tt WHERE id = 1;
INSERT INTO other.t2 VALUES (1, 'x');
SQL
sql "$PA" -N -e "SELECT * FROM zyyshop.tt ORDER BY id" > "$WORK/expected.rows"
sql "$PA" -e "DROP DATABASE zyyshop; INSERT INTO other.t2 VALUES (2, 'after')"
index=$WORK/a/binlog/mysql-bin.index

"$BINRECOVER" plan --dump="$WORK/dump.sql" --index-file="$index" --database=zyyshop \
  > "$WORK/plan.txt" || fail "plan failed"
cat "$WORK/plan.txt"
grep -q "DROP DATABASE  zyyshop" "$WORK/plan.txt" || fail "plan did not find the DROP DATABASE"
cmd=$(grep -A1 "^Recover to just before" "$WORK/plan.txt" | tail -1 | sed 's/^ *//')
"$BINRECOVER" plan --dump="$WORK/dump.sql" --index-file="$index" --database=zyyshop \
  --format=json > "$WORK/plan.json"
grep -q '"what":"DROP DATABASE"' "$WORK/plan.json" || fail "JSON plan lacks the DROP"
grep -qF "\"recovery_command\":\"$(echo "$cmd" | sed 's/"/\\"/g')\"" "$WORK/plan.json" ||
  fail "the JSON and text plans disagree on the command"

start_server b "$PB"
sql "$PB" -e "CREATE DATABASE other"
sql "$PB" < "$WORK/dump.sql"
run_plan_command "$PB" "$cmd"
sql "$PB" -N -e "SELECT * FROM zyyshop.tt ORDER BY id" > "$WORK/actual.rows"
diff "$WORK/expected.rows" "$WORK/actual.rows" || fail "zyyshop.tt differs after plan + replay"
pass "$FORMAT: plan found the DROP DATABASE, its command rebuilt zyyshop ($(wc -l < "$WORK/actual.rows") rows)"

# --- 2. --skip-event around a DROP TABLE --------------------------------------------------------
day() {  # the day's writes on port $1; with $2 = 1 the DROP TABLE runs in the middle
  sql "$1" shop <<SQL
INSERT INTO orders VALUES (10, 'morning'), (11, 'noon');
UPDATE items SET qty = qty - 1 WHERE id = 1;
$( [ "$2" = 1 ] && echo "DROP TABLE items;" )
INSERT INTO orders VALUES (12, 'evening');
UPDATE orders SET note = 'shipped' WHERE id = 10;
CREATE TABLE audit (id INT PRIMARY KEY, what VARCHAR(20));
INSERT INTO audit VALUES (1, 'closed');
SQL
}
setup_shop() {
  sql "$1" -e "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, note VARCHAR(20));
    CREATE TABLE shop.items (id INT PRIMARY KEY, qty INT); INSERT INTO shop.items VALUES (1, 5), (2, 7)"
}
setup_shop "$PA"
mariadb-dump --no-defaults -h127.0.0.1 -P"$PA" -uroot --master-data=2 --flush-logs \
  --single-transaction -B shop > "$WORK/shop.sql"
day "$PA" 1
start_server ref "$PR"
setup_shop "$PR"
day "$PR" 0
"$BINRECOVER" plan --dump="$WORK/shop.sql" --index-file="$index" --database=shop > "$WORK/plan2.txt"
cat "$WORK/plan2.txt"
grep -q "DROP TABLE  shop.items" "$WORK/plan2.txt" || fail "plan did not find the DROP TABLE"
cmd=$(grep -A1 "^Or replay everything except" "$WORK/plan2.txt" |
  tail -1 | sed 's/^ *//')
[ -n "$cmd" ] || fail "plan printed no --skip-event command"
sql "$PB" -e "DROP DATABASE IF EXISTS shop"
sql "$PB" < "$WORK/shop.sql"
run_plan_command "$PB" "$cmd"
for t in orders items audit; do
  sql "$PR" -N -e "SELECT * FROM shop.$t ORDER BY id" > "$WORK/ref.$t"
  sql "$PB" -N -e "SELECT * FROM shop.$t ORDER BY id" > "$WORK/got.$t"
  diff "$WORK/ref.$t" "$WORK/got.$t" || fail "shop.$t differs from the reference without the DROP"
  [ "$(sql "$PR" -N -e "CHECKSUM TABLE shop.$t" | cut -f2)" = \
    "$(sql "$PB" -N -e "CHECKSUM TABLE shop.$t" | cut -f2)" ] || fail "shop.$t checksum differs"
done
pass "$FORMAT: --skip-event kept every write before and after the DROP TABLE (orders, items, audit equal the reference)"

# --- 3. mass deletes ------------------------------------------------------------------------------
sql "$PA" -e "CREATE DATABASE bulk; CREATE TABLE bulk.t (id INT PRIMARY KEY, v INT);
  USE bulk; INSERT INTO t SELECT seq, seq FROM seq_1_to_1500; FLUSH BINARY LOGS"
read -r f p < <(sql "$PA" -N -e "SHOW MASTER STATUS" | cut -f1,2)
sql "$PA" -e "DELETE FROM bulk.t WHERE id > 200; DELETE FROM bulk.t"
"$BINRECOVER" plan --start-position="$p" "$WORK/a/binlog/$f" --database=bulk > "$WORK/plan3.txt"
cat "$WORK/plan3.txt"
if [ "$FORMAT" = ROW ]; then
  grep -q "DELETE of 1300 rows  bulk.t" "$WORK/plan3.txt" || fail "the 1300-row delete was not found"
  grep -A1 "DELETE of 1300 rows  bulk.t" "$WORK/plan3.txt" | grep -q "\[suspect\]" ||
    fail "the 1300-row delete with a WHERE is not a suspect"
  # The annotation (binlog_annotate_row_events) shows the last one has no WHERE: a certain loss,
  # whatever its size, and the incident.
  grep -q "DELETE without WHERE  bulk.t (200 rows).*<== the incident" "$WORK/plan3.txt" ||
    fail "the 200-row DELETE without WHERE is not the incident"
  "$BINRECOVER" plan --start-position="$p" "$WORK/a/binlog/$f" --rows-threshold=2000 > "$WORK/plan4.txt"
  grep -q "DELETE of 1300 rows" "$WORK/plan4.txt" && fail "--rows-threshold=2000 still lists 1300 rows"
else
  grep -q "DELETE without WHERE  bulk.t" "$WORK/plan3.txt" || fail "DELETE without WHERE not found"
  grep -c "DELETE" "$WORK/plan3.txt" | grep -q "^[12]$" || true
fi
pass "$FORMAT: mass deletes found"
