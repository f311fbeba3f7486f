/* cmd_sweep — "mw sweep -o SWEEPDIR --param NAME=V1,V2,... [--reps N | --precision P%] --
 * CMD...": record CMD once per repetition of every configuration (the cartesian product of
 * the parameters' values) with `mw record`, one run directory each, indexed in
 * SWEEPDIR/sweep.db (docs/sweep.md).
 *
 * Design. This file reads the command line, wires the libraries together and prints their
 * events. The sweep itself (grid, placeholders, directory, resumable index, the order of
 * runs, each `mw record` child) is libmw's mw_sweep.h, with libmwmodels' repetition rule
 * (sweep_precision.h) and each run's time and energy (energy_store.h) as its hooks. All of
 * the command line is checked before anything is created. SIGINT/SIGTERM are passed on to
 * the running `mw record` (and so to CMD; a terminal's Ctrl-C reached both already), the
 * run goes back to planned, and the sweep exits 128 + the signal. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "energy_store.h"
#include "mw_alloc.h"
#include "mw_num.h"
#include "mw_sweep.h"
#include "mw_sweepindex.h"
#include "sweep_precision.h"
#include "textout.h"

#define CMD "sweep"
#define SW_DEFAULT_REPS 3
#define SW_DEFAULT_MAX_REPS 10
#define SW_BAR_NS 500000000LL

/* ---- options ------------------------------------------------------------------------- */

typedef struct {
    const char *out;
    mw_sweep_params ps;
    int reps, have_reps;
    double rel; /* fraction, > 0 with --precision */
    int precision, max_reps, have_max;
    const char *meter, *idle, *channels;
    int cmdc;
    char **cmd;
} sw_opts;

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
            "  --reps N           repetitions of every configuration, 1 to 1000 (default 3)\n"
            "  --precision P%%     repeat each configuration until the mean of its command's\n"
            "                     wall time and of its energy are both within P %% at 95 %%\n"
            "                     confidence (Student t), at least 3 repetitions (P: 1e-6\n"
            "                     to 99.9)\n"
            "  --max-reps M       ... and at most M, up to 1000 (default 10)\n"
            "  --meter M          passed to mw record (default auto; sim: the simulated board)\n"
            "  --idle S           passed to mw record: S seconds of idle baseline (0 to 86400)\n"
            "  --channels LIST    passed to mw record: channel names\n"
            "  -h, --help         this text\n\n"
            "Order: repetition 1 of every configuration, then repetition 2, ...; round r\n"
            "starts at configuration r (a rotation). Progress goes to standard error, a\n"
            "summary per configuration to standard output. Ctrl-C stops the sweep (exit 130);\n"
            "the same command again resumes it. Exit 0 when every run succeeded, 1 when a run\n"
            "failed (the others still run), 2 for bad usage.\n");
}

static int parse_int(const char *opt, const char *arg, int lo, int hi, int *out)
{
    int64_t v;
    int rc = mw_cli_int(CMD, opt, arg, lo, hi, &v);
    if (rc) return rc;
    *out = (int)v;
    return -1;
}

static int parse_precision(sw_opts *o, const char *val)
{
    size_t n = strlen(val);
    char num[64];
    double v;
    if (n < 2 || n >= sizeof num || val[n - 1] != '%')
        return mw_cli_usage_error(CMD, "--precision: '%s' is not a percentage like 2.5%%", val);
    snprintf(num, sizeof num, "%.*s", (int)(n - 1), val);
    if (mw_num_double(num, 1e-6, 99.9, &v))
        return mw_cli_usage_error(CMD, "--precision: '%s' is not a percentage in 1e-6..99.9", val);
    o->rel = v / 100;
    o->precision = 1;
    return -1;
}

