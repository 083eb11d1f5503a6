#!/usr/bin/env bash
# Throwaway MySQL 9 server for tests, run from a cached Debian sid chroot (MySQL is not in
# Debian 12; sid's mysql-server-core, which also ships MySQL's own mysqlbinlog, is).
#   scripts/mysql_server.sh start DIR PORT [extra mysqld options...]
#   scripts/mysql_server.sh restart DIR PORT   # start again on the same data (crash recovery)
#   scripts/mysql_server.sh stop DIR
#   scripts/mysql_server.sh discard DIR  # SIGKILL: for a test's end, the data deleted next
#   scripts/mysql_server.sh chroot       # build the cached chroot if needed, print its path
#   scripts/mysql_server.sh exec CMD...  # run CMD inside the chroot (e.g. mysqlbinlog)
# Like scripts/mariadb_server.sh: fresh data dir, loopback TCP only, server-id 1, ROW format,
# binary log in DIR/binlog/mysql-bin.NNNNNN (index DIR/binlog/mysql-bin.index). On by default:
# GTIDs, binlog transaction compression, PARTIAL_JSON and FULL row metadata; options given
# after PORT come last and so override them.
# Runs as root (chroot, unshare --mount). The chroot is cached in
#   ${BINRECOVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/binrecover}/mysql-sid-chroot-KEY
# where KEY is a hash of build_recipe below: changing the recipe builds a new chroot.
# See docs/mysql-server.md.
set -euo pipefail

me=mysql_server.sh
source "$(dirname "$0")/server_port.sh"
usage() {
  echo "usage: $me start DIR PORT [mysqld options] | stop DIR | discard DIR | chroot | exec CMD..." >&2
  exit 2
}
cache=${BINRECOVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/binrecover}
chroot_path=
CHROOT_PATH_DEFAULT=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# The Debian mirror the host's apt uses (first "deb" source for the host's own suite), so the
# chroot is fetched from wherever this machine may fetch packages. BINRECOVER_DEBIAN_MIRROR
# overrides it.
debian_mirror() {
  if [ -n "${BINRECOVER_DEBIAN_MIRROR:-}" ]; then echo "$BINRECOVER_DEBIAN_MIRROR"; return; fi
  local codename m
  codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
  m=$(
    {
      # deb822 .sources: paragraphs with Types/URIs/Suites.
      for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk -v want="$codename" '
          function flush() {
            if (types ~ /(^| )deb( |$)/ && uris != "" && (want == "" || (" " suites " ") ~ (" " want " ")))
              { split(uris, u, " "); print u[1] }
            types = uris = suites = ""
          }
          /^[ \t]*$/ { flush(); next }
          /^[ \t]*#/ { next }
          tolower($1) == "types:"  { $1 = ""; types = $0 }
          tolower($1) == "uris:"   { $1 = ""; uris = $0; sub(/^ +/, "", uris) }
          tolower($1) == "suites:" { $1 = ""; suites = $0; sub(/^ +/, "", suites) }
          END { flush() }' "$f"
      done
      # One-line format: deb [options] URI SUITE COMPONENTS...
      for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
          awk -v want="$codename" '$1 == "deb" && (want == "" || $3 == want) { print $2 }'
      done
    } | grep -v -- '-security' | grep -E '/debian/?$' | head -n1 || true
  )
  echo "${m:-http://deb.debian.org/debian}"
}

