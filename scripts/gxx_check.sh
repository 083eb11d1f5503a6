#!/usr/bin/env bash
# The other compiler (issue 16): a g++ Release build (build-gxx/), warning-free under
# BINRECOVER_WERROR=ON, whose binary writes exactly what the clang build's writes on every
# bundled test binlog and every file of ../shared/corpus/ when present (SQL, -vv rows, the
# event table). Run by scripts/test.sh.
#   scripts/gxx_check.sh --wait   (the gxx_release test: when scripts/test.sh started the check in
#                                  the background, BINRECOVER_GXX_RESULT names its result file)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --wait ] && [ -n "${BINRECOVER_GXX_RESULT:-}" ]; then
  for _ in $(seq 1 1800); do
    [ -s "$BINRECOVER_GXX_RESULT" ] && break
    sleep 0.5
  done
  [ -s "$BINRECOVER_GXX_RESULT" ] || { echo "gxx_check: no result after 15 minutes" >&2; exit 1; }
  cat "$BINRECOVER_GXX_RESULT.log"
  exit "$(cat "$BINRECOVER_GXX_RESULT")"
fi
source scripts/build_env.sh
# (a unity build: each batch of 16 sources one compilation, the headers read once a batch;
# 2.5x less CPU than one compilation a file, 522 -> 204 CPU-s on 2 cores, 2026-12-06)
CC=gcc CXX=g++ cmake -S . -B build-gxx -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$BINRECOVER_LAUNCHER" \
  -DBINRECOVER_WERROR="${BINRECOVER_WERROR:-ON}" > /dev/null
cmake --build build-gxx --target binrecover -j"$(nproc)" > build-gxx/build.log 2>&1 ||
  { grep -E "error|warning" -A5 build-gxx/build.log | head -60; echo "gxx_check: the g++ Release build failed" >&2; exit 1; }
# (LOAD DATA files go to a new folder under TMPDIR each run: its name is left out)
export TMPDIR=$(mktemp -d)
trap 'rm -rf "$TMPDIR"' EXIT
# outputs BINARY: the output, messages and exit status of each run over every binlog, one after
# the other (a run per binlog and mode, no pipe of its own: ~1,500 runs).
outputs() {
  local f mode
  for f in "${files[@]}"; do
    for mode in "" "-vv" "events"; do
      echo "== $f ($mode)"
      "$1" $mode --timezone=UTC "$f" 2>&1 && echo "exit 0" || echo "exit $?"
    done
  done | sed 's/binrecover-load-[A-Za-z0-9]*/binrecover-load-X/g'
}
files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(find testdata -name 'mysql-bin.0*' -print0
  [ -d ../shared/corpus ] && find ../shared/corpus -type f ! -name '*.md' ! -name '*.index' -print0)
outputs build/binrecover > "$TMPDIR/clang.out"
outputs build-gxx/binrecover > "$TMPDIR/gxx.out"
cmp -s "$TMPDIR/clang.out" "$TMPDIR/gxx.out" || {
  line=$(cmp "$TMPDIR/clang.out" "$TMPDIR/gxx.out" | sed -n 's/.* line \([0-9]*\).*/\1/p' || true)
  run=$(head -n "${line:-1}" "$TMPDIR/clang.out" | grep '^== ' | tail -1 || true)
  echo "gxx_check: g++ and clang++ binaries differ on ${run#== }" >&2
  exit 1
}
n=${#files[@]}
echo "gxx_check: g++ $(g++ -dumpversion) Release builds warning-free; its binary writes what the clang build's writes on $n binlogs of testdata/ and the corpus (SQL, -vv, events)"
