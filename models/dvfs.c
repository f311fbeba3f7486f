/* dvfs — Fanfakh's DVFS energy/time models and frequency selection; see dvfs.h for the
 * design, the units and the reading decisions. Equation and algorithm numbers are those of
 * the thesis. */
#include "dvfs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t clusters(const mw_dvfs_problem *p)
{
    return p->cluster && p->nclusters ? p->nclusters : 1;
}

static size_t cluster_of(const mw_dvfs_problem *p, size_t i)
{
    return p->cluster ? p->cluster[i] : 0;
}

static int ok_nonneg(double x)
{
    return isfinite(x) && x >= 0;
}

/* Structural checks only (no E_old): used by the evaluators, which check E_old > 0 where
   they divide by it. */
static int check_shape(const mw_dvfs_problem *p, char *err, size_t len)
{
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        if (err && len) snprintf(err, len, __VA_ARGS__);                                           \
        return -1;                                                                                 \
    } while (0)
    if (!p || !p->n || !p->tcp_s || !p->tcm_s || !p->pd_w || !p->ps_w || !p->gears)
        FAIL("no nodes, or a missing array");
    size_t nc = clusters(p);
    double tcp_sum = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (!ok_nonneg(p->tcp_s[i]) || !ok_nonneg(p->tcm_s[i]))
            FAIL("node %zu: times must be finite and >= 0", i);
        if (!ok_nonneg(p->pd_w[i]) || !ok_nonneg(p->ps_w[i]))
            FAIL("node %zu: powers must be finite and >= 0", i);
        if (cluster_of(p, i) >= nc) FAIL("node %zu: cluster %zu >= %zu", i, cluster_of(p, i), nc);
        const mw_dvfs_gears *g = &p->gears[i];
        if (!g->ghz || !g->n) FAIL("node %zu: no frequency gears", i);
        for (size_t k = 0; k < g->n; k++) {
            if (!isfinite(g->ghz[k]) || g->ghz[k] <= 0)
                FAIL("node %zu: gear %zu is not a positive frequency", i, k);
            if (k && !(g->ghz[k] < g->ghz[k - 1]))
                FAIL("node %zu: gears must be strictly decreasing", i);
        }
        tcp_sum += p->tcp_s[i];
    }
    if (!(tcp_sum > 0)) FAIL("no computation time: frequency scaling changes nothing");
    for (size_t c = 0; c < nc; c++) {
        size_t k = 0;
        for (size_t i = 0; i < p->n; i++)
            k += cluster_of(p, i) == c;
        if (!k) FAIL("cluster %zu has no node", c);
    }
    return 0;
#undef FAIL
}

static double tcp_max(const mw_dvfs_problem *p, size_t *arg)
{
    double mx = -1;
    for (size_t i = 0; i < p->n; i++)
        if (p->tcp_s[i] > mx) {
            mx = p->tcp_s[i];
            if (arg) *arg = i;
        }
    return mx;
}

/* Cluster c's time in the hybrid model (eq. 4.2's term): max_j T_cp_j S_j + min_j T_cm_j
   over its nodes; s NULL: every S = 1. */
static double cluster_time_s(const mw_dvfs_problem *p, size_t c, const double *s)
{
    double mx = 0, mn = INFINITY;
    for (size_t i = 0; i < p->n; i++) {
        if (cluster_of(p, i) != c) continue;
        double t = p->tcp_s[i] * (s ? s[i] : 1);
        if (t > mx) mx = t;
        if (p->tcm_s[i] < mn) mn = p->tcm_s[i];
    }
    return mx + (isfinite(mn) ? mn : 0);
}

static int ok_scaling(const mw_dvfs_problem *p, const double *s)
{
    if (!s) return 0;
    for (size_t i = 0; i < p->n; i++)
        if (!isfinite(s[i]) || s[i] <= 0) return 0;
    return 1;
}

