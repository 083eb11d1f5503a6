#!/usr/bin/env bash
# The whole test suite: installs and builds (scripts/setup.sh), then runs every test through
# ctest — unit tests, golden tests on testdata/, and integration tests that start throwaway
# MariaDB servers on 127.0.0.1 (scripts/mariadb_server.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# Warnings are errors here (and in the sanitizer, fuzz and g++ builds the suite makes).
export BINRECOVER_WERROR=ON
scripts/setup.sh
# The g++ Release check (scripts/gxx_check.sh), then the sanitizer/fuzz tree (build-fuzz/),
# compile in the background beside the tests, which mostly wait on their servers; the tests
# that need them (gxx_release, fuzz_decoder, sanitized: the last ones) wait for their results.
export BINRECOVER_GXX_RESULT=$PWD/build/gxx_check.result
export BINRECOVER_FUZZ_RESULT=$PWD/build/fuzz_build.result
rm -f "$BINRECOVER_GXX_RESULT" "$BINRECOVER_GXX_RESULT.log" "$BINRECOVER_FUZZ_RESULT" \
  "$BINRECOVER_FUZZ_RESULT.log"
(
  rc=0
  nice -n 10 scripts/gxx_check.sh > "$BINRECOVER_GXX_RESULT.log" 2>&1 || rc=$?
  echo $rc > "$BINRECOVER_GXX_RESULT"
  rc=0
  BINRECOVER_FUZZ_BUILDING=1 nice -n 10 bash -c 'source scripts/build_env.sh && build_fuzz_tree' \
    > "$BINRECOVER_FUZZ_RESULT.log" 2>&1 || rc=$?
  echo $rc > "$BINRECOVER_FUZZ_RESULT"
) &
cd build
# Two tests at a time (BINRECOVER_TEST_JOBS; every test has ports of its own, the shared caches
# are built under a lock): 797-946 s on 2 cores with a warm ccache, 1,117 s cold (2026-12-06),
# the cores then busy throughout, so more at a time is not faster (three: 913 s;
# docs/testing.md).
ctest --output-on-failure --timeout 900 -j "${BINRECOVER_TEST_JOBS:-2}" "$@"
