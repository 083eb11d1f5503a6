#!/usr/bin/env bash
# A failover on an ordinary day, as it happens (archive folders; $2: mariadb, MariaDB 10.11 with
# a GTID replica, or mysql, MySQL 9.7 with an auto-position replica): a primary with a replica, writes from three sessions (and FLUSH BINARY LOGS among them), `archive
# --stop-never` SIGKILLed at random moments and started again, the DBA's dump taken on the
# primary while it is written to; then the primary SIGKILLed mid-write (its last file cut, no
# Rotate), the archiver left retrying against the dead server and SIGKILLed, the replica
# promoted once it applied what it received, written to from two sessions, archiving started
# again against it (SIGKILLed at random moments again, the first round included, which decides
# the failover), and at last `DROP DATABASE shop`. From the dump and only the archive:
#  - `archive --verify` passes across the failover;
#  - plan finds the DROP, its headline command replayed over the dump and `drill` both give shop
#    as it was just before the DROP (CHECKSUM TABLE and every row);
#  - `--stop-datetime` at a moment after the failover gives shop as it was then;
#  - what the primary wrote and the replica never got is in diverged-* or was never archived,
#    never replayed;
#  - `binrecover backup` into the archive folder beside the dump, and `binrecover restore
#    --before-incident` / `--to-time` from that archive alone give the same states.
source "$(dirname "$0")/lib.sh"
PA=${1:-23711}
FLAVOR=${2:-mariadb}
PB=$((PA + 1))
PC=$((PA + 2))
R=(--no-defaults -h127.0.0.1 -uroot)
export TZ=UTC
BG=()
MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
cleanup_day() {
  for p in "${BG[@]}"; do kill -9 "$p" 2> /dev/null || true; done
  pkill -9 -f "binrecover archive.*$WORK" 2> /dev/null || true
  cleanup
}
trap cleanup_day EXIT

# The flavour's servers and statements.
if [ "$FLAVOR" = mysql ]; then
  "$MYSQL_SERVER" chroot > /dev/null || fail "cannot build the MySQL chroot (see above)"
  start_db() { SERVERS_MYSQL+=("$WORK/$1"); "$MYSQL_SERVER" start "$WORK/$1" "${@:2}" > /dev/null; }
  client() { "$MYSQL_SERVER" exec mysql --no-defaults -h127.0.0.1 -P"$1" -uroot "${@:2}"; }
  start_db p "$PA"
  start_db r "$PB" --server-id=2 --log-bin="$WORK/r/binlog/replica-bin"
  replicate="CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=$PA,
    SOURCE_USER='root', SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1; START REPLICA"
  dump() {
    "$MYSQL_SERVER" exec mysqldump --no-defaults -h127.0.0.1 -P"$PA" -uroot --source-data=2 \
      --single-transaction -B shop
  }
  relay_state="Replica_SQL_Running_State: Replica has read all relay log"
  binlog_status="SHOW BINARY LOG STATUS"
  promote="STOP REPLICA; RESET REPLICA ALL"
  fresh_restore="DROP DATABASE IF EXISTS shop; RESET BINARY LOGS AND GTIDS"
  drill_target=(-h127.0.0.1 -P"$PC" -uroot)
else
  start_db() { start_server "$@"; }
  client() { sql "$@"; }
  start_db p "$PA" --gtid-strict-mode=ON
  start_db r "$PB" --server-id=2 --log-bin="$WORK/r/binlog/replica-bin" --log-slave-updates \
    --gtid-strict-mode=ON
  replicate="CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$PA, MASTER_USER='root',
    MASTER_USE_GTID=slave_pos; START SLAVE"
  dump() {
    mariadb-dump --no-defaults -h127.0.0.1 -P"$PA" -uroot --master-data=2 --single-transaction \
      -B shop
  }
  relay_state="Slave_SQL_Running_State: Slave has read all relay log"
  binlog_status="SHOW MASTER STATUS"
  promote="STOP SLAVE; RESET SLAVE ALL"
  fresh_restore="DROP DATABASE IF EXISTS shop"
  drill_target=()  # a throwaway server of the drill's own
fi
sql "$PA" <<'SQL'
CREATE DATABASE shop;
CREATE TABLE shop.orders (id INT AUTO_INCREMENT PRIMARY KEY, who VARCHAR(20), amount DECIMAL(10,2),
  note VARCHAR(200));
CREATE TABLE shop.stock (item VARCHAR(20) PRIMARY KEY, n INT NOT NULL);
INSERT INTO shop.stock VALUES ('apple', 1000), ('pear', 1000), ('plum', 1000);
SQL
sql "$PB" -e "$replicate"