/* Time with scaling factors s (NULL: all 1). */
static double time_s(const mw_dvfs_problem *p, mw_dvfs_model m, const double *s)
{
    size_t n = p->n;
    switch (m) {
    case MW_DVFS_HETERO: { /* eq. 3.1: max_i(T_cp_i S_i) + min_i T_cm_i */
        double mx = 0, mn = INFINITY;
        for (size_t i = 0; i < n; i++) {
            double t = p->tcp_s[i] * (s ? s[i] : 1);
            if (t > mx) mx = t;
            if (p->tcm_s[i] < mn) mn = p->tcm_s[i];
        }
        return mx + mn;
    }
    case MW_DVFS_GRID: { /* eq. 3.8: max_ij(T_cp_ij S_ij) + min_j T_cm_hj, h the cluster of
                            the slowest node at F_max */
        size_t slow = 0;
        tcp_max(p, &slow);
        size_t h = cluster_of(p, slow);
        double mx = 0, mn = INFINITY;
        for (size_t i = 0; i < n; i++) {
            double t = p->tcp_s[i] * (s ? s[i] : 1);
            if (t > mx) mx = t;
            if (cluster_of(p, i) == h && p->tcm_s[i] < mn) mn = p->tcm_s[i];
        }
        return mx + mn;
    }
    case MW_DVFS_HYBRID: { /* eq. 4.2 (4.6 at S = 1): mean over clusters of their time */
        size_t nc = clusters(p);
        double sum = 0;
        for (size_t c = 0; c < nc; c++)
            sum += cluster_time_s(p, c, s);
        return sum / (double)nc;
    }
    case MW_DVFS_ASYNC: { /* eq. 4.1: sum_ij T_cp_ij S_ij / (N M) */
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += p->tcp_s[i] * (s ? s[i] : 1);
        return sum / (double)n;
    }
    }
    return -1;
}

static double energy_j(const mw_dvfs_problem *p, mw_dvfs_model m, const double *s)
{
    size_t n = p->n;
    double dyn = 0; /* eq. 2.11: S^-2 P_d T_cp per node */
    for (size_t i = 0; i < n; i++) {
        double si = s ? s[i] : 1;
        dyn += p->pd_w[i] * p->tcp_s[i] / (si * si);
    }
    double stat = 0;
    switch (m) {
    case MW_DVFS_HETERO: /* eq. 3.2 (3.3's denominator at S = 1) */
    case MW_DVFS_GRID: { /* eq. 3.9 (3.10 at S = 1) */
        double t = time_s(p, m, s);
        for (size_t i = 0; i < n; i++)
            stat += p->ps_w[i] * t;
        break;
    }
    case MW_DVFS_HYBRID: { /* eq. 4.4 (4.7 at S = 1): static power over the node's cluster's
                              time */
        size_t nc = clusters(p);
        for (size_t c = 0; c < nc; c++) {
            double t = cluster_time_s(p, c, s), ps = 0;
            for (size_t i = 0; i < n; i++)
                if (cluster_of(p, i) == c) ps += p->ps_w[i];
            stat += ps * t;
        }
        break;
    }
    case MW_DVFS_ASYNC: /* eq. 4.3, corrected: P_s S T_cp (as printed: S^-2 P_s T_cp) */
        for (size_t i = 0; i < n; i++)
            stat += p->ps_w[i] * p->tcp_s[i] * (s ? s[i] : 1);
        break;
    default:
        return -1;
    }
    return dyn + stat;
}

int mw_dvfs_check(const mw_dvfs_problem *p, char *err, size_t len)
{
    if (check_shape(p, err, len)) return -1;
    double e = energy_j(p, MW_DVFS_HETERO, NULL);
    if (!(e > 0)) {
        if (err && len) snprintf(err, len, "no energy at F_max: every power is 0");
        return -1;
    }
    return 0;
}

double mw_dvfs_time_s(const mw_dvfs_problem *p, mw_dvfs_model m, const double *s)
{
    if (check_shape(p, NULL, 0) || !ok_scaling(p, s)) return -1;
    return time_s(p, m, s);
}

double mw_dvfs_energy_j(const mw_dvfs_problem *p, mw_dvfs_model m, const double *s)
{
    if (check_shape(p, NULL, 0) || !ok_scaling(p, s)) return -1;
    return energy_j(p, m, s);
}

/* Normalised figures; p already checked. */
static int evaluate(const mw_dvfs_problem *p, mw_dvfs_model m, const double *s, mw_dvfs_eval *e)
{
    mw_dvfs_eval r;
    r.time_s = time_s(p, m, s);
    r.energy_j = energy_j(p, m, s);
    r.time_old_s = time_s(p, m, NULL);
    r.energy_old_j = energy_j(p, m, NULL);
    if (!(r.time_s > 0) || !(r.time_old_s > 0) || !(r.energy_old_j > 0) || !(r.energy_j >= 0))
        return -1;
    r.p_norm = r.time_old_s / r.time_s;     /* eq. 3.4 (2.7) */
    r.e_norm = r.energy_j / r.energy_old_j; /* eq. 3.3 (2.5) */
    r.saving_pct = 100 * (1 - r.e_norm);
    r.degradation_pct = 100 * (1 - r.p_norm);
    r.distance_pct = 100 * (r.p_norm - r.e_norm); /* eq. 3.5, 3.12 */
    r.edp = r.e_norm * (1 + (1 - r.p_norm));      /* eq. 4.8, 4.9 */
    if (e) *e = r;
    return 0;
}

