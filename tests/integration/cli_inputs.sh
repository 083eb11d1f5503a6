#!/usr/bin/env bash
# Input selection and simple filters on the real binlogs of testdata/: stdin, '-', .index files
# (server-style relative names), the [binrecover] group of option files, --result-file,
# --table, --server-id, --offset.
source "$(dirname "$0")/lib.sh"
D=$ROOT/testdata/row
B=("$BINRECOVER" --timezone=UTC)

"${B[@]}" "$D/mysql-bin.000001" "$D/mysql-bin.000002" > "$WORK/files.sql"
cat "$D/mysql-bin.000001" | "${B[@]}" > "$WORK/stdin.sql"
"${B[@]}" "$D/mysql-bin.000001" > "$WORK/one.sql"
cmp -s "$WORK/stdin.sql" "$WORK/one.sql" || fail "stdin output differs from the file's"
"${B[@]}" - < "$D/mysql-bin.000001" > "$WORK/dash.sql"
cmp -s "$WORK/dash.sql" "$WORK/one.sql" || fail "'-' output differs from the file's"

# An index as the server writes it (./name), in another folder than the current one.
mkdir -p "$WORK/logs"
cp "$D"/mysql-bin.00000? "$WORK/logs/"
printf './mysql-bin.000001\n./mysql-bin.000002\n' > "$WORK/logs/mysql-bin.index"
(cd / && "${B[@]}" --index-file="$WORK/logs/mysql-bin.index") > "$WORK/index.sql"
cmp -s "$WORK/index.sql" "$WORK/files.sql" || fail "--index-file output differs from the files'"

# Option files: [binrecover] index-file=... and no FILE on the command line; the command line
# still adds options. --no-defaults ignores the file.
mkdir -p "$WORK/home"
printf '[client]\nuser=nobody\n[binrecover]\nindex-file=%s\ntimezone=UTC\n' \
  "$WORK/logs/mysql-bin.index" > "$WORK/home/.my.cnf"
HOME=$WORK/home "$BINRECOVER" --stop-position=342 < /dev/null > "$WORK/cnf.sql" ||
  fail "option-file run failed"
"${B[@]}" --stop-position=342 "$D/mysql-bin.000001" "$D/mysql-bin.000002" > "$WORK/cnf-expected.sql"
cmp -s "$WORK/cnf.sql" "$WORK/cnf-expected.sql" || fail "[binrecover] index-file not honoured"
HOME=$WORK/home "$BINRECOVER" --defaults-file="$WORK/home/.my.cnf" --stop-position=342 \
  < /dev/null > "$WORK/cnf2.sql"
cmp -s "$WORK/cnf2.sql" "$WORK/cnf-expected.sql" || fail "--defaults-file not honoured"
rc=0
HOME=$WORK/home "$BINRECOVER" --no-defaults < "$D/mysql-bin.000001" > "$WORK/nodef.sql" || rc=$?
[ $rc = 0 ] && grep -q "^# at 4$" "$WORK/nodef.sql" || fail "--no-defaults did not read stdin"

# --result-file
"${B[@]}" -r "$WORK/result.sql" "$D/mysql-bin.000001"
cmp -s "$WORK/result.sql" "$WORK/one.sql" || fail "--result-file content differs"

# --table narrows to one table: no table map of crm.tags survives, tt's do.
"${B[@]}" --table=zyyshop.tt "$D/mysql-bin.000001" > "$WORK/table.sql"
grep -q 'Table_map: `zyyshop`.`tt`' "$WORK/table.sql" || fail "--table lost zyyshop.tt"
! grep -q 'Table_map: `crm`' "$WORK/table.sql" || fail "--table kept crm.tags"
! grep -q 'CREATE TABLE crm.tags' "$WORK/table.sql" || fail "--table kept DDL of crm.tags"
# --database crm (statement format): the cross-database statements are placed by their target.
"${B[@]}" --database=crm "$ROOT/testdata/stmt/mysql-bin.000001" > "$WORK/crm.sql"
grep -q "^CREATE TABLE crm.tags" "$WORK/crm.sql" || fail "USE zyyshop; CREATE TABLE crm.tags lost"
grep -q "^INSERT INTO crm.tags VALUES (3, LAST_INSERT_ID())" "$WORK/crm.sql" ||
  fail "USE zyyshop; INSERT INTO crm.tags lost"
