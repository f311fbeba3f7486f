/* store — the run store (mw_store.h, docs/run-store.md): one SQLite database per run,
 * RUNDIR/trace.db.
 *
 * The writer keeps the database in WAL mode with synchronous=NORMAL: a commit is a write()
 * of the transaction's pages to trace.db-wal, so it survives the recorder being killed at
 * any moment (SIGKILL, crash), though not a power cut of the host in the last second or
 * so (WAL files are synced only at checkpoints). Writes are grouped into one transaction,
 * begun lazily by the first write after a commit and committed by mw_store_maybe_commit()
 * once the last commit is a second old (CLOCK_MONOTONIC): 64 windows a second, or 10,000,
 * cost one WAL append a second. Every statement is prepared once, on first use, and reset
 * after each step. A busy_timeout lets other processes (the instrumentation, writing
 * phases) wait for the writer's lock instead of failing; readers never wait in WAL mode.
 *
 * Version 7 keeps each segment's final clock fit as points in clock_knots
 * (mw_store_knots_add, a few rows a segment) instead of rewriting the segment's rows, which
 * cost a third of the bytes a recording wrote; the readers (run_rows.c, the view samples,
 * merge_hosts.c) map the rows' meter times through them (STORE_KNOT_JOIN, STORE_KNOT_T:
 * store_internal.h), the rows' own times where a segment has none (version 6's recorder
 * rewrote them at the end instead; such rows are read as they are).
 * With several meters (version 5: table meters, channels.meter) segments are numbered per
 * meter, so a segment's knots belong to one meter (clock_knots.meter).
 *
 * Version 6 stores one row per window of a meter (table windows: 16 channel slots, rowid in
 * arrival order, no index while recording; the view samples gives version 5's rows back).
 * mw_store_sample_add() fills the row of the current window in memory and inserts it when a
 * sample of another window comes, before a commit, and before a read through this
 * connection (mw_store_sqlite): a commit a second then rewrites one 1 KB leaf, where
 * version 5's per-channel index rewrote a leaf per channel (docs/performance.md). The index
 * on t1_ns is made when the store's maker closes it.
 *
 * A trace.db may come from anyone, and SQLite runs what a schema holds (a trigger fires on
 * our INSERT, a view or CHECK calls functions): every connection is defensive
 * (SQLITE_DBCONFIG_DEFENSIVE, trusted_schema=OFF), and an existing store is refused, before
 * any statement on its tables, when sqlite_schema holds an object that is not ours
 * (store_objects, by type and name; mw_sqlite_check_schema, shared with the sweep index;
 * the one view, samples, by its whole SQL text: store_view_check). */
#include "mw_store.h"

#include "mw_err.h"
#include "mw_fs.h"
#include "store_inband.h"
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STORE_BUSY_TIMEOUT_MS 5000
#define STORE_COMMIT_INTERVAL_NS 1000000000LL
#define STORE_PAGE_SIZE "1024"

/* Schema version 6 keeps one row per window of a meter in table windows: slot k (1..16)
 * holds channel channel0 + k - 1 (NULL columns where a channel is absent: one header byte
 * each), and the view samples gives the rows of version 5's table back, one per channel and
 * window, for ad-hoc SQL and for the readers (run.c). */
#define STORE_SLOT_PARAMS(k) ", ?, ?, ?, ?, ?, ?, ?"
#define STORE_WHEN(c, k) " WHEN " #k " THEN w." #c #k
#define STORE_CASE(c) "CASE k.column1" STORE_SLOTS2(STORE_WHEN, c) " END AS " #c

/* The view samples, exactly as store_open recognizes it (sqlite_schema.sql): version 6's
 * with the times as written, version 7's with them mapped through clock_knots. */
#define STORE_VIEW_SQL(times, joins)                                                               \
    "CREATE VIEW samples (channel, segment, seq, meter_t0_us, meter_t1_us, t0_ns, t1_ns, "         \
    "uncertainty_ns, power_mw, vrms_mv, irms_ua, pf_milli, meter_energy_mj, energy_mj, flags) AS " \
    "SELECT c, segment, seq, meter_t0_us, meter_t1_us, t0_ns, t1_ns, uncertainty_ns, p, v, i, "   \
    "pf, me, e, f FROM (SELECT w.channel0 + k.column1 - 1 AS c, w.segment AS segment, w.seq AS "   \
    "seq, w.meter_t0_us AS meter_t0_us, w.meter_t1_us AS meter_t1_us, " times ", "                \
    STORE_CASE(p) ", " STORE_CASE(v) ", " STORE_CASE(i) ", " STORE_CASE(pf) ", " STORE_CASE(me)   \
    ", " STORE_CASE(e) ", " STORE_CASE(f) " FROM windows w" joins " CROSS JOIN (VALUES (1), "      \
    "(2), (3), (4), (5), (6), (7), (8), (9), (10), (11), (12), (13), (14), (15), (16)) k) WHERE "  \
    "p IS NOT NULL"
static const char store_view6_sql[] = STORE_VIEW_SQL(
    "w.t0_ns AS t0_ns, w.t1_ns AS t1_ns, w.uncertainty_ns AS uncertainty_ns", "");
static const char store_view_sql[] =
    STORE_VIEW_SQL(STORE_KNOT_T("k0", "w", "meter_t0_us", "t0_ns") " AS t0_ns, " STORE_KNOT_T(
                       "k1", "w", "meter_t1_us", "t1_ns") " AS t1_ns, coalesce(k1.unc_ns, "
                                                          "w.uncertainty_ns) AS uncertainty_ns",
                   STORE_KNOT_JOINS("w"));

/* Prepared statements, indexes into mw_store.stmt and store_sql. */
enum {
    ST_META_SET,
    ST_META_GET,
    ST_CHANNEL_ADD,
    ST_METER_ADD,
    ST_METER1_DEFAULT,
    ST_WINDOW_ADD,
    ST_CHANNEL_METER,
    ST_GAP_ADD,
    ST_PHASE_ADD,
    ST_SYNC_ADD,
    ST_PHASES_CLEAR,
    ST_SYNC_CLEAR,
    ST_BLOCK_ADD,
    ST_PNAME_ADD,
    ST_BLOCKS_CLEAR,
    ST_PNAMES_CLEAR,
    ST_KNOT_ADD,
    ST_COUNT
};

static const char *const store_sql[ST_COUNT] = {
    [ST_META_SET] = "INSERT INTO meta(key, value) VALUES (?1, ?2) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    [ST_META_GET] = "SELECT value FROM meta WHERE key = ?1",
    [ST_CHANNEL_ADD] = "INSERT INTO channels(channel, name, host, pin, meter, meter_channel) "
                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_METER_ADD] = "INSERT INTO meters(meter, name, host, port, clock_offset_ns, "
                     "clock_uncertainty_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(meter) "
                     "DO UPDATE SET name = excluded.name, host = excluded.host, port = "
                     "excluded.port, clock_offset_ns = excluded.clock_offset_ns, "
                     "clock_uncertainty_ns = excluded.clock_uncertainty_ns",
    [ST_METER1_DEFAULT] = "INSERT INTO meters(meter, name) VALUES (1, 'meter') "
                          "ON CONFLICT DO NOTHING",
    [ST_WINDOW_ADD] = "INSERT INTO windows(meter, segment, seq, meter_t0_us, meter_t1_us, t0_ns, "
                      "t1_ns, uncertainty_ns, channel0" STORE_SLOTS(STORE_SLOT_NAMES)
                      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?" STORE_SLOTS(STORE_SLOT_PARAMS) ")",
    [ST_CHANNEL_METER] = "SELECT meter FROM channels WHERE channel = ?1",
    [ST_GAP_ADD] = "INSERT INTO gaps(start_ns, end_ns, reason, meter) VALUES (?1, ?2, ?3, ?4)",
    [ST_PHASE_ADD] = "INSERT INTO phases(rank, host, thread, kind, name, start_ns, end_ns, bytes, "
                     "pid, peer) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    [ST_PHASES_CLEAR] = "DELETE FROM phases WHERE kind <> 'mw'",
    [ST_SYNC_CLEAR] = "DELETE FROM clock_sync",
    [ST_SYNC_ADD] = "INSERT INTO clock_sync(rank, host, pid, local_ns, offset_ns, uncertainty_ns) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_BLOCK_ADD] = "INSERT INTO phase_blocks(rank, host, pid, thread, start_ns, end_ns, events, "
                     "data) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_PNAME_ADD] = "INSERT INTO phase_names(id, kind, name) VALUES (?1, ?2, ?3)",
    [ST_BLOCKS_CLEAR] = "DELETE FROM phase_blocks",
    [ST_PNAMES_CLEAR] = "DELETE FROM phase_names",
    [ST_KNOT_ADD] = "INSERT INTO clock_knots(meter, segment, x_us, t_ns, slope, unc_ns) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
};