int mw_dvfs_evaluate(const mw_dvfs_problem *p, mw_dvfs_model m, const double *s, mw_dvfs_eval *e)
{
    if (check_shape(p, NULL, 0) || !ok_scaling(p, s)) return -1;
    return evaluate(p, m, s, e);
}

static void gears_to_s(const mw_dvfs_problem *p, const size_t *gear, double *s)
{
    for (size_t i = 0; i < p->n; i++)
        s[i] = p->gears[i].ghz[0] / p->gears[i].ghz[gear[i]]; /* eq. 1.11 */
}

int mw_dvfs_evaluate_gears(const mw_dvfs_problem *p, mw_dvfs_model m, const size_t *gear,
                           mw_dvfs_eval *e)
{
    if (check_shape(p, NULL, 0) || !gear) return -1;
    for (size_t i = 0; i < p->n; i++)
        if (gear[i] >= p->gears[i].n) return -1;
    double *s = malloc(p->n * sizeof *s);
    if (!s) return -1;
    gears_to_s(p, gear, s);
    int rc = evaluate(p, m, s, e);
    free(s);
    return rc;
}

/* ---- closed forms ------------------------------------------------------------------------ */

double mw_dvfs_homo_time_s(double tcp_max_s, double tcm_min_s, double s)
{
    if (!ok_nonneg(tcp_max_s) || !ok_nonneg(tcm_min_s) || !isfinite(s) || s <= 0) return -1;
    return tcp_max_s * s + tcm_min_s; /* eq. 2.4 */
}

double mw_dvfs_homo_energy_j(const double *tcp_s, size_t n, double tcm_min_s, double pd_w,
                             double ps_w, double s)
{
    if (!tcp_s || !n || !ok_nonneg(tcm_min_s) || !ok_nonneg(pd_w) || !ok_nonneg(ps_w) ||
        !isfinite(s) || s <= 0)
        return -1;
    double sum = 0, mx = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ok_nonneg(tcp_s[i])) return -1;
        sum += tcp_s[i];
        if (tcp_s[i] > mx) mx = tcp_s[i];
    }
    /* eq. 2.13 */
    return pd_w * sum / (s * s) + ps_w * (mx * s + tcm_min_s) * (double)n;
}

/* T_1 and sum_{i>=2} T_i^3 (the largest counted once as T_1). -1 on bad input. */
static double rr_sums(const double *t_s, size_t n, double *cubes_rest)
{
    if (!t_s || !n) return -1;
    size_t a = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ok_nonneg(t_s[i])) return -1;
        if (t_s[i] > t_s[a]) a = i;
    }
    double c = 0;
    for (size_t i = 0; i < n; i++)
        if (i != a) c += t_s[i] * t_s[i] * t_s[i];
    *cubes_rest = c;
    return t_s[a];
}

double mw_dvfs_rr_energy_j(const double *t_s, size_t n, double pdyn_w, double pstatic_w, double s1)
{
    double rest, t1 = rr_sums(t_s, n, &rest);
    if (!(t1 > 0) || !ok_nonneg(pdyn_w) || !ok_nonneg(pstatic_w) || !isfinite(s1) || s1 <= 0)
        return -1;
    /* eq. 1.19 */
    return pdyn_w / (s1 * s1) * (t1 + rest / (t1 * t1)) + pstatic_w * t1 * s1 * (double)n;
}

double mw_dvfs_rr_sopt(const double *t_s, size_t n, double pdyn_w, double pstatic_w)
{
    double rest, t1 = rr_sums(t_s, n, &rest);
    if (!(t1 > 0) || !ok_nonneg(pdyn_w) || !isfinite(pstatic_w) || pstatic_w <= 0) return -1;
    /* eq. 2.3 */
    return cbrt(2.0 / (double)n * pdyn_w / pstatic_w * (1 + rest / (t1 * t1 * t1)));
}

