/* LBOPA, PARTITION, LBOPA-TE (models/lbopa.c, Khaleghzadeh et al.)
 * against answers found independently:
 *  - a 3-device front by hand (below): end-points, Pf(t), PARTITION's split, the time for an
 *    energy budget and LBOPA-TE at three static powers;
 *  - brute force over every integer split of n on a 3- and 4-device platform (integer speeds,
 *    so the front is reached by integer splits at integer times): no split lies below the
 *    front; at every integer time the best split finishing by then has exactly Pf(t); every
 *    Pareto-optimal split's energy lies between Pf(T) and Pf(floor(T)) (it is not dominated by
 *    the front's integer split at floor(T));
 *  - PARTITION's split sums to n, finishes at t, costs Pf(t); the rounded split sums to n
 *    exactly and moves no device by a unit or more;
 *  - closed-form f^{-1} (linear, piecewise-linear) against Brent's method, and a callback
 *    device (Brent path) against the same function given as linear;
 *  - LBOPA-TE against a dense running minimum of total energy along the front, on a
 *    non-convex profile whose front needs a cut piece (computed by hand below);
 *  - the profile builder: b and mean times of synthetic measurements with a known answer,
 *    the additivity figure for a 2 % excess, a profile with time not increasing;
 */
#include "../unit.h"

#include "lbopa.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static mw_lbopa_device lin(double speed_units_per_s, double b)
{
    mw_lbopa_device d = {0};
    d.kind = MW_LBOPA_F_LINEAR;
    d.a_s_per_unit = 1.0 / speed_units_per_s;
    d.b_J_per_unit = b;
    return d;
}

/* Hand case. A: 3 units/s, 3 J/unit; B: 2 units/s, 2 J/unit; C: 1 unit/s, 1 J/unit; n = 12,
 * given in the order C, A, B (ranks by b: A, B, C).
 *   t_0: all three balanced, 6 t = 12, t_0 = 2 s: split A 6, B 4, C 2, e_0 = 18+8+2 = 28 J
 *        (line 5: 3*12 - (3-2)*2*2 - (3-1)*1*2 = 28);
 *   t_1: B and C, 3 t = 12, t_1 = 4 s: split B 8, C 4, e_1 = 16 + 4 = 20 J;
 *   t_2: C alone, 12 s, e_2 = 12 J.
 *   Segment 0: Pf(t) = 36 - (3-2) 2t - (3-1) t = 36 - 4t on [2, 4];
 *   segment 1: Pf(t) = 24 - (2-1) t = 24 - t on [4, 12].
 *   PARTITION(3 s): f^{-1} = A 9, B 6, C 3, sum 18, 6 too many off A: A 3, B 6, C 3, 24 J.
 *   PARTITION(8 s): A 24, B 16, C 8, 36 too many: A 0 (12 left), B 4: A 0, B 4, C 8, 16 J.
 *   Total energy with P_S = 2 W: slopes -4+2 = -2 and -1+2 = +1: segment 0 only, (2, 32) to
 *   (4, 28). P_S = 0.5: both fall: (2, 29)-(4, 22), (4, 22)-(12, 18). P_S = 5: both rise:
 *   only the point (2, 38). */
