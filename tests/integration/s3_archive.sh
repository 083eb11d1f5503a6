#!/usr/bin/env bash
# binrecover archive --to s3:// and every reader on s3:// URLs, against a real S3 server (Ceph's
# RADOS Gateway from Debian's packages, scripts/rgw_server.sh) and real MariaDB 10.11 and MySQL
# 9.7 sources:
#  - each file stored byte for byte (checked with s3cmd, not with binrecover), the file being
#    written as pieces up to its last complete event; --verify passes; events and SQL read from
#    the bucket equal those of the server's files;
#  - writes running, `archive --to s3:// --stop-never` SIGKILLed at 20+ random moments and
#    started again, the gateway restarted once under it: every object equals the server's
#    file, the manifest lists exactly the server's files with their sizes, --verify passes;
#  - a damaged object is found by --verify (exit 4, object and offset);
#  - the seed recovery with only the dump and the bucket: plan and drill read s3:// and rebuild
#    the dropped database equal to its state before the DROP;
#  - three sources archived into one bucket at once: --status lists the three, with the last
#    event time the servers' binlogs give and the lag behind now;
#  - --start-position on an object gives the file's SQL from there;
#  - a failover: the old and the new primary's folders read as one history by GTID.
source "$(dirname "$0")/lib.sh"
P=${1:-24401}
RGW=$ROOT/scripts/rgw_server.sh
MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
PA=$((P + 10))
PB=$((P + 11))
PM=$((P + 12))
writers=()
cleanup_all() {
  for w in "${writers[@]}"; do kill "$w" 2> /dev/null || true; done
  pkill -9 -f "binrecover archive.*s3://fleet" 2> /dev/null || true
  stop_hostile
  "$RGW" discard "$WORK/rgw" 2> /dev/null || true
  cleanup
}
trap cleanup_all EXIT
R=(--no-defaults -h127.0.0.1 -uroot)

"$RGW" start "$WORK/rgw" "$P" || fail "the S3 gateway did not start"
# shellcheck disable=SC1091
source "$WORK/rgw/s3.env"
cp "$WORK/rgw/s3cmd.cfg" "$WORK/s3cfg"
s3() { s3cmd -q -c "$WORK/s3cfg" "$@"; }
s3 mb s3://fleet

# OBJECT KEY -> stdout, by s3cmd (an independent reader).
obj() { s3cmd -c "$WORK/s3cfg" get "s3://fleet/$1" - 2> /dev/null; }
manifest_py() {  # FOLDER PYTHON-EXPR over the manifest `m`
  obj "$1/binrecover-manifest.json" | python3 -c "import json,sys; m=json.load(sys.stdin); $2"
}
# The folder's manifest read once (s3cmd) into $WORK/manifest.json, and a PYTHON-EXPR over it.
manifest_get() { obj "$1/binrecover-manifest.json" > "$WORK/manifest.json"; }
manifest_here() {
  python3 -c "import json,os,sys; m=json.load(open(os.environ['MF'])); $1" "${@:2}"
}
export MF=$WORK/manifest.json
# The archived bytes of FILE as the manifest read last names them: its object when complete,
# else its pieces in order.
archived() {
  local folder=$1 name=$2 complete
  complete=$(manifest_here "print([f['complete'] for f in m['files'] if f['name']=='$name'][0])")
  if [ "$complete" = True ]; then
    obj "$folder/$name"
  else
    manifest_here "print('\n'.join(p['key'] for f in m['files'] if f['name']=='$name' for p in f['pieces']))" |
      while read -r k; do obj "$k"; done
  fi
}
# Every server file equals its archived bytes (the last one up to what was archived of it when
# PREFIX_ONLY_LAST=1); prints how many.
same_as_server() {
  local label=$1 binlogs=$2 folder=$3 f n=0 name size
  manifest_get "$folder"
  for f in "$binlogs"/mysql-bin.[0-9]*; do
    name=$(basename "$f")
    archived "$folder" "$name" > "$WORK/got" || fail "$label: $name is not in the bucket"
    size=$(stat -c %s "$WORK/got")
    if ! cmp -s "$WORK/got" "$f"; then
      cmp "$WORK/got" "$f" >&2 || true
      fail "$label: $name in the bucket ($size bytes) differs from the server's ($(stat -c %s "$f"))"
    fi
    n=$((n + 1))
  done
  echo "$n"
}
# Runs archive (not following) until the bucket has each server file up to its end.
catch_up() {
  local port=$1 binlogs=$2 folder=$3
  for _ in $(seq 1 10); do
    "$BINRECOVER" archive "${R[@]}" -P"$port" --to s3://fleet/db/ 2> "$WORK/last.err" ||
      { cat "$WORK/last.err"; fail "the last archive run failed"; }
    manifest_get "$folder"
    [ "$(manifest_here "size = {f['name']: f['size'] for f in m['files']}
print(all(size.get(os.path.basename(p), 0) == os.path.getsize(p) for p in sys.argv[1:]))" \
      "$binlogs"/mysql-bin.[0-9]*)" = True ] && return 0
    sleep 0.5
  done
  fail "the bucket never caught up with the server's files"
}
settle() {  # waits until a server's binlog folder stops changing
  local prev= now
  for _ in $(seq 1 50); do
    now=$(ls -l "$1" | md5sum)
    [ "$now" = "$prev" ] && return 0
    prev=$now
    sleep 0.2
  done
}

