#!/usr/bin/env python3
"""clk_probe.py ADDR:PORT HOST [SECRET_HEX]: one clock exchange request (record_hosts.h's
mw_clk_request) to mw record --meter-hosts' socket, with the given 128-bit secret (none: zeros,
as someone who read the port from ps would send); prints "answered" (a reply of the right size
and magic carrying that secret) or "silent" (nothing in 1 s). Used by test_multihost.sh."""
import socket
import struct
import sys

addr, port = sys.argv[1].rsplit(":", 1)
host = sys.argv[2].encode()
key = bytes.fromhex(sys.argv[3]) if len(sys.argv) > 3 else bytes(16)
MAGIC = 0x4D57434B
req = struct.pack("=II16s64sI", MAGIC, 12345, key, host, 0)
ai = socket.getaddrinfo(addr, int(port), type=socket.SOCK_DGRAM)[0]
s = socket.socket(ai[0], socket.SOCK_DGRAM)
s.settimeout(1.0)
s.sendto(req, ai[4])
try:
    data = s.recv(256)
except socket.timeout:
    print("silent")
    sys.exit(0)
if len(data) == 40:
    magic, seq, rkey = struct.unpack_from("=II16s", data)
    print("answered" if magic == MAGIC and seq == 12345 and rkey == key else "bad answer")
else:
    print("bad answer %d" % len(data))
