#!/usr/bin/env bash
# A picture of the damage (issue 16, item 5) on a real MariaDB binlog of a whole day: a dump at
# 04:00, writes every hour (sessions with SET TIMESTAMP, which the server logs), a hostile
# database name, DROP DATABASE shop at 18:00. `stats --timeline` and `plan --timeline` show the
# hours and mark the DROP at its real position and GTID (as `binrecover events` and the server
# list it); `plan --html` writes one self-contained page that headless Chromium renders to a PNG
# (kept in the build tree: tests/artifacts/timeline.png) whose DOM has the chart and the DROP
# marked, and where the hostile name is text, never markup.
#   timeline.sh [PORT] [ARTIFACT_DIR]
source "$(dirname "$0")/lib.sh"
PA=${1:-23751}
ART=${2:-$WORK/artifacts}
mkdir -p "$ART"
export TZ=UTC
start_server a "$PA"
base=$(date -u -d '2026-11-30 00:00:00' +%s)
evil='x<script>alert(1)</script>&"'
{
  echo "SET TIMESTAMP=$((base + 3 * 3600)); CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, v INT);"
  echo "CREATE DATABASE \`$evil\`; CREATE TABLE \`$evil\`.t (id INT PRIMARY KEY);"
  echo "SET TIMESTAMP=$((base + 4 * 3600)); FLUSH BINARY LOGS;"
  for h in $(seq 4 17); do
    for k in 1 2 3; do
      id=$((h * 100 + k))
      echo "SET TIMESTAMP=$((base + h * 3600 + k * 60)); INSERT INTO shop.orders VALUES ($id, $h), ($id + 50, $h);"
    done
    echo "SET TIMESTAMP=$((base + h * 3600 + 1800)); UPDATE shop.orders SET v = v + 1 WHERE id < $((h * 100));"
    [ $((h % 3)) = 0 ] && echo "SET TIMESTAMP=$((base + h * 3600 + 2000)); DELETE FROM shop.orders WHERE id = $((h * 100 + 1));"
    echo "SET TIMESTAMP=$((base + h * 3600 + 2400)); INSERT INTO \`$evil\`.t VALUES ($h);"
  done
  echo "SET TIMESTAMP=$((base + 18 * 3600 + 12)); DROP DATABASE shop;"
  echo "SET TIMESTAMP=$((base + 18 * 3600 + 300)); INSERT INTO \`$evil\`.t VALUES (99); FLUSH BINARY LOGS;"
} | sql "$PA"
printf -- '-- CHANGE MASTER TO MASTER_LOG_FILE='"'"'mysql-bin.000002'"'"', MASTER_LOG_POS=4;\n' > "$WORK/dump.sql"
files=("$WORK/a/binlog/mysql-bin.000002")

# Where the server says the DROP is: its GTID event starts the transaction.
"$BINRECOVER" events --format=tsv "${files[@]}" > "$WORK/events.tsv"
drop_pos=$(awk -F'\t' '$6 == "DROP DATABASE shop" { print prev; exit } { prev = $2 }' "$WORK/events.tsv")
drop_gtid=$(sql "$PA" -N -e "SHOW BINLOG EVENTS IN 'mysql-bin.000002' FROM $drop_pos LIMIT 1" | awk -F'\t' '{ print $6 }' | sed 's/^BEGIN //; s/^GTID //')
[ -n "$drop_pos" ] && [ -n "$drop_gtid" ] || fail "the DROP is not in the events ($drop_pos, $drop_gtid)"

"$BINRECOVER" stats --timeline "${files[@]}" > "$WORK/stats.txt" || fail "stats --timeline"
cat "$WORK/stats.txt"
head -1 "$WORK/stats.txt" | grep -q "^Timeline per 10 minutes, by database" || fail "stats --timeline: not per 10 minutes (a day's range)"
for h in 04 09 17; do
  grep -q "^2026-11-30 $h:00  shop " "$WORK/stats.txt" || fail "no shop line at $h:00"
