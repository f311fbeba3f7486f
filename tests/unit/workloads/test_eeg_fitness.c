/* EEG workload: the K-means fitness of a feature mask (workloads/eeg/fitness.c) and the
 * synthetic data set (workloads/eeg/data.c) against answers known independently of the code.
 *
 * Fitness, on small data sets built by hand (values chosen to be exact in float):
 * - 1 feature, patterns 0, 1/4, 3/4, 1, two clusters: from every possible pair of initial
 *   centroids K-means reaches {0, 1/4}, {3/4, 1} within two iterations (each pair worked
 *   by hand), so f1 = 1/8 and f2 = 3/4 for every seed; seeds are checked distinct and in
 *   range for 40 seeds.
 * - 2 features, A = (0,0), (1/2,0), (1/4,0) and B = (1,1), (1,1/2), (1,3/4): converges to A, B
 *   from every pair (worked by hand), centroids (1/4, 0), (1, 3/4): f1 = (1/6)/√2, f2 =
 *   (3/4)√2/√2 = 3/4. The same columns repeated inside 130 features (bits 3, 64, 100, 129,
 *   across three mask words, other columns random) give the same values (distances grow
 *   by √2 with d = 4, and the /√d undoes it).
 * - the empty mask → exactly (1, 0); every pattern a centroid → f1 = 0, f2 = the mean of
 *   the 6 pairwise distances 1/4, 3/4, 1, 1/2, 3/4, 1/4 = 7/12.
 * - the empty-cluster rule: patterns 1/2, 1/2, 1, 0 with the two 1/2 as centroids: every
 *   pattern ties and goes to cluster 0, cluster 1 stays empty and keeps 1/2: f1 = 1/4 (the
 *   mean over the non-empty cluster only), f2 = 0.
 * - ties to the lower cluster index: patterns 0, 1/2, 1, 1 with centroids 0 and 1, one
 *   iteration: 1/2 joins the cluster listed first; worked by hand for either order.
 * - eeg_fit_eval with 1, 2, 4 and the default number of threads equals eeg_fit_one bit for
 *   bit on a generated set.
 * Data (data.h): shape, labels p mod C, exactly `informative` informative features, every
 * value in [0, 1] with each feature's minimum exactly 0 and maximum exactly 1; same seed →
 * the same bytes, another seed → different data; impossible shapes → −1 and an empty
 * struct. The class structure: the share of a feature's variance explained by the class
 * (η²) is ≈ (8/3)/(8/3 + 1 + drift) ≈ 0.7 on informative features at separation 2 (class
 * means −2, 0, 2 in noise sds) and ≈ (C−1)/(N−1) ≈ 0.02 elsewhere; both signs s_f occur.
 * On such a set a mask of informative features has lower f1 and higher f2 than a mask of
 * as many non-informative ones. */
#include "../unit.h"

#include <gsl/gsl_rng.h>

#include "../../../workloads/eeg/data.h"
#include "../../../workloads/eeg/fitness.h"

/* |got − want| ≤ tol, with both values in the message (NaN fails) */
#define assert_close(got, want, tol)                                                               \
    do {                                                                                           \
        double got_ = (got), want_ = (want);                                                       \
        if (!(fabs(got_ - want_) <= (tol)))                                                        \
            fail_msg("%s = %.17g, expected %.17g (tolerance %g)", #got, got_, want_,               \
                     (double)(tol));                                                               \
    } while (0)

#define TOL 1e-6 /* distances are accumulated in float */

/* a hand-built data set of p patterns × f features (row-major values), labels 0 */
static void hand_data(eeg_data *d, int p, int f, const float *x)
{
    memset(d, 0, sizeof *d);
    d->patterns = p;
    d->features = f;
    d->classes = 2;
    d->x = malloc((size_t)p * (size_t)f * sizeof *d->x);
    d->label = calloc((size_t)p, sizeof *d->label);
    d->informative = calloc((size_t)f, 1);
    assert_true(d->x && d->label && d->informative);
    memcpy(d->x, x, (size_t)p * (size_t)f * sizeof *d->x);
}

static void set_bit(uint64_t *mask, int f)
{
    mask[f / 64] |= UINT64_C(1) << (f % 64);
}

static void check_seeds(const eeg_fit *fit, int patterns, int clusters)
{
    const int *s = eeg_fit_seeds(fit);
    assert_non_null(s);
    assert_int_equal(eeg_fit_clusters(fit), clusters);
    for (int j = 0; j < clusters; j++) {
        assert_true(s[j] >= 0 && s[j] < patterns);
        for (int k = 0; k < j; k++)
            assert_true(s[j] != s[k]);
    }
}

