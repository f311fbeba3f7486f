/* fuzz_store — the run-store readers (host/store.c's mw_store_open and the queries of
 * mw analyze, mw export, mw show and mw ls) over damaged and hostile trace.db files.
 *
 * Two kinds of input, chosen by the first byte:
 *   - (byte & 3) == 0, "raw": the rest is the trace.db file itself, bytes as they are on
 *     disk (the seeds are real runs, so mutations give torn pages, bad headers, broken
 *     b-trees, wrong schema versions);
 *   - otherwise, "rows": the rest is a little program that builds a run with the store's
 *     own writer (mw_store_create, then channel, sample, burst-of-samples, gap, phase,
 *     meta and clock-sync rows with extreme values: INT64_MIN/MAX times, windows ending
 *     before they start, duplicate names, unknown kinds) and with fixed SQL statements
 *     whose one bound parameter is of any SQLite type (text or a real where an integer
 *     belongs, a dropped table or index, an older schema version) — what a file written
 *     by another tool, or edited by hand, may hold.
 * Every reader then runs in-process on the run (mw analyze, --json, a time range; mw
 * export of each table as CSV and JSON; mw show; mw ls), output thrown away. Invariants:
 * no sanitizer report, no crash, and each command exits 0, 1 or 2. */
#include <sqlite3.h>

#include "cli.h"
#include "fuzz.h"
#include "mw_store.h"
#include "../../host/store_internal.h" /* the SQLite handle: tests check the rows themselves */

static char g_run[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    snprintf(g_run, sizeof g_run, "%s/run", fuzz_tmpdir());
    FUZZ_CHECK(mkdir(g_run, 0755) == 0);
    return 0;
}

/* ---- reading the input ----------------------------------------------------------------- */

typedef struct {
    const uint8_t *p;
    size_t n;
} bytes;

static uint8_t u8(bytes *b)
{
    if (!b->n) return 0;
    b->n--;
    return *b->p++;
}

static uint64_t raw64(bytes *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | u8(b);
    return v;
}

/* An integer from a class of values a run holds, or an extreme. */
static int64_t i64(bytes *b)
{
    uint8_t k = u8(b);
    uint32_t x = u8(b);
    x = x << 8 | u8(b);
    switch (k % 9) {
    case 0:
        return x % 256;
    case 1:
        return (int64_t)(x % 256) - 128;
    case 2:
        return (int64_t)x * 1000000; /* ms */
    case 3:
        return 1700000000000000000LL + (int64_t)x * 250000000; /* a time now, 0.25 s */
    case 4:
        return (int64_t)raw64(b);
    case 5:
        return INT64_MAX - (x % 256);
    case 6:
        return INT64_MIN + (x % 256);
    case 7:
        return (int64_t)x * 250000000; /* 0.25 s steps from 0 */
    default:
        return (int64_t)x * 1000 - 30000000; /* mW around 0 */
    }
}

static const char *const words[] = {"node0",
                                    "node1",
                                    "switch",
                                    "mw",
                                    "user",
                                    "compute",
                                    "comm",
                                    "wait",
                                    "omp",
                                    "gpu",
                                    "mark",
                                    "counter",
                                    "MPI_Send",
                                    "record",
                                    "idle",
                                    "start_ns",
                                    "end_ns",
                                    "status",
                                    "cmd_start_ns",
                                    "cmd_end_ns",
                                    "complete",
                                    "imported",
                                    "eeg version",
                                    "eeg ranks",
                                    "host-a",
                                    "A1",
                                    "",
                                    "\xff\xfe",
                                    "100%",
                                    "-1",
                                    "9223372036854775807",
                                    "1e308",
                                    "NaN",
                                    "'; DROP TABLE samples; --"};

/* A string: a word above, or up to 40 bytes of the input. */
static const char *str(bytes *b, char *buf, size_t cap)
{
    uint8_t k = u8(b);
    if (k < 160) return words[k % (sizeof words / sizeof words[0])];
    size_t n = (size_t)(k - 160) % 41;
    if (n >= cap) n = cap - 1;
    size_t i = 0;
    for (; i < n && b->n; i++)
        buf[i] = (char)(u8(b) | 1); /* no NUL inside */
    buf[i] = 0;
    return buf;
}

/* ---- fixed SQL with one parameter of any type ------------------------------------------ */

