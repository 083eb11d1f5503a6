#!/usr/bin/env bash
# The rest of mysqlbinlog's options (issue 16, item 4), each with its meaning, on real servers:
# MariaDB 10.11 (port PA, PA+1) and MySQL 9.7 (PA+2, the sid chroot) for --idempotent.
#   mysqlbinlog_options.sh [PA]
source "$(dirname "$0")/lib.sh"
PA=${1:-23741}
PM=$((PA + 2))
ROW=$ROOT/testdata/row/mysql-bin.000001
STMT=$ROOT/testdata/stmt/mysql-bin.000001
B() { "$BINRECOVER" --no-defaults "$@"; }
expect_rc() {  # expect_rc RC WHAT CMD...: runs CMD, its exit status must be RC
  local want=$1 what=$2 rc=0
  shift 2
  "$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
  [ "$rc" = "$want" ] || { cat "$WORK/err"; fail "$what: exit $rc, not $want"; }
}

# --print-defaults: what the option files give ([client], [binrecover]), passwords masked.
printf '[client]\nuser=backup\npassword=s3cret\n[mysqld]\nport=1\n[binrecover]\ndatabase=shop\n' > "$WORK/my.cnf"
"$BINRECOVER" --defaults-file="$WORK/my.cnf" --print-defaults > "$WORK/pd"
[ "$(sed -n 2p "$WORK/pd")" = "--user=backup --password=***** --database=shop " ] ||
  { cat "$WORK/pd"; fail "--print-defaults"; }
! grep -q s3cret "$WORK/pd" || fail "--print-defaults shows the password"
"$BINRECOVER" --print-defaults --defaults-file="$WORK/my.cnf" | grep -q -- "--database=shop" ||
  fail "--print-defaults before --defaults-file"
expect_rc 2 "--no-defaults after another option" "$BINRECOVER" events -d x --no-defaults "$ROW"
grep -q "must come first" "$WORK/err" || fail "--no-defaults late: $(cat "$WORK/err")"
pass "--print-defaults: [client] and [binrecover] of the option file, password masked; --no-defaults only first"

# --set-charset: SET NAMES at the start, the client's character sets restored at the end; the
# output replays (every statement still sets its own character set).
start_server m "$PA"
B --set-charset=latin1 "$ROW" > "$WORK/cs.sql"
[ "$(grep -c '^/\*!40101 SET NAMES latin1 \*/;$' "$WORK/cs.sql")" = 1 ] || fail "--set-charset: no SET NAMES"
grep -q '^/\*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT \*/;$' "$WORK/cs.sql" ||
  fail "--set-charset: the client's character set is not restored"
B "$ROW" > "$WORK/plain.sql"
sql "$PA" < "$WORK/cs.sql" || fail "the --set-charset SQL does not replay"
sql "$PA" -e "DROP DATABASE IF EXISTS crm; DROP DATABASE IF EXISTS zyyshop; RESET MASTER"
expect_rc 2 "--set-charset with --flashback (undo SQL of its own)" B --flashback --set-charset=latin1 "$ROW"
expect_rc 2 "--require-row-format with --flashback" B --flashback --require-row-format "$ROW"
expect_rc 2 "--set-charset with a quote" B "--set-charset=latin1 */; DROP DATABASE x; /*" "$ROW"
pass "--set-charset=latin1: SET NAMES first, character sets restored last, replays into MariaDB; a name with SQL in it refused"

# --require-row-format: the SET, and an error at the first statement-format change.
B --require-row-format "$ROW" > "$WORK/rrf.sql" || fail "--require-row-format on a row-format log"
grep -q '^/\*!80019 SET @@SESSION.REQUIRE_ROW_FORMAT=1\*/;$' "$WORK/rrf.sql" || fail "no REQUIRE_ROW_FORMAT"
expect_rc 5 "--require-row-format on a statement-format log" B --require-row-format "$STMT"
grep -qE "mysql-bin.000001:[0-9]+: (Query|Intvar|User_var|Rand): --require-row-format: " "$WORK/err" ||
  fail "--require-row-format: $(cat "$WORK/err")"
pass "--require-row-format: a row log passes with the session setting; a statement log stops at $(grep -oE '[0-9]+: [A-Za-z_]+' "$WORK/err" | head -1) (exit 5)"

# --idempotent is MySQL's (RBR_EXEC_MODE; MariaDB ignores the statement): refused for MariaDB.
expect_rc 2 "--idempotent on a MariaDB log" B --idempotent "$ROW"
B --idempotent --target-flavor=mysql "$ROW" | grep -q '^/\*!50700 SET @@SESSION.RBR_EXEC_MODE=IDEMPOTENT\*/;$' ||
  fail "--idempotent --target-flavor=mysql: no RBR_EXEC_MODE"
expect_rc 2 "--idempotent with --rows-as-sql" B --idempotent --rows-as-sql "$ROW"
expect_rc 2 "replay --idempotent into MariaDB" "$BINRECOVER" replay --no-defaults --no-progress \
  -h127.0.0.1 -P"$PA" -uroot --idempotent --state-file="$WORK/i.state" "$ROW"
grep -q "is MariaDB, which has no session rbr_exec_mode" "$WORK/err" || fail "replay --idempotent into MariaDB: $(cat "$WORK/err")"
[ ! -e "$WORK/i.state" ] || fail "a refused replay left a state file"
pass "--idempotent refused where MariaDB would ignore it (SQL for MariaDB, replay into MariaDB, --rows-as-sql)"

