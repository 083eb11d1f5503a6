#!/usr/bin/env bash
# Hostile names and values (issue 12, items 1-2): tables and databases named with a newline,
# a backslash before a backtick, quotes, `*/`, `/*!*/;`, CR LF, ^Z and unicode, and string
# values holding every byte that could end a string or a statement, written by a real MariaDB
# in ROW and STATEMENT format. Every output mode piped into the `mariadb` client, and replay,
# into a target whose global sql_mode is the default, NO_BACKSLASH_ESCAPES or ANSI_QUOTES:
# every table's CHECKSUM equals the source's and the canary database `victim` survives.
#   hostile_names.sh PORT   (uses PORT and PORT+1)
source "$(dirname "$0")/lib.sh"
PORT=${1:-23591}
TPORT=$((PORT + 1))
start_server src "$PORT" --binlog-row-metadata=FULL
start_server dst "$TPORT"

# The hostile names are made on the server from CHAR() codes and PREPAREd, so that the client
# that creates them never parses their bytes.
cat >"$WORK/setup.sql" <<'EOF'
SET sql_log_bin = 0; CREATE DATABASE victim; CREATE TABLE victim.canary (a INT);
INSERT INTO victim.canary VALUES (1); SET sql_log_bin = 1;
CREATE DATABASE h;
SET @t1 = CONCAT('x', CHAR(10), 'DROP DATABASE victim/*!*/;', CHAR(10), '#');
SET @t2 = CONCAT('a', CHAR(92), '`; DROP DATABASE victim; -- x');
SET @t3 = CONCAT('q''"*/ /*!*/;', CHAR(13), CHAR(10), CHAR(26), _utf8mb4 X'C3A9E4B8AD');
SET @t4 = CONCAT('b', CHAR(92));
SET @d1 = CONCAT('d', CHAR(10), 'DROP DATABASE victim;', CHAR(10), '-- x');
SET @d2 = CONCAT('e', CHAR(92), '`; DROP DATABASE victim; -- x');
DELIMITER //
CREATE PROCEDURE h.run(q TEXT) BEGIN SET @q = q; PREPARE s FROM @q; EXECUTE s; DEALLOCATE PREPARE s; END//
DELIMITER ;
CREATE FUNCTION h.qi(n TEXT) RETURNS TEXT DETERMINISTIC RETURN CONCAT('`', REPLACE(n, '`', '``'), '`');
CALL h.run(CONCAT('CREATE DATABASE ', h.qi(@d1)));
CALL h.run(CONCAT('CREATE DATABASE ', h.qi(@d2)));
CALL h.run(CONCAT('CREATE TABLE h.', h.qi(@t1),
  ' (id INT PRIMARY KEY, s VARCHAR(200), b BLOB, j JSON, e ENUM(''a''''b'', ''c\\\\d'', ''plain''), st SET(''x'', ''y\\\\z''))'));
CALL h.run(CONCAT('CREATE TABLE h.', h.qi(@t2), ' (id INT PRIMARY KEY, s TEXT)'));
CALL h.run(CONCAT('CREATE TABLE h.', h.qi(@t3), ' (id INT AUTO_INCREMENT PRIMARY KEY, s TEXT)'));
CALL h.run(CONCAT('CREATE TABLE h.', h.qi(@t4), ' (id INT PRIMARY KEY, s TEXT)'));
CALL h.run(CONCAT('CREATE TABLE ', h.qi(@d1), '.', h.qi(@t2), ' (id INT PRIMARY KEY, s TEXT)'));
CALL h.run(CONCAT('CREATE TABLE ', h.qi(@d2), '.', h.qi(@t1), ' (id INT PRIMARY KEY, s TEXT)'));
SET @v1 = CONCAT('''', '''', ''');DROP DATABASE victim;-- ');
SET @v2 = CONCAT('C:', CHAR(92), 'new');
SET @v3 = CONCAT('l1', CHAR(10), 'l2', CHAR(13), CHAR(10), CHAR(0), CHAR(26), '*/ /*!*/; #', CHAR(92));
SET @v4 = _utf8mb4 X'E4B8AD27F09F988022';
SET @jv = JSON_OBJECT('k', CONCAT('q"', CHAR(92), CHAR(10)), 'v', @v1);
EOF
echo "FLUSH BINARY LOGS;" >>"$WORK/setup.sql"
# The rows, in ROW format (mysql-bin.000002) and again (other ids) in STATEMENT format
# (mysql-bin.000003).
for fmt in ROW STATEMENT; do
  base=$([ $fmt = ROW ] && echo 0 || echo 100)
  cat >>"$WORK/setup.sql" <<EOF
SET SESSION binlog_format = $fmt;
CALL h.run(CONCAT('INSERT INTO h.', h.qi(@t1), ' VALUES ($base + 1, ''p'', NULL, NULL, ''a''''b'', ''x,y\\\\\\\\z'')'));
SET @q = CONCAT('INSERT INTO h.', h.qi(@t1), ' VALUES (?, ?, ?, ?, ?, ?)');
PREPARE s FROM @q;
SET @id = $base + 2, @e = 'c\\\\d', @st = 'y\\\\z'; EXECUTE s USING @id, @v1, @v2, @jv, @e, @st;
SET @id = $base + 3, @e = 'plain', @st = ''; EXECUTE s USING @id, @v3, @v4, NULL, @e, @st;
SET @id = $base + 4; EXECUTE s USING @id, @v2, @v3, @jv, NULL, NULL;
SET @q = CONCAT('INSERT INTO h.', h.qi(@t2), ' VALUES (?, ?)'); PREPARE s FROM @q;
SET @id = $base + 1; EXECUTE s USING @id, @v1;
SET @id = $base + 2; EXECUTE s USING @id, @v3;
SET @q = CONCAT('INSERT INTO h.', h.qi(@t3), ' (s) VALUES (?)'); PREPARE s FROM @q;
EXECUTE s USING @v2; EXECUTE s USING @v4;
SET @q = CONCAT('INSERT INTO h.', h.qi(@t4), ' VALUES (?, ?)'); PREPARE s FROM @q;
SET @id = $base + 1; EXECUTE s USING @id, @v3;
SET @q = CONCAT('INSERT INTO ', h.qi(@d1), '.', h.qi(@t2), ' VALUES (?, ?)'); PREPARE s FROM @q;
SET @id = $base + 1; EXECUTE s USING @id, @v1;
SET @q = CONCAT('INSERT INTO ', h.qi(@d2), '.', h.qi(@t1), ' VALUES (?, ?)'); PREPARE s FROM @q;
SET @id = $base + 1; EXECUTE s USING @id, @v2;
CALL h.run(CONCAT('UPDATE h.', h.qi(@t1), ' SET s = CONCAT(s, ', QUOTE(@v3), ') WHERE id = $base + 2'));
CALL h.run(CONCAT('DELETE FROM h.', h.qi(@t2), ' WHERE id = $base + 2'));
FLUSH BINARY LOGS;
EOF
done
sql "$PORT" <"$WORK/setup.sql" || fail "setup"
# Statements run with a hostile database as the current one (logged with it: the output
# switches to it with a USE); the name reaches the server at connect, never through SQL.
d1=$(printf 'd\nDROP DATABASE victim;\n-- x')
d2=$(printf 'e\\`; DROP DATABASE victim; -- x')
for db in "$d1" "$d2"; do
  sql "$PORT" -D "$db" -e "SET SESSION binlog_format = STATEMENT;
    CREATE TABLE plain (id INT PRIMARY KEY, s TEXT); INSERT INTO plain VALUES (1, 'c:\\\\x')" ||
    fail "statements in a hostile database"
done
sql "$PORT" -e "FLUSH BINARY LOGS"
mapfile -t LOGS < <(binlogs_between "$WORK/src/binlog" mysql-bin.000001)
unset 'LOGS[${#LOGS[@]}-1]'
[ "${#LOGS[@]}" = 4 ] || fail "expected 4 binlogs, got ${#LOGS[@]}"

# CHECKSUM TABLE of every table of the hostile databases, run with NO_BACKSLASH_ESCAPES so
# that the client reads the names as the server does.
checksums() {
  local port=$1
  {
    echo "SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES';"
    sql "$port" -N --raw -e "SELECT CONCAT('CHECKSUM TABLE \`', REPLACE(table_schema, '\`', '\`\`'),
      '\`.\`', REPLACE(table_name, '\`', '\`\`'), '\`;') FROM information_schema.tables
      WHERE table_schema NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys', 'victim',
                                 'binrecover')
        AND table_type = 'BASE TABLE' ORDER BY table_schema, table_name"
  } | sql "$port" -N --raw | od -c
}
checksums "$PORT" >"$WORK/expected.txt"
[ "$(grep -c . "$WORK/expected.txt")" -gt 5 ] || fail "no checksums from the source"

reset_target() {
  local mode=$1
  sql "$TPORT" -N -e "SELECT HEX(schema_name) FROM information_schema.schemata WHERE schema_name
    NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')" |
    while read -r hx; do sql "$TPORT" -e "SET @n = CONVERT(0x$hx USING utf8mb4);
      SET @q = CONCAT('DROP DATABASE \`', REPLACE(@n, '\`', '\`\`'), '\`');
      PREPARE s FROM @q; EXECUTE s;"; done
  sql "$TPORT" -e "SET GLOBAL sql_mode = '$mode'; CREATE DATABASE victim;
    CREATE TABLE victim.canary (a INT); INSERT INTO victim.canary VALUES (1)"
}

check_target() {
  local what=$1
  [ "$(sql "$TPORT" -N -e 'SELECT COUNT(*) FROM victim.canary' 2>&1)" = 1 ] ||
    fail "$what: the canary database victim is gone"
  checksums "$TPORT" >"$WORK/got.txt"
  if ! cmp -s "$WORK/expected.txt" "$WORK/got.txt"; then
    diff "$WORK/expected.txt" "$WORK/got.txt" | head -20 >&2
    fail "$what: tables differ from the source"
  fi
}

for mode in "" NO_BACKSLASH_ESCAPES ANSI_QUOTES; do
  for opts in "" "-v" "--rows-as-sql" "-H"; do
    reset_target "$mode"
    # shellcheck disable=SC2086
    "$BINRECOVER" $opts "${LOGS[@]}" >"$WORK/out.sql" || fail "binrecover $opts"
    sql "$TPORT" <"$WORK/out.sql" >"$WORK/client.log" 2>&1 || {
      cat "$WORK/client.log" >&2
      fail "binrecover $opts | mariadb (sql_mode '$mode')"
    }
    check_target "binrecover $opts | mariadb (sql_mode '$mode')"
  done
  # Rows as comments only (the tables stay empty): no name or value breaks out of them.
  reset_target "$mode"
  "$BINRECOVER" --base64-output=decode-rows -v "${LOGS[@]}" >"$WORK/v.sql"
  sql "$TPORT" <"$WORK/v.sql" >"$WORK/client.log" 2>&1 || {
    cat "$WORK/client.log" >&2
    fail "--base64-output=decode-rows -v | mariadb (sql_mode '$mode')"
  }
  [ "$(sql "$TPORT" -N -e 'SELECT COUNT(*) FROM victim.canary' 2>&1)" = 1 ] ||
    fail "--base64-output=decode-rows -v: the canary database victim is gone"
  reset_target "$mode"
  rm -f "$WORK/replay.state"
  "$BINRECOVER" replay --host=127.0.0.1 --port="$TPORT" --user=root --state-file="$WORK/replay.state" "${LOGS[@]}" \
    >"$WORK/replay.log" 2>&1 || { cat "$WORK/replay.log" >&2; fail "replay (sql_mode '$mode')"; }
  check_target "replay (sql_mode '$mode')"
  pass "hostile names and values: every output mode and replay, target sql_mode '$mode'"
done

# -d with a hostile database name keeps exactly that database's statements (some run with
# `h` as the current database: it exists on the target, empty).
reset_target ""
sql "$TPORT" -e "CREATE DATABASE h"
"$BINRECOVER" -d "$d1" "${LOGS[@]}" | sql "$TPORT" || fail "-d hostile | mariadb"
[ "$(sql "$TPORT" -N -e 'SELECT COUNT(*) FROM victim.canary')" = 1 ] || fail "-d: victim dropped"
[ "$(sql "$TPORT" -N -e "SELECT COUNT(*) FROM information_schema.tables
  WHERE table_schema LIKE 'd%DROP%'")" = 2 ] || fail "-d hostile: its tables are missing"
pass "-d with a database named with a line break"

# --flashback under every sql_mode: the undo of the ROW-format file (mysql-bin.000002) leaves
# the tables as the DDL alone left them.
reset_target ""
"$BINRECOVER" "${LOGS[0]}" | sql "$TPORT" || fail "DDL alone"
checksums "$TPORT" >"$WORK/ddl_only.txt"
for mode in "" NO_BACKSLASH_ESCAPES ANSI_QUOTES; do
  reset_target "$mode"
  "$BINRECOVER" "${LOGS[0]}" "${LOGS[1]}" | sql "$TPORT" || fail "forward for flashback"
  checksums "$TPORT" >"$WORK/got.txt"
  ! cmp -s "$WORK/ddl_only.txt" "$WORK/got.txt" || fail "the ROW file changed no table"
  "$BINRECOVER" --flashback "${LOGS[1]}" >"$WORK/fb.sql" || fail "--flashback"
  sql "$TPORT" <"$WORK/fb.sql" || fail "--flashback | mariadb (sql_mode '$mode')"
  [ "$(sql "$TPORT" -N -e 'SELECT COUNT(*) FROM victim.canary')" = 1 ] || fail "flashback: victim"
  checksums "$TPORT" >"$WORK/got.txt"
  cmp -s "$WORK/ddl_only.txt" "$WORK/got.txt" || fail "--flashback (sql_mode '$mode'): not undone"
  pass "--flashback of hostile names and values, target sql_mode '$mode'"
done

# Text from the log in comments and text for a person (issue 29): ENUM/SET members (FULL row
# metadata) and a primary-key column named with a line break and a DROP after it, a table
# named with terminal escape sequences (set the title, erase the line) and a C1 CSI. -v, -vv
# and --print-table-metadata piped into the client leave the canary; events, stats and plan
# print no control byte but the line break that ends their own lines.
cat >"$WORK/setup2.sql" <<'EOF2'
FLUSH BINARY LOGS;
SET SESSION binlog_format = ROW;
CREATE DATABASE h2;
SET @m = CONCAT('m', CHAR(10), 'DROP DATABASE victim;', CHAR(10), '#');
SET @k = CONCAT('k', CHAR(10), 'DROP DATABASE victim;', CHAR(10), '#');
SET @t = CONCAT('t', CHAR(27), ']0;owned', CHAR(7), CHAR(27), '[2K', _utf8mb4 X'C29B', '2K<b>&');
CALL h.run(CONCAT('CREATE TABLE h2.', h.qi(@t), ' (', h.qi(@k), ' INT PRIMARY KEY, e ENUM(''ok'', ',
  QUOTE(@m), '), st SET(''x'', ', QUOTE(@m), '))'));
CALL h.run(CONCAT('INSERT INTO h2.', h.qi(@t), ' VALUES (1, ', QUOTE(@m), ', ', QUOTE(@m), '), (2, ''ok'', ''x'')'));
CALL h.run(CONCAT('UPDATE h2.', h.qi(@t), ' SET e = ''ok'' WHERE ', h.qi(@k), ' = 1'));
CALL h.run(CONCAT('DROP TABLE h2.', h.qi(@t)));
FLUSH BINARY LOGS;
EOF2
sql "$PORT" <"$WORK/setup2.sql" || fail "setup of the terminal and comment names"
mapfile -t ALL < <(binlogs_between "$WORK/src/binlog" mysql-bin.000001)
PREV=${ALL[${#ALL[@]}-2]}
[ -s "$PREV" ] || fail "no binlog with the terminal and comment names"
"$BINRECOVER" events "$PREV" | grep -q "Table_map" || fail "the new binlog holds no row event"
for mode in "" NO_BACKSLASH_ESCAPES ANSI_QUOTES; do
for opts in "-v" "-vv" "--print-table-metadata" "--base64-output=decode-rows -vv --print-table-metadata"; do
  reset_target "$mode"
  sql "$TPORT" -e "CREATE DATABASE h"  # (the statements ran with h as the current database)
  # shellcheck disable=SC2086
  "$BINRECOVER" $opts "$PREV" >"$WORK/c.sql" || fail "binrecover $opts (comment names)"
  grep -q "DROP DATABASE victim" "$WORK/c.sql" || fail "$opts: the hostile text is not in the output at all"
  # (inside the logged CREATE TABLE the text is quoted; after a comment line it would run)
  if awk 'prev ~ /^#[ #]/ && /^DROP DATABASE victim/ { bad = 1 } { prev = $0 } END { exit !bad }' "$WORK/c.sql"; then
    fail "$opts: a member or name ended its comment"
  fi
  sql "$TPORT" <"$WORK/c.sql" >"$WORK/client.log" 2>&1 || { cat "$WORK/client.log" >&2; fail "$opts | mariadb"; }
  [ "$(sql "$TPORT" -N -e 'SELECT COUNT(*) FROM victim.canary' 2>&1)" = 1 ] ||
    fail "binrecover $opts | mariadb (sql_mode '$mode'): the canary database victim is gone"
done
done
pass "ENUM/SET members and key names with a line break stay in their -v/-vv/metadata comments (every sql_mode)"
controls() { LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f]' "$1" || true; }
"$BINRECOVER" events "$PREV" >"$WORK/t_events.txt"
"$BINRECOVER" stats "$PREV" >"$WORK/t_stats.txt"
"$BINRECOVER" plan --start-position=4 "$PREV" >"$WORK/t_plan.txt" 2>"$WORK/t_plan.err" || true
for f in t_events.txt t_stats.txt t_plan.txt t_plan.err; do
  [ "$(controls "$WORK/$f")" = 0 ] || { LC_ALL=C grep -n $'[\x01-\x08\x0b-\x1f\x7f]' "$WORK/$f" | od -c | head >&2; fail "$f holds a raw control byte"; }
  if LC_ALL=C grep -q $'\xc2\x9b' "$WORK/$f"; then fail "$f holds a raw C1 CSI"; fi
done
grep -qF '\x1b]0;owned\x07' "$WORK/t_events.txt" || fail "events does not show the escape sequence as \\xNN"
grep -qF '\x1b]0;owned\x07' "$WORK/t_stats.txt" || fail "stats does not show the table name as \\xNN"
grep -qF 'DROP TABLE' "$WORK/t_plan.txt" || { cat "$WORK/t_plan.txt" "$WORK/t_plan.err" >&2; fail "plan lists no DROP TABLE"; }
pass "events, stats and plan show names with escape sequences as \\xNN text"
# JSON and HTML show the name as text: the JSON's target parses back to the name itself, the
# page holds its markup as entities.
"$BINRECOVER" plan --start-position=4 --format=json "$PREV" >"$WORK/t_plan.json" 2>/dev/null || true
python3 - "$WORK/t_plan.json" <<'PY' || fail "plan --format=json does not hold the table name as text"
import json, sys
d = json.load(open(sys.argv[1]))
name = "t\x1b]0;owned\x07\x1b[2K\u009b2K<b>&"
assert any(name in (e.get("target") or "") for e in d["destructive"]), d["destructive"]
PY
"$BINRECOVER" plan --start-position=4 --html="$WORK/t_plan.html" "$PREV" >/dev/null 2>&1 || true
[ -s "$WORK/t_plan.html" ] || fail "plan --html wrote no page"
grep -qF '2K&lt;b&gt;&amp;' "$WORK/t_plan.html" || fail "plan --html does not show the name's markup as entities"
if grep -qF '2K<b>&' "$WORK/t_plan.html"; then fail "plan --html holds the name's markup raw"; fi
pass "plan's JSON and HTML show a hostile table name as text"
