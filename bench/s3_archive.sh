#!/usr/bin/env bash
# Benchmark: binrecover archive --to s3:// against s3cmd put of the same file, both into the same
# real Ceph RADOS Gateway (scripts/rgw_server.sh), the binlog served by a real MariaDB over
# loopback; and binrecover's peak RSS on a 1 GiB binlog.
#   bash bench/s3_archive.sh [BINLOG]   # default: the largest binlog in the bench cache
# Environment: BENCH_PORT (default 24501; the gateway takes 10 ports from there, the server the
# next), BENCH_RUNS (default 3), BINRECOVER (build/binrecover), BENCH_1G=0 to skip the 1 GiB
# file (generated once by a real MariaDB, cached in ~/.cache/binrecover/s3-bench-1g-KEY/).
# Timing and memory by bench/paired.sh (paired, interleaved whole-process runs; medians).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
root=$PWD
BENCH_PORT=${BENCH_PORT:-24501}
BENCH_RUNS=${BENCH_RUNS:-3}
BINRECOVER=${BINRECOVER:-$root/build/binrecover}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/binrecover
binlog=${1:-$(ls -S "$cache"/bench-*/mysql-bin.000001 2> /dev/null | head -1)}
[ -f "$binlog" ] || { echo "bench: no binlog: run bash bench/run.sh first, or name one" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-bench-s3.XXXXXX")
sport=$((BENCH_PORT + 10))
trap 'scripts/mariadb_server.sh stop "$work/srv" > /dev/null 2>&1 || true
  scripts/mariadb_server.sh stop "$work/gen" > /dev/null 2>&1 || true
  scripts/rgw_server.sh stop "$work/rgw" > /dev/null 2>&1 || true; rm -rf "$work"' EXIT

scripts/rgw_server.sh start "$work/rgw" "$BENCH_PORT"
# shellcheck disable=SC1091
source "$work/rgw/s3.env"
cp "$work/rgw/s3cmd.cfg" "$work/s3cfg"
s3cmd -q -c "$work/s3cfg" mb s3://bench

# The 1 GiB binlog: rows of 1 MiB written by a real MariaDB (cached).
if [ "${BENCH_1G:-1}" = 1 ]; then
  key=$(/usr/sbin/mariadbd --version | md5sum | cut -c1-12)
  big=$cache/s3-bench-1g-$key/mysql-bin.000001
  if [ ! -f "$cache/s3-bench-1g-$key/done" ]; then
    mkdir -p "$cache/s3-bench-1g-$key"
    scripts/mariadb_server.sh start "$work/gen" "$sport" --max-allowed-packet=64M \
      --max-binlog-size=1073741824 > /dev/null
    mariadb --no-defaults -h127.0.0.1 -P"$sport" -uroot -e "CREATE DATABASE b;
      CREATE TABLE b.t (id INT AUTO_INCREMENT PRIMARY KEY, v LONGTEXT) ENGINE=InnoDB"
    for i in $(seq 1 1000); do
      echo "INSERT INTO b.t (v) VALUES (REPEAT(SHA2('$i', 256), 16384));"
    done | mariadb --no-defaults -h127.0.0.1 -P"$sport" -uroot
    scripts/mariadb_server.sh stop "$work/gen"
    cp "$work/gen/binlog/mysql-bin.000001" "$big"
    touch "$cache/s3-bench-1g-$key/done"
  fi
fi

measure() {  # LABEL BINLOG
  local label=$1 file=$2 size
  size=$(stat -c %s "$file")
  server_with_binlog "$work/srv" "$sport" "$file"
  echo "== $label: $(basename "$file"), $((size / 1048576)) MiB"
  # (A: binrecover, B: s3cmd; each archive run into a folder of its own)
  # shellcheck disable=SC2016
  bash bench/paired.sh -n "$BENCH_RUNS" -- \
    "exec '$BINRECOVER' archive --no-defaults -h127.0.0.1 -P$sport -uroot --to s3://bench/a/ --s3-folder=run-\$(date +%s%N) mysql-bin.000001" \
    "exec s3cmd -q -c '$work/s3cfg' put '$file' s3://bench/s3cmd/$(basename "$file")" |
    tee "$work/$label.out"
  # The copy is the file: the last run's object against the file (by s3cmd).
  last=$(s3cmd -c "$work/s3cfg" ls s3://bench/a/ | awk '{ print $2 }' | sort | tail -1)
  s3cmd -q -c "$work/s3cfg" get "${last}mysql-bin.000001" "$work/copy" --force
  cmp "$file" "$work/copy" || { echo "bench: the archived object differs" >&2; exit 1; }
  echo "(the archived object is byte-identical to the file)"
  scripts/mariadb_server.sh stop "$work/srv"
}
measure bench "$binlog"
if [ "${BENCH_1G:-1}" = 1 ]; then
  # (the server's binlog of the 1 GiB file ends without a Rotate: archive reads to its end)
  measure 1g "$big"
fi