grep -q "^SET LAST_INSERT_ID=" "$WORK/crm.sql" || fail "the INTVAR of a kept statement was lost"
! grep -q "UPDATE zyyshop.tt" "$WORK/crm.sql" || fail "USE crm; UPDATE zyyshop.tt kept"
! grep -q "^INSERT INTO tt " "$WORK/crm.sql" || fail "zyyshop inserts kept"

# --server-id: the testdata server is 1.
"${B[@]}" --server-id=2 "$D/mysql-bin.000001" > "$WORK/sid.sql"
! grep -q "^START TRANSACTION" "$WORK/sid.sql" || fail "--server-id=2 kept transactions"
"${B[@]}" --server-id=1 "$D/mysql-bin.000001" > "$WORK/sid1.sql"
cmp -s "$WORK/sid1.sql" "$WORK/one.sql" || fail "--server-id=1 dropped something"

# --offset skips events after the format description.
"$BINRECOVER" events --format=tsv "$D/mysql-bin.000001" | sed -n '4p' | cut -f2 > "$WORK/fourth"
"${B[@]}" -o 2 "$D/mysql-bin.000001" | grep '^# at ' | sed -n '2p' | cut -d' ' -f3 > "$WORK/first-after"
cmp -s "$WORK/fourth" "$WORK/first-after" || fail "--offset=2 did not skip two events"

# events --from / --limit
"$BINRECOVER" events --format=tsv --from=888 --limit=2 "$D/mysql-bin.000001" | cut -f2 |
  tr '\n' ' ' > "$WORK/from"
[ "$(cat "$WORK/from")" = "888 930 " ] || fail "events --from=888 --limit=2 gave $(cat "$WORK/from")"
pass "stdin, '-', index files, option files, --result-file, --table, --database, --server-id, --offset, --from/--limit"

# An option whose value may be left out (-c / --verify-binlog-checksum) takes only a value
# attached to it: the file after it stays a file (it was taken for the value, and stdin read).
"$BINRECOVER" "$D/mysql-bin.000001" > "$WORK/plain.sql" 2> /dev/null
for form in -c --verify-binlog-checksum; do
  "$BINRECOVER" "$form" "$D/mysql-bin.000001" < /dev/null > "$WORK/c.sql" 2> "$WORK/c.err" ||
    fail "$form FILE: exit $?: $(cat "$WORK/c.err")"
  cmp -s "$WORK/plain.sql" "$WORK/c.sql" || fail "$form FILE: not the file's SQL"
done
pass "-c / --verify-binlog-checksum before a file: the file is read"

# --base64-output=DECODE-ROWS: no BINLOG statement at all, not even the format description's
# (mysqlbinlog and mariadb-binlog print none: nothing after it would use it).
for mode in "" -v; do
  # shellcheck disable=SC2086
  "$BINRECOVER" --base64-output=decode-rows $mode "$D/mysql-bin.000001" > "$WORK/dr.sql" ||
    fail "DECODE-ROWS $mode failed"
  ! grep -q "^BINLOG '" "$WORK/dr.sql" || fail "DECODE-ROWS $mode: a BINLOG statement is written"
done
grep -q "^### INSERT INTO" "$WORK/dr.sql" || fail "DECODE-ROWS -v: no row comments"
pass "--base64-output=DECODE-ROWS writes no BINLOG statement"

