#!/usr/bin/env bash
# binrecover archive follows a failover to a replica with the same GTIDs (MariaDB 10.11):
# a primary (server id 1, binlogs mysql-bin.*) and a replica (server id 2, binlogs
# replica-bin.*, log_slave_updates, GTID replication). The archive copies the primary while
# writes run and the replica rotates its binlog in the middle; then the replica stops
# replicating, the primary logs one more transaction (lost in the failover) and the archive
# copies it too; the primary dies, the replica is promoted and written to, and the same
# archive command is pointed at it. Checked:
#  - the archive goes on with the replica's newest binlog that begins within what it holds;
#    only the transaction the replica lacks (the primary's last) is cut from the primary's
#    last file and set aside in DIR/diverged-* (nothing thrown away), named on stderr; the
#    primary's files keep everything else (the two overlap: readers take each once);
#  - the files after the failover are byte-identical to the replica's; `archive --verify`
#    passes; a resumed run on the replica goes on normally;
#  - the whole archive replayed into an empty server gives the replica's tables (CHECKSUM
#    TABLE), i.e. no transaction missing and none twice;
#  - an archive of an unrelated server is refused (exit 6), the archive untouched.
# Then the same failover on MySQL 9.7 (the sid chroot; server UUIDs and Previous_gtids).
source "$(dirname "$0")/lib.sh"
PA=${1:-23697}
MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
PB=$((PA + 1))
PC=$((PA + 2))
R=(--no-defaults -h127.0.0.1 -uroot)

start_server p "$PA" --gtid-strict-mode=ON
start_server r "$PB" --server-id=2 --log-bin="$WORK/r/binlog/replica-bin" --log-slave-updates \
  --gtid-strict-mode=ON
sql "$PB" -e "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$PA, MASTER_USER='root',
  MASTER_USE_GTID=slave_pos; START SLAVE"
sync_replica() {
  local want deadline=$((SECONDS + 120))
  want=$(sql "$PA" -N -e "SELECT @@gtid_binlog_pos")
  until [ "$(sql "$PB" -N -e "SELECT @@gtid_slave_pos")" = "$want" ]; do
    [ "$SECONDS" -lt "$deadline" ] || fail "the replica did not reach $want in 120 s"
    sleep 0.1
  done
}
sql "$PA" -e "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(100), n INT);
  CREATE TABLE d.k (v VARCHAR(100))"
for i in $(seq 1 10); do sql "$PA" -e "INSERT INTO d.t VALUES ($i, 'p$i', $i); INSERT INTO d.k VALUES ('k$i')"; done
sql "$PA" -e "FLUSH BINARY LOGS"
for i in $(seq 11 20); do sql "$PA" -e "UPDATE d.t SET n = n + $i WHERE id = $((i - 10)); INSERT INTO d.k VALUES ('k$i')"; done
sync_replica
sql "$PB" -e "FLUSH BINARY LOGS"  # the replica's newest binlog begins here
# The DBA's dump, taken on the primary (its coordinates: mysql-bin.000002 past where the
# replica's newest binlog begins), then more writes on the shop.
sql "$PA" -e "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, amount INT);
  INSERT INTO shop.orders VALUES (1, 10), (2, 20)"
mariadb-dump --no-defaults -h127.0.0.1 -P"$PA" -uroot --master-data=2 --single-transaction \
  -B shop > "$WORK/dump.sql"
sql "$PA" -e "INSERT INTO shop.orders VALUES (3, 30); UPDATE shop.orders SET amount = 21 WHERE id = 2"
for i in $(seq 21 30); do sql "$PA" -e "INSERT INTO d.t VALUES ($i, 'p$i', $i); INSERT INTO d.k VALUES ('k$i')"; done
sync_replica
sql "$PB" -e "STOP SLAVE"
sql "$PA" -e "INSERT INTO d.t VALUES (99, 'lost with the primary', 0)"
lost=$(sql "$PA" -N -e "SELECT @@gtid_binlog_pos")
"$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/arch" 2> "$WORK/a1.err" ||
  { cat "$WORK/a1.err"; fail "archive of the primary failed"; }
"$BINRECOVER" archive --verify "$WORK/arch" > /dev/null || fail "--verify failed on the primary's archive"
"$ROOT/scripts/mariadb_server.sh" stop "$WORK/p"