static void hand_three(void **state)
{
    mw_lbopa_device dev[3] = {lin(1, 1), lin(3, 3), lin(2, 2)}; /* C, A, B */
    mw_pareto_front f;
    assert_int_equal(mw_lbopa_front(dev, 3, 12, &f), 0);
    assert_int_equal(f.nseg, 2);
    assert_int_equal(f.rank[0], 1);
    assert_int_equal(f.rank[1], 2);
    assert_int_equal(f.rank[2], 0);
    NEAR(f.t_s[0], 2, 1e-12);
    NEAR(f.t_s[1], 4, 1e-12);
    NEAR(f.t_s[2], 12, 1e-12);
    NEAR(f.e_J[0], 28, 1e-11);
    NEAR(f.e_J[1], 20, 1e-11);
    NEAR(f.e_J[2], 12, 1e-11);
    double e, t, x[3];
    assert_int_equal(mw_pareto_energy_J(&f, 3, &e), 0);
    NEAR(e, 24, 1e-12);
    assert_int_equal(mw_pareto_energy_J(&f, 8, &e), 0);
    NEAR(e, 16, 1e-12);
    assert_int_equal(mw_pareto_energy_J(&f, 1.9, &e), -1);
    assert_int_equal(mw_pareto_energy_J(&f, 12.1, &e), -1);
    assert_int_equal(mw_lbopa_partition(&f, 3, x), 0);
    NEAR(x[1], 3, 1e-12);
    NEAR(x[2], 6, 1e-12);
    NEAR(x[0], 3, 1e-12);
    assert_int_equal(mw_lbopa_partition(&f, 8, x), 0);
    NEAR(x[1], 0, 1e-12);
    NEAR(x[2], 4, 1e-12);
    NEAR(x[0], 8, 1e-12);
    NEAR(mw_lbopa_T_s(dev, 3, x), 8, 1e-12);
    NEAR(mw_lbopa_E_J(dev, 3, x), 16, 1e-12);
    assert_int_equal(mw_lbopa_partition(&f, 13, x), -1);
    assert_int_equal(mw_lbopa_partition(&f, 1, x), -1);
    assert_int_equal(mw_pareto_time_for_energy_s(&f, 24, &t), 0);
    NEAR(t, 3, 1e-12);
    assert_int_equal(mw_pareto_time_for_energy_s(&f, 16, &t), 0);
    NEAR(t, 8, 1e-12);
    assert_int_equal(mw_pareto_time_for_energy_s(&f, 30, &t), 0);
    NEAR(t, 2, 0);
    assert_int_equal(mw_pareto_time_for_energy_s(&f, 11, &t), -1);

    mw_pareto_te te;
    assert_int_equal(mw_lbopa_te(&f, 2, &te), 0);
    NEAR(te.tmin_s, 2, 1e-12);
    NEAR(te.emax_J, 32, 1e-11);
    assert_int_equal(te.npieces, 1);
    NEAR(te.piece[0].t0_s, 2, 1e-12);
    NEAR(te.piece[0].e0_J, 32, 1e-11);
    NEAR(te.piece[0].t1_s, 4, 1e-12);
    NEAR(te.piece[0].e1_J, 28, 1e-11);
    assert_int_equal(mw_pareto_te_contains(&te, 3), 1);
    assert_int_equal(mw_pareto_te_contains(&te, 5), 0);
    mw_pareto_te_free(&te);
    assert_int_equal(mw_lbopa_te(&f, 0.5, &te), 0);
    assert_int_equal(te.npieces, 2);
    NEAR(te.piece[0].e0_J, 29, 1e-11);
    NEAR(te.piece[0].e1_J, 22, 1e-11);
    NEAR(te.piece[1].t1_s, 12, 1e-12);
    NEAR(te.piece[1].e1_J, 18, 1e-11);
    mw_pareto_te_free(&te);
    assert_int_equal(mw_lbopa_te(&f, 5, &te), 0);
    assert_int_equal(te.npieces, 0);
    NEAR(te.emax_J, 38, 1e-11);
    assert_int_equal(mw_pareto_te_contains(&te, 2), 1);
    assert_int_equal(mw_pareto_te_contains(&te, 2.5), 0);
    mw_pareto_te_free(&te);
    mw_pareto_front_free(&f);
}

/* ---- brute force on the integer grid --------------------------------------------------- */

typedef struct {
    double t, e;
} te_pt;

static size_t enumerate(const mw_lbopa_device *dev, int k, int n, te_pt *out)
{
    int x[8] = {0};
    size_t m = 0;
    for (;;) {
        int rest = n;
        for (int i = 0; i < k - 1; i++)
            rest -= x[i];
        if (rest >= 0) {
            double xd[8];
            for (int i = 0; i < k - 1; i++)
                xd[i] = x[i];
            xd[k - 1] = rest;
            out[m++] = (te_pt){mw_lbopa_T_s(dev, k, xd), mw_lbopa_E_J(dev, k, xd)};
        }
        int i = 0; /* odometer over x[0..k-2] in 0..n */
        while (i < k - 1 && ++x[i] > n)
            x[i++] = 0;
        if (i == k - 1) break;
    }
    return m;
}

