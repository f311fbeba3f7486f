#!/usr/bin/env bash
# ber_sweep.sh — how high a byte error rate the host tolerates with no corrupted sample
# stored (docs/reliability.md "Link faults"): for each rate, SECONDS of recording from the
# simulated board through the fault proxy (bit flips in the meter-to-host direction only,
# from 4 s after the start, once the recorder has identified the meter), then
# tests/faultproxy/compare.py. One table row per rate.
#
# Usage: tests/soak/ber_sweep.sh BUILD_DIR [SECONDS] [RATE...]
#   (default 60 s; rates 1e-4 1e-3 3e-3 1e-2 3e-2 1e-1)
set -u
cd "$(dirname "$0")/../.." || exit 2
BUILD=${1:-build}
S=${2:-60}
shift 2 2>/dev/null
RATES=${*:-1e-4 1e-3 3e-3 1e-2 3e-2 1e-1}
D=$BUILD/ber_sweep
rm -rf "$D"
mkdir -p "$D"
val() { sed -n "s/^$1=//p" "$2"; }
printf '| byte error rate | bits flipped | windows sent | reached the host intact | stored | corrupted stored | CRC-valid corrupted lines | lost after arrival |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for ber in $RATES; do
  d=$D/$ber
  mkdir -p "$d"
  "$BUILD/bin/mw" vmeter --link "$d/board" --load A1=200 --load A2=50,0.8,smps \
    --log-frames "$d/frames.log" 2>"$d/vmeter.err" &
  vm=$!
  for _ in $(seq 100); do [ -e "$d/board" ] && break; sleep 0.05; done
  "$BUILD/tests/faultproxy" --upstream "$d/board" --link "$d/coll" --ber "$ber" --dir down \
    --after 4 --seed 3 --log "$d/fp.log" --tap "$d/tap.bin" 2>"$d/fp.err" &
  fp=$!
  for _ in $(seq 100); do [ -e "$d/coll" ] && break; sleep 0.05; done
  "$BUILD/bin/mw" record -q -o "$d/run" --meter "$d/coll" -- sleep "$S" 2>"$d/rec.err"
  kill "$fp"; wait "$fp" 2>/dev/null
  kill "$vm"; wait "$vm" 2>/dev/null
  python3 tests/faultproxy/compare.py "$d/frames.log" "$d/tap.bin" "$d/fp.log" "$d/run" >"$d/cmp" 2>/dev/null
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$ber" "$(val down_flipped "$d/fp.log")" \
    "$(val board_windows "$d/cmp")" "$(val delivered_windows "$d/cmp")" "$(val stored_windows "$d/cmp")" \
    "$(val corrupted_samples "$d/cmp")" "$(val crc_collisions "$d/cmp")" "$(val lost_after_arrival_samples "$d/cmp")"
done
