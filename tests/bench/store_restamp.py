#!/usr/bin/env python3
# store_restamp.py — what the end's restamp writes for W windows of 15 channels (schema v4
# samples with both indexes; docs/performance.md): one UPDATE per window inside a SAVEPOINT
# (mw_store_restamp before issue 22) against one UPDATE of the segment with a mapping
# function, in autocommit (after). Bytes: this process's wchar. Not run by make bench.
import sqlite3, os, sys, tempfile
def wchar():
    for l in open('/proc/self/io'):
        if l.startswith('wchar:'): return int(l.split()[1])
COLS = """channel INTEGER NOT NULL, segment INTEGER NOT NULL, seq INTEGER NOT NULL,
 meter_t0_us INTEGER NOT NULL, meter_t1_us INTEGER NOT NULL, t0_ns INTEGER NOT NULL,
 t1_ns INTEGER NOT NULL, uncertainty_ns INTEGER NOT NULL, power_mw INTEGER NOT NULL,
 vrms_mv INTEGER NOT NULL, irms_ua INTEGER NOT NULL, pf_milli INTEGER NOT NULL,
 meter_energy_mj INTEGER NOT NULL, energy_mj INTEGER NOT NULL, flags INTEGER NOT NULL"""
def make(W):
    p = os.path.join(tempfile.gettempdir(), 'mw-store-restamp.db')
    for s in ('', '-wal', '-shm'):
        if os.path.exists(p+s): os.unlink(p+s)
    db = sqlite3.connect(p, isolation_level=None)
    db.execute('PRAGMA journal_mode=WAL'); db.execute('PRAGMA synchronous=NORMAL')
    db.execute(f'CREATE TABLE samples ({COLS}, PRIMARY KEY (segment, seq, channel)) WITHOUT ROWID')
    db.execute("CREATE INDEX a ON samples(channel,t1_ns)"); db.execute("CREATE INDEX b ON samples(t1_ns)")
    t = 1_764_000_000_000_000_000
    ins = f"INSERT INTO samples VALUES ({','.join('?'*15)})"
    for s in range(W // 4):
        db.execute('BEGIN')
        for k in range(4):
            seq = s*4+k; t0 = t + seq*250_016_000
            for c in range(1, 16):
                db.execute(ins, (c, 0, seq, seq*250016, seq*250016+250016, t0, t0+250_016_000, 1, 1, 1, 1, 1, 1, 1, 0))
        db.execute('COMMIT')
    return db
def today(db):
    db.execute('BEGIN IMMEDIATE'); db.execute('SAVEPOINT restamp')
    wins = db.execute('SELECT seq, meter_t0_us, meter_t1_us FROM samples WHERE segment=0 GROUP BY seq, meter_t0_us, meter_t1_us ORDER BY seq').fetchall()
    for seq, a, b in wins:
        db.execute('UPDATE samples SET t0_ns=?, t1_ns=?, uncertainty_ns=? WHERE segment=0 AND seq=? AND meter_t0_us=? AND meter_t1_us=?',
                   (1_764_000_000_000_000_000 + a*1000 + 7, 1_764_000_000_000_000_000 + b*1000 + 7, 5, seq, a, b))
    db.execute('RELEASE restamp'); db.execute('COMMIT')
def proposal(db):
    db.create_function('mw_map', 1, lambda us: 1_764_000_000_000_000_000 + us*1000 + 7, deterministic=True)
    db.execute('UPDATE samples SET t0_ns=mw_map(meter_t0_us), t1_ns=mw_map(meter_t1_us), uncertainty_ns=5 WHERE segment=0')
print('| windows (15 channels) | today: per-window UPDATE in a SAVEPOINT | one UPDATE, mapping function, autocommit |')
print('|---|---|---|')
for W in (240, 960, 3840):
    r = []
    for f in (today, proposal):
        db = make(W); w0 = wchar(); f(db); db.execute('PRAGMA wal_checkpoint(TRUNCATE)'); r.append(wchar() - w0); db.close()
    print(f'| {W} | {r[0]/1e6:.2f} MB ({r[0]/W/15:.0f} B/sample) | {r[1]/1e6:.2f} MB ({r[1]/W/15:.0f} B/sample) |')
