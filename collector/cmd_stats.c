/* cmd_stats — "mw stats --channel NAME --quantity Q --group NAME[:Q] RUNDIR... --group ...
 * [--method kde|gmm] [--confidence P] [--json]": compare groups of runs on one per-run
 * figure of one channel, as seed 000 Table 6 compares Pow_idle and Pow_work of versions v2
 * and v3 over runs with 6 to 32 subpopulations.
 *
 * Each run gives one value: pow_idle / pow_work (W), the lower / higher level of the
 * channel's window powers by the paper's kernel-density method (models/levels.h; --method
 * gmm: the Gaussian mixture); mean_power (W), the time-weighted mean power over its windows;
 * energy (J), the energy of its windows (power x window length summed exactly in integer
 * pJ). A group's --group NAME:Q takes its own quantity (Table 6 also tests Pow_idle(v2)
 * against Pow_work(v2)); groups must share a unit. Per group: n, mean, sd and the Student-t
 * interval of the mean; two groups: two-sample Kolmogorov–Smirnov and Mann–Whitney; two or
 * more: Kruskal–Wallis (models/stats.h, two-sided p-values).
 *
 * Every run is read read-only inside one read transaction (one snapshot): the channel's
 * windows through the (channel, t1_ns) index, three columns. Arguments are parsed by hand,
 * not by getopt, because a group's run directories follow its --group in order. Unusable
 * input — bad usage, a directory that is not a run or cannot be opened, a missing channel, a
 * channel without samples, one power level where pow_idle/pow_work is asked — is a one-line
 * message naming the run and exit 2, before anything is printed. No figure is ever NaN: one
 * that does not exist (the sd of one run) is "-" in text and null in JSON. */
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "builtin.h"
#include "cli.h"
#include "textout.h"
#include "levels.h"
#include "mw_store.h"
#include "stats.h"

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
    double *values; /* one per run */
    double mean, sd, lo, hi;
    int has_sd, has_ci;
    char label[160]; /* in the tests' lines: the name, or NAME:Q when names repeat */
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
            "Compares groups of runs on one figure of one channel, one value per run (as seed\n"
            "000 Table 6): per group the number of runs, mean, sd and the Student-t confidence\n"
            "interval of the mean; for two groups the two-sample Kolmogorov-Smirnov and\n"
            "Mann-Whitney tests, for two or more Kruskal-Wallis (two-sided p-values; exact for\n"
            "small samples without ties).\n\n"
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
            "  --confidence P     level of the intervals, 0 < P < 1 (default 0.95)\n"
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

/* The value of an option: "--opt=V" or "--opt V" (advancing *i). NULL when missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);
    if (argv[*i][len] == '=') return argv[*i] + len + 1;
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

/* Matches "--name" or "--name=..." */
static int is_opt(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return !strncmp(arg, name, len) && (arg[len] == 0 || arg[len] == '=');
}