start_server a "$PA" --server-id=1
sql "$PA" -e "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, v LONGTEXT);
  INSERT INTO d.t (v) VALUES ('a'), ('b'); FLUSH BINARY LOGS; INSERT INTO d.t (v) VALUES (REPEAT('c', 150))"
"$BINRECOVER" archive "${R[@]}" -P"$PA" --to s3://fleet/db/ 2> "$WORK/a.err" ||
  { cat "$WORK/a.err"; fail "archive --to s3:// failed"; }
A=db/server-1
n=$(same_as_server "first copy" "$WORK/a/binlog" "$A")
[ "$(obj "$A/mysql-bin.index")" = "$(sed 's|.*/|./|' "$WORK/a/binlog/mysql-bin.index")" ] ||
  fail "the bucket's index does not list the server's files"
"$BINRECOVER" archive --verify "s3://fleet/$A/" > /dev/null || fail "--verify failed on a fresh archive"
"$BINRECOVER" events "s3://fleet/$A/mysql-bin.index" | sed 1d > "$WORK/ev.s3"
"$BINRECOVER" events --index-file="$WORK/a/binlog/mysql-bin.index" | sed 1d > "$WORK/ev.local"
cmp -s "$WORK/ev.s3" "$WORK/ev.local" || { diff "$WORK/ev.local" "$WORK/ev.s3" | head; fail "events from the bucket differ"; }
cmp -s <("$BINRECOVER" "s3://fleet/$A/mysql-bin.index") \
  <("$BINRECOVER" --index-file="$WORK/a/binlog/mysql-bin.index" | sed "s|$WORK/a/binlog/|s3://fleet/$A/|g") ||
  fail "SQL from the bucket differs from the SQL of the server's files"
pass "archive --to s3://: $n files byte for byte (s3cmd), index listed, --verify passes, events and SQL from the bucket equal the files'"

# A file stored in parts while it grows, then composed into its object at the rotation: made
# certain here, each step awaited (the kill rounds below do it too, but only as their timing
# falls). An archiver follows; 7 MB of rows, more than a part (--part-size=5): a sealed part,
# and the bucket has the file to its end; the rotation, and the file is complete, composed of
# its parts.
stored_to_end() {  # FOLDER FILE: the manifest has FILE complete, or its pieces up to its size
  manifest_get "$1" || return 1
  [ "$(manifest_here "f = [f for f in m['files'] if f['name'] == os.path.basename(sys.argv[1])]
print(bool(f) and (f[0]['complete'] or f[0]['size'] == os.path.getsize(sys.argv[1])))" "$2")" = True ]
}
"$BINRECOVER" archive "${R[@]}" -P"$PA" --to s3://fleet/db/ --stop-never --upload-interval=1 \
  --part-size=5 --heartbeat-period=1 2> "$WORK/pieces.err" &
ap=$!
cur=$WORK/a/binlog/$(sql "$PA" -N -e "SHOW MASTER STATUS" | cut -f1)
for v in d e f g h i j; do sql "$PA" -e "INSERT INTO d.t (v) VALUES (REPEAT('$v', 1000000))"; done
WAIT_FOR_SHOW=$WORK/pieces.err
wait_for 120 "the following archiver did not store $(basename "$cur") to its end" stored_to_end "$A" "$cur"
sql "$PA" -e "FLUSH BINARY LOGS"
complete() { manifest_get "$A" && [ "$(manifest_here "print([f['complete'] for f in m['files'] if f['name'] == '$(basename "$cur")'][0])")" = True ]; }
wait_for 120 "$(basename "$cur") was not completed after the rotation" complete
unset WAIT_FOR_SHOW
kill "$ap" 2> /dev/null || true
wait "$ap" 2> /dev/null || true
parts=$(manifest_here "print([len(f['pieces']) for f in m['files'] if f['name'] == '$(basename "$cur")'][0])")
[ "$parts" -ge 2 ] || fail "$(basename "$cur") ($(stat -c %s "$cur") bytes) was stored in $parts part(s), not 2 or more"
# (the file the rotation began may have been stored only in part when the archiver was
# stopped, and MariaDB writes its Binlog_checkpoint a moment after FLUSH: both awaited)
wait_checkpoint "$WORK/a/binlog"
catch_up "$PA" "$WORK/a/binlog" "$A"
n=$(same_as_server "after the parts" "$WORK/a/binlog" "$A")
pass "a file of $(stat -c %s "$cur") bytes stored in $parts parts while it grew, then composed into its object at the rotation, equal to the server's"

