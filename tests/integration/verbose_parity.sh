#!/usr/bin/env bash
# -v / -vv row values and type comments equal the server's own tool, line for line: every ###
# line of binrecover against mariadb-binlog 10.11 for MariaDB logs and mysqlbinlog 9.7 (the
# chroot of scripts/mysql_server.sh) for MySQL logs, over testdata/ and every binlog of
# ../shared/corpus (read in place), and a log of partial JSON updates written by a real MySQL
# 9.7 here (binlog_row_value_options=PARTIAL_JSON: replace, insert, array insert and remove,
# several in one statement, string, number, boolean, null, date, object and array values,
# quotes and control characters in values and paths, a top-level JSON string) with their
# nested, multi-line JSON_...() text. Skips the corpus part without ../shared/corpus.
#   bash tests/integration/verbose_parity.sh [PORT]   (PORT: the MySQL server's)
source "$(dirname "$0")/lib.sh"
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
P=${1:-25031}
use_mysql
start_mysql pj "$P" --binlog-row-image=MINIMAL > /dev/null || fail "MySQL did not start"
long=$(printf 'x%.0s' $(seq 1 400))
mariadb --no-defaults -h127.0.0.1 -P"$P" -uroot -e "CREATE DATABASE pj;
  CREATE TABLE pj.j (id INT PRIMARY KEY, d JSON);
  INSERT INTO pj.j VALUES (1, '{\"a\": 1, \"b\": \"x\", \"c\": [1, 2, 3], \"s\": \"$long\"}'),
    (2, '\"a top-level string\"'), (3, '[1, 2, \"$long\"]');
  UPDATE pj.j SET d = JSON_REPLACE(d, '\$.a', 2) WHERE id = 1;
  UPDATE pj.j SET d = JSON_SET(d, '\$.a', 3, '\$.b', 'it''s \"q\"\\n\\ttab') WHERE id = 1;
  UPDATE pj.j SET d = JSON_REPLACE(d, '\$.c', JSON_ARRAY(4, JSON_OBJECT('k', 'v'))) WHERE id = 1;
  UPDATE pj.j SET d = JSON_REMOVE(d, '\$.c[0]') WHERE id = 1;
  UPDATE pj.j SET d = JSON_ARRAY_INSERT(d, '\$.c[0]', 9, '\$.c[1]', 'y') WHERE id = 1;
  UPDATE pj.j SET d = JSON_INSERT(JSON_REPLACE(d, '\$.a', 4), '\$.new', JSON_OBJECT('k', 1)) WHERE id = 1;
  UPDATE pj.j SET d = JSON_SET(d, '\$.a', 1.5, '\$.t', TRUE, '\$.n', NULL, '\$.\"odd key\"', -7) WHERE id = 1;
  UPDATE pj.j SET d = JSON_REPLACE(d, '\$.a', CAST('2020-01-02' AS DATE), '\$.b', CAST('12:30:00' AS TIME)) WHERE id = 1;
  UPDATE pj.j SET d = JSON_REMOVE(JSON_REMOVE(d, '\$.t'), '\$.n') WHERE id = 1;
  UPDATE pj.j SET d = JSON_REPLACE(d, '\$[0]', 5) WHERE id = 3;
  UPDATE pj.j SET d = '\"another top-level string\"' WHERE id = 2;
  FLUSH BINARY LOGS" || fail "the partial JSON workload failed on MySQL"
files=("$ROOT"/testdata/row/mysql-bin.000001 "$WORK/pj/binlog/mysql-bin.000001")
if [ -d "$CORPUS" ]; then
  mapfile -t more < <(find "$CORPUS" -type f \( -name '*bin*.0*' -o -name '*.binlog' \) | sort)
  files+=("${more[@]}")
fi
# Each log's server version; mysqlbinlog 9.7 -vv over every MySQL log in one run of the chroot
# (WORK/my/N.bin into N.vv). Its -v lines are those of -vv without the type comment that ends
# each column line ("@1=5 /* INT meta=0 nullable=0 is_null=0 */"), and the GTID events' lines are
# the same whatever --base64-output says: one run of mysqlbinlog a log, not three (checked on
# the 156 MySQL logs of the corpus, 2026-12-06: the -v and plain runs gave exactly these lines).
declare -A ver_of my_of
mkdir "$WORK/my"
nmy=0
for f in "${files[@]}"; do
  ver=$("$BINRECOVER" events --limit=1 "$f" 2> /dev/null | sed -n 's/.*Server ver: \([^,]*\),.*/\1/p') || true
  ver_of[$f]=$ver
  [ -n "$ver" ] && [[ $ver != *MariaDB* ]] || continue
  my_of[$f]=$WORK/my/$nmy
  nmy=$((nmy + 1))
  cp "$f" "${my_of[$f]}.bin"
