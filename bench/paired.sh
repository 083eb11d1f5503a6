#!/usr/bin/env bash
# Paired whole-process timing: command A and command B run in turn (A B A B ...), each run timed
# by /usr/bin/time (wall, user + system CPU, peak RSS); prints each figure's min, median and max
# per command and the median of the pairwise ratios A/B (pairing keeps the ratio meaningful when
# the machine's speed drifts during the runs). The commands' output is thrown away.
#   bash bench/paired.sh [-n RUNS] -- 'COMMAND A' 'COMMAND B'
# Each command is one string run by `sh -c`. One warm-up run of each is not counted.
set -euo pipefail
runs=5
while [ $# -gt 0 ]; do
  case $1 in
    -n) runs=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: bash bench/paired.sh [-n RUNS] -- 'COMMAND A' 'COMMAND B'" >&2; exit 2 ;;
  esac
done
[ $# = 2 ] || { echo "usage: bash bench/paired.sh [-n RUNS] -- 'COMMAND A' 'COMMAND B'" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-paired.XXXXXX")
trap 'rm -rf "$work"' EXIT
one() {  # COMMAND OUT: appends "wall cpu peak_kib rc" to OUT
  local rc=0
  /usr/bin/time -o "$work/t" -f "%e %U %S %M" sh -c "$1" > /dev/null 2> "$work/err" || rc=$?
  awk -v rc="$rc" '{ printf "%s %.3f %s %s\n", $1, $2 + $3, $4, rc }' "$work/t" >> "$2"
}
one "$1" /dev/null
one "$2" /dev/null
for ((i = 0; i < runs; i++)); do
  one "$1" "$work/a"
  one "$2" "$work/b"
done
paste -d' ' "$work/a" "$work/b" | awk '
  function med(v, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  function row(name, v, n,   lo, hi, i) {
    lo = hi = v[1]
    for (i = 2; i <= n; i++) { if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i] }
    printf "%-14s %10.3f %10.3f %10.3f\n", name, lo, med(v, n), hi
  }
  { n++; aw[n] = $1; ac[n] = $2; ap[n] = $3 / 1024; bw[n] = $5; bc[n] = $6; bp[n] = $7 / 1024
    rw[n] = $5 > 0 ? $1 / $5 : 0; rc[n] = $6 > 0 ? $2 / $6 : 0; if ($4 != 0 || $8 != 0) bad++ }
  END {
    printf "%-14s %10s %10s %10s   (%d pairs)\n", "", "min", "median", "max", n
    row("A wall s", aw, n); row("A cpu s", ac, n); row("A peak MiB", ap, n)
    row("B wall s", bw, n); row("B cpu s", bc, n); row("B peak MiB", bp, n)
    row("A/B wall", rw, n); row("A/B cpu", rc, n)
    if (bad) printf "(%d pairs had a command exit non-zero)\n", bad
  }'
