/* plot_kinds_multi — the kinds of `mw plot` over several runs: boxplot (plots/gnuplot/boxplot.gp)
 * and model (plots/gnuplot/model.gp).
 *
 * boxplot (Escobar et al. Fig. 8). Runs are read one at a time; each channel's Pow_idle and
 * Pow_work are the paper's kernel-density levels (mw_levels_kde, as `mw analyze` reports
 * them: one level gives both). A run's group is its eeg-mofs version ("v2", "v3": the
 * counter "eeg version") when it has one, else its sweep configuration, else "runs". The data
 * file's first block lists every (run, group, channel) with both levels; then per channel
 * the boxes of Pow_idle and of Pow_work (a row per group: minimum, quartiles and median by
 * GSL's quantiles of the sorted values, maximum, runs), drawn as candlesticks (gnuplot's own
 * boxplot style draws no box under four points), and the runs' points.
 *
 * model (Escobar et al. Figs. 5 and 9). libmwmodels' study of the Escobar model (escobar_study.h,
 * what `mw fit --model escobar` prints) over the eeg-mofs runs: predict mode (each run's own
 * parameters), then fit mode over the same runs as read, when they are enough for a
 * least-squares fit (else that series is left out, with the reason, worded as mw fit says
 * it, as a note). Per version, measured and modelled time and energy over N_Spop, and the
 * NRMSE of each series (the study's) in the legend. Drawn as the paper's Figs. 5 and 9: per
 * version and N_Spop the mean of the measured runs with its 95 % Student-t interval (only
 * from n >= 3 runs: fewer give the mean alone), the model as a line through the mean of its
 * values at that N_Spop, and each run as a small point behind them. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escobar_study.h"
#include "levels.h"
#include "stats.h"
#include "mw_alloc.h"
#include "mw_plot.h"

#define BOX_W 1200
#define BOX_H 700
#define MODEL_W 1200
#define MODEL_H 600
#define MAX_GROUPS 64
#define MODEL_CI_MIN_N 3   /* no interval from fewer runs (as the report) */
#define MODEL_CI_LEVEL 0.95

static int selected(const mw_plot_job *j, const char *name)
{
    if (!j->channels) return 1;
    for (char **c = j->channels; *c; c++)
        if (!strcmp(*c, name)) return 1;
    return 0;
}

/* ---- boxplot ------------------------------------------------------------------------ */

typedef struct {
    int group, channel; /* indices into the group and channel names */
    double idle_w, work_w;
    int bimodal;
    size_t run;
} level_row;

static int find_or_add(char **names, int *n, int max, const char *s)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(names[i], s)) return i;
    if (*n == max) return -1;
    names[*n] = mw_xstrdup(s);
    return (*n)++;
}

/* What the boxplot shows: the groups and channels met (names malloc'd) and a row per run,
 * group and channel with both levels; used: the runs read. */
typedef struct {
    char *groups[MAX_GROUPS], *chans[MW_PLOT_MAX_CHANNELS];
    int ng, nc;
    level_row *rows;
    size_t nrows, used;
} box_levels;

static void box_levels_free(box_levels *b)
{
    free(b->rows);
    for (int k = 0; k < b->ng; k++)
        free(b->groups[k]);
    for (int k = 0; k < b->nc; k++)
        free(b->chans[k]);
}

/* Run i (dirs[i], sweep label or NULL): its group, and each selected channel's kde levels
 * (channels with fewer than two windows, or past the channel limit, left out). 0, or -1
 * when the run is left out (said through mw_plot_say). */
static int add_run_levels(const mw_plot_job *j, const char *dir, const char *label, size_t i,
                          box_levels *b)
{
    mw_plot_run *r;
    char err[1024];
    if (mw_plot_run_load(dir, &r, err, sizeof err)) {
        mw_plot_say(j->out, "mw plot: boxplot: %s (left out)", err);
        return -1;
    }
    int64_t version;
    char g[256];
    if (mw_plot_run_counter(r, -2, "eeg version", &version) == 0)
        snprintf(g, sizeof g, "v%lld", (long long)version);
    else
        snprintf(g, sizeof g, "%s", label ? label : "runs");
    int gi = find_or_add(b->groups, &b->ng, MAX_GROUPS, g);
    if (gi < 0) {
        mw_plot_say(j->out, "mw plot: boxplot: more than %d groups; %s left out", MAX_GROUPS, dir);
        mw_plot_run_free(r);
        return 0;
    }
    b->used++;
    for (int c = 0; c < r->nch; c++) {
        if (!selected(j, r->ch[c].name) || r->ch[c].n < 2) continue;
        int ci = find_or_add(b->chans, &b->nc, MW_PLOT_MAX_CHANNELS, r->ch[c].name);
        if (ci < 0) continue;
        double *p = mw_plot_run_powers(r, c);
        mw_levels lv;
        if (mw_levels_kde(p, r->ch[c].n, &lv) == 0)
            b->rows[b->nrows++] = (level_row){gi, ci, lv.idle_w, lv.work_w, lv.bimodal, i};
        free(p);
    }
    mw_plot_run_free(r);
    return 0;
}