# An index naming absolute paths (the live server's) with other files of the same names beside
# it (the DBA's secured copies): refused naming both; --binlog-dir chooses.
mkdir -p "$WORK/live" "$WORK/copy"
cp "$D"/mysql-bin.00000[12] "$WORK/live/"
cp "$D"/mysql-bin.00000[12] "$WORK/copy/"
printf '%s\n' "$WORK/live/mysql-bin.000001" "$WORK/live/mysql-bin.000002" > "$WORK/copy/mysql-bin.index"
printf 'X' | dd of="$WORK/copy/mysql-bin.000002" bs=1 seek=300 conv=notrunc status=none
rc=0
"$BINRECOVER" events --index-file="$WORK/copy/mysql-bin.index" > /dev/null 2> "$WORK/idx.err" || rc=$?
[ "$rc" = 2 ] && grep -q "another file of that name sits beside the index" "$WORK/idx.err" &&
  grep -q -- "--binlog-dir=$WORK/copy" "$WORK/idx.err" ||
  fail "an index of live paths with copies beside it: exit $rc: $(cat "$WORK/idx.err")"
"$BINRECOVER" events --format=tsv --index-file="$WORK/copy/mysql-bin.index" \
  --binlog-dir="$WORK/live" > "$WORK/idx-live.tsv" || fail "--binlog-dir (live) failed"
"$BINRECOVER" events --format=tsv "$WORK/live/mysql-bin.000001" "$WORK/live/mysql-bin.000002" |
  cmp -s - "$WORK/idx-live.tsv" || fail "--binlog-dir did not read the named folder's files"
rc=0
"$BINRECOVER" events --index-file="$WORK/copy/mysql-bin.index" --binlog-dir="$WORK/copy" \
  > /dev/null 2>&1 || rc=$?
[ "$rc" = 4 ] || fail "--binlog-dir=copy did not read the (damaged) copies: exit $rc"
rc=0
"$BINRECOVER" events --binlog-dir="$WORK/copy" "$WORK/live/mysql-bin.000001" > /dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--binlog-dir without --index-file: exit $rc"
pass "an index of live paths with copies beside it is refused; --binlog-dir chooses the folder"

# GTID targets on a real MySQL log of the corpus (GTIDs :6 to :26 of one uuid): a --stop-gtid the
# log goes past stops there, before that transaction; --exclude-gtids intervals before the log
# or of another uuid are plain filters, one past its last GTID is exit 2.
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
G=$CORPUS/maxwell/src/test/resources/sql/replay/binlog.000004
if [ -f "$G" ]; then
  U=83759871-1141-11ed-b12d-0242ac130003
  rc=0
  "$BINRECOVER" --stop-gtid="$U:3" "$G" > "$WORK/g.sql" 2> "$WORK/g.err" || rc=$?
  [ $rc = 2 ] && grep -q "went past it without it ($U:6 at" "$WORK/g.err" ||
    fail "--stop-gtid before the log: exit $rc: $(cat "$WORK/g.err")"
  ! grep -q "GTID_NEXT= *'$U" "$WORK/g.sql" || fail "--stop-gtid before the log: a transaction was written"
  for ok in "$U:1-3" "aaaaaaaa-1141-11ed-b12d-0242ac130003:10" "$U:10"; do
    "$BINRECOVER" --exclude-gtids="$ok" "$G" > /dev/null || fail "--exclude-gtids=$ok refused"
  done
  rc=0
  "$BINRECOVER" --exclude-gtids="$U:40" "$G" > /dev/null 2> "$WORK/g.err" || rc=$?
  [ $rc = 2 ] && grep -q "past the last GTID of that sequence read ($U:26)" "$WORK/g.err" ||
    fail "--exclude-gtids past the log: exit $rc: $(cat "$WORK/g.err")"
  pass "GTID targets on a MySQL log: --stop-gtid passed over stops at once; --exclude-gtids past the log is exit 2, a filter otherwise"
