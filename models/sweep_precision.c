/* sweep_precision — see sweep_precision.h. A configuration's figures are gathered from its
 * index rows into one allocation (times, then energies), the means and sds by GSL, the
 * precision of each figure by mw_precision_check: the energy's only when the time's could
 * be made, as mw sweep always did. The rule's verdict re-reads the configuration's runs
 * each time it is asked (a few rows), so that it always sees what the index holds. */
#include "sweep_precision.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"

void mw_sweep_eval_runs(const mw_sweepidx_w_run *r, size_t n, int rounds, double rel,
                        mw_sweep_eval *ev)
{
    free(ev->t_s);
    memset(ev, 0, sizeof *ev);
    ev->t_s = mw_xcalloc(2 * (n + 1), sizeof *ev->t_s);
    ev->e_j = ev->t_s + n + 1;
    for (size_t i = 0; i < n; i++) {
        int done = !strcmp(r[i].status, "done"), failed = !strcmp(r[i].status, "failed");
        if ((done || failed) && r[i].rep <= rounds) ev->attempts++;
        ev->failed += failed;
        ev->done += done;
        if (done && isfinite(r[i].cmd_s) && isfinite(r[i].energy_j)) {
            ev->t_s[ev->n] = r[i].cmd_s;
            ev->e_j[ev->n++] = r[i].energy_j;
        }
    }
    if (!ev->n) return;
    ev->mean_t_s = gsl_stats_mean(ev->t_s, 1, ev->n);
    ev->mean_e_j = gsl_stats_mean(ev->e_j, 1, ev->n);
    ev->sd_t_s = ev->n > 1 ? gsl_stats_sd(ev->t_s, 1, ev->n) : 0;
    ev->sd_e_j = ev->n > 1 ? gsl_stats_sd(ev->e_j, 1, ev->n) : 0;
    if (!mw_precision_check(ev->t_s, ev->n, MW_PRECISION_DEFAULT_LEVEL, rel, MW_SWEEP_MIN_REPS, 0,
                            &ev->pt) &&
        !mw_precision_check(ev->e_j, ev->n, MW_PRECISION_DEFAULT_LEVEL, rel, MW_SWEEP_MIN_REPS, 0,
                            &ev->pe))
        ev->have = 1;
}

void mw_sweep_eval_free(mw_sweep_eval *ev)
{
    free(ev->t_s);
    memset(ev, 0, sizeof *ev);
}

int mw_sweep_precision_met(const mw_sweep_eval *ev)
{
    return ev->have && ev->pt.verdict == MW_PRECISION_REACHED &&
           ev->pe.verdict == MW_PRECISION_REACHED;
}

size_t mw_sweep_runs_needed(const mw_sweep_eval *ev, double rel, int rounds)
{
    size_t need = MW_SWEEP_MIN_REPS;
    if (mw_sweep_precision_met(ev)) {
        need = ev->n;
    } else if (ev->n >= 2) {
        size_t a = mw_precision_runs_needed(ev->pt.mean, ev->sd_t_s, MW_PRECISION_DEFAULT_LEVEL,
                                            rel, (size_t)rounds),
               b = mw_precision_runs_needed(ev->pe.mean, ev->sd_e_j, MW_PRECISION_DEFAULT_LEVEL,
                                            rel, (size_t)rounds);
        need = a > need ? a : need;
        need = b > need ? b : need;
    }
    need += ev->failed;
    if (need > (size_t)rounds) need = (size_t)rounds;
    if (need < ev->attempts) need = ev->attempts;
    return need;
}

const char *mw_sweep_stop_reason(const mw_sweep_eval *ev, int precision)
{
    return !precision ? "reps" : mw_sweep_precision_met(ev) ? "precision" : "max-reps";
}

int mw_sweep_eval_config(mw_sweepidx_w *w, int config, int rounds, double rel, mw_sweep_eval *ev,
                         char *err, size_t errlen)
{
    mw_sweepidx_w_run *r;
    size_t n;
    if (mw_sweepidx_w_runs(w, config, &r, &n, err, errlen)) return -1;
    mw_sweep_eval_runs(r, n, rounds, rel, ev);
    free(r);
    return 0;
}

int mw_sweep_rule_of(mw_sweepidx_w *w, int config, int rounds, int precision, double rel,
                     mw_sweep_rule *out, char *err, size_t errlen)
{
    mw_sweep_eval ev = {0};
    if (mw_sweep_eval_config(w, config, rounds, precision ? rel : 1, &ev, err, errlen)) return -1;
    int two = ev.have && ev.n >= 2;
    size_t need = precision ? mw_sweep_runs_needed(&ev, rel, rounds) : (size_t)rounds;
    *out = (mw_sweep_rule){mw_sweep_precision_met(&ev), need, mw_sweep_stop_reason(&ev, precision),
                           two ? ev.pt.rel : NAN, two ? ev.pe.rel : NAN};
    mw_sweep_eval_free(&ev);
    return 0;
}
