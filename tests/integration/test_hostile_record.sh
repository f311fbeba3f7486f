#!/usr/bin/env bash
# mw record against a hostile neighbourhood (the hardening issue, cases 3 and 5): a second
# recorder of the same run directory, and the signals that used to kill the recorder
# without a word.
#
# - A second `mw record --force` of a directory being recorded is refused with exit 2 and
#   one line naming the holder's pid (RUNDIR/.lock, mw_runlock.h); the first run goes on
#   untouched and ends complete, and once it is over the directory can be recorded again.
# - Past `ulimit -f` (SIGXFSZ) the recorder takes the disk-full path: one message, the
#   command runs to its end and is reaped, status "failed: store", exit 1 (it died of
#   SIGXFSZ, exit 153, status "recording", the command orphaned).
# - SIGHUP is passed on like SIGTERM: the command ends, the run is "interrupted", the exit
#   status is the command's (129); under nohup (SIGHUP ignored) nothing changes.
# - A closed stderr pipe (SIGPIPE) no longer kills the recorder at its summary line.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

status_of() { q "$1" "select value from meta where key='status'"; }

second_recorder_refused() {
  local d=$TMP/lock r=$TMP/lock/same
  mkdir -p "$d"
  "$MW" record -q --force -o "$r" --meter sim -- sh -c "sleep 6; echo done >'$d/first.done'" \
    2>"$d/first.err" &
  local first=$!
  PIDS+=("$first")
  # wait (up to 60 s) until the first recorder holds the lock, however slow it starts
  local i
  for i in $(seq 600); do
    [ -f "$r/.lock" ] && ! flock -n "$r/.lock" true 2>/dev/null && break
    sleep 0.1
  done
  "$MW" record -q --force -o "$r" --meter sim -- sleep 1 >"$d/second.out" 2>"$d/second.err"
  expect_eq "second recorder: exit" "$?" 2
  expect_eq "second recorder: one line" "$(wc -l <"$d/second.err")" 1
  expect_grep "names the holder" "same: in use by the recorder with pid $first\$" "$d/second.err"
  "$MW" record -q -o "$r" --meter sim -- sleep 1 2>"$d/third.err"
  expect_eq "without --force: exit" "$?" 2
  wait "$first"
  expect_eq "first recorder: exit" "$?" 0
  check "the first command ran to its end" test -s "$d/first.done"
  expect_eq "first run: status" "$(status_of "$r")" complete
  expect_eq "first run: its command" "$(q "$r" "select value from meta where key='command'")" \
    "sh -c 'sleep 6; echo done >'\\''$d/first.done'\\'''"
  # (about 26: 6 s at 4 Hz and the start; a board lagging on a loaded machine lets time go
  # and makes fewer, so 12 at least)
  expect_num "first run: windows (6 s at 4 Hz)" "$(q "$r" "select count(distinct seq) from samples")" 12 40
  expect_eq "integrity" "$(q "$r" "pragma integrity_check")" ok
  expect_eq "lock file: the first recorder's pid" "$(cat "$r/.lock")" "$first"
  "$MW" record -q --force -o "$r" --meter sim -- true 2>"$d/again.err"
  expect_eq "after the first: --force records again" "$?" 0
  expect_eq "second run: status" "$(status_of "$r")" complete
}

file_size_limit() {
  local d=$TMP/xfsz
  mkdir -p "$d"
  (
    # 36 KiB: the schema and first metadata (about 31 KB in the WAL with schema 6's 1 KiB
    # pages; the -shm file is 32 KiB), then a second or two of windows (about 3 KB a commit)
    # before the limit
    ulimit -f 36
    "$MW" record -q -o "$d/run" --meter sim -- sh -c "sleep 6; date +%s%N >'$d/child.done'" \
      2>"$d/err"
    echo $? >"$d/rc"
    date +%s%N >"$d/recorder.end"
  )
  expect_eq "exit: the store failed, the command did not" "$(cat "$d/rc")" 1
  expect_grep "said" "(the command goes on)" "$d/err"
  check "the command ran to its end" test -s "$d/child.done"
  # nothing orphaned: the recorder waited for its command (it ended before the recorder did)
  check "the command ended before the recorder" test "$(cat "$d/child.done")" -le "$(cat "$d/recorder.end")"
  expect_eq "status" "$(status_of "$d/run")" "failed: store"
  expect_eq "integrity" "$(q "$d/run" "pragma integrity_check")" ok
  expect_num "windows stored before the limit" "$(q "$d/run" "select count(distinct seq) from samples")" 1 40
}

hangup() {
  local d=$TMP/hup
  mkdir -p "$d"
  "$MW" record -o "$d/run" --meter sim -- sh -c "echo \$\$ >'$d/child.pid'; exec sleep 60" 2>"$d/err" &
  local rec=$!
  PIDS+=("$rec")
  # (up to 60 s for the command to start: the board comes first, seconds on a loaded machine)
  for _ in $(seq 600); do [ -s "$d/child.pid" ] && break; sleep 0.1; done
  check "the command started" test -s "$d/child.pid"
  sleep 1
  local child; child=$(cat "$d/child.pid" 2>/dev/null)
  PIDS+=("$child")
  kill -HUP "$rec"
  local t0; t0=$(now_ns)
  wait "$rec"
  expect_eq "exit: the command's, killed by SIGHUP" "$?" 129
  expect_num "ended within (s)" "$(( ($(now_ns) - t0) / 1000000000 ))" 0 15
  check "the command got SIGHUP and was reaped" sh -c "! kill -0 $child 2>/dev/null"
  expect_eq "status" "$(status_of "$d/run")" interrupted
  expect_eq "exit_status" "$(q "$d/run" "select value from meta where key='exit_status'")" 129
  expect_grep "summary" "interrupted" "$d/err"
}

hangup_ignored_under_nohup() {
  local d=$TMP/nohup
  mkdir -p "$d"
  (trap '' HUP; exec "$MW" record -q -o "$d/run" --meter sim -- sleep 4 2>"$d/err") &
  local rec=$!
  PIDS+=("$rec")
  sleep 2
  kill -HUP "$rec"
  wait "$rec"
  expect_eq "exit" "$?" 0
  expect_eq "status" "$(status_of "$d/run")" complete
}

closed_stderr_pipe() {
  local d=$TMP/pipe
  mkdir -p "$d"
  "$MW" record -o "$d/run" --meter sim -- sleep 2 2>&1 | true
  expect_eq "exit: not killed by SIGPIPE" "${PIPESTATUS[0]}" 0
  expect_eq "status" "$(status_of "$d/run")" complete
}

run_case second_recorder_refused
run_case file_size_limit
run_case hangup
run_case hangup_ignored_under_nohup
run_case closed_stderr_pipe
finish