/* One option (name, its value or NULL): -1 when taken, else an exit code. */
static int parse_option(sw_opts *o, const char *a, const char *name, const char *val)
{
    double v;
    if (!strcmp(name, "-o")) {
        if (!*val) return mw_cli_usage_error(CMD, "-o: an empty path");
        o->out = val;
    } else if (!strcmp(name, "--param")) {
        size_t len = 2 * strlen(val) + 256; /* the messages quote the spec */
        char *err = mw_xcalloc(len, 1);
        int rc =
            mw_sweep_params_add(&o->ps, val, err, len) ? mw_cli_usage_error(CMD, "%s", err) : -1;
        free(err);
        return rc;
    } else if (!strcmp(name, "--reps")) {
        o->have_reps = 1;
        return parse_int("--reps", val, 1, 1000, &o->reps);
    } else if (!strcmp(name, "--max-reps")) {
        o->have_max = 1;
        return parse_int("--max-reps", val, MW_SWEEP_MIN_REPS, 1000, &o->max_reps);
    } else if (!strcmp(name, "--precision")) {
        return parse_precision(o, val);
    } else if (!strcmp(name, "--meter")) {
        o->meter = val;
    } else if (!strcmp(name, "--idle")) {
        int rc = mw_cli_double(CMD, "--idle", val, 0, 86400, "s", &v);
        if (rc) return rc;
        o->idle = val;
    } else if (!strcmp(name, "--channels")) {
        o->channels = val;
    } else if (a[0] == '-') {
        return mw_cli_usage_error(CMD, "unknown option '%s'", a);
    } else {
        return mw_cli_usage_error(CMD, "unexpected argument '%s' (the command goes after --)", a);
    }
    return -1;
}

/* -1 when parsed; else an exit code (after a message, or after --help). */
static int parse_args(int argc, char **argv, sw_opts *o)
{
    static const char *const with_value[] = {"-o",         "--param", "--reps", "--precision",
                                             "--max-reps", "--meter", "--idle", "--channels"};
    mw_cli_seen seen = {0}; /* --param may repeat; the others take one value, once */
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
        int rc = takes && strcmp(name, "--param") ? mw_cli_once(CMD, &seen, name) : 0;
        if (rc) return rc;
        rc = parse_option(o, a, name, val);
        if (rc >= 0) return rc;
    }
    if (!o->out) return mw_cli_usage_error(CMD, "missing -o SWEEPDIR");
    if (!o->ps.n) return mw_cli_usage_error(CMD, "missing --param NAME=V1,V2,...");
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

/* the placeholders and the grid: -1 when both are fine, else an exit code */
static int check_plan(const sw_opts *o, mw_sweep_config **c, size_t *nc)
{
    size_t len = 1024;
    for (int a = 0; a < o->cmdc; a++)
        len += strlen(o->cmd[a]);
    char *err = mw_xcalloc(len, 1);
    int rc = -1;
    if (mw_sweep_check_command(&o->ps, o->cmdc, o->cmd, err, len) ||
        mw_sweep_grid(&o->ps, o->precision ? o->max_reps : o->reps, c, nc, err, len))
        rc = mw_cli_usage_error(CMD, "%s", err);
    free(err);
    return rc;
}

/* ---- progress ------------------------------------------------------------------------ */

static volatile sig_atomic_t g_stop, g_forward;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    g_stop = sig;
    /* a terminal's Ctrl-C reached the whole foreground group, mw record and CMD too */
    if (!(sig == SIGINT && si && si->si_code == SI_KERNEL)) g_forward = sig;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