/* The schema of version MW_STORE_SCHEMA_VERSION (docs/run-store.md describes every column).
 * windows' rowid is the order of arrival, and it has no index while the run is recorded:
 * each commit appends to one leaf (docs/run-store.md, docs/performance.md); its index on
 * t1_ns is made when the store that made it closes (STORE_WINDOWS_INDEX), after the end's
 * clock knots. store_view_sql follows it. */
static const char store_schema[] = "CREATE TABLE meta (\n"
                                   "    key TEXT PRIMARY KEY,\n"
                                   "    value TEXT\n"
                                   ");\n"
                                   /* version 5: several meters in one run */
                                   "CREATE TABLE meters (\n"
                                   "    meter INTEGER PRIMARY KEY,\n"
                                   "    name TEXT UNIQUE NOT NULL,\n"
                                   "    host TEXT,\n"
                                   "    port TEXT,\n"
                                   "    clock_offset_ns INTEGER NOT NULL DEFAULT 0,\n"
                                   "    clock_uncertainty_ns INTEGER NOT NULL DEFAULT 0\n"
                                   ");\n"
                                   "CREATE TABLE channels (\n"
                                   "    channel INTEGER PRIMARY KEY,\n"
                                   "    name TEXT UNIQUE NOT NULL,\n"
                                   "    host TEXT,\n"
                                   "    pin TEXT,\n"
                                   "    meter INTEGER NOT NULL DEFAULT 1 REFERENCES meters(meter),\n"
                                   "    meter_channel INTEGER\n"
                                   ");\n"
                                   /* version 6: one row per window of a meter */
                                   "CREATE TABLE windows (\n"
                                   "    id INTEGER PRIMARY KEY,\n"
                                   "    meter INTEGER NOT NULL,\n"
                                   "    segment INTEGER NOT NULL,\n"
                                   "    seq INTEGER NOT NULL,\n"
                                   "    meter_t0_us INTEGER NOT NULL,\n"
                                   "    meter_t1_us INTEGER NOT NULL,\n"
                                   "    t0_ns INTEGER NOT NULL,\n"
                                   "    t1_ns INTEGER NOT NULL,\n"
                                   "    uncertainty_ns INTEGER NOT NULL,\n"
                                   "    channel0 INTEGER NOT NULL" STORE_SLOTS(STORE_SLOT_COLS)
                                   "\n);\n"
                                   /* version 7: each segment's final clock mapping */
                                   "CREATE TABLE clock_knots (\n"
                                   "    meter INTEGER NOT NULL,\n"
                                   "    segment INTEGER NOT NULL,\n"
                                   "    x_us INTEGER NOT NULL,\n"
                                   "    t_ns INTEGER NOT NULL,\n"
                                   "    slope REAL NOT NULL,\n"
                                   "    unc_ns INTEGER NOT NULL,\n"
                                   "    PRIMARY KEY (meter, segment, x_us)\n"
                                   ");\n"
                                   "CREATE TABLE gaps (\n"
                                   "    id INTEGER PRIMARY KEY,\n"
                                   "    start_ns INTEGER NOT NULL,\n"
                                   "    end_ns INTEGER NOT NULL,\n"
                                   "    reason TEXT NOT NULL,\n"
                                   "    meter INTEGER\n"
                                   ");\n"
                                   "CREATE INDEX gaps_time ON gaps(start_ns);\n"
                                   "CREATE TABLE phases (\n"
                                   "    id INTEGER PRIMARY KEY,\n"
                                   "    rank INTEGER NOT NULL,\n"
                                   "    host TEXT NOT NULL,\n"
                                   "    thread INTEGER NOT NULL,\n"
                                   "    kind TEXT NOT NULL,\n"
                                   "    name TEXT NOT NULL,\n"
                                   "    start_ns INTEGER NOT NULL,\n"
                                   "    end_ns INTEGER NOT NULL,\n"
                                   "    bytes INTEGER NOT NULL,\n"
                                   "    pid INTEGER NOT NULL DEFAULT 0,\n"
                                   "    peer INTEGER NOT NULL DEFAULT -1\n"
                                   ");\n"
                                   "CREATE INDEX phases_time ON phases(start_ns);\n"
                                   "CREATE INDEX phases_rank_time ON phases(rank, start_ns);\n"
                                   "CREATE TABLE clock_sync (\n"
                                   "    id INTEGER PRIMARY KEY,\n"
                                   "    rank INTEGER NOT NULL,\n"
                                   "    host TEXT NOT NULL,\n"
                                   "    pid INTEGER NOT NULL,\n"
                                   "    local_ns INTEGER NOT NULL,\n"
                                   "    offset_ns INTEGER NOT NULL,\n"
                                   "    uncertainty_ns INTEGER NOT NULL\n"
                                   ");\n"
                                   /* version 3: chatty processes' events, compact */
                                   "CREATE TABLE phase_names (\n"
                                   "    id INTEGER PRIMARY KEY,\n"
                                   "    kind TEXT NOT NULL,\n"
                                   "    name TEXT NOT NULL\n"
                                   ");\n"
                                   "CREATE TABLE phase_blocks (\n"
                                   "    id INTEGER PRIMARY KEY,\n"
                                   "    rank INTEGER NOT NULL,\n"
                                   "    host TEXT NOT NULL,\n"
                                   "    pid INTEGER NOT NULL,\n"
                                   "    thread INTEGER NOT NULL,\n"
                                   "    start_ns INTEGER NOT NULL,\n"
                                   "    end_ns INTEGER NOT NULL,\n"
                                   "    events INTEGER NOT NULL,\n"
                                   "    data BLOB NOT NULL\n"
                                   ");\n";
/* (version 4 adds the inband_ tables, made with a run's first in-band source:
 * store_inband.h; a version 4 run without an in-band source has none) */