# Writes running (rows up to 100 kB: files of several pieces, sealed ones composed by copies
# in the store), SIGKILL at random moments, the gateway restarted under the archive once.
# writer_loop PORT: rows written by one client session of its own (about 30 a second, a
# rotation every 150) until stop_writers; a client run a row cost ~25 ms of CPU each.
writer_loop() {
  rm -f "$WORK/writer.fifo"
  mkfifo "$WORK/writer.fifo"
  sql "$1" --force < "$WORK/writer.fifo" > /dev/null 2>&1 &
  writers+=($!)
  ( set +e; i=0; while :; do
      echo "INSERT INTO d.t (v) VALUES (REPEAT(CHAR(65 + $i % 26), 1 + ($i * 7919) % 100000));"
      i=$((i + 1)); [ $((i % 150)) = 0 ] && echo "FLUSH BINARY LOGS;"
      sleep 0.03
    done ) > "$WORK/writer.fifo" &
  writers+=($!)
}
# (the rows' generator ends, its session then reads the end of its input and ends too)
stop_writers() {
  kill "${writers[1]}" 2> /dev/null || true
  wait "${writers[1]}" 2> /dev/null || true
  wait "${writers[0]}" 2> /dev/null || true
  writers=()
}
kill_rounds() {  # PORT LABEL ROUNDS: runs, each killed with SIGKILL after a random moment
  local port=$1 label=$2 rounds=$3 kills=0 round ap
  for round in $(seq 1 "$rounds"); do
    "$BINRECOVER" archive "${R[@]}" -P"$port" --to s3://fleet/db/ --stop-never --upload-interval=1 \
      --part-size=5 --heartbeat-period=1 2>> "$WORK/follow-$label.err" &
    ap=$!
    sleep "0.$((RANDOM % 9 + 1))"
    if [ "$round" = 11 ]; then  # the gateway goes away for a while under the archive
      "$RGW" stop-rgw "$WORK/rgw"
      sleep 2
      "$RGW" restart-rgw "$WORK/rgw" || fail "the gateway did not restart"
      sleep 1.5
      kill -0 "$ap" 2> /dev/null || { cat "$WORK/follow-$label.err"; fail "$label: archive died when the gateway restarted"; }
    fi
    kill -9 "$ap" 2> /dev/null && kills=$((kills + 1))
    wait "$ap" 2> /dev/null || true
  done
  [ "$kills" -ge $((rounds - 2)) ] || fail "$label: only $kills kills in $rounds runs"
  echo "$kills"
}
writer_loop "$PA"
kills=$(kill_rounds "$PA" MariaDB 22)
stop_writers
sql "$PA" -e "FLUSH BINARY LOGS"
settle "$WORK/a/binlog"
wait_checkpoint "$WORK/a/binlog"
catch_up "$PA" "$WORK/a/binlog" "$A"
n=$(same_as_server "MariaDB after the kills" "$WORK/a/binlog" "$A")
names=$(manifest_py "$A" "print(' '.join(f['name'] for f in m['files']))")
[ "$names" = "$(cd "$WORK/a/binlog" && echo mysql-bin.[0-9]*)" ] || fail "the manifest lists $names"
sealed=$(manifest_py "$A" "print(sum(len(f['pieces']) > 1 for f in m['files'] if f['complete']))")
[ "$sealed" -ge 1 ] || fail "the manifest names no file composed from several pieces"
"$BINRECOVER" archive --verify "s3://fleet/$A/" > "$WORK/verify.out" || fail "--verify failed after the kills"
pass "MariaDB: archive --to s3:// killed $kills times (SIGKILL), the gateway restarted under it: $n files byte for byte ($sealed composed of several parts), manifest exact, $(grep -o '[0-9]* events' "$WORK/verify.out") verified"

# Damage in the bucket is found, naming the object and the offset.
# (a byte inside the first row event of over 1,000 bytes of the second such file: its CRC32
# fails, as well as the object's SHA-256)
second=$(manifest_py "$A" "print([f['name'] for f in m['files'] if f['complete'] and f['size'] > 1000][1])")
obj "$A/$second" > "$WORK/orig"
cp "$WORK/orig" "$WORK/bad"
at=$("$BINRECOVER" events --format=tsv "$WORK/orig" |
  awk -F'\t' '$3 ~ /^Write_rows/ && $5 - $2 > 1000 { print $2 + 500; exit }')
[ -n "$at" ] || fail "$second has no row event of over 1,000 bytes"
b=$(od -An -tu1 -j"$at" -N1 "$WORK/bad" | tr -d ' ')
printf "\\x$(printf %02x $((b ^ 255)))" | dd of="$WORK/bad" bs=1 seek="$at" conv=notrunc 2> /dev/null
s3 put "$WORK/bad" "s3://fleet/$A/$second"
rc=0
"$BINRECOVER" archive --verify "s3://fleet/$A/" > /dev/null 2> "$WORK/bad.err" || rc=$?
[ $rc = 4 ] && grep -q "s3://fleet/$A/$second: at 0: the bytes 0 to" "$WORK/bad.err" &&
  grep -q "s3://fleet/$A/$second: at [0-9]*: .*checksum" "$WORK/bad.err" ||
  { cat "$WORK/bad.err"; fail "a flipped byte in the bucket: --verify gave exit $rc"; }
s3 put "$WORK/orig" "s3://fleet/$A/$second"
pass "archive --verify s3:// finds a flipped byte (exit 4: the object, the range's SHA-256, the event's checksum)"