/* Channel c's blocks: its Pow_idle boxes, its Pow_work boxes (a row per group: x, min,
 * quartiles, max, n; GSL quantiles), its runs' points; its panel's range in *ylo, *yhi. */
static void write_channel_boxes(mw_plot_fig *f, const box_levels *b, int c, double *vals,
                                double *ylo, double *yhi)
{
    FILE *d = mw_plot_fig_tsv(f);
    *ylo = INFINITY;
    *yhi = -INFINITY;
    for (int lvl = 0; lvl < 2; lvl++) {
        mw_plot_fig_block(f, "%s, %s: group\tx\tmin_w\tq1_w\tmedian_w\tq3_w\tmax_w\truns",
                          b->chans[c], lvl ? "Pow_work" : "Pow_idle");
        for (int g = 0; g < b->ng; g++) {
            size_t m = 0;
            for (size_t k = 0; k < b->nrows; k++)
                if (b->rows[k].channel == c && b->rows[k].group == g)
                    vals[m++] = lvl ? b->rows[k].work_w : b->rows[k].idle_w;
            if (!m) continue;
            gsl_sort(vals, 1, m);
            mw_plot_tsv_text(d, b->groups[g]);
            fprintf(d, "\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%zu\n",
                    g + 1 + (lvl ? 0.17 : -0.17), vals[0],
                    gsl_stats_quantile_from_sorted_data(vals, 1, m, 0.25),
                    gsl_stats_median_from_sorted_data(vals, 1, m),
                    gsl_stats_quantile_from_sorted_data(vals, 1, m, 0.75), vals[m - 1], m);
            if (vals[0] < *ylo) *ylo = vals[0];
            if (vals[m - 1] > *yhi) *yhi = vals[m - 1];
        }
    }
    mw_plot_fig_block(f, "%s, runs: x_idle\tpow_idle_w\tx_work\tpow_work_w", b->chans[c]);
    for (size_t k = 0; k < b->nrows; k++)
        if (b->rows[k].channel == c)
            fprintf(d, "%.10g\t%.10g\t%.10g\t%.10g\n", b->rows[k].group + 1 - 0.17,
                    b->rows[k].idle_w, b->rows[k].group + 1 + 0.17, b->rows[k].work_w);
    /* a margin of 10 % of the spread, at least 0.5 W: never an empty range */
    double pad = (*yhi - *ylo) * 0.1;
    if (pad < 0.5) pad = 0.5;
    *ylo -= pad;
    *yhi += pad;
}

/* The boxplot figure of b. 0, or -1 when it failed. */
static int write_boxplot(const mw_plot_job *j, const box_levels *b, char *const *dirs,
                         const char *title)
{
    mw_plot_fig *f = mw_plot_fig_begin(j->out, "boxplot", "boxplot", BOX_W, BOX_H);
    if (!f) return -1;
    FILE *d = mw_plot_fig_tsv(f), *v = mw_plot_fig_vars(f);
    mw_plot_fig_block(f, "levels: run\tgroup\tchannel\tpow_idle_w\tpow_work_w\tbimodal");
    for (size_t k = 0; k < b->nrows; k++) {
        const level_row *row = &b->rows[k];
        mw_plot_tsv_text(d, dirs[row->run]);
        fputc('\t', d);
        mw_plot_tsv_text(d, b->groups[row->group]);
        fputc('\t', d);
        mw_plot_tsv_text(d, b->chans[row->channel]);
        fprintf(d, "\t%.10g\t%.10g\t%d\n", row->idle_w, row->work_w, row->bimodal);
    }
    int nc = b->nc;
    double *ylo = mw_xcalloc(1, (size_t)nc * sizeof *ylo),
           *yhi = mw_xcalloc(1, (size_t)nc * sizeof *yhi);
    double *vals = mw_xcalloc(1, b->nrows * sizeof *vals);
    for (int c = 0; c < nc; c++)
        write_channel_boxes(f, b, c, vals, &ylo[c], &yhi[c]);
    free(vals);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_int(v, "nch", nc);
    mw_plot_var_strs(v, "ch_name", (const char *const *)b->chans, (size_t)nc);
    mw_plot_var_int(v, "ngroups", b->ng);
    mw_plot_var_tic_labels(v, "group_name", (const char *const *)b->groups, (size_t)b->ng);
    mw_plot_var_nums(v, "ch_ymin", ylo, (size_t)nc);
    mw_plot_var_nums(v, "ch_ymax", yhi, (size_t)nc);
    mw_plot_var_int(v, "ncols", nc < 4 ? nc : nc <= 6 ? 3 : 4);
    free(ylo);
    free(yhi);
    char runs_note[96];
    snprintf(runs_note, sizeof runs_note, "%zu runs; a point per run", b->used);
    mw_plot_var_str(v, "runs_note", runs_note);
    return mw_plot_fig_end(f);
}

