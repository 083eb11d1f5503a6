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
shop_scenario "$PA"
# (three transactions in a row, which --merge-transactions 3 merges in a ROW log)
for w in paid packed shipped; do sql "$PA" shop -e "INSERT INTO audit (what) VALUES ('$w')"; done
shop_expected "$PA"
sql "$PA" -e "DROP DATABASE shop; CREATE DATABASE shop; CREATE TABLE shop.junk (a INT)"

rc=0
"$BINRECOVER" drill --dump="$WORK/dump.sql" --index-file="$WORK/a/binlog/mysql-bin.index" \
  --database=shop --expect="$WORK/expected.tsv" --report="$WORK/report.json" \
  --merge-transactions 3 > "$WORK/drill.out" 2>&1 || rc=$?
cat "$WORK/drill.out"
[ $rc = 0 ] || fail "the drill failed (exit $rc)"
grep -q '"passed":true' "$WORK/report.json" || fail "the report does not say passed"
grep -q '"name":"replay binlogs","ok":true' "$WORK/report.json" || fail "no replay step in the report"
grep -q '"table":"shop.orders","rows":3' "$WORK/report.json" || fail "orders not verified"
grep -q '"parallel":{"workers":4,"applier":"sessions","seconds":[0-9.]*,"transactions":[1-9][0-9]*,' "$WORK/report.json" ||
  fail "the report does not say how the replay ran in parallel: $(cat "$WORK/report.json")"
grep -q "DROP DATABASE shop" "$WORK/drill.out" || fail "the drill did not stop before the DROP"
# (--merge-transactions 3: row transactions in groups; statement-format ones are never merged)
merged=$(sed -n 's/.*"merged":\([0-9]*\),"merged_into":\([0-9]*\).*/\1 into \2/p' "$WORK/report.json")
if [ "$FORMAT" = ROW ]; then
  [ "$merged" = "3 into 1" ] || fail "--merge-transactions 3 merged $merged: $(cat "$WORK/report.json")"
else
  [ "$merged" = "0 into 0" ] || fail "statement-format transactions were merged: $merged"
fi
pass "drill ($FORMAT, --merge-transactions 3: $merged): restored, replayed to just before the DROP DATABASE, $(grep -c . "$WORK/expected.tsv") tables equal the source"

# The same with the drill server's own replication applier (binrecover its source).
rc=0
"$BINRECOVER" drill --dump="$WORK/dump.sql" --index-file="$WORK/a/binlog/mysql-bin.index" \
  --database=shop --expect="$WORK/expected.tsv" --report="$WORK/report.json" --server-applier \
  --parallel 2 > "$WORK/drill-sa.out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$WORK/drill-sa.out"; fail "the drill with --server-applier failed (exit $rc)"; }
grep -q '"parallel":{"workers":2,"applier":"server","seconds":[0-9.]*,"transactions":[1-9][0-9]*,' "$WORK/report.json" ||
  fail "--server-applier: the report does not say so: $(cat "$WORK/report.json")"
grep -q "of the server's own replication applier" "$WORK/drill-sa.out" || fail "--server-applier: not in the summary"
pass "drill ($FORMAT) --server-applier: the drill server's replication applier replayed to just before the DROP; the tables equal the source"

# A wrong expectation must fail the drill with exit 7, naming the table.
sed 's/^\(shop.orders\t\)3/\14/' "$WORK/expected.tsv" > "$WORK/wrong.tsv"
rc=0
"$BINRECOVER" drill --dump="$WORK/dump.sql" --index-file="$WORK/a/binlog/mysql-bin.index" \
  --database=shop --expect="$WORK/wrong.tsv" > "$WORK/drill2.out" 2>&1 || rc=$?
