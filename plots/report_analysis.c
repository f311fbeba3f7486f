/* report_analysis — the analysis of a report's runs (mw_report.h: rp_report_analyse) and the
 * numbers the page takes from it.
 *
 * Each run is analysed by libmwmodels exactly as `mw analyze RUNDIR...` analyses it
 * (mw_analysis_read with no options: the whole run, the idle baseline's power), in order; the
 * first run that cannot be analysed ends it with the library's reason. The mean +- sd per
 * channel name across the runs is mw_analysis_aggregate_runs, mw analyze's aggregate. A
 * channel at one constant power is said as mw analyze says it, once every run is analysed.
 *
 * The page shows the numbers of `mw analyze --json` for the same runs (docs/report.md). The
 * JSON rounds (collector/analyze_json.c: times and energies to 6 decimals from the exact
 * integers, mean powers to mW, estimates with printf); the page rounds again for display (to
 * 3 decimals, or kJ). So that a figure rounded twice comes out as it does from the JSON, the
 * rp_an_* helpers give the double the JSON's text reads back as: the same text made here, then
 * strtod (which json-c uses). Each run's derived figures (rp_run) are sums of those values in
 * channel order, as the page summed the JSON's: every channel's energy over the range, and
 * the command's time and energy (the recorder's phase mw/command). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "mw_report.h"

/* ---- as the JSON states it ------------------------------------------------------------- */

/* v / step rounded half away from zero to an integer q, as the text q / 10^decimals that
 * mw_out_fixed writes (collector/textout.c), read back */
static double fixed(__int128 v, __int128 step, int decimals)
{
    __int128 a = v < 0 ? -v : v;
    __int128 q = a / step + (a % step >= (step + 1) / 2 ? 1 : 0);
    int negative = v < 0 && q != 0;
    char buf[64]; /* 39 digits at most, a point and a sign */
    int k = (int)sizeof buf - 1, i = 0;
    buf[k] = 0;
    do {
        if (i == decimals && decimals) buf[--k] = '.';
        buf[--k] = (char)('0' + (int)(q % 10));
        q /= 10;
        i++;
    } while (q || i <= decimals);
    if (negative) buf[--k] = '-';
    return strtod(buf + k, NULL);
}

double rp_an_seconds(__int128 ns)
{
    return fixed(ns, 1000, 6);
}

double rp_an_joules(mw_energy_pj pj)
{
    return fixed(pj, 1000000, 6);
}

double rp_an_mean_w(mw_energy_pj pj, int64_t covered_ns)
{
    return covered_ns > 0 ? fixed(mw_energy_mean_power_mw(pj, covered_ns), 1, 3) : NAN;
}

double rp_an_round(double v, int decimals)
{
    if (!isfinite(v)) return NAN;
    char buf[400];
    snprintf(buf, sizeof buf, "%.*f", decimals, v);
    double x = strtod(buf, NULL);
    return x == 0 ? 0 : x; /* the JSON has no "-0.000" */
}

/* ---- the analysis ---------------------------------------------------------------------- */

/* The range's duration, the command's time and energy, every channel's energy. */
static void derive_run(rp_run *r)
{
    const mw_analysis_run *an = r->an;
    r->duration_s = rp_an_seconds((__int128)an->last_ns - an->first_ns);
    r->cmd_s = r->cmd_j = NAN;
    r->total_j = an->nchannels ? 0 : NAN;
    for (size_t c = 0; c < an->nchannels; c++)
        r->total_j += rp_an_joules(an->channels[c].energy_pj);
    for (size_t g = 0; g < an->nphases; g++) {
        const mw_analysis_phase *p = &an->phases[g];
        if (strcmp(p->kind, "mw") || strcmp(p->name, "command")) continue;
        r->cmd_s = rp_an_seconds(p->duration_ns);
        double e = 0;
        int any = 0;
        for (size_t c = 0; c < an->nchannels; c++)
            if (p->channel_duration_ns[c]) {
                e += rp_an_joules(p->channel_energy_pj[c]);
                any = 1;
            }
        r->cmd_j = any ? e : NAN;
    }
}

/* mw analyze's note on a channel at one constant power */
static void say_constant(const rp_report *rp, const mw_analysis_run *an)
{
    for (size_t c = 0; c < an->nchannels && rp->say; c++) {
        const mw_analysis_channel *ch = &an->channels[c];
        if (!ch->kde.constant) continue;
        char line[8192]; /* a directory up to PATH_MAX, a name up to 127 bytes */
        snprintf(line, sizeof line,
                 "mw analyze: %s: channel %s: constant power %.3f W in all %zu windows: one "
                 "level, not bimodal",
                 an->dir, ch->name, ch->constant_power_w, ch->windows);
        rp->say(rp->say_ctx, RP_SAY_LINE, line);
    }
}

/* a run the meter covers only in part (mw_analysis_coverage) */
static void say_coverage(const rp_report *rp, const mw_analysis_run *an)
{
    int64_t span, cov;
    char note[160], line[4400];
    if (!rp->say || !mw_analysis_coverage(an, &span, &cov, note, sizeof note)) return;
    snprintf(line, sizeof line, "mw report: %s: %s", an->dir, note);
    rp->say(rp->say_ctx, RP_SAY_LINE, line);
}

int rp_report_analyse(rp_report *rp, char *err, size_t errlen)
{
    mw_analysis_options none;
    memset(&none, 0, sizeof none);
    for (size_t i = 0; i < rp->nrun; i++)
        if (mw_analysis_read(rp->run[i].dir, &none, &rp->run[i].an, err, errlen) != 0) return -1;
    const mw_analysis_run **runs = mw_xcalloc(rp->nrun, sizeof *runs);
    for (size_t i = 0; i < rp->nrun; i++) {
        say_constant(rp, rp->run[i].an);
        say_coverage(rp, rp->run[i].an);
        runs[i] = rp->run[i].an;
    }
    mw_analysis_aggregate_runs(runs, rp->nrun, &rp->agg);
    free(runs);
    for (size_t i = 0; i < rp->nrun; i++)
        derive_run(&rp->run[i]);
    return 0;
}
