#!/usr/bin/env bash
# Issue 28: an ordinary shop day on a real server ($1: mariadb = MariaDB 10.11, mysql = MySQL 9.7),
# recovered by plan's headline command and by drill with nothing typed by hand.
#   04:00  `mysqldump -F -B zyyshop` (no coordinates: the binlog its flush opened is the start)
#          and a dump of zyyshop and shop2 with coordinates (--master-data / --source-data)
#   day    three sessions at once (orders, balances, another database), a FLUSH, legitimate
#          bulk jobs: UPDATE customers SET balance = balance * 1.01 (every row, no WHERE) and
#          DELETE FROM orders WHERE status = 'archived' (1,500 rows)
#   15:00  DELETE FROM shop2.orders2 (no WHERE), then shop2 goes on being written
#   18:00  DROP DATABASE zyyshop, then writes to another database
# Checked: from each dump, plan's headline stops just before the incident (the DROP for
# zyyshop, the DELETE for shop2) and its command restores every table (CHECKSUM TABLE and every
# row); the interest UPDATE is a certain loss but not the incident, the archive DELETE a
# suspect; drill passes with --expect and names its stop point. A dump without a flush, and a
# dump that flushed once per database, are refused with the next step; off-by-one --skip-event
# and --stop-position targets stop SQL output, replay and drill with exit 2 before the DROP
# (the target still holds the database); a physical backup is refused by drill before a server
# starts. On MariaDB also a STATEMENT-format day: a mass DELETE with a range WHERE is a suspect,
# the TRUNCATE after it the incident.
source "$(dirname "$0")/lib.sh"
FLAVOR=${1:?mariadb or mysql}
PA=${2:-23801}
PT=$((PA + 1))
export TZ=UTC

if [ "$FLAVOR" = mysql ]; then
  use_mysql
  start() { start_mysql "$@"; }
  # (a GTID server's mysqldump writes SET @@GLOBAL.GTID_PURGED: the backup's GTIDs, no position)
  dump_tool() { "$MYSQL_SERVER" exec mysqldump --no-defaults -h127.0.0.1 -P"$PA" -uroot "$@"; }
  COORDS=--source-data=2
  client() { "$MYSQL_SERVER" exec mysql --no-defaults -h127.0.0.1 -P"$1" -uroot "${@:2}"; }
else
  start() { start_server "$@"; }
  dump_tool() { mariadb-dump --no-defaults -h127.0.0.1 -P"$PA" -uroot "$@"; }
  COORDS=--master-data=2
  client() { sql "$@"; }
fi
start a "$PA"
start t "$PT"
INDEX=$WORK/a/binlog/mysql-bin.index

# --- the data before the day ---------------------------------------------------------------------
{
  echo "CREATE DATABASE zyyshop; CREATE DATABASE shop2; CREATE DATABASE crm;"
  echo "CREATE TABLE zyyshop.customers (id INT PRIMARY KEY, name VARCHAR(40), balance DECIMAL(12,2));"
  echo "CREATE TABLE zyyshop.orders (id INT AUTO_INCREMENT PRIMARY KEY, customer_id INT,
    amount DECIMAL(10,2), status VARCHAR(12), note VARCHAR(40), KEY (status));"
  echo "CREATE TABLE zyyshop.products (id INT PRIMARY KEY, title VARCHAR(40), stock INT);"
  echo "CREATE TABLE shop2.orders2 (id INT AUTO_INCREMENT PRIMARY KEY, item INT, qty INT);"
  echo "CREATE TABLE shop2.items (id INT PRIMARY KEY, stock INT);"
  echo "CREATE TABLE crm.notes (id INT AUTO_INCREMENT PRIMARY KEY, customer_id INT, body VARCHAR(60));"
  seq 1 2000 | awk 'BEGIN { printf "INSERT INTO zyyshop.customers VALUES " }
    { printf "%s(%d, \"cust %d 客户\", %d.%02d)", (NR > 1 ? "," : ""), $1, $1, 100 + $1 % 900, $1 % 100 }
    END { print ";" }'
  seq 1 3000 | awk 'BEGIN { printf "INSERT INTO zyyshop.orders (customer_id, amount, status, note) VALUES " }
    { printf "%s(%d, %d.50, \"%s\", \"o%d\")", (NR > 1 ? "," : ""), 1 + $1 % 2000, 10 + $1 % 90,
      $1 <= 1500 ? "archived" : "paid", $1 }
    END { print ";" }'
  seq 1 50 | awk 'BEGIN { printf "INSERT INTO zyyshop.products VALUES " }
    { printf "%s(%d, \"product %d\", 1000)", (NR > 1 ? "," : ""), $1, $1 } END { print ";" }'
  seq 1 500 | awk 'BEGIN { printf "INSERT INTO shop2.orders2 (item, qty) VALUES " }
    { printf "%s(%d, %d)", (NR > 1 ? "," : ""), 1 + $1 % 20, 1 + $1 % 5 } END { print ";" }'
  seq 1 20 | awk 'BEGIN { printf "INSERT INTO shop2.items VALUES " }
    { printf "%s(%d, 500)", (NR > 1 ? "," : ""), $1 } END { print ";" }'
} | sql "$PA" || fail "loading the data failed"

