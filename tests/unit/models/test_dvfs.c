/* The DVFS models and frequency selection (models/dvfs.c, Fanfakh) against independent
 * answers:
 *  - the homogeneous model: eq. 3.1/3.2 at equal scaling factors equal eq. 2.4/2.13 written
 *    out here; at S = 1 the predicted energy equals the energy of a synthetic measured
 *    iteration integrated by hand (each node draws P_d + P_s while computing, P_s while
 *    communicating or waiting, over the iteration's length);
 *  - time: only computation scales (T(S) - T(1) = max T_cp (S - 1); communication times and
 *    nodes without computation do not move it);
 *  - Rauber–Rünger: eq. 2.3 for balanced tasks is cbrt(2 P_d / P_s); on random tasks it is
 *    the minimum of eq. 1.19 found numerically by GSL's Brent minimiser;
 *  - eq. 4.3 corrected: the asynchronous energy is S^-2 P_d T_cp + P_s S T_cp per node, by
 *    hand, and not the printed S^-2 (P_d + P_s) T_cp;
 *  - the grid and hybrid models with one cluster are the heterogeneous one; hybrid with two
 *    clusters against eq. 4.2/4.4 by hand;
 *  - selection against the brute-force oracle on random small cases: Algorithm 3 is exact over
 *    equal gears (equal to the best uniform configuration, enumerated here); MaxDist
 *    (Algorithms 5, 7, 8) never beats the oracle and stays within MAXDIST_TOL percentage
 *    points of its best distance (the gap distribution is printed); EDP never beats the
 *    oracle's EDP; Rauber–Rünger's gears are eq. 2.2/2.9 rounded;
 *  - the oracle itself against a second enumeration (recursive) on random cases. */
#include "../unit.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_rng.h>

#include "dvfs.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))
/* MaxDist's allowed shortfall against the oracle's best distance, percentage points, per
   algorithm: worst case, mean, and the least share of cases where it finds the optimum. Seeded,
   so these are regression bounds over 2,000 random cases of 2-4 nodes with 3-6 gears; measured
   (printed by maxdist_vs_oracle): Alg. 5 exact in 95.8 %, mean gap 0.023, worst 1.97; Alg. 7
   94.8 %, 0.055, 10.4 (its stop at the first negative distance); Alg. 8 hybrid 49.9 %, 0.46,
   6.5; Alg. 8 async 54.2 %, 0.23, 6.3 (it lowers every node at each step). */
static const double MAXDIST_WORST[] = {2.5, 11.0, 7.0, 7.0};
static const double MAXDIST_MEAN[] = {0.05, 0.1, 0.6, 0.4};
static const double MAXDIST_EXACT[] = {0.95, 0.94, 0.45, 0.5};

static const double GEARS_A[] = {2.5, 2.4, 2.3, 2.2, 2.1, 2.0, 1.9, 1.8, 1.7,
                                 1.6, 1.5, 1.4, 1.3, 1.2, 1.1, 1.0, 0.9, 0.8};

static void homogeneous_closed_forms(void **state)
{
    (void)state;
    double tcp[] = {3.0, 2.5, 2.0, 2.8}, tcm[] = {1.0, 1.5, 2.0, 1.2};
    double pd[] = {20, 20, 20, 20}, ps[] = {4, 4, 4, 4};
    mw_dvfs_gears g[4];
    for (int i = 0; i < 4; i++)
        g[i] = (mw_dvfs_gears){GEARS_A, 18};
    mw_dvfs_problem p = {4, tcp, tcm, pd, ps, NULL, 0, g};
    assert_int_equal(mw_dvfs_check(&p, NULL, 0), 0);
    for (double S = 1; S <= 3.2; S += 0.25) {
        double s[4] = {S, S, S, S};
        /* eq. 2.4 and 2.13 by hand: max T_cp = 3, min T_cm = 1, sum T_cp = 10.3 */
        double t = 3.0 * S + 1.0, E = 20 * 10.3 / (S * S) + 4 * t * 4;
        NEAR(mw_dvfs_time_s(&p, MW_DVFS_HETERO, s), t, 1e-12);
        NEAR(mw_dvfs_energy_j(&p, MW_DVFS_HETERO, s), E, 1e-9);
        NEAR(mw_dvfs_homo_time_s(3.0, 1.0, S), t, 1e-12);
        NEAR(mw_dvfs_homo_energy_j(tcp, 4, 1.0, 20, 4, S), E, 1e-9);
    }
}

