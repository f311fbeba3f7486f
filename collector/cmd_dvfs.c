/* cmd_dvfs — "mw dvfs RUNDIR [--freqs LIST] [--pd W | --pd NODE=W,...] [--ps-fraction X |
 * --ps W] [--method maxdist|edp|rr|oracle|all] [--json]": choose a CPU frequency for every
 * rank of a recorded MPI run with Fanfakh's models (models/include/dvfs.h), as if the run were one
 * iteration measured at the highest frequency, and print each method's gears and its
 * predicted energy saving, performance degradation and distance.
 *
 * The run is read in one snapshot into the model's inputs by models/include/dvfs_run.h (each rank's
 * T_cp, T_cm from its phases; its P_d by eq. 3.15 from its channels' power range, record
 * with --idle S so that the smallest is idle, unless --pd gives it); P_s = X P_d
 * (--ps-fraction, default 0.20 as in the thesis's experiments) or --ps W. Gears: --freqs
 * (GHz), else this machine's cpufreq table (kHz; MW_CPUFREQ_FILE overrides the path, for
 * tests), read by mw_dvfs_gears_load (models/include/dvfs_run.h, shared with mw plot --kind dvfs),
 * the same table for every rank; the model is the heterogeneous synchronous cluster (eq. 3.1-3.4).
 * Unusable input is a one-line message naming what is missing and how to give it, exit 2. No NaN or
 * inf is printed: a figure that does not exist is "-" in text and null in JSON. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "dvfs.h"
#include "dvfs_run.h"
#include "longopt.h"
#include "mw_alloc.h"
#include "mw_run.h"
#include "mw_store.h"
#include "textout.h"
#include "json_schema.h"

/* the defaults and the gear table are models/include/dvfs_run.h's, shared with mw plot --kind dvfs
 */
#define DEFAULT_CPUFREQ MW_DVFS_CPUFREQ_FILE
#define DEFAULT_PS_FRACTION MW_DVFS_PS_FRACTION
#define ORACLE_MAX_COMBOS MW_DVFS_ORACLE_MAX_COMBOS
#define MAX_GEARS MW_DVFS_MAX_GEARS
#define DV_MAX_W MW_DVFS_MAX_PD_W /* --ps, --pd: watts, at most */

/* --method: models/include/dvfs_run.h's selector 1 << k is method_names[k] */
#define M_ALL 15
static const char *const method_names[4] = {"maxdist", "edp", "rr", "oracle"};

typedef struct {
    const char *rundir;
    const char *freqs, *pd;
    int has_ps;  /* --ps given */
    double ps_w; /* its value, W */
    double ps_fraction;
    int methods, json;
} dv_opts;

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: mw dvfs RUNDIR [--freqs LIST] [--pd W | --pd NODE=W,...]\n"
        "               [--ps-fraction X | --ps W] [--method maxdist|edp|rr|oracle|all] "
        "[--json]\n\n"
        "Chooses a CPU frequency for every rank of a recorded MPI run with the energy and\n"
        "time models of Fanfakh's PhD thesis (2016; docs/models.md, \"DVFS\"): the run is\n"
        "taken as one iteration at the highest frequency; computation time scales with\n"
        "F_max/F, communication (and waiting) time does not; dynamic energy scales as\n"
        "(F/F_max)^2, static power is constant. Prints each method's frequency per rank, the\n"
        "predicted energy saving %%, performance degradation %% (1 - T_old/T_new) and their\n"
        "difference, the distance MaxDist maximises.\n\n"
        "  --freqs LIST       available frequencies, GHz, comma-separated (2.5,2.2,1.8);\n"
        "                     default: this machine's cpufreq table\n"
        "                     (" DEFAULT_CPUFREQ ")\n"
        "  --pd W             dynamic power of every rank, 0 to 1e6 W (default: measured, eq. "
        "3.15:\n"
        "                     max - min window power of its channels, shared among their ranks)\n"
        "  --pd NODE=W,...    dynamic power of some ranks (NODE: a rank number or a host name)\n"
        "  --ps-fraction X    static power = X times the dynamic power (0 to 100; default 0.20)\n"
        "  --ps W             static power of every rank, 0 to 1e6 W\n"
        "  --method M         maxdist (Algorithm 5), edp (eq. 4.8 on the same search), rr\n"
        "                     (Rauber-Runger, eq. 2.3), oracle (every gear combination, up to\n"
        "                     1,000,000), or all (default)\n"
        "  --json             one JSON document: {run, model, frequencies_ghz, ps_fraction,\n"
        "                     ranks: [{rank, host, tcp_s, tcm_s, pd_w, ps_w}], time_old_s,\n"
        "                     energy_old_j, methods: [{method, freqs_ghz, time_s, energy_j,\n"
        "                     saving_pct, degradation_pct, distance_pct, edp, note}]}\n"
        "  -h, --help         this text\n");
}

