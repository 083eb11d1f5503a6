#!/usr/bin/env bash
# One transaction of about 255 MB (a 1.4M-row INSERT ... SELECT), written by a real MariaDB
# (scripts/gen_big_transaction.sh, cached outside the checkout):
#  - every mode reads it at under 32 MB of peak RSS (issue 35), from the file and from a pipe,
#    and its SQL is exactly what is written when the transaction is held in memory
#    (--transaction-memory=2G; -v and --rows-as-sql so compared on a transaction of 100,000
#    rows, whose held runs need a fifth of the memory and time);
#  - the SQL output piped into a fresh server with default settings (16 MiB max_allowed_packet)
#    gives the table back: same rows, same CHECKSUM TABLE as the statements run directly;
#  - -v, --rows-as-sql and --flashback show every row; events and stats see the whole range.
#   tests/integration/big_transaction.sh PORT
source "$(dirname "$0")/lib.sh"
port=${1:?port}
rows=1400000
limit_kb=32768
F=$(BIG_PORT=$((port + 1)) "$ROOT/scripts/gen_big_transaction.sh" "$rows")
size=$(stat -c %s "$F")
[ "$size" -gt 250000000 ] || fail "the generated binlog is only $size bytes"
echo "binlog: $F ($size bytes)"

# run NAME CMD...: runs CMD with its stdout in $WORK/NAME.out, fails on a non-zero exit or a
# peak RSS of 32 MB or more.
run() {
  local name=$1
  shift
  /usr/bin/time -f %M -o "$WORK/$name.rss" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
    { cat "$WORK/$name.err" >&2; fail "$name exited non-zero"; }
  local rss
  rss=$(tail -1 "$WORK/$name.rss")
  [ "$rss" -lt "$limit_kb" ] || fail "$name: peak RSS $rss KB (limit $limit_kb KB)"
  echo "  $name: peak RSS $((rss / 1024)) MB"
}
# The first row transaction: undo starts there (the DDL before it cannot be undone).
first_dml=$("$BINRECOVER" events --format=tsv "$F" | awk -F'\t' '$3 == "Gtid" && $6 ~ /^BEGIN/ && !done { print $2; done = 1 }')
[ -n "$first_dml" ] || fail "no row transaction found"

run sql "$BINRECOVER" "$F"
run sql_pipe sh -c "cat '$F' | '$BINRECOVER' -"
run verbose "$BINRECOVER" -v "$F"
run decode "$BINRECOVER" --base64-output=decode-rows -v "$F"
run rows_sql "$BINRECOVER" --rows-as-sql "$F"
run rows_sql_pipe sh -c "cat '$F' | '$BINRECOVER' --rows-as-sql -"
run flashback "$BINRECOVER" --flashback --start-position="$first_dml" "$F"
run database "$BINRECOVER" --database=big "$F"
run table "$BINRECOVER" --table=big.small "$F"
run events "$BINRECOVER" events "$F"
run stats "$BINRECOVER" stats --format=json "$F"

# The same bytes as with the transaction held in memory: SQL here (the held run needs 3x the
# transaction), -v and --rows-as-sql below on one of 100,000 rows.
a=$(md5sum < "$WORK/sql.out")
b=$("$BINRECOVER" --transaction-memory=2G "$F" | md5sum)
[ "$a" = "$b" ] || fail "the SQL output differs between a streamed and a held transaction"
cmp -s "$WORK/sql.out" "$WORK/sql_pipe.out" || fail "SQL from a pipe differs from SQL from the file"
cmp -s "$WORK/rows_sql.out" "$WORK/rows_sql_pipe.out" || fail "--rows-as-sql from a pipe differs"
cmp -s "$WORK/sql.out" "$WORK/database.out" || fail "--database=big changed the output of a log of big only"
pass "every mode under 32 MB, streamed SQL equal to held SQL"

# Every row is there.
n=$(grep -c '^### INSERT INTO `big`.`t`' "$WORK/verbose.out")
[ "$n" = "$rows" ] || fail "-v shows $n inserted rows of big.t, not $rows"
n=$(grep -c '^INSERT INTO `big`.`t`' "$WORK/rows_sql.out")
[ "$n" = "$rows" ] || fail "--rows-as-sql has $n INSERTs into big.t, not $rows"
n=$(grep -c '^DELETE FROM `big`.`t`' "$WORK/flashback.out")
[ "$n" = "$rows" ] || fail "--flashback has $n DELETEs from big.t, not $rows"
grep -q '^BINLOG' "$WORK/table.out" && ! grep -q 'Table_map: `big`.`t`' "$WORK/table.out" ||
  fail "--table=big.small kept big.t"
