/* The statistical tests (models/stats.c) against values computed by hand, quoted from
 * textbooks and R's documentation, or counted by brute force:
 *  - exact KS and Mann–Whitney p on two fully separated samples of 5: 2 of the C(10,5) =
 *    252 equally likely interleavings are as extreme, p = 2/252 = 0.0079365 (the 0.008 of
 *    Escobar et al. Table 6);
 *  - exact KS and Mann–Whitney p of random samples of sizes (5,5), (4,7), (3,9), (6,6)
 *    equal the fraction of all C(N, na) splits of the pooled values that are as extreme,
 *    enumerated here;
 *  - Mann–Whitney on Hollander & Wolfe (1973) p. 27–28, the example of R's ?wilcox.test:
 *    W = 35, one-sided p = 0.1272, so two-sided 0.2544 (= 2 × 382/3003 by enumeration);
 *  - Mann–Whitney with ties, normal approximation worked by hand below;
 *  - Kruskal–Wallis: two separated groups of 5, H = 6.8182 (by hand), p = 0.0090 (Escobar et al.
 *    Table 6's 0.009); Hollander & Wolfe (1973) p. 116, R's ?kruskal.test example: H =
 *    0.77143, df 2, p = 0.68; a tied example worked by hand below;
 *  - the Kolmogorov distribution at λ = 0.5 and 1 by hand, and its tabulated 10 %, 5 %, 1 %
 *    critical values 1.2238, 1.3581, 1.6276 (Smirnov 1948);
 *  - the asymptotic KS p for samples whose D is known by construction;
 *  - a Student-t interval by hand with t(0.975, 4) = 2.776445 from a t table. */
#include "../unit.h"

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "stats.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void ks_mw_separated(void **state)
{
    double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
    mw_test t;
    assert_int_equal(mw_stats_ks2(a, 5, b, 5, &t), 0);
    NEAR(t.statistic, 1, 1e-15);
    NEAR(t.p, 2.0 / 252, 1e-12);
    NEAR(t.p, 0.0079365, 1e-7);
    assert_int_equal(t.exact, 1);
    assert_int_equal(mw_stats_mann_whitney(a, 5, b, 5, &t), 0);
    NEAR(t.statistic, 0, 0); /* no a above any b */
    NEAR(t.p, 2.0 / 252, 1e-12);
    assert_int_equal(t.exact, 1);
    assert_int_equal(mw_stats_mann_whitney(b, 5, a, 5, &t), 0);
    NEAR(t.statistic, 25, 0);
    NEAR(t.p, 2.0 / 252, 1e-12);
    /* identical order statistics can't tie across samples here: interleaved perfectly */
    double c[] = {1, 3, 5, 7, 9}, d[] = {2, 4, 6, 8, 10};
    assert_int_equal(mw_stats_ks2(c, 5, d, 5, &t), 0);
    NEAR(t.statistic, 0.2, 1e-15);
    NEAR(t.p, 1, 1e-12); /* D >= 1/5 always: every path leaves the diagonal */
}

/* ---- brute force over every split of the pooled ranks ---- */

static double ks_d(const int *in_a, size_t N, size_t na)
{
    /* pooled values 0..N-1 in order; in_a[v]: value v belongs to a */
    size_t i = 0, j = 0, nb = N - na;
    double d = 0;
    for (size_t v = 0; v < N; v++) {
        if (in_a[v])
            i++;
        else
            j++;
        double x = fabs((double)i / (double)na - (double)j / (double)nb);
        if (x > d) d = x;
    }
    return d;
}

static double mw_u(const int *in_a, size_t N)
{
    double u = 0;
    size_t bs = 0;
    for (size_t v = 0; v < N; v++) {
        if (in_a[v])
            u += (double)bs;
        else
            bs++;
    }
    return u;
}