/* A measured iteration of length T: node i computes T_cp_i at P_d + P_s, then communicates
   or waits T - T_cp_i at P_s. The model at F_max must give that energy. */
#define STEPS 20000
static void energy_at_fmax_is_measured(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 3);
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 1 + gsl_rng_uniform_int(r, 8);
        double tcp[8], tcm[8], pd[8], ps[8], T = 5 + 10 * gsl_rng_uniform(r), measured = 0,
                                             resolution = 1e-9;
        mw_dvfs_gears g[8];
        for (size_t i = 0; i < n; i++) {
            tcp[i] = T * (0.2 + 0.8 * gsl_rng_uniform(r));
            tcm[i] = T - tcp[i];
            pd[i] = 10 + 30 * gsl_rng_uniform(r);
            ps[i] = 0.2 * pd[i];
            g[i] = (mw_dvfs_gears){GEARS_A, 18};
            /* integrate the power over the iteration, in 1000 steps */
            for (int k = 0; k < STEPS; k++) {
                double t = (k + 0.5) * T / STEPS;
                measured += (t < tcp[i] ? pd[i] + ps[i] : ps[i]) * T / STEPS;
            }
            resolution += pd[i] * T / STEPS; /* one step at the wrong power */
        }
        mw_dvfs_problem p = {n, tcp, tcm, pd, ps, NULL, 0, g};
        double one[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        mw_dvfs_eval e;
        assert_int_equal(mw_dvfs_evaluate(&p, MW_DVFS_HETERO, one, &e), 0);
        NEAR(e.energy_j, measured, resolution);
        NEAR(e.time_s, T, 1e-9);
        NEAR(e.p_norm, 1, 1e-15);
        NEAR(e.e_norm, 1, 1e-15);
        NEAR(e.distance_pct, 0, 1e-12);
        NEAR(e.edp, 1, 1e-15);
    }
    gsl_rng_free(r);
}

static void only_computation_scales(void **state)
{
    (void)state;
    double tcp[] = {4.0, 2.0, 0.0}, tcm[] = {1.0, 3.0, 5.0}, pd[] = {10, 10, 10}, ps[] = {2, 2, 2};
    mw_dvfs_gears g[3] = {{GEARS_A, 18}, {GEARS_A, 18}, {GEARS_A, 18}};
    mw_dvfs_problem p = {3, tcp, tcm, pd, ps, NULL, 0, g};
    double one[3] = {1, 1, 1};
    double t1 = mw_dvfs_time_s(&p, MW_DVFS_HETERO, one);
    NEAR(t1, 5.0, 1e-12);
    for (double S = 1; S < 3; S += 0.3) {
        double s[3] = {S, S, S};
        NEAR(mw_dvfs_time_s(&p, MW_DVFS_HETERO, s) - t1, 4.0 * (S - 1), 1e-12);
    }
    /* node 1 at S = 1.9: its computation 3.8 s stays under node 0's 4 s: no change */
    double s1[3] = {1, 1.9, 1};
    NEAR(mw_dvfs_time_s(&p, MW_DVFS_HETERO, s1), 5.0, 1e-12);
    /* the node without computation: any S changes neither time nor energy */
    double s2[3] = {1, 1, 3.125};
    NEAR(mw_dvfs_time_s(&p, MW_DVFS_HETERO, s2), 5.0, 1e-12);
    NEAR(mw_dvfs_energy_j(&p, MW_DVFS_HETERO, s2), mw_dvfs_energy_j(&p, MW_DVFS_HETERO, one),
         1e-12);
    /* a longer communication on a node that is not the least communicating: no change */
    tcm[2] = 50;
    NEAR(mw_dvfs_time_s(&p, MW_DVFS_HETERO, one), 5.0, 1e-12);
}

static double rr_fn(double s, void *params)
{
    const double *a = params; /* t[0..4), pd, ps */
    return mw_dvfs_rr_energy_j(a, 4, a[4], a[5], s);
}