# Connection options: --protocol, --bind-address, --compression-algorithms.
sql "$PA" -e "CREATE DATABASE c; CREATE TABLE c.t (id INT PRIMARY KEY); INSERT INTO c.t VALUES (1), (2); FLUSH BINARY LOGS"
R=(--no-defaults -R -h127.0.0.1 -P"$PA" -uroot)
B events "${R[@]:1}" mysql-bin.000001 > "$WORK/ev.plain"
B events "${R[@]:1}" --protocol=TCP --bind-address=127.0.0.1 --compression-algorithms=zlib mysql-bin.000001 > "$WORK/ev.opts" ||
  fail "events -R with --protocol=TCP --bind-address --compression-algorithms=zlib"
cmp -s "$WORK/ev.plain" "$WORK/ev.opts" || fail "events -R differs with the connection options"
# mysqlbinlog's older names: -C/--compress, --read-from-remote-master, --stop-never-slave-server-id.
B events "${R[@]:1}" -C --stop-never-slave-server-id=77 mysql-bin.000001 > "$WORK/ev.old" || fail "-C --stop-never-slave-server-id"
cmp -s "$WORK/ev.plain" "$WORK/ev.old" || fail "events -R differs with -C --stop-never-slave-server-id"
B events --read-from-remote-master=BINLOG-DUMP-NON-GTID -h127.0.0.1 -P"$PA" -uroot mysql-bin.000001 > "$WORK/ev.master" ||
  fail "--read-from-remote-master"
cmp -s "$WORK/ev.plain" "$WORK/ev.master" || fail "--read-from-remote-master differs from -R"
expect_rc 2 "-C with --compression-algorithms" B events "${R[@]:1}" -C --compression-algorithms=zlib mysql-bin.000001
expect_rc 2 "an old and a new name together" B events "${R[@]:1}" --stop-never-slave-server-id=7 --connection-server-id=8 mysql-bin.000001
B events "${R[@]:1}" --ssl-mode=DISABLED --ssl-crl="$WORK/none.pem" --ssl-crlpath="$WORK" --tls-version=TLSv1.2,TLSv1.3 mysql-bin.000001 > "$WORK/ev.tls" ||
  fail "--ssl-crl --ssl-crlpath --tls-version"
cmp -s "$WORK/ev.plain" "$WORK/ev.tls" || fail "events -R differs with the TLS options"
expect_rc 6 "--bind-address of another machine" B events "${R[@]:1}" --bind-address=192.0.2.1 mysql-bin.000001
expect_rc 2 "--protocol=PIPE" B events "${R[@]:1}" --protocol=PIPE mysql-bin.000001
expect_rc 2 "--compression-algorithms=zstd" B events "${R[@]:1}" --compression-algorithms=zstd mysql-bin.000001
expect_rc 2 "--zstd-compression-level" B events "${R[@]:1}" --zstd-compression-level=3 mysql-bin.000001
expect_rc 2 "--protocol without -R" B events --protocol=TCP "$ROW"
pass "--protocol=TCP, --bind-address=127.0.0.1, --compression-algorithms=zlib, -C, --read-from-remote-master, --stop-never-slave-server-id, --ssl-crl/--ssl-crlpath/--tls-version: the same events over the wire; an old name beside its new one refused; another machine's address exit 6; PIPE, zstd refused (exit 2)"

# No-ops that mysqlbinlog scripts pass: accepted (a number), no effect.
B --open-files-limit=64 --binlog-row-event-max-size=4294967040 "$ROW" > "$WORK/noop.sql"
cmp -s "$WORK/noop.sql" "$WORK/plain.sql" || fail "--open-files-limit / --binlog-row-event-max-size changed the output"
expect_rc 2 "--open-files-limit=x" B --open-files-limit=x "$ROW"
pass "--open-files-limit, --binlog-row-event-max-size: accepted, same output; not a number refused"

# MySQL 9.7: --idempotent applies row events over rows that are there already.
MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
"$MYSQL_SERVER" chroot > /dev/null || fail "cannot build the MySQL chroot"
trap '"$MYSQL_SERVER" discard "$WORK/my" || true; cleanup' EXIT
"$MYSQL_SERVER" start "$WORK/my" "$PM"
sql "$PM" -e "CREATE DATABASE i; CREATE TABLE i.t (id INT PRIMARY KEY, v INT); FLUSH BINARY LOGS;
  INSERT INTO i.t VALUES (1, 10), (2, 20), (3, 30); FLUSH BINARY LOGS"
mf=("$WORK/my/binlog/mysql-bin.000002")  # the INSERT alone
sql "$PM" -e "SET sql_log_bin = 0; DELETE FROM i.t WHERE id = 3; UPDATE i.t SET v = 21 WHERE id = 2"
replay_i() {
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PM" -uroot --database=i -D \
    --gtids=strip --progress-table=none --state-file="$WORK/m.state" "$@" "${mf[@]}"
}
rc=0
replay_i > /dev/null 2> "$WORK/err" || rc=$?
[ $rc = 6 ] && grep -q 1062 "$WORK/err" || { cat "$WORK/err"; fail "replay without --idempotent: exit $rc"; }
rm -f "$WORK/m.state"
sql "$PM" -e "SET sql_log_bin = 0; DROP TABLE i.t; CREATE TABLE i.t (id INT PRIMARY KEY, v INT); INSERT INTO i.t VALUES (1, 10), (2, 21)"
replay_i --idempotent 2> "$WORK/err" || { cat "$WORK/err"; fail "replay --idempotent into MySQL"; }
[ "$(sql "$PM" -N -e "SELECT GROUP_CONCAT(id, ':', v ORDER BY id) FROM i.t")" = "1:10,2:20,3:30" ] ||
  fail "replay --idempotent: $(sql "$PM" -N -e "SELECT * FROM i.t")"
pass "MySQL 9.7: replay of existing rows fails with 1062; with --idempotent the missing row is added and the existing ones take the log's image (2:21 -> 2:20), as MySQL's IDEMPOTENT mode does"
