/* EEG workload: the final front and its hypervolume (workloads/eeg/hv.c) against answers
 * known independently of the sweep.
 *
 * eeg_hv: sets worked by hand as unions of rectangles [0, 1 − f1] × [0, f2] (one point, two
 * and three non-dominated points, the same with dominated and repeated points and in any
 * order, (0, 1) → 1, points on the axes → 0, clipping of points outside [0, 1]²); random sets
 * (some points outside the square) against (a) the exact area by coordinate compression —
 * every elementary cell between consecutive distinct coordinates is tested against every
 * rectangle, O(n³), no sweep — to 1e-12, and (b) a grid of G × G cell centres, whose error is
 * at most the area of the cells the staircase boundary crosses: a monotone staircase inside
 * the unit square crosses at most 2G + 1 cells, so |grid − exact| ≤ (2G + 1)/G².
 * eeg_front: against brute force (a point is kept when no point dominates it and no earlier
 * point equals it) on hand sets and on random integer-valued sets (many ties and repeats),
 * in increasing f1, and on f1 values one ulp apart (1 − f1 rounds them to the same double,
 * but they are distinct points); the hypervolume of the front equals that of all the points. */
#include "../unit.h"

#include <gsl/gsl_rng.h>

#include "../../../workloads/eeg/hv.h"

#define EPS 1e-12

/* |got − want| ≤ tol, with both values in the message (NaN fails) */
#define assert_close(got, want, tol)                                                               \
    do {                                                                                           \
        double got_ = (got), want_ = (want);                                                       \
        if (!(fabs(got_ - want_) <= (tol)))                                                        \
            fail_msg("%s = %.17g, expected %.17g (tolerance %g)", #got, got_, want_,               \
                     (double)(tol));                                                               \
    } while (0)

static void hv_by_hand(void **state)
{
    (void)state;
    /* one point: [0, 0.75] × [0, 0.5] */
    double a1[] = {0.25}, a2[] = {0.5};
    assert_close(eeg_hv(a1, a2, 1), 0.75 * 0.5, EPS);

    /* two points (0.2, 0.3), (0.5, 0.8): 0.5·0.8 + (0.8 − 0.5)·0.3 */
    double b1[] = {0.2, 0.5}, b2[] = {0.3, 0.8};
    assert_close(eeg_hv(b1, b2, 2), 0.4 + 0.09, EPS);
    double b1r[] = {0.5, 0.2}, b2r[] = {0.8, 0.3};
    assert_close(eeg_hv(b1r, b2r, 2), 0.49, EPS);

    /* three points (0.1, 0.2), (0.4, 0.6), (0.7, 0.9): x = 0.9, 0.6, 0.3;
     * 0.3·0.9 + (0.6 − 0.3)·0.6 + (0.9 − 0.6)·0.2 = 0.27 + 0.18 + 0.06 */
    double c1[] = {0.4, 0.7, 0.1}, c2[] = {0.6, 0.9, 0.2};
    assert_close(eeg_hv(c1, c2, 3), 0.51, EPS);
    /* + dominated (0.5, 0.5), (0.7, 0.2), (0.4, 0.6) again, (0.1, 0.2) again, (1, 1), (0, 0) */
    double d1[] = {0.5, 0.4, 0.7, 0.1, 0.7, 0.4, 0.1, 1.0, 0.0},
           d2[] = {0.5, 0.6, 0.2, 0.2, 0.9, 0.6, 0.2, 1.0, 0.0};
    assert_close(eeg_hv(d1, d2, 9), 0.51, EPS);

    /* the ideal point covers the square; points on the axes cover nothing */
    double e1[] = {0.0}, e2[] = {1.0};
    assert_close(eeg_hv(e1, e2, 1), 1.0, EPS);
    double f1[] = {1.0, 0.3, 1.0}, f2[] = {0.7, 0.0, 0.0};
    assert_close(eeg_hv(f1, f2, 3), 0.0, EPS);
    assert_close(eeg_hv(f1, f2, 0), 0.0, EPS);
    /* a point dominating all others alone decides */
    double g1[] = {0.3, 0.0, 0.6}, g2[] = {0.9, 1.0, 0.2};
    assert_close(eeg_hv(g1, g2, 3), 1.0, EPS);
}

