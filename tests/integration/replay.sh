#!/usr/bin/env bash
# binrecover replay on real MariaDB servers (ports PA..PA+3, default 23501..23504, plus a refused
# one at PA+19):
#  (a) the seed scenario (ROW) replayed straight into a server: same content as the source just
#      before the DROP DATABASE;
#  (b) an interrupted replay: a row created on the target makes one INSERT in the middle fail
#      (duplicate key): exit 6, one line with the resume coordinates, the state file holds them;
#      after the conflict is removed, --resume finishes; a counter bumped by every transaction
#      (UPDATE c SET n = n + 1) proves nothing was applied twice; content equals (a)'s;
#      --gtids=skip-applied then applies nothing more;
#  (b2) a transaction's second row event fails: its row events went as one BINLOG statement, and
#      the message names that statement's first event and its last;
#  (c) the target killed mid-replay: exit 6 with the resume coordinates; restarted, --resume
#      --gtids=skip-applied finishes with the counter exact;
#  (d) row events larger than the target's max_allowed_packet (1M): a 1.4 MB row goes as two
#      BINLOG fragments; statements of 3000 rows (3.7 MB insert, 7.5 MB update, a two-table
#      DELETE of 2 x 1.3 MB, in single rows events: the source runs with
#      binlog_row_event_max_size=16M) are cut into BINLOG statements and rows events under 1M
#      and arrive whole (two fragments could not hold them); a 3 MB row stops with exit 6 naming the size needed, and after
#      SET GLOBAL max_allowed_packet the replay resumes and finishes;
#  (e) wrong password, refused port: exit 6 and one line naming host:port; connection settings
#      from an option file ([client]) through the client library;
#  (f) a MIXED transaction, --merge-transactions around MyISAM units;
#  (h) a COMMIT held for the next transaction's first packet fails (its session killed at a
#      fault point): exit 6, one line naming that COMMIT and the one before it as the last
#      applied; --resume finishes with the counter exact; (h2) the same for the last
#      transaction, whose COMMIT goes alone;
#  (i) a transaction fails while the reading thread waits for it before a DDL: exit 6 naming it.
# (A transaction's packet sent before the answer of the one before: replay_pipeline.sh.)
source "$(dirname "$0")/lib.sh"
PA=${1:-23501}
PB=$((PA + 1))
PC=$((PA + 2))
PREFUSED=$((PA + 19))

start_server a "$PA" --binlog-format=ROW --binlog-row-event-max-size=16M
start_server b "$PB"
start_server c "$PC" --max-allowed-packet=1M

conn_b=(-h127.0.0.1 -P"$PB" -uroot)
replay() { "$BINRECOVER" replay --no-defaults --no-progress "$@"; }
must() {  # must WHAT ERRFILE COMMAND...: the command succeeds, or its stderr is shown
  local what=$1 err=$2 rc=0
  shift 2
  "$@" 2> "$err" || rc=$?
  [ $rc = 0 ] || { cat "$err"; fail "$what exited $rc"; }
}

# --- the source: the seed scenario's workload, plus a counter and a table to conflict on ---
sql "$PA" -e "CREATE DATABASE zyyshop; CREATE DATABASE other;
  CREATE TABLE other.t2 (id INT PRIMARY KEY, v VARCHAR(20));
  INSERT INTO other.t2 VALUES (1, 'before dump');
  CREATE TABLE zyyshop.c (id INT PRIMARY KEY, n INT);
  INSERT INTO zyyshop.c VALUES (1, 0);
  CREATE TABLE zyyshop.k (id INT PRIMARY KEY)"
mariadb-dump --no-defaults -h127.0.0.1 -P"$PA" -uroot --master-data=2 --flush-logs \
  --single-transaction -B zyyshop > "$WORK/dump.sql"
read -r dump_file dump_pos < <(sed -n \
  "s/^-- CHANGE MASTER TO MASTER_LOG_FILE='\([^']*\)', MASTER_LOG_POS=\([0-9]*\);.*/\1 \2/p" \
  "$WORK/dump.sql")
[ -n "$dump_file" ] && [ -n "$dump_pos" ] || fail "no binlog coordinates in the dump"

sql "$PA" zyyshop <<'SQL'
CREATE TABLE tt (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(16),
                 sex ENUM('m','w'), age TINYINT UNSIGNED, classid CHAR(6));
