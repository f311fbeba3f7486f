#!/usr/bin/env bash
# Hostile files (docs/reliability.md, "Hostile input"): every file a user names is read
# within bounds (size, line length, time: host/include/mw_lines.h), read errors are errors,
# and what mw writes from user names stays exact.
#   endless_inputs   /dev/zero as a pareto profile, a vmeter --profile and MW_CHANNELS_FILE:
#                    exit 2 naming the limit (64 MiB, 64 MiB, 1 MiB), under a 600 MB address
#                    space limit (the old code grew past 1.4 GB, or took ENOMEM for the end)
#   long_line        a profile whose comment line is 2 MiB: refused as FILE:1 (limit 1 MiB)
#   fifo_inputs      a FIFO nobody writes, as pareto profile, channels file, import file and
#                    vmeter profile: each exits 2 in about 10 s ("no end of file within 10 s"),
#                    none hangs (the old code blocked in open for ever)
#   pipe_works       mw pareto <(cat FILE): a pipe that ends is read like the file
#   nul_in_csv       mw import of "1,a,12<NUL>345" and of channel "a<NUL>b": exit 2 naming
#                    FILE:2:COLUMN, no run and no temporary directory left (the old code stored
#                    12 W, channel "a")
#   channels_errors  MW_CHANNELS_FILE a link loop, unreadable, a directory, missing: exit 2
#                    naming the file, no run made (the old code recorded with default names);
#                    no configuration file at all still records with default names
#   figure_names     channels "a b", "a_b", "a/b": three histograms, histogram-a_b.png and
#                    histogram-a_b~DIGEST.png (64-bit FNV-1a of the name, computed here), each
#                    with its own channel's powers; the report captions each with its channel
#                    (the old code drew all three into histogram-a_b.png, captioned "a_b")
#   csv_formulas     a channel "=HYPERLINK(...)": mw export --format csv writes it as recorded
#                    (RFC 4180 quoted: it imports back unchanged) and warns once on stderr,
#                    exit 0; JSON does not warn (the old code said nothing)
#   merge_fifo       a FIFO planted as RUN/probe/x.mwp: mw merge skips it ("not a regular
#                    file") instead of blocking for ever in open
#   file_size_limit  under ulimit -f, mw import and mw export -o: the write past the limit
#                    fails (SIGXFSZ caught), one message, exit 1, no run, no temporary
#                    directory or file left (the old code died of SIGXFSZ, exit 153, and left
#                    RUN.import-XXXXXX behind)
# Each case but pipe_works fails with the mw of d123255 (before the fix).
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

PROFILE='n 1000
device cpu a=0.001 b=0.5
device gpu a=0.0005 b=0.2
'

# exit2 WHAT PATTERN ERRFILE RC: exit 2 and one line matching PATTERN
exit2() {
  expect_eq "$1: exit" "$4" 2
  expect_grep "$1" "$2" "$3"
  expect_eq "$1: one line" "$(wc -l <"$3")" 1
}

endless_inputs() {
  (
    ulimit -v 600000
    "$MW" pareto /dev/zero >/dev/null 2>"$TMP/p.err"
    echo $? >"$TMP/p.rc"
    "$MW" vmeter --profile /dev/zero --link "$TMP/vm" >/dev/null 2>"$TMP/v.err"
    echo $? >"$TMP/v.rc"
    MW_CHANNELS_FILE=/dev/zero "$MW" record -q -o "$TMP/zrun" --meter sim -- true \
      >/dev/null 2>"$TMP/c.err"
    echo $? >"$TMP/c.rc"
  )
  exit2 "pareto /dev/zero" "^mw pareto: /dev/zero: larger than 64 MiB" "$TMP/p.err" "$(cat "$TMP/p.rc")"
  exit2 "vmeter --profile /dev/zero" "/dev/zero: larger than 64 MiB" "$TMP/v.err" "$(cat "$TMP/v.rc")"
  exit2 "MW_CHANNELS_FILE=/dev/zero" "^mw record: /dev/zero: larger than 1 MiB" "$TMP/c.err" \
    "$(cat "$TMP/c.rc")"
  check "no run made" test ! -e "$TMP/zrun"
}

