#!/usr/bin/env bash
# Help that teaches (issue 16): each command's --help equals its snapshot in tests/golden/help/
# (an option added or changed without its help shows here: refresh with UPDATE=1 and review the
# diff), `binrecover help COMMAND` is the same text, every command's help has its usage, one
# example and its own options only, and a mistyped option gets the nearest valid one.
source "$(dirname "$0")/lib.sh"
SNAP=$ROOT/tests/golden/help
commands=(sql events stats plan drill replay archive backup restore)
for c in "${commands[@]}"; do
  arg=$c
  [ "$c" = sql ] && arg=
  "$BINRECOVER" $arg --help > "$WORK/$c.txt" || fail "binrecover $arg --help exited $?"
  if [ "${UPDATE:-0}" = 1 ]; then
    cp "$WORK/$c.txt" "$SNAP/$c.txt"
    continue
  fi
  diff -u "$SNAP/$c.txt" "$WORK/$c.txt" ||
    fail "binrecover $arg --help differs from tests/golden/help/$c.txt (UPDATE=1 refreshes it)"
  if [ -n "$arg" ]; then
    "$BINRECOVER" help "$c" > "$WORK/help-$c.txt"
    cmp -s "$WORK/$c.txt" "$WORK/help-$c.txt" || fail "binrecover help $c differs from binrecover $c --help"
  fi
  grep -q "^Usage:" "$WORK/$c.txt" || fail "$c --help: no usage"
  [ "$(grep -c '^Example:' "$WORK/$c.txt")" = 1 ] || fail "$c --help: not one example"
done
# Own options only: replay's help has --resume, SQL output's does not; events has --limit.
grep -q -- '^  --resume' "$WORK/replay.txt" && ! grep -q -- '^  --resume' "$WORK/sql.txt" ||
  fail "--resume is not replay's alone"
grep -q -- '^  --limit' "$WORK/events.txt" && ! grep -q -- '^  --limit' "$WORK/stats.txt" ||
  fail "--limit is not in events' help alone"
grep -q -- '-v \[ --verbose \]' "$WORK/sql.txt" || fail "-v/--verbose missing from --help"
pass "--help of ${#commands[@]} commands equals the snapshots; help COMMAND the same; own options only"

rc=0
"$BINRECOVER" events --fromm=4 "$ROOT/testdata/row/mysql-bin.000001" 2> "$WORK/err" > /dev/null || rc=$?
[ $rc = 2 ] && grep -q -- "did you mean --from?" "$WORK/err" || { cat "$WORK/err"; fail "no suggestion for --fromm"; }
rc=0
"$BINRECOVER" replay --paralel=2 x 2> "$WORK/err" > /dev/null || rc=$?
[ $rc = 2 ] && grep -q -- "did you mean --parallel?" "$WORK/err" || { cat "$WORK/err"; fail "no suggestion for --paralel"; }
rc=0
"$BINRECOVER" events --resume x 2> "$WORK/err" > /dev/null || rc=$?
[ $rc = 2 ] && grep -q -- "it belongs to .*binrecover replay" "$WORK/err" || { cat "$WORK/err"; fail "--resume on events does not say where it belongs"; }
pass "mistyped options get the nearest valid one (exit 2); an option of another command names it"
