#!/usr/bin/env bash
# mariadb-binlog's and mysqlbinlog's familiar options (issue 33, item 2), each against the real
# mariadb-binlog on the same log, made on a real MariaDB 10.11 with two GTID domains, two
# server ids, a multi-table UPDATE, a statement of several rows events and a GTID out of order:
#   --do-/--ignore-domain-ids, --do-/--ignore-server-ids, --server-id lists, --gtid-strict-mode,
#   MariaDB GTIDs in --include-/--exclude-gtids, -T (a bare table, with -d), "# Number of rows"
#   (--[skip-]print-row-count), --skip-print-row-event-positions, --skip-annotate-row-events,
#   -F/--skip-force-if-open on a file its server still writes, -t, "did you mean" for commands.
#   familiar_options.sh PORT
source "$(dirname "$0")/lib.sh"
PORT=${1:?port}
B() { "$BINRECOVER" --no-defaults "$@"; }
MB() { mariadb-binlog --no-defaults --skip-gtid-strict-mode "$@"; }  # (its check: below)

start_server m "$PORT" --gtid-strict-mode=OFF
sql "$PORT" -e "FLUSH BINARY LOGS"
sql "$PORT" <<'SQL'
CREATE DATABASE d1;
CREATE DATABASE d2;
CREATE TABLE d1.t1 (id INT PRIMARY KEY, v VARCHAR(2000)) ENGINE=InnoDB;
CREATE TABLE d2.t2 (id INT PRIMARY KEY, w INT) ENGINE=InnoDB;
CREATE TABLE d1.t2 (id INT PRIMARY KEY, w INT) ENGINE=InnoDB;
INSERT INTO d1.t1 VALUES (1,'a'),(2,'b'),(3,'c');
INSERT INTO d2.t2 VALUES (1,10),(2,20);
INSERT INTO d1.t2 VALUES (1,100);
UPDATE d1.t1 JOIN d2.t2 ON d1.t1.id=d2.t2.id SET d1.t1.v='x', d2.t2.w=w+1;
INSERT INTO d1.t1 SELECT seq+10, REPEAT('z',1500) FROM d1.seq_1_to_20;
BEGIN; INSERT INTO d1.t1 VALUES (100,'p'); DELETE FROM d2.t2 WHERE id=1;
INSERT INTO d1.t2 VALUES (2,200),(3,300); COMMIT;
SET SESSION gtid_domain_id=2;
INSERT INTO d1.t1 VALUES (200,'dom2');
SET SESSION server_id=5;
INSERT INTO d1.t1 VALUES (201,'dom2srv5');
SET SESSION gtid_domain_id=0;
INSERT INTO d1.t1 VALUES (202,'dom0srv5');
SET SESSION server_id=1;
SET SESSION gtid_seq_no=3;
INSERT INTO d1.t1 VALUES (300,'seq 3 again');
INSERT INTO d1.t1 VALUES (301,'after it');
SQL
live=$(sql "$PORT" -N -e "SHOW MASTER STATUS" | cut -f1)
cp "$WORK/m/binlog/$live" "$WORK/open.bin"  # still written by its server: in use
sql "$PORT" -e "FLUSH BINARY LOGS"
L=$WORK/m/binlog/$live

# The GTIDs a run prints, and its exit status (0, or "err" for any error).
gtids() {
  local rc=0
  "$@" > "$WORK/o" 2> "$WORK/e" || rc=$?
  grep -oE "GTID [0-9]+-[0-9]+-[0-9]+" "$WORK/o" | awk '{print $2}' | tr '\n' ' '
  [ "$rc" = 0 ] && echo "rc=0" || echo "rc=err"
}
same_gtids() {  # same_gtids OPTIONS...: as mariadb-binlog (without its strict mode)
  local want got
  want=$(gtids MB "$@" "$L")
  got=$(gtids B "$@" "$L")
  [ "$want" = "$got" ] || fail "$*: binrecover gives [$got], mariadb-binlog [$want]"
  echo "$got"
}
all=$(same_gtids)
case "$all" in *" 0-1-3 "*" 0-1-3 "*) ;; *) fail "the log has no GTID out of order: $all" ;; esac
for opts in "--do-domain-ids=2" "--ignore-domain-ids=2" "--do-server-ids=5" "--ignore-server-ids=5" \
  "--server-id=5,9" "--do-domain-ids=0 --do-server-ids=5" "--ignore-domain-ids=0 --ignore-server-ids=1"; do
  # shellcheck disable=SC2086
  got=$(same_gtids $opts)
  [ "$got" != "$all" ] || fail "$opts left nothing out"
