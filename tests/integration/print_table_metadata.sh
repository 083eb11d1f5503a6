#!/usr/bin/env bash
# --print-table-metadata against the real clients: the "# Columns(...)", "# Primary Key(...)"
# and "# has_generated_invisible_primary_key=" lines binrecover writes after each table map equal
# those of mariadb-binlog (MariaDB 10.11) for MariaDB logs and of mysqlbinlog (MySQL 9.7, the sid
# chroot) for MySQL logs, byte for byte:
#   1. binlogs of a MariaDB 10.11 (port PA) with tables of every column type, character sets
#      and collations (latin1, utf8mb3, utf8mb4, ucs2, utf16, utf32, nopad, UCA 14.0.0),
#      ENUM/SET strings with quotes, backslashes and control bytes, geometry types, compressed
#      columns, primary keys with prefixes, hostile names, under binlog_row_metadata FULL and
#      MINIMAL;
#   2. the same on MySQL 9.7 (port PA+1), with JSON, VECTOR, invisible columns and generated
#      invisible primary keys, transaction compression on and off; there also the
#      has_generated_invisible_primary_key line mysqlbinlog prints without the option (and not
#      with --skip-gtids);
#   3. every binlog of ../shared/corpus with a table map (when the corpus is there); a map
#      without column metadata is an error (exit 4).
# The MySQL parts are skipped (passing) when the MySQL chroot cannot be had.
#   print_table_metadata.sh [PA]
source "$(dirname "$0")/lib.sh"
PA=${1:-23771}
PM=$((PA + 1))
MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
CORPUS=$(cd "$CORPUS" 2> /dev/null && pwd -P || echo "$CORPUS")  # (the chroot binds real paths)
B() { "$BINRECOVER" --no-defaults "$@"; }
BL() { B --local-load="$WORK/load" "$@"; }  # (corpus logs with LOAD DATA write files)

# The metadata lines of a mysqlbinlog-style output, each after the "# at" position of its event
# and a tab: "# Columns(" with its continuation lines, "# Primary Key(", and
# "# has_generated_invisible_primary_key=".
metadata_lines() {
  awk '/^# at [0-9]+$/ { at = $3; cont = 0; next }
       cont && /^#         / { print at "\t" $0; next }
       { cont = 0 }
       /^# Columns\(/ { print at "\t" $0; cont = 1; next }
       /^# Primary Key\(/ || /^# has_generated_invisible_primary_key=/ { print at "\t" $0 }' "$1"
}
maps_total=0

# same_metadata WHAT TOOL-OUTPUT OURS: the same lines in the same order (positions left out:
# events in a MySQL transaction payload have none of their own, and the two print different
# ones), and table maps among them; prints how many.
same_metadata() {
  local what=$1 n
  metadata_lines "$2" | cut -f2- > "$WORK/tool.meta"
  metadata_lines "$3" | cut -f2- > "$WORK/ours.meta"
  n=$(grep -c '^# Columns(' "$WORK/tool.meta" || true)
  [ "$n" -gt 0 ] || fail "$what: the real client printed no # Columns line"
  diff -u "$WORK/tool.meta" "$WORK/ours.meta" > "$WORK/meta.diff" ||
    { head -40 "$WORK/meta.diff" >&2; fail "$what: the metadata lines differ from the real client's"; }
  echo "$n"
}

