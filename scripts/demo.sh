#!/usr/bin/env bash
# make demo — for now: the real firmware on the simulated board, measuring mains at 230 V
# 50 Hz and the idle power of three nodes (seed 000, Table 5: N1 156.3 W, N2 146.1 W, N3
# 172.8 W, SMPS-like currents) and a switch, for a few simulated seconds; prints what the
# meter sends. Later issues grow this into the full pipeline (mw sweep, analysis, report).
set -euo pipefail
build=${1:-build}
echo "demo: the meter firmware on the simulated board, 3 s at 4 Hz (W lines: seq, meter time,"
echo "      flags, sets, missed, clip, f mHz, Vrms mV; then per channel P mW, Irms uA, PF x1000, E mJ)"
"$build/bin/mw" vmeter --elf "$build/firmware/megawatt.elf" --seconds 3 --stdout \
  --mains 230,50 --wave smps --pf 0.95 \
  --load A1=156.3 --load A2=146.1 --load A3=172.8 --load A4=3.5,1,sine