# The chroot recipe. Its text (declare -f) is hashed into the cache key, so any edit here
# builds a fresh chroot next time. Runs with $1 = target dir, $2 = mirror, $3 = log file.
build_recipe() {
  local target=$1 mirror=$2 log=$3
  # The mount namespace keeps debootstrap's /proc and /sys mounts private: an interrupted build
  # leaves none behind on the host.
  step="debootstrap --variant=minbase sid from $mirror"
  unshare --mount debootstrap --variant=minbase sid "$target" "$mirror" >>"$log" 2>&1 || return 1
  # sid's Release file may be past its Valid-Until date on a mirror or snapshot.
  echo 'Acquire::Check-Valid-Until "false";' >"$target/etc/apt/apt.conf.d/99binrecover"
  printf '#!/bin/sh\nexit 101\n' >"$target/usr/sbin/policy-rc.d"
  chmod +x "$target/usr/sbin/policy-rc.d"
  step="apt-get update in the sid chroot"
  unshare --mount chroot "$target" /usr/bin/env -i PATH="$CHROOT_PATH_DEFAULT" \
    apt-get update >>"$log" 2>&1 || return 1
  step="apt-get install mysql-server-core in the sid chroot"
  unshare --mount chroot "$target" /usr/bin/env -i PATH="$CHROOT_PATH_DEFAULT" \
    DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends mysql-server-core mysql-client-core >>"$log" 2>&1 || return 1
  step="checking mysqld and mysqlbinlog in the sid chroot"
  chroot "$target" /usr/sbin/mysqld --version >>"$log" 2>&1 || return 1
  chroot "$target" /usr/bin/mysqlbinlog --version >>"$log" 2>&1 || return 1
  chroot "$target" /usr/bin/mysqldump --version >>"$log" 2>&1 || return 1
  chroot "$target" /usr/bin/mysql --version >>"$log" 2>&1 || return 1
  chroot "$target" /usr/bin/env -i PATH="$CHROOT_PATH_DEFAULT" apt-get clean >>"$log" 2>&1
  rm -rf "$target"/var/lib/apt/lists/*
}

# Remove a directory tree that may hold leftovers of an interrupted build: unmount anything
# still mounted below it first, and never cross into another file system.
remove_tree() {
  local d=$1 m
  [ -e "$d" ] || return 0
  while read -r m; do umount -l "$m" 2>/dev/null || true; done < <(
    awk -v p="$d/" 'index($2 "/", p) == 1 { print $2 }' /proc/mounts | sort -r)
  rm -rf --one-file-system "$d"
}

die_build() { echo "$me: cannot build the MySQL sid chroot: $*" >&2; exit 1; }

# Sets chroot_path, building the chroot if it is not cached yet.
ensure_chroot() {
  local key final tmp log mirror start
  key=$(declare -f build_recipe | sha256sum | cut -c1-12)
  final="$cache/mysql-sid-chroot-$key"
  if [ -x "$final/usr/sbin/mysqld" ]; then chroot_path=$final; return; fi
  [ "$(id -u)" -eq 0 ] || die_build "needs root (debootstrap, chroot, unshare --mount)"
  mkdir -p "$cache" || die_build "cannot create the cache directory $cache"
  # One build at a time; a second caller waits, then finds the finished chroot.
  exec 9>"$cache/.mysql-sid-chroot.lock"
  flock 9 || die_build "cannot lock $cache/.mysql-sid-chroot.lock"
  if [ -x "$final/usr/sbin/mysqld" ]; then chroot_path=$final; exec 9>&-; return; fi
  # Holding the lock, any temporary build dir is left over from an interrupted build.
  for tmp in "$cache"/.mysql-sid-chroot-*.tmp.*; do remove_tree "$tmp"; done
  if ! command -v debootstrap >/dev/null 2>&1; then
    echo "$me: installing debootstrap" >&2
    { apt-get install -y -qq debootstrap >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq debootstrap >/dev/null 2>&1; }; } ||
      die_build "debootstrap is not installed and apt-get install debootstrap failed"
  fi
  mirror=$(debian_mirror)
  tmp="$cache/.mysql-sid-chroot-$key.tmp.$$"
  log="$cache/mysql-sid-chroot-$key.build.log"
  : >"$log"
  start=$(date +%s)
  echo "$me: building the MySQL sid chroot in $final (once; about a minute; log $log)" >&2
  step="preparing"
  if ! build_recipe "$tmp" "$mirror" "$log"; then
    remove_tree "$tmp"
    die_build "$step failed: $(grep -v '^[[:space:]]*$' "$log" | tail -n1) (full log: $log)"
  fi
  mv -T "$tmp" "$final" || { remove_tree "$tmp"; die_build "cannot rename $tmp to $final"; }
  echo "$me: chroot built in $(($(date +%s) - start)) s" >&2
  exec 9>&-
  chroot_path=$final
}

# in_chroot WORKDIR BIND... -- CMD...: run CMD in the chroot, inside a private mount namespace
# where each host directory BIND is bind-mounted at the same path, with /proc mounted. The
# The calling (sub)shell is replaced (exec): run it in the background or in ( ) unless it is the
# last command. The process keeps its pid across unshare, bash and chroot (each execs the next),
# so $! of `in_chroot ... &` is the pid of CMD itself.
in_chroot() {
  exec unshare --mount --propagation private bash -euc '
    root=$1 wd=$2 path=$3; shift 3
    while [ "$1" != -- ]; do mkdir -p "$root$1"; mount --bind "$1" "$root$1"; shift; done
    shift
    mount -t proc proc "$root/proc" 2>/dev/null || mount --rbind /proc "$root/proc"
    exec chroot "$root" /usr/bin/env -C "$wd" PATH="$path" "$@"
  ' in_chroot "$chroot_path" "$1" "$CHROOT_PATH_DEFAULT" "${@:2}"
}

# Paths that must not be bound over the chroot's own: / and its system dirs.
system_path() {
  case "$1" in
  / | /usr | /usr/* | /etc | /etc/* | /bin | /bin/* | /sbin | /sbin/* | /lib | /lib/* | /lib32 | /lib32/* | \
    /lib64 | /lib64/* | /libx32 | /libx32/* | /proc | /proc/* | /sys | /sys/* | /dev | /dev/* | \
    /run | /run/* | /boot | /boot/* | /var | /var/lib | /var/lib/* | /var/cache | /var/cache/*) return 0 ;;
  esac
  return 1
}
# Host directories that may be bound into the chroot at the same path.
bindable() { ! system_path "$1" && [ -d "$1" ]; }

# launch DIR PORT [mysqld options]: runs mysqld on the data directory DIR/data (made by start)
# and waits until it answers; exits 0 when it does, 1 when it does not start (or the port is
# another server's).
launch() {
  local dir=$1 port=$2 relaxed=()
  shift 2
  port_free_or_exit "$port" "$me" "$dir"
  # (The Performance Schema off: a start costs 1.3 CPU seconds instead of 2.1; its global_status
  # table, which replay reads, is there without it. A test that reads sys.innodb_lock_waits
  # starts its server with --performance-schema=ON.)
  # (BINRECOVER_SERVER_DURABILITY=relaxed, the tests': commits written to the OS, not flushed
  # to disk each time; a SIGKILLed server loses nothing so, only a machine's crash would. Not
  # for MariaDB's servers: there the binlog's checkpoint event waits for InnoDB's flush, which
  # then comes up to a second later, and tests that copy a finished file raced it.)
  [ "${BINRECOVER_SERVER_DURABILITY:-}" != relaxed ] ||
    relaxed=(--innodb-flush-log-at-trx-commit=2 --sync-binlog=0)
  in_chroot / "$dir" -- mysqld --no-defaults --user=root --datadir="$dir/data" --tmpdir="$dir/tmp" \
    --bind-address=127.0.0.1 --port="$port" --socket="$dir/mysqld.sock" --mysqlx=OFF \
    --pid-file="$dir/mysqld.pid" --log-error="$dir/error.log" --secure-file-priv= \
    --server-id=1 --log-bin="$dir/binlog/mysql-bin" --binlog-format=ROW \
    --gtid-mode=ON --enforce-gtid-consistency=ON --binlog-transaction-compression=ON \
    --binlog-row-value-options=PARTIAL_JSON --binlog-row-metadata=FULL \
    --innodb-buffer-pool-size=64M --character-set-server=utf8mb4 --performance-schema=OFF \
    --default-time-zone=+00:00 "${relaxed[@]}" "$@" </dev/null >"$dir/mysqld.out" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/mysqld.launch.pid"
  # (a client is run only once the port takes a connection: bash opens it, no process)
  for _ in $(seq 1 600); do
    if { : <>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null && answers_from "$dir" "$port"; then
      exit 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  echo "$me: server in $dir did not start; its error log:" >&2
  cat "$dir/error.log" "$dir/mysqld.out" >&2 || true
  exit 1
}

# initialize_datadir DIR: a new server's data directory in DIR/data (mysqld --initialize
# creates it), its log DIR/install.log.
initialize_datadir() {
  mkdir -p "$1/tmp"
  (in_chroot / "$1" -- mysqld --no-defaults --initialize-insecure --user=root \
    --datadir="$1/data" --tmpdir="$1/tmp" --secure-file-priv= \
    --log-error="$1/install.log" >/dev/null 2>&1)
}
# fresh_datadir DEST: a copy of initialize_datadir's result, made once per chroot and recipe
# (the text of initialize_datadir) under a lock, in the cache next to the chroot: a copy takes
# a fraction of a second, mysqld --initialize several. The copy's auto.cnf (the server UUID) is
# left out: each server makes its own at its first start, as replication needs.
fresh_datadir() {
  local key t tmp
  key=$({ echo "$chroot_path"; declare -f initialize_datadir; } | sha256sum | cut -c1-12)
  t=$cache/mysql-datadir-$key
  if [ ! -f "$t/complete" ]; then
    exec 8>"$cache/.mysql-datadir.lock"
    flock 8
    if [ ! -f "$t/complete" ]; then
      # (holding the lock, a temporary folder is a leftover of an interrupted run)
      rm -rf "$cache"/.mysql-datadir-*.tmp.*
      tmp=$cache/.mysql-datadir-$key.tmp.$$
      initialize_datadir "$tmp" || {
        echo "$me: mysqld --initialize-insecure failed; its log:" >&2
        cat "$tmp/install.log" >&2 || true
        rm -rf "$tmp"
        exit 1
      }
      rm -rf "$tmp/tmp"
      : >"$tmp/complete"
      mv -T "$tmp" "$t"
    fi
    exec 8>&-
  fi
  cp -a --sparse=always "$t/data" "$1"
  rm -f "$1/auto.cnf"
}

case "${1:-}" in
start)
  dir=${2:?data directory}
  port=${3:?port}
  shift 3
  ensure_chroot
  dir=$(realpath -m "$dir")
  ! system_path "$dir" || { echo "$me: unsuitable data directory $dir" >&2; exit 2; }
  rm -rf "$dir"
  mkdir -p "$dir/binlog" "$dir/tmp"
  fresh_datadir "$dir/data"
  : >"$dir/mysqld.args"
  [ $# -eq 0 ] || printf '%s\n' "$@" >"$dir/mysqld.args"
  launch "$dir" "$port" "$@"
  ;;
restart)
  dir=$(realpath -m "${2:?data directory}")
  port=${3:?port}
  ensure_chroot
  [ -d "$dir/data" ] && [ -f "$dir/mysqld.args" ] || { echo "$me: no server was started in $dir" >&2; exit 2; }
  mapfile -t args <"$dir/mysqld.args"
  # A server killed with -9 leaves its socket and the socket's lock file (holding its pid,
  # which another process may have by now) behind.
  rm -f "$dir/mysqld.sock" "$dir/mysqld.sock.lock" "$dir/mysqld.pid"
  launch "$dir" "$port" "${args[@]}"
  ;;
discard)  # a throwaway server at a test's end: killed at once (its data is deleted next)
  dir=$(realpath -m "${2:?data directory}")
  source "$(dirname "$0")/kill_now.sh"
  for f in "$dir/mysqld.pid" "$dir/mysqld.launch.pid"; do
    pid=$(cat "$f" 2>/dev/null || true)
    case "$pid" in '' | *[!0-9]*) continue ;; esac
    { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -q -- "--datadir=$dir/data" || continue
    kill_now "$pid"
  done
  ;;
stop)
  dir=$(realpath -m "${2:?data directory}")
  for f in "$dir/mysqld.pid" "$dir/mysqld.launch.pid"; do
    [ -f "$f" ] || continue
    pid=$(cat "$f" 2>/dev/null || true)
    rm -f "$f"
    # A stale pid file (server already gone, pid maybe reused): only kill our own mysqld.
    case "$pid" in '' | *[!0-9]*) continue ;; esac
    { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -q -- "--datadir=$dir/data" || continue
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
  ;;
chroot)
  ensure_chroot
  echo "$chroot_path"
  ;;
exec)
  shift
  [ $# -gt 0 ] || usage
  ensure_chroot
  # Bind the working directory, $TMPDIR or /tmp, and the directory of every absolute path in the
  # arguments (PATH or --option=PATH), each at its own path, so host paths work unchanged.
  binds=()
  wd=/
  if bindable "$PWD"; then binds+=("$PWD"); wd=$PWD; fi
  t=$(realpath -m "${TMPDIR:-/tmp}")
  bindable "$t" && binds+=("$t")
  for a in "$@"; do
    p=$a
    case "$p" in /*) ;; -*=/*) p=${p#*=} ;; *) continue ;; esac
    p=$(realpath -m "$p")
    [ -d "$p" ] || p=$(dirname "$p")
    bindable "$p" && binds+=("$p")
  done
  # Parents before children; duplicates dropped.
  mapfile -t binds < <(printf '%s\n' "${binds[@]}" | sort -u | awk 'length($0) { print length($0) "\t" $0 }' |
    sort -n | cut -f2-)
  in_chroot "$wd" "${binds[@]}" -- "$@"
  ;;
*) usage ;;
esac
