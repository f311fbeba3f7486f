#!/usr/bin/env python3
"""Generate the shield's netlist and drawings from one description.

    python3 hardware/schematic.py          write schematic.net, schematic.svg, wiring.svg,
                                           layout.svg
    python3 hardware/schematic.py --check  check that those files are up to date, that the
                                           component values give the gains of
                                           firmware/portable/afe.h, that every channel's
                                           burden suits its CT, that only the isolator
                                           crosses the isolation barrier, that the layout
                                           fits and that the crosstalk is under 0.01 %
                                           (exit 1 otherwise)

Python 3 standard library only. The component values live here once; every number in the
drawings is computed from them (see hardware/sizing.md for the arithmetic).
"""
import cmath
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# ---------------------------------------------------------------- design values ----------
# Revision B. What changed from revision A and why (issue 25): an external 4.096 V reference
# on AREF (the ADC no longer follows the 5 V rail or the host's USB port); both biases derived
# from it and buffered by an op-amp (a shared passive bias node made every channel pick up
# -0.1 % of the others); 1 nF instead of 10 nF on every pin (the ADC's sample-and-hold kick);
# the host isolated by an ADuM4160 USB isolator; panel jacks with a harness; J1 a 4-pin
# mini-DIN that no DC plug fits; burdens fitted only where a bare CT is configured.
REVISION = "B"
VREF = 4.096          # U1 REF3440 on AREF through JP3 (firmware: REFS1:0 = 00, external)
VREF_AVCC = 5.0       # what the ADC uses with JP3 open and revision-A firmware (REFS0, AVCC)
BIAS_R = 10e3         # the two bias-divider resistors (0.1 %), VREF -> BIAS_REF -> GND
BIAS_C = 10e-6        # BIAS_REF filter capacitor (the op-amps' inputs draw no current)
R_TOP = 8.25e3        # voltage divider, adapter side (E96, 1 %)
R_BOT = 1.00e3        # voltage divider, bias side (1 %)
R_FV = 330.0          # series filter resistor, voltage channel
R_BURDEN = 200.0      # burden for a bare 2000:1 CT (RBk, fitted only on such channels)
R_FI = 1.00e3         # series filter resistor, current channels
C_F = 1e-9            # filter capacitor, every channel (C0G); revision A: 10 nF
CT_TURNS = 2000       # SCT-013 family secondary turns (YHDC; the -000 is 100 A : 50 mA)
ADAPTER_VOC_PER_V = 11.6 / 240.0   # 9 V AC-AC adapter, no-load output 11.6 V at 240 V
                                   # (Ideal Power 77DB/77DE-06-09 figure quoted by
                                   # OpenEnergyMonitor, "emonTx error sources")
N_I = 15
F_MAINS = 50.0

# ATmega2560 datasheet, "Analog Input Circuitry": the sample-and-hold capacitor and the
# series resistance of the input multiplexer; the input is sampled 1.5 ADC clocks (12 us at
# 125 kHz, firmware/portable/afe.h) after the multiplexer switches to it.
C_SH = 14e-12
R_MUX = (1e3, 100e3)
T_TRACK = 1.5 / 125e3

# Bias buffer U2 (MCP6002, dual, rail-to-rail): gain-bandwidth 1 MHz (Microchip datasheet).
# Its open-loop output resistance is not specified; OPAMP_RO_OHM bounds it generously (the
# crosstalk it gives is compared with the 0.01 % limit with that bound, and the margin is
# five orders of magnitude).
OPAMP_GBW_HZ = 1e6
OPAMP_AOL_DC = 10 ** (112 / 20)   # 112 dB typical open-loop gain
OPAMP_RO_OHM = 1e3

# Revision A, kept to compute "before": BIAS_I was 2 x 10 kOhm from +5 V with 10 uF + 100 nF
# (C6 100 uF not fitted), every channel's filter was 10 nF.
REV_A = {"c_f": 10e-9, "bias_r": 5e3, "bias_c": 10.1e-6, "bias_c_c6": 110.1e-6, "vref": 5.0}

# CT models (YHDC SCT-013 family). Voltage-output models hold their burden inside: 1 V rms at
# the rated current through 2000 turns gives R_int = 1 V x 2000 / I_rated (200 Ohm for the
# -010, 400 Ohm for the -005; sizing.md). "v_per_a": pin volts per line amp and turn.
CT_MODELS = {
    "SCT-013-005": {"output": "voltage", "rated_a": 5.0, "v_per_a": 0.2, "r_int": 400.0},
    "SCT-013-010": {"output": "voltage", "rated_a": 10.0, "v_per_a": 0.1, "r_int": 200.0},
    "SCT-013-000": {"output": "current", "rated_a": 100.0, "v_per_a": R_BURDEN / CT_TURNS,
                    "r_int": 0.0},
}

# The channels as built: (channel, CT model, primary turns, RBk fitted, use). Nodes on the
# SCT-013-010 (its 200 Ohm internal burden gives half the -005's magnetising error:
# calc.py budget, "node" against "node on -005"), the switch on the -005 with 10 turns,
# heavier (GPU) nodes up to 2.3 kW on the -010 as well.
CHANNELS = ([(k, "SCT-013-010", 1, False, "node") for k in range(1, 5)]
            + [(5, "SCT-013-005", 10, False, "switch")]
            + [(k, "SCT-013-010", 1, False, "GPU node / spare") for k in range(6, N_I + 1)])

def par(a, b):
    return a * b / (a + b)

def channel_errors(channels):
    """Configuration errors of a channel list, as messages (empty when it is buildable)."""
    errs = []
    seen = set()
    for k, model, turns, rb, use in channels:
        if not 1 <= k <= N_I or k in seen:
            errs.append("channel %r: not one of 1..%d, or listed twice" % (k, N_I))
        seen.add(k)
        ct = CT_MODELS.get(model)
        if ct is None:
            errs.append("channel %d: unknown CT model %r" % (k, model))
            continue
        if not (isinstance(turns, int) and turns >= 1):
            errs.append("channel %d: primary turns must be a whole number >= 1" % k)
        if ct["output"] == "voltage" and rb:
            r = ct["r_int"]
            errs.append("channel %d: RB%d fitted with the voltage-output %s: its internal "
                        "burden (%g Ohm) in parallel with %g Ohm reads %.0f %% low"
                        % (k, k, model, r, R_BURDEN, 100 * (1 - par(r, R_BURDEN) / r)))
        if ct["output"] == "current" and not rb:
            errs.append("channel %d: bare CT %s without RB%d: its secondary is open (unsafe) "
                        "and the channel clips" % (k, model, k))
    return errs

def channel_ratio(model, turns):
    """Line amps per pin volt of a channel."""
    return 1.0 / (CT_MODELS[model]["v_per_a"] * turns)

def z_cap(c, w):
    return 1 / (1j * w * c)

def z_bias_passive(r, c, w):
    return 1 / (1 / r + 1j * w * c)

def z_bias_buffered(w, ro=OPAMP_RO_OHM):
    """Closed-loop output impedance of a unity-gain follower: Ro / (1 + A(jw)), with A a
    single-pole open-loop gain (DC gain OPAMP_AOL_DC, unity at OPAMP_GBW_HZ)."""
    fp = OPAMP_GBW_HZ / OPAMP_AOL_DC
    a = OPAMP_AOL_DC / (1 + 1j * (w / (2 * math.pi)) / fp)
    return ro / (1 + a)

def crosstalk(z_b, r_src, c_f, w):
    """Complex coefficient c with which one channel's pin signal appears on every other
    channel sharing the bias node of impedance z_b: the filter current of channel j,
    (V_j)/(R_src + 1/(jwC_F)), returns from GND to the sleeves through z_b, so the bias moves
    by -z_b times it (first order in z_b; tests/hardware checks it against a full nodal
    solution)."""
    return -z_b / (r_src + z_cap(c_f, w))

