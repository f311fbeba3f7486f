/* cmd_sweep — "mw sweep -o SWEEPDIR --param NAME=V1,V2,... [--reps N | --precision P%] --
 * CMD...": record CMD once per repetition of every configuration (the cartesian product of
 * the parameters' values) with `mw record`, into one run directory each, indexed in
 * SWEEPDIR/sweep.db (sweepindex.h, docs/sweep.md).
 *
 * Design. Everything the command line says is checked before anything is created: the
 * parameters, the placeholders ({NAME} in CMD's words: an unknown one, or a parameter
 * used nowhere, is bad usage), the repetitions. Each run is a child process, this very
 * executable (/proc/self/exe) started with posix_spawn and an argument vector (no shell):
 * `mw record -o RUNDIR [--meter M] [--idle S] [--channels L] --quiet -- CMD...` with the
 * placeholders replaced (substring substitution; other braces are left alone). The order
 * interleaves the configurations: round r runs repetition r of every configuration, and
 * round r starts at configuration (r - 1) mod C (a rotation: over C rounds every
 * configuration holds every position once, so a slow drift of the machine does not load
 * one configuration more). The index is written before and after every run (status
 * planned -> running -> done | failed), so an interrupted sweep resumes: the same command
 * again skips the runs marked done and redoes the others (their partial directories are
 * removed first, only ever inside SWEEPDIR/runs). With --precision a configuration is
 * repeated until the Student-t 95 % half-width of the mean of both its command's wall time
 * and its energy (all channels, over the command) is within P of the mean
 * (models/precision.h), at least 3 and at most --max-reps times; the energy of a run comes
 * from its windows (models/energy.h, exact pro rata). SIGINT/SIGTERM are passed on to the
 * running `mw record` (which passes them to CMD; a terminal's Ctrl-C reached both
 * already), the run goes back to planned, and the sweep exits 128 + the signal. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <gsl/gsl_statistics_double.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "energy.h"
#include "energy_store.h"
#include "mw_fs.h"
#include "mw_store.h"
#include "precision.h"
#include "mw_sweepindex.h"
#include "sysinfo.h"

extern char **environ;

#define CMD "sweep"
#define SW_MAX_PARAMS 32
#define SW_MAX_CONFIGS 10000
#define SW_MAX_RUNS 100000
#define SW_MIN_REPS 3
#define SW_DEFAULT_REPS 3
#define SW_DEFAULT_MAX_REPS 10
#define SW_NAME_MAX 160 /* run directory names: the label's first 160 characters */
#define SW_TICK_NS 20000000LL
#define SW_BAR_NS 500000000LL

/* ---- options ------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    char *buf; /* the value list, split in place */
    const char **values;
    size_t nvalues;
} sw_param;

typedef struct {
    const char *out;
    sw_param p[SW_MAX_PARAMS];
    size_t np;
    int reps, have_reps;
    double rel; /* fraction, > 0 with --precision */
    int precision, max_reps, have_max;
    const char *meter, *idle, *channels;
    int cmdc;
    char **cmd;
} sw_opts;

typedef struct {
    int id; /* 1, 2, ... */
    char *label;
    const char **values; /* one per parameter */
    char name[SW_NAME_MAX + 16];
} sw_config;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw sweep -o SWEEPDIR --param NAME=V1,V2,... [--param ...]\n"
            "                [--reps N | --precision P%% [--max-reps M]] [--meter M] [--idle S]\n"
            "                [--channels LIST] -- CMD [ARGS...]\n\n"
            "Record CMD for every combination of the parameters' values, each repetition its\n"
            "own run (mw record) in SWEEPDIR/runs/, indexed in SWEEPDIR/sweep.db\n"
            "(docs/sweep.md). {NAME} in CMD's words is replaced by the parameter's value.\n\n"
            "  -o SWEEPDIR        the sweep directory (created; an existing sweep of the same\n"
            "                     command and parameters is resumed)\n"
            "  --param NAME=V,... a parameter (NAME: letters, digits, _) and its values\n"
            "  --reps N           repetitions of every configuration (default 3)\n"
            "  --precision P%%     repeat each configuration until the mean of its command's\n"
            "                     wall time and of its energy are both within P %% at 95 %%\n"
            "                     confidence (Student t), at least 3 repetitions\n"
            "  --max-reps M       ... and at most M (default 10)\n"
            "  --meter M          passed to mw record (default auto; sim: the simulated board)\n"
            "  --idle S           passed to mw record: S seconds of idle baseline\n"
            "  --channels LIST    passed to mw record: channel names\n"
            "  -h, --help         this text\n\n"
            "Order: repetition 1 of every configuration, then repetition 2, ...; round r\n"
            "starts at configuration r (a rotation). Progress goes to standard error, a\n"
            "summary per configuration to standard output. Ctrl-C stops the sweep (exit 130);\n"
            "the same command again resumes it. Exit 0 when every run succeeded, 1 when a run\n"
            "failed (the others still run), 2 for bad usage.\n");
}