# --- 04:00: the dumps -------------------------------------------------------------------------------
dump_tool -F -B zyyshop > "$WORK/dump_f.sql" || fail "mysqldump -F failed"
flush_file=$(tail -1 "$INDEX" | xargs basename)
# DUMP_TIME: the -F dump whose start is found by its time (on MySQL, the same dump made without
# the GTIDs that dump_f.sql has; its flush opens the next binlog).
DUMP_TIME=$WORK/dump_f.sql
if [ "$FLAVOR" = mysql ]; then
  gtid_flush_file=$flush_file
  DUMP_TIME=$WORK/dump_f_nogtid.sql
  dump_tool --set-gtid-purged=OFF -F -B zyyshop > "$DUMP_TIME" || fail "mysqldump -F --set-gtid-purged=OFF failed"
  flush_file=$(tail -1 "$INDEX" | xargs basename)
fi
dump_tool $COORDS --single-transaction -B zyyshop shop2 > "$WORK/dump_c.sql" ||
  fail "mysqldump $COORDS failed"
grep -q "CHANGE MASTER TO\|CHANGE REPLICATION SOURCE TO" "$DUMP_TIME" &&
  fail "the -F dump has coordinates: it does not test what it should"

# --- the day -------------------------------------------------------------------------------------------
# session S N FROM: N one-row transactions of a kind, as one client session.
session() {
  local kind=$1 n=$2 from=$3
  seq "$from" $((from + n - 1)) | awk -v k="$kind" '{
    c = 1 + ($1 * 7) % 2000
    if (k == "orders") {
      printf "INSERT INTO zyyshop.orders (customer_id, amount, status, note) VALUES (%d, %d.25, \"new\", \"day %d\");\n", c, 5 + $1 % 50, $1
      if ($1 % 3 == 0) printf "UPDATE zyyshop.orders SET status = \"paid\" WHERE id = %d;\n", 3000 + $1 - 1
    } else if (k == "balances") {
      printf "UPDATE zyyshop.customers SET balance = balance - 1 WHERE id = %d;\n", c
      printf "INSERT INTO crm.notes (customer_id, body) VALUES (%d, \"called %d\");\n", c, $1
      if ($1 % 5 == 0) printf "UPDATE zyyshop.products SET stock = stock - 1 WHERE id = %d;\n", 1 + $1 % 50
    } else {
      printf "INSERT INTO shop2.orders2 (item, qty) VALUES (%d, %d);\n", 1 + $1 % 20, 1 + $1 % 3
      printf "UPDATE shop2.items SET stock = stock - 1 WHERE id = %d;\n", 1 + $1 % 20
    }
  }' | client "$PA"
}
day_part() {  # three sessions at once; waits for all
  local pids=() p rc=0
  session orders "$1" "$2" & pids+=($!)
  session balances "$1" "$2" & pids+=($!)
  session shop2 "$1" "$2" & pids+=($!)
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  [ $rc = 0 ] || fail "a session of the day failed"
}
day_part 200 1
sql "$PA" -e "FLUSH BINARY LOGS"
sql "$PA" -e "UPDATE zyyshop.customers SET balance = balance * 1.01"   # 12:30, the interest
day_part 200 201
sql "$PA" -e "DELETE FROM zyyshop.orders WHERE status = 'archived'"     # the archive job
day_part 150 401
# 15:00: shop2 loses its orders; its items go on being written afterwards.
expected() {  # DB: every table's rows and CHECKSUM TABLE (the drill's --expect), and its rows
  local db=$1 t
  : > "$WORK/$db.tsv"
  : > "$WORK/$db.rows"
  for t in $(sql "$PA" -N -e "SELECT table_name FROM information_schema.tables
      WHERE table_schema = '$db' ORDER BY table_name"); do
    printf '%s.%s\t%s\t%s\n' "$db" "$t" "$(sql "$PA" -N -e "SELECT COUNT(*) FROM $db.$t")" \
      "$(sql "$PA" -N -e "CHECKSUM TABLE $db.$t" | cut -f2)" >> "$WORK/$db.tsv"
    { echo "== $t"; sql "$PA" -N -e "SELECT * FROM $db.$t ORDER BY 1"; } >> "$WORK/$db.rows"
  done
}
expected shop2
sql "$PA" -e "DELETE FROM shop2.orders2"
day_part 100 551
sleep 2  # (the dump below starts two clock seconds after the last binlog was opened)
NOGTID=()  # (a MySQL dump with its GTIDs has a start without a flush: these have none)
[ "$FLAVOR" = mysql ] && NOGTID=(--set-gtid-purged=OFF)
dump_tool "${NOGTID[@]}" -B zyyshop > "$WORK/dump_noflush.sql" || fail "the dump without -F failed"
day_part 50 651
# 18:00: the DROP, then writes elsewhere.
expected zyyshop
sql "$PA" -e "DROP DATABASE zyyshop"
sql "$PA" -e "INSERT INTO crm.notes (customer_id, body) VALUES (1, 'after the drop'), (2, 'still working')"
sleep 2
dump_tool "${NOGTID[@]}" -F -B crm shop2 > "$WORK/dump_2f.sql" || fail "the two-database -F dump failed"

"$BINRECOVER" events --format=tsv --index-file="$INDEX" > "$WORK/all.tsv"
# (the DROP's event, and its transaction's first event: its GTID)
read -r drop_file drop_pos drop_start < <(awk -F'\t' '$3 == "Gtid" { g = $2 }
  $3 == "Query" && $6 ~ /DROP DATABASE zyyshop/ { print $1, $2, g; exit }' "$WORK/all.tsv")
[ -n "$drop_pos" ] || fail "the DROP is not in the binlogs"
echo "the DROP: $drop_file:$drop_pos, its transaction from $drop_start"

# compare DB: the target's tables equal the source's just before the incident.
compare() {
  local db=$1 label=$2 t
  : > "$WORK/got.rows"
  while IFS=$'\t' read -r name rows sum; do
    t=${name#*.}
    got=$(sql "$PT" -N -e "CHECKSUM TABLE $name" 2>&1 | cut -f2)
    [ "$got" = "$sum" ] || fail "$label: CHECKSUM TABLE $name is $got, the source's was $sum"
    { echo "== $t"; sql "$PT" -N -e "SELECT * FROM $name ORDER BY 1"; } >> "$WORK/got.rows"
  done < "$WORK/$db.tsv"
  diff -q "$WORK/$db.rows" "$WORK/got.rows" > /dev/null || fail "$label: the rows of $db differ"
}
clear_target() {  # (a MySQL target forgets the GTIDs it applied: they would be skipped again)
  sql "$PT" -e "DROP DATABASE IF EXISTS zyyshop; DROP DATABASE IF EXISTS shop2; DROP DATABASE IF EXISTS crm"
  if [ "$FLAVOR" = mysql ]; then sql "$PT" -e "RESET BINARY LOGS AND GTIDS"; fi
}
fresh_target() {  # DUMP: the target holds just the dump
  clear_target
  client "$PT" < "$1" || fail "restoring $1 failed"
}
run_headline() {  # PLAN.json: the headline command, its SQL into the target
  local cmd
  cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recovery_command"])' "$1")
  [ -n "$cmd" ] || fail "no headline command in $1"
  cmd=${cmd%| mysql}
  eval "${cmd/#binrecover/\"$BINRECOVER\"}" > "$WORK/headline.sql" || fail "the headline failed: $cmd"
  client "$PT" < "$WORK/headline.sql" || fail "the headline's SQL failed in the target: $cmd"
}
plan_json() {  # DUMP DB OUT
  "$BINRECOVER" plan --dump="$1" --index-file="$INDEX" --database="$2" --format=json > "$3" ||
    fail "plan --dump=$(basename "$1") --database=$2 failed"
}
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }

# --- 1. zyyshop from the -F dump: the start is the binlog the flush opened --------------------------
plan_json "$DUMP_TIME" zyyshop "$WORK/plan_f.json"
"$BINRECOVER" plan --dump="$DUMP_TIME" --index-file="$INDEX" --database=zyyshop > "$WORK/plan_f.txt"
cat "$WORK/plan_f.txt"
[ "$(jq_py "$WORK/plan_f.json" 'print(d["start"]["file"], d["start"]["position"])')" = "$flush_file None" ] ||
  fail "the -F dump's start is not $flush_file from its beginning: $(jq_py "$WORK/plan_f.json" 'print(d["start"])')"
grep -q "^Start: $flush_file (.*--flush-logs" "$WORK/plan_f.txt" || fail "plan does not say why it starts there"
inc=$(jq_py "$WORK/plan_f.json" 'i=[x for x in d["destructive"] if x["incident"]]; print(i[0]["what"], i[0]["target"], i[0]["file"], i[0]["event_pos"], i[0]["pos"]) if i else print("none")')
[ "$inc" = "DROP DATABASE zyyshop $drop_file $drop_pos $drop_start" ] || fail "the incident is '$inc', not the DROP"
jq_py "$WORK/plan_f.json" '
u=[x for x in d["destructive"] if x["target"]=="zyyshop.customers" and x["what"].startswith("UPDATE")]
a=[x for x in d["destructive"] if x["target"]=="zyyshop.orders" and x["what"].startswith("DELETE")]
assert len(u)==1 and u[0]["severity"]=="certain loss" and not u[0]["incident"], u
assert len(a)==1 and a[0]["severity"]=="suspect" and a[0]["rows"]==1500, a
i=[x for x in d["destructive"] if x["incident"]][0]
assert u[0]["left_out"]["transactions"] > 400 and "zyyshop.orders" in [t["table"] for t in u[0]["left_out"]["tables"]], u[0]["left_out"]
assert u[0]["stop_command"].count("--stop-position=%d" % u[0]["pos"]) == 1
' || fail "the interest UPDATE (certain, not the incident) or the archive DELETE (suspect) are not listed as they should be"
fresh_target "$DUMP_TIME"
run_headline "$WORK/plan_f.json"
compare zyyshop "the -F dump + plan's headline"
if [ "$FLAVOR" = mysql ]; then
  # GTID_PURGED and no position: the newest binlog whose earlier GTIDs the dump has (the two
  # dumps' binlogs hold nothing between them: either), its own transactions left out by GTID.
  plan_json "$WORK/dump_f.sql" zyyshop "$WORK/plan_g.json"
  "$BINRECOVER" plan --dump="$WORK/dump_f.sql" --index-file="$INDEX" --database=zyyshop > "$WORK/plan_g.txt"
  case "$(jq_py "$WORK/plan_g.json" 'print(d["start"]["file"], d["start"]["position"])')" in
    "$gtid_flush_file None" | "$flush_file None") ;;
    *) fail "the GTID dump's start is not where its GTIDs end: $(jq_py "$WORK/plan_g.json" 'print(d["start"])')" ;;
  esac
  grep -q "^Start: .*the backup names GTIDs" "$WORK/plan_g.txt" || fail "plan does not say it starts by GTID"
  jq_py "$WORK/plan_g.json" 'assert "--exclude-gtids=" in d["recovery_command"], d["recovery_command"]' ||
    fail "the GTID dump's command does not leave out its GTIDs"
  fresh_target "$WORK/dump_f.sql"
  run_headline "$WORK/plan_g.json"
  compare zyyshop "the GTID dump (GTID_PURGED, no position) + plan's headline"