typedef struct {
    const sw_opts *o;
    mw_sweep sw;
    int tty;
    int64_t start;
    const mw_sweep_config *cur; /* the run under way, for the terminal's line */
    int rep;
    int64_t run_start, bar_next;
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

/* the terminal's progress line: bar, done/total, the run, elapsed, ETA */
static void bar(sw_state *S)
{
    const mw_sweep *sw = &S->sw;
    int64_t t = now_ns();
    double el = (double)(t - S->start) * 1e-9, run = (double)(t - S->run_start) * 1e-9;
    double eta = mw_sweep_eta_s(sw);
    if (eta >= 0) eta = eta - run > 0 ? eta - run : 0;
    char bars[21], e1[32], e2[32];
    size_t fill = sw->total ? 20 * sw->finished / sw->total : 0;
    for (size_t i = 0; i < 20; i++)
        bars[i] = i < fill ? '#' : '.';
    bars[20] = 0;
    fprintf(stderr, "%smw sweep [%s] %zu/%zu%s %s r%d, %s elapsed, ETA %s", mw_out_tty("\r\033[K"),
            bars, sw->finished + 1, sw->total, S->o->precision ? "?" : "", S->cur->label, S->rep,
            duration(e1, sizeof e1, el), duration(e2, sizeof e2, eta));
    fflush(stderr);
    S->bar_next = t + SW_BAR_NS;
}

/* while mw record runs: signals passed on, the terminal's line redrawn */
static void tick(void *ctx, pid_t pid)
{
    sw_state *S = ctx;
    if (g_forward) {
        kill(pid, g_forward);
        g_forward = 0;
    }
    if (S->tty && now_ns() >= S->bar_next) bar(S);
}

static void on_event(void *ctx, const mw_sweep_event *e)
{
    sw_state *S = ctx;
    mw_sweep *sw = &S->sw;
    const char *cr = S->tty ? "\r\033[K" : "", *pre = S->o->precision ? "?" : "";
    const char *label = e->c ? e->c->label : "";
    char e1[32];
    if (e->kind == MW_SWEEP_EV_ERROR) {
        fprintf(stderr, "%smw sweep: %s\n", mw_out_tty(e->in_run ? cr : ""), e->msg);
    } else if (e->kind == MW_SWEEP_EV_STARTED) {
        if (!S->tty)
            fprintf(stderr, "mw sweep: [%zu/%zu%s] %s r%d started\n", sw->finished + 1, sw->total,
                    pre, label, e->rep);
        S->cur = e->c;
        S->rep = e->rep;
        S->run_start = now_ns();
        S->bar_next = 0;
    } else if (e->kind == MW_SWEEP_EV_NOT_STARTED) {
        fprintf(stderr, "%smw sweep: %s r%d: mw record did not start the run (exit %d)\n",
                mw_out_tty(cr), label, e->rep, e->code);
    } else if (e->kind == MW_SWEEP_EV_NO_FIGURES) {
        fprintf(stderr, "%smw sweep: %s r%d: no time and energy: %s\n", mw_out_tty(cr), label,
                e->rep, e->msg);
    } else if (e->kind == MW_SWEEP_EV_ENDED) {
        duration(e1, sizeof e1, mw_sweep_eta_s(sw));
        if (e->code)
            fprintf(stderr,
                    "%smw sweep: [%zu/%zu%s] %s r%d FAILED (exit %d) after %.1f s, ETA %s\n",
                    mw_out_tty(cr), sw->finished, sw->total, pre, label, e->rep, e->code, e->wall_s,
                    e1);
        else if (!S->tty)
            fprintf(stderr, "mw sweep: [%zu/%zu%s] %s r%d done in %.1f s, ETA %s\n", sw->finished,
                    sw->total, pre, label, e->rep, e->wall_s, e1);
    } else if (e->kind == MW_SWEEP_EV_PLAN_DONE && S->tty) {
        mw_out_tty("\r\033[K");
    }
}

/* the repetition rule (libmwmodels), on the index */
static int rule(void *ctx, int config, mw_sweep_rule *out)
{
    sw_state *S = ctx;
    char err[1024];
    if (!mw_sweep_rule_of(S->sw.w, config, S->sw.rounds, S->o->precision, S->o->rel, out, err,
                          sizeof err))
        return 0;
    fprintf(stderr, "mw sweep: %s\n", err);
    return -1;
}

/* ---- the end ------------------------------------------------------------------------- */

static void summary(sw_state *S)
{
    char err[1024];
    printf("%-*s %5s %6s %22s %22s  %s\n", 30, "configuration", "done", "failed",
           "command s (mean ± sd)", "energy J (mean ± sd)", "stopped");
    mw_sweep_eval ev = {0};
    for (size_t k = 0; k < S->sw.nc; k++) {
        if (mw_sweep_eval_config(S->sw.w, S->sw.c[k].id, S->sw.rounds,
                                 S->o->precision ? S->o->rel : 1, &ev, err, sizeof err)) {
            fprintf(stderr, "mw sweep: %s\n", err);
            break;
        }
        char t[64] = "-", e[64] = "-", why[128];
        if (ev.n) {
            snprintf(t, sizeof t, "%.3f ± %.3f", ev.mean_t_s, ev.sd_t_s);
            snprintf(e, sizeof e, "%.2f ± %.2f", ev.mean_e_j, ev.sd_e_j);
        }
        if (S->o->precision && ev.have && ev.n >= 2)
            snprintf(why, sizeof why, "%s (time %.2f %%, energy %.2f %%)",
                     mw_sweep_stop_reason(&ev, 1), 100 * ev.pt.rel, 100 * ev.pe.rel);
        else
            snprintf(why, sizeof why, "%s", S->o->precision ? "max-reps" : "reps");
        printf("%-30s %5zu %6zu %22s %22s  %s\n", S->sw.c[k].label, ev.done, ev.failed, t, e, why);
    }
    mw_sweep_eval_free(&ev);
}

/* The sweep's end (x: mw_sweep_run's result): what happened, the summary; the exit status. */
static int finish(sw_state *S, int x)
{
    const mw_sweep *sw = &S->sw;
    const char *out = S->o->out;
    char e1[32];
    int discarded = mw_sweep_end(&S->sw, x);
    double el = (double)(now_ns() - S->start) * 1e-9;
    /* as mw record: 2 for a meter that cannot be used, else 1 */
    int rec = sw->recorder_exit == MW_EXIT_USAGE ? MW_EXIT_USAGE : MW_EXIT_FAIL;
    if (x == MW_SWEEP_STOPPED) {
        fprintf(stderr,
                "mw sweep: interrupted after %zu runs in %s; %zu of %s%zu runs done; the same "
                "command again resumes the sweep\n",
                sw->ran, duration(e1, sizeof e1, el), sw->finished, S->o->precision ? "about " : "",
                sw->total);
        return 128 + g_stop;
    }
    if (discarded) {
        fprintf(stderr, "mw sweep: nothing was recorded; %s is left as it was\n", out);
        return rec;
    }
    if (x < 0) {
        fprintf(stderr, "mw sweep: stopped; the same command again resumes the sweep\n");
        return x == MW_SWEEP_NO_RECORDER ? rec : MW_EXIT_FAIL;
    }
    summary(S);
    fprintf(stderr, "mw sweep: %s: %zu runs in %s, %zu failed; index %s/sweep.db\n", out, sw->ran,
            duration(e1, sizeof e1, el), sw->failed, out);
    return fflush(stdout) != 0 && x == MW_EXIT_OK ? MW_EXIT_FAIL : x;
}

/* Opens the sweep and runs it, signals passed on to the runs: the exit status. */
static int run_sweep(sw_state *S)
{
    const sw_opts *o = S->o;
    char err[8192];
    S->sw.setup = (mw_sweep_setup){o->cmdc,           o->cmd,      o->precision,
                                   o->reps,           o->rel,      MW_PRECISION_DEFAULT_LEVEL,
                                   MW_SWEEP_MIN_REPS, o->max_reps, o->meter,
                                   o->idle,           o->channels};
    S->sw.hooks = (mw_sweep_hooks){S, rule, mw_energy_store_command, on_event, tick, &g_stop};
    S->tty = isatty(2);
    S->start = now_ns();
    int x = mw_sweep_open(&S->sw, err, sizeof err);
    if (x) {
        fprintf(stderr, "mw sweep: %s\n", err);
        return x == MW_SWEEP_REFUSED ? MW_EXIT_USAGE : MW_EXIT_FAIL;
    }
    g_stop = g_forward = 0;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART; /* the wait for the child polls: no wait to cut */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    x = mw_sweep_run(&S->sw);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return finish(S, x);
}

int cmd_sweep(int argc, char **argv)
{
    if (mw_cli_wants_help(argc, argv)) {
        usage(stdout);
        return MW_EXIT_OK;
    }
    sw_opts o;
    memset(&o, 0, sizeof o);
    sw_state S = {.o = &o};
    mw_sweep_config *c = NULL;
    size_t nc = 0;
    int rc = parse_args(argc, argv, &o);
    if (rc < 0) rc = check_plan(&o, &c, &nc);
    if (rc < 0) {
        S.sw = (mw_sweep){.dir = o.out, .ps = &o.ps, .c = c, .nc = nc};
        S.sw.rounds = o.precision ? o.max_reps : o.reps;
        rc = run_sweep(&S);
    }
    mw_sweep_close(&S.sw);
    mw_sweep_grid_free(c, nc);
    mw_sweep_params_free(&o.ps);
    return rc;
}