# --start-position on an object (a ranged GET from there: recovery/storage/s3_archive.cc).
big=$(manifest_py "$A" "print(max((f for f in m['files'] if f['complete']), key=lambda f: f['size'])['name'])")
last_pos=$("$BINRECOVER" events "s3://fleet/$A/$big" --format=tsv | awk -F'\t' 'END { print $2 }')
"$BINRECOVER" events --start-position="$last_pos" "s3://fleet/$A/$big" > "$WORK/tail.out" ||
  fail "events --start-position on s3:// failed"
[ "$(sed 1d "$WORK/tail.out" | wc -l)" = 1 ] || fail "--start-position on s3:// did not start at the last event"
cmp -s <("$BINRECOVER" --start-position="$last_pos" "s3://fleet/$A/$big") \
  <("$BINRECOVER" --start-position="$last_pos" "$WORK/a/binlog/$big" | sed "s|$WORK/a/binlog/|s3://fleet/$A/|g") ||
  fail "SQL from a position of an object differs from the file's"
pass "--start-position on an object: from there, the same SQL as the file's"

# The seed recovery with only the dump and the bucket: the database dropped at 18:00.
sql "$PA" -e "CREATE DATABASE shop"
shop_scenario "$PA"
sql "$PA" -e "DROP DATABASE shop"
settle "$WORK/a/binlog"
wait_checkpoint "$WORK/a/binlog"
catch_up "$PA" "$WORK/a/binlog" "$A"
"$BINRECOVER" plan --dump="$WORK/dump.sql" "s3://fleet/$A/mysql-bin.index" > "$WORK/plan.out" 2>&1 ||
  { cat "$WORK/plan.out"; fail "plan on s3:// failed"; }
grep -q "DROP DATABASE shop" "$WORK/plan.out" || { cat "$WORK/plan.out"; fail "plan did not find the DROP"; }
rc=0
"$BINRECOVER" drill --dump="$WORK/dump.sql" --index-file="s3://fleet/$A/mysql-bin.index" \
  --database=shop --expect="$WORK/expected.tsv" > "$WORK/drill.out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$WORK/drill.out"; fail "the drill from the bucket failed (exit $rc)"; }
grep -q "DROP DATABASE shop" "$WORK/drill.out" || fail "the drill did not stop before the DROP"
pass "seed recovery from the bucket: plan finds the DROP, drill rebuilds shop equal to before it ($(grep -c . "$WORK/expected.tsv") tables) with only the dump and s3://"

# MySQL 9.7, writes running, the same kills (fewer: the mechanism is the one above; what is
# MySQL's here is its GTIDs and its compressed transactions).
SERVERS_MYSQL+=("$WORK/m")
"$MYSQL_SERVER" start "$WORK/m" "$PM" > /dev/null || fail "MySQL did not start"
sql "$PM" -e "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, v LONGTEXT);
  INSERT INTO d.t (v) VALUES ('a'); FLUSH BINARY LOGS"
M=db/$(sql "$PM" -N -e "SELECT @@server_uuid")
writer_loop "$PM"
kills=$(kill_rounds "$PM" MySQL 12)
stop_writers
sql "$PM" -e "FLUSH BINARY LOGS"
settle "$WORK/m/binlog"
catch_up "$PM" "$WORK/m/binlog" "$M"
n=$(same_as_server "MySQL after the kills" "$WORK/m/binlog" "$M")
"$BINRECOVER" archive --verify "s3://fleet/$M/" > "$WORK/verify.out" || fail "--verify failed on MySQL's archive"
gtid=$(manifest_py "$M" "print(m['files'][-2]['last_gtid'])")
[[ "$gtid" == *:* ]] || fail "the manifest has no GTID range for MySQL's files ('$gtid')"
pass "MySQL 9.7: archive --to s3:// killed $kills times: $n files byte for byte, --verify passes, GTID ranges in the manifest"

# Three sources at once into one bucket; --status lists each with its last event and lag.
start_server b "$PB" --server-id=2
sql "$PB" -e "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, v TEXT)"
for port in "$PA" "$PB" "$PM"; do sql "$port" -e "INSERT INTO d.t (v) VALUES ('fleet')"; done
pids=()
for port in "$PA" "$PB" "$PM"; do
  "$BINRECOVER" archive "${R[@]}" -P"$port" --to s3://fleet/db/ --stop-never --upload-interval=1 \
    --heartbeat-period=1 2>> "$WORK/fleet.err" &
  pids+=($!)
