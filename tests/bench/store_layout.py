#!/usr/bin/env python3
# store_layout.py [SECONDS] — what SQLite writes per stored sample for layouts of the run
# store's samples (docs/performance.md, "The store's write amplification"): 15 channels at
# 4 Hz per meter (METERS=N in the environment: N meters in one store), one transaction a
# second for SECONDS (default 60), then a one-statement restamp of every row and close; WAL,
# synchronous=NORMAL as host/store.c. Bytes and write calls: this process's /proc/self/io.
# A scratch file in /tmp; not run by make bench.
import sqlite3, os, sys, tempfile
def wchar():
    for l in open('/proc/self/io'):
        if l.startswith('wchar:'): return int(l.split()[1])
def syscw():
    for l in open('/proc/self/io'):
        if l.startswith('syscw:'): return int(l.split()[1])
COLS = """channel INTEGER NOT NULL, segment INTEGER NOT NULL, seq INTEGER NOT NULL,
 meter_t0_us INTEGER NOT NULL, meter_t1_us INTEGER NOT NULL, t0_ns INTEGER NOT NULL,
 t1_ns INTEGER NOT NULL, uncertainty_ns INTEGER NOT NULL, power_mw INTEGER NOT NULL,
 vrms_mv INTEGER NOT NULL, irms_ua INTEGER NOT NULL, pf_milli INTEGER NOT NULL,
 meter_energy_mj INTEGER NOT NULL, energy_mj INTEGER NOT NULL, flags INTEGER NOT NULL"""
IDX = {'both': ["CREATE INDEX a ON samples(channel,t1_ns)", "CREATE INDEX b ON samples(t1_ns)"],
       'chan': ["CREATE INDEX a ON samples(channel,t1_ns)"],
       'time': ["CREATE INDEX b ON samples(t1_ns)"], 'none': []}
