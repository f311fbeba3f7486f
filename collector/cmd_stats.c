/* cmd_stats — "mw stats --channel NAME --quantity Q --group NAME[:Q] RUNDIR... --group ...
 * [--method kde|gmm] [--confidence P] [--json]": compare groups of runs on one per-run
 * figure of one channel, as Escobar et al. Table 6 compares Pow_idle and Pow_work of versions v2
 * and v3 over runs with 6 to 32 subpopulations.
 *
 * Each run gives one value: pow_idle / pow_work (W), the lower / higher level of the
 * channel's window powers by the paper's kernel-density method (models/include/levels.h; --method
 * gmm: the Gaussian mixture); mean_power (W), the time-weighted mean power over its windows;
 * energy (J), the energy of its windows (power x window length summed exactly in integer
 * pJ). A group's --group NAME:Q takes its own quantity (Table 6 also tests Pow_idle(v2)
 * against Pow_work(v2)); groups must share a unit. Per group: n, mean, sd and the Student-t
 * interval of the mean; two groups: two-sample Kolmogorov–Smirnov and Mann–Whitney; two or
 * more: Kruskal–Wallis (models/include/stats.h, two-sided p-values).
 *
 * Every run is read read-only inside one snapshot: the channel's windows by time
 * (models/include/window_totals.h); the groups' figures and tests are
 * models/include/stats_groups.h's. Arguments are parsed by hand (longopt.h), not by getopt, because
 * a group's run directories follow its --group in order. Unusable input — bad usage, a directory
 * that is not a run or cannot be opened, a missing channel, a channel without samples, one power
 * level where pow_idle/pow_work is asked — is a one-line message naming the run and exit 2,
 * before anything is printed. No figure is ever NaN: one that does not exist (the sd of one
 * run) is "-" in text and null in JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "textout.h"
#include "levels.h"
#include "longopt.h"
#include "mw_alloc.h"
#include "mw_run.h"
#include "stats_groups.h"
#include "window_totals.h"
#include "json_schema.h"

typedef enum { Q_NONE, Q_POW_IDLE, Q_POW_WORK, Q_MEAN_POWER, Q_ENERGY } st_quantity;
static const char *const q_names[] = {"", "pow_idle", "pow_work", "mean_power", "energy"};

static const char *q_unit(st_quantity q)
{
    return q == Q_ENERGY ? "J" : "W";
}

typedef struct {
    char *name;
    st_quantity q; /* Q_NONE: the --quantity */
    char **runs;   /* argv entries */
    size_t nruns;
    double *values;     /* one per run */
    mw_stats_group fig; /* n, mean, sd, CI (models/include/stats_groups.h) */
    char label[160];    /* in the tests' lines: the name, or NAME:Q when names repeat */
} st_group;

typedef struct {
    const char *channel;
    st_quantity q;
    int json, gmm;
    double confidence;
    st_group *groups;
    size_t ngroups;
} st_opts;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw stats --channel NAME --quantity pow_idle|pow_work|mean_power|energy\n"
            "                --group NAME[:QUANTITY] RUNDIR... [--group NAME RUNDIR...]...\n"
            "                [--method kde|gmm] [--confidence P] [--json]\n\n"
            "Compares groups of runs on one figure of one channel, one value per run (as\n"
            "Escobar et al. 2019, Table 6): per group the number of runs, mean, sd and the\n"
            "Student-t confidence interval of the mean; for two groups the two-sample\n"
            "Kolmogorov-Smirnov and Mann-Whitney tests, for two or more Kruskal-Wallis\n"
            "(two-sided p-values; exact for small samples without ties).\n\n"
            "  --channel NAME     the channel (its name in the runs, e.g. node0)\n"
            "  --quantity Q       the figure of each run:\n"
            "                     pow_idle    the lower power level, W (paper's kernel density\n"
            "                                 method; the channel must show two levels)\n"
            "                     pow_work    the higher power level, W\n"
            "                     mean_power  the time-weighted mean power of its windows, W\n"
            "                     energy      the energy of its windows, J\n"
            "  --group NAME[:Q]   starts a group; the run directories that follow are its runs;\n"
            "                     :Q gives this group its own quantity (same unit for all)\n"
            "  --method kde|gmm   power levels by kernel density (default) or Gaussian mixture\n"
            "  --confidence P     level of the intervals, 1e-6 to 0.999999 (default 0.95)\n"
            "  --json             a JSON document instead of text\n"
            "  -h, --help         this text\n");
}

