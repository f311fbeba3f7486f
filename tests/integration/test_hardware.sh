#!/usr/bin/env bash
# The hardware design's own checks and tests (Python 3, standard library only): the netlist,
# drawings and layout are up to date and consistent with firmware/portable/afe.h
# (hardware/schematic.py --check), and tests/hardware/test_frontend.py checks the crosstalk,
# sample-and-hold kick, aliasing and budget arithmetic against independent computations and
# feeds the design checks bad designs.
cd "$(dirname "$0")/../.." || exit 2
set -e
python3 hardware/schematic.py --check >/dev/null || { python3 hardware/schematic.py --check; exit 1; }
python3 tests/hardware/test_frontend.py