/* --ps W or --ps-fraction X: a number in [0, max]. -1 to go on, or the exit status. */
static int nonneg_opt(int argc, char **argv, int *i, const char *name, double max, const char *unit,
                      double *x)
{
    const char *v = mw_longopt_value(argc, argv, i, name);
    if (!v) return mw_cli_usage_error("dvfs", "%s needs a value", name);
    int rc = mw_cli_double("dvfs", name, v, 0, max, unit, x);
    return rc ? rc : -1;
}

static int parse_args(int argc, char **argv, dv_opts *o)
{
    o->ps_fraction = DEFAULT_PS_FRACTION;
    o->methods = M_ALL;
    int have_fraction = 0, rc;
    static const char *const once[] = {"--freqs",       "--pd",     "--ps",
                                       "--ps-fraction", "--method", NULL};
    mw_cli_seen seen = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((rc = mw_longopt_once("dvfs", &seen, a, once))) return rc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return MW_EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (mw_longopt_is(a, "--freqs")) {
            if (!(o->freqs = mw_longopt_value(argc, argv, &i, "--freqs")) || !*o->freqs)
                return mw_cli_usage_error("dvfs", "--freqs needs a list of GHz (2.5,2.2,1.8)");
        } else if (mw_longopt_is(a, "--pd")) {
            if (!(o->pd = mw_longopt_value(argc, argv, &i, "--pd")) || !*o->pd)
                return mw_cli_usage_error("dvfs", "--pd needs W or NODE=W,...");
        } else if (mw_longopt_is(a, "--ps")) {
            if ((rc = nonneg_opt(argc, argv, &i, "--ps", DV_MAX_W, "W", &o->ps_w)) >= 0) return rc;
            o->has_ps = 1;
        } else if (mw_longopt_is(a, "--ps-fraction")) {
            if ((rc = nonneg_opt(argc, argv, &i, "--ps-fraction", 100, "", &o->ps_fraction)) >= 0)
                return rc;
            have_fraction = 1;
        } else if (mw_longopt_is(a, "--method")) {
            const char *v = mw_longopt_value(argc, argv, &i, "--method");
            if (!v) return mw_cli_usage_error("dvfs", "--method needs maxdist|edp|rr|oracle|all");
            o->methods = !strcmp(v, "all") ? M_ALL : 0;
            for (int k = 0; k < 4; k++)
                if (!strcmp(v, method_names[k])) o->methods = 1 << k;
            if (!o->methods)
                return mw_cli_usage_error(
                    "dvfs", "--method: '%s' is not maxdist, edp, rr, oracle or all", v);
        } else if (a[0] == '-' && a[1]) {
            return mw_cli_usage_error("dvfs", "unknown option '%s'", a);
        } else if (o->rundir) {
            return mw_cli_usage_error("dvfs", "one run directory only ('%s' and '%s')", o->rundir,
                                      a);
        } else {
            o->rundir = a;
        }
    }
    if (!o->rundir) return mw_cli_usage_error("dvfs", "missing RUNDIR (a run made by mw record)");
    if (o->has_ps && have_fraction)
        return mw_cli_usage_error("dvfs", "--ps and --ps-fraction exclude each other");
    return -1;
}

