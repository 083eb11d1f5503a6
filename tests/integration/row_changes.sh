#!/usr/bin/env bash
# Row changes as data (issue 33, item 4), on a real MariaDB 10.11 log with FULL row metadata:
#  - --format=jsonl and --format=csv, read back by Python's json and csv modules, replayed into
#    a model of each table (insert, update, delete by primary key) from the range's start, give
#    exactly the rows the server has at its end, value by value (integers, DECIMAL exactly,
#    DOUBLE, DATETIME(6), utf8mb4 and latin1 text, BLOB bytes, ENUM, SET, JSON text, NULL);
#  - --sql-type keeps the kinds asked for, in the data and in SQL output, and the SQL output of
#    --sql-type=insert,update replays.
#   row_changes.sh PORT
source "$(dirname "$0")/lib.sh"
PORT=${1:?port}
start_server m "$PORT" --binlog-row-metadata=FULL
sql "$PORT" <<'SQL'
CREATE DATABASE rc;
CREATE TABLE rc.t (id INT PRIMARY KEY, i BIGINT, u INT UNSIGNED, d DECIMAL(20,6), f DOUBLE,
  dt DATETIME(6), v VARCHAR(40) CHARACTER SET utf8mb4, l VARCHAR(40) CHARACTER SET latin1,
  b BLOB, e ENUM('red','green','blue'), s SET('a','b','c'), j JSON) ENGINE=InnoDB;
CREATE TABLE rc.k (code CHAR(3) PRIMARY KEY, n INT) ENGINE=InnoDB;
SQL
start=$(sql "$PORT" -N -e "SHOW MASTER STATUS" | cut -f2)
file=$(sql "$PORT" -N -e "SHOW MASTER STATUS" | cut -f1)
sql "$PORT" rc <<'SQL'
INSERT INTO t VALUES
  (1, -9223372036854775808, 4294967295, 12345678901234.123456, 1.25, '2026-01-01 00:00:01.500000',
   '张三 😀', 'café ½', X'00FF10', 'green', 'a,c', '{"k": [1, 2.5, "x"]}'),
  (2, 7, 0, -0.000001, -3.5e-7, '1999-12-31 23:59:59.999999', 'it''s "q"\\', NULL, NULL, NULL, '', NULL),
  (3, 0, 1, 0, 0, NULL, '', '', '', 'red', 'b', '[]');
INSERT INTO k VALUES ('abc', 1), ('def', 2);
UPDATE t SET v = CONCAT(v, '!'), d = d * 2 WHERE id = 1;
UPDATE t SET id = 4 WHERE id = 3;
DELETE FROM k WHERE code = 'abc';
BEGIN; INSERT INTO k VALUES ('ghi', 3); UPDATE k SET n = n + 10; DELETE FROM t WHERE id = 2; COMMIT;
CREATE TABLE `../x/.y` (a INT);
INSERT INTO `../x/.y` VALUES (1);
SQL
sql "$PORT" -e "FLUSH BINARY LOGS"
F=$WORK/m/binlog/$file
select_t="SELECT id, i, u, d, f, DATE_FORMAT(dt, '%Y-%m-%d %H:%i:%s.%f'), v, l, HEX(b), e, s, j FROM rc.t ORDER BY id"
sql "$PORT" -N -e "$select_t" > "$WORK/t.server"
sql "$PORT" -N -e "SELECT code, n FROM rc.k ORDER BY code" > "$WORK/k.server"

"$BINRECOVER" --no-defaults --format=jsonl --start-position="$start" "$F" > "$WORK/c.jsonl" ||
  fail "--format=jsonl failed"
"$BINRECOVER" --no-defaults --format=csv --start-position="$start" "$F" > "$WORK/c.csv" ||
  fail "--format=csv failed"
cat > "$WORK/model.py" <<'PY'
import base64, csv, decimal, json, sys

kind, path, t_server, k_server = sys.argv[1:5]
D = decimal.Decimal
if kind == "jsonl":
    records = [json.loads(line, parse_float=D) for line in open(path, encoding="utf-8")]
else:
    rows = list(csv.DictReader(open(path, encoding="utf-8", newline="")))
    assert rows and list(rows[0].keys()) == ["time", "gtid", "file", "pos", "database", "table",
                                            "type", "before", "after"], rows[0].keys()
    records = []
    for r in rows:
        r["before"] = json.loads(r["before"], parse_float=D) if r["before"] else None
        r["after"] = json.loads(r["after"], parse_float=D) if r["after"] else None
        records.append(r)
tables = {"t": {}, "k": {}}
keys = {"t": "id", "k": "code"}
for r in records:
    assert r["database"] == "rc", r
    assert r["gtid"] and r["file"] and int(r["pos"]) > 0 and r["time"], r
    if r["table"] not in tables:
        continue  # (the table with a hostile name: for --split-by)
    model, key = tables[r["table"]], keys[r["table"]]
    if r["type"] in ("update", "delete"):
        assert r["before"][key] in model, (r, model)
        del model[r["before"][key]]
    if r["type"] in ("insert", "update"):
        model[r["after"][key]] = r["after"]
    assert r["type"] in ("insert", "update", "delete"), r

def text(v, col):
    if v is None:
        return "NULL"
    if isinstance(v, dict) and "base64" in v:
        return base64.b64decode(v["base64"]).hex().upper()
    if col == "s":
        return ",".join(v)
    if col == "j":  # (MariaDB's JSON is text: a string; MySQL's a document)
        return v if isinstance(v, str) else json.dumps(v)
    if isinstance(v, D) and col == "f":
        return repr(float(v))
    return str(v)

