/* plot_kinds_multi — the kinds of `mw plot` over several runs: boxplot (plots/gnuplot/boxplot.gp)
 * and model (plots/gnuplot/model.gp).
 *
 * boxplot (seed 000 Fig. 8). Runs are read one at a time; each channel's Pow_idle and
 * Pow_work are the paper's kernel-density levels (mw_levels_kde, as `mw analyze` reports
 * them: one level gives both). A run's group is its eeg-mofs version ("v2", "v3": the
 * counter "eeg version") when it has one, else its sweep configuration, else "runs". The data
 * file's first block lists every (run, group, channel) with both levels; then per channel
 * the boxes of Pow_idle and of Pow_work (a row per group: minimum, quartiles and median by
 * GSL's quantiles of the sorted values, maximum, runs), drawn as candlesticks (gnuplot's own
 * boxplot style draws no box under four points), and the runs' points.
 *
 * model (seed 000 Figs. 5 and 9). `mw fit --model escobar --json` runs as a child process on
 * the eeg-mofs runs (each run's own parameters: predict mode), and again with --mode fit
 * when the runs are enough for a least-squares fit (else that series is left out, with the
 * reason as a note). Per version, measured and modelled time and energy over N_Spop, and
 * the NRMSE of each series (the library's, as mw fit prints it) in the legend. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "levels.h"
#include "mw_plot.h"

#define BOX_W 1200
#define BOX_H 700
#define MODEL_W 1200
#define MODEL_H 600
#define MAX_GROUPS 64

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

int mw_plot_boxplot(const mw_plot_job *j, char *const *dirs, const char *const *labels, size_t n)
{
    char *groups[MAX_GROUPS], *chans[MW_PLOT_MAX_CHANNELS];
    int ng = 0, nc = 0, rc = 0;
    level_row *rows = mw_xcalloc(1, n * MW_PLOT_MAX_CHANNELS * sizeof *rows);
    size_t nrows = 0, used = 0;
    for (size_t i = 0; i < n; i++) {
        mw_plot_run *r;
        char err[1024];
        if (mw_plot_run_load(dirs[i], &r, err, sizeof err)) {
            fprintf(stderr, "mw plot: boxplot: %s (left out)\n", err);
            rc = -1;
            continue;
        }
        int64_t version;
        char g[256];
        if (mw_plot_run_counter(r, -2, "eeg version", &version) == 0)
            snprintf(g, sizeof g, "v%lld", (long long)version);
        else
            snprintf(g, sizeof g, "%s", labels && labels[i] ? labels[i] : "runs");
        int gi = find_or_add(groups, &ng, MAX_GROUPS, g);
        if (gi < 0) {
            fprintf(stderr, "mw plot: boxplot: more than %d groups; %s left out\n", MAX_GROUPS,
                    dirs[i]);
            mw_plot_run_free(r);
            continue;
        }
        used++;
        for (int c = 0; c < r->nch; c++) {
            if (!selected(j, r->ch[c].name) || r->ch[c].n < 2) continue;
            int ci = find_or_add(chans, &nc, MW_PLOT_MAX_CHANNELS, r->ch[c].name);
            if (ci < 0) continue;
            double *p = mw_plot_run_powers(r, c);
            mw_levels lv;
            if (mw_levels_kde(p, r->ch[c].n, &lv) == 0)
                rows[nrows++] = (level_row){gi, ci, lv.idle_w, lv.work_w, lv.bimodal, i};
            free(p);
        }
        mw_plot_run_free(r);
    }
    const char *title = "Pow_idle and Pow_work per node across runs (kernel density levels)";
    if (!nrows) {
        int r2 = mw_plot_note_figure(j->out, "boxplot", title,
                                     "no run with power levels to compare", BOX_W, BOX_H);
        free(rows);
        for (int k = 0; k < ng; k++)
            free(groups[k]);
        for (int k = 0; k < nc; k++)
            free(chans[k]);
        return r2 ? -1 : rc;
    }
    mw_plot_fig *f = mw_plot_fig_begin(j->out, "boxplot", "boxplot", BOX_W, BOX_H);
    if (f) {
        FILE *d = mw_plot_fig_tsv(f), *v = mw_plot_fig_vars(f);
        mw_plot_fig_block(f, "levels: run\tgroup\tchannel\tpow_idle_w\tpow_work_w\tbimodal");
        for (size_t k = 0; k < nrows; k++) {
            mw_plot_tsv_text(d, dirs[rows[k].run]);
            fputc('\t', d);
            mw_plot_tsv_text(d, groups[rows[k].group]);
            fputc('\t', d);
            mw_plot_tsv_text(d, chans[rows[k].channel]);
            fprintf(d, "\t%.10g\t%.10g\t%d\n", rows[k].idle_w, rows[k].work_w, rows[k].bimodal);
        }
        /* per channel: the idle boxes, the work boxes (a row per group: x, min, quartiles,
           max, n; GSL quantiles), the runs' points */
        double *ylo = mw_xcalloc(1, (size_t)nc * sizeof *ylo),
               *yhi = mw_xcalloc(1, (size_t)nc * sizeof *yhi);
        double *vals = mw_xcalloc(1, nrows * sizeof *vals);
        for (int c = 0; c < nc; c++) {
            ylo[c] = INFINITY;
            yhi[c] = -INFINITY;
            for (int lvl = 0; lvl < 2; lvl++) {
                mw_plot_fig_block(f, "%s, %s: group\tx\tmin_w\tq1_w\tmedian_w\tq3_w\tmax_w\truns",
                                  chans[c], lvl ? "Pow_work" : "Pow_idle");
                for (int g = 0; g < ng; g++) {
                    size_t m = 0;
                    for (size_t k = 0; k < nrows; k++)
                        if (rows[k].channel == c && rows[k].group == g)
                            vals[m++] = lvl ? rows[k].work_w : rows[k].idle_w;
                    if (!m) continue;
                    gsl_sort(vals, 1, m);
                    mw_plot_tsv_text(d, groups[g]);
                    fprintf(d, "\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%zu\n",
                            g + 1 + (lvl ? 0.17 : -0.17), vals[0],
                            gsl_stats_quantile_from_sorted_data(vals, 1, m, 0.25),
                            gsl_stats_median_from_sorted_data(vals, 1, m),
                            gsl_stats_quantile_from_sorted_data(vals, 1, m, 0.75), vals[m - 1], m);
                    if (vals[0] < ylo[c]) ylo[c] = vals[0];
                    if (vals[m - 1] > yhi[c]) yhi[c] = vals[m - 1];
                }
            }
            mw_plot_fig_block(f, "%s, runs: x_idle\tpow_idle_w\tx_work\tpow_work_w", chans[c]);
            for (size_t k = 0; k < nrows; k++)
                if (rows[k].channel == c)
                    fprintf(d, "%.10g\t%.10g\t%.10g\t%.10g\n", rows[k].group + 1 - 0.17,
                            rows[k].idle_w, rows[k].group + 1 + 0.17, rows[k].work_w);
            /* a margin of 10 % of the spread, at least 0.5 W: never an empty range */
            double pad = (yhi[c] - ylo[c]) * 0.1;
            if (pad < 0.5) pad = 0.5;
            ylo[c] -= pad;
            yhi[c] += pad;
        }
        free(vals);
        mw_plot_var_str(v, "title_text", title);
        mw_plot_var_int(v, "nch", nc);
        mw_plot_var_strs(v, "ch_name", (const char *const *)chans, (size_t)nc);
        mw_plot_var_int(v, "ngroups", ng);
        mw_plot_var_strs(v, "group_name", (const char *const *)groups, (size_t)ng);
        mw_plot_var_nums(v, "ch_ymin", ylo, (size_t)nc);
        mw_plot_var_nums(v, "ch_ymax", yhi, (size_t)nc);
        mw_plot_var_int(v, "ncols", nc < 4 ? nc : nc <= 6 ? 3 : 4);
        free(ylo);
        free(yhi);
        char runs_note[96];
        snprintf(runs_note, sizeof runs_note, "%zu runs; a point per run", used);
        mw_plot_var_str(v, "runs_note", runs_note);
        if (mw_plot_fig_end(f)) rc = -1;
    } else {
        rc = -1;
    }
    free(rows);
    for (int k = 0; k < ng; k++)
        free(groups[k]);
    for (int k = 0; k < nc; k++)
        free(chans[k]);
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

