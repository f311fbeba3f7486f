/* cmd_dvfs — "mw dvfs RUNDIR [--freqs LIST] [--pd W | --pd NODE=W,...] [--ps-fraction X |
 * --ps W] [--method maxdist|edp|rr|oracle|all] [--json]": choose a CPU frequency for every
 * rank of a recorded MPI run with seed 003's models (models/dvfs.h), as if the run were one
 * iteration measured at the highest frequency, and print each method's gears and its
 * predicted energy saving, performance degradation and distance.
 *
 * From the run (read-only, one read transaction):
 *  - each rank's times, from its phases (all kinds but mw, mark, counter): its span runs from
 *    the end of MPI_Init (else its first phase's start) to the start of MPI_Finalize (else its
 *    last phase's end); T_cm is the length of the union of its communication phases (kinds
 *    comm, wait and mpi, MPI_Init/MPI_Finalize excepted) inside the span — waits at barriers
 *    are the slack the model counts as communication; T_cp is the rest of the span;
 *  - each rank's dynamic power P_d by eq. 3.15: for each channel measuring it, the largest
 *    window power minus the smallest over the whole run (record with --idle S so that the
 *    smallest is idle), shared equally among the ranks that channel measures; a rank is
 *    measured by the channels whose host is its host, else by the channels without a host
 *    (every channel when none names a host) — the rule of mw analyze;
 *  - P_s = X P_d (--ps-fraction, default 0.20 as in the thesis's experiments) or --ps W.
 * Gears: --freqs (GHz), else this machine's cpufreq table (kHz; MW_CPUFREQ_FILE overrides the
 * path, for tests). Every rank gets the same table; the model is the heterogeneous
 * synchronous cluster (eq. 3.1-3.4), which is the homogeneous one when the ranks are alike.
 * Unusable input is a one-line message naming what is missing and how to give it, exit 2.
 * No NaN or inf is printed: a figure that does not exist is "-" in text and null in JSON. */
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "mw_phase_class.h"
#include "dvfs.h"
#include "energy.h"
#include "mw_store.h"
#include "textout.h"

#define DEFAULT_CPUFREQ "/sys/devices/system/cpu/cpu0/cpufreq/scaling_available_frequencies"
#define DEFAULT_PS_FRACTION 0.20
#define ORACLE_MAX_COMBOS 1000000ULL
#define MAX_GEARS 256

enum { M_MAXDIST = 1, M_EDP = 2, M_RR = 4, M_ORACLE = 8, M_ALL = 15 };

typedef struct {
    const char *rundir;
    const char *freqs, *pd;
    int has_ps;  /* --ps given */
    double ps_w; /* its value, W */
    double ps_fraction;
    int methods, json;
} dv_opts;

typedef struct {
    int rank;
    char *host;
    double tcp_s, tcm_s, pd_w, ps_w;
    int pd_given;
} dv_rank;

typedef struct {
    int channel;
    char *name, *host;
    double min_w, max_w;
    size_t samples, nranks;
} dv_channel;

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: mw dvfs RUNDIR [--freqs LIST] [--pd W | --pd NODE=W,...]\n"
        "               [--ps-fraction X | --ps W] [--method maxdist|edp|rr|oracle|all] "
        "[--json]\n\n"
        "Chooses a CPU frequency for every rank of a recorded MPI run with the energy and\n"
        "time models of seed 003 (Fanfakh's thesis; docs/models.md, \"DVFS\"): the run is\n"
        "taken as one iteration at the highest frequency; computation time scales with\n"
        "F_max/F, communication (and waiting) time does not; dynamic energy scales as\n"
        "(F/F_max)^2, static power is constant. Prints each method's frequency per rank, the\n"
        "predicted energy saving %%, performance degradation %% (1 - T_old/T_new) and their\n"
        "difference, the distance MaxDist maximises.\n\n"
        "  --freqs LIST       available frequencies, GHz, comma-separated (2.5,2.2,1.8);\n"
        "                     default: this machine's cpufreq table\n"
        "                     (" DEFAULT_CPUFREQ ")\n"
        "  --pd W             dynamic power of every rank, W (default: measured, eq. 3.15:\n"
        "                     max - min window power of its channels, shared among their ranks)\n"
        "  --pd NODE=W,...    dynamic power of some ranks (NODE: a rank number or a host name)\n"
        "  --ps-fraction X    static power = X times the dynamic power (default 0.20)\n"
        "  --ps W             static power of every rank, W\n"
        "  --method M         maxdist (Algorithm 5), edp (eq. 4.8 on the same search), rr\n"
        "                     (Rauber-Runger, eq. 2.3), oracle (every gear combination, up to\n"
        "                     1,000,000), or all (default)\n"
        "  --json             one JSON document: {run, model, frequencies_ghz, ps_fraction,\n"
        "                     ranks: [{rank, host, tcp_s, tcm_s, pd_w, ps_w}], time_old_s,\n"
        "                     energy_old_j, methods: [{method, freqs_ghz, time_s, energy_j,\n"
        "                     saving_pct, degradation_pct, distance_pct, edp, note}]}\n"
        "  -h, --help         this text\n");
}

