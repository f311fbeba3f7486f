#!/usr/bin/env python3
"""compare.py — what a recording through the fault proxy stored, against what the board sent.

Usage: compare.py FRAMES_LOG TAP FAULTPROXY_LOG RUNDIR

FRAMES_LOG is `mw vmeter --log-frames` (every line the board sent, with the host time),
TAP and FAULTPROXY_LOG are the proxy's --tap (the bytes delivered to the collector) and
--log (its events: client opens and closes, cuts and restores, with the offset in TAP and the
bytes the collector had not read yet), RUNDIR the run `mw record` made.

The checker is independent of mw's code: it splits the delivered bytes into lines with its
own CRC-16/CCITT-FALSE check (docs/protocol.md), a fresh decoder per connection, and counts a
line as having reached the host only when the collector had read all of it before the link
was cut or the port closed. Every stored window is matched to the board's line with the
same sequence number and the same values (several such lines, after board resets: the one
sent closest in time; none: the closest one, and the window counts as corrupted); matching
does not rely on the run's time stamps, which a board falling behind real time on a loaded
machine can pull seconds away from the board's log.

Prints key=value lines (windows, and samples = windows x channels):
  board_windows        W lines the board sent while the collector was connected
  delivered_windows    W lines that reached the collector intact (CRC valid, equal to the
                       board's line, read before a cut or close)
  crc_collisions       lines with a valid CRC that differ from every line the board sent
  stored_windows, stored_samples
  corrupted_windows, corrupted_samples   stored ones that differ from the board's line,
                                         or match none
  duplicated_windows, duplicated_samples stored more than once
  lost_after_arrival_windows, lost_after_arrival_samples
                       delivered intact but not stored (the goal: 0)
  lost_on_link_windows board_windows - delivered_windows (the faults' doing)
  cuts_while_connected, disconnect_gaps, reconnects, reconnect_ms_max, reconnect_ms_mean
"""
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also when loaded by path
from mwcrc import crc16  # noqa: E402 (the protocol CRC, shared with the other tool)


def valid_line(line):
    """BODY*XXXX with the CRC of BODY: returns the line, or None."""
    if len(line) < 5 or line[-5:-4] != b"*":
        return None
    hexpart = line[-4:]
    if not re.fullmatch(rb"[0-9A-F]{4}", hexpart):
        return None
    return line if crc16(line[:-5]) == int(hexpart, 16) else None


def lines_of(stream, start, read_end):
    """Valid lines in stream (a fresh decoder at start) whose terminator lies before read_end,
    as (line, end_offset)."""
    out, buf, overflow = [], bytearray(), False
    for i in range(start, len(stream)):
        b = stream[i]
        if b in (10, 13):
            if not overflow and buf:
                v = valid_line(bytes(buf))
                if v is not None and i < read_end:
                    out.append((v, i))
            buf.clear()
            overflow = False
        elif overflow:
            continue
        elif len(buf) >= 1024:
            overflow, buf = True, bytearray()
        else:
            buf.append(b)
    return out


def parse_w(body):
    """W body -> dict of the fields the store keeps."""
    parts = body.split(";")
    head = parts[0].split(",")
    w = {
        "seq": int(head[1]),
        "t0": int(head[2]),
        "t1": int(head[3]),
        "flags": int(head[4], 16),
        "vrms": int(head[9]),
        "ch": [],
    }
    for g in parts[1:]:
        p, i, pf, e = (int(x) for x in g.split(","))
        w["ch"].append((p, i, pf, e))
    return w


