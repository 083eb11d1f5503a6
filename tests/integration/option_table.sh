#!/usr/bin/env bash
# The option matrix of issue 33: every option mariadb-binlog 10.11 and mysqlbinlog 9.7 list in
# their --help has its row in docs/mysqlbinlog-options.md, and binrecover does what the row
# says: an option "not taken" is refused (exit 2, naming it), an option taken by a command is
# in that command's --help (whose text is made from the parser's own option table), and one
# taken by no other command is refused there with where it belongs.
source "$(dirname "$0")/lib.sh"
DOC=$ROOT/docs/mysqlbinlog-options.md
ROW=$ROOT/testdata/row/mysql-bin.000001
opts() { grep -oE "^  (-[a-zA-Z?#], )?--[a-z0-9-]+" | sed 's/.*--/--/'; }
mariadb-binlog --help | opts > "$WORK/opts"
MYSQL_SERVER=$ROOT/scripts/mysql_server.sh
if "$MYSQL_SERVER" chroot > /dev/null 2>&1; then
  "$MYSQL_SERVER" exec mysqlbinlog --help 2> /dev/null | opts >> "$WORK/opts"
else
  echo "option_table: no MySQL chroot; mariadb-binlog's options only" >&2
fi
sort -u "$WORK/opts" -o "$WORK/opts"
[ "$(wc -l < "$WORK/opts")" -gt 60 ] || fail "too few options read from the tools' --help"
for c in "" events stats plan drill replay archive; do
  # shellcheck disable=SC2086
  "$BINRECOVER" $c --help > "$WORK/help.${c:-sql}"
done
n=0 refused=0 taken=0
while read -r opt; do
  row=$(awk -F'|' -v o="\`$opt\`" 'index($2, o) { print; exit }' "$DOC")
  [ -n "$row" ] || fail "$opt (in the tools' --help) has no row in docs/mysqlbinlog-options.md"
  n=$((n + 1))
  what=$(echo "$row" | awk -F'|' '{print $5}')
  case $what in
    *"not taken"*)
      rc=0
      "$BINRECOVER" --no-defaults "$opt" "$ROW" > /dev/null 2> "$WORK/err" || rc=$?
      # (an option file option must come first: it is refused there as any other)
      [ "$rc" = 2 ] || fail "$opt: documented as not taken, but exit $rc"
      grep -q -- "${opt#--}" "$WORK/err" || fail "$opt: the refusal does not name it: $(cat "$WORK/err")"
      refused=$((refused + 1))
      ;;
    *"every command"*)
      for c in sql events stats plan drill replay archive; do
        grep -q -- "$opt\b" "$WORK/help.$c" || fail "$opt: documented for every command, not in $c --help"
      done
      taken=$((taken + 1))
      ;;
    *"taken by"* | *"accepted by"*)
      cmds=$(echo "$what" | sed 's/(.*//')
      [[ $cmds == *"SQL output"* ]] && { grep -q -- "$opt\b" "$WORK/help.sql" || fail "$opt: not in SQL output's --help"; }
      for c in events stats plan drill replay archive; do
        if [[ $cmds == *"\`$c\`"* ]]; then
          grep -q -- "$opt\b" "$WORK/help.$c" || fail "$opt: documented for $c, not in its --help"
        fi
      done
      taken=$((taken + 1))
      ;;
    *) fail "$opt: the row does not say what binrecover does: $row" ;;
  esac
done < "$WORK/opts"
pass "the option table: $n options of mariadb-binlog 10.11 and mysqlbinlog 9.7, $taken taken as documented, $refused refused (exit 2, named)"
