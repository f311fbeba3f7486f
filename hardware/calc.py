#!/usr/bin/env python3
"""The arithmetic behind hardware/sizing.md and hardware/accuracy.md, so that every number
there can be recomputed (Python 3 standard library only).

    python3 hardware/calc.py sizing    gains, W per count, noise per window, clipping
    python3 hardware/calc.py budget    accuracy budget per channel kind, before and after
                                          calibration (--measured=KIND=RATIO_PCT,PHASE_DEG
                                          enters the two-point check's results)
    python3 hardware/calc.py crosstalk crosstalk through the bias node, revisions A and B
    python3 hardware/calc.py bom       bill of materials with totals
    python3 hardware/calc.py sim       measure on the simulated board (needs build/bin/mw,
                                          i.e. `make` first): per-window mean and spread

The constants come from firmware/portable/afe.h (parsed) and from the sources named next
to each one.
"""
import math
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from schematic import (CT_MODELS, F_MAINS, R_BOT, R_TOP, REV_A, VREF,  # noqa: E402
                       derived)

def afe():
    txt = open(os.path.join(ROOT, "firmware", "portable", "afe.h")).read()
    get = lambda n: float(re.search(r"#define\s+%s\s+([0-9.]+)" % n, txt).group(1))
    vref, vr, ir = get("MW_AFE_VREF_V"), get("MW_AFE_V_RATIO"), get("MW_AFE_I_RATIO")
    return {"vref": vref, "v_ratio": vr, "i_ratio": ir, "fs_pk": get("MW_AFE_FULL_SCALE_PEAK_A"),
            "g_v": vref / 1024 * vr, "g_i": vref / 1024 * ir, "conv_us": get("MW_CONV_US")}

A = afe()
CONV_PER_S = 1e6 / A["conv_us"]          # 9,615.4 conversions/s (docs/firmware.md)
NOISE_LSB = 0.5                           # simulated board's ADC noise (host/simboard.c)
Q_LSB = math.sqrt(NOISE_LSB ** 2 + 1 / 12)   # noise + quantisation, LSB rms

def sets_per_window(n_current, window_s=0.25):
    # a set: the voltage, the dummy 0 V conversion, then the currents (docs/firmware.md)
    return CONV_PER_S * window_s / (2 + n_current)

def sigma_p(vrms, gain_i, n_current=5, window_s=0.25):
    """Standard deviation of one window's real power from current-channel noise:
    Vrms x (gain x sqrt(sigma_n^2 + 1/12)) / sqrt(sample sets)."""
    return vrms * gain_i * Q_LSB / math.sqrt(sets_per_window(n_current, window_s))

# CTs: name, rated A rms, pin volts per line amp (with its burden), source
CTS = [
    ("SCT-013-000 + 200 Ω (bare, 2000:1)", 100.0, 200 / 2000, "YHDC: 100 A : 50 mA"),
    ("SCT-013-010 (10 A : 1 V)", 10.0, 1 / 10.0, "YHDC voltage-output series"),
    ("SCT-013-005 (5 A : 1 V)", 5.0, 1 / 5.0, "YHDC voltage-output series"),
    ("SCT-013-020 (20 A : 1 V)", 20.0, 1 / 20.0, "YHDC voltage-output series"),
    ("SCT-013-030 (30 A : 1 V)", 30.0, 1 / 30.0, "YHDC voltage-output series"),
]

