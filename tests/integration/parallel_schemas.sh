#!/usr/bin/env bash
# Parallel replay ends exactly like serial on schemas whose conflicts the row images alone do
# not show (issue 30), on a real MariaDB target:
#  - foreign keys ON DELETE CASCADE one and two levels deep (one child in another schema) and ON
#    DELETE SET NULL: a parent deleted, then a new child (and grandchild) reusing a cascaded
#    row's key (the cascaded rows are not in the log);
#  - a table without a primary key whose only unique key is nullable, its rows NULL there,
#    changed again and again;
#  - bulk UPDATEs of more rows than a write set keeps (they hold the table whole) between small
#    transactions on the same rows;
#  - a _general_ci unique key whose non-ASCII values move between rows, and the same under an
#    accent-insensitive collation (unicode_ci), a prefix key and a key on a generated column;
#    8-bit collations that weigh ASCII characters as one (macce_general_ci: 'M' = 'N');
#  - a primary key changed and the old key taken again at once, a trigger on the source (its
#    rows in a keyless table are in the log), a DDL half way.
#  - --merge-transactions onto a target whose keyless table is MyISAM (InnoDB in the log): a
#    failing group never leaves part of itself applied; after the cause is fixed, --resume ends
#    with each row once.
#  - each mode once more with the sessions taking units going from all to one and back every 5
#    units (BINRECOVER_TEST_WIDTH_FLIP: --parallel's width control, at moments made certain);
#  - the log of a server that was itself a replay's target (its transactions hold that
#    replay's progress rows): replayed with --parallel 8, killed part-way (a fault point makes
#    the moment certain), --resume: each transaction once (its progress rows are left out).
# The source's log is made by one client (no group commit: every order comes from binrecover's
# write sets), then replayed in each mode several times; every table must equal the source's.
# With "mysql" after the port: the same schemas on MySQL 9.7 (source and target; GTIDs on, so
# the target's GTIDs record the progress and --merge-transactions takes --gtids=strip), the
# first part only (MyISAM merging and progress rows in a log are MariaDB's cases here).
source "$(dirname "$0")/lib.sh"
PA=${1:-23831}
PT=$((PA + 1))
FLAVOR=${2:-mariadb}
ROUNDS=${PARALLEL_SCHEMA_ROUNDS:-2}
if [ "$FLAVOR" = mysql ]; then
  use_mysql
  start_mysql a "$PA"
  start_mysql t "$PT" --server-id=2
  generated=STORED
  reset_logs="RESET BINARY LOGS AND GTIDS"
  binlog_status="SHOW BINARY LOG STATUS"
  # (GTIDs are kept: a merged transaction would keep only one)
  merge=(--merge-transactions=10 --gtids=strip)
  pre="SET SESSION cte_max_recursion_depth = 10000;"
  rows6000="WITH RECURSIVE q (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM q WHERE n < 6000) SELECT n, 0 FROM q"
else
  start_server a "$PA"
  # (--server-applier: a server id of its own, and what its applier applies binlogged too)
  start_server t "$PT" --server-id=2 --log-slave-updates=ON
  generated=PERSISTENT
  reset_logs="RESET MASTER"
  binlog_status="SHOW MASTER STATUS"
  merge=(--merge-transactions=10)
  pre=""
  rows6000="SELECT seq, 0 FROM s.seq_1_to_6000"
fi

