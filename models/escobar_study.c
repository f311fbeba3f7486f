/* escobar_study — see escobar_study.h. Design:
 *
 * A study is built in two passes over its rows. The first (add_row), in input order, gives
 * each row its run and the parameters it will be predicted with: the run's own, or those of
 * the calibration run (W/F by rank and device kind, else the calibration's mean over its
 * requesters; T_master, T_com, and T_Lm for v2 from a v2 calibration; the channels' power
 * levels matched by name, the switch's when both have one). In predict mode every time
 * parameter the run's requesters need must be measured in the run that gives them (have_*),
 * else the error names it, the run and how to get it. mw_escobar_study_run reads a run and
 * adds its row before reading the next, so the first problem met in input order is the one
 * told, as `mw fit` always told it.
 *
 * The second pass (finish) forms the groups by version (2, then 3); in fit mode each group's
 * time parameters are fitted to its runs' measured times (mw_escobar_fit_time, starting from
 * the rows' parameters) and set into its rows; then every row is predicted (predict mode
 * checks the parameters first: a refusal names the run; fitted parameters are predicted
 * unchecked, least squares may make a time < 0, which a note tells), and each group's NRMSE
 * of time and energy is taken over its rows.
 *
 * The study owns copies of its runs; rows point into them. Messages are worded for mw fit,
 * which prints them after "mw fit: " (notes after "mw fit: note: "). */
#include "escobar_study.h"
#include "mw_err.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "mw_sweepindex.h"

const double mw_escobar_paper_nrmse_time[2] = {0.439, 0.787};
const double mw_escobar_paper_nrmse_energy[2] = {0.403, 0.744};

static mw_escobar_study_status fail(mw_escobar_study_status st, char *err, size_t errlen,
                                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static mw_escobar_study_status fail(mw_escobar_study_status st, char *err, size_t errlen,
                                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mw_verr(err, errlen, fmt, ap);
    va_end(ap);
    return st;
}

static void note(const mw_escobar_study_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(const mw_escobar_study_opts *o, const char *fmt, ...)
{
    if (!o->note) return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    o->note(o->note_ctx, text);
}

/* ---- the first pass: each row's parameters ---------------------------------------------- */

static mw_escobar_study_status missing(const char *run, int is_cal, const char *param,
                                       const char *why, char *err, size_t errlen)
{
    return fail(MW_ESCOBAR_STUDY_BAD_INPUT, err, errlen, "%s%s: missing parameter %s: %s; %s",
                is_cal ? "--calibration " : "", run, param, why,
                is_cal ? "calibrate with a run that has it"
                       : "record a run that has it, or give --calibration RUNDIR");
}

/* the calibration's requester matching w: same rank and device kind, else NULL */
static const mw_escobar_worker *cal_worker(const mw_escobar_params *c, const mw_escobar_worker *w)
{
    for (int i = 0; i < c->nworkers; i++)
        if (c->w[i].rank == w->rank && c->w[i].gpu == w->gpu) return &c->w[i];
    return NULL;
}

/* the mean of c's measured (> 0) W/F of one device kind, 0 for none */
static double mean_t(const mw_escobar_params *c, int gpu)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < c->nworkers; i++) {
        double t = gpu ? c->w[i].t_gpu_s : c->w[i].t_cpu_s;
        if (t > 0) {
            s += t;
            n++;
        }
    }
    return n ? s / n : 0;
}

/* The time parameters p needs, measured in src (the run itself, or the calibration). */
static mw_escobar_study_status need_times(const mw_escobar_params *p, const mw_escobar_run *src,
                                          int is_cal, char *err, size_t errlen)
{
    int any_cpu = 0, any_gpu = 0;
    for (int i = 0; i < p->nworkers; i++) {
        any_cpu |= p->w[i].x < 1;
        any_gpu |= p->w[i].x > 0;
    }
    if (any_cpu && !src->have_t_cpu)
        return missing(src->dir, is_cal, "W_CPU/F_CPU (t_cpu_s)",
                       "no 'evaluate cpu' phases with 'eeg evaluated' counters", err, errlen);
    if (any_gpu && !src->have_t_gpu)
        return missing(src->dir, is_cal, "W_GPU/F_GPU (t_gpu_s)",
                       "no 'evaluate gpu' phases with 'eeg evaluated' counters (a CUDA "
                       "build of eeg-mofs with --gpus)",
                       err, errlen);
    if (!src->have_t_master)
        return missing(src->dir, is_cal, "T_master (t_master_s)",
                       "no 'global migration' phases on rank 0", err, errlen);
    if (p->version == 2 && (!src->have_t_lm || src->p.version != 2))
        return missing(src->dir, is_cal, "T_Lm (t_lm_s)",
                       "no 'local migration' phases (a v2 run with --local-every)", err, errlen);
    return MW_ESCOBAR_STUDY_OK;
}

