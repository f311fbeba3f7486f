/* pareto — see pareto.h. A device with points is built alone (k = 1, its points as device
 * 0, no static power) so that the builder's message names it; with b= given, its points'
 * energies are set to b x first (the builder then fits b back) and b itself is kept. The
 * additivity figure takes every device's points as device i and the together points as
 * device -1 (time 1 s: with no static power the time plays no part). */
#include "pareto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"

void mw_pareto_devices_free(mw_pareto_devices *d)
{
    for (int i = 0; d->points && i < d->k; i++)
        mw_lbopa_profile_free(&d->points[i]);
    free(d->points);
    free(d->dev);
    memset(d, 0, sizeof *d);
}

/* Device i of p through the profile builder into out->points[i]; 0 or -1 (err). */
static int build_points(const mw_profile *p, int i, mw_pareto_devices *out, char *err,
                        size_t errlen)
{
    const mw_profile_device *d = &p->dev[i];
    mw_lbopa_meas *m = mw_xcalloc(d->npt, sizeof *m);
    for (size_t j = 0; j < d->npt; j++) {
        const mw_profile_point *pt = &d->pt[j];
        double e = d->b_J_per_unit > 0 ? d->b_J_per_unit * pt->x_units : pt->energy_J;
        m[j] = (mw_lbopa_meas){0, pt->x_units, pt->time_s, e};
    }
    char why[200];
    int rc = mw_lbopa_profile_build(m, d->npt, 1, 0, &out->points[i], why, sizeof why);
    free(m);
    if (rc) {
        const char *msg = strncmp(why, "device 0: ", 10) ? why : why + 10;
        snprintf(err, errlen, "%s:%d: device '%s': %s", p->file, d->line, d->name, msg);
        return -1;
    }
    if (d->b_J_per_unit > 0) out->points[i].dev[0].b_J_per_unit = d->b_J_per_unit;
    return 0;
}

int mw_pareto_devices_build(const mw_profile *p, mw_pareto_devices *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->k = p->ndev;
    out->dev = mw_xcalloc((size_t)p->ndev, sizeof *out->dev);
    out->points = mw_xcalloc((size_t)p->ndev, sizeof *out->points);
    for (int i = 0; i < p->ndev; i++) {
        const mw_profile_device *d = &p->dev[i];
        if (!d->npt) {
            out->dev[i].kind = MW_LBOPA_F_LINEAR;
            out->dev[i].a_s_per_unit = d->a_s_per_unit;
            out->dev[i].b_J_per_unit = d->b_J_per_unit;
            continue;
        }
        if (build_points(p, i, out, err, errlen)) {
            mw_pareto_devices_free(out);
            return -1;
        }
        out->dev[i] = out->points[i].dev[0];
    }
    return 0;
}

int mw_pareto_additivity(const mw_profile *p, double *mean_rel, size_t *nsizes, char *err,
                         size_t errlen)
{
    size_t nall = p->ntogether;
    for (int i = 0; i < p->ndev; i++) {
        if (!p->dev[i].has_energy) {
            snprintf(err, errlen, "%s:%d: together needs energies X:T:E for every device", p->file,
                     p->together_line);
            return -1;
        }
        nall += p->dev[i].npt;
    }
    mw_lbopa_meas *all = mw_xcalloc(nall, sizeof *all);
    size_t n = 0;
    for (int i = 0; i < p->ndev; i++)
        for (size_t j = 0; j < p->dev[i].npt; j++) {
            const mw_profile_point *pt = &p->dev[i].pt[j];
            all[n++] = (mw_lbopa_meas){i, pt->x_units, pt->time_s, pt->energy_J};
        }
    for (size_t j = 0; j < p->ntogether; j++)
        all[n++] = (mw_lbopa_meas){-1, p->together[j].x_units, 1, p->together[j].energy_J};
    int rc = mw_lbopa_additivity(all, nall, p->ndev, 0, mean_rel, nsizes);
    free(all);
    if (rc)
        snprintf(err, errlen, "%s:%d: no size of 'together' was measured on every device", p->file,
                 p->together_line);
    return rc ? -1 : 0;
}

void mw_pareto_solution_free(mw_pareto_solution *s)
{
    mw_pareto_te_free(&s->te);
    mw_pareto_front_free(&s->front);
    free(s->split_units);
    free(s->x_units);
    free(s->xi);
    memset(s, 0, sizeof *s);
}

/* The query's time on the front (or MW_PARETO_OFF_FRONT), its split and dynamic energy,
 * and the integer split when n is an integer. */
static int query(const mw_lbopa_device *dev, int k, double n, mw_pareto_solution *s, char *err,
                 size_t errlen)
{
    const mw_pareto_front *f = &s->front;
    if (s->by == MW_PARETO_BY_TIME) {
        s->t_s = s->asked;
        if (mw_pareto_segment(f, s->asked) < 0) return MW_PARETO_OFF_FRONT;
    } else if (s->by == MW_PARETO_BY_TOTAL_ENERGY) {
        if (mw_pareto_te_time_for_energy_s(&s->te, s->asked, &s->t_s)) return MW_PARETO_OFF_FRONT;
    } else if (mw_pareto_time_for_energy_s(f, s->asked, &s->t_s)) {
        return MW_PARETO_OFF_FRONT;
    }
    if (mw_lbopa_partition(f, s->t_s, s->x_units) || mw_pareto_energy_J(f, s->t_s, &s->e_J)) {
        snprintf(err, errlen, "PARTITION failed at t = %.6g s", s->t_s);
        return -1;
    }
    if (n == floor(n) && n <= 9007199254740992.0 &&
        mw_lbopa_round(dev, k, s->x_units, (long long)n, s->xi) == 0) {
        double *xd = mw_xcalloc((size_t)k, sizeof *xd);
        for (int i = 0; i < k; i++)
            xd[i] = (double)s->xi[i];
        s->int_t_s = mw_lbopa_T_s(dev, k, xd);
        s->int_e_J = mw_lbopa_E_J(dev, k, xd);
        free(xd);
        s->has_int = 1;
    }
    return 0;
}

int mw_pareto_solve(const mw_lbopa_device *dev, int k, double n_units, double ps_W, int total,
                    mw_pareto_by by, double asked, mw_pareto_solution *out, char *err,
                    size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (errlen) err[0] = 0;
    out->by = by;
    out->asked = asked;
    out->split_units = mw_xcalloc((size_t)k * (size_t)k, sizeof *out->split_units);
    out->x_units = mw_xcalloc((size_t)k, sizeof *out->x_units);
    out->xi = mw_xcalloc((size_t)k, sizeof *out->xi);
    mw_pareto_front *f = &out->front;
    if (mw_lbopa_front(dev, k, n_units, f)) {
        snprintf(err, errlen, "the front could not be computed");
        return -1;
    }
    for (int r = 0; r <= f->nseg; r++)
        if (mw_lbopa_partition(f, f->t_s[r], out->split_units + (size_t)r * (size_t)k)) {
            snprintf(err, errlen, "PARTITION failed at the front's point %d", r);
            return -1;
        }
    if (total) {
        if (mw_lbopa_te(f, ps_W, &out->te)) return -1;
        out->has_te = 1;
    }
    return by == MW_PARETO_NO_QUERY ? 0 : query(dev, k, n_units, out, err, errlen);
}
