#!/usr/bin/env bash
# Builds the libFuzzer targets with clang + ASan + UBSan (build-fuzz/) and runs them for a
# bounded time: the decoder SECONDS, seeded from testdata/ and, when present, the real binlogs of
# ../shared/corpus/ (read in place, never copied into the repo); the SQL writer a quarter of
# that; a hostile server (remote_fuzz: handshake, result sets, the binlog stream) a third and the
# S3 manifest (manifest_fuzz) a sixth, each from tests/fuzz/seeds/. Any crash, sanitizer report,
# leak or allocation over the limit fails the run; libFuzzer writes the input to
# build-fuzz/findings/ (turn it into a regression test under tests/fuzz/regressions/, or
# regressions-remote/ and regressions-manifest/ for those two targets).
#   tests/fuzz/run.sh [SECONDS]      (default: FUZZ_SECONDS or 120)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-${FUZZ_SECONDS:-120}}
build=${FUZZ_BUILD:-$ROOT/build-fuzz}
source "$ROOT/scripts/build_env.sh"
build_fuzz_tree "$build"
# (build_fuzz_tree builds the targets every fuzz and sanitizer test needs; these two only here)
cmake --build "$build" --target remote_fuzz manifest_fuzz -j"$(nproc)" \
  > "$build/build-targets.log" 2>&1 ||
  { grep -E "error|warning" -A5 "$build/build-targets.log" | head -60 >&2; exit 1; }

seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
find "$ROOT/testdata" -name 'mysql-bin.0*' -exec cp {} "$seeds/" \;
[ -d "$ROOT/tests/fuzz/regressions" ] && cp "$ROOT"/tests/fuzz/regressions/* "$seeds/" 2>/dev/null || true
corpus=$ROOT/../shared/corpus
if [ -d "$corpus" ]; then
  # Small real files only: libFuzzer mutates better on short inputs. (Numbered, as two files of
  # the corpus may share a name; one process copies them all, ~470 files: 6 s -> 0.1 s.)
  find "$corpus" -type f -size -64k ! -name '*.md' ! -name '*.index' -print0 |
    python3 -c 'import shutil, sys
for i, f in enumerate(sys.stdin.buffer.read().split(b"\0")[:-1]):
    shutil.copyfile(f, "%s/corpus-%04d" % (sys.argv[1], i))' "$seeds"
else
  echo "fuzz: ../shared/corpus not present; seeding from testdata/ only" >&2
fi
mkdir -p "$build/findings" "$build/work-corpus"
# Regressions first: every saved finding must pass.
if ls "$ROOT"/tests/fuzz/regressions/* >/dev/null 2>&1; then
  "$build/tests/fuzz/decoder_fuzz" "$ROOT"/tests/fuzz/regressions/* > "$build/regressions.log" 2>&1 ||
    { tail -40 "$build/regressions.log"; echo "FAIL: a fuzz regression input fails again" >&2; exit 1; }
fi
# (a local file sent to a server that asked is a finding: sources never enable it)
export REMOTE_FUZZ_NO_LOCAL_FILES=1
for t in remote manifest; do
  ls "$ROOT/tests/fuzz/regressions-$t"/* >/dev/null 2>&1 || continue
  "$build/tests/fuzz/${t}_fuzz" "$ROOT/tests/fuzz/regressions-$t"/* \
    > "$build/regressions-$t.log" 2>&1 || {
    tail -40 "$build/regressions-$t.log"
    echo "FAIL: a $t fuzz regression input fails again" >&2
    exit 1
  }
done
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# fuzz NAME TARGET SECONDS MAX_LEN CORPUS...: one bounded run; any finding fails the script.
fuzz() {
  local name=$1 target=$2 secs=$3 max_len=$4 log="$build/fuzz-$1.log" rc=0
  shift 4
  "$build/tests/fuzz/$target" "$@" -max_total_time="$secs" -rss_limit_mb=2048 \
    -malloc_limit_mb=512 -max_len="$max_len" -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$build/findings/" >"$log" 2>&1 || rc=$?
  if [ $rc != 0 ]; then
    grep -E "ERROR|SUMMARY|runtime error|$target:|Test unit written" "$log" | head -20 >&2
    echo "FAIL: the $name fuzzer found a problem (input in $build/findings/)" >&2
    exit 1
  fi
  local runs
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "fuzz: $name, ${runs:-?} executions in $secs s under ASan+UBSan, no finding"
}
fuzz decoder decoder_fuzz "$seconds" 65536 "$build/work-corpus" "$seeds"

# The SQL text writer, a quarter of the time again, seeded with hostile names and values.
wseeds=$(mktemp -d)
trap 'rm -rf "$seeds" "$wseeds"' EXIT
printf 'shop\xffx\nDROP DATABASE victim/*!*/;\n#\xffc\xff'"'"');DROP DATABASE v;-- \xffC:\\new' >"$wseeds/1"
printf 'a\\`; DROP\xffq'"'"'"*/ /*!*/;\r\n\x1a\xc3\xa9\xffn\xffl1\nl2\r\n\x00\xff\x00\x01' >"$wseeds/2"
mkdir -p "$build/work-corpus-sql"
fuzz "SQL writer" sql_writer_fuzz $(((seconds + 3) / 4)) 4096 "$build/work-corpus-sql" "$wseeds"

# A hostile server (issue 29): the client side of the protocol against a fake server in the
# process, a third of the time; the S3 archive's manifest, a sixth.
mkdir -p "$build/work-corpus-remote" "$build/work-corpus-manifest"
fuzz "hostile server" remote_fuzz $(((seconds + 2) / 3)) 16384 "$build/work-corpus-remote" \
  "$ROOT/tests/fuzz/seeds/remote"
fuzz "manifest" manifest_fuzz $(((seconds + 5) / 6)) 8192 "$build/work-corpus-manifest" \
  "$ROOT/tests/fuzz/seeds/manifest"