fi
pass "$FLAVOR: -F dump without coordinates (and on MySQL by its GTID_PURGED): plan starts where it stands, stops before the DROP (not the interest UPDATE), its command restores zyyshop"

# --- 2. zyyshop and shop2 from the dump with coordinates -------------------------------------------
plan_json "$WORK/dump_c.sql" zyyshop "$WORK/plan_c.json"
[ "$(jq_py "$WORK/plan_c.json" 'print([x["what"] for x in d["destructive"] if x["incident"]])')" = "['DROP DATABASE']" ] ||
  fail "from the dump with coordinates the incident is not the DROP"
fresh_target "$WORK/dump_c.sql"
run_headline "$WORK/plan_c.json"
compare zyyshop "the dump with coordinates + plan's headline"
plan_json "$WORK/dump_c.sql" shop2 "$WORK/plan_s2.json"
"$BINRECOVER" plan --dump="$WORK/dump_c.sql" --index-file="$INDEX" --database=shop2 > "$WORK/plan_s2.txt"
cat "$WORK/plan_s2.txt"
inc=$(jq_py "$WORK/plan_s2.json" 'i=[x for x in d["destructive"] if x["incident"]]; print(i[0]["what"].split()[0], i[0]["target"], i[0]["severity"]) if i else print("none")')
[ "$inc" = "DELETE shop2.orders2 certain loss" ] || fail "shop2's incident is '$inc', not the DELETE without WHERE"
jq_py "$WORK/plan_s2.json" 'assert d["incident"]["after"]["transactions"] >= 100, d["incident"]' ||
  fail "plan does not count the shop2 writes after its incident"
