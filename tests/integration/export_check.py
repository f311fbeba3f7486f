#!/usr/bin/env python3
"""export_check — reads mw export's OTF2 archive (with python3-otf2, the OTF2 project's own
reader) or Perfetto JSON (with Python's json) and compares it with what `mw export --format
csv` says of the same run: the same phases (rank, host, thread, kind, name, bytes, start and
end within the CSV's rounding to the microsecond) and the same power windows, hence the same
energy Σ P·Δt per channel. Used by tests/integration/test_export_otf2.sh and
test_export_perfetto.sh.

usage: export_check.py otf2|perfetto TRACE PHASES.csv SAMPLES.csv META.json CHANNELS.json P2P.json
  META.json: mw export --what meta --format json (start_ns: the CSV's time origin)
  CHANNELS.json: [{"name":..., "host":...}] (sqlite3 -json), the host each channel measures
  P2P.json: [{"rank":..,"name":..,"peer":..,"bytes":..}] MPI_Send/MPI_Recv phases with a peer
Prints one line per check that failed and a summary line; exits 1 when any failed."""
import csv
import json
import math
import sys
from decimal import Decimal

HALF_US = Decimal("0.0000005")  # the CSV's times are rounded to the microsecond
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("  mismatch:", msg)


def read_csv(path):
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        return list(csv.DictReader(f))


def csv_phases(rows):
    """(rank, host, thread, kind, name, bytes) -> sorted starts/ends as Decimal seconds"""
    out = []
    for r in rows:
        key = (int(r["rank"]), r["host"], int(r["thread"]), r["kind"], r["name"], int(r["bytes"]))
        out.append((key, Decimal(r["start_s"]), Decimal(r["end_s"])))
    return sorted(out)


def csv_windows(rows):
    """channel -> [(start_s, end_s, power_w)] in time order"""
    w = {}
    for r in rows:
        w.setdefault(r["channel"], []).append(
            (Decimal(r["start_s"]), Decimal(r["time_s"]), Decimal(r["power_w"])))
    for k in w:
        w[k].sort()
    return w


def compare_phases(got, want):
    got = sorted(got)
    if len(got) != len(want):
        fail(f"{len(got)} phases, the CSV has {len(want)}")
    for g, c in zip(got, want):
        if g[0] != c[0]:
            fail(f"phase {g[0]!r} where the CSV has {c[0]!r}")
            return
        if abs(g[1] - c[1]) > HALF_US or abs(g[2] - c[2]) > HALF_US:
            fail(f"phase {g[0]!r}: [{g[1]}, {g[2]}] s, the CSV [{c[1]}, {c[2]}]")


def energy(windows):
    return sum(p * (t1 - t0) for t0, t1, p in windows)


def compare_energy(got, want):
    """got: channel -> energy (J) from the trace; want: csv_windows. Tolerance: the CSV's
    rounding of both ends of each window to the microsecond."""
    if set(got) != set(want):
        fail(f"channels {sorted(got)!r}, the CSV {sorted(want)!r}")
    for ch in want:
        e_csv = energy(want[ch])
        tol = sum(abs(p) for _, _, p in want[ch]) * Decimal("0.000001") + Decimal("1e-9")
        e = Decimal(repr(got.get(ch, float("nan"))))
        if not abs(e - e_csv) <= tol:
            fail(f"channel {ch!r}: {e} J, the CSV {e_csv} J (tolerance {tol})")
        print(f"  {ch!r}: {len(want[ch])} windows, {e_csv:.6f} J (CSV) = {e:.6f} J")


# ---- OTF2 -----------------------------------------------------------------------------
def otf2_check(path, origin_ns, channels, p2p):
    import otf2
    from otf2.events import Enter, Leave, Metric, MpiRecv, MpiSend

    phases, stacks, sends = [], {}, []
    power = {}  # channel -> [(t_ns, value)]
    with otf2.reader.open(path) as trace:
        d = trace.definitions
        if d.clock_properties.timer_resolution != 1000000000:
            fail("timer resolution is not 1 ns")
        for m in d.metric_members:
            if m.name == "power" and (m.unit != "W" or str(m.metric_mode).find("ABSOLUTE_LAST") < 0):
                fail(f"metric member {m}")
        scope = {}
        for inst in d.metrics:
            if hasattr(inst, "recorder"):
                scope[inst.recorder.name[len("power "):]] = inst.scope.name
        for c in channels:
            want = c["host"] if c["host"] is not None else "megawatt run"
            if scope.get(c["name"]) != want:
                fail(f"channel {c['name']!r}: scope {scope.get(c['name'])!r}, want {want!r}")
        for loc, ev in trace.events:
            t = Decimal(ev.time - origin_ns) / Decimal(10**9)
            if isinstance(ev, Enter):
                stacks.setdefault(loc, []).append((ev.region, t, ev.attributes or {}))
            elif isinstance(ev, Leave):
                region, t0, attrs = stacks[loc].pop()
                if region != ev.region:
                    fail(f"leave of {ev.region.name!r} closes {region.name!r}")
                grp = loc.group
                rank = int(grp.name.split()[1]) if grp.name.startswith("rank ") else -1
                nbytes = next((v for a, v in attrs.items() if a.name == "bytes"), 0)
                key = (rank, grp.system_tree_parent.name, int(loc.name.split()[1]),
                       region.description, region.name, nbytes)
                phases.append((key, t0, t))
            elif isinstance(ev, Metric):
                power.setdefault(loc.name[len("power "):], []).append((ev.time, ev.values[0]))
            elif isinstance(ev, (MpiSend, MpiRecv)):
                rank = int(loc.group.name.split()[1])
                peer = ev.receiver if isinstance(ev, MpiSend) else ev.sender
                sends.append((rank, "send" if isinstance(ev, MpiSend) else "recv", peer,
                              ev.msg_length))
    if any(stacks.values()):
        fail("regions left open")
    want = sorted((p["rank"], "send" if p["name"] != "MPI_Recv" else "recv", p["peer"],
                   p["bytes"]) for p in p2p)
    if sorted(sends) != want:
        fail(f"MPI messages {sorted(sends)!r}, the run {want!r}")
    energies = {}
    for ch, ev in power.items():  # ABSOLUTE_LAST: a value holds since the previous event
        e, prev = 0.0, None
        for t_ns, v in ev:
            if prev is not None and not math.isnan(v):
                e += v * (t_ns - prev) / 1e9
            prev = t_ns
        energies[ch] = e
    return phases, energies, power


