#!/usr/bin/env bash
# The unit tests and the binary under AddressSanitizer + UndefinedBehaviorSanitizer, in their own
# clang build tree, the one tests/fuzz/run.sh uses (build-fuzz/: ASan+UBSan and the fuzzer's
# coverage hooks, built once for both): every GoogleTest test, then
# binrecover over every bundled test binlog and, when present, every file of ../shared/corpus/
# (read in place) in the modes that decode the most (SQL, -v rows, --rows-as-sql, the event
# table, stats). A file may fail with a clean error (damaged corpus files must); any sanitizer
# report fails the test.
#   tests/sanitized.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
build=${SANITIZED_BUILD:-${FUZZ_BUILD:-$ROOT/build-fuzz}}
source "$ROOT/scripts/build_env.sh"
CC=clang CXX=clang++ cmake -S "$ROOT" -B "$build" -DBINRECOVER_FUZZ=ON \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$BINRECOVER_LAUNCHER" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBINRECOVER_WERROR="${BINRECOVER_WERROR:-ON}" >/dev/null
cmake --build "$build" --target binrecover binrecover_tests -j"$(nproc)" >/dev/null

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
runs=0 errors=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in "${files[@]}"; do
  for mode in sql verbose rows events stats; do
    case $mode in
      sql) args=(--local-load="$work/load" "$f") ;;
      verbose) args=(--local-load="$work/load" -vv "$f") ;;
      rows) args=(--local-load="$work/load" --rows-as-sql "$f") ;;
      events) args=(events "$f") ;;
      stats) args=(stats "$f") ;;
    esac
    rc=0
    "$build/binrecover" "${args[@]}" > /dev/null 2> "$work/err" || rc=$?
    if [ $rc = 86 ] || grep -q -E "AddressSanitizer|runtime error|LeakSanitizer" "$work/err"; then
      head -30 "$work/err" >&2
      echo "FAIL: sanitizer report: binrecover ${args[*]}" >&2
      exit 1
    fi
    runs=$((runs + 1))
    [ $rc = 0 ] || errors=$((errors + 1))
  done
done
echo "binrecover under ASan+UBSan: $runs runs over ${#files[@]} binlogs ($errors clean errors), no report"
