#!/usr/bin/env bash
# Benchmark of many shapes (issue 35): binlogs of different shapes, each written by a real
# MariaDB 10.11 (scripts/mariadb_server.sh), each mode of binrecover against mariadb-binlog in
# the same run: CPU medians of paired whole-process runs (bench/paired.sh), peak RSS and minor
# page faults (/usr/bin/time).
#   bash bench/shapes.sh [SHAPE...]
# Shapes:
#   oltp     small transactions of 1-10 narrow rows (INSERT, UPDATE, DELETE by key)
#   bulk     INSERT ... SELECT of 2,000 wide rows (~3 MB each: DECIMAL, DATETIME(6), ENUM, CJK and
#            emoji VARCHAR, nullable TEXT, a 1,200-byte VARCHAR)
#   narrow   INSERT ... SELECT of 5,000 rows of four integers
#   blob     rows of JSON documents and 20 KB BLOBs
#   stmt     the oltp shape in STATEMENT format
# Environment: BENCH_PORT (24990), BENCH_RUNS (5), BENCH_SCALE (1: ~100-250 MB per shape),
# BINRECOVER. The logs are cached in ${XDG_CACHE_HOME:-~/.cache}/binrecover/shape-NAME-KEY/.
# Results: bench/results/shapes.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BENCH_PORT=${BENCH_PORT:-24990}
BENCH_RUNS=${BENCH_RUNS:-5}
BENCH_SCALE=${BENCH_SCALE:-1}
BINRECOVER=${BINRECOVER:-$root/build/binrecover}
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(oltp bulk narrow blob stmt)
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
log() { echo "bench: $*" >&2; }
cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/binrecover

# The SQL that makes each shape ($1: the shape, $2: the scale).
shape_sql() {
  local n
  case $1 in
    oltp | stmt)
      n=$((30000 * $2))
      echo "CREATE TABLE s.o (id INT PRIMARY KEY, a INT, b VARCHAR(40), c DATETIME);"
      echo "DELIMITER //"
      echo "CREATE PROCEDURE s.gen(n INT) BEGIN DECLARE i INT DEFAULT 0;
        WHILE i < n DO
          START TRANSACTION;
          INSERT INTO s.o VALUES (i * 10 + 1, i, CONCAT('row ', i), NOW()), (i * 10 + 2, i, 'x', NOW()),
            (i * 10 + 3, i, 'y', NOW());
          UPDATE s.o SET a = a + 1, b = CONCAT(b, '!') WHERE id = i * 10 + 1;
          DELETE FROM s.o WHERE id = i * 10 + 2;
          COMMIT;
          SET i = i + 1;
        END WHILE; END//"
      echo "DELIMITER ;"
      for _ in $(seq 1 10); do echo "CALL s.gen($((n / 10)));"; echo "DELETE FROM s.o;"; done
      ;;
    bulk)
      n=$((90 * $2))
      echo "CREATE TABLE s.src (id BIGINT UNSIGNED PRIMARY KEY, a INT UNSIGNED, d DECIMAL(14,4),
        t DATETIME(6), e ENUM('x','y','z'), v VARCHAR(200), txt TEXT NULL, v2 VARCHAR(1300));"
      echo "INSERT INTO s.src SELECT seq, seq * 7, seq / 3, '2026-01-01' + INTERVAL seq SECOND,
        ELT(1 + seq % 3, 'x', 'y', 'z'), CONCAT(REPEAT('张三李四', 8), seq, '😀'),
        IF(seq % 5 = 0, NULL, REPEAT('text', 30)), REPEAT('abcdefghij', 120) FROM s.seq_1_to_2000;"
      echo "CREATE TABLE s.wide LIKE s.src;"
      for i in $(seq 1 "$n"); do
        echo "INSERT INTO s.wide SELECT id + $i * 10000, a, d, t, e, v, txt, v2 FROM s.src;"
      done
      ;;
    narrow)
      n=$((400 * $2))
      echo "CREATE TABLE s.n (id BIGINT PRIMARY KEY, a INT, b SMALLINT, c TINYINT);"
      for i in $(seq 1 "$n"); do
        echo "INSERT INTO s.n SELECT seq + $i * 10000, seq, seq % 30000, seq % 100 FROM s.seq_1_to_5000;"
      done
      ;;
    blob)
      n=$((3000 * $2))
      echo "CREATE TABLE s.b (id INT PRIMARY KEY, j JSON, b LONGBLOB);"
      echo "INSERT INTO s.b SELECT seq, JSON_OBJECT('k', seq, 'tags', JSON_ARRAY('a', 'b', seq),
        'text', REPEAT('lorem ipsum ', 40)), REPEAT(UNHEX(SHA2(seq, 256)), 640)
        FROM s.seq_1_to_$n;"
      echo "UPDATE s.b SET j = JSON_SET(j, '\$.k', id + 1) WHERE id % 2 = 0;"
      ;;
  esac
}