/* The gears: --freqs, else the cpufreq file; highest first, each once
 * (mw_dvfs_gears_load). 0, or an exit code after a message. */
static int load_freqs(const dv_opts *o, double *ghz, size_t *n, char *source, size_t srclen)
{
    char err[8192];
    if (mw_dvfs_gears_load(o->freqs, ghz, n, source, srclen, err, sizeof err))
        return mw_cli_usage_error("dvfs", "%s", err);
    return 0;
}

/* ---- the run -------------------------------------------------------------------------------- */

/* Read the run (models/include/dvfs_run.h) in one snapshot. 0, or an exit code after a message. */
static int read_run(const char *rundir, mw_dvfs_run *run)
{
    if (!mw_store_exists(rundir)) {
        fprintf(stderr, "mw dvfs: %s: not a run (no %s there; make one with mw record)\n", rundir,
                MW_STORE_DB_NAME);
        return MW_EXIT_USAGE;
    }
    char err[1024];
    mw_store *s = mw_store_open(rundir, err, sizeof err);
    if (!s) {
        fprintf(stderr, "mw dvfs: %s\n", err);
        return MW_EXIT_USAGE;
    }
    mw_run_snapshot_begin(s);
    int rc = MW_EXIT_OK;
    if (mw_dvfs_run_read(s, run)) {
        fprintf(stderr, "mw dvfs: %s\n", mw_store_error(s));
        rc = MW_EXIT_FAIL;
    }
    mw_run_snapshot_end(s);
    mw_store_close(s);
    return rc;
}

/* P_d per rank: --pd, else eq. 3.15 from the channels. 0, or an exit code after a message. */
static int rank_powers(const dv_opts *o, mw_dvfs_run *run)
{
    size_t at, len;
    int n;
    switch (mw_dvfs_run_powers(run, o->pd, &at, &len)) {
    case MW_DVFS_PD_NEGATIVE:
        return mw_cli_usage_error("dvfs", "--pd: '%s' is below 0", o->pd);
    case MW_DVFS_PD_NOT_NODE_W:
        n = (int)len;
        return mw_cli_usage_error("dvfs", "--pd: '%.*s' is not W or NODE=W (W from 0 to %g)", n,
                                  o->pd + at, MW_DVFS_MAX_PD_W);
    case MW_DVFS_PD_NO_NODE:
        n = (int)len;
        return mw_cli_usage_error("dvfs", "--pd: no rank or host '%.*s' in the run", n, o->pd + at);
    case MW_DVFS_PD_UNMEASURED:
        return mw_cli_usage_error("dvfs",
                                  "rank %d (host %s): no channel with samples measures it; "
                                  "give its dynamic power with --pd W or --pd %d=W",
                                  run->ranks[at].rank, run->ranks[at].host, run->ranks[at].rank);
    default:
        return 0;
    }
}

/* ---- the methods ---------------------------------------------------------------------------- */

typedef struct {
    const double *ghz;
    size_t ngears, n;
    const char *source;
    mw_dvfs_eval base;     /* every rank at the highest frequency */
    mw_dvfs_choice res[4]; /* maxdist, edp, rr, oracle (models/include/dvfs_run.h) */
    char note[4][160];     /* why a method has no result */
} dv_solution;

/* P_s per rank, the problem, the methods. 0, or an exit code after a message. */
static int solve(const dv_opts *o, mw_dvfs_run *run, dv_solution *v)
{
    for (size_t i = 0; i < run->nranks; i++)
        run->ranks[i].ps_w = o->has_ps ? o->ps_w : o->ps_fraction * run->ranks[i].pd_w;
    mw_dvfs_problem p;
    mw_dvfs_run_problem(run, v->ghz, v->ngears, &p);
    char err[256];
    int rc = MW_EXIT_OK;
    if (mw_dvfs_check(&p, err, sizeof err)) {
        fprintf(stderr, "mw dvfs: %s: %s%s\n", o->rundir, err,
                strstr(err, "power") || strstr(err, "energy")
                    ? " (measured P_d is 0: give it with --pd W)"
                    : "");
        rc = MW_EXIT_USAGE;
    } else {
        mw_dvfs_choose(&p, MW_DVFS_HETERO, (unsigned)o->methods, ORACLE_MAX_COMBOS, &v->base,
                       v->res);
        if ((o->methods & MW_DVFS_BY_RR) && !v->res[2].ok)
            snprintf(v->note[2], sizeof v->note[2], "needs static power > 0");
        if (v->res[3].too_many)
            snprintf(v->note[3], sizeof v->note[3],
                     "skipped: %zu gears ^ %zu ranks is more than %llu combinations", v->ngears,
                     p.n, ORACLE_MAX_COMBOS);
    }
    mw_dvfs_run_problem_free(&p);
    return rc;
}