struct mw_store {
    sqlite3 *db;
    int readonly;
    int immutable;          /* read-only directory, no WAL: opened immutable=1 */
    int in_txn;             /* a transaction is open (writer only) */
    int64_t last_commit_ns; /* CLOCK_MONOTONIC of the last commit (or of opening) */
    int64_t commit_interval_ns;
    sqlite3_stmt *stmt[ST_COUNT];
    char path[4096]; /* RUNDIR/trace.db */
    char err[1024];
    int version;  /* the schema version (PRAGMA user_version) */
    int unusable; /* the file is bad input: not a megawatt run store, not a database,
                   * corrupt, a newer schema, unreadable, or a value out of its column's
                   * range (mw_store_bad_input; errno EINVAL from a failed open) */
    /* mw_store_create: what it made, for mw_store_discard */
    int created;   /* trace.db, made here (O_EXCL) */
    int made_dirs; /* trailing components of rundir made here */
    char rundir[4096];
    /* the window being filled by mw_store_sample_add, inserted as one row of windows when
     * a sample of another window comes, and before any commit or read */
    struct {
        int have, meter, channel0;
        unsigned used; /* bit k: slot k + 1 holds a sample */
        mw_store_sample x[STORE_NSLOTS];
    } row;
    int row_failed;    /* row_flush failed where it could not say so (mw_store_sqlite) */
    int index_at_close; /* made by mw_store_create: make windows_time when closing */
    int chmeter[1025]; /* meter + 1 of channel c (0: not looked up yet) */
    int seen[8];       /* the meters of the rows this writer inserted (mw_store_knots_add) */
    int nseen, seen_more; /* seen_more: more than seen holds */
    int knots_loaded;     /* the SQL functions hold the knots as they are (mw_store_has_knots) */
};

