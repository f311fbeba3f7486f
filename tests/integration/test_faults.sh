#!/usr/bin/env bash
# mw record through a faulty link (issue 12, docs/reliability.md "Link faults"): the real
# firmware on a simulated board (mw vmeter, which logs every line it sends), the fault proxy
# (build/tests/faultproxy) between its pty and the recorder, and tests/faultproxy/compare.py,
# which checks what the store holds against what the board sent and what reached the host
# intact. Byte faults start 3-4 s in, once the recorder has identified the meter (at these
# rates its identification could otherwise fail three times in a row now and then), and
# the cuts are counted so that none falls on the recorder's last moments. Bit flips at a byte error rate of 1e-3 with two link cuts; then every byte fault
# at once with cuts that reset the board; then the checker itself, on a tampered copy.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

PROXY=$(abs "$BUILD/tests/faultproxy")
COMPARE=tests/faultproxy/compare.py

# start_proxy DIR [proxy options...]: the proxy between DIR/board and DIR/coll; sets FP_PID.
start_proxy() {
  local d=$1; shift
  "$PROXY" --upstream "$d/board" --link "$d/coll" --log "$d/fp.log" --tap "$d/tap.bin" "$@" \
    2>>"$d/fp.err" &
  FP_PID=$!
  PIDS+=("$FP_PID")
  for _ in $(seq 600); do [ -e "$d/coll" ] && return 0; sleep 0.05; done # (30 s at most)
  echo "faultproxy did not make $d/coll"; cat "$d/fp.err"; return 1
}

# faulty_run DIR SECONDS PROXY_OPTIONS...: board, proxy, mw record -- sleep SECONDS; then
# stops the proxy and the board and writes DIR/cmp (compare.py's key=value lines).
faulty_run() {
  local d=$1 s=$2; shift 2
  mkdir -p "$d"
  "$MW" vmeter --link "$d/board" --load A1=200 --load A2=50,0.8,smps \
    --log-frames "$d/frames.log" 2>"$d/vmeter.err" &
  local vm=$!
  PIDS+=("$vm")
  for _ in $(seq 600); do [ -e "$d/board" ] && break; sleep 0.05; done # (30 s at most)
  start_proxy "$d" "$@" || return 1
  "$MW" record -o "$d/run" --meter "$d/coll" -- sh -c "sleep $s; echo done > '$d/child.done'" \
    2>"$d/rec.err"
  REC_RC=$?
  kill "$FP_PID"; wait "$FP_PID" 2>/dev/null
  kill "$vm"; wait "$vm" 2>/dev/null
  python3 "$COMPARE" "$d/frames.log" "$d/tap.bin" "$d/fp.log" "$d/run" >"$d/cmp" 2>"$d/cmp.err"
  sed 's/^/    /' "$d/cmp" "$d/cmp.err"
}
val() { sed -n "s/^$1=//p" "$2"; }

# invariants of any recording through the proxy: nothing corrupted or duplicated is stored,
# everything that reached the host intact is, one gap per cut
link_invariants() {
  local d=$1
  expect_eq "recorder exit" "$REC_RC" 0
  check "the command ran to its end" test -s "$d/child.done"
  expect_eq "status" "$(q "$d/run" "select value from meta where key='status'")" complete
  expect_eq "corrupted samples stored" "$(val corrupted_samples "$d/cmp")" 0
  expect_eq "duplicated samples stored" "$(val duplicated_samples "$d/cmp")" 0
  expect_eq "CRC-valid corrupted lines" "$(val crc_collisions "$d/cmp")" 0
  expect_eq "samples that arrived intact but were not stored" \
    "$(val lost_after_arrival_samples "$d/cmp")" 0
  expect_eq "stored = arrived intact" "$(val stored_windows "$d/cmp")" "$(val delivered_windows "$d/cmp")"
  expect_num "windows stored" "$(val stored_windows "$d/cmp")" 5 1000
  expect_eq "one 'disconnected' gap per cut" "$(val disconnect_gaps "$d/cmp")" \
    "$(val cuts_while_connected "$d/cmp")"
  expect_eq "reconnected after every cut" "$(val reconnects "$d/cmp")" \
    "$(val cuts_while_connected "$d/cmp")"
  # the recorder retries every 200 ms: ~0.1 s on a quiet machine; the bound is issue 4's
  # "reconnects within 2 s" (it was 1.5 s, the margin a loaded machine may need)
  expect_num "reconnect time (ms)" "$(val reconnect_ms_max "$d/cmp")" 0 2000
  expect_eq "integrity" "$(q "$d/run" "pragma integrity_check")" ok
  expect_eq "no sample twice in a segment" \
    "$(q "$d/run" "select count(*) from (select 1 from samples group by segment, seq, channel having count(*) > 1)")" 0
  expect_eq "energy never decreases" "$(q "$d/run" "select count(*) from samples a join samples b on b.channel=a.channel and b.t1_ns>a.t1_ns where a.channel=1 and b.energy_mj < a.energy_mj")" 0
}

