/* plot_kinds_run — the kinds of `mw plot` drawn from one run: trace, timeline (template
 * plots/gnuplot/trace.gp), histogram (plots/gnuplot/histogram.gp) and energy
 * (plots/gnuplot/energy.gp). Every number comes from the run through models/include/energy.h and
 * models/include/levels.h with mw analyze's rules, so the figures show what `mw analyze` reports
 * (docs/plots.md lists the data files' columns).
 *
 * trace/timeline. Each shown channel's windows in time order are one block of the data file,
 * a row per window (start_s end_s power_w min_w max_w), drawn as steps from each window's
 * start; a window starting more than half the median window length after the previous one
 * ended starts a new line (a blank line in the file: gnuplot draws nothing across a gap),
 * and each line ends with a closing row at the last window's end (end_s "-"). Over 20,000
 * windows a row holds ceil(n / 10,000) consecutive windows of one line (their exact mean
 * power, energy over time, with their extremes). Phases of the program (not the recorder's)
 * become rows in lanes, one block per class (start_s end_s lane share offset): trace has a
 * lane per host measured by a shown channel, timeline one per rank; plots/plot_lanes.h
 * makes them: a class's spans at least 1/1000 of the axis exact, shorter ones summed per
 * 1/1000 of the axis and drawn as high as their share of it, so no class shows more than
 * its share of the time (millions of MPI calls stay a few thousand rows). A rank's computation that no phase marks (its time
 * outside MPI and waits: mw_phase_class.h's rule) is a class of its own, "compute
 * (inferred)", in a block after the gaps. The idle baseline and the gaps table are bands.
 *
 * histogram. Per channel: ceil(sqrt(n)) equal bins of the window powers (levels.h's
 * histogram), the paper's kernel density on a 512-point grid with the estimator's own
 * bandwidth (mw_levels_kde_grid, the density mw_levels_kde searches), scaled to windows per
 * bin, and Pow_idle/Pow_work by kde, gmm and the phase split (mw_levels_*).
 *
 * energy. Rows: the whole run, then every phase group (kind, name) by energy, the group's
 * energy on each channel being that of the union of its intervals on the ranks the channel
 * measures (mw analyze's per-phase figure); static = the channel's idle power x the window
 * time inside, dynamic = energy - static (mw_energy_dynamic_j). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "levels.h"
#include "mw_phase_class.h"
#include "mw_plot.h"
#include "plot_lanes.h"

#define TRACE_W 1200
#define TRACE_H 700
#define TIMELINE_H 900
#define HIST_W 1200
#define HIST_H 600
#define ENERGY_W 1200
#define ENERGY_H 700
#define DECIMATE_ABOVE 20000
#define DECIMATE_TO 10000
#define ENERGY_MAX_ROWS 13 /* the whole run and the 12 most energetic phase groups */
#define KDE_GRID 512

static int shown(const mw_plot_run *r, int c)
{
    return r->ch[c].selected && r->ch[c].n > 0;
}

static void fig_name(char *out, size_t len, const mw_plot_job *j, const char *kind,
                     const char *channel)
{
    char safe[MW_PLOT_NAME];
    mw_plot_safe_name(safe, sizeof safe, channel ? channel : "");
    snprintf(out, len, "%s%s%s%s", j->prefix, kind, channel ? "-" : "", channel ? safe : "");
}

/* ---- trace and timeline ------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int64_t median_length_ns(const mw_plot_channel *c)
{
    int64_t *len = mw_xcalloc(1, c->n * sizeof *len);
    for (size_t i = 0; i < c->n; i++)
        len[i] = c->t.w[i].t1_ns - c->t.w[i].t0_ns;
    qsort(len, c->n, sizeof *len, cmp_i64);
    int64_t m = len[c->n / 2];
    free(len);
    return m;
}

/* One channel's block: rows of windows (or buckets), a blank line at each gap, a closing
 * row at the end of each line. */
static void write_power_block(mw_plot_fig *fig, const mw_plot_run *r, const mw_plot_channel *c,
                              int *decimated)
{
    mw_plot_fig_block(fig, "channel %s: start_s\tend_s\tpower_w\tmin_w\tmax_w", c->name);
    FILE *f = mw_plot_fig_tsv(fig);
    size_t bucket = c->n > DECIMATE_ABOVE ? (c->n + DECIMATE_TO - 1) / DECIMATE_TO : 1;
    if (bucket > 1) *decimated = 1;
    int64_t tol = median_length_ns(c) / 2;
    const mw_energy_window *w = c->t.w;
    size_t i = 0;
    while (i < c->n) {
        size_t end = i + 1; /* the line: windows [i, end) without a gap */
        while (end < c->n && w[end].t0_ns - w[end - 1].t1_ns <= tol)
            end++;
        double last_w = 0, last_min = 0, last_max = 0;
        int64_t last_t1 = w[i].t1_ns;
        for (size_t k = i; k < end; k += bucket) {
            size_t kend = k + bucket < end ? k + bucket : end;
            __int128 pj = 0;
            int64_t ns = 0;
            int32_t lo = w[k].power_mw, hi = w[k].power_mw;
            int64_t t1 = w[k].t1_ns;
            for (size_t q = k; q < kend; q++) {
                pj += (__int128)w[q].power_mw * (w[q].t1_ns - w[q].t0_ns);
                ns += w[q].t1_ns - w[q].t0_ns;
                if (w[q].power_mw < lo) lo = w[q].power_mw;
                if (w[q].power_mw > hi) hi = w[q].power_mw;
                if (w[q].t1_ns > t1) t1 = w[q].t1_ns;
            }
            double p = kend - k == 1 || ns <= 0 ? w[k].power_mw / 1000.0
                                                : (double)pj / (double)ns / 1000.0;
            fprintf(f, "%.9f\t%.9f\t%.10g\t%.10g\t%.10g\n", mw_plot_run_s(r, w[k].t0_ns),
                    mw_plot_run_s(r, t1), p, lo / 1000.0, hi / 1000.0);
            last_w = p;
            last_min = lo / 1000.0;
            last_max = hi / 1000.0;
            last_t1 = t1;
        }
        fprintf(f, "%.9f\t-\t%.10g\t%.10g\t%.10g\n", mw_plot_run_s(r, last_t1), last_w, last_min,
                last_max);
        if (end < c->n) fputc('\n', f);
        i = end;
    }
}