static st_quantity parse_quantity(const char *s)
{
    for (int q = Q_POW_IDLE; q <= Q_ENERGY; q++)
        if (!strcmp(s, q_names[q])) return (st_quantity)q;
    return Q_NONE;
}

static void opts_free(st_opts *o)
{
    for (size_t g = 0; g < o->ngroups; g++) {
        free(o->groups[g].name);
        free(o->groups[g].runs);
        free(o->groups[g].values);
    }
    free(o->groups);
}

/* --group NAME[:Q] (v NULL: no value): a new group for up to argc runs. -1 when fine, else
 * the exit code. */
static int add_group(st_opts *o, const char *v, int argc)
{
    if (!v || !*v || *v == '-') return mw_cli_usage_error("stats", "--group needs a name");
    o->groups = mw_xrealloc(o->groups, (o->ngroups + 1) * sizeof *o->groups);
    st_group *g = &o->groups[o->ngroups++];
    memset(g, 0, sizeof *g);
    const char *colon = strchr(v, ':');
    g->name = colon ? mw_xstrndup(v, (size_t)(colon - v)) : mw_xstrdup(v);
    g->runs = mw_xcalloc((size_t)argc, sizeof *g->runs);
    g->values = mw_xcalloc((size_t)argc, sizeof *g->values);
    if (!*g->name) return mw_cli_usage_error("stats", "--group '%s': empty name", v);
    if (colon && (g->q = parse_quantity(colon + 1)) == Q_NONE)
        return mw_cli_usage_error(
            "stats", "--group '%s': '%s' is not pow_idle, pow_work, mean_power or energy", v,
            colon + 1);
    for (size_t k = 0; k + 1 < o->ngroups; k++)
        if (!strcmp(o->groups[k].name, g->name) && o->groups[k].q == g->q)
            return mw_cli_usage_error("stats", "--group '%s' given twice", v);
    snprintf(g->label, sizeof g->label, "%s", v);
    return -1;
}

/* After the arguments: a channel, groups with runs, a quantity each, one unit; labels of
 * groups that share a name. -1 when fine, else the exit code. */
static int check_groups(st_opts *o)
{
    if (!o->channel) return mw_cli_usage_error("stats", "missing --channel NAME");
    if (!o->ngroups) return mw_cli_usage_error("stats", "missing --group NAME RUNDIR...");
    for (size_t k = 0; k < o->ngroups; k++) {
        st_group *g = &o->groups[k];
        if (!g->nruns)
            return mw_cli_usage_error("stats", "--group %s: no run directories", g->name);
        if (g->q == Q_NONE) g->q = o->q;
        if (g->q == Q_NONE)
            return mw_cli_usage_error("stats", "missing --quantity (group %s has none)", g->name);
        for (size_t j = 0; j < o->ngroups; j++)
            if (j != k && !strcmp(o->groups[j].name, g->name))
                snprintf(g->label, sizeof g->label, "%s:%s", g->name, q_names[g->q]);
        if (strcmp(q_unit(g->q), q_unit(o->groups[0].q)))
            return mw_cli_usage_error("stats", "groups %s (%s) and %s (%s) are in different units",
                                      o->groups[0].name, q_names[o->groups[0].q], g->name,
                                      q_names[g->q]);
    }
    return -1;
}