long_line() {
  { printf '# '; head -c $((2 << 20)) /dev/zero | tr '\0' x; printf '\n%s' "$PROFILE"; } \
    >"$TMP/long.txt"
  "$MW" pareto "$TMP/long.txt" >/dev/null 2>"$TMP/long.err"
  exit2 "a 2 MiB line" "$TMP/long.txt:1: a line longer than 1 MiB" "$TMP/long.err" "$?"
  # the same profile without the line is fine
  printf '%s' "$PROFILE" >"$TMP/short.txt"
  "$MW" pareto "$TMP/short.txt" >/dev/null 2>"$TMP/short.err"
  expect_eq "the profile itself: exit" "$?" 0
}

fifo_inputs() {
  for n in prof chan imp vmp; do mkfifo "$TMP/fifo.$n"; done
  local t0; t0=$(now_ns)
  timeout 40 "$MW" pareto "$TMP/fifo.prof" >/dev/null 2>"$TMP/f1.err" &
  local p1=$!
  MW_CHANNELS_FILE=$TMP/fifo.chan timeout 40 "$MW" record -q -o "$TMP/frun" --meter sim -- true \
    >/dev/null 2>"$TMP/f2.err" &
  local p2=$!
  timeout 40 "$MW" import --format csv "$TMP/fifo.imp" -o "$TMP/fimp" >/dev/null 2>"$TMP/f3.err" &
  local p3=$!
  timeout 40 "$MW" vmeter --profile "$TMP/fifo.vmp" --link "$TMP/fvm" >/dev/null 2>"$TMP/f4.err" &
  local p4=$!
  wait $p1; local r1=$?
  wait $p2; local r2=$?
  wait $p3; local r3=$?
  wait $p4; local r4=$?
  local s=$((($(now_ns) - t0) / 1000000000))
  exit2 "pareto FIFO" "fifo.prof: no end of file within 10 s" "$TMP/f1.err" "$r1"
  exit2 "channels FIFO" "fifo.chan: no end of file within 10 s" "$TMP/f2.err" "$r2"
  exit2 "import FIFO" "fifo.imp: no end of file within 10 s" "$TMP/f3.err" "$r3"
  exit2 "vmeter profile FIFO" "fifo.vmp: no end of file within 10 s" "$TMP/f4.err" "$r4"
  expect_num "seconds for the four" "$s" 9 30
  check "no run made" test ! -e "$TMP/frun" -a ! -e "$TMP/fimp"
}

pipe_works() {
  printf '%s' "$PROFILE" >"$TMP/pp.txt"
  "$MW" pareto "$TMP/pp.txt" >"$TMP/file.out" 2>&1
  expect_eq "from the file: exit" "$?" 0
  "$MW" pareto <(cat "$TMP/pp.txt") >"$TMP/pipe.out" 2>&1
  expect_eq "from a pipe: exit" "$?" 0
  # the same answer: all but the first line (which names the file) alike
  expect_eq "same answer" "$(tail -n +2 "$TMP/pipe.out")" "$(tail -n +2 "$TMP/file.out")"
  expect_grep "the front" "Pareto front" "$TMP/pipe.out"
}

nul_in_csv() {
  printf 'time_s,channel,power_w\n1,a,12\000345\n2,a,13\n' >"$TMP/nul1.csv"
  printf 'time_s,channel,power_w\n1,a\000b,12\n2,a,13\n' >"$TMP/nul2.csv"
  "$MW" import --format csv "$TMP/nul1.csv" -o "$TMP/nul1" >/dev/null 2>"$TMP/n1.err"
  exit2 "NUL in power_w" "nul1.csv:2:3: a NUL byte in the field" "$TMP/n1.err" "$?"
  "$MW" import --format csv "$TMP/nul2.csv" -o "$TMP/nul2" >/dev/null 2>"$TMP/n2.err"
  exit2 "NUL in channel" "nul2.csv:2:2: a NUL byte in the field" "$TMP/n2.err" "$?"
  expect_eq "nothing created" "$(find "$TMP" -maxdepth 1 -name 'nul[12]*' ! -name '*.csv' | wc -l)" 0
}

