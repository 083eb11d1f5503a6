#!/usr/bin/env bash
# --result-file and .index files against hostile neighbours and failures (issue 12, items 6-8):
# a full disk (here a file-size limit) leaves whole transactions only; a result file that is
# an input is refused; a link planted at the result path is replaced, never followed; the file
# is private; an index listing a file twice or out of order is refused; errors name full paths.
source "$(dirname "$0")/lib.sh"
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
BIG=$CORPUS/mariadb-poc/mariadb-binlog/binlogs/domain_id_0/mariadb-repl-bin.000002
D=$ROOT/testdata/row

# A file-size limit hit in the middle: exit 3, the file is a prefix of the whole output that
# ends after a COMMIT, and no temporary file is left.
[ -f "$BIG" ] || fail "corpus file missing: $BIG"
"$BINRECOVER" "$BIG" >"$WORK/full.sql"
full=$(stat -c %s "$WORK/full.sql")
[ "$full" -gt 4000000 ] || fail "expected a large output, got $full bytes"
set +e
(ulimit -f 3000 && exec "$BINRECOVER" -r "$WORK/cut.sql" "$BIG") 2>"$WORK/cut.err"
rc=$?
set -e
[ "$rc" = 3 ] || { cat "$WORK/cut.err" >&2; fail "a file-size limit: exit $rc, expected 3"; }
grep -q "cut back to its last whole transaction" "$WORK/cut.err" || fail "no word of the cut"
size=$(stat -c %s "$WORK/cut.sql")
[ "$size" -gt 0 ] && [ "$size" -le $((3000 * 1024)) ] || fail "cut file has $size bytes"
cmp -s -n "$size" "$WORK/cut.sql" "$WORK/full.sql" || fail "the cut file is not a prefix of the output"
tail -c 200 "$WORK/cut.sql" | grep -q 'COMMIT/\*!\*/;$' || fail "the cut file does not end with a COMMIT"
[ -z "$(find "$WORK" -name '.cut.sql.binrecover-*')" ] || fail "a temporary file was left"
[ "$(stat -c %a "$WORK/cut.sql")" = 600 ] || fail "result file mode is not 0600"
pass "a file-size limit leaves whole transactions only (exit 3, $size of $full bytes)"

# The result file is an input: refused, the binlog untouched.
cp "$D/mysql-bin.000001" "$WORK/in.000001"
sum=$(md5sum <"$WORK/in.000001")
set +e
"$BINRECOVER" -r "$WORK/in.000001" "$WORK/in.000001" 2>"$WORK/same.err"
rc=$?
ln "$WORK/in.000001" "$WORK/hardlink"
"$BINRECOVER" -r "$WORK/hardlink" "$WORK/in.000001" 2>>"$WORK/same.err"
rc2=$?
set -e
[ "$rc" = 2 ] && [ "$rc2" = 2 ] || fail "-r naming an input: exit $rc/$rc2, expected 2"
[ "$(md5sum <"$WORK/in.000001")" = "$sum" ] || fail "-r destroyed its input"
pass "-r naming an input (or a hard link to it) is refused"

# A link planted at the result path (another user's file behind it) is replaced, not followed.
echo "precious" >"$WORK/precious"
ln -s "$WORK/precious" "$WORK/planted.sql"
"$BINRECOVER" -r "$WORK/planted.sql" "$D/mysql-bin.000001"
[ "$(cat "$WORK/precious")" = precious ] || fail "-r followed a planted link"
[ -f "$WORK/planted.sql" ] && [ ! -L "$WORK/planted.sql" ] || fail "-r did not replace the link"
pass "-r replaces a planted link, never writes through it"

# Index files: a file twice, or an older one after a newer one: refused (exit 2).
mkdir -p "$WORK/logs"
cp "$D"/mysql-bin.00000? "$WORK/logs/"
printf './mysql-bin.000001\n./mysql-bin.000002\n./mysql-bin.000001\n' >"$WORK/logs/twice.index"
printf './mysql-bin.000002\n./mysql-bin.000001\n' >"$WORK/logs/back.index"
for idx in twice back; do
  set +e
  "$BINRECOVER" --index-file="$WORK/logs/$idx.index" >/dev/null 2>"$WORK/idx.err"
  rc=$?
  set -e
  [ "$rc" = 2 ] || fail "index $idx: exit $rc, expected 2"
  grep -q "$WORK/logs/$idx.index" "$WORK/idx.err" || fail "index $idx: error without the full path"
done
pass "an index listing a file twice or out of order is refused"

# Errors name the file by its full path.
head -c 300 "$D/mysql-bin.000001" >"$WORK/logs/torn.000001"
set +e
"$BINRECOVER" "$WORK/logs/torn.000001" >/dev/null 2>"$WORK/torn.err"
set -e
grep -q "$WORK/logs/torn.000001:" "$WORK/torn.err" || fail "error without the full path: $(cat "$WORK/torn.err")"
pass "errors name the full path"
