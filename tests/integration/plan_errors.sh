#!/usr/bin/env bash
# The errors a DBA meets with `binrecover plan`/`drill`: one clear line, a non-zero status.
# Uses the real binlogs of testdata/ (copied and renamed to make gaps).
source "$(dirname "$0")/lib.sh"
D=$ROOT/testdata/row
mkdir -p "$WORK/logs"
cp "$D/mysql-bin.000001" "$WORK/logs/mysql-bin.000001"
cp "$D/mysql-bin.000002" "$WORK/logs/mysql-bin.000003"   # 000002 is missing
printf './mysql-bin.000001\n./mysql-bin.000003\n' > "$WORK/logs/mysql-bin.index"
dump() { printf -- "-- MariaDB dump\n-- CHANGE MASTER TO MASTER_LOG_FILE='%s', MASTER_LOG_POS=%s;\nCREATE TABLE t (a int);\n" "$1" "$2" > "$WORK/dump.sql"; }

expect_error() {  # STATUS PATTERN ARGS...
  local want=$1 pattern=$2 rc=0
  shift 2
  "$BINRECOVER" "$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
  [ "$rc" = "$want" ] || { cat "$WORK/err"; fail "'$*' exited $rc, expected $want"; }
  grep -q -- "$pattern" "$WORK/err" || { cat "$WORK/err"; fail "'$*': stderr lacks '$pattern'"; }
  [ "$(grep -c . "$WORK/err")" = 1 ] || { cat "$WORK/err"; fail "'$*': not one line"; }
}

dump mysql-bin.000001 888
expect_error 2 "the binlog chain has a gap: mysql-bin.000001 is followed by mysql-bin.000003 (1 file(s) missing)" \
  plan --dump="$WORK/dump.sql" --index-file="$WORK/logs/mysql-bin.index"
dump mysql-bin.000042 4
expect_error 2 "coordinates mysql-bin.000042:4 are not in any of the binlogs given" \
  plan --dump="$WORK/dump.sql" --index-file="$WORK/logs/mysql-bin.index"
dump mysql-bin.000001 999999
expect_error 2 "the start position 999999 is past the end of mysql-bin.000001" \
  plan --dump="$WORK/dump.sql" "$WORK/logs/mysql-bin.000001"
printf -- "-- MariaDB dump without coordinates\nCREATE TABLE t (a int);\n" > "$WORK/nocoords.sql"
expect_error 2 "nocoords.sql" plan --dump="$WORK/nocoords.sql" "$WORK/logs/mysql-bin.000001"
expect_error 2 "plan needs to know where the backup stands" plan "$WORK/logs/mysql-bin.000001"
expect_error 2 "drill needs --dump" drill "$WORK/logs/mysql-bin.000001"
# The happy path on the same files: coordinates in the middle of a file.
dump mysql-bin.000001 888
"$BINRECOVER" plan --dump="$WORK/dump.sql" "$WORK/logs/mysql-bin.000001" > "$WORK/plan.txt"
grep -q "Scanned from mysql-bin.000001:888" "$WORK/plan.txt" || fail "coordinates mid-file not used"
grep -q "DROP DATABASE  zyyshop" "$WORK/plan.txt" || fail "the testdata DROP DATABASE was not found"
grep -q "DROP TABLE  crm.tags" "$WORK/plan.txt" || fail "the testdata DROP TABLE was not found"
pass "plan errors: chain gap, coordinates outside the logs or past a file's end, dump without coordinates"
