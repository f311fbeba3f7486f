#!/usr/bin/env bash
# Hostile run stores (docs/reliability.md, "Hardening"): a trace.db is a file anyone can hand
# over, and a SQLite file can carry more than data. Each case starts from a copy of a real run
# (mw record --meter sim -- sleep 1) and changes it with the sqlite3 shell.
#   trigger          a trigger on phases (AFTER INSERT, and AFTER DELETE: mw merge clears the
#                    instrumentation's phases, so that one fires even with no probe files):
#                    mw merge, analyze, show, ls, export refuse with exit 2, "not a megawatt
#                    run store: it holds trigger NAME", and the samples are all still there
#   view             a view: the same refusal, "it holds view NAME"
#   unknown_table    a table (and, separately, an index) the schema does not have: the same
#   virtual_table    a table of the schema's name made a virtual table (its module's code
#                    would run): the same refusal, "it holds virtual table NAME"
#   one_key          20,000 rows of windows under one key (segment 0, seq 0, the same times):
#                    a reader refuses the store (exit 2, "share one window's key") within
#                    60 s, rather than reading it whole into memory as one window
#   channel_overflow a row's channel0 of INT64_MAX: exit 2, "channel = ... out of its range"
#   normal_opens     the unchanged run still opens (exit 0), ANALYZE's sqlite_stat1 included
#   sweep_trigger    a sweep.db with a trigger: mw analyze SWEEPDIR refuses, exit 2
#   escapes          a channel named with ESC[31m and a newline, a host with a BEL, and a
#                    recorded command line with escapes: mw show, mw ls and mw analyze (text)
#                    write no control byte but newlines ending their lines; the names appear
#                    as \x1b[31m and \n, and plain names print as before
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

BASE=$TMP/base
"$MW" record -o "$BASE" --meter sim -- sleep 1 > "$TMP/record.log" 2>&1 ||
  { echo "mw record failed:"; cat "$TMP/record.log"; exit 1; }
NSAMPLES=$(q "$BASE" "SELECT count(*) FROM samples")

# hostile NAME SQL: a copy of the base run with SQL applied; prints its directory
hostile() {
  local d=$TMP/$1
  rm -rf "$d"; cp -r "$BASE" "$d"
  sqlite3 "$d/trace.db" "$2" || echo "  FAIL: sqlite3 could not plant $1"
  echo "$d"
}

# refused DIR WHAT: every reading/writing command exits 2 naming WHAT; samples intact
refused() {
  local d=$1 what=$2 args
  for args in "merge $d" "analyze $d" "show $d" "ls $d" "export --format csv $d" \
    "stats --channel ch1 --quantity energy --group g $d"; do
    # shellcheck disable=SC2086
    "$MW" $args > "$TMP/out.txt" 2> "$TMP/err.txt"
    expect_eq "mw $args: exit" "$?" 2
    expect_grep "mw $args" "not a megawatt run store: it holds $what" "$TMP/err.txt"
  done
  expect_eq "samples intact" "$(q "$d" "SELECT count(*) FROM samples")" "$NSAMPLES"
}

