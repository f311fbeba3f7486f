#!/usr/bin/env python3
"""clk_probe.py ADDR:PORT HOST KEY_HEX CASE: clock exchange requests (record_hosts.h's
mw_clk_request) to mw record --meter-hosts' socket, MAC'd here with Python's own hmac
(HMAC-SHA-512 truncated to 256 bits, what libsodium's crypto_auth is), so that the check does
not share the code under test. CASE:
  genuine     one request with a fresh seq and the right tag, then the very same datagram again
              (a replay): prints the two outcomes, e.g. "answered silent"
  wrong-tag   a request whose tag has one bit flipped
  no-key      a request tagged under an all-zero key (someone who read the port from ps)
  altered     a genuine request's seq changed after it was tagged
Each outcome: "answered" (a reply of the right size and magic, to this seq, whose tag
verifies under KEY), "silent" (nothing in 1 s) or "bad answer ...". Used by
test_multihost.sh."""
import hashlib
import hmac
import socket
import struct
import sys
import time

addr, port = sys.argv[1].rsplit(":", 1)
host = sys.argv[2].encode()
key = bytes.fromhex(sys.argv[3])
case = sys.argv[4]
MAGIC = 0x4D57434B


def tag(k, body):
    return hmac.new(k, body, hashlib.sha512).digest()[:32]


def request(k, seq):
    body = struct.pack("=IIQ64s", MAGIC, 0, seq, host)
    return body + tag(k, body)


ai = socket.getaddrinfo(addr, int(port), type=socket.SOCK_DGRAM)[0]
s = socket.socket(ai[0], socket.SOCK_DGRAM)
s.settimeout(1.0)


def probe(dgram):
    seq = struct.unpack_from("=Q", dgram, 8)[0]
    s.sendto(dgram, ai[4])
    try:
        data = s.recv(256)
    except socket.timeout:
        return "silent"
    if len(data) != 64:
        return "bad answer %d" % len(data)
    magic, _stop, rseq = struct.unpack_from("=IIQ", data)
    ok = magic == MAGIC and rseq == seq and hmac.compare_digest(tag(key, data[:32]), data[32:])
    return "answered" if ok else "bad answer"


seq = time.monotonic_ns()  # the agents' seqs come from the same clock: theirs stay above it
if case == "genuine":
    d = request(key, seq)
    print(probe(d), probe(d))
elif case == "wrong-tag":
    d = bytearray(request(key, seq))
    d[-1] ^= 1
    print(probe(bytes(d)))
elif case == "no-key":
    print(probe(request(bytes(32), seq)))
elif case == "altered":
    d = bytearray(request(key, seq))
    d[8:16] = struct.pack("=Q", seq + 1)
    print(probe(bytes(d)))
else:
    sys.exit("clk_probe.py: unknown case " + case)