# Promoted: written to, and it rotates once more.
sql "$PB" -e "RESET SLAVE ALL"
for i in $(seq 31 35); do sql "$PB" -e "INSERT INTO d.t VALUES ($i, 'r$i', $i); DELETE FROM d.k WHERE v = 'k$((i - 30))'"; done
sql "$PB" -e "FLUSH BINARY LOGS; UPDATE d.t SET v = 'after the rotation' WHERE id = 31"
# On the new primary: more orders, then the accident.
sql "$PB" -e "INSERT INTO shop.orders VALUES (4, 40); DELETE FROM shop.orders WHERE id = 1"
shop_expected "$PB"
sql "$PB" -e "DROP DATABASE shop"
rc=0
"$BINRECOVER" archive "${R[@]}" -P"$PB" --dir="$WORK/arch" 2> "$WORK/a2.err" || rc=$?
[ $rc = 0 ] || { cat "$WORK/a2.err"; fail "archive after the failover: exit $rc"; }
grep -q "failover: .*server id 1.*server id 2.*replica-bin.000002" "$WORK/a2.err" ||
  { cat "$WORK/a2.err"; fail "no failover message naming the servers and replica-bin.000002"; }
grep -q "1 of them .*does not have.*$lost" "$WORK/a2.err" ||
  { cat "$WORK/a2.err"; fail "the transaction lost with the primary ($lost) is not named"; }
aside=$(ls -d "$WORK/arch"/diverged-*)
[ -n "$(ls "$aside")" ] || fail "nothing set aside in $aside"
[ "$(stat -c %a "$aside")" = 700 ] || fail "$aside is not private"
n=0
for f in "$WORK/r/binlog"/replica-bin.00000[2-9]; do
  cmp "$f" "$WORK/arch/$(basename "$f")" || fail "$(basename "$f") differs from the replica's"
  n=$((n + 1))
done
[ -f "$WORK/arch/replica-bin.000001" ] && fail "the replica's first binlog (before the cut) was copied"
# Only what the replica lacks is set aside: the archived mysql-bin.000002 is the primary's up to
# the lost transaction (a dump's coordinates on the old primary stay valid). (Its first 32 bytes
# differ: the server clears the format description's in-use flag when it closes the file.)
lost_at=$("$BINRECOVER" events --format=tsv "$WORK/p/binlog/mysql-bin.000002" |
  awk -F'\t' -v g="$lost" '$3 == "Gtid" && index($6 " ", "GTID " g " ") { print $2; exit }')
[ -n "$lost_at" ] || fail "the lost transaction $lost is not in the primary's mysql-bin.000002"
[ "$(stat -c %s "$WORK/arch/mysql-bin.000002")" = "$lost_at" ] &&
  cmp -s -i 32 -n "$((lost_at - 32))" "$WORK/arch/mysql-bin.000002" "$WORK/p/binlog/mysql-bin.000002" ||
  fail "the archived mysql-bin.000002 is not the primary's up to the lost transaction ($lost_at)"
"$BINRECOVER" archive --verify "$WORK/arch" > "$WORK/verify.out" 2>&1 ||
  { cat "$WORK/verify.out"; fail "--verify failed after the failover"; }
pass "archive after a failover to the replica: only the lost transaction $lost set aside (named), the primary's file kept up to it ($lost_at bytes); $n replica files byte-identical; --verify passes"

# Resumed on the replica: goes on normally.
sql "$PB" -e "INSERT INTO d.t VALUES (40, 'resumed', 40)"
"$BINRECOVER" archive "${R[@]}" -P"$PB" --dir="$WORK/arch" 2> "$WORK/a3.err" ||
  { cat "$WORK/a3.err"; fail "a resumed archive of the replica failed"; }
grep -q failover "$WORK/a3.err" && fail "a resumed archive of the same server saw a failover"
last=$(ls "$WORK/r/binlog"/replica-bin.[0-9]* | tail -1)
cmp "$last" "$WORK/arch/$(basename "$last")" || fail "resumed: $(basename "$last") differs"

# The whole archive replayed: the replica's tables, nothing missing, nothing twice.
start_server c "$PC"
"$BINRECOVER" --index-file="$WORK/arch/mysql-bin.index" | sql "$PC" ||
  fail "the archive's SQL does not replay"
for t in d.t d.k; do
  a=$(sql "$PB" -N -e "CHECKSUM TABLE $t" | cut -f2)
  b=$(sql "$PC" -N -e "CHECKSUM TABLE $t" | cut -f2)
  [ "$a" = "$b" ] || fail "$t replayed from the archive: checksum $b, the replica's $a"