typedef struct {
    int rank;
    const char *host;
} lane_key;

static int lane_cmp(const void *a, const void *b)
{
    const lane_key *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return strcmp(x->host, y->host);
}

/* Is the phase's host measured by a shown channel? */
static int host_shown(const mw_plot_run *r, const char *host)
{
    for (int c = 0; c < r->nch; c++)
        if (r->ch[c].selected &&
            mw_energy_channel_measures(r->ch[c].has_host ? r->ch[c].host : NULL, host))
            return 1;
    return 0;
}

/* The lanes: (rank, host) of the program's phases on hosts a shown channel measures (rank
 * 0 for all without per_rank: a lane per host), sorted, distinct; malloc'd, count in *nl. */
static lane_key *collect_lanes(const mw_plot_run *r, int per_rank, size_t *nl)
{
    lane_key *lanes = mw_xcalloc(1, (r->nph + 1) * sizeof *lanes);
    size_t n = 0;
    for (size_t i = 0; i < r->nph; i++) {
        const mw_plot_phase *p = &r->ph[i];
        if (p->cls < 0 || !host_shown(r, p->host)) continue;
        lanes[n++] = (lane_key){per_rank ? p->rank : 0, p->host};
    }
    qsort(lanes, n, sizeof *lanes, lane_cmp);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || lane_cmp(&lanes[u - 1], &lanes[i])) lanes[u++] = lanes[i];
    *nl = u;
    return lanes;
}

/* The shown channels' blocks; their legend titles ("NAME (idle P W)") in titles/tbuf.
 * Returns the count of blocks. */
static int write_power_blocks(mw_plot_fig *f, const mw_plot_run *r, const char **titles,
                              char (*tbuf)[MW_PLOT_NAME + 64], int *decimated)
{
    int nblocks = 0;
    for (int c = 0; c < r->nch; c++) {
        if (!shown(r, c)) continue;
        write_power_block(f, r, &r->ch[c], decimated);
        if (r->ch[c].have_base)
            snprintf(tbuf[nblocks], sizeof tbuf[nblocks], "%s (idle %.1f W)", r->ch[c].name,
                     r->ch[c].base_w);
        else
            snprintf(tbuf[nblocks], sizeof tbuf[nblocks], "%s", r->ch[c].name);
        titles[nblocks] = tbuf[nblocks];
        nblocks++;
    }
    return nblocks;
}

typedef struct {
    mw_plot_lane_box *b;
    size_t n, cap;
} box_list;

static void box_push(box_list *l, mw_plot_lane_box x)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->b = mw_xrealloc(l->b, l->cap * sizeof *l->b);
    }
    l->b[l->n++] = x;
}

static int phase_by_rank(const void *a, const void *b)
{
    const mw_plot_phase *x = *(const mw_plot_phase *const *)a, *y = *(const mw_plot_phase *const *)b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return strcmp(x->host, y->host);
}

/* The computation of every (rank, host) of the shown hosts that no phase marked, inferred by
 * the one rule (mw_phase_class.h), as boxes of class MW_PLOT_CLS_INFERRED in its lane. */
static void inferred_boxes(const mw_plot_run *r, int per_rank, const lane_key *lanes, size_t nl,
                           box_list *out)
{
    const mw_plot_phase **ps = mw_xcalloc(r->nph + 1, sizeof *ps);
    size_t n = 0;
    for (size_t i = 0; i < r->nph; i++)
        if (r->ph[i].cls >= 0 && host_shown(r, r->ph[i].host)) ps[n++] = &r->ph[i];
    qsort(ps, n, sizeof *ps, phase_by_rank);
    mw_phase_span *sp = mw_xcalloc(n + 1, sizeof *sp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        for (; j < n && !phase_by_rank(&ps[i], &ps[j]); j++)
            sp[j - i] = mw_phase_span_of(ps[j]->kind, ps[j]->name, ps[j]->start_ns, ps[j]->end_ns);
        lane_key k = {per_rank ? ps[i]->rank : 0, ps[i]->host};
        const lane_key *l = bsearch(&k, lanes, nl, sizeof *lanes, lane_cmp);
        mw_energy_span *inf;
        size_t m = l ? mw_phase_inferred_spans(sp, j - i, &inf) : 0;
        for (size_t q = 0; q < m; q++)
            box_push(out, (mw_plot_lane_box){MW_PLOT_CLS_INFERRED, (int)(l - lanes) + 1,
                                             inf[q].start_ns, inf[q].end_ns});
        if (m) free(inf);
        i = j;
    }
    free(sp);
    free(ps);
}