INSERT INTO tt (name, sex, age, classid) VALUES ('张三', 'm', 18, 'c101');
UPDATE c SET n = n + 1;
INSERT INTO tt (name, sex, age, classid) VALUES ('王五', 'w', 19, 'c101');
UPDATE c SET n = n + 1;
INSERT INTO tt (name, sex, age, classid) VALUES ('赵六', 'm', 20, 'c102');
INSERT INTO k VALUES (5);
UPDATE c SET n = n + 1;
INSERT INTO tt (name, sex, age, classid) VALUES ('孙七', 'w', 21, 'c102');
INSERT INTO tt (name, sex, age, classid) VALUES ('周八', 'm', 22, 'c103');
FLUSH BINARY LOGS;
UPDATE c SET n = n + 1;
UPDATE tt SET name = '李四' WHERE id = 4;
UPDATE tt SET name = '小二' WHERE id = 2;
USE other;
UPDATE zyyshop.tt SET age = age + 10 WHERE id = 1;
INSERT INTO t2 VALUES (3, 'other only');
USE zyyshop;
INSERT INTO other.t2 VALUES (2, 'noise');
BEGIN;
UPDATE c SET n = n + 1;
INSERT INTO k VALUES (6);
COMMIT;
SQL
sql "$PA" -e "UPDATE zyyshop.tt JOIN other.t2 ON other.t2.id = 1
    SET tt.classid = 'c999', t2.v = 'joined' WHERE tt.id = 3;
  UPDATE other.t2 JOIN zyyshop.tt ON tt.id = 5
    SET t2.v = 'joined2', tt.classid = 'c555' WHERE t2.id = 1;
  UPDATE zyyshop.c SET n = n + 1"
content() {  # content PORT: every zyyshop table's rows and checksum
  sql "$1" -N -e "SELECT * FROM zyyshop.tt ORDER BY id; SELECT * FROM zyyshop.c;
    SELECT * FROM zyyshop.k ORDER BY id; CHECKSUM TABLE zyyshop.tt, zyyshop.c, zyyshop.k"
}
content "$PA" > "$WORK/expected"
[ "$(sql "$PA" -N -e "SELECT n FROM zyyshop.c")" = 6 ] || fail "the source's counter is not 6"
sql "$PA" -e "DROP DATABASE zyyshop"
sql "$PA" -e "INSERT INTO other.t2 VALUES (4, 'after the drop')"