/* Returns -1 when parsing went fine, else the exit code. */
static int parse_args(int argc, char **argv, st_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return MW_EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (is_opt(a, "--channel")) {
            const char *v = opt_value(argc, argv, &i, "--channel");
            if (!v || !*v) return mw_cli_usage_error("stats", "--channel needs a channel name");
            o->channel = v;
        } else if (is_opt(a, "--quantity")) {
            const char *v = opt_value(argc, argv, &i, "--quantity");
            if (!v) return mw_cli_usage_error("stats", "--quantity needs a value");
            if ((o->q = parse_quantity(v)) == Q_NONE)
                return mw_cli_usage_error(
                    "stats", "--quantity: '%s' is not pow_idle, pow_work, mean_power or energy", v);
        } else if (is_opt(a, "--method")) {
            const char *v = opt_value(argc, argv, &i, "--method");
            if (!v) return mw_cli_usage_error("stats", "--method needs a value");
            if (strcmp(v, "kde") && strcmp(v, "gmm"))
                return mw_cli_usage_error("stats", "--method: '%s' is not kde or gmm", v);
            o->gmm = !strcmp(v, "gmm");
        } else if (is_opt(a, "--confidence")) {
            const char *v = opt_value(argc, argv, &i, "--confidence");
            if (!v) return mw_cli_usage_error("stats", "--confidence needs a value");
            double c;
            if (mw_cli_number(v, &c) || !(c > 0 && c < 1))
                return mw_cli_usage_error("stats",
                                          "--confidence: '%s' is not a number between 0 and 1", v);
            o->confidence = c;
        } else if (is_opt(a, "--group")) {
            const char *v = opt_value(argc, argv, &i, "--group");
            if (!v || !*v || *v == '-') return mw_cli_usage_error("stats", "--group needs a name");
            st_group *gs = realloc(o->groups, (o->ngroups + 1) * sizeof *gs);
            if (!gs) return mw_cli_usage_error("stats", "out of memory");
            o->groups = gs;
            st_group *g = &gs[o->ngroups++];
            memset(g, 0, sizeof *g);
            const char *colon = strchr(v, ':');
            g->name = colon ? strndup(v, (size_t)(colon - v)) : strdup(v);
            g->runs = calloc((size_t)argc, sizeof *g->runs);
            g->values = calloc((size_t)argc, sizeof *g->values);
            if (!g->name || !g->runs || !g->values)
                return mw_cli_usage_error("stats", "out of memory");
            if (!*g->name) return mw_cli_usage_error("stats", "--group '%s': empty name", v);
            if (colon && (g->q = parse_quantity(colon + 1)) == Q_NONE)
                return mw_cli_usage_error(
                    "stats", "--group '%s': '%s' is not pow_idle, pow_work, mean_power or energy",
                    v, colon + 1);
            for (size_t k = 0; k + 1 < o->ngroups; k++)
                if (!strcmp(o->groups[k].name, g->name) && o->groups[k].q == g->q)
                    return mw_cli_usage_error("stats", "--group '%s' given twice", v);
            snprintf(g->label, sizeof g->label, "%s", v);
        } else if (a[0] == '-' && a[1]) {
            return mw_cli_usage_error("stats", "unknown option '%s'", a);
        } else {
            if (!o->ngroups)
                return mw_cli_usage_error("stats", "'%s': a run directory before any --group", a);
            st_group *g = &o->groups[o->ngroups - 1];
            g->runs[g->nruns++] = argv[i];
        }
    }
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

/* ---- one run's value ---------------------------------------------------------------- */

typedef struct {
    double *power_w;
    size_t n, cap;
    __int128 energy_pj; /* sum of power_mw x (t1_ns - t0_ns) */
    int64_t covered_ns;
} st_trace;