fresh_target "$WORK/dump_c.sql"
run_headline "$WORK/plan_s2.json"
compare shop2 "shop2: the dump with coordinates + plan's headline"
pass "$FLAVOR: dump with coordinates: the headline restores zyyshop before the DROP and shop2 before its DELETE without WHERE ($(jq_py "$WORK/plan_s2.json" 'print([x["what"] for x in d["destructive"] if x["incident"]][0])'))"

# --- 3. drill ---------------------------------------------------------------------------------------------
drill() {  # ARGS...: the drill, on a throwaway MariaDB or on the MySQL target
  if [ "$FLAVOR" = mysql ]; then
    clear_target
    "$BINRECOVER" drill --no-defaults -h127.0.0.1 -P"$PT" -uroot --index-file="$INDEX" "$@"
  else
    "$BINRECOVER" drill --index-file="$INDEX" "$@"
  fi
}
rc=0
drill --dump="$DUMP_TIME" --database=zyyshop --expect="$WORK/zyyshop.tsv" \
  --report="$WORK/drill_f.json" > "$WORK/drill_f.out" 2>&1 || rc=$?
cat "$WORK/drill_f.out"
[ $rc = 0 ] || fail "drill from the -F dump: exit $rc"
grep -q "^stop point: just before $drop_file:$drop_start (GTID [^)]*), [0-9-]* [0-9:]* UTC (+00:00)$" "$WORK/drill_f.out" ||
  fail "the drill does not name its stop point as file:pos, GTID and local time with zone"