channels_errors() {
  ln -s "$TMP/loop" "$TMP/loop"
  mkdir "$TMP/cdir"
  printf '1 alpha\n' >"$TMP/locked"
  chmod 000 "$TMP/locked"
  chmod 755 "$TMP"
  local as=()
  [ "$(id -u)" = 0 ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  local i=0 f
  for f in "$TMP/loop" "$TMP/locked" "$TMP/cdir" "$TMP/missing"; do
    i=$((i + 1))
    MW_CHANNELS_FILE=$f "${as[@]}" "$MW" record -q -o "/tmp/mw-hf-$$-$i" --meter sim -- true \
      >/dev/null 2>"$TMP/ch$i.err"
    exit2 "MW_CHANNELS_FILE=$f" "^mw record: $f: " "$TMP/ch$i.err" "$?"
    check "no run for $f" test ! -e "/tmp/mw-hf-$$-$i"
    rm -rf "/tmp/mw-hf-$$-$i"
  done
  expect_grep "the loop named" "Too many levels of symbolic links" "$TMP/ch1.err"
  expect_grep "no permission" "Permission denied" "$TMP/ch2.err"
  expect_grep "a directory" "is a directory" "$TMP/ch3.err"
  # no configuration at all: default names, as before
  mkdir -p "$TMP/xdg"
  env -u MW_CHANNELS_FILE XDG_CONFIG_HOME=$TMP/xdg "$MW" record -q -o "$TMP/dflt" --meter sim -- true \
    >/dev/null 2>"$TMP/dflt.err"
  expect_eq "no config: exit" "$?" 0
  expect_eq "default names" "$(q "$TMP/dflt" "select name from channels where channel = 1")" ch1
}

# fnv NAME: the 64-bit FNV-1a digest of NAME in 16 hex digits, computed here (python), not by mw
fnv() {
  python3 -c 'import sys
h = 0xcbf29ce484222325
for b in sys.argv[1].encode():
    h = ((h ^ b) * 0x100000001b3) % (1 << 64)
print("%016x" % h)' "$1"
}

figure_names() {
  printf 'time_s,channel,power_w\n' >"$TMP/coll.csv"
  for t in 1 2 3 4; do
    printf '%s,a b,%s\n%s,a_b,%s\n%s,a/b,%s\n' "$t" $((10 + t % 2)) "$t" $((20 + t % 2)) \
      "$t" $((30 + t % 2)) >>"$TMP/coll.csv"
  done
  "$MW" import --format csv "$TMP/coll.csv" -o "$TMP/coll" >/dev/null 2>"$TMP/ci.err"
  expect_eq "import: exit" "$?" 0
  "$MW" plot "$TMP/coll" --kind histogram >"$TMP/cp.out" 2>"$TMP/cp.err"
  expect_eq "mw plot: exit" "$?" 0
  expect_eq "three figures" "$(sort -u "$TMP/cp.out" | wc -l)" 3
  local d=$TMP/coll/plots
  # the names: a_b as is; the others sanitized, then ~ and the digest of the real name
  local fs fb
  fs=histogram-a_b~$(fnv 'a b')
  fb=histogram-a_b~$(fnv 'a/b')
  for f in histogram-a_b "$fs" "$fb"; do check "$f.png drawn" test -s "$d/$f.png"; done
  # each figure holds its own channel's powers (10/11, 20/21, 30/31 W: the lowest bin edge)
  expect_eq "a_b's data" "$(awk -F'\t' '!/^#/ && NF { print $1; exit }' "$d/histogram-a_b.tsv")" 20
  expect_eq "a b's data" "$(awk -F'\t' '!/^#/ && NF { print $1; exit }' "$d/$fs.tsv")" 10
  expect_eq "a/b's data" "$(awk -F'\t' '!/^#/ && NF { print $1; exit }' "$d/$fb.tsv")" 30
  # the report: each figure captioned with its own channel, as it is named
  "$MW" report -q "$TMP/coll" -o "$TMP/crep" >/dev/null 2>"$TMP/cr.err"
  expect_eq "mw report: exit" "$?" 0
  python3 - "$TMP/crep/index.html" >"$TMP/caps.txt" <<'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
for src, cap in re.findall(r'<img src="fig/(histogram-[^"]*)\.png".*?<figcaption>.*?; channel (.*?)\. <code>', page, re.S):
    print(src.replace("%7E", "~"), cap.replace("&#x2F;", "/").replace("&#47;", "/"))
PY
  expect_eq "captions" "$(sort "$TMP/caps.txt")" "$(printf '%s\n' "histogram-a_b a_b" "$fs a b" "$fb a/b" | sort)"
}

csv_formulas() {
  printf 'time_s,channel,power_w\n1,"=HYPERLINK(""http://x.invalid"",""y"")",10\n2,"=HYPERLINK(""http://x.invalid"",""y"")",11\n1,-12,5\n2,-12,5\n' \
    >"$TMP/formula.csv"
  "$MW" import --format csv "$TMP/formula.csv" -o "$TMP/frun" >/dev/null 2>&1
  "$MW" export "$TMP/frun" --format csv >"$TMP/f.csv" 2>"$TMP/f.err"
  expect_eq "export: exit" "$?" 0
  # the name written as recorded, RFC 4180 quoted; a signed number is not warned about
  expect_eq "the name verbatim" "$(grep -c '^1.000000,"=HYPERLINK(""http://x.invalid"",""y"")",10.000,' "$TMP/f.csv")" 1
  expect_eq "one warning line" "$(wc -l <"$TMP/f.err")" 1
  expect_grep "the warning" "^mw export: warning: 2 text fields begin with =, +, -, @, tab or CR (first: row 1, column channel)" "$TMP/f.err"
  # and it goes back in unchanged
  "$MW" import --format csv "$TMP/f.csv" -o "$TMP/frun2" >/dev/null 2>&1
  expect_eq "round trip" "$(q "$TMP/frun2" "select name from channels order by channel" | head -1)" \
    '=HYPERLINK("http://x.invalid","y")'
  # JSON is not a spreadsheet's: no warning
  "$MW" export "$TMP/frun" --format json >/dev/null 2>"$TMP/fj.err"
  expect_eq "json: no warning" "$(wc -c <"$TMP/fj.err")" 0
}

merge_fifo() {
  "$MW" record -q -o "$TMP/mrun" --meter sim -- sleep 0.5 >/dev/null 2>&1
  mkdir -p "$TMP/mrun/probe"
  mkfifo "$TMP/mrun/probe/x.mwp"
  timeout 30 "$MW" merge "$TMP/mrun" >"$TMP/m.out" 2>"$TMP/m.err"
  expect_eq "merge: exit" "$?" 0
  expect_grep "the FIFO skipped" "probe/x.mwp: not a regular file (file skipped)" "$TMP/m.err"
}

file_size_limit() {
  mkdir -p "$TMP/fsz"
  python3 -c 'print("time_s,channel,power_w"); [print(f"{i * 0.25:.2f},a,{100 + i % 7}") for i in range(60000)]' \
    >"$TMP/fsz/big.csv"
  ( ulimit -f 200; "$MW" import --format csv "$TMP/fsz/big.csv" -o "$TMP/fsz/imp" ) \
    >/dev/null 2>"$TMP/fsz-imp.err"
  expect_eq "import: exit 1 (not 153: killed by SIGXFSZ)" "$?" 1
  expect_grep "import: says where" "fsz/imp.import-.*/trace.db" "$TMP/fsz-imp.err"
  expect_eq "import: nothing left" "$(ls "$TMP/fsz")" big.csv
  "$MW" import --format csv "$TMP/fsz/big.csv" -o "$TMP/fsz/run" 2>/dev/null
  expect_eq "import without the limit" "$?" 0
  ( ulimit -f 100; "$MW" export "$TMP/fsz/run" --format csv -o "$TMP/fsz/out.csv" ) \
    >/dev/null 2>"$TMP/fsz-exp.err"
  expect_eq "export: exit 1" "$?" 1
  expect_grep "export: says why" "out.csv: write error" "$TMP/fsz-exp.err"
  expect_eq "export: no file, no temporary" "$(ls "$TMP/fsz" | grep -c out)" 0
}

run_case endless_inputs
run_case long_line
run_case fifo_inputs
run_case pipe_works
run_case nul_in_csv
run_case channels_errors
run_case figure_names
run_case csv_formulas
run_case merge_fifo
run_case file_size_limit
finish