# The tables (database p; for MINIMAL metadata the same in database p2).
maria_tables() {
  cat <<'EOF'
CREATE TABLE nums (id INT PRIMARY KEY, a TINYINT, b TINYINT UNSIGNED NOT NULL, c SMALLINT,
  d SMALLINT UNSIGNED, e MEDIUMINT, f MEDIUMINT UNSIGNED, g INT NOT NULL, h INT UNSIGNED, i BIGINT,
  j BIGINT UNSIGNED, k DECIMAL(10,2), l DECIMAL(65,30) UNSIGNED, m FLOAT, n FLOAT UNSIGNED,
  o DOUBLE, q DOUBLE UNSIGNED, r TINYINT UNSIGNED, s BIT(1), t BIT(13), u BIT(64), v BOOLEAN,
  w DECIMAL(5,0), x DECIMAL(1,1) UNSIGNED);
INSERT INTO nums (id, b, g) VALUES (1, 2, 3);
-- MariaDB 10.11's client takes no signedness bit for YEAR, which its server writes: the columns
-- after it show their neighbours' signedness (MDEV-38144).
CREATE TABLE years (a INT UNSIGNED, y1 YEAR, b INT, c INT UNSIGNED, y2 YEAR NOT NULL, d TINYINT,
  e TINYINT UNSIGNED, f BIGINT);
INSERT INTO years (y2) VALUES (2000);
CREATE TABLE temporal (a DATE, b TIME, c TIME(3), d TIME(6), e DATETIME, f DATETIME(1),
  g DATETIME(6) NOT NULL, h TIMESTAMP NULL, i TIMESTAMP(4) NULL,
  j TIMESTAMP(2) NOT NULL DEFAULT '2000-01-01', k INT);
INSERT INTO temporal (g) VALUES ('2020-01-01');
CREATE TABLE strs (id INT, a CHAR(10) CHARACTER SET latin1, b CHAR(255) CHARACTER SET utf8mb4,
  c VARCHAR(100) CHARACTER SET utf8mb3, d VARCHAR(300) CHARACTER SET latin1 NOT NULL,
  e BINARY(16), f VARBINARY(200), g CHAR(0), h TINYTEXT, i TEXT, j MEDIUMTEXT,
  k LONGTEXT CHARACTER SET latin1, l TINYBLOB, m BLOB, n MEDIUMBLOB, o LONGBLOB,
  p TEXT CHARACTER SET ucs2, q VARCHAR(10) CHARACTER SET utf32, r VARCHAR(10) CHARACTER SET utf16,
  s VARCHAR(10) COLLATE utf8mb4_croatian_ci, t CHAR(5) COLLATE latin1_bin,
  u VARCHAR(20) COLLATE utf8mb4_bin, v CHAR(3) CHARACTER SET ascii,
  w VARCHAR(7) CHARACTER SET binary, x VARCHAR(30) COLLATE utf8mb4_nopad_bin,
  y CHAR(4) COLLATE utf8mb3_general_nopad_ci, z TEXT COLLATE utf8mb4_uca1400_ai_ci,
  aa CHAR(3) COLLATE utf8mb3_croatian_mysql561_ci, ab CHAR(20) CHARACTER SET utf16le,
  ac CHAR(1) CHARACTER SET big5, ad VARCHAR(9) CHARACTER SET eucjpms, ae JSON, af INET6, ag UUID,
  ah CHAR(2) CHARACTER SET latin1, ai VARCHAR(5) COLLATE utf32_uca1400_swedish_nopad_as_cs);
INSERT INTO strs (id, d) VALUES (1, 'x');
CREATE TABLE allutf (a VARCHAR(10), b CHAR(4), c TEXT, d VARCHAR(5), e LONGTEXT NOT NULL, f INT);
INSERT INTO allutf (e) VALUES ('x');
CREATE TABLE mostutf (a VARCHAR(10), b CHAR(4) CHARACTER SET latin1, c TEXT, d VARCHAR(5),
  e LONGTEXT, f INT, g VARCHAR(3) COLLATE utf8mb4_bin);
INSERT INTO mostutf (f) VALUES (1);
CREATE TABLE enums (a ENUM('a', 'b''c', 'd\\e', 'f`g', 'h\ni', 'j,k', 'tab\there', '') CHARACTER SET latin1,
  b SET('x', 'y''z', 'w\\v', 'p"q') CHARACTER SET utf8mb4 NOT NULL,
  c ENUM('å', 'ä', 'ö表') CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, d SET('a','b') CHARACTER SET binary,
  e ENUM('one') NOT NULL, f ENUM('x','y') CHARACTER SET ucs2, g VARCHAR(10),
  h SET('a\rb', 'a\bb', 'c\Zd', 'e\0f'));
INSERT INTO enums (b, e) VALUES ('x', 'one');
CREATE TABLE enums2 (a ENUM('a','b'), b ENUM('c'), c SET('d'), d ENUM('e','f') CHARACTER SET latin1);
INSERT INTO enums2 VALUES ('a', 'c', 'd', 'e');
CREATE TABLE geo (id INT PRIMARY KEY, b GEOMETRY, c POINT NOT NULL, d LINESTRING, e POLYGON,
  f MULTIPOINT, g MULTILINESTRING, h MULTIPOLYGON, i GEOMETRYCOLLECTION,
  j VARCHAR(10) CHARACTER SET latin1, m CHAR(2) CHARACTER SET latin1, n TEXT CHARACTER SET utf8mb3);
INSERT INTO geo (id, c) VALUES (1, POINT(1,2));
CREATE TABLE geo2 (a VARCHAR(3) CHARACTER SET latin1, b GEOMETRY, c VARCHAR(3) CHARACTER SET utf8mb3,
  d POINT, e VARCHAR(4) CHARACTER SET latin1);
INSERT INTO geo2 (a) VALUES ('x');
CREATE TABLE inv (id INT PRIMARY KEY, a INT INVISIBLE, b VARCHAR(5) INVISIBLE NOT NULL DEFAULT '', c INT);
INSERT INTO inv (id, a, b, c) VALUES (1, 2, 'x', 3);
-- Compressed columns are types 140 and 141, which the client does not know.
CREATE TABLE comp (a INT, b BLOB COMPRESSED, c VARCHAR(100) COMPRESSED, d INT UNSIGNED,
  e TEXT COMPRESSED CHARACTER SET latin1, f CHAR(3));
INSERT INTO comp (a) VALUES (1);
CREATE TABLE pk1 (c_key1 VARCHAR(20), c2 INT, c_key2 INT NOT NULL, c_key3 TEXT CHARACTER SET utf8mb4,
  c5 INT, PRIMARY KEY (c_key1(5), c_key2, c_key3(10)));
INSERT INTO pk1 VALUES ('a', 1, 2, 'c', 3);
CREATE TABLE pk2 (a INT, b INT, c INT, PRIMARY KEY (c, a));
INSERT INTO pk2 VALUES (1, 2, 3);
CREATE TABLE pk3 (a VARBINARY(30), b BLOB, c CHAR(20) CHARACTER SET latin1, PRIMARY KEY (b(7), a(3), c(4)));
INSERT INTO pk3 VALUES ('a', 'b', 'c');
CREATE TABLE uk (a INT NOT NULL, b INT, UNIQUE KEY (a));
INSERT INTO uk VALUES (1, 2);
CREATE TABLE `we``ird` (`a``b` INT PRIMARY KEY, `c'd` INT, `e
f` INT, `g\h` INT, `tab	x` INT, `åäö表\a'``"` INT, `"q"` INT, `x y` VARCHAR(3), `
z` INT);
INSERT INTO `we``ird` VALUES (1, 2, 3, 4, 5, 6, 7, 'a', 8);
CREATE TABLE trig (a INT);
CREATE TABLE trig_log (a INT);
CREATE TRIGGER tr AFTER INSERT ON trig FOR EACH ROW INSERT INTO trig_log VALUES (NEW.a);
INSERT INTO trig VALUES (1);
EOF
  wide_tables
}