static void brute_check(const mw_lbopa_device *dev, int k, int n)
{
    mw_pareto_front f;
    assert_int_equal(mw_lbopa_front(dev, k, n, &f), 0);
    size_t cap = 1;
    for (int i = 0; i < k - 1; i++)
        cap *= (size_t)(n + 1);
    te_pt *p = malloc(cap * sizeof *p);
    assert_non_null(p);
    size_t m = enumerate(dev, k, n, p);
    double tmin = f.t_s[0], tmax = f.t_s[f.nseg], emin = f.e_J[f.nseg];
    double tol = 1e-9 * f.e_J[0];
    size_t npareto = 0;
    for (size_t i = 0; i < m; i++) {
        /* nothing below the front */
        assert_true(p[i].t >= tmin - 1e-12);
        double pf = emin;
        if (p[i].t <= tmax) assert_int_equal(mw_pareto_energy_J(&f, p[i].t, &pf), 0);
        assert_true(p[i].e >= pf - tol);
        int dominated = 0;
        for (size_t j = 0; j < m && !dominated; j++)
            dominated = (p[j].t <= p[i].t && p[j].e < p[i].e - tol) ||
                        (p[j].t < p[i].t - 1e-12 && p[j].e <= p[i].e + tol);
        if (dominated) continue;
        npareto++;
        if (p[i].t > tmax + 1e-12) {
            /* only where the last devices share one b and no integer split balances them */
            assert_true(p[i].e <= emin + tol);
            continue;
        }
        double pf_floor;
        double tf = floor(p[i].t + 1e-9);
        assert_int_equal(mw_pareto_energy_J(&f, tf, &pf_floor), 0);
        assert_true(p[i].e <= pf_floor + tol);
    }
    assert_true(npareto >= (size_t)(tmax - tmin));
    /* at every integer time the best split finishing by then has exactly Pf(t) */
    for (double t = ceil(tmin - 1e-9); t <= tmax + 1e-9; t += 1) {
        double best = INFINITY, pf;
        for (size_t i = 0; i < m; i++)
            if (p[i].t <= t + 1e-9) best = fmin(best, p[i].e);
        assert_int_equal(mw_pareto_energy_J(&f, t, &pf), 0);
        NEAR(best, pf, tol);
    }
    free(p);
    mw_pareto_front_free(&f);
}

static void brute_force_grid(void **state)
{
    /* speeds 1, 2, 3 units/s: t_0 = 24 / 6 = 4 s */
    mw_lbopa_device d3[3] = {lin(2, 1.5), lin(1, 0.7), lin(3, 2.2)};
    brute_check(d3, 3, 24);
    /* four devices, t_0 = 20 / 10 = 2 s, b from a small generator, one tie */
    unsigned s = 12345;
    for (int rep = 0; rep < 4; rep++) {
        mw_lbopa_device d4[4];
        for (int i = 0; i < 4; i++) {
            s = s * 1103515245u + 12345u;
            d4[i] = lin(i + 1, 0.5 + (double)((s >> 16) % 1000) / 250.0);
        }
        if (rep == 3) d4[3].b_J_per_unit = d4[1].b_J_per_unit;
        brute_check(d4, 4, 20);
    }
    /* all b equal: the front is one point, the balanced split */
    mw_lbopa_device eq[3] = {lin(1, 1), lin(2, 1), lin(3, 1)};
    mw_pareto_front f;
    assert_int_equal(mw_lbopa_front(eq, 3, 12, &f), 0);
    assert_int_equal(f.nseg, 0);
    NEAR(f.t_s[0], 2, 1e-12);
    NEAR(f.e_J[0], 12, 1e-12);
    mw_pareto_front_free(&f);
    brute_check(eq, 3, 12);
}

/* ---- PARTITION and rounding ------------------------------------------------------------ */

