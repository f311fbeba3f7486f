/* The lanes of mw plot's trace and timeline (plots/plot_lanes.c): no class is ever drawn
 * beyond its share of the time, against answers known by construction.
 *
 * A lane of 26.7 s (the LAMMPS rank): 250 barriers of 1 ms (0.25 s in all) at
 * random times, computation around them, and one exact 4 s span of a marked phase. Then:
 * the area the wait rows draw (width x share, summed) is the barriers' 0.25 s (to a ns per
 * row); in every bin the drawn shares add up to at most 1 and no class's share exceeds its
 * time in the bin; the 4 s span is one row of share 1 with its exact ends; and boxes of two
 * lanes never mix. */
#include "../unit.h"

#include <gsl/gsl_rng.h>

#include "../../../plots/plot_lanes.h"

#define SEC 1000000000LL
#define MS 1000000LL

static mw_plot_lane_box b[4096];

static double drawn_s(const mw_plot_lane_rows *r, int lane)
{
    double s = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->r[i].lane == lane) s += (double)(r->r[i].t1 - r->r[i].t0) * r->r[i].share / 1e9;
    return s;
}

static void shares(void **state)
{
    const int64_t hi = 26700 * MS;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 21);
    size_t n = 0;
    int64_t t[250];
    for (int i = 0; i < 250; i++) /* distinct 1 ms slots, not in [1 s, 5 s) */
        do
            t[i] = (int64_t)gsl_rng_uniform_int(rng, 26699) * MS;
        while (t[i] >= 1 * SEC - MS && t[i] < 5 * SEC);
    gsl_rng_free(rng);
    /* unique slots: a repeated slot is one barrier */
    double wait_s = 0;
    for (int i = 0; i < 250; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= t[j] == t[i];
        if (dup) continue;
        b[n++] = (mw_plot_lane_box){MW_PLOT_CLS_WAIT, 1, t[i], t[i] + MS};
        wait_s += 0.001;
    }
    b[n++] = (mw_plot_lane_box){MW_PLOT_CLS_COMPUTE, 1, 1 * SEC, 5 * SEC};
    /* lane 2: all wait, one long span */
    b[n++] = (mw_plot_lane_box){MW_PLOT_CLS_WAIT, 2, 0, hi};
    mw_plot_lane_rows rows[MW_PLOT_NCLS_ALL] = {{0}};
    mw_plot_lanes_make(b, n, 0, hi, rows);
    double w1 = drawn_s(&rows[MW_PLOT_CLS_WAIT], 1);
    print_message("lane 1: %.6f s of barriers drawn for %.3f s (of 26.7 s)\n", w1, wait_s);
    assert_true(fabs(w1 - wait_s) < 1e-6 * (double)rows[MW_PLOT_CLS_WAIT].n + 1e-9);
    assert_true(fabs(drawn_s(&rows[MW_PLOT_CLS_WAIT], 2) - 26.7) < 1e-9);
    /* the marked span: one exact row */
    size_t exact = 0;
    for (size_t i = 0; i < rows[MW_PLOT_CLS_COMPUTE].n; i++) {
        const mw_plot_lane_row *x = &rows[MW_PLOT_CLS_COMPUTE].r[i];
        assert_int_equal(x->lane, 1);
        if (x->t0 == 1 * SEC && x->t1 == 5 * SEC && x->share == 1 && x->off == 0) exact++;
    }
    assert_int_equal(exact, 1);
    /* per bin of lane 1: the stacked bars within the lane, each no more than its time */
    const double bin = (double)hi / MW_PLOT_LANE_BINS;
    for (long k = 0; k < MW_PLOT_LANE_BINS; k++) {
        double lo = (double)k * bin + bin / 2, top = 0, wait = 0;
        for (size_t i = 0; i < rows[MW_PLOT_CLS_WAIT].n; i++) {
            const mw_plot_lane_row *x = &rows[MW_PLOT_CLS_WAIT].r[i];
            if (x->lane != 1 || (double)x->t0 > lo || (double)x->t1 <= lo || x->share == 1) continue;
            wait += x->share;
            if (x->off + x->share > top) top = x->off + x->share;
        }
        double truth = 0; /* the barriers' time in bin k */
        for (size_t i = 0; i < n; i++)
            if (b[i].lane == 1 && b[i].cls == MW_PLOT_CLS_WAIT) {
                double a = fmax((double)b[i].t0, (double)k * bin);
                double e = fmin((double)b[i].t1, (double)(k + 1) * bin);
                if (e > a) truth += (e - a) / bin;
            }
        if (fabs(wait - truth) > 1e-9) fail_msg("bin %ld: wait drawn %.6f, time %.6f", k, wait, truth);
        assert_true(top <= 1 + 1e-12);
    }
    for (int k = 0; k < MW_PLOT_NCLS_ALL; k++)
        free(rows[k].r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
