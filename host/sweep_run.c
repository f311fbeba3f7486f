/* sweep_run — see mw_sweep.h: the runs of a sweep. Design:
 *
 * The plan is rounds x configurations: round r runs repetition r of every configuration,
 * in the rotated order of mw_sweep_order. Before each run the repetition rule (a hook, so
 * that libmw needs no statistics) may call its configuration done; the index then plans the
 * run (or says it is done already, on a resumed sweep). The index is written before and
 * after every run (planned -> running -> done | failed), so a sweep killed mid-run leaves
 * "running", which the next invocation plans again after removing the run's partial
 * directory (only ever inside SWEEPDIR/runs). A run interrupted by a signal, or one the
 * recorder did not start, goes back to planned.
 *
 * Each run is this very executable (`mw record`) started with posix_spawn and an argument
 * vector (no shell); the wait polls every 20 ms so that the caller's tick can pass signals
 * on and redraw its progress. A done run's time and energy come from the figures hook.
 * Everything worth telling the user is an event; nothing here prints. */
#include "mw_sweep.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "mw_alloc.h"
#include "mw_store.h"
#include "sweep_internal.h"

extern char **environ;

#define TICK_NS 20000000LL

/* how one run went: 0 and 1 are mw_sweep_run's, the others its negative results */
enum { RUN_OK = 0, RUN_FAILED = 1 };

int64_t mw_sweep_now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void mw_sweep_tell(mw_sweep *sw, const mw_sweep_event *e)
{
    if (sw->hooks.event) sw->hooks.event(sw->hooks.ctx, e);
}

static void tell_error(mw_sweep *sw, const char *msg, int in_run)
{
    mw_sweep_tell(sw, &(mw_sweep_event){.kind = MW_SWEEP_EV_ERROR, .msg = msg, .in_run = in_run});
}

static int stopped(const mw_sweep *sw)
{
    return sw->hooks.stop && *sw->hooks.stop;
}

/* the rule for configuration config; without a hook: a fixed number of repetitions */
static int rule(mw_sweep *sw, int config, mw_sweep_rule *out)
{
    *out = (mw_sweep_rule){0, (size_t)sw->rounds, "reps", NAN, NAN};
    return sw->hooks.rule ? sw->hooks.rule(sw->hooks.ctx, config, out) : 0;
}

/* ---- one run ----------------------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) && errno != ENOENT ? -1 : 0;
}

int mw_sweep_remove_run(const char *dir, const char *rel, char *err, size_t errlen)
{
    const char *name = rel + 5;
    if (strncmp(rel, "runs/", 5) || !*name || !strcmp(name, ".") || !strcmp(name, "..") ||
        strspn(name, MW_SWEEP_RUN_NAME_CHARS) != strlen(name)) {
        snprintf(err, errlen, "%s: run directory '%s' is not under runs/: left alone", dir, rel);
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) {
        snprintf(err, errlen, "%s: cannot remove: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

char **mw_sweep_record_argv(const mw_sweep_setup *s, const mw_sweep_params *ps,
                            const mw_sweep_config *c, const char *path)
{
    char **argv = mw_xcalloc((size_t)s->argc + 16, sizeof *argv);
    int n = 0;
    const char *const opt[][2] = {
        {"--meter", s->meter}, {"--idle", s->idle_s}, {"--channels", s->channels}};
    argv[n++] = mw_xstrdup("mw");
    argv[n++] = mw_xstrdup("record");
    argv[n++] = mw_xstrdup("-o");
    argv[n++] = mw_xstrdup(path);
    for (size_t k = 0; k < sizeof opt / sizeof *opt; k++)
        if (opt[k][1]) {
            argv[n++] = mw_xstrdup(opt[k][0]);
            argv[n++] = mw_xstrdup(opt[k][1]);
        }
    argv[n++] = mw_xstrdup("--quiet");
    argv[n++] = mw_xstrdup("--");
    for (int a = 0; a < s->argc; a++)
        argv[n++] = mw_sweep_substitute(ps, c, s->argv[a]);
    return argv;
}

void mw_sweep_argv_free(char **argv)
{
    for (int a = 0; argv && argv[a]; a++)
        free(argv[a]);
    free(argv);
}

int mw_sweep_record(char *const *argv, void (*tick)(void *ctx, pid_t pid), void *ctx, int *code,
                    double *wall_s, char *err, size_t errlen)
{
    int64_t t0 = mw_sweep_now_ns(CLOCK_MONOTONIC);
    pid_t pid;
    int e = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
    if (e) {
        snprintf(err, errlen, "cannot start mw record (/proc/self/exe): %s", strerror(e));
        return -1;
    }
    int status = 0;
    for (;;) {
        if (tick) tick(ctx, pid);
        pid_t p = waitpid(pid, &status, WNOHANG);
        if (p == pid || (p < 0 && errno != EINTR)) break;
        struct timespec ts = {0, TICK_NS};
        nanosleep(&ts, NULL);
    }
    *wall_s = (double)(mw_sweep_now_ns(CLOCK_MONOTONIC) - t0) * 1e-9;
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return 0;
}

/* r back to planned (not recorded, or left running) */
static void run_planned(mw_sweepidx_w_run *r)
{
    snprintf(r->status, sizeof r->status, "planned");
    r->has_exit = 0;
    r->started_ns = -1;
}

