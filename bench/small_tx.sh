#!/usr/bin/env bash
# Benchmark: bench/replay.sh on an OLTP-like binlog of many one-row transactions, where the
# commit, not the row, is the cost: 30,000 autocommit INSERTs then 30,000 autocommit UPDATEs
# of one InnoDB table (60,000 transactions, about 19 MiB), written by a real MariaDB and cached
# under ~/.cache/binrecover/small-tx-N/ (N: the transactions, so a change rebuilds it).
#   bash bench/small_tx.sh
# Environment: BENCH_SMALL_TX (30000 rows), and bench/replay.sh's (BENCH_METHODS defaults here
# to mb_pipe br_pipe replay replaym par8 par8m sa8 sa8m relay8). Writes
# bench/results/replay_small_tx.md.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${BENCH_SMALL_TX:-30000}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/binrecover/small-tx-$n
if [ ! -s "$cache/mysql-bin.000001" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-bench-small.XXXXXX")
  trap 'scripts/mariadb_server.sh stop "$work/src" > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
  port=${BENCH_PORT:-23395}
  scripts/mariadb_server.sh start "$work/src" "$port" --innodb-flush-log-at-trx-commit=2 > /dev/null
  mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot <<SQL
CREATE DATABASE s;
CREATE TABLE s.t (id INT PRIMARY KEY, a INT, b VARCHAR(40)) ENGINE=InnoDB;
DELIMITER //
CREATE PROCEDURE s.fill(n INT)
BEGIN
  DECLARE i INT DEFAULT 0;
  WHILE i < n DO INSERT INTO s.t VALUES (i, i, REPEAT('x', 30)); SET i = i + 1; END WHILE;
  SET i = 0;
  WHILE i < n DO UPDATE s.t SET a = a + 1 WHERE id = (i * 7919) % n; SET i = i + 1; END WHILE;
END //
DELIMITER ;
CALL s.fill($n);
FLUSH BINARY LOGS;
SQL
  mkdir -p "$cache"
  cp "$work/src/binlog/mysql-bin.000001" "$cache/mysql-bin.000001.tmp"
  mv "$cache/mysql-bin.000001.tmp" "$cache/mysql-bin.000001"
  # (stopped here: exec below runs no trap, and the benchmark's targets take this port)
  scripts/mariadb_server.sh stop "$work/src" > /dev/null
  rm -rf "$work"
  trap - EXIT
fi
BENCH_METHODS=${BENCH_METHODS:-mb_pipe br_pipe replay replaym par8 par8m sa8 sa8m relay8} \
  BENCH_RESULT=${BENCH_RESULT:-bench/results/replay_small_tx.md} exec bash bench/replay.sh "$cache/mysql-bin.000001"