static int is_opt(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return !strncmp(arg, name, len) && (arg[len] == 0 || arg[len] == '=');
}

static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);
    if (argv[*i][len] == '=') return argv[*i] + len + 1;
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

static int parse_args(int argc, char **argv, dv_opts *o)
{
    o->ps_fraction = DEFAULT_PS_FRACTION;
    o->methods = M_ALL;
    int have_fraction = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return MW_EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (is_opt(a, "--freqs")) {
            if (!(o->freqs = opt_value(argc, argv, &i, "--freqs")) || !*o->freqs)
                return mw_cli_usage_error("dvfs", "--freqs needs a list of GHz (2.5,2.2,1.8)");
        } else if (is_opt(a, "--pd")) {
            if (!(o->pd = opt_value(argc, argv, &i, "--pd")) || !*o->pd)
                return mw_cli_usage_error("dvfs", "--pd needs W or NODE=W,...");
        } else if (is_opt(a, "--ps")) {
            const char *v = opt_value(argc, argv, &i, "--ps");
            double x;
            if (!v || mw_cli_number(v, &x) || x < 0)
                return mw_cli_usage_error("dvfs", "--ps needs a static power >= 0, W");
            o->has_ps = 1;
            o->ps_w = x;
        } else if (is_opt(a, "--ps-fraction")) {
            const char *v = opt_value(argc, argv, &i, "--ps-fraction");
            double x;
            if (!v || mw_cli_number(v, &x) || x < 0)
                return mw_cli_usage_error("dvfs", "--ps-fraction needs a number >= 0 (0.2)");
            o->ps_fraction = x;
            have_fraction = 1;
        } else if (is_opt(a, "--method")) {
            const char *v = opt_value(argc, argv, &i, "--method");
            if (!v) return mw_cli_usage_error("dvfs", "--method needs maxdist|edp|rr|oracle|all");
            if (!strcmp(v, "maxdist"))
                o->methods = M_MAXDIST;
            else if (!strcmp(v, "edp"))
                o->methods = M_EDP;
            else if (!strcmp(v, "rr"))
                o->methods = M_RR;
            else if (!strcmp(v, "oracle"))
                o->methods = M_ORACLE;
            else if (!strcmp(v, "all"))
                o->methods = M_ALL;
            else
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

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Parse the gears: --freqs, else the cpufreq file. 0, or an exit code after a message. */
static int load_freqs(const dv_opts *o, double *ghz, size_t *n, char *source, size_t srclen)
{
    *n = 0;
    if (o->freqs) {
        char *copy = strdup(o->freqs), *save = NULL;
        if (!copy) return MW_EXIT_FAIL;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            double f;
            if (mw_cli_number(t, &f) || f <= 0 || f > 100 || *n == MAX_GEARS) {
                free(copy);
                return mw_cli_usage_error(
                    "dvfs", "--freqs: '%s' is not a frequency in GHz (0 < f <= 100, at most %d)", t,
                    MAX_GEARS);
            }
            ghz[(*n)++] = f;
        }
        free(copy);
        snprintf(source, srclen, "--freqs");
    } else {
        const char *path = getenv("MW_CPUFREQ_FILE");
        if (!path || !*path) path = DEFAULT_CPUFREQ;
        FILE *f = fopen(path, "r");
        if (f) {
            double khz;
            while (*n < MAX_GEARS && fscanf(f, "%lf", &khz) == 1)
                if (isfinite(khz) && khz > 0) ghz[(*n)++] = khz / 1e6;
            fclose(f);
        }
        if (!*n)
            return mw_cli_usage_error("dvfs",
                                      "no frequency table: give the available frequencies with "
                                      "--freqs GHz,GHz,... (%s is %s)",
                                      path, f ? "empty" : "not there");
        snprintf(source, srclen, "%s", path);
    }
    qsort(ghz, *n, sizeof *ghz, cmp_desc);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (!k || ghz[i] < ghz[k - 1]) ghz[k++] = ghz[i];
    *n = k;
    return 0;
}

/* ---- the run -------------------------------------------------------------------------------- */

typedef struct {
    int64_t a, b;
} span;

/* communication and waiting (slack), also a program's own waiting phases (phase_class.h) */
static int is_comm(const char *k, const char *name)
{
    return !strcmp(k, "comm") || !strcmp(k, "wait") || !strcmp(k, "mpi") ||
           mw_phase_user_waiting(k, name);
}

static int is_init(const char *n)
{
    return !strcmp(n, "MPI_Init") || !strcmp(n, "MPI_Init_thread");
}

typedef struct {
    dv_rank *ranks;
    size_t nranks;
    dv_channel *chans;
    size_t nchans;
} dv_run;

static void run_free(dv_run *r)
{
    for (size_t i = 0; i < r->nranks; i++)
        free(r->ranks[i].host);
    for (size_t i = 0; i < r->nchans; i++)
        free(r->chans[i].name), free(r->chans[i].host);
    free(r->ranks);
    free(r->chans);
}

/* One rank's phases (kind, name, start, end) -> T_cp, T_cm. 0, or -1 (no memory). */
static int rank_times(const span *ph, const unsigned char *comm, const unsigned char *init,
                      const unsigned char *fin, size_t n, dv_rank *r)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, init_end = INT64_MIN, fin_start = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        if (ph[i].a < lo) lo = ph[i].a;
        if (ph[i].b > hi) hi = ph[i].b;
        if (init[i] && ph[i].b > init_end) init_end = ph[i].b;
        if (fin[i] && ph[i].a < fin_start) fin_start = ph[i].a;
    }
    if (init_end != INT64_MIN) lo = init_end;
    if (fin_start != INT64_MAX) hi = fin_start;
    if (hi <= lo) {
        r->tcp_s = r->tcm_s = 0;
        return 0;
    }
    /* the union of the communication phases within [lo, hi) (models/energy.h) */
    mw_energy_span *cs = malloc((n ? n : 1) * sizeof *cs);
    if (!cs) return -1;
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (comm[i] && !init[i] && !fin[i]) cs[nc++] = (mw_energy_span){ph[i].a, ph[i].b};
    nc = mw_energy_spans_union(cs, nc);
    nc = mw_energy_spans_clip(cs, nc, lo, hi);
    int64_t cm = mw_energy_spans_length_ns(cs, nc);
    free(cs);
    r->tcm_s = (double)cm / 1e9;
    r->tcp_s = (double)(hi - lo - cm) / 1e9;
    return 0;
}