def check(name, server, cols):
    want = [line.rstrip("\n").split("\t") for line in open(server, encoding="utf-8")]
    got = []
    for key in sorted(tables[name], key=lambda k: (isinstance(k, str), k)):
        row = tables[name][key]
        got.append([text(row[c], c) for c in cols])
    for w, g in zip(want, got):
        for c, a, b in zip(cols, w, g):
            if c == "f":
                assert float(a) == float(b), (name, c, a, b)
            elif c == "j":
                assert json.loads(a) == json.loads(b), (name, c, a, b)
            else:
                assert a == b, (name, c, a, b)
    assert len(want) == len(got), (want, got)

check("t", t_server, ["id", "i", "u", "d", "f", "dt", "v", "l", "b", "e", "s", "j"])
check("k", k_server, ["code", "n"])
print(len(records))
PY
n_jsonl=$(python3 "$WORK/model.py" jsonl "$WORK/c.jsonl" "$WORK/t.server" "$WORK/k.server") ||
  fail "the JSONL row changes do not rebuild the tables"
n_csv=$(python3 "$WORK/model.py" csv "$WORK/c.csv" "$WORK/t.server" "$WORK/k.server") ||
  fail "the CSV row changes do not rebuild the tables"
[ "$n_jsonl" = "$n_csv" ] && [ "$n_jsonl" -ge 13 ] || fail "records: jsonl $n_jsonl, csv $n_csv"
pass "--format=jsonl and csv: $n_jsonl row changes re-read by python json/csv rebuild rc.t and rc.k value by value"

# --sql-type: only the kinds asked for.
types() { python3 -c 'import json,sys; print(" ".join(sorted({json.loads(l)["type"] for l in sys.stdin})))'; }
for k in insert update delete "insert,delete"; do
  got=$("$BINRECOVER" --no-defaults --format=jsonl --sql-type="$k" --start-position="$start" "$F" | types)
  [ "$got" = "$(echo "$k" | tr ',' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" ] || fail "--sql-type=$k gives $got"
done
"$BINRECOVER" --no-defaults -v --sql-type=delete --start-position="$start" "$F" | grep -q '^### INSERT\|^### UPDATE' &&
  fail "--sql-type=delete: SQL output has other kinds"
# The SQL of inserts and updates replays onto the start state (the tables as the range found them).
sql "$PORT" -e "DELETE FROM rc.t; DELETE FROM rc.k; DROP TABLE rc.\`../x/.y\`"
"$BINRECOVER" --no-defaults --sql-type=insert,update --start-position="$start" "$F" | sql "$PORT" ||
  fail "the SQL of --sql-type=insert,update does not replay"
[ "$(sql "$PORT" -N -e "SELECT GROUP_CONCAT(id ORDER BY id) FROM rc.t")" = "1,2,4" ] ||
  fail "--sql-type=insert,update replayed: rc.t ids $(sql "$PORT" -N -e "SELECT GROUP_CONCAT(id) FROM rc.t")"
[ "$(sql "$PORT" -N -e "SELECT GROUP_CONCAT(code ORDER BY code) FROM rc.k")" = "abc,def,ghi" ] ||
  fail "--sql-type=insert,update replayed: rc.k $(sql "$PORT" -N -e "SELECT GROUP_CONCAT(code) FROM rc.k")"
pass "--sql-type: each kind alone in the data and the SQL; insert,update replays without the deletes"

# --split-by=table: one file per table, each what --table=DB.T writes; each replays onto the
# start state to its table's end state and leaves the other tables alone. A name from the log
# stays inside the folder.
"$BINRECOVER" --no-defaults --split-by=table --output-dir="$WORK/split" --start-position="$start" "$F" \
  2> "$WORK/split.err" || fail "--split-by=table failed: $(cat "$WORK/split.err")"
ls "$WORK/split" > "$WORK/split.ls"
[ "$(cat "$WORK/split.ls")" = "$(printf 'rc.%%2E%%2E%%2Fx%%2F%%2Ey.sql\nrc.k.sql\nrc.t.sql')" ] ||
  fail "--split-by=table made: $(cat "$WORK/split.ls")"
[ "$(stat -c %a "$WORK/split/rc.t.sql")" = 600 ] || fail "a split file is not private"
sql "$PORT" -e "DELETE FROM rc.t; DELETE FROM rc.k"
sql "$PORT" < "$WORK/split/rc.t.sql" || fail "rc.t.sql does not replay"
sql "$PORT" -N -e "$select_t" | cmp -s - "$WORK/t.server" || fail "rc.t.sql does not give rc.t's end state"
[ "$(sql "$PORT" -N -e "SELECT COUNT(*) FROM rc.k")" = 0 ] || fail "rc.t.sql changed rc.k"
sql "$PORT" < "$WORK/split/rc.k.sql" || fail "rc.k.sql does not replay"
sql "$PORT" -N -e "SELECT code, n FROM rc.k ORDER BY code" | cmp -s - "$WORK/k.server" ||
  fail "rc.k.sql does not give rc.k's end state"
"$BINRECOVER" --no-defaults --split-by=table --format=jsonl --output-dir="$WORK/split" \
  --start-position="$start" "$F" 2> /dev/null || fail "--split-by=table --format=jsonl failed"
[ "$(python3 -c 'import json,sys; print(sorted({json.loads(l)["table"] for l in open(sys.argv[1])}))' "$WORK/split/rc.k.jsonl")" = "['k']" ] ||
  fail "rc.k.jsonl holds other tables"
pass "--split-by=table: rc.t.sql and rc.k.sql each replay to their table's end state alone; JSONL per table; the name ../x/.y encoded inside the folder"
