/* plot_kinds_inband — kind inband (docs/plots.md, docs/inband.md): per node with in-band
 * sources, its wall power with the in-band sources stacked below it, on the run's time
 * axis: the additive sources (packages, dram, GPUs) as stacked bands whose top is their sum,
 * the parts (core, uncore, psys) as dashed lines, the wall channel as a black step line;
 * the gap between the top band and the wall is the rest of the node.
 *
 * Every trace is resampled onto one grid (cells of 100 ms, or wider so that a run has at
 * most 2,000) by its exact mean power over each cell (models/include/energy.h), so that the
 * bands stack though the sources' windows and the meter's do not line up; a cell a trace
 * does not cover is a missing value. The in-band windows are read here through the run
 * store's read API (mw_run.h); one figure inband-HOST per node. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "mw_plot.h"
#include "mw_run.h"
#include "mw_store.h"

#define INBAND_W 1200
#define INBAND_H 700
#define INBAND_CELL_NS 100000000LL
#define INBAND_MAX_CELLS 2000
#define INBAND_MAX_SRC 32

typedef struct {
    int source, additive;
    char name[MW_PLOT_NAME], host[MW_PLOT_NAME];
    mw_energy_window *w;
    size_t n;
    mw_energy_trace t;
} src_trace;

/* every source's windows (backwards ones left out) as a trace: *n sources, 0 or -1 */
static int read_sources(mw_store *s, src_trace *src, int *n, char *err, size_t errlen)
{
    *n = 0;
    mw_run_cursor *c = mw_run_inband_channels(s);
    mw_run_inband_channel ic;
    int rc = c ? 0 : -1;
    while (c && *n < INBAND_MAX_SRC && (rc = mw_run_inband_channel_next(c, &ic)) == 1) {
        src_trace *x = &src[(*n)++];
        memset(x, 0, sizeof *x);
        x->source = ic.source;
        x->additive = ic.additive;
        snprintf(x->name, sizeof x->name, "%s", ic.name);
        snprintf(x->host, sizeof x->host, "%s", ic.host);
    }
    mw_run_close(c);
    for (int i = 0; rc >= 0 && i < *n; i++) {
        size_t cap = 0;
        mw_inband_window w;
        c = mw_run_inband_windows(s, src[i].source);
        rc = c ? 0 : -1;
        while (c && (rc = mw_run_inband_window_next(c, &w)) == 1) {
            if (w.flags & MW_INBAND_FLAG_BACKWARDS) continue;
            if (src[i].n == cap) src[i].w = mw_xrealloc(src[i].w, (cap = cap ? 2 * cap : 1024) * sizeof *src[i].w);
            int64_t p = w.power_mw > INT32_MAX ? INT32_MAX : w.power_mw < INT32_MIN ? INT32_MIN : w.power_mw;
            src[i].w[src[i].n++] = (mw_energy_window){w.t0_ns, w.t1_ns, (int32_t)p};
        }
        mw_run_close(c);
        if (rc >= 0 && mw_energy_trace_init(&src[i].t, src[i].w, src[i].n, err, errlen)) return -1;
    }
    if (rc < 0) snprintf(err, errlen, "%s", mw_store_error(s));
    return rc < 0 ? -1 : 0;
}

/* mean power (W) of t over [a, b), NAN where no window covers it */
static double cell_w(const mw_energy_trace *t, int64_t a, int64_t b)
{
    int64_t cov = mw_energy_span_covered_ns(t, a, b);
    return cov > 0 ? (double)mw_energy_span_pj(t, a, b) / (double)cov * 1e-3 : NAN;
}