[ $rc = 7 ] || { cat "$WORK/drill2.out"; fail "a wrong expectation gave exit $rc, not 7"; }
grep -q "^! shop.orders" "$WORK/drill2.out" || fail "the mismatching table is not named"
# No leftovers: each of these drills' throwaway servers is gone and its folder removed (the
# folders named in their outputs: others' leftovers in /tmp are not ours to judge).
for out in drill drill-sa drill2; do
  dir=$(sed -n 's/.*data in \(.*binrecover-drill-[A-Za-z0-9]*\).*/\1/p' "$WORK/$out.out" | head -1)
  [ -n "$dir" ] || fail "$out: the drill did not say where its server's data was"
  ! pgrep -f -- "$dir/" > /dev/null || fail "$out: the drill server in $dir is still running"
  [ ! -e "$dir" ] || fail "$out: the drill folder $dir was left behind"
done
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

# The throwaway server accepts no one but us (issue 12, item 3), and SIGINT to the drill stops
# it and removes its folder. The dump is read through a FIFO: the drill blocks at the restore
# step with its server up, until the dump is written a second time.
if [ "$FORMAT" = ROW ]; then
  rm -f "$WORK/dump.fifo"
  mkfifo "$WORK/dump.fifo"
  "$BINRECOVER" drill --dump="$WORK/dump.fifo" --index-file="$WORK/a/binlog/mysql-bin.index" \
    --database=shop > "$WORK/drill4.out" 2>&1 &
  drill=$!
  # (a failing check must not leave the drill waiting on its FIFO)
  trap 'kill -INT "$drill" 2>/dev/null || true; sleep 2; kill -9 "$drill" 2>/dev/null || true; cleanup' EXIT
  cat "$WORK/dump.sql" > "$WORK/dump.fifo" || true  # the plan reads the dump's coordinates
  srv=""
  sql_sock=""
  drill_server_up() {  # the drill's server (its child) is up, its socket there; the drill waits
    kill -0 "$drill" 2> /dev/null || { cat "$WORK/drill4.out"; fail "the drill ended before its server came up"; }
    srv=$(pgrep -P "$drill" -f -- "--socket=${TMPDIR:-/tmp}/binrecover-drill-" | sed -n 1p || true)
    [ -n "$srv" ] && sql_sock=$(tr '\0' '\n' < "/proc/$srv/cmdline" | sed -n 's/^--socket=//p') &&
      [ -S "$sql_sock" ]
  }
  WAIT_FOR_SHOW=$WORK/drill4.out wait_for 180 "no drill server came up" drill_server_up
  tr '\0' '\n' < "/proc/$srv/cmdline" | grep -qx -- "--skip-networking" || fail "the drill server listens on TCP"
  [ "$(ps -o user= -p "$srv")" != root ] || fail "the drill server runs as root"
  ! ss -ltnp 2>/dev/null | grep -q "pid=$srv," || fail "the drill server has a TCP listener"
  # An unprivileged neighbour: no way to the socket, nothing to list.
  nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  ! "${nobody[@]}" mariadb --no-defaults -uroot --socket="$sql_sock" -e 'SELECT 1' >/dev/null 2>&1 ||
    fail "an unprivileged user reached the drill server's socket"
  ! "${nobody[@]}" ls "$(dirname "$(dirname "$sql_sock")")" >/dev/null 2>&1 ||
    fail "an unprivileged user can list the drill folder"
  sfp=$(tr '\0' '\n' < "/proc/$srv/cmdline" | sed -n 's/^--secure-file-priv=//p')
  case "$sfp" in "$(dirname "$sql_sock")"/*) ;; *) fail "secure_file_priv is '$sfp', not private" ;; esac
  kill -INT "$drill"
  rc=0
  wait "$drill" || rc=$?
  [ "$rc" = 130 ] || { cat "$WORK/drill4.out"; fail "SIGINT: the drill exited $rc, not 130"; }
  wait_for 120 "SIGINT left the drill server running" ended "$srv"
  [ ! -e "$(dirname "$sql_sock")" ] || fail "SIGINT left the drill folder behind"
  trap cleanup EXIT
  pass "drill server: socket only, not root, private secure_file_priv; SIGINT stops it and removes its folder"
fi