index="$WORK/a/binlog/mysql-bin.index"
"$BINRECOVER" events --format=tsv --index-file="$index" > "$WORK/events.tsv"
read -r drop_file drop_pos < <(find_drop "$WORK/events.tsv")
[ -n "$drop_file" ] || fail "DROP DATABASE not found in the event listing"
mapfile -t files < <(binlogs_between "$WORK/a/binlog" "$dump_file" "$drop_file")
[ ${#files[@]} -ge 2 ] || fail "expected the replay to span several files"
range=(--database=zyyshop --start-position="$dump_pos" --stop-position="$drop_pos")

restore_b() {
  sql "$PB" -e "DROP DATABASE IF EXISTS zyyshop; DROP DATABASE IF EXISTS other;
    CREATE DATABASE other"
  sql "$PB" < "$WORK/dump.sql"
}

# --- (a) uninterrupted replay ---
restore_b
status() { sql "$PB" -N -e "SHOW GLOBAL STATUS LIKE '$1'" | cut -f2; }
binlogs0=$(status Com_binlog)
sql "$PB" -e "SET GLOBAL general_log_file = '$WORK/b-general.log', general_log = 1"
must "(a) replay" "$WORK/a.err" \
  replay "${conn_b[@]}" --state-file="$WORK/a.state" "${range[@]}" "${files[@]}"
[ ! -s "$WORK/a.err" ] || { cat "$WORK/a.err"; fail "(a) replay printed something"; }
content "$PB" > "$WORK/a.content"
diff "$WORK/expected" "$WORK/a.content" || fail "(a) content differs from the source's"
[ "$(sql "$PB" -N -e "SELECT COUNT(*) FROM information_schema.tables
      WHERE table_schema = 'other'")" = 0 ] || fail "(a) changes to database other leaked"
grep -q "^file=$(basename "${files[-1]}")$" "$WORK/a.state" || fail "(a) state file: $(cat "$WORK/a.state")"
# A transaction's row events go as one BINLOG statement, and a session setting that the
# session already has is not sent again: the target counts one BINLOG statement per transaction
# with row events (and one per file for its format description event), and the server_id of
# the log's GTIDs is set far fewer times than once per transaction (each transaction still
# sets its own gtid_seq_no).
sql "$PB" -e "SET GLOBAL general_log = 0"
units=$("$BINRECOVER" events --format=tsv "${range[@]}" "${files[@]}" | awk -F'\t' '
  $3 == "Gtid" { g = 1 } $3 == "Table_map" && g { rows++; g = 0 } $3 == "Xid" { n++ }
  END { print n + 0, rows + 0 }')
read -r transactions row_units <<< "$units"
binlogs=$(($(status Com_binlog) - binlogs0))
server_ids=$(grep -c 'SET @@session.server_id=' "$WORK/b-general.log")
seq_nos=$(grep -c 'SET @@session.gtid_seq_no=' "$WORK/b-general.log")
echo "(a) $transactions transactions, $row_units with rows, ${#files[@]} files: $binlogs BINLOG statements, server_id set $server_ids times, gtid_seq_no $seq_nos"
[ "$binlogs" = $((row_units + ${#files[@]})) ] ||
  fail "(a) $binlogs BINLOG statements for $row_units row transactions in ${#files[@]} files"
[ "$seq_nos" -ge "$transactions" ] && [ $((server_ids * 2)) -lt "$transactions" ] ||
  fail "(a) gtid_seq_no set $seq_nos times, server_id $server_ids times, for $transactions transactions"
pass "(a) seed scenario replayed into the server: content equals the source before the drop"

# Running it again without --resume is refused: it would apply everything twice.
rc=0
replay "${conn_b[@]}" --state-file="$WORK/a.state" "${range[@]}" "${files[@]}" \
  2> "$WORK/again.err" || rc=$?
[ $rc = 2 ] && grep -q "exists: an earlier replay applied up to" "$WORK/again.err" ||
  { cat "$WORK/again.err"; fail "a second run over an existing state file exited $rc"; }

# --- (b) interrupted by a duplicate key, resumed ---
restore_b
sql "$PB" -e "INSERT INTO zyyshop.k VALUES (5)"  # the conflict
rc=0
replay "${conn_b[@]}" --state-file="$WORK/b.state" "${range[@]}" "${files[@]}" \
  2> "$WORK/b.err" || rc=$?
[ $rc = 6 ] || { cat "$WORK/b.err"; fail "(b) the failing replay exited $rc, not 6"; }
[ "$(grep -c . "$WORK/b.err")" = 1 ] || { cat "$WORK/b.err"; fail "(b) not one line"; }
grep -q "Duplicate entry '5'" "$WORK/b.err" || { cat "$WORK/b.err"; fail "(b) no server error"; }
# The failing transaction is the one with INSERT INTO k VALUES (5); it starts where the last
# applied one ends, which is what the message and the state file name.
read -r bad_file bad_pos < <(awk -F'\t' '$3 == "Gtid" { f = $1; p = $2 }
  $3 == "Annotate_rows" && $6 ~ /INSERT INTO k VALUES \(5\)/ { print f, p; exit }' "$WORK/events.tsv")
[ -n "$bad_pos" ] || fail "(b) the failing transaction is not in the event listing"
grep -q "the last transaction applied ends at $bad_file:$bad_pos (GTID [0-9-]*): .*--resume" \
  "$WORK/b.err" || { cat "$WORK/b.err"; fail "(b) the message lacks $bad_file:$bad_pos"; }
grep -q "^file=$bad_file$" "$WORK/b.state" && grep -q "^position=$bad_pos$" "$WORK/b.state" ||
  { cat "$WORK/b.state"; fail "(b) the state file does not hold $bad_file:$bad_pos"; }
[ "$(sql "$PB" -N -e "SELECT n FROM zyyshop.c")" = 2 ] ||
  fail "(b) the counter is not 2 after the failure (the failed transaction left something?)"
echo "(b) stopped as expected: $(cat "$WORK/b.err")"
sql "$PB" -e "DELETE FROM zyyshop.k WHERE id = 5"  # fix the conflict
must "(b) --resume" "$WORK/b2.err" \
  replay "${conn_b[@]}" --state-file="$WORK/b.state" --resume "${range[@]}" "${files[@]}"
content "$PB" > "$WORK/b.content"
diff "$WORK/a.content" "$WORK/b.content" || fail "(b) content after --resume differs from (a)"
[ "$(sql "$PB" -N -e "SELECT n FROM zyyshop.c")" = 6 ] || fail "(b) counter is not 6"
pass "(b) interrupted at $bad_file:$bad_pos, resumed: content equals (a), counter 6 (nothing twice)"

# --gtids=skip-applied: the server's gtid_binlog_pos has every GTID of the range now.
must "--gtids=skip-applied" "$WORK/skip.err" replay "${conn_b[@]}" \
  --state-file="$WORK/skip.state" --gtids=skip-applied "${range[@]}" "${files[@]}"
[ "$(sql "$PB" -N -e "SELECT n FROM zyyshop.c")" = 6 ] || fail "skip-applied applied again"
[ ! -e "$WORK/skip.state" ] || fail "skip-applied applied a transaction: $(cat "$WORK/skip.state")"
pass "--gtids=skip-applied leaves out what the server has"

# (b2) the second row event of a transaction fails (UPDATE c, then INSERT INTO k VALUES (6)):
# both went as one BINLOG statement; the message names the first one's event and the last's.
read -r tx_file first_rows last_rows < <(awk -F'\t' '
  $3 == "Gtid" { f = $1; first = ""; last = ""; want = 0 }
  $3 ~ /^(Write|Update|Delete)_rows/ { if (first == "") first = $2; last = $2 }
  $3 == "Annotate_rows" && $6 ~ /INSERT INTO k VALUES \(6\)/ { want = 1 }
  $3 == "Xid" && want { print f, first, last; exit }' "$WORK/events.tsv")
[ -n "$last_rows" ] && [ "$first_rows" != "$last_rows" ] ||
  fail "(b2) the two-statement transaction is not in the event listing"
restore_b
sql "$PB" -e "INSERT INTO zyyshop.k VALUES (6)"
rc=0
replay "${conn_b[@]}" --state-file="$WORK/b2.state" "${range[@]}" "${files[@]}" \
  2> "$WORK/b2.err" || rc=$?
[ $rc = 6 ] || { cat "$WORK/b2.err"; fail "(b2) the failing replay exited $rc, not 6"; }
grep -q "^binrecover: [^ ]*$tx_file:$first_rows: Update_rows_v1: server error 1062 .*Duplicate entry '6'.* (one BINLOG statement for the row events up to offset $last_rows); the last transaction applied ends at " \
  "$WORK/b2.err" || { cat "$WORK/b2.err"; fail "(b2) the message does not name $first_rows and $last_rows"; }
pass "(b2) a failure in a transaction's second row event names its BINLOG statement's first event ($first_rows) and last ($last_rows)"

# --- (d) row events larger than max_allowed_packet (server c: 1M) ---
sql "$PA" -e "FLUSH BINARY LOGS"
big_file=$(sql "$PA" -N -e "SHOW MASTER STATUS" | cut -f1)
sql "$PA" -e "CREATE DATABASE big; CREATE DATABASE seq; CREATE TABLE big.b (id INT PRIMARY KEY, v LONGBLOB);
  INSERT INTO big.b VALUES (1, REPEAT('x', 1400000));
  CREATE TABLE big.m (id INT PRIMARY KEY, v VARCHAR(2000), n BIGINT);
  INSERT INTO big.m SELECT seq, REPEAT(CHAR(65 + seq % 26), 1000 + seq % 500), seq * 7
    FROM seq.seq_1_to_3000;
  UPDATE big.m SET v = CONCAT(v, 'u'), n = n - 1;
  CREATE TABLE big.m2 LIKE big.m;
  INSERT INTO big.m2 SELECT * FROM big.m;
  DELETE big.m, big.m2 FROM big.m JOIN big.m2 USING (id) WHERE big.m.id % 3 = 0;
  INSERT INTO big.b VALUES (2, REPEAT('y', 3000000));
  INSERT INTO big.b VALUES (3, 'small')"
sql "$PA" -N -e "SELECT id, LENGTH(v), MD5(v) FROM big.b ORDER BY id" > "$WORK/big.expected"
conn_c=(-h127.0.0.1 -P"$PC" -uroot)
rc=0
replay "${conn_c[@]}" --state-file="$WORK/d.state" "$WORK/a/binlog/$big_file" \
  2> "$WORK/d.err" || rc=$?
[ $rc = 6 ] || { cat "$WORK/d.err"; fail "(d) the 3 MB row exited $rc, not 6"; }
[ "$(grep -c . "$WORK/d.err")" = 1 ] || { cat "$WORK/d.err"; fail "(d) not one line"; }
grep -q "does not fit the server's max_allowed_packet (1048576) even as two fragments" \
  "$WORK/d.err" || { cat "$WORK/d.err"; fail "(d) unexpected message"; }
[ "$(sql "$PC" -N -e "SELECT id, LENGTH(v) FROM big.b")" = "1	1400000" ] ||
  fail "(d) the 1.4 MB row did not arrive as fragments"
m_sum() {
  sql "$1" -N -e "SELECT COUNT(*), SUM(LENGTH(v)), SUM(n) FROM big.m; CHECKSUM TABLE big.m, big.m2"
}
[ "$(m_sum "$PC")" = "$(m_sum "$PA")" ] || fail "(d) big.m differs: $(m_sum "$PC") / $(m_sum "$PA")"
[ "$(sql "$PC" -N -e "SELECT COUNT(*) FROM big.m")" = 2000 ] || fail "(d) big.m is not 2000 rows"
sql "$PC" -e "SET GLOBAL max_allowed_packet = 16777216"
must "(d) --resume" "$WORK/d2.err" \
  replay "${conn_c[@]}" --state-file="$WORK/d.state" --resume "$WORK/a/binlog/$big_file"
sql "$PC" -N -e "SELECT id, LENGTH(v), MD5(v) FROM big.b ORDER BY id" > "$WORK/big.actual"
diff "$WORK/big.expected" "$WORK/big.actual" || fail "(d) big rows differ"
pass "(d) 1.4 MB row as two BINLOG fragments under a 1M max_allowed_packet; 3.7/7.5/2.6 MB statements cut at row boundaries; 3 MB row: exit 6, raised, resumed"

# --- (c) the target server killed mid-replay, restarted, resumed ---
PD=$((PA + 3))
start_server d "$PD"
restart_server() {  # NAME PORT: the server again on its data folder, as mariadb_server.sh starts it
  local dir=$WORK/$1 port=$2
  "$(command -v mariadbd || echo /usr/sbin/mariadbd)" --no-defaults --user="$(id -un)" \
    --datadir="$dir/data" --tmpdir="$dir/tmp" --bind-address=127.0.0.1 --port="$port" \
    --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" --log-error="$dir/error.log" \
    --server-id=1 --log-bin="$dir/binlog/mysql-bin" --binlog-format=ROW \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=48M --skip-name-resolve \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    --default-time-zone=+00:00 > /dev/null 2>&1 &
  # (crash recovery first: a generous deadline for a loaded machine)
  local deadline=$((SECONDS + 180))
  while [ "$SECONDS" -lt "$deadline" ]; do
    sql "$port" -e 'SELECT 1' > /dev/null 2>&1 && return 0
    sleep 0.1
  done
  cat "$dir/error.log" >&2
  fail "the server in $dir did not restart in 180 s"
}
sql "$PA" -e "FLUSH BINARY LOGS"
crash_file=$(sql "$PA" -N -e "SHOW MASTER STATUS" | cut -f1)
sql "$PA" -e "CREATE DATABASE crash; CREATE TABLE crash.c (id INT PRIMARY KEY, n INT);
  INSERT INTO crash.c VALUES (1, 0)"
seq 1 3000 | sed 's/.*/UPDATE crash.c SET n = n + 1;/' | sql "$PA"
rc=0
# The moment is certain: a test-only fault point makes the replay hand out the units up to the
# 300th update (the file's header events are units too: the format description, the GTID list,
# the checkpoints, wherever the server wrote them) and wait there with them applied, asking the
# target every 50 ms; the kill comes with the counter at 300 and the rest not sent.
# (awk reads to the end: an early exit would fail the pipe)
units=$("$BINRECOVER" events --format=tsv "$WORK/a/binlog/$crash_file" | awk -F'\t' '
  $3 == "Gtid" && ++g == 304 && !done { print k; done = 1 }  # (the 301st update)
  $3 ~ /^(Gtid|Format_desc|Gtid_list|Binlog_checkpoint)$/ { k++ }')
[ -n "$units" ] || fail "(c) no 304th transaction in $crash_file"
BINRECOVER_TEST_PAUSE_AFTER_UNITS=$units replay -h127.0.0.1 -P"$PD" -uroot \
  --state-file="$WORK/c.state" "$WORK/a/binlog/$crash_file" 2> "$WORK/c.err" &
rpid=$!
n=
deadline=$((SECONDS + 120))
until [ "${n:-0}" -ge 300 ]; do
  kill -0 "$rpid" 2> /dev/null || { cat "$WORK/c.err"; fail "(c) the paused replay ended by itself"; }
  [ "$SECONDS" -lt "$deadline" ] || fail "(c) the target's counter is ${n:-?}, not 300, after 120 s"
  sleep 0.1
  n=$(sql "$PD" -N -e "SELECT n FROM crash.c" 2> /dev/null || true)
done
[ "$n" = 300 ] || fail "(c) the replay paused after $units units, but the counter is $n, not 300"
kill -9 "$(cat "$WORK/d/mysqld.pid")"
wait "$rpid" || rc=$?
[ $rc = 6 ] || { cat "$WORK/c.err"; fail "(c) the replay exited $rc when its server was killed"; }
# (but for the fault point's own line)
[ "$(grep -v '^binrecover: test pause: ' "$WORK/c.err" | grep -c .)" = 1 ] ||
  { cat "$WORK/c.err"; fail "(c) not one line"; }
grep -q "the last transaction applied ends at $crash_file:[0-9]* (GTID 0-1-[0-9]*): .*--resume" \
  "$WORK/c.err" || { cat "$WORK/c.err"; fail "(c) no resume coordinates"; }
echo "(c) stopped as expected: $(cat "$WORK/c.err")"
restart_server d "$PD"
# The transaction in flight may have committed after the state was written: its GTID in the
# server's gtid_binlog_pos (this target has no writes of its own) tells.
must "(c) --resume" "$WORK/c2.err" replay -h127.0.0.1 -P"$PD" -uroot --state-file="$WORK/c.state" \
  --resume --gtids=skip-applied "$WORK/a/binlog/$crash_file"
[ "$(sql "$PD" -N -e "SELECT n FROM crash.c")" = 3000 ] ||
  fail "(c) the counter is $(sql "$PD" -N -e "SELECT n FROM crash.c"), not 3000"
pass "(c) server killed at counter ${n:-?}, restarted, --resume --gtids=skip-applied: counter 3000"

# --- (e) connection errors, option files ---
expect_conn_error() {  # PATTERN ARGS...
  local pattern=$1 rc=0
  shift
  replay "$@" --state-file="$WORK/e.state" "${files[0]}" > /dev/null 2> "$WORK/e.err" || rc=$?
  [ $rc = 6 ] || { cat "$WORK/e.err"; fail "'$*' exited $rc, not 6"; }
  [ "$(grep -c . "$WORK/e.err")" = 1 ] || { cat "$WORK/e.err"; fail "'$*': not one line"; }
  grep -q -- "$pattern" "$WORK/e.err" || { cat "$WORK/e.err"; fail "'$*': lacks '$pattern'"; }
  [ ! -e "$WORK/e.state" ] || fail "'$*' wrote a state file"
}
expect_conn_error "cannot connect to 127.0.0.1:$PB: Access denied for user 'root'" \
  -h127.0.0.1 -P"$PB" -uroot -pwrong
expect_conn_error "cannot connect to 127.0.0.1:$PREFUSED: Can't connect" -h127.0.0.1 -P"$PREFUSED" -uroot
MYSQL_PWD=wrong expect_conn_error "Access denied for user 'root'.*using password: YES" \
  -h127.0.0.1 -P"$PB" -uroot
printf '[client]\nhost=127.0.0.1\nport=%s\nuser=root\n' "$PREFUSED" > "$WORK/refused.cnf"
"$BINRECOVER" replay --defaults-file="$WORK/refused.cnf" --state-file="$WORK/e.state" \
  "${files[0]}" 2> "$WORK/e.err" && fail "the refused port from an option file connected"
grep -q "cannot connect to 127.0.0.1:$PREFUSED" "$WORK/e.err" || { cat "$WORK/e.err"; fail "option file: $(cat "$WORK/e.err")"; }
printf '[client]\nhost=127.0.0.1\nport=%s\nuser=root\n[binrecover]\nno-progress\n' "$PB" > "$WORK/b.cnf"
restore_b
must "[client] connection" "$WORK/f.err" "$BINRECOVER" replay --defaults-file="$WORK/b.cnf" \
  --state-file="$WORK/f.state" "${range[@]}" "${files[@]}"
content "$PB" | diff "$WORK/expected" - || fail "[client] replay: content differs"
pass "(e) wrong password, MYSQL_PWD, refused port: exit 6, one line; [client] settings from --defaults-file"

# (f) a MIXED-format transaction: two statements logged as rows, then, a second later (its own
# SET TIMESTAMP), one logged as a statement: the applier sends the second BINLOG statement on
# its own, then the setting and the statement together (once a packet that began with the
# BINLOG statement already sent again, a syntax error); and --merge-transactions 3 on the
# same log: the row-only InnoDB transactions go as groups, the mixed one and two of a MyISAM
# table (no Xid: not undone if a later one of a group failed) alone; the same content.
PE=$((PA + 4))
start_server e "$PE" --binlog-format=MIXED
mx_tables="CREATE TABLE mx.t (id INT PRIMARY KEY, u VARCHAR(40), ts INT);
  CREATE TABLE mx.m (id INT PRIMARY KEY, u VARCHAR(40)) ENGINE=MyISAM"
sql "$PE" -e "CREATE DATABASE mx; $mx_tables; FLUSH BINARY LOGS"
mx_first=$(sql "$PE" -N -e "SHOW MASTER STATUS" | cut -f1)
sql "$PE" mx -e "BEGIN; INSERT INTO t VALUES (1, UUID(), UNIX_TIMESTAMP());
  INSERT INTO t VALUES (2, UUID(), UNIX_TIMESTAMP()); DO SLEEP(1.1);
  INSERT INTO t VALUES (3, 'plain', UNIX_TIMESTAMP()); COMMIT"
# (9-12 with skip_parallel_replication: their GTIDs lack FL_ALLOW_PARALLEL, which the SQL sets
# only where it changes, so a group never spans the change: 4-6, 7-8, 9-11, 12, 13-15)
for i in $(seq 4 8); do sql "$PE" mx -e "INSERT INTO t VALUES ($i, UUID(), 0)"; done
for i in $(seq 9 12); do
  sql "$PE" mx -e "SET SESSION skip_parallel_replication = 1; INSERT INTO t VALUES ($i, UUID(), 0)"
done
for i in 1 2; do sql "$PE" mx -e "INSERT INTO m VALUES ($i, UUID())"; done
for i in $(seq 13 15); do sql "$PE" mx -e "INSERT INTO t VALUES ($i, UUID(), 0)"; done
sql "$PE" -e "FLUSH BINARY LOGS"
mapfile -t mx_files < <(binlogs_between "$WORK/e/binlog" "$mx_first")
unset 'mx_files[${#mx_files[@]}-1]'
"$BINRECOVER" events --format=tsv "${mx_files[@]}" > "$WORK/mx.tsv"
grep -q "INSERT INTO t VALUES (3, 'plain'" "$WORK/mx.tsv" && grep -q $'\tWrite_rows' "$WORK/mx.tsv" ||
  fail "(f) the source did not log rows and a statement in one transaction"
mx_content() { sql "$1" -N -e "SELECT id, u, ts FROM mx.t ORDER BY id; SELECT * FROM mx.m ORDER BY id"; }
mx_content "$PE" > "$WORK/mx.expected"
for opts in "" "--merge-transactions 3"; do
  sql "$PB" -e "DROP DATABASE IF EXISTS mx; CREATE DATABASE mx; $mx_tables"
  rm -f "$WORK/mx.state"
  # shellcheck disable=SC2086
  must "(f) replay $opts" "$WORK/mx.err" replay "${conn_b[@]}" --state-file="$WORK/mx.state" \
    --report="$WORK/mx.json" $opts "${mx_files[@]}"
  mx_content "$PB" | diff "$WORK/mx.expected" - || fail "(f) replay $opts: content differs"
done
grep -q '"transactions":15,.*"merged":11,"merged_into":4,' "$WORK/mx.json" ||
  fail "(f) --merge-transactions 3: $(cat "$WORK/mx.json")"
pass "(f) a MIXED transaction (rows, then a statement a second later) replays; --merge-transactions 3: 11 InnoDB row transactions in 4 groups (none across a change of skip_parallel_replication), the mixed one, 2 MyISAM ones and one more alone"

# --- (h) a COMMIT held for the next transaction's packet, its session killed ---
# Serial replay sends a transaction's COMMIT at the head of the next one's first packet. A
# test-only fault point stops the worker holding its 500th such COMMIT with the next
# transaction in hand; the test kills that session (the one transaction open on the target):
# the replay stops with exit 6, one line naming that transaction's COMMIT (its Xid event) and the
# one before it as the last applied, nothing of either after it on the target; --resume
# applies the rest exactly once: counter 3000.
"$BINRECOVER" events --format=tsv "$WORK/a/binlog/$crash_file" > "$WORK/crash.tsv"
# stops_with_6 WHEN PID ERRFILE: the background replay PID ends within 60 s (a run once went on
# waiting where it should have stopped) with exit 6; else the test fails, ERRFILE shown.
stops_with_6() {
  local rc=0
  for _ in $(seq 600); do kill -0 "$2" 2> /dev/null || break; sleep 0.1; done
  kill -0 "$2" 2> /dev/null && { kill -9 "$2"; cat "$3"; fail "the replay still runs 60 s $1"; }
  wait "$2" || rc=$?
  [ $rc = 6 ] || { cat "$3"; fail "the replay exited $rc, not 6, $1"; }
}
# resumed_to_3000 WHAT: --resume of the stopped replay finishes, the counter exact (3000).
resumed_to_3000() {
  must "$1 --resume" "$WORK/h2.err" replay -h127.0.0.1 -P"$PC" -uroot --state-file="$WORK/h.state" \
    --resume "$WORK/a/binlog/$crash_file"
  [ "$(sql "$PC" -N -e "SELECT n FROM crash.c")" = 3000 ] ||
    fail "$1 the counter is $(sql "$PC" -N -e "SELECT n FROM crash.c") after --resume, not 3000"
}
# held_pause WHAT N: a fresh replay of the crash log into server c in the background (rpid),
# stopped by the fault point as it holds its N-th COMMIT; returns once it says so.
held_pause() {
  rm -f "$WORK/h.go" "$WORK/h.state"
  (BINRECOVER_TEST_PAUSE_HOLDING=$2:$WORK/h.go exec "$BINRECOVER" replay --no-defaults \
    --no-progress -h127.0.0.1 -P"$PC" -uroot --state-file="$WORK/h.state" \
    "$WORK/a/binlog/$crash_file") 2> "$WORK/h.err" &
  rpid=$!
  local deadline=$((SECONDS + 120))
  until grep -q "^binrecover: test pause: a COMMIT held ($2)\$" "$WORK/h.err"; do
    kill -0 "$rpid" 2> /dev/null || { cat "$WORK/h.err"; fail "$1 the replay ended before its fault point"; }
    [ "$SECONDS" -lt "$deadline" ] || fail "$1 no held COMMIT ($2) after 120 s"
    sleep 0.1
  done
}
held_pause "(h)" 500
held_n=$(sql "$PC" -N -e "SELECT n FROM crash.c")
trx=$(sql "$PC" -N -e "SELECT trx_mysql_thread_id, trx_rows_modified FROM information_schema.INNODB_TRX")
[ "$(grep -c . <<< "$trx")" = 1 ] && [ "$(cut -f2 <<< "$trx")" -ge 1 ] ||
  fail "(h) not one open transaction with rows on the target while a COMMIT is held: '$trx'"
sql "$PC" -e "KILL $(cut -f1 <<< "$trx")"
touch "$WORK/h.go"
rc=0
wait "$rpid" || rc=$?
[ $rc = 6 ] || { cat "$WORK/h.err"; fail "(h) the replay exited $rc when its session was killed"; }
[ "$(grep -v '^binrecover: test pause: ' "$WORK/h.err" | grep -c .)" = 1 ] ||
  { cat "$WORK/h.err"; fail "(h) not one line"; }
# The held transaction is the (held_n + 1)-th update, the (held_n + 2)-th Xid (the first: the
# INSERT); the last applied ends with the one before it.
held_at=$(awk -F'\t' -v k=$((held_n + 2)) '$3 == "Xid" && ++x == k { print $2 }' "$WORK/crash.tsv")
last_end=$(awk -F'\t' -v k=$((held_n + 1)) '$3 == "Xid" && ++x == k { print $5 }' "$WORK/crash.tsv")
grep -q ":$held_at: Xid: server error .* in: COMMIT; the last transaction applied ends at $crash_file:$last_end " \
  "$WORK/h.err" || { cat "$WORK/h.err"; fail "(h) the error does not name the held COMMIT (Xid at $held_at) and the one before it (ending at $last_end)"; }
[ "$(sql "$PC" -N -e "SELECT n FROM crash.c")" = "$held_n" ] ||
  fail "(h) the counter moved from $held_n after the held COMMIT failed"
resumed_to_3000 "(h)"
pass "(h) the held COMMIT of update $((held_n + 1)) failed with its session killed: exit 6, one line naming its Xid ($held_at) and the last applied ($last_end); --resume: counter 3000"

# --- (h2) the last transaction's held COMMIT, no transaction left to carry it ---
# The fault point again, at the last hold (the log's last transaction): the worker finds no unit
# after it, sends the COMMIT alone, and its session is dead: exit 6 naming that Xid (it hung
# once: the run waited for the worker to let go of the unit, told too early), the counter one
# short; --resume applies the last update.
sql "$PC" -e "DROP DATABASE crash; DROP DATABASE binrecover; RESET MASTER"
holds=$(awk -F'\t' '$3 == "Xid"' "$WORK/crash.tsv" | wc -l)
held_pause "(h2)" "$holds"
[ "$(sql "$PC" -N -e "SELECT n FROM crash.c")" = 2999 ] ||
  fail "(h2) the counter is $(sql "$PC" -N -e "SELECT n FROM crash.c") at the last hold, not 2999"
trx=$(sql "$PC" -N -e "SELECT trx_mysql_thread_id FROM information_schema.INNODB_TRX")
[ "$(grep -c . <<< "$trx")" = 1 ] || fail "(h2) not one open transaction at the last hold: '$trx'"
sql "$PC" -e "KILL $trx"
touch "$WORK/h.go"
stops_with_6 "(h2) after its held COMMIT failed" "$rpid" "$WORK/h.err"
last_at=$(awk -F'\t' '$3 == "Xid" { a = $2 } END { print a }' "$WORK/crash.tsv")
grep -q ":$last_at: Xid: server error .* in: COMMIT; the last transaction applied ends at " "$WORK/h.err" ||
  { cat "$WORK/h.err"; fail "(h2) the error does not name the last Xid ($last_at)"; }
resumed_to_3000 "(h2)"
pass "(h2) the last transaction's COMMIT, held with no transaction after it, failed with its session killed: exit 6 naming its Xid ($last_at); --resume: counter 3000"

# --- (i) a transaction fails while the reading thread waits for it before a DDL ---
# The reading thread applies a DDL alone, once every transaction handed out before it has
# committed; it is woken when the last one commits, or when one fails. The test's session holds
# the row the log's INSERT writes (uncommitted), so that INSERT waits on its lock; a test-only
# announcement says when the reading thread starts to wait before the DDL; then the test commits
# its row: the INSERT fails (1062), and the replay must stop (exit 6, the Write_rows event named)
# instead of waiting for good.
sql "$PA" -e "FLUSH BINARY LOGS"
dr_file=$(sql "$PA" -N -e "SHOW MASTER STATUS" | cut -f1)
sql "$PA" -e "CREATE DATABASE dr; CREATE TABLE dr.t (id INT PRIMARY KEY);
  INSERT INTO dr.t VALUES (7); CREATE TABLE dr.t2 (id INT); INSERT INTO dr.t2 VALUES (1)"
"$BINRECOVER" events --format=tsv "$WORK/a/binlog/$dr_file" > "$WORK/dr.tsv"
read -r dr_start dr_rows < <(awk -F'\t' '$3 == "Gtid" { g = $2 }
  $3 ~ /^Write_rows/ { print g, $2; exit }' "$WORK/dr.tsv")
[ -n "$dr_rows" ] || fail "(i) no INSERT in the log"
sql "$PC" -e "CREATE DATABASE dr; CREATE TABLE dr.t (id INT PRIMARY KEY)"
hold dr "$PC" "BEGIN; INSERT INTO dr.t VALUES (7)"
rm -f "$WORK/i.state"
(BINRECOVER_TEST_ANNOUNCE_DRAIN=1 exec "$BINRECOVER" replay --no-defaults --no-progress \
  -h127.0.0.1 -P"$PC" -uroot --state-file="$WORK/i.state" --start-position="$dr_start" \
  "$WORK/a/binlog/$dr_file") 2> "$WORK/i.err" &
rpid=$!
WAIT_FOR_SHOW=$WORK/i.err wait_for 120 "(i) the replay did not wait before the DDL" \
  grep -q "^binrecover: test pause: waiting for the units handed out to commit\$" "$WORK/i.err"
printf 'COMMIT;\n' > "$WORK/dr.fifo"
stops_with_6 "(i) after the transaction before the DDL failed" "$rpid" "$WORK/i.err"
release dr
grep -q "^binrecover: [^ ]*$dr_file:$dr_rows: Write_rows_v1: server error 1062 .*Duplicate entry '7'" "$WORK/i.err" ||
  { cat "$WORK/i.err"; fail "(i) the error does not name the INSERT's Write_rows event ($dr_rows)"; }
[ -z "$(sql "$PC" -N -e "SHOW TABLES FROM dr LIKE 't2'")" ] || fail "(i) the DDL after the failed transaction ran"
pass "(i) a transaction that failed while the reading thread waited for it before a DDL: exit 6 naming its Write_rows event ($dr_rows), the DDL not run"