static void rauber_runger(void **state)
{
    (void)state;
    /* balanced tasks: S_opt = cbrt((2/N)(Pd/Ps) N) = cbrt(2 Pd / Ps) */
    double t[] = {2, 2, 2, 2, 2, 2};
    NEAR(mw_dvfs_rr_sopt(t, 6, 20, 4), cbrt(10.0), 1e-12);
    NEAR(mw_dvfs_rr_sopt(t, 1, 35, 7), cbrt(10.0), 1e-12);
    /* eq. 1.19 by hand: Pd s^-2 (T1 + sum Ti^3/T1^2) + Ps T1 s N */
    double u[] = {1, 3, 2};
    NEAR(mw_dvfs_rr_energy_j(u, 3, 10, 2, 1.5), 10 / 2.25 * (3 + (1 + 8) / 9.0) + 2 * 3 * 1.5 * 3,
         1e-12);
    /* random tasks: eq. 2.3 is the minimum of eq. 1.19 (GSL Brent) */
    gsl_set_error_handler_off();
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    gsl_min_fminimizer *m = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
    for (int trial = 0; trial < 100; trial++) {
        double a[6];
        for (int i = 0; i < 4; i++)
            a[i] = 0.1 + 5 * gsl_rng_uniform(r);
        a[4] = 5 + 40 * gsl_rng_uniform(r);
        a[5] = a[4] * (0.05 + 0.5 * gsl_rng_uniform(r));
        double sopt = mw_dvfs_rr_sopt(a, 4, a[4], a[5]);
        gsl_function F = {rr_fn, a};
        /* bracket: the minimum is inside (sopt/3, 3 sopt), and f(sopt) below both ends */
        assert_int_equal(gsl_min_fminimizer_set(m, &F, 1.0001 * sopt, sopt / 3, 3 * sopt),
                         GSL_SUCCESS);
        double x = sopt;
        for (int it = 0; it < 200; it++) {
            gsl_min_fminimizer_iterate(m);
            x = gsl_min_fminimizer_x_minimum(m);
            if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(m), gsl_min_fminimizer_x_upper(m),
                                      1e-10, 0) == GSL_SUCCESS)
                break;
        }
        NEAR(x, sopt, 1e-6 * sopt);
    }
    gsl_min_fminimizer_free(m);
    gsl_rng_free(r);
    assert_true(mw_dvfs_rr_sopt(t, 6, 20, 0) < 0); /* no static power: no optimum */
}

static void async_eq43_correction(void **state)
{
    (void)state;
    double tcp[] = {4.0, 2.0}, tcm[] = {1.0, 0.5}, pd[] = {20, 30}, ps[] = {5, 6};
    mw_dvfs_gears g[2] = {{GEARS_A, 18}, {GEARS_A, 18}};
    mw_dvfs_problem p = {2, tcp, tcm, pd, ps, NULL, 0, g};
    double s[2] = {2.0, 1.25};
    /* corrected: S^-2 P_d T_cp + P_s S T_cp */
    double want = 20 * 4 / 4.0 + 5 * 2.0 * 4 + 30 * 2 / 1.5625 + 6 * 1.25 * 2;
    double printed = (20 + 5) * 4 / 4.0 + (30 + 6) * 2 / 1.5625;
    double got = mw_dvfs_energy_j(&p, MW_DVFS_ASYNC, s);
    NEAR(got, want, 1e-12);
    assert_true(fabs(got - printed) > 10);
    /* eq. 4.1: mean of T_cp S */
    NEAR(mw_dvfs_time_s(&p, MW_DVFS_ASYNC, s), (8.0 + 2.5) / 2, 1e-12);
    /* at S = 1 the printed and corrected forms agree: (P_d + P_s) T_cp */
    double one[2] = {1, 1};
    NEAR(mw_dvfs_energy_j(&p, MW_DVFS_ASYNC, one), 25 * 4 + 36 * 2, 1e-12);
}

