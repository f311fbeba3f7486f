#!/usr/bin/env bash
# Hostile links (docs/reliability.md, "Hardening"): a link planted in a run or output
# directory, where mw writes or removes a file of its own, is never followed.
#   traffic_link   RUN/traffic, the simulated cluster's traffic directory (MW_TRAFFIC_DIR,
#                  where the processes' probes write), is a link to another directory: mw
#                  record replaces the link by a directory of its own before the command
#                  starts (the message names RUN/traffic), nothing is written into or removed
#                  from the other directory; a stale RUN/traffic holding a link named like a
#                  pid is emptied first, the link's target untouched
#   probe_link     RUN/probe, where the probes write their spill files, is a link to another
#                  directory: mw record replaces it by its own before the command starts (one
#                  line), an instrumented program's events still reach the run, and the other
#                  directory gains no spill file (the old code wrote HOST.PID.mwp into it)
#   plot_links     RUN/plots/trace.gp, trace.tsv and trace.png are links to files elsewhere:
#                  mw plot replaces the links with its own files, the targets are unchanged
#                  (gnuplot draws into a private directory; everything is renamed into place)
#   report_link    OUT/index.html and OUT/index.html.tmp (the old temporary name) are links:
#                  mw report writes its page in place of the link, the targets unchanged
#   log_link       mw vmeter --log-frames FILE where FILE is a link: refused (exit 2, the
#                  log grows in place while the meter runs, so it is opened O_NOFOLLOW), the
#                  target unchanged (mw pareto --profile-out and mw fit --table replace a link:
#                  test_pareto_runs.sh)
#   export_link    mw export -o FILE where FILE is a link: the link is replaced, its target
#                  unchanged (already so: a regression guard)
# Each case but export_link fails with the mw of fd82aef (before the fix).
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

RUN=$TMP/run
record_fixture() {
  [ -f "$RUN/trace.db" ] && return 0
  "$MW" record -q -o "$RUN" --meter sim --idle 1 -- sleep 1 >/dev/null 2>"$TMP/fixture.err"
}

# plant NAME: a file elsewhere/NAME with known text
plant() {
  mkdir -p "$TMP/elsewhere"
  echo "victim $1" >"$TMP/elsewhere/$1"
}
untouched() { expect_eq "$1 untouched" "$(head -c 60 "$TMP/elsewhere/$1")" "victim $1"; }
is_file() { check "$1 is a plain file now" test -f "$1" -a ! -L "$1"; }

traffic_link() {
  mkdir -p "$TMP/victimdir" "$TMP/runT"
  echo keep >"$TMP/victimdir/precious"
  ln -s "$TMP/victimdir" "$TMP/runT/traffic"
  # the command writes its traffic file where MW_TRAFFIC_DIR says, as the probe does
  "$MW" record -q --force -o "$TMP/runT" --meter sim:cluster -- \
    sh -c 'test -d "$MW_TRAFFIC_DIR" -a ! -L "$MW_TRAFFIC_DIR" && echo own >"$MW_TRAFFIC_DIR/4242"' \
    >/dev/null 2>"$TMP/traffic.err"
  expect_eq "record: exit (MW_TRAFFIC_DIR a directory, not the link)" "$?" 0
  check "victimdir/precious kept" test -f "$TMP/victimdir/precious"
  expect_eq "nothing written into victimdir" "$(ls "$TMP/victimdir")" precious
  check "the link replaced, the directory removed at the end" test ! -e "$TMP/runT/traffic"
  expect_grep "the message names the link" "$TMP/runT/traffic: was not a directory of mw's" \
    "$TMP/traffic.err"
  # a stale directory RUN/traffic with a link named like a pid in it, pointing at a file
  # elsewhere: the recorder empties it first (the link removed, not followed)
  mkdir -p "$TMP/runT/traffic"
  echo victim >"$TMP/victimdir/file"
  ln -s "$TMP/victimdir/file" "$TMP/runT/traffic/4242"
  "$MW" record -q --force -o "$TMP/runT" --meter sim:cluster -- \
    sh -c 'test ! -e "$MW_TRAFFIC_DIR/4242" && echo own >"$MW_TRAFFIC_DIR/4242"' \
    >/dev/null 2>"$TMP/traffic2.err"
  expect_eq "record 2: exit (the planted link gone before the command)" "$?" 0
  expect_eq "victimdir/file untouched" "$(cat "$TMP/victimdir/file")" victim
}

