#!/usr/bin/env bash
# The real binlogs of ../shared/corpus (MySQL 4.0-9.6 and MariaDB 5.5-11.8 from server test suites
# and public projects; its MANIFEST.md describes every file) against testdata/corpus_expected.tsv:
#
# 1. Outcomes. Every binlog of the corpus (all files but MANIFEST.md and *.index) has one line in
#    the table and every line names an existing file. `binrecover events --format=tsv FILE` and the
#    SQL run `binrecover FILE` must each end as the table says: `ok` (exit 0, warnings allowed) or
#    `error:STATUS:TEXT` (that exit status, TEXT in the first error line). A crash (status >= 128)
#    or a timeout (30 s) always fails. The table holds the correct outcome, not the current one: a
#    line for a decoder bug fails until the decoder is fixed.
# 2. Positions and types against mariadb-binlog, for every file it reads fully (exit 0, no ERROR
#    on stderr): its `# at N` lines and binrecover's Pos column must list the same events, and the
#    event type printed under each `# at` must map to binrecover's Event_type. Known differences,
#    all from how mariadb-binlog prints, none from what it reads:
#    - consecutive rows events are printed as one BINLOG statement: all their `# at` lines first,
#      then all their headers, so `# at` lines and headers are paired in order;
#    - events it does not know but may skip (MySQL GTIDs, Previous_gtids, Rows_query, any event
#      with LOG_EVENT_IGNORABLE_F) have the header text `Ignorable` and the real type in the next
#      comment (`# Ignorable event type 33 (MySQL Gtid)`);
#    - Begin_load_query, Append_block, Exec_load have an empty header text and the type in the next
#      comment; a 4.x Create_file is printed as a `Query` followed by `# LOAD DATA ...`, and its
#      header is printed again (without `# at`) when the Exec_load comes: unpaired headers are
#      ignored;
#    - it prints v1 and v2 rows events alike (`Write_rows:`): binrecover's `_v1` suffix is dropped;
#    - events inside a Transaction_payload have no position of their own (binrecover lists them
#      at the payload's end): for each position only the last listed event counts.
#    Where binrecover stops with an expected error that mariadb-binlog does not check (a stale
#    CRC32: mariadb-binlog does not verify checksums unless asked), the comparison uses
#    `binrecover events --force-read`.
# 3. Files binrecover reads (exit 0) but mariadb-binlog cannot (MySQL 8 Transaction_payload,
#    Partial_update_rows, tagged GTIDs, torn or crafted files) are checked against their own
#    headers instead: Pos strictly increasing, Pos + event_size of each event = the next Pos,
#    End_log_pos = the header's log_pos, after the last event either the end of the file or a
#    torn event (one that does not fit in the rest of the file; binrecover reads in-use files up
#    to it), and the last End_log_pos, unless 0, is where the last event ends.
#
#   tests/integration/corpus_test.sh                 the whole table
#   tests/integration/corpus_test.sh PATH...         only these lines (corpus-relative paths)
#   CORPUS=/elsewhere tests/integration/corpus_test.sh
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
if [ ! -d "$CORPUS" ]; then
  echo "SKIPPED: ../shared/corpus not present"
  exit 77  # ctest reports it as skipped (SKIP_RETURN_CODE)
fi
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
set +e
# (mariadb-binlog writes the files of LOAD DATA events here, not in /tmp)
mkdir -p "$WORK/mbload"
TABLE=$ROOT/testdata/corpus_expected.tsv
B=("$BINRECOVER" --no-defaults)
MARIADB_BINLOG=$(command -v mariadb-binlog || true)

n_files=0 n_ok=0 n_err=0 n_mb=0 n_mb_forced=0 n_walk=0 n_pass=0 n_fail=0 n_expected=0 n_differ=0
problems=()    # problems of the file being checked

# outcome RC ERRFILE -> ok | error:RC:first error line | crash:RC | timeout | not-run:RC
outcome() {
  local rc=$1 err=$2
  if [ "$rc" = 0 ]; then
    echo ok
  elif [ "$rc" = 124 ]; then
    echo timeout
  elif [ "$rc" = 126 ] || [ "$rc" = 127 ]; then
    echo "not-run:$rc (cannot execute $BINRECOVER)"
  elif [ "$rc" -ge 128 ]; then
    echo "crash:$rc"
  else
    echo "error:$rc:$(grep -a '^binrecover: ' "$err" | grep -av '^binrecover: warning:' | head -1)"
  fi
}

