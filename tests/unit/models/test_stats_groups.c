/* Groups of runs compared (models/stats_groups.c), against figures worked by hand and the
 * textbook values of test_stats.c:
 *  - {1..5} and {6..10}: means 3 and 8, sd sqrt(2.5) = 1.5811388, the 95 % interval 3 +-
 *    t(0.975, 4) sd / sqrt(5) = 3 +- 2.776445 x 0.7071068 = 3 +- 1.9632432; KS D = 1 and
 *    Mann-Whitney U = 0, both exact p = 2/252; Kruskal-Wallis H = 6.8182, p = 0.0090;
 *  - a group of one value has a mean but neither sd nor interval;
 *  - three groups: Kruskal-Wallis only. */
#include "../unit.h"

#include "stats_groups.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void two_separated_groups(void **state)
{
    const double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
    mw_stats_group g[2] = {{.values = a, .n = 5}, {.values = b, .n = 5}};
    mw_stats_comparison c;
    mw_stats_compare_groups(g, 2, 0.95, &c);
    NEAR(g[0].mean, 3, 1e-12);
    NEAR(g[1].mean, 8, 1e-12);
    assert_true(g[0].has_sd && g[0].has_ci);
    NEAR(g[0].sd, 1.5811388, 1e-7);
    NEAR(g[0].lo, 3 - 1.9632432, 1e-6);
    NEAR(g[0].hi, 3 + 1.9632432, 1e-6);
    assert_true(c.has_two && c.has_kw);
    NEAR(c.ks.statistic, 1, 1e-15);
    NEAR(c.ks.p, 2.0 / 252, 1e-12);
    NEAR(c.mw.statistic, 0, 0);
    NEAR(c.mw.p, 2.0 / 252, 1e-12);
    NEAR(c.kw.statistic, 6.8182, 1e-4);
    NEAR(c.kw.p, 0.0090, 1e-4);
    NEAR(c.kw.df, 1, 0);
}

static void one_value_and_three_groups(void **state)
{
    const double a[] = {4}, b[] = {1, 2}, d[] = {7, 9, 8};
    mw_stats_group g[3] = {{.values = a, .n = 1}, {.values = b, .n = 2}, {.values = d, .n = 3}};
    mw_stats_comparison c;
    mw_stats_compare_groups(g, 3, 0.9, &c);
    NEAR(g[0].mean, 4, 0);
    assert_false(g[0].has_sd);
    assert_false(g[0].has_ci);
    NEAR(g[1].sd, sqrt(0.5), 1e-12);
    assert_false(c.has_two);
    assert_true(c.has_kw);
    NEAR(c.kw.df, 2, 0);
    mw_stats_compare_groups(g, 1, 0.9, &c); /* one group: no test */
    assert_false(c.has_two || c.has_kw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_separated_groups),
        cmocka_unit_test(one_value_and_three_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