static void one_feature_two_groups(void **state)
{
    (void)state;
    const float x[] = {0.0f, 0.25f, 0.75f, 1.0f};
    eeg_data d;
    hand_data(&d, 4, 1, x);
    uint64_t mask[1] = {1};
    for (uint64_t s = 0; s < 40; s++) {
        eeg_fit *fit = eeg_fit_new(&d, 2, 3, s);
        assert_non_null(fit);
        check_seeds(fit, 4, 2);
        assert_int_equal(eeg_fit_iters(fit), 3);
        assert_ptr_equal(eeg_fit_data(fit), &d);
        double f1, f2;
        eeg_fit_one(fit, mask, &f1, &f2);
        assert_close(f1, 0.125, TOL);
        assert_close(f2, 0.75, TOL);
        eeg_fit_free(fit);
    }
    eeg_data_free(&d);
}

/* the six patterns of A and B, features a and b */
static const float AB[6][2] = {{0.0f, 0.0f}, {1.0f, 1.0f},  {0.5f, 0.0f},
                               {1.0f, 0.5f}, {0.25f, 0.0f}, {1.0f, 0.75f}};

static void two_features_and_scaling(void **state)
{
    (void)state;
    const double want_f1 = (1.0 / 6.0) / sqrt(2.0), want_f2 = 0.75;
    /* the plain two-feature set */
    float x2[12];
    for (int p = 0; p < 6; p++) {
        x2[2 * p] = AB[p][0];
        x2[2 * p + 1] = AB[p][1];
    }
    eeg_data d2;
    hand_data(&d2, 6, 2, x2);
    /* 130 features: a at 3 and 100, b at 64 and 129, the rest random in [0, 1] */
    enum { F = 130 };
    float *xw = malloc(6 * F * sizeof *xw);
    assert_non_null(xw);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int i = 0; i < 6 * F; i++)
        xw[i] = (float)gsl_rng_uniform(r);
    for (int p = 0; p < 6; p++) {
        xw[p * F + 3] = xw[p * F + 100] = AB[p][0];
        xw[p * F + 64] = xw[p * F + 129] = AB[p][1];
    }
    eeg_data dw;
    hand_data(&dw, 6, F, xw);
    free(xw);

    uint64_t m2[1] = {3}, m4[3] = {0}, m_ab[3] = {0};
    set_bit(m4, 3);
    set_bit(m4, 64);
    set_bit(m4, 100);
    set_bit(m4, 129);
    set_bit(m_ab, 100);
    set_bit(m_ab, 129);
    for (uint64_t s = 0; s < 30; s++) {
        double f1, f2;
        eeg_fit *fit = eeg_fit_new(&d2, 2, 10, s);
        assert_non_null(fit);
        check_seeds(fit, 6, 2);
        assert_int_equal(eeg_fit_words(fit), 1);
        eeg_fit_one(fit, m2, &f1, &f2);
        assert_close(f1, want_f1, TOL);
        assert_close(f2, want_f2, TOL);
        eeg_fit_free(fit);

        fit = eeg_fit_new(&dw, 2, 10, s);
        assert_non_null(fit);
        check_seeds(fit, 6, 2);
        assert_int_equal(eeg_fit_words(fit), 3);
        eeg_fit_one(fit, m4, &f1, &f2);
        assert_close(f1, want_f1, TOL);
        assert_close(f2, want_f2, TOL);
        eeg_fit_one(fit, m_ab, &f1, &f2);
        assert_close(f1, want_f1, TOL);
        assert_close(f2, want_f2, TOL);
        eeg_fit_free(fit);
    }
    gsl_rng_free(r);
    eeg_data_free(&d2);
    eeg_data_free(&dw);
}

static void empty_mask_and_all_centroids(void **state)
{
    (void)state;
    const float x[] = {0.0f, 0.25f, 0.75f, 1.0f};
    eeg_data d;
    hand_data(&d, 4, 1, x);
    uint64_t none[1] = {0}, one[1] = {1};
    double f1, f2;
    for (int iters = 0; iters <= 4; iters += 4) {
        eeg_fit *fit = eeg_fit_new(&d, 4, iters, 5);
        assert_non_null(fit);
        check_seeds(fit, 4, 4); /* a permutation of all patterns */
        eeg_fit_one(fit, none, &f1, &f2);
        assert_true(f1 == 1.0 && f2 == 0.0);
        eeg_fit_one(fit, one, &f1, &f2);
        assert_close(f1, 0.0, TOL);
        assert_close(f2, 7.0 / 12.0, TOL);
        eeg_fit_free(fit);
    }
    eeg_fit *fit = eeg_fit_new(&d, 2, 3, 1);
    assert_non_null(fit);
    eeg_fit_one(fit, none, &f1, &f2);
    assert_true(f1 == 1.0 && f2 == 0.0);
    eeg_fit_free(fit);
    /* bad arguments */
    assert_null(eeg_fit_new(&d, 0, 3, 1));
    assert_null(eeg_fit_new(&d, 5, 3, 1));
    assert_null(eeg_fit_new(&d, 2, -1, 1));
    assert_null(eeg_fit_new(NULL, 2, 3, 1));
    eeg_data_free(&d);
}