static int64_t now_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int set_err(mw_store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_err(mw_store *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* "PATH: what: sqlite's message" */
static int db_err(mw_store *s, const char *what)
{
    switch (sqlite3_errcode(s->db) & 0xff) { /* the file's fault, not the system's */
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
        s->unusable = 1;
        break;
    default:
        break;
    }
    return set_err(s, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

static int exec(mw_store *s, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        set_err(s, "%s: %s: %s", s->path, what, msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* The prepared statement, prepared on first use; NULL (with the error set) on failure. */
static sqlite3_stmt *stmt(mw_store *s, int which)
{
    if (!s->stmt[which] &&
        sqlite3_prepare_v3(s->db, store_sql[which], -1, SQLITE_PREPARE_PERSISTENT, &s->stmt[which],
                           NULL) != SQLITE_OK) {
        db_err(s, "preparing a statement");
        s->stmt[which] = NULL;
    }
    return s->stmt[which];
}

/* Step a bound INSERT/UPDATE to completion and reset it. */
static int step_done(mw_store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) db_err(s, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Before every write: refuse on a reader, open the transaction if none is. */
static int begin_write(mw_store *s)
{
    if (s->readonly) return set_err(s, "%s: opened read-only", s->path);
    if (s->in_txn && sqlite3_get_autocommit(s->db)) s->in_txn = 0; /* rolled back by an error */
    if (s->in_txn) return 0;
    /* IMMEDIATE: take the write lock now, through the busy handler. A deferred BEGIN
     * would read first and then fail with SQLITE_BUSY_SNAPSHOT, without waiting, when
     * another writer committed in between. */
    if (exec(s, "BEGIN IMMEDIATE", "beginning a transaction")) return -1;
    s->in_txn = 1;
    return 0;
}

static int bind_text(sqlite3_stmt *st, int i, const char *v)
{
    return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

static int single_int(mw_store *s, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) return db_err(s, sql);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *out = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return 0;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        db_err(s, sql);
    else
        set_err(s, "%s: %s: no value", s->path, sql);
    sqlite3_finalize(st);
    return -1;
}

static mw_store *store_new(const char *rundir, char *err, size_t errlen)
{
    mw_store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "%s: out of memory", rundir);
        return NULL;
    }
    if (!*rundir || (size_t)snprintf(s->path, sizeof s->path, "%s/%s", rundir, MW_STORE_DB_NAME) >=
                        sizeof s->path) {
        snprintf(err, errlen, "'%s': not a usable run directory name", rundir);
        free(s);
        return NULL;
    }
    s->commit_interval_ns = STORE_COMMIT_INTERVAL_NS;
    s->last_commit_ns = now_ns(CLOCK_MONOTONIC);
    return s;
}

/* Close after a failed open/create: copy the message out; errno EINVAL when the file is
 * bad input (s->unusable), else EIO. */
static mw_store *store_fail(mw_store *s, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", s->err);
    int e = s->unusable ? EINVAL : EIO;
    s->in_txn = 0;
    mw_store_close(s);
    errno = e;
    return NULL;
}

/* With force: remove an old trace.db and its -wal, -shm (and -journal). */
static int remove_old_db(const char *dbpath, char *err, size_t errlen)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    for (unsigned i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s%s", dbpath, suffix[i]);
        if (unlink(p) != 0 && errno != ENOENT) {
            snprintf(err, errlen, "%s: cannot remove: %s", p, strerror(errno));
            return -1;
        }
    }
    return 0;
}

int mw_sqlite_defend(sqlite3 *db, const char *path, char *err, size_t errlen)
{
    int on = -1;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &on) != SQLITE_OK || on != 1 ||
        sqlite3_exec(db, "PRAGMA trusted_schema=OFF", NULL, NULL, NULL) != SQLITE_OK ||
        /* SQLite's temporary data (a reader's sort of the windows' keys, an index build)
         * in memory: no file in /var/tmp, so a reader works under a file-size limit or with
         * /var/tmp read-only, and leaves nothing behind when it is killed */
        sqlite3_exec(db, "PRAGMA temp_store=MEMORY", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open defensively: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

/* Is the object (type, name, tbl_name) one of allowed's, or SQLite's own for one of them? */
static int schema_allowed(const char *const *allowed, const char *type, const char *name,
                          const char *tbl)
{
    char want[256];
    if (!strcmp(type, "table") && (!strcmp(name, "sqlite_stat1") || !strcmp(name, "sqlite_stat4")))
        return 1;
    if (!strcmp(type, "index") && !strncmp(name, "sqlite_autoindex_", 17)) {
        type = "table"; /* allowed when its table is */
        name = tbl;
    }
    snprintf(want, sizeof want, "%s %s", type, name);
    for (; *allowed; allowed++)
        if (!strcmp(*allowed, want)) return 1;
    return 0;
}

int mw_sqlite_check_schema(sqlite3 *db, const char *const *allowed, const char *path,
                           const char *kind, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, sql FROM sqlite_schema", -1, &st,
                           NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: reading the schema: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    int rc, bad = 0;
    while (!bad && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *tbl = (const char *)sqlite3_column_text(st, 2);
        const char *sql = (const char *)sqlite3_column_text(st, 3);
        /* a table of an allowed name must be a plain one: a virtual table runs its module */
        int virt = type && !strcmp(type, "table") && (!sql || strncasecmp(sql, "CREATE TABLE", 12));
        if (!type || !name || !tbl || virt || !schema_allowed(allowed, type, name, tbl)) {
            snprintf(err, errlen, "%s: not a megawatt %s: it holds %s%s %s", path, kind,
                     virt ? "virtual " : "", type ? type : "(null)", name ? name : "(null)");
            bad = 1;
        }
    }
    if (!bad && rc != SQLITE_DONE)
        snprintf(err, errlen, "%s: reading the schema: %s", path, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return bad ? 1 : rc != SQLITE_DONE ? -1 : 0;
}

/* The objects of the run store's schema, versions 1 to 7 (version 1 lacks clock_sync, 1 and 2
 * lack phase_names and phase_blocks; the inband_ tables, version 4, are made with a run's
 * first in-band source: store_inband.c, so a version 4 run may lack them too; 1 to 4 lack
 * meters; 6 has table windows and view samples instead of table samples and its indexes;
 * 7 adds clock_knots, and its view maps times through it). The one view allowed must be
 * ours word for word: version 6's or 7's text (store_view_check). */
static const char *const store_objects[] = {
    "table meta",         "table channels",     "table meters",
    "table windows",      "view samples",       "index windows_time",
    "table clock_knots",
    "table samples",      "index samples_channel_time",
    "index samples_time", "table gaps",
    "index gaps_time",    "table phases",
    "index phases_time",  "index phases_rank_time",
    "table clock_sync",   "table phase_names",
    "table phase_blocks", MW_STORE_INBAND_OBJECTS,
    NULL,
};

/* A view named samples passes mw_sqlite_check_schema by its name; it must also be ours, to
 * the letter: a view runs whatever SQL it holds when a reader selects from it. */
static int store_view_check(mw_store *s)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT name, sql FROM sqlite_schema WHERE type = 'view'", -1,
                           &st, NULL) != SQLITE_OK) {
        db_err(s, "reading the schema");
        return -1;
    }
    int rc, bad = 0;
    while (!bad && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *sql = (const char *)sqlite3_column_text(st, 1);
        if (!sql || (strcmp(sql, store_view_sql) && strcmp(sql, store_view6_sql))) {
            const char *name = (const char *)sqlite3_column_text(st, 0);
            set_err(s, "%s: not a megawatt run store: it holds view %s (not the store's own)",
                    s->path, name ? name : "(null)");
            bad = 1;
        }
    }
    if (!bad && rc != SQLITE_DONE) db_err(s, "reading the schema");
    sqlite3_finalize(st);
    return bad ? 1 : rc != SQLITE_DONE ? -1 : 0;
}

/* The connection's common settings: defensive (mw_sqlite_defend), and for a writer WAL,
 * which is checked (a file system without shared memory for the -shm file refuses it). */
static int configure(mw_store *s)
{
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(s->db, 1);
    if (mw_sqlite_defend(s->db, s->path, s->err, sizeof s->err)) return -1;
    if (s->readonly) return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode=WAL", -1, &st, NULL) != SQLITE_OK)
        return db_err(s, "setting WAL mode");
    int ok = sqlite3_step(st) == SQLITE_ROW &&
             !sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    if (!ok && sqlite3_system_errno(s->db)) /* e.g. no descriptor left for the -wal file */
        return set_err(s, "%s: cannot use WAL mode: %s", s->path,
                       strerror(sqlite3_system_errno(s->db)));
    if (!ok) return set_err(s, "%s: the file system does not allow WAL mode", s->path);
    return exec(s, "PRAGMA synchronous=NORMAL", "setting synchronous");
}

/* Undo what mw_store_create made, by name and without following links: trace.db and the
 * files SQLite made beside it (only when trace.db itself was made here, O_EXCL), then the
 * directories it made, deepest first (rmdir: only when empty; a link is never followed). */
static void undo_create(const mw_store *s)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    if (s->created)
        for (unsigned i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
            char p[4200];
            snprintf(p, sizeof p, "%s%s", s->path, suffix[i]);
            unlink(p);
        }
    char d[4096];
    snprintf(d, sizeof d, "%s", s->rundir);
    for (int i = 0; i < s->made_dirs; i++) {
        size_t l = strlen(d);
        while (l > 1 && d[l - 1] == '/')
            d[--l] = 0;
        if (rmdir(d) != 0) return;
        char *slash = strrchr(d, '/');
        if (!slash || slash == d) return;
        *slash = 0;
    }
}

/* A failed create: undone, the message copied out. */
static mw_store *create_fail(mw_store *s, char *err, size_t errlen)
{
    int e = errno;
    mw_store copy_for_undo;
    memcpy(copy_for_undo.path, s->path, sizeof s->path);
    memcpy(copy_for_undo.rundir, s->rundir, sizeof s->rundir);
    copy_for_undo.created = s->created;
    copy_for_undo.made_dirs = s->made_dirs;
    if (s->db) {
        store_fail(s, err, errlen); /* closes */
    } else {
        snprintf(err, errlen, "%s", s->err);
        free(s);
    }
    undo_create(&copy_for_undo);
    errno = e;
    return NULL;
}

/* trace.db made empty with O_CREAT|O_EXCL|O_NOFOLLOW: never an existing file, never through
 * a link, and afterwards known to be this store's own. */
static int create_db_file(mw_store *s)
{
    int fd = open(s->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
        if (errno == EEXIST)
            return set_err(s, "%s: already exists (made by someone else just now)", s->path);
        return set_err(s, "%s: cannot create: %s", s->path, strerror(errno));
    }
    close(fd);
    s->created = 1;
    return 0;
}

/* "cannot create": SQLite's message, and a hint when the path is longer than SQLite takes */
static void open_failed(mw_store *s)
{
    db_err(s, "cannot create");
    char cwd[4096];
    size_t len = strlen(s->path);
    if (s->path[0] != '/' && getcwd(cwd, sizeof cwd)) len += strlen(cwd) + 1;
    if (len > 500) {
        size_t n = strlen(s->err);
        snprintf(s->err + n, sizeof s->err - n,
                 " (its absolute path is %zu bytes; SQLite opens at most about 500)", len);
    }
}

mw_store *mw_store_create(const char *rundir, int force, char *err, size_t errlen)
{
    mw_store *s = store_new(rundir, err, errlen);
    if (!s) return NULL;
    snprintf(s->rundir, sizeof s->rundir, "%s", rundir);
    struct stat st;
    if (stat(rundir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: exists and is not a directory", rundir);
            free(s);
            return NULL;
        }
        if (!force) {
            snprintf(err, errlen, "%s: already exists (a run is never overwritten unless forced)",
                     rundir);
            free(s);
            return NULL;
        }
        if (remove_old_db(s->path, err, errlen)) {
            free(s);
            return NULL;
        }
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "%s: %s", rundir, strerror(errno));
        free(s);
        return NULL;
    } else if (mw_fs_mkdirs(rundir, &s->made_dirs, s->err, sizeof s->err)) {
        return create_fail(s, err, errlen); /* mkdirs undoes nothing itself */
    }
    if (create_db_file(s)) return create_fail(s, err, errlen);
    if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        open_failed(s);
        return create_fail(s, err, errlen);
    }
    /* before WAL mode fixes it: each commit rewrites the pages it dirtied, the last leaf of
     * windows above all, so a 1 KB page writes a quarter of a 4 KB one (docs/performance.md) */
    if (exec(s, "PRAGMA page_size = " STORE_PAGE_SIZE, "setting the page size") || configure(s))
        return create_fail(s, err, errlen);
    char sql[64], num[32];
    snprintf(sql, sizeof sql, "PRAGMA user_version=%d", MW_STORE_SCHEMA_VERSION);
    if (begin_write(s) || exec(s, store_schema, "creating the schema") ||
        exec(s, store_view_sql, "creating the schema") ||
        exec(s, sql, "setting the schema version"))
        return create_fail(s, err, errlen);
    snprintf(num, sizeof num, "%d", MW_STORE_SCHEMA_VERSION);
    if (mw_store_meta_set(s, "schema_version", num)) return create_fail(s, err, errlen);
    snprintf(num, sizeof num, "%" PRId64, now_ns(CLOCK_REALTIME));
    if (mw_store_meta_set(s, "created_ns", num) || mw_store_commit(s))
        return create_fail(s, err, errlen);
    s->index_at_close = 1;
    return s;
}

void mw_store_discard(mw_store *s)
{
    if (!s) return;
    mw_store copy_for_undo;
    memcpy(copy_for_undo.path, s->path, sizeof s->path);
    memcpy(copy_for_undo.rundir, s->rundir, sizeof s->rundir);
    copy_for_undo.created = s->created;
    copy_for_undo.made_dirs = s->made_dirs;
    s->in_txn = 0;
    s->index_at_close = 0; /* no index for a store about to be deleted */
    mw_store_close(s);
    undo_create(&copy_for_undo);
}