sql "$PA" -e "$pre CREATE DATABASE s;
  CREATE TABLE s.p (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
  CREATE TABLE s.c (id INT PRIMARY KEY, pid INT, v INT,
    FOREIGN KEY (pid) REFERENCES s.p (id) ON DELETE CASCADE) ENGINE=InnoDB;
  CREATE TABLE s.g (id INT PRIMARY KEY, cid INT, v INT,
    FOREIGN KEY (cid) REFERENCES s.c (id) ON DELETE CASCADE) ENGINE=InnoDB;
  CREATE TABLE s.n (id INT PRIMARY KEY, pid INT NULL, v INT,
    FOREIGN KEY (pid) REFERENCES s.p (id) ON DELETE SET NULL) ENGINE=InnoDB;
  CREATE DATABASE s2;
  CREATE TABLE s2.x (id INT PRIMARY KEY, pid INT, v INT,
    FOREIGN KEY (pid) REFERENCES s.p (id) ON DELETE CASCADE) ENGINE=InnoDB;
  CREATE TABLE s.nu (a INT NULL, b INT NOT NULL, v INT, UNIQUE KEY (a)) ENGINE=InnoDB;
  CREATE TABLE s.bulk (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
  CREATE TABLE s.ci (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_general_ci,
    UNIQUE KEY (name)) ENGINE=InnoDB CHARSET utf8mb4;
  CREATE TABLE s.ai (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_unicode_ci,
    UNIQUE KEY (name)) ENGINE=InnoDB CHARSET utf8mb4;
  CREATE TABLE s.pre (id INT PRIMARY KEY, name VARCHAR(40), UNIQUE KEY (name(4))) ENGINE=InnoDB;
  CREATE TABLE s.gen (id INT PRIMARY KEY, a INT NOT NULL, b INT AS (a % 1000) $generated,
    UNIQUE KEY (b)) ENGINE=InnoDB;
  CREATE TABLE s.pk (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
  CREATE TABLE s.audit (id INT, v INT) ENGINE=InnoDB;
  CREATE TRIGGER s.pk_audit AFTER INSERT ON s.pk FOR EACH ROW INSERT INTO s.audit VALUES (NEW.id, NEW.v);
  INSERT INTO s.bulk $rows6000;
  INSERT INTO s.ai VALUES (1, 'resume'), (2, 'y2'), (3, 'y3');
  INSERT INTO s.pre VALUES (1, 'abcd-1'), (2, 'zz2'), (3, 'zz3');
  INSERT INTO s.gen (id, a) VALUES (1, 1), (2, 2), (3, 3);
  INSERT INTO s.nu VALUES (NULL, 1, 0), (NULL, 2, 0), (NULL, 3, 0), (1, 4, 0);
  INSERT INTO s.ci VALUES (1, 'bâton'), (2, 'x2'), (3, 'x3');
  CREATE TABLE s.mc (id INT PRIMARY KEY, u VARCHAR(10) CHARACTER SET macce
    COLLATE macce_general_ci NULL, UNIQUE KEY (u)) ENGINE=InnoDB;
  CREATE TABLE s.ku (id INT PRIMARY KEY, u VARCHAR(10) CHARACTER SET koi8u
    COLLATE koi8u_general_ci NULL, UNIQUE KEY (u)) ENGINE=InnoDB;
  INSERT INTO s.mc VALUES (1, 'M'), (2, NULL); INSERT INTO s.ku VALUES (1, 'a'), (2, NULL);"
{
  # Collations of 8-bit character sets that weigh ASCII characters as one: macce_general_ci
  # takes 'M' for 'N', koi8u_general_ci '`' for a space (so 'a`' is 'a'). The value moves
  # between two rows, one transaction a statement: each must wait for the one that freed it.
  for i in $(seq 1 100); do
    echo "UPDATE s.mc SET u = NULL WHERE id = 1; UPDATE s.mc SET u = 'N' WHERE id = 2;"
    echo "UPDATE s.mc SET u = NULL WHERE id = 2; UPDATE s.mc SET u = 'M' WHERE id = 1;"
    echo "UPDATE s.ku SET u = NULL WHERE id = 1; UPDATE s.ku SET u = 'a\`' WHERE id = 2;"
    echo "UPDATE s.ku SET u = NULL WHERE id = 2; UPDATE s.ku SET u = 'a' WHERE id = 1;"
  done
  for i in $(seq 1 60); do
    # Cascades: parent i with a child and a grandchild, then deleted; a new parent's child and
    # grandchild take the cascaded rows' keys at once.
    echo "INSERT INTO s.p VALUES ($i, 0), ($((i + 1000)), 0);"
    echo "INSERT INTO s.c VALUES ($i, $i, 0); INSERT INTO s.g VALUES ($i, $i, 0);"
    echo "INSERT INTO s.n VALUES ($i, $i, 0); INSERT INTO s2.x VALUES ($i, $i, 0);"
    echo "DELETE FROM s.p WHERE id = $i;"
    echo "INSERT INTO s.c VALUES ($i, $((i + 1000)), 1); INSERT INTO s.g VALUES ($i, $i, 1);"
    echo "INSERT INTO s2.x VALUES ($i, $((i + 1000)), 1);"
    echo "UPDATE s.n SET v = v + 1 WHERE id = $i AND pid IS NULL;"
    # Rows named by no key (NULL in the only unique key): changed one after the other.
    echo "UPDATE s.nu SET v = v + 1, b = b WHERE b = $((i % 3 + 1));"
    # A bulk change holding the table whole, then small ones on its rows.
    if [ $((i % 10)) = 0 ]; then echo "UPDATE s.bulk SET v = v * 2 + 1;"; fi
    echo "UPDATE s.bulk SET v = v + 3 WHERE id = $((i * 50));"
    # A non-ASCII value under a _ci key moved from row to row.
    h=$(((i - 1) % 3 + 1)) next=$((i % 3 + 1)) name=bâton
    [ $((i % 2)) = 0 ] && name=BÂTON
    echo "BEGIN; UPDATE s.ci SET name = 'tmp' WHERE id = $h; UPDATE s.ci SET name = '$name' WHERE id = $next; COMMIT;"
    echo "UPDATE s.ci SET name = 'x$h' WHERE id = $h;"
    # The same under an accent-insensitive key (résumé = RESUME), a prefix key (abcd-1 =
    # abcd-2) and a key on a generated column (a % 1000): the value moved from row to row.
    name=résumé
    [ $((i % 2)) = 0 ] && name=RESUME
    echo "BEGIN; UPDATE s.ai SET name = 'tmp' WHERE id = $h; UPDATE s.ai SET name = '$name' WHERE id = $next; COMMIT;"
    echo "UPDATE s.ai SET name = 'y$h' WHERE id = $h;"
    echo "BEGIN; UPDATE s.pre SET name = 'tmp$h' WHERE id = $h; UPDATE s.pre SET name = 'abcd-$i' WHERE id = $next; COMMIT;"
    echo "UPDATE s.pre SET name = 'zz$h' WHERE id = $h;"
    echo "BEGIN; UPDATE s.gen SET a = a + 500 WHERE id = $h; UPDATE s.gen SET a = $((i * 1000 + 7)) WHERE id = $next; COMMIT;"
    echo "UPDATE s.gen SET a = $((i * 1000 + 100 + h)) WHERE id = $h;"
    # A primary key changed, the old key taken again at once (a trigger writes a keyless
    # table on the source: its rows are in the log), and a DDL half way.
    echo "INSERT INTO s.pk (id, v) VALUES ($i, 0);"
    echo "UPDATE s.pk SET id = id + 100000 WHERE id = $i;"
    echo "INSERT INTO s.pk (id, v) VALUES ($i, 1);"
    [ "$i" = 30 ] && echo "ALTER TABLE s.pk ADD COLUMN w INT NOT NULL DEFAULT 5;"
  done
} > "$WORK/workload.sql"
sql "$PA" < "$WORK/workload.sql" || fail "the workload failed on the source"
sql "$PA" -e "FLUSH BINARY LOGS"
mapfile -t files < <(binlogs_between "$WORK/a/binlog" mysql-bin.000001)
unset 'files[${#files[@]}-1]'
tables() {
  sql "$1" -N -e "CHECKSUM TABLE s.p, s.c, s.g, s.n, s.nu, s.bulk, s.ci, s.ai, s.pre, s.gen, s.pk,
    s.audit, s2.x, s.mc, s.ku; SELECT 'audit', COUNT(*), SUM(id), SUM(v) FROM s.audit;
    SELECT 'mc', GROUP_CONCAT(id, '=', IFNULL(u, '-') ORDER BY id) FROM s.mc;
    SELECT 'ku', GROUP_CONCAT(id, '=', IFNULL(u, '-') ORDER BY id) FROM s.ku;
    SELECT 'c', COUNT(*), SUM(v) FROM s.c; SELECT 'g', COUNT(*), SUM(v) FROM s.g;
    SELECT 'nu', GROUP_CONCAT(CONCAT_WS(':', a, b, v) ORDER BY b) FROM s.nu;
    SELECT 'ci', GROUP_CONCAT(name ORDER BY id) FROM s.ci"
}
tables "$PA" > "$WORK/expected"

for mode in "--parallel=8" "--parallel=8 --no-preserve-commit-order" \
  "--parallel=8 ${merge[*]}"; do
  for round in $(seq 1 "$ROUNDS"); do
    sql "$PT" -e "DROP DATABASE IF EXISTS s2; DROP DATABASE IF EXISTS s; DROP DATABASE IF EXISTS binrecover; $reset_logs"
    rm -f "$WORK/r.state" "$WORK/r.state.lock"
    # (the sessions take units from the first, whatever the times say: the width control would
    # keep a log this short on one session; the second round: they go from all to one and back
    # every 5 units. A test's fault point: WidthControl)
    flip=1000000000
    [ "$round" = 2 ] && flip=5
    # shellcheck disable=SC2086
    BINRECOVER_TEST_WIDTH_FLIP=$flip "$BINRECOVER" replay --no-defaults --no-progress \
      -h127.0.0.1 -P"$PT" -uroot $mode --state-file="$WORK/r.state" --report="$WORK/r.json" \
      "${files[@]}" 2> "$WORK/r.err" ||
      { cat "$WORK/r.err"; fail "replay $mode (round $round) failed"; }
    tables "$PT" > "$WORK/got"
    diff "$WORK/expected" "$WORK/got" || fail "replay $mode (round $round): the target differs from the source"
    if [ "$flip" = 5 ]; then
      changes=$(sed -n 's/.*"width_changes":\([0-9]*\).*/\1/p' "$WORK/r.json")
      narrowed=$(sed -n 's/.*"narrowed":\([0-9]*\).*/\1/p' "$WORK/r.json")
      [ "${changes:-0}" -ge 10 ] && [ "${narrowed:-0}" -ge 25 ] ||
        fail "replay $mode: the width changed $changes times, $narrowed units on one session: $(cat "$WORK/r.json")"
    fi
  done
done
pass "$FLAVOR: cascades (1 and 2 levels, one across schemas, SET NULL), nullable unique keys, bulk whole-table holds, _ci, accent-insensitive, macce/koi8u, prefix and generated-column keys, primary key changes, trigger rows, DDL mid-log: --parallel 8, without commit order, merged: $ROUNDS rounds each equal the source"

# A cascade into another schema, its order made certain: a parent deleted (its child, in
# another schema, deleted by the target's foreign key, not in the log), then a new child taking
# the cascaded child's key. The test's session holds the parent row on the target, so the
# delete waits; the insert must wait for it (the delete holds the child's table: its cascade is
# read from the target's catalog), else it runs first and meets the cascaded row: 1062.
sql "$PA" -e "FLUSH BINARY LOGS"
first=$(sql "$PA" -N -e "$binlog_status" | cut -f1)
sql "$PA" -e "CREATE DATABASE xp; CREATE DATABASE xc;
  CREATE TABLE xp.p (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
  CREATE TABLE xc.c (id INT PRIMARY KEY, pid INT,
    FOREIGN KEY (pid) REFERENCES xp.p (id) ON DELETE CASCADE) ENGINE=InnoDB;
  INSERT INTO xp.p VALUES (1, 0), (2, 0); INSERT INTO xc.c VALUES (1, 1); FLUSH BINARY LOGS;
  DELETE FROM xp.p WHERE id = 1; INSERT INTO xc.c VALUES (1, 2); FLUSH BINARY LOGS"
mapfile -t xfiles < <(binlogs_between "$WORK/a/binlog" "$first")
[ ${#xfiles[@]} = 3 ] || fail "the cross-schema cascade log: ${#xfiles[@]} files"
x_sum() { sql "$1" -N -e "SELECT GROUP_CONCAT(id, ':', v) FROM xp.p; SELECT GROUP_CONCAT(id, ':', pid) FROM xc.c"; }
delete_waits() {  # (or the replay ended: its exit code says how)
  ended "$rp" || [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM information_schema.INNODB_TRX
    WHERE trx_state = 'LOCK WAIT'" 2> /dev/null)" -gt 0 ]
}
# replay_while_held HOLD_SQL USER FILE WHAT: FILE replayed with --parallel 8 as USER into a
# fresh state while a session of the test holds the rows HOLD_SQL locks, let go once a replay
# session waits for them (a certain moment); the replay must end with exit 0.
replay_while_held() {
  local rc=0
  rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal"
  hold held "$PT" "$1"
  # (all 8 sessions from the first unit: the width control would take a log this short on one,
  # in the log's order whatever the write sets say)
  BINRECOVER_TEST_WIDTH_FLIP=1000000000 "$BINRECOVER" replay --no-defaults --no-progress \
    -h127.0.0.1 -P"$PT" -u"$2" --state-file="$WORK/r.state" --parallel=8 "$3" \
    2> "$WORK/held.err" &
  rp=$!
  wait_for 120 "$4: the earlier transaction never waited for the held row" delete_waits
  release held
  wait "$rp" || rc=$?
  [ $rc = 0 ] || { cat "$WORK/held.err"; fail "replay --parallel=8 of $4 exited $rc"; }
}
# (MariaDB: also as a user without the PROCESS privilege, who cannot read InnoDB's own list of
# foreign keys: the cascade is then read from every schema)
xusers=(root)
if [ "$FLAVOR" = mariadb ]; then
  sql "$PT" -e "CREATE USER noproc@'127.0.0.1'; GRANT ALL PRIVILEGES ON *.* TO noproc@'127.0.0.1';
    REVOKE PROCESS ON *.* FROM noproc@'127.0.0.1'"
  xusers+=(noproc)
fi
for xuser in "${xusers[@]}"; do
  sql "$PT" -e "DROP DATABASE IF EXISTS xc; DROP DATABASE IF EXISTS xp; DROP DATABASE IF EXISTS binrecover; $reset_logs"
  rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal"
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
    --state-file="$WORK/r.state" "${xfiles[0]}" 2> "$WORK/x.err" ||
    { cat "$WORK/x.err"; fail "replay of the cross-schema cascade's tables"; }
  replay_while_held "BEGIN; SELECT v FROM xp.p WHERE id = 1 FOR UPDATE" "$xuser" "${xfiles[1]}" \
    "the cross-schema cascade ($xuser)"
  [ "$(x_sum "$PT")" = "$(x_sum "$PA")" ] ||
    fail "the cross-schema cascade ($xuser): the target has $(x_sum "$PT"), the source $(x_sum "$PA")"
done
pass "$FLAVOR: a cascade into another schema: the new child waited for the parent's delete (held on the target, then let go), equal to the source (as ${xusers[*]})"

# A DDL mid-log changes the keys of the tables it names, and of those whose foreign keys reach
# them; the keys already read of every other table are kept (the DDL names no foreign key). Two
# orders made certain by a row of dd.h the test holds on the target, which the earlier
# transaction updates first: (1) dd.t dropped and made again with a unique key on e, then 'x'
# moved from row 1 to row 2: the move must wait (else it meets row 1's 'x': 1062); (2) a unique
# key added to the parent dd.p, which moves the key dd.c's foreign key references (b_code) in
# dd.p's list of keys, then a new parent and a child of it: the child must wait (else 1452).
sql "$PA" -e "FLUSH BINARY LOGS"
first=$(sql "$PA" -N -e "$binlog_status" | cut -f1)
sql "$PA" -e "CREATE DATABASE dd; CREATE TABLE dd.h (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
  INSERT INTO dd.h VALUES (1, 0), (2, 0);
  CREATE TABLE dd.t (id INT PRIMARY KEY, e VARCHAR(20)) ENGINE=InnoDB;
  CREATE TABLE dd.p (id INT PRIMARY KEY, x INT, code INT, UNIQUE KEY b_code (code)) ENGINE=InnoDB;
  CREATE TABLE dd.c (id INT PRIMARY KEY, pcode INT,
    FOREIGN KEY (pcode) REFERENCES dd.p (code)) ENGINE=InnoDB; FLUSH BINARY LOGS;
  INSERT INTO dd.t VALUES (1, 'x'), (2, 'y'); DROP TABLE dd.t;
  CREATE TABLE dd.t (id INT PRIMARY KEY, e VARCHAR(20), UNIQUE KEY (e)) ENGINE=InnoDB;
  INSERT INTO dd.t VALUES (1, 'x'), (2, 'y');
  BEGIN; UPDATE dd.h SET v = v + 1 WHERE id = 1; UPDATE dd.t SET e = 'tmp' WHERE id = 1; COMMIT;
  UPDATE dd.t SET e = 'x' WHERE id = 2; FLUSH BINARY LOGS;
  INSERT INTO dd.p VALUES (1, 1, 1); INSERT INTO dd.c VALUES (1, 1);
  ALTER TABLE dd.p ADD UNIQUE KEY a_x (x);
  BEGIN; UPDATE dd.h SET v = v + 1 WHERE id = 2; INSERT INTO dd.p VALUES (5, 99, 7); COMMIT;
  INSERT INTO dd.c VALUES (5, 7); FLUSH BINARY LOGS"
mapfile -t dfiles < <(binlogs_between "$WORK/a/binlog" "$first")
[ ${#dfiles[@]} = 4 ] || fail "the DDL log: ${#dfiles[@]} files"
d_sum() {
  sql "$1" -N -e "SELECT GROUP_CONCAT(id, ':', v ORDER BY id) FROM dd.h;
    SELECT GROUP_CONCAT(id, ':', e ORDER BY id) FROM dd.t; SELECT GROUP_CONCAT(id, ':', x, ':', code
    ORDER BY id) FROM dd.p; SELECT GROUP_CONCAT(id, ':', pcode ORDER BY id) FROM dd.c"
}
sql "$PT" -e "DROP DATABASE IF EXISTS dd; DROP DATABASE IF EXISTS binrecover; $reset_logs"
rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal"
"$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
  --state-file="$WORK/r.state" "${dfiles[0]}" 2> "$WORK/d.err" ||
  { cat "$WORK/d.err"; fail "replay of the DDL log's tables"; }
for k in 1 2; do
  replay_while_held "BEGIN; SELECT v FROM dd.h WHERE id = $k FOR UPDATE" root "${dfiles[$k]}" \
    "the DDL log ($k)"
done
[ "$(d_sum "$PT")" = "$(d_sum "$PA")" ] ||
  fail "the DDL log: the target has $(d_sum "$PT"), the source $(d_sum "$PA")"
pass "$FLAVOR: a table made again with a new unique key, a parent given a new unique key mid-log: the keys read again where the DDL reaches (the later transactions waited for the held earlier ones), equal to the source"

# A table without keys written by four clients at once: the log has commit groups (the source
# holds each commit a moment for the others), every unit holds the table whole, and a unit of a
# group waits for what came before the group, also where the last unit on the table is its
# neighbour in the group, which it does not wait for (a 1032 without the commit order, each
# time, before that was so).
if [ "$FLAVOR" = mysql ]; then
  sql "$PA" -e "SET GLOBAL binlog_group_commit_sync_delay = 20000,
    GLOBAL binlog_group_commit_sync_no_delay_count = 4"
else
  sql "$PA" -e "SET GLOBAL binlog_commit_wait_count = 4, GLOBAL binlog_commit_wait_usec = 20000"
fi
sql "$PA" -e "FLUSH BINARY LOGS"
first=$(sql "$PA" -N -e "$binlog_status" | cut -f1)
{
  echo "CREATE DATABASE kl; CREATE TABLE kl.k (a INT NOT NULL, b INT NOT NULL, v INT NOT NULL);"
  for a in $(seq 0 7); do echo "INSERT INTO kl.k VALUES ($a, 0, 0);"; done
} | sql "$PA"
for c in 1 2 3 4; do
  {
    echo "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;"
    for i in $(seq 1 150); do
      if [ $((i % 2)) = 0 ]; then
        echo "UPDATE kl.k SET v = v + 1 WHERE a = $(((i * 7 + c * 3) % 8)) AND b = 0;"
      else
        echo "INSERT INTO kl.k VALUES ($((c * 1000 + i)), $c, $i);"
      fi
    done
  } | sql "$PA" &
done
wait
if [ "$FLAVOR" = mysql ]; then
  sql "$PA" -e "SET GLOBAL binlog_group_commit_sync_delay = 0"
else
  sql "$PA" -e "SET GLOBAL binlog_commit_wait_count = 0"
fi
sql "$PA" -e "FLUSH BINARY LOGS"
mapfile -t kfiles < <(binlogs_between "$WORK/a/binlog" "$first")
unset 'kfiles[${#kfiles[@]}-1]'
"$BINRECOVER" --no-defaults "${kfiles[@]}" > "$WORK/k.sql" || fail "the keyless log does not read"
if [ "$FLAVOR" = mysql ]; then
  groups=$(grep -o "last_committed=[0-9]*" "$WORK/k.sql" | sort | uniq -d | wc -l)
else
  groups=$(grep -o "cid=[0-9]*" "$WORK/k.sql" | sort -u | wc -l)
fi
[ "$groups" -ge 5 ] || fail "the keyless log has $groups commit groups: nothing tested"
k_sum() { sql "$1" -N -e "SELECT a, b, v FROM kl.k ORDER BY a, b, v" | md5sum; }
for mode in "--parallel=8 --no-preserve-commit-order" "--parallel=8"; do
  sql "$PT" -e "DROP DATABASE IF EXISTS kl; DROP DATABASE IF EXISTS binrecover; $reset_logs"
  rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal"
  # shellcheck disable=SC2086  # (all 8 sessions from the first unit, as above)
  BINRECOVER_TEST_WIDTH_FLIP=1000000000 "$BINRECOVER" replay --no-defaults --no-progress \
    -h127.0.0.1 -P"$PT" -uroot $mode --state-file="$WORK/r.state" "${kfiles[@]}" 2> "$WORK/k.err" ||
    { cat "$WORK/k.err"; fail "replay $mode of the keyless log failed"; }
  [ "$(k_sum "$PT")" = "$(k_sum "$PA")" ] || fail "replay $mode of the keyless log: the target differs"
done
pass "$FLAVOR: a table without keys written by 4 clients at once ($groups commit groups): --parallel 8 with and without commit order equal the source"

# The same table written by one client: every unit holds it whole and waits for the one before
# (no commit groups), a chain the log itself tells whatever the machine's speed. The width
# control starts on one session and, the warm-up showing the chain, never tries eight: no
# session opens but the first, the width never changes.
sql "$PA" -e "FLUSH BINARY LOGS"
first=$(sql "$PA" -N -e "$binlog_status" | cut -f1)
for i in $(seq 1 600); do echo "UPDATE kl.k SET v = v + 1 WHERE a = $((i % 8)) AND b = 0;"; done | sql "$PA"
sql "$PA" -e "FLUSH BINARY LOGS"
mapfile -t cfiles < <(binlogs_between "$WORK/a/binlog" "$first")
unset 'cfiles[${#cfiles[@]}-1]'
rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal"
"$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot --parallel=8 \
  --state-file="$WORK/r.state" --report="$WORK/c.json" "${cfiles[@]}" 2> "$WORK/c.err" ||
  { cat "$WORK/c.err"; fail "replay --parallel=8 of the one-client keyless log failed"; }
[ "$(k_sum "$PT")" = "$(k_sum "$PA")" ] || fail "replay --parallel=8 of the one-client keyless log: the target differs"
c_field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$WORK/c.json"; }
[ "$(c_field sessions)" = 1 ] && [ "$(c_field narrowed)" -ge 590 ] && [ "$(c_field width_changes)" = 0 ] ||
  fail "--parallel=8 on a chain of 600 units: $(cat "$WORK/c.json")"
pass "$FLAVOR: a chain of 600 units (a keyless table, one client): --parallel=8 equals the source, $(c_field narrowed) units on one session, one session opened"

# MariaDB's long unique key (on a TEXT column: a hidden hash column at the end of each row
# image, one more than the catalog lists): its rows are told by the key (every unit on the
# table went alone before), and a value moved between two rows (one key under the collation:
# case and a trailing space) still waits for the unit that freed it; all sessions kept.
if [ "$FLAVOR" = mariadb ]; then
  sql "$PA" -e "FLUSH BINARY LOGS"
  first=$(sql "$PA" -N -e "$binlog_status" | cut -f1)
  sql "$PA" -e "CREATE DATABASE lu; CREATE TABLE lu.t (id INT PRIMARY KEY, body TEXT, v INT,
    UNIQUE KEY (body)) ENGINE=InnoDB; INSERT INTO lu.t VALUES (1, 'body one', 0), (2, NULL, 0)"
  for i in $(seq 1 100); do
    echo "UPDATE lu.t SET body = NULL WHERE id = 1; UPDATE lu.t SET body = 'BODY ONE ' WHERE id = 2;"
    echo "UPDATE lu.t SET body = NULL WHERE id = 2; UPDATE lu.t SET body = 'body one' WHERE id = 1;"
    echo "INSERT INTO lu.t VALUES ($((i + 10)), 'row $i', $i);"
  done | sql "$PA" || fail "the long unique key's moves failed on the source"
  sql "$PA" -e "FLUSH BINARY LOGS"
  mapfile -t lfiles < <(binlogs_between "$WORK/a/binlog" "$first")
  unset 'lfiles[${#lfiles[@]}-1]'
  lu_sum() { sql "$1" -N -e "SELECT GROUP_CONCAT(id, '=', IFNULL(body, '-'), '=', v ORDER BY id) FROM lu.t"; }
  for mode in "--parallel=8 --no-preserve-commit-order" "--parallel=8"; do
    sql "$PT" -e "DROP DATABASE IF EXISTS lu; DROP DATABASE IF EXISTS binrecover; $reset_logs"
    rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal"
    # shellcheck disable=SC2086
    BINRECOVER_TEST_WIDTH_FLIP=1000000000 "$BINRECOVER" replay --no-defaults --no-progress \
      -h127.0.0.1 -P"$PT" -uroot $mode --state-file="$WORK/r.state" --report="$WORK/l.json" \
      "${lfiles[@]}" 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "replay $mode of the long unique key"; }
    [ "$(lu_sum "$PT")" = "$(lu_sum "$PA")" ] || fail "replay $mode of the long unique key: the target differs"
    alone=$(sed -n 's/.*"alone":\([0-9]*\).*/\1/p' "$WORK/l.json")
    units=$(sed -n 's/.*"transactions":\([0-9]*\).*/\1/p' "$WORK/l.json")
    [ "$alone" -le 10 ] && grep -q '"held_whole":0,' "$WORK/l.json" ||
      fail "replay $mode of the long unique key: $alone units alone or tables held ($(cat "$WORK/l.json"))"
  done
  pass "mariadb: a long unique key (a hidden hash column in the row images): its units told by the key ($alone alone of $units, none holding the table), a value moved between rows, with and without commit order equal the source"
fi

# Collations: values the target takes for one key though their bytes differ (case, accents,
# trailing spaces, general_ci's one weight for every character past U+FFFF, ß as s or ss) moved
# from row to row, nothing else in the log: every key is told by the target's weights
# (WEIGHT_STRING), no unit holds its table whole, and without the commit order the moves still
# conflict exactly where the target says so.
source "$ROOT/tests/integration/moves_sql.sh"
collations=$(moves_collations "$FLAVOR")
# shellcheck disable=SC2086  # (the collations' names, one word each)
{
  echo "CREATE DATABASE w;"
  moves_schema $collations
} > "$WORK/collations.sql"
sql "$PA" -e "FLUSH BINARY LOGS"
first=$(sql "$PA" -N -e "$binlog_status" | cut -f1)
sql "$PA" < "$WORK/collations.sql" || fail "the collation tables could not be made on the source"
sql "$PA" -e "FLUSH BINARY LOGS"
# shellcheck disable=SC2086
moves_sql 40 $collations > "$WORK/moves.sql"
sql "$PA" --default-character-set=utf8mb4 < "$WORK/moves.sql" ||
  fail "the moves failed on the source (a value taken for another one by its collation?)"
sql "$PA" -e "FLUSH BINARY LOGS"
mapfile -t cfiles < <(binlogs_between "$WORK/a/binlog" "$first")
unset 'cfiles[${#cfiles[@]}-1]'
wtables() {
  local n=0 c
  for c in $collations; do
    n=$((n + 1))
    sql "$1" -N -e "SELECT '$c', id, HEX(name) FROM w.t$n ORDER BY id"
  done
}
wtables "$PA" > "$WORK/wexpected"
for mode in "--parallel=8 --no-preserve-commit-order" "--parallel=8"; do
  for round in $(seq 1 "$ROUNDS"); do
    sql "$PT" -e "DROP DATABASE IF EXISTS w; DROP DATABASE IF EXISTS binrecover; $reset_logs"
    rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal" "$WORK/w.json"
    # (the tables made first, the moves then: the second run's units all in parallel)
    "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
      --state-file="$WORK/r.state" "${cfiles[0]}" 2> "$WORK/r.err" ||
      { cat "$WORK/r.err"; fail "replay of the collation tables failed"; }
    rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal"
    # shellcheck disable=SC2086  # (all 8 sessions from the first unit, as above)
    BINRECOVER_TEST_WIDTH_FLIP=1000000000 "$BINRECOVER" replay --no-defaults --no-progress \
      -h127.0.0.1 -P"$PT" -uroot $mode \
      --report="$WORK/w.json" --state-file="$WORK/r.state" "${cfiles[@]:1}" 2> "$WORK/r.err" ||
      { cat "$WORK/r.err"; fail "replay $mode of the moves (round $round) failed"; }
    wtables "$PT" > "$WORK/wgot"
    diff "$WORK/wexpected" "$WORK/wgot" ||
      fail "replay $mode of the moves (round $round): the target differs from the source"
    grep -q '"held_whole":0,' "$WORK/w.json" ||
      fail "replay $mode of the moves: units held a table whole ($(cat "$WORK/w.json"))"
    # (the moves' units meet the gap locks of InnoDB's duplicate checks, which no write set
    # names: once a unit on a table ran again, every unit on it waits for the one before it,
    # those already handed over too, so a table costs a few retries, not one per move: 9-11
    # here, 73-96 on MySQL when only the units read later waited)
    retries=$(sed -n 's/.*"retries":\([0-9]*\).*/\1/p' "$WORK/w.json")
    ntables=$(wc -w <<< "$collations")
    [ "$retries" -le $((12 * ntables)) ] ||
      fail "replay $mode of the moves: $retries retries for $ntables tables ($(cat "$WORK/w.json"))"
    # (on MySQL with the order kept, the turn watch, through INNODB_TRX here (the Performance
    # Schema off), has the parked units roll back: each table's first lock wait at least ends
    # so, not by the 1 s timeout)
    if [ "$FLAVOR" = mysql ] && [ "$mode" = --parallel=8 ]; then
      grep -q '"lock_watch":"innodb_trx",' "$WORK/w.json" &&
        [ "$(sed -n 's/.*"lock_watch_yields":\([0-9]*\).*/\1/p' "$WORK/w.json")" -ge 1 ] ||
        fail "replay $mode of the moves: the turn watch did not act ($(cat "$WORK/w.json"))"
    else
      grep -q '"lock_watch":"none",' "$WORK/w.json" ||
        fail "replay $mode of the moves: a lock watch where none is needed ($(cat "$WORK/w.json"))"
    fi
  done
done
[ "$(sed -n 's/.*"parallel":\([0-9]*\).*/\1/p' "$WORK/w.json")" -ge 700 ] ||
  fail "the moves were not applied in parallel: $(cat "$WORK/w.json")"
pass "$FLAVOR: values one key under their collation ($collations) moved between rows: told by the target's weights (no table held whole), --parallel 8 with and without commit order equal the source, $ROUNDS rounds each"
[ "$FLAVOR" = mysql ] && exit 0

# Serial and with the target's own applier, once each; then every parallel way stopped at a
# certain moment (the fault point: no unit past the N-th handed out; N past half the log, the
# DDL before it) by a SIGKILL of binrecover, and --resume: each equal to the source.
"$BINRECOVER" events --format=tsv "${files[@]}" | awk -F'\t' '
  $3 ~ /^(Gtid|Format_desc|Gtid_list|Binlog_checkpoint)$/ { k++ }
  $3 == "Gtid" { s = $6; sub(/.*GTID [0-9]+-[0-9]+-/, "", s); seq[k] = s + 0 }
  END { n = int(k * 2 / 3); while (n > 1 && !seq[n]) n--; print n, seq[n] }' > "$WORK/stop_at"
read -r stop_unit stop_seq < "$WORK/stop_at"
[ "${stop_seq:-0}" -gt 0 ] || fail "no unit to stop at"  # (a transaction's, past the DDL)
fresh_s() {
  sql "$PT" -e "DROP DATABASE IF EXISTS s2; DROP DATABASE IF EXISTS s; DROP DATABASE IF EXISTS binrecover; RESET MASTER;
    SET GLOBAL gtid_slave_pos = ''"
  # (and the last run's stderr: the next run's fault-point line is waited for there)
  rm -f "$WORK/r.state" "$WORK/r.state.lock" "$WORK/r.state.journal" "$WORK/first.err"
}
s_replay() {  # OPTIONS...: a replay of the log into PT
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot \
    --state-file="$WORK/r.state" "$@" "${files[@]}"
}
for mode in "" "--server-applier --parallel=8"; do
  fresh_s
  # shellcheck disable=SC2086
  s_replay $mode 2> "$WORK/r.err" || { cat "$WORK/r.err"; fail "replay ${mode:-serial} failed"; }
  tables "$PT" > "$WORK/got"
  diff "$WORK/expected" "$WORK/got" || fail "replay ${mode:-serial}: the target differs from the source"
done
for mode in "--parallel=8" "--parallel=8 --no-preserve-commit-order" \
  "--parallel=8 --merge-transactions=10" "--server-applier --parallel=8"; do
  fresh_s
  # shellcheck disable=SC2086
  (BINRECOVER_TEST_PAUSE_AFTER_UNITS=$stop_unit exec "$BINRECOVER" replay --no-defaults \
    --no-progress -h127.0.0.1 -P"$PT" -uroot --state-file="$WORK/r.state" $mode "${files[@]}" \
    2> "$WORK/first.err") &
  pid=$!  # (binrecover's own: exec)
  paused() { grep -qs "test pause: $stop_unit units" "$WORK/first.err"; }
  WAIT_FOR_SHOW=$WORK/first.err wait_for 120 "$mode: the replay never reached unit $stop_unit" paused
  kill -9 "$pid"
  { wait "$pid"; } 2> /dev/null || true
  # shellcheck disable=SC2086
  s_replay $mode --resume 2> "$WORK/resume.err" ||
    { cat "$WORK/first.err" "$WORK/resume.err"; fail "$mode: --resume after the kill failed"; }
  tables "$PT" > "$WORK/got"
  diff "$WORK/expected" "$WORK/got" || fail "$mode: killed after unit $stop_unit and resumed, the target differs from the source"
done
pass "the same schemas serially and with --server-applier --parallel 8; --parallel 8, without commit order, merged and --server-applier each SIGKILLed after unit $stop_unit (a certain moment) and resumed: equal to the source"

# Merging onto a non-transactional table: the DDL in one file, nine small transactions in the
# next; the target made by hand with m.k as MyISAM and row 5 of m.t already there (a 1062).
sql "$PA" -e "CREATE DATABASE m; CREATE TABLE m.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
  CREATE TABLE m.k (v INT) ENGINE=InnoDB; FLUSH BINARY LOGS"
dml=$(sql "$PA" -N -e "SHOW MASTER STATUS" | cut -f1)
for i in $(seq 1 9); do echo "BEGIN; INSERT INTO m.t VALUES ($i, $i); INSERT INTO m.k VALUES ($i); COMMIT;"; done |
  sql "$PA"
sql "$PA" -e "FLUSH BINARY LOGS"
for par in 1 8; do
  sql "$PT" -e "DROP DATABASE IF EXISTS m; DROP DATABASE IF EXISTS binrecover; RESET MASTER;
    CREATE DATABASE m; CREATE TABLE m.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
    CREATE TABLE m.k (v INT) ENGINE=MyISAM; INSERT INTO m.t VALUES (5, 5)"
  rm -f "$WORK/m.state" "$WORK/m.state.lock"
  rc=0
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot --parallel=$par \
    --merge-transactions=10 --state-file="$WORK/m.state" "$WORK/a/binlog/$dml" 2> "$WORK/m.err" || rc=$?
  [ $rc = 6 ] && grep -q 1062 "$WORK/m.err" || { cat "$WORK/m.err"; fail "merge onto MyISAM (--parallel=$par): exit $rc, not the 1062 stop"; }
  [ "$(sql "$PT" -N -e "SELECT COUNT(*) FROM m.k")" = 4 ] ||
    fail "merge onto MyISAM (--parallel=$par): $(sql "$PT" -N -e "SELECT COUNT(*) FROM m.k") rows of m.k applied before the failing transaction, not 4"
  sql "$PT" -e "DELETE FROM m.t WHERE id = 5"
  "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot --parallel=$par \
    --merge-transactions=10 --state-file="$WORK/m.state" --resume "$WORK/a/binlog/$dml" 2> "$WORK/m.err" ||
    { cat "$WORK/m.err"; fail "merge onto MyISAM (--parallel=$par): --resume failed"; }
  got=$(sql "$PT" -N -e "SELECT COUNT(*), COUNT(DISTINCT v), SUM(v) FROM m.k; SELECT COUNT(*) FROM m.t" | tr '\t\n' '  ')
  [ "$got" = "9 9 45 9 " ] || fail "merge onto MyISAM (--parallel=$par), --resume: m.k/m.t hold '$got', not each row once"
done
pass "--merge-transactions onto a MyISAM table: stops after exactly the transactions before the failing one, --resume applies each row once (serial and --parallel 8)"

# A log holding a replay's progress rows: A's transactions replayed into PT (which binlogs
# them with its progress rows), then PT's log into a third server, killed part-way, resumed.
PU=$((PA + 2))
start_server u "$PU"
sql "$PA" -e "FLUSH BINARY LOGS"
prfile=$(sql "$PA" -N -e "SHOW MASTER STATUS" | cut -f1)
sql "$PA" -e "CREATE DATABASE pr; CREATE TABLE pr.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB"
seq 1 300 | awk '{ print "INSERT INTO pr.t VALUES (" $1 ", " $1 * 7 ");" }' | sql "$PA"
sql "$PA" -e "FLUSH BINARY LOGS"
sql "$PT" -e "DROP DATABASE IF EXISTS pr; DROP DATABASE IF EXISTS binrecover; RESET MASTER"
# (both replays as a DBA runs them from one folder: the default state file, so the same name
# for their progress rows; the table, not the target's GTIDs, records their progress)
PR=(--progress-table=binrecover.replay_progress --state-file="$WORK/binrecover-replay.state")
"$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PT" -uroot "${PR[@]}" \
  "$WORK/a/binlog/$prfile" 2> "$WORK/t1.err" || { cat "$WORK/t1.err"; fail "replay into the first target"; }
sql "$PT" -e "FLUSH BINARY LOGS"
mapfile -t t1files < <(binlogs_between "$WORK/t/binlog" mysql-bin.000001)
unset 't1files[${#t1files[@]}-1]'
"$BINRECOVER" --no-defaults -v "${t1files[@]}" | grep -c 'binrecover`.`replay_progress' > /dev/null ||
  fail "the first target's log holds no progress rows"
# The units the fault point lets through (as the walker counts them: a file's header events are
# units too, the DDL of the progress table is left out whole), and how many of pr.t's rows
# those are.
read -r units want < <("$BINRECOVER" events --format=tsv "${t1files[@]}" | awk -F'\t' '
  $3 ~ /^(Gtid|Format_desc|Gtid_list|Binlog_checkpoint)$/ { k++ }
  $3 == "Query" && prev == "Gtid" && $6 ~ /`binrecover`/ { k-- }  # (left out whole: not handed)
  { prev = $3 }
  $3 == "Table_map" && $6 ~ /\(pr\.t\)/ && k <= 200 && !seen[k]++ { c++ }
  END { print 200, c }')
[ "${want:-0}" -gt 50 ] || fail "the fault point would stop after $want rows of pr.t"
sql "$PU" -e "DROP DATABASE IF EXISTS pr; DROP DATABASE IF EXISTS binrecover"
rm -f "$WORK/binrecover-replay.state" "$WORK/binrecover-replay.state.lock"
BINRECOVER_TEST_PAUSE_AFTER_UNITS=$units "$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 \
  -P"$PU" -uroot --parallel=8 "${PR[@]}" "${t1files[@]}" 2> "$WORK/u.err" &
upid=$!
u_at() { kill -0 "$upid" 2> /dev/null || { cat "$WORK/u.err"; fail "the paused replay ended"; }
  sql "$PU" -N -e "SELECT COUNT(*) FROM pr.t" > "$WORK/u.count" 2>&1 || true
  [ "$(cat "$WORK/u.count")" = "$want" ]; }
WAIT_FOR_SHOW=$WORK/u.count wait_for 120 "the paused replay did not apply $want rows of pr.t (shown: what it has)" u_at
kill -9 "$upid"
{ wait "$upid"; } 2> /dev/null || true
"$BINRECOVER" replay --no-defaults --no-progress -h127.0.0.1 -P"$PU" -uroot --parallel=8 \
  "${PR[@]}" --resume "${t1files[@]}" 2> "$WORK/u.err" ||
  { cat "$WORK/u.err"; fail "--resume of the log with progress rows"; }
got=$(sql "$PU" -N -e "SELECT COUNT(*), SUM(v) FROM pr.t" | tr '\t' ' ')
[ "$got" = "300 $((7 * 300 * 301 / 2))" ] || fail "a log with a replay's progress rows, killed at $want and resumed: pr.t holds '$got'"
pass "a log holding a replay's progress rows: --parallel 8 killed after $want of 300 rows (a certain moment), --resume: each row once"
