/* mw_analysis — the analysis of a run (mw analyze, docs/analysis.md): energy per channel,
 * phase group, rank and node, Pow_idle/Pow_work three ways (models/include/levels.h), and mean ± sd
 * across runs. Numbers in, numbers out: no SQL, nothing printed; results are plain structs
 * that a report reads as the JSON of `mw analyze --json` says them (docs/analysis.md names
 * each key; the comments below name the key each field becomes).
 *
 * A run is fed in order: its channels, then its phases, then its windows (any order; the
 * usual order, each channel's windows by time, streams: nothing but each in-range window's
 * power is kept, about 2 bytes, and the instants at which energies are asked). A channel
 * whose windows do not come in time order asks for them again, all at once
 * (mw_analysis_replay_needed / mw_analysis_replay); the meter's counter at the first and
 * last window of the range is asked of the caller too (mw_analysis_counter_windows /
 * mw_analysis_set_counter). mw_analysis_finish then computes every figure.
 * mw_analysis_read (models/analysis_run.c) does all of this from a run directory through
 * the run store's read API (host/include/mw_run.h).
 *
 * Definitions (docs/analysis.md): the range is [from, to) in s since the run's origin,
 * open-ended when not given; phases of kinds mark and counter, and empty ones, are left out.
 * A phase group (kind, name) on a channel is the union of its intervals over the ranks that
 * channel measures (models/include/energy.h's rule: a channel with a host measures that host's
 * ranks, one without every rank; the recorder's kind mw phases cover every channel). A
 * window is working for the phase split when the union of the channel's ranks' computation
 * (mw_phase_class.h's one rule: a rank's time outside MPI and waits, its working phases
 * compute, user, omp, gpu, cuda marked, the rest inferred) covers more than half of it. Energies are exact integers of picojoules
 * (models/include/energy.h); a figure that does not exist is NAN from the helpers below.
 *
 * Functions returning int give 0, or -1 with a one-line message in err (no trailing
 * newline, prefixed with the run's directory as mw analyze prints it). */
#ifndef MW_ANALYSIS_H
#define MW_ANALYSIS_H
#include <stddef.h>
#include <stdint.h>

#include "energy.h"
#include "levels.h"

#define MW_ANALYSIS_MAX_CHANNELS 64
#define MW_ANALYSIS_NAME 128 /* channel names and hosts are cut to 127 bytes */

/* ---- options --------------------------------------------------------------------------- */

/* --idle-power: power_w for the channel named channel, or for every channel (channel NULL);
 * a named one wins over the one for every channel. */
typedef struct {
    const char *channel;
    double power_w;
} mw_analysis_idle_power;

typedef struct {
    int have_from, have_to; /* 0: open-ended */
    double from_s, to_s;    /* s since the run's origin, |s| < 1e9 */
    const mw_analysis_idle_power *idle;
    size_t nidle;
} mw_analysis_options;

/* ---- results --------------------------------------------------------------------------- */

typedef enum {
    MW_ANALYSIS_SKIPPED, /* not attempted: JSON null (the split without working phases) */
    MW_ANALYSIS_OK,
    MW_ANALYSIS_FAILED /* levels.note says why */
} mw_analysis_state;

/* One level estimate ("kde", "gmm", "split"). */
typedef struct {
    mw_analysis_state state;
    int constant;                         /* kde only: every window at one power */
    mw_levels levels;                     /* pow_idle_w = levels.idle_w, ... note */
    size_t working_windows, idle_windows; /* split only: the labels */
} mw_analysis_estimate;

typedef enum {
    MW_ANALYSIS_IDLE_NONE,   /* no idle power: dynamic energies are null */
    MW_ANALYSIS_IDLE_PHASES, /* "idle phases": the mw phases idle-before and idle-after */
    MW_ANALYSIS_IDLE_OPTION  /* "--idle-power" */
} mw_analysis_idle_source;

typedef struct {
    int channel;                 /* "channel" */
    char name[MW_ANALYSIS_NAME]; /* "name" */
    int has_host;
    char host[MW_ANALYSIS_NAME]; /* "host" when has_host, else null */
    char meter_host[MW_ANALYSIS_NAME]; /* "meter_host": the host its meter hangs on, where the
                                          run recorded it; "" (null) when not recorded */
    size_t *ranks;               /* "ranks": indices into the run's ranks it measures */
    size_t nranks;
    size_t windows;                       /* "windows": windows overlapping the range */
    int64_t covered_ns;                   /* "covered_s": window time in the range */
    mw_energy_pj energy_pj;               /* "energy_j" */
    int have_meter;                       /* 0: "meter_energy_j" and the differences are null */
    mw_energy_pj meter_pj;                /* "meter_energy_j" (difference: energy_pj - meter_pj) */
    mw_analysis_idle_source idle_source;  /* "idle_power_source" */
    double idle_power_w;                  /* "idle_power_w" when idle_source */
    mw_analysis_estimate kde, gmm, split; /* "kde" (also "pow_idle_w"...), "gmm", "split" */
    double constant_power_w;              /* the power when kde.constant */
    int64_t work_ns;            /* "work_s": the union of its ranks' computation, clipped */
    mw_energy_pj work_energy_pj; /* "work_energy_j": the channel's energy during it */
    int64_t work_covered_ns;     /* window time during it */
} mw_analysis_channel;

