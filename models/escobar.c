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
 * Parameters from a recorded run are read by escobar_run.c (mw_escobar_from_run). */
#include "escobar.h"
#include "mw_err.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "energy.h"
#include "mw_alloc.h"
#include "precision.h"

const char *const mw_escobar_fit_names[MW_ESCOBAR_NFIT] = {"t_cpu_s", "t_gpu_s", "t_lm_s",
                                                           "t_ovh_s"};

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
        return mw_err(err, errlen, "version %d (2 or 3)", p->version);
    if (p->individuals < 1) return mw_err(err, errlen, "N (individuals) %d < 1", p->individuals);
    if (p->n_spop < 1) return mw_err(err, errlen, "N_Spop %d < 1", p->n_spop);
    if (p->g < 1) return mw_err(err, errlen, "g (generations per local epoch) %d < 1", p->g);
    if (p->n_lm < 1) return mw_err(err, errlen, "N_Lm %d < 1", p->n_lm);
    if (p->n_gm < 1) return mw_err(err, errlen, "N_Gm %d < 1", p->n_gm);
    if (bad_time(p->t_master_s)) return mw_err(err, errlen, "T_master not a time >= 0");
    if (bad_time(p->t_com_s)) return mw_err(err, errlen, "T_com not a time >= 0");
    if (bad_time(p->t_lm_s)) return mw_err(err, errlen, "T_Lm not a time >= 0");
    if (p->nworkers < 1 || p->nworkers > MW_ESCOBAR_MAX_WORKERS)
        return mw_err(err, errlen, "%d requesters (1 to %d)", p->nworkers, MW_ESCOBAR_MAX_WORKERS);
    if (p->nnodes < 0 || p->nnodes > MW_ESCOBAR_MAX_NODES)
        return mw_err(err, errlen, "%d nodes (0 to %d)", p->nnodes, MW_ESCOBAR_MAX_NODES);
    for (int i = 0; i < p->nworkers; i++) {
        const mw_escobar_worker *w = &p->w[i];
        if (w->delta_spop < 1)
            return mw_err(err, errlen, "requester %d: dN_Spop %d < 1", i, w->delta_spop);
        if (!(w->x >= 0 && w->x <= 1))
            return mw_err(err, errlen, "requester %d: x not in [0, 1]", i);
        if (w->x < 1 && (w->p_cpu < 1 || bad_time(w->t_cpu_s)))
            return mw_err(err, errlen, "requester %d: CPU work without P_CPU >= 1 and W_CPU/F_CPU",
                          i);
        if (w->x > 0 && (w->p_gpu < 1 || bad_time(w->t_gpu_s)))
            return mw_err(err, errlen, "requester %d: GPU work without P_GPU >= 1 and W_GPU/F_GPU",
                          i);
    }
    for (int i = 0; i < p->nnodes; i++)
        if (!isfinite(p->node[i].pow_w) || !isfinite(p->node[i].pow_idle_w))
            return mw_err(err, errlen, "node %s: Pow_i or Pow_i^idle not finite", p->node[i].name);
    if (p->has_switch && (!isfinite(p->pow_sw_w) || !isfinite(p->pow_sw_idle_w)))
        return mw_err(err, errlen, "Pow_SW or Pow_SW^idle not finite");
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
        if (!isfinite(t_s[i])) return mw_err(err, errlen, "run %zu: measured time not finite", i);
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
        mw_err(err, errlen, "out of memory");
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
        mw_err(err, errlen, "the least-squares fit failed: %s", gsl_strerror(st));
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
        return mw_err(err, errlen, "confidence %g not in (0, 1)", confidence);
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
        return mw_err(err, errlen, "%zu runs for %d parameters (%s): the fit needs at least %d", n,
                      np, names, np);
    mw_escobar_params *work = mw_xcalloc(1, sizeof *work);
    gsl_vector *x0 = gsl_vector_alloc((size_t)np);
    int rc = -1;
    if (!x0) {
        mw_err(err, errlen, "out of memory");
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