int mw_store_exists(const char *rundir)
{
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", rundir, MW_STORE_DB_NAME);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* A finished run in a directory we cannot write (an archive, another user's run) has no
 * -wal file, and SQLite cannot create the -shm file a WAL reader needs: such a database
 * can only be opened as immutable, which is exact there because nothing can be writing
 * it (a writer would have made both files). Returns 0 when reopened so, else -1 with the
 * first error kept. */
static int reopen_immutable(mw_store *s)
{
    char wal[sizeof s->path + 8], uri[3 * sizeof s->path + 32];
    snprintf(wal, sizeof wal, "%s-wal", s->path);
    struct stat st;
    if ((sqlite3_errcode(s->db) & 0xff) != SQLITE_CANTOPEN || stat(wal, &st) == 0 ||
        errno != ENOENT || access(s->path, R_OK) != 0)
        return -1;
    /* file: URI, with every byte but unreserved ones and '/' percent-encoded */
    size_t n = (size_t)snprintf(uri, sizeof uri, "file:");
    for (const unsigned char *p = (const unsigned char *)s->path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            uri[n++] = (char)*p;
        else
            n += (size_t)snprintf(uri + n, 4, "%%%02X", *p);
    }
    snprintf(uri + n, sizeof uri - n, "?immutable=1");
    sqlite3 *db;
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return -1;
    }
    sqlite3_close(s->db);
    s->db = db;
    s->immutable = 1;
    return configure(s);
}

/* An existing run: read-only (any version 1..ours) or for writing (exactly ours). */
static mw_store *open_existing(const char *rundir, int write, char *err, size_t errlen)
{
    mw_store *s = store_new(rundir, err, errlen);
    if (!s) return NULL;
    s->readonly = !write;
    struct stat st;
    if (stat(s->path, &st) != 0) {
        snprintf(err, errlen, "%s: not a run (%s: %s)", rundir, s->path, strerror(errno));
        free(s);
        return NULL;
    }
    if (sqlite3_open_v2(s->path, &s->db, write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY,
                        NULL) != SQLITE_OK) {
        db_err(s, "cannot open");
        return store_fail(s, err, errlen);
    }
    int64_t v;
    if (write) {
        if (single_int(s, "PRAGMA user_version", &v) || configure(s))
            return store_fail(s, err, errlen);
    } else {
        if (configure(s)) return store_fail(s, err, errlen);
        if (single_int(s, "PRAGMA user_version", &v) && reopen_immutable(s))
            return store_fail(s, err, errlen);
        if (s->immutable && single_int(s, "PRAGMA user_version", &v))
            return store_fail(s, err, errlen);
    }
    if (v == 0) {
        set_err(s, "%s: not a megawatt run store (schema version 0)", s->path);
        s->unusable = 1;
        return store_fail(s, err, errlen);
    }
    if (v > MW_STORE_SCHEMA_VERSION || (write && v != MW_STORE_SCHEMA_VERSION)) {
        set_err(s, "%s: schema version %" PRId64 " is %s than this mw %s (%d)", s->path, v,
                v > MW_STORE_SCHEMA_VERSION ? "newer" : "older", write ? "writes" : "reads",
                MW_STORE_SCHEMA_VERSION);
        s->unusable = 1;
        return store_fail(s, err, errlen);
    }
    int bad =
        mw_sqlite_check_schema(s->db, store_objects, s->path, "run store", s->err, sizeof s->err);
    if (!bad) bad = store_view_check(s);
    if (bad) {
        s->unusable = bad > 0;
        return store_fail(s, err, errlen);
    }
    s->version = (int)v;
    return s;
}

mw_store *mw_store_open(const char *rundir, char *err, size_t errlen)
{
    return open_existing(rundir, 0, err, errlen);
}

mw_store *mw_store_open_write(const char *rundir, char *err, size_t errlen)
{
    return open_existing(rundir, 1, err, errlen);
}

void mw_store_close(mw_store *s)
{
    if (!s) return;
    if (s->in_txn) mw_store_commit(s);
    /* one sort of the run's windows at the end instead of a leaf rewritten at every commit
     * (a run killed before has no index: its readers scan, as they may) */
    if (s->index_at_close) sqlite3_exec(s->db, STORE_WINDOWS_INDEX, NULL, NULL, NULL);
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->stmt[i]);
    if (s->db && !s->readonly) sqlite3_exec(s->db, "PRAGMA optimize", NULL, NULL, NULL);
    sqlite3_close(s->db);
    free(s);
}

const char *mw_store_error(const mw_store *s)
{
    return s ? s->err : "no store";
}

int mw_store_bad_input(const mw_store *s)
{
    return s && s->unusable;
}

int mw_store_bad_value(mw_store *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = snprintf(s->err, sizeof s->err, "%s: ", s->path);
    if (len >= 0 && (size_t)len < sizeof s->err)
        vsnprintf(s->err + len, sizeof s->err - (size_t)len, fmt, ap);
    va_end(ap);
    s->unusable = 1;
    return -1;
}

int mw_store_error_to(const mw_store *s, char *err, size_t errlen)
{
    return mw_err(err, errlen, "%s", mw_store_error(s));
}

static int row_flush(mw_store *s);

sqlite3 *mw_store_sqlite(mw_store *s)
{
    /* a reader on this connection sees every sample added (an error shows at the commit) */
    if (s->row.have && row_flush(s)) s->row_failed = 1;
    return s->db;
}

int mw_store_write_begin(mw_store *s)
{
    return begin_write(s);
}

int mw_store_db_error(mw_store *s, const char *what)
{
    return db_err(s, what);
}

int mw_store_schema(const mw_store *s)
{
    return s->version ? s->version : MW_STORE_SCHEMA_VERSION;
}

const char *mw_store_path(const mw_store *s)
{
    return s->path;
}

int mw_store_meta_set(mw_store *s, const char *key, const char *value)
{
    if (begin_write(s)) return -1;
    sqlite3_stmt *st = stmt(s, ST_META_SET);
    if (!st) return -1;
    bind_text(st, 1, key);
    bind_text(st, 2, value);
    return step_done(s, st, "setting meta");
}

