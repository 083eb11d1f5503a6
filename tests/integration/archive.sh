#!/usr/bin/env bash
# binrecover archive on a real MariaDB (and MySQL 9.7 for the plain copy):
#  - a copy of every binlog byte-identical (sha256) to the server's files, with its .index,
#    readable by binrecover, and `archive --verify` passes;
#  - with writes running: `archive --stop-never` killed with SIGKILL at random moments (20
#    times) and started again, the server restarted twice (the archive reconnects by itself)
#    and FLUSH BINARY LOGS in between: the final archive is byte-identical, no gap, no
#    duplicate, and --verify passes;
#  - a damaged archive (a flipped byte, a truncated file) is found by --verify with file and
#    offset (exit 4);
#  - mysqlbinlog's spelling: -R --raw --result-file=PREFIX writes PREFIX + each file's name.
source "$(dirname "$0")/lib.sh"
PA=${1:-23691}
MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
writer=
cleanup_all() {
  [ -n "$writer" ] && kill "$writer" 2> /dev/null || true
  pkill -9 -f "binrecover archive.*$WORK" 2> /dev/null || true
  cleanup
}
trap cleanup_all EXIT
R=(--no-defaults -h127.0.0.1 -uroot)

same_files() {  # LABEL SERVER_BINLOG_DIR ARCHIVE_DIR [PREFIX]: every server file == its copy
  local label=$1 src=$2 dst=$3 prefix=${4:-} f n=0
  for f in "$src"/mysql-bin.[0-9]*; do
    [ -f "$dst/$prefix$(basename "$f")" ] || fail "$label: $(basename "$f") is not in the archive"
    [ "$(sha256sum < "$f")" = "$(sha256sum < "$dst/$prefix$(basename "$f")")" ] ||
      { cmp "$f" "$dst/$prefix$(basename "$f")" >&2 || true; fail "$label: $(basename "$f") differs from the server's"; }
    n=$((n + 1))
  done
  echo "$n"
}

start_server a "$PA"
sql "$PA" -e "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(200));
  INSERT INTO d.t (v) VALUES ('a'), ('b'); FLUSH BINARY LOGS; INSERT INTO d.t (v) VALUES (REPEAT('c', 150))"
"$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/arch" 2> "$WORK/a.err" ||
  { cat "$WORK/a.err"; fail "archive failed"; }
n=$(same_files "MariaDB" "$WORK/a/binlog" "$WORK/arch")
[ "$(stat -c %a "$WORK/arch/mysql-bin.000001")" = 600 ] || fail "the copies are not private (0600)"
"$BINRECOVER" archive --verify "$WORK/arch" > /dev/null || fail "archive --verify failed on a fresh archive"
"$BINRECOVER" events --index-file="$WORK/arch/mysql-bin.index" > /dev/null || fail "binrecover cannot read the archive"
pass "archive: $n files byte-identical (sha256) to the server's, private, readable, --verify passes"

# A run killed between creating the next file and naming it in the index leaves that file
# unnamed: the next run empties it and copies it again (it used to stop on "File exists",
# every run after it too). A link or a file that is not ours there is never written through.
cp -a "$WORK/arch" "$WORK/orph"
sql "$PA" -e "FLUSH BINARY LOGS; INSERT INTO d.t (v) VALUES ('after the orphan')"
wait_checkpoint "$WORK/a/binlog"
next=$(basename "$(ls "$WORK/a/binlog"/mysql-bin.[0-9]* | tail -1)")
grep -q "$next" "$WORK/orph/mysql-bin.index" && fail "the copy already names $next"
printf '\xfebin' > "$WORK/orph/$next"
"$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/orph" 2> "$WORK/orph.err" ||
  { cat "$WORK/orph.err"; fail "archive stopped on the file an interrupted run left unnamed"; }
grep -q "emptied .*$next (4 bytes), which an interrupted run created" "$WORK/orph.err" ||
  { cat "$WORK/orph.err"; fail "no warning about the emptied file"; }