def sizing():
    g_i, g_v = A["g_i"], A["g_v"]
    print("Default gains (afe.h): %.6f V/count, %.6f A/count" % (g_v, g_i))
    print("Noise used: %.2f LSB rms + quantisation (1/sqrt(12)) = %.3f LSB rms" % (NOISE_LSB, Q_LSB))
    print("Sample sets per 250 ms window: %.1f (1 V + 5 I), %.1f (1 V + 15 I)\n"
          % (sets_per_window(5), sets_per_window(15)))

    print("| mains | load | I rms | I peak | counts peak | of full scale (%g A pk) |" % A["fs_pk"])
    print("|---|---|---|---|---|---|")
    for v in (230.0, 120.0):
        for name, p in (("node idle", 150.0), ("node working", 225.0), ("switch", 5.0)):
            i = p / v
            print("| %g V | %s %g W | %.3f A | %.3f A | %.1f | %.2f %% |"
                  % (v, name, p, i, i * math.sqrt(2), i * math.sqrt(2) / g_i,
                     100 * i * math.sqrt(2) / A["fs_pk"]))
    print()
    print("| CT | rated | pin V per A | gain A/count | 150 W idle at 230 V: % of rating | at 120 V |")
    print("|---|---|---|---|---|---|")
    for name, rated, vpa, _ in CTS:
        gain = A["vref"] / 1024 / vpa
        print("| %s | %g A | %.4f | %.6f | %.2f %% | %.2f %% |"
              % (name, rated, vpa, gain, 100 * 150 / 230 / rated, 100 * 150 / 120 / rated))
    print()
    print("| channel set-up | gain A/count | W per count (instantaneous) 230 V / 120 V "
          "| sigma P per 250 ms window, 1V+5I: 230 V / 120 V | 1V+15I: 230 V | full scale, line A peak |")
    print("|---|---|---|---|---|---|")
    setups = [("0.1 V/A (default), 1 turn", 1.0, 1), ("0.1 V/A, N = 10 turns", 1.0, 10),
              ("0.2 V/A (SCT-013-005), 1 turn", 2.0, 1), ("0.2 V/A (SCT-013-005), N = 10", 2.0, 10),
              ("0.2 V/A (SCT-013-005), N = 20", 2.0, 20)]
    for name, sens, n in setups:
        g = g_i / sens / n
        print("| %s | %.7f | %.3f / %.3f | %.4f / %.4f W | %.4f W | %.2f A |"
              % (name, g, 230 * g, 120 * g, sigma_p(230, g), sigma_p(120, g),
                 sigma_p(230, g, 15), A["fs_pk"] / sens / n))
    print()
    print("Smallest meaningful power (3 sigma) per 250 ms window, 1V+5I, default gain: "
          "%.2f W at 230 V, %.2f W at 120 V; over 1 s (4 windows): %.2f / %.2f W; over 60 s: "
          "%.3f / %.3f W" % (3 * sigma_p(230, g_i), 3 * sigma_p(120, g_i),
                             3 * sigma_p(230, g_i) / 2, 3 * sigma_p(120, g_i) / 2,
                             3 * sigma_p(230, g_i) / math.sqrt(240), 3 * sigma_p(120, g_i) / math.sqrt(240)))
    print("Irms noise floor (no current): %.1f mA at 0.1 V/A" % (1000 * g_i * Q_LSB))
    print()
    fs = A["fs_pk"]
    clip = 2.5 * A["i_ratio"]
    print("Clipping: ADC code 0/1023 at +-2.5 V around the bias -> %.1f A peak; defined full scale "
          "%.0f A peak (+-2.4 V) leaves %.1f A for bias tolerance (1 %% resistors: +-25 mV = %.2f A)"
          % (clip, fs, clip - fs, 0.025 * A["i_ratio"]))
    for v in (230.0, 120.0):
        print("  %g V: sine %.2f A rms = %.0f W; crest factor 2.5 (SMPS) %.2f A rms = %.0f W at PF 1"
              % (v, fs / math.sqrt(2), v * fs / math.sqrt(2), fs / 2.5, v * fs / 2.5))
    vpk = 2.5 * A["v_ratio"]
    print("Voltage input clips at %.0f V peak = %.0f V rms; 230 V is %.2f V peak at the pin "
          "(headroom %.0f %%)" % (vpk, vpk / math.sqrt(2), 230 * math.sqrt(2) / A["v_ratio"],
                                  100 * (2.5 / (230 * math.sqrt(2) / A["v_ratio"]) - 1)))

# --------------------------------------------------------------------------- budget ------
# Revision B's error budget, per channel kind, before and after `mw calibrate`. Every term is
# computed here from a named source or a shown derivation; terms that only a measurement on
# the built meter can give (the CT's ratio and phase across the channel's working range) are
# inputs: `budget --measured KIND=RATIO_PCT,PHASE_DEG` replaces the model bound with the
# two-point check of hardware/README.md. Figures are relative errors of real power, in %.
import cmath  # noqa: E402

MAINS_V = 230.0
# Channel kinds: CT model, primary turns, working range (W), calibration point (W of the
# channel's own load, or the load on a one-turn pass for the switch, see README), PF.
KINDS = [
    {"kind": "node", "ct": "SCT-013-010", "turns": 1, "p_lo": 150.0, "p_hi": 250.0,
     "pf": 0.95, "cal": "its own load near 200 W (a 200 W lamp or heater)", "goal": 1.0,
     "ct_a": "SCT-013-010", "cal_a": 200.0, "prev": "V"},
    {"kind": "node on -005", "ct": "SCT-013-005", "turns": 1, "p_lo": 150.0, "p_hi": 250.0,
     "pf": 0.95, "cal": "its own load near 200 W", "goal": 1.0,
     "ct_a": "SCT-013-010", "cal_a": 200.0, "prev": "V"},
    {"kind": "GPU node", "ct": "SCT-013-010", "turns": 1, "p_lo": 500.0, "p_hi": 2000.0,
     "pf": 0.95, "cal": "a 1-2 kW heater", "goal": 1.0, "ct_a": "SCT-013-010",
     "cal_a": 2000.0, "prev": "V"},
    {"kind": "switch", "ct": "SCT-013-005", "turns": 10, "p_lo": 4.0, "p_hi": 6.0,
     "pf": 0.9, "cal": "a 50 W lamp through ONE turn = the switch's 10 x 5 W ampere-turns",
     "goal": 3.0, "ct_a": "SCT-013-005", "cal_a": 25.0, "prev": "node"},
]
REF_CLASSES = (0.5, 1.5)   # % of the calibration reference (power analyser, plug-in meter)

# OpenEnergyMonitor, "YHDC SCT-013-000 CT sensor report": ratio error of one sample with a
# multimeter (a near-0 Ohm burden) as the burden, by primary current (A): %.
OEM_RATIO = [(0.5, 1.36), (1.0, 0.80), (1.5, 0.00), (5.0, -2.00), (10.0, 0.00), (100.0, 1.44)]
# Same report: phase lead "a little over 4 deg" with 22 Ohm and "nearly 8 deg" with 120 Ohm
# at low current. With lead = atan((R_b + R_w) / X_m) these two points give the winding
# resistance R_w and the magnetising reactance X_m at low current:
def ct_magnetising():
    t1, t2 = math.tan(math.radians(4.0)), math.tan(math.radians(8.0))
    x_m = (120.0 - 22.0) / (t2 - t1)
    return x_m, t1 * x_m - 22.0