# Metadata fields longer than 250 bytes (their lengths take 3 bytes): many long names, many
# ENUM strings, more than 64 numeric columns.
wide_tables() {
  local cols="" vals="" i
  for i in $(seq 1 70); do
    cols+="${cols:+, }column_with_a_long_name_$i INT"
    if [ $((i % 3)) = 0 ]; then cols+=" UNSIGNED"; fi
  done
  for i in $(seq 1 80); do vals+="${vals:+, }'value number $i'"; done
  echo "CREATE TABLE wide ($cols, e ENUM($vals), s SET('a', 'b'), v VARCHAR(20));"
  echo "INSERT INTO wide (column_with_a_long_name_1) VALUES (1);"
}

mysql_tables() {
  cat <<'EOF'
CREATE TABLE nums (id INT PRIMARY KEY, a TINYINT, b TINYINT UNSIGNED NOT NULL, c SMALLINT,
  d SMALLINT UNSIGNED, e MEDIUMINT, f MEDIUMINT UNSIGNED, g INT NOT NULL, h INT UNSIGNED, i BIGINT,
  j BIGINT UNSIGNED, y1 YEAR, k DECIMAL(10,2), l DECIMAL(65,30) UNSIGNED, m FLOAT, n FLOAT UNSIGNED,
  o DOUBLE, q DOUBLE UNSIGNED, y2 YEAR NOT NULL, r TINYINT UNSIGNED, s BIT(1), t BIT(13), u BIT(64),
  v BOOLEAN, w DECIMAL(5,0), x DECIMAL(1,1) UNSIGNED);
INSERT INTO nums (id, b, g, y2) VALUES (1, 2, 3, 2000);
CREATE TABLE temporal (a DATE, b TIME, c TIME(3), d TIME(6), e DATETIME, f DATETIME(1),
  g DATETIME(6) NOT NULL, h TIMESTAMP NULL, i TIMESTAMP(4) NULL,
  j TIMESTAMP(2) NOT NULL DEFAULT '2000-01-01', k YEAR);
INSERT INTO temporal (g) VALUES ('2020-01-01');
CREATE TABLE strs (id INT, a CHAR(10) CHARACTER SET latin1, b CHAR(255) CHARACTER SET utf8mb4,
  c VARCHAR(100) CHARACTER SET utf8mb3, d VARCHAR(300) CHARACTER SET latin1 NOT NULL,
  e BINARY(16), f VARBINARY(200), g CHAR(0), h TINYTEXT, i TEXT, j MEDIUMTEXT,
  k LONGTEXT CHARACTER SET latin1, l TINYBLOB, m BLOB, n MEDIUMBLOB, o LONGBLOB,
  p TEXT CHARACTER SET ucs2, q VARCHAR(10) CHARACTER SET utf32, r VARCHAR(10) CHARACTER SET utf16,
  s VARCHAR(10) COLLATE utf8mb4_croatian_ci, t CHAR(5) COLLATE latin1_bin,
  u VARCHAR(20) COLLATE utf8mb4_bin, v CHAR(3) CHARACTER SET ascii,
  w VARCHAR(7) CHARACTER SET binary, x CHAR(200) CHARACTER SET gb18030,
  z VARCHAR(30) COLLATE utf8mb3_tolower_ci, aa CHAR(20) CHARACTER SET utf16le,
  ab VARCHAR(5) COLLATE utf8mb4_0900_as_cs, ac CHAR(1) CHARACTER SET big5,
  ad VARCHAR(9) CHARACTER SET eucjpms, ae TEXT COLLATE utf8mb3_croatian_ci);
INSERT INTO strs (id, d) VALUES (1, 'x');
CREATE TABLE allutf (a VARCHAR(10), b CHAR(4), c TEXT, d VARCHAR(5), e LONGTEXT NOT NULL, f INT);
INSERT INTO allutf (e) VALUES ('x');
CREATE TABLE mostutf (a VARCHAR(10), b CHAR(4) CHARACTER SET latin1, c TEXT, d VARCHAR(5),
  e LONGTEXT, f INT, g VARCHAR(3) COLLATE utf8mb4_bin);
INSERT INTO mostutf (f) VALUES (1);
CREATE TABLE enums (a ENUM('a', 'b''c', 'd\\e', 'f`g', 'h\ni', 'j,k', 'tab\there', '') CHARACTER SET latin1,
  b SET('x', 'y''z', 'w\\v', 'p"q') CHARACTER SET utf8mb4 NOT NULL,
  c ENUM('å', 'ä', 'ö表') CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, d SET('a','b') CHARACTER SET binary,
  e ENUM('one') NOT NULL, f ENUM('x','y') CHARACTER SET ucs2, g VARCHAR(10),
  h SET('a\rb', 'a\bb', 'c\Zd', 'e\0f'));
INSERT INTO enums (b, e) VALUES ('x', 'one');
CREATE TABLE enums2 (a ENUM('a','b'), b ENUM('c'), c SET('d'), d ENUM('e','f') CHARACTER SET latin1);
INSERT INTO enums2 VALUES ('a', 'c', 'd', 'e');
CREATE TABLE geo (id INT PRIMARY KEY, a JSON, b GEOMETRY, c POINT NOT NULL, d LINESTRING,
  e POLYGON, f MULTIPOINT, g MULTILINESTRING, h MULTIPOLYGON, i GEOMETRYCOLLECTION,
  j VARCHAR(10) CHARACTER SET latin1, k VECTOR(3), l VECTOR(100) NOT NULL,
  m CHAR(2) CHARACTER SET latin1, n TEXT CHARACTER SET utf8mb3);
INSERT INTO geo (id, c, l) VALUES (1, POINT(1,2), TO_VECTOR(CONCAT('[', REPEAT('1,', 99), '1]')));
CREATE TABLE inv (id INT PRIMARY KEY, a INT INVISIBLE, b VARCHAR(5) INVISIBLE NOT NULL DEFAULT '',
  c INT, d GEOMETRY INVISIBLE);
INSERT INTO inv (id, a, b, c) VALUES (1, 2, 'x', 3);
SET SESSION sql_generate_invisible_primary_key = ON;
CREATE TABLE gipk (a INT, b VARCHAR(10));
INSERT INTO gipk VALUES (1, 'x');
CREATE TABLE gipk2 (a INT UNSIGNED, b ENUM('z'));
INSERT INTO gipk2 VALUES (1, 'z');
SET SESSION sql_generate_invisible_primary_key = OFF;
CREATE TABLE pk1 (c_key1 VARCHAR(20), c2 INT, c_key2 INT NOT NULL, c_key3 TEXT CHARACTER SET utf8mb4,
  c5 INT, PRIMARY KEY (c_key1(5), c_key2, c_key3(10)));
INSERT INTO pk1 VALUES ('a', 1, 2, 'c', 3);
CREATE TABLE pk2 (a INT, b INT, c INT, PRIMARY KEY (c, a));
INSERT INTO pk2 VALUES (1, 2, 3);
CREATE TABLE pk3 (a VARBINARY(30), b BLOB, c CHAR(20) CHARACTER SET latin1, PRIMARY KEY (b(7), a(3), c(4)));
INSERT INTO pk3 VALUES ('a', 'b', 'c');
CREATE TABLE uk (a INT NOT NULL, b INT, UNIQUE KEY (a));
INSERT INTO uk VALUES (1, 2);
CREATE TABLE `we``ird` (`a``b` INT PRIMARY KEY, `c'd` INT, `e
f` INT, `g\h` INT, `tab	x` INT, `åäö表\a'``"` INT, `"q"` INT, `x y` VARCHAR(3), `
z` INT);
INSERT INTO `we``ird` VALUES (1, 2, 3, 4, 5, 6, 7, 'a', 8);
EOF
  wide_tables
}

