/* escobar — see escobar.h. Design:
 *
 * The model is evaluated exactly as the equations read, with one extension the equations
 * leave implicit: when N_Spop exceeds what one round of requests takes (requesters x
 * dN_Spop), a global epoch needs several rounds of chunks. The master hands chunks out as
 * requesters become free, so the prediction simulates that list schedule (each chunk to the
 * requester with the least busy time so far, ties to the lowest index; the last chunk holds
 * what is left). eq. 7 gives each chunk's time; max_i T_i of eq. 8 is the largest sum over
 * one requester. With R equal requesters this is ceil(ceil(N_Spop / dN_Spop) / R) rounds of
 * eq. 7, which is where the paper's saw-tooth over N_Spop comes from; with N_Spop <= R
 * dN_Spop it is eq. 7 itself. Ceilings are taken with a relative slack of 1e-9 so that
 * 12.000000000001 individuals (from x (N/N_Spop) dN_Spop in floating point) count as 12.
 *
 * Energy (eq. 9) is applied to the whole run: T_i there is a node's busy time over the run,
 * N_Gm times (its requesters' largest per-epoch sum, plus T_master on the master's node),
 * capped at T_cluster; the switch's T_com is N_Gm T_com.
 *
 * The fit (mw_escobar_fit_time) varies the four time parameters shared by a sweep (W/F of
 * the CPU and the GPU, T_Lm, and T_master + T_com) and minimises the squared error of
 * eq. 8 against the measured T_cluster with GSL's multifit_nlinear (trust region,
 * Levenberg-Marquardt, finite-difference Jacobian): the model is linear in them while the
 * max() of eq. 7 picks the same device, so the iteration ends in a few steps. The covariance
 * is gsl_multifit_nlinear_covar's (J'J)^-1 times s^2 = rss / (n - p), and the interval uses
 * Student's t with n - p degrees of freedom (mw_precision_t).
 *
 * Extraction from a run reads the run store (docs/run-store.md) in one read transaction:
 * counters, phases, channels and their windows (levels.h for Pow/Pow^idle, energy.h for
 * the measured energy over the modelled span). */
#include "escobar.h"
#include "energy_store.h"

#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "energy.h"
#include "precision.h"
#include "levels.h"
#include "mw_alloc.h"
#include "mw_store.h"

const char *const mw_escobar_fit_names[MW_ESCOBAR_NFIT] = {"t_cpu_s", "t_gpu_s", "t_lm_s",
                                                           "t_ovh_s"};

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ceil with a relative slack for floating-point counts */
static double ceil_count(double c)
{
    if (c <= 0) return 0;
    return ceil(c - 1e-9 * (c > 1 ? c : 1));
}

/* ---- the model ----------------------------------------------------------------------- */

double mw_escobar_chunk_time_s(const mw_escobar_params *p, const mw_escobar_worker *w, int subpops)
{
    double m = (double)p->individuals / p->n_spop; /* N / N_Spop */
    double c_gpu = w->x * m * subpops;             /* eq. 5 */
    double c_cpu = (1 - w->x) * m * subpops;       /* eq. 6 */
    double gpu = c_gpu > 0 && w->p_gpu > 0 ? ceil_count(c_gpu / w->p_gpu) * w->t_gpu_s : 0;
    double cpu = c_cpu > 0 && w->p_cpu > 0 ? ceil_count(c_cpu / w->p_cpu) * w->t_cpu_s : 0;
    double gen = gpu > cpu ? gpu : cpu;
    return p->n_lm * (p->g * gen + p->t_lm_s); /* eq. 7 */
}

static int bad_time(double t)
{
    return !isfinite(t) || t < 0;
}

