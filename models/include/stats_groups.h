/* stats_groups — groups of runs compared on one figure (mw stats, Escobar et al. Table 6): per
 * group the number of values, their mean, sd (two values or more) and the Student-t
 * confidence interval of the mean; for two groups the two-sample Kolmogorov–Smirnov and
 * Mann–Whitney tests, for two groups or more Kruskal–Wallis (stats.h, two-sided). Numbers
 * in, numbers out; a figure that does not exist is flagged, never NaN. */
#ifndef MW_STATS_GROUPS_H
#define MW_STATS_GROUPS_H
#include <stddef.h>

#include "stats.h"

typedef struct {
    const double *values; /* in */
    size_t n;             /* in, >= 1 */
    double mean, sd, lo, hi;
    int has_sd, has_ci; /* sd and [lo, hi] exist */
} mw_stats_group;

typedef struct {
    int has_two; /* two groups: ks and mw */
    int has_kw;  /* two groups or more: kw */
    mw_test ks, mw, kw;
} mw_stats_comparison;

/* Fill each group's figures (interval at level confidence, 0 < confidence < 1) and the
 * tests between the groups into *out. */
void mw_stats_compare_groups(mw_stats_group *g, size_t ngroups, double confidence,
                             mw_stats_comparison *out);
#endif
