/* stats_out — the text and JSON layouts of "mw stats" (stats_out.h). Both print the
 * figures cmd_stats.c computed, unchanged: means, sds and intervals with 3 decimals in
 * text and 6 in JSON, test statistics and p-values with %g-style precision; column widths
 * of the text tables follow the widest group name, quantity and run path. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_schema.h"
#include "stats_groups.h"
#include "stats_out.h"
#include "textout.h"

static const char *const q_names[] = {"", "pow_idle", "pow_work", "mean_power", "energy"};

const char *mw_stcmd_quantity_name(mw_stcmd_quantity q)
{
    return q_names[q];
}

const char *mw_stcmd_quantity_unit(mw_stcmd_quantity q)
{
    return q == MW_STCMD_Q_ENERGY ? "J" : "W";
}

static void json_num(FILE *out, int has, double v, const char *fmt)
{
    if (has && isfinite(v))
        fprintf(out, fmt, v);
    else
        fputs("null", out);
}

static void json_test(FILE *out, const char *key, int has, const mw_test *t, int df)
{
    fprintf(out, "    \"%s\": ", key);
    if (!has) {
        fputs("null", out);
        return;
    }
    fputs("{\"statistic\": ", out);
    json_num(out, 1, t->statistic, "%.6g");
    if (df) fprintf(out, ", \"df\": %.0f", t->df);
    fputs(", \"p\": ", out);
    json_num(out, 1, t->p, "%.6g");
    fprintf(out, ", \"exact\": %s}", t->exact ? "true" : "false");
}

void mw_stcmd_print_json(const mw_stcmd_opts *o, const mw_stats_comparison *T)
{
    printf("{\n  \"schema\": \"" MW_SCHEMA_STATS "\",\n  \"channel\": ");
    mw_out_json_string(stdout, o->channel);
    printf(",\n  \"method\": \"%s\",\n  \"confidence\": %g,\n  \"groups\": [",
           o->gmm ? "gmm" : "kde", o->confidence);
    for (size_t k = 0; k < o->ngroups; k++) {
        const mw_stcmd_group *g = &o->groups[k];
        printf("%s\n    {\"name\": ", k ? "," : "");
        mw_out_json_string(stdout, g->name);
        printf(", \"quantity\": \"%s\", \"unit\": \"%s\", \"n\": %zu, \"mean\": ",
               mw_stcmd_quantity_name(g->q), mw_stcmd_quantity_unit(g->q), g->nruns);
        json_num(stdout, 1, g->fig.mean, "%.6f");
        printf(", \"sd\": ");
        json_num(stdout, g->fig.has_sd, g->fig.sd, "%.6f");
        printf(", \"ci_low\": ");
        json_num(stdout, g->fig.has_ci, g->fig.lo, "%.6f");
        printf(", \"ci_high\": ");
        json_num(stdout, g->fig.has_ci, g->fig.hi, "%.6f");
        printf(",\n     \"runs\": [");
        for (size_t r = 0; r < g->nruns; r++) {
            printf("%s{\"run\": ", r ? ", " : "");
            mw_out_json_string(stdout, g->runs[r]);
            printf(", \"value\": ");
            json_num(stdout, 1, g->values[r], "%.6f");
            printf("}");
        }
        printf("]}");
    }
    printf("\n  ],\n  \"tests\": {\n");
    json_test(stdout, "kolmogorov_smirnov", T->has_two, &T->ks, 0);
    printf(",\n");
    json_test(stdout, "mann_whitney", T->has_two, &T->mw, 0);
    printf(",\n");
    json_test(stdout, "kruskal_wallis", T->has_kw, &T->kw, 1);
    printf("\n  }\n}\n");
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

/* TEST then "LABEL vs LABEL" of the two groups, escaped for the terminal */
static void two_labels(const char *test, const mw_stcmd_opts *o)
{
    fputs(test, stdout);
    mw_out_text(stdout, o->groups[0].label);
    printf(" vs ");
    mw_out_text(stdout, o->groups[1].label);
}

void mw_stcmd_print_text(const mw_stcmd_opts *o, const mw_stats_comparison *T)
{
    const char *method = o->gmm ? "Gaussian mixture" : "kernel density";
    int any_levels = 0, wname = 5, wq = 8, wrun = 3;
    for (size_t k = 0; k < o->ngroups; k++) {
        const mw_stcmd_group *g = &o->groups[k];
        any_levels |= g->q == MW_STCMD_Q_POW_IDLE || g->q == MW_STCMD_Q_POW_WORK;
        wname = max_int(wname, mw_out_text_width(g->name));
        wq = max_int(wq, (int)strlen(mw_stcmd_quantity_name(g->q)));
        for (size_t r = 0; r < g->nruns; r++)
            wrun = max_int(wrun, mw_out_text_width(g->runs[r]));
    }
    fputs("channel ", stdout); /* names and paths escaped for the terminal (textout.h) */
    mw_out_text(stdout, o->channel);
    if (any_levels) printf(", power levels by %s", method);
    printf("\n\n");
    char ci_head[32];
    snprintf(ci_head, sizeof ci_head, "%g %% CI of the mean", 100 * o->confidence);
    printf("%-*s  %-*s  runs  %14s  %12s  %s\n", wname, "group", wq, "quantity", "mean", "sd",
           ci_head);
    for (size_t k = 0; k < o->ngroups; k++) {
        const mw_stcmd_group *g = &o->groups[k];
        const char *u = mw_stcmd_quantity_unit(g->q);
        char sd[32] = "-", ci[96] = "-";
        if (g->fig.has_sd) snprintf(sd, sizeof sd, "%.3f %s", g->fig.sd, u);
        if (g->fig.has_ci) snprintf(ci, sizeof ci, "[%.3f, %.3f] %s", g->fig.lo, g->fig.hi, u);
        mw_out_text_pad(stdout, g->name, wname);
        printf("  %-*s  %4zu  %12.3f %s  %12s  %s\n", wq, mw_stcmd_quantity_name(g->q), g->nruns,
               g->fig.mean, u, sd, ci);
    }
    printf("\n%-*s  %-*s  %s\n", wname, "group", wrun, "run", "value");
    for (size_t k = 0; k < o->ngroups; k++) {
        const mw_stcmd_group *g = &o->groups[k];
        for (size_t r = 0; r < g->nruns; r++) {
            mw_out_text_pad(stdout, g->name, wname);
            fputs("  ", stdout);
            mw_out_text_pad(stdout, g->runs[r], wrun);
            printf("  %.3f %s\n", g->values[r], mw_stcmd_quantity_unit(g->q));
        }
    }
    if (!T->has_two && !T->has_kw) return;
    printf("\ntests (two-sided)\n");
    if (T->has_two) {
        two_labels("  Kolmogorov-Smirnov  ", o);
        printf(": D = %.4f, p = %.4g (%s)\n", T->ks.statistic, T->ks.p,
               T->ks.exact ? "exact" : "asymptotic");
        two_labels("  Mann-Whitney        ", o);
        printf(": U = %.1f, p = %.4g (%s)\n", T->mw.statistic, T->mw.p,
               T->mw.exact ? "exact" : "normal approximation");
    }
    if (T->has_kw)
        printf("  Kruskal-Wallis      %zu groups: H = %.4f, df = %.0f, p = %.4g (chi-square)\n",
               o->ngroups, T->kw.statistic, T->kw.df, T->kw.p);
}