def main():
    frames_log, tap_path, fp_log, rundir = sys.argv[1:5]
    # the board's lines
    board = []  # (t_ns, line bytes)
    with open(frames_log, "rb") as f:
        for raw in f:
            sp = raw.rstrip(b"\n").split(b" ", 1)
            if len(sp) == 2 and sp[0].isdigit():
                board.append((int(sp[0]), sp[1]))
    board_set = {line for _, line in board}
    board_w = [(t, line) for t, line in board if line.startswith(b"W,")]
    by_seq, by_line = {}, {}
    for idx, (t, line) in enumerate(board_w):
        by_line.setdefault(line, []).append(idx)
        w = parse_w(line.split(b"*")[0].decode())
        by_seq.setdefault(w["seq"], []).append((t, idx, w))

    # the proxy's events: connections [open, cut/close)
    events = []
    with open(fp_log) as f:
        for raw in f:
            if raw.startswith("event "):
                kv = dict(x.split("=", 1) for x in raw.split()[2:])
                events.append((raw.split()[1], kv))
    conns, cur = [], None
    restores, reconnect_ms = [], []
    cuts_connected = 0
    for kind, kv in events:
        if kind == "open":
            cur = {"start": int(kv["offset"]), "t_open": int(kv["t_ns"])}
            if restores:
                reconnect_ms.append((int(kv["t_ns"]) - restores[-1]) / 1e6)
                restores.clear()
        elif kind in ("cut", "close"):
            if kind == "cut" and int(kv.get("clients", "0")) > 0:
                cuts_connected += 1
            if cur is not None:
                cur["end"] = int(kv["offset"])
                cur["read_end"] = int(kv["offset"]) - int(kv.get("unread", "0"))
                cur["t_end"] = int(kv["t_ns"])
                conns.append(cur)
                cur = None
        elif kind == "restore":
            restores.append(int(kv["t_ns"]))
    with open(tap_path, "rb") as f:
        tap = f.read()
    if cur is not None:  # the proxy stopped first: the collector read what it could
        cur["end"] = cur["read_end"] = len(tap)
        cur["t_end"] = 1 << 62
        conns.append(cur)

    delivered, collisions = set(), 0
    for c in conns:
        for line, end in lines_of(tap[: c["end"]], c["start"], c["read_end"]):
            if line not in board_set:
                collisions += 1
                sys.stderr.write("compare: CRC-valid line at tap offset %d that the board "
                                 "never sent: %r\n" % (end, line))
            elif line.startswith(b"W,"):
                # which of the board's lines: the one sent in this connection
                t_cands = [i for i in by_line[line] if board_w[i][0] <= c["t_end"]]
                if t_cands:
                    delivered.add(t_cands[-1])
    board_connected = sum(
        1 for t, _ in board_w if any(c["t_open"] <= t < c["t_end"] for c in conns)
    )

    db = sqlite3.connect("file:%s/trace.db?mode=ro" % rundir, uri=True)
    rows = db.execute(
        "select segment, seq, channel, meter_t0_us, meter_t1_us, t1_ns, flags, vrms_mv, "
        "power_mw, irms_ua, pf_milli, meter_energy_mj from samples order by segment, seq, channel"
    ).fetchall()
    nchan = db.execute("select count(*) from channels").fetchone()[0]
    gaps = db.execute("select count(*) from gaps where reason='disconnected'").fetchone()[0]
    windows = {}
    for r in rows:
        windows.setdefault((r[0], r[1]), []).append(r)

    matched = {}  # board index -> times stored
    corrupted_w = corrupted_s = 0
    stored_samples = len(rows)
    def mismatches(rs, w):
        bad = 0
        for r in rs:
            ch = r[2]
            if ch > len(w["ch"]):
                bad += 1
                continue
            want = (w["t0"], w["t1"], w["flags"], w["vrms"]) + w["ch"][ch - 1]
            if tuple(r[3:5]) + tuple(r[6:]) != want:
                bad += 1
        return bad

    for (seg, seq), rs in windows.items():
        t1_ns = rs[0][5]
        # the board's line with this sequence number and exactly these values (nearest in
        # time if several: after resets), else the nearest one, to count what differs
        cands = sorted(by_seq.get(seq, []), key=lambda c: abs(c[0] - t1_ns))
        exact = [c for c in cands if mismatches(rs, c[2]) == 0]
        best = exact[0] if exact else (cands[0] if cands else None)
        if best is None:
            corrupted_w += 1
            corrupted_s += len(rs)
            continue
        _, idx, w = best
        bad = mismatches(rs, w)
        if bad:
            corrupted_w += 1
            corrupted_s += bad
        matched[idx] = matched.get(idx, 0) + 1
    dup_w = sum(n - 1 for n in matched.values() if n > 1)
    lost_after = [i for i in delivered if i not in matched]

    out = {
        "board_windows": board_connected,
        "delivered_windows": len(delivered),
        "crc_collisions": collisions,
        "stored_windows": len(windows),
        "stored_samples": stored_samples,
        "channels": nchan,
        "corrupted_windows": corrupted_w,
        "corrupted_samples": corrupted_s,
        "duplicated_windows": dup_w,
        "duplicated_samples": dup_w * nchan,
        "lost_after_arrival_windows": len(lost_after),
        "lost_after_arrival_samples": len(lost_after) * nchan,
        "lost_on_link_windows": board_connected - len(delivered),
        "cuts_while_connected": cuts_connected,
        "disconnect_gaps": gaps,
        "reconnects": len(reconnect_ms),
        "reconnect_ms_max": "%.0f" % max(reconnect_ms) if reconnect_ms else "-",
        "reconnect_ms_mean": "%.0f" % (sum(reconnect_ms) / len(reconnect_ms))
        if reconnect_ms
        else "-",
    }
    for k, v in out.items():
        print("%s=%s" % (k, v))
    if lost_after:
        sys.stderr.write(
            "compare: delivered but not stored: %s\n"
            % ", ".join(board_w[i][1][:24].decode() for i in sorted(lost_after)[:10])
        )


if __name__ == "__main__":
    main()
