#!/usr/bin/env bash
# A binary log holding one very large transaction, written by a real MariaDB server: a single
# INSERT ... SELECT of ROWS rows (about 180 bytes of row image each) into big.t, in ROW format
# with binlog_row_metadata=FULL, between two small transactions (testdata/big/big_transaction.sql).
# Cached outside the checkout, keyed by this script's and the SQL's text, ROWS and the server
# version; prints the binlog's path.
#   scripts/gen_big_transaction.sh [ROWS]        # default 1400000 rows: about 255 MB
#   scripts/gen_big_transaction.sh 11000000      # about 2 GB (bench/)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1400000}
[[ $rows =~ ^[0-9]+$ && $rows -gt 0 ]] || { echo "ROWS must be a positive integer" >&2; exit 2; }
port=${BIG_PORT:-23394}
mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)
cache_root=${BINRECOVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/binrecover}
key=$({ cat "$0" testdata/big/big_transaction.sql; echo "rows=$rows"; "$mariadbd" --version; } |
  sha256sum | cut -c1-12)
dir=$cache_root/big-transaction-$key
if [ -f "$dir/done" ]; then echo "$dir/mysql-bin.000001"; exit 0; fi
mkdir -p "$cache_root"
exec 9>"$cache_root/.big-transaction.lock"
flock 9
if [ -f "$dir/done" ]; then echo "$dir/mysql-bin.000001"; exit 0; fi
tmp=$(mktemp -d "$cache_root/.big-transaction.XXXXXX")
trap 'scripts/mariadb_server.sh stop "$tmp/srv" || true; rm -rf "$tmp"' EXIT
echo "gen_big_transaction: writing a $rows-row transaction (once; cached in $dir)" >&2
scripts/mariadb_server.sh start "$tmp/srv" "$port" --binlog-row-metadata=FULL \
  --max-binlog-size=1G --max-allowed-packet=64M --innodb-buffer-pool-size=256M \
  --innodb-log-file-size=512M --innodb-flush-log-at-trx-commit=0 --sync-binlog=0
{ sed "s/seq_1_to_ROWS/seq_1_to_$rows/" testdata/big/big_transaction.sql
  echo "FLUSH BINARY LOGS;"; } | mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot
scripts/mariadb_server.sh stop "$tmp/srv"
mkdir -p "$tmp/out"
cp "$tmp/srv/binlog/mysql-bin.000001" "$tmp/out/"
rm -rf "$dir"
mv "$tmp/out" "$dir"
touch "$dir/done"
echo "$dir/mysql-bin.000001"
