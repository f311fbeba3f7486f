#!/usr/bin/env bash
# mw export --format otf2, read back by tools nobody here wrote: the OTF2 project's own
# python3-otf2 reader (tests/integration/export_check.py) must find the same phases (rank,
# host, thread, kind, name, bytes, times) and the same power windows, hence the same energy
# Σ P·Δt per channel, as `mw export --format csv`, and the run's MPI messages with their bytes;
# otf2-print must read it. The run (export_fixture.sh) has names with quotes, a newline and an
# invalid UTF-8 byte, and phases that overlap without nesting. Bad arguments exit 2 and create
# nothing; a failure half-way (a hostile store, a full disk) leaves nothing behind.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh
. tests/integration/export_fixture.sh

# Debian's python3-otf2 is for Debian's python3, which may not be first on PATH
PY_OTF2=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import otf2' 2>/dev/null; then PY_OTF2=$p; break; fi
done

R=$TMP/run
make_export_run "$R" || { echo "cannot make the run"; exit 1; }
export_truth "$R" "$TMP" || { echo "cannot export the CSV"; exit 1; }

reads_back() {
  "$MW" export "$R" --format otf2 -o "$TMP/otf2" 2>"$TMP/err"
  expect_eq "exit" "$?" 0
  expect_eq "nothing on stderr" "$(wc -c <"$TMP/err")" 0
  check "an archive" test -f "$TMP/otf2/traces.otf2" -a -f "$TMP/otf2/traces.def" -a -d "$TMP/otf2/traces"
  expect_eq "no temporary left" "$(ls -a "$TMP" | grep -c 'otf2\.tmp-')" 0
  check "python3-otf2 is installed" test -n "$PY_OTF2"
  "$PY_OTF2" "$CHECK" otf2 "$TMP/otf2/traces.otf2" "$TMP/phases.csv" "$TMP/samples.csv" \
    "$TMP/meta.json" "$TMP/channels.json" "$TMP/p2p.json" >"$TMP/check.out" 2>&1
  expect_eq "python3-otf2 reads what the CSV says" "$?" 0
  sed 's/^/    /' "$TMP/check.out"
  # otf2-print: every phase an ENTER and a LEAVE, every window a METRIC (plus a NaN opening
  # each of a channel's two stretches, before and after the gap), the two MPI_Send and two
  # MPI_Recv with their 1 MiB
  otf2-print "$TMP/otf2/traces.otf2" >"$TMP/print.txt" 2>"$TMP/print.err"
  expect_eq "otf2-print: exit" "$?" 0
  local phases windows channels
  phases=$(q "$R" "select count(*) from phases")
  windows=$(q "$R" "select count(*) from samples")
  channels=$(q "$R" "select count(*) from channels")
  expect_eq "otf2-print: ENTER per phase" "$(grep -c '^ENTER ' "$TMP/print.txt")" "$phases"
  expect_eq "otf2-print: LEAVE per phase" "$(grep -c '^LEAVE ' "$TMP/print.txt")" "$phases"
  expect_eq "otf2-print: METRIC per window" "$(grep -c '^METRIC ' "$TMP/print.txt")" "$((windows + 2 * channels))"
  expect_eq "otf2-print: NaN per stretch" "$(grep '^METRIC ' "$TMP/print.txt" | grep -c 'DOUBLE; nan')" "$((2 * channels))"
  expect_eq "otf2-print: sends of 1 MiB" "$(grep '^MPI_SEND ' "$TMP/print.txt" | grep -c 'Length: 1048576')" 2
  expect_eq "otf2-print: receives of 1 MiB" "$(grep '^MPI_RECV ' "$TMP/print.txt" | grep -c 'Length: 1048576')" 2
  otf2-print -G "$TMP/otf2/traces.otf2" >"$TMP/defs.txt" 2>&1
  expect_grep "power in W" 'METRIC_MEMBER .*"power".*ABSOLUTE_LAST.*Unit: "W"' "$TMP/defs.txt"
  expect_grep "the second lane of rank 0's thread 0" '"thread 0 lane 2"' "$TMP/defs.txt"
  expect_grep "GPU work on a location of its own" 'Name: "thread 0 gpu".*ACCELERATOR_STREAM' "$TMP/defs.txt"
}

