/* precision — see precision.h. The interval is mw_stats_mean_ci's; the quantile for the
 * estimate of runs needed is gsl_cdf_tdist_Qinv((1 - level) / 2, df). */
#include "precision.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

#include "stats.h"

#define UNDEFINED_REL 1e300

int mw_precision_check(const double *x, size_t n, double level, double rel, size_t min_runs,
                       size_t max_runs, mw_precision *out)
{
    if (!out || (n && !x) || !(level > 0 && level < 1) || !(rel > 0) || !isfinite(rel)) return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return -1;
    if (min_runs < 2) min_runs = 2;
    mw_precision p = {n, n ? x[0] : 0, 0, UNDEFINED_REL, MW_PRECISION_MORE};
    if (n >= 2) {
        double lo, hi;
        if (mw_stats_mean_ci(x, n, level, &p.mean, &lo, &hi)) return -1;
        p.half_width = (hi - lo) / 2;
        if (p.mean != 0)
            p.rel = p.half_width / fabs(p.mean);
        else if (p.half_width == 0)
            p.rel = 0;
        if (n >= min_runs && p.rel <= rel) p.verdict = MW_PRECISION_REACHED;
    }
    if (p.verdict == MW_PRECISION_MORE && max_runs && n >= max_runs)
        p.verdict = MW_PRECISION_MAX_RUNS;
    *out = p;
    return 0;
}

double mw_precision_t(double level, double df)
{
    if (!(level > 0 && level < 1) || !(df > 0) || !isfinite(df)) return 0;
    return gsl_cdf_tdist_Qinv((1 - level) / 2, df);
}

size_t mw_precision_runs_needed(double mean, double sd, double level, double rel, size_t cap)
{
    if (cap < 2) cap = 2;
    if (!(sd >= 0) || !isfinite(sd) || !isfinite(mean) || !(rel > 0)) return cap;
    if (sd == 0) return 2;
    if (mean == 0) return cap;
    for (size_t n = 2; n < cap; n++)
        if (mw_precision_t(level, (double)(n - 1)) * sd / sqrt((double)n) <= rel * fabs(mean))
            return n;
    return cap;
}
