/* analysis_internal — what models/analysis*.c share while a run is fed (mw_analysis.h) and
 * nothing else sees.
 *
 * A channel is analysed as its windows stream by, in time order, without keeping them:
 * every energy the analysis will ask of it (the range, the idle baseline, each phase group's
 * spans on it, each of its ranks' span and working phases) is at(b) - at(a) for instants
 * known before the first window (the channel's "plan"); each instant's at() is accumulated
 * as the windows pass, exactly as models/energy.c computes it on a whole trace (the same
 * integer sums in the same order). What cannot stream are the power levels: they need every
 * window power in the range, kept as zigzag varint deltas with the window's phase label in
 * the lowest bit (about 2 bytes a window). */
#ifndef MW_ANALYSIS_INTERNAL_H
#define MW_ANALYSIS_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "mw_analysis.h"

typedef struct {
    mw_energy_span *s;
    size_t n, cap;
} an_spans;

void an_spans_push(an_spans *l, int64_t start_ns, int64_t end_ns);

/* The instants t_ns[0..n) (sorted, distinct) and, once fed, the energy and window time from
 * the trace's start to each (mw_energy_at_pj, mw_energy_covered_at_ns). */
typedef struct {
    int64_t *t_ns;
    mw_energy_pj *at_pj;
    int64_t *cov_ns;
    size_t n, cap;
    size_t lo, hi; /* instants [lo, hi) have their windows ended before them counted and
                      still take parts of windows holding them */
    mw_energy_pj cum_pj;
    int64_t cum_ns;
} an_plan;

/* A channel's in-range window powers and labels, encoded, in blocks that are never moved
 * (growing one array by doubling would copy it and leave the old copies resident). */
#define AN_BLOCK_BYTES 65536
typedef struct an_block {
    struct an_block *next;
    size_t n;
    unsigned char b[AN_BLOCK_BYTES];
} an_block;

typedef struct {
    an_block *head, *tail;
    int32_t prev_mw;
} an_powers;

typedef struct {
    int ready;   /* plan and work set up */
    int replay;  /* windows out of time order or malformed: mw_analysis_replay */
    int started; /* prev holds the last window fed */
    mw_energy_window prev;
    an_plan plan;
    an_spans work; /* union of the working phases of the ranks it measures (clipped) */
    size_t wk;     /* first work span not ended before the current window */
    size_t nworking;
    an_powers powers;
    int have_counter;
    mw_energy_counter counter;
    int64_t first_t0_ns, last_t1_ns; /* first and last windows in the range */
} an_chan;

/* A phase group's spans: per host the union of its intervals (slices of pool, by host), and
 * the union over every host; all clipped to the range. */
typedef struct {
    size_t host, off, n;
} an_slice;

typedef struct {
    int is_mw;
    an_spans pool;
    an_slice *hs;
    size_t nhs;
    an_spans all;
} an_group;

/* One phase as fed; strings interned (ids into the string table). */
typedef struct {
    int rank;
    uint32_t host, kind, name;
    int64_t start_ns, end_ns;
} an_row;

struct mw_analysis_work {
    int have_from, have_to;
    double from_s, to_s;
    mw_analysis_idle_power *idle_opt; /* the options' --idle-power, names copied */
    size_t nidle_opt;
    int windows_started;
    an_row *rows;
    size_t nrows, caprows;
    char **str; /* interned strings */
    size_t nstr, capstr;
    uint32_t *hash; /* open addressing: id + 1, 0 empty */
    size_t hcap;
    size_t *host_of;     /* string id -> index into the run's hosts */
    an_group *groups;    /* like the run's phases */
    an_spans *rank_work; /* like the run's ranks: working phases, union, clipped */
    an_spans idle;       /* the idle baseline: mw idle-before, idle-after, not clipped */
    an_chan ch[MW_ANALYSIS_MAX_CHANNELS];
    int map[256]; /* channel number -> index, -1 */
};

/* analysis.c: the spans of group g on channel index c (NULL, 0 when none) */
void an_group_spans(const mw_analysis_run *r, size_t g, size_t c, const mw_energy_span **s,
                    size_t *n);
/* mw_energy_rank_has_channel for rank k and channel index c over the run's channels */
int an_rank_has_channel(const mw_analysis_run *r, size_t k, size_t c);

/* analysis_channel.c */
void an_chan_setup(mw_analysis_run *r, size_t c);
void an_chan_window(mw_analysis_run *r, size_t c, const mw_energy_window *w);
int an_chan_finish(mw_analysis_run *r, size_t c);
void an_chan_free(an_chan *ch);
#endif
