#!/usr/bin/env bash
# LOAD DATA in statement format on a real MariaDB: binrecover writes the data blocks to
# --local-load and replays them as LOAD DATA LOCAL INFILE; the target's table must equal the
# source's (plain, REPLACE, IGNORE with a SET clause, inside BEGIN/COMMIT, several blocks).
source "$(dirname "$0")/lib.sh"
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
"$BINRECOVER" --local-load="$WORK/load" --index-file="$WORK/a/binlog/mysql-bin.index" \
  > "$WORK/replay.sql" 2> "$WORK/replay.err" || { cat "$WORK/replay.err"; fail "binrecover failed"; }
grep -q "LOAD DATA LOCAL INFILE '$WORK/load/" "$WORK/replay.sql" || fail "no LOAD DATA LOCAL in the output"
sql "$PB" --local-infile=1 < "$WORK/replay.sql" || fail "the replay failed"
sql "$PB" -N -e "SELECT * FROM d.t ORDER BY a" > "$WORK/actual"
sql "$PB" -N -e "CHECKSUM TABLE d.t" | cut -f2 > "$WORK/actual.sum"
diff -q "$WORK/expected" "$WORK/actual" || fail "rows differ after the LOAD DATA replay"
diff "$WORK/expected.sum" "$WORK/actual.sum" || fail "checksum differs"
pass "LOAD DATA replayed through --local-load: $(wc -l < "$WORK/actual") rows, checksum $(cat "$WORK/actual.sum")"