int mw_store_meta_get(mw_store *s, const char *key, char *buf, size_t buflen)
{
    sqlite3_stmt *st = stmt(s, ST_META_GET);
    if (!st) return -1;
    bind_text(st, 1, key);
    int rc = sqlite3_step(st), ret = -1;
    if (rc == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        if (buflen) snprintf(buf, buflen, "%s", v ? v : "");
        ret = 0;
    } else if (rc == SQLITE_DONE) {
        set_err(s, "%s: no meta key '%s'", s->path, key);
    } else {
        db_err(s, "reading meta");
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return ret;
}

int mw_store_meter_add(mw_store *s, int meter, const char *name, const char *host,
                       const char *port, int64_t clock_offset_ns, int64_t clock_uncertainty_ns)
{
    if (meter < 1 || !name || !*name)
        return set_err(s, "%s: a meter needs a number from 1 and a name", s->path);
    if (begin_write(s)) return -1;
    sqlite3_stmt *st = stmt(s, ST_METER_ADD);
    if (!st) return -1;
    sqlite3_bind_int(st, 1, meter);
    bind_text(st, 2, name);
    bind_text(st, 3, host);
    bind_text(st, 4, port);
    sqlite3_bind_int64(st, 5, clock_offset_ns);
    sqlite3_bind_int64(st, 6, clock_uncertainty_ns);
    return step_done(s, st, "adding a meter");
}

int mw_store_channel_add_meter(mw_store *s, int channel, const char *name, const char *host,
                               const char *pin, int meter, int meter_channel)
{
    if (meter < 1) return set_err(s, "%s: channel %d: meter %d is not a meter", s->path, channel,
                                  meter);
    if (begin_write(s)) return -1;
    sqlite3_stmt *st = stmt(s, ST_CHANNEL_ADD);
    if (!st) return -1;
    sqlite3_bind_int(st, 1, channel);
    bind_text(st, 2, name);
    bind_text(st, 3, host);
    bind_text(st, 4, pin);
    sqlite3_bind_int(st, 5, meter);
    sqlite3_bind_int(st, 6, meter_channel);
    memset(s->chmeter, 0, sizeof s->chmeter); /* a channel's meter may have changed */
    return step_done(s, st, "adding a channel");
}

int mw_store_channel_add(mw_store *s, int channel, const char *name, const char *host,
                         const char *pin)
{
    if (begin_write(s)) return -1;
    sqlite3_stmt *st = stmt(s, ST_METER1_DEFAULT);
    if (!st || step_done(s, st, "adding meter 1")) return -1;
    return mw_store_channel_add_meter(s, channel, name, host, pin, 1, channel);
}

/* The meter of a channel (table channels; 0 when it has no row there), remembered. */
static int channel_meter(mw_store *s, int channel, int *meter)
{
    int cached = channel >= 0 && channel < (int)(sizeof s->chmeter / sizeof s->chmeter[0]);
    if (cached && s->chmeter[channel]) {
        *meter = s->chmeter[channel] - 1;
        return 0;
    }
    sqlite3_stmt *st = stmt(s, ST_CHANNEL_METER);
    if (!st) return -1;
    sqlite3_bind_int(st, 1, channel);
    int rc = sqlite3_step(st);
    *meter = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return db_err(s, "reading the channels");
    if (cached) s->chmeter[channel] = *meter + 1;
    return 0;
}

/* The window being filled, as one row of windows (nothing when there is none). */
static int row_flush(mw_store *s)
{
    if (!s->row.have) return 0;
    s->row.have = 0;
    sqlite3_stmt *st = stmt(s, ST_WINDOW_ADD);
    if (!st) return -1;
    const mw_store_sample *x0 = &s->row.x[0];
    sqlite3_bind_int(st, 1, s->row.meter);
    int known = 0;
    for (int i = 0; i < s->nseen; i++)
        known |= s->seen[i] == s->row.meter;
    if (!known && s->nseen < (int)(sizeof s->seen / sizeof s->seen[0]))
        s->seen[s->nseen++] = s->row.meter;
    else if (!known)
        s->seen_more = 1;
    sqlite3_bind_int(st, 2, x0->segment);
    sqlite3_bind_int64(st, 3, x0->seq);
    sqlite3_bind_int64(st, 4, (int64_t)x0->meter_t0_us);
    sqlite3_bind_int64(st, 5, (int64_t)x0->meter_t1_us);
    sqlite3_bind_int64(st, 6, x0->t0_ns);
    sqlite3_bind_int64(st, 7, x0->t1_ns);
    sqlite3_bind_int64(st, 8, x0->uncertainty_ns);
    sqlite3_bind_int(st, 9, s->row.channel0);
    for (int k = 0; k < STORE_NSLOTS; k++) {
        if (!(s->row.used & (1u << k))) continue; /* unbound: NULL */
        const mw_store_sample *x = &s->row.x[k];
        int p = 10 + k * STORE_SLOT_FIELDS;
        sqlite3_bind_int(st, p, x->power_mw);
        sqlite3_bind_int(st, p + 1, x->vrms_mv);
        sqlite3_bind_int(st, p + 2, x->irms_ua);
        sqlite3_bind_int(st, p + 3, x->pf_milli);
        sqlite3_bind_int64(st, p + 4, x->meter_energy_mj);
        sqlite3_bind_int64(st, p + 5, x->energy_mj);
        sqlite3_bind_int64(st, p + 6, x->flags);
    }
    return step_done(s, st, "adding a window");
}

/* Does x belong in the window being filled (same meter and window, a free slot)? */
static int row_fits(const mw_store *s, const mw_store_sample *x, int meter)
{
    const mw_store_sample *a = &s->row.x[0];
    int64_t k = (int64_t)x->channel - s->row.channel0;
    return s->row.have && meter == s->row.meter && k >= 0 && k < STORE_NSLOTS &&
           !(s->row.used & (1u << k)) && x->segment == a->segment && x->seq == a->seq &&
           x->meter_t0_us == a->meter_t0_us && x->meter_t1_us == a->meter_t1_us &&
           x->t0_ns == a->t0_ns && x->t1_ns == a->t1_ns && x->uncertainty_ns == a->uncertainty_ns;
}

int mw_store_sample_add(mw_store *s, const mw_store_sample *x)
{
    if (x->meter_t0_us > INT64_MAX || x->meter_t1_us > INT64_MAX)
        return set_err(s, "%s: meter time out of range", s->path);
    int meter;
    if (begin_write(s) || channel_meter(s, x->channel, &meter)) return -1;
    if (!row_fits(s, x, meter)) {
        if (row_flush(s)) return -1;
        s->row.have = 1;
        s->row.meter = meter;
        s->row.channel0 = x->channel;
        s->row.used = 0;
    }
    int k = x->channel - s->row.channel0;
    s->row.x[k] = *x;
    s->row.used |= 1u << k;
    return 0;
}

int mw_store_gap_add_meter(mw_store *s, int64_t start_ns, int64_t end_ns, const char *reason,
                           int meter)
{
    if (begin_write(s)) return -1;
    sqlite3_stmt *st = stmt(s, ST_GAP_ADD);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, start_ns);
    sqlite3_bind_int64(st, 2, end_ns);
    bind_text(st, 3, reason ? reason : "");
    if (meter > 0)
        sqlite3_bind_int(st, 4, meter);
    else
        sqlite3_bind_null(st, 4);
    return step_done(s, st, "adding a gap");
}

int mw_store_gap_add(mw_store *s, int64_t start_ns, int64_t end_ns, const char *reason)
{
    return mw_store_gap_add_meter(s, start_ns, end_ns, reason, 0);
}

int mw_store_phase_add(mw_store *s, const mw_store_phase *p)
{
    if (!p->host || !p->kind || !p->name)
        return set_err(s, "%s: a phase needs host, kind and name", s->path);
    if (begin_write(s)) return -1;
    sqlite3_stmt *st = stmt(s, ST_PHASE_ADD);
    if (!st) return -1;
    sqlite3_bind_int(st, 1, p->rank);
    bind_text(st, 2, p->host);
    sqlite3_bind_int(st, 3, p->thread);
    bind_text(st, 4, p->kind);
    bind_text(st, 5, p->name);
    sqlite3_bind_int64(st, 6, p->start_ns);
    sqlite3_bind_int64(st, 7, p->end_ns);
    sqlite3_bind_int64(st, 8, p->bytes);
    sqlite3_bind_int64(st, 9, p->pid);
    sqlite3_bind_int(st, 10, p->peer);
    return step_done(s, st, "adding a phase");
}

int mw_store_probe_clear(mw_store *s)
{
    if (begin_write(s)) return -1;
    sqlite3_stmt *a = stmt(s, ST_PHASES_CLEAR);
    if (!a || step_done(s, a, "clearing merged phases")) return -1;
    sqlite3_stmt *b = stmt(s, ST_SYNC_CLEAR);
    if (!b || step_done(s, b, "clearing clock samples")) return -1;
    sqlite3_stmt *c = stmt(s, ST_BLOCKS_CLEAR);
    if (!c || step_done(s, c, "clearing merged phase blocks")) return -1;
    sqlite3_stmt *d = stmt(s, ST_PNAMES_CLEAR);
    if (!d) return -1;
    return step_done(s, d, "clearing merged phase names");
}

int mw_store_phase_name_add(mw_store *s, int64_t id, const char *kind, const char *name)
{
    if (begin_write(s)) return -1;
    sqlite3_stmt *st = stmt(s, ST_PNAME_ADD);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, id);
    bind_text(st, 2, kind);
    bind_text(st, 3, name);
    return step_done(s, st, "adding a phase name");
}

