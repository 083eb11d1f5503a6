#!/usr/bin/env bash
# Key values weighed without asking the target value by value (issue 30): --parallel's reader
# weighs each value of a unique key under its collation (so that 'bâton' and 'BATON' meet), by
# adding up its characters' weights, learned from the target's WEIGHT_STRING a block of 128
# code points at a time; a UCA collation's characters only from the blocks without contractions
# ('L' with U+00B7, a letter with a combining mark), any other value asked of the target.
#  - every kind of collation weighed so (general, UCA 4.0.0, 5.2.0, 14.0.0 / 9.0.0, PAD SPACE and
#    NO PAD, utf8mb3, 8-bit ones), on values of Latin, Greek, Cyrillic, kana, CJK, Hangul and
#    emoji characters mixed with ASCII, trailing spaces, a prefix key, and values the reader
#    must ask for (combining marks, 'L·', Thai, Devanagari): with every value added up also
#    asked of the target (BINRECOVER_TEST_WEIGHT_CHECKS), none differs, and the target equals
#    the source;
#  - without the checks, the target is asked far fewer questions than there are values.
# With "mysql" after the port: MySQL 9.7 (its collations).
source "$(dirname "$0")/lib.sh"
# (the units on all sessions: a log this short would stay on one; docs/testing.md)
export BINRECOVER_TEST_WIDTH_FLIP=1000000000
PA=${1:-24551}
FLAVOR=${2:-mariadb}
start_pair "$PA" "$FLAVOR"
if [ "$FLAVOR" = mysql ]; then
  collations="utf8mb4_0900_ai_ci utf8mb4_general_ci utf8mb4_unicode_ci utf8mb4_unicode_520_ci
    utf8mb3_general_ci latin1_swedish_ci cp1251_general_ci"
else
  collations="utf8mb4_general_ci utf8mb4_general_nopad_ci utf8mb4_unicode_ci
    utf8mb4_unicode_nopad_ci utf8mb4_unicode_520_ci utf8mb4_uca1400_ai_ci
    utf8mb4_uca1400_nopad_ai_ci utf8mb3_general_ci latin1_swedish_ci macce_general_ci
    cp1251_general_ci"
fi

# The workload: per collation a table with a unique key and one with a prefix key (4
# characters); each value inserted into both and deleted again in one transaction (values that
# are equal under the collation never meet on the source), and the last one of each kept.
# shellcheck disable=SC2086  # (the collations, one word each)
python3 - $collations > "$WORK/load.sql" 2> "$WORK/values" <<'PY'
import random, sys
rng = random.Random(30)
plain = [(0x00a0, 0x00b6), (0x00b8, 0x024f), (0x0370, 0x0386), (0x0388, 0x03ff),
         (0x0400, 0x0482), (0x048a, 0x052f), (0x1e00, 0x1eff), (0x2010, 0x2027),
         (0x20a0, 0x20bf), (0x3041, 0x3096), (0x30a1, 0x30fa), (0x4e00, 0x9fff),
         (0xac00, 0xd7a3), (0x1f300, 0x1faff)]
asked = ["L\u00b7l", "l\u00b7L", "e\u0301t\u00e9", "\u0418\u0306", "\u0e40\u0e01\u0e32",
         "\u0915\u093f", "a\u0308", "\u00c5ngstr\u00f6m\u0301", "\u30ab\u309a", "\u30fc\u30fd"]