done
sleep 3
for port in "$PA" "$PB" "$PM"; do sql "$port" -e "INSERT INTO d.t (v) VALUES ('last')"; done
sleep 3
"$BINRECOVER" archive --status --format=json s3://fleet/ > "$WORK/status.json" || fail "--status failed"
"$BINRECOVER" archive --status s3://fleet/ > "$WORK/status.txt" || fail "--status (table) failed"
for p in "${pids[@]}"; do kill "$p"; wait "$p" 2> /dev/null || true; done
now=$(date +%s)
check_status() {  # FOLDER BINLOG_DIR
  local folder=$1 dir=$2 last t
  last=$(ls "$dir"/mysql-bin.[0-9]* | tail -1)
  t=$(python3 - "$last" << 'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
pos, ts = 4, 0
while pos + 19 <= len(b):
    t, size = struct.unpack_from("<I", b, pos)[0], struct.unpack_from("<I", b, pos + 9)[0]
    if size < 19: break
    if b[pos + 4] not in (27,):  # (not a heartbeat)
        ts = t
    pos += size
print(ts)
PY
)
  python3 - "$WORK/status.json" "s3://fleet/$folder/" "$t" "$now" "$(basename "$last")" << 'PY' || fail "--status for $folder: $(cat "$WORK/status.json")"
import json, sys
rows, folder, t, now, last = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
r = [r for r in rows if r["folder"] == folder]
assert len(r) == 1, "not listed"
r = r[0]
assert r["last_file"] == last, r
if t:
    assert r["last_event_time"] == t, (r, t)
assert abs(r["lag_seconds"] - (now - r["last_event_time"])) <= 5, r
assert r["gaps"] == [], r
PY
}
check_status "$A" "$WORK/a/binlog"
check_status "db/server-2" "$WORK/b/binlog"
check_status "$M" "$WORK/m/binlog"
[ "$(python3 -c "import json; print(len(json.load(open('$WORK/status.json'))))")" = 3 ] ||
  fail "--status lists $(cat "$WORK/status.json")"
grep -q "server-2/ *mariadb" "$WORK/status.txt" || { cat "$WORK/status.txt"; fail "the --status table"; }
pass "three servers archived into one bucket at once: --status lists the three, last event and lag right"
rc=0
"$BINRECOVER" s3://fleet/db/ > /dev/null 2> "$WORK/unrelated.err" || rc=$?
[ $rc = 2 ] && grep -q "do not share one history" "$WORK/unrelated.err" ||
  { cat "$WORK/unrelated.err"; fail "three unrelated servers read as one: exit $rc"; }

# A failover in the bucket (issue 31): a primary archived into s3://fleet/fo/, its GTID replica
# promoted after the primary died with one transaction the replica never got, the replica
# archived from its first binlog into its own folder there. Reading s3://fleet/fo/ gives one
# history by GTID: the replica's tables, each transaction once, the lost one named.
start_server f1 "$((P + 13))" --server-id=11 --gtid-strict-mode=ON
start_server f2 "$((P + 14))" --server-id=12 --gtid-strict-mode=ON \
  --log-bin="$WORK/f2/binlog/replica-bin" --log-slave-updates
sql "$((P + 14))" -e "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$((P + 13)),
  MASTER_USER='root', MASTER_USE_GTID=slave_pos; START SLAVE"
sql "$((P + 13))" -e "CREATE DATABASE fo; CREATE TABLE fo.t (id INT PRIMARY KEY, v TEXT)"
for i in $(seq 1 20); do sql "$((P + 13))" -e "INSERT INTO fo.t VALUES ($i, 'p$i')"; done
sql "$((P + 13))" -e "FLUSH BINARY LOGS; UPDATE fo.t SET v = CONCAT(v, '+') WHERE id <= 10"
# (the DBA's dump, taken on the old primary; and a base backup of it into the bucket)
mariadb-dump --no-defaults -h127.0.0.1 -P"$((P + 13))" -uroot --master-data=2 --single-transaction \
  -B fo > "$WORK/fo-dump.sql"
"$BINRECOVER" backup "${R[@]}" -P"$((P + 13))" --database=fo --to=s3://fleet/fo/ > "$WORK/fo-backup.out" 2>&1 ||
  { cat "$WORK/fo-backup.out"; fail "backup of the old primary into s3://fleet/fo/"; }
sql "$((P + 13))" -e "UPDATE fo.t SET v = CONCAT(v, '*') WHERE id > 15"
want=$(sql "$((P + 13))" -N -e "SELECT @@gtid_binlog_pos")
[ "$(sql "$((P + 14))" -N -e "SELECT MASTER_GTID_WAIT('$want', 120)")" = 0 ] ||
  fail "the replica did not reach $want in 120 s"
sql "$((P + 14))" -e "STOP SLAVE"
sql "$((P + 13))" -e "INSERT INTO fo.t VALUES (99, 'lost with the primary')"
lost=$(sql "$((P + 13))" -N -e "SELECT @@gtid_binlog_pos")
"$BINRECOVER" archive "${R[@]}" -P"$((P + 13))" --to s3://fleet/fo/ 2> "$WORK/fo1.err" ||
  { cat "$WORK/fo1.err"; fail "archive of the primary to s3://fleet/fo/"; }
"$ROOT/scripts/mariadb_server.sh" stop "$WORK/f1"
sql "$((P + 14))" -e "RESET SLAVE ALL; INSERT INTO fo.t VALUES (21, 'r21'); DELETE FROM fo.t WHERE id = 2"
# The new primary archived by a follower that the gateway goes away under (written to meanwhile),
# killed once the gateway is back; a last run brings the folder up to the server's end.
"$BINRECOVER" archive "${R[@]}" -P"$((P + 14))" --to s3://fleet/fo/ --stop-never --upload-interval=1 \
  --heartbeat-period=1 2> "$WORK/fo-follow.err" &