int mw_escobar_check(const mw_escobar_params *p, char *err, size_t errlen)
{
    if (p->version != 2 && p->version != 3)
        return fail(err, errlen, "version %d (2 or 3)", p->version);
    if (p->individuals < 1) return fail(err, errlen, "N (individuals) %d < 1", p->individuals);
    if (p->n_spop < 1) return fail(err, errlen, "N_Spop %d < 1", p->n_spop);
    if (p->g < 1) return fail(err, errlen, "g (generations per local epoch) %d < 1", p->g);
    if (p->n_lm < 1) return fail(err, errlen, "N_Lm %d < 1", p->n_lm);
    if (p->n_gm < 1) return fail(err, errlen, "N_Gm %d < 1", p->n_gm);
    if (bad_time(p->t_master_s)) return fail(err, errlen, "T_master not a time >= 0");
    if (bad_time(p->t_com_s)) return fail(err, errlen, "T_com not a time >= 0");
    if (bad_time(p->t_lm_s)) return fail(err, errlen, "T_Lm not a time >= 0");
    if (p->nworkers < 1 || p->nworkers > MW_ESCOBAR_MAX_WORKERS)
        return fail(err, errlen, "%d requesters (1 to %d)", p->nworkers, MW_ESCOBAR_MAX_WORKERS);
    if (p->nnodes < 0 || p->nnodes > MW_ESCOBAR_MAX_NODES)
        return fail(err, errlen, "%d nodes (0 to %d)", p->nnodes, MW_ESCOBAR_MAX_NODES);
    for (int i = 0; i < p->nworkers; i++) {
        const mw_escobar_worker *w = &p->w[i];
        if (w->delta_spop < 1)
            return fail(err, errlen, "requester %d: dN_Spop %d < 1", i, w->delta_spop);
        if (!(w->x >= 0 && w->x <= 1)) return fail(err, errlen, "requester %d: x not in [0, 1]", i);
        if (w->x < 1 && (w->p_cpu < 1 || bad_time(w->t_cpu_s)))
            return fail(err, errlen, "requester %d: CPU work without P_CPU >= 1 and W_CPU/F_CPU",
                        i);
        if (w->x > 0 && (w->p_gpu < 1 || bad_time(w->t_gpu_s)))
            return fail(err, errlen, "requester %d: GPU work without P_GPU >= 1 and W_GPU/F_GPU",
                        i);
    }
    for (int i = 0; i < p->nnodes; i++)
        if (!isfinite(p->node[i].pow_w) || !isfinite(p->node[i].pow_idle_w))
            return fail(err, errlen, "node %s: Pow_i or Pow_i^idle not finite", p->node[i].name);
    if (p->has_switch && (!isfinite(p->pow_sw_w) || !isfinite(p->pow_sw_idle_w)))
        return fail(err, errlen, "Pow_SW or Pow_SW^idle not finite");
    return 0;
}

/* the prediction without the check (the fit also evaluates it at trial values < 0) */
void mw_escobar_predict_raw(const mw_escobar_params *p, mw_escobar_prediction *out)
{
    memset(out, 0, sizeof *out);
    double busy[MW_ESCOBAR_MAX_WORKERS] = {0};
    int got[MW_ESCOBAR_MAX_WORKERS] = {0};
    /* one global epoch: chunks to the least busy requester (the dynamic distribution) */
    for (int next = 0; next < p->n_spop;) {
        int best = 0;
        for (int i = 1; i < p->nworkers; i++)
            if (busy[i] < busy[best]) best = i;
        const mw_escobar_worker *w = &p->w[best];
        int c = p->n_spop - next < w->delta_spop ? p->n_spop - next : w->delta_spop;
        busy[best] += mw_escobar_chunk_time_s(p, w, c);
        got[best]++;
        next += c;
        out->chunks++;
    }
    for (int i = 0; i < p->nworkers; i++) {
        if (busy[i] > out->t_max_i_s) out->t_max_i_s = busy[i];
        if (got[i] > out->rounds) out->rounds = got[i];
    }
    out->t_epoch_s = p->t_master_s + out->t_max_i_s + p->t_com_s;
    out->t_cluster_s = p->n_gm * out->t_epoch_s; /* eq. 8 */

    double t = out->t_cluster_s;
    for (int k = 0; k < p->nnodes; k++) {
        const mw_escobar_node *nd = &p->node[k];
        double b = 0;
        for (int i = 0; i < p->nworkers; i++)
            if (mw_energy_channel_measures(nd->host, p->w[i].host) && busy[i] > b) b = busy[i];
        b = p->n_gm * (b + (nd->master ? p->t_master_s : 0));
        if (b > t) b = t;
        out->busy_s[k] = b;
        out->e_node_j[k] = nd->pow_w * b + nd->pow_idle_w * (t - b); /* eq. 9 */
        out->energy_j += out->e_node_j[k];
    }
    if (p->has_switch) {
        double c = p->n_gm * p->t_com_s;
        if (c > t) c = t;
        out->e_switch_j = p->pow_sw_w * c + p->pow_sw_idle_w * (t - c);
        out->energy_j += out->e_switch_j;
    }
}