/* Class k's rows as its block (start_s end_s lane share offset); present[k] = 1 when any. */
static void write_class_block(mw_plot_fig *f, const mw_plot_run *r, const mw_plot_lane_rows *rows,
                              int k, int present[MW_PLOT_NCLS_ALL])
{
    FILE *d = mw_plot_fig_tsv(f);
    mw_plot_fig_block(f, "class %s: start_s\tend_s\tlane\tshare\toffset", mw_plot_class_names[k]);
    for (size_t i = 0; i < rows->n; i++) {
        const mw_plot_lane_row *x = &rows->r[i];
        fprintf(d, "%.9f\t%.9f\t%d\t%.4f\t%.4f\n", mw_plot_run_s(r, x->t0), mw_plot_run_s(r, x->t1),
                x->lane, x->share, x->off);
        present[k] = 1;
    }
}

/* The phases' rows (plot_lanes.h: a class never shown beyond its share of the time), a
 * block per class; present[k] = 1 when class k has a row. The inferred computation's rows
 * are left in rows[MW_PLOT_CLS_INFERRED] for their block after the gaps. */
static void write_phase_boxes(mw_plot_fig *f, const mw_plot_run *r, int per_rank,
                              const lane_key *lanes, size_t nl, int64_t t_lo, int64_t t_hi,
                              int present[MW_PLOT_NCLS_ALL],
                              mw_plot_lane_rows rows[MW_PLOT_NCLS_ALL])
{
    box_list b = {0};
    for (size_t i = 0; i < r->nph; i++) {
        const mw_plot_phase *p = &r->ph[i];
        if (p->cls < 0 || !host_shown(r, p->host)) continue;
        lane_key k = {per_rank ? p->rank : 0, p->host};
        const lane_key *l = bsearch(&k, lanes, nl, sizeof *lanes, lane_cmp);
        if (!l) continue;
        box_push(&b, (mw_plot_lane_box){p->cls, (int)(l - lanes) + 1, p->start_ns, p->end_ns});
    }
    inferred_boxes(r, per_rank, lanes, nl, &b);
    mw_plot_lanes_make(b.b, b.n, t_lo, t_hi, rows);
    free(b.b);
    for (int k = 0; k < MW_PLOT_NCLS; k++)
        write_class_block(f, r, &rows[k], k, present);
}

/* A block "WHAT: start_s end_s" of spans (the idle baseline, the gaps); their ends in s in
 * *t0, *t1 (malloc'd, n + 1 elements). */
static void write_span_block(mw_plot_fig *f, const mw_plot_run *r, const char *what,
                             const mw_energy_span *sp, size_t n, double **t0, double **t1)
{
    mw_plot_fig_block(f, "%s: start_s\tend_s", what);
    *t0 = mw_xcalloc(1, (n + 1) * sizeof **t0);
    *t1 = mw_xcalloc(1, (n + 1) * sizeof **t1);
    for (size_t k = 0; k < n; k++) {
        (*t0)[k] = mw_plot_run_s(r, sp[k].start_ns);
        (*t1)[k] = mw_plot_run_s(r, sp[k].end_ns);
        fprintf(mw_plot_fig_tsv(f), "%.9f\t%.9f\n", (*t0)[k], (*t1)[k]);
    }
}

/* The lanes' variables: their names, the margin left of the panels that fits them, the
 * lanes panel's share of the height. */
static void write_lane_vars(FILE *v, const lane_key *lanes, size_t nl, int per_rank)
{
    char **lane_names = mw_xcalloc(1, (nl + 1) * sizeof *lane_names);
    for (size_t k = 0; k < nl; k++) {
        lane_names[k] = mw_xcalloc(1, MW_PLOT_NAME + 32);
        if (per_rank && lanes[k].rank >= 0)
            snprintf(lane_names[k], MW_PLOT_NAME + 32, "rank %d (%s)", lanes[k].rank,
                     lanes[k].host);
        else if (per_rank)
            snprintf(lane_names[k], MW_PLOT_NAME + 32, "process (%s)", lanes[k].host);
        else
            snprintf(lane_names[k], MW_PLOT_NAME + 32, "%s", lanes[k].host);
    }
    size_t longest = 0;
    for (size_t k = 0; k < nl; k++)
        if (strlen(lane_names[k]) > longest) longest = strlen(lane_names[k]);
    double left = 0.03 + 0.0062 * (double)longest;
    mw_plot_var_num(v, "left_margin", left < 0.08 ? 0.08 : left > 0.3 ? 0.3 : left);
    mw_plot_var_int(v, "nlanes", (long long)nl);
    mw_plot_var_tic_labels(v, "lane_name", (const char *const *)lane_names, nl);
    mw_plot_var_str(v, "lane_label", per_rank ? "rank" : "node (host)");
    double frac = per_rank ? 0.12 + 0.05 * (double)nl : 0.06 + 0.035 * (double)nl;
    if (frac > (per_rank ? 0.55 : 0.35)) frac = per_rank ? 0.55 : 0.35;
    mw_plot_var_num(v, "lanes_frac", frac);
    for (size_t k = 0; k < nl; k++)
        free(lane_names[k]);
    free(lane_names);
}