def sh_kick(r_src, c_f, r_mux, t=T_TRACK, c_sh=C_SH):
    """Fraction of the previous channel's pin voltage (relative to this one's) left in the
    sample-and-hold capacitor when it samples: the hold capacitor starts at the previous
    channel's voltage, shares charge with C_F through r_mux and both recover through r_src.
    Exact solution of the two-node RC network at time t."""
    # states x = (v_pin, v_sh); dx/dt = M x
    a11 = -(1 / r_src + 1 / r_mux) / c_f
    a12 = (1 / r_mux) / c_f
    a21 = (1 / r_mux) / c_sh
    a22 = -(1 / r_mux) / c_sh
    tr, det = a11 + a22, a11 * a22 - a12 * a21
    disc = math.sqrt(tr * tr / 4 - det)
    l1, l2 = tr / 2 + disc, tr / 2 - disc
    # v_sh(t) from x0 = (0, 1): x(t) = e^{Mt} x0, via Sylvester's formula for distinct roots
    e1, e2 = math.exp(l1 * t), math.exp(l2 * t)
    # e^{Mt} = (e1 (M - l2 I) - e2 (M - l1 I)) / (l1 - l2); element (2,2)
    return (e1 * (a22 - l2) - e2 * (a22 - l1)) / (l1 - l2)

def sh_kick_worst(r_src, c_f):
    return max(abs(sh_kick(r_src, c_f, r)) for r in R_MUX)

def derived():
    """Gains and filter figures that follow from the values above."""
    k_div = R_BOT / (R_TOP + R_BOT)
    pin_230 = 230.0 * ADAPTER_VOC_PER_V * k_div           # V rms at A0 for 230 V mains
    v_ratio = 230.0 / pin_230                              # mains volts per pin volt
    i_ratio = CT_TURNS / R_BURDEN                          # line amps per pin volt (0.1 V/A)
    r_src_v = par(R_TOP, R_BOT) + R_FV
    r_src_i = CT_MODELS["SCT-013-010"]["r_int"] + R_FI
    w = 2 * math.pi * F_MAINS
    x_b = crosstalk(z_bias_buffered(w), r_src_i, C_F, w)
    x_a = crosstalk(z_bias_passive(REV_A["bias_r"], REV_A["bias_c"], w), R_BURDEN + R_FI,
                    REV_A["c_f"], w)
    x_a6 = crosstalk(z_bias_passive(REV_A["bias_r"], REV_A["bias_c_c6"], w),
                     R_BURDEN + R_FI, REV_A["c_f"], w)
    return {
        "k_div": k_div,
        "pin_230": pin_230,
        "v_ratio": v_ratio,
        "i_ratio": i_ratio,
        "v_per_count": VREF / 1024 * v_ratio,
        "a_per_count": VREF / 1024 * i_ratio,
        "v_per_count_avcc": VREF_AVCC / 1024 * v_ratio,
        "a_per_count_avcc": VREF_AVCC / 1024 * i_ratio,
        "r_src_v": r_src_v,
        "r_src_i": r_src_i,
        "fc_v": 1 / (2 * math.pi * r_src_v * C_F),
        "fc_i": 1 / (2 * math.pi * r_src_i * C_F),
        "ph_v": math.degrees(math.atan(w * r_src_v * C_F)),
        "ph_i": math.degrees(math.atan(w * r_src_i * C_F)),
        "bias": VREF / 2,
        "xtalk": x_b, "xtalk_rev_a": x_a, "xtalk_rev_a_c6": x_a6,
        "kick": sh_kick_worst(r_src_i, C_F),
        "kick_rev_a": sh_kick_worst(R_BURDEN + R_FI, REV_A["c_f"]),
    }

def fmt_r(r):
    if r >= 1e3:
        s = ("%.2f" % (r / 1e3)).rstrip("0").rstrip(".")
        return s + " kΩ"
    return "%g Ω" % r

# ---------------------------------------------------------------- netlist ----------------
# Nets on the host's side of the isolation barrier; only U3 may touch both sides.
HOST_NETS = {"HOST_VBUS", "HOST_GND", "HOST_DP", "HOST_DM", "HOST_UDP", "HOST_UDM", "ISO_VDD1"}

# The 20-way ribbon from the front-end board (X1) to the Mega adapter shield (X2): every
# analog input between two grounds or supplies, AREF next to ground.
RIBBON = dict([("1", "GND"), ("2", "AREF")] + [(str(3 + i), "A%d" % i) for i in range(16)]
              + [("19", "+5V"), ("20", "GND")])

def components(channels=None):
    """(ref, value, part, {pin: net}) for every part of the meter."""
    channels = CHANNELS if channels is None else channels
    c = []
    add = lambda ref, val, part, pins: c.append((ref, val, part, pins))
    add("P1", "Mega POWER header", "1x8 male header (shield)",
        {"5V": "+5V", "GND1": "GND", "GND2": "GND", "VIN": "NC", "3V3": "NC",
         "RESET": "NC", "IOREF": "NC"})
    add("P2", "Mega ANALOG IN A0-A7", "1x8 male header (shield)",
        {"A%d" % i: "A%d" % i for i in range(8)})
    add("P3", "Mega ANALOG IN A8-A15", "1x8 male header (shield)",
        {"A%d" % i: "A%d" % i for i in range(8, 16)})
    add("P4", "Mega AREF", "pin of the Mega's top header", {"AREF": "AREF"})
    for ref, where in (("X1", "front-end board"), ("X2", "Mega adapter shield")):
        add(ref, "ribbon 2x10", "2x10 shrouded box header, 2.54 mm (%s); 20-way IDC "
            "ribbon X1-X2" % where, RIBBON)
    add("C7", "10 µF 16 V", "aluminium electrolytic, +5V bulk", {"+": "+5V", "-": "GND"})
    add("C8", "100 nF", "ceramic X7R, +5V decoupling", {"1": "+5V", "2": "GND"})
    # reference and biases
    add("U1", "REF3440 4.096 V", "series voltage reference, ±0.05 %, SOT-23-6 on adapter (GND_F/GND_S and "
        "OUT_F/OUT_S tied at the package)",
        {"IN": "+5V", "EN": "+5V", "GND": "GND", "OUT": "VREF"})
    add("C9", "100 nF", "ceramic X7R, U1 input", {"1": "+5V", "2": "GND"})
    add("C10", "1 µF", "ceramic X7R, U1 output (0.1-10 µF allowed)", {"1": "VREF", "2": "GND"})
    add("JP3", "AREF link", "1x2 header + shunt: fit ONLY with revision-B firmware "
        "(external reference); with AVCC selected it would short VREF to 5 V",
        {"1": "VREF", "2": "AREF"})
    add("R3", fmt_r(BIAS_R) + " 0.1 %", "metal film, bias divider top", {"1": "VREF", "2": "BIAS_REF"})
    add("R4", fmt_r(BIAS_R) + " 0.1 %", "metal film, bias divider bottom", {"1": "BIAS_REF", "2": "GND"})
    add("C1", "10 µF", "ceramic X7R or film, BIAS_REF filter", {"1": "BIAS_REF", "2": "GND"})
    add("U2", "MCP6002-I/P", "dual rail-to-rail op-amp, DIP-8: A buffers BIAS_V, B buffers BIAS_I",
        {"OUTA": "BIAS_V", "INA-": "BIAS_V", "INA+": "BIAS_REF", "VSS": "GND",
         "INB+": "BIAS_REF", "INB-": "BIAS_I", "OUTB": "BIAS_I", "VDD": "+5V"})
    add("C2", "100 nF", "ceramic X7R, U2 decoupling", {"1": "+5V", "2": "GND"})
    # voltage channel
    add("J1", "9 V AC in", "4-pin mini-DIN panel jack (no barrel plug fits; label it "
        "'9 V AC ONLY')", {"1": "VAC_A", "2": "VAC_A", "3": "VAC_B", "4": "VAC_B"})
    add("H0", "harness J1", "2-pin 2.54 mm header (Molex KK) for J1's twisted pair",
        {"1": "VAC_A", "2": "VAC_B"})
    add("F1", "PTC 50 mA hold", "resettable fuse (e.g. Bourns MF-R005)",
        {"1": "VAC_A", "2": "VAC_AF"})
    add("JP1", "polarity, high side", "1x3 header + jumper (normal 1-2, swapped 2-3)",
        {"1": "VAC_AF", "2": "V_HI", "3": "VAC_B"})
    add("JP2", "polarity, low side", "1x3 header + jumper (normal 2-3, swapped 1-2)",
        {"1": "VAC_AF", "2": "BIAS_V", "3": "VAC_B"})
    add("R1", fmt_r(R_TOP) + " 1 %", "metal film 0.25 W, divider top", {"1": "V_HI", "2": "VDIV"})
    add("R2", fmt_r(R_BOT) + " 1 %", "metal film 0.25 W, divider bottom", {"1": "VDIV", "2": "BIAS_V"})
    add("R5", fmt_r(R_FV) + " 1 %", "metal film, filter", {"1": "VDIV", "2": "A0"})
    add("C3", "1 nF", "ceramic C0G, filter", {"1": "A0", "2": "GND"})
    add("D1", "BAT85", "Schottky clamp to +5V", {"A": "A0", "K": "+5V"})
    add("D2", "BAT85", "Schottky clamp to GND", {"A": "GND", "K": "A0"})
    for k, model, turns, rb, use in sorted(channels):
        a = "A%d" % k
        ct = "CT%d" % k
        add("JI%d" % k, "CT input %d" % k, "3.5 mm stereo panel jack, insulated, tip switch "
            "linked to the sleeve (empty jack = pin at BIAS_I)", {"TIP": ct, "TSW": "BIAS_I", "RING": "NC", "SLEEVE": "BIAS_I"})
        add("HI%d" % k, "harness JI%d" % k, "2-pin 2.54 mm header (Molex KK)",
            {"1": ct, "2": "BIAS_I"})
        if rb:
            add("RB%d" % k, fmt_r(R_BURDEN) + " 1 %", "burden of the bare CT %s on this "
                "channel" % model, {"1": ct, "2": "BIAS_I"})
        add("RF%d" % k, fmt_r(R_FI) + " 1 %", "metal film, filter", {"1": ct, "2": a})
        add("CF%d" % k, "1 nF", "ceramic C0G, filter", {"1": a, "2": "GND"})
        add("DH%d" % k, "BAT85", "Schottky clamp to +5V", {"A": a, "K": "+5V"})
        add("DL%d" % k, "BAT85", "Schottky clamp to GND", {"A": "GND", "K": a})
    # USB isolator board: host side | ADuM4160 | meter side
    add("J2", "USB B (to the host)", "USB-B receptacle, panel", {"VBUS": "HOST_VBUS",
        "D-": "HOST_DM", "D+": "HOST_DP", "GND": "HOST_GND", "SHIELD": "NC"})
    add("R8", "24 Ω 1 %", "USB series resistor, host D-", {"1": "HOST_DM", "2": "HOST_UDM"})
    add("R9", "24 Ω 1 %", "USB series resistor, host D+", {"1": "HOST_DP", "2": "HOST_UDP"})
    add("C11", "1 µF + 100 nF", "ceramic X7R, VBUS1 and VDD1 (host side)",
        {"1": "ISO_VDD1", "2": "HOST_GND"})
    add("U3", "ADuM4160BRIZ", "USB isolator, 5 kV rms (UL 1577), reinforced (IEC 60950-1: "
        "400 V rms), SOIC-16W with 8.3 mm creepage",
        {"VBUS1": "HOST_VBUS", "GND1": "HOST_GND", "VDD1": "ISO_VDD1", "PDEN": "ISO_VDD1",
         "SPU": "ISO_VDD1", "UD-": "HOST_UDM", "UD+": "HOST_UDP",
         "GND2": "GND", "DD+": "MEGA_UDP", "DD-": "MEGA_UDM", "PIN": "ISO_VDD2",
         "SPD": "ISO_VDD2", "VDD2": "ISO_VDD2", "VBUS2": "+5V"})
    add("C12", "1 µF + 100 nF", "ceramic X7R, VBUS2 and VDD2 (meter side)",
        {"1": "ISO_VDD2", "2": "GND"})
    add("R10", "24 Ω 1 %", "USB series resistor, meter D-", {"1": "MEGA_UDM", "2": "MEGA_DM"})
    add("R11", "24 Ω 1 %", "USB series resistor, meter D+", {"1": "MEGA_UDP", "2": "MEGA_DP"})
    add("J3", "USB A (to the Mega)", "USB-A receptacle; 0.3 m A-B cable to the Mega's USB",
        {"VBUS": "+5V", "D-": "MEGA_DM", "D+": "MEGA_DP", "GND": "GND", "SHIELD": "NC"})
    return c