/* ---- output --------------------------------------------------------------------------------- */

/* , "key": number (null when not finite) */
static void json_num(FILE *out, const char *key, double v)
{
    fprintf(out, ", \"%s\": ", key);
    mw_out_json_number(out, v);
}

/* [ghz[gear[0]], ...] of n gears (gear NULL: ghz[0..n)) */
static void json_ghz(FILE *out, const double *ghz, const size_t *gear, size_t n)
{
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s", i ? ", " : "");
        mw_out_json_number(out, ghz[gear ? gear[i] : i]);
    }
    fputc(']', out);
}

static void json_ranks(FILE *out, const mw_dvfs_run *run)
{
    fprintf(out, ", \"ranks\": [");
    for (size_t i = 0; i < run->nranks; i++) {
        const mw_dvfs_rank *r = &run->ranks[i];
        fprintf(out, "%s{\"rank\": %d, \"host\": ", i ? ", " : "", r->rank);
        mw_out_json_string(out, r->host);
        json_num(out, "tcp_s", r->tcp_s);
        json_num(out, "tcm_s", r->tcm_s);
        json_num(out, "pd_w", r->pd_w);
        fprintf(out, ", \"pd_source\": \"%s\"", r->pd_given ? "--pd" : "measured");
        json_num(out, "ps_w", r->ps_w);
        fprintf(out, "}");
    }
    fprintf(out, "]");
}

static void json_method(FILE *out, const dv_solution *v, int k)
{
    const mw_dvfs_choice *m = &v->res[k];
    fprintf(out, "{\"method\": \"%s\", \"freqs_ghz\": ", method_names[k]);
    if (m->ok)
        json_ghz(out, v->ghz, m->gear, v->n);
    else
        fputs("null", out);
    const double x[] = {m->e.time_s,          m->e.energy_j,     m->e.saving_pct,
                        m->e.degradation_pct, m->e.distance_pct, m->e.edp};
    const char *names[] = {"time_s",          "energy_j",     "saving_pct",
                           "degradation_pct", "distance_pct", "edp"};
    for (int j = 0; j < 6; j++)
        json_num(out, names[j], m->ok ? x[j] : NAN);
    fprintf(out, ", \"note\": ");
    if (*v->note[k])
        mw_out_json_string(out, v->note[k]);
    else
        fputs("null", out);
    fputc('}', out);
}

static void print_json(FILE *out, const dv_opts *o, const mw_dvfs_run *run, const dv_solution *v)
{
    fputs("{\"schema\": \"" MW_SCHEMA_DVFS "\", \"run\": ", out);
    mw_out_json_string(out, o->rundir);
    fprintf(out, ", \"model\": \"heterogeneous synchronous cluster (eq. 3.1-3.4)\", "
                 "\"frequencies_source\": ");
    mw_out_json_string(out, v->source);
    fprintf(out, ", \"frequencies_ghz\": ");
    json_ghz(out, v->ghz, NULL, v->ngears);
    json_num(out, "ps_fraction", o->has_ps ? NAN : o->ps_fraction);
    json_ranks(out, run);
    json_num(out, "time_old_s", v->base.time_old_s);
    json_num(out, "energy_old_j", v->base.energy_old_j);
    fprintf(out, ", \"methods\": [");
    int first = 1;
    for (int k = 0; k < 4; k++) {
        if (!(o->methods & (1 << k))) continue;
        fputs(first ? "" : ", ", out);
        first = 0;
        json_method(out, v, k);
    }
    fprintf(out, "]}\n");
}