/* A phase group (kind, name); per channel figures in arrays indexed like the run's
 * channels, a channel's entry counting only where channel_duration_ns is not 0. */
typedef struct {
    char *kind, *name;
    size_t intervals;             /* "intervals": its phases, all hosts, in or out of the range */
    int64_t duration_ns;          /* "duration_s": its union over every host, clipped */
    int64_t *channel_duration_ns; /* "duration_s": the channel's union */
    int64_t *channel_covered_ns;  /* "covered_s" */
    mw_energy_pj *channel_energy_pj; /* "energy_j" */
} mw_analysis_phase;

/* A rank: a (rank, host) pair of the phases, the recorder's own left out. */
typedef struct {
    int rank;
    const char *host; /* "host" (the run's copy) */
    size_t *channels; /* "channels": indices into the run's channels */
    size_t nchannels;
    int64_t start_ns, end_ns;               /* "start_s", "end_s": its phases' span, clipped */
    int64_t work_ns;     /* "work_s": its computation (mw_phase_class.h's rule), clipped */
    int64_t inferred_ns; /* "work_inferred_s": the part of work_ns that no working phase of
                            the program covers (its time outside MPI and waits) */
    mw_energy_pj energy_pj, work_energy_pj; /* "energy_j", "work_energy_j" */
    int64_t covered_ns, work_covered_ns;    /* window time of those two */
} mw_analysis_rank;

struct mw_analysis_work; /* the state while the run is fed; NULL once finished */

typedef struct {
    char *dir;                 /* "run" */
    char status[128];          /* "status" (meta status, "unknown" when none) */
    int64_t probe_dropped;     /* meta probe_dropped_events: events the probes dropped */
    int64_t origin_ns;         /* "start_ns": times below are printed since it */
    int64_t from_ns, to_ns;    /* the range asked (INT64_MIN, INT64_MAX: open) */
    int64_t first_ns, last_ns; /* "from_s", "to_s": the data's extent in the range */
    int64_t samples;           /* windows read, all channels, in or out of the range */
    mw_analysis_channel *channels;
    size_t nchannels;
    mw_analysis_phase *phases; /* by kind, then name */
    size_t nphases;
    mw_analysis_rank *ranks; /* by rank, then host */
    size_t nranks;
    char **hosts; /* the phases' hosts, sorted (a rank's host points here) */
    size_t nhosts;
    size_t meter_hosts; /* distinct meter hosts of its channels: 2 or more in a run merged from
                           several hosts (docs/scaling.md), where readers show each channel's */
    struct mw_analysis_work *work;
    struct mw_inband_share *inband; /* "inband" (inband_share.h): NULL without in-band sources
                                       (filled by mw_analysis_read) */
} mw_analysis_run;

/* ---- feeding a run --------------------------------------------------------------------- */

/* A run to feed: dir (copied) names it in messages; origin_ns is the run's time origin (meta
 * start_ns, else its first sample's start) from which the options' range is taken. */
mw_analysis_run *mw_analysis_new(const char *dir, int64_t origin_ns, const mw_analysis_options *o);
/* Channels first (host NULL: none). -1 past MW_ANALYSIS_MAX_CHANNELS, and once windows
 * were added. */
int mw_analysis_add_channel(mw_analysis_run *r, int channel, const char *name, const char *host,
                            char *err, size_t errlen);
/* The host channel `channel` (added before) has its meter on; NULL or "" leaves it unset.
 * Counts the run's distinct meter hosts (meter_hosts). */
void mw_analysis_set_meter_host(mw_analysis_run *r, int channel, const char *host);
/* Then every phase (rank -1: outside MPI); strings are copied. */
void mw_analysis_add_phase(mw_analysis_run *r, int rank, const char *host, const char *kind,
                           const char *name, int64_t start_ns, int64_t end_ns);
/* Then every window [t0_ns, t1_ns) of power_mw; a channel not added is added (named by its
 * number, without host). -1 past MW_ANALYSIS_MAX_CHANNELS. */
int mw_analysis_add_window(mw_analysis_run *r, int channel, int64_t t0_ns, int64_t t1_ns,
                           int32_t power_mw, char *err, size_t errlen);
/* Channel index c's windows did not come in time order (or one is malformed): give them
 * all again, in the order first given, with mw_analysis_replay (w is sorted in place; the
 * caller frees it). -1 when they are not one time series (err says why). */
