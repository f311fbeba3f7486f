/* merge — put the instrumentation's events (the spill files RUNDIR/probe/NAME.mwp written by
 * libmwprobe, docs/probe.md) into the run store's phases, on the recorder host's clock.
 *
 * Each spill file is one process: its host, pid, rank, threads, names, events and clock
 * samples (offset to the recorder's clock at a local time). An event's times are mapped
 * with the offset interpolated linearly in local time between the file's clock samples
 * (held constant before the first and after the last; 0 when a file has none: the process
 * ran on the recorder's host). A process with many events (compact_min_events) has its MPI,
 * OpenMP and GPU events stored in the compact phase_blocks, the rest as rows of phases
 * (docs/run-store.md); mw_run.h reads both as phases. Merging replaces the phases of earlier merges (every kind but "mw", the
 * recorder's own) and the clock_sync rows, so it can be redone while the spill files are
 * there; a successful merge removes them (unless keep_spill), and a merge that finds none
 * keeps what the store holds. It also sets meta probe_processes, probe_events and
 * probe_dropped_events. A partial last line (a process killed while writing) is ignored; any
 * other malformed line is reported with its file and line and the file is skipped (and
 * kept). */
#ifndef MW_MERGE_H
#define MW_MERGE_H
#include <stddef.h>

#include "mw_store.h"

typedef struct {
    int files, skipped;
    long long events, clock_samples, dropped; /* dropped: counted by the probes themselves */
    long long aggregated; /* events replaced by per-window aggregates (aggregate_hz) */
} mw_merge_stats;

typedef struct {
    long long compact_min_events; /* a process with this many events or more has its MPI,
                                   * OpenMP, GPU events stored in phase_blocks; 0: the
                                   * default, 65,536; 1: every process */
    int keep_spill;               /* 1: leave the spill files after a successful merge */
    double aggregate_hz; /* > 0: in a chatty process's blocks, a thread's meter window (meta
                          * meter_rate_hz, else 4 Hz) holding more than aggregate_hz x the
                          * window's length of events becomes one phase per kind and name:
                          * laid end to end from the window's first start, each as long as
                          * its events together, bytes summed, peer kept when common (else
                          * -1); the count of calls is not kept. 0: off (the default) */
} mw_merge_opts;

/* Merge RUNDIR/probe/NAME.mwp into s (open for writing). Returns 0, or -1 with a message in
 * err. A skipped file is not an error: it is counted, and its message ("FILE:LINE: what")
 * goes to skipped(ctx, message) when skipped is not NULL. */
int mw_merge_run(mw_store *s, const char *rundir, mw_merge_stats *st,
                 void (*skipped)(void *ctx, const char *message), void *ctx, char *err,
                 size_t errlen);
/* The same with options (mw_merge_run: keep_spill from the environment variable
 * MW_KEEP_SPILL=1, compact_min_events from MW_MERGE_COMPACT_EVENTS, aggregate_hz from
 * MW_MERGE_AGGREGATE_HZ, else the defaults). */
int mw_merge_run_opts(mw_store *s, const char *rundir, const mw_merge_opts *o,
                      mw_merge_stats *st, void (*skipped)(void *ctx, const char *message),
                      void *ctx, char *err, size_t errlen);
#endif
