#!/usr/bin/env bash
# Damaged input and wrong options: one clear line naming file, offset and event, the documented
# exit status, never a crash; output already written stays whole transactions. Uses the real
# binlogs of testdata/ (and a live MariaDB for a file still in use).
source "$(dirname "$0")/lib.sh"
PORT=${1:-23351}
ROW=$ROOT/testdata/row/mysql-bin.000001
SIZE=$(stat -c %s "$ROW")

# expect STATUS PATTERN COMMAND... : exit status and the one-line message on stderr
expect() {
  local want=$1 pattern=$2
  shift 2
  local rc=0
  "$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
  [ "$rc" = "$want" ] || { cat "$WORK/err" >&2; fail "'$*' exited $rc, expected $want"; }
  [ "$rc" -lt 128 ] || fail "'$*' crashed (status $rc)"
  grep -q -- "$pattern" "$WORK/err" || { cat "$WORK/err" >&2; fail "'$*': stderr lacks '$pattern'"; }
  [ "$(grep -c . "$WORK/err")" -le 2 ] || { cat "$WORK/err" >&2; fail "'$*': more than one error line"; }
}

# Output cut by an error must still replay: whole transactions, footer present.
replayable() {
  grep -q '^ROLLBACK /\* added by binrecover \*/;$' "$WORK/out" || fail "output lacks the footer"
  local starts ends
  starts=$(grep -c '^START TRANSACTION$' "$WORK/out" || true)
  ends=$(grep -c '^COMMIT/\*!\*/;$' "$WORK/out" || true)
  [ "$starts" = "$ends" ] || fail "output has $starts transaction starts but $ends commits"
}

# Bad magic.
printf 'not a binlog at all' > "$WORK/notbinlog"
expect 4 "notbinlog:0: not a binlog file (bad magic number)" "$BINRECOVER" "$WORK/notbinlog"
# Shorter than the magic.
printf '\xfe\x62' > "$WORK/short"
expect 4 "short:0: file is shorter than the 4-byte binlog magic" "$BINRECOVER" "$WORK/short"
# Missing file, directory.
expect 3 "nosuch: cannot open: No such file or directory" "$BINRECOVER" "$WORK/nosuch"
expect 3 "is a directory" "$BINRECOVER" "$WORK"

# Truncated inside an event (file not flagged in use: a closed log that lost its tail).
head -c 2000 "$ROW" > "$WORK/trunc"
expect 4 "trunc:[0-9]*: event length [0-9]* runs past the end of the input" "$BINRECOVER" "$WORK/trunc"
replayable
expect 4 "trunc:[0-9]*: event length" "$BINRECOVER" events "$WORK/trunc"
# Truncated inside a header.
head -c 1797 "$ROW" > "$WORK/trunc-header"
expect 4 "input ends inside an event header" "$BINRECOVER" "$WORK/trunc-header"
replayable

# Checksum mismatch: flip one byte inside the body of the event at 1629 (a query).
cp "$ROW" "$WORK/crc"
printf 'X' | dd of="$WORK/crc" bs=1 seek=1700 conv=notrunc 2>/dev/null
expect 4 "crc:[0-9]*: [A-Za-z_]*: checksum mismatch (stored 0x" "$BINRECOVER" "$WORK/crc"
replayable
# --force-read: a warning, and the file reads to its end.
expect 0 "warning: .*checksum mismatch.*continuing (--force-read)" "$BINRECOVER" -f "$WORK/crc"
# --skip-verify-binlog-checksum: no check at all.
"$BINRECOVER" --skip-verify-binlog-checksum "$WORK/crc" > /dev/null || fail "--skip-verify-binlog-checksum failed"

# An absurd event length: 4 GB claimed in the header of the event at 256. Fails at once
# (no 4 GB allocation: run it under a 200 MB address-space limit).
cp "$ROW" "$WORK/huge"
printf '\xff\xff\xff\xff' | dd of="$WORK/huge" bs=1 seek=$((256 + 9)) conv=notrunc 2>/dev/null
expect 4 "huge:256: event length 4294967295 exceeds the 1 GiB limit" \
  bash -c "ulimit -v 200000; exec \"$BINRECOVER\" \"$WORK/huge\""
# The same through a pipe (no file size to check against).
expect 4 "stdin:256: event length 4294967295 exceeds" \
  bash -c "ulimit -v 200000; cat \"$WORK/huge\" | \"$BINRECOVER\" -"
# A length that runs past the end of the file.
cp "$ROW" "$WORK/past"
printf '\x00\x00\x10\x00' | dd of="$WORK/past" bs=1 seek=$((256 + 9)) conv=notrunc 2>/dev/null
expect 4 "past:256: event length 1048576 runs past the end of the input" "$BINRECOVER" "$WORK/past"
# A length shorter than a header.
cp "$ROW" "$WORK/tiny"
printf '\x05\x00\x00\x00' | dd of="$WORK/tiny" bs=1 seek=$((256 + 9)) conv=notrunc 2>/dev/null
expect 4 "tiny:256: event length 5 is shorter than an event header" "$BINRECOVER" "$WORK/tiny"

# Unknown event type: type byte of the event at 256 set to 99, checksum off so it gets there.
cp "$ROW" "$WORK/unknown"
printf '\x63' | dd of="$WORK/unknown" bs=1 seek=$((256 + 4)) conv=notrunc 2>/dev/null
expect 4 "unknown:256: Unknown: unknown event type 99 (use --force-read to skip it)" \
  "$BINRECOVER" --skip-verify-binlog-checksum "$WORK/unknown"
