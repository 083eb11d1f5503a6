#!/usr/bin/env bash
# A hostile server, option files and planted links (issue 29). A small server of our own
# (hostile_server.py: it speaks the protocol and sends crafted names, packets and silences)
# against -R, -R --raw and archive --dir: no file outside the folder, no name of ours taken,
# every read bounded by --net-read-timeout, a missed heartbeat pair reconnects with a growing
# wait; a world-writable option file is ignored with the mysql client's warning; a status file
# is never written through a link planted by another user.
source "$(dirname "$0")/lib.sh"
trap 'stop_hostile; cleanup' EXIT

R=(--no-defaults)
remote() { "$BINRECOVER" "${R[@]}" "$@" -R -h 127.0.0.1 -P "$HPORT" -u root --net-read-timeout=5; }
files_outside() { find "$WORK" -newer "$WORK/mark" -type f ! -path "$WORK/out/*" ! -name 'hs.*' ! -name '*.err' | sort; }

# 1. Names that are not a server's binlog names: listed by SHOW BINARY LOGS, or named only by
#    a Rotate event; refused with exit 6 before any file of that name is made.
for name in ../escaped.000002 a/b.000002 .. binrecover-manifest.json mysql-bin.index .x.000002; do
  start_hostile --scenario names --log mysql-bin.000001 --log "$name"
  for how in raw archive; do
    rm -rf "$WORK/out" && mkdir -p "$WORK/out/sub" && touch "$WORK/mark"
    rc=0
    if [ $how = raw ]; then
      timeout 60 "$BINRECOVER" --no-defaults -R -h 127.0.0.1 -P "$HPORT" -u root --raw \
        --result-file="$WORK/out/sub/" mysql-bin.000001 2>"$WORK/n.err" || rc=$?
    else
      timeout 60 "$BINRECOVER" --no-defaults archive --dir="$WORK/out/sub" -h 127.0.0.1 -P "$HPORT" \
        -u root mysql-bin.000001 2>"$WORK/n.err" || rc=$?
    fi
    [ "$rc" = 6 ] || { cat "$WORK/n.err" >&2; fail "$how: a binlog named '$name': exit $rc, not 6"; }
    grep -q "which binrecover refuses" "$WORK/n.err" || { cat "$WORK/n.err" >&2; fail "$how '$name': no reason"; }
    [ -z "$(files_outside)" ] || fail "$how '$name': files outside the folder: $(files_outside)"
    [ ! -e "$WORK/out/sub/binrecover-manifest.json" ] || fail "$how: a binlog took the manifest's name"
    if grep -rqs -- "$name" "$WORK/out/sub"/*.index; then fail "$how: '$name' written into the index"; fi
  done
  stop_hostile
done
# A name with a line break or an escape sequence (given as hex): refused, shown as \xNN.
start_hostile --scenario names --log mysql-bin.000001 --log-hex "$(printf 'x\n\033]0;t\a.000002' | od -An -tx1 | tr -d ' \n')"
rc=0
remote events 2>"$WORK/n.err" >/dev/null || rc=$?
[ "$rc" = 6 ] || fail "a name with control bytes: exit $rc, not 6"
grep -qF 'x\x0a\x1b]0;t\x07.000002' "$WORK/n.err" || { cat "$WORK/n.err" >&2; fail "the refused name is not shown as \\xNN"; }
stop_hostile
# Named only by the Rotate event (SHOW BINARY LOGS lists the first file alone).
start_hostile --scenario escape-rotate --unlisted
for how in raw archive; do
  rm -rf "$WORK/out" "$WORK/escaped.000002" && mkdir -p "$WORK/out/sub" && touch "$WORK/mark"
  rc=0
  if [ $how = raw ]; then
    timeout 60 "$BINRECOVER" --no-defaults -R -h 127.0.0.1 -P "$HPORT" -u root --raw --to-last-log \
      --result-file="$WORK/out/sub/" mysql-bin.000001 2>"$WORK/n.err" || rc=$?
  else
    timeout 60 "$BINRECOVER" --no-defaults archive --dir="$WORK/out/sub" -h 127.0.0.1 -P "$HPORT" \
      -u root mysql-bin.000001 2>"$WORK/n.err" || rc=$?
  fi
  [ "$rc" = 6 ] || { cat "$WORK/n.err" >&2; fail "$how: a Rotate to ../escaped.000002: exit $rc, not 6"; }
  grep -q "Rotate event" "$WORK/n.err" || { cat "$WORK/n.err" >&2; fail "$how: the refusal does not name the Rotate"; }
  [ ! -e "$WORK/out/escaped.000002" ] && [ -z "$(files_outside)" ] || fail "$how: a file outside the folder"
done
stop_hostile
pass "names from a server that are not binlog names: refused (exit 6), nothing outside the folder"

# 2. Silence: nothing waits forever.
start_hostile --scenario silent-handshake
rc=0
timeout 60 "$BINRECOVER" --no-defaults events -R -h 127.0.0.1 -P "$HPORT" -u root --net-read-timeout=2 \
  mysql-bin.000001 >/dev/null 2>"$WORK/s.err" || rc=$?
[ "$rc" = 6 ] || { cat "$WORK/s.err" >&2; fail "a server that never greets: exit $rc, not 6"; }
stop_hostile
start_hostile --scenario silent
rc=0
timeout 60 "$BINRECOVER" --no-defaults events -R -h 127.0.0.1 -P "$HPORT" -u root --net-read-timeout=2 \
  mysql-bin.000001 >/dev/null 2>"$WORK/s.err" || rc=$?
[ "$rc" = 6 ] || { cat "$WORK/s.err" >&2; fail "a server that stops sending: exit $rc, not 6"; }
grep -q "sent nothing for" "$WORK/s.err" || { cat "$WORK/s.err" >&2; fail "the timeout is not named"; }
# archive --stop-never: two heartbeats missed (2 x 1 s) and it connects again, waiting longer
# each time while no event comes (the moment is the warnings seen, not a sleep).
mkdir -p "$WORK/follow"
"$BINRECOVER" --no-defaults archive --dir="$WORK/follow" -h 127.0.0.1 -P "$HPORT" -u root --stop-never \
  --heartbeat-period=1 mysql-bin.000001 2>"$WORK/follow.err" &
apid=$!
for _ in $(seq 1 600); do
  [ "$(grep -c 'reconnecting in' "$WORK/follow.err")" -ge 3 ] && break
  kill -0 "$apid" 2>/dev/null || { cat "$WORK/follow.err" >&2; fail "archive --stop-never ended on a silent server"; }
  sleep 0.1
done
kill "$apid"; wait "$apid" 2>/dev/null || true
grep -q "sent nothing for" "$WORK/follow.err" || { cat "$WORK/follow.err" >&2; fail "no missed heartbeat seen"; }
grep -q "reconnecting in 1 s" "$WORK/follow.err" && grep -q "reconnecting in 2 s" "$WORK/follow.err" &&
  grep -q "reconnecting in 4 s" "$WORK/follow.err" || { cat "$WORK/follow.err" >&2; fail "no growing wait between reconnects"; }
stop_hostile
pass "a silent server: exit 6 within --net-read-timeout; --stop-never reconnects with a growing wait"

# A result lost on its way (the connection closed after its columns, before its rows): an error
# naming the query, never an empty answer ("has no binary logs" before).
for q in "SHOW BINARY LOGS" "SELECT @@max_allowed_packet" "SELECT @@global.binlog_checksum"; do
  start_hostile --scenario names --log mysql-bin.000001 --cut-on "^$q\$"
  rc=0
  timeout 60 "$BINRECOVER" --no-defaults events -R -h 127.0.0.1 -P "$HPORT" -u root --net-read-timeout=3 \
    mysql-bin.000001 >/dev/null 2>"$WORK/c.err" || rc=$?
  [ "$rc" = 6 ] && grep -q "$q: server error 2013" "$WORK/c.err" ||
    { cat "$WORK/c.err" >&2; fail "the result of $q lost: exit $rc, the query not named"; }
  stop_hostile
done
pass "a result lost after its columns: exit 6 naming the query"

# 3. Broken packets: a clear error or the events there are, never a crash or a hang.
for v in 0 1 2 3 4 5 6 7 8 9; do
  start_hostile --scenario garbage --variant "$v"
  rc=0
  timeout 60 "$BINRECOVER" --no-defaults events -R -h 127.0.0.1 -P "$HPORT" -u root --net-read-timeout=3 \
    mysql-bin.000001 >/dev/null 2>"$WORK/g.err" || rc=$?
  # A damaged event (a wrong checksum, a body whose fields run past its end) is exit 4; a
  # packet no server sends, exit 6; a wrong sequence number passes the client library unseen.
  case $v in 4 | 6) want=4 ;; 8) want=0 ;; *) want=6 ;; esac
  [ "$rc" = "$want" ] || { cat "$WORK/g.err" >&2; fail "garbage variant $v: exit $rc, not $want"; }
  [ "$(wc -l <"$WORK/g.err")" -le 3 ] || { cat "$WORK/g.err" >&2; fail "garbage variant $v: not a short error"; }
  stop_hostile
done
pass "broken packets from a server: exit 0/4/6 with a short message, no crash or hang"

# 4. Option files: one anyone may write is ignored, with the mysql client's warning.
BIN=$ROOT/testdata/row/mysql-bin.000001
all=$("$BINRECOVER" --no-defaults events --format=tsv "$BIN" | wc -l)
stop=$("$BINRECOVER" --no-defaults events --format=tsv "$BIN" | sed -n 3p | cut -f2)
printf '[binrecover]\nstop-position=%s\n' "$stop" >"$WORK/extra.cnf"
chmod 0644 "$WORK/extra.cnf"
cut_n=$("$BINRECOVER" --defaults-extra-file="$WORK/extra.cnf" events --format=tsv "$BIN" | wc -l)
[ "$cut_n" -lt "$all" ] || fail "a private option file is not read ($cut_n of $all events)"
chmod 0666 "$WORK/extra.cnf"
n=$("$BINRECOVER" --defaults-extra-file="$WORK/extra.cnf" events --format=tsv "$BIN" 2>"$WORK/o.err" | wc -l)
[ "$n" = "$all" ] || fail "a world-writable --defaults-extra-file changed the result ($n of $all events)"
grep -q "World-writable config file '$WORK/extra.cnf' is ignored" "$WORK/o.err" || fail "no warning for it"
mkdir -p "$WORK/home" && cp "$WORK/extra.cnf" "$WORK/home/.my.cnf" && chmod 0666 "$WORK/home/.my.cnf"
n=$(HOME=$WORK/home "$BINRECOVER" events --format=tsv "$BIN" 2>"$WORK/o.err" | wc -l)
[ "$n" = "$all" ] && grep -q "World-writable config file '$WORK/home/.my.cnf' is ignored" "$WORK/o.err" ||
  fail "a world-writable ~/.my.cnf is read"
# [mysqlbinlog] and [mariadb-binlog] are read for our options too; a later line wins.
printf '[mysqlbinlog]\nstop-position=999999\n[binrecover]\nstop-position=%s\n' "$stop" >"$WORK/g.cnf"
n=$("$BINRECOVER" --defaults-file="$WORK/g.cnf" events --format=tsv "$BIN" | wc -l)
[ "$n" = "$cut_n" ] || fail "the later option-file line does not win ($n, expected $cut_n)"
pass "option files: world-writable ignored with the warning; later lines win"

# 5. A status file is never written through a link planted by another user (a sticky shared
#    folder, as /tmp): the link is replaced, its target untouched.
chmod 711 "$WORK"  # (the other user reaches the shared folder, nothing else)
mkdir -m 1777 "$WORK/shared"
echo "precious" >"$WORK/precious"
plant() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$@"; else ln -s "$@"; fi; }
plant "$WORK/precious" "$WORK/shared/status.json"
plant "$WORK/precious" "$WORK/shared/status.json.tmp"
start_hostile --scenario names --log mysql-bin.000001 --log mysql-bin.000002
rm -rf "$WORK/arch" && mkdir "$WORK/arch"
"$BINRECOVER" --no-defaults archive --dir="$WORK/arch" -h 127.0.0.1 -P "$HPORT" -u root \
  --status-file="$WORK/shared/status.json" mysql-bin.000001 2>"$WORK/st.err" ||
  { cat "$WORK/st.err" >&2; fail "archive with a planted status-file link"; }
stop_hostile
[ "$(cat "$WORK/precious")" = precious ] || fail "the status file was written through a planted link"
[ -f "$WORK/shared/status.json" ] && [ ! -L "$WORK/shared/status.json" ] || fail "the status file is not a file"
[ "$(stat -c %a "$WORK/shared/status.json")" = 600 ] || fail "the status file is not 0600"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["file"] == "mysql-bin.000002"' \
  "$WORK/shared/status.json" || fail "the status file is not the archive's JSON"
pass "a planted link at the status file: not followed"

# 6. A server or a replay target that asks for a local file (LOAD DATA LOCAL INFILE) where
#    binrecover sent no LOAD: refused, not one byte of the file sent. The source's sessions
#    (-R), the target's main session and its appliers' sessions (which may read only the LOAD
#    files binrecover wrote; load_data.sh replays real ones).
echo "private: $(date +%s%N)" >"$WORK/canary" && chmod 600 "$WORK/canary"
for on in 'SHOW BINARY LOGS' 'GET_LOCK' "BINLOG '"; do
  rm -f "$WORK/received" "$WORK/binrecover-replay.state"
  start_hostile --scenario names --log mysql-bin.000001 --infile "$WORK/canary" --infile-on "$on" \
    --received "$WORK/received"
  rc=0
  if [ "$on" = 'SHOW BINARY LOGS' ]; then
    remote events mysql-bin.000001 >/dev/null 2>"$WORK/i.err" || rc=$?
  else
    (cd "$WORK" && timeout 120 "$BINRECOVER" --no-defaults replay -h 127.0.0.1 -P "$HPORT" -u root \
      "$BIN") >/dev/null 2>"$WORK/i.err" || rc=$?
  fi
  stop_hostile
  [ "$rc" = 6 ] || { cat "$WORK/i.err" >&2; fail "a request for a local file at '$on': exit $rc, not 6"; }
  [ "$(cat "$WORK/received" 2>/dev/null)" = "$WORK/canary 0" ] ||
    fail "a request for a local file at '$on': $(cat "$WORK/received" 2>/dev/null || echo 'never asked') (bytes sent)"
  grep -q "forbidden\|refused" "$WORK/i.err" || { cat "$WORK/i.err" >&2; fail "'$on': the refusal is not named"; }
done
pass "LOAD DATA LOCAL requests from a source or a target for a file binrecover did not write: refused, 0 bytes sent"
