#!/usr/bin/env bash
# -R (--read-from-remote-server): a server's binlogs read over the replication protocol are the
# same as its files. For MariaDB 10.11 (ROW, STATEMENT, compressed events, checksums off) and
# MySQL 9.7 (ROW with compressed transactions, STATEMENT, checksums off):
#  - `events -R FILE` equals the server's SHOW BINLOG EVENTS and `events` on the file itself,
#    for every file;
#  - the SQL output (-vv) over the wire is byte-identical to the output from the files, also
#    from a --start-position in the middle of a named file and with --to-last-log;
#  - plan -R with the dump finds the DROP and its printed command (which reads from the server
#    too) restores the database;
#  - a file the server does not have (purged) is exit 2 naming the ones it has; a user without
#    REPLICATION SLAVE and a server without binary logs are exit 6 with the server's error.
source "$(dirname "$0")/lib.sh"
PA=${1:-23661}
MYSQL_SERVER=$ROOT/scripts/mysql_server.sh

workload() {  # PORT FORMAT
  sql "$1" <<SQL
SET SESSION binlog_format = $2;
CREATE DATABASE IF NOT EXISTS d;
CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(200), n BIGINT);
INSERT INTO d.t VALUES (1, REPEAT('a', 150), 10), (2, 'b', 20), (3, NULL, 30);
FLUSH BINARY LOGS;
BEGIN;
UPDATE d.t SET v = CONCAT(IFNULL(v, ''), 'x'), n = n + 1;
DELETE FROM d.t WHERE id = 2;
COMMIT;
SET @u = 'user var';
INSERT INTO d.t VALUES (4, @u, 40);
FLUSH BINARY LOGS;
INSERT INTO d.t VALUES (5, 'last file', 50);
SQL
}

# compare LABEL PORT DIR: every check of the header against the server on PORT whose binlogs
# are in DIR.
compare() {
  local label=$1 port=$2 dir=$3 f n=0
  local R=(--no-defaults -R -h127.0.0.1 -P"$port" -uroot)
  mapfile -t names < <(sql "$port" -N -e "SHOW BINARY LOGS" | cut -f1)
  for f in "${names[@]}"; do
    sql "$port" -N -B -e "SHOW BINLOG EVENTS IN '$f'" > "$WORK/server.tsv"
    "$BINRECOVER" events "${R[@]}" --format=tsv "$f" > "$WORK/remote.tsv" ||
      fail "$label: events -R $f failed"
    "$BINRECOVER" events --format=tsv "$dir/$f" > "$WORK/file.tsv"
    diff "$WORK/server.tsv" "$WORK/remote.tsv" > /dev/null ||
      { diff "$WORK/server.tsv" "$WORK/remote.tsv" | head -10 >&2; fail "$label: events -R $f differs from SHOW BINLOG EVENTS"; }
    diff "$WORK/file.tsv" "$WORK/remote.tsv" > /dev/null || fail "$label: events -R $f differs from the file's"
    n=$((n + $(wc -l < "$WORK/remote.tsv")))
  done
  mapfile -t paths < <(for f in "${names[@]}"; do echo "$dir/$f"; done)
  "$BINRECOVER" "${R[@]}" -vv --timezone=UTC > "$WORK/remote.sql" || fail "$label: SQL -R failed"
  "$BINRECOVER" -vv --timezone=UTC "${paths[@]}" > "$WORK/file.sql"
  cmp "$WORK/file.sql" "$WORK/remote.sql" || fail "$label: SQL over the wire differs from the files'"
  # From a transaction in the middle of the second file, that file only; and --to-last-log.
  local mid
  mid=$(awk -F'\t' '$3 ~ /^(Gtid|Anonymous_Gtid|Gtid_tagged_log_event)$/ || ($3 == "Query" && $6 == "BEGIN") { p[++n] = $2 } END { print p[2] }' \
    <("$BINRECOVER" events --format=tsv "${paths[1]}"))
  [ -n "$mid" ] || fail "$label: no second transaction in ${names[1]}"
  "$BINRECOVER" "${R[@]}" --start-position="$mid" "${names[1]}" > "$WORK/remote.sql" ||
    fail "$label: -R --start-position=$mid failed"
  "$BINRECOVER" --start-position="$mid" "${paths[1]}" > "$WORK/file.sql"
  cmp "$WORK/file.sql" "$WORK/remote.sql" || fail "$label: -R --start-position=$mid differs"
  "$BINRECOVER" "${R[@]}" --to-last-log "${names[1]}" > "$WORK/remote.sql" || fail "$label: --to-last-log failed"
  "$BINRECOVER" "${paths[@]:1}" > "$WORK/file.sql"
  cmp "$WORK/file.sql" "$WORK/remote.sql" || fail "$label: -R --to-last-log differs"
  pass "$label: events -R = SHOW BINLOG EVENTS = the files' ($n events in ${#names[@]} files); SQL -R byte-identical (all, from $mid, --to-last-log)"
}

