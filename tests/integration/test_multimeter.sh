#!/usr/bin/env bash
# mw record with several meters on one host (issue 22, "Several meters on one host"; the
# run store's version 5: docs/run-store.md).
#
# - Two simulated boards (--meter sim twice, each the real firmware in simavr): meters
#   sim-1 and sim-2, 5 + 5 channels numbered run-wide 1..10, each meter's channels with its
#   own windows covering the command; channel 1 and channel 6 read the load the board was
#   given (156.3 W, meter_spec.h), so each meter's channels are its own. mw show lists the
#   meters and whose each channel is, mw ls counts every channel, mw analyze shows them.
# - Two vmeters with different loads (A1 200 W and 300 W): channel 1 reads 200 W and
#   channel 6 (meter 2's A1) 300 W, names from a channels file "METER:CHANNEL NAME HOST".
#   Meter 2 unplugged (its vmeter killed) and plugged back: one "disconnected" gap, of meter
#   2 only; meter 1's windows run on without a missing sequence number and without a gap;
#   meter 2 is back in a new segment. Unplugged for good: a "meter lost (disconnected)" gap of
#   meter 2 only, status "complete, meter LINK lost at S s", exit 1, meter 1 intact.
# - Refused before the command starts (exit 2, one line, no run directory): a port listed
#   twice (the same path, or a link to it), a channels file naming a meter that is not
#   recorded (the file and line named), five meters, 'auto' beside another meter, and
#   'auto' on a machine without a meter on USB (says so).
# A board that cannot keep real time on a loaded machine adds true gaps of its own, "meter
# time fell behind" (docs/clock-model.md): those are allowed, of either meter, and left out
# of the counts; every case stops its boards so that no more than two run at once.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

meta_of() { q "$1" "select value from meta where key='$2'"; }
NOT_LAG="reason not like 'meter time fell behind (%'"
# windows of channel 1 missing from its segments' sequence numbers
MISSING_1="select coalesce(sum(n), 0) from (select max(seq) - min(seq) + 1 - count(*) as n
  from samples where channel = 1 group by segment)"

# wait_windows RUN CHANNEL N: until CHANNEL has N windows (at most 60 s)
wait_windows() {
  local i
  for i in $(seq 600); do
    [ -f "$1/trace.db" ] &&
      [ "$(q "$1" "select count(*) from samples where channel=$2" 2>/dev/null || echo 0)" -ge "$3" ] 2>/dev/null &&
      return 0
    sleep 0.1
  done
  return 1
}

two_sims() {
  local r=$TMP/sims
  "$MW" record -q -o "$r" --meter sim --meter sim -- sh -c 'sleep 3; echo done' \
    >"$TMP/sims.out" 2>"$TMP/sims.err"
  expect_eq "exit" "$?" 0
  expect_eq "status" "$(meta_of "$r" status)" complete
  expect_eq "meters" "$(q "$r" "select group_concat(meter || '=' || name, ' ') from meters")" "1=sim-1 2=sim-2"
  expect_eq "channels of meter 1" "$(q "$r" "select group_concat(channel) from channels where meter=1")" "1,2,3,4,5"
  expect_eq "channels of meter 2" "$(q "$r" "select group_concat(meter_channel) from channels where meter=2 order by channel")" "1,2,3,4,5"
  expect_eq "meter 2's default names" "$(q "$r" "select name from channels where channel=6")" "m2.ch1"
  # each meter's windows cover the command (3 s at 4 Hz: 12, with the window of its end)
  local c
  for c in 1 6; do
    expect_num "windows of channel $c" "$(q "$r" "select count(*) from samples where channel=$c")" 12 20
    expect_num "channel $c covers the command's start (s)" \
      "$(q "$r" "select ((select value from meta where key='cmd_start_ns') - min(t0_ns))/1e9 from samples where channel=$c")" 0 3
    expect_num "channel $c covers the command's end (s)" \
      "$(q "$r" "select (max(t1_ns) - (select value from meta where key='cmd_end_ns'))/1e9 from samples where channel=$c")" 0 1
    expect_num "channel $c: the board's A1 load (W)" \
      "$(q "$r" "select avg(power_mw)/1000.0 from samples where channel=$c")" 154.7 157.9
  done
  expect_eq "no gap" "$(q "$r" "select count(*) from gaps")" 0
  "$MW" show "$r" >"$TMP/show.txt" 2>&1
  expect_eq "mw show: exit" "$?" 0
  expect_grep "mw show lists meter 2" "^  2 *sim-2" "$TMP/show.txt"
  expect_grep "mw show: channel 6 is sim-2's first" "^ *6  m2.ch1 .* sim-2:1 " "$TMP/show.txt"
  "$MW" ls "$r" >"$TMP/ls.txt" 2>&1
  expect_grep "mw ls: 10 channels" "^$r  *complete .*  10  *[0-9][0-9]*  *0  " "$TMP/ls.txt"
  "$MW" analyze "$r" >"$TMP/an.txt" 2>&1
  expect_eq "mw analyze: exit" "$?" 0
  expect_grep "mw analyze: meter 2's channels" "^  m2.ch1 " "$TMP/an.txt"
}