# writer PORT NAME: a session's day of orders, one transaction each, until WORK/stop-NAME exists
# or its server is gone. Session 1 flushes the binary log every 100 orders.
writer() {
  local port=$1 name=$2 i=0
  while [ ! -e "$WORK/stop-$name" ]; do
    i=$((i + 1))
    {
      echo "BEGIN;"
      echo "INSERT INTO shop.orders (who, amount, note) VALUES ('$name', $((i % 97)).$((i % 100)), REPEAT('x', $((i % 150))));"
      echo "UPDATE shop.stock SET n = n - 1 WHERE item = ELT(1 + $i % 3, 'apple', 'pear', 'plum');"
      echo "COMMIT;"
      [ "$name" = w1 ] && [ $((i % 100)) = 0 ] && echo "FLUSH BINARY LOGS;"
      # (paced, about 50 orders a second: a day of orders, not a load test; each recovery
      # below replays all of them)
      sleep 0.02
    }
  done | sql "$port" --unbuffered 2> /dev/null
}
# writers PORT NAMES...: starts them in the background.
writers() {
  local port=$1 n
  shift
  for n in "$@"; do
    rm -f "$WORK/stop-$n"
    writer "$port" "$n" &
    WRITER_PIDS+=($!)
    BG+=($!)
  done
}
# stop_writers: every writer stops after its current order, and is waited for.
stop_writers() {
  local p
  touch "$WORK/stop-w1" "$WORK/stop-w2" "$WORK/stop-w3" "$WORK/stop-n1" "$WORK/stop-n2"
  for p in "${WRITER_PIDS[@]}"; do wait "$p" 2> /dev/null || true; done
  WRITER_PIDS=()
}
orders() { sql "$1" -N -e "SELECT COUNT(*) FROM shop.orders" 2> /dev/null || echo 0; }
more_orders() { [ "$(orders "$1")" -ge "$2" ]; }

# archive_rounds PORT N: N runs of `archive --stop-never` into the archive, each SIGKILLed at a
# random moment (a kill before it did anything is one too).
archive_rounds() {
  local port=$1 n=$2 k ap
  for k in $(seq 1 "$n"); do
    "$BINRECOVER" archive "${R[@]}" -P"$port" --dir="$WORK/arch" --stop-never --fsync-interval=0 \
      --heartbeat-period=1 2>> "$WORK/archive.err" &
    ap=$!
    sleep "0.$((RANDOM % 9 + 1))"
    kill -9 "$ap" 2> /dev/null || true
    wait "$ap" 2> /dev/null || true
  done
}

WRITER_PIDS=()
# A second archive, WORK/near, kept by one follower from the start: it stays near the primary's
# end (the first lags behind, its runs killed and fsyncing every event), so between the two the
# dump's coordinates are in an archived file or not, and the archive may hold transactions the
# replica never got.
"$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/near" --stop-never --heartbeat-period=1 \
  --status-file="$WORK/near.json" 2>> "$WORK/near.err" &
near_ap=$!
BG+=($near_ap)
writers "$PA" w1 w2 w3
wait_for 300 "the writers on the primary did not get to 150 orders" more_orders "$PA" 150
archive_rounds "$PA" 4
# The DBA's dump, taken on the primary while it is written to.
dump > "$WORK/dump.sql"
grep -Eq "CHANGE (MASTER|REPLICATION SOURCE) TO" "$WORK/dump.sql" || fail "the dump has no binlog coordinates"
# The same moment, as a base backup in the archive (the archivers run beside it).
tool=()
if [ "$FLAVOR" = mysql ]; then
  printf '#!/bin/sh\nexec bash %s exec mysqldump "$@"\n' "$MYSQL_SERVER" > "$WORK/mysqldump"
  chmod 700 "$WORK/mysqldump"
  tool=(--dump-tool="$WORK/mysqldump")
fi
"$BINRECOVER" backup "${R[@]}" -P"$PA" "${tool[@]}" --dir="$WORK/arch" --database=shop \
  > "$WORK/backup.out" 2>&1 || { cat "$WORK/backup.out"; fail "binrecover backup into the archive failed"; }
archive_rounds "$PA" 4
# The last archiver of the primary: it follows until the primary dies, and then retries.
"$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/arch" --stop-never --fsync-interval=0 \
  --heartbeat-period=1 2>> "$WORK/archive.err" &
