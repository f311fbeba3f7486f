/* plot_lanes — the phases' lanes of mw plot's trace and timeline (plots/plot_lanes.c): the
 * boxes of every class in every lane turned into rows that never show a class more than its
 * share of the time at any point of the axis. Not installed. */
#ifndef MW_PLOT_LANES_H
#define MW_PLOT_LANES_H
#include <stddef.h>
#include <stdint.h>

#include "mw_plot.h"

#define MW_PLOT_LANE_BINS 1000 /* the axis in bins of 1/1000: about a pixel of the figure */

typedef struct {
    int cls, lane; /* MW_PLOT_CLS_* (inferred included); lane 1.. */
    int64_t t0, t1;
} mw_plot_lane_box;

/* A row: [t0, t1) in lane, drawn from share offset `off` to off + share of the lane's height
 * (0 to 1, from its top): share 1, off 0 for a span of the class itself. */
typedef struct {
    int64_t t0, t1;
    int lane;
    double share, off;
} mw_plot_lane_row;

typedef struct {
    mw_plot_lane_row *r;
    size_t n, cap;
} mw_plot_lane_rows;

/* The rows of boxes b[0..n) (sorted in place) on the axis [lo_ns, hi_ns), per class into
 * out[0..MW_PLOT_NCLS_ALL) (appended; the caller frees out[k].r). Per lane and class the
 * boxes are united; a span of the union at least one bin long is a row of its own (exact);
 * shorter ones are summed per bin, and each bin gets, per class, a bar as high as the
 * class's share of the bin's time, the classes' bars stacked (so a bin with 3 % barrier and
 * 97 % computation shows that, not a full barrier); consecutive bins with equal bars are
 * one row. */
void mw_plot_lanes_make(mw_plot_lane_box *b, size_t n, int64_t lo_ns, int64_t hi_ns,
                        mw_plot_lane_rows out[MW_PLOT_NCLS_ALL]);
#endif
