#!/usr/bin/env bash
# Throwaway MariaDB server for tests: a fresh data dir, loopback TCP only.
#   scripts/mariadb_server.sh start DIR PORT [extra mariadbd options...]
#   scripts/mariadb_server.sh restart DIR PORT   # the same data and options again
#   scripts/mariadb_server.sh stop DIR
# The binary log is written to DIR/binlog/mysql-bin.NNNNNN (index DIR/binlog/mysql-bin.index).
set -euo pipefail
cmd=${1:?usage: mariadb_server.sh start|stop DIR [PORT] [options]}
dir=${2:?data directory}
mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)

case "$cmd" in
start | restart)
  port=${3:?port}
  shift 3
  if [ "$cmd" = start ]; then
    rm -rf "$dir"
    mkdir -p "$dir/data" "$dir/binlog" "$dir/tmp"
    mariadb-install-db --no-defaults --user="$(id -un)" --datadir="$dir/data" --tmpdir="$dir/tmp" \
      --auth-root-authentication-method=normal --skip-test-db >"$dir/install.log" 2>&1 ||
      { cat "$dir/install.log" >&2; exit 1; }
    : >"$dir/mariadbd.args"
    [ $# -eq 0 ] || printf '%s\n' "$@" >"$dir/mariadbd.args"
  else  # the same data and options again (after stop, or kill -9: crash recovery)
    [ -f "$dir/mariadbd.args" ] || { echo "mariadb_server.sh: no server was started in $dir" >&2; exit 2; }
    mapfile -t args <"$dir/mariadbd.args"
    set -- "${args[@]}"
    rm -f "$dir/mysqld.sock" "$dir/mysqld.pid"
  fi
  "$mariadbd" --no-defaults --user="$(id -un)" --datadir="$dir/data" --tmpdir="$dir/tmp" \
    --bind-address=127.0.0.1 --port="$port" --socket="$dir/mysqld.sock" \
    --pid-file="$dir/mysqld.pid" --log-error="$dir/error.log" \
    --server-id=1 --log-bin="$dir/binlog/mysql-bin" --binlog-format=ROW \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=48M --skip-name-resolve \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    --default-time-zone=+00:00 "$@" >/dev/null 2>&1 &
  for _ in $(seq 1 300); do
    if mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot -e 'select 1' >/dev/null 2>&1; then
      exit 0
    fi
    if ! kill -0 $! 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "mariadb_server.sh: server in $dir did not start; its error log:" >&2
  cat "$dir/error.log" >&2 || true
  exit 1
  ;;
stop)
  if [ -f "$dir/mysqld.pid" ]; then
    pid=$(cat "$dir/mysqld.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  ;;
*) echo "usage: mariadb_server.sh start|restart|stop DIR [PORT] [options]" >&2; exit 2 ;;
esac