last_ap=$!
BG+=($last_ap)
base=$(orders "$PA")
wait_for 300 "the writers on the primary did not get 150 orders further" more_orders "$PA" $((base + 150))
# (near: at most one file behind the primary's current binlog, which rotates every few seconds)
near_current() {
  local a b
  a=$(sed -n 's/.*"file": *"mysql-bin\.0*\([0-9][0-9]*\)".*/\1/p' "$WORK/near.json" 2> /dev/null)
  b=$(sql "$PA" -N -e "$binlog_status" | cut -f1 | sed 's/^mysql-bin\.0*//')
  [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -le 1 ]
}
wait_for 300 "the follower of WORK/near did not get near the primary's current binlog" near_current
# The primary dies mid-write: SIGKILL, its writers still sending.
kill -9 "$(cat "$WORK/p/mysqld.pid")"
stop_writers
# The replica applies what it received; then it is promoted.
relay_applied() {
  sql "$PB" -e "SHOW REPLICA STATUS\G" | grep -q "$relay_state"
}
wait_for 300 "the replica did not apply its relay log" relay_applied
kill -9 "$last_ap" "$near_ap" 2> /dev/null || true
wait "$last_ap" "$near_ap" 2> /dev/null || true
sql "$PB" -e "$promote"

# The new primary: two sessions write, the archive follows it (killed at random moments).
writers "$PB" n1 n2
base=$(orders "$PB")
archive_rounds "$PB" 3
wait_for 300 "the writers on the new primary did not get to 100 more orders" more_orders "$PB" $((base + 100))
archive_rounds "$PB" 2
# A moment in the afternoon: the writers pause, shop as it is then, and the clock passes into
# the next second before they go on (every event before it is then of an earlier second).
stop_writers
shop_expected "$PB"
mv "$WORK/expected.tsv" "$WORK/expected-mid.tsv"
sql "$PB" -N -e "SELECT * FROM shop.orders ORDER BY id" > "$WORK/orders-mid.tsv"
t0=$(date +%s)
clock_past() { [ "$(date +%s)" -gt "$1" ]; }
wait_for 10 "the clock did not go on" clock_past "$t0"
mid=$(date -d "@$((t0 + 1))" '+%Y-%m-%d %H:%M:%S')
writers "$PB" n1 n2
base=$(orders "$PB")
archive_rounds "$PB" 3
wait_for 300 "the writers on the new primary did not get to 100 more orders" more_orders "$PB" $((base + 100))
stop_writers
# The accident.
shop_expected "$PB"
sql "$PB" -N -e "SELECT * FROM shop.orders ORDER BY id" > "$WORK/orders-end.tsv"
sql "$PB" -e "DROP DATABASE shop"
for a in arch near; do
  rc=0
  "$BINRECOVER" archive "${R[@]}" -P"$PB" --dir="$WORK/$a" 2>> "$WORK/$a-last.err" || rc=$?
  [ $rc = 0 ] || { cat "$WORK/$a-last.err"; fail "the last archive run on the new primary into $a: exit $rc"; }
  cat "$WORK/$a-last.err" >> "$WORK/archive.err"
  grep -q "failover: " "$WORK/$a-last.err" "$WORK/archive.err" ||
    { cat "$WORK/archive.err"; fail "no archive run into $a saw the failover"; }
  "$BINRECOVER" archive --verify "$WORK/$a" > "$WORK/$a-verify.out" 2>&1 ||
    { cat "$WORK/$a-verify.out"; fail "--verify failed on $a across the failover"; }
done
pass "archivers SIGKILLed before and after a failover (primary SIGKILLed mid-write): --verify passes on both archives ($(grep -ho '[0-9]* events' "$WORK"/*-verify.out | tr '\n' ' '))"

# same_shop PORT EXPECTED.tsv ORDERS.tsv WHAT: shop on PORT is as expected (CHECKSUM TABLE and
# every row of orders).
same_shop() {
  local port=$1 t rows sum
  while IFS=$'\t' read -r t rows sum; do
    [ "$(sql "$port" -N -e "SELECT COUNT(*) FROM $t")" = "$rows" ] &&
      [ "$(sql "$port" -N -e "CHECKSUM TABLE $t" | cut -f2)" = "$sum" ] ||
      fail "$4: $t differs ($(sql "$port" -N -e "SELECT COUNT(*) FROM $t") rows, $rows expected)"
  done < "$2"
  sql "$port" -N -e "SELECT * FROM shop.orders ORDER BY id" | cmp -s - "$3" ||
    fail "$4: the rows of shop.orders differ"
}
# headline PLAN.out: the command of the plan's first recovery, without its "| mysql".
headline() { grep -m1 "^ *binrecover .* | mysql$" "$1" | sed 's/^ *//; s/ | mysql$//'; }
# replay_from_dump CMD WHAT: shop dropped on the restore server, the dump loaded, CMD replayed.
replay_from_dump() {
  sql "$PC" -e "$fresh_restore"
  client "$PC" < "$WORK/dump.sql"
  (cd "$WORK" && eval "\"\$BINRECOVER\" ${1#binrecover }") 2> "$WORK/replay.err" | client "$PC" ||
    { cat "$WORK/replay.err"; fail "$2: does not replay: $1"; }
}
start_db c "$PC"