grep -q "\"rows\":$((rows + 2))" "$WORK/stats.out" || fail "stats: $(head -c 200 "$WORK/stats.out")"
n=$(wc -l <"$WORK/events.out")
[ "$n" -gt 30000 ] || fail "events lists only $n lines"
pass "every row in -v, --rows-as-sql, --flashback and stats"

# Replayed into a server with default settings: the table as the statements make it.
start_server target "$port"
sql "$port" <"$WORK/sql.out" || fail "the SQL output did not replay"
sed "s/seq_1_to_ROWS/seq_1_to_$rows/; s/\bbig\b/expect/g" "$ROOT/testdata/big/big_transaction.sql" |
  sql "$port" || fail "could not build the expected table"
got=$(sql "$port" -N -e 'CHECKSUM TABLE big.t' | cut -f2)
want=$(sql "$port" -N -e 'CHECKSUM TABLE expect.t' | cut -f2)
count=$(sql "$port" -N -e 'SELECT COUNT(*) FROM big.t')
[ "$count" = "$rows" ] || fail "big.t has $count rows after the replay, not $rows"
[ "$got" = "$want" ] || fail "CHECKSUM TABLE big.t $got after the replay, $want expected"
pass "the replay restores big.t ($count rows, checksum $got)"

# A transaction of 100,000 rows (~18 MB, over the 8 MiB held by default): -v and --rows-as-sql
# write the same bytes streamed and held (--transaction-memory=2G), and the held run did hold it.
sql "$port" -e "FLUSH BINARY LOGS"
M=$WORK/target/binlog/$(sql "$port" -N -e "SHOW MASTER STATUS" | cut -f1)
sed "s/seq_1_to_ROWS/seq_1_to_100000/; s/\bbig\b/mid/g" "$ROOT/testdata/big/big_transaction.sql" |
  sql "$port" || fail "could not write the 100,000-row transaction"
sql "$port" -e "FLUSH BINARY LOGS"
[ "$(stat -c %s "$M")" -gt 16000000 ] || fail "the 100,000-row transaction is only $(stat -c %s "$M") bytes"
for mode in "" -v --rows-as-sql; do
  a=$("$BINRECOVER" $mode "$M" | md5sum)
  b=$(/usr/bin/time -f %M -o "$WORK/held.rss" "$BINRECOVER" --transaction-memory=2G $mode "$M" | md5sum)
  [ "$a" = "$b" ] || fail "output of '$mode' differs between a streamed and a held transaction"
  [ "$(tail -1 "$WORK/held.rss")" -gt 24000 ] ||
    fail "'$mode' with --transaction-memory=2G peaked at $(tail -1 "$WORK/held.rss") KB: not held"
done
pass "a transaction of 100,000 rows: SQL, -v and --rows-as-sql streamed equal to held"

# One 40 MB row event (issue 12, item 9): memory a small multiple of the event, every mode; the
# output replays (a 40 MB BINLOG statement needs the server's max_allowed_packet raised).
sql "$port" -e "SET GLOBAL max_allowed_packet = 268435456"
sql "$port" -e "FLUSH BINARY LOGS"
E=$WORK/target/binlog/$(sql "$port" -N -e "SHOW MASTER STATUS" | cut -f1)
sql "$port" -e "CREATE DATABASE one; CREATE TABLE one.t (id INT PRIMARY KEY, b LONGBLOB);
  INSERT INTO one.t VALUES (1, REPEAT('a', 40000000)); FLUSH BINARY LOGS"
[ "$(stat -c %s "$E")" -gt 40000000 ] || fail "no 40 MB event in $E"
limit_kb=$((3 * 40000 * 1024 / 1000))  # 3x the event
run one_sql "$BINRECOVER" "$E"
run one_hexdump "$BINRECOVER" -H "$E"
run one_events "$BINRECOVER" events "$E"
limit_kb=$((5 * 40000 * 1024 / 1000))  # -v and --rows-as-sql also print the 80 MB of hex
run one_verbose "$BINRECOVER" -v "$E"
run one_rows_sql "$BINRECOVER" --rows-as-sql "$E"
sql "$port" -e "DROP DATABASE one"
sql "$port" --max-allowed-packet=256M <"$WORK/one_sql.out" || fail "the 40 MB event did not replay"
[ "$(sql "$port" -N -e 'SELECT LENGTH(b) FROM one.t')" = 40000000 ] || fail "the 40 MB value is not back"
pass "one 40 MB row event: SQL, -H and events under 3x its size, -v and --rows-as-sql under 5x"
