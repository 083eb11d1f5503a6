#!/usr/bin/env bash
# Golden tests: binrecover's SQL and event listing of the real binlogs in testdata/ (written by
# scripts/gen_testdata.sh on a real MariaDB) must equal the reviewed expected files.
#   tests/golden_test.sh            compare
#   tests/golden_test.sh --update   rewrite the expected files (review the diff!)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BINRECOVER=${BINRECOVER:-$ROOT/build/binrecover}
update=0
[ "${1:-}" = "--update" ] && update=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
n=0

check() {  # check NAME COMMAND...
  local name=$1
  shift
  local rc=0
  "$@" > "$out/$name" 2> "$out/$name.err" || rc=$?
  if [ $rc != 0 ]; then
    cat "$out/$name.err" >&2
    echo "FAIL: $name exited $rc" >&2
    status=1
    return
  fi
  n=$((n + 1))
  if [ $update = 1 ]; then
    cp "$out/$name" "$ROOT/testdata/expected/$name"
  elif ! diff -u "$ROOT/testdata/expected/$name" "$out/$name" > "$out/$name.diff"; then
    head -40 "$out/$name.diff" >&2
    echo "FAIL: $name differs from testdata/expected/$name" >&2
    status=1
  fi
}

mkdir -p "$ROOT/testdata/expected"
for fmt in row stmt; do
  d=$ROOT/testdata/$fmt
  check "$fmt.sql" "$BINRECOVER" --timezone=UTC "$d/mysql-bin.000001" "$d/mysql-bin.000002"
  check "$fmt.events.table" "$BINRECOVER" events --index-file="$d/mysql-bin.index"
  check "$fmt.events.tsv" "$BINRECOVER" events --format=tsv --index-file="$d/mysql-bin.index"
  check "$fmt.events.json" "$BINRECOVER" events --format=json --limit=5,8 "$d/mysql-bin.000001"
  check "$fmt.crm.sql" "$BINRECOVER" --timezone=UTC --database=crm --skip-gtids -D "$d/mysql-bin.000001"
  check "$fmt.short.sql" "$BINRECOVER" -s --database=zyyshop "$d/mysql-bin.000001"
  check "$fmt.range.sql" "$BINRECOVER" --timezone=UTC --start-position=888 --stop-position="$([ $fmt = row ] && echo 2062 || echo 2081)" "$d/mysql-bin.000001"
done
check "row.hexdump.sql" "$BINRECOVER" --timezone=UTC -H --stop-position=1207 "$ROOT/testdata/row/mysql-bin.000001"
if [ $status = 0 ]; then echo "golden: $n outputs equal their expected files"; fi
exit $status