static void hv_clipping(void **state)
{
    (void)state;
    double a1[] = {-0.5}, a2[] = {1.5};
    assert_close(eeg_hv(a1, a2, 1), 1.0, EPS);
    double b1[] = {0.25}, b2[] = {2.0}; /* [0, 0.75] × [0, 1] */
    assert_close(eeg_hv(b1, b2, 1), 0.75, EPS);
    double c1[] = {-1.0}, c2[] = {0.5}; /* [0, 1] × [0, 0.5] */
    assert_close(eeg_hv(c1, c2, 1), 0.5, EPS);
    double d1[] = {1.5, 0.5, 0.5}, d2[] = {0.5, -0.2, -3.0};
    assert_close(eeg_hv(d1, d2, 3), 0.0, EPS);
    /* clipped points mixed with one inside: (−1, 0.25) → [0,1]×[0,0.25]; (0.5, 0.75) */
    double e1[] = {-1.0, 0.5}, e2[] = {0.25, 0.75};
    assert_close(eeg_hv(e1, e2, 2), 0.5 * 0.75 + 0.5 * 0.25, EPS);
}

static double clip01(double v)
{
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* distinct sorted values of v[0..n) plus 0 into out; returns the count */
static int coords(const double *v, int n, double *out)
{
    int k = 0;
    out[k++] = 0.0;
    for (int i = 0; i < n; i++)
        out[k++] = v[i];
    qsort(out, (size_t)k, sizeof *out, cmp_double);
    int u = 1;
    for (int i = 1; i < k; i++)
        if (out[i] != out[u - 1]) out[u++] = out[i];
    return u;
}

/* exact area of the union by coordinate compression: a cell is covered when one rectangle
 * contains its centre */
static double hv_exact(const double *f1, const double *f2, int n)
{
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *xs = malloc((size_t)(n + 1) * sizeof *xs), *ys = malloc((size_t)(n + 1) * sizeof *ys);
    assert_non_null(x);
    assert_non_null(y);
    assert_non_null(xs);
    assert_non_null(ys);
    for (int i = 0; i < n; i++) {
        x[i] = 1.0 - clip01(f1[i]);
        y[i] = clip01(f2[i]);
    }
    int nx = coords(x, n, xs), ny = coords(y, n, ys);
    double area = 0.0;
    for (int a = 0; a + 1 < nx; a++)
        for (int b = 0; b + 1 < ny; b++) {
            double cx = (xs[a] + xs[a + 1]) / 2, cy = (ys[b] + ys[b + 1]) / 2;
            for (int i = 0; i < n; i++)
                if (cx < x[i] && cy < y[i]) {
                    area += (xs[a + 1] - xs[a]) * (ys[b + 1] - ys[b]);
                    break;
                }
        }
    free(x);
    free(y);
    free(xs);
    free(ys);
    return area;
}

/* share of the G × G cell centres covered */
static double hv_grid(const double *f1, const double *f2, int n, int G)
{
    long covered = 0;
    for (int a = 0; a < G; a++) {
        double cx = (a + 0.5) / G, top = 0.0; /* highest rectangle over this column */
        for (int i = 0; i < n; i++)
            if (cx < 1.0 - clip01(f1[i]) && clip01(f2[i]) > top) top = clip01(f2[i]);
        for (int b = 0; b < G; b++)
            if ((b + 0.5) / G < top) covered++;
    }
    return (double)covered / ((double)G * G);
}

static void hv_random(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 2024);
    enum { TRIALS = 60, NMAX = 40, G = 1000 };
    double f1[NMAX], f2[NMAX], worst_grid = 0;
    const double grid_tol = (2.0 * G + 1) / ((double)G * G);
    for (int t = 0; t < TRIALS; t++) {
        int n = 1 + (int)gsl_rng_uniform_int(r, NMAX);
        for (int i = 0; i < n; i++) {
            if (t % 3 == 0) { /* on a coarse lattice: ties and repeats */
                f1[i] = (double)gsl_rng_uniform_int(r, 9) / 8;
                f2[i] = (double)gsl_rng_uniform_int(r, 9) / 8;
            } else { /* some outside the square */
                f1[i] = -0.2 + 1.4 * gsl_rng_uniform(r);
                f2[i] = -0.2 + 1.4 * gsl_rng_uniform(r);
            }
        }
        double hv = eeg_hv(f1, f2, n), exact = hv_exact(f1, f2, n), grid = hv_grid(f1, f2, n, G);
        assert_close(hv, exact, EPS);
        assert_true(hv >= 0.0 && hv <= 1.0);
        if (fabs(grid - hv) > worst_grid) worst_grid = fabs(grid - hv);
        assert_true(fabs(grid - hv) <= grid_tol);
    }
    print_message("hypervolume vs %d x %d grid: worst |difference| %.2e (bound %.2e)\n", G, G,
                  worst_grid, grid_tol);
    gsl_rng_free(r);
}

