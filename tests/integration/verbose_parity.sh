#!/usr/bin/env bash
# -v / -vv row values and type comments equal the server's own tool, line for line: every ###
# line of binrecover against mariadb-binlog 10.11 for MariaDB logs and mysqlbinlog 9.7 (the
# chroot of scripts/mysql_server.sh) for MySQL logs, over testdata/ and every binlog of
# ../shared/corpus (read in place). The one difference allowed is documented
# (docs/mysqlbinlog-options.md): mysqlbinlog's text of a partial JSON update (JSON_REPLACE(...)
# with its values unquoted) is written as SQL by binrecover; such lines are counted, not
# compared. Skips the corpus part (exit 77 when nothing else ran) without ../shared/corpus.
source "$(dirname "$0")/lib.sh"
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
use_mysql
files=("$ROOT"/testdata/row/mysql-bin.000001)
if [ -d "$CORPUS" ]; then
  mapfile -t -O 1 files < <(find "$CORPUS" -type f \( -name '*bin*.0*' -o -name '*.binlog' \) | sort)
  files=("$ROOT"/testdata/row/mysql-bin.000001 "${files[@]:1}")
fi
compared=0 json=0 logs=0
for f in "${files[@]}"; do
  ver=$("$BINRECOVER" events --limit=1 "$f" 2> /dev/null | sed -n 's/.*Server ver: \([^,]*\),.*/\1/p') || true
  [ -n "$ver" ] || continue
  for v in -v -vv; do
    # (a file the tool cannot read whole is compared as far as both read it)
    "$BINRECOVER" --base64-output=decode-rows $v "$f" 2> /dev/null | grep -a '^###\|^# Number of rows: ' > "$WORK/ours" || true
    if [[ $ver == *MariaDB* ]]; then
      mariadb-binlog --base64-output=decode-rows $v "$f" 2> /dev/null | grep -a '^###\|^# Number of rows: ' > "$WORK/theirs" || true
    else
      cp "$f" "$WORK/in.bin"
      "$MYSQL_SERVER" exec mysqlbinlog --base64-output=decode-rows $v "$WORK/in.bin" 2> /dev/null |
        grep -a '^###' > "$WORK/theirs" || true
    fi
    [ -s "$WORK/theirs" ] || continue
    logs=$((logs + 1))
    n=$(wc -l < "$WORK/theirs")
    compared=$((compared + n))
    json=$((json + $(grep -ac 'JSON_\(REPLACE\|INSERT\|ARRAY_INSERT\|REMOVE\)(' "$WORK/theirs" || true)))
    # (mysqlbinlog's "### Extra row info for partitioning" line is not written: documented)
    diff <(grep -av 'JSON_\(REPLACE\|INSERT\|ARRAY_INSERT\|REMOVE\)(\|^### Extra row info' "$WORK/theirs") \
      <(grep -av 'JSON_\(REPLACE\|INSERT\|ARRAY_INSERT\|REMOVE\)(' "$WORK/ours") > "$WORK/diff" ||
      { head -20 "$WORK/diff"; fail "$v of $f ($ver) differs from the tool's"; }
  done
done
[ "$logs" -gt 0 ] || fail "no log compared"

# MySQL logs: each GTID event's lines (its header with the commit timestamps and transaction
# length, the session settings of a replica, GTID_NEXT) as mysqlbinlog 9.7 writes them.
gtid_lines() { grep -aE $'\t(Anonymous_)?GTID\tlast_committed=|^/\*!(50718|80001|80014) SET |^# (original|immediate)_commit_timestamp=|^SET @@SESSION.GTID_NEXT= ' | grep -av ' added by ' || true; }
glogs=0 glines=0
for f in "${files[@]}"; do
  ver=$("$BINRECOVER" events --limit=1 "$f" 2> /dev/null | sed -n 's/.*Server ver: \([^,]*\),.*/\1/p') || true
  [ -n "$ver" ] && [[ $ver != *MariaDB* ]] || continue
  cp "$f" "$WORK/in.bin"
  { "$MYSQL_SERVER" exec mysqlbinlog "$WORK/in.bin" 2> /dev/null || true; } | gtid_lines > "$WORK/theirs"
  [ -s "$WORK/theirs" ] || continue
  { TZ=UTC "$BINRECOVER" --no-defaults "$f" 2> /dev/null || true; } | gtid_lines > "$WORK/ours"
  diff "$WORK/theirs" "$WORK/ours" > "$WORK/diff" ||
    { head -20 "$WORK/diff"; fail "the GTID lines of $f ($ver) differ from mysqlbinlog's"; }
  glogs=$((glogs + 1))
  glines=$((glines + $(wc -l < "$WORK/theirs")))
done
[ "$glogs" -gt 0 ] || [ ! -d "$CORPUS" ] || fail "no MySQL log with GTID events compared"
pass "MySQL GTID events as mysqlbinlog 9.7 writes them: $glogs logs, $glines lines equal"
pass "-v and -vv equal the server's own tool line for line: $logs outputs, $compared ### and row count lines ($json lines of partial JSON updates not compared)"