/* p's time parameters and power levels from the calibration run's c */
static void calibrate(mw_escobar_params *p, const mw_escobar_params *c)
{
    double mc = mean_t(c, 0), mg = mean_t(c, 1);
    for (int i = 0; i < p->nworkers; i++) {
        mw_escobar_worker *w = &p->w[i];
        const mw_escobar_worker *cw = cal_worker(c, w);
        w->t_cpu_s = cw && cw->t_cpu_s > 0 ? cw->t_cpu_s : mc;
        w->t_gpu_s = cw && cw->t_gpu_s > 0 ? cw->t_gpu_s : mg;
    }
    p->t_master_s = c->t_master_s;
    p->t_com_s = c->t_com_s;
    if (p->version == 2) p->t_lm_s = c->version == 2 ? c->t_lm_s : 0;
    for (int k = 0; k < p->nnodes; k++) /* the channels' power levels by name */
        for (int j = 0; j < c->nnodes; j++)
            if (!strcmp(p->node[k].name, c->node[j].name)) {
                p->node[k].pow_w = c->node[j].pow_w;
                p->node[k].pow_idle_w = c->node[j].pow_idle_w;
            }
    if (p->has_switch && c->has_switch) {
        p->pow_sw_w = c->pow_sw_w;
        p->pow_sw_idle_w = c->pow_sw_idle_w;
    }
}

/* Row i of s: its run (s->runs[i], already there) and its parameters. */
static mw_escobar_study_status add_row(mw_escobar_study *s, int i, const mw_escobar_run *cal,
                                       char *err, size_t errlen)
{
    mw_escobar_study_row *row = &s->rows[i];
    row->run = &s->runs[i];
    row->p = row->run->p;
    if (!s->fit) {
        mw_escobar_study_status st =
            need_times(&row->p, cal ? cal : row->run, cal != NULL, err, errlen);
        if (st) return st;
    }
    if (cal) calibrate(&row->p, &cal->p);
    return MW_ESCOBAR_STUDY_OK;
}

/* ---- the second pass: groups, fit, predictions, NRMSE ----------------------------------- */

/* Fit mode, group g: its time parameters fitted to its runs' measured times, notes for a fit
 * that did not converge or a value < 0, its rows' parameters set to the fit. */
static mw_escobar_study_status fit_group(mw_escobar_study *s, const mw_escobar_study_opts *o,
                                         mw_escobar_study_group *g, char *err, size_t errlen)
{
    int v = g->version;
    mw_escobar_params *ps = mw_xcalloc((size_t)g->nruns, sizeof *ps);
    double *ts = mw_xcalloc((size_t)g->nruns, sizeof *ts);
    int k = 0;
    for (int i = 0; i < s->nrows; i++)
        if (s->rows[i].p.version == v) {
            ps[k] = s->rows[i].p;
            ts[k++] = s->rows[i].run->t_measured_s;
        }
    char e2[1024];
    int frc = mw_escobar_fit_time(ps, ts, (size_t)k, s->confidence, &g->fit, e2, sizeof e2);
    free(ps);
    free(ts);
    if (frc)
        return fail(MW_ESCOBAR_STUDY_BAD_INPUT, err, errlen,
                    "v%d: %s (give more runs of v%d, or --mode predict)", v, e2, v);
    g->fitted = 1;
    if (!g->fit.converged)
        note(o, "v%d: the fit stopped at its iteration limit (%d) before converging", v,
             g->fit.iterations);
    for (int j = 0; j < MW_ESCOBAR_NFIT; j++)
        if (g->fit.used[j] && g->fit.value[j] < 0)
            note(o,
                 "v%d: fitted %s = %g < 0: these runs do not determine it (add runs whose "
                 "N_Spop changes the rounds or chunk sizes)",
                 v, mw_escobar_fit_names[j], g->fit.value[j]);
    for (int i = 0; i < s->nrows; i++)
        if (s->rows[i].p.version == v) mw_escobar_apply(&s->rows[i].p, g->fit.value, g->fit.used);
    return MW_ESCOBAR_STUDY_OK;
}

