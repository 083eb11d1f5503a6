# Sourced by the build scripts (setup.sh, test.sh, tests/sanitized.sh, tests/fuzz/run.sh):
# compiles through ccache when it is installed (scripts/setup.sh installs it), with its cache
# outside the checkout and keyed by what it compiles, so each build tree of a run (clang main,
# clang sanitizer/fuzz, g++ Release) and of the next clean clone only compiles what changed.
# BINRECOVER_LAUNCHER: the -DCMAKE_CXX_COMPILER_LAUNCHER= value for cmake ("" without ccache).
BINRECOVER_LAUNCHER=$(command -v ccache || true)
if [ -n "$BINRECOVER_LAUNCHER" ]; then
  export CCACHE_DIR=${CCACHE_DIR:-${BINRECOVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/binrecover}/ccache}
  # (paths under the checkout are hashed relative to it: another clone hits the same cache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
  # (and the folder a -g build runs in is not hashed: a clone elsewhere hits the cache too, its
  # debug information naming the first clone's folder)
  export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
fi

# build_fuzz_tree [DIR]: the clang tree with ASan+UBSan and the fuzzer's coverage hooks
# (build-fuzz/ unless FUZZ_BUILD or DIR says otherwise), every target the fuzz and sanitizer
# tests run. When scripts/test.sh builds it in the background (BINRECOVER_FUZZ_RESULT names the
# file its exit status goes to), this waits for that build instead of starting a second one
# in the same tree.
build_fuzz_tree() {
  local root build
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  build=${1:-${FUZZ_BUILD:-$root/build-fuzz}}
  if [ -n "${BINRECOVER_FUZZ_RESULT:-}" ] && [ "$build" = "$root/build-fuzz" ] &&
    [ "${BINRECOVER_FUZZ_BUILDING:-}" != 1 ]; then
    local i
    for i in $(seq 1 3600); do
      [ -s "$BINRECOVER_FUZZ_RESULT" ] && break
      sleep 0.5
    done
    [ -s "$BINRECOVER_FUZZ_RESULT" ] || { echo "build-fuzz: no result after 30 minutes" >&2; return 1; }
    [ "$(cat "$BINRECOVER_FUZZ_RESULT")" = 0 ] ||
      { tail -40 "$BINRECOVER_FUZZ_RESULT.log" >&2; echo "build-fuzz: the build failed" >&2; return 1; }
    return 0
  fi
  # (a unity build, as scripts/gxx_check.sh's: 821 -> 374 CPU-s here, 2026-12-06. Executables
  # not position-independent: the coverage hooks' tables need 208,613 relocations at each start
  # of a PIE, 1,369 so; a start of binrecover under ASan 97 -> 74 ms CPU, and tests/sanitized.sh
  # starts it ~500 times)
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DBINRECOVER_FUZZ=ON \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 -DCMAKE_EXE_LINKER_FLAGS=-no-pie \
    -DCMAKE_CXX_COMPILER_LAUNCHER="$BINRECOVER_LAUNCHER" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBINRECOVER_WERROR="${BINRECOVER_WERROR:-ON}" > /dev/null ||
    return 1
  cmake --build "$build" --target binrecover binrecover_tests decoder_fuzz sql_writer_fuzz \
    -j"$(nproc)" > "$build/build.log" 2>&1 ||
    { grep -E "error|warning" -A5 "$build/build.log" | head -60 >&2; return 1; }
}