grep -q "^incident: #[0-9]* DROP DATABASE zyyshop (certain loss" "$WORK/drill_f.out" || fail "the drill does not name the incident"
jq_py "$WORK/drill_f.json" '
assert d["passed"] and d["stop"]["file"]=="'"$drop_file"'" and d["stop"]["position"]=='"$drop_start"', d["stop"]
assert d["stop"]["time"].endswith("UTC (+00:00)") and d["stop"]["gtid"], d["stop"]
assert "DROP DATABASE zyyshop" in d["incident"] and d["left_out"] == {"transactions": 0, "tables": []}, d
' || fail "the drill report lacks the stop point, the incident or what it left out"
rc=0
drill --dump="$WORK/dump_c.sql" --database=shop2 --expect="$WORK/shop2.tsv" > "$WORK/drill_s2.out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$WORK/drill_s2.out"; fail "drill of shop2 from the dump with coordinates: exit $rc"; }
grep -q "^incident: #[0-9]* DELETE .* shop2.orders2 (certain loss" "$WORK/drill_s2.out" ||
  { cat "$WORK/drill_s2.out"; fail "the shop2 drill did not recover around the DELETE"; }
if [ "$FLAVOR" = mysql ]; then  # the dump with GTID_PURGED and no position
  rc=0
  drill --dump="$WORK/dump_f.sql" --database=zyyshop --expect="$WORK/zyyshop.tsv" \
    > "$WORK/drill_g.out" 2>&1 || rc=$?
  [ $rc = 0 ] || { cat "$WORK/drill_g.out"; fail "drill from the GTID dump: exit $rc"; }
  grep -q "^start: .*the backup names GTIDs" "$WORK/drill_g.out" || fail "the GTID drill does not say where it starts"