static void grid_and_hybrid(void **state)
{
    (void)state;
    double tcp[] = {4.0, 2.0, 3.0, 1.0}, tcm[] = {1.0, 3.0, 0.5, 2.5}, pd[] = {20, 25, 30, 35},
           ps[] = {4, 5, 6, 7};
    mw_dvfs_gears g[4] = {{GEARS_A, 18}, {GEARS_A, 18}, {GEARS_A, 18}, {GEARS_A, 18}};
    double s[4] = {1.2, 1.5, 1.1, 2.0};
    mw_dvfs_problem one = {4, tcp, tcm, pd, ps, NULL, 0, g};
    for (int m = MW_DVFS_GRID; m <= MW_DVFS_HYBRID; m++) {
        NEAR(mw_dvfs_time_s(&one, (mw_dvfs_model)m, s), mw_dvfs_time_s(&one, MW_DVFS_HETERO, s),
             1e-12);
        NEAR(mw_dvfs_energy_j(&one, (mw_dvfs_model)m, s), mw_dvfs_energy_j(&one, MW_DVFS_HETERO, s),
             1e-12);
    }
    size_t cl[4] = {0, 0, 1, 1};
    mw_dvfs_problem two = {4, tcp, tcm, pd, ps, cl, 2, g};
    /* grid, eq. 3.8: max T_cp S = 4.8 (node 0); slowest at F_max is node 0, cluster 0: min
       T_cm there = 1.0 */
    NEAR(mw_dvfs_time_s(&two, MW_DVFS_GRID, s), 4.8 + 1.0, 1e-12);
    double dyn = 20 * 4 / 1.44 + 25 * 2 / 2.25 + 30 * 3 / 1.21 + 35 * 1 / 4.0;
    NEAR(mw_dvfs_energy_j(&two, MW_DVFS_GRID, s), dyn + (4 + 5 + 6 + 7) * 5.8, 1e-9);
    /* hybrid, eq. 4.2: cluster 0: max(4.8, 3.0) + min(1, 3) = 5.8; cluster 1: max(3.3, 2.0) +
       min(0.5, 2.5) = 3.8; mean 4.8. eq. 4.4: static over each cluster's own time */
    NEAR(mw_dvfs_time_s(&two, MW_DVFS_HYBRID, s), (5.8 + 3.8) / 2, 1e-12);
    NEAR(mw_dvfs_energy_j(&two, MW_DVFS_HYBRID, s), dyn + (4 + 5) * 5.8 + (6 + 7) * 3.8, 1e-9);
    double ones[4] = {1, 1, 1, 1};
    mw_dvfs_eval e;
    assert_int_equal(mw_dvfs_evaluate(&two, MW_DVFS_HYBRID, ones, &e), 0);
    /* eq. 4.6: ((4 + 1) + (3 + 0.5)) / 2; eq. 4.7 */
    NEAR(e.time_old_s, 4.25, 1e-12);
    NEAR(e.energy_old_j, 20 * 4 + 25 * 2 + 30 * 3 + 35 + 9 * 5.0 + 13 * 3.5, 1e-9);
}

/* ---- random small cases against the oracle ---------------------------------------------- */

typedef struct {
    size_t n;
    double tcp[4], tcm[4], pd[4], ps[4];
    size_t cl[4];
    double ghz[4][6];
    mw_dvfs_gears g[4];
    mw_dvfs_problem p;
} rcase;

/* 2-4 nodes of Table 3.1-like types: F_max 2.5-3.4 GHz, 3-6 gears 0.1-0.2 GHz apart, P_s 20 %
   of P_d, computation 20-100 % of the iteration, two clusters when grid. */
static void random_case(gsl_rng *r, rcase *c, int grid)
{
    c->n = 2 + gsl_rng_uniform_int(r, 3);
    double T = 1 + 9 * gsl_rng_uniform(r);
    for (size_t i = 0; i < c->n; i++) {
        c->tcp[i] = T * (0.2 + 0.8 * gsl_rng_uniform(r));
        c->tcm[i] = T - c->tcp[i] + 0.1 * T * gsl_rng_uniform(r);
        c->pd[i] = 20 + 15 * gsl_rng_uniform(r);
        c->ps[i] = 0.2 * c->pd[i];
        c->cl[i] = grid ? i % 2 : 0;
        size_t ng = 3 + gsl_rng_uniform_int(r, 4);
        double f = 2.5 + 0.9 * gsl_rng_uniform(r), step = 0.1 + 0.1 * gsl_rng_uniform(r);
        for (size_t k = 0; k < ng; k++)
            c->ghz[i][k] = f - step * (double)k;
        c->g[i] = (mw_dvfs_gears){c->ghz[i], ng};
    }
    c->p = (mw_dvfs_problem){c->n, c->tcp, c->tcm, c->pd, c->ps, c->cl, grid ? 2 : 1, c->g};
}