static void print_text(FILE *out, const dv_opts *o, const mw_dvfs_run *run, const dv_solution *v)
{
    size_t n = run->nranks;
    mw_out_text(out, o->rundir); /* names from the run, escaped for the terminal */
    fprintf(out,
            ": %zu rank%s, model: heterogeneous synchronous cluster (Fanfakh 2016, eq. 3.1-3.4)\n",
            n, n == 1 ? "" : "s");
    fprintf(out, "gears: %zu, %.3f..%.3f GHz (from ", v->ngears, v->ghz[0], v->ghz[v->ngears - 1]);
    mw_out_text(out, v->source);
    fputs(")\n", out);
    if (o->has_ps)
        fprintf(out, "static power: %g W per rank (--ps)\n", o->ps_w);
    else
        fprintf(out, "static power: %.2f x dynamic power\n", o->ps_fraction);
    fprintf(out, "\n%6s  %-16s %10s %10s %9s %9s\n", "rank", "host", "T_cp (s)", "T_cm (s)",
            "P_d (W)", "P_s (W)");
    for (size_t i = 0; i < n; i++) {
        const mw_dvfs_rank *r = &run->ranks[i];
        fprintf(out, "%6d  ", r->rank);
        mw_out_text_pad(out, r->host, 16);
        fprintf(out, " %10.6f %10.6f %9.3f %9.3f%s\n", r->tcp_s, r->tcm_s, r->pd_w, r->ps_w,
                r->pd_given ? "  (--pd)" : "");
    }
    fprintf(out, "\nat the highest frequency: time %.6f s, energy %.6f J (model)\n\n",
            v->base.time_old_s, v->base.energy_old_j);
    fprintf(out, "%-8s %10s %13s %9s %11s %12s  %s\n", "method", "saving %", "degradation %",
            "distance", "time (s)", "energy (J)", "GHz per rank");
    for (int k = 0; k < 4; k++) {
        const mw_dvfs_choice *m = &v->res[k];
        if (!(o->methods & (1 << k))) continue;
        if (!m->ok) {
            fprintf(out, "%-8s %10s %13s %9s %11s %12s  %s\n", method_names[k], "-", "-", "-", "-",
                    "-", *v->note[k] ? v->note[k] : "no result");
            continue;
        }
        fprintf(out, "%-8s %10.2f %13.2f %9.2f %11.6f %12.6f  ", method_names[k], m->e.saving_pct,
                m->e.degradation_pct, m->e.distance_pct, m->e.time_s, m->e.energy_j);
        for (size_t i = 0; i < n; i++)
            fprintf(out, "%s%.3f", i ? "," : "", v->ghz[m->gear[i]]);
        fputc('\n', out);
    }
}

int cmd_dvfs(int argc, char **argv)
{
    dv_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    double ghz[MAX_GEARS];
    char source[512];
    dv_solution v = {.ghz = ghz, .source = source};
    if ((rc = load_freqs(&o, ghz, &v.ngears, source, sizeof source))) return rc;
    mw_dvfs_run run = {0};
    if ((rc = read_run(o.rundir, &run))) {
        mw_dvfs_run_free(&run);
        return rc;
    }
    v.n = run.nranks;
    if (!run.nranks) {
        fprintf(stderr,
                "mw dvfs: %s: no phases of the program (record it under mw record with "
                "libmwprobe, or mw merge its events)\n",
                o.rundir);
        rc = MW_EXIT_USAGE;
    } else if (!(rc = rank_powers(&o, &run)) && !(rc = solve(&o, &run, &v))) {
        if (o.json)
            print_json(stdout, &o, &run, &v);
        else
            print_text(stdout, &o, &run, &v);
    }
    for (int k = 0; k < 4; k++)
        free(v.res[k].gear);
    mw_dvfs_run_free(&run);
    return rc;
}
