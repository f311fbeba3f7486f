#!/usr/bin/env bash
# A hostile device on the meter's port (issue 12, docs/reliability.md "Hostile meter"):
# tests/faultproxy/hostile_meter.py plays a "meter" on a pty that sends endless lines,
# garbage, huge and overflowing fields, a flood of windows, and identifications whose names
# carry quotes, SQL, paths, format directives, escape sequences, line ends and NULs. The
# host must not overflow a buffer (the checks run the normal build; the sanitizer build of
# the parser is the fuzzers' job), must keep its memory bounded, must store no malformed
# line, and must store hostile names verbatim and only as data.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

HOSTILE=tests/faultproxy/hostile_meter.py
MEM_LIMIT_KB=51200 # 50 MB: a recording needs under 16

# start_hostile LINK SCENARIO: sets HM_PID
start_hostile() {
  python3 "$HOSTILE" "$1" "$2" --seconds 60 --log "$1.log" 2>"$1.err" &
  HM_PID=$!
  PIDS+=("$HM_PID")
  for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.05; done # (30 s at most)
  echo "hostile meter did not make $1"; cat "$1.err"; return 1
}
stop_hostile() { kill "$HM_PID" 2>/dev/null; wait "$HM_PID" 2>/dev/null; }

# peak CMD...: run it, sampling its peak resident memory (VmHWM); sets PEAK_KB and RC
peak() {
  "$@" &
  local pid=$! hwm
  PEAK_KB=0
  while kill -0 "$pid" 2>/dev/null; do
    hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
    [ -n "$hwm" ] && [ "$hwm" -gt "$PEAK_KB" ] && PEAK_KB=$hwm
    sleep 0.1
  done
  wait "$pid"
  RC=$?
}

endless_garbage() {
  local l=$TMP/endless.tty
  start_hostile "$l" endless || { CASE_OK=0; return; }
  peak "$MW" record -o "$TMP/endless" --meter "$l" -- true 2>"$TMP/endless.err"
  stop_hostile
  expect_eq "not a meter: exit" "$RC" 2
  expect_grep "says why" "no answer within 5.0 s" "$TMP/endless.err"
  check "no run directory" test ! -e "$TMP/endless"
  echo "    peak memory ${PEAK_KB} kB"
  expect_num "peak memory (kB)" "$PEAK_KB" 1 "$MEM_LIMIT_KB"
}

endless_line_while_recording() {
  local l=$TMP/after.tty r=$TMP/after
  start_hostile "$l" endless-after || { CASE_OK=0; return; }
  peak "$MW" record -q -o "$r" --meter "$l" -- sleep 7 2>"$TMP/after.err"
  stop_hostile
  # no window after the endless line began: the meter is lost for good (exit 1, the status
  # and a gap say from when; test_hostile_lost.sh)
  expect_eq "exit" "$RC" 1
  expect_grep "status" "^complete, meter lost at [0-9.]* s$" <(q "$r" "select value from meta where key='status'")
  expect_eq "gap" "$(q "$r" "select reason from gaps")" "meter lost (no window)"
  expect_num "windows before the endless line" "$(q "$r" "select count(*) from samples")" 5 40
  echo "    peak memory ${PEAK_KB} kB"
  expect_num "peak memory (kB)" "$PEAK_KB" 1 "$MEM_LIMIT_KB"
}

big_fields() {
  local l=$TMP/big.tty r=$TMP/big
  start_hostile "$l" bigfields || { CASE_OK=0; return; }
  peak "$MW" record -q -o "$r" --meter "$l" -- sleep 11 2>"$TMP/big.err"
  local sent; sent=$(grep -c '^valid' "$l.log")
  stop_hostile
  expect_eq "exit" "$RC" 0
  expect_eq "status" "$(q "$r" "select value from meta where key='status'")" complete
  expect_eq "no malformed line stored" "$(q "$r" "select count(*) from samples where power_mw = 777777")" 0
  # every valid window sent while the port was open (the last may still be on its way)
  local got; got=$(q "$r" "select count(*) from samples where power_mw = 100000")
  expect_num "valid windows stored (of $sent)" "$got" $((sent - 3)) "$sent"
  expect_eq "valid windows intact" "$(q "$r" "select count(*) from samples where power_mw = 100000 and (irms_ua <> 434782 or pf_milli <> 1000 or vrms_mv <> 230000)")" 0
  # a counter near 2^63 after a restart: the run's energy saturates, never wraps negative
  expect_eq "energy never wraps" "$(q "$r" "select count(*) from samples where power_mw = 100000 and energy_mj < 0")" 0
  expect_eq "all 17 hostile kinds tried" "$(grep "^hostile" "$l.log" | sort -u | wc -l)" 17
  expect_num "bad lines counted" "$(q "$r" "select value from meta where key='meter_bad_crc_lines'")" 10 100000
  expect_eq "integrity" "$(q "$r" "pragma integrity_check")" ok
  echo "    peak memory ${PEAK_KB} kB"
  expect_num "peak memory (kB)" "$PEAK_KB" 1 "$MEM_LIMIT_KB"
}