# --- 1. MariaDB 10.11 -------------------------------------------------------------------------
start_server m "$PA" --binlog-row-metadata=FULL
{ echo "CREATE DATABASE p; USE p;"; maria_tables; } | sql "$PA"
sql "$PA" -e "SET GLOBAL binlog_row_metadata = MINIMAL"
{ echo "CREATE DATABASE p2; USE p2;"; maria_tables; } | sql "$PA"
sql "$PA" -e "SET GLOBAL binlog_row_metadata = FULL; FLUSH BINARY LOGS"
MF=$WORK/m/binlog/mysql-bin.000001
mariadb-binlog --no-defaults --print-table-metadata "$MF" > "$WORK/m.tool" || fail "mariadb-binlog"
B --print-table-metadata "$MF" > "$WORK/m.ours" || fail "binrecover --print-table-metadata"
n=$(same_metadata "MariaDB 10.11" "$WORK/m.tool" "$WORK/m.ours")
maps_total=$((maps_total + n))
# MariaDB logs have no payloads: each line also under the same "# at".
metadata_lines "$WORK/m.tool" > "$WORK/m.tool.at"
metadata_lines "$WORK/m.ours" > "$WORK/m.ours.at"
cmp -s "$WORK/m.tool.at" "$WORK/m.ours.at" || fail "MariaDB: the lines are under other positions"
grep -q '^# Columns(`a` INT UNSIGNED,$' "$WORK/m.ours" && grep -q 'INVALID_TYPE(140)`c` INVALID_TYPE(141)' "$WORK/m.ours" &&
  grep -q 'utf8mb4_uca1400_ai_ci' "$WORK/m.ours" || fail "MariaDB: a case of the test is missing"