int mw_store_phase_block_add(mw_store *s, const mw_store_phase_block *b)
{
    if (begin_write(s)) return -1;
    sqlite3_stmt *st = stmt(s, ST_BLOCK_ADD);
    if (!st) return -1;
    sqlite3_bind_int(st, 1, b->rank);
    bind_text(st, 2, b->host);
    sqlite3_bind_int64(st, 3, b->pid);
    sqlite3_bind_int(st, 4, b->thread);
    sqlite3_bind_int64(st, 5, b->start_ns);
    sqlite3_bind_int64(st, 6, b->end_ns);
    sqlite3_bind_int64(st, 7, b->events);
    sqlite3_bind_blob(st, 8, b->data, (int)b->len, SQLITE_STATIC);
    return step_done(s, st, "adding a phase block");
}

int mw_store_clock_sync_add(mw_store *s, int rank, const char *host, int64_t pid, int64_t local_ns,
                            int64_t offset_ns, int64_t uncertainty_ns)
{
    if (begin_write(s)) return -1;
    sqlite3_stmt *st = stmt(s, ST_SYNC_ADD);
    if (!st) return -1;
    sqlite3_bind_int(st, 1, rank);
    bind_text(st, 2, host ? host : "");
    sqlite3_bind_int64(st, 3, pid);
    sqlite3_bind_int64(st, 4, local_ns);
    sqlite3_bind_int64(st, 5, offset_ns);
    sqlite3_bind_int64(st, 6, uncertainty_ns);
    return step_done(s, st, "adding a clock sample");
}

/* The clock knots of a store in memory, for the SQL functions mw_knot_t and mw_knot_unc that
 * the readers call (run_rows.c): a binary search per window in C rather than two lookups
 * in clock_knots' B-tree per time through SQL (a day's export took a third longer so). The
 * same arithmetic as the view's SQL (mw_clock_knots_map; test_store_knots compares them). */
/* The knots a store may hold: a segment has a lead point and one every 150 s of meter time,
 * so never more than two per window (a segment of one window) and a few hundred a day per
 * meter; a hostile file must not fill the memory with more than its windows justify, and a
 * genuine merged run of many hosts and days must not be refused (4 M knots is 27 days of
 * 64 hosts x 4 meters): the bound is the larger of STORE_KNOTS_MIN and 2 per window. */
#define STORE_KNOTS_MIN 4000000
typedef struct {
    int64_t meter, segment, unc_ns;
    size_t first, n;
} knot_group;
typedef struct {
    mw_clock_knot *k;
    knot_group *g;
    size_t ng;
} knot_map;

static void knot_map_free(void *p)
{
    knot_map *m = p;
    if (!m) return;
    free(m->k);
    free(m->g);
    free(m);
}

static const knot_group *knot_find(const knot_map *m, int64_t meter, int64_t segment)
{
    size_t lo = 0, hi = m->ng;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const knot_group *g = &m->g[mid];
        if (g->meter < meter || (g->meter == meter && g->segment < segment))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->ng && m->g[lo].meter == meter && m->g[lo].segment == segment ? &m->g[lo]
                                                                              : NULL;
}

/* mw_knot_t(meter, segment, meter_us, live_ns): the final time, or live_ns without knots */
static void sql_knot_t(sqlite3_context *c, int argc, sqlite3_value **v)
{
    const knot_map *m = sqlite3_user_data(c);
    const knot_group *g = knot_find(m, sqlite3_value_int64(v[0]), sqlite3_value_int64(v[1]));
    if (g)
        sqlite3_result_int64(c, mw_clock_knots_map(&m->k[g->first], (int)g->n,
                                                   sqlite3_value_int64(v[2])));
    else
        sqlite3_result_value(c, v[3]);
}

/* mw_knot_unc(meter, segment, live_unc): the segment's final uncertainty, or live_unc */
static void sql_knot_unc(sqlite3_context *c, int argc, sqlite3_value **v)
{
    const knot_map *m = sqlite3_user_data(c);
    const knot_group *g = knot_find(m, sqlite3_value_int64(v[0]), sqlite3_value_int64(v[1]));
    if (g)
        sqlite3_result_int64(c, g->unc_ns);
    else
        sqlite3_result_value(c, v[2]);
}

static int knots_load(mw_store *s)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT meter, segment, x_us, t_ns, slope, unc_ns FROM "
                                  "clock_knots ORDER BY meter, segment, x_us",
                           -1, &st, NULL) != SQLITE_OK)
        return db_err(s, "reading the clock knots");
    int64_t last_window = 0; /* windows' rowids are their arrival order: about their count */
    if (single_int(s, "SELECT coalesce(max(rowid), 0) FROM windows", &last_window) != 0)
        last_window = 0;
    size_t knots_max = STORE_KNOTS_MIN;
    if (last_window > 0 && (uint64_t)last_window < SIZE_MAX / 4 &&
        2 * (size_t)last_window + 64 > knots_max)
        knots_max = 2 * (size_t)last_window + 64;
    knot_map *m = calloc(1, sizeof *m);
    size_t nk = 0, cap = 0, gcap = 0;
    int rc = SQLITE_DONE, failed = !m;
    if (!m) set_err(s, "%s: reading the clock knots: out of memory", s->path);
    while (!failed && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (nk == knots_max) {
            set_err(s, "%s: more than %zu clock knots (2 per window at most)", s->path,
                    knots_max);
            s->unusable = failed = 1;
            break;
        }
        int64_t meter = sqlite3_column_int64(st, 0), seg = sqlite3_column_int64(st, 1);
        if (nk == cap) {
            cap = cap ? 2 * cap : 256;
            mw_clock_knot *k = realloc(m->k, cap * sizeof *k);
            if (!k) break;
            m->k = k;
        }
        if (!m->ng || m->g[m->ng - 1].meter != meter || m->g[m->ng - 1].segment != seg) {
            if (m->ng == gcap) {
                gcap = gcap ? 2 * gcap : 16;
                knot_group *g = realloc(m->g, gcap * sizeof *g);
                if (!g) break;
                m->g = g;
            }
            m->g[m->ng++] = (knot_group){meter, seg, sqlite3_column_int64(st, 5), nk, 0};
        }
        m->k[nk++] = (mw_clock_knot){sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                                     sqlite3_column_double(st, 4)};
        m->g[m->ng - 1].n++;
    }
    if (!failed && rc != SQLITE_DONE) {
        failed = 1;
        if (rc == SQLITE_ROW)
            set_err(s, "%s: reading the clock knots: out of memory", s->path);
        else
            db_err(s, "reading the clock knots");
    }
    sqlite3_finalize(st);
    if (failed) {
        knot_map_free(m);
        return -1;
    }
    /* direct only: no view or trigger of a file may call them */
    int fl = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY;
    if (sqlite3_create_function_v2(s->db, "mw_knot_t", 4, fl, m, sql_knot_t, NULL, NULL,
                                   knot_map_free) != SQLITE_OK ||
        sqlite3_create_function_v2(s->db, "mw_knot_unc", 3, fl, m, sql_knot_unc, NULL, NULL,
                                   NULL) != SQLITE_OK) {
        /* (out of memory only) neither may be left with a map the other's failure freed:
         * both go, and a reader of this connection then fails on the missing function */
        sqlite3_create_function_v2(s->db, "mw_knot_unc", 3, fl, NULL, NULL, NULL, NULL, NULL);
        sqlite3_create_function_v2(s->db, "mw_knot_t", 4, fl, NULL, NULL, NULL, NULL, NULL);
        return db_err(s, "reading the clock knots");
    }
    return 0;
}