/* The power panel's range: the shown channels' window powers, W */
/* The power axes: a channel whose highest window is below a quarter of the highest
 * channel's (a switch beside the nodes) goes on the right axis with its own range, so that
 * neither flattens the other; each axis spans its channels' windows, not from 0. Block
 * numbers (1-based, in shown order) as words in y1_list and y2_list. */
static void power_range(FILE *v, const mw_plot_run *r)
{
    double top = -INFINITY, lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    double cmax[MW_PLOT_MAX_CHANNELS], cmin[MW_PLOT_MAX_CHANNELS];
    for (int c = 0; c < r->nch; c++) {
        cmax[c] = -INFINITY;
        cmin[c] = INFINITY;
        for (size_t k = 0; shown(r, c) && k < r->ch[c].n; k++) {
            double pw = r->ch[c].w[k].power_mw / 1000.0;
            if (pw < cmin[c]) cmin[c] = pw;
            if (pw > cmax[c]) cmax[c] = pw;
        }
        if (shown(r, c) && cmax[c] > top) top = cmax[c];
    }
    char l1[256] = "", l2[256] = "";
    int block = 0;
    for (int c = 0; c < r->nch; c++) {
        if (!shown(r, c)) continue;
        block++;
        int a = top > 0 && cmax[c] < top / 4 ? 1 : 0;
        char *l = a ? l2 : l1;
        size_t used = strlen(l);
        snprintf(l + used, 256 - used, "%s%d", used ? " " : "", block);
        if (cmin[c] < lo[a]) lo[a] = cmin[c];
        if (cmax[c] > hi[a]) hi[a] = cmax[c];
    }
    mw_plot_var_range(v, "ymin", "ymax", lo[0], hi[0], 1);
    mw_plot_var_range(v, "y2min", "y2max", lo[1], hi[1], 0.05);
    mw_plot_var_str(v, "y1_list", l1);
    mw_plot_var_str(v, "y2_list", l2);
    mw_plot_var_int(v, "has_y2", l2[0] != 0);
}

/* the classes present, 1-based, as words ("1 3"); the inferred computation is not one of
 * them (has_inferred: drawn first, without borders, under the phases the program recorded) */
static void class_list(char *out, size_t len, const int present[MW_PLOT_NCLS_ALL])
{
    out[0] = 0;
    for (int k = 0; k < MW_PLOT_NCLS; k++)
        if (present[k]) {
            size_t used = strlen(out);
            snprintf(out + used, len - used, "%s%d", used ? " " : "", k + 1);
        }
}

/* "nothing connected, left out: ch5, ..." for the channels left out as unconnected; 0 when
 * there is none */
static int unconnected_note(const mw_plot_run *r, char *out, size_t len)
{
    out[0] = 0;
    for (int c = 0; c < r->nch; c++)
        if (r->ch[c].unconnected && !r->ch[c].selected) {
            size_t l = strlen(out);
            snprintf(out + l, len - l, "%s%.40s", l ? ", " : "nothing connected, left out: ",
                     r->ch[c].name);
        }
    return out[0] != 0;
}

