#!/usr/bin/env bash
# The whole test suite: installs and builds (scripts/setup.sh), then runs every test through
# ctest — unit tests, golden tests on testdata/, and integration tests that start throwaway
# MariaDB servers on 127.0.0.1 (scripts/mariadb_server.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# Warnings are errors here (and in the sanitizer, fuzz and g++ builds the suite makes).
export BINRECOVER_WERROR=ON
scripts/setup.sh
# The g++ Release check (scripts/gxx_check.sh) compiles beside the first tests, which mostly
# wait on their servers; the gxx_release test waits for its result and reports it.
export BINRECOVER_GXX_RESULT=$PWD/build/gxx_check.result
rm -f "$BINRECOVER_GXX_RESULT" "$BINRECOVER_GXX_RESULT.log"
(nice -n 10 scripts/gxx_check.sh > "$BINRECOVER_GXX_RESULT.log" 2>&1; echo $? > "$BINRECOVER_GXX_RESULT") &
cd build
ctest --output-on-failure --timeout 900 "$@"
