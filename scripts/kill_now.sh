# Sourced by the throwaway servers' scripts (mariadb_server.sh, mysql_server.sh,
# rgw_server.sh) for their `discard`.
# kill_now PID: SIGKILL, then wait (up to 5 s) until the process is gone, or a zombie its new
# parent has not reaped yet.
kill_now() {
  local pid=$1 state
  kill -9 "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1) || true
    [ -n "$state" ] && [ "$state" != Z ] || return 0
    sleep 0.05
  done
}