done
pass "the archive across the failover replays to the replica's tables (CHECKSUM TABLE of d.t, d.k)"

# The recovery after the failover: the dump taken on the old primary and only the archive. plan
# finds the DROP on the new primary; drill restores the dump and replays to just before it.
"$BINRECOVER" plan --dump="$WORK/dump.sql" --index-file="$WORK/arch/mysql-bin.index" \
  > "$WORK/plan.out" 2>&1 || { cat "$WORK/plan.out"; fail "plan over the failover archive failed"; }
grep -q "DROP DATABASE shop" "$WORK/plan.out" || { cat "$WORK/plan.out"; fail "plan did not find the DROP"; }
rc=0
"$BINRECOVER" drill --dump="$WORK/dump.sql" --index-file="$WORK/arch/mysql-bin.index" \
  --database=shop --expect="$WORK/expected.tsv" > "$WORK/drill.out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$WORK/drill.out"; fail "the drill over the failover archive failed (exit $rc)"; }
grep -q "^PASS" "$WORK/drill.out" || { cat "$WORK/drill.out"; fail "the drill did not pass"; }
pass "recovery across the failover: plan finds the DROP on the new primary, drill rebuilds shop from the old primary's dump equal to before it"

# same_as_replica PORT ERRFILE WHAT: d.t and d.k on PORT have the replica's CHECKSUM TABLE.
same_as_replica() {
  local t a b
  for t in d.t d.k; do
    a=$(sql "$PB" -N -e "CHECKSUM TABLE $t" | cut -f2)
    b=$(sql "$1" -N -e "CHECKSUM TABLE $t" | cut -f2)
    [ "$a" = "$b" ] || { cat "$2"; fail "$t from $3: checksum $b, the replica's $a"; }
  done
}

# Both servers' whole binlogs given at once (the replica's from its first file, which holds
# the primary's transactions again): one history by GTID, each transaction read once, the
# one the replica never had left out and named.
start_server c2 "$((PA + 7))"
"$BINRECOVER" "$WORK/p/binlog"/mysql-bin.[0-9]* "$WORK/r/binlog"/replica-bin.[0-9]* \
  2> "$WORK/both.err" | sql "$((PA + 7))" || { cat "$WORK/both.err"; fail "both servers' binlogs do not replay"; }
same_as_replica "$((PA + 7))" "$WORK/both.err" "both servers' binlogs"
grep -q "1 transaction(s) left out: .*never had them.*$lost" "$WORK/both.err" ||
  { cat "$WORK/both.err"; fail "the transaction the replica never had ($lost) is not named"; }
pass "both servers' whole binlogs read as one history: the replica's tables, $lost named as left out"

# The same from the middle of the primary's second file (a dump's coordinates): what came before
# the start is not read again from the replica's copies.
x=$("$BINRECOVER" events --format=tsv "$WORK/p/binlog/mysql-bin.000002" | awk -F'\t' '$3 == "Xid" { n++; if (n == 3) { print $5; exit } }')
[ -n "$x" ] || fail "no third transaction in mysql-bin.000002"
start_server c3 "$((PA + 8))"
"$BINRECOVER" --stop-position="$x" "$WORK/p/binlog/mysql-bin.000001" "$WORK/p/binlog/mysql-bin.000002" |
  sql "$((PA + 8))" || fail "the primary's binlogs up to $x do not replay"
"$BINRECOVER" --start-position="$x" "$WORK/p/binlog"/mysql-bin.00000[2-9] "$WORK/r/binlog"/replica-bin.[0-9]* \
  2> "$WORK/mid.err" | sql "$((PA + 8))" || { cat "$WORK/mid.err"; fail "both servers' binlogs from mysql-bin.000002:$x do not replay"; }
same_as_replica "$((PA + 8))" "$WORK/mid.err" "mysql-bin.000002:$x on"
pass "both servers' binlogs from mysql-bin.000002:$x (a dump's coordinates): the replica's tables"

# A stop inside the stretch both servers' files hold (past where the replica's first archived
# file begins): the archive read up to it equals the primary's own binlogs read up to it.
n=$("$BINRECOVER" events --format=tsv "$WORK/arch/replica-bin.000002" |
  awk -F'\t' '$3 == "Gtid_list" { if (match($6, /0-1-[0-9]+/)) print substr($6, RSTART + 4, RLENGTH - 4); exit }')