def isolation_errors(comps):
    """Parts other than U3 that connect the host's side to the meter's side."""
    errs = []
    for ref, _, _, pins in comps:
        nets = {n for n in pins.values() if n != "NC"}
        host = nets & HOST_NETS
        if host and nets - HOST_NETS and ref != "U3":
            errs.append("%s bridges the isolation barrier (%s)" % (ref, ", ".join(sorted(nets))))
    return errs

def netlist_text():
    d = derived()
    comps = components()
    out = []
    w = out.append
    w("# megawatt analog front-end, revision %s, for the Arduino Mega 2560 -- netlist" % REVISION)
    w("# GENERATED by hardware/schematic.py from its design values; do not edit by hand.")
    w("# Drawing: hardware/schematic.svg; layout: hardware/layout.svg. Arithmetic:")
    w("# hardware/sizing.md, hardware/accuracy.md (python3 hardware/calc.py).")
    w("#")
    w("# Mains is never connected to this board: the voltage arrives from an isolating")
    w("# plug-in AC-AC adapter (9 V AC) on J1, the currents from clamp-on CTs on JI1..JI15.")
    w("# The host is isolated by U3 (ADuM4160); the meter is powered by its own DC supply")
    w("# on the Mega's jack. Only U3 touches both sides of the barrier (checked).")
    w("#")
    w("# Derived figures (formulas in hardware/sizing.md and accuracy.md):")
    w("#   reference: U1 %.3f V on AREF through JP3 (firmware REFS1:0 = 00); bias VREF/2 ="
      " %.3f V, buffered (U2A BIAS_V, U2B BIAS_I)" % (VREF, d["bias"]))
    w("#   voltage: 230 V mains -> %.2f V rms adapter no-load -> x %.5f divider -> %.4f V rms at A0"
      % (230 * ADAPTER_VOC_PER_V, d["k_div"], d["pin_230"]))
    w("#            = %.2f mains volts per pin volt -> %.6f V/count (%.6f with AVCC)"
      % (d["v_ratio"], d["v_per_count"], d["v_per_count_avcc"]))
    w("#   current: 0.1 V/A (SCT-013-010, or 2000:1 into 200 ohm) -> %.6f A/count (%.6f with"
      " AVCC)" % (d["a_per_count"], d["a_per_count_avcc"]))
    for k, model, turns, rb, use in sorted(CHANNELS):
        g = VREF / 1024 * channel_ratio(model, turns)
        w("#   channel %2d: %s x%d turn%s, %s -> CAL %d %.7f (%.7f with AVCC)"
          % (k, model, turns, "s" if turns > 1 else "", use, k, g, g * VREF_AVCC / VREF))
    w("#   filters: voltage %.0f ohm x 1 nF (%.0f kHz, %.4f deg at 50 Hz), current %.0f ohm x"
      " 1 nF (%.0f kHz, %.4f deg)" % (d["r_src_v"], d["fc_v"] / 1e3, d["ph_v"], d["r_src_i"],
                                     d["fc_i"] / 1e3, d["ph_i"]))
    w("#   crosstalk through BIAS_I at 50 Hz: %.2e %% (revision A: %.4f %% at %.0f deg)"
      % (100 * abs(d["xtalk"]), 100 * abs(d["xtalk_rev_a"]),
         math.degrees(cmath.phase(d["xtalk_rev_a"]))))
    w("#   sample-and-hold kick left at sampling: %.2e of the previous channel (revision A %.2e)"
      % (d["kick"], d["kick_rev_a"]))
    w("#   burdens fitted: %s" % (", ".join("RB%d" % k for k, _, _, rb, _ in CHANNELS if rb)
                                  or "none (every configured CT has its burden inside)"))
    w("#")
    w("# Format: COMPONENT lines 'REF | VALUE | PART | PIN=NET ...', then NET lines")
    w("# 'NET name: REF.PIN ...'. NC = not connected. Channels k = 1..15 repeat the same")
    w("# parts JIk HIk RFk CFk DHk DLk (and RBk for a bare CT) on nets CTk and Ak.")
    w("")
    w("[components]")
    for ref, val, part, pins in comps:
        w("%-5s | %-26s | %s | %s" % (ref, val, part,
                                      " ".join("%s=%s" % (p, n) for p, n in pins.items())))
    w("")
    w("[nets]")
    nets = {}
    for ref, _, _, pins in comps:
        for p, n in pins.items():
            if n != "NC":
                nets.setdefault(n, []).append("%s.%s" % (ref, p))
    order = ["+5V", "GND", "VREF", "AREF", "BIAS_REF", "BIAS_V", "BIAS_I", "VAC_A", "VAC_AF",
             "VAC_B", "V_HI", "VDIV"]
    names = order + sorted((n for n in nets if n not in order),
                           key=lambda s: (re.sub(r"\d+", "", s), int(re.sub(r"\D", "", s) or 0)))
    for n in names:
        w("%s: %s" % (n, " ".join(nets[n])))
    w("")
    return "\n".join(out)