/* After the recorder: how the run ended, into r and the index. */
static int run_ended(mw_sweep *sw, const mw_sweep_config *c, mw_sweepidx_w_run *r, const char *path,
                     int code, double wall)
{
    char err[8192 + 1024];
    int stop = stopped(sw), rc = code ? RUN_FAILED : RUN_OK;
    mw_sweep_event e = {.c = c, .rep = r->rep, .code = code, .wall_s = wall};
    if (stop || !mw_store_exists(path)) {
        /* interrupted, or mw record did not start the run (it said why) */
        run_planned(r);
        rc = stop ? MW_SWEEP_STOPPED : MW_SWEEP_NO_RECORDER;
        if (!stop) {
            e.kind = MW_SWEEP_EV_NOT_STARTED;
            mw_sweep_tell(sw, &e);
            sw->recorder_exit = code;
        }
    } else {
        r->has_exit = 1;
        r->exit_code = code;
        r->wall_s = wall;
        snprintf(r->status, sizeof r->status, "%s", code ? "failed" : "done");
        sw->wall_sum_s += wall;
        sw->wall_n++;
        sw->finished++;
        sw->ran++;
        sw->failed += code != 0;
        if (!code && sw->hooks.figures &&
            sw->hooks.figures(path, &r->cmd_s, &r->energy_j, err, sizeof err)) {
            e.kind = MW_SWEEP_EV_NO_FIGURES;
            e.msg = err;
            mw_sweep_tell(sw, &e);
        }
    }
    if (mw_sweepidx_w_update(sw->w, r, err, sizeof err)) {
        tell_error(sw, err, 1);
        return MW_SWEEP_INDEX_ERROR;
    }
    if (rc != RUN_OK && rc != RUN_FAILED) return rc;
    mw_sweep_estimate(sw);
    e.kind = MW_SWEEP_EV_ENDED;
    mw_sweep_tell(sw, &e);
    return rc;
}

/* One repetition: its old directory removed, running in the index, `mw record`, ended. */
static int run_one(mw_sweep *sw, const mw_sweep_config *c, mw_sweepidx_w_run *r)
{
    char err[8192 + 1024], path[4096];
    if (mw_sweep_remove_run(sw->dir, r->dir, err, sizeof err)) {
        tell_error(sw, err, 0);
        return MW_SWEEP_INDEX_ERROR;
    }
    snprintf(path, sizeof path, "%s/%s", sw->dir, r->dir);
    char **argv = mw_sweep_record_argv(&sw->setup, sw->ps, c, path);
    int code = 0, rc = MW_SWEEP_INDEX_ERROR;
    double wall = 0;
    snprintf(r->status, sizeof r->status, "running");
    r->has_exit = 0;
    r->started_ns = mw_sweep_now_ns(CLOCK_REALTIME);
    r->wall_s = r->cmd_s = r->energy_j = NAN;
    if (mw_sweepidx_w_update(sw->w, r, err, sizeof err)) {
        tell_error(sw, err, 1);
    } else {
        mw_sweep_tell(sw, &(mw_sweep_event){.kind = MW_SWEEP_EV_STARTED, .c = c, .rep = r->rep});
        if (mw_sweep_record(argv, sw->hooks.tick, sw->hooks.ctx, &code, &wall, err, sizeof err)) {
            tell_error(sw, err, 1);
            run_planned(r);
            mw_sweepidx_w_update(sw->w, r, err, sizeof err);
            rc = MW_SWEEP_NO_RECORDER;
        } else {
            rc = run_ended(sw, c, r, path, code, wall);
        }
    }
    mw_sweep_argv_free(argv);
    return rc;
}

