#!/usr/bin/env bash
# What mw record costs while it records (issue 22, docs/performance.md), counted by strace
# on the recorder alone (the board is a separate 'mw vmeter'): the regressions it guards are
# the ones that were measured, and the bounds sit far from both sides (before: 557 system
# calls/s, 108 waitpid/s; then about 100 and 2 per second for 15 channels; with schema 6
# about 80 system calls/s and 125-130 bytes written per stored sample here, where schema 5
# wrote about 1,400; with the port in line mode about 32 system calls/s, one read a line;
# schema 7, which keeps the clock fit instead of rewriting the rows at the end, 107 bytes):
#   no_polling      6 s of '-- sleep 6', 15 channels at 4 Hz: no waitpid every 10 ms (at most 5 a second), at
#                   most 60 system calls a second in all (the difference with '-- sleep 0'),
#                   at most 2 reads per window line (line mode: one; bytes as they come took
#                   about 4 and a quiet-time wait),
#                   at most 150 bytes passed to write calls per stored sample (strace's
#                   return values of write and pwrite64), and the command's end still seen
#                   (its measured length is the sleep's)
#   no_temp_file    the end opens no SQLite temporary file (schema 5's restamp wrote a copy
#                   of every page it touched, 5 KB per sample, into one) and the windows
#                   still tile
#   final_times     schema 7: the end keeps the final clock fit in clock_knots (a lead point
#                   and a knot for 6 s) instead of rewriting the rows: the view samples maps
#                   the rows' meter times through it (no window moves by more than 50 ms, and
#                   they still tile: no_temp_file), and mw export (the read API, in C) gives
#                   the view's times to the us
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

if ! command -v strace >/dev/null; then
  echo "skipped: no strace (scripts/packages.txt)"
  exit 0
fi

# fifteen_channels LINK: set the board on LINK to its 15 current channels, saved in its EEPROM
# (opening the port resets the board), as bench_record does through the meter session
fifteen_channels() {
  python3 - "$1" <<'PY'
import os, sys, time, tty
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd)
buf, step, t0 = b'', 0, time.time()
while time.time() - t0 < 20 and step < 3:
    buf += os.read(fd, 4096)
    if step == 0 and b'\nW,' in buf:
        os.write(fd, b'CH 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\r\n'); step = 1
    elif step == 1 and b'OK,CH' in buf:
        os.write(fd, b'SAVE\r\n'); step = 2
    elif step == 2 and b'OK,SAVE' in buf:
        step = 3
os.close(fd)
sys.exit(0 if step == 3 else 1)
PY
}

# traced_record NAME SECONDS: mw record -- sleep SECONDS under strace -f into $TMP/NAME.trace;
# sets WALL_MS
traced_record() {
  local t0; t0=$(now_ns)
  strace -qq -f -o "$TMP/$1.trace" "$MW" record -q -o "$TMP/$1" --meter "$TMP/meter" -- \
    sleep "$2" >"$TMP/$1.log" 2>&1
  expect_eq "$1: exit" "$?" 0
  WALL_MS=$(( ($(now_ns) - t0) / 1000000 ))
}