# windows as fast as the pty takes them, each one a new segment: state per segment is
# bounded (host/meter.c keeps at most 1024 segments' clocks)
flood() {
  local l=$TMP/flood.tty r=$TMP/flood
  start_hostile "$l" flood || { CASE_OK=0; return; }
  peak "$MW" record -q -o "$r" --meter "$l" -- sleep 7 2>"$TMP/flood.err"
  stop_hostile
  expect_eq "exit" "$RC" 0
  local n; n=$(q "$r" "select count(*) from samples")
  echo "    $n windows in $(q "$r" "select count(distinct segment) from samples") segments, peak memory ${PEAK_KB} kB"
  expect_num "a flood it was (windows)" "$n" 2000 100000000
  expect_num "peak memory (kB)" "$PEAK_KB" 1 "$MEM_LIMIT_KB"
  expect_eq "integrity" "$(q "$r" "pragma integrity_check")" ok
}

# hostile names in the identification: kept verbatim, as data, or the device is refused
names() {
  local c
  for c in quotes sql path format escape long newline nul; do
    ( start_hostile "$TMP/name-$c.tty" "name:$c" || exit 1
      "$MW" record -q -o "$TMP/name-$c" --meter "$TMP/name-$c.tty" -- true 2>"$TMP/name-$c.err"
      echo $? >"$TMP/name-$c.rc"
      stop_hostile ) &
  done
  wait
  for c in quotes sql path format; do
    local r=$TMP/name-$c
    expect_eq "$c: exit" "$(cat "$r.rc")" 0
    "$MW" export "$r" --what meta --format json >"$r.json" 2>&1
    "$MW" export "$r" --what meta --format csv >"$r.csv" 2>&1
    "$MW" show "$r" >"$r.show" 2>&1
    expect_eq "$c: show exit" "$?" 0
    # stored, exported as JSON and as CSV: exactly the names the device sent
    expect_eq "$c: verbatim everywhere" "$(python3 - "$HOSTILE" "$c" "$r" <<'PY'
import csv, importlib.util, json, sqlite3, sys
spec = importlib.util.spec_from_file_location("h", sys.argv[1]); h = importlib.util.module_from_spec(spec)
spec.loader.exec_module(h)
fw, build = h.NAMES[sys.argv[2]]; r = sys.argv[3]
db = sqlite3.connect("file:%s/trace.db?mode=ro" % r, uri=True)
meta = dict(db.execute("select key, value from meta"))
j = json.load(open(r + ".json"))["meta"]
c = {row[0]: row[1] for row in csv.reader(open(r + ".csv", newline="")) if len(row) == 2}
tables = {t for (t,) in db.execute("select name from sqlite_master where type='table'")}
ok = (meta["meter_firmware"] == fw and meta["meter_build"] == build and j["meter_firmware"] == fw
      and j["meter_build"] == build and c["meter_firmware"] == fw and c["meter_build"] == build
      and {"meta", "windows", "gaps", "channels"} <= tables)
print("yes" if ok else "no: %r %r" % (meta.get("meter_firmware"), meta.get("meter_build")))
PY
)" yes
    expect_num "$c: samples kept" "$(q "$r" "select count(*) from samples")" 1 100000
    expect_eq "$c: only the store in the run" "$(ls "$r" | grep -v '^trace.db' | wc -l)" 0
  done
  check "no file made from a path in a name" test ! -e /tmp/mw-hostile-pwned
  check "no file made from a path in a name" test ! -e "$TMP/../mw-hostile-pwned"
  # escape sequences, line ends, NULs (not printable ASCII) and names longer than the
  # protocol's fields: not a megawatt identification, nothing created
  for c in escape long newline nul; do
    expect_eq "$c: refused" "$(cat "$TMP/name-$c.rc")" 2
    expect_grep "$c: says why" "no megawatt identification" "$TMP/name-$c.err"
    check "$c: no run directory" test ! -e "$TMP/name-$c"
  done
}

run_case endless_garbage
run_case endless_line_while_recording
run_case big_fields
run_case flood
run_case names
finish