ap=$!
fo_following() {  # (its folder is in the bucket)
  kill -0 "$ap" 2> /dev/null || { cat "$WORK/fo-follow.err"; fail "the follower of the new primary ended"; }
  "$BINRECOVER" archive --status --format=json s3://fleet/fo/ 2> /dev/null | grep -q server-12
}
wait_for 120 "the follower of the new primary did not start copying" fo_following
"$RGW" stop-rgw "$WORK/rgw"
for i in $(seq 22 30); do sql "$((P + 14))" -e "INSERT INTO fo.t VALUES ($i, REPEAT('r', 5000))"; done
# (the follower has tried to store what came while the gateway is away, and says it retries)
fo_retrying() {
  kill -0 "$ap" 2> /dev/null || { cat "$WORK/fo-follow.err"; fail "the follower died while the gateway was away"; }
  grep -q "the store failed .*retrying for up to" "$WORK/fo-follow.err"
}
wait_for 120 "the follower did not try the store while the gateway was away" fo_retrying
"$RGW" restart-rgw "$WORK/rgw" || fail "the gateway did not restart"
kill -0 "$ap" 2> /dev/null || { cat "$WORK/fo-follow.err"; fail "the follower died while the gateway was away"; }
kill -9 "$ap"; wait "$ap" 2> /dev/null || true
"$BINRECOVER" archive "${R[@]}" -P"$((P + 14))" --to s3://fleet/fo/ 2> "$WORK/fo2.err" ||
  { cat "$WORK/fo2.err"; fail "archive of the promoted replica to s3://fleet/fo/"; }
"$BINRECOVER" archive --verify s3://fleet/fo/server-12/ > "$WORK/fo-verify.out" 2>&1 ||
  { cat "$WORK/fo-verify.out"; fail "--verify of the new primary's folder after the gateway restart"; }
start_server f3 "$((P + 15))"
"$BINRECOVER" s3://fleet/fo/ 2> "$WORK/fo.err" | sql "$((P + 15))" ||
  { cat "$WORK/fo.err"; fail "s3://fleet/fo/ does not replay"; }
a=$(sql "$((P + 14))" -N -e "CHECKSUM TABLE fo.t" | cut -f2)
b=$(sql "$((P + 15))" -N -e "CHECKSUM TABLE fo.t" | cut -f2)
[ "$a" = "$b" ] || { cat "$WORK/fo.err"; fail "s3://fleet/fo/ replayed: checksum $b, the new primary's $a"; }
grep -q "1 transaction(s) left out: .*$lost" "$WORK/fo.err" ||
  { cat "$WORK/fo.err"; fail "the transaction lost with the primary ($lost) is not named"; }
# The old primary's dump and only the bucket: plan's command gives the new primary's table.
"$BINRECOVER" plan --dump="$WORK/fo-dump.sql" s3://fleet/fo/ > "$WORK/fo-plan.out" 2>&1 ||
  { cat "$WORK/fo-plan.out"; fail "plan over s3://fleet/fo/ with the old primary's dump"; }
cmd=$(grep -m1 "^ *binrecover .* | mysql$" "$WORK/fo-plan.out" | sed 's/^ *//; s/ | mysql$//')
[ -n "$cmd" ] || { cat "$WORK/fo-plan.out"; fail "plan over s3://fleet/fo/ printed no command"; }
sql "$((P + 15))" -e "DROP DATABASE fo"
sql "$((P + 15))" < "$WORK/fo-dump.sql"
eval "\"\$BINRECOVER\" ${cmd#binrecover }" 2> "$WORK/fo-plan.err" | sql "$((P + 15))" ||
  { cat "$WORK/fo-plan.err"; fail "plan's command over s3://fleet/fo/ does not replay: $cmd"; }
b=$(sql "$((P + 15))" -N -e "CHECKSUM TABLE fo.t" | cut -f2)
[ "$a" = "$b" ] || { cat "$WORK/fo-plan.out"; fail "the old primary's dump + plan's command ($cmd): checksum $b, the new primary's $a"; }
# The old primary's base backup in the bucket: restore --to-end from the prefix alone loads it
# and replays both servers' folders past it (the lost transaction left out).
sql "$((P + 15))" -e "DROP DATABASE fo; DROP DATABASE IF EXISTS binrecover"
"$BINRECOVER" restore "${R[@]}" -P"$((P + 15))" --from=s3://fleet/fo/ --to-end --database=fo \
  --report="$WORK/fo-restore.json" > "$WORK/fo-restore.out" 2>&1 ||
  { cat "$WORK/fo-restore.out"; fail "restore --to-end from s3://fleet/fo/ across the failover"; }
b=$(sql "$((P + 15))" -N -e "CHECKSUM TABLE fo.t" | cut -f2)
[ "$a" = "$b" ] || { cat "$WORK/fo-restore.out"; fail "restore from the bucket across the failover: checksum $b, the new primary's $a"; }
grep -q "server-11/backups/" "$WORK/fo-restore.json" ||
  fail "the restore did not take the old primary's backup: $(cat "$WORK/fo-restore.json")"
