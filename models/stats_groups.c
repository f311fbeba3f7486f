/* stats_groups — see stats_groups.h. Mean and sd by GSL (the sd about the mean, n - 1). */
#include "stats_groups.h"

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "mw_alloc.h"

void mw_stats_compare_groups(mw_stats_group *g, size_t ngroups, double confidence,
                             mw_stats_comparison *out)
{
    for (size_t k = 0; k < ngroups; k++) {
        mw_stats_group *x = &g[k];
        x->mean = gsl_stats_mean(x->values, 1, x->n);
        x->has_sd = x->n >= 2;
        if (x->has_sd) x->sd = gsl_stats_sd_m(x->values, 1, x->n, x->mean);
        double m;
        x->has_ci = !mw_stats_mean_ci(x->values, x->n, confidence, &m, &x->lo, &x->hi);
    }
    memset(out, 0, sizeof *out);
    if (ngroups == 2)
        out->has_two = !mw_stats_ks2(g[0].values, g[0].n, g[1].values, g[1].n, &out->ks) &&
                       !mw_stats_mann_whitney(g[0].values, g[0].n, g[1].values, g[1].n, &out->mw);
    if (ngroups >= 2) {
        const double **v = mw_xcalloc(ngroups, sizeof *v);
        size_t *n = mw_xcalloc(ngroups, sizeof *n);
        for (size_t k = 0; k < ngroups; k++) {
            v[k] = g[k].values;
            n[k] = g[k].n;
        }
        out->has_kw = !mw_stats_kruskal_wallis(v, n, ngroups, &out->kw);
        free(v);
        free(n);
    }
}