static void maxdist_vs_oracle(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    static const mw_dvfs_model models[] = {MW_DVFS_HETERO, MW_DVFS_GRID, MW_DVFS_HYBRID,
                                           MW_DVFS_ASYNC};
    static const char *names[] = {"hetero (Alg. 5)", "grid (Alg. 7)", "hybrid (Alg. 8)",
                                  "async (Alg. 8)"};
    for (int mi = 0; mi < 4; mi++) {
        int exact = 0, trials = 2000;
        double worst = 0, sum = 0, worst_edp = 0;
        for (int trial = 0; trial < trials; trial++) {
            rcase c;
            random_case(r, &c, mi != 0);
            size_t go[4], gm[4], ge[4], goe[4];
            mw_dvfs_eval eo, em, ee, eoe;
            assert_int_equal(mw_dvfs_oracle(&c.p, models[mi], MW_DVFS_MAXDIST, 100000, go, &eo), 0);
            assert_int_equal(mw_dvfs_select_maxdist(&c.p, models[mi], gm, &em), 0);
            assert_true(em.distance_pct <= eo.distance_pct + 1e-9);
            assert_true(em.distance_pct >= 0);
            double gap = eo.distance_pct - em.distance_pct;
            if (gap <= 1e-9) exact++;
            if (gap > worst) worst = gap;
            sum += gap;
            /* the returned evaluation is that of the returned gears */
            mw_dvfs_eval chk;
            assert_int_equal(mw_dvfs_evaluate_gears(&c.p, models[mi], gm, &chk), 0);
            NEAR(chk.distance_pct, em.distance_pct, 1e-12);
            /* EDP: never below the oracle's */
            assert_int_equal(mw_dvfs_oracle(&c.p, models[mi], MW_DVFS_EDP, 100000, goe, &eoe), 0);
            assert_int_equal(mw_dvfs_select_edp(&c.p, models[mi], ge, &ee), 0);
            assert_true(ee.edp >= eoe.edp - 1e-12);
            assert_true(ee.edp <= 1 + 1e-12);
            if (ee.edp - eoe.edp > worst_edp) worst_edp = ee.edp - eoe.edp;
        }
        assert_true(worst <= MAXDIST_WORST[mi]);
        assert_true(sum / trials <= MAXDIST_MEAN[mi]);
        assert_true(exact >= MAXDIST_EXACT[mi] * trials);
        printf("  MaxDist %-16s vs oracle: %d/%d exact, mean gap %.3f, worst %.3f points; EDP "
               "worst excess %.4f\n",
               names[mi], exact, trials, sum / trials, worst, worst_edp);
    }
    gsl_rng_free(r);
}

static void homogeneous_is_exact(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    for (int trial = 0; trial < 500; trial++) {
        rcase c;
        random_case(r, &c, 0);
        for (size_t i = 0; i < c.n; i++)
            c.g[i] = (mw_dvfs_gears){GEARS_A, 18};
        size_t gh[4];
        mw_dvfs_eval eh;
        assert_int_equal(mw_dvfs_select_homogeneous(&c.p, gh, &eh), 0);
        /* the best uniform configuration, enumerated */
        double best = 0;
        size_t bj = 0;
        for (size_t j = 0; j < 18; j++) {
            double s[4];
            for (size_t i = 0; i < c.n; i++)
                s[i] = 2.5 / GEARS_A[j];
            mw_dvfs_eval e;
            assert_int_equal(mw_dvfs_evaluate(&c.p, MW_DVFS_HETERO, s, &e), 0);
            if (e.distance_pct > best) best = e.distance_pct, bj = j;
        }
        NEAR(eh.distance_pct, best, 1e-12);
        for (size_t i = 0; i < c.n; i++)
            assert_int_equal(gh[i], bj);
    }
    /* different tables: not homogeneous */
    rcase c;
    random_case(r, &c, 0);
    size_t g[4];
    if (c.g[0].n != c.g[1].n || c.ghz[0][0] != c.ghz[1][0])
        assert_int_equal(mw_dvfs_select_homogeneous(&c.p, g, NULL), -1);
    gsl_rng_free(r);
}

static void rr_gears(void **state)
{
    (void)state;
    double tcp[] = {4.0, 2.0}, tcm[] = {1.0, 3.0}, pd[] = {20, 20}, ps[] = {4, 4};
    mw_dvfs_gears g[2] = {{GEARS_A, 18}, {GEARS_A, 18}};
    mw_dvfs_problem p = {2, tcp, tcm, pd, ps, NULL, 0, g};
    size_t gear[2];
    mw_dvfs_eval e;
    assert_int_equal(mw_dvfs_select_rr(&p, MW_DVFS_HETERO, gear, &e), 0);
    /* eq. 2.3: cbrt((2/2)(20/4)(1 + 8/64)) = cbrt(5.625) = 1.7784; node 0: 2.5/1.7784 = 1.406
       GHz -> 1.4 (gear 11); node 1: S = 3.557, 0.703 GHz -> 0.8 (gear 17) */
    assert_int_equal(gear[0], 11);
    assert_int_equal(gear[1], 17);
}