ascii = "abcXYZ09 -_."
def unicode_values(bmp):
    # (per block of characters, two blocks of 128 drawn in each: names use a few blocks, and
    # each block is one question)
    out = []
    for first, last in plain:
        if bmp and first > 0xffff:
            continue
        blocks = [rng.randint(first, last) // 128 * 128 for _ in range(2)]
        def pick():
            b = rng.choice(blocks)
            return chr(rng.randint(max(first, b), min(last, b + 127)))
        for _ in range(20):
            head = "".join(rng.choice(ascii) for _ in range(rng.randint(0, 3)))
            tail = " " * rng.randint(0, 2)
            out.append(head + "".join(pick() for _ in range(rng.randint(1, 3))) + tail)
    return out + asked
def byte_values():
    out = []
    for _ in range(120):
        s = bytes(rng.choice([rng.randint(0x80, 0xff), ord(rng.choice(ascii))])
                  for _ in range(rng.randint(1, 5)))
        out.append(s + b" " * rng.randint(0, 1))
    return out
print("SET NAMES utf8mb4; CREATE DATABASE w;")
k = 0
distinct = 0
for n, coll in enumerate(sys.argv[1:], 1):
    cs = coll.split("_")[0]
    print(f"CREATE TABLE w.t{n} (id INT PRIMARY KEY, v VARCHAR(40) CHARACTER SET {cs} COLLATE {coll} NOT NULL, UNIQUE KEY (v)) ENGINE=InnoDB;")
    print(f"CREATE TABLE w.p{n} (id INT PRIMARY KEY, v VARCHAR(40) CHARACTER SET {cs} COLLATE {coll} NOT NULL, UNIQUE KEY (v(4))) ENGINE=InnoDB;")
    if cs.startswith("utf8"):
        values = [v.encode() for v in unicode_values(cs == "utf8mb3")]
    else:
        values = byte_values()
    distinct += len(set(values))
    for i, v in enumerate(values):
        k += 1
        lit = f"_{cs} X'{v.hex()}'"
        keep = i == len(values) - 1
        print(f"BEGIN; INSERT INTO w.t{n} VALUES ({k}, {lit}); INSERT INTO w.p{n} VALUES ({k}, {lit});")
        if not keep:
            print(f"DELETE FROM w.t{n} WHERE id = {k}; DELETE FROM w.p{n} WHERE id = {k};")
        print("COMMIT;")
print(distinct, file=sys.stderr)
PY
distinct=$(cat "$WORK/values")
sql "$PA" -e "FLUSH BINARY LOGS"
first=$(sql "$PA" -N -e "$binlog_status" | cut -f1)
sql "$PA" < "$WORK/load.sql" || fail "the workload failed on the source"
sql "$PA" -e "FLUSH BINARY LOGS"
mapfile -t files < <(binlogs_between "$WORK/a/binlog" "$first")
unset 'files[${#files[@]}-1]'  # (the new empty one)
n_tables=$(($(wc -w <<< "$collations") * 2))
content() {
  sql "$1" -N -e "SELECT GROUP_CONCAT(CONCAT('w.', TABLE_NAME)) FROM information_schema.TABLES
    WHERE TABLE_SCHEMA = 'w'" | { read -r t; sql "$1" -N -e "CHECKSUM TABLE $t"; }
}
expected=$(content "$PA")
[ "$(wc -l <<< "$expected")" = "$n_tables" ] || fail "the source holds not $n_tables tables"
selects() { sql "$PT" -N -e "SHOW GLOBAL STATUS LIKE 'Com_select'" | cut -f2; }

replay() {  # LABEL: a replay of the log with --parallel 8 into a fresh target
  sql "$PT" -e "DROP DATABASE IF EXISTS w; DROP DATABASE IF EXISTS binrecover; $reset_logs"
  rm -f "$WORK/r.state"
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot --parallel 8 \
    --state-file="$WORK/r.state" "${files[@]}" 2> "$WORK/r.err" ||
    { cat "$WORK/r.err"; fail "$1: the replay failed"; }
  [ "$(content "$PT")" = "$expected" ] || fail "$1: the target differs from the source"
}

BINRECOVER_TEST_WEIGHT_CHECKS=1000000000 replay "every value also asked"
if grep "binrecover: test:" "$WORK/r.err"; then
  fail "values whose characters' weights, added up, differ from the target's WEIGHT_STRING (above)"
fi
pass "$FLAVOR: $distinct values under $(wc -w <<< "$collations") collations, each one added up from its characters' weights (where it may be) and also asked of the target: none differs; the target equals the source"

before=$(selects)
replay "without the checks"
asked=$(($(selects) - before))
# (the catalog's questions, a block of 128 characters a question, the first 8 values of each
# collation, and the values of characters in UCA contractions' blocks: about a fifth)
[ $((asked * 3)) -lt "$distinct" ] ||
  fail "the target was asked $asked questions for $distinct values: the values were asked one by one"
pass "$FLAVOR: without the checks the target answered $asked questions for $distinct values"