hostile_names() {
  # the strings come back exactly (the invalid byte as U+FFFD: OTF2 strings are UTF-8)
  "$PY_OTF2" - "$TMP/otf2/traces.otf2" >"$TMP/names.out" 2>&1 <<'PY'
import sys, otf2
with otf2.reader.open(sys.argv[1]) as t:
    s = {x.name for x in t.definitions.strings} if hasattr(t.definitions, "strings") else set()
    names = {r.name for r in t.definitions.regions}
    nodes = {n.name for n in t.definitions.system_tree_nodes}
    locs = {l.name for l in t.definitions.locations}
want = {'com"pute\n,x\\y' : names, 'bad\ufffdutf': names, 'h"ost\n2': nodes,
        'power N1 "quoted", first\nsecond \\ line': locs}
bad = [k for k, where in want.items() if k not in where]
print("missing:", bad) if bad else print("all four names exact")
sys.exit(1 if bad else 0)
PY
  expect_eq "hostile names exact" "$?" 0
  sed 's/^/    /' "$TMP/names.out"
}

bad_arguments() {
  local o=$TMP/bad
  mkdir "$o"
  expect_mw_usage export "no -o" "needs -o DIR" "$R" --format otf2
  expect_mw_usage export "--what" "--what: not with --format otf2" "$R" --format otf2 --what phases -o "$o/x"
  expect_mw_usage export "unknown format" "is not csv, json, otf2 or perfetto" "$R" --format otf3 -o "$o/x"
  mkdir "$o/exists"
  expect_mw_usage export "existing directory" "exists" "$R" --format otf2 -o "$o/exists"
  expect_eq "existing directory left empty" "$(ls -A "$o/exists")" ""
  mkdir "$o/target"
  ln -s "$o/target" "$o/link"
  expect_mw_usage export "a link" "exists" "$R" --format otf2 -o "$o/link"
  expect_eq "the link's target untouched" "$(ls -A "$o/target")" ""
  expect_mw_usage export "not a run" "not a run" "$TMP/nowhere" --format otf2 -o "$o/x"
  expect_eq "nothing created" "$(ls -A "$o" | tr '\n' ' ')" "exists link target "
}

failure_leaves_nothing() {
  # a hostile store: a phase before 1970, which OTF2 cannot hold -> exit 1, nothing left
  local h=$TMP/hostile
  mkdir "$h" && cp "$R/trace.db" "$h/"
  sqlite3 "$h/trace.db" "UPDATE phases SET start_ns = -5 WHERE name = 'MPI_Init' AND rank = 2"
  "$MW" export "$h" --format otf2 -o "$TMP/neg" 2>"$TMP/neg.err"
  expect_eq "exit" "$?" 1
  expect_grep "says why" "before 1970" "$TMP/neg.err"
  check "no archive" test ! -e "$TMP/neg"
  expect_eq "no temporary left" "$(ls -a "$TMP" | grep -c 'neg\.tmp-')" 0
}

disk_full() {
  # a real full disk (root: a 16 KiB tmpfs; the archive needs more): exit 1 with the
  # system's reason, nothing left behind
  local m=$TMP/mnt
  mkdir "$m"
  if ! mount -t tmpfs -o size=16k tmpfs "$m" 2>/dev/null; then
    echo "  (cannot mount a tmpfs here: skipped)"
    return
  fi
  "$MW" export "$R" --format otf2 -o "$m/t" 2>"$TMP/full.err"
  local rc=$? left; left=$(ls -A "$m")
  umount "$m"
  expect_eq "exit" "$rc" 1
  expect_grep "says why" "No space left on device" "$TMP/full.err"
  expect_eq "nothing left" "$left" ""
}

empty_run() {
  # no phases, no windows: an archive of the channels' empty metrics, readable
  local e=$TMP/empty
  mkdir "$e" && cp "$R/trace.db" "$e/"
  sqlite3 "$e/trace.db" "DELETE FROM phases; DELETE FROM windows"
  "$MW" export "$e" --format otf2 -o "$TMP/empty.otf2"
  expect_eq "exit" "$?" 0
  otf2-print "$TMP/empty.otf2/traces.otf2" >/dev/null 2>&1
  expect_eq "otf2-print reads it" "$?" 0
}

run_case reads_back
run_case hostile_names
run_case bad_arguments
run_case failure_leaves_nothing
run_case disk_full
run_case empty_run
finish
