#!/usr/bin/env bash
# A chatty MPI program (tests/bench/chatty.c: 1-byte MPI_Send/MPI_Recv ping-pongs between 2
# ranks as fast as they go) recorded as a user would, with libmwprobe preloaded by mpirun on
# the simulated cluster (issue 21):
# - at the default buffer nothing is dropped at full speed (here tens of thousands of calls/s
#   per rank: the generous bound is 5,000), every call is stored (the program's own count of
#   calls, and MPI_Init..MPI_Finalize: at least 2 x CALLS phases, as rows of phases or, the
#   MPI calls of a process of >= 65,536 events, in phase_blocks), and the spill files are
#   gone after the merge;
# - the same events stored compactly (MW_MERGE_COMPACT_EVENTS=1: phase_blocks) read back
#   through mw export as the same number of phases, and the store holds at most 24 bytes
#   an event more than the recording without them;
# - MW_MERGE_AGGREGATE_HZ=1000 replaces the busy meter windows' calls by one phase per name
#   and window: meta probe_aggregated_events counts them, the phases left are the events
#   less those, and each rank's time in MPI_Send is the same as without aggregation within
#   the calls' own rounding (the sums are exact: within 1 ns per aggregate);
# - a forced tiny buffer (MW_PROBE_RING_EVENTS=16) drops events: they are counted in the run
#   (meta probe_dropped_events > 0, and probe_events + dropped >= 2 x CALLS) and warned about
#   by mw record (even with -q), mw analyze and mw report.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
PROG=$TMP/chatty
mpicc -O2 tests/bench/chatty.c -o "$PROG" || { echo "cannot build the test program"; exit 1; }
PROBE=$(abs "$BUILD/lib/libmwprobe.so")

# record R SECONDS [ENV...]: the chatty program under mw record -q; its calls per rank in CALLS
record() {
  local r=$1 s=$2
  shift 2
  env "$@" "$MW" record -q -o "$r" --meter sim:cluster --idle 0.5 -- \
    mpirun --oversubscribe -np 2 -x LD_PRELOAD="$PROBE" "$PROG" 0 "$s" >"$r.out" 2>&1
  expect_eq "record $r: exit" "$?" 0
  CALLS=$(sed -n 's/^chatty: \([0-9]*\) calls per rank.*/\1/p' "$r.out")
  RATE=$(sed -n 's/.*: \([0-9]*\) calls\/s per rank/\1/p' "$r.out")
}

default_drops_nothing() {
  R=$TMP/full
  record "$R" 3
  expect_num "calls/s per rank (a chatty program)" "$RATE" 5000 1e9
  expect_eq "dropped" "$(q "$R" "select value from meta where key='probe_dropped_events'")" 0
  local events
  events=$(q "$R" "select value from meta where key='probe_events'")
  expect_num "events merged (>= 2 x $CALLS calls)" "$events" $((2 * CALLS)) 1e12
  expect_eq "events stored (rows and blocks)" "$(q "$R" "select (select count(*) from phases
    where kind <> 'mw') + (select coalesce(sum(events), 0) from phase_blocks)")" "$events"
  expect_eq "no warning" "$(grep -c 'dropped' "$R.out")" 0
  check "spill files removed after the merge" test ! -e "$R/probe"
  "$MW" analyze "$R" >"$TMP/analyze.out" 2>&1
  expect_eq "analyze: no drop warning" "$(grep -c 'dropped' "$TMP/analyze.out")" 0
}