done
"$MYSQL_SERVER" exec bash -c 'for b in "$1"/*.bin; do
  n=${b%.bin}
  mysqlbinlog --base64-output=decode-rows -vv "$b" > "$n.vv" 2> /dev/null || true
done' _ "$WORK/my" || fail "mysqlbinlog did not run in the chroot"
for n in "${my_of[@]}"; do
  sed -E 's# /\* [A-Za-z0-9_/]+(\([^)]*\))? meta=[0-9]+ nullable=[01] is_null=[01] \*/$##' \
    "$n.vv" > "$n.v"
done
compared=0 json=0 logs=0
for f in "${files[@]}"; do
  ver=${ver_of[$f]}
  [ -n "$ver" ] || continue
  for v in -v -vv; do
    # (a file the tool cannot read whole is compared as far as both read it)
    "$BINRECOVER" --local-load="$WORK/load" --base64-output=decode-rows $v "$f" 2> /dev/null | grep -a '^###\|^# Number of rows: ' > "$WORK/ours" || true
    if [[ $ver == *MariaDB* ]]; then
      mariadb-binlog --base64-output=decode-rows $v "$f" 2> /dev/null | grep -a '^###\|^# Number of rows: ' > "$WORK/theirs" || true
    else
      grep -a '^###' "${my_of[$f]}.${v#-}" > "$WORK/theirs" || true
    fi
    [ -s "$WORK/theirs" ] || continue
    logs=$((logs + 1))
    n=$(wc -l < "$WORK/theirs")
    compared=$((compared + n))
    json=$((json + $(grep -ac 'JSON_\(REPLACE\|INSERT\|ARRAY_INSERT\|REMOVE\)(' "$WORK/theirs" || true)))
    # (mysqlbinlog's "### Extra row info for partitioning" line is not written: documented)
    diff <(grep -av '^### Extra row info' "$WORK/theirs") "$WORK/ours" > "$WORK/diff" ||
      { head -20 "$WORK/diff"; fail "$v of $f ($ver) differs from the tool's"; }
  done
done
[ "$logs" -gt 0 ] || fail "no log compared"

# MySQL logs: each GTID event's lines (its header with the commit timestamps and transaction
# length, the session settings of a replica, GTID_NEXT) as mysqlbinlog 9.7 writes them.
gtid_lines() { grep -aE $'\t(Anonymous_)?GTID\tlast_committed=|^/\*!(50718|80001|80014) SET |^# (original|immediate)_commit_timestamp=|^SET @@SESSION.GTID_NEXT= ' | grep -av ' added by ' || true; }
glogs=0 glines=0
for f in "${files[@]}"; do
  [ -n "${my_of[$f]:-}" ] || continue
  ver=${ver_of[$f]}
  gtid_lines < "${my_of[$f]}.vv" > "$WORK/theirs"
  [ -s "$WORK/theirs" ] || continue
  { TZ=UTC "$BINRECOVER" --no-defaults --local-load="$WORK/load" "$f" 2> /dev/null || true; } | gtid_lines > "$WORK/ours"
  diff "$WORK/theirs" "$WORK/ours" > "$WORK/diff" ||
    { head -20 "$WORK/diff"; fail "the GTID lines of $f ($ver) differ from mysqlbinlog's"; }
  glogs=$((glogs + 1))
  glines=$((glines + $(wc -l < "$WORK/theirs")))
done
[ "$glogs" -gt 0 ] || [ ! -d "$CORPUS" ] || fail "no MySQL log with GTID events compared"
pass "MySQL GTID events as mysqlbinlog 9.7 writes them: $glogs logs, $glines lines equal"
[ "$json" -ge 20 ] || fail "only $json lines of partial JSON updates compared"
pass "-v and -vv equal the server's own tool line for line: $logs outputs, $compared ### and row count lines ($json of them partial JSON updates)"
