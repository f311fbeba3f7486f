#!/usr/bin/env bash
# The manual pages and the bash completion agree with mw's --help: scripts/mkman.py makes
# them from the --help texts, and this test checks the result against those texts with its
# own reading of them (grep and awk here, not the generator's code):
# - a page mw-COMMAND.1 for every command 'mw --help' lists, no other, and mw.1 naming each;
# - every word of 'mw COMMAND --help' in its page, in order, and every option token (-x,
#   --long) of the help in the page; groff reads every page without a warning;
# - the completion offers every command after 'mw', and after 'mw COMMAND -' every option
#   the command's --help defines (its usage lines and its option lines);
# - make install puts the pages in share/man/man1, the completion in
#   share/bash-completion/completions and the docs in share/doc/megawatt.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

COMMANDS=$("$MW" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')

# words FILE: the words of a text, one per line
words() { tr -s ' \t\n' '\n\n\n' <"$1" | sed '/^$/d'; }
# roff_text PAGE: the text of a page's source: no requests, roff escapes undone
roff_text() {
  grep -v '^\.' "$1" | sed -e 's/\\fB//g; s/\\fR//g; s/\\-/-/g; s/\\&//g; s/\\e/\\/g'
}
# options FILE: every option token of a help text
options() { grep -oE '(^|[[:space:][(|,])--?[A-Za-z][A-Za-z0-9-]*' "$1" | sed -E 's/^[^-]+//' | sort -u; }
# defined FILE: the options a help text defines: in its usage lines, and at the start of its
# option lines (indented, starting with '-', up to two blanks)
defined() {
  awk '/^usage:/ || (u && /^      /) { u = 1; print; next } { u = 0 }
       /^[[:space:]]+-/ { sub(/^[[:space:]]+/, ""); sub(/  .*/, ""); print }' "$1" >"$1.def"
  options "$1.def"
}

generate() {
  python3 scripts/mkman.py "$MW" "$TMP/man" >"$TMP/mkman.out" 2>&1
  expect_eq "mkman.py" "$?" 0
  expect_eq "commands found" "$([ -n "$COMMANDS" ] && echo yes)" yes
  expect_eq "one page per command and mw.1" "$(ls "$TMP/man/man1" | sort | tr '\n' ' ')" \
    "$( (echo mw.1; for c in $COMMANDS; do echo "mw-$c.1"; done) | sort | tr '\n' ' ')"
  for c in $COMMANDS; do
    grep -q "^\\\\fB$c\\\\fR\$" "$TMP/man/man1/mw.1" || { echo "  FAIL: mw.1 lacks $c"; CASE_OK=0; }
  done
}

pages_say_the_help() {
  local c page help
  for c in $COMMANDS; do
    page=$TMP/man/man1/mw-$c.1 help=$TMP/help-$c.txt
    "$MW" "$c" --help >"$help"
    # the page's text after its NAME line: the help's words in the same order
    roff_text "$page" | sed '1d' | sed '$d' >"$TMP/page-$c.txt" # NAME line, SEE ALSO line
    sed 's/^usage: //' "$help" >"$TMP/help-$c.plain"
    if ! diff <(words "$TMP/help-$c.plain") <(words "$TMP/page-$c.txt") >"$TMP/diff-$c.txt"; then
      echo "  FAIL: mw-$c.1 does not say what 'mw $c --help' says:"; head -20 "$TMP/diff-$c.txt" | sed 's/^/    /'
      CASE_OK=0
    fi
    for o in $(options "$help"); do
      roff_text "$page" | grep -qwe "$o" || { echo "  FAIL: mw-$c.1 lacks $o"; CASE_OK=0; }
    done
    groff -man -ww -z "$page" >"$TMP/groff.txt" 2>&1
    expect_eq "groff warnings for mw-$c.1: $(head -3 "$TMP/groff.txt")" "$(wc -c <"$TMP/groff.txt")" 0
  done
  # the page renders with man, its name first
  MANWIDTH=80 man -l "$TMP/man/man1/mw-import.1" 2>/dev/null >"$TMP/import.man"
  expect_grep "man renders mw-import.1" "mw-import  *-  *make a run" "$TMP/import.man"
  expect_grep "man renders its options" "--format FORMAT" "$TMP/import.man"
}

# complete WORD...: what the completion offers for the command line 'mw WORD...'
complete_line() {
  bash -c '. "$1"; shift; COMP_WORDS=(mw "$@"); COMP_CWORD=$#; _mw; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$TMP/man/completion/mw" "$@"
}

completion() {
  local c o got
  got=$(complete_line "")
  for c in $COMMANDS; do
    grep -qx "$c" <<<"$got" || { echo "  FAIL: completion lacks command $c"; CASE_OK=0; }
  done
  expect_eq "completion of 'mw imp'" "$(complete_line imp)" "import"
  for c in $COMMANDS; do
    "$MW" "$c" --help >"$TMP/help-$c.txt"
    got=$(complete_line "$c" -)
    for o in $(defined "$TMP/help-$c.txt"); do
      grep -qx -e "$o" <<<"$got" || { echo "  FAIL: completion of mw $c lacks $o"; CASE_OK=0; }
    done
  done
  expect_eq "completion of 'mw import --form'" "$(complete_line import --form)" "--format"
  expect_eq "bash -n" "$(bash -n "$TMP/man/completion/mw" 2>&1)" ""
}

installed() {
  make -s BUILD="$BUILD" DESTDIR="$TMP/inst" PREFIX=/usr install >"$TMP/install.out" 2>&1
  expect_eq "make install" "$?" 0
  tail -5 "$TMP/install.out" | sed 's/^/    /'
  local d=$TMP/inst/usr/share
  for c in $COMMANDS; do
    [ -s "$d/man/man1/mw-$c.1" ] || { echo "  FAIL: mw-$c.1 not installed"; CASE_OK=0; }
  done
  check "mw.1 installed" test -s "$d/man/man1/mw.1"
  check "completion installed" test -s "$d/bash-completion/completions/mw"
  check "docs installed" test -s "$d/doc/megawatt/README.md" -a -s "$d/doc/megawatt/docs/cli.md"
  # what is installed is what mkman.py makes from this mw
  expect_eq "installed pages are mw's" "$(cat "$d"/man/man1/*.1 | md5sum)" "$(cat "$TMP"/man/man1/*.1 | md5sum)"
}

run_case generate
run_case pages_say_the_help
run_case completion
run_case installed
finish