fi
pass "$FLAVOR: drill passes from both dumps (zyyshop before the DROP, shop2 before its DELETE), naming stop point and incident"

# --incident and --allow choose another stop, in plan and drill alike.
upd=$(jq_py "$WORK/plan_f.json" 'print([x for x in d["destructive"] if x["target"]=="zyyshop.customers"][0]["number"])')
upd_pos=$(jq_py "$WORK/plan_f.json" 'print([x for x in d["destructive"] if x["target"]=="zyyshop.customers"][0]["pos"])')
"$BINRECOVER" plan --dump="$DUMP_TIME" --index-file="$INDEX" --database=zyyshop --format=json \
  --allow=zyyshop > "$WORK/plan_allow.json" || fail "plan --allow failed"
jq_py "$WORK/plan_allow.json" '
i=[x for x in d["destructive"] if x["incident"]]
assert len(i)==1 and i[0]["target"]=="zyyshop.customers", i
assert [x["allowed_by"] for x in d["destructive"] if x["what"]=="DROP DATABASE"]==["zyyshop"]
' || fail "--allow=zyyshop did not pass over the DROP"
rc=0
drill --dump="$DUMP_TIME" --database=zyyshop --incident="$upd" > "$WORK/drill_inc.out" 2>&1 || rc=$?
[ $rc = 0 ] && grep -q "^stop point: just before [^ ]*:$upd_pos " "$WORK/drill_inc.out" ||
  { cat "$WORK/drill_inc.out"; fail "drill --incident=$upd: exit $rc, or not stopped before the UPDATE"; }
pass "$FLAVOR: --allow passes over the DROP (the interest UPDATE becomes the incident); drill --incident=$upd stops before the UPDATE"

# --- 4. dumps plan cannot start from ----------------------------------------------------------------
expect_refusal() {  # PATTERN ARGS...: exit 2, one line with PATTERN
  local pattern=$1 rc=0
  shift
  "$BINRECOVER" "$@" > "$WORK/ref.out" 2> "$WORK/ref.err" || rc=$?
  [ $rc = 2 ] && grep -q -- "$pattern" "$WORK/ref.err" ||
    fail "'$*': exit $rc, expected 2 and '$pattern': $(cat "$WORK/ref.err")"
}
expect_refusal "not made with --flush-logs.*--start-file" plan --dump="$WORK/dump_noflush.sql" --index-file="$INDEX"
expect_refusal "2 binlogs were opened while the dump ran.*--start-file" plan --dump="$WORK/dump_2f.sql" --index-file="$INDEX"
expect_refusal "not made with --flush-logs" drill --dump="$WORK/dump_noflush.sql" --index-file="$INDEX"
grep -q "drill server\|start server" "$WORK/ref.out" && fail "drill started a server for a dump it cannot start from"
printf '%s\t%s\n' "$flush_file" 4 > "$WORK/xtrabackup_binlog_info"
expect_refusal "drill restores SQL dumps" drill --dump="$WORK/xtrabackup_binlog_info" --index-file="$INDEX"
[ ! -s "$WORK/ref.out" ] || fail "drill of a physical backup printed steps: $(cat "$WORK/ref.out")"
# --start-file overrides: the no-flush dump with the file named replays like the -F dump's plan.
"$BINRECOVER" plan --dump="$WORK/dump_noflush.sql" --index-file="$INDEX" --start-file="$flush_file" \
  --database=zyyshop --format=json > "$WORK/plan_sf.json" || fail "plan --start-file failed"