/* brute force: i kept when no j dominates it and no earlier j equals it; by increasing f1 */
static int front_brute(const double *f1, const double *f2, int n, int *idx)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int keep = 1;
        for (int j = 0; j < n && keep; j++) {
            if (f1[j] <= f1[i] && f2[j] >= f2[i] && (f1[j] < f1[i] || f2[j] > f2[i])) keep = 0;
            if (j < i && f1[j] == f1[i] && f2[j] == f2[i]) keep = 0;
        }
        if (keep) idx[k++] = i;
    }
    /* insertion sort by f1 (distinct among non-dominated distinct points) */
    for (int a = 1; a < k; a++)
        for (int b = a; b > 0 && f1[idx[b]] < f1[idx[b - 1]]; b--) {
            int t = idx[b];
            idx[b] = idx[b - 1];
            idx[b - 1] = t;
        }
    return k;
}

static void front_by_hand(void **state)
{
    (void)state;
    /* 0:(0.5,0.5) dominated by 1; 1:(0.4,0.6); 2:(0.7,0.9); 3:(0.1,0.2); 4:(0.4,0.6) repeat
     * of 1; 5:(0.7,0.2) dominated; 6:(0.1,0.2) repeat of 3 */
    double f1[] = {0.5, 0.4, 0.7, 0.1, 0.4, 0.7, 0.1}, f2[] = {0.5, 0.6, 0.9, 0.2, 0.6, 0.2, 0.2};
    int idx[7];
    assert_int_equal(eeg_front(f1, f2, 7, idx), 3);
    assert_int_equal(idx[0], 3);
    assert_int_equal(idx[1], 1);
    assert_int_equal(idx[2], 2);
    /* all the same point: one, the first */
    double g1[] = {0.3, 0.3, 0.3}, g2[] = {0.3, 0.3, 0.3};
    assert_int_equal(eeg_front(g1, g2, 3, idx), 1);
    assert_int_equal(idx[0], 0);
    /* same f1, different f2: only the higher f2 */
    double h1[] = {0.3, 0.3, 0.3}, h2[] = {0.1, 0.5, 0.5};
    assert_int_equal(eeg_front(h1, h2, 3, idx), 1);
    assert_int_equal(idx[0], 1);
    /* same f2, different f1: only the lower f1 */
    double k1[] = {0.6, 0.2, 0.4}, k2[] = {0.5, 0.5, 0.5};
    assert_int_equal(eeg_front(k1, k2, 3, idx), 1);
    assert_int_equal(idx[0], 1);
    assert_int_equal(eeg_front(k1, k2, 0, idx), 0);
}

/* f1 values one ulp apart (1 − f1 rounds them to the same double) are still distinct */
static void front_close_f1(void **state)
{
    (void)state;
    double lo = 0.1, hi = nextafter(0.1, 1.0);
    int idx[2];
    /* (hi, 0.7) and (lo, 0.5): neither dominates the other; increasing f1: lo first */
    double a1[] = {hi, lo}, a2[] = {0.7, 0.5};
    assert_int_equal(eeg_front(a1, a2, 2, idx), 2);
    assert_int_equal(idx[0], 1);
    assert_int_equal(idx[1], 0);
    /* (hi, 0.5) is dominated by (lo, 0.5) */
    double b1[] = {hi, lo}, b2[] = {0.5, 0.5};
    assert_int_equal(eeg_front(b1, b2, 2, idx), 1);
    assert_int_equal(idx[0], 1);
}

static void front_random(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 77);
    enum { TRIALS = 300, NMAX = 120 };
    double f1[NMAX], f2[NMAX], s1[NMAX], s2[NMAX];
    int idx[NMAX], want[NMAX];
    for (int t = 0; t < TRIALS; t++) {
        int n = 1 + (int)gsl_rng_uniform_int(r, NMAX);
        unsigned long L = 2 + gsl_rng_uniform_int(r, 12); /* lattice 0 … L−1 over L−1 */
        for (int i = 0; i < n; i++) {
            f1[i] = (double)gsl_rng_uniform_int(r, L) / (double)(L - 1);
            f2[i] = (double)gsl_rng_uniform_int(r, L) / (double)(L - 1);
        }
        int k = eeg_front(f1, f2, n, idx), kw = front_brute(f1, f2, n, want);
        assert_int_equal(k, kw);
        for (int i = 0; i < k; i++)
            assert_int_equal(idx[i], want[i]);
        for (int i = 0; i < k; i++) {
            s1[i] = f1[idx[i]];
            s2[i] = f2[idx[i]];
        }
        assert_close(eeg_hv(s1, s2, k), eeg_hv(f1, f2, n), EPS);
    }
    gsl_rng_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hv_by_hand),     cmocka_unit_test(hv_clipping),
        cmocka_unit_test(hv_random),      cmocka_unit_test(front_by_hand),
        cmocka_unit_test(front_close_f1), cmocka_unit_test(front_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
