/* stats — the tests seed 000 uses to compare runs (Table 6) and confidence intervals.
 * GSL provides the distributions (gsl_cdf_*); samples are not modified. Every function
 * returns 0, or -1 for unusable input (an empty sample, NaN) with no NaN written. */
#ifndef MW_STATS_H
#define MW_STATS_H
#include <stddef.h>

typedef struct {
    double statistic; /* D, H, U or t */
    double p;         /* two-sided p-value */
    int exact;        /* 1 when the p-value is exact (KS small samples, MW small samples) */
    double df;        /* degrees of freedom where meaningful (KW: k - 1), else 0 */
} mw_test;

/* Two-sample Kolmogorov–Smirnov: exact p for small samples (n*m <= 10000, no ties), else
 * the asymptotic Kolmogorov distribution. */
int mw_stats_ks2(const double *a, size_t na, const double *b, size_t nb, mw_test *t);
/* Mann–Whitney U (two-sided; exact without ties for small samples, else the normal
 * approximation with tie and continuity correction). statistic = U of sample a. */
int mw_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, mw_test *t);
/* Kruskal–Wallis H over k groups, with the tie correction; p from chi-square(k-1). */
int mw_stats_kruskal_wallis(const double *const *groups, const size_t *sizes, size_t k,
                            mw_test *t);
/* Student-t confidence interval of the mean at level (e.g. 0.95). */
int mw_stats_mean_ci(const double *x, size_t n, double level, double *mean, double *lo,
                     double *hi);
#endif