/* the node's figure: the wall channel wall (-1: none) and the sources of host */
static int node_figure(const mw_plot_job *j, const mw_plot_run *r, const char *host, int wall,
                       const src_trace *src, int nsrc)
{
    char name[512], safe[MW_PLOT_NAME], title[1024];
    mw_plot_safe_name(safe, sizeof safe, host);
    snprintf(name, sizeof name, "%sinband-%s", j->prefix, safe);
    snprintf(title, sizeof title, "In-band power beside the wall — node %s — %s", host, r->dir);
    int add[INBAND_MAX_SRC], part[INBAND_MAX_SRC], na = 0, np = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < nsrc; i++) {
        if (strcmp(src[i].host, host) || !src[i].n) continue;
        if (src[i].additive)
            add[na++] = i;
        else
            part[np++] = i;
        if (src[i].w[0].t0_ns < lo) lo = src[i].w[0].t0_ns;
        if (src[i].w[src[i].n - 1].t1_ns > hi) hi = src[i].w[src[i].n - 1].t1_ns;
    }
    if (na + np == 0 || hi <= lo)
        return mw_plot_note_figure(j->out, name, title, "no in-band window on this node", INBAND_W,
                                   INBAND_H);
    int64_t cell = INBAND_CELL_NS;
    if ((hi - lo) / cell > INBAND_MAX_CELLS) cell = (hi - lo) / INBAND_MAX_CELLS + 1;
    mw_plot_fig *f = mw_plot_fig_begin(j->out, name, "inband", INBAND_W, INBAND_H);
    if (!f) return -1;
    FILE *d = mw_plot_fig_tsv(f);
    mw_plot_fig_block(f, "t_s wall_w stacked_w[1..%d] part_w[1..%d]", na, np);
    double ymax = 1;
    for (int64_t a = lo; a < hi; a += cell) {
        int64_t b = a + cell < hi ? a + cell : hi;
        mw_plot_tsv_num(d, mw_plot_run_s(r, a + (b - a) / 2));
        double wv = wall >= 0 ? cell_w(&r->ch[wall].t, a, b) : NAN, sum = 0;
        fputc('\t', d);
        mw_plot_tsv_num(d, wv);
        if (wv > ymax) ymax = wv;
        for (int k = 0; k < na; k++) {
            double v = cell_w(&src[add[k]].t, a, b);
            sum += isfinite(v) ? v : 0;
            fputc('\t', d);
            mw_plot_tsv_num(d, sum);
        }
        if (sum > ymax) ymax = sum;
        for (int k = 0; k < np; k++) {
            fputc('\t', d);
            mw_plot_tsv_num(d, cell_w(&src[part[k]].t, a, b));
        }
        fputc('\n', d);
    }
    const char *an[INBAND_MAX_SRC], *pn[INBAND_MAX_SRC];
    for (int k = 0; k < na; k++)
        an[k] = src[add[k]].name;
    for (int k = 0; k < np; k++)
        pn[k] = src[part[k]].name;
    FILE *v = mw_plot_fig_vars(f);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_str(v, "wall_name", wall >= 0 ? r->ch[wall].name : "");
    mw_plot_var_int(v, "have_wall", wall >= 0);
    mw_plot_var_int(v, "n_add", na);
    mw_plot_var_strs(v, "add_name", an, (size_t)na);
    mw_plot_var_int(v, "n_part", np);
    mw_plot_var_strs(v, "part_name", pn, (size_t)np);
    mw_plot_var_range(v, "xmin", "xmax", mw_plot_run_s(r, lo), mw_plot_run_s(r, hi), 0.5);
    mw_plot_var_num(v, "ymax", ymax * 1.08);
    return mw_plot_fig_end(f);
}

int mw_plot_inband(const mw_plot_job *j, const mw_plot_run *r)
{
    char err[1024];
    mw_store *s = mw_store_open(r->dir, err, sizeof err);
    if (!s) {
        mw_plot_say(j->out, "mw plot: %s", err);
        j->out->failures++;
        return -1;
    }
    src_trace *src = mw_xcalloc(INBAND_MAX_SRC, sizeof *src);
    int n, rc = read_sources(s, src, &n, err, sizeof err);
    mw_store_close(s);
    if (rc) {
        mw_plot_say(j->out, "mw plot: %s", err);
        j->out->failures++;
    } else if (!n) {
        char name[512], title[512];
        snprintf(name, sizeof name, "%sinband", j->prefix);
        snprintf(title, sizeof title, "In-band power beside the wall — %s", r->dir);
        rc = mw_plot_note_figure(j->out, name, title,
                                 "no in-band source recorded (mw record --inband)", INBAND_W,
                                 INBAND_H);
    }
    for (int i = 0; rc == 0 && i < n; i++) { /* one figure per host, at its first source */
        int first = 1;
        for (int k = 0; k < i; k++)
            if (!strcmp(src[k].host, src[i].host)) first = 0;
        if (!first) continue;
        int wall = -1;
        for (int c = 0; c < r->nch && wall < 0; c++)
            if (r->ch[c].has_host && !strcmp(r->ch[c].host, src[i].host) && r->ch[c].n) wall = c;
        if (node_figure(j, r, src[i].host, wall, src, n)) rc = -1;
    }
    for (int i = 0; i < n; i++) {
        mw_energy_trace_free(&src[i].t);
        free(src[i].w);
    }
    free(src);
    return rc;
}
