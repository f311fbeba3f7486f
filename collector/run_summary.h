/* run_summary — what "mw ls" and "mw show" (cmd_runs.c) know of a run: its status, start,
 * end and command times from the metadata, and per-channel figures from one scan of its
 * windows through the run store's read API (mw_run.h), plus the number formatting both
 * commands share. The commands only parse, call these and print.
 *
 * A run is read with one scan of its windows in the meter's order (segment, seq,
 * channel), inside the caller's snapshot, summing each channel's windows in exact
 * integers (models/include/window_totals.h):
 *   energy (windows) = sum over the channel's windows of power_mw x (t1_ns - t0_ns), the
 *                      energy of the windows that were recorded;
 *   energy (meter)   = energy_mj of the last window - that of the first + the first
 *                      window's own energy (power_mw x its meter-time length), i.e. the
 *                      meter's counter over the same span, which also counts windows that
 *                      were lost on the way;
 *   mean power       = energy (windows) / the windows' total length;
 *   gaps             = holes of over 1 ms between consecutive windows of the channel.
 * The run's own gaps table (what the recorder noticed) is counted separately. Numbers are
 * formatted from integers, rounded once, and always carry their unit. Errors are printed
 * as "mw CMD: ..." on standard error (this is the command layer, not a library). */
#ifndef MW_RUN_SUMMARY_H
#define MW_RUN_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "mw_store.h"
#include "window_totals.h"

#define MW_RUNSUM_MAX_CHANNELS 64

typedef struct {
    int channel;
    char name[128], host[128], pin[32];
    int meter, meter_channel; /* its meter (1 in a run of one) and channel there */
    mw_window_totals t;
} mw_runsum_channel;

typedef struct {
    char status[256];
    int have_start, have_end;
    int64_t start_ns, end_ns;
    int have_cmd; /* the command's start and end (meta cmd_*_ns) */
    int64_t cmd_start_ns, cmd_end_ns;
    int64_t first_t0_ns, last_t1_ns; /* the windows' extent (samples > 0) */
    int64_t samples, gaps, gap_ns;
    __int128 window_pj;
    int nch;
    mw_runsum_channel ch[MW_RUNSUM_MAX_CHANNELS];
} mw_runsum_run;

/* a - b of times read from a run, without signed overflow: it wraps only for a damaged
 * run's times (as since() in export_tables.c) */
int64_t mw_runsum_ns_diff(int64_t a, int64_t b);
/* ns as seconds with 3 decimals and the unit "s"; returns buf */
const char *mw_runsum_seconds(char *buf, size_t len, int64_t ns);
/* Energy from pJ: J with 3 decimals below 10 kJ, kJ with 3 decimals above; returns buf. */
const char *mw_runsum_energy(char *buf, size_t len, __int128 pj);
/* Local time, ISO 8601 with the UTC offset: 2023-11-14T23:13:20+01:00; returns buf. */
const char *mw_runsum_iso_local(char *buf, size_t len, int64_t ns);

/* prints "mw CMD: " and the store's error on standard error; returns -1 */
int mw_runsum_fail(const char *cmd, mw_store *s);
/* Everything ls and show need (the caller holds a snapshot): 0, or -1 with the error
 * printed. */
int mw_runsum_read(const char *cmd, mw_store *s, mw_runsum_run *r);
/* The run's duration into buf ("-" when none is known), *what saying which it is. */
const char *mw_runsum_duration(char *buf, size_t len, const mw_runsum_run *r, const char **what);
/* Open RUNDIR for cmd: NULL with the error printed and the exit code in *code. */
mw_store *mw_runsum_open(const char *cmd, const char *rundir, int *code);

#endif
