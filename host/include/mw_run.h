/* mw_run — the typed, streaming read API of a run store (beside mw_store.h, its write API).
 *
 * Everything outside host/ reads runs through these cursors and never sees SQL: a cursor
 * walks one table in a fixed order, handing out one typed row at a time, so a reader holds
 * only the rows it keeps (a day of 16 channels at 4 Hz streams in constant memory). Open a
 * cursor on a store opened with mw_store_open() (read-only) or mw_store_open_write(), call
 * its next function until it returns 0, then close it. Strings in a row (names, hosts,
 * kinds) live until the next call on the same cursor; copy what you keep.
 *
 * Every function returns -1 on error with the message in mw_store_error(s) ("PATH: what:
 * SQLite's message"); next functions return 1 (a row), 0 (the end) or -1. Units are in the
 * names (docs/run-store.md): *_ns host CLOCK_REALTIME nanoseconds, power_mw, energy_mj. */
#ifndef MW_RUN_H
#define MW_RUN_H
#include <stddef.h>
#include <stdint.h>

#include "mw_store.h"

typedef struct mw_run_cursor mw_run_cursor;

/* ---- channels, in channel order -------------------------------------------------------- */
typedef struct {
    int channel; /* the run-wide channel (what windows are keyed by) */
    const char *name;
    const char *host;  /* NULL when the channel measures no one host (a switch) */
    const char *pin;   /* NULL when not recorded */
    int meter;         /* its meter (mw_run_meters); 1 in a run of one meter */
    int meter_channel; /* its current channel on that meter, 1..15; 0 when not recorded */
} mw_run_channel;
mw_run_cursor *mw_run_channels(mw_store *s);
int mw_run_channel_next(mw_run_cursor *c, mw_run_channel *out);

/* ---- meters, in meter order (schema version 5; an older run has one: meter 1, named by its
 * meta meter_usb serial or "meter", its port meta meter_port, offset 0) -------------------- */
typedef struct {
    int meter;        /* 1.. */
    const char *name; /* the USB serial, "sim-N" for a simulated board */
    const char *host; /* the host it hangs off; NULL when not recorded */
    const char *port; /* its serial port there; NULL when not recorded */
    int64_t clock_offset_ns;      /* that host's clock minus the recording host's */
    int64_t clock_uncertainty_ns; /* and the offset's uncertainty */
} mw_run_meter;
mw_run_cursor *mw_run_meters(mw_store *s);
int mw_run_meter_next(mw_run_cursor *c, mw_run_meter *out);

/* ---- windows (samples) ----------------------------------------------------------------- */
typedef enum {
    MW_RUN_BY_TIME,   /* by t1_ns, then t0_ns (the index samples_channel_time / samples_time) */
    MW_RUN_BY_WINDOW, /* by segment, seq, channel: the order the meter produced them */
} mw_run_window_order;
/* The windows of one channel, or of every channel when channel < 0. Every column of the
 * row comes back in an mw_store_sample. */
mw_run_cursor *mw_run_windows(mw_store *s, int channel, mw_run_window_order order);
int mw_run_window_next(mw_run_cursor *c, mw_store_sample *out);

/* ---- phases, with a filter ------------------------------------------------------------- */
typedef enum {
    MW_RUN_BY_START, /* by start_ns, then insertion (id) */
    MW_RUN_BY_RANK,  /* by rank, start_ns, id */
} mw_run_phase_order;
#define MW_RUN_ANY_RANK (-2147483647 - 1)
typedef struct {
    const char *const *kinds;     /* keep only these kinds (NULL-terminated); NULL: every kind */
    const char *const *not_kinds; /* leave these kinds out (NULL-terminated); NULL: none */
    const char *name;             /* keep only this exact name; NULL: any */
    int rank;                     /* keep only this rank; MW_RUN_ANY_RANK: any */
    int ranked;                   /* 1: keep only rank >= 0 */
    int spans;                    /* 1: keep only end_ns > start_ns */
    mw_run_phase_order order;
} mw_run_phase_filter;
/* The filter "everything, by start": kinds NULL, rank MW_RUN_ANY_RANK. */
mw_run_phase_filter mw_run_phase_all(void);
/* f NULL: mw_run_phase_all(). The row's host, kind, name are never NULL ("" when empty).
 * The phases are the rows of table phases and, in a schema 3 run, the events of a chatty
 * process's phase_blocks (docs/run-store.md), merged in the cursor's order; among equal keys
 * rows come first, then blocks in their insertion order (not the probe's own order). */
mw_run_cursor *mw_run_phases(mw_store *s, const mw_run_phase_filter *f);
int mw_run_phase_next(mw_run_cursor *c, mw_store_phase *out);

