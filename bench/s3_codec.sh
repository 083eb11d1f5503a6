#!/usr/bin/env bash
# Benchmark: binrecover archive --to s3:// of the bench binlog into a real Ceph RADOS Gateway
# (scripts/rgw_server.sh), the binlog served by a real MariaDB over loopback, in each way of
# storing it: byte for byte, --zstd, --zstd with --encryption-key-file, the key alone. For each:
# wall and CPU seconds, peak RSS (medians of BENCH_RUNS, /usr/bin/time), the bytes stored and
# the ratio to the file, and that the archive reads back equal (SQL output of the bucket against
# the file's, with the key).
#   bash bench/s3_codec.sh [BINLOG]   # default: the largest binlog in the bench cache
# Environment: BENCH_PORT (default 24521; the gateway takes 10 ports, the server the next),
# BENCH_RUNS (3), BINRECOVER (build/binrecover). Writes bench/results/s3_codec.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
root=$PWD
BENCH_PORT=${BENCH_PORT:-24521}
BENCH_RUNS=${BENCH_RUNS:-3}
BINRECOVER=${BINRECOVER:-$root/build/binrecover}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/binrecover
binlog=${1:-$(ls -S "$cache"/bench-*/mysql-bin.000001 2> /dev/null | head -1)}
[ -f "$binlog" ] || { echo "bench: no binlog: run bash bench/run.sh first, or name one" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-bench-codec.XXXXXX")
sport=$((BENCH_PORT + 10))
trap 'scripts/mariadb_server.sh stop "$work/srv" > /dev/null 2>&1 || true
  scripts/rgw_server.sh stop "$work/rgw" > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
scripts/rgw_server.sh start "$work/rgw" "$BENCH_PORT" > /dev/null
# shellcheck disable=SC1091
source "$work/rgw/s3.env"
s3cmd -q -c "$work/rgw/s3cmd.cfg" mb s3://bench
server_with_binlog "$work/srv" "$sport" "$binlog"
openssl rand -hex 32 > "$work/key"
chmod 600 "$work/key"
size=$(stat -c %s "$binlog")
"$BINRECOVER" --no-defaults "$binlog" | md5sum > "$work/want"
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

out=bench/results/s3_codec.md
{
  echo "# Archive to S3: compression and encryption at rest"
  echo
  echo "- command: \`bash bench/s3_codec.sh\` (medians of $BENCH_RUNS runs, each into a new folder)"
  echo "- input: $(basename "$binlog"), $((size / 1048576)) MiB, served by MariaDB over loopback"
  echo "- machine: $(nproc) cores; Ceph RGW on the same machine; binrecover git $(git rev-parse --short HEAD)"
  echo
  echo "| way | wall s | CPU s | MiB/s | peak RSS MiB | stored MiB | stored / file |"
  echo "|---|---|---|---|---|---|---|"
} > "$out"
for way in plain zstd zstd+key key; do
  opts=()
  case $way in
    zstd) opts=(--zstd) ;;
    zstd+key) opts=(--zstd --encryption-key-file="$work/key") ;;
    key) opts=(--encryption-key-file="$work/key") ;;
  esac
  : > "$work/t.all"
  for i in $(seq 1 "$BENCH_RUNS"); do
    /usr/bin/time -o "$work/t" -f "%e %U %S %M" "$BINRECOVER" archive --no-defaults -h127.0.0.1 \
      -P"$sport" -uroot --to "s3://bench/$way/" --s3-folder="run$i" "${opts[@]}" 2> "$work/err" ||
      { cat "$work/err" >&2; exit 1; }
    cat "$work/t" >> "$work/t.all"
  done
  wall=$(awk '{ print $1 }' "$work/t.all" | median)
  cpu=$(awk '{ print $2 + $3 }' "$work/t.all" | median)
  rss=$(awk '{ print $4 }' "$work/t.all" | median)
  stored=$(s3cmd -c "$work/rgw/s3cmd.cfg" du "s3://bench/$way/run1/" | awk '{ print $1 }')
  # (the archive reads back as the file: SQL output compared)
  "$BINRECOVER" --no-defaults --encryption-key-file="$work/key" "s3://bench/$way/run1/mysql-bin.000001" |
    md5sum | cmp -s - "$work/want" || { echo "bench: $way does not read back as the file" >&2; exit 1; }
  awk -v w="$way" -v wall="$wall" -v cpu="$cpu" -v rss="$rss" -v st="$stored" -v sz="$size" \
    'BEGIN { printf "| %s | %.2f | %.2f | %.0f | %.1f | %.1f | %.3f |\n", w, wall, cpu, sz / 1048576 / wall, rss / 1024, st / 1048576, st / sz }' >> "$out"
  echo "bench: $way done" >&2
done
echo >> "$out"
echo "Every archive read back equal to the file (SQL output of the bucket with the key = of the file)." >> "$out"
cat "$out"