static void partition_sums(void **state)
{
    static const double px0[] = {10, 30, 100}, pt0[] = {1, 2, 4};
    static const double px1[] = {5, 50}, pt1[] = {2, 6};
    mw_lbopa_device dev[4] = {lin(7, 2.5), lin(3, 1.1), {0}, {0}};
    dev[2].kind = MW_LBOPA_F_PWL;
    dev[2].x_units = px0;
    dev[2].t_s = pt0;
    dev[2].npoints = 3;
    dev[2].b_J_per_unit = 1.9;
    dev[3].kind = MW_LBOPA_F_PWL;
    dev[3].x_units = px1;
    dev[3].t_s = pt1;
    dev[3].npoints = 2;
    dev[3].b_J_per_unit = 0.4;
    long long n = 1001;
    mw_pareto_front f;
    assert_int_equal(mw_lbopa_front(dev, 4, (double)n, &f), 0);
    assert_int_equal(f.nseg, 3);
    for (int r = 0; r < 4; r++) /* t_r balances ranks r.. : their f^{-1} sum to n */
    {
        double sum = 0, x;
        for (int j = r; j < 4; j++) {
            assert_int_equal(mw_lbopa_finv(&dev[f.rank[j]], f.t_s[r], &x), 0);
            sum += x;
        }
        NEAR(sum, (double)n, 1e-9 * (double)n);
    }
    for (int i = 0; i <= 200; i++) {
        double t = f.t_s[0] + (f.t_s[3] - f.t_s[0]) * i / 200.0, x[4], e;
        long long xi[4];
        assert_int_equal(mw_lbopa_partition(&f, t, x), 0);
        double sum = x[0] + x[1] + x[2] + x[3];
        NEAR(sum, (double)n, 1e-9 * (double)n);
        NEAR(mw_lbopa_T_s(dev, 4, x), t, 1e-9 * t);
        assert_int_equal(mw_pareto_energy_J(&f, t, &e), 0);
        NEAR(mw_lbopa_E_J(dev, 4, x), e, 1e-9 * e);
        assert_int_equal(mw_lbopa_round(dev, 4, x, n, xi), 0);
        assert_int_equal(xi[0] + xi[1] + xi[2] + xi[3], n);
        for (int j = 0; j < 4; j++)
            assert_true(fabs((double)xi[j] - x[j]) < 1);
    }
    /* rounding by hand: 2.5 / 3.5 / 4.0 of 10: one unit left, equal fractions, to the lower b */
    double xr[3] = {2.5, 3.5, 4.0};
    long long xi[3];
    mw_lbopa_device rb[3] = {lin(1, 2), lin(1, 1), lin(1, 3)};
    assert_int_equal(mw_lbopa_round(rb, 3, xr, 10, xi), 0);
    assert_int_equal(xi[0], 2);
    assert_int_equal(xi[1], 4);
    assert_int_equal(xi[2], 4);
    assert_int_equal(mw_lbopa_round(rb, 3, xr, 11, xi), -1); /* does not sum to 11 */
    mw_pareto_front_free(&f);
}

static double cb_linear(double x, void *ctx)
{
    return *(const double *)ctx * x;
}

static void inverse_and_callback(void **state)
{
    static const double px[] = {10, 30, 100}, pt[] = {1, 2, 4};
    mw_lbopa_device d = {0};
    d.kind = MW_LBOPA_F_PWL;
    d.x_units = px;
    d.t_s = pt;
    d.npoints = 3;
    d.b_J_per_unit = 1;
    NEAR(mw_lbopa_f_s(&d, 20), 1.5, 1e-15);
    NEAR(mw_lbopa_f_s(&d, 135), 5, 1e-14); /* last slope 2/70 extended: 4 + 35 * 2/70 */
    for (double t = 0; t < 7; t += 0.37) {
        double a, b;
        assert_int_equal(mw_lbopa_finv(&d, t, &a), 0);
        assert_int_equal(mw_lbopa_finv_brent(&d, t, &b), 0);
        NEAR(a, b, 1e-11 * (1 + a));
        NEAR(mw_lbopa_f_s(&d, a), t, 1e-12 * (1 + t));
    }
    double bad_x[] = {10, 5}, bad_t[] = {1, 2};
    mw_lbopa_device bad = d;
    bad.x_units = bad_x;
    bad.t_s = bad_t;
    bad.npoints = 2;
    assert_int_equal(mw_lbopa_device_ok(&bad), -1);
    /* the callback path (Brent inverses) gives the linear front */
    double a[3] = {1.0 / 3, 0.5, 1};
    mw_lbopa_device cb[3], li[3] = {lin(3, 3), lin(2, 2), lin(1, 1)};
    for (int i = 0; i < 3; i++) {
        cb[i] = (mw_lbopa_device){0};
        cb[i].kind = MW_LBOPA_F_CALLBACK;
        cb[i].f_s = cb_linear;
        cb[i].ctx = &a[i];
        cb[i].b_J_per_unit = li[i].b_J_per_unit;
    }
    mw_pareto_front fc, fl;
    assert_int_equal(mw_lbopa_front(cb, 3, 12, &fc), 0);
    assert_int_equal(mw_lbopa_front(li, 3, 12, &fl), 0);
    for (int r = 0; r < 3; r++) {
        NEAR(fc.t_s[r], fl.t_s[r], 1e-10);
        NEAR(fc.e_J[r], fl.e_J[r], 1e-9);
    }
    mw_pareto_te te;
    assert_int_equal(mw_lbopa_te(&fc, 0.5, &te), 0);
    assert_int_equal(te.npieces, 2 * 64);
    mw_pareto_te_free(&te);
    mw_pareto_front_free(&fc);
    mw_pareto_front_free(&fl);
}