# ---------------------------------------------------------------- SVG helpers ------------
class Svg:
    def __init__(self, w, h, title):
        self.w, self.h = w, h
        self.parts = []
        self.title = title

    def add(self, s):
        self.parts.append(s)

    def line(self, x1, y1, x2, y2, cls="w"):
        self.add('<line class="%s" x1="%g" y1="%g" x2="%g" y2="%g"/>' % (cls, x1, y1, x2, y2))

    def poly(self, pts, cls="w"):
        self.add('<polyline class="%s" points="%s"/>' % (cls, " ".join("%g,%g" % p for p in pts)))

    def rect(self, x, y, w, h, cls="box"):
        self.add('<rect class="%s" x="%g" y="%g" width="%g" height="%g"/>' % (cls, x, y, w, h))

    def text(self, x, y, s, cls="t", anchor="start"):
        s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.add('<text class="%s" x="%g" y="%g" text-anchor="%s">%s</text>' % (cls, x, y, anchor, s))

    def dot(self, x, y):
        self.add('<circle class="dot" cx="%g" cy="%g" r="3.2"/>' % (x, y))

    def render(self):
        css = (
            "svg{background:#fff}"
            ".w{stroke:#000;stroke-width:1.6;fill:none}"
            ".thin{stroke:#000;stroke-width:1;fill:none}"
            ".box{stroke:#000;stroke-width:1.6;fill:#fff}"
            ".dash{stroke:#555;stroke-width:1.2;fill:none;stroke-dasharray:6 4}"
            ".mains{stroke:#b00;stroke-width:2.2;fill:none}"
            ".bad{stroke:#b00;stroke-width:2.5;fill:none}"
            ".good{stroke:#080;stroke-width:2.5;fill:none}"
            ".fill{fill:#000;stroke:#000}"
            ".dot{fill:#000}"
            ".t{font:13px sans-serif;fill:#000}"
            ".s{font:11px sans-serif;fill:#333}"
            ".b{font:bold 14px sans-serif;fill:#000}"
            ".h{font:bold 18px sans-serif;fill:#000}"
            ".r{font:bold 13px sans-serif;fill:#b00}"
            ".g{font:bold 13px sans-serif;fill:#080}"
            ".m{font:12px monospace;fill:#000}"
        )
        return ('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                'viewBox="0 0 %d %d" font-family="sans-serif">\n<title>%s</title>\n'
                '<style>%s</style>\n<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>\n%s\n</svg>\n'
                % (self.w, self.h, self.w, self.h, self.title, css, self.w, self.h,
                   "\n".join(self.parts)))

def res_h(s, x1, x2, y, ref, val, lw=56):
    m = (x1 + x2) / 2
    s.line(x1, y, m - lw / 2, y)
    s.rect(m - lw / 2, y - 8, lw, 16)
    s.line(m + lw / 2, y, x2, y)
    s.text(m, y - 13, ref, "b", "middle")
    s.text(m, y + 24, val, "t", "middle")

def res_v(s, x, y1, y2, ref, val, side=1, lw=50):
    m = (y1 + y2) / 2
    s.line(x, y1, x, m - lw / 2)
    s.rect(x - 8, m - lw / 2, 16, lw)
    s.line(x, m + lw / 2, x, y2)
    anchor = "start" if side > 0 else "end"
    s.text(x + side * 13, m - 3, ref, "b", anchor)
    s.text(x + side * 13, m + 13, val, "t", anchor)

def cap_v(s, x, y1, y2, ref, val, side=1, polar=False):
    m = (y1 + y2) / 2
    s.line(x, y1, x, m - 4)
    s.line(x - 12, m - 4, x + 12, m - 4)
    if polar:
        s.add('<path class="w" d="M%g,%g Q%g,%g %g,%g"/>' % (x - 12, m + 6, x, m + 1, x + 12, m + 6))
        s.text(x - 18, m - 6, "+", "t", "middle")
    else:
        s.line(x - 12, m + 4, x + 12, m + 4)
    s.line(x, m + (4 if not polar else 3), x, y2)
    anchor = "start" if side > 0 else "end"
    s.text(x + side * 16, m - 3, ref, "b", anchor)
    s.text(x + side * 16, m + 13, val, "t", anchor)

def diode_v(s, x, y1, y2, ref, val, up=True, side=1):
    """Diode between y1 (top) and y2 (bottom); up=True: conducts upwards (anode below)."""
    m = (y1 + y2) / 2
    s.line(x, y1, x, m - 7)
    s.line(x, m + 7, x, y2)
    if up:
        s.add('<path class="fill" d="M%g,%g L%g,%g L%g,%g Z"/>' % (x - 8, m + 7, x + 8, m + 7, x, m - 7))
        s.line(x - 9, m - 7, x + 9, m - 7)
    else:
        s.add('<path class="fill" d="M%g,%g L%g,%g L%g,%g Z"/>' % (x - 8, m - 7, x + 8, m - 7, x, m + 7))
        s.line(x - 9, m + 7, x + 9, m + 7)
    anchor = "start" if side > 0 else "end"
    s.text(x + side * 13, m - 2, ref, "b", anchor)
    s.text(x + side * 13, m + 13, val, "s", anchor)

def gnd(s, x, y):
    s.line(x, y, x, y + 6)
    s.line(x - 10, y + 6, x + 10, y + 6)
    s.line(x - 6, y + 10, x + 6, y + 10)
    s.line(x - 2, y + 14, x + 2, y + 14)

def vcc(s, x, y, label="+5V"):
    s.line(x, y, x, y - 8)
    s.line(x - 9, y - 8, x + 9, y - 8)
    s.text(x, y - 13, label, "t", "middle")

def ptc(s, x1, x2, y, ref, val):
    res_h(s, x1, x2, y, ref, val, lw=44)
    m = (x1 + x2) / 2
    s.line(m - 18, y + 11, m + 18, y - 11, "thin")
    s.line(m + 18, y - 11, m + 12, y - 11, "thin")

