#!/usr/bin/env python3
"""Generate the shield's netlist and drawings from one description.

    python3 hardware/schematic.py          write schematic.net, schematic.svg, wiring.svg
    python3 hardware/schematic.py --check  check that those files are up to date and that
                                           the component values give the gains of
                                           firmware/portable/afe.h (exit 1 otherwise)

Python 3 standard library only. The component values live here once; every number in the
drawings is computed from them (see hardware/sizing.md for the arithmetic).
"""
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# ---------------------------------------------------------------- design values ----------
VREF = 5.0            # AVCC, the ADC reference the firmware selects (REFS0)
BIAS_R = 10e3         # each of the two bias resistors
R_TOP = 8.25e3        # voltage divider, adapter side (E96, 1 %)
R_BOT = 1.00e3        # voltage divider, bias side (1 %)
R_FV = 330.0          # series filter resistor, voltage channel
R_BURDEN = 200.0      # CT burden (fitted for current-output CTs)
R_FI = 1.00e3         # series filter resistor, current channels
C_F = 10e-9           # filter capacitor, every channel
CT_TURNS = 2000       # SCT-013-000: 100 A : 50 mA
ADAPTER_VOC_PER_V = 11.6 / 240.0   # 9 V AC-AC adapter, no-load output 11.6 V at 240 V
                                   # (Ideal Power 77DB/77DE-06-09 figure quoted by
                                   # OpenEnergyMonitor, "emonTx error sources")
N_I = 15

def par(a, b):
    return a * b / (a + b)

def derived():
    """Gains and filter figures that follow from the values above."""
    k_div = R_BOT / (R_TOP + R_BOT)
    pin_230 = 230.0 * ADAPTER_VOC_PER_V * k_div           # V rms at A0 for 230 V mains
    v_ratio = 230.0 / pin_230                              # mains volts per pin volt
    i_ratio = CT_TURNS / R_BURDEN                          # line amps per pin volt
    r_src_v = par(R_TOP, R_BOT) + R_FV
    r_src_i = R_BURDEN + R_FI
    w = 2 * math.pi * 50.0
    return {
        "k_div": k_div,
        "pin_230": pin_230,
        "v_ratio": v_ratio,
        "i_ratio": i_ratio,
        "v_per_count": VREF / 1024 * v_ratio,
        "a_per_count": VREF / 1024 * i_ratio,
        "r_src_v": r_src_v,
        "r_src_i": r_src_i,
        "fc_v": 1 / (2 * math.pi * r_src_v * C_F),
        "fc_i": 1 / (2 * math.pi * r_src_i * C_F),
        "ph_v": math.degrees(math.atan(w * r_src_v * C_F)),
        "ph_i": math.degrees(math.atan(w * r_src_i * C_F)),
        "bias": VREF / 2,
    }

def fmt_r(r):
    if r >= 1e3:
        s = ("%.2f" % (r / 1e3)).rstrip("0").rstrip(".")
        return s + " kΩ"
    return "%g Ω" % r