static void oracle_enumerates(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 13);
    for (int trial = 0; trial < 100; trial++) {
        rcase c;
        random_case(r, &c, 1);
        size_t go[4];
        mw_dvfs_eval eo;
        assert_int_equal(mw_dvfs_oracle(&c.p, MW_DVFS_GRID, MW_DVFS_MAXDIST, 100000, go, &eo), 0);
        /* a second enumeration, by index arithmetic */
        size_t total = 1;
        for (size_t i = 0; i < c.n; i++)
            total *= c.g[i].n;
        double best = -1e300;
        for (size_t k = 0; k < total; k++) {
            size_t gear[4], q = k;
            for (size_t i = 0; i < c.n; i++)
                gear[i] = q % c.g[i].n, q /= c.g[i].n;
            mw_dvfs_eval e;
            assert_int_equal(mw_dvfs_evaluate_gears(&c.p, MW_DVFS_GRID, gear, &e), 0);
            if (e.distance_pct > best) best = e.distance_pct;
        }
        NEAR(eo.distance_pct, best, 1e-12);
    }
    gsl_rng_free(r);
}

static void bad_input(void **state)
{
    (void)state;
    double tcp[] = {1, 2}, tcm[] = {1, 1}, pd[] = {10, 10}, ps[] = {2, 2};
    double up[] = {1.0, 2.0};
    mw_dvfs_gears g[2] = {{GEARS_A, 18}, {up, 2}};
    mw_dvfs_problem p = {2, tcp, tcm, pd, ps, NULL, 0, g};
    char err[128];
    assert_int_equal(mw_dvfs_check(&p, err, sizeof err), -1); /* increasing gears */
    assert_non_null(strstr(err, "decreasing"));
    g[1] = (mw_dvfs_gears){GEARS_A, 18};
    assert_int_equal(mw_dvfs_check(&p, err, sizeof err), 0);
    tcp[0] = NAN;
    assert_int_equal(mw_dvfs_check(&p, err, sizeof err), -1);
    tcp[0] = 0, tcp[1] = 0;
    assert_int_equal(mw_dvfs_check(&p, err, sizeof err), -1); /* no computation */
    tcp[0] = 1, tcp[1] = 2;
    pd[0] = pd[1] = ps[0] = ps[1] = 0;
    assert_int_equal(mw_dvfs_check(&p, err, sizeof err), -1); /* no energy */
    pd[0] = pd[1] = 10;
    size_t cl[2] = {0, 3};
    mw_dvfs_problem q = p;
    q.cluster = cl, q.nclusters = 2;
    assert_int_equal(mw_dvfs_check(&q, err, sizeof err), -1);
    double s[2] = {1, -1};
    assert_true(mw_dvfs_time_s(&p, MW_DVFS_HETERO, s) < 0);
    size_t gear[2];
    /* 18^2 = 324 combinations > 100 */
    assert_int_equal(mw_dvfs_oracle(&p, MW_DVFS_HETERO, MW_DVFS_MAXDIST, 100, gear, NULL), -2);
    assert_int_equal(mw_dvfs_oracle(&p, MW_DVFS_HETERO, MW_DVFS_MAXDIST, 324, gear, NULL), 0);
    double tab[] = {2.0, 1.5, 1.0};
    mw_dvfs_gears t3 = {tab, 3};
    assert_int_equal(mw_dvfs_nearest_gear(&t3, 1.25), 1); /* tie: the higher gear */
    assert_int_equal(mw_dvfs_nearest_gear(&t3, 0.2), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(homogeneous_closed_forms),
        cmocka_unit_test(energy_at_fmax_is_measured),
        cmocka_unit_test(only_computation_scales),
        cmocka_unit_test(rauber_runger),
        cmocka_unit_test(async_eq43_correction),
        cmocka_unit_test(grid_and_hybrid),
        cmocka_unit_test(maxdist_vs_oracle),
        cmocka_unit_test(homogeneous_is_exact),
        cmocka_unit_test(rr_gears),
        cmocka_unit_test(oracle_enumerates),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
