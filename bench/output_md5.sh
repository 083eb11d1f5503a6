#!/usr/bin/env bash
# Prints one line per (binlog, mode): the md5 of binrecover's stdout and its exit status, over
# every binlog of testdata/ and ../shared/corpus. Run it with the binary before and after a
# change and diff the two lists: a change that should not touch the output leaves them equal.
#   BINRECOVER=build/binrecover bash bench/output_md5.sh > after.txt
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BINRECOVER:-$ROOT/build/binrecover}
files=$( (find "$ROOT/testdata" -name 'mysql-bin.0*'; \
  [ -d "$ROOT/../shared/corpus" ] && find "$ROOT/../shared/corpus" -type f ! -name '*.md' ! -name '*.index') | sort)
modes=("" "-v" "-vv" "--rows-as-sql" "--flashback" "--base64-output=decode-rows -v" "-s -v" \
  "-H" "events" "stats" "--skip-gtids -D" "--database=test")
load=$(mktemp -d)
trap 'rm -rf "$load"' EXIT
# EXTRA: options added to every run (e.g. EXTRA=--transaction-memory=0 reads every transaction
# twice instead of holding it: the output must not change).
EXTRA=${EXTRA:-}
for f in $files; do
  for m in "${modes[@]}"; do
    # shellcheck disable=SC2086
    if [ "$m" = events ] || [ "$m" = stats ]; then
      sum=$(TZ=UTC "$B" --no-defaults $m --no-progress $EXTRA "$f" 2>/dev/null | md5sum | cut -c1-12); rc=${PIPESTATUS[0]}
    else
      rm -rf "$load"; mkdir -p "$load"
      sum=$(TZ=UTC "$B" --no-defaults --timezone=UTC --no-progress -l "$load" $EXTRA $m "$f" 2>/dev/null | sed -E "s|$load/binrecover-load-[A-Za-z0-9]+|LOAD|g; s|$load|LOAD|g" | md5sum | cut -c1-12); rc=${PIPESTATUS[0]}
    fi
    echo "${f#$ROOT/} [$m] $sum $rc"
  done
done