int mw_plot_boxplot(const mw_plot_job *j, char *const *dirs, const char *const *labels, size_t n)
{
    box_levels b;
    memset(&b, 0, sizeof b);
    b.rows = mw_xcalloc(1, n * MW_PLOT_MAX_CHANNELS * sizeof *b.rows);
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        if (add_run_levels(j, dirs[i], labels ? labels[i] : NULL, i, &b)) rc = -1;
    const char *title = "Pow_idle and Pow_work per node across runs (kernel density levels)";
    if (!b.nrows) {
        int r2 = mw_plot_note_figure(j->out, "boxplot", title,
                                     "no run with power levels to compare", BOX_W, BOX_H);
        box_levels_free(&b);
        return r2 ? -1 : rc;
    }
    if (write_boxplot(j, &b, dirs, title)) rc = -1;
    box_levels_free(&b);
    return rc;
}

/* ---- model -------------------------------------------------------------------------- */

typedef struct {
    int version, n_spop;
    const char *run;
    double t_meas, t_pred, t_fit, e_meas, e_pred, e_fit;
} model_row;

static int model_cmp(const void *a, const void *b)
{
    const model_row *x = a, *y = b;
    if (x->version != y->version) return x->version - y->version;
    if (x->n_spop != y->n_spop) return x->n_spop - y->n_spop;
    return strcmp(x->run, y->run);
}

/* the study's NRMSE of version v: time or energy, the study's or the paper's; NaN for none */
static double nrmse_of(const mw_escobar_study *s, int v, int energy, int paper)
{
    const mw_escobar_study_group *g = mw_escobar_study_group_of(s, v);
    if (!g) return NAN;
    if (paper) return energy ? g->paper_nrmse_e : g->paper_nrmse_t;
    return energy ? g->nrmse_e : g->nrmse_t;
}

static void nrmse_text(char *buf, size_t len, double x)
{
    if (isfinite(x))
        snprintf(buf, len, "%.3f", x);
    else
        snprintf(buf, len, "-");
}

/* The rows of the study's runs (predict mode, pred) with their fitted values (fit over the
 * same runs, may be NULL: NaN), sorted by version, N_Spop, run; malloc'd, count in *nr. The
 * strings point into pred. */
static model_row *read_model_rows(const mw_escobar_study *pred, const mw_escobar_study *fit,
                                  size_t *nr)
{
    size_t n = (size_t)pred->nrows;
    model_row *rows = mw_xcalloc(1, (n + 1) * sizeof *rows);
    for (size_t i = 0; i < n; i++) {
        const mw_escobar_study_row *r = &pred->rows[i];
        model_row *m = &rows[i];
        m->version = r->p.version;
        m->n_spop = r->p.n_spop;
        m->run = r->run->dir;
        m->t_meas = r->run->t_measured_s;
        m->t_pred = r->pr.t_cluster_s;
        m->e_meas = r->run->e_measured_j;
        m->e_pred = r->pr.energy_j;
        m->t_fit = m->e_fit = NAN;
        if (fit && i < (size_t)fit->nrows) { /* the same runs, in the same order */
            m->t_fit = fit->rows[i].pr.t_cluster_s;
            m->e_fit = fit->rows[i].pr.energy_j;
        }
    }
    qsort(rows, n, sizeof *rows, model_cmp);
    *nr = n;
    return rows;
}