# matches ACTUAL EXPECTED : ok = ok; error:N:TEXT = exit N and TEXT in the message
matches() {
  local actual=$1 expected=$2
  [ "$expected" = ok ] && { [ "$actual" = ok ]; return; }
  case $expected in
    error:*:*) ;;
    *) return 1 ;;
  esac
  local rest=${expected#error:}
  local want_rc=${rest%%:*} want_text=${rest#*:}
  [[ $actual == "error:$want_rc:"* && $actual == *"$want_text"* ]]
}

# binrecover's listing (tsv) -> "POS<tab>TYPE<tab>END_LOG_POS" per event, in order; the last event listed at a
# position stands for it (events inside a payload share the position of the event that follows
# the payload, or the end of the file)
br_events() {
  awk -F'\t' -v size="$2" '
    $2 >= size { next }
    { t = $3; sub(/_v1$/, "", t); if (!($2 in ty)) order[++n] = $2; ty[$2] = t; end[$2] = $5 }
    END { for (i = 1; i <= n; i++) print order[i] "\t" ty[order[i]] "\t" end[order[i]] }' "$1"
}

# mariadb-binlog output -> "POS<tab>TYPE" per event, types named as binrecover names them
mb_events() {
  awk '
    function emit(p, t) { ty[p] = t; order[++n] = p }
    /^# at [0-9]+$/ { queue[++qtail] = $3; next }
    /^#[0-9][0-9][0-9][0-9][0-9][0-9] .* server id [0-9]+ +end_log_pos [0-9]+/ {
      last = ""
      if (qhead >= qtail) next          # a header printed again (Create_file at Exec_load)
      p = queue[++qhead]
      t = $0
      sub(/.* end_log_pos [0-9]+( CRC32 0x[0-9a-f]+)? *\t?/, "", t)
      if (t ~ /^Start: binlog v 4/) r = "Format_desc"
      else if (t ~ /^Start: binlog v [123],/) r = "Start_v3"
      else if (t ~ /^Query/) r = "Query"
      else if (t ~ /^Xid/) r = "Xid"
      else if (t ~ /^XID = /) r = "XA_prepare"
      else if (t ~ /^Table_map:/) r = "Table_map"
      else if (t ~ /^(Write|Update|Delete)_rows:/) { r = t; sub(/:.*/, "", r) }
      else if (t ~ /^(Write|Update|Delete)_rows_old:/) { r = t; sub(/_old:.*/, "_event_old", r) }
      else if (t ~ /^GTID [0-9]/) r = "Gtid"
      else if (t ~ /^Gtid list/) r = "Gtid_list"
      else if (t ~ /^Binlog checkpoint/) r = "Binlog_checkpoint"
      else if (t ~ /^Rotate to/) r = "Rotate"
      else if (t ~ /^Stop/) r = "Stop"
      else if (t ~ /^Intvar/) r = "Intvar"
      else if (t ~ /^Rand/) r = "RAND"
      else if (t ~ /^User_var/) r = "User var"
      else if (t ~ /^Annotate_rows:/) r = "Annotate_rows"
      else if (t ~ /^Execute_load_query/) r = "Execute_load_query"
      else if (t ~ /^Incident/) r = "Incident"
      else if (t ~ /^Ignorable/ || t == "") r = "?"
      else { r = t; gsub(/[ \t].*/, "", r); r = "?" r }
      emit(p, r)
      if (r == "?" || r == "Query") last = p
      next
    }
    last != "" && /^# Ignorable event type [0-9]+ \(/ {
      m = $0; sub(/^[^(]*\(/, "", m); sub(/\).*/, "", m); sub(/^MySQL /, "", m)
      ty[last] = m; last = ""; next
    }
    last != "" && /^#(Begin_load_query|Append_block|Exec_load|Delete_file):/ {
      m = substr($1, 2); sub(/:$/, "", m); ty[last] = m; last = ""; next
    }
    last != "" && ty[last] == "Query" && /^# LOAD DATA / { ty[last] = "Create_file"; last = ""; next }
    END { for (i = 1; i <= n; i++) print order[i] "\t" ty[order[i]] }' "$1"
}

