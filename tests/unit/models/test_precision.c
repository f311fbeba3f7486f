/* The measurement-precision statistic (models/precision.c, Khaleghzadeh et al.'s methodology:
 * repeat until the mean is within 2.5 % at 95 % confidence) against t intervals computed by hand
 * with t(0.975, 4) = 2.776445 and t(0.975, 1) = 12.706205 from a t table. */
#include <math.h>

#include "../unit.h"

#include "precision.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* {10, 12, 9, 11, 13}: mean 11, deviations -1 1 -2 0 2, sd = sqrt(10/4) = 1.5811388;
 * h = 2.776445 * 1.5811388 / sqrt(5) = 1.963243, 17.85 % of the mean.
 * {100, 101, 99, 100.5, 99.5}: sd = sqrt(2.5/4) = 0.7905694, h = 0.981622, 0.98 %. */
static void precision_by_hand(void **state)
{
    NEAR(mw_precision_t(0.95, 4), 2.776445, 1e-6);
    NEAR(mw_precision_t(0.95, 1), 12.706205, 1e-6);
    const double a[] = {10, 12, 9, 11, 13}, b[] = {100, 101, 99, 100.5, 99.5};
    mw_precision p;
    assert_int_equal(mw_precision_check(a, 5, 0.95, 0.025, 2, 0, &p), 0);
    NEAR(p.mean, 11, 1e-12);
    NEAR(p.half_width, 1.963243, 1e-6);
    NEAR(p.rel, 1.963243 / 11, 1e-7);
    assert_int_equal(p.verdict, MW_PRECISION_MORE);
    assert_int_equal(mw_precision_check(a, 5, 0.95, 0.20, 2, 0, &p), 0);
    assert_int_equal(p.verdict, MW_PRECISION_REACHED);
    assert_int_equal(mw_precision_check(a, 5, 0.95, 0.025, 2, 5, &p), 0);
    assert_int_equal(p.verdict, MW_PRECISION_MAX_RUNS);
    assert_int_equal(mw_precision_check(b, 5, 0.95, 0.025, 2, 0, &p), 0);
    NEAR(p.half_width, 0.981622, 1e-6);
    assert_int_equal(p.verdict, MW_PRECISION_REACHED);
    assert_int_equal(mw_precision_check(b, 5, 0.95, 0.025, 6, 0, &p), 0);
    assert_int_equal(p.verdict, MW_PRECISION_MORE); /* fewer than min_runs */
    assert_int_equal(mw_precision_check(b, 1, 0.95, 0.025, 2, 0, &p), 0);
    assert_int_equal(p.verdict, MW_PRECISION_MORE);
    assert_true(isfinite(p.rel));
    const double nan_in[] = {1, NAN};
    assert_int_equal(mw_precision_check(nan_in, 2, 0.95, 0.025, 2, 0, &p), -1);
    /* N = 3: 4.302653 * 0.7905694 / sqrt(3) = 1.964 <= 2.5; N = 2: 7.10 > 2.5 */
    assert_int_equal(mw_precision_runs_needed(100, 0.7905694, 0.95, 0.025, 100), 3);
    assert_int_equal(mw_precision_runs_needed(100, 0, 0.95, 0.025, 100), 2);
    assert_int_equal(mw_precision_runs_needed(0, 1, 0.95, 0.025, 50), 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(precision_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
