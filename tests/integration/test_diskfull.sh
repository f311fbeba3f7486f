#!/usr/bin/env bash
# mw record when its run directory stops taking writes (issue 12, docs/reliability.md "Disk
# full and read-only"): a clear error, the command is not killed and runs to its end, what
# was stored stays intact, and the exit status and the run's status say the store failed.
#
# Two ways to fill the disk: build/tests/libfailwrite.so (LD_PRELOAD; writes under the run
# directory fail with ENOSPC or EROFS while a trigger file exists: works for any user) for
# every case, and, as root where mounting works, a real 2 MB tmpfs that the command itself
# fills with dd (the kernel's ENOSPC). A run directory that cannot be created (read-only
# parent) is refused before anything starts.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

SHIM=$(abs "$BUILD/tests/libfailwrite.so")

# the command: wait, fill the disk (touch the trigger), wait, maybe free it (DIR/freed: when),
# wait, finish
child_script() { # DIR FULL_ACTION FREE_ACTION
  echo "sleep 3; sqlite3 -readonly '$1/run/trace.db' 'select count(*) from samples' >'$1/before';
        $2; sleep 3; $3; date +%s%N >'$1/freed'; sleep 2; echo done >'$1/child.done'"
}

common_checks() { # DIR
  local d=$1
  expect_eq "exit: the store failed, the command did not" "$RC" 1
  check "the command ran to its end" test -s "$d/child.done"
  expect_eq "integrity" "$(q "$d/run" "pragma integrity_check")" ok
  local before; before=$(cat "$d/before" 2>/dev/null)
  # 3 s in: about 2 s of windows committed (40 samples); a board slow to start or lagging on
  # a loaded machine gives fewer, and the checks below need only some
  expect_num "samples stored before the disk filled" "$before" 5 100
  # everything a reader saw before the fault is still there, unchanged (on a loaded machine
  # few windows may come before the fault: no window old enough to check is no failure)
  expect_eq "what was stored is intact" "$(q "$d/run" "select count(*) >= $before from samples where seq < $before / 5")" 1
  expect_eq "no window missing before the fault" "$(q "$d/run" "select coalesce(count(distinct seq) = max(seq) + 1, 1) from samples where seq < $before / 5 - 5")" 1
}

enospc_transient() {
  local d=$TMP/full
  mkdir -p "$d"
  LD_PRELOAD=$SHIM FAILWRITE_DIR=$d/run FAILWRITE_TRIGGER=$d/trigger \
    "$MW" record -o "$d/run" --meter sim -- sh -c "$(child_script "$d" "touch '$d/trigger'" "rm '$d/trigger'")" \
    2>"$d/err"
  RC=$?
  common_checks "$d"
  expect_grep "clear error" "run/trace.db: .*database or disk is full (the command goes on)" "$d/err"
  expect_eq "one message, not one per window" "$(grep -c 'disk is full' "$d/err")" 1
  check "the shim refused writes" test -s "$d/run.failwrite.count"
  # once there is room again the recording goes on, and the run says what happened
  expect_eq "status" "$(q "$d/run" "select value from meta where key='status'")" "failed: store"
  # the command's last 2 s after the disk was freed: about 8 windows (and the one holding its
  # end); counted by their time, not by a sequence number guessed from the windows before
  # (which the board's pace on a loaded machine moves); 3 at least
  expect_num "windows stored after the disk was freed" \
    "$(q "$d/run" "select count(distinct seq) from samples where t0_ns >= $(cat "$d/freed" 2>/dev/null || echo 0)")" 3 20
  expect_grep "summary says so" "failed: store" "$d/err"
}

erofs_permanent() {
  local d=$TMP/ro
  mkdir -p "$d"
  LD_PRELOAD=$SHIM FAILWRITE_DIR=$d/run FAILWRITE_ERRNO=EROFS FAILWRITE_TRIGGER=$d/trigger \
    "$MW" record -o "$d/run" --meter sim -- sh -c "$(child_script "$d" "touch '$d/trigger'" true)" \
    2>"$d/err"
  RC=$?
  common_checks "$d"
  expect_grep "clear error" "run/trace.db: .*disk I/O error (the command goes on)" "$d/err"
  # the final status cannot be written: a reader sees the run as a killed recorder's
  expect_eq "status left as recording" "$(q "$d/run" "select value from meta where key='status'")" recording
}

tmpfs_full() {
  local d=$TMP/tmpfs
  mkdir -p "$d/mnt"
  if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=2m mwtest "$d/mnt" 2>/dev/null; then
    echo "  (skipped: needs root and mount; the shim cases above cover it)"
    return
  fi
  mkdir "$d/mnt/x"
  local m=$d/mnt/x
  "$MW" record -o "$m/run" --meter sim -- sh -c "$(child_script "$m" \
    "dd if=/dev/zero of='$d/mnt/filler' bs=4k 2>/dev/null; df -k '$d/mnt' | tail -1 >'$d/df'" \
    "rm '$d/mnt/filler'")" 2>"$d/err"
  RC=$?
  cp "$m/child.done" "$m/before" "$d/" 2>/dev/null
  mkdir -p "$d/run" && cp "$m"/run/trace.db* "$d/run/"
  umount "$d/mnt"
  common_checks "$d"
  expect_eq "the disk was full" "$(awk '{print $4}' "$d/df")" 0
  expect_grep "clear error" "database or disk is full (the command goes on)" "$d/err"
  expect_eq "status" "$(q "$d/run" "select value from meta where key='status'")" "failed: store"
}

readonly_at_start() {
  local d=$TMP/rodir out=$TMP/rodir.err
  mkdir -p "$d"
  chmod 555 "$d"
  if [ "$(id -u)" = 0 ]; then
    # root writes anywhere: ask as nobody (the firmware must be readable to nobody)
    chmod o+rx "$TMP"
    # (with a HOME of its own: nobody may not read root's ~/.config/megawatt/channels, and an
    # unreadable channels file is an error)
    HOME=$TMP XDG_CONFIG_HOME= setpriv --reuid=65534 --regid=65534 --clear-groups "$MW" record -o "$d/run" --meter sim \
      -- touch "$TMP/rodir.child" 2>"$out"
  else
    "$MW" record -o "$d/run" --meter sim -- touch "$TMP/rodir.child" 2>"$out"
  fi
  expect_eq "exit" "$?" 2
  expect_grep "names the directory" "$d/run: Permission denied" "$out"
  check "nothing created" test ! -e "$d/run"
  check "the command was not started" test ! -e "$TMP/rodir.child"
}

run_case enospc_transient
run_case erofs_permanent
run_case tmpfs_full
run_case readonly_at_start
finish