[ -n "$n" ] || fail "no Gtid_list in the archived replica-bin.000002"
stop="0-1-$((n + 3))"
start_server c4 "$((PA + 9))"
start_server c5 "$((PA + 10))"
"$BINRECOVER" --stop-gtid="$stop" --index-file="$WORK/arch/mysql-bin.index" 2> "$WORK/stop.err" |
  sql "$((PA + 9))" || { cat "$WORK/stop.err"; fail "the archive up to $stop does not replay"; }
"$BINRECOVER" --stop-gtid="$stop" "$WORK/p/binlog"/mysql-bin.[0-9]* | sql "$((PA + 10))" ||
  fail "the primary's binlogs up to $stop do not replay"
for t in d.t d.k shop.orders; do
  a=$(sql "$((PA + 10))" -N -e "CHECKSUM TABLE $t" | cut -f2)
  b=$(sql "$((PA + 9))" -N -e "CHECKSUM TABLE $t" | cut -f2)
  [ "$a" = "$b" ] || { cat "$WORK/stop.err"; fail "$t up to $stop from the archive: checksum $b, the primary's $a"; }
done
pass "a stop inside the stretch both servers hold (--stop-gtid=$stop, the replica's file begins after 0-1-$n): the archive gives the primary's state there"

# A real gap: the archive without the replica's first file is refused, naming the GTIDs.
{ echo ./mysql-bin.000001; echo ./mysql-bin.000002; ls "$WORK/arch" | grep '^replica-bin\.[0-9]*$' |
  grep -v 'replica-bin.000002' | sed 's#^#./#'; } > "$WORK/arch/gap.index"
rc=0
"$BINRECOVER" --index-file="$WORK/arch/gap.index" > /dev/null 2> "$WORK/gap.err" || rc=$?
rm -f "$WORK/arch/gap.index"
[ $rc = 4 ] || { cat "$WORK/gap.err"; fail "a gap in the history: exit $rc, not 4"; }
grep -q "replica-bin.000003.*gap.*0-2-[0-9]*" "$WORK/gap.err" ||
  { cat "$WORK/gap.err"; fail "the gap's error does not name the file and the missing GTIDs"; }
pass "a gap at the failover (the replica's first archived file missing) is refused: $(grep -m1 "gap" "$WORK/gap.err")"

# An unrelated server (other history) is refused, the archive left as it is; so is the server
# the archive was replayed into (the same GTIDs) whose binlog has the name of an archived file.
start_server u "$((PA + 3))" --server-id=3
sql "$((PA + 3))" -e "CREATE DATABASE other; FLUSH BINARY LOGS; CREATE TABLE other.x (i INT)"
archive_sum() { find "$WORK/arch" -type f | sort | xargs sha256sum | sha256sum; }
sum=$(archive_sum)
rc=0
"$BINRECOVER" archive "${R[@]}" -P"$((PA + 3))" --dir="$WORK/arch" 2> "$WORK/a4.err" || rc=$?
[ $rc = 6 ] && grep -q "does not have the archive's history" "$WORK/a4.err" ||
  { cat "$WORK/a4.err"; fail "an unrelated server: exit $rc"; }
[ "$(archive_sum)" = "$sum" ] || fail "the refused run changed the archive"
rc=0
"$BINRECOVER" archive "${R[@]}" -P"$PC" --dir="$WORK/arch" 2> "$WORK/a5.err" || rc=$?
[ $rc = 6 ] && grep -q "holds a file of that name" "$WORK/a5.err" ||
  { cat "$WORK/a5.err"; fail "a server whose next binlog's name is taken: exit $rc"; }
[ "$(archive_sum)" = "$sum" ] || fail "the refused run changed the archive"
pass "an unrelated server and a clashing file name are refused (exit 6), the archive untouched"

# --- MySQL 9.7: the same failover, by server UUIDs and Previous_gtids -------------------------
"$MYSQL_SERVER" chroot > /dev/null || { pass "MySQL part skipped: no MySQL chroot"; exit 0; }
MA=$((PA + 4)) MB=$((PA + 5)) MC=$((PA + 6))
mstart() { SERVERS_MYSQL+=("$WORK/$1"); "$MYSQL_SERVER" start "$WORK/$1" "${@:2}" > /dev/null; }
mysql_client() { "$MYSQL_SERVER" exec mysql --no-defaults -h127.0.0.1 -P"$1" -uroot "${@:2}"; }
mstart mp "$MA"
mstart mr "$MB" --server-id=2 --log-bin="$WORK/mr/binlog/replica-bin"
sql "$MB" -e "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=$MA,
  SOURCE_USER='root', SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1; START REPLICA"
