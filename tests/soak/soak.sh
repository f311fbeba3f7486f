#!/usr/bin/env bash
# soak.sh — `make soak`: SOAK_S seconds (default 3600) of recording from the simulated board
# (the real firmware, mw vmeter, logging every line it sends) through the fault proxy at a
# byte error rate of SOAK_BER (default 1e-3, from 5 s in: the recorder identifies the meter
# first) with a link cut of SOAK_CUT (default 3@120: 3 s every 120 s), while a workload runs (mwb-pattern: one thread, busy/idle in 1 s bits). At the end
# tests/faultproxy/compare.py compares the store with what the board sent and with what
# reached the host intact: lost, corrupted and duplicated samples.
#
# Usage: tests/soak/soak.sh BUILD_DIR   (SOAK_S, SOAK_BER, SOAK_CUT, SOAK_SEED, SOAK_DIR)
# Exit 0 when no corrupted or duplicated sample was stored and every sample that reached
# the host intact was stored; the figures go to SOAK_DIR/summary.txt (default
# BUILD_DIR/soak/summary.txt) and standard output.
set -u
cd "$(dirname "$0")/../.." || exit 2
BUILD=${1:-build}
S=${SOAK_S:-3600}
BER=${SOAK_BER:-1e-3}
CUT=${SOAK_CUT:-3@120}
SEED=${SOAK_SEED:-1}
D=${SOAK_DIR:-$BUILD/soak}
MW=$BUILD/bin/mw
PROXY=$BUILD/tests/faultproxy
WORK=$BUILD/bin/mwb-pattern

case $S in '' | *[!0-9.]*) echo "soak: SOAK_S='$S' is not a number of seconds" >&2; exit 2 ;; esac
for f in "$MW" "$PROXY" "$WORK"; do
  [ -x "$f" ] || { echo "soak: $f missing (make soak builds it)" >&2; exit 2; }
done
rm -rf "$D"
mkdir -p "$D"
pids=()
cleanup() { for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT INT TERM

echo "soak: $S s through the fault proxy (ber $BER, cut $CUT s, seed $SEED) into $D"
"$MW" vmeter --link "$D/board" --load A1=200 --load A2=120,0.9,smps --load A3=35 \
  --log-frames "$D/frames.log" 2>"$D/vmeter.err" &
pids+=($!)
for _ in $(seq 100); do [ -e "$D/board" ] && break; sleep 0.05; done
"$PROXY" --upstream "$D/board" --link "$D/coll" --ber "$BER" --after 5 --cut "$CUT" --seed "$SEED" \
  --log "$D/faultproxy.log" --tap "$D/tap.bin" 2>"$D/faultproxy.err" &
fp=$!
pids+=("$fp")
for _ in $(seq 100); do [ -e "$D/coll" ] && break; sleep 0.05; done
t0=$(date +%s)
"$MW" record -q -o "$D/run" --meter "$D/coll" -- "$WORK" --seconds "$S" --threads 1 \
  >"$D/workload.out" 2>"$D/record.err"
rc=$?
t1=$(date +%s)
kill "$fp"; wait "$fp" 2>/dev/null
cleanup
python3 tests/faultproxy/compare.py "$D/frames.log" "$D/tap.bin" "$D/faultproxy.log" "$D/run" \
  >"$D/compare.txt" 2>"$D/compare.err"
val() { sed -n "s/^$1=//p" "$2"; }
q() { sqlite3 -readonly "$D/run/trace.db" "$1"; }
{
  echo "soak: SOAK_S=$S SOAK_BER=$BER SOAK_CUT=$CUT SOAK_SEED=$SEED"
  echo "recorded                  $((t1 - t0)) s, mw record exit $rc, status $(q "select value from meta where key='status'")"
  echo "bytes from the board      $(val down_bytes_in "$D/faultproxy.log"), bits flipped $(val down_flipped "$D/faultproxy.log")"
  echo "link cuts                 $(val cuts_while_connected "$D/compare.txt") while recording, reconnected $(val reconnects "$D/compare.txt"), 'disconnected' gaps $(val disconnect_gaps "$D/compare.txt")"
  echo "reconnect time            mean $(val reconnect_ms_mean "$D/compare.txt") ms, max $(val reconnect_ms_max "$D/compare.txt") ms after the link came back"
  echo "windows the board sent    $(val board_windows "$D/compare.txt") while the recorder was connected"
  echo "reached the host intact   $(val delivered_windows "$D/compare.txt") windows"
  echo "lost on the link          $(val lost_on_link_windows "$D/compare.txt") windows (flipped bits, cuts)"
  echo "stored                    $(val stored_windows "$D/compare.txt") windows, $(val stored_samples "$D/compare.txt") samples ($(val channels "$D/compare.txt") channels)"
  echo "lost after arrival        $(val lost_after_arrival_samples "$D/compare.txt") samples"
  echo "corrupted samples stored  $(val corrupted_samples "$D/compare.txt")"
  echo "duplicated samples stored $(val duplicated_samples "$D/compare.txt")"
  echo "CRC-valid corrupted lines $(val crc_collisions "$D/compare.txt")"
  echo "recorder's counts         bad CRC lines $(q "select value from meta where key='meter_bad_crc_lines'"), lost windows $(q "select value from meta where key='meter_lost_windows'"), gaps $(q "select count(*) from gaps")"
} | tee "$D/summary.txt"
ok=1
for k in corrupted_samples duplicated_samples lost_after_arrival_samples crc_collisions; do
  [ "$(val "$k" "$D/compare.txt")" = 0 ] || ok=0
done
[ "$rc" = 0 ] || ok=0
[ "$(val stored_windows "$D/compare.txt")" -gt 0 ] 2>/dev/null || ok=0
if [ "$ok" = 1 ]; then echo "soak: PASS"; exit 0; fi
echo "soak: FAIL (see $D)"
exit 1