/* ---- gaps, by start_ns then insertion -------------------------------------------------- */
typedef struct {
    int64_t start_ns, end_ns;
    const char *reason; /* "" when none was recorded */
    int meter;          /* the one meter whose channels it concerns; 0: every meter */
} mw_run_gap;
mw_run_cursor *mw_run_gaps(mw_store *s);
int mw_run_gap_next(mw_run_cursor *c, mw_run_gap *out);

/* ---- metadata, by key ------------------------------------------------------------------ */
mw_run_cursor *mw_run_meta(mw_store *s);
int mw_run_meta_next(mw_run_cursor *c, const char **key, const char **value);

/* ---- counts ---------------------------------------------------------------------------- */
typedef struct {
    int64_t samples, gaps, phases, channels;
    int64_t gap_ns; /* the gaps' total length */
    int64_t meters; /* rows of meters (a run older than version 5: 1) */
} mw_run_counts;
int mw_run_count(mw_store *s, mw_run_counts *out);

/* Close a cursor (NULL is fine). */
void mw_run_close(mw_run_cursor *c);

/* ==== one snapshot; mw export's phase order, named windows and null meta values ===
 * (for mw export, ls, show, align, stats, dvfs and mw plot's run loading) */

/* One read transaction around several cursors, on a store opened read-only, so that they
 * all read one consistent snapshot of a run that mw record may be writing
 * (docs/run-store.md). Close the cursors before the end. Both return 0, or -1 with the
 * message in mw_store_error(s). */
int mw_run_snapshot_begin(mw_store *s);
int mw_run_snapshot_end(mw_store *s);

/* Every phase by start_ns, then rank, thread and insertion: mw export's order. Rows come
 * from mw_run_phase_next(). */
mw_run_cursor *mw_run_phases_by_start_rank(mw_store *s);

/* Every window in the order the meter produced them (segment, seq, channel), each with its
 * channel's name, or the channel number in decimal when the channels table has no such
 * channel. name lives until the next call. mw_run_window_next() reads it too (no name). */
mw_run_cursor *mw_run_named_windows(mw_store *s);
int mw_run_named_window_next(mw_run_cursor *c, mw_store_sample *out, const char **name);

/* As mw_run_meta_next(), but a NULL value comes back NULL (mw export writes it as null). */
int mw_run_meta_next_nullable(mw_run_cursor *c, const char **key, const char **value);

/* The value (bytes) of the first recorded phase of kind "counter" named name (the first
 * inserted, e.g. eeg-mofs's "eeg version"): 1 with *value, 0 when there is none, -1. */
int mw_run_counter_first(mw_store *s, const char *name, int64_t *value);
/* ==== added for the analysis (models/analysis_run.c) =================================== */

/* ---- windows' power only: channel, t0_ns, t1_ns, power_mw ------------------------------ */
/* The four columns an energy integral needs, in the orders of mw_run_windows (channel < 0:
 * every channel): decoding fewer columns makes a scan of a day's samples faster. */
typedef struct {
    int channel;
    int64_t t0_ns, t1_ns;
    int32_t power_mw;
} mw_run_power;
mw_run_cursor *mw_run_powers(mw_store *s, int channel, mw_run_window_order order);
int mw_run_power_next(mw_run_cursor *c, mw_run_power *out);

/* The window of channel `channel` with these host times (the first in the order of the
 * (channel, t1_ns) index when several have them): 1 with it in *out, 0 when there is none,
 * -1 on error. */
int mw_run_window_find(mw_store *s, int channel, int64_t t0_ns, int64_t t1_ns,
                       mw_store_sample *out);

/* ==== in-band sources (mw_inband.h; schema version 4, an older run has none) =========== */
typedef struct {
    int source;
    const char *name, *host, *kind, *domain, *device; /* never NULL */
    uint64_t range_uj;
    int additive, sampled;
} mw_run_inband_channel;
/* by source */
mw_run_cursor *mw_run_inband_channels(mw_store *s);
int mw_run_inband_channel_next(mw_run_cursor *c, mw_run_inband_channel *out);
/* one source's windows (every source's when source < 0), by source then seq */
mw_run_cursor *mw_run_inband_windows(mw_store *s, int source);
int mw_run_inband_window_next(mw_run_cursor *c, mw_inband_window *out);
/* the spans a source could not be read, by source then start */
mw_run_cursor *mw_run_inband_gaps(mw_store *s);
int mw_run_inband_gap_next(mw_run_cursor *c, int *source, mw_run_gap *out);
#endif
