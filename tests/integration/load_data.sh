#!/usr/bin/env bash
# LOAD DATA in statement format on a real MariaDB: binrecover writes the data blocks to
# --local-load and replays them as LOAD DATA LOCAL INFILE; the target's table must equal the
# source's (plain, REPLACE, IGNORE with a SET clause, inside BEGIN/COMMIT, several blocks);
# and MySQL 4.1's CREATE_FILE/EXEC_LOAD from the corpus against mariadb-binlog's replay.
source "$(dirname "$0")/lib.sh"
# (--parallel's units on all its sessions from the first: the width control would keep a log
# this short on one session, and the test is of the engine side by side; docs/testing.md)
export BINRECOVER_TEST_WIDTH_FLIP=1000000000
PA=${1:-23441}
PB=$((PA + 1))
start_server a "$PA" --binlog-format=STATEMENT --read-buffer-size=8192
printf '1,alpha\n2,"be,ta"\n3,"γάμμα ✓"\n4,"it\\"s"\n' > "$WORK/data.csv"
# A file larger than one block, so APPEND_BLOCK events follow BEGIN_LOAD_QUERY.
seq 100 40000 | awk '{ printf "%d,row %d with some padding to make it longer\n", $1, $1 }' > "$WORK/big.csv"
sql "$PA" -e "CREATE DATABASE d; CREATE TABLE d.t (a INT PRIMARY KEY, b VARCHAR(60)) CHARSET utf8mb4;
  LOAD DATA INFILE '$WORK/data.csv' INTO TABLE d.t CHARACTER SET utf8mb4
    FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"';
  LOAD DATA INFILE '$WORK/data.csv' REPLACE INTO TABLE d.t CHARACTER SET utf8mb4
    FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' (a, @x) SET b = UPPER(@x);
  BEGIN;
  LOAD DATA INFILE '$WORK/big.csv' IGNORE INTO TABLE d.t FIELDS TERMINATED BY ',';
  COMMIT;"
"$BINRECOVER" events --index-file="$WORK/a/binlog/mysql-bin.index" > "$WORK/events"
grep -q "Append_block" "$WORK/events" || fail "the big file did not produce APPEND_BLOCK events"
sql "$PA" -N -e "SELECT * FROM d.t ORDER BY a" > "$WORK/expected"
sql "$PA" -N -e "CHECKSUM TABLE d.t" | cut -f2 > "$WORK/expected.sum"

start_server b "$PB"
# A shared (1777) --local-load folder where another user planted links named as binrecover's
# files once were: binrecover writes in a private folder of its own inside it, never through them.
mkdir -p "$WORK/load" && chmod 1777 "$WORK/load"
echo "root's file" >"$WORK/precious" && chmod 600 "$WORK/precious"
# (the names binrecover gave its files before: SQL_LOAD-<file id>-<position of Begin_load_query>)
"$BINRECOVER" events --format=tsv --index-file="$WORK/a/binlog/mysql-bin.index" |
  awk -F'\t' '$3 == "Begin_load_query" { split($6, a, /[=;]/); print "SQL_LOAD-" a[3] "-" $2 }' |
  while read -r name; do ln -sf "$WORK/precious" "$WORK/load/$name"; done
[ -n "$(find "$WORK/load" -type l)" ] || fail "no link planted"
"$BINRECOVER" --local-load="$WORK/load" --index-file="$WORK/a/binlog/mysql-bin.index" \
  > "$WORK/replay.sql" 2> "$WORK/replay.err" || { cat "$WORK/replay.err"; fail "binrecover failed"; }
grep -q "LOAD DATA LOCAL INFILE '$WORK/load/" "$WORK/replay.sql" || fail "no LOAD DATA LOCAL in the output"
sql "$PB" --local-infile=1 < "$WORK/replay.sql" || fail "the replay failed"
sql "$PB" -N -e "SELECT * FROM d.t ORDER BY a" > "$WORK/actual"
sql "$PB" -N -e "CHECKSUM TABLE d.t" | cut -f2 > "$WORK/actual.sum"
diff -q "$WORK/expected" "$WORK/actual" || fail "rows differ after the LOAD DATA replay"
diff "$WORK/expected.sum" "$WORK/actual.sum" || fail "checksum differs"
pass "LOAD DATA replayed through --local-load: $(wc -l < "$WORK/actual") rows, checksum $(cat "$WORK/actual.sum")"
[ "$(cat "$WORK/precious")" = "root's file" ] || fail "--local-load wrote through a planted link"
own=$(find "$WORK/load" -mindepth 1 -maxdepth 1 -type d -name 'binrecover-load-*')
[ -n "$own" ] && [ "$(stat -c %a "$own")" = 700 ] || fail "--local-load: no private 0700 folder"
[ -z "$(find "$own" -type f ! -perm 600)" ] && [ -n "$(find "$own" -type f)" ] ||
  fail "--local-load: data files are not 0600"
