# The workload of the parallel replay tests (sourced): 4 clients at once against a source, so
# that the log holds transactions that ran side by side (MariaDB's commit groups, MySQL's
# logical clock), on tables that make a parallel replay go wrong when it misses a dependency:
#   par.hot      8 rows updated over and over (the same keys in many transactions)
#   par.parent / par.child   a foreign key with ON DELETE CASCADE: children inserted, updated
#                and deleted with their parent by other transactions
#   par.users    a primary key and two unique keys (code; email in a case-insensitive
#                collation): a row deleted and another inserted with the same code and the
#                same email in other letter case
#   par.counter  one row, +1 by every 10th transaction: a transaction applied twice shows
#   par.nokey    a table without any key: one row per such transaction (twice: one more row)
#   par.marks    one row per transaction (k = client * 100000 + i): which transactions a
#                reader of the target sees
# between the two halves a DDL (ALTER TABLE child, CREATE TABLE late), and at the end a
# statement-format segment. run_workload PORT CLIENT_CMD N: N iterations per client per half.
workload_schema() {
  cat <<'SQL'
CREATE DATABASE par;
CREATE TABLE par.hot (id INT PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB;
INSERT INTO par.hot VALUES (0,0),(1,0),(2,0),(3,0),(4,0),(5,0),(6,0),(7,0);
CREATE TABLE par.parent (id INT PRIMARY KEY, name VARCHAR(32) NOT NULL UNIQUE) ENGINE=InnoDB;
CREATE TABLE par.child (id INT PRIMARY KEY, parent_id INT NOT NULL, v INT NOT NULL,
  FOREIGN KEY (parent_id) REFERENCES par.parent (id) ON DELETE CASCADE) ENGINE=InnoDB;
CREATE TABLE par.users (id INT PRIMARY KEY, email VARCHAR(64) NOT NULL, code INT NOT NULL,
  UNIQUE KEY (code), UNIQUE KEY (email)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE par.counter (id INT PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB;
INSERT INTO par.counter VALUES (1, 0);
CREATE TABLE par.nokey (k INT, c INT) ENGINE=InnoDB;
CREATE TABLE par.marks (k INT PRIMARY KEY, c INT NOT NULL) ENGINE=InnoDB;
SQL
}

# client_sql C HALF N: the transactions of client C in half 1 or 2.
client_sql() {
  local c=$1 half=$2 n=$3 i k t x
  # (no gap locks: the clients' unique keys never deadlock each other)
  echo "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;"
  for ((i = (half - 1) * n + 1; i <= half * n; i++)); do
    k=$((c * 100000 + i))
    t=$((i % 10))
    x=$((c * 1000 + (i / 10) % 5))
    echo "BEGIN; INSERT INTO par.marks VALUES ($k, $c);"
    case $t in
      0 | 1 | 2) echo "UPDATE par.hot SET n = n + 1 WHERE id = $(((k * 7) % 8));"
        [ "$half" = 2 ] && [ $t = 0 ] && echo "INSERT INTO par.late VALUES ($k, $((k + 1)));" ;;
      3 | 4) echo "INSERT INTO par.parent VALUES ($k, 'p$k'); INSERT INTO par.child (id, parent_id, v) VALUES ($k, $k, 1);" ;;
      5) echo "UPDATE par.child SET v = v + 1 WHERE parent_id = $((k - 1)); DELETE FROM par.parent WHERE id = $((k - 2));" ;;
      6) if [ $((i % 20)) -lt 10 ]; then e="u$x@example.com"; else e="U$x@EXAMPLE.com"; fi
        echo "DELETE FROM par.users WHERE code = $x; INSERT INTO par.users VALUES ($k, '$e', $x);" ;;
      7) echo "UPDATE par.counter SET n = n + 1 WHERE id = 1; INSERT INTO par.nokey VALUES ($k, $c);" ;;
      8) echo "UPDATE par.hot SET n = n + 2 WHERE id = $c; INSERT INTO par.child (id, parent_id, v) VALUES ($k, $((k - 4)), 5);" ;;
      9) echo "UPDATE par.users SET email = 'x$k@example.com' WHERE code = $x;" ;;
    esac
    echo "COMMIT;"
  done
}