static int power_lanes(const mw_plot_job *j, const mw_plot_run *r, int per_rank)
{
    const char *kind = per_rank ? "timeline" : "trace";
    char name[512], title[1024];
    fig_name(name, sizeof name, j, kind, NULL);
    snprintf(title, sizeof title, "%s — %s (%s)",
             per_rank ? "Phases per rank and power" : "Power trace", r->dir, r->status);
    int nshown = 0;
    for (int c = 0; c < r->nch; c++)
        nshown += shown(r, c);
    int w = TRACE_W, h = per_rank ? TIMELINE_H : TRACE_H;
    if (!nshown)
        return mw_plot_note_figure(j->out, name, title, "no windows on the channels asked for", w,
                                   h);
    size_t nl;
    lane_key *lanes = collect_lanes(r, per_rank, &nl);
    int64_t t_lo = r->first_ns, t_hi = r->last_ns;
    for (size_t i = 0; i < r->nph; i++) {
        if (r->ph[i].start_ns < t_lo) t_lo = r->ph[i].start_ns;
        if (r->ph[i].end_ns > t_hi) t_hi = r->ph[i].end_ns;
    }
    double xmin = mw_plot_run_s(r, t_lo), xmax = mw_plot_run_s(r, t_hi);
    if (xmax <= xmin) xmax = xmin + 1;

    mw_plot_fig *f = mw_plot_fig_begin(j->out, name, "trace", w, h);
    if (!f) {
        free(lanes);
        return -1;
    }
    int decimated = 0, present[MW_PLOT_NCLS_ALL] = {0};
    mw_plot_lane_rows rows[MW_PLOT_NCLS_ALL] = {{0}};
    const char *titles[MW_PLOT_MAX_CHANNELS];
    char tbuf[MW_PLOT_MAX_CHANNELS][MW_PLOT_NAME + 64];
    int nblocks = write_power_blocks(f, r, titles, tbuf, &decimated);
    /* the phases' boxes merged below the axis's resolution; bands */
    write_phase_boxes(f, r, per_rank, lanes, nl, t_lo, t_hi, present, rows);
    double *i0, *i1, *g0, *g1;
    write_span_block(f, r, "idle baseline", r->idle, r->nidle, &i0, &i1);
    write_span_block(f, r, "gaps", r->gaps, r->ngaps, &g0, &g1);
    /* the inferred computation, last: the blocks before keep their places */
    write_class_block(f, r, &rows[MW_PLOT_CLS_INFERRED], MW_PLOT_CLS_INFERRED, present);
    for (int k = 0; k < MW_PLOT_NCLS_ALL; k++)
        free(rows[k].r);
    const char *notes[5];
    int nn = 0;
    char unc[256];
    if (unconnected_note(r, unc, sizeof unc)) notes[nn++] = unc;
    if (!r->nprogram) notes[nn++] = "no phases recorded by the program (libmwprobe, docs/probe.md)";
    if (!r->nidle) notes[nn++] = "no idle baseline recorded (mw record --idle S)";
    if (decimated)
        notes[nn++] = "over 20,000 windows: each step is the mean of several, "
                      "the band their min-max";

    FILE *v = mw_plot_fig_vars(f);
    power_range(v, r);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_num(v, "xmin", xmin);
    mw_plot_var_num(v, "xmax", xmax);
    mw_plot_var_int(v, "nch", nblocks);
    mw_plot_var_strs(v, "ch_title", titles, (size_t)nblocks);
    mw_plot_var_int(v, "decimated", decimated);
    write_lane_vars(v, lanes, nl, per_rank);
    char cls_list[64];
    class_list(cls_list, sizeof cls_list, present);
    mw_plot_var_str(v, "cls_list", cls_list);
    mw_plot_var_int(v, "cls_block0", nblocks);
    mw_plot_var_int(v, "cls_block_inferred", nblocks + MW_PLOT_NCLS + 2);
    mw_plot_var_int(v, "has_inferred", present[MW_PLOT_CLS_INFERRED]);
    mw_plot_var_int(v, "n_idle", (long long)r->nidle);
    mw_plot_var_nums(v, "idle_t0", i0, r->nidle);
    mw_plot_var_nums(v, "idle_t1", i1, r->nidle);
    mw_plot_var_int(v, "n_gaps", (long long)r->ngaps);
    mw_plot_var_nums(v, "gap_t0", g0, r->ngaps);
    mw_plot_var_nums(v, "gap_t1", g1, r->ngaps);
    mw_plot_var_int(v, "n_notes", nn);
    mw_plot_var_strs(v, "notes", notes, (size_t)nn);
    free(lanes);
    free(i0);
    free(i1);
    free(g0);
    free(g1);
    return mw_plot_fig_end(f);
}

int mw_plot_trace(const mw_plot_job *j, const mw_plot_run *r)
{
    return power_lanes(j, r, 0);
}
int mw_plot_timeline(const mw_plot_job *j, const mw_plot_run *r)
{
    return power_lanes(j, r, 1);
}

/* ---- histogram ---------------------------------------------------------------------- */

typedef struct {
    int ok;
    mw_levels lv;
} est;

static void level_row(FILE *d, const char *method, int x, const est *e)
{
    fprintf(d, "%s\t%d\t", method, x);
    mw_plot_tsv_num(d, e->ok ? e->lv.idle_w : NAN);
    fputc('\t', d);
    mw_plot_tsv_num(d, e->ok ? e->lv.work_w : NAN);
    fputc('\t', d);
    mw_plot_tsv_num(d, e->ok ? e->lv.idle_sd_w : NAN);
    fputc('\t', d);
    mw_plot_tsv_num(d, e->ok ? e->lv.work_sd_w : NAN);
    fprintf(d, "\t%s\t", !e->ok ? "-" : e->lv.bimodal ? "1" : "0");
    mw_plot_tsv_text(d, e->lv.note);
    fputc('\n', d);
}

/* Pow_idle/Pow_work of the window powers p[0..n) of channel c by kde, gmm and the phase
 * split (with the reason in its note when there is no split). */
static void estimate_levels(const mw_plot_run *r, int c, const double *p, size_t n, est *kde,
                            est *gmm, est *split)
{
    kde->ok = mw_levels_kde(p, n, &kde->lv) == 0;
    gmm->ok = mw_levels_gmm(p, n, &gmm->lv) == 0;
    unsigned char *labels = NULL;
    size_t nw = mw_plot_run_work_labels(r, c, &labels);
    if (nw == (size_t)-1) {
        snprintf(split->lv.note, sizeof split->lv.note,
                 "no working phases (compute, user, omp, gpu, cuda; not user idle.../wait...) "
                 "on its ranks");
    } else if (nw == 0 || nw == n) {
        snprintf(split->lv.note, sizeof split->lv.note, "all %zu windows labelled %s", n,
                 nw ? "working" : "idle");
    } else {
        split->ok = mw_levels_split(p, labels, n, &split->lv) == 0;
    }
    free(labels);
}

/* The kernel density block's rows (power_w density_per_w windows_per_bin) on KDE_GRID points
 * from 3 bandwidths below the lowest power to 3 above the highest, with the kde estimator's
 * bandwidth (else the rule's). *h: the bandwidth. Returns 1 when the density was written. */