static const char *const edits[] = {
    /* version 6: a window's channels are slots of one row of windows (docs/run-store.md) */
    "UPDATE windows SET p1 = ?1 WHERE seq % 3 = 0",
    "UPDATE windows SET p2 = ?1 WHERE seq % 3 = 1",
    "UPDATE windows SET t0_ns = ?1 WHERE seq % 2 = 1",
    "UPDATE windows SET t1_ns = ?1 WHERE seq = 0",
    "UPDATE windows SET channel0 = ?1 WHERE seq % 4 = 2",
    "UPDATE windows SET e1 = ?1",
    "UPDATE windows SET me2 = ?1 WHERE seq % 5 = 0",
    "UPDATE windows SET segment = ?1 WHERE seq > 2",
    "UPDATE windows SET f1 = ?1",
    "UPDATE windows SET v16 = ?1 WHERE seq % 2 = 0",
    "UPDATE windows SET meter = ?1",
    "UPDATE phases SET start_ns = ?1 WHERE id % 2 = 0",
    "UPDATE phases SET end_ns = ?1 WHERE id % 3 = 0",
    "UPDATE phases SET rank = ?1 WHERE id % 2 = 1",
    "UPDATE phases SET kind = ?1 WHERE id = 1",
    "UPDATE phases SET name = ?1",
    "UPDATE phases SET bytes = ?1",
    "UPDATE channels SET name = ?1 WHERE channel = 1",
    "UPDATE channels SET host = ?1",
    "UPDATE channels SET channel = ?1 WHERE channel = 2",
    "UPDATE gaps SET start_ns = ?1",
    "UPDATE gaps SET end_ns = ?1 WHERE id = 1",
    "UPDATE meta SET value = ?1 WHERE key = 'start_ns'",
    "UPDATE meta SET value = ?1 WHERE key = 'status'",
    "INSERT OR REPLACE INTO meta(key, value) VALUES ('end_ns', ?1)",
    "INSERT OR REPLACE INTO meta(key, value) VALUES ('start_ns', ?1)",
    "INSERT OR REPLACE INTO meta(key, value) VALUES ('cmd_start_ns', ?1)",
    "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, NULL)",
    "DELETE FROM meta WHERE key = ?1",
    "DELETE FROM channels WHERE channel = ?1",
    "DELETE FROM windows WHERE seq = ?1",
    "UPDATE clock_sync SET offset_ns = ?1",
    /* no parameter: the schema itself */
    "PRAGMA user_version = 1",
    "PRAGMA user_version = 5", /* older: version 6's tables read as version 5's */
    "PRAGMA user_version = 8", /* newer than this mw */
    "DROP TABLE gaps",
    "DROP TABLE phases",
    "DROP TABLE channels",
    "DROP VIEW samples",
    "DROP TABLE meta",
    "ALTER TABLE windows RENAME COLUMN p1 TO p",
    "DROP VIEW samples; CREATE VIEW samples AS SELECT 1 AS channel",
    "CREATE VIEW v AS SELECT 1",
};

static void edit(sqlite3 *db, bytes *b)
{
    const char *sql = edits[u8(b) % (sizeof edits / sizeof edits[0])];
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return;
    if (sqlite3_bind_parameter_count(st) > 0) {
        char buf[48];
        uint8_t k = u8(b);
        switch (k % 6) {
        case 0:
            sqlite3_bind_null(st, 1);
            break;
        case 1:
            sqlite3_bind_int64(st, 1, i64(b));
            break;
        case 2: {
            static const double reals[] = {1e300, -1e300, 0.5, -0.0, 3e18, -9.3e18, 1e-300};
            sqlite3_bind_double(st, 1, reals[u8(b) % 7]);
            break;
        }
        case 3:
            sqlite3_bind_text(st, 1, str(b, buf, sizeof buf), -1, SQLITE_TRANSIENT);
            break;
        case 4:
            sqlite3_bind_blob(st, 1, "\x00\x01\x02", 3, SQLITE_STATIC);
            break;
        default:
            sqlite3_bind_text(st, 1, "12abc", -1, SQLITE_STATIC);
        }
    }
    sqlite3_step(st);
    sqlite3_finalize(st);
}

/* ---- building a run from the input ------------------------------------------------------ */