X_M, R_W = ct_magnetising()
# Adapter lead (OpenEnergyMonitor, "Sources of error": 4 deg at 185 V to 7.6 deg at 253 V).
def adapter_lead(v):
    return 4.0 + (v - 185.0) * (7.6 - 4.0) / (253.0 - 185.0)

def ct_lead(model):
    return math.degrees(math.atan((CT_MODELS[model]["r_int"] + R_W) / X_M))

def burden_scale(model):
    """CT theory: ratio and phase errors = -(R_w + R_b)/Z_m, so they scale with the
    secondary resistance; OEM's ratio table was taken with R_b ~ 0."""
    return (CT_MODELS[model]["r_int"] + R_W) / R_W

def oem_ratio(i):
    pts = OEM_RATIO
    if i <= pts[0][0]:   # below the data: extend the first segment's slope
        (a, ea), (b, eb) = pts[0], pts[1]
        return ea + (i - a) * (eb - ea) / (b - a)
    for (a, ea), (b, eb) in zip(pts, pts[1:]):
        if a <= i <= b:
            return ea + (i - a) * (eb - ea) / (b - a)
    return pts[-1][1]

def ratio_spread_model(k, ct=None, cal_w=None, exact=False):
    """The CT's ratio error across the working range (in ampere-turns) relative to the
    calibration point, from OEM's table scaled by burden_scale: a model bound, to be replaced
    by a measurement. Calibrated inside the range: half the spread; at cal_w (W through the
    channel's turns) outside it: the largest difference from that point."""
    n = k["turns"]
    lo, hi = n * k["p_lo"] / MAINS_V, n * k["p_hi"] / MAINS_V
    xs = [lo + (hi - lo) * j / 50 for j in range(51)] + [a for a, _ in OEM_RATIO if lo < a < hi]
    errs = [oem_ratio(x) for x in xs]
    scale = burden_scale(ct or k["ct"])
    if cal_w is not None and (exact or not k["p_lo"] <= cal_w <= k["p_hi"]):
        e0 = oem_ratio(n * cal_w / MAINS_V)
        return max(abs(e - e0) for e in errs) * scale
    return (max(errs) - min(errs)) / 2 * scale

def phase_err(pf, delta_deg):
    """Worst relative error of P for a residual phase error +-delta at power factor pf."""
    phi = math.acos(pf)
    d = math.radians(delta_deg)
    return max(abs(math.cos(phi + d) / pf - 1), abs(math.cos(phi - d) / pf - 1))

def pin_rms(k, p):
    """Pin volts rms of channel kind k at load p (W), sine, at MAINS_V and PF k['pf']."""
    return p / (MAINS_V * k["pf"]) * k["turns"] * CT_MODELS[k["ct"]]["v_per_a"]

def counts_peak(k, p, vref):
    return pin_rms(k, p) * math.sqrt(2) / (vref / 1024)

def alias(n_current, window_s=0.25, run_s=60.0):
    """The odd harmonic h whose samples alias nearest the 50 Hz fundamental at the per-channel
    sampling rate, its beat with the fundamental, and the factor by which a window of
    window_s and a run of run_s average that beat (|sinc| and 1/(pi f T))."""
    fs = 1e6 / A["conv_us"] / (2 + n_current)  # sets of 2 + n conversions
    best = None
    for h in range(3, 200, 2):
        f = h * F_MAINS
        m = round(f / fs)
        beat = abs(abs(f - m * fs) - F_MAINS)
        if m and (best is None or beat < best[1]):
            best = (h, beat)
    h, beat = best
    x = math.pi * beat * window_s
    return {"fs": fs, "h": h, "beat": beat, "win": abs(math.sin(x) / x) if x else 1.0,
            "run": min(1.0, 1 / (math.pi * beat * run_s)) if beat else 1.0,
            # IEC 61000-3-2 class D limit for h >= 13 (3.85/h mA per W), relative to the
            # fundamental at MAINS_V: the largest harmonic a compliant PSU may draw
            "a_h": min(1.0, 3.85e-3 / h * MAINS_V) if h >= 13 else
                   {3: 3.4, 5: 1.9, 7: 1.0, 9: 0.5, 11: 0.35}[h] * 1e-3 * MAINS_V}

def cluster(n_nodes):
    """Channel kinds of a cluster: n nodes then the switch (the default map's order)."""
    return [KINDS[0]] * n_nodes + [KINDS[-1]]

def xtalk_table(c, n_nodes, p_node=200.0, p_switch=5.0):
    """Error of each channel's real power (%) from coefficient c: every other channel's pin
    signal x c, scaled by this channel's ratio, times V, real part (in-phase loads)."""
    kinds = cluster(n_nodes)
    pins = [pin_rms(k, p_node if k["kind"] == "node" else p_switch) for k in kinds]
    out = []
    for i, k in enumerate(kinds):
        p = p_node if k["kind"] == "node" else p_switch
        ratio = 1 / (k["turns"] * CT_MODELS[k["ct"]]["v_per_a"])
        dp = MAINS_V * k["pf"] * ratio * (c.real) * sum(v for j, v in enumerate(pins) if j != i)
        out.append((k["kind"], 100 * dp / p))
    return out

