/* stats — the tests Escobar et al. uses to compare runs (Table 6) and confidence intervals.
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
/* Mann–Whitney U (two-sided; exact without ties for small samples (both sizes under 50, as
 * R's wilcox.test), else the normal approximation with tie and continuity correction).
 * statistic = U of sample a: the number of pairs (a_i, b_j) with a_i > b_j, ties counting
 * 1/2. All values equal: p = 1. */
int mw_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, mw_test *t);
/* Kruskal–Wallis H over k >= 2 non-empty groups, with the tie correction; p from
 * chi-square(k-1). All values equal: H = 0, p = 1. */
int mw_stats_kruskal_wallis(const double *const *groups, const size_t *sizes, size_t k, mw_test *t);
/* Student-t confidence interval of the mean at level (e.g. 0.95); n >= 2, 0 < level < 1. */
int mw_stats_mean_ci(const double *x, size_t n, double level, double *mean, double *lo, double *hi);
/* The Kolmogorov distribution's upper tail Q(lambda) = P(K > lambda) = 2 sum_k>=1 (-1)^(k-1)
 * exp(-2 k^2 lambda^2), the asymptotic p of the KS test at lambda = D sqrt(na nb/(na+nb));
 * 1 for lambda <= 0. */
double mw_stats_kolmogorov_q(double lambda);
#endif