# ---- Perfetto -------------------------------------------------------------------------
def perfetto_check(path, origin_ns, channels):
    with open(path, encoding="utf-8") as f:  # strict: invalid UTF-8 raises
        doc = json.load(f)
    ev = doc["traceEvents"]
    base = Decimal(int(doc["otherData"]["origin_ns"]) - origin_ns) / Decimal(10**9)
    us = Decimal("0.000001")
    if any(e["ph"] not in ("M", "X", "C") for e in ev):
        fail("an event that is not M, X or C")
    pname = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
             if e["ph"] == "M" and e["name"] == "thread_name"}
    if len(set(pname.values())) != len(pname):
        fail("two processes of one name")
    if {t for _, t in tname} & set(pname):  # tids are global: a process's counters use tid = pid
        fail("a thread's tid is also a pid")
    phases, lanes = [], {}
    for e in ev:
        if e["ph"] != "X":
            continue
        a = e["args"]
        want = (f"rank {a['rank']} " if a["rank"] >= 0 else "") + f"thread {a['thread']}"
        if not tname.get((e["pid"], e["tid"]), "").startswith(want):
            fail(f"thread {tname.get((e['pid'], e['tid']))!r} for {want!r}")
        t0 = base + Decimal(str(e["ts"])) * us
        t1 = t0 + Decimal(str(e["dur"])) * us
        key = (a["rank"], pname[e["pid"]], a["thread"], e["cat"], e["name"], a["bytes"])
        phases.append((key, t0, t1))
        lanes.setdefault((e["pid"], e["tid"]), []).append((t0, -t1))
    for lane, spans in lanes.items():  # each thread's slices nest
        stack = []
        for t0, neg_t1 in sorted(spans):
            while stack and stack[-1] <= t0:
                stack.pop()
            if stack and -neg_t1 > stack[-1]:
                fail(f"thread {tname[lane]!r}: a slice overlaps its parent at {t0} s")
            stack.append(-neg_t1)
    hosts = {c["name"]: c["host"] if c["host"] is not None else "meter (no host)" for c in channels}
    tracks, energies = {}, {}
    for e in ev:
        if e["ph"] == "C":
            if pname[e["pid"]] != hosts.get(e["name"]):
                fail(f"counter {e['name']!r} in process {pname[e['pid']]!r}")
            tracks.setdefault(e["name"], []).append(
                (base + Decimal(str(e["ts"])) * us, Decimal(str(e["args"]["W"]))))
    for ch, pts in tracks.items():  # a value holds until the next
        pts.sort(key=lambda p: p[0])
        energies[ch] = float(sum(v * (pts[i + 1][0] - t) for i, (t, v) in enumerate(pts[:-1])))
    return phases, energies, tracks


def main():
    fmt, trace, phases_csv, samples_csv, meta_json, ch_json, p2p_json = sys.argv[1:8]
    origin_ns = int(json.load(open(meta_json))["meta"]["start_ns"])
    channels = json.load(open(ch_json))
    p2p = json.load(open(p2p_json)) if fmt == "otf2" else []
    want_ph = csv_phases(read_csv(phases_csv))
    want_w = csv_windows(read_csv(samples_csv))
    if fmt == "otf2":
        phases, energies, power = otf2_check(trace, origin_ns, channels, p2p)
        for ch, w in want_w.items():  # each window's power at its end, in order
            vals = [(t, v) for t, v in power.get(ch, []) if not math.isnan(v)]
            if len(vals) != len(w) or any(
                    abs(Decimal(t - origin_ns) / 10**9 - t1) > HALF_US or
                    Decimal(repr(v)) != p for (t, v), (_, t1, p) in zip(vals, w)):
                fail(f"channel {ch!r}: windows differ from the CSV's")
    else:
        phases, energies, tracks = perfetto_check(trace, origin_ns, channels)
        for ch, w in want_w.items():  # each window's power at its start
            starts = {}
            for t, v in tracks.get(ch, []):
                starts.setdefault(t, []).append(v)
            for t0, _, p in w:
                near = [v for t, vs in starts.items() if abs(t - t0) <= HALF_US for v in vs]
                if p not in near:
                    fail(f"channel {ch!r}: no {p} W at {t0} s")
                    break
    compare_phases(phases, want_ph)
    compare_energy(energies, want_w)
    print(f"{fmt}: {len(phases)} phases, {len(energies)} channels, {len(FAILS)} mismatches")
    sys.exit(1 if FAILS else 0)


main()