make_shape() {  # make_shape NAME DIR: the shape's binlog files into DIR, listed in DIR/files
  local name=$1 out=$2 srv fmt=ROW
  [ "$name" = stmt ] && fmt=STATEMENT
  srv=$(mktemp -d "$cache_root/.gen-XXXXXX")
  nice -n 10 scripts/mariadb_server.sh start "$srv/db" "$BENCH_PORT" --max-binlog-size=1G \
    --binlog-format="$fmt" --binlog-row-metadata=FULL --sync-binlog=0 \
    --innodb-flush-log-at-trx-commit=0 > /dev/null
  local client=(mariadb --no-defaults -h127.0.0.1 -P"$BENCH_PORT" -uroot --default-character-set=utf8mb4)
  "${client[@]}" -e "CREATE DATABASE s; FLUSH BINARY LOGS"
  shape_sql "$name" "$BENCH_SCALE" | "${client[@]}" s
  scripts/mariadb_server.sh stop "$srv/db" > /dev/null
  mkdir -p "$out"
  while read -r f; do
    f=$(basename "$f")
    [ "$f" = mysql-bin.000001 ] && continue  # (the server's start: no shape in it)
    mv "$srv/db/binlog/$f" "$out/"
    echo "$f" >> "$out/files"
  done < "$srv/db/binlog/mysql-bin.index"
  rm -rf "$srv"
}

# paired A B: "cpu_a cpu_b" medians over BENCH_RUNS pairs.
paired() {
  bash bench/paired.sh -n "$BENCH_RUNS" -- "$1" "$2" |
    awk '/^A cpu s/ { a = $5 } /^B cpu s/ { b = $5 } END { print a, b }'
}
faults() {  # faults CMD: "minor-faults peak-KiB"
  /usr/bin/time -f "%R %M" -o /tmp/binrecover-shape-time sh -c "$1" > /dev/null 2>&1 || true
  cat /tmp/binrecover-shape-time
}

out=bench/results/shapes.md
{
  echo "# Shapes (bench/shapes.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), git $(git rev-parse --short HEAD))"
  echo
  echo "CPU seconds, medians of $BENCH_RUNS paired runs (bench/paired.sh), output to /dev/null;"
  echo "speed-up = mariadb-binlog's CPU / binrecover's; faults and peak RSS of one run of binrecover."
  echo
  echo "| shape | MB | mode | binrecover CPU s | mariadb-binlog CPU s | speed-up | minor faults | peak RSS MiB |"
  echo "|---|---:|---|---:|---:|---:|---:|---:|"
} > "$out.tmp"
mkdir -p "$cache_root"
for shape in "${shapes[@]}"; do
  key=$({ declare -f shape_sql make_shape; echo "$shape $BENCH_SCALE"; mariadbd --version 2> /dev/null ||
    /usr/sbin/mariadbd --version; } | sha256sum | cut -c1-12)
  dir=$cache_root/shape-$shape-$key
  if [ ! -f "$dir/files" ]; then
    log "generating the $shape shape into $dir"
    rm -rf "$dir"
    make_shape "$shape" "$dir"
  fi
  files=$(sed "s|^|$dir/|" "$dir/files" | tr '\n' ' ')
  mb=$(cat $files | wc -c | awk '{ printf "%.0f", $1 / 1e6 }')
  log "$shape: $mb MB"
  for mode in sql v vv events stats; do
    case $mode in
      sql) ours="$BINRECOVER --no-defaults $files"; theirs="mariadb-binlog --no-defaults --skip-gtid-strict-mode $files" ;;
      v) ours="$BINRECOVER --no-defaults --base64-output=decode-rows -v $files"
         theirs="mariadb-binlog --no-defaults --skip-gtid-strict-mode --base64-output=decode-rows -v $files" ;;
      vv) ours="$BINRECOVER --no-defaults --base64-output=decode-rows -vv $files"
          theirs="mariadb-binlog --no-defaults --skip-gtid-strict-mode --base64-output=decode-rows -vv $files" ;;
      events) ours="$BINRECOVER events --no-defaults $files"; theirs="mariadb-binlog --no-defaults --skip-gtid-strict-mode $files" ;;
      stats) ours="$BINRECOVER stats --no-defaults $files"; theirs="mariadb-binlog --no-defaults --skip-gtid-strict-mode $files" ;;
    esac
    read -r a b < <(paired "$ours" "$theirs")
    read -r f m < <(faults "$ours")
    printf '| %s | %s | %s | %s | %s | %s | %s | %.1f |\n' "$shape" "$mb" "$mode" "$a" "$b" \
      "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2fx", (a > 0 ? b / a : 0) }')" "$f" \
      "$(awk -v m="$m" 'BEGIN { print m / 1024 }')" >> "$out.tmp"
  done
done
echo >> "$out.tmp"
echo "(events and stats are set against mariadb-binlog's SQL output, the nearest thing it does.)" >> "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