/* a seed whose initial centroids are the patterns {a, b} (in any order), or fail */
static eeg_fit *fit_with_seeds(const eeg_data *d, int iters, int a, int b)
{
    for (uint64_t s = 0; s < 2000; s++) {
        eeg_fit *fit = eeg_fit_new(d, 2, iters, s);
        assert_non_null(fit);
        check_seeds(fit, d->patterns, 2);
        const int *k = eeg_fit_seeds(fit);
        if ((k[0] == a && k[1] == b) || (k[0] == b && k[1] == a)) return fit;
        eeg_fit_free(fit);
    }
    fail_msg("no seed in 0 … 1999 picks patterns %d and %d", a, b);
    return NULL;
}

static void empty_cluster_keeps_centroid(void **state)
{
    (void)state;
    const float x[] = {0.5f, 0.5f, 1.0f, 0.0f};
    eeg_data d;
    hand_data(&d, 4, 1, x);
    uint64_t mask[1] = {1};
    for (int iters = 1; iters <= 5; iters += 4) {
        eeg_fit *fit = fit_with_seeds(&d, iters, 0, 1);
        double f1, f2;
        eeg_fit_one(fit, mask, &f1, &f2);
        /* cluster 0 = everything around 1/2: distances 0, 0, 1/2, 1/2; cluster 1 empty at
         * 1/2. Counting the empty cluster would give 1/8; resetting it to 0 would give
         * f1 = 1/12, f2 = 1/2. */
        assert_close(f1, 0.25, TOL);
        assert_close(f2, 0.0, TOL);
        eeg_fit_free(fit);
    }
    eeg_data_free(&d);
}

static void ties_to_lower_cluster(void **state)
{
    (void)state;
    const float x[] = {0.0f, 0.5f, 1.0f, 1.0f};
    eeg_data d;
    hand_data(&d, 4, 1, x);
    uint64_t mask[1] = {1};
    eeg_fit *fit = NULL;
    for (uint64_t s = 0; s < 2000 && !fit; s++) {
        fit = eeg_fit_new(&d, 2, 1, s);
        assert_non_null(fit);
        const int *k = eeg_fit_seeds(fit);
        int lo = k[0] < k[1] ? k[0] : k[1], hi = k[0] < k[1] ? k[1] : k[0];
        if (!(lo == 0 && hi >= 2)) {
            eeg_fit_free(fit);
            fit = NULL;
        }
    }
    assert_non_null(fit);
    double f1, f2;
    eeg_fit_one(fit, mask, &f1, &f2);
    if (eeg_fit_seeds(fit)[0] == 0) {
        /* centroids 0, 1: 1/2 ties → cluster 0 = {0, 1/2} → 1/4; cluster 1 = {1, 1} → 1.
         * Final: 1/2 stays (1/4 < 1/2). f1 = ((1/4 + 1/4)/2 + 0)/2, f2 = 3/4. (Ties to the
         * higher index would give f1 = 1/9, f2 = 5/6.) */
        assert_close(f1, 0.125, TOL);
        assert_close(f2, 0.75, TOL);
    } else {
        /* centroids 1, 0: 1/2 ties → cluster 0 = {1/2, 1, 1} → 5/6; cluster 1 = {0}.
         * Final: 1/2 stays (1/3 < 1/2). f1 = ((1/3 + 1/6 + 1/6)/3 + 0)/2 = 1/9, f2 = 5/6. */
        assert_close(f1, 1.0 / 9.0, TOL);
        assert_close(f2, 5.0 / 6.0, TOL);
    }
    eeg_fit_free(fit);
    eeg_data_free(&d);
}