# ---------------------------------------------------------------- schematic.svg ----------
def schematic_svg():
    d = derived()
    s = Svg(1900, 1075, "megawatt analog front-end, revision B")
    s.text(30, 34, "megawatt — analog front-end revision B for the Arduino Mega 2560 (1 voltage + up to 15 current inputs)", "h")
    s.text(30, 56, "Generated by hardware/schematic.py (netlist: hardware/schematic.net). 0.1 V/A and %.3f mains V per pin V: "
           "%.6f A/count and %.6f V/count on the 4.096 V reference (%.6f / %.6f with AVCC). Mains never reaches the board."
           % (d["v_ratio"], d["a_per_count"], d["v_per_count"], d["a_per_count_avcc"], d["v_per_count_avcc"]), "s")

    # ---------------- voltage channel ----------------
    top = 90
    s.text(30, top + 12, "VOLTAGE CHANNEL (channel 0 → A0)", "b")
    # adapter, outside the board
    s.rect(30, top + 30, 215, 235, "dash")
    s.text(40, top + 48, "OFF THE BOARD: plug-in AC-AC", "s")
    s.text(40, top + 62, "adapter, 230 V → 9 V AC, isolating", "s")
    s.text(40, top + 76, "(e.g. Ideal Power 77DE-06-09)", "s")
    # transformer: primary coil at x=95, secondary at x=150
    for i in range(4):
        yy = top + 110 + i * 22
        s.add('<path class="w" d="M95,%g a11,11 0 0 1 0,22"/>' % yy)
        s.add('<path class="w" d="M155,%g a11,11 0 0 0 0,22"/>' % yy)
    s.line(118, top + 105, 118, top + 203, "thin")
    s.line(124, top + 105, 124, top + 203, "thin")
    s.poly([(95, top + 110), (60, top + 110)], "mains")
    s.poly([(95, top + 198), (60, top + 198)], "mains")
    s.text(40, top + 104, "L", "r")
    s.text(40, top + 214, "N", "r")
    s.text(40, top + 236, "230 V stays inside", "r")
    s.text(40, top + 252, "the adapter's case", "r")
    s.text(168, top + 100, "9 V AC", "s")
    # secondary to jack J1
    jx = 300
    s.poly([(155, top + 110), (200, top + 110), (200, top + 90), (jx, top + 90)])
    s.poly([(155, top + 198), (200, top + 198), (200, top + 220), (jx, top + 220)])
    s.rect(jx, top + 75, 34, 160)
    s.text(jx + 17, top + 70, "J1", "b", "middle")
    s.text(jx + 17, top + 252, "4-pin mini-DIN", "s", "middle")
    s.text(jx + 17, top + 265, "“9 V AC ONLY”", "s", "middle")
    s.text(jx + 4, top + 95, "1,2", "s")
    s.text(jx + 4, top + 225, "3,4", "s")
    # F1 PTC
    ya, yb = top + 90, top + 220
    ptc(s, jx + 34, 440, ya, "F1", "PTC 50 mA")
    s.line(jx + 34, yb, 460, yb)
    # polarity block
    px, pw = 460, 130
    s.line(440, ya, px, ya)
    s.rect(px, top + 70, pw, 175)
    s.text(px + pw / 2, top + 92, "JP1 / JP2", "b", "middle")
    s.text(px + pw / 2, top + 110, "polarity", "s", "middle")
    s.text(px + pw / 2, top + 124, "normal:", "s", "middle")
    s.text(px + pw / 2, top + 138, "JP1 1-2, JP2 2-3", "s", "middle")
    s.text(px + pw / 2, top + 156, "swapped (all P < 0):", "s", "middle")
    s.text(px + pw / 2, top + 170, "JP1 2-3, JP2 1-2", "s", "middle")
    s.text(px + pw + 4, top + 74, "V_HI", "s")
    # V_HI -> R1 -> VDIV
    yv = top + 80
    vdiv_x = 820
    s.line(px + pw, yv, 610, yv)
    res_h(s, 610, 740, yv, "R1", fmt_r(R_TOP) + " 1 %")
    s.line(740, yv, vdiv_x, yv)
    s.dot(vdiv_x, yv)
    s.text(vdiv_x + 4, yv - 8, "VDIV", "s")
    # R2 down to BIAS_V bus
    bus_v = top + 235
    res_v(s, vdiv_x, yv, bus_v, "R2", fmt_r(R_BOT) + " 1 %", side=1)
    s.line(px + pw, bus_v, vdiv_x, bus_v)
    s.dot(vdiv_x, bus_v)
    s.text(735, bus_v - 8, "BIAS_V = VREF/2 = %.3f V" % d["bias"], "t", "middle")
    # BIAS_V comes from buffer U2A (reference panel, right)
    s.line(640, bus_v, 640, bus_v + 40)
    s.rect(585, bus_v + 40, 110, 34)
    s.text(640, bus_v + 55, "U2A follower", "s", "middle")
    s.text(640, bus_v + 68, "← BIAS_REF", "s", "middle")
    # R5 -> A0 node
    a_x = 1010
    res_h(s, vdiv_x, 940, yv, "R5", fmt_r(R_FV))
    s.line(940, yv, 1230, yv)
    s.dot(a_x - 50, yv)
    cap_v(s, a_x - 50, yv, yv + 110, "C3", "1 nF C0G", side=-1)
    gnd(s, a_x - 50, yv + 110)
    s.dot(a_x + 10, yv)
    diode_v(s, a_x + 10, yv - 70, yv, "D1", "BAT85", up=True)
    vcc(s, a_x + 10, yv - 70)
    s.dot(a_x + 70, yv)
    diode_v(s, a_x + 70, yv, yv + 110, "D2", "BAT85", up=True)
    gnd(s, a_x + 70, yv + 110)
    s.text(1220, yv - 6, "A0", "b", "end")
    s.text(1045, yv + 145, "A0 at 230 V: %.3f V rms (±%.2f V peak) on %.3f V" % (d["pin_230"], d["pin_230"] * math.sqrt(2), d["bias"]), "s", "middle")
    s.text(1045, yv + 159, "= %.1f mains V per pin V → %.6f V/count" % (d["v_ratio"], d["v_per_count"]), "s", "middle")
    s.text(1045, yv + 173, "(with AVCC: %.6f; adapter ±3 %%: calibrate)" % d["v_per_count_avcc"], "s", "middle")
    s.text(1045, yv + 187, "R_src %.0f Ω × 1 nF: %.0f kHz, %.4f° at 50 Hz" % (d["r_src_v"], d["fc_v"] / 1e3, d["ph_v"]), "s", "middle")

    # ---------------- current channel ----------------
    top2 = 470
    s.text(30, top2 + 12, "CURRENT CHANNEL k (k = 1 … 15 → Ak) — drawn once, ×15 identical (RBk only on a bare-CT channel)", "b")
    s.rect(30, top2 + 30, 215, 250, "dash")
    s.text(40, top2 + 48, "OFF THE BOARD: split-core CT", "s")
    s.text(40, top2 + 62, "SCT-013 family, clamped on ONE", "s")
    s.text(40, top2 + 76, "conductor (live) of a split-out lead", "s")
    # conductor through the CT core
    cy = top2 + 160
    s.line(60, cy - 75, 60, cy + 75, "mains")
    s.add('<path class="fill" d="M54,%g L66,%g L60,%g Z"/>' % (cy + 55, cy + 55, cy + 70))
    s.text(68, cy + 95, "L → to the load", "r")
    s.add('<ellipse class="w" cx="60" cy="%g" rx="38" ry="14"/>' % cy)
    for i in range(5):
        s.add('<path class="thin" d="M%g,%g q4,-10 8,0"/>' % (28 + i * 13, cy - 2))
    s.text(104, cy - 20, "CT, arrow", "s")
    s.text(104, cy - 7, "towards load", "s")
    # CT leads to plug
    s.poly([(98, cy), (160, cy), (160, top2 + 110), (300, top2 + 110)])
    s.poly([(60, cy + 14), (60, cy + 40), (170, cy + 40), (170, top2 + 250), (300, top2 + 250)])
    s.text(180, top2 + 104, "tip (+)", "s")
    s.text(180, top2 + 244, "sleeve", "s")
    s.rect(300, top2 + 90, 34, 180)
    s.text(317, top2 + 84, "JIk", "b", "middle")
    s.text(317, top2 + 286, "3.5 mm panel jack, switched:", "s", "middle")
    s.text(317, top2 + 299, "no plug = tip on sleeve (ring n.c.)", "s", "middle")
    yt, ys = top2 + 110, top2 + 250
    ctx = 470
    s.line(334, yt, ctx, yt)
    s.dot(ctx, yt)
    s.text(ctx + 4, yt - 8, "CTk", "s")
    s.line(334, ys, 900, ys)
    res_v(s, ctx, yt, ys, "RBk", fmt_r(R_BURDEN) + " 1 %", side=1)
    s.dot(ctx, ys)
    s.text(ctx + 13, yt + 100, "ONLY for a bare CT (SCT-013-000);", "s")
    s.text(ctx + 13, yt + 113, "never with a voltage-output CT", "s")
    s.text(ctx + 13, yt + 126, "(-005, -010): schematic.py --check", "s")
    s.text(345, ys + 18, "BIAS_I = %.3f V from buffer U2B (output impedance %.1e Ω at 50 Hz)" % (d["bias"], abs(z_bias_buffered(2 * math.pi * F_MAINS))), "t")
    # BIAS_I comes from buffer U2B (reference panel, right)
    s.dot(760, ys)
    s.line(760, ys, 760, ys + 40)
    s.rect(705, ys + 40, 110, 34)
    s.text(760, ys + 55, "U2B follower", "s", "middle")
    s.text(760, ys + 68, "← BIAS_REF", "s", "middle")
    # RF -> Ak
    res_h(s, ctx, 600, yt, "RFk", fmt_r(R_FI) + " 1 %")
    s.line(600, yt, 1230, yt)
    s.dot(a_x - 50, yt)
    cap_v(s, a_x - 50, yt, yt + 110, "CFk", "1 nF C0G", side=-1)
    gnd(s, a_x - 50, yt + 110)
    s.dot(a_x + 10, yt)
    diode_v(s, a_x + 10, yt - 70, yt, "DHk", "BAT85", up=True)
    vcc(s, a_x + 10, yt - 70)
    s.dot(a_x + 70, yt)
    diode_v(s, a_x + 70, yt, yt + 110, "DLk", "BAT85", up=True)
    gnd(s, a_x + 70, yt + 110)
    s.text(1220, yt - 6, "Ak", "b", "end")
    notes = ["0.1 V/A (SCT-013-010) = %.1f A per pin V" % d["i_ratio"],
             "→ %.6f A/count; -005: 0.2 V/A" % d["a_per_count"],
             "full scale ±2.0 V = 20 A peak;",
             "the ADC clips at ±2.048 V",
             "R_src %.0f Ω × 1 nF: %.0f kHz, %.4f°" % (d["r_src_i"], d["fc_i"] / 1e3, d["ph_i"]),
             "at 50 Hz (V − I mismatch %.4f°)" % (d["ph_v"] - d["ph_i"])]
    for i, n in enumerate(notes):
        s.text(1002, yt + 140 + 14 * i, n, "s")

    # ---------------- Arduino Mega ----------------
    mx, my, mw_, mh = 1230, 80, 240, 760
    s.rect(mx, my, mw_, mh)
    s.text(mx + mw_ / 2, my + 24, "Arduino Mega 2560", "b", "middle")
    s.text(mx + mw_ / 2, my + 42, "(ATmega2560, 16 MHz)", "s", "middle")
    s.text(mx + mw_ / 2, my + 60, "ADC ref = AREF 4.096 V (JP3)", "s", "middle")
    # list the analog pins along the left edge
    s.text(mx + 10, yv + 5, "A0  ← voltage", "m")
    s.text(mx + 10, yt + 5, "Ak  ← current k", "m")
    s.text(mx + 10, my + 160, "A1 … A5: channels 1–5", "s")
    s.text(mx + 10, my + 174, "(default map, 4 nodes", "s")
    s.text(mx + 10, my + 188, " + switch)", "s")
    s.text(mx + 10, my + 206, "A6 … A15: channels 6–15", "s")
    s.text(mx + 10, my + 220, "(enable with CH)", "s")
    s.text(mx + 10, my + 260, "5V  → +5V rail", "m")
    s.text(mx + 10, my + 278, "GND → GND", "m")
    s.text(mx + 10, my + 296, "AREF ← JP3 ← VREF", "m")
    s.text(mx + 10, my + 330, "+5V rail: C7 10 µF,", "s")
    s.text(mx + 10, my + 344, "C8 100 nF", "s")
    s.text(mx + 10, my + 380, "Power: 9 V DC supply on the", "s")
    s.text(mx + 10, my + 394, "Mega's own jack (standard);", "s")
    s.text(mx + 10, my + 408, "USB carries data only,", "s")
    s.text(mx + 10, my + 422, "through the isolator U3", "s")
    s.text(mx + 10, my + 460, "USB → J3 │U3│ J2 → host", "m")

    # ---------------- reference, bias buffers, USB isolator ----------------
    rx = 1500
    s.text(rx, 102, "REFERENCE AND BIAS (shield)", "b")
    lines = ["+5V → U1 REF3440 → VREF %.3f V" % VREF,
             "   C9 100 nF in, C10 1 µF out",
             "VREF → JP3 → AREF (fit ONLY with",
             "   revision-B firmware: REFS = 00)",
             "VREF → R3 10 kΩ 0.1 % → BIAS_REF",
             "   → R4 10 kΩ 0.1 % → GND, C1 10 µF",
             "BIAS_REF → U2A (MCP6002) → BIAS_V",
             "BIAS_REF → U2B → BIAS_I (every sleeve)",
             "   no capacitor on U2's outputs",
             "",
             "crosstalk via BIAS_I at 50 Hz:",
             "   %.1e %% (rev. A %.3f %%)" % (100 * abs(d["xtalk"]), 100 * abs(d["xtalk_rev_a"])),
             "S/H kick left at sampling:",
             "   ≤ %.1e (rev. A ≤ %.1e)" % (d["kick"], d["kick_rev_a"])]
    for i, t in enumerate(lines):
        s.text(rx, 126 + 16 * i, t, "s")
    s.text(rx, 372, "USB ISOLATOR (own board, 8 mm gap)", "b")
    lines = ["host ─ J2 USB-B ─ R8/R9 24 Ω ─ U3 side 1",
             "   (HOST_VBUS powers side 1, C11)",
             "U3 ADuM4160BRIZ: 5 kV rms 1 min,",
             "   reinforced, creepage 8.3 mm",
             "U3 side 2 ─ R10/R11 24 Ω ─ J3 USB-A",
             "   → 0.3 m cable → Mega USB-B",
             "side 2 and J3 VBUS from the meter +5V",
             "   (C12); nothing else crosses",
             "",
             "J1: 4-pin mini-DIN (no barrel plug",
             "   fits); the DC supply goes to the",
             "   Mega's own 2.1 mm jack"]
    for i, t in enumerate(lines):
        s.text(rx, 396 + 16 * i, t, "s")

    # ---------------- pin map ----------------
    ty = 880
    s.text(30, ty, "PIN MAP — the 14 current channels not drawn are identical to channel k above, with these parts:", "b")
    cols = ["channel", "ADC pin", "input", "burden", "filter R", "filter C", "clamps", "CT"]
    rows = [["0 (V)", "A0", "J1", "—", "R5", "C3", "D1, D2", "VDIV"]]
    for k, model, turns, rb, use in sorted(CHANNELS):
        rows.append([str(k), "A%d" % k, "JI%d" % k, "RB%d" % k if rb else "none", "RF%d" % k,
                     "CF%d" % k, "DH%d, DL%d" % (k, k), "%s%s" % (model[8:], " ×%d" % turns if turns > 1 else "")])
    # two blocks of 8 rows
    colx = [0, 70, 135, 190, 250, 310, 370, 460]
    for blk in range(2):
        x0 = 30 + blk * 740
        yy = ty + 22
        for j, c in enumerate(cols):
            s.text(x0 + colx[j], yy, c, "s")
        for r in rows[blk * 8:(blk + 1) * 8]:
            yy += 15
            for j, c in enumerate(r):
                s.text(x0 + colx[j], yy, c, "m")
    s.text(30, 1058, "Default firmware map: A0 voltage, A1–A5 currents (4 nodes + switch); `CH 0 1 2 … 15` enables up to 15; an empty jack reads its pin at BIAS_I. "
           "Every channel's gain and phase: `CAL <ch> <gain> <phase>` then `SAVE` (docs/protocol.md).", "s")
    return s.render()

