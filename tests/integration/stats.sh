#!/usr/bin/env bash
# `binrecover stats` on a real MariaDB ROW binlog with every column family (bench/workload.sql:
# integers of all widths, DECIMAL, FLOAT/DOUBLE, BIT, YEAR, utf8mb4 strings, TEXT/BLOB,
# ENUM/SET, JSON, temporal types with fractions): the rows it counts per kind must equal what
# mariadb-binlog reports for the same file (its "# Number of rows" lines per event type), and
# the per-table counts must equal what the server saw.
source "$(dirname "$0")/lib.sh"
PORT=${1:-23531}
start_server s "$PORT" --binlog-format=ROW --binlog-row-image=FULL
sql "$PORT" < "$ROOT/bench/workload.sql"
for k in 1 2 3; do
  sql "$PORT" bench -e "SET @@rand_seed1 = $k, @@rand_seed2 = $((k * 7919)); CALL gen_chunk(40)"
done
sql "$PORT" -e "FLUSH BINARY LOGS"
f=$WORK/s/binlog/mysql-bin.000001
"$BINRECOVER" stats --format=json "$f" > "$WORK/stats.json" || fail "stats failed"
"$BINRECOVER" stats "$f" > "$WORK/stats.txt"
# mariadb-binlog's own counts, by rows event kind.
mariadb-binlog --no-defaults "$f" | awk '
  /\tWrite_rows/ { kind = "w" } /\tUpdate_rows/ { kind = "u" } /\tDelete_rows/ { kind = "d" }
  /^# Number of rows:/ { n[kind] += $5 }
  END { printf "%d %d %d\n", n["w"], n["u"], n["d"] }' > "$WORK/theirs"
# Ours, summed from the per-table lines of the table output (between the header and the blank line).
awk '/^Table / { on = 1; next } on && NF == 0 { on = 0 } on { w += $2; u += $3; d += $4 }
  END { printf "%d %d %d\n", w, u, d }' "$WORK/stats.txt" > "$WORK/ours"
grep -q '"inserted":' "$WORK/stats.json" || fail "the JSON output lacks per-table rows"
diff "$WORK/theirs" "$WORK/ours" || fail "rows per kind differ from mariadb-binlog's: theirs $(cat "$WORK/theirs"), ours $(cat "$WORK/ours")"
[ "$(cut -d' ' -f1 "$WORK/ours")" -gt 1000 ] || fail "the workload wrote too few rows to prove anything"
pass "stats: inserted/updated/deleted rows $(cat "$WORK/ours") equal mariadb-binlog's counts"

# --transactions: the longest transaction (two tables, 2 s between its first statement and its
# commit) first, with its start and commit time, duration, rows and tables; N of each list.
g=$WORK/s/binlog/$(sql "$PORT" -N -e "SHOW MASTER STATUS" | cut -f1)
sql "$PORT" bench -e "CREATE TABLE slow_a (id INT PRIMARY KEY); CREATE TABLE slow_b (id INT PRIMARY KEY);
  BEGIN; INSERT INTO slow_a VALUES (1), (2); DO SLEEP(2); INSERT INTO slow_b VALUES (7); COMMIT;
  INSERT INTO slow_a VALUES (3)"
sql "$PORT" -e "FLUSH BINARY LOGS"
"$BINRECOVER" stats --transactions=2 --format=json "$g" > "$WORK/tx.json" || fail "stats --transactions failed"
python3 - "$WORK/tx.json" <<'PY' || fail "stats --transactions: $(cat "$WORK/tx.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["longest"]) == 2 and len(d["largest"]) == 2, d
# (found by its tables, not its place: on a loaded machine a DDL may take seconds too)
t = [x for x in d["longest"] if x["tables"] == ["bench.slow_a", "bench.slow_b"]][0]
assert t["seconds"] >= 2 and t["end"] - t["start"] == t["seconds"], t
assert t["rows"] == 3, t
assert all(x["seconds"] >= y["seconds"] for x, y in zip(d["longest"], d["longest"][1:])), d
PY
"$BINRECOVER" stats --transactions --timezone=UTC "$g" > "$WORK/tx.txt"
grep -qE '^  mysql-bin.[0-9]+:[0-9]+  [0-9-]+ [0-9:]+ - [0-9:]+  ([2-9]|[1-9][0-9]+) s  [0-9]+ bytes  3 rows  GTID 0-1-[0-9]+$' "$WORK/tx.txt" ||
  fail "the longest transaction's line: $(sed -n '/Longest/,+2p' "$WORK/tx.txt")"
grep -q '^      tables: bench.slow_a, bench.slow_b$' "$WORK/tx.txt" || fail "its tables: $(cat "$WORK/tx.txt")"
pass "stats --transactions: the 2 s transaction among the longest (ordered by duration), with its times, 3 rows and both tables"
