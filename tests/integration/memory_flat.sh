#!/usr/bin/env bash
# Memory stays flat in the number of transactions (issue 35): a log of bulk transactions (2,000
# wide rows, ~3 MB each, as an INSERT ... SELECT writes them) and the same log with twice as
# many: SQL output and -v must not take twice the minor page faults (the buffers of one
# transaction are reused by the next, not given back and faulted in again) nor more memory.
#   memory_flat.sh PORT
source "$(dirname "$0")/lib.sh"
PORT=${1:?port}
[ -x /usr/bin/time ] || fail "/usr/bin/time is missing (scripts/setup.sh installs the time package)"
start_server m "$PORT" --max-binlog-size=1G
sql "$PORT" <<'SQL'
CREATE DATABASE w;
USE w;
CREATE TABLE src (id BIGINT UNSIGNED PRIMARY KEY, a INT UNSIGNED, d DECIMAL(14,4), t DATETIME(6),
  e ENUM('x','y','z'), v VARCHAR(200), txt TEXT NULL, v2 VARCHAR(1300));
INSERT INTO src SELECT seq, seq * 7, seq / 3, '2026-01-01' + INTERVAL seq SECOND,
  ELT(1 + seq % 3, 'x', 'y', 'z'), CONCAT(REPEAT('张三李四', 8), seq, '😀'),
  IF(seq % 5 = 0, NULL, REPEAT('text', 30)), REPEAT('abcdefghij', 120) FROM seq_1_to_2000;
CREATE TABLE wide LIKE src;
SQL
log_of() {  # log_of N: a binlog of N bulk transactions
  local f i
  f=$(sql "$PORT" -N -e "FLUSH BINARY LOGS; SHOW MASTER STATUS" | cut -f1)
  for ((i = 1; i <= $1; i++)); do
    sql "$PORT" -e "INSERT INTO w.wide SELECT id + $RANDOM$i * 10000, a, d, t, e, v, txt, v2 FROM w.src"
  done
  sql "$PORT" -e "FLUSH BINARY LOGS"
  echo "$WORK/m/binlog/$f"
}
one=$(log_of 12)
two=$(log_of 24)
faults() {  # faults FILE OPTIONS...: "minor-faults peak-KiB"
  local f=$1
  shift
  /usr/bin/time -f "%R %M" -o "$WORK/t" "$BINRECOVER" --no-defaults "$@" "$f" > /dev/null ||
    fail "binrecover $* $f failed"
  cat "$WORK/t"
}
for mode in "" "-v"; do
  # shellcheck disable=SC2086
  read -r f1 m1 < <(faults "$one" $mode)
  # shellcheck disable=SC2086
  read -r f2 m2 < <(faults "$two" $mode)
  [ $((f2 * 10)) -lt $((f1 * 14)) ] ||
    fail "${mode:-SQL}: $f1 page faults for 12 transactions, $f2 for 24 (memory faulted in again per transaction)"
  [ $((m2 * 10)) -lt $((m1 * 12)) ] || fail "${mode:-SQL}: peak $m1 KiB for 12 transactions, $m2 KiB for 24"
  echo "${mode:-SQL}: $f1 / $f2 minor faults, $m1 / $m2 KiB peak for 12 / 24 transactions of ~3 MB"
done
pass "SQL and -v over bulk transactions: page faults and peak memory flat when the log doubles"
