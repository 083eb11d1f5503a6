#!/usr/bin/env bash
# Throwaway MariaDB server for tests: a fresh data dir, loopback TCP only.
#   scripts/mariadb_server.sh start DIR PORT [extra mariadbd options...]
#   scripts/mariadb_server.sh restart DIR PORT   # the same data and options again
#   scripts/mariadb_server.sh stop DIR
#   scripts/mariadb_server.sh discard DIR  # SIGKILL: for a test's end, the data deleted next
# The binary log is written to DIR/binlog/mysql-bin.NNNNNN (index DIR/binlog/mysql-bin.index).
set -euo pipefail
cmd=${1:?usage: mariadb_server.sh start|stop DIR [PORT] [options]}
dir=${2:?data directory}
mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)
source "$(dirname "$0")/server_port.sh"

# install_datadir DIR: a new server's data directory in DIR/data, as mariadb-install-db makes it
# (with the redo log size every start below uses, so that no start resizes it).
install_datadir() {
  mkdir -p "$1/tmp"
  mariadb-install-db --no-defaults --user="$(id -un)" --datadir="$1/data" --tmpdir="$1/tmp" \
    --auth-root-authentication-method=normal --skip-test-db --innodb-log-file-size=48M \
    >"$1/install.log" 2>&1
}
# fresh_datadir DEST: a copy of install_datadir's result, which is the same for every server of
# one mariadbd: made once per mariadbd version and recipe (the text of install_datadir), under a
# lock, in the cache (${BINRECOVER_CACHE:-~/.cache/binrecover}/mariadb-datadir-KEY). A copy
# takes a tenth of mariadb-install-db's time, and the tests start servers by the dozen.
fresh_datadir() {
  local cache key t tmp
  cache=${BINRECOVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/binrecover}
  key=$({ "$mariadbd" --version; declare -f install_datadir; } | sha256sum | cut -c1-12)
  t=$cache/mariadb-datadir-$key
  if [ ! -f "$t/complete" ]; then
    mkdir -p "$cache"
    exec 8>"$cache/.mariadb-datadir.lock"
    flock 8
    if [ ! -f "$t/complete" ]; then
      # (holding the lock, a temporary folder is a leftover of an interrupted run)
      rm -rf "$cache"/.mariadb-datadir-*.tmp.*
      tmp=$cache/.mariadb-datadir-$key.tmp.$$
      install_datadir "$tmp" || { cat "$tmp/install.log" >&2; rm -rf "$tmp"; exit 1; }
      rm -rf "$tmp/tmp"
      : >"$tmp/complete"
      mv -T "$tmp" "$t"
    fi
    exec 8>&-
  fi
  cp -a --sparse=always "$t/data" "$1"
}

case "$cmd" in
start | restart)
  port=${3:?port}
  shift 3
  port_free_or_exit "$port" mariadb_server.sh "$dir"
  if [ "$cmd" = start ]; then
    rm -rf "$dir"
    mkdir -p "$dir/binlog" "$dir/tmp"
    fresh_datadir "$dir/data"
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
  # (a client is run only once the port takes a connection: bash opens it, no process)
  for _ in $(seq 1 300); do
    if { : <>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null && answers_from "$dir" "$port"; then
      exit 0
    fi
    if ! kill -0 $! 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "mariadb_server.sh: server in $dir did not start; its error log:" >&2
  cat "$dir/error.log" >&2 || true
  exit 1
  ;;
discard)  # a throwaway server at a test's end: killed at once (its data is deleted next)
  pid=$(cat "$dir/mysqld.pid" 2>/dev/null || true)
  case "$pid" in '' | *[!0-9]*) exit 0 ;; esac
  { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -q -- "--datadir=$dir/data" || exit 0
  source "$(dirname "$0")/kill_now.sh"
  kill_now "$pid"
  ;;
stop)
  if [ -f "$dir/mysqld.pid" ]; then
    pid=$(cat "$dir/mysqld.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  ;;
*) echo "usage: mariadb_server.sh start|restart|stop|discard DIR [PORT] [options]" >&2; exit 2 ;;
esac