# --- MariaDB 10.11 ---------------------------------------------------------------------------
k=0
for variant in "ROW" "STATEMENT" "ROW --log-bin-compress=ON --log-bin-compress-min-len=10" \
  "ROW --binlog-checksum=NONE"; do
  read -r format opts <<< "$variant"
  port=$((PA + k))
  # shellcheck disable=SC2086
  start_server "m$k" "$port" --binlog-format="$format" $opts
  workload "$port" "$format"
  compare "MariaDB $variant" "$port" "$WORK/m$k/binlog"
  if [ "$variant" = ROW ]; then
    # A MariaDB GTID position as --start-position (two domains, one of them new in the second
    # file): with -R, from the binlog where it is, what follows it per domain; the GTIDs
    # mariadb-binlog prints from the server and from the files, and our -R output equals our
    # output from the files.
    sql "$port" <<'SQL'
SET gtid_domain_id = 5;
INSERT INTO d.t VALUES (10, 'domain 5', 1), (11, 'domain 5', 2);
SET gtid_domain_id = 0;
INSERT INTO d.t VALUES (12, 'domain 0', 3);
FLUSH BINARY LOGS;
SET gtid_domain_id = 5;
UPDATE d.t SET n = n + 1 WHERE id = 10;
SET gtid_domain_id = 0;
UPDATE d.t SET n = n + 1 WHERE id = 12;
SQL
    mapfile -t paths < <(sql "$port" -N -e "SHOW BINARY LOGS" | cut -f1 | sed "s|^|$WORK/m$k/binlog/|")
    gtids() { { grep -o "^#.*GTID [0-9-]*" || true; } | sed 's/.*GTID //' | tr '\n' ' '; }
    end0=$(sql "$port" -N -e "SELECT @@gtid_binlog_pos" | tr ',' '\n' | grep '^0-' | cut -d- -f3)
    n=0
    for pos in "0-1-1" "0-1-3" "0-1-$((end0 - 1)),5-1-1" "0-1-$end0,5-1-2" "0-1-$((end0 - 2))"; do
      ours=$("$BINRECOVER" --no-defaults -R -h127.0.0.1 -P"$port" -uroot --start-position="$pos" |
        gtids) || fail "-R --start-position=$pos failed"
      if [ "$pos" = "0-1-$end0,5-1-2" ]; then
        # (mariadb-binlog calls the last GTIDs "never reached" and exits 1; nothing follows them)
        [ -z "$ours" ] || fail "--start-position=$pos (the end) printed $ours"
      else
        theirs=$(mariadb-binlog --no-defaults -R -h127.0.0.1 -P"$port" -uroot --to-last-log \
          --start-position="$pos" mysql-bin.000001 | gtids)
        files=$(mariadb-binlog --start-position="$pos" "${paths[@]}" | gtids)
        [ -n "$ours" ] && [ "$ours" = "$theirs" ] && [ "$ours" = "$files" ] ||
          fail "--start-position=$pos: ours '$ours', mariadb-binlog -R '$theirs', from the files '$files'"
      fi
      ours_files=$("$BINRECOVER" --start-position="$pos" "${paths[@]}" | gtids)
      [ "$ours" = "$ours_files" ] || fail "--start-position=$pos: -R '$ours', the files '$ours_files'"
      n=$((n + 1))
    done
    # The binlog it starts from: the newest one whose Gtid_list the position covers.
    first=$("$BINRECOVER" events --no-defaults -R -h127.0.0.1 -P"$port" -uroot --format=tsv \
      --start-position="0-1-$end0,5-1-2" | cut -f1 | sort -u | head -1)
    [ "$first" = "$(basename "${paths[-1]}")" ] || fail "--start-position at the end started in $first"
    pass "MariaDB GTID --start-position ($n positions, two domains): -R = mariadb-binlog -R = the files; from the newest binlog before it"
  fi
  k=$((k + 1))
done