else
  echo "SKIPPED: GTID targets (no $G)"
fi

# How options go together (cli/option_rules.cc): each rule broken is refused before anything
# runs (exit 2, its own message); the same options with what the rule needs (or without what it
# excludes) are not refused for it. No server is reached: the refusals come from the parser.
F=$D/mysql-bin.000001
rule() {  # MESSAGE -- ARGS...: ARGS break the rule whose message is MESSAGE
  local msg=$1 rc=0
  shift 2
  "$BINRECOVER" --no-defaults "$@" > /dev/null 2> "$WORK/rule.err" || rc=$?
  [ $rc = 2 ] || { cat "$WORK/rule.err"; fail "$* exited $rc, not 2"; }
  grep -qF -- "$msg" "$WORK/rule.err" || { cat "$WORK/rule.err"; fail "$*: not refused with '$msg'"; }
}
kept() {  # MESSAGE -- ARGS...: ARGS keep the rule (whatever else they meet)
  local msg=$1
  shift 2
  "$BINRECOVER" --no-defaults "$@" > /dev/null 2> "$WORK/rule.err" < /dev/null || true
  if grep -qF -- "$msg" "$WORK/rule.err"; then
    cat "$WORK/rule.err"
    fail "$*: refused with '$msg' though the rule holds"
  fi
}
m="--bucket applies to --timeline and --html"
rule "$m" -- stats --bucket=hour "$F"
kept "$m" -- stats --timeline --bucket=hour "$F"
m="--by applies to --timeline and --html"
rule "$m" -- stats --by=table "$F"
kept "$m" -- stats --html="$WORK/t.html" --by=table "$F"
m="--to-end replays everything: not with --incident"
rule "$m" -- drill --incident=4 --to-end "$F"
kept "$m" -- drill --to-end "$F"
m="give either --dir or --to, not both"
rule "$m" -- archive --dir="$WORK/a" --to=s3://b/p/ --s3-endpoint=http://127.0.0.1:1 -h127.0.0.1 -P1 -uroot
m="--fsync-interval applies to --dir"
rule "$m" -- archive --to=s3://b/p/ --s3-endpoint=http://127.0.0.1:1 --fsync-interval=1 -h127.0.0.1 -P1 -uroot
m="--status-file applies to --dir"
rule "$m" -- archive --to=s3://b/p/ --s3-endpoint=http://127.0.0.1:1 --status-file="$WORK/s" -h127.0.0.1 -P1 -uroot
for n in s3-folder upload-interval part-size; do
  v=x
  [ "$n" = s3-folder ] || v=5
  rule "--$n applies with --to s3://..." -- archive --dir="$WORK/a" --$n=$v -h127.0.0.1 -P1 -uroot
  kept "--$n applies with --to s3://..." -- archive --to=s3://b/p/ --s3-endpoint=http://127.0.0.1:1 --$n=$v -h127.0.0.1 -P1 -uroot
done
m="--format applies to archive --status"
rule "$m" -- archive --dir="$WORK/a" --format=json
kept "$m" -- archive --dir="$WORK/a" --status --format=json
m="give either --verify or --status, not both"
rule "$m" -- archive --dir="$WORK/a" --verify --status
for n in window listen; do
  v=8
  [ "$n" = listen ] && v=127.0.0.1
  rule "--$n applies with --server-applier" -- replay --$n=$v -h127.0.0.1 -P1 -uroot "$F"
  kept "--$n applies with --server-applier" -- replay --server-applier --$n=$v -h127.0.0.1 -P1 -uroot "$F"
done
m="--in-doubt applies with --resume"
rule "$m" -- replay --in-doubt=applied -h127.0.0.1 -P1 -uroot "$F"
kept "$m" -- replay --resume --in-doubt=applied -h127.0.0.1 -P1 -uroot "$F"
pass "option rules: each broken one refused with its message (exit 2), kept ones not"
