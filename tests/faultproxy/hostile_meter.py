#!/usr/bin/env python3
"""hostile_meter.py — a fake meter on a pseudo-terminal that attacks the host's parser.

Usage: hostile_meter.py LINK SCENARIO [--seconds S] [--log FILE]

Makes a pty, links its slave at LINK (like `mw vmeter --link`) and plays SCENARIO on it,
starting (but for endless) like a board after its reset: a boot line, its identification,
then windows at 4 Hz; it answers ID and CAL?. It holds the slave open itself, so what it
sends before the host opens the port waits there. It is a test of the host (host/protocol.c, host/meter.c, mw record), not of the firmware: a
device on the port may send anything.

Scenarios:
  endless        random bytes without a line end, as fast as the pty takes them
  endless-after  a valid meter until 3 s after the host's first command, then endless
                 printable bytes without a line end
  flood          a valid meter until 3 s after the host's first command, then valid windows
                 of 1 channel as fast as the pty takes them, every one a new segment (FIRST
                 flag): the most state a valid-looking stream can make
  flood-seq      the same, but one segment: sequence numbers and meter time go on
  bigfields      a valid meter (4 Hz, 1 channel) whose every other line is hostile: huge
                 and overflowing numbers, over-long lines with a valid CRC, too many
                 channels, NUL bytes, garbage (all malformed: power 777777 mW), and
                 meter time near 2^62, and well-formed but absurd windows (power
                 555555 mW): meter time at 2^50 (the most the host takes),
                 sequence numbers at 2^32 - 1, extreme values, energy counters near 2^63
                 with FIRST flags, so that the host's running energy would overflow
  name:CASE      a valid meter whose identification carries a hostile firmware version
                 and build id: quotes, sql, path, format, escape, long, newline, nul

Malformed window lines carry power 777777 mW (or fields that cannot parse), well-formed
absurd ones 555555 mW, valid ones 100000 mW, so a test can tell from the store which were
taken. --log FILE gets one line per
line sent: "valid W SEQ" / "hostile KIND" / "ident".
"""
import os
import random
import select
import sys
import time
import tty

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also when loaded by path
from mwcrc import crc16  # noqa: E402 (the protocol CRC, shared with the other tool)


def line(body):
    """BODY*CRC\\r\\n, body as bytes"""
    if isinstance(body, str):
        body = body.encode("latin-1")
    return body + b"*%04X\r\n" % crc16(body)


NAMES = {
    "quotes": ("0.1'\"`", "b\"'); x"),
    "sql": ("0.1');DROP TABLE", "x';DELETE FROM samples;--"),
    "path": ("../../../../tmp", "../../mw-hostile-pwned"),
    "format": ("%s%s%n%n%x", "%99999999d%n"),
    "escape": ("0.1\x1b[2J\x1b]0;pwn\x07", "\x1b[31mred\x1b[0m"),
    "long": ("9" * 40, "b" * 200),
    "newline": ("0.1\nI,megawatt", "evil\rB,1,0"),
    "nul": ("0.1\x00evil", "b\x00"),
}


class Meter:
    def __init__(self, link, log):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        path = os.ttyname(self.slave)
        tmp = "%s.%d.tmp" % (link, os.getpid())
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(path, tmp)
        os.rename(tmp, link)
        self.link = link
        self.log = open(log, "w") if log else None
        self.seq = 0
        self.inbuf = b""
        self.first_cmd = None

    def note(self, what):
        if self.log:
            self.log.write(what + "\n")
            self.log.flush()

    def send(self, data, block=True):
        """write all of data (the pty may be full: wait for room)"""
        while data:
            try:
                n = os.write(self.master, data)
                data = data[n:]
            except BlockingIOError:
                if not block:
                    return
                select.select([], [self.master], [], 0.05)

    def commands(self):
        """answer ID and CAL? like the firmware"""
        try:
            self.inbuf += os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return
        while b"\n" in self.inbuf or b"\r" in self.inbuf:
            i = min(x for x in (self.inbuf.find(b"\r"), self.inbuf.find(b"\n")) if x >= 0)
            cmd, self.inbuf = self.inbuf[:i].strip(), self.inbuf[i + 1 :]
            if cmd and self.first_cmd is None:
                self.first_cmd = time.monotonic()
            if cmd == b"ID":
                self.send(self.ident)
                self.note("ident")
            elif cmd.startswith(b"CAL? "):
                k = int(cmd[5:])
                self.send(line("C,%d,%s,0.000" % (k, "0.935872" if k == 0 else "0.048828")))

    def window(self, nchan=1, flags=0x08, p_mw=100000, e_mj=None, seq=None):
        seq = self.seq if seq is None else seq
        t0, t1 = seq * 250000, (seq + 1) * 250000
        if e_mj is None:
            e_mj = seq * 25
        body = "W,%d,%d,%d,%X,401,0,0,50000,230000" % (seq, t0, t1, flags)
        for _ in range(nchan):
            body += ";%d,434782,1000,%d" % (p_mw, e_mj)
        return line(body)


def ident_line(fw="0.1.0", build="hostile", nchan=1):
    pins = ":".join("A%d" % k for k in range(nchan + 1))
    return line("I,megawatt,%s,%s,atmega2560,4,250,%d,%s,DEFAULT,-" % (fw, build, nchan, pins))