/* the mean W/F of p's requesters that use that device, NaN for none */
static double mean_worker_t(const mw_escobar_params *p, int gpu)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < p->nworkers; i++)
        if (gpu ? p->w[i].x > 0 : p->w[i].x < 1) {
            s += gpu ? p->w[i].t_gpu_s : p->w[i].t_cpu_s;
            n++;
        }
    return n ? s / n : NAN;
}

static double rel_err(double predicted, double measured)
{
    double e = (predicted - measured) / measured;
    return isfinite(e) ? e : NAN;
}

/* Every row predicted (predict mode: checked first) and its derived figures. */
static mw_escobar_study_status predict_rows(mw_escobar_study *s, char *err, size_t errlen)
{
    char e2[1024];
    for (int i = 0; i < s->nrows; i++) {
        mw_escobar_study_row *r = &s->rows[i];
        if (s->fit) /* checked by the fit; a fitted time may be < 0 */
            mw_escobar_predict_raw(&r->p, &r->pr);
        else if (mw_escobar_predict(&r->p, &r->pr, e2, sizeof e2))
            return fail(MW_ESCOBAR_STUDY_BAD_INPUT, err, errlen, "%s: the model's parameters: %s",
                        r->run->dir, e2);
        r->t_cpu_s = mean_worker_t(&r->p, 0);
        r->t_gpu_s = mean_worker_t(&r->p, 1);
        r->t_err_rel = rel_err(r->pr.t_cluster_s, r->run->t_measured_s);
        r->e_err_rel = rel_err(r->pr.energy_j, r->run->e_measured_j);
    }
    return MW_ESCOBAR_STUDY_OK;
}

/* group g's NRMSE of time and energy over its rows */
static void group_nrmse(const mw_escobar_study *s, mw_escobar_study_group *g)
{
    size_t n = (size_t)s->nrows;
    double *y = mw_xcalloc(n * 4, sizeof *y);
    double *yh = y + n, *e = yh + n, *eh = e + n;
    size_t m = 0;
    for (int i = 0; i < s->nrows; i++)
        if (s->rows[i].p.version == g->version) {
            y[m] = s->rows[i].run->t_measured_s;
            yh[m] = s->rows[i].pr.t_cluster_s;
            e[m] = s->rows[i].run->e_measured_j;
            eh[m++] = s->rows[i].pr.energy_j;
        }
    g->nrmse_t = mw_escobar_nrmse(y, yh, m);
    g->nrmse_e = mw_escobar_nrmse(e, eh, m);
    free(y);
}

/* The groups by version, in fit mode fitted; the predictions; the NRMSE per group. */
static mw_escobar_study_status finish(mw_escobar_study *s, const mw_escobar_study_opts *o,
                                      char *err, size_t errlen)
{
    s->ngroups = 0;
    for (int v = 2; v <= 3; v++) {
        int cnt = 0;
        for (int i = 0; i < s->nrows; i++)
            cnt += s->rows[i].p.version == v;
        if (!cnt) continue;
        mw_escobar_study_group *g = &s->group[s->ngroups++];
        memset(g, 0, sizeof *g);
        g->version = v;
        g->nruns = cnt;
        g->paper_nrmse_t = mw_escobar_paper_nrmse_time[v - 2];
        g->paper_nrmse_e = mw_escobar_paper_nrmse_energy[v - 2];
        if (s->fit) {
            mw_escobar_study_status st = fit_group(s, o, g, err, errlen);
            if (st) return st;
        }
    }
    mw_escobar_study_status st = predict_rows(s, err, errlen);
    if (st) return st;
    for (int k = 0; k < s->ngroups; k++)
        group_nrmse(s, &s->group[k]);
    return MW_ESCOBAR_STUDY_OK;
}

/* ---- the entry points ------------------------------------------------------------------- */

/* the options' confidence (0: 0.95), or NaN when o is out of range (said in err) */
static double opts_confidence(const mw_escobar_study_opts *o, char *err, size_t errlen)
{
    double conf = o ? (o->confidence == 0 ? 0.95 : o->confidence) : NAN;
    if (!(conf > 0 && conf < 1)) {
        fail(MW_ESCOBAR_STUDY_FAILED, err, errlen, "%s",
             o ? "the confidence is not in (0, 1)" : "no options");
        return NAN;
    }
    return conf;
}