# ---------------------------------------------------------------- wiring.svg -------------
def wiring_svg():
    s = Svg(1200, 660, "megawatt: clamping a lead")
    s.text(30, 34, "Clamping a lead: one conductor through the CT, never the whole cable", "h")
    s.text(30, 56, "Both panels show a purpose-made breakout (built and tested by a qualified person): the sheath is opened "
           "inside a closed box and L leaves it as a sheathed (double-insulated) loop; the CT clamps on that loop, outside.", "s")

    def plug_and_box(x0, y0, wrong):
        # wall socket side
        s.rect(x0, y0 + 60, 60, 120)
        s.text(x0 + 30, y0 + 50, "wall socket", "s", "middle")
        s.text(x0 + 30, y0 + 200, "/ PDU", "s", "middle")
        # load side
        s.rect(x0 + 460, y0 + 60, 70, 120)
        s.text(x0 + 495, y0 + 50, "node PSU", "s", "middle")
        s.text(x0 + 495, y0 + 200, "(the load)", "s", "middle")
        if wrong:
            # one cable, CT around all of it
            for dy, lab in ((100, "L"), (120, "N"), (140, "PE")):
                s.line(x0 + 60, y0 + dy, x0 + 460, y0 + dy, "mains" if lab != "PE" else "w")
            s.add('<ellipse class="bad" cx="%g" cy="%g" rx="22" ry="48"/>' % (x0 + 260, y0 + 120))
            s.text(x0 + 260, y0 + 62, "CT", "r", "middle")
            s.text(x0 + 260, y0 + 236, "L and N currents are equal and opposite:", "r", "middle")
            s.text(x0 + 260, y0 + 252, "the CT sees ~0 A, the meter reads ~0 W", "r", "middle")
        else:
            # box with separated conductors
            s.rect(x0 + 150, y0 + 30, 220, 180, "dash")
            s.text(x0 + 260, y0 + 24, "breakout box (closed, strain-relieved)", "s", "middle")
            s.line(x0 + 60, y0 + 100, x0 + 150, y0 + 100, "mains")
            s.line(x0 + 60, y0 + 120, x0 + 150, y0 + 120, "mains")
            s.line(x0 + 60, y0 + 140, x0 + 150, y0 + 140)
            # L loops up through the CT
            s.poly([(x0 + 150, y0 + 100), (x0 + 180, y0 + 100), (x0 + 180, y0 - 10),
                    (x0 + 340, y0 - 10), (x0 + 340, y0 + 100), (x0 + 370, y0 + 100)], "mains")
            s.poly([(x0 + 172, y0 + 30), (x0 + 172, y0 - 18), (x0 + 348, y0 - 18), (x0 + 348, y0 + 30)], "thin")
            s.poly([(x0 + 188, y0 + 30), (x0 + 188, y0 - 2), (x0 + 332, y0 - 2), (x0 + 332, y0 + 30)], "thin")
            s.text(x0 + 200, y0 + 14, "sheathed loop", "s")
            s.poly([(x0 + 150, y0 + 120), (x0 + 370, y0 + 120)], "mains")
            s.poly([(x0 + 150, y0 + 140), (x0 + 370, y0 + 140)])
            s.line(x0 + 370, y0 + 100, x0 + 460, y0 + 100, "mains")
            s.line(x0 + 370, y0 + 120, x0 + 460, y0 + 120, "mains")
            s.line(x0 + 370, y0 + 140, x0 + 460, y0 + 140)
            s.add('<ellipse class="good" cx="%g" cy="%g" rx="14" ry="26"/>' % (x0 + 260, y0 - 10))
            s.add('<path class="fill" d="M%g,%g L%g,%g L%g,%g Z"/>' % (x0 + 290, y0 - 16, x0 + 290, y0 - 4, x0 + 304, y0 - 10))
            s.text(x0 + 230, y0 + 30 + 0, "", "s")
            s.text(x0 + 260, y0 + 236, "CT on the sheathed L loop, outside the box, arrow towards the load", "g", "middle")
            s.text(x0 + 260, y0 + 252, "(on N instead: arrow towards the socket)", "s", "middle")
            # CT cable out to the meter
            s.poly([(x0 + 274, y0 - 10), (x0 + 420, y0 - 10), (x0 + 420, y0 + 20)], "w")
            s.text(x0 + 426, y0 + 20, "3.5 mm plug → meter JIk", "s")
        for dy, lab in ((100, "L"), (120, "N"), (140, "PE")):
            s.text(x0 + 66, y0 + dy - 4, lab, "s")

    s.text(30, 100, "RIGHT", "g")
    plug_and_box(30, 110, False)
    s.text(640, 100, "WRONG", "r")
    plug_and_box(640, 110, True)

    # N turns for the switch
    y0 = 420
    s.text(30, y0, "Switch (< 5 W, ~20 mA): the L conductor passes N times through the CT (breakout made with N turns)", "b")
    cx, cy, r = 235, y0 + 90, 48
    s.add('<circle cx="%g" cy="%g" r="%g" fill="none" stroke="#080" stroke-width="16"/>' % (cx, cy, r))
    s.text(cx, cy + 5, "CT", "g", "middle")
    n = 5
    pts = []
    for i in range(n):
        ang = math.radians(195 + i * 37)
        x1, y1 = cx + 26 * math.cos(ang), cy - 26 * math.sin(ang)
        x2, y2 = cx + 74 * math.cos(ang), cy - 74 * math.sin(ang)
        s.line(x1, y1, x2, y2, "mains")
        pts.append(((x1, y1), (x2, y2)))
    # each turn goes back round the outside (dashed: behind the CT) to the next
    for i in range(n - 1):
        (ix, iy), _ = pts[i]
        _, (ox, oy) = pts[i + 1]
        mid = math.radians(195 + (i + 0.5) * 37)
        qx, qy = cx + 60 * math.cos(mid), cy - 60 * math.sin(mid)
        s.add('<path class="mains" d="M%g,%g Q%g,%g %g,%g" stroke-dasharray="4 3"/>'
              % (ix, iy, qx, qy, ox, oy))
    s.poly([(50, cy - 30), (100, cy - 30), pts[0][1]], "mains")
    s.poly([pts[-1][0], (cx + 110, cy - 40), (cx + 185, cy - 40)], "mains")
    s.text(50, cy - 36, "from socket", "s")
    s.text(cx + 110, cy - 46, "to the switch", "s")
    s.text(cx, cy + 100, "N turns through the window: the CT sees N × I", "g", "middle")
    s.text(480, y0 + 60, "Gain of that channel ÷ N:  CAL <ch> 0.048828/N <phase>, then SAVE", "m")
    s.text(480, y0 + 80, "e.g. SCT-013-010, N = 10:   CAL 5 0.0048828 <phase>", "m")
    s.text(480, y0 + 100, "e.g. SCT-013-005, N = 10:   CAL 5 0.0024414 <phase>", "m")
    s.text(480, y0 + 120, "(or run mw calibrate with the breakout in place: the gain it finds includes N)", "s")
    s.text(480, y0 + 150, "Sign of power: current in the arrow's direction = tip positive (SCT-013, OpenEnergyMonitor report).", "s")
    s.text(480, y0 + 166, "A negative reading on one channel: turn that CT round. On every channel: swap JP1/JP2 (voltage polarity).", "s")
    return s.render()

