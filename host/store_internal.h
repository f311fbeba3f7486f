/* store_internal — what host/'s own readers (run.c, the sweep index, import, merge) share
 * with store.c and nothing outside host/ may see: the SQLite connection of a store and the
 * way store.c words a database error. */
#ifndef MW_STORE_INTERNAL_H
#define MW_STORE_INTERNAL_H
#include <sqlite3.h>
#include <stddef.h>

#include "mw_store.h"

sqlite3 *mw_store_sqlite(mw_store *s);
/* Sets mw_store_error(s) to "PATH: what: SQLite's message"; returns -1. */
int mw_store_db_error(mw_store *s, const char *what);
/* Begin the write transaction if none is open (what every mw_store_*_add does first);
 * -1 on a reader or when BEGIN fails. */
int mw_store_write_begin(mw_store *s);
/* Sets mw_store_error(s) to "PATH: " and the message, and mw_store_bad_input(s); returns
 * -1: a value in the file that the read API cannot hand out as it is. */
int mw_store_bad_value(mw_store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The run's schema version (1 has no phases.pid, phases.peer, clock_sync). */
int mw_store_schema(const mw_store *s);

/* A database a user hands over (a run store, a sweep index) is opened defensively: every
 * connection gets SQLITE_DBCONFIG_DEFENSIVE and trusted_schema=OFF (mw_sqlite_defend), and
 * an existing file's sqlite_schema may hold only the objects its format defines
 * (mw_sqlite_check_schema): no trigger, no view, no table or index of another name. allowed
 * lists "type name" pairs ("table meta", "index gaps_time"), NULL-terminated; SQLite's own
 * sqlite_autoindex_TABLE_N of an allowed table and sqlite_stat1/sqlite_stat4 (ANALYZE,
 * PRAGMA optimize) pass too. On a refusal err holds "PATH: not a megawatt KIND: it holds
 * TYPE NAME". Both return 0, or -1 with err set; mw_sqlite_check_schema returns 1 (err set)
 * on such a refusal and -1 when the schema could not be read. */
int mw_sqlite_defend(sqlite3 *db, const char *path, char *err, size_t errlen);
int mw_sqlite_check_schema(sqlite3 *db, const char *const *allowed, const char *path,
                           const char *kind, char *err, size_t errlen);

/* ---- schema version 6: table windows, one row per window of a meter ----------------------
 * Slot k (1..16) of a row holds channel channel0 + k - 1 in columns pK (power_mw), vK
 * (vrms_mv), iK (irms_ua), pfK (pf_milli), meK (meter_energy_mj), eK (energy_mj), fK
 * (flags), NULL where the window has no such channel (docs/run-store.md). STORE_SLOTS(M)
 * expands M(1) .. M(16); STORE_SLOT_NAMES(k) is ", pK, vK, ..., fK" (store.c writes them,
 * merge_hosts.c copies them). */
#define STORE_SLOTS(M) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16)
#define STORE_SLOTS2(M, c)                                                                         \
    M(c, 1) M(c, 2) M(c, 3) M(c, 4) M(c, 5) M(c, 6) M(c, 7) M(c, 8) M(c, 9) M(c, 10) M(c, 11)      \
        M(c, 12) M(c, 13) M(c, 14) M(c, 15) M(c, 16)
#define STORE_SLOT_COLS(k)                                                                         \
    ",\n    p" #k " INTEGER, v" #k " INTEGER, i" #k " INTEGER, pf" #k " INTEGER, me" #k             \
    " INTEGER, e" #k " INTEGER, f" #k " INTEGER"
#define STORE_SLOT_NAMES(k) ", p" #k ", v" #k ", i" #k ", pf" #k ", me" #k ", e" #k ", f" #k
/* windows' one index, made when the writer that made the store closes it (and by the merge
 * after its copy): while recording, each commit would rewrite a leaf of it */
#define STORE_WINDOWS_INDEX "CREATE INDEX IF NOT EXISTS windows_time ON windows(t1_ns)"
#define STORE_NSLOTS 16
#define STORE_SLOT_FIELDS 7 /* p v i pf me e f */
#define STORE_SLOT_COUNT(k) " + (p" #k " NOT NULL)"
/* the samples of version 6's windows: one per slot with a power (the view's own test) */
#define STORE_SAMPLES_COUNT "SELECT coalesce(sum(0" STORE_SLOTS(STORE_SLOT_COUNT) "), 0) FROM windows"
#define STORE_SLOT_WCOLS(k) ", w.p" #k ", w.v" #k ", w.i" #k ", w.pf" #k ", w.me" #k ", w.e" #k ", w.f" #k

/* ---- schema version 7: times mapped through clock_knots ---------------------------------
 * A window's final times: the meter time x through the point of its meter and segment at or
 * before x (the first point when none is), t_ns + round((x - x_us) * slope), as
 * mw_clock_knots_map computes it; the stamp written while recording where the segment has
 * no points (a run still recorded, or cut short). STORE_KNOT_JOIN(a, w, x) joins alias a,
 * the point for w's meter time column x; STORE_KNOT_T(a, w, x, live) is the time. */
#define STORE_KNOT_JOIN(a, w, x)                                                                   \
    " LEFT JOIN clock_knots " a " ON " a ".meter = " w ".meter AND " a ".segment = " w           \
    ".segment AND " a ".x_us = coalesce((SELECT max(x_us) FROM clock_knots WHERE meter = " w      \
    ".meter AND segment = " w ".segment AND x_us <= " w "." x "), (SELECT min(x_us) FROM "        \
    "clock_knots WHERE meter = " w ".meter AND segment = " w ".segment))"
#define STORE_KNOT_T(a, w, x, live)                                                                \
    "CASE WHEN " a ".x_us IS NULL THEN " w "." live " ELSE " a ".t_ns + CAST(round((" w "." x    \
    " - " a ".x_us) * " a ".slope) AS INTEGER) END"
/* t0_ns, t1_ns, uncertainty_ns of windows w, with its joins (k0 for t0, k1 for t1) */
#define STORE_KNOT_TIMES(w)                                                                        \
    STORE_KNOT_T("k0", w, "meter_t0_us", "t0_ns") ", " STORE_KNOT_T("k1", w, "meter_t1_us", "t1_ns") \
    ", coalesce(k1.unc_ns, " w ".uncertainty_ns)"
#define STORE_KNOT_JOINS(w) STORE_KNOT_JOIN("k0", w, "meter_t0_us") STORE_KNOT_JOIN("k1", w, "meter_t1_us")
/* 1 when the store has clock knots to map through (version 7 and a row in clock_knots), 0
 * when its rows' times are final as they are (older versions, a run still being recorded
 * or cut short, an import), -1 on a read error. With 1, the connection has the knots as
 * read now in SQL functions for its own statements (not views): mw_knot_t(meter, segment,
 * meter_us, live_ns), STORE_KNOT_T's time, and mw_knot_unc(meter, segment, live_unc). */
int mw_store_has_knots(mw_store *s);

/* ---- the compact phases of schema version 3 (merge.c writes, run.c reads) ---------------- */
/* One thread's events, sorted by start, encoded by phase_codec.h; start_ns is the first
 * event's start (the codec's base), end_ns the latest end. */
typedef struct {
    int rank, thread;
    const char *host;
    int64_t pid, start_ns, end_ns, events;
    const void *data;
    size_t len;
} mw_store_phase_block;
int mw_store_phase_block_add(mw_store *s, const mw_store_phase_block *b);
/* A row of phase_names: the (kind, name) an event's name id stands for. */
int mw_store_phase_name_add(mw_store *s, int64_t id, const char *kind, const char *name);
#endif
