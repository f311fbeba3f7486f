/* analysis_figures — the figures derived from an analysed run (mw_analysis.h): the meter's
 * difference in %, dynamic energies, the estimates' levels, each NAN where there is none;
 * and mean ± sd per channel name across runs (GSL's mean and sample sd over the runs whose
 * channel of that name has the figure). */
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "mw_analysis.h"

/* names across runs at most (a damaged set of runs may have more) */
#define AN_MAX_NAMES 4096

double mw_analysis_meter_difference_pct(const mw_analysis_channel *c)
{
    if (!c->have_meter || c->meter_pj == 0) return NAN;
    return (double)(c->energy_pj - c->meter_pj) / (double)c->meter_pj * 100;
}

double mw_analysis_dynamic_j(const mw_analysis_channel *c, mw_energy_pj energy_pj,
                             int64_t covered_ns)
{
    if (c->idle_source == MW_ANALYSIS_IDLE_NONE) return NAN;
    return mw_energy_dynamic_j(energy_pj, c->idle_power_w, covered_ns);
}

int mw_analysis_coverage(const mw_analysis_run *r, int64_t *span_ns, int64_t *covered_ns,
                         char *note, size_t notelen)
{
    __int128 span = 0, least = -1;
    for (size_t c = 0; c < r->nchannels; c++) {
        __int128 cov = 0;
        for (size_t i = 0; i < r->nphases; i++)
            if (!strcmp(r->phases[i].kind, "mw")) cov += r->phases[i].channel_covered_ns[c];
        if (least < 0 || cov < least) least = cov;
    }
    for (size_t i = 0; i < r->nphases; i++)
        if (!strcmp(r->phases[i].kind, "mw")) span += r->phases[i].duration_ns;
    if (least < 0) least = 0;
    *span_ns = span > INT64_MAX ? INT64_MAX : (int64_t)span;
    *covered_ns = least > INT64_MAX ? INT64_MAX : (int64_t)least;
    if (note && notelen) note[0] = 0;
    __int128 missing = span - least;
    if (span <= 0 || missing * 100 <= span || missing <= 500000000) return 0;
    if (note)
        snprintf(note, notelen, "the meter covers %.1f s of the %.1f s run", (double)least * 1e-9,
                 (double)span * 1e-9);
    return 1;
}

double mw_analysis_idle_w(const mw_analysis_estimate *e)
{
    return e->state == MW_ANALYSIS_OK ? e->levels.idle_w : NAN;
}

double mw_analysis_work_w(const mw_analysis_estimate *e)
{
    return e->state == MW_ANALYSIS_OK ? e->levels.work_w : NAN;
}

const char *mw_analysis_idle_source_name(mw_analysis_idle_source s)
{
    return s == MW_ANALYSIS_IDLE_OPTION   ? "--idle-power"
           : s == MW_ANALYSIS_IDLE_PHASES ? "idle phases"
                                          : NULL;
}

double mw_analysis_metric_value(const mw_analysis_channel *c, mw_analysis_metric m)
{
    switch (m) {
    case MW_ANALYSIS_ENERGY:
        return mw_energy_j(c->energy_pj);
    case MW_ANALYSIS_METER:
        return c->have_meter ? mw_energy_j(c->meter_pj) : NAN;
    case MW_ANALYSIS_MEAN_POWER:
        return c->covered_ns > 0 ? mw_energy_mean_power_mw(c->energy_pj, c->covered_ns) / 1e3 : NAN;
    case MW_ANALYSIS_DYNAMIC:
        return mw_analysis_dynamic_j(c, c->energy_pj, c->covered_ns);
    case MW_ANALYSIS_KDE_IDLE:
        return mw_analysis_idle_w(&c->kde);
    case MW_ANALYSIS_KDE_WORK:
        return mw_analysis_work_w(&c->kde);
    case MW_ANALYSIS_GMM_IDLE:
        return mw_analysis_idle_w(&c->gmm);
    case MW_ANALYSIS_GMM_WORK:
        return mw_analysis_work_w(&c->gmm);
    case MW_ANALYSIS_SPLIT_IDLE:
        return mw_analysis_idle_w(&c->split);
    default:
        return mw_analysis_work_w(&c->split);
    }
}

/* mean and sample sd of metric m over the runs' channels named name (v: room for all) */
static mw_analysis_summary summarize(const mw_analysis_run *const *runs, size_t nruns,
                                     const char *name, mw_analysis_metric m, double *v)
{
    size_t n = 0;
    for (size_t i = 0; i < nruns; i++)
        for (size_t c = 0; c < runs[i]->nchannels; c++)
            if (!strcmp(runs[i]->channels[c].name, name)) {
                double x = mw_analysis_metric_value(&runs[i]->channels[c], m);
                if (isfinite(x)) v[n++] = x;
            }
    mw_analysis_summary s = {n, NAN, NAN};
    if (n) s.mean = gsl_stats_mean(v, 1, n);
    if (n > 1) s.sd = gsl_stats_sd(v, 1, n);
    return s;
}

void mw_analysis_aggregate_runs(const mw_analysis_run *const *runs, size_t nruns,
                                mw_analysis_aggregate *out)
{
    memset(out, 0, sizeof *out);
    out->nruns = nruns;
    size_t all = 0; /* a damaged run may have two channels of one name: room for all */
    for (size_t i = 0; i < nruns; i++)
        all += runs[i]->nchannels;
    out->channels = mw_xcalloc(all < AN_MAX_NAMES ? all : AN_MAX_NAMES, sizeof *out->channels);
    for (size_t i = 0; i < nruns; i++) /* names in order of first appearance */
        for (size_t c = 0; c < runs[i]->nchannels; c++) {
            const char *name = runs[i]->channels[c].name;
            size_t k = 0;
            while (k < out->nchannels && strcmp(out->channels[k].name, name))
                k++;
            if (k == out->nchannels && k < AN_MAX_NAMES)
                out->channels[out->nchannels++].name = name;
            if (k < out->nchannels) out->channels[k].runs++;
        }
    double *v = mw_xcalloc(all, sizeof *v);
    for (size_t k = 0; k < out->nchannels; k++)
        for (int m = 0; m < MW_ANALYSIS_METRICS; m++)
            out->channels[k].metric[m] =
                summarize(runs, nruns, out->channels[k].name, (mw_analysis_metric)m, v);
    free(v);
}

void mw_analysis_aggregate_free(mw_analysis_aggregate *a)
{
    free(a->channels);
    memset(a, 0, sizeof *a);
}