trigger() {
  local d
  d=$(hostile trig_ins "CREATE TRIGGER wipe AFTER INSERT ON phases BEGIN DELETE FROM samples; END")
  refused "$d" "trigger wipe"
  d=$(hostile trig_del "INSERT INTO phases(rank, host, thread, kind, name, start_ns, end_ns, bytes)
    VALUES (0, 'h', 0, 'user', 'p', 1, 2, 0);
    CREATE TRIGGER wipe2 AFTER DELETE ON phases BEGIN DELETE FROM samples; END")
  refused "$d" "trigger wipe2"
}

view() {
  local d
  d=$(hostile view "CREATE VIEW v AS SELECT * FROM samples")
  refused "$d" "view v"
  # the schema's own view samples (version 6) passes only word for word: another one runs
  # its own SQL when a reader selects from samples (here: the same rows, one word more)
  local sql
  sql=$(q "$BASE" "SELECT sql FROM sqlite_schema WHERE type = 'view' AND name = 'samples'")
  d=$(hostile ourview "DROP VIEW samples; $sql AND 1")
  refused "$d" "view samples"
}

unknown_table() {
  local d
  d=$(hostile table "CREATE TABLE extra(x)")
  refused "$d" "table extra"
  d=$(hostile index "CREATE INDEX extra_idx ON windows(p1)")
  refused "$d" "index extra_idx"
}

virtual_table() {
  local d
  d=$(hostile virt "DROP TABLE gaps; CREATE VIRTUAL TABLE gaps USING fts4(start_ns, end_ns, reason, meter)")
  refused "$d" "virtual table gaps"
}

# bad_input DIR WHAT: the readers exit 2 naming WHAT, within 60 s each
bad_input() {
  local d=$1 what=$2 args
  for args in "export --format csv $d" "analyze $d"; do
    # shellcheck disable=SC2086
    timeout 60 "$MW" $args > "$TMP/out.txt" 2> "$TMP/err.txt"
    expect_eq "mw $args: exit" "$?" 2
    expect_grep "mw $args" "$what" "$TMP/err.txt"
  done
}

one_key() {
  local d
  d=$(hostile onekey "UPDATE windows SET segment = 0, seq = 0, t0_ns = 1, t1_ns = 2;
    CREATE TEMP TABLE one AS SELECT * FROM windows LIMIT 1; UPDATE one SET id = NULL;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
    INSERT INTO windows SELECT one.* FROM one, n")
  bad_input "$d" "share one window's key"
}

channel_overflow() {
  local d
  d=$(hostile chover "UPDATE windows SET channel0 = 9223372036854775807
    WHERE id = (SELECT min(id) FROM windows)")
  bad_input "$d" "channel = 9223372036854775807 is out of its range"
}

normal_opens() {
  local d
  d=$(hostile analyzed "ANALYZE")
  for args in "show $d" "analyze $d" "export --format csv $d"; do
    # shellcheck disable=SC2086
    "$MW" $args > "$TMP/out.txt" 2> "$TMP/err.txt"
    expect_eq "mw $args: exit" "$?" 0
  done
  "$MW" merge "$d" > "$TMP/out.txt" 2> "$TMP/err.txt"
  expect_eq "mw merge: exit" "$?" 0
}

sweep_trigger() {
  local s=$TMP/sweep
  "$MW" sweep -o "$s" --param n=1 --reps 1 --meter sim -- sleep {n} > "$TMP/sweep.log" 2>&1 ||
    { echo "  FAIL: mw sweep:"; sed 's/^/    /' "$TMP/sweep.log"; CASE_OK=0; return; }
  "$MW" analyze "$s" > /dev/null 2> "$TMP/err.txt"
  expect_eq "mw analyze SWEEPDIR (unchanged): exit" "$?" 0
  sqlite3 "$s/sweep.db" "CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM configs; END"
  "$MW" analyze "$s" > /dev/null 2> "$TMP/err.txt"
  expect_eq "mw analyze SWEEPDIR: exit" "$?" 2
  expect_grep "mw analyze SWEEPDIR" "not a megawatt sweep index: it holds trigger t" "$TMP/err.txt"
}

# no_ctl FILE WHAT: FILE holds no byte below 0x20 but newline, and no 0x7f
no_ctl() {
  if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$1"; then
    echo "  FAIL: $2: a raw control byte in the output:"; od -c "$1" | grep -E '033|007|\\t' | head -5
    CASE_OK=0
  fi
}

escapes() {
  local d
  d=$(hostile esc "UPDATE channels SET name = 'a' || char(27) || '[31mred' || char(10) || 'x',
      host = 'h' || char(7) WHERE channel = 1;
    UPDATE meta SET value = 'sleep ' || char(27) || ']0;pwn' || char(7) || ' 1' WHERE key = 'command';
    UPDATE meta SET value = 'mw record' || char(27) || '[2J' WHERE key = 'record_command'")
  "$MW" show "$d" > "$TMP/show.txt" 2>&1
  expect_eq "mw show: exit" "$?" 0
  no_ctl "$TMP/show.txt" "mw show"
  expect_grep "mw show: the name, escaped" 'a\\x1b\[31mred\\nx' "$TMP/show.txt"
  expect_grep "mw show: the command, escaped" 'sleep \\x1b\]0;pwn\\x07 1' "$TMP/show.txt"
  expect_grep "mw show: a plain name as before" '^ *2  ch2 ' "$TMP/show.txt"
  "$MW" ls "$d" > "$TMP/ls.txt" 2>&1
  expect_eq "mw ls: exit" "$?" 0
  no_ctl "$TMP/ls.txt" "mw ls"
  "$MW" analyze "$d" > "$TMP/an.txt" 2>&1
  expect_eq "mw analyze: exit" "$?" 0
  no_ctl "$TMP/an.txt" "mw analyze"
  expect_grep "mw analyze: the name, escaped" 'a\\x1b\[31mred\\nx' "$TMP/an.txt"
  expect_grep "mw analyze: the host, escaped" 'h\\x07' "$TMP/an.txt"
  # JSON stays JSON-escaped
  "$MW" analyze --json "$d" > "$TMP/an.json" 2>&1
  expect_grep "mw analyze --json" 'a\\u001b\[31mred\\nx' "$TMP/an.json"
}

# Every message on standard error escapes control bytes, whatever it carries: a path, a
# channel name, a library's text (mw_out_guard_stderr). Each command below fails with a
# message naming the hostile path or name; not one control byte but the line ends reaches
# the terminal.
stderr_escapes() {
  local bad="$TMP/x$(printf '\033[2J\033]0;pwn\a\rEVIL')" d
  local cmd
  for cmd in show ls analyze "export --format csv" plot report align "dvfs --freqs 2,1" merge; do
    "$MW" $cmd "$bad" > /dev/null 2> "$TMP/err.txt"
    expect_eq "mw $cmd: exit" "$?" 2
    no_ctl "$TMP/err.txt" "mw $cmd's message"
    expect_grep "mw $cmd: the path, escaped" 'x\\x1b\[2J\\x1b\]0;pwn\\x07\\rEVIL' "$TMP/err.txt"
  done
  d=$(hostile esc2 "UPDATE channels SET name = 'a' || char(27) || '[31mred' WHERE channel = 1")
  "$MW" analyze "$d" --idle-power "$(printf 'a\033[31mred')=nan" > /dev/null 2> "$TMP/err.txt"
  expect_eq "mw analyze --idle-power: exit" "$?" 2
  no_ctl "$TMP/err.txt" "mw analyze --idle-power's message"
}

run_case trigger
run_case view
run_case unknown_table
run_case virtual_table
run_case one_key
run_case channel_overflow
run_case normal_opens
run_case sweep_trigger
run_case escapes
run_case stderr_escapes
finish
