#!/usr/bin/env bash
# Benchmark: binrecover archive vs mariadb-binlog -R --raw, over loopback from a real MariaDB
# serving a large binlog (the one bench/run.sh generates and caches).
#   bash bench/archive.sh [BINLOG]     # default: the largest binlog in the bench cache
# Environment: BENCH_PORT (default 23392), BENCH_RUNS (default 3), BINRECOVER (build/binrecover).
# Each run copies the whole file into a fresh folder; the commands are interleaved. Reported:
# wall and CPU seconds, MiB/s, peak RSS (GNU time). binrecover archive fsyncs what it wrote
# (every second and at the end); mariadb-binlog does not, so it is also timed followed by
# `sync -f` on its copy, which is what a backup needs before it can be trusted.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
root=$PWD
BENCH_PORT=${BENCH_PORT:-23392}
BENCH_RUNS=${BENCH_RUNS:-3}
BINRECOVER=${BINRECOVER:-$root/build/binrecover}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/binrecover
binlog=${1:-$(ls -S "$cache"/bench-*/mysql-bin.000001 2> /dev/null | head -1)}
[ -f "$binlog" ] || { echo "bench: no binlog: run bash bench/run.sh first, or name one" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-bench-archive.XXXXXX")
trap 'scripts/mariadb_server.sh stop "$work/srv" > /dev/null 2>&1 || true
  scripts/mysql_server.sh stop "$work/my" > /dev/null 2>&1 || true; rm -rf "$work"' EXIT

# A server whose first binlog is the bench binlog.
server_with_binlog "$work/srv" "$BENCH_PORT" "$binlog"
size=$(stat -c %s "$binlog")
conn=(--no-defaults -h127.0.0.1 -P"$BENCH_PORT" -uroot)

run() {  # NAME COMMAND...: one timed run, "wall cpu peak_kib" appended to $work/NAME
  local name=$1
  shift
  rm -rf "$work/out" && mkdir "$work/out"
  /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$@" > /dev/null 2>&1
  awk '{ print $1, $2 + $3, $4 }' "$work/t" >> "$work/$name"
}
for _ in $(seq 1 "$BENCH_RUNS"); do
  run binrecover "$BINRECOVER" archive "${conn[@]}" --dir="$work/out" mysql-bin.000001
  cmp -s "$binlog" "$work/out/mysql-bin.000001" || { echo "bench: the copy differs" >&2; exit 1; }
  run mariadb_binlog mariadb-binlog "${conn[@]}" -R --raw --to-last-log \
    --result-file="$work/out/" mysql-bin.000001
  run mariadb_binlog_sync sh -c "mariadb-binlog $(printf '%q ' "${conn[@]}") -R --raw --to-last-log --result-file=$work/out/ mysql-bin.000001 && sync -f $work/out/mysql-bin.000001"
done
# MySQL 9.7 (the sid chroot of scripts/mysql_server.sh), against its own mysqlbinlog: a binlog
# of about the same size written there (uncompressed transactions of 1 KiB rows).
mysql_rows=
if [ "${BENCH_MYSQL:-1}" = 1 ] && scripts/mysql_server.sh chroot > /dev/null 2>&1; then
  mport=$((BENCH_PORT + 1))
  scripts/mysql_server.sh start "$work/my" "$mport" --binlog-transaction-compression=OFF \
    --max-binlog-size=1G --innodb-buffer-pool-size=256M > /dev/null
  mysql_client=(mariadb --no-defaults -h127.0.0.1 -P"$mport" -uroot)
  "${mysql_client[@]}" -e "CREATE DATABASE b; CREATE TABLE b.t (id INT PRIMARY KEY, v VARCHAR(1100));
    SET SESSION cte_max_recursion_depth = 100000;
    INSERT INTO b.t WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 100000)
      SELECT x, REPEAT(CHAR(65 + x % 26), 1000) FROM s"
  for k in 1 2; do "${mysql_client[@]}" -e "UPDATE b.t SET v = REPEAT(CHAR(66 + (id + $k) % 20), 1000 + $k)"; done
  "${mysql_client[@]}" -e "FLUSH BINARY LOGS"
  mfile=$work/my/binlog/mysql-bin.000001
  msize=$(stat -c %s "$mfile")
  mconn=(--no-defaults -h127.0.0.1 -P"$mport" -uroot)
  for _ in $(seq 1 "$BENCH_RUNS"); do
    run my_binrecover "$BINRECOVER" archive "${mconn[@]}" --dir="$work/out" mysql-bin.000001
    cmp -s "$mfile" "$work/out/mysql-bin.000001" || { echo "bench: the MySQL copy differs" >&2; exit 1; }
    run my_mysqlbinlog scripts/mysql_server.sh exec mysqlbinlog "${mconn[@]}" -R --raw \
      --result-file="$work/out/" mysql-bin.000001
    run my_mysqlbinlog_sync sh -c "scripts/mysql_server.sh exec mysqlbinlog $(printf '%q ' "${mconn[@]}") -R --raw --result-file=$work/out/ mysql-bin.000001 && sync -f $work/out/mysql-bin.000001"
  done
  scripts/mysql_server.sh stop "$work/my"
  mysql_rows=1
fi

# table SIZE PREFIX TOOL: the markdown rows of one input (the runs named PREFIX+binrecover,
# PREFIX+TOOL_NAME and PREFIX+TOOL_NAME_sync, TOOL the server's own tool).
table() {
  local size=$1 prefix=$2 tool=$3 name
  echo "| command | wall s | cpu s | MiB/s | peak RSS MiB |"
  echo "|---|---|---|---|---|"
  for name in binrecover "${tool//-/_}" "${tool//-/_}_sync"; do
    sort -n "$work/$prefix$name" | head -1 | awk -v n="$name" -v s="$size" -v tool="$tool" '{
      label = n == "binrecover" ? "binrecover archive (fsynced)" : n ~ /_sync$/ ? tool " -R --raw, then sync -f" : tool " -R --raw (not synced)"
      printf "| %s | %.2f | %.2f | %.0f | %.1f |\n", label, $1, $2, s / 1048576 / $1, $3 / 1024 }'
  done
}

{
  echo "# binrecover archive vs mariadb-binlog -R --raw ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "Input: $((size / 1048576)) MiB binlog served by MariaDB $(mariadbd --version | awk '{print $3}') over loopback; best of $BENCH_RUNS runs each, interleaved."
  echo
  table "$size" "" mariadb-binlog
  if [ -n "$mysql_rows" ]; then
    echo
    echo "MySQL 9.7.4: a $((msize / 1048576)) MiB binlog (uncompressed), against sid's mysqlbinlog (run in the chroot: its start-up, about 0.1 s, is in its times)."
    echo
    table "$msize" my_ mysqlbinlog
  fi
} | tee bench/results/archive.md