static int read_run(const char *rundir, dv_run *run)
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
    sqlite3 *db = mw_store_db(s);
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    int rc = MW_EXIT_FAIL, step;
    sqlite3_stmt *st = NULL;
    span *ph = NULL;
    unsigned char *comm = NULL, *init = NULL, *fin = NULL;
    size_t nph = 0, cap = 0;

    /* channels and their power range */
    if (sqlite3_prepare_v2(db,
                           "SELECT c.channel, c.name, c.host, min(s.power_mw), max(s.power_mw), "
                           "count(s.power_mw) FROM channels c LEFT JOIN samples s ON s.channel = "
                           "c.channel GROUP BY c.channel ORDER BY c.channel",
                           -1, &st, NULL) != SQLITE_OK)
        goto db_error;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        dv_channel *c = realloc(run->chans, (run->nchans + 1) * sizeof *c);
        if (!c) goto oom;
        run->chans = c;
        c = &c[run->nchans++];
        memset(c, 0, sizeof *c);
        c->channel = sqlite3_column_int(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        c->name = strdup(name ? name : "");
        const char *host = (const char *)sqlite3_column_text(st, 2);
        c->host = host && *host ? strdup(host) : NULL;
        c->min_w = (double)sqlite3_column_int64(st, 3) / 1000;
        c->max_w = (double)sqlite3_column_int64(st, 4) / 1000;
        c->samples = (size_t)sqlite3_column_int64(st, 5);
        if (!c->name || (host && *host && !c->host)) goto oom;
    }
    if (step != SQLITE_DONE) goto db_error;
    sqlite3_finalize(st);
    st = NULL;

    /* phases, by rank */
    if (sqlite3_prepare_v2(db,
                           "SELECT rank, host, kind, name, start_ns, end_ns FROM phases WHERE kind "
                           "NOT IN ('mw', 'mark', 'counter') ORDER BY rank, host, start_ns",
                           -1, &st, NULL) != SQLITE_OK)
        goto db_error;
    int cur_rank = 0;
    char *cur_host = NULL;
    for (;;) {
        step = sqlite3_step(st);
        if (step != SQLITE_ROW && step != SQLITE_DONE) {
            free(cur_host);
            goto db_error;
        }
        int rank = 0;
        const char *host = NULL;
        if (step == SQLITE_ROW) {
            rank = sqlite3_column_int(st, 0);
            host = (const char *)sqlite3_column_text(st, 1);
            if (!host) host = "";
        }
        if (cur_host && (step == SQLITE_DONE || rank != cur_rank || strcmp(host, cur_host))) {
            dv_rank *r = realloc(run->ranks, (run->nranks + 1) * sizeof *r);
            if (!r) {
                free(cur_host);
                goto oom;
            }
            run->ranks = r;
            r = &r[run->nranks++];
            memset(r, 0, sizeof *r);
            r->rank = cur_rank;
            r->host = cur_host;
            cur_host = NULL;
            if (rank_times(ph, comm, init, fin, nph, r) != 0) goto oom;
            nph = 0;
        }
        if (step == SQLITE_DONE) break;
        if (!cur_host) {
            cur_rank = rank;
            if (!(cur_host = strdup(host))) goto oom;
        }
        if (nph == cap) {
            cap = cap ? 2 * cap : 1024;
            span *p2 = realloc(ph, cap * sizeof *p2);
            unsigned char *c2 = realloc(comm, cap), *i2 = c2 ? realloc(init, cap) : NULL,
                          *f2 = i2 ? realloc(fin, cap) : NULL;
            if (p2) ph = p2;
            if (c2) comm = c2;
            if (i2) init = i2;
            if (f2) fin = f2;
            if (!p2 || !c2 || !i2 || !f2) {
                free(cur_host);
                goto oom;
            }
        }
        const char *kind = (const char *)sqlite3_column_text(st, 2);
        const char *name = (const char *)sqlite3_column_text(st, 3);
        ph[nph].a = sqlite3_column_int64(st, 4);
        ph[nph].b = sqlite3_column_int64(st, 5);
        comm[nph] = kind && is_comm(kind, name);
        init[nph] = name && is_init(name);
        fin[nph] = name && !strcmp(name, "MPI_Finalize");
        nph++;
    }
    rc = 0;
    goto out;