int mw_escobar_predict(const mw_escobar_params *p, mw_escobar_prediction *out, char *err,
                       size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (mw_escobar_check(p, err, errlen)) return -1;
    mw_escobar_predict_raw(p, out);
    return 0;
}

double mw_escobar_nrmse(const double *y, const double *yhat, size_t n)
{
    if (n == 0) return NAN;
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += y[i];
    mean /= (double)n;
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += (y[i] - yhat[i]) * (y[i] - yhat[i]);
        den += (y[i] - mean) * (y[i] - mean);
    }
    if (!(den > 0) || !isfinite(num)) return NAN;
    return 1 - sqrt(num) / sqrt(den);
}

/* ---- the fit ------------------------------------------------------------------------- */

void mw_escobar_apply(mw_escobar_params *p, const double *theta, const int *used)
{
    for (int i = 0; i < p->nworkers; i++) {
        if (used[MW_ESCOBAR_FIT_T_CPU]) p->w[i].t_cpu_s = theta[MW_ESCOBAR_FIT_T_CPU];
        if (used[MW_ESCOBAR_FIT_T_GPU]) p->w[i].t_gpu_s = theta[MW_ESCOBAR_FIT_T_GPU];
    }
    if (used[MW_ESCOBAR_FIT_T_LM] && p->version == 2) p->t_lm_s = theta[MW_ESCOBAR_FIT_T_LM];
    if (used[MW_ESCOBAR_FIT_T_OVH]) {
        double sum = p->t_master_s + p->t_com_s;
        double r = sum > 0 && isfinite(sum) ? p->t_master_s / sum : 0.5;
        p->t_master_s = r * theta[MW_ESCOBAR_FIT_T_OVH];
        p->t_com_s = (1 - r) * theta[MW_ESCOBAR_FIT_T_OVH];
    }
}

typedef struct {
    const mw_escobar_params *runs;
    const double *t_s;
    size_t n;
    const int *used;
    const int *index; /* fitted parameter k -> slot */
    int np;
    mw_escobar_params *work;
} fit_ctx;

static int fit_f(const gsl_vector *x, void *data, gsl_vector *f)
{
    fit_ctx *c = data;
    double theta[MW_ESCOBAR_NFIT] = {0};
    for (int k = 0; k < c->np; k++)
        theta[c->index[k]] = gsl_vector_get(x, (size_t)k);
    for (size_t i = 0; i < c->n; i++) {
        *c->work = c->runs[i];
        mw_escobar_apply(c->work, theta, c->used);
        mw_escobar_prediction pr;
        mw_escobar_predict_raw(c->work, &pr);
        double t = pr.t_cluster_s;
        gsl_vector_set(f, i, t - c->t_s[i]);
    }
    return GSL_SUCCESS;
}

/* Checks every run; the parameters they depend on (out->used) and the sums and counts of
 * the runs' own values of each, for the starting point. */
static int fit_used(const mw_escobar_params *runs, const double *t_s, size_t n, mw_escobar_fit *out,
                    double *sum, int *cnt, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        const mw_escobar_params *p = &runs[i];
        if (mw_escobar_check(p, err, errlen)) return -1;
        if (!isfinite(t_s[i])) return fail(err, errlen, "run %zu: measured time not finite", i);
        for (int w = 0; w < p->nworkers; w++) {
            if (p->w[w].x < 1) {
                out->used[MW_ESCOBAR_FIT_T_CPU] = 1;
                sum[MW_ESCOBAR_FIT_T_CPU] += p->w[w].t_cpu_s;
                cnt[MW_ESCOBAR_FIT_T_CPU]++;
            }
            if (p->w[w].x > 0) {
                out->used[MW_ESCOBAR_FIT_T_GPU] = 1;
                sum[MW_ESCOBAR_FIT_T_GPU] += p->w[w].t_gpu_s;
                cnt[MW_ESCOBAR_FIT_T_GPU]++;
            }
        }
        if (p->version == 2) {
            out->used[MW_ESCOBAR_FIT_T_LM] = 1;
            sum[MW_ESCOBAR_FIT_T_LM] += p->t_lm_s;
            cnt[MW_ESCOBAR_FIT_T_LM]++;
        }
        out->used[MW_ESCOBAR_FIT_T_OVH] = 1;
        sum[MW_ESCOBAR_FIT_T_OVH] += p->t_master_s + p->t_com_s;
        cnt[MW_ESCOBAR_FIT_T_OVH]++;
    }
    return 0;
}

