#!/usr/bin/env bash
# mw export --format perfetto: Chrome/Perfetto trace-event JSON, read with Python's strict
# json (tests/integration/export_check.py): its structure (M/X/C events only; a process per
# host named by it, every counter in its channel's host's process; a thread per rank and
# thread named for them; slices that nest on each thread) and its numbers, which must equal
# what `mw export --format csv` says: the same phases (rank, host, thread, kind, name, bytes,
# times), every window's power at its start, the same energy Σ P·Δt per channel. The run
# (export_fixture.sh) has names with quotes, a newline and an invalid UTF-8 byte, and phases
# that overlap without nesting. Standard output and -o write the same; -o replaces a link
# instead of writing through it; a full disk leaves no file; bad arguments exit 2.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh
. tests/integration/export_fixture.sh

R=$TMP/run
make_export_run "$R" || { echo "cannot make the run"; exit 1; }
export_truth "$R" "$TMP" || { echo "cannot export the CSV"; exit 1; }

matches_csv() {
  "$MW" export "$R" --format perfetto -o "$TMP/trace.json" 2>"$TMP/err"
  expect_eq "exit" "$?" 0
  expect_eq "nothing on stderr" "$(wc -c <"$TMP/err")" 0
  python3 "$CHECK" perfetto "$TMP/trace.json" "$TMP/phases.csv" "$TMP/samples.csv" \
    "$TMP/meta.json" "$TMP/channels.json" "$TMP/p2p.json" >"$TMP/check.out" 2>&1
  expect_eq "the JSON says what the CSV says" "$?" 0
  sed 's/^/    /' "$TMP/check.out"
  # counts, independently of the checker: a slice per phase, a process per host
  expect_eq "a slice per phase" "$(python3 -c 'import json,sys; print(sum(e["ph"] == "X" for e in json.load(open(sys.argv[1]))["traceEvents"]))' "$TMP/trace.json")" \
    "$(q "$R" "select count(*) from phases")"
  expect_eq "processes" "$(python3 -c 'import json,sys; print(sorted(e["args"]["name"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e["name"] == "process_name"))' "$TMP/trace.json")" \
    "['N1', 'N3', 'h\"ost\\n2', 'meter (no host)', 'vm']"
  expect_grep "the second lane of rank 0's thread 0" '"rank 0 thread 0 lane 2"' "$TMP/trace.json"
}

hostile_names() {
  python3 - "$TMP/trace.json" >"$TMP/names.out" 2>&1 <<'PY'
import json, sys
ev = json.load(open(sys.argv[1], encoding="utf-8"))["traceEvents"]
names = {e["name"] for e in ev if e["ph"] in "XC"}
want = ['com"pute\n,x\\y', 'bad\ufffdutf', 'N1 "quoted", first\nsecond \\ line']
bad = [w for w in want if w not in names]
print("missing:", bad) if bad else print("all three names exact")
sys.exit(1 if bad else 0)
PY
  expect_eq "hostile names exact" "$?" 0
  sed 's/^/    /' "$TMP/names.out"
}

stdout_and_links() {
  "$MW" export "$R" --format perfetto >"$TMP/stdout.json"
  expect_eq "stdout: exit" "$?" 0
  check "stdout = -o" cmp -s "$TMP/stdout.json" "$TMP/trace.json"
  echo keep >"$TMP/target.txt"
  ln -s "$TMP/target.txt" "$TMP/link.json"
  "$MW" export "$R" --format perfetto -o "$TMP/link.json"
  expect_eq "over a link: exit" "$?" 0
  expect_eq "the link's target untouched" "$(cat "$TMP/target.txt")" keep
  check "the link replaced by the file" test ! -L "$TMP/link.json" -a -f "$TMP/link.json"
}

disk_full() {
  # a real full disk (root: a 4 KiB tmpfs; the JSON needs more): exit 1, no file left
  local m=$TMP/mnt
  mkdir "$m"
  if ! mount -t tmpfs -o size=4k tmpfs "$m" 2>/dev/null; then
    echo "  (cannot mount a tmpfs here: skipped)"
    return
  fi
  "$MW" export "$R" --format perfetto -o "$m/t.json" 2>"$TMP/full.err"
  local rc=$? left; left=$(ls -A "$m")
  umount "$m"
  expect_eq "exit" "$rc" 1
  expect_grep "says why" "No space left on device" "$TMP/full.err"
  expect_eq "nothing left" "$left" ""
}

bad_arguments() {
  expect_mw_usage export "--what" "--what: not with --format perfetto" "$R" --format perfetto --what samples
  expect_mw_usage export "no format" "missing --format" "$R"
  check "nothing created" test ! -e "$TMP/x.json"
}

run_case matches_csv
run_case hostile_names
run_case stdout_and_links
run_case disk_full
run_case bad_arguments
finish
