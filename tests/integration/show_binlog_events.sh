#!/usr/bin/env bash
# `binrecover events --format=tsv` must equal the server's own SHOW BINLOG EVENTS, all columns,
# for every binlog file of a real MariaDB — with CRC32 and with binlog_checksum=NONE, ROW and
# STATEMENT events, user variables, RAND, LAST_INSERT_ID, annotations, rotations.
source "$(dirname "$0")/lib.sh"
PORT=${1:-23331}

for variant in CRC32 NONE COMPRESSED; do
  checksum=$variant
  extra=()
  if [ "$variant" = COMPRESSED ]; then
    checksum=CRC32
    extra=(--log-bin-compress=ON --log-bin-compress-min-len=10)
  fi
  name=srv-$variant
  start_server "$name" "$PORT" --binlog-checksum="$checksum" --binlog-annotate-row-events=ON \
    "${extra[@]}"
  sql "$PORT" < "$ROOT/testdata/workload.sql"
  sql "$PORT" -e "SET SESSION binlog_format=STATEMENT; CREATE DATABASE s; USE s;
    CREATE TABLE t (a INT AUTO_INCREMENT PRIMARY KEY, b MEDIUMTEXT); SET @x = 1.5, @n = NULL, @i = -7;
    INSERT INTO t (b) VALUES (CONCAT(@x, @n, @i, RAND())); FLUSH BINARY LOGS;
    SET SESSION binlog_format=ROW; INSERT INTO t (b) VALUES (REPEAT('x', 70000));
    UPDATE t SET b = 'tab\there, newline\nthere' WHERE a = 1; DELETE FROM t;"
  files=$(sql "$PORT" -N -e "SHOW BINARY LOGS" | cut -f1)
  n=0
  for f in $files; do
    sql "$PORT" -N -B -e "SHOW BINLOG EVENTS IN '$f'" > "$WORK/server.tsv"
    "$BINRECOVER" events --format=tsv "$WORK/$name/binlog/$f" > "$WORK/ours.tsv" ||
      fail "binrecover events failed on $f ($checksum)"
    diff "$WORK/server.tsv" "$WORK/ours.tsv" > "$WORK/diff" ||
      { cat "$WORK/diff" >&2; fail "event listing differs from SHOW BINLOG EVENTS for $f ($checksum)"; }
    n=$((n + $(wc -l < "$WORK/ours.tsv")))
  done
  "$ROOT/scripts/mariadb_server.sh" stop "$WORK/$name"
  if [ "$variant" = COMPRESSED ]; then
    "$BINRECOVER" events --format=tsv --index-file="$WORK/$name/binlog/mysql-bin.index" |
      grep -q "Query_compressed" || fail "log_bin_compress wrote no compressed query event"
  fi
  pass "SHOW BINLOG EVENTS equal for $(echo $files | wc -w) files, $n events ($variant)"
done
