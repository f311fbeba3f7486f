/* precision — the measurement methodology of Escobar et al. and Khaleghzadeh et al. (issue 8 part
 * 4): a run is repeated until the sample mean of the response (energy, time) lies within a relative
 * precision of the true mean at a confidence level — 2.5 % at 95 % in Khaleghzadeh et al. — by
 * Student's t (observations independent and normal). After n >= 2 repetitions with mean m
 * and sample sd s the half-width of the interval is h = t_{(1+level)/2, n-1} s / sqrt(n)
 * (mw_stats_mean_ci); the precision reached is h / |m|. mw_sweep (issue 10) calls
 * mw_precision_check after each repetition and stops at MW_PRECISION_REACHED or
 * MW_PRECISION_MAX_RUNS. */
#ifndef MW_PRECISION_H
#define MW_PRECISION_H
#include <stddef.h>

#define MW_PRECISION_DEFAULT_REL 0.025
#define MW_PRECISION_DEFAULT_LEVEL 0.95

typedef enum {
    MW_PRECISION_MORE = 0,     /* repeat again */
    MW_PRECISION_REACHED = 1,  /* h / |m| <= rel with at least min_runs repetitions */
    MW_PRECISION_MAX_RUNS = 2, /* max_runs repetitions without reaching it: stop anyway */
} mw_precision_verdict;

typedef struct {
    size_t n;
    double mean;       /* units of the values */
    double half_width; /* h, same units; 0 for n < 2 */
    double rel;        /* h / |mean|; 1e300 when undefined (n < 2, or mean 0 with h > 0) */
    mw_precision_verdict verdict;
} mw_precision;

/* level in (0, 1), rel > 0; min_runs >= 2 (smaller is taken as 2); max_runs 0 for no cap.
 * Returns 0, or -1 for bad arguments or a non-finite value (nothing written then). */
int mw_precision_check(const double *x, size_t n, double level, double rel, size_t min_runs,
                       size_t max_runs, mw_precision *out);
/* t_{(1+level)/2, df}: the two-sided Student-t quantile (gsl_cdf_tdist_Qinv), e.g. 2.776 for
 * level 0.95 and df 4. NaN-free: 0 for bad arguments. */
double mw_precision_t(double level, double df);
/* An estimate of the repetitions the precision needs given the mean and sd seen so far: the
 * least N >= 2 with t_{(1+level)/2, N-1} sd / sqrt(N) <= rel |mean|, capped at cap; cap when
 * mean is 0 and sd > 0. */
size_t mw_precision_runs_needed(double mean, double sd, double level, double rel, size_t cap);
#endif