# ---------------------------------------------------------------- netlist ----------------
def components():
    """(ref, value, part, {pin: net}) for every part on the shield."""
    c = []
    add = lambda ref, val, part, pins: c.append((ref, val, part, pins))
    add("P1", "Mega POWER header", "1x8 male header (shield)",
        {"5V": "+5V", "GND1": "GND", "GND2": "GND", "VIN": "NC", "3V3": "NC",
         "RESET": "NC", "IOREF": "NC"})
    add("P2", "Mega ANALOG IN A0-A7", "1x8 male header (shield)",
        {"A%d" % i: "A%d" % i for i in range(8)})
    add("P3", "Mega ANALOG IN A8-A15", "1x8 male header (shield)",
        {"A%d" % i: "A%d" % i for i in range(8, 16)})
    add("P4", "Mega AREF", "(not connected: the firmware uses AVCC as reference)",
        {"AREF": "NC"})
    add("C7", "10 µF 16 V", "aluminium electrolytic, +5V bulk", {"+": "+5V", "-": "GND"})
    add("C8", "100 nF", "ceramic X7R, +5V decoupling", {"1": "+5V", "2": "GND"})
    # voltage channel
    add("J1", "9 V AC in", "2.1 mm barrel jack (AC only; label it)",
        {"TIP": "VAC_A", "SLEEVE": "VAC_B", "SW": "NC"})
    add("F1", "PTC 50 mA hold", "resettable fuse (e.g. Bourns MF-R005)",
        {"1": "VAC_A", "2": "VAC_AF"})
    add("JP1", "polarity, high side", "1x3 header + jumper (normal 1-2, swapped 2-3)",
        {"1": "VAC_AF", "2": "V_HI", "3": "VAC_B"})
    add("JP2", "polarity, low side", "1x3 header + jumper (normal 2-3, swapped 1-2)",
        {"1": "VAC_AF", "2": "BIAS_V", "3": "VAC_B"})
    add("R1", fmt_r(R_TOP) + " 1 %", "metal film 0.25 W, divider top", {"1": "V_HI", "2": "VDIV"})
    add("R2", fmt_r(R_BOT) + " 1 %", "metal film 0.25 W, divider bottom", {"1": "VDIV", "2": "BIAS_V"})
    add("R3", fmt_r(BIAS_R) + " 1 %", "metal film, bias (voltage channel)", {"1": "+5V", "2": "BIAS_V"})
    add("R4", fmt_r(BIAS_R) + " 1 %", "metal film, bias (voltage channel)", {"1": "BIAS_V", "2": "GND"})
    add("C1", "10 µF 16 V", "aluminium electrolytic, bias decoupling", {"+": "BIAS_V", "-": "GND"})
    add("C2", "100 nF", "ceramic X7R, bias decoupling", {"1": "BIAS_V", "2": "GND"})
    add("R5", fmt_r(R_FV) + " 1 %", "metal film, filter", {"1": "VDIV", "2": "A0"})
    add("C3", "10 nF", "ceramic C0G or X7R, filter", {"1": "A0", "2": "GND"})
    add("D1", "BAT85", "Schottky clamp to +5V", {"A": "A0", "K": "+5V"})
    add("D2", "BAT85", "Schottky clamp to GND", {"A": "GND", "K": "A0"})
    # shared bias of the current channels
    add("R6", fmt_r(BIAS_R) + " 1 %", "metal film, bias (current channels)", {"1": "+5V", "2": "BIAS_I"})
    add("R7", fmt_r(BIAS_R) + " 1 %", "metal film, bias (current channels)", {"1": "BIAS_I", "2": "GND"})
    add("C4", "10 µF 16 V", "aluminium electrolytic, bias decoupling", {"+": "BIAS_I", "-": "GND"})
    add("C5", "100 nF", "ceramic X7R, bias decoupling", {"1": "BIAS_I", "2": "GND"})
    add("C6", "100 µF 16 V (not fitted)", "optional: lowers BIAS_I ripple (accuracy.md)",
        {"+": "BIAS_I", "-": "GND"})
    for k in range(1, N_I + 1):
        a = "A%d" % k
        ct = "CT%d" % k
        add("JI%d" % k, "CT input %d" % k, "3.5 mm stereo jack (e.g. CUI SJ1-3523N)",
            {"TIP": ct, "RING": "NC", "SLEEVE": "BIAS_I"})
        add("RB%d" % k, fmt_r(R_BURDEN) + " 1 % (fit option)",
            "burden: fit for current-output CTs (SCT-013-000), leave out for "
            "voltage-output CTs (SCT-013-010/-005)", {"1": ct, "2": "BIAS_I"})
        add("RF%d" % k, fmt_r(R_FI) + " 1 %", "metal film, filter", {"1": ct, "2": a})
        add("CF%d" % k, "10 nF", "ceramic C0G or X7R, filter", {"1": a, "2": "GND"})
        add("DH%d" % k, "BAT85", "Schottky clamp to +5V", {"A": a, "K": "+5V"})
        add("DL%d" % k, "BAT85", "Schottky clamp to GND", {"A": "GND", "K": a})
    return c