/* Standard errors and Student-t intervals from the covariance at the solution (have_ci
 * stays 0 without degrees of freedom or with a singular covariance). */
static void fit_interval(gsl_multifit_nlinear_workspace *ws, gsl_matrix *covar, const int *index,
                         int np, double confidence, mw_escobar_fit *out)
{
    const gsl_matrix *J = gsl_multifit_nlinear_jac(ws);
    if (!(out->dof > 0 && gsl_multifit_nlinear_covar(J, 0.0, covar) == GSL_SUCCESS)) return;
    double s2 = out->rss / out->dof;
    double tq = mw_precision_t(confidence, out->dof);
    int ok = isfinite(tq);
    for (int k = 0; k < np && ok; k++) {
        double v = gsl_matrix_get(covar, (size_t)k, (size_t)k) * s2;
        if (!(v >= 0) || !isfinite(v)) ok = 0;
        out->se[index[k]] = sqrt(v);
    }
    if (!ok) {
        memset(out->se, 0, sizeof out->se);
        return;
    }
    for (int k = 0; k < np; k++) {
        int s = index[k];
        out->ci_lo[s] = out->value[s] - tq * out->se[s];
        out->ci_hi[s] = out->value[s] + tq * out->se[s];
    }
    out->have_ci = 1;
}

/* Levenberg-Marquardt from x0 (finite-difference Jacobian); the solution into out. */
static int fit_solve(fit_ctx *ctx, gsl_vector *x0, double confidence, mw_escobar_fit *out,
                     char *err, size_t errlen)
{
    size_t n = ctx->n, np = (size_t)ctx->np;
    gsl_matrix *covar = gsl_matrix_alloc(np, np);
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    fp.trs = gsl_multifit_nlinear_trs_lm;
    gsl_multifit_nlinear_workspace *ws =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, np);
    int rc = -1;
    if (!covar || !ws) {
        fail(err, errlen, "out of memory");
        goto done;
    }
    gsl_multifit_nlinear_fdf fdf = {0};
    fdf.f = fit_f;
    fdf.df = NULL; /* finite differences */
    fdf.n = n;
    fdf.p = np;
    fdf.params = ctx;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int info = 0;
    int st = gsl_multifit_nlinear_init(x0, &fdf, ws);
    if (st == GSL_SUCCESS)
        st = gsl_multifit_nlinear_driver(200, 1e-12, 1e-12, 0.0, NULL, NULL, &info, ws);
    if (st != GSL_SUCCESS && st != GSL_EMAXITER) {
        gsl_set_error_handler(old);
        fail(err, errlen, "the least-squares fit failed: %s", gsl_strerror(st));
        goto done;
    }
    out->iterations = (int)gsl_multifit_nlinear_niter(ws);
    out->converged = st == GSL_SUCCESS;
    const gsl_vector *xb = gsl_multifit_nlinear_position(ws);
    const gsl_vector *res = gsl_multifit_nlinear_residual(ws);
    double rss;
    gsl_blas_ddot(res, res, &rss);
    out->rss = rss;
    out->dof = (int)n - ctx->np;
    for (int k = 0; k < ctx->np; k++)
        out->value[ctx->index[k]] = gsl_vector_get(xb, (size_t)k);
    fit_interval(ws, covar, ctx->index, ctx->np, confidence, out);
    gsl_set_error_handler(old);
    rc = 0;
done:
    if (ws) gsl_multifit_nlinear_free(ws);
    gsl_matrix_free(covar);
    return rc;
}

