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
#   huge     one 255 MB transaction (scripts/gen_big_transaction.sh, as tests/integration/
#            big_transaction.sh)
#   mysqlz   MySQL 9.7 with binlog_transaction_compression (scripts/mysql_server.sh): oltp
#            transactions and INSERT ... SELECT of 2,000 wide rows, against MySQL's own
#            mysqlbinlog 9.7 (run from the chroot's files by its own loader, no chroot set up
#            per run)
# Modes: sql, v, vv (--base64-output=decode-rows -v/-vv), rows (--rows-as-sql, against the
# other tool's -v), flashback (from the first row transaction after the last DDL; not for
# stmt, nor mysqlz: mysqlbinlog has none), database (--database=s; huge: big), events and
# stats (against the other tool's SQL output).
# Environment: BENCH_PORT (24990), BENCH_RUNS (5), BENCH_SCALE (1: ~100-250 MB per shape),
# BINRECOVER, BENCH_MODES (a subset of the modes), BENCH_OUT (another results file). The logs
# are cached in ${XDG_CACHE_HOME:-~/.cache}/binrecover/shape-NAME-KEY/.
# Results: bench/results/shapes.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BENCH_PORT=${BENCH_PORT:-24990}
BENCH_RUNS=${BENCH_RUNS:-5}
BENCH_SCALE=${BENCH_SCALE:-1}
BINRECOVER=${BINRECOVER:-$root/build/binrecover}
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(oltp bulk narrow blob stmt huge mysqlz)
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
    mysqlz)
      n=$((60 * $2))
      echo "CREATE TABLE s.o (id INT PRIMARY KEY, a INT, b VARCHAR(40), c DATETIME);"
      echo "DELIMITER //"
      echo "CREATE PROCEDURE s.gen(n INT) BEGIN DECLARE i INT DEFAULT 0;
        WHILE i < n DO
          START TRANSACTION;
          INSERT INTO s.o VALUES (i * 10 + 1, i, LEFT(SHA2(RAND(), 256), 32), NOW()), (i * 10 + 2, i, 'x', NOW());
          UPDATE s.o SET a = a + 1, b = CONCAT(LEFT(b, 30), '!') WHERE id = i * 10 + 1;
          DELETE FROM s.o WHERE id = i * 10 + 2;
          COMMIT;
          SET i = i + 1;
        END WHILE; END//"
      echo "DELIMITER ;"
      echo "CALL s.gen($((20000 * $2)));"
      echo "CREATE TABLE s.wide (id BIGINT UNSIGNED PRIMARY KEY, a INT UNSIGNED, d DECIMAL(14,4),
        t DATETIME(6), v VARCHAR(200), txt TEXT NULL, v2 VARCHAR(1300));"
      echo "SET SESSION cte_max_recursion_depth = 100000;"
      for i in $(seq 1 "$n"); do
        echo "INSERT INTO s.wide WITH RECURSIVE q(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM q
          WHERE n < 2000) SELECT n + $i * 10000, n * 7, n / 3, '2026-01-01' + INTERVAL n SECOND,
          CONCAT(REPEAT('张三李四', 8), n, '😀'), IF(n % 5 = 0, NULL, REPEAT(LEFT(SHA2(RAND(), 256), 32), 8)),
          CONCAT(SHA2(CONCAT(n, RAND()), 256), SHA2(RAND(), 512)) FROM q;"
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
  local name=$1 out=$2 srv fmt=ROW server=scripts/mariadb_server.sh
  [ "$name" = stmt ] && fmt=STATEMENT
  [ "$name" = mysqlz ] && server=scripts/mysql_server.sh  # (compression on by default there)
  srv=$(mktemp -d "$cache_root/.gen-XXXXXX")
  nice -n 10 "$server" start "$srv/db" "$BENCH_PORT" --max-binlog-size=1G \
    --binlog-format="$fmt" --binlog-row-metadata=FULL --sync-binlog=0 \
    --innodb-flush-log-at-trx-commit=0 > /dev/null
  local client=(mariadb --no-defaults -h127.0.0.1 -P"$BENCH_PORT" -uroot --default-character-set=utf8mb4)
  "${client[@]}" -e "CREATE DATABASE s; FLUSH BINARY LOGS"
  shape_sql "$name" "$BENCH_SCALE" | "${client[@]}" s
  "$server" stop "$srv/db" > /dev/null
  mkdir -p "$out"
  while read -r f; do
    f=$(basename "$f")
    [ "$f" = mysql-bin.000001 ] && continue  # (the server's start: no shape in it)
    mv "$srv/db/binlog/$f" "$out/"
    echo "$f" >> "$out/files"
  done < "$srv/db/binlog/mysql-bin.index"
  rm -rf "$srv"
}

# paired A B: "cpu_a cpu_b wall_a wall_b" medians over BENCH_RUNS pairs.
paired() {
  bash bench/paired.sh -n "$BENCH_RUNS" -- "$1" "$2" |
    awk '/^A cpu s/ { a = $5 } /^B cpu s/ { b = $5 } /^A wall s/ { wa = $5 } /^B wall s/ { wb = $5 }
      END { print a, b, wa, wb }'
}
faults() {  # faults CMD: "minor-faults peak-KiB"
  /usr/bin/time -f "%R %M" -o /tmp/binrecover-shape-time sh -c "$1" > /dev/null 2>&1 || true
  cat /tmp/binrecover-shape-time
}