/* Returns -1 when parsing went fine, else the exit code. */
static int parse_args(int argc, char **argv, st_opts *o)
{
    static const char *const once[] = {"--channel", "--quantity", "--method", "--confidence",
                                       NULL}; /* --group repeats */
    mw_cli_seen seen = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int once_rc = mw_longopt_once("stats", &seen, a, once);
        if (once_rc) return once_rc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return MW_EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (mw_longopt_is(a, "--channel")) {
            const char *v = mw_longopt_value(argc, argv, &i, "--channel");
            if (!v || !*v) return mw_cli_usage_error("stats", "--channel needs a channel name");
            o->channel = v;
        } else if (mw_longopt_is(a, "--quantity")) {
            const char *v = mw_longopt_value(argc, argv, &i, "--quantity");
            if (!v) return mw_cli_usage_error("stats", "--quantity needs a value");
            if ((o->q = parse_quantity(v)) == Q_NONE)
                return mw_cli_usage_error(
                    "stats", "--quantity: '%s' is not pow_idle, pow_work, mean_power or energy", v);
        } else if (mw_longopt_is(a, "--method")) {
            const char *v = mw_longopt_value(argc, argv, &i, "--method");
            if (!v) return mw_cli_usage_error("stats", "--method needs a value");
            if (strcmp(v, "kde") && strcmp(v, "gmm"))
                return mw_cli_usage_error("stats", "--method: '%s' is not kde or gmm", v);
            o->gmm = !strcmp(v, "gmm");
        } else if (mw_longopt_is(a, "--confidence")) {
            const char *v = mw_longopt_value(argc, argv, &i, "--confidence");
            if (!v) return mw_cli_usage_error("stats", "--confidence needs a value");
            double c;
            int rc = mw_cli_double("stats", "--confidence", v, 1e-6, 1 - 1e-6, "", &c);
            if (rc) return rc;
            o->confidence = c;
        } else if (mw_longopt_is(a, "--group")) {
            int rc = add_group(o, mw_longopt_value(argc, argv, &i, "--group"), argc);
            if (rc >= 0) return rc;
        } else if (a[0] == '-' && a[1]) {
            return mw_cli_usage_error("stats", "unknown option '%s'", a);
        } else {
            if (!o->ngroups)
                return mw_cli_usage_error("stats", "'%s': a run directory before any --group", a);
            st_group *g = &o->groups[o->ngroups - 1];
            g->runs[g->nruns++] = argv[i];
        }
    }
    return check_groups(o);
}

/* ---- one run's value ---------------------------------------------------------------- */

/* The channel's windows of one run (models/include/window_totals.h), in one snapshot: their powers
 * (W, *power_w) and exact totals. 0, or an exit code after a one-line message. */
static int read_trace(const char *rundir, const char *channel, double **power_w,
                      mw_window_totals *t)
{
    *power_w = NULL;
    if (!mw_store_exists(rundir)) {
        fprintf(stderr, "mw stats: %s: not a run (no %s there)\n", rundir, MW_STORE_DB_NAME);
        return MW_EXIT_USAGE;
    }
    char err[1024], names[512];
    mw_store *s = mw_store_open(rundir, err, sizeof err);
    if (!s) {
        fprintf(stderr, "mw stats: %s\n", err);
        return MW_EXIT_USAGE;
    }
    mw_run_snapshot_begin(s);
    int rc = mw_window_totals_read_channel(s, channel, power_w, t, names, sizeof names);
    if (rc == -1)
        fprintf(stderr, "mw stats: %s\n", mw_store_error(s));
    else if (rc == -2)
        fprintf(stderr, "mw stats: %s: no channel '%s' (its channels: %s)\n", rundir, channel,
                *names ? names : "none");
    else if (!t->samples)
        fprintf(stderr, "mw stats: %s: channel %s has no samples\n", rundir, channel);
    mw_run_snapshot_end(s);
    mw_store_close(s);
    return rc || !t->samples ? MW_EXIT_USAGE : 0;
}

static int run_value(const st_opts *o, const char *rundir, st_quantity q, double *value)
{
    mw_window_totals t;
    double *power_w;
    int rc = read_trace(rundir, o->channel, &power_w, &t);
    if (rc) {
        free(power_w);
        return rc;
    }
    rc = MW_EXIT_USAGE;
    if (q == Q_ENERGY) {
        *value = (double)t.window_pj / 1e12;
        rc = 0;
    } else if (q == Q_MEAN_POWER) {
        if (t.covered_ns > 0) {
            *value = (double)t.window_pj / (double)t.covered_ns / 1000;
            rc = 0;
        } else {
            fprintf(stderr, "mw stats: %s: channel %s: its windows have no length\n", rundir,
                    o->channel);
        }
    } else {
        mw_levels L;
        int e = o->gmm ? mw_levels_gmm(power_w, (size_t)t.samples, &L)
                       : mw_levels_kde(power_w, (size_t)t.samples, &L);
        if (e)
            fprintf(stderr, "mw stats: %s: channel %s: no power levels: %s\n", rundir, o->channel,
                    L.note);
        else if (!L.bimodal)
            fprintf(stderr, "mw stats: %s: channel %s has one power level, no %s: %s\n", rundir,
                    o->channel, q_names[q], L.note);
        else {
            *value = q == Q_POW_IDLE ? L.idle_w : L.work_w;
            rc = 0;
        }
    }
    free(power_w);
    return rc;
}