[ "$(jq_py "$WORK/plan_sf.json" 'print(d["recovery_command"])')" = "$(jq_py "$WORK/plan_f.json" 'print(d["recovery_command"])')" ] ||
  fail "--start-file=$flush_file did not give the -F dump's command"
pass "$FLAVOR: a dump without a flush and one that flushed twice are refused (exit 2, naming --start-file); drill refuses them and a physical backup before any server starts; --start-file overrides"

# --- 5. off-by-one targets before the damage ----------------------------------------------------------
drop_end=$(awk -F'\t' -v f="$drop_file" -v p="$drop_pos" '$1 == f && $2 == p { print $5 }' "$WORK/all.tsv")
mapfile -t from_flush < <(binlogs_between "$WORK/a/binlog" "$flush_file" "$drop_file")
for target in "--skip-event=$drop_file:$((drop_pos + 1))" "--stop-position=$((drop_pos + 1))" \
  "--skip-event=$drop_file:$((drop_end - 1))"; do
  rc=0
  "$BINRECOVER" -D --database=zyyshop "$target" "${from_flush[@]}" > "$WORK/obo.sql" 2> "$WORK/obo.err" || rc=$?
  [ $rc = 2 ] || fail "SQL output with $target: exit $rc: $(cat "$WORK/obo.err")"
  grep -q "DROP DATABASE" "$WORK/obo.sql" && fail "SQL output with $target wrote the DROP"
  fresh_target "$DUMP_TIME"
  rc=0
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot -D --database=zyyshop \
    --state-file="$WORK/obo.state" "$target" "${from_flush[@]}" > /dev/null 2> "$WORK/obo.err" || rc=$?
  rm -f "$WORK/obo.state"
  [ $rc = 2 ] || fail "replay with $target: exit $rc: $(cat "$WORK/obo.err")"
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'zyyshop'")" = 1 ] ||
    fail "replay with $target dropped the database"
  rc=0
  drill --dump="$DUMP_TIME" --database=zyyshop "$target" > "$WORK/obo.out" 2> "$WORK/obo.err" || rc=$?
  [ $rc = 2 ] || fail "drill with $target: exit $rc: $(cat "$WORK/obo.out" "$WORK/obo.err")"
done
pass "$FLAVOR: off-by-one --skip-event / --stop-position: exit 2 for SQL output, replay and drill, the DROP never written or applied"

# --- 5b. datetimes read exactly, on this day's binlogs ---------------------------------------------
# The DROP's second in UTC, in +05:00 and in a named zone: the same stop, the same output;
# trailing text and a date alone are refused before anything is written.
drop_ts=$(jq_py "$WORK/plan_f.json" 'print([x["timestamp"] for x in d["destructive"] if x["incident"]][0])')
at() { TZ=$1 date -d "@$drop_ts" +"$2"; }
"$BINRECOVER" --timezone=UTC --stop-datetime="$(at UTC '%F %T')" "${from_flush[@]}" > "$WORK/dt.utc" ||
  fail "--stop-datetime in UTC failed"