out=${BENCH_OUT:-bench/results/shapes.md}
{
  echo "# Shapes (bench/shapes.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), git $(git rev-parse --short HEAD))"
  echo
  echo "CPU and wall seconds, medians of $BENCH_RUNS paired runs (bench/paired.sh), output to /dev/null;"
  echo "speed-up = the other tool's CPU / binrecover's; faults and peak RSS of one run of binrecover."
  echo
  echo "| shape | MB | mode | binrecover CPU s | other tool CPU s | speed-up | binrecover wall s | other tool wall s | minor faults | peak RSS MiB |"
  echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
} > "$out.tmp"
mkdir -p "$cache_root"
# MySQL's mysqlbinlog 9.7 from the chroot's files, by the chroot's own loader (the chroot's
# mount namespace costs 0.2 s a run, more than reading a small log).
mysqlbinlog_cmd() {
  local root
  root=$(scripts/mysql_server.sh chroot)
  echo "$root/usr/lib64/ld-linux-x86-64.so.2 --library-path $root/usr/lib/x86_64-linux-gnu $root/usr/bin/mysqlbinlog"
}

for shape in "${shapes[@]}"; do
  if [ "$shape" = huge ]; then
    files=$(BIG_PORT=$BENCH_PORT scripts/gen_big_transaction.sh)
    db=big
  else
    key=$({ declare -f shape_sql make_shape; echo "$shape $BENCH_SCALE"; mariadbd --version 2> /dev/null ||
      /usr/sbin/mariadbd --version; } | sha256sum | cut -c1-12)
    dir=$cache_root/shape-$shape-$key
    if [ ! -f "$dir/files" ]; then
      log "generating the $shape shape into $dir"
      rm -rf "$dir"
      make_shape "$shape" "$dir"
    fi
    files=$(sed "s|^|$dir/|" "$dir/files" | tr '\n' ' ')
    db=s
  fi
  mb=$(cat $files | wc -c | awk '{ printf "%.0f", $1 / 1e6 }')
  log "$shape: $mb MB"
  tool="mariadb-binlog --no-defaults --skip-gtid-strict-mode"
  [ "$shape" = mysqlz ] && tool="$(mysqlbinlog_cmd) --no-defaults"
  # Where flashback starts: the first row transaction after the last DDL (DDL cannot be
  # undone: binrecover refuses a range that holds it).
  first=$($BINRECOVER events --no-defaults --format=tsv $files |
    awk -F'\t' '$3 == "Gtid" && $6 !~ /^BEGIN/ { first = ""; next }
      $3 == "Gtid" && $6 ~ /^BEGIN/ && first == "" { first = $2 } END { print first }')
  for mode in ${BENCH_MODES:-sql v vv rows flashback database events stats}; do
    ours='' theirs=''
    case $mode in
      sql) ours="$BINRECOVER --no-defaults $files"; theirs="$tool $files" ;;
      v) ours="$BINRECOVER --no-defaults --base64-output=decode-rows -v $files"
         theirs="$tool --base64-output=decode-rows -v $files" ;;
      vv) ours="$BINRECOVER --no-defaults --base64-output=decode-rows -vv $files"
          theirs="$tool --base64-output=decode-rows -vv $files" ;;
      rows) ours="$BINRECOVER --no-defaults --rows-as-sql $files"
            theirs="$tool --base64-output=decode-rows -v $files" ;;
      flashback)
        [ "$shape" = stmt ] || [ "$shape" = mysqlz ] || [ -z "$first" ] && continue
        ours="$BINRECOVER --no-defaults --flashback --start-position=$first $files"
        theirs="$tool --flashback --start-position=$first $files" ;;
      database) ours="$BINRECOVER --no-defaults --database=$db $files"; theirs="$tool --database=$db $files" ;;
      events) ours="$BINRECOVER events --no-defaults $files"; theirs="$tool $files" ;;
      stats) ours="$BINRECOVER stats --no-defaults $files"; theirs="$tool $files" ;;
    esac
    sh -c "$ours" > /dev/null 2> /tmp/binrecover-shape-err ||
      { log "$shape $mode: binrecover failed: $(tail -1 /tmp/binrecover-shape-err)"; exit 1; }
    read -r a b wa wb < <(paired "$ours" "$theirs")
    read -r f m < <(faults "$ours")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f |\n' "$shape" "$mb" "$mode" "$a" "$b" \
      "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2fx", (a > 0 ? b / a : 0) }')" "$wa" "$wb" "$f" \
      "$(awk -v m="$m" 'BEGIN { print m / 1024 }')" >> "$out.tmp"
  done
done
echo >> "$out.tmp"
{
  echo "(rows: --rows-as-sql against the other tool's -v; events and stats against its SQL output,"
  echo "the nearest thing it does. The other tool is mariadb-binlog, and for mysqlz MySQL's"
  echo "mysqlbinlog 9.7. flashback starts at the first row transaction after the last DDL; not"
  echo "for stmt or mysqlz.)"
} >> "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