oom:
    fprintf(stderr, "mw dvfs: %s: out of memory\n", rundir);
    rc = MW_EXIT_FAIL;
    goto out;
db_error:
    fprintf(stderr, "mw dvfs: %s: %s\n", mw_store_path(s), sqlite3_errmsg(db));
    rc = MW_EXIT_FAIL;
out:
    free(ph);
    free(comm);
    free(init);
    free(fin);
    sqlite3_finalize(st);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    mw_store_close(s);
    return rc;
}

/* P_d per rank: --pd, else eq. 3.15 from the channels. 0, or an exit code. */
static int rank_powers(const dv_opts *o, dv_run *run)
{
    if (o->pd) {
        double all;
        if (!mw_cli_number(o->pd, &all)) {
            if (all < 0) return mw_cli_usage_error("dvfs", "--pd: '%s' is below 0", o->pd);
            for (size_t i = 0; i < run->nranks; i++)
                run->ranks[i].pd_w = all, run->ranks[i].pd_given = 1;
        } else {
            char *copy = strdup(o->pd), *save = NULL;
            if (!copy) return MW_EXIT_FAIL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(t, '=');
                double w;
                if (!eq || eq == t || mw_cli_number(eq + 1, &w) || w < 0) {
                    int rc = mw_cli_usage_error("dvfs", "--pd: '%s' is not NODE=W (W >= 0)", t);
                    free(copy);
                    return rc;
                }
                *eq = 0;
                int hit = 0;
                char *end;
                long rk = strtol(t, &end, 10);
                for (size_t i = 0; i < run->nranks; i++) {
                    dv_rank *r = &run->ranks[i];
                    if ((!*end && r->rank == rk) || !strcmp(r->host, t)) {
                        r->pd_w = w;
                        r->pd_given = 1;
                        hit = 1;
                    }
                }
                if (!hit) {
                    int rc = mw_cli_usage_error("dvfs", "--pd: no rank or host '%s' in the run", t);
                    free(copy);
                    return rc;
                }
            }
            free(copy);
        }
    }
    /* a channel's P_d is shared among the ranks it is attributed to (models/energy.h's rule,
     * the one mw analyze uses) */
    const char **hosts = calloc(run->nchans + 1, sizeof *hosts);
    if (!hosts) return MW_EXIT_FAIL;
    for (size_t k = 0; k < run->nchans; k++)
        hosts[k] = run->chans[k].host;