/* mw fit's NRMSE of version v, time or energy */
static double nrmse_of(struct json_object *fit, int v, const char *what)
{
    struct json_object *a = mw_plot_jget(fit, "nrmse");
    for (size_t i = 0; a && i < json_object_array_length(a); i++) {
        struct json_object *e = json_object_array_get_idx(a, i);
        if ((int)mw_plot_jnum(mw_plot_jget(e, "version")) == v)
            return mw_plot_jnum(mw_plot_jget(e, what));
    }
    return NAN;
}

static void nrmse_text(char *buf, size_t len, double x)
{
    if (isfinite(x))
        snprintf(buf, len, "%.3f", x);
    else
        snprintf(buf, len, "-");
}

int mw_plot_model(const mw_plot_job *j, char *const *dirs, size_t n)
{
    const char *title = "Escobar model against measured runs (mw fit --model escobar)";
    char **argv = mw_xcalloc(1, (n + 8) * sizeof *argv);
    int a = 0;
    argv[a++] = "mw";
    argv[a++] = "fit";
    argv[a++] = "--model";
    argv[a++] = "escobar";
    argv[a++] = "--json";
    size_t neeg = 0;
    for (size_t i = 0; i < n; i++) {
        mw_plot_peek pk;
        char err[512];
        if (mw_plot_run_peek(dirs[i], &pk, err, sizeof err) == 0 && pk.eeg_version)
            argv[a + neeg++] = dirs[i];
    }
    argv[a + neeg] = NULL;
    if (!neeg) {
        free(argv);
        return mw_plot_note_figure(j->out, "model", title,
                                   "no eeg-mofs run (counter 'eeg version') among the inputs",
                                   MODEL_W, MODEL_H);
    }
    char why[1024], why_fit[1024] = "";
    struct json_object *pred = mw_plot_mw_json(argv, why, sizeof why);
    if (!pred) {
        free(argv);
        char note[1200];
        snprintf(note, sizeof note, "%s%s", strncmp(why, "mw ", 3) ? "mw fit: " : "", why);
        return mw_plot_note_figure(j->out, "model", title, note, MODEL_W, MODEL_H);
    }
    /* the same runs with the time parameters fitted (needs enough runs per version) */
    char **fargv = mw_xcalloc(1, (neeg + 10) * sizeof *fargv);
    int fa = 0;
    fargv[fa++] = "mw";
    fargv[fa++] = "fit";
    fargv[fa++] = "--model";
    fargv[fa++] = "escobar";
    fargv[fa++] = "--mode";
    fargv[fa++] = "fit";
    fargv[fa++] = "--json";
    for (size_t i = 0; i < neeg; i++)
        fargv[fa++] = argv[5 + i];
    fargv[fa] = NULL;
    struct json_object *fit = mw_plot_mw_json(fargv, why_fit, sizeof why_fit);
    free(fargv);

    struct json_object *runs = mw_plot_jget(pred, "runs");
    size_t nr = runs ? json_object_array_length(runs) : 0;
    model_row *rows = mw_xcalloc(1, (nr + 1) * sizeof *rows);
    struct json_object *fruns = mw_plot_jget(fit, "runs");
    for (size_t i = 0; i < nr; i++) {
        struct json_object *r = json_object_array_get_idx(runs, i);
        model_row *m = &rows[i];
        m->version = (int)mw_plot_jnum(mw_plot_jget(r, "version"));
        m->n_spop = (int)mw_plot_jnum(mw_plot_jget(r, "n_spop"));
        m->run = json_object_get_string(mw_plot_jget(r, "run"));
        if (!m->run) m->run = "-";
        m->t_meas = mw_plot_jnum(mw_plot_jget(mw_plot_jget(r, "time_s"), "measured"));
        m->t_pred = mw_plot_jnum(mw_plot_jget(mw_plot_jget(r, "time_s"), "predicted"));
        m->e_meas = mw_plot_jnum(mw_plot_jget(mw_plot_jget(r, "energy_j"), "measured"));
        m->e_pred = mw_plot_jnum(mw_plot_jget(mw_plot_jget(r, "energy_j"), "predicted"));
        m->t_fit = m->e_fit = NAN;
        for (size_t k = 0; fruns && k < json_object_array_length(fruns); k++) {
            struct json_object *fr = json_object_array_get_idx(fruns, k);
            const char *d = json_object_get_string(mw_plot_jget(fr, "run"));
            if (d && !strcmp(d, m->run)) {
                m->t_fit = mw_plot_jnum(mw_plot_jget(mw_plot_jget(fr, "time_s"), "predicted"));
                m->e_fit = mw_plot_jnum(mw_plot_jget(mw_plot_jget(fr, "energy_j"), "predicted"));
            }
        }
    }
    qsort(rows, nr, sizeof *rows, model_cmp);

    int rc = 0;
    mw_plot_fig *f = mw_plot_fig_begin(j->out, "model", "model", MODEL_W, MODEL_H);
    if (!f) {
        rc = -1;
        goto out;
    }
    FILE *d = mw_plot_fig_tsv(f), *v = mw_plot_fig_vars(f);
    int versions[8], nv = 0;
    for (size_t i = 0; i < nr; i++)
        if ((!nv || versions[nv - 1] != rows[i].version) && nv < 8)
            versions[nv++] = rows[i].version;
    const char *vname[8], *tp[8], *tf[8], *ep[8], *ef[8];
    char vb[8][16], tpb[8][128], tfb[8][128], epb[8][128], efb[8][128];
    for (int k = 0; k < nv; k++) {
        mw_plot_fig_block(f,
                          "v%d: n_spop\tt_measured_s\tt_predicted_s\tt_fitted_s\te_measured_j\t"
                          "e_predicted_j\te_fitted_j\trun",
                          versions[k]);
        for (size_t i = 0; i < nr; i++) {
            const model_row *m = &rows[i];
            if (m->version != versions[k]) continue;
            fprintf(d, "%d\t", m->n_spop);
            const double x[] = {m->t_meas, m->t_pred, m->t_fit, m->e_meas, m->e_pred, m->e_fit};
            for (int q = 0; q < 6; q++) {
                mw_plot_tsv_num(d, x[q]);
                fputc('\t', d);
            }
            mw_plot_tsv_text(d, m->run);
            fputc('\n', d);
        }
        char a1[32], a2[32];
        snprintf(vb[k], sizeof vb[k], "v%d", versions[k]);
        vname[k] = vb[k];
        nrmse_text(a1, sizeof a1, nrmse_of(pred, versions[k], "time"));
        nrmse_text(a2, sizeof a2, nrmse_of(pred, versions[k], "paper_time"));
        snprintf(tpb[k], sizeof tpb[k], "v%d model, each run's parameters: NRMSE %s (paper %s)",
                 versions[k], a1, a2);
        nrmse_text(a1, sizeof a1, nrmse_of(fit, versions[k], "time"));
        snprintf(tfb[k], sizeof tfb[k], "v%d model, fitted parameters: NRMSE %s", versions[k], a1);
        nrmse_text(a1, sizeof a1, nrmse_of(pred, versions[k], "energy"));
        nrmse_text(a2, sizeof a2, nrmse_of(pred, versions[k], "paper_energy"));
        snprintf(epb[k], sizeof epb[k], "v%d model, each run's parameters: NRMSE %s (paper %s)",
                 versions[k], a1, a2);
        nrmse_text(a1, sizeof a1, nrmse_of(fit, versions[k], "energy"));
        snprintf(efb[k], sizeof efb[k], "v%d model, fitted parameters: NRMSE %s", versions[k], a1);
        tp[k] = tpb[k];
        tf[k] = tfb[k];
        ep[k] = epb[k];
        ef[k] = efb[k];
    }
    const char *notes[3];
    int nn = 0;
    char fnote[1100], lnote[128];
    if (!fit) {
        snprintf(fnote, sizeof fnote, "no fitted series: %s", why_fit);
        notes[nn++] = fnote;
    }
    if (neeg < n) {
        snprintf(lnote, sizeof lnote, "%zu run%s without eeg-mofs counters left out", n - neeg,
                 n - neeg == 1 ? "" : "s");
        notes[nn++] = lnote;
    }
    /* ranges (one N_Spop or equal values would be an empty range) and the series that
       have values, per version */
    double xlo = INFINITY, xhi = -INFINITY, tlo = INFINITY, thi = -INFINITY, elo = INFINITY,
           ehi = -INFINITY;
    char lists[6][64] = {"", "", "", "", "", ""}; /* t meas/pred/fit, e meas/pred/fit */
    for (int k = 0; k < nv; k++) {
        int have[6] = {0};
        for (size_t i = 0; i < nr; i++) {
            const model_row *m = &rows[i];
            if (m->version != versions[k]) continue;
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
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_int(v, "nver", nv);
    mw_plot_var_strs(v, "ver_name", vname, (size_t)nv);
    mw_plot_var_strs(v, "t_pred_title", tp, (size_t)nv);
    mw_plot_var_strs(v, "t_fit_title", tf, (size_t)nv);
    mw_plot_var_strs(v, "e_pred_title", ep, (size_t)nv);
    mw_plot_var_strs(v, "e_fit_title", ef, (size_t)nv);
    mw_plot_var_int(v, "have_fit", fit != NULL);
    mw_plot_var_int(v, "n_notes", nn);
    mw_plot_var_strs(v, "notes", notes, (size_t)nn);
    rc = mw_plot_fig_end(f);
out:
    free(rows);
    free(argv);
    json_object_put(pred);
    if (fit) json_object_put(fit);
    return rc;
}