static int write_density(FILE *d, const double *p, size_t n, const est *kde, double width,
                         double *h)
{
    *h = kde->ok && kde->lv.bandwidth_w > 0 ? kde->lv.bandwidth_w : mw_levels_bandwidth_w(p, n);
    double pmin = p[0], pmax = p[0];
    for (size_t i = 1; i < n; i++) {
        if (p[i] < pmin) pmin = p[i];
        if (p[i] > pmax) pmax = p[i];
    }
    if (*h <= 0) return 0;
    double g0 = pmin - 3 * *h, step = (pmax - pmin + 6 * *h) / (KDE_GRID - 1);
    double *dens = mw_xcalloc(1, KDE_GRID * sizeof *dens);
    int ok = mw_levels_kde_grid(p, n, *h, g0, step, KDE_GRID, dens) == 0;
    for (size_t i = 0; ok && i < KDE_GRID; i++)
        fprintf(d, "%.10g\t%.10g\t%.10g\n", g0 + (double)i * step, dens[i],
                dens[i] * (double)n * width);
    free(dens);
    return ok;
}

/* The levels panel's range: every estimate's levels -+ their sd. Returns whether any
 * estimator gave levels. */
static int levels_range(const est *const all[3], double *llo, double *lhi)
{
    int have_levels = 0;
    *llo = INFINITY;
    *lhi = -INFINITY;
    for (int q = 0; q < 3; q++) {
        if (!all[q]->ok) continue;
        have_levels = 1;
        double lo_q = all[q]->lv.idle_w - all[q]->lv.idle_sd_w,
               hi_q = all[q]->lv.work_w + all[q]->lv.work_sd_w;
        if (lo_q < *llo) *llo = lo_q;
        if (hi_q > *lhi) *lhi = hi_q;
        if (all[q]->lv.idle_w + all[q]->lv.idle_sd_w > *lhi)
            *lhi = all[q]->lv.idle_w + all[q]->lv.idle_sd_w;
        if (all[q]->lv.work_w - all[q]->lv.work_sd_w < *llo)
            *llo = all[q]->lv.work_w - all[q]->lv.work_sd_w;
    }
    return have_levels;
}

static int histogram_channel(const mw_plot_job *j, const mw_plot_run *r, int c)
{
    const mw_plot_channel *ch = &r->ch[c];
    char name[512], title[1024];
    fig_name(name, sizeof name, j, "histogram", ch->name);
    snprintf(title, sizeof title, "Window power of %s — %s (%zu windows)", ch->name, r->dir, ch->n);
    if (ch->n < 2) {
        char note[128];
        snprintf(note, sizeof note, "%zu window%s on %s: no distribution to draw", ch->n,
                 ch->n == 1 ? "" : "s", ch->name);
        return mw_plot_note_figure(j->out, name, title, note, HIST_W, HIST_H);
    }
    size_t n = ch->n;
    double *p = mw_plot_run_powers(r, c);
    int constant = 1;
    for (size_t i = 1; i < n; i++)
        if (ch->t.w[i].power_mw != ch->t.w[0].power_mw) constant = 0;
    est kde = {0}, gmm = {0}, split = {0};
    estimate_levels(r, c, p, n, &kde, &gmm, &split);
    size_t bins = mw_levels_hist_bins(n);
    double lo, width;
    double *counts = mw_xcalloc(1, bins * sizeof *counts);
    int hist_ok = mw_levels_histogram(p, n, bins, &lo, &width, counts) == 0;

    mw_plot_fig *f = mw_plot_fig_begin(j->out, name, "histogram", HIST_W, HIST_H);
    if (!f) {
        free(p);
        free(counts);
        return -1;
    }
    FILE *d = mw_plot_fig_tsv(f), *v = mw_plot_fig_vars(f);
    mw_plot_fig_block(f, "bins: bin_lo_w\tbin_hi_w\tbin_mid_w\twindows\tdensity_per_w");
    for (size_t b = 0; hist_ok && b < bins; b++)
        fprintf(d, "%.10g\t%.10g\t%.10g\t%.10g\t%.10g\n", lo + (double)b * width,
                lo + (double)(b + 1) * width, lo + ((double)b + 0.5) * width, counts[b],
                counts[b] / ((double)n * width));
    mw_plot_fig_block(f, "kernel density: power_w\tdensity_per_w\twindows_per_bin");
    double h = 0;
    int have_kde = !constant && hist_ok && write_density(d, p, n, &kde, width, &h);
    mw_plot_fig_block(f,
                      "levels: method\tx\tpow_idle_w\tpow_work_w\tidle_sd_w\twork_sd_w\tbimodal\t"
                      "note");
    level_row(d, "kde", 1, &kde);
    level_row(d, "gmm", 2, &gmm);
    level_row(d, "split", 3, &split);

    const char *notes[4];
    int nn = 0;
    char cnote[160];
    if (constant) {
        snprintf(cnote, sizeof cnote, "constant power %.3f W in all %zu windows: one level", p[0],
                 n);
        notes[nn++] = cnote;
    } else if (kde.ok && !kde.lv.bimodal) {
        notes[nn++] = "one level (unimodal): Pow_idle = Pow_work";
    }
    if (!r->nprogram) notes[nn++] = "no phases recorded: no phase split";
    double llo, lhi;
    const est *const all[3] = {&kde, &gmm, &split};
    mw_plot_var_int(v, "have_levels", levels_range(all, &llo, &lhi));
    mw_plot_var_range(v, "lv_min", "lv_max", llo, lhi, 0.5);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_str(v, "channel_name", ch->name);
    mw_plot_var_int(v, "n_windows", (long long)n);
    mw_plot_var_int(v, "n_bins", (long long)bins);
    mw_plot_var_num(v, "bin_width", hist_ok ? width : 1);
    mw_plot_var_num(v, "bandwidth", h);
    mw_plot_var_int(v, "have_kde", have_kde);
    mw_plot_var_int(v, "kde_ok", kde.ok);
    mw_plot_var_int(v, "kde_bimodal", kde.ok && kde.lv.bimodal);
    mw_plot_var_num(v, "pow_idle", kde.ok ? kde.lv.idle_w : NAN);
    mw_plot_var_num(v, "pow_work", kde.ok ? kde.lv.work_w : NAN);
    mw_plot_var_int(v, "n_notes", nn);
    mw_plot_var_strs(v, "notes", notes, (size_t)nn);
    free(p);
    free(counts);
    return mw_plot_fig_end(f);
}