/* an empty study of n rows for options o (checked: confidence conf) */
static mw_escobar_study *study_new(const mw_escobar_study_opts *o, double conf, int n)
{
    mw_escobar_study *s = mw_xcalloc(1, sizeof *s);
    s->fit = o->fit != 0;
    s->confidence = conf;
    s->nrows = n;
    s->runs = mw_xcalloc((size_t)n, sizeof *s->runs);
    s->rows = mw_xcalloc((size_t)n, sizeof *s->rows);
    return s;
}

mw_escobar_study_status mw_escobar_study_of_runs(const mw_escobar_study_opts *o,
                                                 const mw_escobar_run *runs, int n,
                                                 const mw_escobar_run *cal, mw_escobar_study **out,
                                                 char *err, size_t errlen)
{
    *out = NULL;
    double conf = opts_confidence(o, err, errlen);
    if (isnan(conf)) return MW_ESCOBAR_STUDY_FAILED;
    if (n < 0 || (n > 0 && !runs)) return fail(MW_ESCOBAR_STUDY_FAILED, err, errlen, "no runs");
    mw_escobar_study *s = study_new(o, conf, n);
    mw_escobar_study_status st = MW_ESCOBAR_STUDY_OK;
    for (int i = 0; i < n && !st; i++) {
        s->runs[i] = runs[i];
        st = add_row(s, i, cal, err, errlen);
    }
    if (!st) st = finish(s, o, err, errlen);
    if (st)
        mw_escobar_study_free(s);
    else
        *out = s;
    return st;
}

/* Reads each run of dirs into s (its row added as it is read), with the calibration run
 * read from o->calibration first. */
static mw_escobar_study_status read_runs(mw_escobar_study *s, const mw_escobar_study_opts *o,
                                         char *const *dirs, char *err, size_t errlen)
{
    char e2[1024];
    mw_escobar_run *cal = NULL;
    mw_escobar_study_status st = MW_ESCOBAR_STUDY_OK;
    if (o->calibration) {
        cal = mw_xcalloc(1, sizeof *cal);
        if (mw_escobar_from_run(o->calibration, o->switch_name, cal, e2, sizeof e2))
            st = fail(MW_ESCOBAR_STUDY_BAD_INPUT, err, errlen, "--calibration %s", e2);
    }
    for (int i = 0; i < s->nrows && !st; i++) {
        if (mw_escobar_from_run(dirs[i], o->switch_name, &s->runs[i], e2, sizeof e2))
            st = fail(MW_ESCOBAR_STUDY_BAD_INPUT, err, errlen, "%s", e2);
        else
            st = add_row(s, i, cal, err, errlen);
    }
    free(cal);
    return st;
}

mw_escobar_study_status mw_escobar_study_run(const mw_escobar_study_opts *o, char *const *inputs,
                                             int n, mw_escobar_study **out, char *err,
                                             size_t errlen)
{
    *out = NULL;
    double conf = opts_confidence(o, err, errlen);
    if (isnan(conf)) return MW_ESCOBAR_STUDY_FAILED;
    if (n < 1 || !inputs)
        return fail(MW_ESCOBAR_STUDY_BAD_INPUT, err, errlen, "no run directories");
    char **dirs = NULL, e2[1024];
    int nd = 0;
    /* a SWEEPDIR becomes its finished runs */
    if (mw_sweepidx_expand(n, inputs, &dirs, &nd, e2, sizeof e2))
        return fail(MW_ESCOBAR_STUDY_BAD_INPUT, err, errlen, "%s", e2);
    mw_escobar_study *s = study_new(o, conf, nd);
    mw_escobar_study_status st = read_runs(s, o, dirs, err, errlen);
    if (!st) st = finish(s, o, err, errlen);
    mw_sweepidx_free_list(dirs, nd);
    if (st)
        mw_escobar_study_free(s);
    else
        *out = s;
    return st;
}

void mw_escobar_study_free(mw_escobar_study *s)
{
    if (!s) return;
    free(s->runs);
    free(s->rows);
    free(s);
}

const mw_escobar_study_group *mw_escobar_study_group_of(const mw_escobar_study *s, int v)
{
    for (int k = 0; s && k < s->ngroups; k++)
        if (s->group[k].version == v) return &s->group[k];
    return NULL;
}