n=$(same_files "after an unnamed file" "$WORK/a/binlog" "$WORK/orph")
[ "$(grep -c "$next" "$WORK/orph/mysql-bin.index")" = 1 ] || fail "the index does not name $next once"
echo "keep me" > "$WORK/victim"
for how in symlink hardlink; do
  sql "$PA" -e "FLUSH BINARY LOGS; INSERT INTO d.t (v) VALUES ('$how')"
  wait_checkpoint "$WORK/a/binlog"
  next=$(basename "$(ls "$WORK/a/binlog"/mysql-bin.[0-9]* | tail -1)")
  if [ $how = symlink ]; then ln -s "$WORK/victim" "$WORK/orph/$next"; else ln "$WORK/victim" "$WORK/orph/$next"; fi
  rc=0
  "$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/orph" 2> "$WORK/orph.err" || rc=$?
  [ $rc = 3 ] && grep -q "cannot create .*$next" "$WORK/orph.err" ||
    { cat "$WORK/orph.err"; fail "a $how planted as the next file: exit $rc"; }
  [ "$(cat "$WORK/victim")" = "keep me" ] || fail "archive wrote through a $how"
  rm "$WORK/orph/$next"
done
"$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/orph" 2> "$WORK/orph.err" ||
  { cat "$WORK/orph.err"; fail "archive did not go on once the links were gone"; }
n=$(same_files "after the links" "$WORK/a/binlog" "$WORK/orph")
pass "a next file an interrupted run left unnamed in the index: emptied and copied again ($n files byte-identical); a symlink or hard link there: exit 3, never written through"

# --stop-never on a quiet server: what the server sent is in the file on disk within moments
# (written out and fsynced when the server pauses, not held for the next event).
"$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/live" --stop-never 2> "$WORK/live.err" &
live=$!
# (it has copied what there is, and follows, before the write)
last=$(ls "$WORK/a/binlog"/mysql-bin.[0-9]* | tail -1)
live_caught_up() {
  kill -0 "$live" 2> /dev/null || { cat "$WORK/live.err"; fail "archive --stop-never ended by itself"; }
  cmp -s "$last" "$WORK/live/$(basename "$last")"
}
wait_for 120 "archive --stop-never did not copy the server's files" live_caught_up
sql "$PA" -e "INSERT INTO d.t (v) VALUES ('while followed')"
[ "$(ls "$WORK/a/binlog"/mysql-bin.[0-9]* | tail -1)" = "$last" ] || fail "the server began a new binlog"
for _ in $(seq 1 30); do
  cmp -s "$last" "$WORK/live/$(basename "$last")" && break
  sleep 0.1
done
cmp "$last" "$WORK/live/$(basename "$last")" ||
  fail "archive --stop-never: 3 s after the last write its copy of $(basename "$last") is not the server's"
kill -9 "$live"
wait "$live" 2> /dev/null || true
pass "archive --stop-never on a quiet server: the last event on disk within 3 s"

# mysqlbinlog's spelling.
"$BINRECOVER" --no-defaults -R -h127.0.0.1 -P"$PA" -uroot --raw --result-file="$WORK/raw/host1-" \
  2> /dev/null || fail "-R --raw --result-file failed"
n=$(same_files "--raw" "$WORK/a/binlog" "$WORK/raw" host1-)
for opt in --database=d --start-position=4 -v --rows-as-sql; do
  rc=0
  "$BINRECOVER" --no-defaults -R -h127.0.0.1 -P"$PA" -uroot --raw --result-file="$WORK/raw2/" \
    "$opt" > /dev/null 2>&1 || rc=$?
  [ $rc = 2 ] || fail "-R --raw $opt gave exit $rc, not 2 (a byte-for-byte copy cannot honour it)"
done
rc=0
"$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/raw3" --read-from-remote-source=BINLOG-DUMP-GTID \
  > /dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "archive with BINLOG-DUMP-GTID gave exit $rc, not 2"
pass "-R --raw --result-file=PREFIX: $n files PREFIX+name, byte-identical; filters, ranges and SQL options refused (exit 2)"

# Writes running, SIGKILL at random moments, two server restarts, FLUSH BINARY LOGS between.
( set +e; i=0; while :; do
    sql "$PA" -e "INSERT INTO d.t (v) VALUES (REPEAT(CHAR(65 + $i % 26), 1 + $i % 180))" 2> /dev/null || sleep 0.2
    i=$((i + 1)); [ $((i % 40)) = 0 ] && sql "$PA" -e "FLUSH BINARY LOGS" 2> /dev/null
    sleep 0.01
  done ) &