# compare_with_mariadb FILE LISTING.tsv : 0 if equal (problems added otherwise)
compare_with_mariadb() {
  local f=$1 listing=$2 size
  size=$(stat -c %s "$f")
  br_events "$listing" "$size" | cut -f1,2 > "$WORK/br.lst"
  mb_events "$WORK/mb.out" > "$WORK/mb.lst"
  if ! cmp -s "$WORK/br.lst" "$WORK/mb.lst"; then
    problems+=("events differ from mariadb-binlog's (< mariadb-binlog, > binrecover):
$(diff "$WORK/mb.lst" "$WORK/br.lst" | grep '^[<>]' | head -8)")
    return 1
  fi
}

# SHOW BINLOG EVENTS names of the event type codes (v1 rows events without their _v1 suffix)
declare -A TYPE_NAME=(
  [1]=Start_v3 [2]=Query [3]=Stop [4]=Rotate [5]=Intvar [8]=Create_file [9]=Append_block
  [10]=Exec_load [13]=RAND [14]="User var" [15]=Format_desc [16]=Xid [17]=Begin_load_query
  [18]=Execute_load_query [19]=Table_map [20]=Write_rows_event_old [21]=Update_rows_event_old
  [22]=Delete_rows_event_old [23]=Write_rows [24]=Update_rows [25]=Delete_rows [26]=Incident
  [29]=Rows_query [30]=Write_rows [31]=Update_rows [32]=Delete_rows [33]=Gtid
  [34]=Anonymous_Gtid [35]=Previous_gtids [38]=XA_prepare [39]=Update_rows_partial
  [40]=Transaction_payload [42]=Gtid_tagged_log_event [160]=Annotate_rows [161]=Binlog_checkpoint
  [162]=Gtid [163]=Gtid_list)

# header_walk FILE LISTING.tsv : binrecover's positions and types against the events' headers
header_walk() {
  local f=$1 listing=$2 size prev=-1 pos typ endp next="" last_pos last_endp
  local -a h
  size=$(stat -c %s "$f")
  br_events "$listing" "$size" > "$WORK/br.lst"
  # MySQL's 5.1/5.2 "a_drop" development servers numbered types 16-22 differently (MySQL 5.1-5.7
  # Format_description_event::event_type_permutation); their FDE (at 4) names the server.
  local -a perm=()
  if head -c 75 "$f" | tail -c 50 | tr -d '\0' | grep -Eq '^5\.(1\.[1-5]-a_drop5|1\.4-a_drop6|2\.[0-2]-a_drop6)'; then
    perm=([16]=19 [17]=20 [18]=21 [19]=22 [20]=16 [21]=17 [22]=18)
  fi
  while IFS=$'\t' read -r pos typ endp; do
    last_pos=$pos last_endp=$endp
    [ -z "$next" ] || [ "$pos" = "$next" ] ||
      problems+=("event at $pos: the previous event ends at $next")
    [ "$pos" -gt "$prev" ] || problems+=("positions not increasing: $prev then $pos")
    prev=$pos
    # bytes 4..16 of the header: type, server_id, event_size, log_pos
    read -r -a h < <(od -An -v -tu1 -w13 -j $((pos + 4)) -N13 "$f")
    if [ "${#h[@]}" != 13 ]; then
      problems+=("event at $pos: header past the end of the file")
      next=""
      continue
    fi
    local evsize=$((h[5] | h[6] << 8 | h[7] << 16 | h[8] << 24))
    local logpos=$((h[9] | h[10] << 8 | h[11] << 16 | h[12] << 24))
    local code=${perm[${h[0]}]:-${h[0]}}
    local named=${TYPE_NAME[$code]:-}
    [ -z "$named" ] || [ "$typ" = "$named" ] ||
      problems+=("event at $pos: listed as $typ, its header says type ${h[0]} ($named)")
    [ "$endp" = "$logpos" ] ||
      problems+=("event at $pos ($typ): End_log_pos $endp, header says $logpos")
    next=$((pos + evsize))
  done < "$WORK/br.lst"
  [ -n "$next" ] || return
  [ "$last_endp" = 0 ] || [ "$last_endp" = "$next" ] ||
    problems+=("last event at $last_pos: End_log_pos $last_endp, but the events end at $next")
  if [ "$next" -gt "$size" ]; then
    problems+=("last listed event ends at $next, past the end of the file ($size)")
  elif [ "$next" -lt "$size" ]; then
    # binrecover stopped early: only a torn event may follow
    local rest=$((size - next))
    if [ "$rest" -ge 13 ]; then
      read -r -a h < <(od -An -v -tu1 -j $((next + 9)) -N4 "$f")
      local tsize=$((h[0] | h[1] << 8 | h[2] << 16 | h[3] << 24))
      [ "$tsize" -gt "$rest" ] ||
        problems+=("listing stops at $next but a whole event of $tsize bytes follows")
    fi
  fi
}

check_file() {
  local rel=$1 exp_events=$2 exp_sql=$3
  local f=$CORPUS/$rel rc got_events got_sql
  problems=()
  timeout 30 "${B[@]}" events --format=tsv "$f" > "$WORK/events.tsv" 2> "$WORK/events.err"
  rc=$?
  got_events=$(outcome "$rc" "$WORK/events.err")
  timeout 30 "${B[@]}" --local-load="$WORK/load" "$f" > /dev/null 2> "$WORK/sql.err"
  rc=$?
  got_sql=$(outcome "$rc" "$WORK/sql.err")
  local as_expected=1
  matches "$got_events" "$exp_events" ||
    { problems+=("events: expected '$exp_events', got '$got_events'"); as_expected=0; }
  matches "$got_sql" "$exp_sql" ||
    { problems+=("sql: expected '$exp_sql', got '$got_sql'"); as_expected=0; }
  if [ $as_expected = 1 ]; then
    n_expected=$((n_expected + 1))
    if [ "$exp_events" = ok ] && [ "$exp_sql" = ok ]; then n_ok=$((n_ok + 1)); else n_err=$((n_err + 1)); fi
  else
    n_differ=$((n_differ + 1))
  fi

  # Positions: mariadb-binlog where it reads the whole file, else the file's own headers.
  local mb_full=0
  if [ -n "$MARIADB_BINLOG" ]; then
    timeout 30 "$MARIADB_BINLOG" --no-defaults --local-load="$WORK/mbload" "$f" > "$WORK/mb.out" 2> "$WORK/mb.err" &&
      ! grep -q ERROR "$WORK/mb.err" && mb_full=1
  fi
  if [ "$got_events" = ok ]; then
    if [ $mb_full = 1 ]; then
      compare_with_mariadb "$f" "$WORK/events.tsv" && n_mb=$((n_mb + 1))
    else
      local before=${#problems[@]}
      header_walk "$f" "$WORK/events.tsv"
      [ ${#problems[@]} = "$before" ] && n_walk=$((n_walk + 1))
    fi
  elif [ $mb_full = 1 ] && [ $as_expected = 1 ]; then
    # an expected error mariadb-binlog does not see (it does not verify checksums)
    if timeout 30 "${B[@]}" events --force-read --format=tsv "$f" > "$WORK/forced.tsv" \
      2> /dev/null; then
      compare_with_mariadb "$f" "$WORK/forced.tsv" && n_mb_forced=$((n_mb_forced + 1))
    fi
  fi

  if [ ${#problems[@]} = 0 ]; then
    n_pass=$((n_pass + 1))
  else
    n_fail=$((n_fail + 1))
    echo "FAIL: $rel"
    local p
    for p in "${problems[@]}"; do echo "$p" | sed 's/^/    /'; done
  fi
}

# The table: PATH <tab> EVENTS <tab> SQL <tab> REASON; '#' lines are comments.
declare -A in_table=()
lines=()
while IFS=$'\t' read -r path exp_events exp_sql _reason; do
  [ -z "$path" ] || [[ $path == '#'* ]] && continue
  in_table[$path]=1
  lines+=("$path"$'\t'"$exp_events"$'\t'"$exp_sql")
done < "$TABLE"

table_problems=0
if [ $# = 0 ]; then
  while IFS= read -r rel; do
    [ -n "${in_table[$rel]:-}" ] || { echo "FAIL: $rel: not in $TABLE"; table_problems=$((table_problems + 1)); }
  done < <(cd "$CORPUS" && find . -type f ! -name MANIFEST.md ! -name '*.index' | sed 's|^\./||' | sort)
else
  declare -A wanted=()
  for a in "$@"; do wanted[$a]=1; done
fi

for line in "${lines[@]}"; do
  IFS=$'\t' read -r rel exp_events exp_sql <<< "$line"
  [ $# = 0 ] || [ -n "${wanted[$rel]:-}" ] || continue
  if [ ! -f "$CORPUS/$rel" ]; then
    echo "FAIL: $rel: in the table but not in $CORPUS"
    table_problems=$((table_problems + 1))
    continue
  fi
  n_files=$((n_files + 1))
  check_file "$rel" "$exp_events" "$exp_sql"
done

[ -n "$MARIADB_BINLOG" ] || echo "note: mariadb-binlog not installed: positions checked against the headers only"
echo "corpus: $n_files files, $n_ok ok, $n_err with expected errors, $n_differ not as expected;" \
  "$n_mb compared with mariadb-binlog (positions and types equal)," \
  "$n_mb_forced more with --force-read past an expected checksum error," \
  "$n_walk checked against their own headers"
echo "$n_expected files as expected, $n_differ differ"
[ $table_problems = 0 ] || echo "$table_problems table/corpus mismatches"
echo "$n_pass passed, $n_fail failed"
[ $n_fail = 0 ] && [ $table_problems = 0 ]
