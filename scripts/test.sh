#!/usr/bin/env bash
# The whole test suite: installs and builds (scripts/setup.sh), then runs every test through
# ctest — unit tests, golden tests on testdata/, and integration tests that start throwaway
# MariaDB servers on 127.0.0.1 (scripts/mariadb_server.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# Warnings are errors here (and in the sanitizer and fuzz builds the suite makes).
export BINRECOVER_WERROR=ON
scripts/setup.sh
cd build
ctest --output-on-failure --timeout 900 "$@"