# --- MySQL 9.7 --------------------------------------------------------------------------------
if "$MYSQL_SERVER" chroot > /dev/null; then
  for variant in "ROW" "STATEMENT" "ROW --binlog-checksum=NONE"; do
    read -r format opts <<< "$variant"
    port=$((PA + k))
    SERVERS_MYSQL+=("$WORK/y$k")
    # shellcheck disable=SC2086
    "$MYSQL_SERVER" start "$WORK/y$k" "$port" $opts
    workload "$port" "$format"
    compare "MySQL 9.7 $variant" "$port" "$WORK/y$k/binlog"
    if [ "$variant" = ROW ]; then
      # BINLOG-DUMP-GTID: from the first binlog holding a GTID --exclude-gtids does not name,
      # those it names left out: the transactions MySQL's own mysqlbinlog prints, for several
      # sets (one file skipped, a set ending mid-file, a hole).
      uuid=$(sql "$port" -N -e "SELECT @@server_uuid")
      last=$(sql "$port" -N -e "SELECT @@gtid_executed" | sed 's/.*[:-]//')
      for set in "$uuid:1-3" "$uuid:1-$((last - 1))" "$uuid:1-2" "$uuid:2"; do
        "$BINRECOVER" --no-defaults -R -h127.0.0.1 -P"$port" -uroot \
          --read-from-remote-source=BINLOG-DUMP-GTID --exclude-gtids="$set" |
          grep -o "GTID_NEXT= '[^']*'" | grep -v AUTOMATIC > "$WORK/g.ours" || true
        "$MYSQL_SERVER" exec mysqlbinlog -h127.0.0.1 -P"$port" -uroot \
          --read-from-remote-source=BINLOG-DUMP-GTID --to-last-log --exclude-gtids="$set" \
          mysql-bin.000001 | grep -o "GTID_NEXT= '[^']*'" | grep -v AUTOMATIC > "$WORK/g.theirs" || true
        [ -s "$WORK/g.theirs" ] || fail "mysqlbinlog BINLOG-DUMP-GTID printed nothing for $set"
        diff "$WORK/g.theirs" "$WORK/g.ours" || fail "BINLOG-DUMP-GTID --exclude-gtids=$set differs from mysqlbinlog's"
      done
      pass "MySQL 9.7 BINLOG-DUMP-GTID with --exclude-gtids: the transactions mysqlbinlog prints, for 4 sets"
    fi
    "$MYSQL_SERVER" stop "$WORK/y$k"
    k=$((k + 1))
  done
  # TLS required by the server: refused without it (exit 6, saying what to give), and read
  # with --ssl-mode=REQUIRED (MySQL makes its certificates at initialization).
  port=$((PA + k))
  SERVERS_MYSQL+=("$WORK/tls")
  "$MYSQL_SERVER" start "$WORK/tls" "$port" --require-secure-transport=ON
  rc=0
  "$BINRECOVER" events --no-defaults -R -h127.0.0.1 -P"$port" -uroot --ssl-mode=DISABLED \
    > /dev/null 2> "$WORK/tls.err" || rc=$?
  [ $rc = 6 ] && grep -q "error 3159).*--ssl-mode=REQUIRED" "$WORK/tls.err" ||
    { cat "$WORK/tls.err"; fail "TLS required, --ssl-mode=DISABLED: exit $rc"; }
  "$BINRECOVER" events --no-defaults -R -h127.0.0.1 -P"$port" -uroot --ssl-mode=REQUIRED \
    --format=tsv > "$WORK/tls.tsv" 2> "$WORK/tls.err" || { cat "$WORK/tls.err"; fail "-R over TLS failed"; }
  grep -q "Format_desc" "$WORK/tls.tsv" || fail "-R over TLS read nothing"
  "$MYSQL_SERVER" stop "$WORK/tls"
  pass "MySQL 9.7 with require_secure_transport: refused without TLS (exit 6, naming --ssl-mode), read with --ssl-mode=REQUIRED"
  k=$((k + 1))
else
  fail "cannot build the MySQL chroot (see above)"
fi

# --- -R --stop-never: SQL output follows the server across a rotation, each transaction as it
# comes (on the first MariaDB) --------------------------------------------------------------------
"$BINRECOVER" --no-defaults -R -h127.0.0.1 -P"$PA" -uroot --stop-never -v > "$WORK/follow.sql" \
  2> "$WORK/follow.err" &