done
grep -q "^!! 2026-11-30 18:00:12  DROP DATABASE shop  at mysql-bin.000002:$drop_pos-[0-9]*  GTID $drop_gtid\$" "$WORK/stats.txt" ||
  fail "the DROP DATABASE is not marked at mysql-bin.000002:$drop_pos (GTID $drop_gtid)"
"$BINRECOVER" stats --timeline --bucket=hour --by=table "${files[@]}" > "$WORK/hour.txt"
grep -q "^2026-11-30 09:00  shop.orders  .* ins 6, upd " "$WORK/hour.txt" || { cat "$WORK/hour.txt"; fail "--bucket=hour --by=table"; }
rc=0
"$BINRECOVER" stats --timeline --bucket=1 "$WORK/a/binlog/mysql-bin.000001" "${files[@]}" > /dev/null 2> "$WORK/err" || rc=$?
[ $rc = 2 ] && grep -q "buckets of this range" "$WORK/err" || fail "--bucket=1 over a day: exit $rc, $(cat "$WORK/err")"
pass "stats --timeline: the day per 10 minutes by database (--bucket=hour --by=table per hour and table); the DROP DATABASE marked at mysql-bin.000002:$drop_pos, GTID $drop_gtid, as the server lists it"

"$BINRECOVER" plan --dump="$WORK/dump.sql" --timeline --html="$WORK/plan.html" "${files[@]}" > "$WORK/plan.txt" || fail "plan --html"
grep -q "^!! .* DROP DATABASE shop  at mysql-bin.000002:$drop_pos-" "$WORK/plan.txt" || fail "plan --timeline: no marker"
[ "$(stat -c %a "$WORK/plan.html")" = 600 ] || fail "the page is not private"
! grep -qiE '(src|href)="?(https?:)?//' "$WORK/plan.html" || fail "the page fetches something"
! grep -q "<script" "$WORK/plan.html" || fail "the hostile name became markup"
grep -q "x&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;" "$WORK/plan.html" || fail "the hostile name is not in the page as text"
grep -q "class=\"damage\" id=\"damage-0\" data-pos=\"mysql-bin.000002:$drop_pos\" data-gtid=\"$drop_gtid\"" "$WORK/plan.html" ||
  fail "the page does not mark the DROP at its position"
grep -q -- "--stop-position=$drop_pos" "$WORK/plan.html" || fail "the page has no recovery command"

command -v chromium > /dev/null || fail "chromium is not installed (scripts/setup.sh installs it)"
chrome() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --disable-extensions --user-data-dir="$WORK/chrome" "$@" 2> "$WORK/chrome.err"
}
chrome --window-size=1100,1000 --screenshot="$ART/timeline.png" "file://$WORK/plan.html" > /dev/null ||
  { cat "$WORK/chrome.err"; fail "chromium could not render the page"; }
[ -s "$ART/timeline.png" ] && [ "$(head -c 8 "$ART/timeline.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  fail "no PNG from chromium"
size=$(stat -c %s "$ART/timeline.png")
[ "$size" -gt 20000 ] || fail "the screenshot is nearly empty ($size bytes)"
chrome --dump-dom "file://$WORK/plan.html" > "$WORK/dom.html" || { cat "$WORK/chrome.err"; fail "chromium --dump-dom"; }
grep -q '<svg id="timeline"' "$WORK/dom.html" || fail "the rendered page has no chart"
[ "$(grep -c '<rect class="ins"' "$WORK/dom.html")" -ge 14 ] || fail "the chart has fewer than 14 insert bars"
grep -q "id=\"damage-0\" data-pos=\"mysql-bin.000002:$drop_pos\"" "$WORK/dom.html" || fail "the rendered page does not mark the DROP"
! grep -q "<script" "$WORK/dom.html" || fail "the rendered page has a script"
pass "plan --html: a private self-contained page; Chromium renders it ($size-byte PNG in $ART/timeline.png), its chart has the hours' bars and the DROP marked at mysql-bin.000002:$drop_pos; the hostile name stays text"