def run(secs, page, idx, ckpt, restamp=True, layout='rows', meters=1):
    p = os.path.join(tempfile.gettempdir(), 'mw-store-layout.db')
    for s in ('', '-wal', '-shm'):
        if os.path.exists(p+s): os.unlink(p+s)
    w0 = wchar()
    db = sqlite3.connect(p, isolation_level=None)
    db.execute(f'PRAGMA page_size={page}')
    db.execute('PRAGMA journal_mode=WAL'); db.execute('PRAGMA synchronous=NORMAL')
    db.execute(f'PRAGMA wal_autocheckpoint={ckpt}')
    if layout == 'rows':
        db.execute(f'CREATE TABLE samples ({COLS}, PRIMARY KEY (segment, seq, channel)) WITHOUT ROWID')
        for i in IDX[idx]: db.execute(i)
    elif layout == 'v6':  # schema 6 (host/store.c): one row per window, 16 slots of 7 columns
        slots = ''.join(f', p{k} INTEGER, v{k} INTEGER, i{k} INTEGER, pf{k} INTEGER, me{k} INTEGER, e{k} INTEGER, f{k} INTEGER' for k in range(1, 17))
        db.execute(f"""CREATE TABLE windows (id INTEGER PRIMARY KEY, meter INTEGER NOT NULL, segment INTEGER NOT NULL,
          seq INTEGER NOT NULL, meter_t0_us INTEGER NOT NULL, meter_t1_us INTEGER NOT NULL,
          t0_ns INTEGER NOT NULL, t1_ns INTEGER NOT NULL, uncertainty_ns INTEGER NOT NULL,
          channel0 INTEGER NOT NULL{slots})""")
    elif layout == 'append':  # one row per window in arrival order (rowid), blob of channels
        db.execute("""CREATE TABLE windows (id INTEGER PRIMARY KEY, segment INTEGER NOT NULL, seq INTEGER NOT NULL,
          meter_t0_us INTEGER NOT NULL, meter_t1_us INTEGER NOT NULL, t0_ns INTEGER NOT NULL,
          t1_ns INTEGER NOT NULL, uncertainty_ns INTEGER NOT NULL, vrms_mv INTEGER NOT NULL,
          flags INTEGER NOT NULL, ch BLOB NOT NULL)""")
    else:  # one row per window, channels' values packed in a blob (16 B/channel)
        db.execute("""CREATE TABLE windows (segment INTEGER NOT NULL, seq INTEGER NOT NULL,
          meter_t0_us INTEGER NOT NULL, meter_t1_us INTEGER NOT NULL, t0_ns INTEGER NOT NULL,
          t1_ns INTEGER NOT NULL, uncertainty_ns INTEGER NOT NULL, vrms_mv INTEGER NOT NULL,
          flags INTEGER NOT NULL, ch BLOB NOT NULL, PRIMARY KEY (segment, seq)) WITHOUT ROWID""")
        if idx != 'none': db.execute("CREATE INDEX wt ON windows(t1_ns)")
    w1 = wchar(); c1 = syscw()
    t = 1_764_000_000_000_000_000; n = 0
    ins = f"INSERT INTO samples VALUES ({','.join('?'*15)})"
    for s in range(secs):
        db.execute('BEGIN IMMEDIATE')
        for k in range(4):
          for mt in range(meters):
            seq = s*4+k; t0 = t + seq*250_016_000 + mt*1_000_000; t1 = t0 + 250_016_000
            if layout == 'rows':
                for c in range(1+15*mt, 16+15*mt):
                    db.execute(ins, (c, mt, seq, seq*250016, seq*250016+250016, t0, t1, 120000,
                         156300+1000*c+seq%97, 230117, 712345, 953, seq*39075+c, seq*39075+c, 0))
                    n += 1
            elif layout == 'v6':
                vals = [mt + 1, mt, seq, seq*250016, seq*250016+250016, t0, t1, 120000, 1+15*mt]
                for c in range(1+15*mt, 16+15*mt):
                    vals += [156300+1000*c+seq%97, 230117, 712345, 953, seq*39075+c, seq*39075+c, 0]
                vals += [None] * 7
                db.execute(f"INSERT INTO windows VALUES (NULL{',?' * len(vals)})", vals)
                n += 15
            else:
                import struct
                blob = b''.join(struct.pack('<iiiI', 156300+1000*c+seq%97, 712345, 953, seq*39075+c) for c in range(15))
                db.execute('INSERT INTO windows VALUES (%s?,?,?,?,?,?,?,?,?,?)' % ('NULL,' if layout == 'append' else ''), (mt, seq, seq*250016, seq*250016+250016, t0, t1, 120000, 230117, 0, blob))
                n += 15
        db.execute('COMMIT')
    w2 = wchar(); c2 = syscw()
    if restamp:
        tab = 'samples' if layout == 'rows' else 'windows'
        db.execute('BEGIN IMMEDIATE'); db.execute(f'UPDATE {tab} SET t0_ns=t0_ns+1234, t1_ns=t1_ns+1234'); db.execute('COMMIT')
    db.close()
    w3 = wchar()
    size = os.path.getsize(p)
    return n, (w2-w1)/n, (w3-w2)/n, (w3-w1)/n, size/n, (c2-c1)/secs/meters
print('| layout | page size | indexes | wal_autocheckpoint | write calls/s per meter while recording | bytes/sample while recording | at the end (restamp, checkpoint) | total bytes/sample | trace.db bytes/sample |')
print('|---|---|---|---|---|---|---|---|---|')
secs = int(sys.argv[1]) if len(sys.argv) > 1 else 60
import os
M = int(os.environ.get('METERS', '1'))
cases = [('rows',4096,'both',1000),('rows',4096,'chan',1000),('rows',4096,'time',1000),('rows',4096,'none',1000),
         ('rows',1024,'both',1000),('rows',1024,'time',1000),('rows',4096,'both',10000),('rows',512,'both',1000),
         ('window',4096,'time',1000),('window',1024,'time',1000),('window',4096,'none',1000),('append',4096,'none',1000),('append',1024,'none',1000),
         ('v6',4096,'none',1000),('v6',2048,'none',1000),('v6',1024,'none',1000),('v6',4096,'none',10000)]
if os.environ.get('LAYOUTS'): cases = [c for c in cases if c[0] in os.environ['LAYOUTS'].split(',')]
if M > 1: cases = [c for c in cases if (c[1] == 4096 or c[0] in ('append', 'v6')) and c[3] == 1000]
for layout, page, idx, ck in cases:
    n, rec, end, tot, size, cps = run(secs, page, idx, ck, layout=layout, meters=M)
    print(f'| {layout} | {page} | {idx} | {ck} | {cps:.1f} | {rec:.0f} | {end:.0f} | {tot:.0f} | {size:.0f} |')