/* Read the channel's windows of one run. 0, or an exit code after a one-line message. */
static int read_trace(const char *rundir, const char *channel, st_trace *t)
{
    if (!mw_store_exists(rundir)) {
        fprintf(stderr, "mw stats: %s: not a run (no %s there)\n", rundir, MW_STORE_DB_NAME);
        return MW_EXIT_USAGE;
    }
    char err[1024];
    mw_store *s = mw_store_open(rundir, err, sizeof err);
    if (!s) {
        fprintf(stderr, "mw stats: %s\n", err);
        return MW_EXIT_USAGE;
    }
    sqlite3 *db = mw_store_db(s);
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    int rc = MW_EXIT_USAGE, ch = -1;
    sqlite3_stmt *st = NULL;
    char names[512] = "";
    if (sqlite3_prepare_v2(db, "SELECT channel, name FROM channels ORDER BY channel", -1, &st,
                           NULL) != SQLITE_OK)
        goto db_error;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (!name) continue;
        if (!strcmp(name, channel)) ch = sqlite3_column_int(st, 0);
        size_t len = strlen(names);
        if (len + strlen(name) + 3 < sizeof names)
            snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", name);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (ch < 0) {
        fprintf(stderr, "mw stats: %s: no channel '%s' (its channels: %s)\n", rundir, channel,
                *names ? names : "none");
        goto out;
    }
    if (sqlite3_prepare_v2(db, "SELECT power_mw, t0_ns, t1_ns FROM samples WHERE channel = ?1", -1,
                           &st, NULL) != SQLITE_OK)
        goto db_error;
    sqlite3_bind_int(st, 1, ch);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 4096;
            double *p = realloc(t->power_w, cap * sizeof *p);
            if (!p) {
                fprintf(stderr, "mw stats: %s: out of memory\n", rundir);
                rc = MW_EXIT_FAIL;
                goto out;
            }
            t->power_w = p;
            t->cap = cap;
        }
        int64_t p_mw = sqlite3_column_int64(st, 0), t0 = sqlite3_column_int64(st, 1),
                t1 = sqlite3_column_int64(st, 2);
        t->power_w[t->n++] = (double)p_mw / 1000;
        t->energy_pj += (__int128)p_mw * (t1 - t0);
        t->covered_ns += t1 - t0;
    }
    if (step != SQLITE_DONE) goto db_error;
    if (!t->n) {
        fprintf(stderr, "mw stats: %s: channel %s has no samples\n", rundir, channel);
        goto out;
    }
    rc = 0;
    goto out;
db_error:
    fprintf(stderr, "mw stats: %s: %s\n", mw_store_path(s), sqlite3_errmsg(db));
out:
    sqlite3_finalize(st);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    mw_store_close(s);
    return rc;
}