static void threads_match_one(void **state)
{
    (void)state;
    eeg_data d;
    assert_int_equal(eeg_data_synth(&d, 60, 300, 3, 30, 1.5, 17), 0);
    eeg_fit *fit = eeg_fit_new(&d, 3, 5, 4);
    assert_non_null(fit);
    const int w = eeg_fit_words(fit), n = 23;
    assert_int_equal(w, 5);
    uint64_t *masks = calloc((size_t)n * (size_t)w, sizeof *masks);
    assert_non_null(masks);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int i = 0; i < n; i++) {
        double density = i == 0 ? 0.0 : i == 1 ? 1.0 : 0.02 + 0.4 * gsl_rng_uniform(r);
        for (int f = 0; f < 300; f++)
            if (gsl_rng_uniform(r) < density) set_bit(masks + (size_t)i * (size_t)w, f);
    }
    double one1[23], one2[23], e1[23], e2[23];
    for (int i = 0; i < n; i++)
        eeg_fit_one(fit, masks + (size_t)i * (size_t)w, &one1[i], &one2[i]);
    assert_true(one1[0] == 1.0 && one2[0] == 0.0);
    const int threads[] = {1, 2, 4, 0};
    for (int t = 0; t < 4; t++) {
        memset(e1, 0xff, sizeof e1);
        memset(e2, 0xff, sizeof e2);
        eeg_fit_eval(fit, masks, n, e1, e2, threads[t]);
        assert_memory_equal(e1, one1, sizeof e1);
        assert_memory_equal(e2, one2, sizeof e2);
    }
    for (int i = 0; i < n; i++)
        assert_true(one1[i] >= 0 && one1[i] <= 1 && one2[i] >= 0 && one2[i] <= 1);
    gsl_rng_free(r);
    free(masks);
    eeg_fit_free(fit);
    eeg_data_free(&d);
}

/* ---- the data set ---------------------------------------------------------------------- */