/* Enumerate all subsets of size na of 0..N-1 (N <= 16): p of KS (D >= d) and two-sided MW. */
static void brute(size_t N, size_t na, double d_obs, double u_obs, double *p_ks, double *p_mw)
{
    size_t total = 0, ks = 0, le = 0, ge = 0;
    for (unsigned mask = 0; mask < (1u << N); mask++) {
        if ((size_t)__builtin_popcount(mask) != na) continue;
        int in_a[16];
        for (size_t v = 0; v < N; v++)
            in_a[v] = (mask >> v) & 1;
        total++;
        if (ks_d(in_a, N, na) >= d_obs - 1e-12) ks++;
        double u = mw_u(in_a, N);
        if (u <= u_obs + 1e-9) le++;
        if (u >= u_obs - 1e-9) ge++;
    }
    *p_ks = (double)ks / (double)total;
    double p = 2.0 * (double)(le < ge ? le : ge) / (double)total;
    *p_mw = p > 1 ? 1 : p;
}

static void exact_by_enumeration(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    static const size_t sizes[][2] = {{5, 5}, {4, 7}, {3, 9}, {6, 6}, {7, 2}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int rep = 0; rep < 20; rep++) {
            size_t na = sizes[s][0], nb = sizes[s][1], N = na + nb;
            double a[16], b[16], pool[16];
            for (size_t i = 0; i < na; i++)
                a[i] = 150 + 10 * gsl_rng_uniform(r) + (rep % 3) * 2.0; /* shift some reps */
            for (size_t j = 0; j < nb; j++)
                b[j] = 150 + 10 * gsl_rng_uniform(r);
            /* where each pooled value went */
            memcpy(pool, a, na * sizeof *a);
            memcpy(pool + na, b, nb * sizeof *b);
            size_t idx[16];
            gsl_sort_index(idx, pool, 1, N);
            int in_a[16];
            for (size_t v = 0; v < N; v++)
                in_a[v] = idx[v] < na;
            double p_ks, p_mw;
            brute(N, na, ks_d(in_a, N, na), mw_u(in_a, N), &p_ks, &p_mw);
            mw_test t;
            assert_int_equal(mw_stats_ks2(a, na, b, nb, &t), 0);
            assert_int_equal(t.exact, 1);
            NEAR(t.statistic, ks_d(in_a, N, na), 1e-12);
            if (fabs(t.p - p_ks) > 1e-12)
                fail_msg("KS %zu/%zu rep %d: p %.15g, enumeration %.15g", na, nb, rep, t.p, p_ks);
            assert_int_equal(mw_stats_mann_whitney(a, na, b, nb, &t), 0);
            assert_int_equal(t.exact, 1);
            NEAR(t.statistic, mw_u(in_a, N), 1e-9);
            if (fabs(t.p - p_mw) > 1e-12)
                fail_msg("MW %zu/%zu rep %d: p %.15g, enumeration %.15g", na, nb, rep, t.p, p_mw);
        }
    gsl_rng_free(r);
}

/* Hollander & Wolfe (1973) p. 27-28 (R's ?wilcox.test): permeability constants, W = 35,
 * one-sided p 0.1272; by enumeration 382 of C(15,5) = 3003 splits have U >= 35. */
static void mann_whitney_textbook(void **state)
{
    double x[] = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
    double y[] = {1.15, 0.88, 0.90, 0.74, 1.21};
    mw_test t;
    assert_int_equal(mw_stats_mann_whitney(x, 10, y, 5, &t), 0);
    NEAR(t.statistic, 35, 0);
    assert_int_equal(t.exact, 1);
    NEAR(t.p / 2, 0.1272, 5e-5);
    NEAR(t.p, 2.0 * 382 / 3003, 1e-12);
}

/* Ties: a = {1,2,2,3}, b = {2,3,4,4}. Pooled ranks: 1 -> 1, the three 2s -> 3, the two 3s ->
 * 5.5, the two 4s -> 7.5. R_a = 1+3+3+5.5 = 12.5, U = 12.5 - 10 = 2.5, E[U] = 8. Tie sum
 * (27-3) + (8-2) + (8-2) = 36; var = 16/12 (9 - 36/56) = 11.142857; z = (2.5 - 8 + 0.5) /
 * 3.338092 = -1.497862; p = 2 Phi(-1.497862) = erfc(1.497862 / sqrt 2) = 0.13417. */
