#!/usr/bin/env python3
"""inband_writer — the power a test_inband.sh case puts into a powercap tree while mw record
runs: package-0 (intel-rapl:0) draws 60 W, 100 W while FLAG exists, its dram
(intel-rapl:0:0) 12 W, integrated over this process's CLOCK_REALTIME turns (about every
5 ms) until STOP exists. Each turn replaces the energy_uj files atomically and appends
"time_ns package_uj dram_uj" to LOG: the files hold, at any instant, the log's last line,
which is the truth the test compares mw's figures with, whatever the load on the machine
does to the turns.

usage: inband_writer.py ROOT FLAG STOP LOG"""
import os
import sys
import time


def put(path, value):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % value)
    os.replace(tmp, path)


def main():
    root, flag, stop, log = sys.argv[1:5]
    ep = ed = 0
    last = time.time_ns()
    with open(log, "w") as out:
        while not os.path.exists(stop):
            now = time.time_ns()
            p = 100 if os.path.exists(flag) else 60
            ep += (now - last) * p // 1000  # W x ns / 1000 = uJ
            ed += (now - last) * 12 // 1000
            last = now
            put(root + "/intel-rapl:0/energy_uj", ep)
            put(root + "/intel-rapl:0:0/energy_uj", ed)
            out.write("%d %d %d\n" % (now, ep, ed))
            out.flush()
            time.sleep(0.005)


if __name__ == "__main__":
    main()
