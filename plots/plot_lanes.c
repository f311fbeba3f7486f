/* plot_lanes — see plot_lanes.h. Boxes are sorted by lane, class and start; one lane at a
 * time: each class's boxes are united on the fly (sorted by start, a box starting at or
 * before the current span's end extends it), long spans become rows, short ones go into the
 * lane's share table (class x bin, the time of the span inside each bin it touches); then
 * every bin's shares are stacked in class order, scaled down when overlapping classes sum
 * to more than the bin. */
#include "plot_lanes.h"

#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"

static int box_by_lane(const void *a, const void *b)
{
    const mw_plot_lane_box *x = a, *y = b;
    if (x->lane != y->lane) return x->lane - y->lane;
    if (x->cls != y->cls) return x->cls - y->cls;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* appends a row, or extends the last when it continues it with the same bar */
static void push(mw_plot_lane_rows *l, mw_plot_lane_row x)
{
    if (l->n) {
        mw_plot_lane_row *p = &l->r[l->n - 1];
        if (p->lane == x.lane && p->t1 == x.t0 && p->share == x.share && p->off == x.off) {
            p->t1 = x.t1;
            return;
        }
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->r = mw_xrealloc(l->r, l->cap * sizeof *l->r);
    }
    l->r[l->n++] = x;
}

typedef struct {
    int64_t lo, hi;
    double bin; /* ns */
    double *share; /* [cls][bin]: time in ns, then a fraction */
} lane_axis;

/* span [a, b) of class k, one of its union's: a row when long, else into the bins */
static void span_done(const lane_axis *ax, int lane, int k, int64_t a, int64_t b,
                      mw_plot_lane_rows *out)
{
    if (b <= a) return;
    if ((double)(b - a) >= ax->bin) {
        push(&out[k], (mw_plot_lane_row){a, b, lane, 1, 0});
        return;
    }
    double *s = ax->share + (size_t)k * MW_PLOT_LANE_BINS;
    long i0 = (long)((double)(a - ax->lo) / ax->bin), i1 = (long)((double)(b - ax->lo) / ax->bin);
    for (long i = i0 < 0 ? 0 : i0; i <= i1 && i < MW_PLOT_LANE_BINS; i++) {
        double blo = (double)ax->lo + (double)i * ax->bin, bhi = blo + ax->bin;
        double x = (double)a > blo ? (double)a : blo, y = (double)b < bhi ? (double)b : bhi;
        if (y > x) s[i] += y - x;
    }
}

/* the bins' stacked bars of one lane */
static void bins_done(const lane_axis *ax, int lane, mw_plot_lane_rows *out)
{
    for (long i = 0; i < MW_PLOT_LANE_BINS; i++) {
        double sum = 0;
        for (int k = 0; k < MW_PLOT_NCLS_ALL; k++)
            sum += ax->share[(size_t)k * MW_PLOT_LANE_BINS + (size_t)i];
        if (sum <= 0) continue;
        double scale = sum > ax->bin ? 1 / sum : 1 / ax->bin, off = 0;
        int64_t t0 = ax->lo + (int64_t)((double)i * ax->bin);
        int64_t t1 = ax->lo + (int64_t)((double)(i + 1) * ax->bin);
        for (int k = 0; k < MW_PLOT_NCLS_ALL; k++) {
            double sh = ax->share[(size_t)k * MW_PLOT_LANE_BINS + (size_t)i] * scale;
            if (sh <= 0) continue;
            push(&out[k], (mw_plot_lane_row){t0, t1, lane, sh, off});
            off += sh;
        }
    }
}

void mw_plot_lanes_make(mw_plot_lane_box *b, size_t n, int64_t lo_ns, int64_t hi_ns,
                        mw_plot_lane_rows out[MW_PLOT_NCLS_ALL])
{
    if (!n) return;
    if (hi_ns <= lo_ns) hi_ns = lo_ns + 1;
    qsort(b, n, sizeof *b, box_by_lane);
    lane_axis ax = {lo_ns, hi_ns, (double)(hi_ns - lo_ns) / MW_PLOT_LANE_BINS,
                    mw_xcalloc((size_t)MW_PLOT_NCLS_ALL * MW_PLOT_LANE_BINS, sizeof(double))};
    for (size_t i = 0; i < n;) {
        int lane = b[i].lane;
        memset(ax.share, 0, (size_t)MW_PLOT_NCLS_ALL * MW_PLOT_LANE_BINS * sizeof(double));
        for (; i < n && b[i].lane == lane;) {
            int k = b[i].cls;
            int64_t a = b[i].t0, e = b[i].t1;
            for (i++; i < n && b[i].lane == lane && b[i].cls == k; i++) {
                if (b[i].t0 <= e) {
                    if (b[i].t1 > e) e = b[i].t1;
                } else {
                    span_done(&ax, lane, k, a, e, out);
                    a = b[i].t0;
                    e = b[i].t1;
                }
            }
            span_done(&ax, lane, k, a, e, out);
        }
        bins_done(&ax, lane, out);
    }
    free(ax.share);
}