# A channels file for two vmeters: meter names are their ports as given (no USB serial).
vmeter_pair() {
  local d=$1
  start_vmeter "$d/m1" --load A1=200 || return 1
  VM1=$VM_PID
  start_vmeter "$d/m2" --load A1=300 || return 1
  VM2=$VM_PID
  printf '# the first meter\n1 node0 h0\n%s:1 node1 h1   # the second\n%s:2 switch\n' \
    "$d/m2" "$d/m2" >"$d/channels"
}

unplugged_and_back() {
  local d=$TMP/back r=$TMP/back/run
  mkdir -p "$d"
  vmeter_pair "$d" || { CASE_OK=0; return; }
  MW_CHANNELS_FILE=$d/channels "$MW" record -q -o "$r" --meter "$d/m1" --meter "$d/m2" -- sleep 8 \
    2>"$d/err" &
  local rec=$!
  PIDS+=("$rec")
  check "windows before the cut" wait_windows "$r" 6 6
  kill -9 "$VM2"; wait "$VM2" 2>/dev/null   # meter 2 unplugged: its pty hangs up
  # its link would point at a pty number that another process may get next
  rm -f "$d/m2"
  sleep 1.5
  start_vmeter "$d/m2" --load A1=300 || { CASE_OK=0; return; }
  wait "$rec"
  expect_eq "exit" "$?" 0
  expect_eq "names from the file" "$(q "$r" "select group_concat(name, ',') from (select name from channels where channel in (1, 6, 7) order by channel)")" "node0,node1,switch"
  expect_eq "hosts from the file" "$(q "$r" "select host from channels where channel=6")" h1
  expect_eq "one gap" "$(q "$r" "select count(*) from gaps where $NOT_LAG")" 1
  expect_eq "it is meter 2's" "$(q "$r" "select meter || ' ' || reason from gaps where $NOT_LAG")" "2 disconnected"
  expect_num "its length (s)" "$(q "$r" "select (end_ns-start_ns)/1e9 from gaps where $NOT_LAG")" 1.2 4
  expect_eq "meter 2 back in a new segment" "$(q "$r" "select count(*) > 0 from samples where channel=6 and segment > 0")" 1
  # meter 1 went on: no window missing, windows through the cut
  expect_eq "meter 1: no window missing" "$(q "$r" "$MISSING_1")" 0
  expect_eq "meter 1: windows inside meter 2's gap" \
    "$(q "$r" "select count(*) >= 4 from samples, gaps where channel=1 and reason = 'disconnected' and t0_ns >= start_ns and t1_ns <= end_ns")" 1
  expect_num "meter 1's A1 (W)" "$(q "$r" "select avg(power_mw)/1000.0 from samples where channel=1")" 198 202
  expect_num "meter 2's A1 (W)" "$(q "$r" "select avg(power_mw)/1000.0 from samples where channel=6")" 297 303
  expect_grep "said which meter" "$d/m2: meter back after" "$d/err"
  "$MW" show "$r" >"$d/show.txt" 2>&1
  expect_grep "mw show: whose gap" " disconnected (meter $d/m2)" "$d/show.txt"
  kill -9 "$VM1" "$VM_PID"; wait "$VM1" "$VM_PID" 2>/dev/null
}

