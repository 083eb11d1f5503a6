#!/usr/bin/env bash
# Installs like a standard tool (issue 16): `cmake --install` puts the binary, binrecover(1) and
# the bash completion in place; `cpack -G DEB` makes a package that lintian passes without an
# error, whose unpacked binary runs on the sample binlog; `man -l` renders the page without a
# warning; the page lists every option each command's --help shows (and the binary takes every
# option the page lists, for the commands it names); the completion offers the commands and
# each command's options.
#   packaging.sh BUILD_DIR
source "$(dirname "$0")/lib.sh"
BUILD=${1:?usage: packaging.sh BUILD_DIR}
SAMPLE=$ROOT/testdata/row/mysql-bin.000001

# cmake --install into a scratch prefix.
cmake --install "$BUILD" --prefix "$WORK/inst" > "$WORK/install.log" ||
  { cat "$WORK/install.log"; fail "cmake --install failed"; }
for f in bin/binrecover share/man/man1/binrecover.1.gz share/bash-completion/completions/binrecover \
  share/doc/binrecover/copyright share/doc/binrecover/changelog.gz; do
  [ -f "$WORK/inst/$f" ] || fail "cmake --install did not install $f"
done
if rev=$(git -C "$ROOT" rev-parse --short=12 HEAD 2> /dev/null); then
  want="^binrecover [0-9]+\.[0-9]+\.[0-9]+ \(git $rev(-dirty)?\)\$"
else  # (a source tree without git: the revision is unknown, and says so)
  want='^binrecover [0-9]+\.[0-9]+\.[0-9]+ \(git unknown'
fi
"$WORK/inst/bin/binrecover" --version | grep -Eq "$want" ||
  fail "--version does not name the version and git revision ($want): $("$WORK/inst/bin/binrecover" --version)"
pass "cmake --install: binary, man page, bash completion, copyright and changelog; --version: $("$WORK/inst/bin/binrecover" --version)"

# The manual page renders without a warning.
man_page=$WORK/inst/share/man/man1/binrecover.1.gz
LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -E UTF-8 -l "$man_page" > "$WORK/man.txt" 2> "$WORK/man.err" ||
  { cat "$WORK/man.err"; fail "man -l failed"; }
[ ! -s "$WORK/man.err" ] || { cat "$WORK/man.err"; fail "man -l warns"; }
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
  grep -q "^$s\$" "$WORK/man.txt" || fail "the man page has no section $s"
done
# Its examples are the runbook's (a command there, whitespace and line continuations aside).
tr -s ' \\\n' ' ' < "$ROOT/docs/runbook.md" > "$WORK/runbook.flat"
zcat "$man_page" | awk '/^\.SH EXAMPLES/ { on = 1 } /^\.SH "SEE ALSO"/ { on = 0 }
  on && /^binrecover/ { gsub(/\\-/, "-"); print }' > "$WORK/examples"
[ "$(wc -l < "$WORK/examples")" -ge 5 ] || fail "the man page has fewer than 5 examples"
while IFS= read -r ex; do
  grep -qF -- "$ex" "$WORK/runbook.flat" || fail "man page example not in docs/runbook.md: $ex"
done < "$WORK/examples"
pass "man -l renders binrecover(1) without a warning; all sections; $(wc -l < "$WORK/examples") examples, each from the runbook"

# Every option of every command's --help is in the page, for that command; every option the
# page lists for a command is taken by it.
zcat "$man_page" | awk '
  /^\.SH/ { inopt = ($0 ~ /^\.SH OPTIONS/) }
  !inopt { prev = $0; next }
  /^\.SS / { group = $0; cmds = ""; every = 0 }
  /^Taken by every command/ { every = 1 }
  /^Taken by:/ { line = $0; sub(/^Taken by: /, "", line); gsub(/\\f[BR]/, "", line); gsub(/\.$/, "", line);
                 gsub(/, /, ",", line); cmds = line }
  prev == ".TP" { opt = $0; gsub(/\\-/, "-", opt); gsub(/\\f[BIR]/, "", opt)
                  n = split(opt, parts, ", "); o = parts[n]; value = (o ~ /=/) ? "x" : ""
                  sub(/\[?=.*/, "", o)
                  print (every ? "*" : cmds) "\t" o "\t" value }
  { prev = $0 }' > "$WORK/man.options"
[ "$(wc -l < "$WORK/man.options")" -ge 100 ] || fail "the man page lists only $(wc -l < "$WORK/man.options") options"
commands=("" events stats plan drill replay archive)
checked=0
for c in "${commands[@]}"; do
  label=${c:-SQL output}
  "$BUILD/binrecover" $c --help | grep -oE '^  (-[^ ] \[ )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' | sort -u > "$WORK/help.opts"
  awk -F'\t' -v c="$label" '$1 == "*" || index("," $1 ",", "," c ",") { print $2 }' "$WORK/man.options" |
    sort -u > "$WORK/man.opts"
  missing=$(comm -23 "$WORK/help.opts" "$WORK/man.opts" | tr '\n' ' ')
  [ -z "$missing" ] || fail "$label: in --help, not in the man page: $missing"
  extra=$(comm -13 "$WORK/help.opts" "$WORK/man.opts" | tr '\n' ' ')
  [ -z "$extra" ] || fail "$label: in the man page, not in --help: $extra"
  # Each option the page lists is taken (--help after it: parsed, then help, exit 0).
  while IFS=$'\t' read -r cmds o value; do
    [ "$cmds" = "*" ] || [[ ",$cmds," == *",$label,"* ]] || continue
    arg=$o
    [ -n "$value" ] && arg="$o=x"
    case $o in --help | --version | --no-defaults | --defaults-file | --defaults-extra-file | --print-defaults) continue ;; esac
    rc=0
    "$BUILD/binrecover" $c "$arg" --help > /dev/null 2> "$WORK/opt.err" || rc=$?
    [ $rc = 0 ] || { cat "$WORK/opt.err"; fail "$label: the man page lists $o, the binary refuses it (exit $rc)"; }
    checked=$((checked + 1))
  done < "$WORK/man.options"