probe_link() {
  mkdir -p "$TMP/victimP" "$TMP/runP"
  echo keep >"$TMP/victimP/precious"
  ln -s "$TMP/victimP" "$TMP/runP/probe"
  "$MW" record -q --force -o "$TMP/runP" --meter sim -- "$BUILD/bin/mwb-idle" --seconds 1 \
    >/dev/null 2>"$TMP/probe.err"
  expect_eq "record: exit" "$?" 0
  expect_eq "nothing written into victimP" "$(ls "$TMP/victimP")" precious
  expect_grep "the message names the link" "$TMP/runP/probe: was not a directory of mw's" \
    "$TMP/probe.err"
  expect_eq "only the store and the lock left in the run" "$(ls -A "$TMP/runP" | tr '\n' ' ')" ".lock trace.db "
  expect_eq "the program's phase merged" \
    "$(sqlite3 -readonly "$TMP/runP/trace.db" "select count(*) from phases where name = 'idle'")" 1
}

log_link() {
  plant frames.log
  ln -sf "$TMP/elsewhere/frames.log" "$TMP/frames-link.log"
  "$MW" vmeter --seconds 1 --link "$TMP/vm-link.tty" --log-frames "$TMP/frames-link.log" \
    >/dev/null 2>"$TMP/log.err"
  expect_eq "vmeter: exit" "$?" 2
  expect_grep "says why" "frames-link.log: Too many levels of symbolic links" "$TMP/log.err"
  untouched frames.log
}

plot_links() {
  check "record the fixture" record_fixture
  mkdir -p "$RUN/plots"
  for n in trace.gp trace.tsv trace.png; do
    plant "$n"
    ln -sf "$TMP/elsewhere/$n" "$RUN/plots/$n"
  done
  "$MW" plot "$RUN" --kind trace >"$TMP/plot.out" 2>"$TMP/plot.err"
  expect_eq "mw plot: exit" "$?" 0
  for n in trace.gp trace.tsv trace.png; do
    untouched "$n"
    is_file "$RUN/plots/$n"
  done
  check "the figure drawn" test -s "$RUN/plots/trace.png"
  expect_eq "no private directory left" "$(find "$RUN/plots" -name '.*' ! -name . | wc -l)" 0
}

report_link() {
  check "record the fixture" record_fixture
  mkdir -p "$TMP/rep"
  for n in index.html index.html.tmp; do
    plant "$n"
    ln -sf "$TMP/elsewhere/$n" "$TMP/rep/$n"
  done
  "$MW" report -q "$RUN" -o "$TMP/rep" >/dev/null 2>"$TMP/report.err"
  expect_eq "mw report: exit" "$?" 0
  untouched index.html
  untouched index.html.tmp
  is_file "$TMP/rep/index.html"
  expect_grep "the page written" "<html" "$TMP/rep/index.html"
}

export_link() {
  check "record the fixture" record_fixture
  plant out.csv
  ln -sf "$TMP/elsewhere/out.csv" "$TMP/out.csv"
  "$MW" export "$RUN" --format csv -o "$TMP/out.csv" >/dev/null 2>"$TMP/export.err"
  expect_eq "mw export: exit" "$?" 0
  untouched out.csv
  is_file "$TMP/out.csv"
}

run_case traffic_link
run_case probe_link
run_case plot_links
run_case report_link
run_case log_link
run_case export_link
finish