def crosstalk_report():
    d = derived()
    print("Crosstalk through the shared bias node at 50 Hz (schematic.py derived(); checked by")
    print("tests/hardware against a nodal analysis of the whole front end):")
    for name, c in (("revision A (C6 not fitted)", d["xtalk_rev_a"]),
                    ("revision A with C6 100 uF fitted", d["xtalk_rev_a_c6"]),
                    ("revision B (buffered bias, 1 nF)", d["xtalk"])):
        print("  %-34s %.3e %% at %+.1f deg of every other channel's pin signal"
              % (name, 100 * abs(c), math.degrees(cmath.phase(c))))
    print()
    print("| cluster (200 W nodes, 5 W switch on 10 turns) | build | each node | switch |")
    print("|---|---|---|---|")
    for n in (4, 14):
        for name, c in (("A", d["xtalk_rev_a"]), ("A + C6", d["xtalk_rev_a_c6"]), ("B", d["xtalk"])):
            t = xtalk_table(c, n)
            print("| %d nodes + switch | %s | %+.3g %% | %+.3g %% |" % (n, name, t[0][1], t[-1][1]))

def terms(k, calibrated, rev="B", ref_pct=0.5, measured=None, n_current=5):
    """[(term, % on P, source)] for channel kind k. Terms that enter V and I alike (the ADC
    reference and gain) are counted twice on P."""
    d = derived()
    vref = VREF if rev == "B" else REV_A["vref"]
    if rev == "A":   # revision A's CT choice and calibration point (sizing.md, accuracy.md)
        k = dict(k, ct=k["ct_a"])
    p_mid = (k["p_lo"] + k["p_hi"]) / 2
    t = []
    add = lambda name, v, src: t.append((name, abs(v), src))
    cts = k["ct"] + (" x%d turns" % k["turns"] if k["turns"] > 1 else "")
    al = alias(n_current)
    kick = d["kick"] if rev == "B" else d["kick_rev_a"]
    ratio = 1 / (k["turns"] * CT_MODELS[k["ct"]]["v_per_a"])
    if k["prev"] == "V":    # channel 1: the voltage channel's pin signal precedes it
        kick_w = MAINS_V * kick * d["pin_230"] * ratio
    else:                   # after a node: that node's pin signal, at its mid power
        kick_w = MAINS_V * kick * pin_rms(KINDS[0], 200.0) * ratio
    if not calibrated:
        add("CT ratio (%s)" % cts, 3.0, "YHDC: +-3 % over 10-120 % of rating; OEM measured the "
            "-000 within +1.4 % down to 0.5 %")
        net = ct_lead(k["ct"]) - adapter_lead(MAINS_V)
        add("CT lead %.1f deg - adapter lead %.1f deg, uncorrected, PF %.2f"
            % (ct_lead(k["ct"]), adapter_lead(MAINS_V), k["pf"]), 100 * phase_err(k["pf"], net),
            "atan((R_int + R_w)/X_m), R_w %.0f Ohm, X_m %.0f Ohm from OEM's 4 deg @ 22 Ohm, "
            "8 deg @ 120 Ohm; adapter OEM" % (R_W, X_M))
        add("adapter no-load ratio", 3.0, "11.6 V +-3 % at 240 V (Ideal Power, OEM)")
        add("divider 1 %", 2 * 1.0 * R_TOP / (R_TOP + R_BOT), "2 x 1 % x R1/(R1+R2)")
        if rev == "B":
            add("reference REF3440 on V and I", 2 * (0.05 + 10e-6 * 25 * 100),
                "TI REF34 datasheet: +-0.05 % initial, 10 ppm/K x 25 K; V and I alike")
        else:
            add("AVCC reference on V and I (DC supply)", 2 * 2.0, "1117 regulator +-2 %")
        add("ADC gain 2 LSB of 1024 on V and I", 2 * 0.2, "ATmega2560 datasheet")
    else:
        add("reference meter", ref_pct, "its class")
        if measured and k["kind"] in measured:
            r, ph = measured[k["kind"]]
            add("CT ratio across %g-%g W (measured)" % (k["p_lo"], k["p_hi"]), r,
                "two-point check, README")
            add("CT phase across the range, measured %.2f deg, PF %.2f" % (ph, k["pf"]),
                100 * phase_err(k["pf"], ph), "two-point check, README")
        else:
            if rev == "A":
                r = ratio_spread_model(k, cal_w=k["cal_a"])
            elif "cal_w" in k:   # a given calibration point: the largest difference from it
                r = ratio_spread_model(k, cal_w=k["cal_w"], exact=True)
            else:                # calibrated mid-range: half the spread
                r = ratio_spread_model(k)
            add("CT ratio across %g-%g W (MODEL BOUND, measure it)" % (k["p_lo"], k["p_hi"]), r,
                "OEM -000 table half-spread x (R_int+R_w)/R_w = x%.2f" % burden_scale(k["ct"]))
            ph = math.degrees(r / 100)
            add("CT phase across the range (MODEL BOUND %.2f deg), PF %.2f" % (ph, k["pf"]),
                100 * phase_err(k["pf"], ph), "CT theory: eps + j delta = -Z_s/Z_m; equal parts")
        add("CT burden temperature 100 ppm/K x 25 K", 0.25, "OEM 'Sources of error' (the "
            "internal burden's tempco is not published)")
        if rev == "B":
            add("reference drift on V and I", 2 * 10e-6 * 25 * 100, "REF34: 10 ppm/K x 25 K")
        else:
            add("AVCC drift on V and I", 2 * 0.25, "estimate (revision A budget)")
        add("adapter phase with mains +-10 V, PF %.2f" % k["pf"],
            100 * phase_err(k["pf"], (7.6 - 4.0) / 68 * 10), "OEM adapter test, 0.053 deg/V")
    n = counts_peak(k, p_mid, vref)
    add("ADC DNL on +-%.0f counts" % n, 0.5 / n / math.sqrt(2 * n) * 100,
        "estimate: 0.5 LSB / counts / sqrt(codes crossed)")
    c = d["xtalk"] if rev == "B" else d["xtalk_rev_a"]
    others = sum(pin_rms(KINDS[0], 200.0) for _ in range(14)) + pin_rms(KINDS[-1], 5.0)
    worst = 100 * MAINS_V * k["pf"] * ratio * abs(c.real) * others / p_mid
    add("crosstalk from 14 nodes + switch", worst, "calc.py crosstalk")
    # An offset in phase with V: calibration at p_mid folds it into the gain there, leaving
    # kick x |1 - P/p_mid| across the range (the node before the switch is not steady, so
    # the switch keeps all of it).
    p_cal = k.get("cal_w", p_mid)
    frac = max(1 - k["p_lo"] / p_cal, k["p_hi"] / p_cal - 1) if calibrated and k["prev"] == "V" else 1.0
    add("S/H kick from the %s before it%s" % ("voltage channel" if k["prev"] == "V" else "node",
        " (0 with an empty jack mapped after A0)" if k["prev"] == "V" else ""),
        100 * kick_w / p_mid * frac, "schematic.py sh_kick, R_mux 1-100 kOhm: %.3f W%s"
        % (kick_w, " x %.2f left after calibration at %g W" % (frac, p_cal) if frac < 1 else ""))
    add("aliasing of h=%d (fs %.0f Hz, beat %.2f Hz) over a 60 s run" % (al["h"], al["fs"], al["beat"]),
        100 * al["a_h"] * al["run"] / k["pf"], "IEC 61000-3-2 class D limit %.2f %%" % (100 * al["a_h"]))
    add("firmware arithmetic", 0.14, "docs/performance.md")
    return t

