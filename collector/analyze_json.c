/* analyze_json — mw analyze's JSON document (docs/analysis.md lists every key) from
 * analysed runs (models/include/mw_analysis.h): the runs, then the aggregate across them.
 * Energies in J and times in s with 6 decimals from exact integers, mean powers with 3,
 * estimates as printf rounds them; null where a figure does not exist. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "analyze_print.h"
#include "textout.h"
#include "json_schema.h"

/* J with 6 decimals (JSON) */
static const char *joules6(char *buf, size_t len, mw_energy_pj pj)
{
    return mw_out_fixed(buf, len, pj, 1000000, 6, "");
}

static const char *seconds6(char *buf, size_t len, __int128 ns)
{
    return mw_out_fixed(buf, len, ns, 1000, 6, "");
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void json_est(FILE *out, const char *key, const mw_analysis_estimate *e, int split)
{
    char b[64];
    fprintf(out, ",\n     \"%s\": ", key);
    if (e->state == MW_ANALYSIS_SKIPPED) {
        fputs("null", out);
        return;
    }
    int ok = e->state == MW_ANALYSIS_OK;
    const mw_levels *lv = &e->levels;
    fprintf(out, "{\"pow_idle_w\": %s", an_dbl(b, sizeof b, mw_analysis_idle_w(e), 3, "", 1));
    fprintf(out, ", \"pow_work_w\": %s", an_dbl(b, sizeof b, mw_analysis_work_w(e), 3, "", 1));
    fprintf(out, ", \"bimodal\": %s", ok ? an_modality(e, "true", "false") : "null");
    if (!strcmp(key, "kde")) {
        int have = ok && !e->constant;
        fprintf(out, ", \"bandwidth_w\": %s",
                an_dbl(b, sizeof b, have ? lv->bandwidth_w : NAN, 6, "", 1));
        if (have)
            fprintf(out, ", \"bins\": %d", lv->bins);
        else
            fputs(", \"bins\": null", out);
    } else {
        fprintf(out, ", \"idle_sd_w\": %s",
                an_dbl(b, sizeof b, ok ? lv->idle_sd_w : NAN, 3, "", 1));
        fprintf(out, ", \"work_sd_w\": %s",
                an_dbl(b, sizeof b, ok ? lv->work_sd_w : NAN, 3, "", 1));
        fprintf(out, ", \"idle_weight\": %s",
                an_dbl(b, sizeof b, ok ? lv->idle_weight : NAN, 6, "", 1));
    }
    if (split)
        fprintf(out, ", \"working_windows\": %zu, \"idle_windows\": %zu", e->working_windows,
                e->idle_windows);
    fputs(", \"note\": ", out);
    if (lv->note[0])
        mw_out_json_string(out, lv->note);
    else
        fputs("null", out);
    fputc('}', out);
}

static void json_string_or_null(FILE *out, const char *s)
{
    if (s)
        mw_out_json_string(out, s);
    else
        fputs("null", out);
}

static void json_channel(FILE *out, const mw_analysis_run *r, const mw_analysis_channel *c)
{
    char b[64];
    fprintf(out, "    {\"channel\": %d, \"name\": ", c->channel);
    mw_out_json_string(out, c->name);
    fputs(", \"host\": ", out);
    json_string_or_null(out, c->has_host ? c->host : NULL);
    fputs(", \"ranks\": [", out);
    for (size_t k = 0; k < c->nranks; k++)
        fprintf(out, "%s%d", k ? ", " : "", r->ranks[c->ranks[k]].rank);
    fputs("], \"meter_host\": ", out); /* added after the keys before it (docs/analysis.md) */
    json_string_or_null(out, c->meter_host[0] ? c->meter_host : NULL);
    fprintf(out, ",\n     \"windows\": %zu, \"covered_s\": %s", c->windows,
            seconds6(b, sizeof b, c->covered_ns));
    fprintf(out, ", \"energy_j\": %s", joules6(b, sizeof b, c->energy_pj));
    if (c->have_meter) {
        fprintf(out, ", \"meter_energy_j\": %s", joules6(b, sizeof b, c->meter_pj));
        fprintf(out, ", \"meter_difference_j\": %s",
                joules6(b, sizeof b, c->energy_pj - c->meter_pj));
    } else {
        fputs(", \"meter_energy_j\": null, \"meter_difference_j\": null", out);
    }
    fprintf(out, ", \"meter_difference_pct\": %s",
            an_dbl(b, sizeof b, mw_analysis_meter_difference_pct(c), 4, "", 1));
    fprintf(out, ",\n     \"mean_power_w\": %s",
            an_mean_w(b, sizeof b, c->energy_pj, c->covered_ns, 0));
    fprintf(out, ", \"idle_power_w\": %s",
            an_dbl(b, sizeof b, c->idle_source ? c->idle_power_w : NAN, 6, "", 1));
    fputs(", \"idle_power_source\": ", out);
    json_string_or_null(out, mw_analysis_idle_source_name(c->idle_source));
    fprintf(out, ", \"dynamic_energy_j\": %s",
            an_dbl(b, sizeof b, mw_analysis_dynamic_j(c, c->energy_pj, c->covered_ns), 6, "", 1));
    fprintf(out, ",\n     \"work_s\": %s", seconds6(b, sizeof b, c->work_ns));
    fprintf(out, ", \"work_energy_j\": %s", joules6(b, sizeof b, c->work_energy_pj));
    fprintf(out, ",\n     \"pow_idle_w\": %s",
            an_dbl(b, sizeof b, mw_analysis_idle_w(&c->kde), 3, "", 1));
    fprintf(out, ", \"pow_work_w\": %s",
            an_dbl(b, sizeof b, mw_analysis_work_w(&c->kde), 3, "", 1));
    const char *bm = an_modality(&c->kde, "true", "false");
    fprintf(out, ", \"bimodal\": %s", bm ? bm : "null");
    json_est(out, "kde", &c->kde, 0);
    json_est(out, "gmm", &c->gmm, 0);
    json_est(out, "split", &c->split, 1);
    fputs("}", out);
}

static void json_phase(FILE *out, const mw_analysis_run *r, const mw_analysis_phase *p)
{
    char b[64];
    fputs("{\"kind\": ", out);
    mw_out_json_string(out, p->kind);
    fputs(", \"name\": ", out);
    mw_out_json_string(out, p->name);
    fprintf(out, ", \"intervals\": %zu, \"duration_s\": %s, \"channels\": [", p->intervals,
            seconds6(b, sizeof b, p->duration_ns));
    int first = 1;
    for (size_t c = 0; c < r->nchannels; c++) {
        if (!p->channel_duration_ns[c]) continue;
        const mw_analysis_channel *ch = &r->channels[c];
        mw_energy_pj pj = p->channel_energy_pj[c];
        int64_t cov = p->channel_covered_ns[c];
        fputs(first ? "\n     {\"name\": " : ",\n     {\"name\": ", out);
        first = 0;
        mw_out_json_string(out, ch->name);
        fprintf(out, ", \"duration_s\": %s", seconds6(b, sizeof b, p->channel_duration_ns[c]));
        fprintf(out, ", \"covered_s\": %s", seconds6(b, sizeof b, cov));
        fprintf(out, ", \"energy_j\": %s", joules6(b, sizeof b, pj));
        fprintf(out, ", \"mean_power_w\": %s", an_mean_w(b, sizeof b, pj, cov, 0));
        fprintf(out, ", \"dynamic_energy_j\": %s}",
                an_dbl(b, sizeof b, mw_analysis_dynamic_j(ch, pj, cov), 6, "", 1));
    }
    fputs(first ? "]}" : "\n    ]}", out);
}

static void json_rank(FILE *out, const mw_analysis_run *r, const mw_analysis_rank *rk)
{
    char b[64];
    fprintf(out, "    {\"rank\": %d, \"host\": ", rk->rank);
    mw_out_json_string(out, rk->host);
    fputs(", \"channels\": [", out);
    for (size_t j = 0; j < rk->nchannels; j++) {
        if (j) fputs(", ", out);
        mw_out_json_string(out, r->channels[rk->channels[j]].name);
    }
    fprintf(out, "], \"start_s\": %s",
            an_secs(b, sizeof b, mw_analysis_since_ns(r, rk->start_ns), 0));
    fprintf(out, ", \"end_s\": %s", an_secs(b, sizeof b, mw_analysis_since_ns(r, rk->end_ns), 0));
    fprintf(out, ", \"duration_s\": %s",
            seconds6(b, sizeof b, (__int128)rk->end_ns - rk->start_ns));
    fprintf(out, ", \"energy_j\": %s", joules6(b, sizeof b, rk->energy_pj));
    fprintf(out, ", \"work_s\": %s", seconds6(b, sizeof b, rk->work_ns));
    fprintf(out, ", \"work_inferred_s\": %s", seconds6(b, sizeof b, rk->inferred_ns));
    fprintf(out, ", \"work_energy_j\": %s}", joules6(b, sizeof b, rk->work_energy_pj));
}

static void json_run(FILE *out, const mw_analysis_run *r)
{
    char b[64], b2[64];
    fputs("  {\"run\": ", out);
    mw_out_json_string(out, r->dir);
    fputs(", \"status\": ", out);
    mw_out_json_string(out, r->status);
    fprintf(out, ", \"start_ns\": %" PRId64 ",\n   \"from_s\": %s, \"to_s\": %s", r->origin_ns,
            an_secs(b, sizeof b, mw_analysis_since_ns(r, r->first_ns), 0),
            an_secs(b2, sizeof b2, mw_analysis_since_ns(r, r->last_ns), 0));
    fprintf(out, ", \"duration_s\": %s", seconds6(b, sizeof b, (__int128)r->last_ns - r->first_ns));
    fputs(",\n   \"channels\": [\n", out);
    for (size_t i = 0; i < r->nchannels; i++) {
        json_channel(out, r, &r->channels[i]);
        fputs(i + 1 < r->nchannels ? ",\n" : "\n", out);
    }
    fputs("   ],\n   \"phases\": [", out);
    for (size_t g = 0; g < r->nphases; g++) {
        fputs(g ? ",\n    " : "\n    ", out);
        json_phase(out, r, &r->phases[g]);
    }
    fputs(r->nphases ? "\n   ],\n   \"ranks\": [" : "],\n   \"ranks\": [", out);
    for (size_t k = 0; k < r->nranks; k++) {
        fputs(k ? ",\n" : "\n", out);
        json_rank(out, r, &r->ranks[k]);
    }
    fputs(r->nranks ? "\n   ]" : "]", out);
    mw_analyze_inband_json(out, r);
    fputs("}", out);
}

static void json_aggregate(FILE *out, const mw_analysis_aggregate *a)
{
    fprintf(out, "  \"aggregate\": {\"runs\": %zu, \"channels\": [", a->nruns);
    for (size_t k = 0; k < a->nchannels; k++) {
        const mw_analysis_name_summary *n = &a->channels[k];
        fputs(k ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
        mw_out_json_string(out, n->name);
        fprintf(out, ", \"runs\": %zu", n->runs);
        const char *group = NULL;
        for (int m = 0; m < MW_ANALYSIS_METRICS; m++) {
            const an_metric *mt = &an_metrics[m];
            if (!group != !mt->group || (group && strcmp(group, mt->group))) {
                if (group) fputc('}', out);
                fprintf(out, ",\n     \"%s\": {", mt->group);
                group = mt->group;
            } else {
                fputs(",\n     ", out);
            }
            char mv[64], sv[64];
            const mw_analysis_summary *s = &n->metric[m];
            fprintf(out, "\"%s\": {\"n\": %zu, \"mean\": %s, \"sd\": %s}", mt->key, s->n,
                    an_dbl(mv, sizeof mv, s->mean, mt->decimals + 3, "", 1),
                    an_dbl(sv, sizeof sv, s->sd, mt->decimals + 3, "", 1));
        }
        if (group) fputc('}', out);
        fputc('}', out);
    }
    fputs(a->nchannels ? "\n  ]}\n" : "]}\n", out);
}

void mw_analyze_print_json(FILE *out, const mw_analysis_run *const *runs, size_t nruns)
{
    fputs("{\n  \"schema\": \"" MW_SCHEMA_ANALYZE "\",\n  \"version\": 1,\n  \"runs\": [\n", out);
    for (size_t i = 0; i < nruns; i++) {
        json_run(out, runs[i]);
        fputs(i + 1 < nruns ? ",\n" : "\n", out);
    }
    fputs("  ],\n", out);
    mw_analysis_aggregate a;
    mw_analysis_aggregate_runs(runs, nruns, &a);
    json_aggregate(out, &a);
    mw_analysis_aggregate_free(&a);
    fputs("}\n", out);
}
