/* The alignment cross-check against in-band power (models/inband_align.c) on traces whose
 * offset is set by construction: an in-band power stepping every 100 ms to random levels,
 * and 250 ms wall windows holding 80 W + 1.3 x that power over the window shifted by a known
 * offset (+37 ms, -120 ms), plus 0.5 W of noise: the estimate is within 2 ms of it, its
 * standard error small, the fit's base and gain those put in. An offset past the search
 * range is refused (peak at the edge), and so is a run too short for the range. */
#include "../unit.h"

#include "inband_align.h"

#define MS 1000000LL
#define SRC_N 600 /* 60 s of 100 ms windows */

static mw_energy_window src_w[SRC_N];
static mw_energy_trace src;

/* a standard normal from rand (Box-Muller) */
static double gauss(void)
{
    double u = (rand() + 1.0) / (RAND_MAX + 2.0), v = (rand() + 1.0) / (RAND_MAX + 2.0);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void make_src(void)
{
    srand(23);
    for (int k = 0; k < SRC_N; k++)
        src_w[k] = (mw_energy_window){k * 100 * MS, (k + 1) * 100 * MS, 20000 + rand() % 100000};
    char err[128];
    assert_int_equal(mw_energy_trace_init(&src, src_w, SRC_N, err, sizeof err), 0);
}

/* wall windows [t0, t1) over [3 s, 57 s) measuring the in-band power of [t0 - d, t1 - d) */
static size_t make_wall(mw_energy_window *w, int64_t d_ns)
{
    size_t n = 0;
    for (int64_t t = 3000 * MS; t < 57000 * MS; t += 250 * MS) {
        double x = (double)mw_energy_span_pj(&src, t - d_ns, t + 250 * MS - d_ns) / (250.0 * MS) * 1e-3;
        w[n++] = (mw_energy_window){t, t + 250 * MS, (int32_t)llround((80 + 1.3 * x + 0.5 * gauss()) * 1000)};
    }
    return n;
}

static void test_offsets(void **state)
{
    make_src();
    mw_energy_window wall[256];
    const int64_t truth[] = {37 * MS, -120 * MS, 0};
    for (int i = 0; i < 3; i++) {
        size_t n = make_wall(wall, truth[i]);
        mw_inband_align_fit f;
        char note[200] = "";
        assert_int_equal(mw_inband_align(wall, n, &src, 1, 2.0, &f, note, sizeof note), 0);
        print_message("truth %+.3f s: %+.4f +- %.4f s, r %.5f, base %.2f W, gain %.4f, %zu windows\n",
                      truth[i] * 1e-9, f.offset_s, f.sigma_s, f.correlation, f.base_w, f.gain_w,
                      f.windows);
        assert_true(fabs(f.offset_s - truth[i] * 1e-9) < 0.002);
        assert_true(isfinite(f.sigma_s) && f.sigma_s < 0.005);
        assert_true(f.correlation > 0.99);
        assert_float_equal(f.gain_w, 1.3, 0.02);
        assert_float_equal(f.base_w, 80, 1.5);
        assert_true(f.windows > 190); /* [3, 57) s, every span inside [0, 60) +- 2 s */
    }
    mw_energy_trace_free(&src);
}

static void test_refused(void **state)
{
    make_src();
    mw_energy_window wall[256];
    size_t n = make_wall(wall, 300 * MS);
    mw_inband_align_fit f;
    char note[200] = "";
    assert_int_equal(mw_inband_align(wall, n, &src, 1, 0.1, &f, note, sizeof note), -1);
    assert_non_null(strstr(note, "edge"));
    /* +-30 s: no wall window lies inside the in-band data that far */
    assert_int_equal(mw_inband_align(wall, n, &src, 1, 30, &f, note, sizeof note), -1);
    assert_non_null(strstr(note, "wall windows inside the in-band data"));
    assert_int_equal(mw_inband_align(wall, n, &src, 0, 2, &f, note, sizeof note), -1);
    mw_energy_trace_free(&src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
