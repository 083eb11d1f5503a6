#!/usr/bin/env bash
# One very large transaction (default: an 11M-row INSERT ... SELECT, about 2 GB, written by a
# real MariaDB with scripts/gen_big_transaction.sh and cached): binrecover against
# mariadb-binlog in the same run, every mode, wall time, CPU time and peak RSS.
#   bash bench/big_transaction.sh            # ROWS=11000000
#   ROWS=1400000 bash bench/big_transaction.sh
# Writes bench/results/big_transaction.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-11000000}
RUNS=${RUNS:-3}
BINRECOVER=${BINRECOVER:-build/binrecover}
log() { echo "big_transaction: $*" >&2; }
command -v /usr/bin/time >/dev/null || { log "needs GNU time (apt-get install time)"; exit 2; }
F=$(scripts/gen_big_transaction.sh "$ROWS")
size=$(stat -c %s "$F")
mb=$(awk -v b="$size" 'BEGIN { printf "%.0f", b / 1048576 }')
first_dml=$("$BINRECOVER" events --format=tsv "$F" |
  awk -F'\t' '$3 == "Gtid" && $6 ~ /^BEGIN/ && !done { print $2; done = 1 }')
log "binlog $F: $mb MiB, $ROWS rows in one transaction"

labels=(mb_sql br_sql mb_sql_pipe br_sql_pipe mb_v br_v br_rows mb_fb br_fb)
declare -A cmd best cpu rss
cmd[mb_sql]="mariadb-binlog --no-defaults $F"
cmd[br_sql]="$BINRECOVER $F"
cmd[mb_sql_pipe]="sh -c 'cat $F | mariadb-binlog --no-defaults -'"
cmd[br_sql_pipe]="sh -c 'cat $F | $BINRECOVER -'"
cmd[mb_v]="mariadb-binlog --no-defaults --base64-output=decode-rows -v $F"
cmd[br_v]="$BINRECOVER --base64-output=decode-rows -v $F"
cmd[br_rows]="$BINRECOVER --rows-as-sql $F"
cmd[mb_fb]="mariadb-binlog --no-defaults --flashback --start-position=$first_dml $F"
cmd[br_fb]="$BINRECOVER --flashback --start-position=$first_dml $F"
cat "$F" >/dev/null
t=$(mktemp)
trap 'rm -f "$t"' EXIT
for run in $(seq 1 "$RUNS"); do
  for l in "${labels[@]}"; do
    log "run $run/$RUNS: ${cmd[$l]}"
    t0=$(date +%s%N)
    eval "nice -n 5 /usr/bin/time -f '%M %U %S' -o '$t' ${cmd[$l]}" >/dev/null 2>/dev/null ||
      log "${cmd[$l]} failed"
    t1=$(date +%s%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
    read -r kb user sys < <(tail -1 "$t")
    if [ -z "${best[$l]:-}" ] || awk -v a="$secs" -v b="${best[$l]}" 'BEGIN { exit !(a < b) }'; then
      best[$l]=$secs
      cpu[$l]=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    fi
    if [ -z "${rss[$l]:-}" ] || [ "$kb" -gt "${rss[$l]}" ]; then rss[$l]=$kb; fi
  done
done
row() { printf '| `%s` | %s | %s | %.1f |\n' "${cmd[$1]//$F/FILE}" "${best[$1]}" "${cpu[$1]}" \
  "$(awk -v k="${rss[$1]}" 'BEGIN { print k / 1024 }')"; }
ratio() { awk -v a="${best[$1]}" -v b="${best[$2]}" 'BEGIN { printf "%.2f", a / b }'; }
{
  echo "# One $mb MiB transaction ($ROWS rows): binrecover vs mariadb-binlog"
  echo
  echo "Run $(date -u '+%Y-%m-%d %H:%M UTC'), git $(git rev-parse --short HEAD), best of $RUNS, output to /dev/null,"
  echo "$(nproc) cores, $(mariadb-binlog --version | head -1)."
  echo
  echo "| command | wall s | CPU s | peak RSS MiB |"
  echo "|---|---|---|---|"
  for l in "${labels[@]}"; do row "$l"; done
  echo
  echo "- SQL output: binrecover $(ratio mb_sql br_sql)x mariadb-binlog (both from a pipe: $(ratio mb_sql_pipe br_sql_pipe)x:"
  echo "  binrecover spills a pipe's large transaction to a temporary file to read it twice)"
  echo "- rows as comments (-v): $(ratio mb_v br_v)x; --rows-as-sql: $(ratio mb_v br_rows)x mariadb-binlog -v"
  echo "- --flashback: $(ratio mb_fb br_fb)x"
} | tee bench/results/big_transaction.md