done
for bad in "--do-domain-ids=1 --ignore-domain-ids=2" "--server-id=1 --ignore-server-ids=5" \
  "--do-domain-ids=a" "--ignore-server-ids=1,,2" "--do-domain-ids="; do
  # shellcheck disable=SC2086
  rc=0; B $bad "$L" > /dev/null 2>&1 || rc=$?
  [ "$rc" = 2 ] || fail "$bad: exit $rc, not 2"
done
pass "domain and server id filters: the same transactions as mariadb-binlog for 7 combinations, 5 wrong ones refused"

# --gtid-strict-mode: stops at the GTID out of order, after the same transactions.
want=$(gtids mariadb-binlog --no-defaults "$L")
got=$(gtids B --gtid-strict-mode "$L")
[ "$want" = "$got" ] || fail "--gtid-strict-mode: [$got], mariadb-binlog [$want]"
grep -q "out of order GTID 0-1-3 after 0-5-" "$WORK/e" || fail "--gtid-strict-mode: $(cat "$WORK/e")"
rc=0; B --gtid-strict-mode "$L" > /dev/null 2>&1 || rc=$?
[ "$rc" = 4 ] || fail "--gtid-strict-mode: exit $rc, not 4"
grep -q "^ROLLBACK /\* added by binrecover \*/;$" "$WORK/o" ||
  fail "--gtid-strict-mode: the output does not end whole"
[ "$(gtids B --gtid-strict-mode --do-domain-ids=2 "$L")" = "$(gtids mariadb-binlog --no-defaults --do-domain-ids=2 "$L")" ] ||
  fail "--gtid-strict-mode with a domain the disorder is not in"
pass "--gtid-strict-mode: stops (exit 4) at 0-1-3, after the transactions mariadb-binlog prints; off by default"

# MariaDB GTIDs in --include-gtids / --exclude-gtids: exactly those transactions.
g2=$(echo "$all" | tr ' ' '\n' | grep -m1 '^2-1-')
g5=$(echo "$all" | tr ' ' '\n' | grep -m1 '^0-5-')
x5=$(echo "$all" | tr ' ' '\n' | grep -m1 '^2-5-')
[ "$(gtids B --include-gtids="$g2,$g5" "$L")" = "$g2 $g5 rc=0" ] ||
  fail "--include-gtids=$g2,$g5: $(gtids B --include-gtids="$g2,$g5" "$L")"
got=$(gtids B --exclude-gtids="$x5" "$L")
case "$got" in *"$x5"*) fail "--exclude-gtids=$x5 kept it" ;; esac
[ "$(echo "$got" | wc -w)" = "$(($(echo "$all" | wc -w) - 1))" ] || fail "--exclude-gtids=$x5 left out more"
rc=0; B --exclude-gtids=2-1-99 "$L" > /dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--exclude-gtids of a GTID never read: exit $rc"
pass "--include-gtids/--exclude-gtids take MariaDB GTIDs; one never read is an error"

# -T: a bare table in each -d database, or in any database.
rows() { grep -oE '^### (INSERT INTO|UPDATE|DELETE FROM) `[a-z0-9]+`.`[a-z0-9]+`' "$@" | sort | uniq -c | tr -s ' '; }
B -v -T t2 -d d1 "$L" > "$WORK/t.sql"
MB -v -T t2 -d d1 "$L" > "$WORK/t.mb"
[ "$(rows "$WORK/t.sql")" = "$(rows "$WORK/t.mb")" ] || fail "-T t2 -d d1: $(rows "$WORK/t.sql") vs $(rows "$WORK/t.mb")"
grep -q 'd2' <(rows "$WORK/t.sql") && fail "-T t2 -d d1 kept d2.t2"
B -v -T t2 "$L" > "$WORK/t2.sql"
MB -v -T t2 "$L" > "$WORK/t2.mb"
[ "$(rows "$WORK/t2.sql")" = "$(rows "$WORK/t2.mb")" ] || fail "-T t2: $(rows "$WORK/t2.sql") vs $(rows "$WORK/t2.mb")"
pass "-T NAME: the rows of d1.t2 with -d d1, of every t2 without, as mariadb-binlog"