int mw_plot_histogram(const mw_plot_job *j, const mw_plot_run *r)
{
    int rc = 0, any = 0;
    for (int c = 0; c < r->nch; c++) {
        if (!r->ch[c].selected) continue;
        any = 1;
        if (histogram_channel(j, r, c)) rc = -1;
    }
    if (!any) {
        char name[512];
        fig_name(name, sizeof name, j, "histogram", NULL);
        return mw_plot_note_figure(j->out, name, "Window power", "no channel asked for", HIST_W,
                                   HIST_H);
    }
    return rc;
}

/* ---- energy ------------------------------------------------------------------------- */

typedef struct {
    char label[2 * MW_PLOT_NAME + 8];
    const char *kind, *name;
    double duration_s;
    double e_j[MW_PLOT_MAX_CHANNELS];
    double total_j, static_j, dynamic_j; /* static, dynamic: NaN without a baseline */
} energy_row;

static int row_cmp(const void *a, const void *b)
{
    const energy_row *x = a, *y = b;
    return x->total_j > y->total_j ? -1 : x->total_j < y->total_j;
}

/* Energy of spans on channel c, static and dynamic part (NaN without a baseline). */
static void energy_of(const mw_plot_run *r, int c, const mw_energy_span *s, size_t n, int whole,
                      double *e_j, double *st_j, double *dy_j)
{
    const mw_plot_channel *ch = &r->ch[c];
    mw_energy_pj pj;
    int64_t cov;
    if (whole) {
        pj = mw_energy_span_pj(&ch->t, INT64_MIN, INT64_MAX);
        cov = mw_energy_span_covered_ns(&ch->t, INT64_MIN, INT64_MAX);
    } else {
        mw_energy_spans_sum(&ch->t, s, n, &pj, &cov);
    }
    *e_j = mw_energy_j(pj);
    if (ch->have_base) {
        *dy_j = mw_energy_dynamic_j(pj, ch->base_w, cov);
        *st_j = *e_j - *dy_j;
    } else {
        *st_j = *dy_j = NAN;
    }
}

/* Row 0, the whole run: its duration is from the first window's start to the last end on
 * the shown channels. Rows 1..ng: the phase groups (kinds[g], names[g]), their duration the
 * length of the union of their intervals on every rank. Each row's energy per channel (on
 * the ranks the channel measures), its total, static and dynamic (NaN without a baseline). */
static void fill_energy_row(energy_row *row, const mw_plot_run *r, const int *cols, int nc,
                            const char *kind, const char *name, int have_base)
{
    mw_energy_span *s = NULL;
    size_t n = 0;
    int whole = kind == NULL;
    memset(row, 0, sizeof *row);
    if (whole) {
        snprintf(row->label, sizeof row->label, "whole run");
        row->kind = "-";
        row->name = "-";
        int64_t a = INT64_MAX, b = INT64_MIN;
        for (int k = 0; k < nc; k++) {
            const mw_plot_channel *ch = &r->ch[cols[k]];
            if (ch->t.w[0].t0_ns < a) a = ch->t.w[0].t0_ns;
            for (size_t q = 0; q < ch->n; q++)
                if (ch->t.w[q].t1_ns > b) b = ch->t.w[q].t1_ns;
        }
        row->duration_s = (double)(b - a) / 1e9;
    } else {
        row->kind = kind;
        row->name = name;
        snprintf(row->label, sizeof row->label, "%s:%s", row->kind, row->name);
        n = mw_plot_run_group_spans(r, -1, row->kind, row->name, &s);
        row->duration_s = (double)mw_energy_spans_length_ns(s, n) / 1e9;
        free(s);
        s = NULL;
    }
    double st = 0, dy = 0;
    for (int k = 0; k < nc; k++) {
        double e, st_k, dy_k;
        if (!whole) n = mw_plot_run_group_spans(r, cols[k], row->kind, row->name, &s);
        energy_of(r, cols[k], s, n, whole, &e, &st_k, &dy_k);
        free(s);
        s = NULL;
        row->e_j[k] = e;
        row->total_j += e;
        st += st_k;
        dy += dy_k;
    }
    row->static_j = have_base ? st : NAN;
    row->dynamic_j = have_base ? dy : NAN;
}