follower=$!
# follows FILE TEXT: the follower, still running, has written TEXT to FILE
follows() {
  kill -0 "$follower" 2> /dev/null || { cat "$WORK/follow.err"; fail "--stop-never ended by itself"; }
  grep -q "$2" "$1"
}
sql "$PA" -e "INSERT INTO d.t VALUES (101, 'followed one', 1); FLUSH BINARY LOGS;
  INSERT INTO d.t VALUES (102, 'followed two', 2)"
# (it has read up to the end, and follows, before the server stops)
wait_for 120 "-R --stop-never did not follow the server across FLUSH BINARY LOGS" \
  follows "$WORK/follow.sql" "followed two"
# The server restarts under it: it connects again by itself and goes on.
"$ROOT/scripts/mariadb_server.sh" stop "$WORK/m0"
"$ROOT/scripts/mariadb_server.sh" restart "$WORK/m0" "$PA" || fail "the server did not restart"
sql "$PA" -e "INSERT INTO d.t VALUES (103, 'after restart', 3)"
WAIT_FOR_SHOW=$WORK/follow.err wait_for 180 "-R --stop-never did not go on after a server restart" \
  follows "$WORK/follow.sql" "after restart"
grep -q "reconnecting" "$WORK/follow.err" || fail "-R --stop-never did not say it reconnected"
kill "$follower"
wait "$follower" 2> /dev/null || true
grep -q "followed one" "$WORK/follow.sql" && grep -q "followed two" "$WORK/follow.sql" ||
  fail "-R --stop-never did not follow the server across FLUSH BINARY LOGS"
# events -R --stop-never lists as it comes.
"$BINRECOVER" events --no-defaults -R -h127.0.0.1 -P"$PA" -uroot --stop-never --format=tsv \
  > "$WORK/follow.tsv" 2> "$WORK/follow.err" &
follower=$!
# (it has listed what there was, and waits, before the new write)
wait_for 120 "events -R --stop-never did not list the server's events" \
  follows "$WORK/follow.tsv" "after restart"
sql "$PA" -e "INSERT INTO d.t VALUES (104, 'listed as it comes', 4)"
wait_for 120 "events -R --stop-never did not list a new event" \
  follows "$WORK/follow.tsv" "listed as it comes"
kill "$follower"
wait "$follower" 2> /dev/null || true
rc=0
"$BINRECOVER" --no-defaults -R -h127.0.0.1 -P"$PA" -uroot --stop-never --stop-position=100 \
  > /dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "--stop-never --stop-position gave exit $rc"
pass "-R --stop-never: SQL output follows the server across a rotation and a server restart (reconnected by itself), transaction by transaction; events lists as it comes"

# --- errors, on the first MariaDB ----------------------------------------------------------------
R=(--no-defaults -R -h127.0.0.1 -P"$PA" -uroot)
rc=0
"$BINRECOVER" events "${R[@]}" mysql-bin.999999 > /dev/null 2> "$WORK/err" || rc=$?
[ $rc = 2 ] && grep -q "has no binlog mysql-bin.999999 (it has mysql-bin.000001" "$WORK/err" ||
  { cat "$WORK/err"; fail "an unknown file gave exit $rc"; }
sql "$PA" -e "PURGE BINARY LOGS TO 'mysql-bin.000002'"
rc=0
"$BINRECOVER" events "${R[@]}" mysql-bin.000001 > /dev/null 2> "$WORK/err" || rc=$?
[ $rc = 2 ] && grep -q "(it has mysql-bin.000002" "$WORK/err" ||
  { cat "$WORK/err"; fail "a purged file gave exit $rc"; }
sql "$PA" -e "CREATE USER 'lister'@'%' IDENTIFIED BY 'pw'; GRANT BINLOG MONITOR ON *.* TO 'lister'@'%'"
rc=0
"$BINRECOVER" events --no-defaults -R -h127.0.0.1 -P"$PA" -ulister --password=pw > /dev/null 2> "$WORK/err" || rc=$?
[ $rc = 6 ] && grep -q "server error 1227" "$WORK/err" ||
  { cat "$WORK/err"; fail "a user without REPLICATION SLAVE gave exit $rc"; }
start_server nolog "$((PA + 20))" --skip-log-bin
rc=0
"$BINRECOVER" events --no-defaults -R -h127.0.0.1 -P"$((PA + 20))" -uroot > /dev/null 2> "$WORK/err" || rc=$?
[ $rc = 6 ] || { cat "$WORK/err"; fail "a server without binary logs gave exit $rc"; }
rc=0
"$BINRECOVER" events -h127.0.0.1 mysql-bin.000001 > /dev/null 2> "$WORK/err" || rc=$?
[ $rc = 2 ] || fail "-h without -R gave exit $rc"
pass "-R errors: unknown and purged files (exit 2, naming the server's files), no REPLICATION SLAVE and no binary logs (exit 6), -h without -R (exit 2)"