pass "--local-load in a shared folder: a private 0700 folder, 0600 files, planted links untouched"

# binrecover replay applies the same log itself: its sessions answer the target's requests for
# the LOAD files it wrote (and only those: hostile_server.sh), in parallel too.
for par in 1 4; do
  sql "$PB" -e "DROP DATABASE IF EXISTS d; DROP DATABASE IF EXISTS binrecover"
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PB" -uroot --parallel="$par" \
    --state-file="$WORK/replay$par.state" --index-file="$WORK/a/binlog/mysql-bin.index" \
    2>"$WORK/replay$par.err" || { cat "$WORK/replay$par.err"; fail "binrecover replay --parallel=$par of LOAD DATA failed"; }
  sql "$PB" -N -e "SELECT * FROM d.t ORDER BY a" >"$WORK/actual$par"
  diff -q "$WORK/expected" "$WORK/actual$par" || fail "rows differ after binrecover replay --parallel=$par"
done
pass "binrecover replay (serial and --parallel=4) of LOAD DATA: $(wc -l <"$WORK/actual4") rows, equal"

# MySQL 4.1's LOAD DATA (CREATE_FILE + APPEND_BLOCK + EXEC_LOAD) from the corpus: binrecover's
# SQL and mariadb-binlog's (the reference, which reads this file fully) applied to the same
# fresh database give the same tables, and the data file written equals mariadb-binlog's.
old41=$ROOT/../shared/corpus/mariadb-server-10.11/suite/binlog/std_data/binlog_old_version_4_1.000001
if [ -f "$old41" ]; then
  tables() { sql "$PB" -N -e "SELECT COUNT(*), MD5(GROUP_CONCAT(a ORDER BY a SEPARATOR '|')) FROM test.t3;
    SELECT * FROM test.t1 ORDER BY b; CHECKSUM TABLE test.t1, test.t3"; }
  sql "$PB" -e "DROP DATABASE IF EXISTS test; CREATE DATABASE test"
  mkdir -p "$WORK/ref41"
  mariadb-binlog --no-defaults --local-load="$WORK/ref41" "$old41" > "$WORK/ref41.sql"
  sql "$PB" --local-infile=1 < "$WORK/ref41.sql" || fail "mariadb-binlog's 4.1 SQL failed"
  tables > "$WORK/ref41.tables"
  sql "$PB" -e "DROP DATABASE test; CREATE DATABASE test"
  "$BINRECOVER" --local-load="$WORK/our41" "$old41" > "$WORK/our41.sql" 2> "$WORK/our41.err" ||
    { cat "$WORK/our41.err"; fail "binrecover failed on the 4.1 LOAD DATA log"; }
  sql "$PB" --local-infile=1 < "$WORK/our41.sql" || fail "binrecover's 4.1 SQL failed"
  tables > "$WORK/our41.tables"
  diff "$WORK/ref41.tables" "$WORK/our41.tables" || fail "4.1 LOAD DATA: tables differ from mariadb-binlog's"
  cmp "$WORK"/ref41/* "$WORK"/our41/binrecover-load-*/* || fail "4.1 LOAD DATA: the data file differs from mariadb-binlog's"
  [ "$(head -1 "$WORK/our41.tables" | cut -f1)" -gt 1000 ] || fail "4.1 LOAD DATA loaded too few rows"
  pass "4.1 CREATE_FILE/APPEND_BLOCK/EXEC_LOAD: $(head -1 "$WORK/our41.tables" | cut -f1) rows in t3, tables equal mariadb-binlog's replay"
else
  echo "SKIPPED: 4.1 LOAD DATA check (../shared/corpus not present)"
fi