grep -q "DROP DATABASE" "$WORK/dt.utc" && fail "--stop-datetime at the DROP's second wrote the DROP"
for form in "$(at Asia/Karachi '%F %T')+05:00" "$(at Europe/Berlin '%F %T') Europe/Berlin" \
  "$(at UTC '%FT%T')Z"; do
  "$BINRECOVER" --timezone=UTC --stop-datetime="$form" "${from_flush[@]}" | cmp -s - "$WORK/dt.utc" ||
    fail "--stop-datetime='$form' is not the same stop as in UTC"
done
for bad in "$(at UTC '%F %T')garbage" "$(at UTC '%F')" "$(at UTC '%F %T') Mars/Base"; do
  rc=0
  "$BINRECOVER" --stop-datetime="$bad" "${from_flush[@]}" > "$WORK/dt.bad" 2> /dev/null || rc=$?
  [ $rc = 2 ] && ! grep -q "BINLOG\|INSERT" "$WORK/dt.bad" || fail "--stop-datetime='$bad': exit $rc"
done
pass "$FLAVOR: --stop-datetime with +05:00, a zone name and Z stops where UTC does; trailing text, a date alone and an unknown zone exit 2"

# --- 6. a STATEMENT-format day (MariaDB) -------------------------------------------------------------
[ "$FLAVOR" = mariadb ] || exit 0
PS=$((PA + 2))
start_server s "$PS" --binlog-format=STATEMENT
sql "$PS" -e "CREATE DATABASE st; CREATE TABLE st.orders (id INT AUTO_INCREMENT PRIMARY KEY,
  created DATETIME, v INT); CREATE TABLE st.log (id INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(20))"
seq 1 300 | awk '{ printf "INSERT INTO st.orders (created, v) VALUES (NOW() - INTERVAL %d HOUR, %d);\n", $1, $1 }' | sql "$PS"
mariadb-dump --no-defaults -h127.0.0.1 -P"$PS" -uroot -F -B st > "$WORK/st.sql"
seq 1 50 | awk '{ printf "INSERT INTO st.orders (created, v) VALUES (NOW(), %d); UPDATE st.orders SET v = v + 1 WHERE id = %d; INSERT INTO st.log (what) VALUES (\"tick %d\");\n", $1, $1, $1 }' | sql "$PS"
sql "$PS" -e "DELETE FROM st.orders WHERE created < NOW() - INTERVAL 100 HOUR"
seq 51 80 | awk '{ printf "INSERT INTO st.log (what) VALUES (\"tick %d\");\n", $1 }' | sql "$PS"
sql "$PS" -N -e "CHECKSUM TABLE st.orders, st.log" > "$WORK/st.expected"
sql "$PS" -e "TRUNCATE st.log"
sql "$PS" -e "INSERT INTO st.orders (created, v) VALUES (NOW(), 999)"
"$BINRECOVER" plan --dump="$WORK/st.sql" --index-file="$WORK/s/binlog/mysql-bin.index" --format=json > "$WORK/st.json"
"$BINRECOVER" plan --dump="$WORK/st.sql" --index-file="$WORK/s/binlog/mysql-bin.index" > "$WORK/st.txt"
cat "$WORK/st.txt"
jq_py "$WORK/st.json" '
s=[x for x in d["destructive"] if x["what"].startswith("DELETE")]
assert len(s)==1 and s[0]["severity"]=="suspect" and not s[0]["incident"] and "NOW()" in s[0]["statement"], s
i=[x for x in d["destructive"] if x["incident"]]
assert len(i)==1 and i[0]["what"]=="TRUNCATE" and i[0]["target"]=="st.log", i
' || fail "STATEMENT day: the mass DELETE is not a suspect, or the TRUNCATE not the incident"
sql "$PT" -e "DROP DATABASE IF EXISTS st"
sql "$PT" < "$WORK/st.sql"
run_headline "$WORK/st.json"
sql "$PT" -N -e "CHECKSUM TABLE st.orders, st.log" | diff "$WORK/st.expected" - ||
  fail "STATEMENT day: the headline did not restore st just before the TRUNCATE"
pass "mariadb STATEMENT day: the range DELETE is a suspect, the TRUNCATE the incident, the headline restores st before it"