int mw_store_has_knots(mw_store *s)
{
    if (s->version && s->version < 7) return 0;
    if (row_flush(s)) return -1;
    int64_t v; /* a store without the table (made by hand) has no knots */
    if (single_int(s, "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND "
                      "name = 'clock_knots')", &v))
        return -1;
    if (v && single_int(s, "SELECT EXISTS (SELECT 1 FROM clock_knots)", &v)) return -1;
    /* loaded once per connection (and again after this connection added knots): the
     * functions cannot be replaced while another cursor's statement uses them */
    if (v && !s->knots_loaded) {
        if (knots_load(s)) return -1;
        s->knots_loaded = 1;
    }
    return v != 0;
}

static int knots_add_one(mw_store *s, int meter, int segment, const mw_clock_knot *k, int n,
                         int64_t uncertainty_ns)
{
    sqlite3_stmt *st = stmt(s, ST_KNOT_ADD);
    if (!st) return -1;
    for (int i = 0; i < n; i++) {
        sqlite3_bind_int(st, 1, meter);
        sqlite3_bind_int(st, 2, segment);
        sqlite3_bind_int64(st, 3, k[i].x_us);
        sqlite3_bind_int64(st, 4, k[i].t_ns);
        sqlite3_bind_double(st, 5, k[i].slope_ns_per_us);
        sqlite3_bind_int64(st, 6, uncertainty_ns);
        if (step_done(s, st, "storing the clock's knots")) return -1;
    }
    return 0;
}

int mw_store_knots_add(mw_store *s, int meter, int segment, const mw_clock_knot *k, int n,
                       int64_t uncertainty_ns)
{
    if (begin_write(s) || row_flush(s)) return -1;
    s->knots_loaded = 0;
    if (meter > 0) return knots_add_one(s, meter, segment, k, n, uncertainty_ns);
    /* meter 0: the meters of every row this writer stored (one, with one meter) */
    if (!s->seen_more) {
        for (int i = 0; i < s->nseen; i++)
            if (knots_add_one(s, s->seen[i], segment, k, n, uncertainty_ns)) return -1;
        return 0;
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT DISTINCT meter FROM windows", -1, &st, NULL) != SQLITE_OK)
        return db_err(s, "storing the clock's knots");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (knots_add_one(s, sqlite3_column_int(st, 0), segment, k, n, uncertainty_ns)) break;
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : rc == SQLITE_ROW ? -1 : db_err(s, "storing the clock's knots");
}

int mw_store_commit(mw_store *s)
{
    if (!s->in_txn) return 0;
    if (row_flush(s)) return -1;
    if (s->row_failed) {
        s->row_failed = 0;
        return set_err(s, "%s: adding a window failed: the uncommitted data were lost", s->path);
    }
    if (sqlite3_get_autocommit(s->db)) { /* SQLite rolled it back after a failed write */
        s->in_txn = 0;
        return set_err(s, "%s: a write failed (disk full?): the uncommitted data were lost",
                       s->path);
    }
    if (exec(s, "COMMIT", "committing")) return -1; /* still open: a later call retries */
    s->in_txn = 0;
    s->last_commit_ns = now_ns(CLOCK_MONOTONIC);
    return 0;
}

int mw_store_maybe_commit(mw_store *s)
{
    if (!s->in_txn || now_ns(CLOCK_MONOTONIC) - s->last_commit_ns < s->commit_interval_ns) return 0;
    return mw_store_commit(s);
}

void mw_store_set_commit_interval_ns(mw_store *s, int64_t interval_ns)
{
    s->commit_interval_ns = interval_ns;
}

int64_t mw_store_commit_due_ns(const mw_store *s)
{
    return s->in_txn ? s->last_commit_ns + s->commit_interval_ns : INT64_MAX;
}

int mw_store_start_ns(mw_store *s, int64_t *start_ns)
{
    char buf[64], *end;
    if (mw_store_meta_get(s, "start_ns", buf, sizeof buf) == 0) {
        errno = 0;
        long long v = strtoll(buf, &end, 10);
        if (!errno && end != buf && !*end) {
            *start_ns = v;
            return 0;
        }
    }
    /* the first window in recording order: a primary-key lookup, not a scan (version 6: the
     * row of the lowest channel of the first window, its channel0) */
    if (row_flush(s)) return -1;
    if (single_int(s,
                   s->version && s->version < 6
                       ? "SELECT t0_ns FROM samples ORDER BY segment, seq, channel LIMIT 1"
                   : s->version && s->version < 7
                       ? "SELECT t0_ns FROM windows ORDER BY segment, seq, channel0 LIMIT 1"
                       : "SELECT " STORE_KNOT_T("k0", "w", "meter_t0_us", "t0_ns") " FROM windows w"
                         STORE_KNOT_JOIN("k0", "w", "meter_t0_us")
                         " ORDER BY w.segment, w.seq, w.channel0 LIMIT 1",
                   start_ns) == 0)
        return 0;
    return set_err(s, "%s: no start_ns and no samples", s->path);
}

/* ---- bookkeeping of a simulated cluster's run ------------------------------------------- */

int mw_store_phase_ranks(mw_store *s, int **ranks, size_t *nranks)
{
    const char *sql = s->version && s->version < 3
                          ? "SELECT DISTINCT rank FROM phases WHERE rank >= 0 ORDER BY rank"
                          : "SELECT rank FROM phases WHERE rank >= 0 UNION "
                            "SELECT rank FROM phase_blocks WHERE rank >= 0 ORDER BY rank";
    *ranks = NULL;
    *nranks = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return db_err(s, "reading the phases' ranks");
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*nranks == cap) {
            cap = cap ? 2 * cap : 64;
            int *r = realloc(*ranks, cap * sizeof *r);
            if (!r) {
                rc = SQLITE_NOMEM;
                break;
            }
            *ranks = r;
        }
        (*ranks)[(*nranks)++] = sqlite3_column_int(st, 0);
    }
    if (rc == SQLITE_NOMEM)
        set_err(s, "%s: reading the phases' ranks: out of memory", s->path);
    else if (rc != SQLITE_DONE)
        db_err(s, "reading the phases' ranks");
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) return 0;
    free(*ranks);
    *ranks = NULL;
    *nranks = 0;
    return -1;
}

/* One UPDATE ... SET host = ?1 WHERE ... = ?2, inside the write transaction. */
static int set_host(mw_store *s, const char *sql, int64_t key, const char *host, const char *what)
{
    if (begin_write(s)) return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) return db_err(s, what);
    bind_text(st, 1, host);
    sqlite3_bind_int64(st, 2, key);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_err(s, what);
    sqlite3_finalize(st);
    return rc;
}

int mw_store_phases_set_host_of_pid(mw_store *s, int64_t pid, const char *host)
{
    if (set_host(s, "UPDATE phases SET host = ?1 WHERE pid = ?2 AND kind <> 'mw'", pid, host,
                 "setting the host of a process's phases"))
        return -1;
    return set_host(s, "UPDATE phase_blocks SET host = ?1 WHERE pid = ?2", pid, host,
                    "setting the host of a process's phase blocks");
}

int mw_store_set_host_of_rank(mw_store *s, int rank, const char *host)
{
    int a = set_host(s, "UPDATE phases SET host = ?1 WHERE rank = ?2 AND kind <> 'mw'", rank, host,
                     "setting the host of a rank's phases");
    if (!a)
        a = set_host(s, "UPDATE phase_blocks SET host = ?1 WHERE rank = ?2", rank, host,
                     "setting the host of a rank's phase blocks");
    char keep[sizeof s->err];
    memcpy(keep, s->err, sizeof keep);
    int b = set_host(s, "UPDATE clock_sync SET host = ?1 WHERE rank = ?2", rank, host,
                     "setting the host of a rank's clock samples");
    if (a) memcpy(s->err, keep, sizeof keep); /* the first failure */
    return a || b ? -1 : 0;
}