# ---------------------------------------------------------------- layout -----------------
# A dimensioned perfboard layout (2.54 mm hole grid) that fits: the front-end on a Eurocard
# 160 x 100 mm board (63 x 39 holes) in the enclosure beside the Mega, connected by the
# 20-way ribbon X1-X2; the USB isolator on its own 50 x 70 mm board (19 x 27 holes) with a
# copper-free band of ISO_GAP_COLS columns under U3. Each part is a rectangle of holes
# (column, row, width, height) that holds its leads and body; --check verifies that every
# part lies inside its board, that no two overlap, that every netlist part is placed and
# that only U3 spans the isolation gap.
PITCH_MM = 2.54
BOARDS = {"front-end": (63, 39), "isolator": (19, 27)}
ISO_GAP = (7, 11)      # isolator board columns [7, 11) carry no copper: 4 x 2.54 = 10.2 mm
CELL_W, CELL_TOP = 4, 16

def layout(channels=None):
    channels = CHANNELS if channels is None else channels
    fe = [  # core: (ref, col, row, w, h)
        ("H0", 0, 0, 2, 2), ("F1", 3, 0, 3, 2), ("JP1", 7, 0, 3, 1), ("JP2", 7, 2, 3, 1),
        ("R1", 11, 0, 5, 1), ("R2", 11, 2, 5, 1), ("R5", 17, 0, 5, 1), ("C3", 23, 0, 2, 1),
        ("D1", 26, 0, 4, 1), ("D2", 26, 2, 4, 1),
        ("U1", 0, 5, 4, 3), ("C9", 5, 5, 2, 1), ("C10", 5, 7, 2, 1), ("JP3", 8, 5, 2, 1),
        ("R3", 11, 5, 5, 1), ("R4", 11, 7, 5, 1), ("C1", 17, 5, 3, 2), ("U2", 21, 5, 4, 4),
        ("C2", 26, 5, 2, 1), ("C7", 29, 5, 3, 2), ("C8", 33, 5, 2, 1),
        ("X1", 48, 0, 13, 4),
    ]
    for k, model, turns, rb, use in sorted(channels):
        x = (k - 1) * CELL_W + 1
        y = CELL_TOP
        fe += [("HI%d" % k, x, y, 2, 2), ("RF%d" % k, x + 1, y + 3, 1, 5),
               ("CF%d" % k, x + 2, y + 9, 1, 2), ("DH%d" % k, x, y + 12, 1, 4),
               ("DL%d" % k, x + 2, y + 12, 1, 4)]
        if rb:
            fe.append(("RB%d" % k, x, y + 3, 1, 5))
    iso = [("J2", 0, 2, 6, 7), ("R8", 1, 11, 5, 1), ("R9", 1, 13, 5, 1), ("C11", 1, 16, 2, 3),
           ("U3", 4, 18, 10, 8), ("R10", 13, 11, 5, 1), ("R11", 13, 13, 5, 1),
           ("C12", 16, 16, 2, 3), ("J3", 12, 2, 7, 6)]
    return {"front-end": fe, "isolator": iso}

# off-board parts: panel-mounted, on the Mega adapter shield or the Mega itself
OFF_BOARD = re.compile(r"^(J1|JI\d+|P\d|X2)$")

