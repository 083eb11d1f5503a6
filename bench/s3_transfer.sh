#!/usr/bin/env bash
# Benchmark: parallel transfers (--s3-streams) against s3cmd on the same real Ceph RADOS Gateway
# (scripts/rgw_server.sh), in the same run:
#  - download: the bench binlog as one object, read by `binrecover events` with 1, 4 and 8
#    streams, and by `s3cmd get OBJECT -` (both to /dev/null);
#  - upload: a backup of a database of BENCH_MIB MiB of random rows (incompressible) by
#    `binrecover backup --to` with 1 and 4 streams, against the same dump written by
#    `mariadb-dump | zstd` to a file and stored by `s3cmd put`.
# Wall and CPU seconds, peak RSS (medians of BENCH_RUNS, /usr/bin/time); every download's bytes
# checked against the file (events' rows counted; s3cmd's md5).
#   bash bench/s3_transfer.sh [BINLOG]   # default: the largest binlog in the bench cache
# Environment: BENCH_PORT (default 24561; the gateway takes 10 ports, the server the next),
# BENCH_RUNS (3), BENCH_MIB (256), BINRECOVER (build/binrecover). Writes
# bench/results/s3_transfer.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BENCH_PORT=${BENCH_PORT:-24561}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_MIB=${BENCH_MIB:-256}
BINRECOVER=${BINRECOVER:-$root/build/binrecover}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/binrecover
binlog=${1:-$(ls -S "$cache"/bench-*/mysql-bin.000001 2> /dev/null | head -1)}
[ -f "$binlog" ] || { echo "bench: no binlog: run bash bench/run.sh first, or name one" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-bench-xfer.XXXXXX")
sport=$((BENCH_PORT + 10))
trap 'scripts/mariadb_server.sh stop "$work/srv" > /dev/null 2>&1 || true
  scripts/rgw_server.sh stop "$work/rgw" > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
scripts/rgw_server.sh start "$work/rgw" "$BENCH_PORT" > /dev/null
# shellcheck disable=SC1091
source "$work/rgw/s3.env"
S3CMD=(s3cmd -q -c "$work/rgw/s3cmd.cfg")
"${S3CMD[@]}" mb s3://bench
size=$(stat -c %s "$binlog")
"${S3CMD[@]}" put "$binlog" s3://bench/log/mysql-bin.000001
want_md5=$(md5sum < "$binlog" | cut -d' ' -f1)
"$BINRECOVER" events --no-defaults --format=tsv "$binlog" | wc -l > "$work/want_events"
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# timed NAME COMMAND...: BENCH_RUNS runs of COMMAND (before each: BEFORE, if set), the medians
# of wall, CPU and peak RSS as one table row.
timed() {
  local name=$1 i
  shift
  : > "$work/t.all"
  for i in $(seq 1 "$BENCH_RUNS"); do
    [ -z "${BEFORE:-}" ] || eval "$BEFORE"
    /usr/bin/time -o "$work/t" -f "%e %U %S %M" "$@" 2> "$work/err" > "$work/out" ||
      { cat "$work/err" >&2; exit 1; }
    cat "$work/t" >> "$work/t.all"
  done
  awk -v n="$name" -v mib="$MIB" -v wall="$(awk '{ print $1 }' "$work/t.all" | median)" \
    -v cpu="$(awk '{ print $2 + $3 }' "$work/t.all" | median)" \
    -v rss="$(awk '{ print $4 }' "$work/t.all" | median)" \
    'BEGIN { printf "| %s | %.2f | %.2f | %.0f | %.1f |\n", n, wall, cpu, mib / wall, rss / 1024 }' >> "$out"
  echo "bench: $name done" >&2
}

out=bench/results/s3_transfer.md
{
  echo "# S3 transfers: --s3-streams against s3cmd"
  echo
  echo "- command: \`bash bench/s3_transfer.sh\` (medians of $BENCH_RUNS runs)"
  echo "- machine: $(nproc) cores; Ceph RGW on the same machine (loopback); binrecover git $(git rev-parse --short HEAD); $(s3cmd --version)"
  echo
  echo "## Download: $(basename "$binlog"), $((size / 1048576)) MiB, one object"
  echo
  echo "| reader | wall s | CPU s | MiB/s | peak RSS MiB |"
  echo "|---|---|---|---|---|"
} > "$out"
MIB=$((size / 1048576))
for n in 1 4 8; do
  timed "binrecover events --s3-streams=$n" "$BINRECOVER" events --no-defaults --format=tsv \
    --s3-streams=$n s3://bench/log/mysql-bin.000001
  [ "$(wc -l < "$work/out")" = "$(cat "$work/want_events")" ] || { echo "bench: events differ" >&2; exit 1; }
done
timed "s3cmd get OBJECT -" s3cmd -q -c "$work/rgw/s3cmd.cfg" get s3://bench/log/mysql-bin.000001 -
[ "$(md5sum < "$work/out" | cut -d' ' -f1)" = "$want_md5" ] || { echo "bench: s3cmd's copy differs" >&2; exit 1; }
rm -f "$work/out"

# Upload: a database of random rows (1 KiB each), dumped.
scripts/mariadb_server.sh start "$work/srv" "$sport" > /dev/null
M=(mariadb --no-defaults -h127.0.0.1 -P"$sport" -uroot)
rows=$((BENCH_MIB * 1024))
"${M[@]}" -e "CREATE DATABASE big; CREATE DATABASE seq; CREATE TABLE big.r (id INT PRIMARY KEY, b BLOB);
  INSERT INTO big.r SELECT seq, RANDOM_BYTES(1024) FROM seq.seq_1_to_$rows"
"${M[@]}" -e "RESET MASTER"  # (the backup's coordinates: a small binlog)
# (the options binrecover backup gives mariadb-dump: the same dump both ways)
DUMP="mariadb-dump --no-defaults -h127.0.0.1 -P$sport -uroot --single-transaction --routines \
  --events --triggers --hex-blob --default-character-set=utf8mb4 --master-data=2 --gtid \
  --databases big"
$DUMP | zstd -q -3 > "$work/dump.zst"
dumped=$(stat -c %s "$work/dump.zst")
MIB=$((dumped / 1048576))
{
  echo
  echo "## Upload: a backup of $BENCH_MIB MiB of random rows (dump + zstd -3: $MIB MiB stored)"
  echo
  echo "MiB/s is of the stored size. binrecover's backup dumps, compresses and uploads at once; the"
  echo "s3cmd way is the dump compressed into a file, then \`s3cmd put\` (its row: the upload alone)."
  echo
  echo "| writer | wall s | CPU s | MiB/s | peak RSS MiB |"
  echo "|---|---|---|---|---|"
} >> "$out"
for n in 1 4; do
  timed "binrecover backup --to --s3-streams=$n" "$BINRECOVER" backup --no-defaults -h127.0.0.1 \
    -P"$sport" -uroot --database=big --to=s3://bench/b$n/ --s3-streams=$n
done
timed "mariadb-dump, zstd -3 into a file" bash -c "$DUMP | zstd -q -3 > $work/d2.zst"
timed "s3cmd put file" s3cmd -q -c "$work/rgw/s3cmd.cfg" put "$work/dump.zst" s3://bench/put/dump.sql.zst
echo >> "$out"
echo "Every download was checked: events' lines equal the file's, s3cmd's copy has the file's MD5." >> "$out"
cat "$out"