for a in arch near; do
  # plan finds the DROP; its headline command over the dump gives shop just before it.
  "$BINRECOVER" plan --dump="$WORK/dump.sql" --index-file="$WORK/$a/mysql-bin.index" \
    > "$WORK/plan.out" 2> "$WORK/plan.err" || { cat "$WORK/plan.out" "$WORK/plan.err"; fail "$a: plan failed"; }
  grep -q "DROP DATABASE shop" "$WORK/plan.out" || { cat "$WORK/plan.out"; fail "$a: plan did not find the DROP"; }
  cmd=$(headline "$WORK/plan.out")
  [ -n "$cmd" ] || { cat "$WORK/plan.out"; fail "$a: plan printed no command"; }
  replay_from_dump "$cmd" "$a: plan's command"
  same_shop "$PC" "$WORK/expected.tsv" "$WORK/orders-end.tsv" "$a: plan's command ($cmd)"
  pass "$a: plan's headline command over the old primary's dump gives shop just before the DROP ($(cut -f2 "$WORK/expected.tsv" | head -1) orders; $(sed -n 's/^Start: //p' "$WORK/plan.out" | cut -c1-90))"

  rc=0
  [ "$FLAVOR" = mysql ] && sql "$PC" -e "$fresh_restore"
  "$BINRECOVER" drill "${drill_target[@]}" --dump="$WORK/dump.sql" --index-file="$WORK/$a/mysql-bin.index" \
    --database=shop --expect="$WORK/expected.tsv" > "$WORK/drill.out" 2>&1 || rc=$?
  [ $rc = 0 ] && grep -q "^PASS" "$WORK/drill.out" || { cat "$WORK/drill.out"; fail "$a: the drill failed (exit $rc)"; }
  pass "$a: drill over the failover archive: PASS"

  # --stop-datetime after the failover: plan's command to that moment gives shop as it was then.
  "$BINRECOVER" plan --dump="$WORK/dump.sql" --index-file="$WORK/$a/mysql-bin.index" \
    --stop-datetime="$mid" > "$WORK/plan-mid.out" 2> "$WORK/plan-mid.err" ||
    { cat "$WORK/plan-mid.out" "$WORK/plan-mid.err"; fail "$a: plan --stop-datetime='$mid' failed"; }
  cmd=$(headline "$WORK/plan-mid.out")
  case $cmd in *"--stop-datetime=$mid"*) ;; *) cat "$WORK/plan-mid.out"; fail "$a: plan's command does not stop at $mid" ;; esac
  replay_from_dump "$cmd" "$a: plan's command to '$mid'"
  same_shop "$PC" "$WORK/expected-mid.tsv" "$WORK/orders-mid.tsv" "$a: $cmd"
  pass "$a: plan --stop-datetime='$mid' (after the failover) over the old primary's dump: shop as it was then"
done

# The base backup in the archive: restore to just before the DROP, and to the moment after the
# failover, from the archive alone.
for point in --before-incident --to-time="$mid"; do
  sql "$PC" -e "$fresh_restore; DROP DATABASE IF EXISTS binrecover"
  rc=0
  "$BINRECOVER" restore "${R[@]}" -P"$PC" --from="$WORK/arch" "$point" --database=shop \
    > "$WORK/restore.out" 2>&1 || rc=$?
  [ $rc = 0 ] || { cat "$WORK/restore.out"; fail "restore $point from the failover archive: exit $rc"; }
  if [ "$point" = --before-incident ]; then
    same_shop "$PC" "$WORK/expected.tsv" "$WORK/orders-end.tsv" "restore $point"
  else
    same_shop "$PC" "$WORK/expected-mid.tsv" "$WORK/orders-mid.tsv" "restore $point"
  fi
done
pass "backup into the archive on the old primary; restore --before-incident and --to-time='$mid' (after the failover) from the archive alone: shop as it was then"