expect 0 "warning: .*unknown event type 99 skipped" \
  "$BINRECOVER" -f --skip-verify-binlog-checksum "$WORK/unknown"

# An unknown event type its server flagged ignorable (LOG_EVENT_IGNORABLE_F, as Aurora's padding
# events are) inside a transaction: skipped where it stands, the transaction whole around it. The
# Annotate_rows event at 930, inside the transaction at 888 (GTID 0-1-4, one INSERT), made type
# 100 with the flag. (It used to end the transaction there: "incomplete transaction at 888 not
# emitted", its row gone from -v, --rows-as-sql and stats.)
cp "$ROW" "$WORK/ignorable"
printf '\x64' | dd of="$WORK/ignorable" bs=1 seek=$((930 + 4)) conv=notrunc 2>/dev/null
printf '\x80\x00' | dd of="$WORK/ignorable" bs=1 seek=$((930 + 17)) conv=notrunc 2>/dev/null
for mode in -v --rows-as-sql; do
  "$BINRECOVER" --skip-verify-binlog-checksum $mode "$WORK/ignorable" > "$WORK/out" 2> "$WORK/err" ||
    fail "ignorable event ($mode): exit $?: $(cat "$WORK/err")"
  [ ! -s "$WORK/err" ] || fail "ignorable event ($mode): $(cat "$WORK/err")"
  # (the row's name, '张三': as text in -v, in hex in SQL: MariaDB's default row metadata has
  # no character sets)
  awk '/^# at 888$/ { t = 1 } t && /^START TRANSACTION/ { b = 1 } t && b && /E5BCA0E4B889|张三/ { r = 1 }
    t && r && /^COMMIT/ { ok = 1; exit } END { exit !ok }' "$WORK/out" ||
    fail "ignorable event ($mode): the row of the transaction at 888 is not between its start and COMMIT"
done
"$BINRECOVER" stats --skip-verify-binlog-checksum "$WORK/ignorable" > "$WORK/out" 2>&1
"$BINRECOVER" stats "$ROW" > "$WORK/stats.want" 2>&1
grep -E "^zyyshop\.tt " "$WORK/out" > "$WORK/a"
grep -E "^zyyshop\.tt " "$WORK/stats.want" > "$WORK/b"
cmp -s "$WORK/a" "$WORK/b" || fail "ignorable event: stats of zyyshop.tt differ: $(cat "$WORK/a") vs $(cat "$WORK/b")"

# Wrong options.
expect 2 "unknown option --no-such-option" "$BINRECOVER" --no-such-option "$ROW"
expect 2 "start-position needs a non-negative number, not 'abc'" "$BINRECOVER" --start-position=abc "$ROW"
expect 2 "--stop-datetime 'yesterday': not a datetime" "$BINRECOVER" --stop-datetime=yesterday "$ROW"
expect 2 "table needs TABLE or DATABASE.TABLE" "$BINRECOVER" --table=db. "$ROW"
expect 2 "timezone 'Mars/Olympus' is not a known time zone" "$BINRECOVER" --timezone=Mars/Olympus "$ROW"
expect 2 "format must be table, tsv or json" "$BINRECOVER" events --format=xml "$ROW"
expect 2 "--format=tsv is a format of .binrecover events. (and stats): SQL output takes sql, jsonl or csv" "$BINRECOVER" --format=tsv "$ROW"
expect 2 "--format must be sql, jsonl or csv, not 'xml'" "$BINRECOVER" --format=xml "$ROW"
expect 2 "--schema names columns for --rows-as-sql, --flashback and --format=jsonl/csv" "$BINRECOVER" --schema=/dev/null "$ROW"
expect 3 "cannot read the schema file /nonexistent.sql" "$BINRECOVER" --rows-as-sql --schema=/nonexistent.sql "$ROW"
# No file and stdin a terminal: a usage message (script(1) gives it a terminal).
rc=0
script -qec "\"$BINRECOVER\" --no-defaults" /dev/null > "$WORK/tty" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "no binlog given" "$WORK/tty" || fail "no input on a terminal: exit $rc"
# A start position that is not an event boundary: a usage error naming the event it is in and
# the transaction that event belongs to.
expect 2 "--start-position 1000 is inside the .* event at [0-9]* (it ends at [0-9]*), in the transaction that starts at [0-9]*" \
  "$BINRECOVER" --start-position=1000 "$ROW"
pass "damaged files and wrong options give one line and the documented status"

# A file still in use (server running) whose last event is torn: decode up to it, warn, roll
# back the unfinished transaction, exit 0.
start_server live "$PORT"
sql "$PORT" -e "CREATE DATABASE d; CREATE TABLE d.t (a INT PRIMARY KEY, b TEXT);
  INSERT INTO d.t VALUES (1, 'one'); INSERT INTO d.t VALUES (2, REPEAT('two', 500));"
live=$WORK/live/binlog/mysql-bin.000001
size=$(stat -c %s "$live")
head -c $((size - 40)) "$live" > "$WORK/torn"
expect 0 "torn:[0-9]*: .*not closed by its server" "$BINRECOVER" "$WORK/torn"
grep -q "^# incomplete transaction at torn:[0-9]* not emitted" "$WORK/out" ||
  fail "the unfinished transaction of the torn file was not reported"
grep -q "REPEAT('two'\|Write_rows" "$WORK/out" && grep -c "^START TRANSACTION$" "$WORK/out" > /dev/null
replayable
pass "a torn file still in use is read up to the torn event, with a warning"