# Comment lines as mariadb-binlog writes them: the row counts of each statement, no "# at" with
# --skip-print-row-event-positions, no annotations with --skip-annotate-row-events.
counts() { grep -E '^# Number of rows: ' "$1" | tr '\n' ' '; }
for opts in "" "-v" "-vv --base64-output=decode-rows"; do
  # shellcheck disable=SC2086
  extra=
  [ -n "$opts" ] || extra=--print-row-count  # (by default only with -v)
  # shellcheck disable=SC2086
  B $opts $extra "$L" > "$WORK/c.sql"
  # shellcheck disable=SC2086
  MB $opts "$L" > "$WORK/c.mb"
  [ "$(counts "$WORK/c.sql")" = "$(counts "$WORK/c.mb")" ] ||
    fail "row counts ($opts): [$(counts "$WORK/c.sql")] vs [$(counts "$WORK/c.mb")]"
done
counts "$WORK/c.sql" | grep -q "# Number of rows: 4 " || fail "the multi-table UPDATE is not counted 4"
counts "$WORK/c.sql" | grep -q "# Number of rows: 20 " || fail "INSERT ... SELECT of 20 rows not counted 20"
[ "$(B -v --skip-print-row-count "$L" | grep -c '^# Number of rows')" = 0 ] || fail "--skip-print-row-count"
[ "$(B "$L" | grep -c '^# Number of rows')" = 0 ] || fail "row counts without -v (not asked for)"
[ "$(B -s "$L" | grep -c '^# Number of rows')" = 0 ] || fail "-s prints row counts"
B --print-row-count --skip-print-row-event-positions --skip-annotate-row-events "$L" > "$WORK/p.sql"
MB --skip-print-row-event-positions --skip-annotate-row-events "$L" > "$WORK/p.mb"
for f in p.sql p.mb; do
  ! grep -q '^# at \|^#Q> \|Annotate_rows' "$WORK/$f" || fail "$f: # at or annotations left"
done
diff <(grep -v '^ROLLBACK /\* added by' "$WORK/p.mb") <(grep -v '^ROLLBACK /\* added by' "$WORK/p.sql") > "$WORK/p.diff" ||
  fail "--skip-print-row-event-positions --skip-annotate-row-events: output differs: $(head -20 "$WORK/p.diff")"
sql "$PORT" -e "DROP DATABASE d1; DROP DATABASE d2"
B --print-row-count "$L" | sql "$PORT" || fail "the output with row counts does not replay"
pass "'# Number of rows' as mariadb-binlog (--print-row-count, -v, -vv), the whole output equal to mariadb-binlog's without positions and annotations, and it replays"

# -F / --skip-force-if-open on the copy of a binlog its server was still writing.
B -F "$WORK/open.bin" > /dev/null 2> "$WORK/e" || fail "-F on an open binlog: $(cat "$WORK/e")"
rc=0; B --skip-force-if-open "$WORK/open.bin" > /dev/null 2> "$WORK/e" || rc=$?
[ "$rc" = 4 ] || fail "--skip-force-if-open on an open binlog: exit $rc"
grep -q "open.bin:4: Format_desc: the file was not closed by its server" "$WORK/e" ||
  fail "--skip-force-if-open: $(cat "$WORK/e")"
B --skip-force-if-open "$L" > /dev/null || fail "--skip-force-if-open on a closed binlog"
pass "-F reads an open binlog; --skip-force-if-open refuses it (exit 4) and reads a closed one"

# Short forms and a mistyped command.
rc=0; B -t "$L" > /dev/null 2> "$WORK/e" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--to-last-log" "$WORK/e" || fail "-t without -R: exit $rc, $(cat "$WORK/e")"
rc=0; (cd "$WORK" && B plna x.sql) > /dev/null 2> "$WORK/e" || rc=$?
[ "$rc" = 2 ] && grep -q "did you mean binrecover plan" "$WORK/e" || fail "plna: exit $rc, $(cat "$WORK/e")"
rc=0; "$BINRECOVER" help evnts > /dev/null 2> "$WORK/e" || rc=$?
[ "$rc" = 2 ] && grep -q "did you mean events" "$WORK/e" || fail "help evnts: exit $rc, $(cat "$WORK/e")"
pass "-t is --to-last-log; 'plna' and 'help evnts' answer with the command meant (exit 2)"
