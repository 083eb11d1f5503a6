#!/usr/bin/env bash
# Installs what binrecover needs from Debian's packages (only what is missing) and builds it.
#   scripts/setup.sh            install + build into build/
#   scripts/setup.sh --demo     ... then show the event table and SQL of the bundled sample
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential clang cmake pkg-config default-libmysqlclient-dev zlib1g-dev libzstd-dev
  libisal-dev libboost-program-options-dev libgtest-dev libfmt-dev mariadb-server mariadb-client tzdata
  dpkg-dev man-db lintian ccache g++ chromium python3 time zstd
  libcurl4-openssl-dev libexpat1-dev libssl-dev nlohmann-json3-dev openssl
  ceph-mon ceph-osd radosgw ceph-common s3cmd)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# clang++ (Debian's clang): its code for the row-text path is about 10% faster than g++'s
# (docs/performance.md); g++ builds the same sources warning-free too (CXX=g++ cmake ...).
# A build tree configured with another compiler starts over.
if [ -f build/CMakeCache.txt ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' build/CMakeCache.txt; then
  rm -rf build
fi
# BINRECOVER_WERROR=ON (scripts/test.sh sets it): warnings are errors.
source scripts/build_env.sh
CC=clang CXX=clang++ cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$BINRECOVER_LAUNCHER" \
  -DBINRECOVER_WERROR="${BINRECOVER_WERROR:-OFF}" >/dev/null
cmake --build build -j"$(nproc)"

if [ "${1:-}" = "--demo" ]; then
  sample=testdata/row/mysql-bin.000001
  echo
  echo "== binrecover events $sample"
  build/binrecover events "$sample"
  echo
  echo "== binrecover --timezone=UTC $sample"
  build/binrecover --timezone=UTC "$sample"
fi