static void mann_whitney_ties(void **state)
{
    double a[] = {1, 2, 2, 3}, b[] = {2, 3, 4, 4};
    mw_test t;
    assert_int_equal(mw_stats_mann_whitney(a, 4, b, 4, &t), 0);
    assert_int_equal(t.exact, 0);
    NEAR(t.statistic, 2.5, 0);
    double z = (2.5 - 8 + 0.5) / sqrt(16.0 / 12 * (9 - 36.0 / 56));
    NEAR(z, -1.497862, 1e-6);
    NEAR(t.p, erfc(-z / sqrt(2)), 1e-12);
    NEAR(t.p, 0.13417, 1e-5);
    /* all equal: no evidence, p = 1, U = na nb / 2 */
    double c[] = {5, 5, 5}, d[] = {5, 5};
    assert_int_equal(mw_stats_mann_whitney(c, 3, d, 2, &t), 0);
    NEAR(t.statistic, 3, 0);
    NEAR(t.p, 1, 0);
    /* large samples without ties: normal approximation, no continuity trouble at the mean */
    double big_a[60], big_b[60];
    for (int i = 0; i < 60; i++) {
        big_a[i] = 2 * i;
        big_b[i] = 2 * i + 1;
    }
    assert_int_equal(mw_stats_mann_whitney(big_a, 60, big_b, 60, &t), 0);
    assert_int_equal(t.exact, 0);
    /* U = sum over a_i = 2i of the b's below it (i of them) = 0 + ... + 59 = 1770; mean 1800;
     * sigma^2 = 3600 * 121 / 12 = 36300; z = (1770 - 1800 + 0.5) / 190.525 = -0.154836 */
    NEAR(t.statistic, 1770, 0);
    NEAR(t.p, erfc(29.5 / sqrt(36300.0) / sqrt(2)), 1e-12);
    NEAR(t.p, 0.87695, 1e-5);
}

static void kruskal_wallis(void **state)
{
    mw_test t;
    /* two separated groups of 5: R = 15, 40; H = 12/110 (225/5 + 1600/5) - 33 = 6.818182;
     * chi-square(1) p = erfc(sqrt(H/2)) = 0.009023 (Escobar et al. Table 6: 0.009) */
    double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
    const double *g2[] = {a, b};
    size_t s2[] = {5, 5};
    assert_int_equal(mw_stats_kruskal_wallis(g2, s2, 2, &t), 0);
    NEAR(t.statistic, 75.0 / 11, 1e-12);
    NEAR(t.df, 1, 0);
    NEAR(t.p, erfc(sqrt(t.statistic / 2)), 1e-12);
    NEAR(t.p, 0.0090, 5e-5);
    assert_int_equal(t.exact, 0);

    /* Hollander & Wolfe (1973) p. 116 (R's ?kruskal.test): normal subjects, obstructive
     * airway disease, asbestosis. Ranks: x 4,5,8,9,10 (36), y 3,6,13,14 (36), z 1,2,7,11,12
     * (33): H = 12/210 (1296/5 + 1296/4 + 1089/5) - 45 = 0.771429; df 2: p = exp(-H/2) =
     * 0.68 */
    double x[] = {2.9, 3.0, 2.5, 2.6, 3.2}, y[] = {3.8, 2.7, 4.0, 2.4},
           z[] = {2.8, 3.4, 3.7, 2.2, 2.0};
    const double *g3[] = {x, y, z};
    size_t s3[] = {5, 4, 5};
    assert_int_equal(mw_stats_kruskal_wallis(g3, s3, 3, &t), 0);
    NEAR(t.statistic, 0.77143, 5e-6);
    NEAR(t.statistic, 12.0 / 210 * 801 - 45, 1e-12);
    NEAR(t.df, 2, 0);
    NEAR(t.p, exp(-t.statistic / 2), 1e-12);
    NEAR(t.p, 0.68, 5e-3);

    /* ties: A = {1,2,2,3}, B = {2,3,4,4}, C = {4,5,5,6}. Mid-ranks: 1 -> 1, 2s -> 3, 3s ->
     * 5.5, 4s -> 8, 5s -> 10.5, 6 -> 12; R = 12.5, 24.5, 41 (sum 78). Uncorrected H =
     * 12/156 (156.25 + 600.25 + 1681)/4 - 39 = 7.875; ties 24 + 6 + 24 + 6 = 60, correction
     * 1 - 60/1716 = 0.965035; H = 8.160326; p = exp(-H/2) = 0.016905. */
    double A[] = {1, 2, 2, 3}, B[] = {2, 3, 4, 4}, C[] = {4, 5, 5, 6};
    const double *gt[] = {A, B, C};
    size_t st[] = {4, 4, 4};
    assert_int_equal(mw_stats_kruskal_wallis(gt, st, 3, &t), 0);
    NEAR(t.statistic, 7.875 / (1 - 60.0 / 1716), 1e-12);
    NEAR(t.statistic, 8.160326, 1e-6);
    NEAR(t.p, exp(-t.statistic / 2), 1e-12);
    NEAR(t.p, 0.016905, 1e-6);

    /* everything equal: H = 0, p = 1 (not 0/0) */
    double e1[] = {3, 3}, e2[] = {3, 3, 3};
    const double *ge[] = {e1, e2};
    size_t se[] = {2, 3};
    assert_int_equal(mw_stats_kruskal_wallis(ge, se, 2, &t), 0);
    NEAR(t.statistic, 0, 0);
    NEAR(t.p, 1, 0);
}