def totals(t):
    worst = sum(v for _, v, _ in t)
    return worst, math.sqrt(sum(v * v for _, v, _ in t))

def node_options():
    """Can a node reach +-1 % (RSS) after calibration? Every option recomputed with the same
    terms(): the CT (its secondary resistance sets the model's ratio and phase spread), the
    calibration point, the reference meter's class, the primary turns. Returns rows of
    (option, RSS, worst, [three largest terms])."""
    node = KINDS[0]
    # a bare SCT-013-000 (2000:1) with an external burden R_b: R_b is its whole secondary
    # load, so it enters the magnetising error as the -010's internal 200 Ohm does. Entered
    # in CT_MODELS (schematic.py's) for terms() and taken out again.
    bare = {"SCT-013-000 + %g Ohm" % rb: {"output": "current", "rated_a": 100.0,
                                         "v_per_a": rb / 2000, "r_int": rb}
            for rb in (200.0, 100.0, 47.0)}
    CT_MODELS.update(bare)
    try:
        return _node_option_rows(node)
    finally:
        for name in bare:
            del CT_MODELS[name]

def _node_option_rows(node):
    opts = [
        ("as built: SCT-013-010, calibrated at 200 W, reference +-0.5 %", node, 0.5),
        ("reference +-0.2 % (a class 0.2 power analyser)", node, 0.2),
        ("reference +-0.1 %", node, 0.1),
        ("calibrated at 150 W (an end of the range)", dict(node, cal_w=150.0), 0.5),
        ("calibrated at 250 W", dict(node, cal_w=250.0), 0.5),
        ("SCT-013-005 (400 Ohm inside)", dict(node, ct="SCT-013-005"), 0.5),
        ("SCT-013-000 + 200 Ohm", dict(node, ct="SCT-013-000 + 200 Ohm"), 0.5),
        ("SCT-013-000 + 100 Ohm (0.05 V/A)", dict(node, ct="SCT-013-000 + 100 Ohm"), 0.5),
        ("SCT-013-000 + 47 Ohm (0.0235 V/A)", dict(node, ct="SCT-013-000 + 47 Ohm"), 0.5),
        ("SCT-013-010, 2 turns", dict(node, turns=2), 0.5),
        ("SCT-013-000 + 100 Ohm, reference +-0.2 %", dict(node, ct="SCT-013-000 + 100 Ohm"), 0.2),
    ]
    rows = []
    for name, k, ref in opts:
        t = terms(k, True, ref_pct=ref)
        w, r = totals(t)
        top = sorted(t, key=lambda x: -x[1])[:3]
        rows.append((name, r, w, top))
    return rows

def node_options_report():
    print("Reaching +-1 % on a node after calibration (RSS; model bounds for the CT, as above):")
    print("| option | RSS | worst case | largest terms |")
    print("|---|---|---|---|")
    for name, r, w, top in node_options():
        print("| %s | ±%.2f %% | ±%.2f %% | %s |" % (name, r, w, "; ".join(
            "%s ±%.2f %%" % (n.split(" (")[0], v) for n, v, _ in top)))
    print()