int mw_escobar_fit_time(const mw_escobar_params *runs, const double *t_s, size_t n,
                        double confidence, mw_escobar_fit *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!(confidence > 0 && confidence < 1))
        return fail(err, errlen, "confidence %g not in (0, 1)", confidence);
    double sum[MW_ESCOBAR_NFIT] = {0};
    int cnt[MW_ESCOBAR_NFIT] = {0};
    if (fit_used(runs, t_s, n, out, sum, cnt, err, errlen)) return -1;
    int index[MW_ESCOBAR_NFIT], np = 0;
    char names[128] = "";
    for (int k = 0; k < MW_ESCOBAR_NFIT; k++)
        if (out->used[k]) {
            index[np++] = k;
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                     mw_escobar_fit_names[k]);
        }
    out->nparams = np;
    if (n < (size_t)np || n == 0)
        return fail(err, errlen, "%zu runs for %d parameters (%s): the fit needs at least %d", n,
                    np, names, np);
    mw_escobar_params *work = mw_xcalloc(1, sizeof *work);
    gsl_vector *x0 = gsl_vector_alloc((size_t)np);
    int rc = -1;
    if (!x0) {
        fail(err, errlen, "out of memory");
    } else {
        for (int k = 0; k < np; k++) {
            double v = cnt[index[k]] ? sum[index[k]] / cnt[index[k]] : 0;
            gsl_vector_set(x0, (size_t)k, v > 0 && isfinite(v) ? v : 1e-3);
        }
        fit_ctx ctx = {runs, t_s, n, out->used, index, np, work};
        rc = fit_solve(&ctx, x0, confidence, out, err, errlen);
    }
    gsl_vector_free(x0);
    free(work);
    return rc;
}

/* ---- from a run ---------------------------------------------------------------------- */

typedef struct {
    double cpu_s, gpu_s;     /* evaluate time */
    double cpu_units, gpu_n; /* sum ceil(n / P_CPU); sum n */
    int threads, gpus;
    int have_threads, have_gpus;
    char host[MW_ESCOBAR_NAME];
} rank_info;

static int icase_contains(const char *s, const char *sub)
{
    size_t n = strlen(sub);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && tolower((unsigned char)s[i]) == tolower((unsigned char)sub[i]))
            i++;
        if (i == n) return 1;
    }
    return n == 0;
}

static int q_double(sqlite3 *db, const char *sql, double *v, int *null)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int rc = sqlite3_step(st);
    *null = 1;
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *v = sqlite3_column_double(st, 0);
        *null = 0;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* rank 0's last counter called name (its value is the event's bytes), name bound as ?1 */
static int q_counter(sqlite3 *db, const char *name, double *v, int *null)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT bytes FROM phases WHERE kind = 'counter' AND rank = 0 AND "
                           "name = ?1 ORDER BY start_ns DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *null = 1;
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *v = sqlite3_column_double(st, 0);
        *null = 0;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

#define HOWTO "record eeg-mofs under 'mw record' (its libmwprobe counters)"

