# shellcheck shell=bash
# The workloads of bench/workloads.sh (MariaDB) and bench/workloads_mysql.sh (MySQL), in SQL
# both servers run: schema WORKLOAD (its tables, at the start of its binlog) and client WORKLOAD
# CLIENT (that client's BENCH_TX transactions; the 4 clients run at once). `moves` is written by
# one client (clients WORKLOAD says how many).
#   upsert    INSERT ... ON DUPLICATE KEY UPDATE on 200 keys, one statement per transaction
#   unique    a row deleted and another inserted with the same unique code and e-mail (in other
#             letter case, a _ci key), an e-mail moved between rows
#   hot       UPDATE of 8 rows over and over, a counter row in every 5th transaction
#   replace   REPLACE INTO on a primary key and a unique key from 300 values
#   small     one-row INSERTs on keys of their own (nothing conflicts: the most parallel work)
#   emails    one-row INSERTs of new rows, each with an e-mail of its own under a unique key
#             (nothing conflicts, but every insert checks a unique secondary key)
#   names     the same with a name of its own of non-ASCII letters (each a new value for
#             --parallel's reader to weigh under the key's collation)
#   savepoint transactions with SAVEPOINT / ROLLBACK TO SAVEPOINT, and XA transactions
#   ddl       ETL-style DDL between small writes: one-row INSERTs into 20 tables with a unique
#             key, and every 20th transaction a scratch table created, written once and dropped
#             (3 DDL each; on MariaDB and MySQL alike every DDL is applied alone)
#   keyless   a table without any key: one-row INSERTs, and every 3rd transaction an UPDATE of
#             the rows of one value (every change holds the table whole: nothing in parallel)
#   myisam    one-row INSERTs and UPDATEs by primary key of a MyISAM table (not transactional:
#             each one applied alone)
#   moves     values of unique keys under case- and accent-insensitive collations moved from
#             row to row (tests/integration/moves_sql.sh): ordered only by the keys' collations,
#             and InnoDB's duplicate checks lock the next record (MOVES_ROUNDS, 40: 720
#             transactions on MySQL, 960 on MariaDB)

clients() {  # WORKLOAD: how many clients write it
  case $1 in
    moves) echo 1 ;;
    *) echo 4 ;;
  esac
}

# The moves: tests/integration/moves_sql.sh's, under the MySQL or the MariaDB collations
# (MOVES_FLAVOR, mariadb), MOVES_ROUNDS rounds (40).
source "$(dirname "${BASH_SOURCE[0]}")/../tests/integration/moves_sql.sh"
moves_client() {
  echo "SET NAMES utf8mb4;"
  # shellcheck disable=SC2046  # (the collations' names, one word each)
  moves_sql "${MOVES_ROUNDS:-40}" $(moves_collations "${MOVES_FLAVOR:-mariadb}")
}

schema() {  # WORKLOAD: its tables, made at the start of its binlog
  # shellcheck disable=SC2046  # (moves: the collations' names, one word each)
  case $1 in
    upsert) echo "CREATE TABLE w.t (id INT PRIMARY KEY, code INT NOT NULL UNIQUE, n BIGINT NOT NULL,
      note VARCHAR(40)) ENGINE=InnoDB;" ;;
    unique) echo "CREATE TABLE w.users (id INT PRIMARY KEY, email VARCHAR(64) NOT NULL, code INT
      NOT NULL, UNIQUE KEY (code), UNIQUE KEY (email)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
      COLLATE=utf8mb4_general_ci;" ;;
    hot) echo "CREATE TABLE w.hot (id INT PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB;
      INSERT INTO w.hot VALUES (0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0);
      CREATE TABLE w.log (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;" ;;
    replace) echo "CREATE TABLE w.r (id INT PRIMARY KEY, u INT NOT NULL UNIQUE, v INT NOT NULL)
      ENGINE=InnoDB;" ;;
    small) echo "CREATE TABLE w.s (id INT PRIMARY KEY, c INT NOT NULL, v VARCHAR(40) NOT NULL)
      ENGINE=InnoDB;" ;;
    names) echo "CREATE TABLE w.people (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, city
      VARCHAR(40) NOT NULL, UNIQUE KEY (name)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;" ;;
    emails) echo "CREATE TABLE w.users (id INT PRIMARY KEY, email VARCHAR(64) NOT NULL, code INT
      NOT NULL, UNIQUE KEY (code), UNIQUE KEY (email)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;" ;;
    moves) moves_schema $(moves_collations "${MOVES_FLAVOR:-mariadb}") ;;
    ddl) for t in $(seq 1 20); do
        echo "CREATE TABLE w.t$t (id INT PRIMARY KEY, code INT NOT NULL UNIQUE, v INT NOT NULL)
          ENGINE=InnoDB;"
      done ;;
    keyless) echo "CREATE TABLE w.k (a INT NOT NULL, b INT NOT NULL, v INT NOT NULL) ENGINE=InnoDB;"
      for a in $(seq 0 39); do echo "INSERT INTO w.k VALUES ($a, 0, 0);"; done ;;
    myisam) echo "CREATE TABLE w.m (id INT PRIMARY KEY, c INT NOT NULL, v INT NOT NULL)
      ENGINE=MyISAM;" ;;
    savepoint) echo "CREATE TABLE w.a (id INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB;
      CREATE TABLE w.b (id INT PRIMARY KEY, c INT NOT NULL) ENGINE=InnoDB;
      INSERT INTO w.b VALUES (1, 0), (2, 0), (3, 0), (4, 0);" ;;
  esac
}