# written FILE: bytes the recorder itself (the first pid in the trace) passed to write calls
# (write, pwrite64, writev: SQLite's WAL frames and checkpoints, the log); a call strace
# shows "<unfinished ...>" (another thread's call came between) counts on its "resumed"
# line, which has the return value (counted before from the unfinished line too, whose only
# number is the pid: about 28 KB more for each, now and then)
written() {
  awk 'NR == 1 { pid = $1 }
    $1 == pid && ($2 ~ /^(write|pwrite64|writev|pwritev)\(/ || $0 ~ /<\.\.\. (write|pwrite64|writev|pwritev) resumed>/) {
      n = split($0, f, " = "); v = f[n] + 0; if (n > 1 && v > 0) b += v }
    END { print b + 0 }' "$1"
}

# calls FILE [NAME]: system calls of the recorder itself (the first pid in the trace), all
# or those named NAME
calls() {
  awk -v name="${2:-}" 'NR == 1 { pid = $1 }
    $1 == pid && $2 !~ /^<\.\.\./ { c = $2; sub(/\(.*/, "", c); if (name == "" || c == name) n++ }
    END { print n + 0 }' "$1"
}

no_polling() {
  start_vmeter "$TMP/meter" || { CASE_OK=0; return; }
  check "board set to 15 channels" fifteen_channels "$TMP/meter"
  traced_record zero 0
  traced_record six 6
  local wall6=$WALL_MS
  kill "$VM_PID" 2>/dev/null
  wait "$VM_PID" 2>/dev/null
  local w6 w0 a6 a0
  w6=$(calls "$TMP/six.trace" wait4)
  w0=$(calls "$TMP/zero.trace" wait4)
  a6=$(calls "$TMP/six.trace")
  a0=$(calls "$TMP/zero.trace")
  echo "    wait4: $w0 (sleep 0), $w6 (sleep 6); all: $a0, $a6; wall of sleep 6: $wall6 ms"
  expect_num "waitpid per second" "$(( (w6 - w0) / 6 ))" 0 5
  expect_num "system calls per second" "$(( (a6 - a0) / 6 ))" 1 60
  # the port in line mode (mw_port_set_lines): one read per line, no quiet-time wait
  local r6 r0 l6 l0
  r6=$(calls "$TMP/six.trace" read)
  r0=$(calls "$TMP/zero.trace" read)
  l6=$(q "$TMP/six" "select count(*) from windows")
  l0=$(q "$TMP/zero" "select count(*) from windows")
  echo "    read: $r0 (sleep 0, $l0 windows), $r6 (sleep 6, $l6 windows)"
  expect_num "reads per window line" "$(awk -v r=$((r6 - r0)) -v l=$((l6 - l0)) 'BEGIN { printf "%.2f", (l > 0 ? r / l : 99) }')" 0.5 2
  expect_num "quiet-time waits (ppoll) per second" "$(( ($(calls "$TMP/six.trace" ppoll) - $(calls "$TMP/zero.trace" ppoll)) / 6 ))" 0 1
  # the store's writes per stored sample (schema 7: one row per window, 1 KB pages, no
  # rewrite at the end: 107 here; schema 6 about 128; schema 5 about 1,400)
  local b6 b0 n6 n0
  b6=$(written "$TMP/six.trace")
  b0=$(written "$TMP/zero.trace")
  n6=$(q "$TMP/six" "select count(*) from samples")
  n0=$(q "$TMP/zero" "select count(*) from samples")
  echo "    bytes written: $b0 (sleep 0, $n0 samples), $b6 (sleep 6, $n6 samples)"
  expect_num "bytes written per stored sample" "$(( (b6 - b0) / (n6 - n0 > 0 ? n6 - n0 : 1) ))" 1 150
  # the command's end is seen: its measured length is the sleep's (strace slows the start)
  expect_num "command's length (ms)" \
    "$(q "$TMP/six" "select (max(case key when 'cmd_end_ns' then cast(value as integer) end) - max(case key when 'cmd_start_ns' then cast(value as integer) end)) / 1000000 from meta")" \
    6000 6400
  expect_num "record's wall time (ms)" "$wall6" 6000 9000
  expect_eq "status" "$(q "$TMP/six" "select value from meta where key='status'")" complete
}

no_temp_file() {
  # the runs of no_polling: their traces show what files the recorder opened
  [ -f "$TMP/six.trace" ] || { echo "  FAIL: no trace from no_polling"; CASE_OK=0; return; }
  expect_eq "temporary files opened" "$(grep -c 'openat(.*etilqs_' "$TMP/six.trace")" 0
  expect_num "windows per channel" "$(q "$TMP/six" "select count(*) from samples where channel=1")" 20 30
  expect_eq "channels" "$(q "$TMP/six" "select count(distinct channel) from samples")" 15
  expect_eq "windows tile time" "$(q "$TMP/six" "select count(*) from samples a join samples b on b.channel=a.channel and b.segment=a.segment and b.seq=a.seq+1 where b.t0_ns <> a.t1_ns")" 0
  expect_eq "restamped with the final fit" \
    "$(q "$TMP/six" "select cast(value as integer) > 0 from meta where key='clock_uncertainty_ns'")" 1
}

final_times() {
  [ -f "$TMP/six.trace" ] || { echo "  FAIL: no run from no_polling"; CASE_OK=0; return; }
  local r=$TMP/six
  expect_eq "schema version" "$(q "$r" "pragma user_version")" 7
  expect_num "clock knots of segment 0" \
    "$(q "$r" "select count(*) from clock_knots where segment = 0")" 2 3
  # the view maps through them: its times within 50 ms of the rows' live ones (the live
  # fit's error on a few seconds of pairs; on 6 s the final fit may also be the live one)
  expect_eq "moved by more than 50 ms" \
    "$(q "$r" "select count(*) from samples s join windows w on w.segment = s.segment and w.seq = s.seq where s.channel = w.channel0 and abs(s.t1_ns - w.t1_ns) > 50000000")" 0
  # mw export (the read API, in C) and the view (SQL) give the same times (export's are
  # seconds from the run's start to the us)
  "$MW" export "$r" --format csv --what samples -o "$TMP/six.csv" 2>"$TMP/export.err"
  expect_eq "export" "$?" 0
  q "$r" "select c.name, s.segment, s.seq, (s.t1_ns - m.v) / 1e9, (s.t0_ns - m.v) / 1e9 from samples s join channels c on c.channel = s.channel, (select cast(value as integer) as v from meta where key = 'start_ns') m" >"$TMP/six.view"
  expect_eq "samples exported (the view's)" "$(($(wc -l <"$TMP/six.csv") - 1))" "$(wc -l <"$TMP/six.view")"
  expect_eq "export's times off the view's by more than 1 us" "$(awk -F'[,|]' '
    NR == FNR { t1[$1 "," $2 "," $3] = $4; t0[$1 "," $2 "," $3] = $5; next }
    FNR > 1 { k = $2 "," $10 "," $9; d1 = $1 - t1[k]; d0 = $8 - t0[k]
      if (!(k in t1) || d1 > 1.5e-6 || d1 < -1.5e-6 || d0 > 1.5e-6 || d0 < -1.5e-6) n++ }
    END { print n + 0 }' "$TMP/six.view" "$TMP/six.csv")" 0
}

run_case no_polling
run_case no_temp_file
run_case final_times
finish