/* ---- the plan ---------------------------------------------------------------------------- */

/* Run k of round rep, unless its configuration is done: 0, or why the sweep stops. */
static int run_next(mw_sweep *sw, int rep, size_t k, int *failed)
{
    char err[1024], rel[MW_SWEEP_NAME_MAX + 64];
    if (stopped(sw)) return MW_SWEEP_STOPPED;
    const mw_sweep_config *c = mw_sweep_order(sw->c, sw->nc, rep, k);
    snprintf(rel, sizeof rel, "runs/%s-r%d", c->name, rep);
    if (sw->setup.precision) {
        mw_sweep_rule ru;
        if (rule(sw, c->id, &ru)) return MW_SWEEP_INDEX_ERROR;
        if (ru.met) return 0;
    }
    mw_sweepidx_w_run r;
    if (mw_sweepidx_w_plan(sw->w, c->id, rep, rel, &r, err, sizeof err)) {
        tell_error(sw, err, 1);
        return MW_SWEEP_INDEX_ERROR;
    }
    if (!strcmp(r.status, "done")) return 0;
    int x = run_one(sw, c, &r);
    if (x == RUN_FAILED) *failed = 1;
    return x == RUN_OK || x == RUN_FAILED ? 0 : x;
}

/* every configuration's stop reason, once the plan is through */
static int write_stops(mw_sweep *sw)
{
    char err[1024];
    for (size_t k = 0; k < sw->nc; k++) {
        mw_sweep_rule ru;
        if (rule(sw, sw->c[k].id, &ru)) return -1;
        if (mw_sweepidx_w_config_stop(sw->w, sw->c[k].id, ru.stop, ru.time_rel, ru.energy_rel, err,
                                      sizeof err)) {
            tell_error(sw, err, 0);
            return -1;
        }
    }
    return 0;
}

int mw_sweep_run(mw_sweep *sw)
{
    int failed = 0, stop = 0;
    for (int rep = 1; rep <= sw->rounds && !stop; rep++)
        for (size_t k = 0; k < sw->nc && !stop; k++)
            stop = run_next(sw, rep, k, &failed);
    mw_sweep_tell(sw, &(mw_sweep_event){.kind = MW_SWEEP_EV_PLAN_DONE});
    if (!stop && write_stops(sw)) stop = MW_SWEEP_INDEX_ERROR;
    return stop ? stop : failed;
}

void mw_sweep_estimate(mw_sweep *sw)
{
    if (!sw->setup.precision) return;
    size_t total = 0;
    for (size_t k = 0; k < sw->nc; k++) {
        mw_sweep_rule ru;
        if (rule(sw, sw->c[k].id, &ru)) break;
        total += ru.runs_needed;
    }
    sw->total = total;
}

double mw_sweep_eta_s(const mw_sweep *sw)
{
    size_t left = sw->total > sw->finished ? sw->total - sw->finished : 0;
    return sw->wall_n ? sw->wall_sum_s / (double)sw->wall_n * (double)left : -1;
}

int mw_sweep_resume_runs(mw_sweep *sw, char *err, size_t errlen)
{
    mw_sweepidx_w_run *r;
    size_t n;
    if (mw_sweepidx_w_runs(sw->w, 0, &r, &n, err, errlen)) return -1;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!strcmp(r[i].status, "running")) {
            run_planned(&r[i]);
            r[i].wall_s = r[i].cmd_s = r[i].energy_j = NAN;
            if (mw_sweep_remove_run(sw->dir, r[i].dir, err, errlen) ||
                mw_sweepidx_w_update(sw->w, &r[i], err, errlen))
                rc = -1;
        }
        if (isfinite(r[i].wall_s)) {
            sw->wall_sum_s += r[i].wall_s;
            sw->wall_n++;
        }
        if (!strcmp(r[i].status, "done") && r[i].rep <= sw->rounds) sw->finished++;
    }
    free(r);
    return rc;
}