B "$MF" > "$WORK/m.plain"
! grep -q '^# Columns(' "$WORK/m.plain" || fail "MariaDB: metadata lines without --print-table-metadata"
pass "MariaDB 10.11: $n table maps (FULL and MINIMAL metadata) print as mariadb-binlog --print-table-metadata prints them"

expect_refused() {  # expect_refused WHAT ARGS...: exit 2
  local rc=0
  B "${@:2}" > /dev/null 2> "$WORK/err" || rc=$?
  [ $rc = 2 ] || { cat "$WORK/err"; fail "$1: exit $rc, not 2"; }
}
expect_refused "-s --print-table-metadata" -s --print-table-metadata "$MF"
expect_refused "--flashback --print-table-metadata" --flashback --print-table-metadata "$MF"
expect_refused "events --print-table-metadata" events --print-table-metadata "$MF"
pass "refused where it has no comment to follow (-s, --flashback, events)"

# --- 2. MySQL 9.7 -----------------------------------------------------------------------------
if "$MYSQL_SERVER" chroot > /dev/null 2>&1; then
  trap '"$MYSQL_SERVER" discard "$WORK/my" || true; cleanup' EXIT
  "$MYSQL_SERVER" start "$WORK/my" "$PM"
  { echo "CREATE DATABASE p; USE p;"; mysql_tables; } | sql "$PM"
  sql "$PM" -e "SET GLOBAL binlog_row_metadata = MINIMAL"
  { echo "SET SESSION binlog_transaction_compression = OFF; CREATE DATABASE p2; USE p2;"
    mysql_tables; } | sql "$PM"
  sql "$PM" -e "SET GLOBAL binlog_row_metadata = FULL; FLUSH BINARY LOGS"
  YF=$WORK/my/binlog/mysql-bin.000001
  mysqlbinlog() { "$MYSQL_SERVER" exec mysqlbinlog --no-defaults "$@"; }
  mysqlbinlog --print-table-metadata "$YF" > "$WORK/y.tool" || fail "mysqlbinlog"
  B --print-table-metadata "$YF" > "$WORK/y.ours" || fail "binrecover --print-table-metadata"
  n=$(same_metadata "MySQL 9.7" "$WORK/y.tool" "$WORK/y.ours")
  maps_total=$((maps_total + n))
  grep -q '^# Columns(`my_row_id` BIGINT UNSIGNED NOT NULL INVISIBLE AUTO_INCREMENT,$' "$WORK/y.ours" &&
    grep -q '^# has_generated_invisible_primary_key=1$' "$WORK/y.ours" && grep -q ' VECTOR(100) NOT NULL,$' "$WORK/y.ours" ||
    fail "MySQL: a case of the test is missing"
  pass "MySQL 9.7: $n table maps (FULL and MINIMAL metadata, compressed transactions and not) print as mysqlbinlog --print-table-metadata prints them"
  # Without the option: mysqlbinlog 8.0.30+ still prints has_generated_invisible_primary_key,
  # but not with --skip-gtids (it skips the GTID events that carry the server version).
  for opts in "" "--skip-gtids" "--base64-output=DECODE-ROWS -vv"; do
    # shellcheck disable=SC2086
    mysqlbinlog $opts "$YF" > "$WORK/y2.tool" || fail "mysqlbinlog $opts"
    # shellcheck disable=SC2086
    B $opts "$YF" > "$WORK/y2.ours" || fail "binrecover $opts"
    metadata_lines "$WORK/y2.tool" | cut -f2- > "$WORK/a"
    metadata_lines "$WORK/y2.ours" | cut -f2- > "$WORK/b"
    cmp -s "$WORK/a" "$WORK/b" || { diff "$WORK/a" "$WORK/b" | head; fail "MySQL ${opts:-(no option)}: the lines differ"; }
    grep -q '^# Columns(' "$WORK/b" && fail "MySQL ${opts:-(no option)}: # Columns without the option"
    echo "  ${opts:-(no option)}: $(grep -c . "$WORK/b") has_generated_invisible_primary_key lines"
  done
  pass "MySQL 9.7 without the option: has_generated_invisible_primary_key as mysqlbinlog (none with --skip-gtids)"
  "$MYSQL_SERVER" stop "$WORK/my"
  have_mysql=1