def layout_errors(comps, boards):
    errs = []
    placed = {}
    for name, parts in boards.items():
        bw, bh = BOARDS[name]
        for ref, x, y, w, h in parts:
            if ref in placed:
                errs.append("%s placed twice" % ref)
            placed[ref] = name
            if x < 0 or y < 0 or x + w > bw or y + h > bh:
                errs.append("%s lies outside the %s board (%d x %d holes)" % (ref, name, bw, bh))
        for i, (r1, x1, y1, w1, h1) in enumerate(parts):
            for r2, x2, y2, w2, h2 in parts[i + 1:]:
                if x1 < x2 + w2 and x2 < x1 + w1 and y1 < y2 + h2 and y2 < y1 + h1:
                    errs.append("%s overlaps %s on the %s board" % (r1, r2, name))
    for ref, _, _, pins in comps:
        if not OFF_BOARD.match(ref) and ref not in placed:
            errs.append("%s is in the netlist but not placed" % ref)
    for ref, x, y, w, h in boards["isolator"]:
        if ref != "U3" and x < ISO_GAP[1] and x + w > ISO_GAP[0]:
            errs.append("%s reaches into the isolator's copper-free gap" % ref)
    return errs

def layout_svg():
    boards = layout()
    sc = 11.0   # px per hole
    s = Svg(1250, 640, "megawatt revision B: perfboard layout")
    s.text(30, 34, "Revision B layout on 2.54 mm perfboard (component side; one square = one hole pitch)", "h")
    s.text(30, 56, "Front-end: Eurocard 160 × 100 mm (63 × 39 holes) beside the Mega, ribbon X1 → X2 on a Mega "
           "proto shield. Isolator: 50 × 70 mm (19 × 27 holes), no copper in columns %d–%d (%.1f mm) under U3."
           % (ISO_GAP[0], ISO_GAP[1] - 1, (ISO_GAP[1] - ISO_GAP[0]) * PITCH_MM), "s")
    origin = {"front-end": (30, 80), "isolator": (770, 80)}
    for name, parts in boards.items():
        ox, oy = origin[name]
        bw, bh = BOARDS[name]
        s.rect(ox, oy, bw * sc, bh * sc)
        s.text(ox, oy + bh * sc + 18, "%s board: %d × %d holes = %.0f × %.0f mm" %
               (name, bw, bh, bw * PITCH_MM, bh * PITCH_MM), "t")
        if name == "isolator":
            s.add('<rect x="%g" y="%g" width="%g" height="%g" fill="#fdd" stroke="#b00"/>'
                  % (ox + ISO_GAP[0] * sc, oy, (ISO_GAP[1] - ISO_GAP[0]) * sc, bh * sc))
            s.text(ox + 2, oy + bh * sc + 36, "host side ← | copper-free barrier | → meter side", "r")
        for ref, x, y, w, h in parts:
            s.rect(ox + x * sc + 1, oy + y * sc + 1, w * sc - 2, h * sc - 2, "thin")
            if w * sc < 7 * len(ref) and h * sc >= 7 * len(ref):
                # too narrow for its name across (the diodes, one hole wide): write it upwards
                tx, ty = ox + x * sc + w * sc / 2 + 3, oy + (y + h) * sc - 3
                s.add('<text class="s" x="%g" y="%g" transform="rotate(-90 %g %g)">%s</text>'
                      % (tx, ty, tx, ty, ref))
            else:
                s.text(ox + x * sc + 2, oy + y * sc + min(h, 2) * sc - 2, ref, "s")
    fx, fy = origin["front-end"]
    s.text(fx, fy + 39 * sc + 40, "Rows %d–%d: channel k in columns 4k−3 … 4k: HIk harness header (tip, sleeve), RFk, CFk, DHk, DLk "
           "(RBk beside RFk only on a bare-CT channel)." % (CELL_TOP, CELL_TOP + 15), "s")
    s.text(fx, fy + 39 * sc + 56, "Buses (tinned wire along rows): +5V row %d, BIAS_I row %d (to every HIk pin 2), GND row 38; "
           "each Ak runs to X1 on insulated wire." % (CELL_TOP - 2, CELL_TOP - 1), "s")
    s.text(fx, fy + 39 * sc + 72, "Panel (enclosure front, ≥ 215 mm): JI1–JI15 at 12.7 mm pitch (190 mm), J1 mini-DIN; back: "
           "J2 USB-B, the Mega's DC jack. Harness: twisted pair per jack to HIk / H0 (Molex KK).", "s")
    return s.render()

# ---------------------------------------------------------------- main -------------------
def afe_values():
    txt = open(os.path.join(ROOT, "firmware", "portable", "afe.h")).read()
    def num(name):
        m = re.search(r"#define\s+%s\s+([0-9.]+)" % name, txt)
        return float(m.group(1))
    return {"vref": num("MW_AFE_VREF_V"), "bias": num("MW_AFE_BIAS_V"),
            "v_ratio": num("MW_AFE_V_RATIO"), "i_ratio": num("MW_AFE_I_RATIO")}

def outputs():
    return {
        "schematic.net": netlist_text(),
        "schematic.svg": schematic_svg(),
        "wiring.svg": wiring_svg(),
        "layout.svg": layout_svg(),
    }

XTALK_LIMIT = 1e-4    # 0.01 % of the other channels' signal (issue 25)

def design_errors(channels=None, boards=None):
    """Every reason the design as described is not buildable or safe, as messages."""
    channels = CHANNELS if channels is None else channels
    comps = components(channels)
    errs = channel_errors(channels) + isolation_errors(comps)
    errs += layout_errors(comps, layout(channels) if boards is None else boards)
    d = derived()
    if abs(d["xtalk"]) > XTALK_LIMIT:
        errs.append("crosstalk through BIAS_I %.2e > %.0e" % (abs(d["xtalk"]), XTALK_LIMIT))
    return errs

def check():
    ok = True
    d = derived()
    a = afe_values()
    def expect(what, got, want, tol):
        nonlocal ok
        good = abs(got / want - 1) <= tol
        print("%-44s %-12.6g firmware %-10.6g %s" % (what, got, want, "ok" if good else "MISMATCH"))
        ok = ok and good
    # The firmware selects the reference: revision-B firmware takes AREF (4.096 V, JP3
    # fitted); revision-A firmware takes AVCC (5 V), and then JP3 must stay open. Either is
    # consistent; anything else is not.
    if a["vref"] == VREF:
        print("%-44s %-12.6g firmware %-10.6g ok (external AREF: fit JP3)" % ("reference (V)", VREF, a["vref"]))
        expect("bias (V)", d["bias"], a["bias"], 0)
    elif a["vref"] == VREF_AVCC:
        print("%-44s %-12.6g firmware %-10.6g ok (firmware still selects AVCC: JP3 MUST STAY OPEN;"
              " gains %.6f V/count, %.6f A/count)" % ("reference (V)", VREF, a["vref"],
                                                       d["v_per_count_avcc"], d["a_per_count_avcc"]))
        print("%-44s %-12.6g firmware %-10.6g (immaterial: the firmware removes each window's DC)"
              % ("bias (V)", d["bias"], a["bias"]))
    else:
        print("%-44s %-12.6g firmware %-10.6g MISMATCH" % ("reference (V)", VREF, a["vref"]))
        ok = False
    expect("current: line A per pin V (0.1 V/A)", d["i_ratio"], a["i_ratio"], 1e-9)
    # the adapter is an assumption (+-3 %): the divider must land within 0.5 % of the ratio
    expect("voltage: mains V per pin V (9 V adapter)", d["v_ratio"], a["v_ratio"], 5e-3)
    mism = abs(d["ph_v"] - d["ph_i"])
    print("%-44s %-12.4f limit    %-10g %s" % ("filter phase mismatch V-I at 50 Hz (deg)", mism, 0.01,
                                              "ok" if mism < 0.01 else "TOO LARGE"))
    ok = ok and mism < 0.01
    print("%-44s %-12.3g limit    %-10g" % ("crosstalk through BIAS_I at 50 Hz", abs(d["xtalk"]), XTALK_LIMIT))
    print("%-44s %-12.3g (revision A %.3g)" % ("sample-and-hold kick at sampling", d["kick"], d["kick_rev_a"]))
    errs = design_errors()
    for e in errs:
        print("DESIGN ERROR: " + e)
    print("%-44s %s" % ("channels, isolation barrier, layout", "ok" if not errs else "%d ERRORS" % len(errs)))
    ok = ok and not errs
    for name, text in outputs().items():
        path = os.path.join(HERE, name)
        cur = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        same = cur == text
        print("%-44s %s" % (name, "up to date" if same else "STALE: run python3 hardware/schematic.py"))
        ok = ok and same
    return ok

def main():
    if "--check" in sys.argv[1:]:
        sys.exit(0 if check() else 1)
    for name, text in outputs().items():
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            f.write(text)
        print("wrote hardware/%s" % name)

if __name__ == "__main__":
    main()