def parse_measured(args):
    out = {}
    for a in args:
        if not a.startswith("--measured="):
            sys.exit("calc.py budget: unknown argument %r (use --measured=KIND=RATIO_PCT,PHASE_DEG)" % a)
        try:
            kind, vals = a[len("--measured="):].rsplit("=", 1)
            r, ph = (float(x) for x in vals.split(","))
        except ValueError:
            sys.exit("calc.py budget: bad %r: want --measured=KIND=RATIO_PCT,PHASE_DEG" % a)
        if kind not in [k["kind"] for k in KINDS] or not (0 <= r < 100 and 0 <= ph < 90):
            sys.exit("calc.py budget: bad %r: kind one of %s, 0 <= ratio < 100, 0 <= phase < 90"
                     % (a, ", ".join(k["kind"] for k in KINDS)))
        out[kind] = (r, ph)
    return out

def budget(args=()):
    measured = parse_measured(args)
    al5, al15 = alias(5), alias(15)
    for k in KINDS:
        p_mid = (k["p_lo"] + k["p_hi"]) / 2
        print("### %s: %s%s, %g-%g W at %g V, PF %.2f; %.0f counts peak at %g W (rev. B)"
              % (k["kind"], k["ct"], " x%d turns" % k["turns"] if k["turns"] > 1 else "",
                 k["p_lo"], k["p_hi"], MAINS_V, k["pf"], counts_peak(k, p_mid, VREF), p_mid))
        for cal in (False, True):
            t = terms(k, cal, measured=measured)
            print("%s (revision B%s):" % ("Calibrated at " + k["cal"] if cal else "Uncalibrated",
                                           ", reference +-0.5 %" if cal else ""))
            print("| term | on P | source |")
            print("|---|---|---|")
            for name, v, src in t:
                print("| %s | ±%.3g %% | %s |" % (name, v, src))
            w, r = totals(t)
            print("| **total** | **worst ±%.2f %%, RSS ±%.2f %%** | |" % (w, r))
            print()
        print("| build | uncalibrated worst / RSS | calibrated, ref ±0.5 %: worst / RSS | ref ±1.5 %: worst / RSS |")
        print("|---|---|---|---|")
        for rev in ("A", "B"):
            u = totals(terms(k, False, rev))
            c1 = totals(terms(k, True, rev, 0.5, measured))
            c2 = totals(terms(k, True, rev, 1.5, measured))
            print("| revision %s | ±%.1f %% / ±%.1f %% | ±%.1f %% / ±%.1f %% | ±%.1f %% / ±%.1f %% |"
                  % (rev, u[0], u[1], c1[0], c1[1], c2[0], c2[1]))
        print()
    node_options_report()
    print("ADC reference (afe.h): %.3f V; its error per quantity: %s" % (A["vref"],
          "REF3440 +-%.3f %% (0.05 %% initial + 10 ppm/K x 25 K), from AREF, independent of the "
          "5 V rail and of USB" % (0.05 + 10e-6 * 25 * 100) if A["vref"] == VREF else
          "AVCC, +-2 % (DC supply) to +-5 % (USB): revision A"))
    print()
    print("What the two-point check must show to reach the goal after calibration against a "
          "±0.5 % reference (RSS; ratio spread r %, phase spread r/100 rad as in the model):")
    for k in KINDS:
        lo, hi = 0.0, 20.0
        for _ in range(60):
            r = (lo + hi) / 2
            t = terms(k, True, measured={k["kind"]: (r, math.degrees(r / 100))})
            lo, hi = (r, hi) if totals(t)[1] <= k["goal"] else (lo, r)
        print("  %-13s goal ±%.0f %%: ratio spread ≤ ±%.2f %% and phase ≤ ±%.2f° (model bound: ±%.2f %%)"
              % (k["kind"], k["goal"], lo, math.degrees(lo / 100), ratio_spread_model(k)))
    print()
    print("Per 250 ms window the aliasing bound is larger (a beat not yet averaged): h=%d at %d"
          " channels: ±%.2f %% per window x (harmonic / class D limit); h=%d at 16 channels: ±%.2f %%."
          % (al5["h"], 6, 100 * al5["a_h"] * al5["win"], al15["h"], 100 * al15["a_h"] * al15["win"]))
    print("Random, per 250 ms window (1 sigma), node idle 150 W at 230 V: %.2f W; averages as "
          "1/sqrt(windows)." % sigma_p(230, VREF / 1024 / CT_MODELS[KINDS[0]["ct"]]["v_per_a"]))
    print("Model bounds: the CT's ratio and phase across the working range are taken from "
          "OpenEnergyMonitor's SCT-013-000 data scaled by the secondary resistance; replace them "
          "with the two-point check (hardware/README.md): --measured=node=RATIO_PCT,PHASE_DEG.")