size_t mw_dvfs_nearest_gear(const mw_dvfs_gears *g, double ghz)
{
    size_t best = 0;
    if (!g || !g->ghz || !g->n) return 0;
    for (size_t k = 1; k < g->n; k++)
        if (fabs(g->ghz[k] - ghz) < fabs(g->ghz[best] - ghz)) best = k;
    return best;
}

/* ---- selection ----------------------------------------------------------------------------- */

static int better(mw_dvfs_objective obj, const mw_dvfs_eval *a, const mw_dvfs_eval *b)
{
    return obj == MW_DVFS_EDP ? a->edp < b->edp : a->distance_pct > b->distance_pct;
}

int mw_dvfs_select_homogeneous(const mw_dvfs_problem *p, size_t *gear, mw_dvfs_eval *e)
{
    if (mw_dvfs_check(p, NULL, 0) || !gear) return -1;
    const mw_dvfs_gears *g0 = &p->gears[0];
    for (size_t i = 1; i < p->n; i++) {
        const mw_dvfs_gears *g = &p->gears[i];
        if (g->n != g0->n || (g->ghz != g0->ghz && memcmp(g->ghz, g0->ghz, g->n * sizeof *g->ghz)))
            return -1;
    }
    double *s = malloc(p->n * sizeof *s);
    if (!s) return -1;
    /* Algorithm 3, lines 1-16: Dist = 0 (F_max); every lower gear j: S = F_max / F_j for all
       nodes (with the section 2.8 model, eq. 2.4 / 2.13 = eq. 3.1 / 3.2 at equal S). */
    size_t best_j = 0;
    for (size_t i = 0; i < p->n; i++)
        s[i] = 1;
    mw_dvfs_eval best, ev;
    int rc = evaluate(p, MW_DVFS_HETERO, s, &best);
    for (size_t j = 1; !rc && j < g0->n; j++) {
        for (size_t i = 0; i < p->n; i++)
            s[i] = g0->ghz[0] / g0->ghz[j];
        rc = evaluate(p, MW_DVFS_HETERO, s, &ev);
        if (!rc && ev.distance_pct > best.distance_pct) {
            best = ev;
            best_j = j;
        }
    }
    free(s);
    if (rc) return -1;
    for (size_t i = 0; i < p->n; i++)
        gear[i] = best_j;
    if (e) *e = best;
    return 0;
}

/* Algorithms 5, 7, 8 (and the EDP adaptation): the initial gears, then the downward walk. */
static int walk(const mw_dvfs_problem *p, mw_dvfs_model m, mw_dvfs_objective obj, size_t *gear,
                mw_dvfs_eval *e)
{
    if (mw_dvfs_check(p, NULL, 0) || !gear) return -1;
    int lower_all = m == MW_DVFS_HYBRID || m == MW_DVFS_ASYNC;      /* Algorithm 8 */
    int early_stop = obj == MW_DVFS_MAXDIST && m != MW_DVFS_HETERO; /* Algorithms 7, 8 */
    size_t n = p->n;
    size_t *cur = malloc(n * sizeof *cur);
    double *s = malloc(n * sizeof *s);
    if (!cur || !s) {
        free(cur);
        free(s);
        return -1;
    }
    double tmax = tcp_max(p, NULL);
    for (size_t i = 0; i < n; i++) {
        const mw_dvfs_gears *g = &p->gears[i];
        /* lines 1-3: S_cp_i = max T_cp / T_cp_i (eq. 3.6, 3.13), F_i = F_max_i / S_cp_i (eq.
           3.7, 3.14), rounded to the nearest gear; a node without computation goes to its
           lowest gear (its S_cp is infinite) */
        size_t c =
            p->tcp_s[i] > 0 ? mw_dvfs_nearest_gear(g, g->ghz[0] * p->tcp_s[i] / tmax) : g->n - 1;
        cur[i] = c ? c - 1 : 0; /* lines 4-6: one gear up unless the first (F_max) */
        gear[i] = 0;            /* line 9: S_opt = 1 */
    }
    mw_dvfs_eval best, ev;
    for (size_t i = 0; i < n; i++)
        s[i] = 1;
    int rc = evaluate(p, m, s, &best); /* line 10: Dist = 0 (EDP = 1) at F_max */
    while (!rc) {                      /* line 11 */
        gears_to_s(p, cur, s);
        int moved = 0;
        if (lower_all) { /* Algorithm 8, lines 12-15: every node one gear down */
            for (size_t i = 0; i < n; i++)
                if (cur[i] + 1 < p->gears[i].n) cur[i]++, moved = 1;
        } else { /* Algorithms 5, 7, lines 12-15: every node but the slowest */
            double mx = 0;
            for (size_t i = 0; i < n; i++)
                if (p->tcp_s[i] * s[i] > mx) mx = p->tcp_s[i] * s[i];
            double cut = mx * (1 - 1e-12);
            for (size_t i = 0; i < n; i++)
                if (p->tcp_s[i] * s[i] < cut && cur[i] + 1 < p->gears[i].n) cur[i]++, moved = 1;
            if (!moved) /* the others are at their lowest gear: the slowest step down too */
                for (size_t i = 0; i < n; i++)
                    if (cur[i] + 1 < p->gears[i].n) cur[i]++, moved = 1;
        }
        if (!moved) break; /* every node at its minimum frequency */
        gears_to_s(p, cur, s);
        if ((rc = evaluate(p, m, s, &ev))) break; /* lines 16-19 */
        if (better(obj, &ev, &best)) {            /* lines 20-23 */
            best = ev;
            memcpy(gear, cur, n * sizeof *gear);
        }
        if (early_stop && ev.distance_pct < 0) break; /* 7, 8: the lower bound */
    }
    free(cur);
    free(s);
    if (rc) return -1;
    if (e) *e = best;
    return 0;
}