/* The data file: a heading naming the columns, then a row per energy_row. */
static void write_energy_rows(mw_plot_fig *f, const mw_plot_run *r, const int *cols, int nc,
                              const energy_row *rows, size_t nrows)
{
    FILE *d = mw_plot_fig_tsv(f);
    mw_plot_fig_block(f, "energy per row (the whole run, then phase groups by energy)");
    fputs("# label\tkind\tname\tduration_s", d);
    for (int k = 0; k < nc; k++) {
        fputc('\t', d);
        mw_plot_tsv_text(d, r->ch[cols[k]].name);
        fputs("_j", d);
    }
    fputs("\ttotal_j\tstatic_j\tdynamic_j\n", d);
    for (size_t g = 0; g < nrows; g++) {
        const energy_row *row = &rows[g];
        mw_plot_tsv_text(d, row->label);
        fputc('\t', d);
        mw_plot_tsv_text(d, row->kind);
        fputc('\t', d);
        mw_plot_tsv_text(d, row->name);
        fprintf(d, "\t%.9f", row->duration_s);
        for (int k = 0; k < nc; k++)
            fprintf(d, "\t%.6f", row->e_j[k]);
        fprintf(d, "\t%.6f\t", row->total_j);
        mw_plot_tsv_num(d, row->static_j);
        fputc('\t', d);
        mw_plot_tsv_num(d, row->dynamic_j);
        fputc('\n', d);
    }
}

/* The panels' ranges over the rows drawn: the left one (energy per node, stacked) from 0,
 * the right one around 0: the dynamic energy alone on its own axis (it may be negative; the
 * static part, often 10x larger, would flatten it), or the totals without an idle baseline.
 * The whole run's static and total energy go to static_run_j, total_run_j for the key. */
static void energy_ranges(FILE *v, const energy_row *rows, size_t rows_plot, int have_base)
{
    double lmax = 0, rlo = 0, rhi = 0;
    for (size_t g = 0; g < rows_plot; g++) {
        const energy_row *row = &rows[g];
        if (row->total_j > lmax) lmax = row->total_j;
        double y = have_base ? row->dynamic_j : row->total_j;
        if (!isfinite(y)) continue;
        if (y > rhi) rhi = y;
        if (y < rlo) rlo = y;
    }
    mw_plot_var_num(v, "static_run_j", rows_plot && have_base ? rows[0].static_j : NAN);
    mw_plot_var_num(v, "total_run_j", rows_plot ? rows[0].total_j : NAN);
    mw_plot_var_range(v, "left_ymin", "left_ymax", 0, lmax, 1e-3);
    mw_plot_var_num(v, "left_ymin", 0);
    mw_plot_var_range(v, "right_ymin", "right_ymax", rlo, rhi, 1e-3);
    if (rlo >= 0) mw_plot_var_num(v, "right_ymin", 0);
}

int mw_plot_energy(const mw_plot_job *j, const mw_plot_run *r)
{
    char name[512], title[1024];
    fig_name(name, sizeof name, j, "energy", NULL);
    snprintf(title, sizeof title, "Energy per phase and node — %s (%s)", r->dir, r->status);
    int cols[MW_PLOT_MAX_CHANNELS], nc = 0;
    for (int c = 0; c < r->nch; c++)
        if (shown(r, c)) cols[nc++] = c;
    if (!nc)
        return mw_plot_note_figure(j->out, name, title, "no windows on the channels asked for",
                                   ENERGY_W, ENERGY_H);
    const char **kinds, **names;
    size_t ng = mw_plot_run_groups(r, &kinds, &names);
    energy_row *rows = mw_xcalloc(1, (ng + 1) * sizeof *rows);
    int have_base = 1;
    for (int k = 0; k < nc; k++)
        if (!r->ch[cols[k]].have_base) have_base = 0;
    for (size_t g = 0; g <= ng; g++)
        fill_energy_row(&rows[g], r, cols, nc, g ? kinds[g - 1] : NULL, g ? names[g - 1] : NULL,
                        have_base);
    qsort(rows + 1, ng, sizeof *rows, row_cmp);
    free(kinds);
    free(names);

    mw_plot_fig *f = mw_plot_fig_begin(j->out, name, "energy", ENERGY_W, ENERGY_H);
    if (!f) {
        free(rows);
        return -1;
    }
    write_energy_rows(f, r, cols, nc, rows, ng + 1);
    const char *chn[MW_PLOT_MAX_CHANNELS];
    for (int k = 0; k < nc; k++)
        chn[k] = r->ch[cols[k]].name;
    const char *notes[3];
    int nn = 0;
    if (!r->nprogram) notes[nn++] = "no phases recorded by the program (libmwprobe, docs/probe.md)";
    if (!have_base)
        notes[nn++] = "no idle baseline recorded (mw record --idle S): no static/dynamic split";
    char more[96];
    size_t rows_plot = ng + 1 < ENERGY_MAX_ROWS ? ng + 1 : ENERGY_MAX_ROWS;
    if (ng + 1 > rows_plot) {
        snprintf(more, sizeof more, "%zu smaller phase groups are in the data file only",
                 ng + 1 - rows_plot);
        notes[nn++] = more;
    }
    FILE *v = mw_plot_fig_vars(f);
    energy_ranges(v, rows, rows_plot, have_base);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_int(v, "nch", nc);
    mw_plot_var_strs(v, "ch_name", chn, (size_t)nc);
    mw_plot_var_int(v, "nrows", (long long)rows_plot);
    mw_plot_var_int(v, "have_split", have_base);
    mw_plot_var_int(v, "n_notes", nn);
    mw_plot_var_strs(v, "notes", notes, (size_t)nn);
    free(rows);
    return mw_plot_fig_end(f);
}
