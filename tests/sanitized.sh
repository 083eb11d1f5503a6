#!/usr/bin/env bash
# The unit tests and the binary under AddressSanitizer + UndefinedBehaviorSanitizer, in their own
# clang build tree, the one tests/fuzz/run.sh uses (build-fuzz/: ASan+UBSan and the fuzzer's
# coverage hooks, built once for both): every GoogleTest test, then
# binrecover over every bundled test binlog and, when present, every file of ../shared/corpus/
# (read in place) in the modes that decode the most (-vv: the SQL with its BINLOG statements and
# the rows as comments; --rows-as-sql, the row changes as JSONL, the event table, stats), a dozen
# files a run. A file may fail with a clean error (damaged corpus files must); any sanitizer
# report fails the test.
#   tests/sanitized.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
build=${SANITIZED_BUILD:-${FUZZ_BUILD:-$ROOT/build-fuzz}}
source "$ROOT/scripts/build_env.sh"
build_fuzz_tree "$build"

# A sanitizer report exits 86, which no binrecover error code uses. (An allocation's stack is
# kept 8 frames deep, not 30: the unwinding at every malloc is the most of a large file's time:
# -vv of the corpus's 1.4 MB sakila log 466 -> 330 ms CPU, the unit tests 17.7 -> 15.2 s.)
export ASAN_OPTIONS=detect_leaks=1:exitcode=86:allocator_may_return_null=0:malloc_context_size=8
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
# A batch of binlogs is read in one run per mode (the ASan binary's start and leak check cost
# ~0.1 s, more than most files' decoding). A run that stops with a clean error names the file it
# stopped in: the files before it were read whole, that file is read again alone (its own
# result: a file that does not end in a Rotate fails only when another follows it), and the
# batch goes on after it. Every file is so read as it is alone, in ~500 runs instead of 1,265.
# run MODE FILE...: one run of binrecover; returns its exit code, 255 on a sanitizer report.
run() {
  local mode=$1 rc=0 args
  shift
  case $mode in
    verbose) args=(--local-load="$tmp/load" -vv) ;;
    rows) args=(--local-load="$tmp/load" --rows-as-sql) ;;
    jsonl) args=(--format=jsonl) ;;
    events) args=(events) ;;
    stats) args=(stats) ;;
  esac
  echo >> "$work/started"
  "$build/binrecover" "${args[@]}" "$@" > /dev/null 2> "$tmp/err" || rc=$?
  if [ $rc = 86 ] || grep -q -E "AddressSanitizer|runtime error|LeakSanitizer" "$tmp/err"; then
    head -30 "$tmp/err" >&2
    echo "FAIL: sanitizer report: binrecover ${args[*]} $*" >&2
    return 255
  fi
  return $rc
}
# check MODE LIST: LIST holds a batch's paths, NUL-separated; prints one line per file ("ok", or
# "error": a clean error of its own) and the report on a sanitizer finding.
check() {
  local mode=$1 rc i j f batch tmp
  mapfile -d '' -t batch < "$2"
  tmp=$(mktemp -d "$work/run.XXXXXX")
  i=0
  while [ "$i" -lt "${#batch[@]}" ]; do
    rc=0
    run "$mode" "${batch[@]:i}" || rc=$?
    [ $rc = 255 ] && return 255 # (xargs stops at once)
    if [ $rc = 0 ]; then
      for ((j = i; j < ${#batch[@]}; j++)); do echo "ok $mode"; done
      break
    fi
    for ((j = i; j < ${#batch[@]}; j++)); do
      grep -q -F "binrecover: ${batch[j]}:" "$tmp/err" && break
    done
    if [ "$j" = "${#batch[@]}" ]; then
      head -5 "$tmp/err" >&2
      echo "FAIL: exit $rc naming no file of the batch: ${batch[*]:i}" >&2
      return 255
    fi
    for ((f = i; f < j; f++)); do echo "ok $mode"; done
    if [ $((${#batch[@]} - i)) -gt 1 ]; then
      rc=0
      run "$mode" "${batch[j]}" || rc=$?
      [ $rc = 255 ] && return 255
    fi
    [ $rc = 0 ] && echo "ok $mode" || echo "error $mode"
    i=$((j + 1))
  done
  rm -rf "$tmp"
}
export -f run check
export build work
per_batch=12
for ((b = 0; b < ${#files[@]}; b += per_batch)); do
  printf '%s\0' "${files[@]:b:per_batch}" > "$work/batch.$b"
  for mode in verbose rows jsonl events stats; do printf '%s\0' "$mode" "$work/batch.$b"; done
done | xargs -0 -n2 -P"$(nproc)" bash -c 'check "$1" "$2"' _ > "$work/runs" || exit 1
runs=$(wc -l < "$work/runs")
errors=$(grep -c '^error' "$work/runs" || true)
[ "$runs" = $((5 * ${#files[@]})) ] ||
  { echo "FAIL: $runs results for ${#files[@]} binlogs, not 5 each" >&2; exit 1; }
echo "binrecover under ASan+UBSan: $runs file reads in $(wc -l < "$work/started") runs over ${#files[@]} binlogs ($errors clean errors), no report"

# Replay under the sanitizers: the apply engine's threads, the COMMITs held for the next
# transaction's packet, the width changes. The bundled row log into a real MariaDB (port
# SANITIZED_PORT, 23961), serially, with --parallel 8 going from one session to all and back
# every 2 transactions (BINRECOVER_TEST_WIDTH_FLIP), and without the commit order; the tables'
# checksums equal after each; any sanitizer report fails. (A slot freed while its own commit's
# bookkeeping still read it ran unseen in every replay until the parallel bench hung on it.)
port=${SANITIZED_PORT:-23961}
trap '"$ROOT/scripts/mariadb_server.sh" discard "$work/srv" > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$ROOT/scripts/mariadb_server.sh" start "$work/srv" "$port" > /dev/null
sum() {
  mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot -N -e \
    "CHECKSUM TABLE zyyshop.tt, crm.tags" | awk '{ print $2 }' | tr '\n' ' '
}
row_log=("$ROOT"/testdata/row/mysql-bin.000001 "$ROOT"/testdata/row/mysql-bin.000002)
expected=
for how in serial "--parallel 8" "--parallel 8 --no-preserve-commit-order"; do
  mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot -e \
    "DROP DATABASE IF EXISTS zyyshop; DROP DATABASE IF EXISTS crm; DROP DATABASE IF EXISTS binrecover; RESET MASTER"
  opts=()
  [ "$how" = serial ] || read -r -a opts <<< "$how"
  rc=0
  BINRECOVER_TEST_WIDTH_FLIP=2 "$build/binrecover" replay --no-defaults --no-progress -h127.0.0.1 \
    -P"$port" -uroot --state-file="$work/r.state.$RANDOM" "${opts[@]}" "${row_log[@]}" \
    > /dev/null 2> "$work/replay.err" || rc=$?
  if [ $rc = 86 ] || grep -q -E "AddressSanitizer|runtime error|LeakSanitizer|ThreadSanitizer" "$work/replay.err"; then
    head -40 "$work/replay.err" >&2
    echo "FAIL: sanitizer report: binrecover replay $how" >&2
    exit 1
  fi
  [ $rc = 0 ] || { cat "$work/replay.err" >&2; echo "FAIL: binrecover replay $how exited $rc" >&2; exit 1; }
  got=$(sum)
  [ -n "$expected" ] || expected=$got
  [ "$got" = "$expected" ] || { echo "FAIL: replay $how: checksums $got, serial $expected" >&2; exit 1; }
done
echo "binrecover replay under ASan+UBSan (serial, --parallel 8 flipping widths, without the commit order): no report, checksums equal"