#define MEASURES(k, r) mw_energy_rank_has_channel(hosts, run->nchans, (k), (r)->host)
    for (size_t k = 0; k < run->nchans; k++)
        for (size_t i = 0; i < run->nranks; i++)
            run->chans[k].nranks += MEASURES(k, &run->ranks[i]);
    for (size_t i = 0; i < run->nranks; i++) {
        dv_rank *r = &run->ranks[i];
        if (r->pd_given) continue;
        int have = 0;
        for (size_t k = 0; k < run->nchans; k++) {
            const dv_channel *c = &run->chans[k];
            if (!c->samples || !MEASURES(k, r)) continue;
            r->pd_w += (c->max_w - c->min_w) / (double)c->nranks; /* eq. 3.15 */
            have = 1;
        }
        if (!have) {
            free(hosts);
            return mw_cli_usage_error("dvfs",
                                      "rank %d (host %s): no channel with samples measures it; "
                                      "give its dynamic power with --pd W or --pd %d=W",
                                      r->rank, r->host, r->rank);
        }
    }
#undef MEASURES
    free(hosts);
    return 0;
}

/* ---- output --------------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    int ok;
    size_t *gear;
    mw_dvfs_eval e;
    char note[160];
} dv_result;

int cmd_dvfs(int argc, char **argv)
{
    dv_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    double ghz[MAX_GEARS];
    size_t ngears;
    char source[512];
    if ((rc = load_freqs(&o, ghz, &ngears, source, sizeof source))) return rc;

    dv_run run = {0};
    if ((rc = read_run(o.rundir, &run))) {
        run_free(&run);
        return rc;
    }
    dv_result res[4];
    memset(res, 0, sizeof res);
    res[0].name = "maxdist", res[1].name = "edp", res[2].name = "rr", res[3].name = "oracle";
    double *tcp = NULL, *tcm = NULL, *pd = NULL, *ps = NULL;
    mw_dvfs_gears *gears = NULL;
    if (!run.nranks) {
        fprintf(stderr,
                "mw dvfs: %s: no phases of the program (record it under mw record with "
                "libmwprobe, or mw merge its events)\n",
                o.rundir);
        rc = MW_EXIT_USAGE;
        goto out;
    }
    if ((rc = rank_powers(&o, &run))) goto out;
    size_t n = run.nranks;
    tcp = malloc(n * sizeof *tcp), tcm = malloc(n * sizeof *tcm);
    pd = malloc(n * sizeof *pd), ps = malloc(n * sizeof *ps);
    gears = malloc(n * sizeof *gears);
    for (int k = 0; k < 4; k++)
        res[k].gear = calloc(n, sizeof *res[k].gear);
    if (!tcp || !tcm || !pd || !ps || !gears || !res[0].gear || !res[1].gear || !res[2].gear ||
        !res[3].gear) {
        fprintf(stderr, "mw dvfs: out of memory\n");
        rc = MW_EXIT_FAIL;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        dv_rank *r = &run.ranks[i];
        r->ps_w = o.has_ps ? o.ps_w : o.ps_fraction * r->pd_w;
        tcp[i] = r->tcp_s, tcm[i] = r->tcm_s, pd[i] = r->pd_w, ps[i] = r->ps_w;
        gears[i] = (mw_dvfs_gears){ghz, ngears};
    }
    mw_dvfs_problem p = {n, tcp, tcm, pd, ps, NULL, 0, gears};
    char err[256];
    if (mw_dvfs_check(&p, err, sizeof err)) {
        fprintf(stderr, "mw dvfs: %s: %s%s\n", o.rundir, err,
                strstr(err, "power") || strstr(err, "energy")
                    ? " (measured P_d is 0: give it with --pd W)"
                    : "");
        rc = MW_EXIT_USAGE;
        goto out;
    }
    mw_dvfs_eval base;
    size_t *zero = res[3].gear; /* all 0 until the oracle runs */
    mw_dvfs_evaluate_gears(&p, MW_DVFS_HETERO, zero, &base);
    if (o.methods & M_MAXDIST)
        res[0].ok = !mw_dvfs_select_maxdist(&p, MW_DVFS_HETERO, res[0].gear, &res[0].e);
    if (o.methods & M_EDP)
        res[1].ok = !mw_dvfs_select_edp(&p, MW_DVFS_HETERO, res[1].gear, &res[1].e);
    if (o.methods & M_RR) {
        res[2].ok = !mw_dvfs_select_rr(&p, MW_DVFS_HETERO, res[2].gear, &res[2].e);
        if (!res[2].ok) snprintf(res[2].note, sizeof res[2].note, "needs static power > 0");
    }
    if (o.methods & M_ORACLE) {
        int e = mw_dvfs_oracle(&p, MW_DVFS_HETERO, MW_DVFS_MAXDIST, ORACLE_MAX_COMBOS, res[3].gear,
                               &res[3].e);
        res[3].ok = !e;
        if (e == -2)
            snprintf(res[3].note, sizeof res[3].note,
                     "skipped: %zu gears ^ %zu ranks is more than %llu combinations", ngears, n,
                     ORACLE_MAX_COMBOS);
    }
    static const int bit[4] = {M_MAXDIST, M_EDP, M_RR, M_ORACLE};

    FILE *out = stdout;
    if (o.json) {
        fprintf(out, "{\"run\": ");
        mw_out_json_string(out, o.rundir);
        fprintf(out, ", \"model\": \"heterogeneous synchronous cluster (eq. 3.1-3.4)\", "
                     "\"frequencies_source\": ");
        mw_out_json_string(out, source);
        fprintf(out, ", \"frequencies_ghz\": [");
        for (size_t k = 0; k < ngears; k++) {
            fprintf(out, "%s", k ? ", " : "");
            mw_out_json_number(out, ghz[k]);
        }
        fprintf(out, "], \"ps_fraction\": ");
        if (o.has_ps)
            fputs("null", out);
        else
            mw_out_json_number(out, o.ps_fraction);
        fprintf(out, ", \"ranks\": [");
        for (size_t i = 0; i < n; i++) {
            dv_rank *r = &run.ranks[i];
            fprintf(out, "%s{\"rank\": %d, \"host\": ", i ? ", " : "", r->rank);
            mw_out_json_string(out, r->host);
            fprintf(out, ", \"tcp_s\": ");
            mw_out_json_number(out, r->tcp_s);
            fprintf(out, ", \"tcm_s\": ");
            mw_out_json_number(out, r->tcm_s);
            fprintf(out, ", \"pd_w\": ");
            mw_out_json_number(out, r->pd_w);
            fprintf(out, ", \"pd_source\": \"%s\", \"ps_w\": ", r->pd_given ? "--pd" : "measured");
            mw_out_json_number(out, r->ps_w);
            fprintf(out, "}");
        }
        fprintf(out, "], \"time_old_s\": ");
        mw_out_json_number(out, base.time_old_s);
        fprintf(out, ", \"energy_old_j\": ");
        mw_out_json_number(out, base.energy_old_j);
        fprintf(out, ", \"methods\": [");
        int first = 1;
        for (int k = 0; k < 4; k++) {
            if (!(o.methods & bit[k])) continue;
            dv_result *m = &res[k];
            fprintf(out, "%s{\"method\": \"%s\", \"freqs_ghz\": ", first ? "" : ", ", m->name);
            first = 0;
            if (m->ok) {
                fputc('[', out);
                for (size_t i = 0; i < n; i++) {
                    fprintf(out, "%s", i ? ", " : "");
                    mw_out_json_number(out, ghz[m->gear[i]]);
                }
                fputc(']', out);
            } else {
                fputs("null", out);
            }
            const double v[] = {m->e.time_s,          m->e.energy_j,     m->e.saving_pct,
                                m->e.degradation_pct, m->e.distance_pct, m->e.edp};
            const char *names[] = {"time_s",          "energy_j",     "saving_pct",
                                   "degradation_pct", "distance_pct", "edp"};
            for (int j = 0; j < 6; j++) {
                fprintf(out, ", \"%s\": ", names[j]);
                mw_out_json_number(out, m->ok ? v[j] : NAN);
            }
            fprintf(out, ", \"note\": ");
            if (*m->note)
                mw_out_json_string(out, m->note);
            else
                fputs("null", out);
            fputc('}', out);
        }
        fprintf(out, "]}\n");
    } else {
        fprintf(out,
                "%s: %zu rank%s, model: heterogeneous synchronous cluster (seed 003 eq. "
                "3.1-3.4)\n",
                o.rundir, n, n == 1 ? "" : "s");
        fprintf(out, "gears: %zu, %.3f..%.3f GHz (from %s)\n", ngears, ghz[0], ghz[ngears - 1],
                source);
        if (o.has_ps)
            fprintf(out, "static power: %g W per rank (--ps)\n", o.ps_w);
        else
            fprintf(out, "static power: %.2f x dynamic power\n", o.ps_fraction);
        fprintf(out, "\n%6s  %-16s %10s %10s %9s %9s\n", "rank", "host", "T_cp (s)", "T_cm (s)",
                "P_d (W)", "P_s (W)");
        for (size_t i = 0; i < n; i++) {
            dv_rank *r = &run.ranks[i];
            fprintf(out, "%6d  %-16s %10.6f %10.6f %9.3f %9.3f%s\n", r->rank, r->host, r->tcp_s,
                    r->tcm_s, r->pd_w, r->ps_w, r->pd_given ? "  (--pd)" : "");
        }
        fprintf(out, "\nat the highest frequency: time %.6f s, energy %.6f J (model)\n\n",
                base.time_old_s, base.energy_old_j);
        fprintf(out, "%-8s %10s %13s %9s %11s %12s  %s\n", "method", "saving %", "degradation %",
                "distance", "time (s)", "energy (J)", "GHz per rank");
        for (int k = 0; k < 4; k++) {
            if (!(o.methods & bit[k])) continue;
            dv_result *m = &res[k];
            if (!m->ok) {
                fprintf(out, "%-8s %10s %13s %9s %11s %12s  %s\n", m->name, "-", "-", "-", "-", "-",
                        *m->note ? m->note : "no result");
                continue;
            }
            fprintf(out, "%-8s %10.2f %13.2f %9.2f %11.6f %12.6f  ", m->name, m->e.saving_pct,
                    m->e.degradation_pct, m->e.distance_pct, m->e.time_s, m->e.energy_j);
            for (size_t i = 0; i < n; i++)
                fprintf(out, "%s%.3f", i ? "," : "", ghz[m->gear[i]]);
            fputc('\n', out);
        }
    }
    rc = MW_EXIT_OK;
out:
    free(tcp);
    free(tcm);
    free(pd);
    free(ps);
    free(gears);
    for (int k = 0; k < 4; k++)
        free(res[k].gear);
    run_free(&run);
    return rc;
}
