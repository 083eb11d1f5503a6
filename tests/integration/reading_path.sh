#!/usr/bin/env bash
# One reading path, one filter (issue 11): on binlogs a real MariaDB writes here,
#  - every filter option changes the result of every command that reads a range (events, SQL,
#    -v, --rows-as-sql, --flashback, stats, plan, replay, drill), or the command refuses it
#    with exit 2;
#  - each case the issue lists, as a regression test.
#   tests/integration/reading_path.sh PORT      (uses PORT and PORT+1)
source "$(dirname "$0")/lib.sh"
PORT=${1:?port}
B=$BINRECOVER

start_server src "$PORT" --binlog-row-metadata=FULL
sql "$PORT" <<'SQL'
CREATE DATABASE shop;
CREATE DATABASE crm;
CREATE DATABASE other;
CREATE DATABASE `x``y`;
CREATE TABLE shop.t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB;
CREATE TABLE shop.u (id INT PRIMARY KEY, w INT) ENGINE=InnoDB;
CREATE TABLE crm.c (id INT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB;
CREATE TABLE `x``y`.`t``1` (id INT PRIMARY KEY) ENGINE=InnoDB;
INSERT INTO shop.t VALUES (1, 'a'), (2, 'b'), (3, 'c');
INSERT INTO shop.u VALUES (1, 10);
INSERT INTO crm.c VALUES (1, 'x'), (2, 'y');
INSERT INTO `x``y`.`t``1` VALUES (1);
SQL
sql "$PORT" -e 'FLUSH BINARY LOGS'
# The dump, at the start of mysql-bin.000002.
mariadb-dump --no-defaults -h127.0.0.1 -P"$PORT" -uroot --master-data=2 --single-transaction \
  --databases shop crm other 'x`y' >"$WORK/dump.sql"
# The changes after it, at known times, none depending on another (so that any subset of them
# applies to the dump): one from another server id, one multi-table DELETE through an alias.
sql "$PORT" <<'SQL'
SET TIMESTAMP = UNIX_TIMESTAMP('2026-11-29 10:00:00');
INSERT INTO shop.t VALUES (4, 'd');
SET TIMESTAMP = UNIX_TIMESTAMP('2026-11-29 11:00:00');
INSERT INTO crm.c VALUES (3, 'z');
SET TIMESTAMP = UNIX_TIMESTAMP('2026-11-29 12:00:00');
INSERT INTO `x``y`.`t``1` VALUES (2);
SET TIMESTAMP = UNIX_TIMESTAMP('2026-11-29 13:00:00');
BEGIN;
UPDATE shop.t SET v = 'bb' WHERE id = 2;
UPDATE shop.u SET w = 11 WHERE id = 1;
INSERT INTO crm.c VALUES (4, 'w');
COMMIT;
SET TIMESTAMP = UNIX_TIMESTAMP('2026-11-29 14:00:00');
SET SESSION server_id = 7;
INSERT INTO shop.u VALUES (2, 20);
SET SESSION server_id = 1;
SET TIMESTAMP = UNIX_TIMESTAMP('2026-11-29 15:00:00');
USE other;
DELETE s FROM shop.t AS s WHERE s.id = 3;
SET TIMESTAMP = UNIX_TIMESTAMP('2026-11-29 16:00:00');
DELETE FROM crm.c WHERE id IN (1, 2);
SQL
sql "$PORT" -e 'FLUSH BINARY LOGS'
# The same work in STATEMENT format, in mysql-bin.000003.
sql "$PORT" -e "SET SESSION binlog_format=STATEMENT;
  DROP DATABASE shop; DROP DATABASE crm; DROP DATABASE \`x\`\`y\`;
  CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY, v VARCHAR(20));
  CREATE DATABASE \`x\`\`y\`; CREATE TABLE \`x\`\`y\`.\`t\`\`1\` (id INT PRIMARY KEY);
  INSERT INTO \`x\`\`y\`.\`t\`\`1\` VALUES (1), (2);
  INSERT INTO shop.t VALUES (1, 'a'), (3, 'c');
  USE other; DELETE s FROM shop.t AS s;
  DROP TABLE \`x\`\`y\`.\`t\`\`1\`; DROP DATABASE \`x\`\`y\`;
  FLUSH BINARY LOGS;"
ROW=$WORK/src/binlog/mysql-bin.000002
STMT=$WORK/src/binlog/mysql-bin.000003

# Positions and GTIDs from the listing.
tsv() { "$B" events --format=tsv "$@"; }
gtid_pos() { tsv "$ROW" | awk -F'\t' -v n="$1" '$3 == "Gtid" { if (++k == n) print $2 }'; }
gtid_of() { tsv "$ROW" | awk -F'\t' -v n="$1" '$3 == "Gtid" { if (++k == n) { sub(/^BEGIN GTID /, "", $6); print $6 } }'; }
first=$(gtid_pos 1)    # INSERT shop.t (4)
second=$(gtid_pos 2)   # INSERT crm.c (3)
fourth=$(gtid_pos 4)   # the multi-statement transaction
fourth_gtid=$(gtid_of 4)
rows_pos=$(tsv "$ROW" | awk -F'\t' '$3 ~ /^Write_rows/ && !done { print $2; done = 1 }')
end=$(stat -c %s "$ROW")
[ -n "$first" ] && [ -n "$fourth_gtid" ] && [ -n "$rows_pos" ] || fail "positions not found"

# ---- the option x command matrix ----------------------------------------------------------
# Each option, as it is given to every command (values chosen so that each changes the range).
OPTIONS=(
  "--start-position=$second"
  "--stop-position=$fourth"
  "--start-datetime=2026-11-29 12:30:00"
  "--stop-datetime=2026-11-29 12:30:00"
  "--server-id=7"
  "--database=crm"
  "--table=shop.u"
  "--skip-event=$fourth"
  "--stop-gtid=$fourth_gtid"
  "--rewrite-db=shop->shop2"
  "--offset=N"
)
export TZ=UTC
# run_cmd NAME OPTION: the command's result (stdout, or the target's tables for replay), and
# its exit status, in $WORK/m.out / $WORK/m.rc.
reset_target() {
  sql "$PORT2" -e "DROP DATABASE IF EXISTS shop; DROP DATABASE IF EXISTS shop2;
    DROP DATABASE IF EXISTS crm; DROP DATABASE IF EXISTS other; DROP DATABASE IF EXISTS \`x\`\`y\`;"
  sql "$PORT2" <"$WORK/dump.sql"
  # --rewrite-db needs the new database to exist
  sql "$PORT2" -e "CREATE DATABASE shop2; CREATE TABLE shop2.t LIKE shop.t; CREATE TABLE shop2.u LIKE shop.u;
    INSERT INTO shop2.t SELECT * FROM shop.t; INSERT INTO shop2.u SELECT * FROM shop.u;"
  rm -f "$WORK/replay.state"
}
fingerprint() {
  sql "$PORT2" -N -e "SELECT 'shop.t', id, v FROM shop.t; SELECT 'shop.u', id, w FROM shop.u;
    SELECT 'crm.c', id, name FROM crm.c; SELECT 'x.t1', id FROM \`x\`\`y\`.\`t\`\`1\`;
    SELECT 'shop2.t', id, v FROM shop2.t; SELECT 'shop2.u', id, w FROM shop2.u;"
}
dumppos=$(sed -n "s/.*MASTER_LOG_POS=\([0-9]*\).*/\1/p" "$WORK/dump.sql" | head -1)
run_cmd() {
  local cmd=$1 opt=$2 rc=0
  # --offset skips the first transaction whole: after the 2 events outside transactions at the
  # start of the file, or right away from a start at the first transaction.
  if [[ $opt == --offset=* ]]; then
    case $cmd in flashback | replay | plan | drill) opt=--offset=5 ;; *) opt=--offset=7 ;; esac
  fi
  local args=()
  [ -n "$opt" ] && args=("$opt")
  case $cmd in
  events) "$B" events "${args[@]}" "$ROW" >"$WORK/m.out" 2>"$WORK/m.err" || rc=$? ;;
  sql) "$B" "${args[@]}" "$ROW" >"$WORK/m.out" 2>"$WORK/m.err" || rc=$? ;;
  verbose) "$B" -v "${args[@]}" "$ROW" >"$WORK/m.out" 2>"$WORK/m.err" || rc=$? ;;
  rows-as-sql) "$B" --rows-as-sql "${args[@]}" "$ROW" >"$WORK/m.out" 2>"$WORK/m.err" || rc=$? ;;
  flashback)
    local start=()
    [[ $opt == --start-position=* ]] || start=("--start-position=$first")
    "$B" --flashback "${start[@]}" "${args[@]}" "$ROW" >"$WORK/m.out" 2>"$WORK/m.err" || rc=$? ;;
  stats) "$B" stats "${args[@]}" "$ROW" >"$WORK/m.out" 2>"$WORK/m.err" || rc=$? ;;
  plan) "$B" plan --rows-threshold=1 --dump="$WORK/dump.sql" "${args[@]}" "$ROW" \
    >"$WORK/m.out" 2>"$WORK/m.err" || rc=$? ;;
  replay)
    reset_target
    local from=("--start-position=$dumppos")
    [[ $opt == --start-position=* ]] && from=()
    "$B" replay --no-progress -h127.0.0.1 -P"$PORT2" -uroot --state-file="$WORK/replay.state" \
      "${from[@]}" "${args[@]}" "$ROW" >/dev/null 2>"$WORK/m.err" || rc=$?
    [ $rc = 0 ] && fingerprint >"$WORK/m.out" ;;
  drill)
    sql "$PORT2" -e "DROP DATABASE IF EXISTS shop; DROP DATABASE IF EXISTS crm;
      DROP DATABASE IF EXISTS other; DROP DATABASE IF EXISTS shop2; DROP DATABASE IF EXISTS \`x\`\`y\`;"
    "$B" drill --to-end --dump="$WORK/dump.sql" -h127.0.0.1 -P"$PORT2" -uroot --database=shop \
      "${args[@]}" "$ROW" >"$WORK/m.out" 2>"$WORK/m.err" || rc=$? ;;
  esac
  echo "$rc" >"$WORK/m.rc"
}
start_server target "$((PORT + 1))"
PORT2=$((PORT + 1))
failures=0
for cmd in events sql verbose rows-as-sql flashback stats plan replay drill; do
  run_cmd "$cmd" ""
  base_rc=$(cat "$WORK/m.rc")
  [ "$base_rc" = 0 ] || { cat "$WORK/m.err" >&2; fail "$cmd without options: exit $base_rc"; }
  cp "$WORK/m.out" "$WORK/base.out"
  for opt in "${OPTIONS[@]}"; do
    # drill restores the dump and replays from its coordinates: its start comes from there.
    run_cmd "$cmd" "$opt"
    rc=$(cat "$WORK/m.rc")
    if [ "$rc" = 2 ]; then
      echo "  $cmd $opt: refused (exit 2): $(head -c 160 "$WORK/m.err")"
    elif [ "$rc" != 0 ]; then
      echo "FAIL: $cmd $opt: exit $rc: $(head -c 300 "$WORK/m.err")" >&2
      failures=$((failures + 1))
    elif cmp -s "$WORK/base.out" "$WORK/m.out"; then
      echo "FAIL: $cmd $opt: accepted, and the result is the same as without it" >&2
      failures=$((failures + 1))
    else
      echo "  $cmd $opt: changes the result"
    fi
  done
done
[ "$failures" = 0 ] || fail "$failures option x command cases accepted an option without effect"
pass "every filter option changes every command's result or is refused"

# ---- the cases of the issue ---------------------------------------------------------------
# 1. events honours the range and the filters.
n_all=$("$B" events "$ROW" | wc -l)
n_stop=$("$B" events --stop-position="$fourth" "$ROW" | wc -l)
[ "$n_stop" -lt "$n_all" ] || fail "events --stop-position listed everything"
"$B" events --database=nonexistent "$ROW" >"$WORK/ev"
awk 'NR > 1 { print $3 }' "$WORK/ev" | grep -qE '^(Query|Table_map|Write_rows.*|Xid|Gtid)$' &&
  fail "events --database=nonexistent listed transactions"
# 2. stats honours --stop-datetime.
"$B" stats --stop-datetime='2000-01-01 00:00:00' "$ROW" >"$WORK/st"
head -1 "$WORK/st" | grep -q " 0 transactions, 0 rows" ||
  fail "stats --stop-datetime in the past counted transactions"
# 3. --flashback stops at --stop-gtid and leaves out --skip-event.
"$B" --flashback --start-position="$first" --stop-gtid="$fourth_gtid" "$ROW" >"$WORK/fb" ||
  fail "--flashback --stop-gtid failed"
grep -q 'UPDATE `shop`.`t`' "$WORK/fb" && fail "--flashback --stop-gtid undid the transaction it stops before"
"$B" --flashback --start-position="$first" --skip-event="$fourth" "$ROW" >"$WORK/fb" ||
  fail "--flashback --skip-event failed"
grep -q 'UPDATE `shop`.`t`' "$WORK/fb" && fail "--flashback --skip-event undid the skipped transaction"
pass "events, stats and --flashback follow the range and filters"

# 4. SAVEPOINT and ROLLBACK TO stay with their transaction under --database.
C=$ROOT/../shared/corpus
if [ -d "$C" ]; then
  sp=$C/mariadb-server-10.11/std_data/binlog_savepoint.000001
  for filt in "" "--database=db1"; do
    sql "$PORT2" -e "DROP DATABASE IF EXISTS db1; CREATE DATABASE db1; CREATE DATABASE IF NOT EXISTS test;
      CREATE TABLE db1.t1 (a INT) ENGINE=InnoDB; CREATE TABLE db1.t2 (s VARCHAR(64)) ENGINE=InnoDB;"
    "$B" $filt "$sp" | sql "$PORT2" || fail "replay of binlog_savepoint ($filt) failed"
    sql "$PORT2" -N -e "SELECT a FROM db1.t1 ORDER BY a; SELECT s FROM db1.t2 ORDER BY s" \
      >"$WORK/savepoint.${filt:-all}"
  done
  cmp -s "$WORK/savepoint.all" "$WORK/savepoint.--database=db1" ||
    fail "--database=db1 changed what the savepoint transaction commits: $(tr '\n' ' ' <"$WORK/savepoint.--database=db1")"
  grep -qx 40 "$WORK/savepoint.all" && fail "the rolled-back row 40 was committed"
  # 5. A damaged v2 rows event is an error, never an empty transaction.
  bad=$C/mariadb-server-10.11/suite/binlog/std_data/invalid_row_v2_tag.001
  rc=0
  "$B" --rows-as-sql "$bad" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
  [ "$rc" = 4 ] && grep -q "invalid_row_v2_tag.001:286: Write_rows: rows event: extra row data" "$WORK/bad.err" ||
    fail "invalid_row_v2_tag: exit $rc: $(cat "$WORK/bad.err")"
  rc=0
  "$B" --force-read -v "$bad" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
  [ "$rc" = 0 ] && grep -q "left out" "$WORK/bad.err" && ! grep -q "^START TRANSACTION\|^BEGIN" "$WORK/bad.out" ||
    fail "invalid_row_v2_tag --force-read: exit $rc"
  pass "savepoints stay in their transaction; damaged rows events are errors"
fi

# 6. --base64-output=NEVER: no BINLOG at all; row events are an error.
"$B" --base64-output=never "$STMT" >"$WORK/never.out" || fail "NEVER on a statement binlog failed"
grep -q "BINLOG" "$WORK/never.out" && fail "NEVER printed a BINLOG statement"
rc=0
"$B" --base64-output=never "$ROW" >/dev/null 2>"$WORK/never.err" || rc=$?
[ "$rc" = 5 ] || fail "NEVER on row events: exit $rc"
rc=0
"$B" --base64-output=always "$ROW" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--base64-output=always accepted"
pass "--base64-output=NEVER writes no BINLOG and refuses row events"

# 8. Names with a backtick; aliases of a multi-table DELETE.
"$B" --database='x`y' "$ROW" >"$WORK/xy.row"
grep -q 'Table_map: `x``y`.`t``1`' "$WORK/xy.row" || fail "--database='x\`y' dropped the row events of x\`y"
grep -q 'CREATE DATABASE `x``y`' "$WORK/xy.row" || true  # (the DDL is in the first file)
"$B" --database='x`y' "$STMT" >"$WORK/xy.stmt"
for s in 'CREATE DATABASE `x``y`' 'INSERT INTO `x``y`.`t``1`' 'DROP DATABASE `x``y`'; do
  grep -qF "$s" "$WORK/xy.stmt" || fail "--database='x\`y' dropped: $s"
done
grep -q 'INSERT INTO shop.t' "$WORK/xy.stmt" && fail "--database='x\`y' kept shop's statements"
"$B" --database=shop "$STMT" >"$WORK/d.shop"
grep -q 'DELETE s FROM shop.t AS s' "$WORK/d.shop" ||
  fail "-d shop dropped 'USE other; DELETE s FROM shop.t AS s'"
"$B" --database=other "$STMT" >"$WORK/d.other"
grep -q 'DELETE s FROM shop.t AS s' "$WORK/d.other" && fail "-d other kept a DELETE of shop.t"
"$B" plan --start-position=4 --database=shop "$STMT" >"$WORK/plan.stmt"
grep -q "DELETE without WHERE  shop.t" "$WORK/plan.stmt" || fail "plan names the alias: $(cat "$WORK/plan.stmt")"
"$B" plan --start-position=4 --database='x`y' "$STMT" >"$WORK/plan.xy"
grep -q "DROP DATABASE" "$WORK/plan.xy" || fail "plan --database='x\`y' found no DROP DATABASE"
pass "backticks in names and aliases of a multi-table DELETE"

# 9. A closed binlog cut at an event boundary, followed by the next file, is an error; start
#    positions must be transaction boundaries.
cut=$(tsv "$ROW" | awk -F'\t' -v p="$fourth" '$2 == p && !done { print $2; done = 1 }')
head -c "$cut" "$ROW" >"$WORK/mysql-bin.000002"
cp "$STMT" "$WORK/mysql-bin.000003"
rc=0
"$B" "$WORK/mysql-bin.000002" "$WORK/mysql-bin.000003" >/dev/null 2>"$WORK/cut.err" || rc=$?
[ "$rc" = 4 ] && grep -q "without the Rotate or Stop event" "$WORK/cut.err" ||
  fail "a cut closed file before the next: exit $rc: $(cat "$WORK/cut.err")"
"$B" --force-read "$WORK/mysql-bin.000002" "$WORK/mysql-bin.000003" >/dev/null 2>"$WORK/cut.err" ||
  fail "--force-read over a cut file failed"
rc=0
"$B" --start-position="$rows_pos" "$ROW" >/dev/null 2>"$WORK/start.err" || rc=$?
[ "$rc" = 2 ] && grep -q "inside the transaction that starts at $first" "$WORK/start.err" ||
  fail "start at a rows event: exit $rc: $(cat "$WORK/start.err")"
rc=0
"$B" --start-position=$((first + 1)) "$ROW" >/dev/null 2>"$WORK/start.err" || rc=$?
[ "$rc" = 2 ] && grep -q "is inside the Gtid event at $first" "$WORK/start.err" ||
  fail "start inside an event: exit $rc: $(cat "$WORK/start.err")"
"$B" --start-position="$first" "$ROW" >/dev/null || fail "start at a GTID failed"
pass "a cut file is an error; a start inside a transaction is refused, naming its start"

# 10. Skip and stop targets: malformed values are usage errors, targets never found errors.
for bad in abc 0-1-5x 3e11fa47-71ca-11e1-9e33-c80aa9429562; do
  rc=0
  "$B" --stop-gtid="$bad" "$ROW" >/dev/null 2>&1 || rc=$?
  [ "$rc" = 2 ] || fail "--stop-gtid=$bad: exit $rc"
done
rc=0
"$B" --stop-gtid=0-1-999 "$ROW" >"$WORK/nf.out" 2>"$WORK/nf.err" || rc=$?
[ "$rc" = 2 ] && grep -q "no transaction of the binlogs read has that GTID" "$WORK/nf.err" ||
  fail "--stop-gtid never reached: exit $rc"
tail -3 "$WORK/nf.out" | grep -q "SET @@SESSION.PSEUDO_SLAVE_MODE=0" || fail "the output before the error is not whole"
rc=0
"$B" --skip-event=$((end + 100)) "$ROW" >"$WORK/nf.out" 2>"$WORK/nf.err" || rc=$?
[ "$rc" = 2 ] && grep -q "is past the end of" "$WORK/nf.err" ||
  fail "--skip-event matching nothing: exit $rc"
grep -q "BINLOG\|INSERT" "$WORK/nf.out" && fail "--skip-event past the end: events were written before the refusal"
# One byte off a transaction's first event: stopped there, nothing from that event on written.
rc=0
"$B" --skip-event="$((fourth + 1))" "$ROW" >"$WORK/nf.out" 2>"$WORK/nf.err" || rc=$?
[ "$rc" = 2 ] && grep -q "is inside the Gtid event at $fourth" "$WORK/nf.err" ||
  fail "--skip-event one byte off: exit $rc: $(cat "$WORK/nf.err")"
[ "$("$B" --stop-position="$fourth" "$ROW" | md5sum)" = "$(md5sum < "$WORK/nf.out")" ] ||
  fail "--skip-event one byte off wrote more (or less) than the transactions before it"
pass "malformed targets exit 2, targets never found or not at an event's start exit 2"