static int is_ident(const char *s, size_t n)
{
    if (!n || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

static int parse_param(sw_opts *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || !is_ident(arg, (size_t)(eq - arg)))
        return mw_cli_usage_error(
            CMD, "--param '%s': not NAME=V1,V2,... (NAME: letters, digits, _)", arg);
    if (o->np == SW_MAX_PARAMS)
        return mw_cli_usage_error(CMD, "--param: more than %d parameters", SW_MAX_PARAMS);
    sw_param *p = &o->p[o->np];
    p->buf = strdup(arg);
    size_t commas = 1;
    for (const char *c = eq + 1; *c; c++)
        commas += *c == ',';
    p->values = calloc(commas, sizeof *p->values);
    if (!p->buf || !p->values) {
        free(p->buf);
        free(p->values);
        fprintf(stderr, "mw sweep: out of memory\n");
        return MW_EXIT_FAIL;
    }
    o->np++;
    p->buf[eq - arg] = 0;
    p->name = p->buf;
    for (size_t k = 0; k + 1 < o->np; k++)
        if (!strcmp(o->p[k].name, p->name))
            return mw_cli_usage_error(CMD, "--param %s: given twice", p->name);
    char *v = p->buf + (eq - arg) + 1;
    for (;;) {
        char *comma = strchr(v, ',');
        if (comma) *comma = 0;
        if (!*v) return mw_cli_usage_error(CMD, "--param '%s': an empty value", arg);
        for (size_t k = 0; k < p->nvalues; k++)
            if (!strcmp(p->values[k], v))
                return mw_cli_usage_error(CMD, "--param '%s': value '%s' given twice", arg, v);
        p->values[p->nvalues++] = v;
        if (!comma) break;
        v = comma + 1;
    }
    return -1;
}

static int parse_int(const char *opt, const char *arg, int lo, int hi, int *out)
{
    double v;
    if (mw_cli_number(arg, &v) || v != floor(v) || v < lo || v > hi)
        return mw_cli_usage_error(CMD, "%s: '%s' is not a whole number in %d..%d", opt, arg, lo,
                                  hi);
    *out = (int)v;
    return -1;
}

/* -1 when parsed; else an exit code (after a message, or after --help). */
static int parse_args(int argc, char **argv, sw_opts *o)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) break;
        char name[32];
        const char *val = NULL;
        const char *eq = strncmp(a, "--", 2) ? NULL : strchr(a, '=');
        if (eq && (size_t)(eq - a) < sizeof name) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
        }
        static const char *const with_value[] = {"-o",         "--param", "--reps", "--precision",
                                                 "--max-reps", "--meter", "--idle", "--channels"};
        int takes = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
            takes |= !strcmp(name, with_value[k]);
        if (takes && !val) {
            if (i + 1 >= argc || !strcmp(argv[i + 1], "--"))
                return mw_cli_usage_error(CMD, "%s needs a value", name);
            val = argv[++i];
        } else if (!takes && val) {
            return mw_cli_usage_error(CMD, "unknown option '%s'", a);
        }
        int rc = -1;
        if (!strcmp(name, "-o")) {
            if (!*val) return mw_cli_usage_error(CMD, "-o: an empty path");
            o->out = val;
        } else if (!strcmp(name, "--param")) {
            rc = parse_param(o, val);
        } else if (!strcmp(name, "--reps")) {
            rc = parse_int("--reps", val, 1, 1000, &o->reps);
            o->have_reps = 1;
        } else if (!strcmp(name, "--max-reps")) {
            rc = parse_int("--max-reps", val, SW_MIN_REPS, 1000, &o->max_reps);
            o->have_max = 1;
        } else if (!strcmp(name, "--precision")) {
            size_t n = strlen(val);
            char num[64];
            double v;
            if (n < 2 || n >= sizeof num || val[n - 1] != '%')
                return mw_cli_usage_error(CMD, "--precision: '%s' is not a percentage like 2.5%%",
                                          val);
            snprintf(num, sizeof num, "%.*s", (int)(n - 1), val);
            if (mw_cli_number(num, &v) || !(v > 0 && v < 100))
                return mw_cli_usage_error(CMD, "--precision: '%s' is not a percentage in (0, 100)",
                                          val);
            o->rel = v / 100;
            o->precision = 1;
        } else if (!strcmp(name, "--meter")) {
            o->meter = val;
        } else if (!strcmp(name, "--idle")) {
            double v;
            if (mw_cli_number(val, &v) || !(v >= 0 && v <= 86400))
                return mw_cli_usage_error(
                    CMD, "--idle: '%s' is not a number of seconds in 0..86400", val);
            o->idle = val;
        } else if (!strcmp(name, "--channels")) {
            o->channels = val;
        } else if (a[0] == '-') {
            return mw_cli_usage_error(CMD, "unknown option '%s'", a);
        } else {
            return mw_cli_usage_error(CMD, "unexpected argument '%s' (the command goes after --)",
                                      a);
        }
        if (rc >= 0) return rc;
    }
    if (!o->out) return mw_cli_usage_error(CMD, "missing -o SWEEPDIR");
    if (!o->np) return mw_cli_usage_error(CMD, "missing --param NAME=V1,V2,...");
    if (i >= argc) return mw_cli_usage_error(CMD, "missing -- CMD (the command to sweep)");
    if (i + 1 >= argc) return mw_cli_usage_error(CMD, "missing the command after --");
    if (o->have_reps && o->precision)
        return mw_cli_usage_error(CMD, "--reps and --precision exclude each other");
    if (o->have_max && !o->precision)
        return mw_cli_usage_error(CMD, "--max-reps goes with --precision");
    if (!o->have_reps) o->reps = SW_DEFAULT_REPS;
    if (!o->have_max) o->max_reps = SW_DEFAULT_MAX_REPS;
    o->cmd = argv + i + 1;
    o->cmdc = argc - i - 1;
    return -1;
}

/* ---- placeholders -------------------------------------------------------------------- */

/* The parameter whose {NAME} starts at s (s[0] == '{'), its length in *len; -1 when s does
 * not start a placeholder ({ident}), -2 when it names no parameter. */