else
  pass "MySQL part skipped: no MySQL chroot"
  have_mysql=0
fi

# --- 3. The corpus ----------------------------------------------------------------------------
if [ ! -d "$CORPUS" ]; then
  pass "corpus part skipped: $CORPUS not present"
  echo "$maps_total table maps compared"
  exit 0
fi
# binrecover over every log once (WORK/co/N: its output, messages and exit status) for those
# with table maps; then mysqlbinlog 9.7 over every MySQL one in one run of the chroot
# (WORK/pm/N.bin into N.tool, its exit status in N.rc): one start of it, not one per log.
declare -A pm_of ours_of maria_of
with_maps=()
npm=0 nco=0
mkdir -p "$WORK/pm" "$WORK/co" "$WORK/myload"  # (LOAD DATA files: here, not in /tmp; the chroot binds $WORK)
while IFS= read -r -d '' f; do
  o=$WORK/co/$nco rb=0
  nco=$((nco + 1))
  BL --print-table-metadata "$f" > "$o.ours" 2> "$o.err" || rb=$?
  grep -q '^# Columns(' "$o.ours" || { rm -f "$o.ours" "$o.err"; continue; }
  echo "$rb" > "$o.rb"
  ours_of[$f]=$o
  with_maps+=("$f")
  if grep -qE '^#.*Start: binlog v [0-9]+, server v [^ ]*MariaDB' "$o.ours"; then
    maria_of[$f]=1
  elif [ $have_mysql = 1 ]; then
    pm_of[$f]=$WORK/pm/$npm
    cp "$f" "${pm_of[$f]}.bin"
    npm=$((npm + 1))
  fi