def netlist_text():
    d = derived()
    comps = components()
    out = []
    w = out.append
    w("# megawatt analog front-end shield for the Arduino Mega 2560 -- netlist")
    w("# GENERATED by hardware/schematic.py from its design values; do not edit by hand.")
    w("# Drawing: hardware/schematic.svg. Arithmetic: hardware/sizing.md. Default gains:")
    w("# docs/analog-front-end.md and firmware/portable/afe.h.")
    w("#")
    w("# Mains is never connected to this board: the voltage arrives from an isolating")
    w("# plug-in AC-AC adapter (9 V AC) on J1, the currents from clamp-on CTs on JI1..JI15.")
    w("#")
    w("# Derived figures (formulas in hardware/sizing.md):")
    w("#   voltage: 230 V mains -> %.2f V rms adapter no-load -> x %.5f divider -> %.4f V rms at A0"
      % (230 * ADAPTER_VOC_PER_V, d["k_div"], d["pin_230"]))
    w("#            = %.2f mains volts per pin volt (firmware default 191.667) -> %.6f V/count"
      % (d["v_ratio"], d["v_per_count"]))
    w("#   current: %d:1 CT into %g ohm -> %.1f line amps per pin volt -> %.6f A/count"
      % (CT_TURNS, R_BURDEN, d["i_ratio"], d["a_per_count"]))
    w("#   bias: every pin sits at %.2f V (code 512); filters: voltage %.0f ohm x 10 nF"
      " (%.1f kHz, %.3f deg at 50 Hz), current %.0f ohm x 10 nF (%.1f kHz, %.3f deg)"
      % (d["bias"], d["r_src_v"], d["fc_v"] / 1e3, d["ph_v"], d["r_src_i"], d["fc_i"] / 1e3,
         d["ph_i"]))
    w("#")
    w("# Format: COMPONENT lines 'REF | VALUE | PART | PIN=NET ...', then NET lines")
    w("# 'NET name: REF.PIN ...'. NC = not connected. Channels k = 1..15 repeat the same")
    w("# six parts JIk RBk RFk CFk DHk DLk on nets CTk and Ak.")
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
    order = ["+5V", "GND", "VAC_A", "VAC_AF", "VAC_B", "V_HI", "VDIV", "BIAS_V", "BIAS_I"]
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
    s = Svg(1500, 1075, "megawatt analog front-end shield")
    s.text(30, 34, "megawatt — analog front-end shield for the Arduino Mega 2560 (1 voltage + up to 15 current inputs)", "h")
    s.text(30, 56, "Generated by hardware/schematic.py (netlist: hardware/schematic.net). Values give the default gains of "
           "docs/analog-front-end.md: 0.935872 V/count, 0.048828 A/count. Mains never reaches the board.", "s")

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
    s.text(jx + 17, top + 252, "2.1 mm jack", "s", "middle")
    s.text(jx + 17, top + 265, "“9 V AC ONLY”", "s", "middle")
    s.text(jx + 4, top + 95, "tip", "s")
    s.text(jx + 4, top + 225, "slv", "s")
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
    s.text(735, bus_v - 8, "BIAS_V = 2.50 V", "t", "middle")
    # bias column
    bx = 640
    s.dot(bx, bus_v)
    res_v(s, bx, bus_v - 95, bus_v, "R3", "10 kΩ", side=-1)
    vcc(s, bx, bus_v - 95)
    res_v(s, bx, bus_v, bus_v + 85, "R4", "10 kΩ", side=-1)
    gnd(s, bx, bus_v + 85)
    s.dot(700, bus_v)
    cap_v(s, 700, bus_v, bus_v + 85, "C1", "10 µF", polar=True)
    gnd(s, 700, bus_v + 85)
    s.dot(760, bus_v)
    cap_v(s, 760, bus_v, bus_v + 85, "C2", "100 nF")
    gnd(s, 760, bus_v + 85)
    # R5 -> A0 node
    a_x = 1010
    res_h(s, vdiv_x, 940, yv, "R5", fmt_r(R_FV))
    s.line(940, yv, 1230, yv)
    s.dot(a_x - 50, yv)
    cap_v(s, a_x - 50, yv, yv + 110, "C3", "10 nF", side=-1)
    gnd(s, a_x - 50, yv + 110)
    s.dot(a_x + 10, yv)
    diode_v(s, a_x + 10, yv - 70, yv, "D1", "BAT85", up=True)
    vcc(s, a_x + 10, yv - 70)
    s.dot(a_x + 70, yv)
    diode_v(s, a_x + 70, yv, yv + 110, "D2", "BAT85", up=True)
    gnd(s, a_x + 70, yv + 110)
    s.text(1220, yv - 6, "A0", "b", "end")
    s.text(1045, yv + 145, "A0 at 230 V: %.3f V rms (±%.2f V peak) on 2.50 V" % (d["pin_230"], d["pin_230"] * math.sqrt(2)), "s", "middle")
    s.text(1045, yv + 159, "= %.1f mains V per pin V → %.6f V/count" % (d["v_ratio"], d["v_per_count"]), "s", "middle")
    s.text(1045, yv + 173, "(firmware default 0.935872; adapter ±3 %: calibrate)", "s", "middle")
    s.text(1045, yv + 187, "R_src %.0f Ω × 10 nF: %.1f kHz, %.3f° at 50 Hz" % (d["r_src_v"], d["fc_v"] / 1e3, d["ph_v"]), "s", "middle")

    # ---------------- current channel ----------------
    top2 = 470
    s.text(30, top2 + 12, "CURRENT CHANNEL k (k = 1 … 15 → Ak) — drawn once, ×15 identical", "b")
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
    s.text(317, top2 + 286, "3.5 mm jack", "s", "middle")
    s.text(317, top2 + 299, "(ring n.c.)", "s", "middle")
    yt, ys = top2 + 110, top2 + 250
    ctx = 470
    s.line(334, yt, ctx, yt)
    s.dot(ctx, yt)
    s.text(ctx + 4, yt - 8, "CTk", "s")
    s.line(334, ys, 900, ys)
    res_v(s, ctx, yt, ys, "RBk", fmt_r(R_BURDEN) + " 1 %", side=1)
    s.dot(ctx, ys)
    s.text(ctx + 13, yt + 100, "fit for bare CTs (SCT-013-000);", "s")
    s.text(ctx + 13, yt + 113, "leave out for voltage-output", "s")
    s.text(ctx + 13, yt + 126, "CTs (SCT-013-010, -005)", "s")
    s.text(345, ys + 18, "BIAS_I = 2.50 V, shared by the 15 current channels", "t")
    # bias column for BIAS_I
    for x in (700, 760, 820, 900):
        s.dot(x, ys)
    res_v(s, 700, ys - 95, ys, "R6", "10 kΩ", side=1)
    vcc(s, 700, ys - 95)
    res_v(s, 700, ys, ys + 85, "R7", "10 kΩ", side=-1)
    gnd(s, 700, ys + 85)
    cap_v(s, 760, ys, ys + 85, "C4", "10 µF", polar=True)
    gnd(s, 760, ys + 85)
    cap_v(s, 820, ys, ys + 85, "C5", "100 nF")
    gnd(s, 820, ys + 85)
    cap_v(s, 900, ys, ys + 85, "C6", "100 µF, DNF", polar=True)
    gnd(s, 900, ys + 85)
    # RF -> Ak
    res_h(s, ctx, 600, yt, "RFk", fmt_r(R_FI) + " 1 %")
    s.line(600, yt, 1230, yt)
    s.dot(a_x - 50, yt)
    cap_v(s, a_x - 50, yt, yt + 110, "CFk", "10 nF", side=-1)
    gnd(s, a_x - 50, yt + 110)
    s.dot(a_x + 10, yt)
    diode_v(s, a_x + 10, yt - 70, yt, "DHk", "BAT85", up=True)
    vcc(s, a_x + 10, yt - 70)
    s.dot(a_x + 70, yt)
    diode_v(s, a_x + 70, yt, yt + 110, "DLk", "BAT85", up=True)
    gnd(s, a_x + 70, yt + 110)
    s.text(1220, yt - 6, "Ak", "b", "end")
    notes = ["2000:1 into 200 Ω = %.1f A per pin V" % d["i_ratio"],
             "→ %.6f A/count (firmware default)" % d["a_per_count"],
             "full scale ±2.4 V = 24 A peak;",
             "the ADC clips at ±2.5 V (25 A peak)",
             "R_src %.0f Ω × 10 nF: %.1f kHz, %.3f°" % (d["r_src_i"], d["fc_i"] / 1e3, d["ph_i"]),
             "at 50 Hz (V − I mismatch %.4f°)" % (d["ph_v"] - d["ph_i"])]
    for i, n in enumerate(notes):
        s.text(1002, yt + 140 + 14 * i, n, "s")

    # ---------------- Arduino Mega ----------------
    mx, my, mw_, mh = 1230, 80, 240, 760
    s.rect(mx, my, mw_, mh)
    s.text(mx + mw_ / 2, my + 24, "Arduino Mega 2560", "b", "middle")
    s.text(mx + mw_ / 2, my + 42, "(ATmega2560, 16 MHz)", "s", "middle")
    s.text(mx + mw_ / 2, my + 60, "ADC ref = AVCC (5 V)", "s", "middle")
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
    s.text(mx + 10, my + 296, "AREF: not connected", "m")
    s.text(mx + 10, my + 330, "+5V rail: C7 10 µF,", "s")
    s.text(mx + 10, my + 344, "C8 100 nF", "s")
    s.text(mx + 10, my + 380, "Power the Mega from a 9 V", "s")
    s.text(mx + 10, my + 394, "DC adapter on its own jack", "s")
    s.text(mx + 10, my + 408, "(AVCC from its regulator)", "s")
    s.text(mx + 10, my + 422, "or USB (see accuracy.md)", "s")
    s.text(mx + 10, my + 460, "USB → host (mw record)", "m")

    # ---------------- pin map ----------------
    ty = 880
    s.text(30, ty, "PIN MAP — the 14 current channels not drawn are identical to channel k above, with these parts:", "b")
    cols = ["channel", "ADC pin", "input", "burden", "filter R", "filter C", "clamps", "CT net"]
    rows = [["0 (V)", "A0", "J1", "—", "R5", "C3", "D1, D2", "VDIV"]]
    for k in range(1, N_I + 1):
        rows.append([str(k), "A%d" % k, "JI%d" % k, "RB%d" % k, "RF%d" % k, "CF%d" % k,
                     "DH%d, DL%d" % (k, k), "CT%d" % k])
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
    s.text(30, 1058, "Default firmware map: A0 voltage, A1–A5 currents (4 nodes + switch); `CH 0 1 2 … 15` enables up to 15. "
           "Every channel's gain and phase: `CAL <ch> <gain> <phase>` then `SAVE` (docs/protocol.md).", "s")
    return s.render()