"$BINRECOVER" archive --status --format=json s3://fleet/fo/ > "$WORK/fo-status.json" ||
  fail "--status of s3://fleet/fo/ failed"
python3 - "$WORK/fo-status.json" << 'PY' || fail "--status after the failover: $(cat "$WORK/fo-status.json")"
import json, sys
rows = {r["folder"]: r for r in json.load(open(sys.argv[1]))}
old, new = rows["s3://fleet/fo/server-11/"], rows["s3://fleet/fo/server-12/"]
assert old.get("followed_by") == "s3://fleet/fo/server-12/", old
assert "followed_by" not in new, new
PY
pass "a failover in the bucket (the gateway restarted under the new primary's follower): s3://fleet/fo/ (two servers' folders) replays to the new primary's table, $lost named as lost, so does the old primary's dump + plan's command and restore --to-end from its base backup in the bucket, --status names the server that took over; unrelated servers refused (exit 2)"

# A hostile manifest (issue 29): a folder whose manifest names a file '../x.000001' (or a piece
# outside its .active/NAME/) is refused, exit 6, as its own row: --status lists the three good
# servers all the same, and a field holding an escape sequence reaches the table as \xNN.
printf '%s' '{"format":1,"server_id":9,"server":"evil","flavor":"mariadb\u001b]0;x\u0007","files":[{"name":"../x.000001","size":0,"complete":false,"pieces":[]}]}' > "$WORK/evil.json"
s3 put "$WORK/evil.json" s3://fleet/evil/binrecover-manifest.json
printf '%s' '{"format":1,"server_id":8,"server":"evil2","flavor":"mariadb","files":[{"name":"mysql-bin.000001","size":4,"complete":false,"pieces":[{"offset":0,"size":4,"key":"'"$A"'/mysql-bin.000001"}]}]}' > "$WORK/evil2.json"
s3 put "$WORK/evil2.json" s3://fleet/evil2/binrecover-manifest.json
rc=0
"$BINRECOVER" archive --status s3://fleet/ > "$WORK/status2.txt" 2> "$WORK/status2.err" || rc=$?
[ $rc = 6 ] || { cat "$WORK/status2.txt" "$WORK/status2.err"; fail "--status with a hostile manifest: exit $rc, not 6"; }
[ "$(grep -c ' mariadb\| mysql' "$WORK/status2.txt")" -ge 3 ] || { cat "$WORK/status2.txt"; fail "--status lost the good servers"; }
grep -q "^s3://fleet/evil/ *refused: .*x.000001" "$WORK/status2.txt" &&
  grep -q "^s3://fleet/evil2/ *refused: .*not under" "$WORK/status2.txt" ||
  { cat "$WORK/status2.txt"; fail "--status does not list the hostile manifests as refused"; }
! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$WORK/status2.txt" "$WORK/status2.err" || fail "--status printed a control byte"
rc=0
"$BINRECOVER" archive --verify s3://fleet/evil/ > /dev/null 2> "$WORK/evil.err" || rc=$?
[ $rc = 6 ] || { cat "$WORK/evil.err"; fail "--verify of a folder with a hostile manifest: exit $rc, not 6"; }
s3 del s3://fleet/evil/binrecover-manifest.json s3://fleet/evil2/binrecover-manifest.json
pass "hostile manifests: refused as their own rows (exit 6), every other server listed"

