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
fi
