"""mwcrc — the wire protocol's line CRC for the Python test tools (compare.py,
hostile_meter.py): CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF, no reflection,
no final XOR) over the line's body, as firmware/portable/crc16.c computes it and
docs/protocol.md specifies (check value: crc16(b"123456789") == 0x29B1)."""


def crc16(data):
    crc = 0xFFFF
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc
