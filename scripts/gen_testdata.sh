#!/usr/bin/env bash
# Regenerates testdata/{row,stmt}/ from testdata/workload.sql with a real MariaDB server, so
# anyone can rebuild the golden binlogs. The expected outputs (testdata/*/expected.*) are then
# rewritten by tests/golden_test.sh --update; review their diff before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-23306}
tmp=$(mktemp -d)
trap 'scripts/mariadb_server.sh stop "$tmp/srv" || true; rm -rf "$tmp"' EXIT
for fmt in row stmt; do
  format=ROW
  [ "$fmt" = stmt ] && format=STATEMENT
  scripts/mariadb_server.sh start "$tmp/srv" "$port" --binlog-format="$format"
  mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot --default-character-set=utf8mb4 \
    < testdata/workload.sql
  mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot -e 'FLUSH BINARY LOGS'
  scripts/mariadb_server.sh stop "$tmp/srv"
  rm -rf "testdata/$fmt"
  mkdir -p "testdata/$fmt"
  cp "$tmp/srv/binlog/mysql-bin.000001" "$tmp/srv/binlog/mysql-bin.000002" "testdata/$fmt/"
  printf 'mysql-bin.000001\nmysql-bin.000002\n' > "testdata/$fmt/mysql-bin.index"
done
echo "gen_testdata: wrote testdata/row and testdata/stmt" >&2