/* ---- statistics and output ---------------------------------------------------------- */

/* Every run's value, then the groups' figures and tests. 0, or an exit code. */
static int compute(st_opts *o, mw_stats_comparison *T)
{
    mw_stats_group *f = mw_xcalloc(o->ngroups, sizeof *f);
    int rc = 0;
    for (size_t k = 0; k < o->ngroups && !rc; k++) {
        st_group *g = &o->groups[k];
        for (size_t r = 0; r < g->nruns && !rc; r++)
            rc = run_value(o, g->runs[r], g->q, &g->values[r]);
        f[k] = (mw_stats_group){.values = g->values, .n = g->nruns};
    }
    if (!rc) {
        mw_stats_compare_groups(f, o->ngroups, o->confidence, T);
        for (size_t k = 0; k < o->ngroups; k++)
            o->groups[k].fig = f[k];
    }
    free(f);
    return rc;
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

static void print_json(const st_opts *o, const mw_stats_comparison *T)
{
    printf("{\n  \"schema\": \"" MW_SCHEMA_STATS "\",\n  \"channel\": ");
    mw_out_json_string(stdout, o->channel);
    printf(",\n  \"method\": \"%s\",\n  \"confidence\": %g,\n  \"groups\": [",
           o->gmm ? "gmm" : "kde", o->confidence);
    for (size_t k = 0; k < o->ngroups; k++) {
        const st_group *g = &o->groups[k];
        printf("%s\n    {\"name\": ", k ? "," : "");
        mw_out_json_string(stdout, g->name);
        printf(", \"quantity\": \"%s\", \"unit\": \"%s\", \"n\": %zu, \"mean\": ", q_names[g->q],
               q_unit(g->q), g->nruns);
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
static void two_labels(const char *test, const st_opts *o)
{
    fputs(test, stdout);
    mw_out_text(stdout, o->groups[0].label);
    printf(" vs ");
    mw_out_text(stdout, o->groups[1].label);
}

static void print_text(const st_opts *o, const mw_stats_comparison *T)
{
    const char *method = o->gmm ? "Gaussian mixture" : "kernel density";
    int any_levels = 0, wname = 5, wq = 8, wrun = 3;
    for (size_t k = 0; k < o->ngroups; k++) {
        const st_group *g = &o->groups[k];
        any_levels |= g->q == Q_POW_IDLE || g->q == Q_POW_WORK;
        wname = max_int(wname, mw_out_text_width(g->name));
        wq = max_int(wq, (int)strlen(q_names[g->q]));
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
        const st_group *g = &o->groups[k];
        const char *u = q_unit(g->q);
        char sd[32] = "-", ci[96] = "-";
        if (g->fig.has_sd) snprintf(sd, sizeof sd, "%.3f %s", g->fig.sd, u);
        if (g->fig.has_ci) snprintf(ci, sizeof ci, "[%.3f, %.3f] %s", g->fig.lo, g->fig.hi, u);
        mw_out_text_pad(stdout, g->name, wname);
        printf("  %-*s  %4zu  %12.3f %s  %12s  %s\n", wq, q_names[g->q], g->nruns, g->fig.mean, u,
               sd, ci);
    }
    printf("\n%-*s  %-*s  %s\n", wname, "group", wrun, "run", "value");
    for (size_t k = 0; k < o->ngroups; k++) {
        const st_group *g = &o->groups[k];
        for (size_t r = 0; r < g->nruns; r++) {
            mw_out_text_pad(stdout, g->name, wname);
            fputs("  ", stdout);
            mw_out_text_pad(stdout, g->runs[r], wrun);
            printf("  %.3f %s\n", g->values[r], q_unit(g->q));
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

int cmd_stats(int argc, char **argv)
{
    st_opts o = {.confidence = 0.95};
    int rc = parse_args(argc, argv, &o);
    if (rc < 0) {
        mw_stats_comparison T;
        rc = compute(&o, &T);
        if (!rc) {
            if (o.json)
                print_json(&o, &T);
            else
                print_text(&o, &T);
            if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "mw stats: standard output: write error\n");
                rc = MW_EXIT_FAIL;
            }
        }
    }
    opts_free(&o);
    return rc;
}