# --- plan -R: the seed recovery with no file copied ---------------------------------------------
PP=$((PA + 21))
start_server p "$PP"
sql "$PP" -e "CREATE DATABASE shop; CREATE TABLE shop.o (id INT PRIMARY KEY, v INT);
  INSERT INTO shop.o VALUES (1, 1), (2, 2)"
mariadb-dump --no-defaults -h127.0.0.1 -P"$PP" -uroot --master-data=2 --single-transaction \
  -B shop > "$WORK/dump.sql"
sql "$PP" -e "INSERT INTO shop.o VALUES (3, 3); FLUSH BINARY LOGS; UPDATE shop.o SET v = v * 10"
sql "$PP" -N -e "CHECKSUM TABLE shop.o" | cut -f2 > "$WORK/expected.sum"
sql "$PP" -e "DROP DATABASE shop"
"$BINRECOVER" plan --no-defaults -R -h127.0.0.1 -P"$PP" -uroot --dump="$WORK/dump.sql" \
  > "$WORK/plan.txt" || { cat "$WORK/plan.txt"; fail "plan -R failed"; }
grep -q "DROP DATABASE" "$WORK/plan.txt" || { cat "$WORK/plan.txt"; fail "plan -R found no DROP"; }
cmd=$(grep -A1 "^Recover to just before" "$WORK/plan.txt" | tail -1 | sed 's/^ *//')
case "$cmd" in *" -R "*"--port=$PP"*) ;; *) fail "plan's command does not read from the server: $cmd" ;; esac
PT=$((PA + 22))
start_server t "$PT"
sql "$PT" < "$WORK/dump.sql"
cmd=${cmd%| mysql}
eval "${cmd/#binrecover/\"$BINRECOVER\"}" > "$WORK/plan.sql" || fail "plan's command failed: $cmd"
sql "$PT" < "$WORK/plan.sql" || fail "plan's command's SQL failed"
[ "$(sql "$PT" -N -e "CHECKSUM TABLE shop.o" | cut -f2)" = "$(cat "$WORK/expected.sum")" ] ||
  fail "shop.o differs after plan -R's command"
pass "plan -R --dump: the DROP found on the live server, its command (-R too) restores shop.o"

# --- replay -R and drill -R: no file copied either --------------------------------------------
start_pos=$(echo "$cmd" | sed -n 's/.*--start-position=\([0-9]*\).*/\1/p')
stop_pos=$(echo "$cmd" | sed -n 's/.*--stop-position=\([0-9]*\).*/\1/p')
mapfile -t rfiles < <(echo "$cmd" | grep -o "mysql-bin\.[0-9]*")
[ -n "$start_pos" ] && [ -n "$stop_pos" ] && [ ${#rfiles[@]} -ge 1 ] || fail "cannot read plan's command: $cmd"
PT2=$((PA + 23))
start_server t2 "$PT2"
sql "$PT2" < "$WORK/dump.sql"
"$BINRECOVER" replay --no-defaults -R --source-host=127.0.0.1 --source-port="$PP" --source-user=root \
  -h127.0.0.1 -P"$PT2" -uroot --no-progress --state-file="$WORK/r.state" \
  --start-position="$start_pos" --stop-position="$stop_pos" "${rfiles[@]}" 2> "$WORK/replay.err" ||
  { cat "$WORK/replay.err"; fail "replay -R failed"; }
[ "$(sql "$PT2" -N -e "CHECKSUM TABLE shop.o" | cut -f2)" = "$(cat "$WORK/expected.sum")" ] ||
  fail "shop.o differs after replay -R"
printf 'shop.o\t3\t%s\n' "$(cat "$WORK/expected.sum")" > "$WORK/expect.tsv"
rc=0
"$BINRECOVER" drill --no-defaults -R --source-host=127.0.0.1 --source-port="$PP" --source-user=root \
  --dump="$WORK/dump.sql" --database=shop --expect="$WORK/expect.tsv" > "$WORK/drill.out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$WORK/drill.out"; fail "drill -R failed (exit $rc)"; }
grep -q "DROP DATABASE" "$WORK/drill.out" || { cat "$WORK/drill.out"; fail "drill -R did not stop before the DROP"; }
pass "replay -R and drill -R (--source-*): shop.o restored from the live server's binlog, no file copied"