int mw_analysis_replay_needed(const mw_analysis_run *r, size_t c);
int mw_analysis_replay(mw_analysis_run *r, size_t c, mw_energy_window *w, size_t n, char *err,
                       size_t errlen);
/* 1 with the first and last windows (in time) overlapping the range of channel index c,
 * whose counters the caller reads (the run store's energy_mj at each, and the first's
 * length in meter time) and sets; 0 when the channel has no window in the range. */
int mw_analysis_counter_windows(const mw_analysis_run *r, size_t c, mw_energy_window *first,
                                mw_energy_window *last);
void mw_analysis_set_counter(mw_analysis_run *r, size_t c, int64_t first_energy_mj,
                             int64_t first_meter_us, int64_t last_energy_mj);
/* Every figure. -1 when a channel still needs its replay, when no window was given (err:
 * "DIR: no samples") or none lies in the range. */
int mw_analysis_finish(mw_analysis_run *r, char *err, size_t errlen);
void mw_analysis_free(mw_analysis_run *r);

/* The whole of it from RUNDIR (models/analysis_run.c): -1 with the reason (not a run, an
 * unreadable database, no samples, an empty range, windows that are not a time series). */
int mw_analysis_read(const char *dir, const mw_analysis_options *o, mw_analysis_run **out,
                     char *err, size_t errlen);

/* ---- figures (NAN when there is none) -------------------------------------------------- */

/* "meter_difference_pct": (energy - meter) / meter x 100 */
double mw_analysis_meter_difference_pct(const mw_analysis_channel *c);
/* "dynamic_energy_j" of energy_pj over covered_ns on channel c: energy - idle x time */
double mw_analysis_dynamic_j(const mw_analysis_channel *c, mw_energy_pj energy_pj,
                             int64_t covered_ns);
/* an estimate's "pow_idle_w" and "pow_work_w" */
double mw_analysis_idle_w(const mw_analysis_estimate *e);
double mw_analysis_work_w(const mw_analysis_estimate *e);
/* "idle_power_source" as JSON says it; NULL for MW_ANALYSIS_IDLE_NONE */
const char *mw_analysis_idle_source_name(mw_analysis_idle_source s);
/* Coverage: the time of the recorder's phases (kind "mw": idle-before, command, idle-after)
 * in the range, and the least window time any channel has inside them. Returns 1 when the
 * meter covers less of it than it should (more than 1 % of it, and over 0.5 s, without
 * windows: a meter lost for good, gaps), with "the meter covers C s of the S s run" in note;
 * 0 when it covers it, or the run has no such phases (nothing in note). */
int mw_analysis_coverage(const mw_analysis_run *r, int64_t *span_ns, int64_t *covered_ns,
                         char *note, size_t notelen);
/* "start_s"-like instants of the run: t_ns - origin_ns, exact */
static inline __int128 mw_analysis_since_ns(const mw_analysis_run *r, int64_t t_ns)
{
    return (__int128)t_ns - r->origin_ns;
}

/* ---- across runs ----------------------------------------------------------------------- */

typedef enum {
    MW_ANALYSIS_ENERGY,     /* "energy_j" */
    MW_ANALYSIS_METER,      /* "meter_energy_j" */
    MW_ANALYSIS_MEAN_POWER, /* "mean_power_w" */
    MW_ANALYSIS_DYNAMIC,    /* "dynamic_energy_j" */
    MW_ANALYSIS_KDE_IDLE,   /* "pow_idle_w" */
    MW_ANALYSIS_KDE_WORK,   /* "pow_work_w" */
    MW_ANALYSIS_GMM_IDLE,   /* "gmm": {"pow_idle_w"} */
    MW_ANALYSIS_GMM_WORK,
    MW_ANALYSIS_SPLIT_IDLE, /* "split": {"pow_idle_w"} */
    MW_ANALYSIS_SPLIT_WORK,
    MW_ANALYSIS_METRICS
} mw_analysis_metric;

/* A channel's figure m (J or W), NAN when it has none. */
double mw_analysis_metric_value(const mw_analysis_channel *c, mw_analysis_metric m);

typedef struct {
    size_t n;        /* runs with a figure */
    double mean, sd; /* GSL mean and sample sd; NAN when n is 0 (mean) or < 2 (sd) */
} mw_analysis_summary;

typedef struct {
    const char *name; /* the runs' channel name */
    size_t runs;      /* channels of that name over the runs */
    mw_analysis_summary metric[MW_ANALYSIS_METRICS];
} mw_analysis_name_summary;

typedef struct {
    size_t nruns;
    mw_analysis_name_summary *channels; /* in order of first appearance */
    size_t nchannels;
} mw_analysis_aggregate;

/* Mean ± sd per channel name over runs[0..n) (names point into the runs). */
void mw_analysis_aggregate_runs(const mw_analysis_run *const *runs, size_t n,
                                mw_analysis_aggregate *out);
void mw_analysis_aggregate_free(mw_analysis_aggregate *a);
#endif