/* ---- LBOPA-TE against a running minimum -------------------------------------------------- */

/* Non-convex case by hand. Device 0: 10 units/s, 2 J/unit. Device 1: 1 J/unit, points
 * (5, 1 s), (6, 2 s), (26, 3 s): 5 units/s, then 1, then 20. n = 20, P_S = 3 W.
 * t_0: 10 t + 5 + (t - 1) = 20, t_0 = 16/11 s. One segment, Pf(t) = 40 - f_1^{-1}(t):
 * 36 - t on [16/11, 2] (total energy 36 + 2t, rising), 34 - 20(t - 2) on [2, 2.7] (total
 * 40 - 17(t - 2), falling). ET(t_0) = 36 + 32/11 = 428/11. Kept: the point t_0 and the
 * falling piece from where it drops below 428/11: 17(t - 2) = 12/11, t = 2 + 12/187, to
 * (2.7, 28.1). */
static void te_running_min(void **state)
{
    static const double px[] = {5, 6, 26}, pt[] = {1, 2, 3};
    mw_lbopa_device dev[2] = {lin(10, 2), {0}};
    dev[1].kind = MW_LBOPA_F_PWL;
    dev[1].x_units = px;
    dev[1].t_s = pt;
    dev[1].npoints = 3;
    dev[1].b_J_per_unit = 1;
    mw_pareto_front f;
    assert_int_equal(mw_lbopa_front(dev, 2, 20, &f), 0);
    NEAR(f.t_s[0], 16.0 / 11, 1e-12);
    NEAR(f.t_s[1], 2.7, 1e-12);
    mw_pareto_te te;
    assert_int_equal(mw_lbopa_te(&f, 3, &te), 0);
    NEAR(te.emax_J, 428.0 / 11, 1e-10);
    assert_int_equal(te.npieces, 1);
    NEAR(te.piece[0].t0_s, 2 + 12.0 / 187, 1e-12);
    NEAR(te.piece[0].e0_J, 428.0 / 11, 1e-10);
    NEAR(te.piece[0].t1_s, 2.7, 1e-12);
    NEAR(te.piece[0].e1_J, 28.1, 1e-10);
    mw_pareto_te_free(&te);

    /* independent: dense samples along the front, a point kept iff its total energy is below
     * every earlier one's; on this profile and the 4-device one, several static powers */
    static const double qx[] = {40, 60, 200}, qt[] = {2, 5, 6};
    mw_lbopa_device d4[4] = {lin(9, 3), lin(4, 2.2), {0}, dev[1]};
    d4[2].kind = MW_LBOPA_F_PWL;
    d4[2].x_units = qx;
    d4[2].t_s = qt;
    d4[2].npoints = 3;
    d4[2].b_J_per_unit = 1.5;
    d4[3].b_J_per_unit = 0.3;
    struct {
        const mw_lbopa_device *d;
        int k;
        double n;
    } cases[2] = {{dev, 2, 20}, {d4, 4, 300}};
    const double ps[] = {0, 0.7, 3, 8, 20, 60};
    for (int c = 0; c < 2; c++) {
        mw_pareto_front g;
        assert_int_equal(mw_lbopa_front(cases[c].d, cases[c].k, cases[c].n, &g), 0);
        for (size_t q = 0; q < sizeof ps / sizeof ps[0]; q++) {
            assert_int_equal(mw_lbopa_te(&g, ps[q], &te), 0);
            /* samples of total energy; between two samples it moves by at most step, so a
             * sample within step of the running minimum may be either side of the true
             * (unsampled) minimum and is not judged */
            enum { NS = 20000 };
            static double ts[NS + 1], es[NS + 1];
            double t0 = g.t_s[0], t1 = g.t_s[g.nseg], step = 0, runmin = INFINITY;
            for (int i = 0; i <= NS; i++) {
                ts[i] = t0 + (t1 - t0) * i / NS;
                assert_int_equal(mw_pareto_energy_J(&g, ts[i], &es[i]), 0);
                es[i] += ps[q] * ts[i];
                if (i) step = fmax(step, fabs(es[i] - es[i - 1]));
            }
            int kept = 0;
            for (int i = 0; i <= NS; i++) {
                int want = es[i] < runmin;
                if (fabs(es[i] - runmin) > step) {
                    assert_int_equal(mw_pareto_te_contains(&te, ts[i]), want);
                    kept += want;
                }
                runmin = fmin(runmin, es[i]);
            }
            assert_true(kept >= 1);
            mw_pareto_te_free(&te);
        }
        mw_pareto_front_free(&g);
    }
    mw_pareto_front_free(&f);
}