static int placeholder(const sw_opts *o, const char *s, size_t *len)
{
    const char *close = strchr(s + 1, '}');
    if (!close || !is_ident(s + 1, (size_t)(close - s - 1))) return -1;
    *len = (size_t)(close - s) + 1;
    for (size_t p = 0; p < o->np; p++)
        if (strlen(o->p[p].name) == *len - 2 && !strncmp(o->p[p].name, s + 1, *len - 2))
            return (int)p;
    return -2;
}

static int check_placeholders(const sw_opts *o)
{
    int used[SW_MAX_PARAMS] = {0};
    for (int a = 0; a < o->cmdc; a++)
        for (const char *s = o->cmd[a]; (s = strchr(s, '{'));) {
            size_t len;
            int p = placeholder(o, s, &len);
            if (p == -1) {
                s++;
                continue;
            }
            if (p == -2) {
                char names[512] = "";
                for (size_t k = 0; k < o->np; k++)
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s{%s}",
                             k ? ", " : "", o->p[k].name);
                return mw_cli_usage_error(CMD,
                                          "'%s': unknown placeholder %.*s (the parameters: %s)",
                                          o->cmd[a], (int)len, s, names);
            }
            used[p] = 1;
            s += len;
        }
    for (size_t p = 0; p < o->np; p++)
        if (!used[p])
            return mw_cli_usage_error(CMD, "--param %s: {%s} appears nowhere in the command",
                                      o->p[p].name, o->p[p].name);
    return -1;
}

/* CMD's word a with every placeholder replaced by the configuration's value (malloc'd). */
static char *substitute(const sw_opts *o, const sw_config *c, const char *word)
{
    size_t cap = strlen(word) + 1;
    for (const char *s = word; (s = strchr(s, '{')); s++) {
        size_t len;
        int p = placeholder(o, s, &len);
        if (p >= 0) cap += strlen(c->values[p]);
    }
    char *out = malloc(cap), *w = out;
    if (!out) return NULL;
    for (const char *s = word; *s;) {
        size_t len;
        int p = *s == '{' ? placeholder(o, s, &len) : -1;
        if (p >= 0) {
            size_t n = strlen(c->values[p]);
            memcpy(w, c->values[p], n);
            w += n;
            s += len;
        } else {
            *w++ = *s++;
        }
    }
    *w = 0;
    return out;
}

/* ---- configurations ------------------------------------------------------------------ */

static int name_cmp(const void *a, const void *b)
{
    const sw_config *x = *(sw_config *const *)a, *y = *(sw_config *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static void free_configs(sw_config *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++) {
        free(c[i].label);
        free(c[i].values);
    }
    free(c);
}

/* The cartesian product, the first parameter varying slowest; labels "a=1,b=x"; run names
 * the label with every character outside [A-Za-z0-9_.=-] made '_', at most SW_NAME_MAX
 * long, and "_c<id>" appended where two would be the same. */
static int make_configs(const sw_opts *o, sw_config **out, size_t *nout)
{
    size_t n = 1;
    for (size_t p = 0; p < o->np; p++) {
        n *= o->p[p].nvalues;
        if (n > SW_MAX_CONFIGS)
            return mw_cli_usage_error(CMD, "more than %d configurations", SW_MAX_CONFIGS);
    }
    int reps = o->precision ? o->max_reps : o->reps;
    if (n * (size_t)reps > SW_MAX_RUNS)
        return mw_cli_usage_error(CMD, "%zu configurations x %d repetitions: more than %d runs", n,
                                  reps, SW_MAX_RUNS);
    sw_config *c = calloc(n, sizeof *c);
    sw_config **order = calloc(n, sizeof *order);
    if (!c || !order) goto oom;
    for (size_t i = 0; i < n; i++) {
        c[i].id = (int)i + 1;
        if (!(c[i].values = calloc(o->np, sizeof *c[i].values))) goto oom;
        size_t rest = i, len = 1;
        for (size_t p = o->np; p-- > 0;) {
            c[i].values[p] = o->p[p].values[rest % o->p[p].nvalues];
            rest /= o->p[p].nvalues;
        }
        for (size_t p = 0; p < o->np; p++)
            len += strlen(o->p[p].name) + strlen(c[i].values[p]) + 2;
        if (!(c[i].label = malloc(len))) goto oom;
        c[i].label[0] = 0;
        for (size_t p = 0; p < o->np; p++)
            snprintf(c[i].label + strlen(c[i].label), len - strlen(c[i].label), "%s%s=%s",
                     p ? "," : "", o->p[p].name, c[i].values[p]);
        size_t k = 0;
        for (const char *s = c[i].label; *s && k < SW_NAME_MAX; s++, k++)
            c[i].name[k] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                  "0123456789_.=-",
                                  *s)
                               ? *s
                               : '_';
        c[i].name[k] = 0;
        order[i] = &c[i];
    }
    qsort(order, n, sizeof *order, name_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && !strcmp(order[i]->name, order[j]->name))
            j++;
        if (j - i > 1)
            for (size_t k = i; k < j; k++) {
                size_t l = strlen(order[k]->name);
                snprintf(order[k]->name + l, sizeof order[k]->name - l, "_c%d", order[k]->id);
            }
        i = j;
    }
    free(order);
    *out = c;
    *nout = n;
    return -1;
oom:
    free(order);
    free_configs(c, n);
    fprintf(stderr, "mw sweep: out of memory\n");
    return MW_EXIT_FAIL;
}