static void build_rows(bytes *b)
{
    char err[8192];
    mw_store *s = mw_store_create(g_run, 1, err, sizeof err);
    if (!s) dprintf(2, "fuzz_store: %s\n", err);
    FUZZ_CHECK(s != NULL);
    for (int op = 0; op < 256 && b->n; op++) {
        char b1[48], b2[48], b3[48];
        switch (u8(b) % 9) {
        case 0: {
            int ch = (int)(i64(b) % 20);
            const char *name = str(b, b1, sizeof b1);
            const char *host = str(b, b2, sizeof b2);
            if (u8(b) & 1) host = NULL;
            const char *pin = str(b, b3, sizeof b3);
            mw_store_channel_add(s, ch, name, host, pin);
            break;
        }
        case 1: { /* every field in order: initializers are not sequenced */
            mw_store_sample x;
            x.channel = (int)(i64(b) % 20);
            x.segment = (int)(u8(b) % 4);
            x.seq = (uint32_t)i64(b);
            x.meter_t0_us = (uint64_t)i64(b);
            x.meter_t1_us = (uint64_t)i64(b);
            x.t0_ns = i64(b);
            x.t1_ns = i64(b);
            x.uncertainty_ns = i64(b);
            x.power_mw = (int32_t)i64(b);
            x.vrms_mv = (int32_t)i64(b);
            x.irms_ua = (int32_t)i64(b);
            x.pf_milli = (int32_t)i64(b);
            x.meter_energy_mj = i64(b);
            x.energy_mj = i64(b);
            x.flags = (uint32_t)i64(b);
            mw_store_sample_add(s, &x);
            break;
        }
        case 2: { /* a series of windows, so the statistics have something to chew on */
            int ch = 1 + u8(b) % 4;
            int n = u8(b) % 64;
            int seg = u8(b) % 2;
            uint64_t t = (uint64_t)i64(b);
            uint64_t dt = 1 + (uint64_t)(u8(b) % 8) * 62500000;
            int32_t p = (int32_t)(i64(b) % 500000000);
            int32_t step = (int32_t)u8(b) * 1000;
            uint32_t seq0 = u8(b);
            for (int i = 0; i < n; i++) {
                uint64_t t0 = t + (uint64_t)i * dt; /* wraps: no overflow in the test */
                mw_store_sample x = {.channel = ch,
                                     .segment = seg,
                                     .seq = seq0 + (uint32_t)i,
                                     .meter_t0_us = (uint64_t)i * 250000,
                                     .meter_t1_us = (uint64_t)(i + 1) * 250000,
                                     .t0_ns = (int64_t)t0,
                                     .t1_ns = (int64_t)(t0 + dt),
                                     .power_mw = p + ((i / 4) % 2 ? step : 0),
                                     .vrms_mv = 230000,
                                     .pf_milli = 1000,
                                     .meter_energy_mj = i,
                                     .energy_mj = i};
                mw_store_sample_add(s, &x);
            }
            break;
        }
        case 3: {
            int64_t a = i64(b);
            int64_t c = i64(b);
            mw_store_gap_add(s, a, c, str(b, b1, sizeof b1));
            break;
        }
        case 4: {
            mw_store_phase p;
            p.rank = (int)(i64(b) % 300);
            p.host = str(b, b1, sizeof b1);
            p.thread = (int)(i64(b) % 100);
            p.kind = str(b, b2, sizeof b2);
            p.name = str(b, b3, sizeof b3);
            p.start_ns = i64(b);
            p.end_ns = i64(b);
            p.bytes = i64(b);
            p.pid = i64(b);
            p.peer = (int)(i64(b) % 300);
            mw_store_phase_add(s, &p);
            break;
        }
        case 5: {
            const char *key = str(b, b1, sizeof b1);
            char num[32];
            if (u8(b) & 1) {
                snprintf(num, sizeof num, "%lld", (long long)i64(b));
                mw_store_meta_set(s, key, num);
            } else {
                mw_store_meta_set(s, key, str(b, b2, sizeof b2));
            }
            break;
        }
        case 6: {
            int rank = (int)(i64(b) % 300);
            const char *host = str(b, b1, sizeof b1);
            int64_t pid = i64(b);
            int64_t local = i64(b);
            int64_t off = i64(b);
            int64_t unc = i64(b);
            mw_store_clock_sync_add(s, rank, host, pid, local, off, unc);
            break;
        }
        default:
            edit(mw_store_sqlite(s), b);
        }
    }
    mw_store_close(s);
}

static void write_raw(const uint8_t *data, size_t size)
{
    char path[4300];
    static const char *const suffix[] = {"-wal", "-shm", "-journal"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/trace.db%s", g_run, suffix[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/trace.db", g_run);
    FILE *f = fopen(path, "w");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    FUZZ_CHECK(fclose(f) == 0);
}

/* ---- the readers ---------------------------------------------------------------------- */

static void run(char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    int rc = mw_cli_main(argc, argv);
    FUZZ_CHECK(rc == MW_EXIT_OK || rc == MW_EXIT_FAIL || rc == MW_EXIT_USAGE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    if ((data[0] & 3) == 0) {
        write_raw(data + 1, size - 1);
    } else {
        bytes b = {data + 1, size - 1};
        build_rows(&b);
    }
    run((char *[]){"mw", "analyze", g_run, NULL});
    run((char *[]){"mw", "analyze", "--json", g_run, NULL});
    run((char *[]){"mw", "analyze", "--from", "0.5", "--to", "2", g_run, NULL});
    run((char *[]){"mw", "export", g_run, "--format", "csv", NULL});
    run((char *[]){"mw", "export", g_run, "--format", "json", "--what", "phases", NULL});
    run((char *[]){"mw", "export", g_run, "--format", "csv", "--what", "gaps", NULL});
    run((char *[]){"mw", "export", g_run, "--format", "json", "--what", "meta", NULL});
    run((char *[]){"mw", "show", g_run, NULL});
    run((char *[]){"mw", "ls", g_run, NULL});
    return 0;
}