done
pass "the man page lists exactly the options of each command's --help; the binary takes all $checked (command, option) pairs it lists"

# The bash completion: commands, each command's options, a value's '=' for options that take one.
complete_words() {  # complete_words WORD... : COMPREPLY for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _binrecover; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$WORK/inst/share/bash-completion/completions/binrecover" "$@"
}
[ "$(complete_words binrecover rep)" = replay ] || fail "completion of 'binrecover rep': $(complete_words binrecover rep)"
[ "$(complete_words binrecover replay --paral)" = "--parallel=" ] || fail "completion of --paral: $(complete_words binrecover replay --paral)"
[ "$(complete_words binrecover events --form)" = "--format=" ] || fail "completion of --form: $(complete_words binrecover events --form)"
[ -z "$(complete_words binrecover --result-file "")" ] || fail "after --result-file the completion is not files"
for c in "${commands[@]}"; do
  "$BUILD/binrecover" $c --help | grep -oE '^  (-[^ ] \[ )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' | sort -u > "$WORK/help.opts"
  complete_words binrecover $c -- | sed 's/=$//' | sort -u > "$WORK/comp.opts"
  diff "$WORK/help.opts" "$WORK/comp.opts" > /dev/null ||
    { diff "$WORK/help.opts" "$WORK/comp.opts"; fail "${c:-SQL output}: the completion's options differ from --help"; }
done
pass "bash completion: commands, every command's options (as --help), '=' for options with a value, files after them"

# The Debian package.
command -v lintian > /dev/null || fail "lintian is not installed (scripts/setup.sh installs it)"
(cd "$BUILD" && cpack -G DEB -B "$WORK/pkg" > "$WORK/cpack.log" 2>&1) || { cat "$WORK/cpack.log"; fail "cpack -G DEB failed"; }
deb=$(ls "$WORK"/pkg/binrecover_*.deb)
deps=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libmariadb3 libzstd1 zlib1g libboost-program-options libfmt libisal2 libcurl4 libexpat1 libssl3; do
  [[ $deps == *"$lib"* ]] || fail "the package does not depend on $lib: Depends: $deps"
done
# (lintian leaves two MLDBM cache files under TMPDIR: in the test's folder, not in /tmp)
mkdir -p "$WORK/lintian.tmp"
TMPDIR=$WORK/lintian.tmp lintian --fail-on error --tag-display-limit 0 "$deb" > "$WORK/lintian.out" 2>&1 ||
  { cat "$WORK/lintian.out"; fail "lintian reports errors on $(basename "$deb")"; }
! grep -q '^E: ' "$WORK/lintian.out" || { cat "$WORK/lintian.out"; fail "lintian reports errors"; }
dpkg-deb -x "$deb" "$WORK/root"
"$WORK/root/usr/bin/binrecover" --timezone=UTC "$SAMPLE" > "$WORK/pkg.sql" || fail "the packaged binary fails on the sample"
"$BUILD/binrecover" --timezone=UTC "$SAMPLE" > "$WORK/build.sql"
cmp -s "$WORK/pkg.sql" "$WORK/build.sql" || fail "the packaged binary's SQL differs from the build's"
"$WORK/root/usr/bin/binrecover" events "$SAMPLE" | grep -q Format_desc || fail "the packaged binary's events table is wrong"
[ -f "$WORK/root/usr/share/man/man1/binrecover.1.gz" ] || fail "the package has no man page"
[ -f "$WORK/root/usr/share/bash-completion/completions/binrecover" ] || fail "the package has no bash completion"
warnings=$(grep -c '^W: ' "$WORK/lintian.out" || true)
pass "$(basename "$deb"): lintian without errors ($warnings warnings), Depends: $deps; unpacked, its binary writes the same SQL as the build's"

# The libraries loaded on first use (recovery/libs): reading a binlog maps none of them, a
# command that needs one loads it (a digest: libcrypto for an archive's check of its pieces is
# too far from here; the S3, replay and remote tests use every one of them).
LD_DEBUG=files "$WORK/root/usr/bin/binrecover" events "$SAMPLE" 2> "$WORK/ld.log" > /dev/null ||
  fail "binrecover events failed under LD_DEBUG"
grep -q 'file=libboost_program_options' "$WORK/ld.log" || fail "LD_DEBUG=files shows no library loads"
! grep -E 'file=lib(curl|mariadb|crypto|ssl|expat|gnutls|krb5)' "$WORK/ld.log" ||
  fail "binrecover events loads a library it does not need"
pass "reading a binlog loads neither libmariadb, libcurl, expat nor libcrypto (nor what they pull in)"
