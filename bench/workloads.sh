#!/usr/bin/env bash
# Benchmark: replay of the workloads where parallel replay is hardest (issue 30), each one a
# binlog of its own written by a real MariaDB with 4 clients at once, then replayed by every way
# with bench/replay.sh (fresh target each run, CHECKSUM TABLE equal after every run):
#   upsert    INSERT ... ON DUPLICATE KEY UPDATE on 200 keys, one statement per transaction
#   unique    a row deleted and another inserted with the same unique code and e-mail (in other
#             letter case, a _ci key), an e-mail moved between rows
#   hot       UPDATE of 8 rows over and over, a counter row in every 5th transaction
#   replace   REPLACE INTO on a primary key and a unique key from 300 values
#   small     one-row INSERTs on keys of their own (nothing conflicts: the most parallel work)
#   savepoint transactions with SAVEPOINT / ROLLBACK TO SAVEPOINT, and XA transactions
# Each workload runs BENCH_TX transactions per client (default 650: 2,600 in all).
#   bash bench/workloads.sh [WORKLOAD...]
# Environment: BENCH_TX, BENCH_PORT (23900; bench/replay.sh gets BENCH_PORT+10), BENCH_RUNS (3),
# BENCH_METHODS (mb_pipe replay par8 par8n replaym par8m), BENCH_FLUSH (1), BINRECOVER.
# Results: bench/results/workload-NAME.md, and bench/results/workloads.md (a summary table).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BENCH_TX=${BENCH_TX:-650}
BENCH_PORT=${BENCH_PORT:-23900}
export BENCH_RUNS=${BENCH_RUNS:-3}
export BENCH_METHODS=${BENCH_METHODS:-mb_pipe replay par8 par8n replaym par8m}
export BENCH_FLUSH=${BENCH_FLUSH:-1}
export BINRECOVER=${BINRECOVER:-$root/build/binrecover}
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(upsert unique hot replace small savepoint)
work=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-bench-workloads.XXXXXX")
trap 'scripts/mariadb_server.sh stop "$work/src" > /dev/null 2>&1 || true
  [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
log() { echo "bench: $*" >&2; }
sql() { mariadb --no-defaults -h127.0.0.1 -P"$BENCH_PORT" -uroot "$@"; }

schema() {  # WORKLOAD: its tables, made at the start of its binlog
  case $1 in
    upsert) echo "CREATE TABLE w.t (id INT PRIMARY KEY, code INT NOT NULL UNIQUE, n BIGINT NOT NULL,
      note VARCHAR(40)) ENGINE=InnoDB;" ;;
    unique) echo "CREATE TABLE w.users (id INT PRIMARY KEY, email VARCHAR(64) NOT NULL, code INT
      NOT NULL, UNIQUE KEY (code), UNIQUE KEY (email)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
      COLLATE=utf8mb4_general_ci;" ;;
    hot) echo "CREATE TABLE w.hot (id INT PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB;
      INSERT INTO w.hot SELECT seq, 0 FROM w.seq_0_to_7;
      CREATE TABLE w.log (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;" ;;
    replace) echo "CREATE TABLE w.r (id INT PRIMARY KEY, u INT NOT NULL UNIQUE, v INT NOT NULL)
      ENGINE=InnoDB;" ;;
    small) echo "CREATE TABLE w.s (id INT PRIMARY KEY, c INT NOT NULL, v VARCHAR(40) NOT NULL)
      ENGINE=InnoDB;" ;;
    savepoint) echo "CREATE TABLE w.a (id INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB;
      CREATE TABLE w.b (id INT PRIMARY KEY, c INT NOT NULL) ENGINE=InnoDB;" ;;
  esac
}

client() {  # WORKLOAD CLIENT: its transactions
  local w=$1 c=$2 i k x
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

scripts/mariadb_server.sh start "$work/src" "$BENCH_PORT" --binlog-format=ROW > /dev/null
summary=()
for w in "${workloads[@]}"; do
  log "$w: writing the binlog ($BENCH_TX transactions from each of 4 clients)"
  sql -e "FLUSH BINARY LOGS; DROP DATABASE IF EXISTS w"
  file=$(sql -N -e "SHOW MASTER STATUS" | cut -f1)
  { echo "CREATE DATABASE w; USE w;"; schema "$w"; } | sql
  [ "$w" = savepoint ] && sql -e "INSERT INTO w.b SELECT seq, 0 FROM w.seq_1_to_4"
  for c in 1 2 3 4; do
    client "$w" "$c" > "$work/client$c.sql"
    sql < "$work/client$c.sql" &
  done
  wait
  sql -e "FLUSH BINARY LOGS"
  cp "$work/src/binlog/$file" "$work/$w.000001"
  BENCH_PORT=$((BENCH_PORT + 10)) BENCH_RESULT="bench/results/workload-$w.md" \
    bash bench/replay.sh "$work/$w.000001" > /dev/null
  summary+=("$w")
done

{
  echo "# Replay of the hard workloads"
  echo
  echo "- command: \`bash bench/workloads.sh\` ($BENCH_TX transactions from each of 4 clients per workload; median of $BENCH_RUNS runs; innodb_flush_log_at_trx_commit=$BENCH_FLUSH)"
  echo "- binrecover: git $(git rev-parse --short HEAD 2> /dev/null || echo unknown); $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores"
  echo
  echo "seconds (binrecover's retries in brackets), each way into a fresh MariaDB:"
  echo
  printf '| workload |'; for m in $BENCH_METHODS; do printf ' %s |' "$m"; done; echo
  printf '|---|'; for _ in $BENCH_METHODS; do printf -- '---|'; done; echo
  for w in "${summary[@]}"; do
    printf '| %s |' "$w"
    for m in $BENCH_METHODS; do
      awk -F'|' -v m=" $m " '$2 == m { gsub(/ /, "", $3); gsub(/ /, "", $9); printf " %s%s |", $3,
        ($9 != "" && $9 != "-" ? " (" $9 ")" : "") }' "bench/results/workload-$w.md"
    done
    echo
  done
} | tee bench/results/workloads.md