static void data_shape_and_range(void **state)
{
    (void)state;
    enum { P = 50, F = 130, C = 3, I = 17 };
    eeg_data d;
    assert_int_equal(eeg_data_synth(&d, P, F, C, I, 2.0, 99), 0);
    assert_int_equal(d.patterns, P);
    assert_int_equal(d.features, F);
    assert_int_equal(d.classes, C);
    assert_int_equal(d.n_informative, I);
    int inf = 0;
    for (int f = 0; f < F; f++) {
        assert_true(d.informative[f] == 0 || d.informative[f] == 1);
        inf += d.informative[f];
    }
    assert_int_equal(inf, I);
    for (int p = 0; p < P; p++)
        assert_int_equal(d.label[p], p % C);
    for (int f = 0; f < F; f++) {
        float lo = 2, hi = -1;
        for (int p = 0; p < P; p++) {
            float v = d.x[(size_t)p * F + (size_t)f];
            assert_true(v >= 0.0f && v <= 1.0f);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        assert_true(lo == 0.0f && hi == 1.0f);
    }
    eeg_data_free(&d);

    /* the edges: no informative feature, all informative, two patterns */
    assert_int_equal(eeg_data_synth(&d, 10, 5, 2, 0, 2.0, 1), 0);
    assert_int_equal(d.n_informative, 0);
    eeg_data_free(&d);
    assert_int_equal(eeg_data_synth(&d, 2, 5, 2, 5, 2.0, 1), 0);
    for (int f = 0; f < 5; f++)
        assert_int_equal(d.informative[f], 1);
    eeg_data_free(&d);
}

static void data_bad_shapes(void **state)
{
    (void)state;
    const int bad[][4] = {
        {2, 10, 3, 1},  /* patterns < classes */
        {10, 10, 1, 1}, /* classes < 2 */
        {10, 0, 2, 0},  /* no features */
        {10, 10, 2, 11} /* informative > features */,
        {10, 10, 2, -1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        eeg_data d;
        memset(&d, 0x5a, sizeof d);
        assert_int_equal(eeg_data_synth(&d, bad[i][0], bad[i][1], bad[i][2], bad[i][3], 2.0, 1),
                         -1);
        assert_null(d.x);
        assert_null(d.label);
        assert_null(d.informative);
        assert_int_equal(d.patterns, 0);
        eeg_data_free(&d); /* harmless on an empty struct */
    }
}

static void data_deterministic(void **state)
{
    (void)state;
    enum { P = 40, F = 100, C = 3, I = 10 };
    eeg_data a, b, c;
    assert_int_equal(eeg_data_synth(&a, P, F, C, I, 2.0, 12345), 0);
    assert_int_equal(eeg_data_synth(&b, P, F, C, I, 2.0, 12345), 0);
    assert_int_equal(eeg_data_synth(&c, P, F, C, I, 2.0, 12346), 0);
    assert_memory_equal(a.x, b.x, (size_t)P * F * sizeof *a.x);
    assert_memory_equal(a.label, b.label, (size_t)P * sizeof *a.label);
    assert_memory_equal(a.informative, b.informative, F);
    assert_true(memcmp(a.x, c.x, (size_t)P * F * sizeof *a.x) != 0);
    assert_true(memcmp(a.informative, c.informative, F) != 0);
    /* seeds that differ only above bit 32 */
    eeg_data e;
    assert_int_equal(eeg_data_synth(&e, P, F, C, I, 2.0, 12345 + (UINT64_C(1) << 40)), 0);
    assert_true(memcmp(a.x, e.x, (size_t)P * F * sizeof *a.x) != 0);
    eeg_data_free(&a);
    eeg_data_free(&b);
    eeg_data_free(&c);
    eeg_data_free(&e);
}

/* share of feature f's variance explained by the class; the signed difference of the
 * means of the last and the first class into *diff */
static double eta2(const eeg_data *d, int f, double *diff)
{
    double mean[16] = {0}, all = 0, ss_tot = 0, ss_between = 0;
    int n[16] = {0};
    for (int p = 0; p < d->patterns; p++) {
        double v = d->x[(size_t)p * (size_t)d->features + (size_t)f];
        mean[d->label[p]] += v;
        n[d->label[p]]++;
        all += v;
    }
    all /= d->patterns;
    for (int c = 0; c < d->classes; c++) {
        mean[c] /= n[c];
        ss_between += n[c] * (mean[c] - all) * (mean[c] - all);
    }
    for (int p = 0; p < d->patterns; p++) {
        double v = d->x[(size_t)p * (size_t)d->features + (size_t)f] - all;
        ss_tot += v * v;
    }
    *diff = mean[d->classes - 1] - mean[0];
    return ss_between / ss_tot;
}

static void data_class_structure(void **state)
{
    (void)state;
    enum { P = 90, F = 200, C = 3, I = 20 };
    for (uint64_t seed = 1; seed <= 3; seed++) {
        eeg_data d;
        assert_int_equal(eeg_data_synth(&d, P, F, C, I, 2.0, seed), 0);
        double min_inf = 1, max_non = 0;
        int pos = 0, neg = 0;
        for (int f = 0; f < F; f++) {
            double diff, e = eta2(&d, f, &diff);
            if (d.informative[f]) {
                min_inf = fmin(min_inf, e);
                pos += diff > 0;
                neg += diff < 0;
            } else {
                max_non = fmax(max_non, e);
            }
        }
        print_message("seed %d: eta^2 informative >= %.2f, non-informative <= %.3f; signs "
                      "+%d -%d\n",
                      (int)seed, min_inf, max_non, pos, neg);
        /* η² ≈ 0.7 on informative features; elsewhere F(2, 87): η² > 0.25 has p ≈ 1e-6 */
        assert_true(min_inf > 0.4);
        assert_true(max_non < 0.25);
        assert_true(pos > 0 && neg > 0);

        /* masks of the first 20 informative and 20 non-informative features */
        eeg_fit *fit = eeg_fit_new(&d, C, 10, seed);
        assert_non_null(fit);
        const int w = eeg_fit_words(fit);
        uint64_t *mi = calloc((size_t)w, sizeof *mi), *mn = calloc((size_t)w, sizeof *mn);
        assert_true(mi && mn);
        int ci = 0, cn = 0;
        for (int f = 0; f < F; f++) {
            if (d.informative[f] && ci < I) {
                set_bit(mi, f);
                ci++;
            } else if (!d.informative[f] && cn < I) {
                set_bit(mn, f);
                cn++;
            }
        }
        double i1, i2, n1, n2;
        eeg_fit_one(fit, mi, &i1, &i2);
        eeg_fit_one(fit, mn, &n1, &n2);
        print_message("seed %d: informative f1 %.4f f2 %.4f; non-informative f1 %.4f f2 "
                      "%.4f\n",
                      (int)seed, i1, i2, n1, n2);
        assert_true(i1 < n1);
        assert_true(i2 > n2);
        free(mi);
        free(mn);
        eeg_fit_free(fit);
        eeg_data_free(&d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_feature_two_groups),
        cmocka_unit_test(two_features_and_scaling),
        cmocka_unit_test(empty_mask_and_all_centroids),
        cmocka_unit_test(empty_cluster_keeps_centroid),
        cmocka_unit_test(ties_to_lower_cluster),
        cmocka_unit_test(threads_match_one),
        cmocka_unit_test(data_shape_and_range),
        cmocka_unit_test(data_bad_shapes),
        cmocka_unit_test(data_deterministic),
        cmocka_unit_test(data_class_structure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