static void kolmogorov(void **state)
{
    /* by hand: Q(1) = 2 (e^-2 - e^-8 + e^-18 - ...) = 0.270000; Q(0.5) = 1 - sqrt(2 pi)/0.5
     * (e^(-pi^2/2) + e^(-9 pi^2/2) + ...) = 1 - 5.013257 x 0.0071919 = 0.963945 */
    NEAR(mw_stats_kolmogorov_q(1.0), 2 * (exp(-2) - exp(-8) + exp(-18) - exp(-32)), 1e-12);
    NEAR(mw_stats_kolmogorov_q(0.5), 1 - sqrt(2 * M_PI) / 0.5 * exp(-M_PI * M_PI / 2), 1e-12);
    NEAR(mw_stats_kolmogorov_q(0.5), 0.963945, 1e-6);
    /* tabulated critical values (Smirnov 1948): P(K > c) = 0.10, 0.05, 0.01 */
    NEAR(mw_stats_kolmogorov_q(1.2238), 0.10, 1e-4);
    NEAR(mw_stats_kolmogorov_q(1.3581), 0.05, 1e-4);
    NEAR(mw_stats_kolmogorov_q(1.6276), 0.01, 1e-4);
    /* the two series agree where they meet, and the ends */
    NEAR(mw_stats_kolmogorov_q(1 - 1e-9), mw_stats_kolmogorov_q(1 + 1e-9), 1e-8);
    NEAR(mw_stats_kolmogorov_q(0), 1, 0);
    NEAR(mw_stats_kolmogorov_q(0.05), 1, 1e-12);
    assert_true(mw_stats_kolmogorov_q(10) >= 0 && mw_stats_kolmogorov_q(10) < 1e-80);
}

/* a = 0..119, b = 30.5..129.5 (step 1): na nb = 12,000 > 10,000, asymptotic. F_a >= F_b
 * everywhere, and F_a - F_b is largest at 30: 31/120 - 0 (afterwards F_a gains 1/120 and F_b
 * 1/100 per unit, down to 1 - 0.89 at 119). D = 31/120, lambda = D sqrt(12000/220). */
static void ks_asymptotic(void **state)
{
    double a[120], b[100];
    for (int i = 0; i < 120; i++)
        a[i] = i;
    for (int j = 0; j < 100; j++)
        b[j] = j + 30.5;
    mw_test t;
    assert_int_equal(mw_stats_ks2(a, 120, b, 100, &t), 0);
    assert_int_equal(t.exact, 0);
    NEAR(t.statistic, 31.0 / 120, 1e-15);
    double lam = 31.0 / 120 * sqrt(12000.0 / 220);
    NEAR(t.p, 2 * (exp(-2 * lam * lam) - exp(-8 * lam * lam)), 1e-12);
    NEAR(t.p, 0.0013780, 1e-7);
    /* ties force the asymptotic p even for small samples: {1,2,3} vs {3,4,5}, D = 2/3,
     * lambda = 2/3 sqrt(1.5) = 0.816497 */
    double c[] = {1, 2, 3}, d[] = {3, 4, 5};
    assert_int_equal(mw_stats_ks2(c, 3, d, 3, &t), 0);
    assert_int_equal(t.exact, 0);
    NEAR(t.statistic, 2.0 / 3, 1e-15);
    NEAR(t.p, mw_stats_kolmogorov_q(2.0 / 3 * sqrt(1.5)), 1e-15);
    assert_true(t.p > 0.5 && t.p < 0.55); /* Q(0.8165) = 0.5176 */
}