writer=$!
kills=0
# (archive_follows: the archive of this round has written its status file, removed before it
# started: it copies what the server sends)
archive_follows() {
  kill -0 "$ap" 2> /dev/null || { cat "$WORK/follow.err"; fail "round $round: the archive ended by itself"; }
  [ -e "$WORK/status.json" ]
}
# (dump_thread: the restarted server sends its binlogs to a reader, this round's archive: no
# other is left)
dump_thread() {
  kill -0 "$ap" 2> /dev/null || { cat "$WORK/follow.err"; fail "round $round: the archive ended by itself"; }
  [ "$(sql "$PA" -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST
    WHERE COMMAND = 'Binlog Dump'" 2> /dev/null)" = 1 ]
}
for round in $(seq 1 22); do
  restart=
  case $round in 8 | 16) restart=1; rm -f "$WORK/status.json" ;; esac
  "$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/arch" --stop-never --fsync-interval=0 \
    --heartbeat-period=1 --status-file="$WORK/status.json" 2>> "$WORK/follow.err" &
  ap=$!
  # (a random moment: a kill that comes before the archive has done anything is one too)
  sleep "0.$((RANDOM % 9 + 1))"
  if [ -n "$restart" ]; then
    # The server restarts under the archive, which is certainly copying when it stops; the
    # archive reconnects by itself, certainly before it is killed.
    wait_for 120 "round $round: the archive did not come to copy" archive_follows
    "$ROOT/scripts/mariadb_server.sh" stop "$WORK/a"
    "$ROOT/scripts/mariadb_server.sh" restart "$WORK/a" "$PA" || fail "the server did not restart"
    wait_for 180 "round $round: the archive did not connect again to the restarted server" dump_thread
  fi
  # (an archive that follows with --stop-never never ends by itself: not even on a restart)
  kill -9 "$ap" 2> /dev/null ||
    { wait "$ap" 2> /dev/null; echo "exit $?" >&2; cat "$WORK/follow.err" >&2; fail "round $round: the archive ended by itself before the kill"; }
  kills=$((kills + 1))
  wait "$ap" 2> /dev/null || true
done
kill "$writer"; wait "$writer" 2> /dev/null || true; writer=
[ "$kills" -ge 20 ] || fail "only $kills kills"
grep -q "reconnecting" "$WORK/follow.err" || { cat "$WORK/follow.err"; fail "the archive never said it reconnected"; }
grep -q '"file"' "$WORK/status.json" || fail "no status file"
sql "$PA" -e "FLUSH BINARY LOGS"
# MariaDB writes the new file's Binlog_checkpoint event a moment after FLUSH: wait until the
# server's files stop changing, then copy up to their end.
prev=
for _ in $(seq 1 50); do
  now=$(ls -l "$WORK/a/binlog" | md5sum)
  [ "$now" = "$prev" ] && break
  prev=$now
  sleep 0.2
done
wait_checkpoint "$WORK/a/binlog"
# (the server may still add a Binlog_checkpoint to its newest file on a busy machine: a copy
# that is a prefix of the server's file is brought up to date by another run, a few times)
for _ in $(seq 1 10); do
  "$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/arch" 2> "$WORK/last.err" ||
    { cat "$WORK/last.err"; fail "the last archive run failed"; }
  behind=0
  for f in "$WORK/a/binlog"/mysql-bin.[0-9]*; do
    c=$WORK/arch/$(basename "$f")
    [ -f "$c" ] && [ "$(stat -c %s "$c")" -lt "$(stat -c %s "$f")" ] &&
      cmp -s "$c" "$f" -n "$(stat -c %s "$c")" && behind=1
  done
  [ $behind = 0 ] && break
  sleep 0.5
done
n=$(same_files "after the kills" "$WORK/a/binlog" "$WORK/arch")
"$BINRECOVER" archive --verify "$WORK/arch" > "$WORK/verify.out" || fail "--verify failed after the kills"
[ "$(wc -l < "$WORK/arch/mysql-bin.index")" = "$(ls "$WORK/a/binlog"/mysql-bin.[0-9]* | wc -l)" ] ||
  fail "the archive's index does not list each file once"
pass "archive --stop-never killed $kills times (SIGKILL), server restarted twice, FLUSH BINARY LOGS between: $n files byte-identical, $(cat "$WORK/verify.out" | grep -o '[0-9]* events') verified"