# A hostile server (issue 29; hostile_server.py) archived into the same bucket: a binlog name
# that is a path, one of our keys or a Rotate to a file outside the folder stops the run with
# exit 6; no key outside its folder is written, no key of another server's changes, the
# manifest and index stay ours, and --status of the whole bucket still lists every server.
keys_elsewhere() { s3cmd -c "$WORK/s3cfg" ls -r s3://fleet/ | grep -v ' s3://fleet/hostile/' | awk '{print $4, $3}' | sort; }
keys_elsewhere > "$WORK/keys.before"
hostile_case() {  # NAME-ARGS...: one run against a server started with them
  start_hostile "$@"
  local rc=0
  timeout 120 "$BINRECOVER" archive "${R[@]}" -P"$HPORT" --net-read-timeout=5 --to s3://fleet/hostile/ \
    mysql-bin.000001 2> "$WORK/h.err" || rc=$?
  stop_hostile
  [ $rc = 6 ] || { cat "$WORK/h.err"; fail "archive --to s3:// from a server naming '$*': exit $rc, not 6"; }
  grep -q "which binrecover refuses" "$WORK/h.err" || { cat "$WORK/h.err"; fail "'$*': no reason given"; }
  keys_elsewhere | cmp -s - "$WORK/keys.before" || fail "'$*': a key outside s3://fleet/hostile/ changed"
  if s3cmd -c "$WORK/s3cfg" ls -r s3://fleet/hostile/ | awk '{print $4}' | grep -v '^s3://fleet/hostile/server-1/' | grep -q .; then
    fail "'$*': a key outside the server's folder: $(s3cmd -c "$WORK/s3cfg" ls -r s3://fleet/hostile/)"
  fi
  if obj hostile/server-1/binrecover-manifest.json > "$WORK/hm.json"; then
    python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert [f["name"] for f in m["files"]] == ["mysql-bin.000001"], m' \
      "$WORK/hm.json" || fail "'$*': the manifest names another file"
  fi
}
for name in ../escaped.000002 binrecover-manifest.json mysql-bin.index .active.000002 a/b.000002; do
  hostile_case --scenario names --log mysql-bin.000001 --log "$name"
done
hostile_case --scenario escape-rotate --unlisted
"$BINRECOVER" archive --verify s3://fleet/hostile/server-1/ > /dev/null 2> "$WORK/hv.err" ||
  { cat "$WORK/hv.err"; fail "--verify of the hostile server's folder (what was archived before the refusal)"; }
"$BINRECOVER" archive --status s3://fleet/ > "$WORK/status3.txt" 2> "$WORK/status3.err" ||
  { cat "$WORK/status3.txt" "$WORK/status3.err"; fail "--status of the bucket after the hostile runs"; }
[ "$(grep -c ' mariadb\| mysql' "$WORK/status3.txt")" -ge 4 ] || { cat "$WORK/status3.txt"; fail "--status lost a server"; }
pass "a hostile server archived to s3://: 6 hostile names refused (exit 6), no key outside its folder, other servers' keys unchanged, --verify and --status pass"

# TLS: the gateway's certificate is of a CA made for this test, unknown to the system: refused
# at once (exit 3); trusted with AWS_CA_BUNDLE. Virtual-hosted addressing (BUCKET.localhost).
rc=0
AWS_ENDPOINT_URL_S3=https://localhost:$((P + 9)) timeout 60 "$BINRECOVER" events "s3://fleet/$A/mysql-bin.index" \
  > /dev/null 2> "$WORK/tls.err" || rc=$?
[ $rc = 3 ] && grep -qi "certificate" "$WORK/tls.err" || { cat "$WORK/tls.err"; fail "an untrusted certificate gave exit $rc"; }
"$BINRECOVER" events "s3://fleet/$A/mysql-bin.index" | sed 1d > "$WORK/ev.plain"
AWS_ENDPOINT_URL_S3=https://localhost:$((P + 9)) AWS_CA_BUNDLE=$WORK/rgw/ca.pem \
  "$BINRECOVER" events "s3://fleet/$A/mysql-bin.index" | sed 1d > "$WORK/ev.tls" || fail "events over TLS failed"
cmp -s "$WORK/ev.tls" "$WORK/ev.plain" || fail "events over TLS differ from those over plain HTTP"
"$BINRECOVER" events --s3-endpoint="http://localhost:$P" --s3-addressing=virtual \
  "s3://fleet/$A/mysql-bin.index" | sed 1d > "$WORK/ev.virtual" || fail "events with virtual-hosted addressing failed"
cmp -s "$WORK/ev.virtual" "$WORK/ev.plain" || fail "events with virtual-hosted addressing differ"
pass "TLS: an untrusted certificate refused at once (exit 3), AWS_CA_BUNDLE trusted; virtual-hosted addressing: the same events"

# Credentials never in argv; a wrong key is a clear error (exit 3) naming the URL and S3's code.
rc=0
AWS_SECRET_ACCESS_KEY=wrong "$BINRECOVER" events "s3://fleet/$A/mysql-bin.index" > /dev/null 2> "$WORK/key.err" || rc=$?
[ $rc = 3 ] && grep -q "SignatureDoesNotMatch" "$WORK/key.err" || { cat "$WORK/key.err"; fail "a wrong secret gave exit $rc"; }
! grep -q "$AWS_SECRET_ACCESS_KEY" "$WORK/key.err" || fail "the secret is in the message"
rc=0
"$BINRECOVER" events "s3://fleet/$A/nosuch.000001" > /dev/null 2> "$WORK/nf.err" || rc=$?
[ $rc = 3 ] && grep -q "nosuch.000001" "$WORK/nf.err" || { cat "$WORK/nf.err"; fail "a missing object gave exit $rc"; }
for bad in "--to=/tmp/x" "--to=s3://x/" "--to=s3://fleet/db/ --dir=/tmp/y" "--to=s3://fleet/db/ --part-size=4" \
  "--upload-interval=5" "--dir=$WORK/x --s3-region=eu-west-1"; do
  rc=0
  # shellcheck disable=SC2086
  "$BINRECOVER" archive "${R[@]}" -P"$PA" $bad > /dev/null 2>&1 || rc=$?
  [ $rc = 2 ] || fail "archive $bad gave exit $rc, not 2"
done
rc=0
"$BINRECOVER" events --s3-endpoint=http://127.0.0.1:1 "$WORK/a/binlog/mysql-bin.000001" > /dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "--s3-endpoint without an s3:// input gave exit $rc, not 2"
pass "a wrong secret (exit 3, SignatureDoesNotMatch, no secret printed), a missing object (exit 3), bad --to/--part-size/--upload-interval, --s3-* without a store (exit 2)"