def hostile_windows(m):
    """(kind, bytes) of lines no host should store"""
    s = m.seq
    big = "9" * 900
    yield "huge-field", line("W,%s,0,250000,8,401,0,0,50000,230000;777777,1,1000,1" % big)
    yield "seq-overflow", line("W,4294967296,0,250000,8,401,0,0,50000,230000;777777,1,1000,1")
    yield "p-overflow", line("W,%d,%d,%d,8,401,0,0,50000,230000;2147483648,1,1000,1"
                             % (s, s * 250000, (s + 1) * 250000))
    yield "e-overflow", line("W,%d,%d,%d,8,401,0,0,50000,230000;777777,1,1000,9223372036854775808"
                             % (s, s * 250000, (s + 1) * 250000))
    yield "overlong", line("W,%d,0,250000,8,401,0,0,50000,230000" % s + ";777777,1,1000,1" * 400)
    yield "16-channels", line("W,%d,0,250000,8,401,0,0,50000,230000" % s + ";777777,1,1000,1" * 16)
    yield "t1-before-t0", line("W,%d,250000,0,8,401,0,0,50000,230000;777777,1,1000,1" % s)
    yield "negative-seq", line("W,-1,0,250000,8,401,0,0,50000,230000;777777,1,1000,1")
    yield "pf-range", line("W,%d,0,250000,8,401,0,0,50000,230000;777777,1,5000,1" % s)
    yield "nul", line(b"W,%d,0,250000,8,401,0,0,50000,230000;777777,1,1000,1\x00junk" % s)
    yield "bad-crc", b"W,%d,0,250000,8,401,0,0,50000,230000;777777,1,1000,1*0000\r\n" % s
    yield "garbage", bytes(random.getrandbits(8) for _ in range(3000))
    yield "no-star", b"W,%d,0,250000,8,401,0,0,50000,230000;777777,1,1000,1\r\n" % s
    # well-formed, absurd: the host may store them, but must not misbehave
    yield "time-overflow", line("W,%d,%d,%d,8,401,0,0,50000,230000;777777,1,1000,1"
                                % (s, (1 << 62) - 500000, (1 << 62) - 250000))
    yield "absurd-time", line("W,%d,%d,%d,8,401,0,0,50000,230000;555555,1,1000,1"
                              % (s, (1 << 50) - 250000, 1 << 50))
    yield "absurd-seq", line("W,4294967295,0,250000,8,401,0,0,50000,230000;555555,1,1000,1")
    yield "absurd-values", line("W,%d,0,250000,FFFFFFFF,4294967295,4294967295,FFFFFFFF,"
                                "-2147483648,2147483647;555555,2147483647,-2000,"
                                "-9223372036854775808" % s)


def main():
    args = sys.argv[1:]
    seconds, log = 60.0, None
    if "--seconds" in args:
        i = args.index("--seconds")
        seconds = float(args[i + 1])
        del args[i : i + 2]
    if "--log" in args:
        i = args.index("--log")
        log = args[i + 1]
        del args[i : i + 2]
    link, scenario = args
    random.seed(1)
    m = Meter(link, log)
    fw, build = "0.1.0", "hostile"
    if scenario.startswith("name:"):
        fw, build = NAMES[scenario[5:]]
    m.ident = ident_line(fw, build)
    if scenario != "endless":  # as a board after its reset: boot line, identification
        m.send(line("B,1,1") + m.ident)
        m.note("ident")
    end = time.monotonic() + seconds
    start = time.monotonic()
    next_w = start + 0.25
    hostile = None
    try:
        while time.monotonic() < end:
            if scenario == "endless":
                m.send(bytes(random.getrandbits(8) | 0x80 for _ in range(4096)), block=False)
                select.select([], [m.master], [], 0.01)
                continue
            if (scenario == "endless-after" and m.first_cmd is not None
                    and time.monotonic() > m.first_cmd + 3):
                m.send(b"A" * 4096, block=False)
                select.select([], [m.master], [], 0.01)
                continue
            if scenario in ("flood", "flood-seq"):
                m.commands()
                if m.first_cmd is not None and time.monotonic() > m.first_cmd + 3:
                    if scenario == "flood":
                        chunk = b"".join(m.window(flags=0x18, seq=0) for _ in range(50))
                    else:
                        chunk = b"".join(m.window(seq=m.seq + k) for k in range(50))
                        m.seq += 50
                    m.send(chunk, block=False)
                    select.select([m.master], [m.master], [], 0.01)
                    continue
            r, _, _ = select.select([m.master], [], [], max(0, next_w - time.monotonic()))
            if r:
                m.commands()
            if time.monotonic() >= next_w:
                next_w += 0.25
                if scenario == "bigfields" and m.seq % 2 == 1:
                    if hostile is None:
                        hostile = hostile_windows(m)
                    kind, data = next(hostile, (None, None))
                    if kind is None:
                        hostile = hostile_windows(m)
                        kind, data = next(hostile)
                    m.send(data)
                    m.note("hostile " + kind)
                    if kind == "garbage":
                        m.send(b"\r\n")
                    # a FIRST window with a counter near 2^63: the host's running energy
                    # (base + counter) would overflow on the next one
                    if kind == "e-overflow":
                        m.send(m.window(flags=0x18, p_mw=100000, e_mj=(1 << 63) - 10))
                        m.note("valid W %d" % m.seq)
                        m.seq += 1
                        continue
                m.send(m.window())
                m.note("valid W %d" % m.seq)
                m.seq += 1
    finally:
        try:
            if os.path.islink(link) and os.readlink(link) == os.ttyname(m.slave):
                os.unlink(link)
        except OSError:
            pass


if __name__ == "__main__":
    main()