# --------------------------------------------------------------------------- bom ---------
# (item, generic specification, example part, qty for 1 V + 5 I, unit EUR). Prices are
# indicative single-unit prices in euros (2026) from distributor and hobby-shop listings;
# they vary by country, quantity and month.
BOM_CORE = [
    ("Arduino Mega 2560 Rev3", "ATmega2560 16 MHz, USB (16U2)", "Arduino A000067", 1, 42.0),
    ("9 V DC supply for the Mega", "regulated 9 V DC 1 A, 5.5/2.1 mm centre-positive, double insulated: powers the meter (USB carries data only)", "generic (e.g. Mean Well GST18E09-P1J)", 1, 10.0),
    ("Mega adapter shield", "Mega proto shield carrying X2 wired to the POWER, AREF and A0-A15 pins", "generic 'Mega proto shield'", 1, 8.0),
    ("front-end board", "perfboard 160 x 100 mm, 2.54 mm, pad per hole (layout.svg)", "generic Eurocard perfboard", 1, 6.0),
    ("isolator board", "perfboard 50 x 70 mm, 2.54 mm, pad per hole", "generic", 1, 2.0),
    ("X1, X2 ribbon headers", "2x10 shrouded box header, 2.54 mm", "generic (e.g. Wurth WR-BHD series)", 2, 0.6),
    ("ribbon X1-X2", "20-way 1.27 mm flat cable 0.3 m with two 2x10 IDC sockets", "generic", 1, 4.0),
    ("Mega headers", "2.54 mm male, 3 x 1x8 + 1x10 (power, A0-A7, A8-A15, AREF row)", "generic", 1, 2.0),
    ("AC-AC adapter", "plug-in, 230 V -> 9 V AC, >= 300 mA, double insulated (safety transformer, IEC 61558-2-6)",
     "Ideal Power 77DE-06-09 (EU) / 77DB-06-09 (UK) / 77DA-10-09 (US)", 1, 15.0),
    ("J1 + plug", "4-pin mini-DIN power jack, panel, and its plug fitted to the adapter's 9 V lead (no barrel plug fits)", "Kycon KPJX-4S jack + KPPX-4P plug", 1, 4.0),
    ("H0, HI harness headers", "2-pin 2.54 mm KK header + housing + 2 crimps (J1's pair)", "Molex 22-27-2021, 22-01-3027, 08-50-0114", 1, 0.5),
    ("F1 resettable fuse", "PTC, 50 mA hold, 60 V", "Bourns MF-R005", 1, 0.4),
    ("JP1, JP2, JP3", "1x3, 1x3, 1x2 header + 3 shunts", "generic", 1, 0.6),
    ("U1 reference", "4.096 V series reference, +-0.05 %, SOT-23-6, on a SOT-23 to DIP adapter", "TI REF3440AIDBVR", 1, 4.0),
    ("U2 bias buffers", "dual rail-to-rail op-amp, DIP-8", "Microchip MCP6002-I/P", 1, 0.5),
    ("R1", "8.25 kOhm 1 % 0.25 W metal film", "Yageo MFR-25FBF52-8K25", 1, 0.1),
    ("R2", "1.00 kOhm 1 % 0.25 W metal film", "Yageo MFR-25FBF52-1K", 1, 0.1),
    ("R5", "330 Ohm 1 % 0.25 W metal film", "Yageo MFR-25FBF52-330R", 1, 0.1),
    ("R3, R4", "10 kOhm 0.1 % 25 ppm/K metal film", "generic 0.1 % (e.g. Vishay MBA/SMA 0204 0.1 %)", 2, 0.5),
    ("C1", "10 uF 16 V X7R, radial", "generic", 1, 0.4),
    ("C2, C8, C9", "100 nF 50 V X7R, 2.54 mm radial", "KEMET C320C104K5R5TA", 3, 0.2),
    ("C10", "1 uF 16 V X7R, radial", "generic", 1, 0.3),
    ("C7", "10 uF 50 V aluminium electrolytic, radial", "Panasonic ECA-1HM100", 1, 0.2),
    ("C3", "1 nF 50 V C0G, radial", "generic C0G (e.g. KEMET C315 series)", 1, 0.2),
    ("D1, D2", "Schottky 30 V 200 mA, DO-34", "BAT85 (Vishay, Nexperia)", 2, 0.1),
    ("U3 USB isolator", "full/low-speed USB isolator, 5 kV rms, reinforced, SOIC-16W (RI-16: 8.3 mm creepage) on a SOIC-16 to DIP adapter", "Analog Devices ADuM4160BRIZ", 1, 9.0),
    ("R8-R11", "24 Ohm 1 % 0.25 W", "Yageo MFR-25FBF52-24R", 4, 0.1),
    ("C11, C12", "1 uF + 100 nF X7R each side of U3", "generic", 4, 0.2),
    ("J2", "USB-B receptacle, panel mount (to the host)", "generic panel USB-B", 1, 3.0),
    ("J3", "USB-A receptacle, PCB", "generic", 1, 1.0),
    ("USB cables", "A-B 0.3 m (J3 to the Mega) and A-B 1-2 m (host to J2)", "generic", 2, 3.0),
    ("enclosure", "insulating ABS box, inside >= 215 x 140 x 60 mm (the 15 CT jacks at 12.7 mm pitch on one face)", "e.g. Hammond 1591/1598 series", 1, 20.0),
    ("mounting", "M3 nylon standoffs and screws for the Mega and the two boards", "generic", 1, 3.0),
]
BOM_OPTION = [
    ("RBk", "200 Ohm 1 % burden, ONLY on a channel configured for a bare SCT-013-000 (schematic.py CHANNELS)", "Yageo MFR-25FBF52-200R", 1, 0.1),
]
BOM_CHANNEL = [   # one current channel, without the CT
    ("JIk CT jack", "3.5 mm stereo panel jack, insulated, with tip break contact (link it to the sleeve)", "e.g. Cliff FC681xx series (check the switched variant)", 1, 1.5),
    ("HIk harness", "KK header + housing + 2 crimps, 0.3 m twisted pair 0.25 mm2", "Molex 22-27-2021, 22-01-3027, 08-50-0114", 1, 0.8),
    ("RFk", "1.00 kOhm 1 % 0.25 W metal film", "Yageo MFR-25FBF52-1K", 1, 0.1),
    ("CFk", "1 nF 50 V C0G, radial", "generic C0G (e.g. KEMET C315 series)", 1, 0.2),
    ("DHk, DLk", "Schottky 30 V 200 mA, DO-34", "BAT85", 2, 0.1),
]
BOM_CTS = [
    ("CT for a node (150 W to 2.3 kW)", "split-core, 10 A : 1 V (burden inside), 13 mm window", "YHDC SCT-013-010", 9.0),
    ("CT for the switch (10 turns)", "split-core, 5 A : 1 V (burden inside), 13 mm window", "YHDC SCT-013-005", 9.0),
    ("bare CT (only with RBk)", "split-core, 100 A : 50 mA; never unplug under load", "YHDC SCT-013-000", 7.0),
]

