#!/usr/bin/env bash
# make demo — for now: start the real firmware on the simulated board for a few simulated
# seconds and show what it printed. Later issues grow this into the full pipeline.
set -euo pipefail
build=${1:-build}
"$build/bin/mw" vmeter --elf "$build/firmware/megawatt.elf" --seconds 3 --stdout