int mw_dvfs_select_maxdist(const mw_dvfs_problem *p, mw_dvfs_model m, size_t *gear, mw_dvfs_eval *e)
{
    return walk(p, m, MW_DVFS_MAXDIST, gear, e);
}

int mw_dvfs_select_edp(const mw_dvfs_problem *p, mw_dvfs_model m, size_t *gear, mw_dvfs_eval *e)
{
    return walk(p, m, MW_DVFS_EDP, gear, e);
}

int mw_dvfs_select_rr(const mw_dvfs_problem *p, mw_dvfs_model m, size_t *gear, mw_dvfs_eval *e)
{
    if (mw_dvfs_check(p, NULL, 0) || !gear) return -1;
    double pd = 0, ps = 0;
    for (size_t i = 0; i < p->n; i++)
        pd += p->pd_w[i], ps += p->ps_w[i];
    pd /= (double)p->n;
    ps /= (double)p->n;
    double s1 = mw_dvfs_rr_sopt(p->tcp_s, p->n, pd, ps); /* eq. 2.3 */
    if (s1 < 0) return -1;
    if (s1 < 1) s1 = 1;
    double t1 = tcp_max(p, NULL);
    for (size_t i = 0; i < p->n; i++) {
        const mw_dvfs_gears *g = &p->gears[i];
        if (p->tcp_s[i] > 0) {
            double si = s1 * t1 / p->tcp_s[i];                 /* eq. 2.2 */
            gear[i] = mw_dvfs_nearest_gear(g, g->ghz[0] / si); /* eq. 2.9 */
        } else {
            gear[i] = g->n - 1;
        }
    }
    return mw_dvfs_evaluate_gears(p, m, gear, e);
}

int mw_dvfs_oracle(const mw_dvfs_problem *p, mw_dvfs_model m, mw_dvfs_objective obj,
                   unsigned long long max_combos, size_t *gear, mw_dvfs_eval *e)
{
    if (mw_dvfs_check(p, NULL, 0) || !gear) return -1;
    unsigned long long combos = 1;
    for (size_t i = 0; i < p->n; i++) {
        if (p->gears[i].n > max_combos / combos) return -2;
        combos *= p->gears[i].n;
    }
    size_t n = p->n;
    size_t *cur = calloc(n, sizeof *cur);
    double *s = malloc(n * sizeof *s);
    if (!cur || !s) {
        free(cur);
        free(s);
        return -1;
    }
    mw_dvfs_eval best, ev;
    int have = 0, rc = 0;
    for (;;) {
        gears_to_s(p, cur, s);
        if ((rc = evaluate(p, m, s, &ev))) break;
        if (!have || better(obj, &ev, &best)) {
            best = ev;
            memcpy(gear, cur, n * sizeof *gear);
            have = 1;
        }
        size_t i = 0; /* odometer, node 0 fastest */
        while (i < n && ++cur[i] == p->gears[i].n)
            cur[i++] = 0;
        if (i == n) break;
    }
    free(cur);
    free(s);
    if (rc) return -1;
    if (e) *e = best;
    return 0;
}
