#!/usr/bin/env bash
# make fuzz: runs libFuzzer on each named target for SECONDS, one after the other, in one
# process each (the machine is shared), and ends with a table: executions, executions per
# second, corpus size, crashes. New inputs go to BUILD/fuzz/corpus/NAME/ (the seeds in
# tests/fuzz/corpus/NAME/ are read, never written); a crashing input is saved as
# BUILD/fuzz/artifacts/NAME/crash-* (or leak-*, timeout-*, oom-*) with libFuzzer's report in
# BUILD/fuzz/log/NAME.log. Exit status 1 when any target crashed.
# Usage: tests/fuzz/run.sh BUILD SECONDS NAME...
# Re-run one crash: BUILD/fuzz/bin/fuzz_NAME BUILD/fuzz/artifacts/NAME/crash-...
set -u
build=$1 secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/../lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rows=() failed=0
for name in "$@"; do
  bin=$build/fuzz/bin/fuzz_$name seeds=$here/corpus/$name
  corpus=$build/fuzz/corpus/$name art=$build/fuzz/artifacts/$name log=$build/fuzz/log/$name.log
  mkdir -p "$corpus" "$art" "$(dirname "$log")"
  [ -x "$bin" ] || { echo "fuzz: $bin is not built"; exit 2; }
  extra=()
  [ -f "$here/$name.dict" ] && extra+=("-dict=$here/$name.dict")
  case $name in store) extra+=(-max_len=65536) ;; esac
  before=$(find "$art" -type f | wc -l)
  echo "=== fuzz_$name: $secs s (log: $log)"
  "$bin" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$art/" "${extra[@]}" "$corpus" "$seeds" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  units=$(find "$corpus" -type f | wc -l)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  crashes=$(( $(find "$art" -type f | wc -l) - before ))
  if [ "$rc" -ne 0 ]; then
    failed=1
    echo "fuzz_$name: FAILED (exit $rc); the end of its log:"
    tail -n 40 "$log" | sed 's/^/  /'
  fi
  rows+=("$(printf '%-12s %10s %8s %8s %8s %8s' "$name" "${execs:-?}" "${rate:-?}" \
    "${cov:-?}" "$units" "$crashes")")
done
echo
printf '%-12s %10s %8s %8s %8s %8s\n' target execs exec/s cov corpus crashes
for r in "${rows[@]}"; do echo "$r"; done
[ "$failed" -eq 0 ]