/* ---- files --------------------------------------------------------------------------- */

/* Removes the last n components of path, deepest first (each must be empty). */
static void rmdirs(const char *path, int n)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (int i = 0; i < n; i++) {
        size_t l = strlen(buf);
        while (l > 1 && buf[l - 1] == '/')
            buf[--l] = 0;
        if (rmdir(buf)) return;
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf) return;
        *slash = 0;
    }
}

static int is_empty_dir(const char *path)
{
    int empty = 1;
    DIR *d = opendir(path);
    if (!d) return 0;
    struct dirent *e;
    while (empty && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
    closedir(d);
    return empty;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) && errno != ENOENT ? -1 : 0;
}

/* Removes SWEEPDIR/rel when rel is "runs/NAME" with NAME made of [A-Za-z0-9_.=-] (as the
 * sweep names runs) and not . or ..: nothing outside SWEEPDIR/runs is ever removed. */
static int remove_run_dir(const char *sweepdir, const char *rel)
{
    const char *name = rel + 5;
    if (strncmp(rel, "runs/", 5) || !*name || !strcmp(name, ".") || !strcmp(name, "..") ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.=-") !=
            strlen(name)) {
        fprintf(stderr, "mw sweep: %s: run directory '%s' is not under runs/: left alone\n",
                sweepdir, rel);
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", sweepdir, rel);
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) {
        fprintf(stderr, "mw sweep: %s: cannot remove: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- the sweep ----------------------------------------------------------------------- */

static volatile sig_atomic_t g_stop, g_forward;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    g_stop = sig;
    /* a terminal's Ctrl-C reached the whole foreground group, mw record and CMD too */
    if (!(sig == SIGINT && si && si->si_code == SI_KERNEL)) g_forward = sig;
}

static int64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

typedef struct {
    sw_opts *o;
    sw_config *c;
    size_t nc;
    int rounds; /* reps, or max_reps with --precision */
    mw_sweepidx_w *w;
    int tty;
    int64_t start_mono;
    /* progress */
    size_t finished;   /* runs done or failed, of the plan */
    size_t total;      /* runs in the plan (an estimate with --precision) */
    double wall_sum_s; /* wall times of every run that has one, for the ETA */
    size_t wall_n;
    size_t failed;     /* runs that failed in this invocation */
    size_t ran;        /* runs finished (done or failed) in this invocation */
    int64_t bar_next;  /* when the terminal's line is redrawn next */
    int recorder_exit; /* mw record's exit status when it did not start a run */
} sw_state;

static const char *duration(char *buf, size_t n, double s)
{
    if (!(s >= 0)) return "?";
    if (s < 90)
        snprintf(buf, n, "%.0f s", s);
    else if (s < 5400)
        snprintf(buf, n, "%.0f min", s / 60);
    else
        snprintf(buf, n, "%.0f h %02.0f min", floor(s / 3600), fmod(floor(s / 60), 60));
    return buf;
}

static double eta_s(const sw_state *S, size_t left)
{
    return S->wall_n ? S->wall_sum_s / (double)S->wall_n * (double)left : -1;
}

/* the terminal's progress line: bar, done/total, the run, elapsed, ETA */
static void bar(sw_state *S, const sw_config *c, int rep, int64_t run_start)
{
    int64_t t = now_ns(CLOCK_MONOTONIC);
    double el = (double)(t - S->start_mono) * 1e-9, run = (double)(t - run_start) * 1e-9;
    size_t left = S->total > S->finished ? S->total - S->finished : 0;
    double eta = eta_s(S, left);
    if (eta >= 0) eta = eta - run > 0 ? eta - run : 0;
    char bars[21], e1[32], e2[32];
    size_t fill = S->total ? 20 * S->finished / S->total : 0;
    for (size_t i = 0; i < 20; i++)
        bars[i] = i < fill ? '#' : '.';
    bars[20] = 0;
    fprintf(stderr, "\r\033[Kmw sweep [%s] %zu/%zu%s %s r%d, %s elapsed, ETA %s", bars,
            S->finished + 1, S->total, S->o->precision ? "?" : "", c->label, rep,
            duration(e1, sizeof e1, el), duration(e2, sizeof e2, eta));
    fflush(stderr);
    S->bar_next = t + SW_BAR_NS;
}

/* Figures of a configuration's runs: those done with both figures, the attempts (done or
 * failed, repetition <= rounds). */
typedef struct {
    size_t n, done, attempts, failed;
    double *t, *e;
    mw_precision pt, pe;
    int have; /* pt and pe computed (n >= 1) */
} sw_eval;

static int evaluate(sw_state *S, int config, sw_eval *ev)
{
    char err[1024];
    mw_sweepidx_w_run *r;
    size_t n;
    free(ev->t);
    memset(ev, 0, sizeof *ev);
    if (mw_sweepidx_w_runs(S->w, config, &r, &n, err, sizeof err)) {
        fprintf(stderr, "mw sweep: %s\n", err);
        return -1;
    }
    ev->t = malloc(2 * (n + 1) * sizeof *ev->t);
    if (!ev->t) {
        free(r);
        fprintf(stderr, "mw sweep: out of memory\n");
        return -1;
    }
    ev->e = ev->t + n + 1;
    for (size_t i = 0; i < n; i++) {
        int done = !strcmp(r[i].status, "done"), failed = !strcmp(r[i].status, "failed");
        if ((done || failed) && r[i].rep <= S->rounds) ev->attempts++;
        ev->failed += failed;
        ev->done += done;
        if (done && isfinite(r[i].cmd_s) && isfinite(r[i].energy_j)) {
            ev->t[ev->n] = r[i].cmd_s;
            ev->e[ev->n++] = r[i].energy_j;
        }
    }
    free(r);
    if (ev->n &&
        !mw_precision_check(ev->t, ev->n, MW_PRECISION_DEFAULT_LEVEL,
                            S->o->precision ? S->o->rel : 1, SW_MIN_REPS, 0, &ev->pt) &&
        !mw_precision_check(ev->e, ev->n, MW_PRECISION_DEFAULT_LEVEL,
                            S->o->precision ? S->o->rel : 1, SW_MIN_REPS, 0, &ev->pe))
        ev->have = 1;
    return 0;
}

static int precision_met(const sw_eval *ev)
{
    return ev->have && ev->pt.verdict == MW_PRECISION_REACHED &&
           ev->pe.verdict == MW_PRECISION_REACHED;
}

/* With --precision: the runs the plan will hold, estimated from what each configuration
 * has shown so far (mw_precision_runs_needed for each figure, at least 3, at most
 * --max-reps, plus its failures). */
static void estimate_total(sw_state *S)
{
    if (!S->o->precision) return;
    size_t total = 0;
    sw_eval ev = {0};
    for (size_t k = 0; k < S->nc; k++) {
        if (evaluate(S, S->c[k].id, &ev)) break;
        size_t need = SW_MIN_REPS;
        if (precision_met(&ev)) {
            need = ev.n;
        } else if (ev.n >= 2) {
            double st = gsl_stats_sd(ev.t, 1, ev.n), se = gsl_stats_sd(ev.e, 1, ev.n);
            size_t a = mw_precision_runs_needed(ev.pt.mean, st, MW_PRECISION_DEFAULT_LEVEL,
                                                S->o->rel, (size_t)S->rounds),
                   b = mw_precision_runs_needed(ev.pe.mean, se, MW_PRECISION_DEFAULT_LEVEL,
                                                S->o->rel, (size_t)S->rounds);
            need = a > need ? a : need;
            need = b > need ? b : need;
        }
        need += ev.failed;
        if (need > (size_t)S->rounds) need = (size_t)S->rounds;
        if (need < ev.attempts) need = ev.attempts;
        total += need;
    }
    free(ev.t);
    S->total = total;
}

enum { RUN_OK, RUN_FAILED, RUN_STOPPED, RUN_NO_RECORDER, RUN_INDEX_ERROR };

/* Runs one repetition: `mw record` as a child, its figures into the index. */
static int run_one(sw_state *S, const sw_config *c, mw_sweepidx_w_run *r)
{
    char err[8192 + 1024], path[4096];
    const char *dir = S->o->out;
    if (remove_run_dir(dir, r->dir)) return RUN_INDEX_ERROR;
    snprintf(path, sizeof path, "%s/%s", dir, r->dir);

    int n = 0;
    char **argv = calloc((size_t)S->o->cmdc + 16, sizeof *argv);
    if (!argv) return RUN_INDEX_ERROR;
    argv[n++] = "mw";
    argv[n++] = "record";
    argv[n++] = "-o";
    argv[n++] = path;
    if (S->o->meter) {
        argv[n++] = "--meter";
        argv[n++] = (char *)S->o->meter;
    }
    if (S->o->idle) {
        argv[n++] = "--idle";
        argv[n++] = (char *)S->o->idle;
    }
    if (S->o->channels) {
        argv[n++] = "--channels";
        argv[n++] = (char *)S->o->channels;
    }
    argv[n++] = "--quiet";
    argv[n++] = "--";
    int first_cmd = n, rc = RUN_INDEX_ERROR;
    for (int a = 0; a < S->o->cmdc; a++)
        if (!(argv[n++] = substitute(S->o, c, S->o->cmd[a]))) goto out;

    snprintf(r->status, sizeof r->status, "running");
    r->has_exit = 0;
    r->started_ns = now_ns(CLOCK_REALTIME);
    r->wall_s = r->cmd_s = r->energy_j = NAN;
    if (mw_sweepidx_w_update(S->w, r, err, sizeof err)) {
        fprintf(stderr, "%smw sweep: %s\n", S->tty ? "\r\033[K" : "", err);
        goto out;
    }
    if (!S->tty)
        fprintf(stderr, "mw sweep: [%zu/%zu%s] %s r%d started\n", S->finished + 1, S->total,
                S->o->precision ? "?" : "", c->label, r->rep);
    int64_t t0 = now_ns(CLOCK_MONOTONIC);
    pid_t pid;
    int e = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
    if (e) {
        fprintf(stderr, "%smw sweep: cannot start mw record (/proc/self/exe): %s\n",
                S->tty ? "\r\033[K" : "", strerror(e));
        snprintf(r->status, sizeof r->status, "planned");
        r->started_ns = -1;
        mw_sweepidx_w_update(S->w, r, err, sizeof err);
        rc = RUN_NO_RECORDER;
        goto out;
    }
    int status = 0;
    if (S->tty) bar(S, c, r->rep, t0);
    for (;;) {
        if (g_forward) {
            kill(pid, g_forward);
            g_forward = 0;
        }
        pid_t p = waitpid(pid, &status, WNOHANG);
        if (p == pid || (p < 0 && errno != EINTR)) break;
        if (S->tty && now_ns(CLOCK_MONOTONIC) >= S->bar_next) bar(S, c, r->rep, t0);
        struct timespec ts = {0, SW_TICK_NS};
        nanosleep(&ts, NULL);
    }
    double wall = (double)(now_ns(CLOCK_MONOTONIC) - t0) * 1e-9;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const char *cr = S->tty ? "\r\033[K" : "";
    if (g_stop || !mw_store_exists(path)) {
        /* interrupted, or mw record did not start the run (its message is above) */
        snprintf(r->status, sizeof r->status, "planned");
        r->started_ns = -1;
        rc = g_stop ? RUN_STOPPED : RUN_NO_RECORDER;
        if (!g_stop) {
            fprintf(stderr, "%smw sweep: %s r%d: mw record did not start the run (exit %d)\n", cr,
                    c->label, r->rep, code);
            S->recorder_exit = code;
        }
    } else {
        r->has_exit = 1;
        r->exit_code = code;
        r->wall_s = wall;
        S->wall_sum_s += wall;
        S->wall_n++;
        S->finished++;
        S->ran++;
        if (code == 0) {
            snprintf(r->status, sizeof r->status, "done");
            if (mw_energy_store_command(path, &r->cmd_s, &r->energy_j, err, sizeof err))
                fprintf(stderr, "%smw sweep: %s r%d: no time and energy: %s\n", cr, c->label,
                        r->rep, err);
            rc = RUN_OK;
        } else {
            snprintf(r->status, sizeof r->status, "failed");
            S->failed++;
            rc = RUN_FAILED;
        }
    }
    if (mw_sweepidx_w_update(S->w, r, err, sizeof err)) {
        fprintf(stderr, "%smw sweep: %s\n", cr, err);
        rc = RUN_INDEX_ERROR;
        goto out;
    }
    if (rc == RUN_OK || rc == RUN_FAILED) {
        estimate_total(S);
        char e1[32];
        size_t left = S->total > S->finished ? S->total - S->finished : 0;
        if (rc == RUN_FAILED)
            fprintf(stderr,
                    "%smw sweep: [%zu/%zu%s] %s r%d FAILED (exit %d) after %.1f s, ETA %s\n", cr,
                    S->finished, S->total, S->o->precision ? "?" : "", c->label, r->rep, code, wall,
                    duration(e1, sizeof e1, eta_s(S, left)));
        else if (!S->tty)
            fprintf(stderr, "mw sweep: [%zu/%zu%s] %s r%d done in %.1f s, ETA %s\n", S->finished,
                    S->total, S->o->precision ? "?" : "", c->label, r->rep, wall,
                    duration(e1, sizeof e1, eta_s(S, left)));
    }
out:
    for (int a = first_cmd; a < n; a++)
        free(argv[a]);
    free(argv);
    return rc;
}

/* Marks runs left running (a sweep killed without a chance to say so) planned again; their
 * directories are removed before they are redone. Counts the finished ones and the wall
 * times known. */
static int prepare_runs(sw_state *S)
{
    char err[1024] = "";
    mw_sweepidx_w_run *r;
    size_t n;
    if (mw_sweepidx_w_runs(S->w, 0, &r, &n, err, sizeof err)) {
        fprintf(stderr, "mw sweep: %s\n", err);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!strcmp(r[i].status, "running")) {
            snprintf(r[i].status, sizeof r[i].status, "planned");
            r[i].has_exit = 0;
            r[i].started_ns = -1;
            r[i].wall_s = r[i].cmd_s = r[i].energy_j = NAN;
            if (remove_run_dir(S->o->out, r[i].dir) ||
                mw_sweepidx_w_update(S->w, &r[i], err, sizeof err))
                rc = -1;
        }
        if (isfinite(r[i].wall_s)) {
            S->wall_sum_s += r[i].wall_s;
            S->wall_n++;
        }
        if (!strcmp(r[i].status, "done") && r[i].rep <= S->rounds) S->finished++;
    }
    if (rc && *err) fprintf(stderr, "mw sweep: %s\n", err);
    free(r);
    return rc;
}

static void summary(sw_state *S)
{
    printf("%-*s %5s %6s %22s %22s  %s\n", 30, "configuration", "done", "failed",
           "command s (mean ± sd)", "energy J (mean ± sd)", "stopped");
    sw_eval ev = {0};
    for (size_t k = 0; k < S->nc; k++) {
        if (evaluate(S, S->c[k].id, &ev)) break;
        char t[64] = "-", e[64] = "-", why[128] = "-";
        if (ev.n) {
            double st = ev.n > 1 ? gsl_stats_sd(ev.t, 1, ev.n) : 0,
                   se = ev.n > 1 ? gsl_stats_sd(ev.e, 1, ev.n) : 0;
            snprintf(t, sizeof t, "%.3f ± %.3f", gsl_stats_mean(ev.t, 1, ev.n), st);
            snprintf(e, sizeof e, "%.2f ± %.2f", gsl_stats_mean(ev.e, 1, ev.n), se);
        }
        if (S->o->precision && ev.have && ev.n >= 2)
            snprintf(why, sizeof why, "%s (time %.2f %%, energy %.2f %%)",
                     precision_met(&ev) ? "precision" : "max-reps", 100 * ev.pt.rel,
                     100 * ev.pe.rel);
        else if (S->o->precision)
            snprintf(why, sizeof why, "max-reps");
        else
            snprintf(why, sizeof why, "reps");
        printf("%-30s %5zu %6zu %22s %22s  %s\n", S->c[k].label, ev.done, ev.failed, t, e, why);
    }
    free(ev.t);
}

/* Writes every configuration's stop reason once the sweep has gone through its plan. */
static int write_stops(sw_state *S)
{
    char err[1024];
    sw_eval ev = {0};
    int rc = 0;
    for (size_t k = 0; k < S->nc && !rc; k++) {
        if (evaluate(S, S->c[k].id, &ev)) {
            rc = -1;
            break;
        }
        double tr = ev.have && ev.n >= 2 ? ev.pt.rel : NAN,
               er = ev.have && ev.n >= 2 ? ev.pe.rel : NAN;
        const char *why = !S->o->precision ? "reps" : precision_met(&ev) ? "precision" : "max-reps";
        if (mw_sweepidx_w_config_stop(S->w, S->c[k].id, why, tr, er, err, sizeof err)) {
            fprintf(stderr, "mw sweep: %s\n", err);
            rc = -1;
        }
    }
    free(ev.t);
    return rc;
}

static int sweep(sw_state *S)
{
    char err[1024];
    sw_eval ev = {0};
    int rc = MW_EXIT_OK, stop = 0;
    for (int rep = 1; rep <= S->rounds && !stop; rep++) {
        for (size_t k = 0; k < S->nc && !stop; k++) {
            if (g_stop) {
                stop = RUN_STOPPED;
                break;
            }
            const sw_config *c = &S->c[(k + (size_t)rep - 1) % S->nc];
            char rel[sizeof c->name + 32];
            snprintf(rel, sizeof rel, "runs/%s-r%d", c->name, rep);
            if (S->o->precision) {
                if (evaluate(S, c->id, &ev)) {
                    stop = RUN_INDEX_ERROR;
                    break;
                }
                if (precision_met(&ev)) continue;
            }
            mw_sweepidx_w_run r;
            if (mw_sweepidx_w_plan(S->w, c->id, rep, rel, &r, err, sizeof err)) {
                fprintf(stderr, "%smw sweep: %s\n", S->tty ? "\r\033[K" : "", err);
                stop = RUN_INDEX_ERROR;
                break;
            }
            if (!strcmp(r.status, "done")) continue;
            int x = run_one(S, c, &r);
            if (x == RUN_FAILED) rc = MW_EXIT_FAIL;
            if (x != RUN_OK && x != RUN_FAILED) stop = x;
        }
    }
    free(ev.t);
    if (S->tty) fputs("\r\033[K", stderr);
    if (!stop && write_stops(S)) stop = RUN_INDEX_ERROR;
    return stop ? -stop : rc;
}

int cmd_sweep(int argc, char **argv)
{
    if (mw_cli_wants_help(argc, argv)) {
        usage(stdout);
        return MW_EXIT_OK;
    }
    sw_opts o;
    memset(&o, 0, sizeof o);
    sw_config *cfg = NULL;
    size_t nc = 0;
    mw_sweepidx_w *w = NULL;
    char err[1024];
    int created_dir = 0, created_db = 0;
    int rc = parse_args(argc, argv, &o);
    if (rc < 0) rc = check_placeholders(&o);
    if (rc < 0) rc = make_configs(&o, &cfg, &nc);
    if (rc >= 0) goto out;

    /* the sweep directory: a sweep of the same command and parameters, or a new one */
    mw_sweepidx_param ip[SW_MAX_PARAMS];
    for (size_t p = 0; p < o.np; p++)
        ip[p] = (mw_sweepidx_param){o.p[p].name, o.p[p].nvalues, o.p[p].values};
    struct stat st;
    rc = MW_EXIT_USAGE;
    if (stat(o.out, &st) == 0 && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "mw sweep: -o %s: exists and is not a directory\n", o.out);
        goto out;
    }
    if (mw_sweepidx_is_sweep(o.out)) {
        if (!(w = mw_sweepidx_w_open(o.out, err, sizeof err))) {
            fprintf(stderr, "mw sweep: %s\n", err);
            goto out;
        }
        int same = mw_sweepidx_w_same(w, ip, o.np, o.cmdc, o.cmd, err, sizeof err);
        if (same != 1) {
            if (same == 0)
                fprintf(stderr,
                        "mw sweep: -o %s: a sweep of another command or other parameters (%s); "
                        "choose a new -o to start another sweep\n",
                        o.out, err);
            else
                fprintf(stderr, "mw sweep: %s\n", err);
            goto out;
        }
    } else {
        if (stat(o.out, &st) == 0) {
            if (!is_empty_dir(o.out)) {
                fprintf(stderr,
                        "mw sweep: -o %s: exists and is not a sweep directory (no sweep.db); "
                        "choose a new -o\n",
                        o.out);
                goto out;
            }
        }
        if (mw_fs_mkdirs(o.out, &created_dir, NULL, 0)) {
            fprintf(stderr, "mw sweep: -o %s: %s\n", o.out, strerror(errno));
            rc = MW_EXIT_FAIL;
            goto out;
        }
        if (!(w = mw_sweepidx_w_create(o.out, ip, o.np, o.cmdc, o.cmd, err, sizeof err))) {
            fprintf(stderr, "mw sweep: %s\n", err);
            rc = MW_EXIT_FAIL;
            goto out;
        }
        created_db = 1;
    }
    rc = MW_EXIT_FAIL;
    char runs[4096];
    snprintf(runs, sizeof runs, "%s/runs", o.out);
    if (mkdir(runs, 0777) && errno != EEXIST) {
        fprintf(stderr, "mw sweep: %s: %s\n", runs, strerror(errno));
        goto out;
    }

    sw_state S = {.o = &o,
                  .c = cfg,
                  .nc = nc,
                  .rounds = o.precision ? o.max_reps : o.reps,
                  .w = w,
                  .tty = isatty(2),
                  .start_mono = now_ns(CLOCK_MONOTONIC)};
    S.total = nc * (size_t)S.rounds;
    char cmdline[8192], num[64];
    {
        char **words = calloc((size_t)o.cmdc + 1, sizeof *words);
        if (!words) goto out;
        memcpy(words, o.cmd, (size_t)o.cmdc * sizeof *words);
        mw_sysinfo_quote_argv(words, cmdline, sizeof cmdline);
        free(words);
    }
    int bad = mw_sweepidx_w_begin(w, err, sizeof err);
    for (size_t k = 0; !bad && k < nc; k++)
        bad = mw_sweepidx_w_config(w, cfg[k].id, cfg[k].label, cfg[k].values, err, sizeof err);
    struct {
        const char *key, *value;
        char buf[64];
    } meta[] = {
        {"command", cmdline, ""},
        {"mode", o.precision ? "precision" : "reps", ""},
        {"reps", NULL, ""},
        {"precision_rel", NULL, ""},
        {"confidence", NULL, ""},
        {"min_reps", NULL, ""},
        {"max_reps", NULL, ""},
        {"meter", o.meter ? o.meter : "auto", ""},
        {"idle_s", o.idle ? o.idle : "0", ""},
        {"channels", o.channels ? o.channels : "", ""},
        {"mw_version", MW_VERSION, ""},
        {"status", "running", ""},
    };
    if (o.precision) {
        snprintf(meta[3].buf, sizeof meta[3].buf, "%.10g", o.rel);
        snprintf(meta[4].buf, sizeof meta[4].buf, "%.10g", MW_PRECISION_DEFAULT_LEVEL);
        snprintf(meta[5].buf, sizeof meta[5].buf, "%d", SW_MIN_REPS);
        snprintf(meta[6].buf, sizeof meta[6].buf, "%d", o.max_reps);
    } else {
        snprintf(meta[2].buf, sizeof meta[2].buf, "%d", o.reps);
    }
    for (size_t k = 0; !bad && k < sizeof meta / sizeof *meta; k++)
        bad = mw_sweepidx_w_meta_set(w, meta[k].key, meta[k].value ? meta[k].value : meta[k].buf,
                                     err, sizeof err);
    snprintf(num, sizeof num, "%" PRId64, now_ns(CLOCK_REALTIME));
    if (!bad && created_db) bad = mw_sweepidx_w_meta_set(w, "created_ns", num, err, sizeof err);
    if (!bad) bad = mw_sweepidx_w_config_stop(w, 0, NULL, NAN, NAN, err, sizeof err);
    if (!bad) bad = mw_sweepidx_w_commit(w, err, sizeof err);
    if (bad) {
        fprintf(stderr, "mw sweep: %s\n", err);
        goto out;
    }
    if (prepare_runs(&S)) goto out;
    estimate_total(&S);

    g_stop = g_forward = 0;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART; /* the wait for the child polls: no wait to cut */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int x = sweep(&S);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);

    const char *status = x == MW_EXIT_OK ? "complete" : x == MW_EXIT_FAIL ? "failed" : "stopped";
    if (x == -RUN_STOPPED) status = "interrupted";
    if (mw_sweepidx_w_meta_set(w, "status", status, err, sizeof err))
        fprintf(stderr, "mw sweep: %s\n", err);
    double el = (double)(now_ns(CLOCK_MONOTONIC) - S.start_mono) * 1e-9;
    char e1[32];
    if (x == -RUN_STOPPED) {
        fprintf(stderr,
                "mw sweep: interrupted after %zu runs in %s; %zu of %s%zu runs done; the same "
                "command again resumes the sweep\n",
                S.ran, duration(e1, sizeof e1, el), S.finished, o.precision ? "about " : "",
                S.total);
        rc = 128 + g_stop;
    } else if (x == -RUN_NO_RECORDER && created_db && S.finished == 0) {
        /* nothing was recorded: leave nothing behind (sweep.db, runs/, the directory) */
        mw_sweepidx_w_close(w);
        w = NULL;
        char db[4096];
        snprintf(db, sizeof db, "%s/sweep.db", o.out);
        unlink(db);
        snprintf(db, sizeof db, "%s/sweep.db-journal", o.out);
        unlink(db);
        rmdir(runs);
        rmdirs(o.out, created_dir);
        fprintf(stderr, "mw sweep: nothing was recorded; %s is left as it was\n", o.out);
        /* as mw record: 2 for a meter that cannot be used, else 1 */
        rc = S.recorder_exit == MW_EXIT_USAGE ? MW_EXIT_USAGE : MW_EXIT_FAIL;
    } else if (x < 0) {
        fprintf(stderr, "mw sweep: stopped; the same command again resumes the sweep\n");
        rc = x == -RUN_NO_RECORDER && S.recorder_exit == MW_EXIT_USAGE ? MW_EXIT_USAGE
                                                                       : MW_EXIT_FAIL;
    } else {
        summary(&S);
        fprintf(stderr, "mw sweep: %s: %zu runs in %s, %zu failed; index %s/sweep.db\n", o.out,
                S.ran, duration(e1, sizeof e1, el), S.failed, o.out);
        rc = x;
    }
    if (fflush(stdout) != 0 && rc == MW_EXIT_OK) rc = MW_EXIT_FAIL;
out:
    mw_sweepidx_w_close(w);
    free_configs(cfg, nc);
    for (size_t p = 0; p < o.np; p++) {
        free(o.p[p].buf);
        free(o.p[p].values);
    }
    return rc;
}
