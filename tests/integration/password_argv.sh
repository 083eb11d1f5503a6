#!/usr/bin/env bash
# Passwords never stay in argv (issue 12, item 4): a running `replay -pSECRET` and
# `--password=SECRET` show no password in /proc/PID/cmdline; -p alone never reads the password
# from standard input (where the binlog may be): without a terminal it is refused.
#   password_argv.sh PORT
source "$(dirname "$0")/lib.sh"
PORT=${1:-23631}
start_server src "$PORT"
sql "$PORT" -e "CREATE USER 'rp'@'127.0.0.1' IDENTIFIED BY 'S3cretPw'; GRANT ALL ON *.* TO 'rp'@'127.0.0.1'"
LOG=$ROOT/testdata/row/mysql-bin.000001

# replay_waits PID: binrecover is past its start: it has a session on the server, or a thread of
# it waits in read(2) on its standard input (/proc/PID/task/*/syscall: "0 0x0 ...")
replay_waits() {
  local t
  kill -0 "$1" 2> /dev/null || { cat "$WORK/replay.log" >&2; fail "the replay ended"; }
  [ "$(sql "$PORT" -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'rp'" \
    2> /dev/null)" -ge 1 ] 2> /dev/null && return 0
  for t in /proc/"$1"/task/*/syscall; do
    grep -q '^0 0x0 ' "$t" 2> /dev/null && return 0
  done
  return 1
}
for form in "-pS3cretPw" "--password=S3cretPw" "--pass=S3cretPw"; do
  rm -f "$WORK/fifo" "$WORK/state"
  for db in $(sql "$PORT" -N -e "SELECT schema_name FROM information_schema.schemata WHERE
      schema_name NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')"); do
    sql "$PORT" -e "DROP DATABASE \`$db\`"
  done
  mkfifo "$WORK/fifo"
  "$BINRECOVER" replay -h127.0.0.1 -P"$PORT" -urp "$form" --state-file="$WORK/state" - \
    <"$WORK/fifo" >"$WORK/replay.log" 2>&1 &
  pid=$!
  exec 7>"$WORK/fifo"  # the replay waits for its binlog: it is running now
  # (binrecover hides the password first thing in main(); read its command line once it is past
  # that for certain: connected to the server as rp, or reading its binlog from the FIFO)
  wait_for 120 "replay $form did not come to wait for its binlog" replay_waits "$pid"
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline")
  cat "$LOG" >&7
  exec 7>&-
  wait "$pid" || { cat "$WORK/replay.log" >&2; fail "replay $form failed"; }
  case "$cmdline" in
  *S3cretPw*) fail "replay $form: the password is in /proc/PID/cmdline: $cmdline" ;;
  *replay*) ;;
  *) fail "replay $form: no command line read ($cmdline)" ;;
  esac
  pass "replay $form: cmdline '$cmdline' hides the password, and the replay ran"
done

# -p alone with the binlog on standard input and no terminal: refused, nothing read.
set +e
setsid "$BINRECOVER" replay -h127.0.0.1 -P"$PORT" -urp -p --state-file="$WORK/state2" - \
  <"$LOG" >"$WORK/p.log" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || { cat "$WORK/p.log" >&2; fail "-p with the binlog on stdin and no terminal: exit $rc"; }
grep -q "terminal" "$WORK/p.log" || fail "-p refusal does not say why"
pass "-p with no terminal is refused, the binlog on stdin is not taken for a password"

# An empty password, --password= (as mysqlbinlog and mysql take it: no password, no prompt),
# for a user that has none; and a wrong empty one for a user that has a password. (The parser
# refused it: "the argument for option '--password' should follow immediately after the equal
# sign".)
sql "$PORT" -e "CREATE USER 'nopw'@'127.0.0.1'; GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'nopw'@'127.0.0.1'"
first=$(sql "$PORT" -N -e "SHOW BINARY LOGS" | head -1 | cut -f1)
for form in --password= --pass= --password=""; do
  setsid "$BINRECOVER" events -R -h127.0.0.1 -P"$PORT" -unopw "$form" "$first" </dev/null \
    >"$WORK/e.out" 2>"$WORK/e.err" || { cat "$WORK/e.err" >&2; fail "events -R $form: exit $?"; }
  grep -q "Format_desc" "$WORK/e.out" || fail "events -R $form: no events"
done
rc=0
setsid "$BINRECOVER" events -R -h127.0.0.1 -P"$PORT" -urp --password= "$first" </dev/null \
  >/dev/null 2>"$WORK/e.err" || rc=$?
[ "$rc" = 6 ] && grep -q "Access denied" "$WORK/e.err" ||
  fail "--password= for a user with a password: exit $rc, $(cat "$WORK/e.err")"
pass "--password= is an empty password (no prompt): taken for a user without one, refused for one with"

# -p and --password alone ask for the password: the argument after them is not taken for it (it
# was: `--password mysql-bin.000001` connected with the file's name as the password and read
# no file). Without a terminal that is refused, naming why.
for form in -p --password --pass; do
  rc=0
  setsid "$BINRECOVER" events -R -h127.0.0.1 -P"$PORT" -unopw "$form" "$first" </dev/null \
    >/dev/null 2>"$WORK/e.err" || rc=$?
  [ "$rc" = 2 ] && grep -q "asks for the password on a terminal" "$WORK/e.err" ||
    fail "events -R $form FILE: exit $rc, $(cat "$WORK/e.err")"
done
pass "-p / --password alone ask for the password (no terminal: refused); the next argument stays a file"