/* The versions drawn (at most 8) and their series' legend titles, with mw fit's NRMSE. */
typedef struct {
    int versions[8], nv;
    char vb[8][16], tpb[8][128], tfb[8][128], epb[8][128], efb[8][128];
    const char *vname[8], *tp[8], *tf[8], *ep[8], *ef[8];
} model_series;

static void series_titles(model_series *s, int k, const mw_escobar_study *pred,
                          const mw_escobar_study *fit)
{
    int v = s->versions[k];
    char a1[32], a2[32];
    snprintf(s->vb[k], sizeof s->vb[k], "v%d", v);
    s->vname[k] = s->vb[k];
    nrmse_text(a1, sizeof a1, nrmse_of(pred, v, 0, 0));
    nrmse_text(a2, sizeof a2, nrmse_of(pred, v, 0, 1));
    snprintf(s->tpb[k], sizeof s->tpb[k], "v%d model, each run's parameters: NRMSE %s (paper %s)",
             v, a1, a2);
    nrmse_text(a1, sizeof a1, nrmse_of(fit, v, 0, 0));
    snprintf(s->tfb[k], sizeof s->tfb[k], "v%d model, fitted parameters: NRMSE %s", v, a1);
    nrmse_text(a1, sizeof a1, nrmse_of(pred, v, 1, 0));
    nrmse_text(a2, sizeof a2, nrmse_of(pred, v, 1, 1));
    snprintf(s->epb[k], sizeof s->epb[k], "v%d model, each run's parameters: NRMSE %s (paper %s)",
             v, a1, a2);
    nrmse_text(a1, sizeof a1, nrmse_of(fit, v, 1, 0));
    snprintf(s->efb[k], sizeof s->efb[k], "v%d model, fitted parameters: NRMSE %s", v, a1);
    s->tp[k] = s->tpb[k];
    s->tf[k] = s->tfb[k];
    s->ep[k] = s->epb[k];
    s->ef[k] = s->efb[k];
}

/* A block per version (n_spop, the six series, run) and the series' titles. */
static void write_model_blocks(mw_plot_fig *f, const model_row *rows, size_t nr, model_series *s,
                               const mw_escobar_study *pred, const mw_escobar_study *fit)
{
    FILE *d = mw_plot_fig_tsv(f);
    s->nv = 0;
    for (size_t i = 0; i < nr; i++)
        if ((!s->nv || s->versions[s->nv - 1] != rows[i].version) && s->nv < 8)
            s->versions[s->nv++] = rows[i].version;
    for (int k = 0; k < s->nv; k++) {
        mw_plot_fig_block(f,
                          "v%d: n_spop\tt_measured_s\tt_predicted_s\tt_fitted_s\te_measured_j\t"
                          "e_predicted_j\te_fitted_j\trun",
                          s->versions[k]);
        for (size_t i = 0; i < nr; i++) {
            const model_row *m = &rows[i];
            if (m->version != s->versions[k]) continue;
            fprintf(d, "%d\t", m->n_spop);
            const double x[] = {m->t_meas, m->t_pred, m->t_fit, m->e_meas, m->e_pred, m->e_fit};
            for (int q = 0; q < 6; q++) {
                mw_plot_tsv_num(d, x[q]);
                fputc('\t', d);
            }
            mw_plot_tsv_text(d, m->run);
            fputc('\n', d);
        }
        series_titles(s, k, pred, fit);
    }
}

/* Row "mean lo hi" of the n values x (NaN among them skipped): the mean, and its Student-t
 * interval from at least MODEL_CI_MIN_N values, else "-" "-"; a lone NaN gives "-". Returns
 * 1 when it wrote an interval. */
static int mean_ci_cols(FILE *d, const double *x, size_t n)
{
    double *v = mw_xcalloc(n ? n : 1, sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) v[m++] = x[i];
    double mean = m ? gsl_stats_mean(v, 1, m) : NAN, lo = NAN, hi = NAN;
    if (m >= MODEL_CI_MIN_N && mw_stats_mean_ci(v, m, MODEL_CI_LEVEL, &mean, &lo, &hi))
        lo = hi = NAN;
    free(v);
    const double c[3] = {mean, lo, hi};
    for (int q = 0; q < 3; q++) {
        fputc('\t', d);
        mw_plot_tsv_num(d, c[q]);
    }
    return isfinite(lo);
}

/* A block per version after the runs' (index nver + k): per N_Spop the number of runs, the
 * measured time's and energy's mean with their interval, and the mean of each model series
 * there (the line). rows are sorted by version and N_Spop. The versions (1-based words) with
 * an interval somewhere go to the variables t_ci_list, e_ci_list (gnuplot draws no error
 * bars, and says nothing, without one). */