compact_reads_back() {
  R=$TMP/compact
  record "$R" 2 MW_MERGE_COMPACT_EVENTS=1
  local events phases blocks
  events=$(q "$R" "select value from meta where key='probe_events'")
  expect_num "events ($CALLS calls per rank)" "$events" $((2 * CALLS)) 1e12
  expect_eq "no probe phase as a row" "$(q "$R" "select count(*) from phases where kind <> 'mw'")" 0
  expect_eq "all in blocks" "$(q "$R" "select sum(events) from phase_blocks")" "$events"
  "$MW" export "$R" --format csv --what phases -o "$TMP/phases.csv"
  expect_eq "export: exit" "$?" 0
  phases=$(($(wc -l <"$TMP/phases.csv") - 1))
  expect_eq "exported phases = events + the recorder's own" "$phases" \
    "$((events + $(q "$R" "select count(*) from phases where kind = 'mw'")))"
  blocks=$(q "$R" "select sum(length(data) + length(host) + 48) from phase_blocks")
  expect_num "bytes per event in the blocks" "$(awk -v b="$blocks" -v e="$events" 'BEGIN { print b / e }')" 1 24
  check "spill files removed" test ! -e "$R/probe"
}

aggregated() {
  R=$TMP/agg
  record "$R" 2 MW_MERGE_AGGREGATE_HZ=1000 MW_KEEP_SPILL=1
  local events agg left
  events=$(q "$R" "select value from meta where key='probe_events'")
  agg=$(q "$R" "select value from meta where key='probe_aggregated_events'")
  expect_num "events aggregated" "$agg" 1 "$events"
  "$MW" export "$R" --format csv --what phases -o "$TMP/agg.csv"
  left=$(awk -F, 'NR > 1 && $4 != "mw"' "$TMP/agg.csv" | wc -l)
  expect_eq "phases left = events - aggregated" "$left" "$((events - agg))"
  # the same spill files merged without aggregation: each rank's total MPI_Send time agrees
  cp -r "$R" "$TMP/agg-plain"
  env -u MW_MERGE_AGGREGATE_HZ "$MW" merge "$TMP/agg-plain" >/dev/null 2>&1
  expect_eq "merge again: exit" "$?" 0
  local a b
  a=$(awk -F, '$5 == "MPI_Send" { s[$1] += $7 - $6 } END { for (r in s) printf "%s:%.6f ", r, s[r] }' "$TMP/agg.csv" | tr ' ' '\n' | sort | tr '\n' ' ')
  "$MW" export "$TMP/agg-plain" --format csv --what phases -o "$TMP/plain.csv"
  b=$(awk -F, '$5 == "MPI_Send" { s[$1] += $7 - $6 } END { for (r in s) printf "%s:%.6f ", r, s[r] }' "$TMP/plain.csv" | tr ' ' '\n' | sort | tr '\n' ' ')
  check "time in MPI_Send per rank (s) kept: $a" test -n "$a"
  expect_num "MPI_Send time, rank 0: aggregated - plain (s)" \
    "$(awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, "[: ]"); split(b, y, "[: ]"); print x[2] - y[2] }')" -0.01 0.01
}

tiny_ring_drops_counted_and_warned() {
  R=$TMP/tiny
  record "$R" 1 MW_PROBE_RING_EVENTS=16
  local dropped events
  dropped=$(q "$R" "select value from meta where key='probe_dropped_events'")
  events=$(q "$R" "select value from meta where key='probe_events'")
  expect_num "dropped (counted in the run)" "$dropped" 1 1e12
  expect_num "events + dropped >= 2 x $CALLS calls" "$((events + dropped))" $((2 * CALLS)) 1e12
  expect_grep "record warns (with -q)" "warning: the probes dropped $dropped events" "$R.out"
  "$MW" analyze "$R" >"$TMP/analyze.out" 2>&1
  expect_grep "analyze warns" "warning: the probes dropped $dropped events" "$TMP/analyze.out"
  "$MW" report "$R" -q --no-figures -o "$TMP/report" >"$TMP/report.out" 2>&1
  expect_eq "report: exit" "$?" 0
  expect_grep "report warns" "the probes dropped $dropped events" "$TMP/report/index.html"
  check "spill files removed" test ! -e "$R/probe"
}

run_case default_drops_nothing
run_case compact_reads_back
run_case aggregated
run_case tiny_ring_drops_counted_and_warned
finish