/* ---- profile builder ------------------------------------------------------------------- */

static void profile_builder(void **state)
{
    /* device 0: t = 0.01 x + x^2/1e5 at x = 100, 200, 400; b = 0.5 J/unit; device 1: t =
     * 0.02 x, b = 0.2; P_S = 100 W. Each size twice, energies +-1 % so the means are exact;
     * together: the sum of dynamic energies + 2 %. */
    const double ps = 100, sizes[3] = {100, 200, 400};
    mw_lbopa_meas m[16];
    size_t nm = 0;
    for (int i = 0; i < 3; i++) {
        double x = sizes[i], t0 = 0.01 * x + x * x / 1e5, t1 = 0.02 * x;
        for (int r = 0; r < 2; r++) {
            double sg = r ? 1.01 : 0.99;
            m[nm++] = (mw_lbopa_meas){0, x, t0 * sg, ps * t0 * sg + 0.5 * x * (2 - sg)};
            m[nm++] = (mw_lbopa_meas){1, x, t1, ps * t1 + 0.2 * x * sg};
        }
        double tt = fmax(t0, t1);
        m[nm++] = (mw_lbopa_meas){-1, x, tt, ps * tt + 1.02 * 0.7 * x};
    }
    mw_lbopa_profile p;
    char err[160];
    assert_int_equal(mw_lbopa_profile_build(m, nm, 2, ps, &p, err, sizeof err), 0);
    assert_int_equal(p.dev[0].npoints, 3);
    NEAR(p.dev[0].t_s[1], 0.01 * 200 + 0.4, 1e-12);
    NEAR(p.dev[0].b_J_per_unit, 0.5, 0.5 * 0.011); /* +-1 % energies, the fit is within */
    NEAR(p.dev[1].b_J_per_unit, 0.2, 1e-12 + 0.2 * 0.011);
    NEAR(mw_lbopa_f_s(&p.dev[1], 300), 6, 1e-12);
    mw_pareto_front f;
    assert_int_equal(mw_lbopa_front(p.dev, 2, 500, &f), 0);
    mw_pareto_front_free(&f);
    double rel;
    size_t ns;
    assert_int_equal(mw_lbopa_additivity(m, nm, 2, ps, &rel, &ns), 0);
    assert_int_equal(ns, 3);
    NEAR(rel, 0.02 / 1.02, 0.001); /* |s - 1.02 s| / 1.02 s, up to the +-1 % noise */
    mw_lbopa_profile_free(&p);
    /* time not increasing with size */
    mw_lbopa_meas bad[2] = {{0, 100, 2, 300}, {0, 200, 1.5, 400}};
    assert_int_equal(mw_lbopa_profile_build(bad, 2, 1, 0, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "device 0"));
    mw_lbopa_meas none[1] = {{0, 100, 2, 300}};
    assert_int_equal(mw_lbopa_profile_build(none, 1, 2, 0, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "device 1: no measurements"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_three),     cmocka_unit_test(brute_force_grid),
        cmocka_unit_test(partition_sums), cmocka_unit_test(inverse_and_callback),
        cmocka_unit_test(te_running_min), cmocka_unit_test(profile_builder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