static void write_model_means(mw_plot_fig *f, const model_row *rows, size_t nr,
                              const model_series *s)
{
    char ci_list[2][64] = {"", ""};
    FILE *d = mw_plot_fig_tsv(f);
    double *col[6];
    for (int q = 0; q < 6; q++)
        col[q] = mw_xcalloc(nr ? nr : 1, sizeof **col);
    for (int k = 0; k < s->nv; k++) {
        int got[2] = {0, 0};
        mw_plot_fig_block(f,
                          "v%d means: n_spop\tn_runs\tt_mean_s\tt_ci_lo_s\tt_ci_hi_s\te_mean_j\t"
                          "e_ci_lo_j\te_ci_hi_j\tt_predicted_s\tt_fitted_s\te_predicted_j\t"
                          "e_fitted_j",
                          s->versions[k]);
        for (size_t i = 0; i < nr;) {
            if (rows[i].version != s->versions[k]) {
                i++;
                continue;
            }
            size_t n = 0;
            int ns = rows[i].n_spop;
            for (; i < nr && rows[i].version == s->versions[k] && rows[i].n_spop == ns; i++, n++) {
                const model_row *m = &rows[i];
                const double x[6] = {m->t_meas, m->e_meas, m->t_pred,
                                     m->t_fit,  m->e_pred, m->e_fit};
                for (int q = 0; q < 6; q++)
                    col[q][n] = x[q];
            }
            fprintf(d, "%d\t%zu", ns, n);
            for (int q = 0; q < 2; q++)
                got[q] |= mean_ci_cols(d, col[q], n);
            for (int q = 2; q < 6; q++) {
                double sum = 0;
                size_t m = 0;
                for (size_t r = 0; r < n; r++)
                    if (isfinite(col[q][r])) sum += col[q][r], m++;
                fputc('\t', d);
                mw_plot_tsv_num(d, m ? sum / (double)m : NAN);
            }
            fputc('\n', d);
        }
        for (int q = 0; q < 2; q++) {
            size_t len = strlen(ci_list[q]);
            if (got[q])
                snprintf(ci_list[q] + len, sizeof ci_list[q] - len, "%s%d", len ? " " : "", k + 1);
        }
    }
    for (int q = 0; q < 6; q++)
        free(col[q]);
    FILE *v = mw_plot_fig_vars(f);
    mw_plot_var_str(v, "t_ci_list", ci_list[0]);
    mw_plot_var_str(v, "e_ci_list", ci_list[1]);
}

/* The ranges (one N_Spop or equal values would be an empty range) and, per series, the
 * versions that have values in it ("1 2": t meas/pred/fit, e meas/pred/fit). */
static void model_ranges(FILE *v, const model_row *rows, size_t nr, const model_series *s)
{
    double xlo = INFINITY, xhi = -INFINITY, tlo = INFINITY, thi = -INFINITY, elo = INFINITY,
           ehi = -INFINITY;
    char lists[6][64] = {"", "", "", "", "", ""};
    for (int k = 0; k < s->nv; k++) {
        int have[6] = {0};
        for (size_t i = 0; i < nr; i++) {
            const model_row *m = &rows[i];
            if (m->version != s->versions[k]) continue;
            if (m->n_spop < xlo) xlo = m->n_spop;
            if (m->n_spop > xhi) xhi = m->n_spop;
            const double x[] = {m->t_meas, m->t_pred, m->t_fit, m->e_meas, m->e_pred, m->e_fit};
            for (int q = 0; q < 6; q++) {
                if (!isfinite(x[q])) continue;
                have[q] = 1;
                double *lo = q < 3 ? &tlo : &elo, *hi = q < 3 ? &thi : &ehi;
                if (x[q] < *lo) *lo = x[q];
                if (x[q] > *hi) *hi = x[q];
            }
        }
        for (int q = 0; q < 6; q++)
            if (have[q]) {
                size_t len = strlen(lists[q]);
                snprintf(lists[q] + len, sizeof lists[q] - len, "%s%d", len ? " " : "", k + 1);
            }
    }
    mw_plot_var_range(v, "xmin", "xmax", xlo, xhi, 0.5);
    mw_plot_var_range(v, "tmin", "tmax", tlo, thi, thi > 0 ? thi * 0.05 : 1e-3);
    mw_plot_var_range(v, "emin", "emax", elo, ehi, ehi > 0 ? ehi * 0.05 : 1e-3);
    /* integer tics at most ~17 to a half-width panel; gnuplot's own beyond 64 */
    double span = xhi - xlo;
    mw_plot_var_int(v, "xtic_step", span <= 16 ? 1 : span <= 32 ? 2 : span <= 64 ? 4 : 0);
    static const char *const list_names[6] = {"t_meas_list", "t_pred_list", "t_fit_list",
                                              "e_meas_list", "e_pred_list", "e_fit_list"};
    for (int q = 0; q < 6; q++)
        mw_plot_var_str(v, list_names[q], lists[q]);
}

