# shellcheck shell=bash
# Sourced by the throwaway servers' scripts (mariadb_server.sh, mysql_server.sh) for their start.

# port_free_or_exit PORT WHO DIR: returns once nothing takes connections on PORT (a server
# killed just before, whose port closes as it goes, is waited for: up to 10 s); else exits 1:
# a start there would answer with the other server, and a test would run against it.
port_free_or_exit() {
  for _ in $(seq 1 100); do
    { : <>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 0
    sleep 0.1
  done
  echo "$2: port $1 is in use (another server?): not starting one in $3" >&2
  exit 1
}

# answers_from DIR PORT: the server answering on PORT is the one whose data is DIR/data.
answers_from() {
  [ "$(mariadb --no-defaults -h127.0.0.1 -P"$2" -uroot -N -e 'SELECT @@datadir' 2>/dev/null)" = \
    "$(realpath -m "$1/data")/" ]
}