# Damage is found with file and offset.
cp -a "$WORK/arch" "$WORK/bad"
f=$WORK/bad/mysql-bin.000002
b=$(od -An -tu1 -j300 -N1 "$f" | tr -d ' ')
printf "\\x$(printf %02x $((b ^ 255)))" | dd of="$f" bs=1 seek=300 conv=notrunc 2> /dev/null
rc=0
"$BINRECOVER" archive --verify "$WORK/bad" > /dev/null 2> "$WORK/bad.err" || rc=$?
[ $rc = 4 ] && grep -q "mysql-bin.000002: at [0-9]*:" "$WORK/bad.err" ||
  { cat "$WORK/bad.err"; fail "a flipped byte: --verify gave exit $rc"; }
cp "$WORK/arch/mysql-bin.000002" "$f"
truncate -s -10 "$WORK/bad/mysql-bin.000003"
rc=0
"$BINRECOVER" archive --verify "$WORK/bad" > /dev/null 2> "$WORK/bad.err" || rc=$?
[ $rc = 4 ] && grep -q "mysql-bin.000003" "$WORK/bad.err" ||
  { cat "$WORK/bad.err"; fail "a truncated file: --verify gave exit $rc"; }
pass "archive --verify finds a flipped byte and a truncated file (exit 4, file and offset)"

# The server purged what the archive needs next: exit 6 naming what it still has.
mkdir -p "$WORK/stale"
cp "$WORK/arch/mysql-bin.000001" "$WORK/stale/"
echo "./mysql-bin.000001" > "$WORK/stale/mysql-bin.index"
sql "$PA" -e "PURGE BINARY LOGS TO 'mysql-bin.000005'"
rc=0
"$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/stale" --stop-never > /dev/null 2> "$WORK/stale.err" || rc=$?
[ $rc = 6 ] && grep -q "cannot send mysql-bin.000002 from 4 (it has mysql-bin.000005 to" "$WORK/stale.err" ||
  { cat "$WORK/stale.err"; fail "a purged next file gave exit $rc"; }
pass "archive after the server purged the next file: exit 6 naming the files it still has (no endless retry)"

# Two readers with the same server id: the one the server refuses ends with exit 6 saying so
# (no endless retry, no ping-pong).
for k in 1 2; do
  "$BINRECOVER" archive "${R[@]}" -P"$PA" --dir="$WORK/dup$k" --stop-never \
    --connection-server-id=77 > /dev/null 2> "$WORK/dup$k.err" &
  eval "dup$k=\$!"
  sleep 1
done
ended=
one_ended() {
  local k p
  for k in 1 2; do
    eval "p=\$dup$k"
    kill -0 "$p" 2> /dev/null || { ended=$k; return 0; }
  done
  return 1
}
wait_for 120 "neither reader with the same server id ended" one_ended
eval "p=\$dup$ended"
rc=0
wait "$p" || rc=$?
for k in 1 2; do eval "kill \$dup$k" 2> /dev/null || true; done
[ $rc = 6 ] && grep -q "give this one its own --connection-server-id" "$WORK/dup$ended.err" ||
  { cat "$WORK/dup$ended.err"; fail "a duplicate server id gave exit $rc"; }
pass "two archives with one server id: the refused one ends with exit 6 naming the cause"

# MySQL 9.7: the plain copy.
PM=$((PA + 1))
SERVERS_MYSQL+=("$WORK/m")
"$MYSQL_SERVER" start "$WORK/m" "$PM" > /dev/null || fail "MySQL did not start"
sql "$PM" -e "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, j JSON);
  INSERT INTO d.t VALUES (1, '{\"a\": 1}'); FLUSH BINARY LOGS; UPDATE d.t SET j = JSON_SET(j, '$.a', 2)"
"$BINRECOVER" archive "${R[@]}" -P"$PM" --dir="$WORK/march" 2> "$WORK/m.err" ||
  { cat "$WORK/m.err"; fail "archive of MySQL failed"; }
n=$(same_files "MySQL" "$WORK/m/binlog" "$WORK/march")
"$BINRECOVER" archive --verify "$WORK/march" > /dev/null || fail "--verify failed on MySQL's archive"
pass "MySQL 9.7 archive: $n files byte-identical, --verify passes"