done < <(find "$CORPUS" -type f ! -name '*.md' ! -name '*.index' -print0 | sort -z)
if [ $have_mysql = 1 ]; then
  "$MYSQL_SERVER" exec bash -c 'for b in "$1"/*.bin; do
    n=${b%.bin} rc=0
    mysqlbinlog --no-defaults --local-load="$2" --print-table-metadata "$b" > "$n.tool" 2> /dev/null || rc=$?
    echo "$rc" > "$n.rc"
  done' _ "$WORK/pm" "$WORK/myload" || fail "mysqlbinlog did not run in the chroot"
fi
files=0 skipped=0
for f in "${with_maps[@]}"; do
  o=${ours_of[$f]}
  rb=$(cat "$o.rb")
  cp "$o.ours" "$WORK/c.ours"
  cp "$o.err" "$WORK/c.err"
  if [ -n "${maria_of[$f]:-}" ]; then
    rc=0
    mkdir -p "$WORK/mbload"
    mariadb-binlog --no-defaults --local-load="$WORK/mbload" --print-table-metadata "$f" > "$WORK/c.tool" 2> /dev/null || rc=$?
  elif [ $have_mysql = 1 ]; then
    [ -n "${pm_of[$f]:-}" ] || fail "corpus ${f#"$CORPUS"/}: not run through mysqlbinlog"
    cp "${pm_of[$f]}.tool" "$WORK/c.tool"
    rc=$(cat "${pm_of[$f]}.rc")
  else
    skipped=$((skipped + 1))
    continue
  fi
  rel=${f#"$CORPUS"/}
  metadata_lines "$WORK/c.tool" > "$WORK/c.tool.at"
  metadata_lines "$WORK/c.ours" > "$WORK/c.ours.at"
  cut -f2- "$WORK/c.tool.at" > "$WORK/c.tool.meta"
  cut -f2- "$WORK/c.ours.at" > "$WORK/c.ours.meta"
  n=$(grep -c '^# Columns(' "$WORK/c.tool.meta" || true)
  if cmp -s "$WORK/c.tool.meta" "$WORK/c.ours.meta"; then
    :
  elif [ $rc != 0 ] && head -n "$(wc -l < "$WORK/c.tool.meta")" "$WORK/c.ours.meta" | cmp -s - "$WORK/c.tool.meta"; then
    :  # the client stopped early (MySQL 9.7 reads no v1 rows events): what it printed is ours
  elif { [ $rb != 0 ] || grep -qE 'not emitted|runs past the end of the input' "$WORK/c.err"; } &&
    [ -z "$(sort "$WORK/c.tool.at" | comm -13 - <(sort "$WORK/c.ours.at"))" ]; then
    # binrecover leaves out incomplete transactions, and stops at a bad checksum (which the
    # clients do not check): each event it prints, as the client at the same position
    n=$(grep -c '^[0-9]*	# Columns(' "$WORK/c.ours.at" || true)
  else
    { diff "$WORK/c.tool.meta" "$WORK/c.ours.meta" || true; } | head -20
    fail "corpus $rel: the metadata lines differ from the real client's"
  fi
  files=$((files + 1))
  maps_total=$((maps_total + n))
done
[ $files -gt 50 ] || fail "only $files corpus files with table maps"
# MySQL 5.1.15-5.1.17 wrote table maps without column metadata (both clients crash on them with
# the option): exit 4, as with -v.
rc=0
BL --print-table-metadata "$CORPUS/mariadb-server-10.11/suite/binlog/std_data/ver_5_1_17.001" \
  > /dev/null 2> "$WORK/err" || rc=$?
[ $rc = 4 ] && grep -q 'Table_map: needs 1 more bytes' "$WORK/err" ||
  { cat "$WORK/err"; fail "a table map without column metadata: exit $rc, not 4"; }
note=
[ $skipped = 0 ] || note=" ($skipped MySQL ones skipped: no chroot)"
pass "corpus: $files binlogs with table maps print as their clients print them$note"
echo "$maps_total table maps compared"