client() {  # WORKLOAD CLIENT: its transactions
  local w=$1 c=$2 i k x
  if [ "$w" = moves ]; then
    moves_client
    return
  fi
  echo "USE w; SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;"
  for ((i = 1; i <= BENCH_TX; i++)); do
    k=$((c * 100000 + i))
    x=$(((i * 7919 + c * 104729) % 200))
    case $w in
      upsert) echo "INSERT INTO t VALUES ($x, $x, 1, 'c$c') ON DUPLICATE KEY UPDATE n = n + 1, note = 'c$c-$i';" ;;
      unique)
        x=$((c * 1000 + i % 40))
        if ((i % 3 == 0)); then
          echo "UPDATE users SET email = 'm$k@example.com' WHERE code = $x;"
        elif ((i % 2)); then
          echo "BEGIN; DELETE FROM users WHERE code = $x; INSERT INTO users VALUES ($k, 'u$x@example.com', $x); COMMIT;"
        else
          echo "BEGIN; DELETE FROM users WHERE code = $x; INSERT INTO users VALUES ($k, 'U$x@EXAMPLE.COM', $x); COMMIT;"
        fi ;;
      hot)
        if ((i % 5 == 0)); then
          echo "BEGIN; UPDATE hot SET n = n + 1 WHERE id = 0; INSERT INTO log VALUES ($k, $i); COMMIT;"
        else
          echo "UPDATE hot SET n = n + $c WHERE id = $((x % 8));"
        fi ;;
      replace) echo "REPLACE INTO r VALUES ($((x + 300 * (i % 2))), $(((x * 3) % 300)), $k);" ;;
      small) echo "INSERT INTO s VALUES ($k, $c, 'row $k of client $c');" ;;
      emails) echo "INSERT INTO users VALUES ($k, 'e$((k * 7919 % 1000003))@example.com', $k);" ;;
      names) echo "INSERT INTO people VALUES ($k, _utf8mb4 'Müller-Lüdenscheidt Ærø $k', _utf8mb4 'Zürich');" ;;
      ddl)
        echo "INSERT INTO t$((i % 20 + 1)) VALUES ($k, $k, $c);"
        if ((i % 20 == 0)); then
          echo "CREATE TABLE s$k (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;"
          echo "INSERT INTO s$k VALUES (1, $i); DROP TABLE s$k;"
        fi ;;
      keyless)
        if ((i % 3 == 0)); then
          echo "UPDATE k SET v = v + 1 WHERE a = $((x % 40)) AND b = 0;"
        else
          echo "INSERT INTO k VALUES ($k, $c, $i);"
        fi ;;
      myisam)
        if ((i % 2 == 0)); then
          echo "UPDATE m SET v = v + 1 WHERE id = $((c * 100000 + i - 1));"
        else
          echo "INSERT INTO m VALUES ($k, $c, 0);"
        fi ;;
      savepoint)
        if ((i % 4 == 0)); then
          echo "XA START 'x$k'; INSERT INTO a VALUES ($k, $i); UPDATE b SET c = c + 1 WHERE id = $c;"
          echo "XA END 'x$k'; XA PREPARE 'x$k'; XA COMMIT 'x$k';"
        else
          echo "BEGIN; INSERT INTO a VALUES ($k, 0); SAVEPOINT s1; UPDATE a SET n = 1 WHERE id = $k;"
          echo "SAVEPOINT s2; INSERT INTO b VALUES ($k, 0); ROLLBACK TO SAVEPOINT s2;"
          echo "INSERT INTO b VALUES ($k, 1) ON DUPLICATE KEY UPDATE c = c + 1; RELEASE SAVEPOINT s1; COMMIT;"
        fi ;;
    esac
  done
}

# write_log WORKLOAD PORT SRC OUT: the workload's binlog, written by the throwaway MariaDB on
# PORT whose folder is SRC (scripts/mariadb_server.sh), its clients at once, copied to OUT
# (the database w made anew first; the clients' SQL in OUT.clientN.sql).
write_log() {
  local w=$1 port=$2 src=$3 out=$4 c file
  local my=(mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot)
  "${my[@]}" -e "FLUSH BINARY LOGS; DROP DATABASE IF EXISTS w"
  file=$("${my[@]}" -N -e "SHOW MASTER STATUS" | cut -f1)
  { echo "CREATE DATABASE w; USE w;"; schema "$w"; } | "${my[@]}"
  for c in $(seq 1 "$(clients "$w")"); do
    client "$w" "$c" > "$out.client$c.sql"
    "${my[@]}" < "$out.client$c.sql" &
  done
  wait
  "${my[@]}" -e "FLUSH BINARY LOGS"
  cp "$src/binlog/$file" "$out"
}