# run_workload PORT N: the schema, two halves of 4 clients at once with the DDL between, the
# statement-format segment.
run_workload() {
  local port=$1 n=$2 c half
  workload_schema | sql "$port"
  for half in 1 2; do
    for c in 1 2 3 4; do
      client_sql "$c" "$half" "$n" > "$WORK/client$c.sql"
      sql "$port" < "$WORK/client$c.sql" &
    done
    wait
    if [ "$half" = 1 ]; then
      sql "$port" -e "ALTER TABLE par.child ADD COLUMN extra INT NOT NULL DEFAULT 7;
        CREATE TABLE par.late (id INT PRIMARY KEY, v INT NOT NULL, UNIQUE KEY (v)) ENGINE=InnoDB"
    fi
  done
  {
    echo "SET SESSION binlog_format = 'STATEMENT';"
    for ((i = 1; i <= 20; i++)); do
      echo "BEGIN; INSERT INTO par.marks VALUES ($((900000 + i)), 9); UPDATE par.hot SET n = n + 1 WHERE id = 3; COMMIT;"
    done
    echo "SET SESSION binlog_format = 'ROW';"
    echo "BEGIN; INSERT INTO par.marks VALUES (999999, 9); UPDATE par.counter SET n = n + 1; INSERT INTO par.nokey VALUES (999999, 9); COMMIT;"
  } | sql "$port" 2> /dev/null
}

# content PORT: every table of par, CHECKSUM TABLE and the counters.
content() {
  sql "$1" -N -e "CHECKSUM TABLE par.hot, par.parent, par.child, par.users, par.counter,
    par.nokey, par.marks, par.late;
    SELECT 'counter', n FROM par.counter; SELECT 'nokey', COUNT(*) FROM par.nokey;
    SELECT 'marks', COUNT(*) FROM par.marks; SELECT 'child', COUNT(*), SUM(v) FROM par.child"
}

# marks_order FILES...: the marks in the order the binlogs commit them (from the -v output:
# row events' "### INSERT INTO `par`.`marks`" and the statements' text).
marks_order() {
  "$BINRECOVER" --base64-output=decode-rows -v "$@" | awk '
    /^### INSERT INTO `par`.`marks`/ { want = 1; next }
    want && /^###   @1=/ { sub(/^###   @1=/, ""); print; want = 0; next }
    /^INSERT INTO par.marks VALUES \(/ { s = $0; sub(/^INSERT INTO par.marks VALUES \(/, "", s);
      sub(/,.*/, "", s); print s }'
}

# (for the tests that replay it into the target on port PT: WORK/order holds the marks in the
# source's commit order, `total` their number)
# sampler OUT: the target's marks, one consistent read per line, until $WORK/stop exists.
# (START TRANSACTION WITH CONSISTENT SNAPSHOT: MariaDB takes a plain read's snapshot by walking
# its list of open transactions while others commit, so a read could see a transaction that
# committed after one it does not see, both begun before it (seen once in 60 replays, the
# target's own binlog in the source's order); a consistent snapshot is taken under the lock
# commits are made visible under, in their binlog order. MySQL takes every snapshot under the
# lock its commits end under.)
sampler() {
  # (it ends with the test too: killed or timed out, its folder gone)
  while [ ! -e "$WORK/stop" ] && [ -d "$WORK" ] && kill -0 $$ 2> /dev/null; do
    sql "$PT" -N -e "SET SESSION group_concat_max_len = 16777216;
      START TRANSACTION WITH CONSISTENT SNAPSHOT;
      SELECT IFNULL(GROUP_CONCAT(k), '') FROM par.marks; COMMIT" 2> /dev/null || true
  done > "$1"
}
# prefix_check SAMPLES: prints "samples mid bad": each sample's marks must be the first m
# marks of the source's commit order (m = how many it holds).
prefix_check() {
  awk -v total="$total" 'NR == FNR { pos[$1] = FNR; next }
    { n = split($0, ks, ","); if ($0 == "") n = 0; worst = 0
      for (j = 1; j <= n; j++) { p = (ks[j] in pos) ? pos[ks[j]] : 1e9; if (p > worst) worst = p }
      samples++; if (n > 0 && n < total) mid++; if (worst > n) bad++ }
    END { printf "%d %d %d\n", samples, mid, bad }' "$WORK/order" "$1"
}
# prefix_diagnosis SAMPLES: for the first sample that is not a prefix, what it held past the
# prefix and what it lacked inside it (positions in the source's commit order; stderr).
prefix_diagnosis() {
  awk -v total="$total" 'NR == FNR { pos[$1] = FNR; next }
    { n = split($0, ks, ","); if ($0 == "") n = 0; delete have; worst = 0
      for (j = 1; j <= n; j++) { p = (ks[j] in pos) ? pos[ks[j]] : 1e9; have[p] = 1; if (p > worst) worst = p }
      if (worst <= n) next
      extra = ""; missing = ""; e = m = 0
      for (p in have) if (p > n && e++ < 8) extra = extra " " p
      for (p = 1; p <= n && m < 8; p++) if (!(p in have)) { missing = missing " " p; m++ }
      printf "sample %d holds %d of %d marks; past the prefix:%s; missing inside it:%s\n", FNR, n, total, extra, missing
      exit }' "$WORK/order" "$1" >&2
}