/* {1,2,3,4,5}: mean 3, s = sqrt(2.5) = 1.581139, s/sqrt(5) = 0.707107, t(0.975, 4) =
 * 2.776445 (t table): 3 -+ 1.963243 = [1.036757, 4.963243]. */
static void t_interval(void **state)
{
    double x[] = {1, 2, 3, 4, 5}, m, lo, hi;
    assert_int_equal(mw_stats_mean_ci(x, 5, 0.95, &m, &lo, &hi), 0);
    NEAR(m, 3, 1e-15);
    NEAR(lo, 3 - 2.776445 * sqrt(0.5), 2e-6);
    NEAR(hi, 4.963243, 2e-6);
    /* 99 %: t(0.995, 4) = 4.604095 */
    assert_int_equal(mw_stats_mean_ci(x, 5, 0.99, &m, &lo, &hi), 0);
    NEAR(hi - m, 4.604095 * sqrt(0.5), 2e-6);
    /* n = 2, {10, 12}: s = sqrt 2, t(0.975, 1) = 12.706205: 11 -+ 12.706205 */
    double y[] = {10, 12};
    assert_int_equal(mw_stats_mean_ci(y, 2, 0.95, &m, &lo, &hi), 0);
    NEAR(hi, 11 + 12.706205, 1e-5);
    /* constant: a zero-width interval */
    double c[] = {7, 7, 7};
    assert_int_equal(mw_stats_mean_ci(c, 3, 0.95, &m, &lo, &hi), 0);
    NEAR(lo, 7, 0);
    NEAR(hi, 7, 0);
}

static void bad_input(void **state)
{
    double a[] = {1, 2}, nan_[] = {1, NAN}, m = -1, lo = -1, hi = -1;
    mw_test t;
    assert_int_equal(mw_stats_ks2(a, 0, a, 2, &t), -1);
    assert_int_equal(mw_stats_ks2(a, 2, nan_, 2, &t), -1);
    assert_int_equal(mw_stats_mann_whitney(a, 2, a, 0, &t), -1);
    assert_int_equal(mw_stats_mann_whitney(nan_, 2, a, 2, &t), -1);
    const double *g[] = {a, a};
    size_t s1[] = {2, 2}, s0[] = {2, 0};
    assert_int_equal(mw_stats_kruskal_wallis(g, s1, 1, &t), -1);
    assert_int_equal(mw_stats_kruskal_wallis(g, s0, 2, &t), -1);
    const double *gn[] = {a, nan_};
    assert_int_equal(mw_stats_kruskal_wallis(gn, s1, 2, &t), -1);
    assert_int_equal(mw_stats_mean_ci(a, 1, 0.95, &m, &lo, &hi), -1);
    assert_int_equal(mw_stats_mean_ci(a, 2, 1.0, &m, &lo, &hi), -1);
    assert_int_equal(mw_stats_mean_ci(a, 2, 0, &m, &lo, &hi), -1);
    assert_int_equal(mw_stats_mean_ci(nan_, 2, 0.95, &m, &lo, &hi), -1);
    NEAR(m, -1, 0); /* untouched */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ks_mw_separated),
        cmocka_unit_test(exact_by_enumeration),
        cmocka_unit_test(mann_whitney_textbook),
        cmocka_unit_test(mann_whitney_ties),
        cmocka_unit_test(kruskal_wallis),
        cmocka_unit_test(kolmogorov),
        cmocka_unit_test(ks_asymptotic),
        cmocka_unit_test(t_interval),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
