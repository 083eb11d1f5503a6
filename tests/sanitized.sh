#!/usr/bin/env bash
# The unit tests and the binary under AddressSanitizer + UndefinedBehaviorSanitizer, in their own
# clang build tree, the one tests/fuzz/run.sh uses (build-fuzz/: ASan+UBSan and the fuzzer's
# coverage hooks, built once for both): every GoogleTest test, then
# binrecover over every bundled test binlog and, when present, every file of ../shared/corpus/
# (read in place) in the modes that decode the most (-vv: the SQL with its BINLOG statements and
# the rows as comments; --rows-as-sql, the row changes as JSONL, the event table, stats). A file may fail with a clean error (damaged corpus files must); any sanitizer
# report fails the test.
#   tests/sanitized.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
build=${SANITIZED_BUILD:-${FUZZ_BUILD:-$ROOT/build-fuzz}}
source "$ROOT/scripts/build_env.sh"
build_fuzz_tree "$build"

# A sanitizer report exits 86, which no binrecover error code uses.
export ASAN_OPTIONS=detect_leaks=1:exitcode=86:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86
log=$build/sanitized.log
"$build/tests/binrecover_tests" > "$log" 2>&1 ||
  { grep -E "FAILED|ERROR|runtime error|SUMMARY" "$log" | head -20 >&2; echo "FAIL: unit tests under ASan/UBSan" >&2; exit 1; }
tests=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\..*/\1/p' "$log")
echo "unit tests under ASan+UBSan: ${tests:-?} passed"

files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$ROOT/testdata" -name 'mysql-bin.0*' -print0)
corpus=$ROOT/../shared/corpus
if [ -d "$corpus" ]; then
  while IFS= read -r -d '' f; do files+=("$f"); done < <(
    find "$corpus" -type f ! -name '*.md' ! -name '*.index' -print0 | sort -z)
else
  echo "sanitized: ../shared/corpus not present; bundled binlogs only" >&2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# check FILE: the modes over one binlog, as many files at once as there are cores; prints
# one line per run ("ok" or "error": a clean error), and the report on a sanitizer finding.
check() {
  local f=$1 mode rc args tmp
  tmp=$(mktemp -d "$work/run.XXXXXX")
  for mode in verbose rows jsonl events stats; do
    case $mode in
      verbose) args=(--local-load="$tmp/load" -vv "$f") ;;
      rows) args=(--local-load="$tmp/load" --rows-as-sql "$f") ;;
      jsonl) args=(--format=jsonl "$f") ;;
      events) args=(events "$f") ;;
      stats) args=(stats "$f") ;;
    esac
    rc=0
    "$build/binrecover" "${args[@]}" > /dev/null 2> "$tmp/err" || rc=$?
    if [ $rc = 86 ] || grep -q -E "AddressSanitizer|runtime error|LeakSanitizer" "$tmp/err"; then
      head -30 "$tmp/err" >&2
      echo "FAIL: sanitizer report: binrecover ${args[*]}" >&2
      return 255  # (xargs stops at once)
    fi
    [ $rc = 0 ] && echo ok || echo error
  done
  rm -rf "$tmp"
}
export -f check
export build work
printf '%s\0' "${files[@]}" | xargs -0 -n1 -P"$(nproc)" bash -c 'check "$1"' _ > "$work/runs" ||
  exit 1
runs=$(wc -l < "$work/runs")
errors=$(grep -c '^error' "$work/runs" || true)
[ "$runs" = $((5 * ${#files[@]})) ] ||
  { echo "FAIL: $runs runs for ${#files[@]} binlogs, not 5 each" >&2; exit 1; }
echo "binrecover under ASan+UBSan: $runs runs over ${#files[@]} binlogs ($errors clean errors), no report"
