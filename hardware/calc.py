#!/usr/bin/env python3
"""The arithmetic behind hardware/sizing.md and hardware/accuracy.md, so that every number
there can be recomputed (Python 3 standard library only).

    python3 hardware/calc.py sizing    gains, W per count, noise per window, clipping
    python3 hardware/calc.py budget    accuracy budget, before and after calibration
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
    return CONV_PER_S * window_s / (1 + n_current)

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

    print("| mains | load | I rms | I peak | counts peak | of full scale (24 A pk) |")
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
def phase_err(pf, delta_deg):
    """Worst relative error of P for a residual phase error +-delta at power factor pf."""
    phi = math.acos(pf)
    d = math.radians(delta_deg)
    return max(abs(math.cos(phi + d) / pf - 1), abs(math.cos(phi - d) / pf - 1))

def budget():
    # Each item: (name, % on I, % on V, source). AVCC scales V and I alike.
    un = [
        ("CT ratio (SCT-013, +-3 % non-linearity)", 3.0, 0.0,
         "YHDC SCT-013-000 datasheet; OEM CT report"),
        ("burden 200 Ω, 1 % + 100 ppm/K x 25 K", 1.25, 0.0, "OEM 'emonTx error sources'"),
        ("AC-AC adapter no-load ratio", 0.0, 3.0,
         "11.6 V +-3 % at 240 V (Ideal Power 77DB/77DE, OEM)"),
        ("divider 1 %: 2 x 1 % x R1/(R1+R2)", 0.0, 2 * 1.0 * 8.25 / 9.25, "formula"),
        ("AVCC = ADC reference (Mega 5 V regulator, +-2 %)", 2.0, 2.0,
         "1117-family regulator: +-1 % at 25 C, +-2 % over temperature (e.g. ST LD1117)"),
        ("ADC gain error 2 LSB of 1024", 0.2, 0.2, "ATmega2560 datasheet (+-2 LSB absolute)"),
        ("ADC DNL 0.5 LSB on a 19-count signal (estimate)", 0.5 / 19 / math.sqrt(38) * 100, 0.0,
         "estimate: 0.5/19/sqrt(38 codes)"),
        ("firmware arithmetic, systematic", 0.14, 0.0,
         "docs/performance.md: largest |mean error| 0.136 % (5 % of full scale)"),
    ]
    cal_ref = [("reference meter +-0.5 % (power analyser)", 0.5),
               ("reference +-1.5 % (plug-in energy meter, class 1-2)", 1.5),
               ("reference +-3 % (e.g. calibrating against a WattsUp Pro)", 3.0)]
    cal = [
        ("CT ratio across the node's range 0.5-1.5 A", 0.68, 0.0,
         "OEM CT report ratio table: +1.36 % at 0.5 A, 0.00 % at 1.5 A -> half-spread"),
        ("burden tempco 100 ppm/K x 25 K", 0.25, 0.0, "OEM 'emonTx error sources'"),
        ("AVCC drift after calibration (temperature, load)", 0.25, 0.25,
         "estimate after OEM's regulator analysis"),
        ("ADC local gain vs calibration point (estimate)", 0.2, 0.0, "estimate"),
        ("firmware arithmetic, systematic", 0.14, 0.0,
         "docs/performance.md: largest |mean error| 0.136 % (5 % of full scale)"),
    ]

    def total(items, pf, delta, extra=()):
        lin_i = sum(x[1] for x in items)
        lin_v = sum(x[2] for x in items)
        ph = 100 * phase_err(pf, delta)
        lin = lin_i + lin_v + ph + sum(extra)
        # RSS: AVCC enters V and I with the same sign, so it adds linearly inside the RSS
        terms = []
        for name, ei, ev, _ in items:
            if "AVCC" in name:
                terms.append(ei + ev)
            else:
                terms += [ei, ev]
        terms += [ph] + list(extra)
        rss = math.sqrt(sum(t * t for t in terms))
        return lin, rss, ph

    print("Uncalibrated (firmware defaults, phase 0):")
    print("| item | on I | on V | source |")
    print("|---|---|---|---|")
    for name, ei, ev, src in un:
        print("| %s | ±%.2f %% | ±%.2f %% | %s |" % (name, ei, ev, src))
    for pf, delta in ((1.0, 8.0), (0.95, 8.0)):
        lin, rss, ph = total(un, pf, delta)
        print("PF %.2f, net phase error %g deg (-> %.2f %% on P): P worst case ±%.1f %%, RSS ±%.1f %%"
              % (pf, delta, ph, lin, rss))
    usb = [x if "AVCC" not in x[0] else ("AVCC from USB VBUS (4.75-5.25 V, +-5 %)", 5.0, 5.0, "USB 2.0")
           for x in un]
    lin, rss, _ = total(usb, 1.0, 8.0)
    print("  same, Mega powered from USB: worst case ±%.1f %%, RSS ±%.1f %%" % (lin, rss))
    print()
    print("Calibrated at the operating point (gain and phase per channel, voltage gain):")
    print("| item | on I | on V | source |")
    print("|---|---|---|---|")
    for name, ei, ev, src in cal:
        print("| %s | ±%.2f %% | ±%.2f %% | %s |" % (name, ei, ev, src))
    for rname, r in cal_ref:
        for pf, delta in ((1.0, 1.5), (0.95, 1.5)):
            lin, rss, ph = total(cal, pf, delta, extra=(r,))
            print("%s, PF %.2f, residual phase %g deg (%.2f %%): worst ±%.1f %%, RSS ±%.1f %%"
                  % (rname, pf, delta, ph, lin, rss))
    print()
    print("Random, per 250 ms window (1 sigma), node idle 150 W at 230 V: %.2f W = %.2f %%; "
          "averages as 1/sqrt(windows)" % (sigma_p(230, A["g_i"]), 100 * sigma_p(230, A["g_i"]) / 150))


# --------------------------------------------------------------------------- bom ---------
# (item, generic specification, example part, qty for 1 V + 5 I, unit EUR). Prices are
# indicative single-unit prices in euros (2026) from distributor and hobby-shop listings;
# they vary by country, quantity and month.
BOM_CORE = [
    ("Arduino Mega 2560 Rev3", "ATmega2560 16 MHz, USB (16U2)", "Arduino A000067", 1, 42.0),
    ("prototyping shield for the Mega", "perfboard shield, Mega footprint", "generic 'Mega proto shield'", 1, 8.0),
    ("headers", "2.54 mm male, 3 x 1x8 (power, A0-A7, A8-A15)", "generic", 1, 2.0),
    ("AC-AC adapter", "plug-in, 230 V -> 9 V AC, >= 300 mA, double insulated",
     "Ideal Power 77DE-06-09 (EU) / 77DB-06-09 (UK) / 77DA-10-09 (US)", 1, 15.0),
    ("J1 AC input jack", "2.1 mm PCB barrel jack (match the adapter's plug)", "CUI Devices PJ-102A", 1, 1.0),
    ("F1 resettable fuse", "PTC, 50 mA hold, 60 V", "Bourns MF-R005", 1, 0.4),
    ("JP1, JP2 polarity", "2 x 1x3 header + 2 shunts", "generic", 1, 0.5),
    ("R1", "8.25 kΩ 1 % 0.25 W metal film", "Yageo MFR-25FBF52-8K25", 1, 0.1),
    ("R2", "1.00 kΩ 1 % 0.25 W metal film", "Yageo MFR-25FBF52-1K", 1, 0.1),
    ("R5", "330 Ω 1 % 0.25 W metal film", "Yageo MFR-25FBF52-330R", 1, 0.1),
    ("R3, R4, R6, R7", "10 kΩ 1 % 0.25 W metal film", "Yageo MFR-25FBF52-10K", 4, 0.1),
    ("C1, C4, C7", "10 µF 50 V aluminium electrolytic, radial", "Panasonic ECA-1HM100", 3, 0.2),
    ("C2, C5, C8", "100 nF 50 V X7R, 2.54 mm radial", "KEMET C320C104K5R5TA", 3, 0.2),
    ("C3", "10 nF 50 V C0G (or X7R), radial", "KEMET C320C103K5R5TA (X7R)", 1, 0.2),
    ("D1, D2", "Schottky 30 V 200 mA, DO-34", "BAT85 (Vishay, Nexperia)", 2, 0.1),
    ("enclosure", "ABS box about 160 x 100 x 60 mm, cut-outs for jacks and USB", "e.g. Hammond 1591 series", 1, 12.0),
    ("USB cable", "USB A to B, 1-2 m", "generic", 1, 3.0),
]
BOM_OPTION = [
    ("9 V DC supply for the Mega", "regulated 9 V DC 1 A, 5.5/2.1 mm centre-positive (AVCC from the Mega's regulator, accuracy.md)", "generic", 1, 8.0),
    ("C6", "100 µF 16 V electrolytic (lower BIAS_I ripple, accuracy.md)", "Panasonic ECA-1CM101", 1, 0.2),
]
BOM_CHANNEL = [   # one current channel, without the CT
    ("JIk CT jack", "3.5 mm stereo PCB jack", "CUI Devices SJ1-3523N", 1, 1.0),
    ("RFk", "1.00 kΩ 1 % 0.25 W metal film", "Yageo MFR-25FBF52-1K", 1, 0.1),
    ("CFk", "10 nF 50 V C0G (or X7R)", "KEMET C320C103K5R5TA (X7R)", 1, 0.2),
    ("DHk, DLk", "Schottky 30 V 200 mA, DO-34", "BAT85", 2, 0.1),
]
BOM_CTS = [
    ("CT for a node", "split-core, 10 A : 1 V (burden inside), 13 mm window", "YHDC SCT-013-010", 9.0),
    ("CT for the switch", "split-core, 5 A : 1 V (burden inside), 13 mm window", "YHDC SCT-013-005", 9.0),
    ("bare CT (alternative)", "split-core, 100 A : 50 mA, needs RBk 200 Ω 1 % (Yageo MFR-25FBF52-200R, EUR 0.10)", "YHDC SCT-013-000", 7.0),
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
    print("Options:")
    opt = table(BOM_OPTION)
    print()
    total = core + 4 * node + sw
    print("1 V + 4 nodes + 1 switch: core %.2f + 4 x %.2f + %.2f = EUR %.2f (options +%.2f)"
          % (core, node, sw, total, opt))
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
        budget()
    elif what == "bom":
        bom()
    elif what == "sim":
        sim()
    else:
        sys.exit(__doc__)

if __name__ == "__main__":
    main()