static int channel_power(sqlite3 *db, int channel, int64_t from_ns, int64_t to_ns,
                         mw_escobar_node *nd, double *energy_j, int *nsamples, char *err,
                         size_t errlen)
{
    mw_energy_window *w;
    size_t n;
    if (mw_energy_store_windows(db, channel, &w, &n, err, errlen)) return -1;
    *nsamples = (int)n;
    *energy_j = 0;
    if (n == 0) {
        free(w);
        return 0;
    }
    double *pw = malloc(n * sizeof *pw);
    if (!pw) {
        free(w);
        return fail(err, errlen, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        pw[i] = w[i].power_mw / 1000.0;
    mw_levels lv;
    if (n == 1) {
        nd->pow_w = nd->pow_idle_w = pw[0];
    } else if (mw_levels_kde(pw, n, &lv) == 0) {
        nd->pow_w = lv.work_w;
        nd->pow_idle_w = lv.idle_w;
    } else {
        free(pw);
        free(w);
        return fail(err, errlen, "channel %s: no power levels (%s)", nd->name, lv.note);
    }
    free(pw);
    mw_energy_trace tr;
    char e2[256];
    if (mw_energy_trace_init(&tr, w, n, e2, sizeof e2)) {
        free(w);
        return fail(err, errlen, "channel %s: %s", nd->name, e2);
    }
    *energy_j = mw_energy_j(mw_energy_span_pj(&tr, from_ns, to_ns));
    mw_energy_trace_free(&tr);
    free(w);
    return 0;
}

static int from_db(sqlite3 *db, const char *switch_name, mw_escobar_run *r, char *err,
                   size_t errlen)
{
    mw_escobar_params *p = &r->p;
    /* rank 0's counters: the structure */
    static const char *const keys[] = {"eeg version",     "eeg individuals",  "eeg subpops",
                                       "eeg generations", "eeg global every", "eeg local every",
                                       "eeg chunk",       "eeg ranks"};
    static const char *const what[] = {"the version",     "N (individuals)",   "N_Spop",
                                       "the generations", "the global period", "the local period",
                                       "dN_Spop (chunk)", "the ranks"};
    int val[8];
    for (int k = 0; k < 8; k++) {
        double v;
        int null;
        if (q_counter(db, keys[k], &v, &null)) return fail(err, errlen, "%s", sqlite3_errmsg(db));
        if (null)
            return fail(err, errlen,
                        "missing parameter %s: no counter '%s' on rank 0 (%s, a version that "
                        "writes its model counters)",
                        what[k], keys[k], HOWTO);
        val[k] = (int)v;
    }
    p->version = val[0];
    p->individuals = val[1];
    p->n_spop = val[2];
    r->generations = val[3];
    r->global_every = val[4];
    r->local_every = val[5];
    r->chunk = val[6];
    r->ranks = val[7];
    if (p->version != 2 && p->version != 3)
        return fail(err, errlen, "counter 'eeg version' is %d (2 or 3)", p->version);
    if (p->individuals < 1 || p->n_spop < 1 || r->generations < 1 || r->global_every < 1 ||
        r->chunk < 1 || r->ranks < 1 || r->ranks > 4096 || r->generations % r->global_every != 0)
        return fail(err, errlen,
                    "inconsistent eeg counters (individuals %d, subpops %d, "
                    "generations %d, global every %d, chunk %d, ranks %d)",
                    p->individuals, p->n_spop, r->generations, r->global_every, r->chunk, r->ranks);
    p->n_gm = r->generations / r->global_every;
    if (p->version == 2) {
        if (r->local_every < 1 || r->global_every % r->local_every != 0)
            return fail(err, errlen,
                        "missing parameter N_Lm: counter 'eeg local every' is %d "
                        "for a v2 run (%s)",
                        r->local_every, HOWTO);
        p->g = r->local_every;
        p->n_lm = r->global_every / r->local_every;
    } else {
        p->g = r->global_every;
        p->n_lm = 1;
        p->t_lm_s = 0;
    }

    rank_info *ri = calloc((size_t)r->ranks, sizeof *ri);
    if (!ri) return fail(err, errlen, "out of memory");
    int rc = -1;
    sqlite3_stmt *st = NULL;
    /* per rank: threads, GPUs, host */
    if (sqlite3_prepare_v2(db,
                           "SELECT rank, name, bytes, host FROM phases WHERE kind = 'counter' "
                           "AND name IN ('eeg cpu threads', 'eeg gpus') ORDER BY start_ns",
                           -1, &st, NULL) != SQLITE_OK)
        goto db_error;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int rk = sqlite3_column_int(st, 0);
        if (rk < 0 || rk >= r->ranks) continue;
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *host = (const char *)sqlite3_column_text(st, 3);
        if (!strcmp(name, "eeg cpu threads")) {
            ri[rk].threads = sqlite3_column_int(st, 2);
            ri[rk].have_threads = 1;
        } else {
            ri[rk].gpus = sqlite3_column_int(st, 2);
            ri[rk].have_gpus = 1;
        }
        snprintf(ri[rk].host, sizeof ri[rk].host, "%s", host ? host : "");
    }
    sqlite3_finalize(st);
    st = NULL;
    /* evaluate phases with their counters, paired by (rank, thread) and time */
    if (sqlite3_prepare_v2(db,
                           "SELECT rank, thread, kind, name, start_ns, end_ns, bytes FROM phases "
                           "WHERE (kind = 'user' AND name IN ('evaluate cpu', 'evaluate gpu')) "
                           "OR (kind = 'counter' AND name = 'eeg evaluated') "
                           "ORDER BY rank, thread, start_ns, kind = 'counter'",
                           -1, &st, NULL) != SQLITE_OK)
        goto db_error;
    {
        int orank = -1, othread = -1, ogpu = 0, open = 0;
        int64_t o0 = 0, o1 = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            int rk = sqlite3_column_int(st, 0), th = sqlite3_column_int(st, 1);
            const char *kind = (const char *)sqlite3_column_text(st, 2);
            const char *name = (const char *)sqlite3_column_text(st, 3);
            int64_t t0 = sqlite3_column_int64(st, 4), t1 = sqlite3_column_int64(st, 5);
            if (rk < 0 || rk >= r->ranks) continue;
            if (!strcmp(kind, "user")) {
                orank = rk;
                othread = th;
                ogpu = !strcmp(name, "evaluate gpu");
                o0 = t0;
                o1 = t1;
                open = 1;
            } else if (open && rk == orank && th == othread && t0 >= o0 && t0 <= o1) {
                double nind = (double)sqlite3_column_int64(st, 6);
                double dur = (double)(o1 - o0) * 1e-9;
                if (ogpu) {
                    ri[rk].gpu_s += dur;
                    ri[rk].gpu_n += nind;
                } else {
                    int pc = ri[rk].threads > 0 ? ri[rk].threads : 1;
                    ri[rk].cpu_s += dur;
                    ri[rk].cpu_units += ceil(nind / pc);
                }
                open = 0;
            }
        }
    }
    sqlite3_finalize(st);
    st = NULL;

    /* the requesters: the worker ranks (rank 0 alone) */
    int first = r->ranks > 1 ? 1 : 0;
    double cpu_s = 0, cpu_u = 0, gpu_s = 0, gpu_n = 0;
    for (int k = first; k < r->ranks; k++) {
        cpu_s += ri[k].cpu_s;
        cpu_u += ri[k].cpu_units;
        gpu_s += ri[k].gpu_s;
        gpu_n += ri[k].gpu_n;
    }
    r->have_t_cpu = cpu_u > 0;
    r->have_t_gpu = gpu_n > 0;
    p->nworkers = 0;
    for (int k = first; k < r->ranks; k++) {
        if (!ri[k].have_threads || !ri[k].have_gpus) {
            fail(err, errlen,
                 "missing parameter P_CPU/P_GPU of rank %d: no counters 'eeg cpu threads' "
                 "and 'eeg gpus' on it (%s)",
                 k, HOWTO);
            goto out;
        }
        /* this rank's own W/F, else the mean over the workers */
        double tc =
            ri[k].cpu_units > 0 ? ri[k].cpu_s / ri[k].cpu_units : (cpu_u > 0 ? cpu_s / cpu_u : 0);
        double tg = ri[k].gpu_n > 0 ? ri[k].gpu_s / ri[k].gpu_n : (gpu_n > 0 ? gpu_s / gpu_n : 0);
        int ndev = 1 + (ri[k].gpus > 0 ? ri[k].gpus : 0);
        int nreq = p->version == 2 ? 1 : ndev;
        for (int d = 0; d < nreq; d++) {
            if (p->nworkers == MW_ESCOBAR_MAX_WORKERS) {
                fail(err, errlen, "more than %d requesters", MW_ESCOBAR_MAX_WORKERS);
                goto out;
            }
            mw_escobar_worker *w = &p->w[p->nworkers++];
            memset(w, 0, sizeof *w);
            w->rank = k;
            snprintf(w->host, sizeof w->host, "%s", ri[k].host);
            w->p_cpu = ri[k].threads > 0 ? ri[k].threads : 1;
            w->t_cpu_s = tc;
            w->t_gpu_s = tg;
            if (p->version == 2) {
                w->delta_spop = r->chunk * ndev;
                w->x = (double)(ndev - 1) / ndev;
                w->p_gpu = ndev - 1;
            } else {
                w->delta_spop = r->chunk;
                w->gpu = d > 0;
                w->x = d > 0 ? 1 : 0;
                w->p_gpu = d > 0 ? 1 : 0;
            }
        }
    }

    /* T_master, T_Lm, T_com, the modelled span */
    double v, start_ns = 0, end_ns = 0;
    int null;
    if (q_double(db,
                 "SELECT avg(end_ns - start_ns) * 1e-9 FROM phases WHERE kind = 'user' AND "
                 "rank = 0 AND name = 'global migration'",
                 &v, &null))
        goto db_error;
    r->have_t_master = !null;
    p->t_master_s = null ? 0 : v;
    if (p->version == 2) {
        if (q_double(db,
                     "SELECT avg(end_ns - start_ns) * 1e-9 FROM phases WHERE kind = 'user' AND "
                     "name = 'local migration'",
                     &v, &null))
            goto db_error;
        r->have_t_lm = !null;
        p->t_lm_s = null ? 0 : v;
    } else {
        r->have_t_lm = 1;
    }
    if (r->ranks > 1) {
        if (q_double(db,
                     "SELECT coalesce(sum(end_ns - start_ns), 0) * 1e-9 FROM phases WHERE "
                     "kind = 'user' AND rank > 0 AND name = 'distribute'",
                     &v, &null))
            goto db_error;
        p->t_com_s = null ? 0 : v / ((double)p->nworkers * p->n_gm);
    } else {
        p->t_com_s = 0;
    }
    if (q_double(db, "SELECT max(end_ns) FROM phases WHERE kind = 'user' AND name = 'init'",
                 &start_ns, &null))
        goto db_error;
    if (null) {
        fail(err, errlen, "missing the modelled span: no 'init' phases (%s)", HOWTO);
        goto out;
    }
    if (q_double(db,
                 "SELECT max(end_ns) FROM phases WHERE kind = 'user' AND rank = 0 AND "
                 "name = 'global migration'",
                 &end_ns, &null))
        goto db_error;
    if (null || end_ns <= start_ns) {
        fail(err, errlen,
             "missing parameter T_master and the measured T_cluster: no 'global migration' "
             "phases on rank 0 after init (%s)",
             HOWTO);
        goto out;
    }
    r->t_measured_s = (end_ns - start_ns) * 1e-9;
    {
        double c0, c1;
        int n0, n1;
        if (q_double(db, "SELECT value FROM meta WHERE key = 'cmd_start_ns'", &c0, &n0) ||
            q_double(db, "SELECT value FROM meta WHERE key = 'cmd_end_ns'", &c1, &n1))
            goto db_error;
        r->wall_s = !n0 && !n1 && c1 > c0 ? (c1 - c0) * 1e-9 : r->t_measured_s;
    }

    /* channels: nodes and the switch */
    if (sqlite3_prepare_v2(db, "SELECT channel, name, host FROM channels ORDER BY channel", -1, &st,
                           NULL) != SQLITE_OK)
        goto db_error;
    {
        const char *swn = switch_name ? switch_name : "switch";
        int total = 0;
        r->e_measured_j = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            mw_escobar_node nd;
            memset(&nd, 0, sizeof nd);
            const char *name = (const char *)sqlite3_column_text(st, 1);
            const char *host = (const char *)sqlite3_column_text(st, 2);
            snprintf(nd.name, sizeof nd.name, "%s", name ? name : "");
            snprintf(nd.host, sizeof nd.host, "%s", host ? host : "");
            nd.all = !host || !*host;
            nd.master = mw_energy_channel_measures(nd.host, ri[0].host);
            double e = 0;
            int ns = 0;
            if (channel_power(db, sqlite3_column_int(st, 0), (int64_t)start_ns, (int64_t)end_ns,
                              &nd, &e, &ns, err, errlen))
                goto out;
            if (ns == 0) continue; /* a channel that recorded nothing measures nothing */
            total += ns;
            r->e_measured_j += e;
            if (!p->has_switch && icase_contains(nd.name, swn)) {
                p->has_switch = 1;
                snprintf(p->switch_name, sizeof p->switch_name, "%s", nd.name);
                p->pow_sw_w = nd.pow_w;
                p->pow_sw_idle_w = nd.pow_idle_w;
            } else if (p->nnodes < MW_ESCOBAR_MAX_NODES) {
                p->node[p->nnodes++] = nd;
            } else {
                /* its energy is measured but the model could not predict it */
                fail(err, errlen, "the run has more than %d node channels (the model's limit)",
                     MW_ESCOBAR_MAX_NODES);
                goto out;
            }
        }
        if (total == 0) {
            fail(err, errlen,
                 "missing parameters Pow_i and Pow_i^idle: the run has no power samples "
                 "(record it with a meter: mw record --meter PORT|sim)");
            goto out;
        }
    }
    rc = 0;
    goto out;
db_error:
    fail(err, errlen, "%s", sqlite3_errmsg(db));
out:
    if (st) sqlite3_finalize(st);
    free(ri);
    return rc;
}

int mw_escobar_from_run(const char *rundir, const char *switch_name, mw_escobar_run *out, char *err,
                        size_t errlen)
{
    memset(out, 0, sizeof *out);
    snprintf(out->dir, sizeof out->dir, "%s", rundir);
    if (!mw_store_exists(rundir))
        return fail(err, errlen, "%s: not a run (no %s there)", rundir, MW_STORE_DB_NAME);
    char e2[512];
    mw_store *s = mw_store_open(rundir, e2, sizeof e2);
    if (!s) return fail(err, errlen, "%s", e2);
    sqlite3 *db = mw_store_db(s);
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    int rc = from_db(db, switch_name, out, e2, sizeof e2);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    mw_store_close(s);
    if (rc) return fail(err, errlen, "%s: %s", rundir, e2);
    return 0;
}