msync() {
  local want
  want=$(sql "$MA" -N -e "SELECT @@gtid_executed" | tr -d '\n')
  [ "$(sql "$MB" -N -e "SELECT WAIT_FOR_EXECUTED_GTID_SET('$want', 120)")" = 0 ] ||
    fail "MySQL: the replica did not reach $want in 120 s"
}
sql "$MA" -e "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(100), n INT)"
for i in $(seq 1 8); do sql "$MA" -e "INSERT INTO d.t VALUES ($i, 'p$i', $i)"; done
sql "$MA" -e "FLUSH BINARY LOGS"
for i in $(seq 1 8); do sql "$MA" -e "UPDATE d.t SET n = n + 100 WHERE id = $i"; done
msync
sql "$MB" -e "FLUSH BINARY LOGS"
for i in $(seq 9 16); do sql "$MA" -e "INSERT INTO d.t VALUES ($i, 'p$i', $i)"; done
msync
sql "$MB" -e "STOP REPLICA"
sql "$MA" -e "INSERT INTO d.t VALUES (99, 'lost with the primary', 0)"
muuid=$(sql "$MA" -N -e "SELECT @@server_uuid")
mlost="$muuid:$(sql "$MA" -N -e "SELECT @@gtid_executed" | sed 's/.*-//')"
"$BINRECOVER" archive "${R[@]}" -P"$MA" --dir="$WORK/march" 2> "$WORK/m1.err" ||
  { cat "$WORK/m1.err"; fail "MySQL: archive of the primary failed"; }
"$MYSQL_SERVER" stop "$WORK/mp"
sql "$MB" -e "RESET REPLICA ALL"
for i in $(seq 31 34); do sql "$MB" -e "INSERT INTO d.t VALUES ($i, 'r$i', $i); DELETE FROM d.t WHERE id = $((i - 30))"; done
sql "$MB" -e "FLUSH BINARY LOGS; UPDATE d.t SET v = 'after the rotation' WHERE id = 31"
rc=0
"$BINRECOVER" archive "${R[@]}" -P"$MB" --dir="$WORK/march" 2> "$WORK/m2.err" || rc=$?
[ $rc = 0 ] || { cat "$WORK/m2.err"; fail "MySQL: archive after the failover: exit $rc"; }
grep -q "failover: .*server id 1.*server id 2.*replica-bin.000002" "$WORK/m2.err" &&
  grep -q "1 of them .*does not have.*$mlost" "$WORK/m2.err" ||
  { cat "$WORK/m2.err"; fail "MySQL: no failover message naming replica-bin.000002 and the lost $mlost"; }
n=0
for f in "$WORK/mr/binlog"/replica-bin.00000[2-9]; do
  cmp "$f" "$WORK/march/$(basename "$f")" || fail "MySQL: $(basename "$f") differs from the replica's"
  n=$((n + 1))
done
"$BINRECOVER" archive --verify "$WORK/march" > "$WORK/mverify.out" 2>&1 ||
  { cat "$WORK/mverify.out"; fail "MySQL: --verify failed after the failover"; }
mstart mc "$MC"
"$BINRECOVER" --index-file="$WORK/march/mysql-bin.index" | mysql_client "$MC" ||
  fail "MySQL: the archive's SQL does not replay"
a=$(sql "$MB" -N -e "CHECKSUM TABLE d.t" | cut -f2)
b=$(sql "$MC" -N -e "CHECKSUM TABLE d.t" | cut -f2)
[ "$a" = "$b" ] || fail "MySQL: d.t replayed from the archive: checksum $b, the replica's $a"
[ "$(sql "$MC" -N -e "SELECT GTID_SUBTRACT(@@gtid_executed, '$mlost')" | tr -d '\n')" = \
  "$(sql "$MB" -N -e "SELECT @@gtid_executed" | tr -d '\n')" ] ||
  fail "MySQL: the replayed GTIDs are not the replica's (plus the lost one)"
pass "MySQL 9.7 failover: cut at the replica's binlog, the lost $mlost named, $n replica files byte-identical, --verify passes, the archive replays to the replica's d.t"
