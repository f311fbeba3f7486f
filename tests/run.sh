#!/usr/bin/env bash
# Runs test binaries one after the other (cmocka prints its own report for each) and ends
# with one summary line: "check: N passed, N failed" counting test binaries.
# Usage: tests/run.sh BUILD_DIR BINARY...
set -u
build=$1; shift
pass=0; fail=0; failed=()
export MW_FIRMWARE_ELF=${MW_FIRMWARE_ELF:-$build/firmware/megawatt.elf}
export MW_BUILD=$build
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in "$@"; do
  echo "=== $t"
  start=$(date +%s%N)
  if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("$t"); fi
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  printf '=== %s: %d.%03d s\n' "$t" $((ms / 1000)) $((ms % 1000))
done
echo
for f in "${failed[@]+"${failed[@]}"}"; do echo "FAILED: $f"; done
echo "check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