# ---------------------------------------------------------------- wiring.svg -------------
def wiring_svg():
    s = Svg(1200, 660, "megawatt: clamping a lead")
    s.text(30, 34, "Clamping a lead: one conductor through the CT, never the whole cable", "h")
    s.text(30, 56, "Both panels show a purpose-made breakout (built and tested by a qualified person): "
           "the sheath is opened inside a closed box so that L runs on its own.", "s")

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
            s.poly([(x0 + 150, y0 + 100), (x0 + 180, y0 + 100), (x0 + 180, y0 + 60),
                    (x0 + 340, y0 + 60), (x0 + 340, y0 + 100), (x0 + 370, y0 + 100)], "mains")
            s.poly([(x0 + 150, y0 + 120), (x0 + 370, y0 + 120)], "mains")
            s.poly([(x0 + 150, y0 + 140), (x0 + 370, y0 + 140)])
            s.line(x0 + 370, y0 + 100, x0 + 460, y0 + 100, "mains")
            s.line(x0 + 370, y0 + 120, x0 + 460, y0 + 120, "mains")
            s.line(x0 + 370, y0 + 140, x0 + 460, y0 + 140)
            s.add('<ellipse class="good" cx="%g" cy="%g" rx="14" ry="26"/>' % (x0 + 260, y0 + 60))
            s.add('<path class="fill" d="M%g,%g L%g,%g L%g,%g Z"/>' % (x0 + 290, y0 + 54, x0 + 290, y0 + 66, x0 + 304, y0 + 60))
            s.text(x0 + 230, y0 + 30 + 0, "", "s")
            s.text(x0 + 260, y0 + 236, "CT on L only, its arrow towards the load", "g", "middle")
            s.text(x0 + 260, y0 + 252, "(on N instead: arrow towards the socket)", "s", "middle")
            # CT cable out to the meter
            s.poly([(x0 + 260, y0 + 86), (x0 + 260, y0 + 95)], "thin")
            s.poly([(x0 + 274, y0 + 60), (x0 + 300, y0 + 40), (x0 + 420, y0 + 40), (x0 + 420, y0 + 0)], "w")
            s.text(x0 + 426, y0 + 8, "3.5 mm plug → meter JIk", "s")
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
    }

def check():
    ok = True
    d = derived()
    a = afe_values()
    def expect(what, got, want, tol):
        nonlocal ok
        good = abs(got / want - 1) <= tol
        print("%-44s %-12.6g firmware %-10.6g %s" % (what, got, want, "ok" if good else "MISMATCH"))
        ok = ok and good
    expect("reference (V)", VREF, a["vref"], 0)
    expect("bias (V)", d["bias"], a["bias"], 0)
    expect("current: line A per pin V", d["i_ratio"], a["i_ratio"], 1e-9)
    # the adapter is an assumption (+-3 %): the divider must land within 0.5 % of the ratio
    expect("voltage: mains V per pin V (9 V adapter)", d["v_ratio"], a["v_ratio"], 5e-3)
    mism = abs(d["ph_v"] - d["ph_i"])
    print("%-44s %-12.4f limit    %-10g %s" % ("filter phase mismatch V-I at 50 Hz (deg)", mism, 0.01,
                                              "ok" if mism < 0.01 else "TOO LARGE"))
    ok = ok and mism < 0.01
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