unplugged_for_good() {
  local d=$TMP/gone r=$TMP/gone/run
  mkdir -p "$d"
  vmeter_pair "$d" || { CASE_OK=0; return; }
  "$MW" record -q -o "$r" --meter "$d/m1" --meter "$d/m2" -- sleep 6 2>"$d/err" &
  local rec=$!
  PIDS+=("$rec")
  check "windows before the cut" wait_windows "$r" 6 6
  kill -9 "$VM2"; wait "$VM2" 2>/dev/null
  rm -f "$d/m2"
  wait "$rec"
  expect_eq "exit: 1 (a meter was lost, the command succeeded)" "$?" 1
  local st; st=$(meta_of "$r" status)
  [[ $st =~ ^complete,\ meter\ $d/m2\ lost\ at\ [0-9.]+\ s$ ]] || { echo "  FAIL: status '$st'"; CASE_OK=0; }
  expect_eq "one gap, meter 2's" "$(q "$r" "select group_concat(meter || ' ' || reason) from gaps where $NOT_LAG")" "2 meter lost (disconnected)"
  expect_eq "meter 1: no window missing" "$(q "$r" "$MISSING_1")" 0
  expect_num "meter 1 covers the command's end (s)" \
    "$(q "$r" "select (max(t1_ns) - (select value from meta where key='cmd_end_ns'))/1e9 from samples where channel=1")" 0 1
  expect_grep "said on stderr" "a meter did not come back" "$d/err"
  kill -9 "$VM1"; wait "$VM1" 2>/dev/null
}

# refused RUN DESCRIPTION PATTERN ARGS...: exit 2, one line, RUN not made
refused() {
  local r=$1 what=$2 pat=$3; shift 3
  "$MW" record -q -o "$r" "$@" -- sh -c "echo ran >'$TMP/ran'" >"$TMP/out.txt" 2>"$TMP/err.txt"
  expect_eq "$what: exit" "$?" 2
  expect_eq "$what: one line" "$(wc -l <"$TMP/err.txt")" 1
  expect_grep "$what" "$pat" "$TMP/err.txt"
  check "$what: nothing made" test ! -e "$r"
  check "$what: the command did not run" test ! -e "$TMP/ran"
}

refusals() {
  local d=$TMP/refuse
  mkdir -p "$d"
  start_vmeter "$d/m1" || { CASE_OK=0; return; }
  ln -s "$d/m1" "$d/alias"
  refused "$d/r1" "a port twice" "--meter $d/m1: listed twice" --meter "$d/m1" --meter sim --meter "$d/m1"
  refused "$d/r2" "a link to it" "--meter $d/alias: listed twice (as $d/m1 too)" --meter "$d/m1" --meter "$d/alias"
  printf '1 node0\nsim-3:2 node9\n' >"$d/channels"
  MW_CHANNELS_FILE=$d/channels refused "$d/r3" "a missing meter" \
    "$d/channels:2: meter 'sim-3' is not recorded (the meters: sim-1, sim-2)" --meter sim --meter sim
  refused "$d/r4" "five meters" "at most 4 meters" --meter sim --meter sim --meter sim --meter sim --meter sim
  refused "$d/r5" "auto beside another" "give it alone" --meter auto --meter sim
  refused "$d/r6" "auto without a meter" "no meter found on USB" --meter auto
  kill -9 "$VM_PID"; wait "$VM_PID" 2>/dev/null
}

run_case two_sims
run_case refusals
run_case unplugged_and_back
run_case unplugged_for_good
finish