def bom():
    def table(rows, with_qty=True):
        tot = 0.0
        print("| item | specification | example part | qty | EUR each | EUR |")
        print("|---|---|---|---|---|---|")
        for item, spec, part, q, eur in rows:
            print("| %s | %s | %s | %d | %.2f | %.2f |" % (item, spec, part, q, eur, q * eur))
            tot += q * eur
        return tot
    print("Core (once):")
    core = table(BOM_CORE)
    print("core total EUR %.2f" % core)
    print()
    print("Per current channel (shield parts):")
    ch = table(BOM_CHANNEL)
    print("shield parts per channel EUR %.2f" % ch)
    print()
    print("| CT | specification | example part | EUR |")
    print("|---|---|---|---|")
    for item, spec, part, eur in BOM_CTS:
        print("| %s | %s | %s | %.2f |" % (item, spec, part, eur))
    node = ch + BOM_CTS[0][3]
    sw = ch + BOM_CTS[1][3]
    print()
    print("Only where configured:")
    table(BOM_OPTION)
    print()
    total = core + 4 * node + sw
    print("1 V + 4 nodes + 1 switch: core %.2f + 4 x %.2f + %.2f = EUR %.2f"
          % (core, node, sw, total))
    print("each extra node channel: EUR %.2f; 15 current channels: EUR %.2f"
          % (node, core + 14 * node + sw))

# --------------------------------------------------------------------------- sim ---------
def run_sim(seconds, mains, loads):
    mw = os.path.join(ROOT, "build", "bin", "mw")
    if not os.path.exists(mw):
        sys.exit("build/bin/mw not found: run `make` first")
    cmd = [mw, "vmeter", "--seconds", str(seconds), "--stdout", "--mains", mains]
    for pin, spec in loads:
        cmd += ["--load", "%s=%s" % (pin, spec)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = [l for l in out.splitlines() if l.startswith("W,")][1:]   # drop the first window
    ch = {}
    for r in rows:
        for c, g in enumerate(r.split("*")[0].split(";")[1:], 1):
            p, i, _, _ = (int(x) for x in g.split(","))
            ch.setdefault(c, []).append((p / 1000.0, i / 1e6))
    return ch, " ".join(cmd[1:]).replace(ROOT + "/", "")

def sim():
    # A load of W watts at "equivalent pin power" W x k stands for k x the current through
    # the CT (N turns, or a CT of k x the sensitivity); the reading is divided by k.
    cases = [("A1", "150", 1, "node idle, sine PF 1"),
             ("A2", "225", 1, "node working, sine PF 1"),
             ("A3", "150,0.95,smps", 1, "node idle, SMPS waveform PF 0.95"),
             ("A4", "5", 1, "switch 5 W, 1 turn, 0.1 V/A"),
             ("A5", "50", 10, "switch 5 W, 10 turns, 0.1 V/A (pin sees 50 W)")]
    extra = [("A1", "100", 20, "switch 5 W, 10 turns, SCT-013-005 (pin sees 100 W)"),
             ("A2", "0", 1, "nothing clamped")]
    print("| mains | case | true P | mean P | error of mean | sd per window | windows |")
    print("|---|---|---|---|---|---|---|")
    for mains in ("230,50", "120,60"):
        for group in (cases, extra):
            ch, cmd = run_sim(60, mains, [(p, s) for p, s, _, _ in group if s != "0"])
            for idx, (pin, spec, k, what) in enumerate(group, 1):
                c = int(pin[1:])
                vals = [x[0] / k for x in ch[c]]
                true = float(spec.split(",")[0]) / k
                m, sd = statistics.mean(vals), statistics.stdev(vals)
                err = "%.3f %%" % (100 * (m / true - 1)) if true else "%.4f W" % m
                print("| %s | %s | %.3f W | %.4f W | %s | %.4f W | %d |"
                      % (mains.replace(",", " V ") + " Hz", what, true, m, err, sd, len(vals)))
            print("<!-- %s -->" % cmd)

def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "sizing":
        sizing()
    elif what == "budget":
        budget(sys.argv[2:])
    elif what == "crosstalk":
        crosstalk_report()
    elif what == "bom":
        bom()
    elif what == "sim":
        sim()
    else:
        sys.exit(__doc__)

if __name__ == "__main__":
    main()