static int run_value(const st_opts *o, const char *rundir, st_quantity q, double *value)
{
    st_trace t = {0};
    int rc = read_trace(rundir, o->channel, &t);
    if (rc) {
        free(t.power_w);
        return rc;
    }
    rc = MW_EXIT_USAGE;
    if (q == Q_ENERGY) {
        *value = (double)t.energy_pj / 1e12;
        rc = 0;
    } else if (q == Q_MEAN_POWER) {
        if (t.covered_ns > 0) {
            *value = (double)t.energy_pj / (double)t.covered_ns / 1000;
            rc = 0;
        } else {
            fprintf(stderr, "mw stats: %s: channel %s: its windows have no length\n", rundir,
                    o->channel);
        }
    } else {
        mw_levels L;
        int e = o->gmm ? mw_levels_gmm(t.power_w, t.n, &L) : mw_levels_kde(t.power_w, t.n, &L);
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
    free(t.power_w);
    return rc;
}

/* ---- statistics and output ---------------------------------------------------------- */

typedef struct {
    int has_two, has_kw;
    mw_test ks, mw, kw;
} st_tests;

static int compute(st_opts *o, st_tests *T)
{
    for (size_t k = 0; k < o->ngroups; k++) {
        st_group *g = &o->groups[k];
        for (size_t r = 0; r < g->nruns; r++) {
            int rc = run_value(o, g->runs[r], g->q, &g->values[r]);
            if (rc) return rc;
        }
        g->mean = gsl_stats_mean(g->values, 1, g->nruns);
        g->has_sd = g->nruns >= 2;
        if (g->has_sd) g->sd = gsl_stats_sd_m(g->values, 1, g->nruns, g->mean);
        double m;
        g->has_ci = !mw_stats_mean_ci(g->values, g->nruns, o->confidence, &m, &g->lo, &g->hi);
    }
    memset(T, 0, sizeof *T);
    if (o->ngroups == 2) {
        const st_group *a = &o->groups[0], *b = &o->groups[1];
        T->has_two = !mw_stats_ks2(a->values, a->nruns, b->values, b->nruns, &T->ks) &&
                     !mw_stats_mann_whitney(a->values, a->nruns, b->values, b->nruns, &T->mw);
    }
    if (o->ngroups >= 2) {
        const double **v = malloc(o->ngroups * sizeof *v);
        size_t *n = malloc(o->ngroups * sizeof *n);
        if (!v || !n) {
            free(v);
            free(n);
            fprintf(stderr, "mw stats: out of memory\n");
            return MW_EXIT_FAIL;
        }
        for (size_t k = 0; k < o->ngroups; k++) {
            v[k] = o->groups[k].values;
            n[k] = o->groups[k].nruns;
        }
        T->has_kw = !mw_stats_kruskal_wallis(v, n, o->ngroups, &T->kw);
        free(v);
        free(n);
    }
    return 0;
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

static void print_json(const st_opts *o, const st_tests *T)
{
    printf("{\n  \"channel\": ");
    mw_out_json_string(stdout, o->channel);
    printf(",\n  \"method\": \"%s\",\n  \"confidence\": %g,\n  \"groups\": [",
           o->gmm ? "gmm" : "kde", o->confidence);
    for (size_t k = 0; k < o->ngroups; k++) {
        const st_group *g = &o->groups[k];
        printf("%s\n    {\"name\": ", k ? "," : "");
        mw_out_json_string(stdout, g->name);
        printf(", \"quantity\": \"%s\", \"unit\": \"%s\", \"n\": %zu, \"mean\": ", q_names[g->q],
               q_unit(g->q), g->nruns);
        json_num(stdout, 1, g->mean, "%.6f");
        printf(", \"sd\": ");
        json_num(stdout, g->has_sd, g->sd, "%.6f");
        printf(", \"ci_low\": ");
        json_num(stdout, g->has_ci, g->lo, "%.6f");
        printf(", \"ci_high\": ");
        json_num(stdout, g->has_ci, g->hi, "%.6f");
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

static void print_text(const st_opts *o, const st_tests *T)
{
    const char *method = o->gmm ? "Gaussian mixture" : "kernel density";
    int any_levels = 0, wname = 5, wq = 8, wrun = 3;
    for (size_t k = 0; k < o->ngroups; k++) {
        const st_group *g = &o->groups[k];
        any_levels |= g->q == Q_POW_IDLE || g->q == Q_POW_WORK;
        wname = max_int(wname, (int)strlen(g->name));
        wq = max_int(wq, (int)strlen(q_names[g->q]));
        for (size_t r = 0; r < g->nruns; r++)
            wrun = max_int(wrun, (int)strlen(g->runs[r]));
    }
    printf("channel %s", o->channel);
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
        if (g->has_sd) snprintf(sd, sizeof sd, "%.3f %s", g->sd, u);
        if (g->has_ci) snprintf(ci, sizeof ci, "[%.3f, %.3f] %s", g->lo, g->hi, u);
        printf("%-*s  %-*s  %4zu  %12.3f %s  %12s  %s\n", wname, g->name, wq, q_names[g->q],
               g->nruns, g->mean, u, sd, ci);
    }
    printf("\n%-*s  %-*s  %s\n", wname, "group", wrun, "run", "value");
    for (size_t k = 0; k < o->ngroups; k++) {
        const st_group *g = &o->groups[k];
        for (size_t r = 0; r < g->nruns; r++)
            printf("%-*s  %-*s  %.3f %s\n", wname, g->name, wrun, g->runs[r], g->values[r],
                   q_unit(g->q));
    }
    if (!T->has_two && !T->has_kw) return;
    printf("\ntests (two-sided)\n");
    if (T->has_two) {
        printf("  Kolmogorov-Smirnov  %s vs %s: D = %.4f, p = %.4g (%s)\n", o->groups[0].label,
               o->groups[1].label, T->ks.statistic, T->ks.p, T->ks.exact ? "exact" : "asymptotic");
        printf("  Mann-Whitney        %s vs %s: U = %.1f, p = %.4g (%s)\n", o->groups[0].label,
               o->groups[1].label, T->mw.statistic, T->mw.p,
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
        st_tests T;
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