/* The model figure of the studies (pred; fit NULL with the reason in why_fit); left: the
 * runs without eeg-mofs counters. 0, or -1 when it failed. */
static int write_model(const mw_plot_job *j, const char *title, const mw_escobar_study *pred,
                       const mw_escobar_study *fit, const char *why_fit, size_t left)
{
    size_t nr;
    model_row *rows = read_model_rows(pred, fit, &nr);
    mw_plot_fig *f = mw_plot_fig_begin(j->out, "model", "model", MODEL_W, MODEL_H);
    if (!f) {
        free(rows);
        return -1;
    }
    model_series s;
    write_model_blocks(f, rows, nr, &s, pred, fit);
    write_model_means(f, rows, nr, &s);
    const char *notes[3];
    int nn = 0;
    char fnote[1100], lnote[128];
    if (!fit) {
        snprintf(fnote, sizeof fnote, "no fitted series: %s", why_fit);
        notes[nn++] = fnote;
    }
    if (left) {
        snprintf(lnote, sizeof lnote, "%zu run%s without eeg-mofs counters left out", left,
                 left == 1 ? "" : "s");
        notes[nn++] = lnote;
    }
    FILE *v = mw_plot_fig_vars(f);
    model_ranges(v, rows, nr, &s);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_int(v, "nver", s.nv);
    mw_plot_var_strs(v, "ver_name", s.vname, (size_t)s.nv);
    mw_plot_var_strs(v, "t_pred_title", s.tp, (size_t)s.nv);
    mw_plot_var_strs(v, "t_fit_title", s.tf, (size_t)s.nv);
    mw_plot_var_strs(v, "e_pred_title", s.ep, (size_t)s.nv);
    mw_plot_var_strs(v, "e_fit_title", s.ef, (size_t)s.nv);
    mw_plot_var_int(v, "have_fit", fit != NULL);
    mw_plot_var_int(v, "n_notes", nn);
    mw_plot_var_strs(v, "notes", notes, (size_t)nn);
    free(rows);
    return mw_plot_fig_end(f);
}

int mw_plot_model(const mw_plot_job *j, char *const *dirs, size_t n)
{
    const char *title = "Escobar model against measured runs (mw fit --model escobar)";
    char **eeg = mw_xcalloc(1, (n + 1) * sizeof *eeg);
    size_t neeg = 0;
    for (size_t i = 0; i < n; i++) {
        mw_plot_peek pk;
        char err[512];
        if (mw_plot_run_peek(dirs[i], &pk, err, sizeof err) == 0 && pk.eeg_version)
            eeg[neeg++] = dirs[i];
    }
    if (!neeg) {
        free(eeg);
        return mw_plot_note_figure(j->out, "model", title,
                                   "no eeg-mofs run (counter 'eeg version') among the inputs",
                                   MODEL_W, MODEL_H);
    }
    /* each run's own parameters; then the same runs with the time parameters fitted per
     * version (needs enough runs per version); messages as mw fit words them */
    mw_escobar_study_opts so = {.fit = 0};
    mw_escobar_study *pred, *fit = NULL;
    char err[1016], why_fit[1024] = ""; /* "mw fit: " err: at most 1023 characters */
    if (mw_escobar_study_run(&so, eeg, (int)neeg, &pred, err, sizeof err)) {
        free(eeg);
        char note[1200];
        snprintf(note, sizeof note, "mw fit: %s", err);
        return mw_plot_note_figure(j->out, "model", title, note, MODEL_W, MODEL_H);
    }
    free(eeg);
    so.fit = 1;
    if (mw_escobar_study_of_runs(&so, pred->runs, pred->nrows, NULL, &fit, err, sizeof err))
        snprintf(why_fit, sizeof why_fit, "mw fit: %s", err);
    int rc = write_model(j, title, pred, fit, why_fit, n - neeg);
    mw_escobar_study_free(pred);
    mw_escobar_study_free(fit);
    return rc;
}
