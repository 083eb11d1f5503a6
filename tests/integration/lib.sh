# Shared helpers for the integration tests (sourced). Each test gets its own temp folder and
# ports, and stops its servers on exit.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BINRECOVER=${BINRECOVER:-$ROOT/build/binrecover}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/binrecover-test.XXXXXX")
# The MySQL servers the tests start write commits to the OS without a flush to disk each time
# (scripts/mysql_server.sh): a server killed with SIGKILL loses nothing so, as with a flush.
export BINRECOVER_SERVER_DURABILITY=${BINRECOVER_SERVER_DURABILITY:-relaxed}
SERVERS=()
SERVERS_MYSQL=()

# (the servers killed, not shut down: their data is deleted with the work folder)
cleanup() {
  for s in "${SERVERS[@]}"; do "$ROOT/scripts/mariadb_server.sh" discard "$s" || true; done
  for s in "${SERVERS_MYSQL[@]}"; do "$ROOT/scripts/mysql_server.sh" discard "$s" || true; done
  if [ "${KEEP_WORK:-0}" = 1 ]; then echo "work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# start_server NAME PORT [mariadbd options...]
start_server() {
  local name=$1 port=$2
  shift 2
  SERVERS+=("$WORK/$name")
  "$ROOT/scripts/mariadb_server.sh" start "$WORK/$name" "$port" "$@"
}

# sql PORT [mariadb client args...] : runs the client against the server on PORT
sql() {
  local port=$1
  shift
  mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot --default-character-set=utf8mb4 "$@"
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# (with the seconds since the test began: where a test's time goes, in ctest's LastTest.log)
pass() { echo "PASS [${SECONDS}s]: $*"; }

# wait_for SECONDS WHAT COMMAND...: runs COMMAND every 0.1 s until it succeeds, and fails
# naming WHAT if it has not after SECONDS. For a moment a test must reach, a condition it can
# see (a line in a log, a file, a row count, a session's state), never a fixed sleep; the
# deadline generous (a loaded machine), only there to end a test that went wrong. (With
# WAIT_FOR_SHOW=FILE, FILE is shown when the deadline passes.)
wait_for() {
  local secs=$1 what=$2 deadline
  shift 2
  deadline=$((SECONDS + secs))
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      [ -z "${WAIT_FOR_SHOW:-}" ] || cat "$WAIT_FOR_SHOW" >&2 || true
      fail "$what (not after $secs s)"
    fi
    sleep 0.1
  done
}

# hold NAME PORT SQL: a session of the test's own on the server on PORT that runs SQL (takes a
# lock, say) and then stays, what it took held, until `release NAME`. Its statements come from
# a FIFO that a keeper process holds open (not this shell: a process started later would
# inherit the writing end, and the session would outlive the release); the keeper ends with
# this shell at the latest. Returns once SQL has run (the session prints "held" after it).
hold() {
  local name=$1 port=$2 stmt=$3 keeper
  rm -f "$WORK/$name.fifo"
  mkfifo "$WORK/$name.fifo"
  sql "$port" -N --unbuffered < "$WORK/$name.fifo" > "$WORK/$name.out" 2>&1 &
  printf -v "HOLD_SESSION_$name" %s $!
  tail -f /dev/null --pid=$$ > "$WORK/$name.fifo" &
  keeper=$!
  printf -v "HOLD_KEEPER_$name" %s "$keeper"
  # (the keeper holds the FIFO before the statements go in: else the session could read them
  # and then the end of its input)
  wait_for 120 "the keeper of the session $name did not open its FIFO" \
    fd_is "$keeper" 1 "$WORK/$name.fifo"
  printf '%s;\nSELECT %s;\n' "$stmt" "'held'" > "$WORK/$name.fifo"
  wait_for 120 "the session $name did not run: $stmt" held_now "$name"
}
# ended PID: the process is gone (or a zombie, its parent not yet told)
ended() {
  [ ! -e "/proc/$1" ] || [ "$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1)" = Z ]
}
fd_is() {  # PID FD PATH: the process has PATH open as FD
  [ "$(readlink "/proc/$1/fd/$2" 2> /dev/null)" = "$3" ]
}
held_now() {  # NAME: the session has run its SQL (fails the test if it ended instead)
  local pid_var="HOLD_SESSION_$1"
  grep -qx held "$WORK/$1.out" && return 0
  kill -0 "${!pid_var}" 2> /dev/null || { cat "$WORK/$1.out" >&2; fail "the session $1 ended"; }
  return 1
}
# release NAME: the FIFO closed, the session ends and what it held is let go.
release() {
  local keeper_var="HOLD_KEEPER_$1" pid_var="HOLD_SESSION_$1"
  kill "${!keeper_var}" 2> /dev/null || true
  wait "${!keeper_var}" 2> /dev/null || true
  wait "${!pid_var}" 2> /dev/null || true
}

# binlogs_between DIR FIRST [LAST]: the paths of DIR's binlogs from FIRST to LAST (or to the
# end), in the order of DIR/mysql-bin.index.
binlogs_between() {
  local dir=$1 first=$2 last=${3:-} on=0 b
  while read -r b; do
    b=$(basename "$b")
    [ "$b" = "$first" ] && on=1
    [ $on = 1 ] && echo "$dir/$b"
    [ -n "$last" ] && [ "$b" = "$last" ] && break
  done < "$dir/mysql-bin.index"
}

# find_drop LISTING.tsv: "FILE POS" of the first DROP DATABASE zyyshop in a
# `binrecover events --format=tsv` listing.
find_drop() {
  awk -F'\t' '$3 == "Query" && $6 ~ /DROP DATABASE zyyshop/ { print $1, $2; exit }' "$1"
}

# wait_checkpoint BINLOG_DIR: MariaDB opens a new binlog with a Binlog_checkpoint naming the
# previous file, and writes a second one naming the new file itself a moment later (once the
# previous file's transactions are durable in the engine; seconds on a loaded machine): waits
# until the newest file has that second one, after which a quiet server appends nothing to it,
# so a copy taken then is of the whole file.
wait_checkpoint() {
  local last name deadline=$((SECONDS + 120))
  while :; do
    last=$(ls "$1"/mysql-bin.[0-9]* | tail -1)
    name=$(basename "$last")
    "$BINRECOVER" events --format=tsv "$last" 2> /dev/null |
      awk -F'\t' -v n="$name" '$3 == "Binlog_checkpoint" && $6 == n { found = 1 } END { exit !found }' &&
      return 0
    [ "$SECONDS" -lt "$deadline" ] || fail "no Binlog_checkpoint naming $name in it after 120 s"
    sleep 0.1
  done
}

# shop_scenario PORT: on a server with an empty database shop, the dump (WORK/dump.sql, with its
# binlog coordinates), then the day's changes (a FLUSH BINARY LOGS among them), and what the
# tables hold before the damage (WORK/expected.tsv: table, rows, CHECKSUM TABLE) for a drill.
shop_scenario() {
  local port=$1
  mariadb-dump --no-defaults -h127.0.0.1 -P"$port" -uroot --master-data=2 --flush-logs \
    --single-transaction -B shop > "$WORK/dump.sql"
  sql "$port" shop <<'SQL'
CREATE TABLE orders (id INT PRIMARY KEY, note VARCHAR(20), amount DECIMAL(10,2));
INSERT INTO orders VALUES (1, 'one', 10.50), (2, 'two', 20.00), (3, '三', 30.25);
FLUSH BINARY LOGS;
UPDATE orders SET amount = amount * 2 WHERE id = 2;
CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, what TEXT);
INSERT INTO audit (what) VALUES ('opened'), ('closed');
SQL
  shop_expected "$port"
}
# shop_expected PORT: $WORK/expected.tsv, each table of shop with its rows and CHECKSUM TABLE.
shop_expected() {
  local port=$1
  sql "$port" -N -e "SELECT CONCAT('shop.', table_name) FROM information_schema.tables
    WHERE table_schema = 'shop' ORDER BY table_name" | while read -r t; do
    printf '%s\t%s\t%s\n' "$t" "$(sql "$port" -N -e "SELECT COUNT(*) FROM $t")" \
      "$(sql "$port" -N -e "CHECKSUM TABLE $t" | cut -f2)"
  done > "$WORK/expected.tsv"
}

# use_mysql: MySQL 9.7 servers for this test (scripts/mysql_server.sh, its chroot built on first
# use), stopped on exit with the MariaDB ones. Then start_mysql NAME PORT [mysqld options...].
use_mysql() {
  MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
  "$MYSQL_SERVER" chroot > /dev/null || fail "cannot build the MySQL chroot (see above)"
}
start_mysql() {
  SERVERS_MYSQL+=("$WORK/$1")
  "$MYSQL_SERVER" start "$WORK/$1" "${@:2}"
}

# start_pair PORT FLAVOR: a source on PORT and a target on PORT+1 (server id 2), MariaDB or
# (FLAVOR mysql) MySQL 9.7; sets PT, binlog_status (the statement naming the binlog written
# now), reset_logs (the one that empties the binary log) and server_script.
start_pair() {
  PT=$(($1 + 1))
  if [ "$2" = mysql ]; then
    use_mysql
    start_mysql a "$1"
    start_mysql t "$PT" --server-id=2
    binlog_status="SHOW BINARY LOG STATUS"
    reset_logs="RESET BINARY LOGS AND GTIDS"
    server_script=$MYSQL_SERVER
  else
    start_server a "$1"
    start_server t "$PT" --server-id=2
    binlog_status="SHOW MASTER STATUS"
    reset_logs="RESET MASTER"
    server_script=$ROOT/scripts/mariadb_server.sh
  fi
}

# A hostile server of the tests' own (hostile_server.py): start_hostile ARGS... listens on a free
# port (HPORT), ready when it says so; stop_hostile stops every one started. A test using it
# traps EXIT with stop_hostile as well as its own cleanup.
HPIDS=()
start_hostile() {
  local out=$WORK/hs.$RANDOM
  python3 "$ROOT/tests/integration/hostile_server.py" --quiet --port 0 "$@" >"$out" &
  HPIDS+=($!)
  for _ in $(seq 1 300); do
    grep -q '^ready ' "$out" 2>/dev/null && break
    kill -0 "${HPIDS[-1]}" || fail "the hostile server did not start"
    sleep 0.1
  done
  HPORT=$(awk '/^ready /{print $2}' "$out")
  [ -n "$HPORT" ] || fail "no port from the hostile server"
}
stop_hostile() {
  for p in "${HPIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  HPIDS=()
}
