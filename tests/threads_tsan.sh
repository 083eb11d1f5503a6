#!/usr/bin/env bash
# The code that runs on a second thread — binlog/read_ahead (files of 1 MiB and more are read
# ahead) and FdSource around it — under ThreadSanitizer, in its own clang build tree
# (build-tsan/, about 3 minutes on 2 cores): the reader unit tests (ReadAhead*, Reader*), then
# binrecover over every bundled and corpus binlog of 1 MiB or more, whole and from a position
# in the middle (a seek restarts the reader). Any ThreadSanitizer report fails the test.
#   tests/threads_tsan.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
build=${TSAN_BUILD:-$ROOT/build-tsan}
CC=clang CXX=clang++ cmake -S "$ROOT" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build "$build" --target binrecover binrecover_tests -j"$(nproc)" >/dev/null

# A report exits 86, which no binrecover error code uses.
export TSAN_OPTIONS=halt_on_error=1:exitcode=86
log=$build/threads_tsan.log
"$build/tests/binrecover_tests" --gtest_filter='ReadAhead*:Reader*' > "$log" 2>&1 ||
  { grep -E "FAILED|WARNING: ThreadSanitizer|SUMMARY" "$log" | head -20 >&2; echo "FAIL: reader tests under TSan" >&2; exit 1; }
echo "reader unit tests under TSan: $(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\..*/\1/p' "$log") passed"

files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(
  find "$ROOT/testdata" "$ROOT/../shared/corpus" -type f -size +1023k ! -name '*.md' ! -name '*.index' \
    -print0 2>/dev/null | sort -z)
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no binlog of 1 MiB or more to read" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runs=0
for f in "${files[@]}"; do
  size=$(stat -c %s "$f")
  # The first event boundary past the middle, for a start position that seeks.
  middle=$("$build/binrecover" events --format=tsv "$f" 2>/dev/null |
    awk -F'\t' -v m=$((size / 2)) '$2 + 0 >= m { print $2; exit }') || true
  for mode in verbose events seek; do
    case $mode in
      verbose) args=(--local-load="$work/load" -v "$f") ;;
      events) args=(events "$f") ;;
      seek) [ -n "$middle" ] || continue; args=(--local-load="$work/load" -v --start-position="$middle" "$f") ;;
    esac
    rc=0
    "$build/binrecover" "${args[@]}" > /dev/null 2> "$work/err" || rc=$?
    if [ $rc = 86 ] || grep -q "ThreadSanitizer" "$work/err"; then
      head -30 "$work/err" >&2
      echo "FAIL: ThreadSanitizer report: binrecover ${args[*]}" >&2
      exit 1
    fi
    runs=$((runs + 1))
  done
done
echo "binrecover under TSan: $runs runs over ${#files[@]} binlogs of 1 MiB or more, no report"