ber_and_cuts() {
  local d=$TMP/ber
  echo "  (about 21 s)"
  faulty_run "$d" 18 --ber 1e-3 --after 3 --cut 1.5@8 --cut-count 2 --seed 11 ||
    { CASE_OK=0; return; }
  link_invariants "$d"
  expect_eq "two cuts while recording" "$(val cuts_while_connected "$d/cmp")" 2
  expect_num "bytes flipped" "$(val down_flipped "$d/fp.log")" 2 100
  expect_num "windows lost on the link (flips)" "$(val lost_on_link_windows "$d/cmp")" 1 40
  # a gap spans the cut (1.5 s) plus the reconnection and the window in flight
  expect_num "shortest cut gap (s)" "$(q "$d/run" "select min(end_ns-start_ns)/1e9 from gaps where reason='disconnected'")" 1.2 3.5
  expect_num "longest cut gap (s)" "$(q "$d/run" "select max(end_ns-start_ns)/1e9 from gaps where reason='disconnected'")" 1.2 3.5
  expect_num "sequence gaps recorded for lost windows" \
    "$(q "$d/run" "select count(*) from gaps where reason like 'sequence gap%'")" 1 40
  expect_eq "one segment (no reset)" "$(q "$d/run" "select count(distinct segment) from samples")" 1
  expect_grep "said so" "meter back after" "$d/rec.err"
  expect_eq "link statistics: reconnects" "$(q "$d/run" "select value from meta where key='reconnects'")" 2
  # nearly every flipped bit costs a line; the count goes on across reconnects
  local flips bad; flips=$(val down_flipped "$d/fp.log")
  bad=$(q "$d/run" "select value from meta where key='meter_bad_crc_lines'")
  expect_num "bad-CRC lines counted (of $flips flips)" "$bad" "$(( (flips + 1) / 2 ))" $((flips * 2 + 2))
}

every_fault_and_resets() {
  local d=$TMP/all
  echo "  (about 16 s)"
  faulty_run "$d" 12 --ber 1e-3 --drop 2e-3 --dup 2e-3 --reorder 2e-3 --after 4 --delay 30 \
    --stall 400@3 --cut 1@6 --cut-count 2 --cut-resets --seed 5 || { CASE_OK=0; return; }
  link_invariants "$d"
  for k in dropped duplicated flipped reordered; do
    expect_num "bytes $k" "$(val down_$k "$d/fp.log")" 1 200
  done
  expect_eq "two cuts while recording" "$(val cuts_while_connected "$d/cmp")" 2
  expect_num "stalls" "$(val stalls "$d/fp.log")" 3 10
  # every cut resets the board (it loses its power): a new segment after each one
  expect_eq "a segment per cut" "$(q "$d/run" "select count(distinct segment) - 1 from samples")" \
    "$(val cuts_while_connected "$d/cmp")"
  expect_eq "restarts counted" "$(q "$d/run" "select value from meta where key='meter_restarts'")" \
    "$(val cuts_while_connected "$d/cmp")"
}

# the checker must see what it is there to see: a stored sample changed, a window stored
# twice, a window that arrived but is missing
checker_can_fail() {
  local d=$TMP/ber t=$TMP/tampered
  [ -f "$d/run/trace.db" ] || { echo "  FAIL: needs ber_and_cuts' run"; CASE_OK=0; return; }
  mkdir -p "$t"
  cp "$d/run/trace.db" "$t/trace.db"
  # (schema 6: a window of the meter is one row of windows, channel 2 its slot 2)
  sqlite3 "$t/trace.db" "
    update windows set p2 = p2 + 1 where channel0 = 1 and seq = (select min(seq) from windows);
    create temp table dup as select * from windows where seq = (select max(seq) from windows);
    update dup set id = null, segment = 99;
    insert into windows select * from dup;
    delete from windows where seq = (select min(seq) + 5 from windows);"
  python3 "$COMPARE" "$d/frames.log" "$d/tap.bin" "$d/fp.log" "$t" >"$t/cmp" 2>/dev/null
  expect_eq "corrupted window seen" "$(val corrupted_windows "$t/cmp")" 1
  expect_eq "corrupted sample seen" "$(val corrupted_samples "$t/cmp")" 1
  expect_eq "duplicated window seen" "$(val duplicated_windows "$t/cmp")" 1
  expect_eq "missing window seen" "$(val lost_after_arrival_windows "$t/cmp")" 1
}

proxy_usage() {
  "$PROXY" --help >"$TMP/fp.help"
  expect_eq "--help: exit" "$?" 0
  expect_grep "--help: usage" "usage: faultproxy" "$TMP/fp.help"
  "$PROXY" --upstream /dev/null --link "$TMP/x" --ber 2 2>"$TMP/fp.bad"
  expect_eq "bad rate: exit" "$?" 2
  expect_grep "names the option" "--ber: '2'" "$TMP/fp.bad"
  "$PROXY" --upstream /nonexistent/tty --link "$TMP/y" 2>"$TMP/fp.bad"
  expect_eq "no upstream: exit" "$?" 1
  check "no link made" test ! -e "$TMP/y"
  "$MW" vmeter --seconds 1 --stdout --log-frames "$TMP/f.log" 2>"$TMP/vm.bad"
  expect_eq "vmeter --log-frames with --stdout: exit" "$?" 2
}

run_case proxy_usage
run_case ber_and_cuts
run_case every_fault_and_resets
run_case checker_can_fail
finish
