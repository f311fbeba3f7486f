/* cmd_record — "mw record": record the meter while a command runs.
 *
 * One thread, one loop. The meter is opened first (nothing is created when it cannot be),
 * then the run directory and its store (mw_store.h). The loop reads the meter with a short
 * timeout (mw_meter_next), stores every window of every channel, commits at least once per
 * second, watches the child with waitpid(WNOHANG), refreshes the status line, and when the
 * meter's port goes away records the fact and reopens the port every 200 ms (at once when
 * libusb reports a meter arriving) while the command goes on. The run passes through
 * stages: idle baseline before, the command, idle baseline after; each stage is written as a
 * phase of kind "mw" so that analysis knows which windows are idle.
 *
 * Host energy continuity: per channel energy_mj = base + the meter's counter; when the
 * meter restarts (new segment) base becomes the last energy seen, so the run's energy never
 * jumps back (what the meter measured during a gap is lost and the gap says so).
 *
 * At the end every segment is restamped with its final clock fit (mw_meter_finish,
 * mw_meter_map_segment), which is better than the live fit each window got on arrival.
 *
 * Signals: SIGINT and SIGTERM are forwarded to the child, except a SIGINT the terminal
 * sent (si_code SI_KERNEL), which the child, in the same process group, got already. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "channels.h"
#include "builtin.h"
#include "cli.h"
#include "mw_merge.h"
#include "meter_spec.h"
#include "mw_simcluster.h"
#include "mw_store.h"
#include "mw_usb.h"
#include "sysinfo.h"

extern char **environ;

#define RETRY_NS 200000000LL  /* reopen a lost port every 200 ms */
#define STATUS_NS 500000000LL /* status line refresh */
#define FIRST_WAIT_NS 3000000000LL
#define WAIT_MS 500 /* longest wait for the meter; signals (SIGCHLD too) cut it short */
/* longest wait while the command runs: SIGCHLD may be delivered to another thread (the
 * simulated board's, libusb's), so the command's end is also looked for this often */
#define CHILD_POLL_MS 10

typedef struct {
    const char *rundir, *meter, *channels;
    double idle_s;
    int force, quiet;
    char **cmd; /* after "--" */
} rec_opts;

typedef enum { ST_IDLE_BEFORE, ST_COMMAND, ST_IDLE_AFTER, ST_DONE } stage_t;

typedef struct {
    rec_opts o;
    mw_meter_spec *ms;
    mw_meter *m;
    mw_store *st;
    mw_usb_watch *usb;
    char path[4096], host[256];
    int nchan;
    mw_channels names;
    /* samples */
    int segment; /* last segment stored, -1 before any */
    int nseg;    /* segments seen */
    int64_t base_mj[MW_CHANNELS_MAX + 1], last_mj[MW_CHANNELS_MAX + 1];
    int64_t last_t1_ns;
    double power_w[MW_CHANNELS_MAX + 1];
    uint64_t windows, samples;
    int have_window;
    /* connection */
    int connected;
    int64_t lost_at_mono, next_retry_mono;
    int reconnects;
    char pending_gap[64]; /* reason for the gap before the next window, "" when none */
    char boot_cause[32];
    /* stages */
    stage_t stage;
    int64_t stage_start_mono, stage_start_ns;
    pid_t child;
    int child_status, child_done;
    int64_t cmd_start_ns, cmd_end_ns;
    /* status line */
    int tty;
    int64_t start_mono, next_status;
    int store_failed;
} rec_t;

static volatile sig_atomic_t g_forward_sig, g_interrupted;

/* SIGCHLD only interrupts the wait for the meter, so that the child's end is seen at once */
static void on_child(int sig)
{
    (void)sig;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    g_interrupted = sig;
    if (!(sig == SIGINT && si && si->si_code == SI_KERNEL)) g_forward_sig = sig;
}

static int64_t now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void usage(FILE *out)
{
    char cfg[4096];
    mw_channels_file(cfg, sizeof cfg);
    fprintf(out,
            "usage: mw record -o RUNDIR [--meter PORT|auto|sim[:PROFILE|:cluster[=FILE]]]\n"
            "                 [--idle S] [--channels LIST] [--force] [--quiet] -- CMD [ARGS...]\n\n"
            "Records the meter while CMD runs, into RUNDIR/trace.db (docs/run-store.md), and\n"
            "exits with CMD's exit status (127: CMD not found, 128+N: killed by signal N).\n"
            "CMD gets MW_RUN_DIR, MW_TRACE_DB and MW_RECORD_HOST in its environment (with\n"
            "Open MPI's mpirun they are passed to every rank with -x); the events of an\n"
            "instrumented CMD (libmwprobe) are merged into the run when it ends.\n"
            "SIGINT and SIGTERM are passed on to CMD.\n"
            "If the meter is unplugged, recording resumes when it is back; CMD goes on.\n\n"
            "  -o, --output RUNDIR  run directory to create (refused if it exists)\n"
            "  --force              replace the trace of an existing RUNDIR\n"
            "  --meter M            serial port (e.g. /dev/ttyACM0), 'auto' (default: the one\n"
            "                       Arduino Mega on USB) or 'sim' (the simulated board;\n"
            "                       sim:PROFILE drives its loads from a CSV step profile;\n"
            "                       sim:cluster[=FILE] from the CPU activity of CMD's\n"
            "                       processes and its MPI traffic: docs/simulated-cluster.md)\n"
            "  --idle S             record S seconds of idle baseline before and after CMD\n"
            "                       (default 0)\n"
            "  --channels LIST      channel names in channel order, NAME or NAME@HOST,\n"
            "                       e.g. node0,node1,node2,node3,switch (default: the file\n"
            "                       %s, else ch1, ch2, ...)\n"
            "  -q, --quiet          no status line\n"
            "  -h, --help           this text\n\n"
            "On a terminal one status line shows the time, W per channel and the energy so\n"
            "far. Exit status 2: bad usage, RUNDIR exists, or the meter's port cannot be used\n"
            "(nothing is created then).\n",
            cfg);
}

static int parse_args(int argc, char **argv, rec_opts *o)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"meter", required_argument, NULL, 'm'},
        {"idle", required_argument, NULL, 'i'},   {"channels", required_argument, NULL, 'c'},
        {"force", no_argument, NULL, 'f'},        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    int c;
    /* "+": stop at the first non-option, so CMD's own options are never taken as ours */
    while ((c = getopt_long(argc, argv, "+:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o->rundir = optarg;
            break;
        case 'm':
            o->meter = optarg;
            break;
        case 'c':
            o->channels = optarg;
            break;
        case 'f':
            o->force = 1;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'i': {
            double v;
            if (mw_cli_number(optarg, &v) || !(v >= 0 && v <= 86400))
                return mw_cli_usage_error(
                    "record", "--idle: '%s' is not a number of seconds in 0..86400", optarg);
            o->idle_s = v;
            break;
        }
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error("record", "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error("record", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!o->rundir) return mw_cli_usage_error("record", "missing -o RUNDIR");
    if (!o->rundir[0]) return mw_cli_usage_error("record", "-o: empty run directory name");
    if (optind < argc && !strcmp(argv[optind - 1], "--")) {
        o->cmd = argv + optind;
    } else if (optind < argc) {
        return mw_cli_usage_error("record", "'%s': put the command after '--'", argv[optind]);
    } else {
        return mw_cli_usage_error("record", "missing '-- CMD [ARGS...]'");
    }
    return -1;
}

/* ---- metadata ------------------------------------------------------------------------ */

static void meta(rec_t *r, const char *key, const char *value)
{
    if (mw_store_meta_set(r->st, key, value) != 0 && !r->store_failed) {
        fprintf(stderr, "mw record: %s: %s\n", r->o.rundir, mw_store_error(r->st));
        r->store_failed = 1;
    }
}

static void meta_i64(rec_t *r, const char *key, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    meta(r, key, b);
}

static void write_meta(rec_t *r, char **argv)
{
    char buf[8192];
    const mw_proto_ident *id = mw_meter_ident(r->m);
    mw_sysinfo_quote_argv(r->o.cmd, buf, sizeof buf);
    meta(r, "command", buf);
    memcpy(buf, "mw ", 3);
    mw_sysinfo_quote_argv(argv, buf + 3, sizeof buf - 3);
    meta(r, "record_command", buf);
    meta(r, "status", "recording");
    meta(r, "hostname", r->host);
    mw_sysinfo_kernel(buf, sizeof buf);
    meta(r, "kernel", buf);
    mw_sysinfo_cpu_model(buf, sizeof buf);
    meta(r, "cpu_model", buf);
    mw_sysinfo_governor(buf, sizeof buf);
    meta(r, "cpu_governor", buf);
    mw_sysinfo_mpi(buf, sizeof buf);
    meta(r, "mpi", buf);
    meta(r, "mw_version", MW_VERSION);
    meta(r, "mw_git_id", MW_GIT_ID);
    meta(r, "meter_port", r->path);
    mw_port_info pi;
    mw_port_get_info(mw_meter_port(r->m), &pi);
    if (pi.vid >= 0)
        snprintf(buf, sizeof buf, "%04x:%04x %s", (unsigned)pi.vid, (unsigned)pi.pid,
                 pi.serial[0] ? pi.serial : "no-serial");
    else
        snprintf(buf, sizeof buf, "none%s",
                 mw_meter_spec_is_sim(r->ms) ? " (simulated board)" : "");
    meta(r, "meter_usb", buf);
    meta(r, "meter_firmware", id->fw_version);
    meta(r, "meter_build", id->build_id);
    meta_i64(r, "meter_rate_hz", id->rate_hz);
    size_t len = 0;
    for (int k = 0; k <= id->n_current; k++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%sA%d", k ? ":" : "", id->pin[k]);
    meta(r, "meter_pins", buf);
    meta(r, "meter_cal_source", id->cal_source);
    if (id->cal_date_yyyymmdd) {
        snprintf(buf, sizeof buf, "%04d-%02d-%02d", id->cal_date_yyyymmdd / 10000,
                 id->cal_date_yyyymmdd / 100 % 100, id->cal_date_yyyymmdd % 100);
        meta(r, "meter_calibration_date", buf);
        meta(r, "meter_calibration_ref", id->cal_ref);
    }
    if (mw_meter_spec_calibration(r->m, buf, sizeof buf) != 0)
        fprintf(stderr, "mw record: %s: calibration not read (%s)\n", r->path, buf);
    meta(r, "meter_calibration", buf);
    snprintf(buf, sizeof buf, "%g", r->o.idle_s);
    meta(r, "idle_s", buf);
    meta(r, "channels_from", r->names.source);
}

/* ---- samples ----------------------------------------------------------------------- */

static void gap(rec_t *r, int64_t from, int64_t to, const char *reason)
{
    if (to < from) to = from;
    if (mw_store_gap_add(r->st, from, to, reason) != 0 && !r->store_failed) {
        fprintf(stderr, "mw record: %s: %s\n", r->o.rundir, mw_store_error(r->st));
        r->store_failed = 1;
    }
}

static void on_window(rec_t *r, const mw_meter_event *ev)
{
    const mw_proto_window *w = &ev->w;
    if (ev->segment != r->segment) {
        /* a new segment: the meter restarted its time; energy continues from the last */
        for (int k = 1; k <= r->nchan; k++)
            r->base_mj[k] = r->last_mj[k];
        if (r->have_window && !r->pending_gap[0])
            snprintf(r->pending_gap, sizeof r->pending_gap, "meter reset%s%s%s",
                     r->boot_cause[0] ? " (" : "", r->boot_cause, r->boot_cause[0] ? ")" : "");
        r->segment = ev->segment;
        r->nseg = ev->segment + 1;
    }
    if (r->have_window && r->pending_gap[0]) {
        gap(r, r->last_t1_ns, ev->t0_ns, r->pending_gap);
    } else if (r->have_window && ev->lost) {
        char why[64];
        snprintf(why, sizeof why, "sequence gap (%u windows lost)", ev->lost);
        gap(r, r->last_t1_ns, ev->t0_ns, why);
    }
    r->pending_gap[0] = 0;
    r->boot_cause[0] = 0;
    int n = w->nchan < r->nchan ? w->nchan : r->nchan;
    for (int k = 1; k <= n; k++) {
        mw_store_sample x = {
            .channel = k,
            .segment = ev->segment,
            .seq = w->seq,
            .meter_t0_us = w->t0_us,
            .meter_t1_us = w->t1_us,
            .t0_ns = ev->t0_ns,
            .t1_ns = ev->t1_ns,
            .uncertainty_ns = ev->uncertainty_ns,
            .power_mw = w->ch[k - 1].p_mw,
            .vrms_mv = w->vrms_mv,
            .irms_ua = w->ch[k - 1].irms_ua,
            .pf_milli = w->ch[k - 1].pf_milli,
            .meter_energy_mj = w->ch[k - 1].e_mj,
            .flags = w->flags,
        };
        /* a device that is not a meter may send any counter: saturate, never overflow */
        if (__builtin_add_overflow(r->base_mj[k], x.meter_energy_mj, &x.energy_mj))
            x.energy_mj = x.meter_energy_mj > 0 ? INT64_MAX : INT64_MIN;
        r->last_mj[k] = x.energy_mj;
        r->power_w[k] = x.power_mw * 1e-3;
        if (mw_store_sample_add(r->st, &x) != 0) {
            if (!r->store_failed)
                fprintf(stderr, "mw record: %s: %s\n", r->o.rundir, mw_store_error(r->st));
            r->store_failed = 1;
        } else {
            r->samples++;
        }
    }
    r->windows++;
    r->have_window = 1;
    r->last_t1_ns = ev->t1_ns;
}

static void on_event(rec_t *r, const mw_meter_event *ev)
{
    switch (ev->type) {
    case MW_METER_WINDOW:
        on_window(r, ev);
        break;
    case MW_METER_BOOT: {
        static const char *causes[] = {"power-on", "reset line", "brown-out", "watchdog", "JTAG"};
        r->boot_cause[0] = 0;
        for (int b = 4; b >= 0; b--)
            if (ev->mcusr & (1u << b))
                snprintf(r->boot_cause, sizeof r->boot_cause, "%s", causes[b]);
        if (!r->boot_cause[0]) snprintf(r->boot_cause, sizeof r->boot_cause, "bootloader");
        break;
    }
    default:
        break;
    }
}

/* ---- the connection ------------------------------------------------------------------ */

static void lost(rec_t *r)
{
    r->connected = 0;
    r->lost_at_mono = now(CLOCK_MONOTONIC);
    r->next_retry_mono = r->lost_at_mono + RETRY_NS;
    mw_meter_set_port(r->m, NULL);
    snprintf(r->pending_gap, sizeof r->pending_gap, "disconnected");
    fprintf(stderr, "%smw record: %s: the meter went away; reconnecting (the command goes on)\n",
            r->tty ? "\r\033[K" : "", r->path);
}

static void try_reconnect(rec_t *r)
{
    int64_t t = now(CLOCK_MONOTONIC);
    int arrived = r->usb ? mw_usb_watch_poll(r->usb, NULL) : 0;
    if (!arrived && t < r->next_retry_mono) return;
    r->next_retry_mono = t + RETRY_NS;
    char err[512];
    mw_port *p = mw_port_open(r->path, NULL, err, sizeof err);
    if (!p) return;
    mw_meter_set_port(r->m, p);
    r->connected = 1;
    r->reconnects++;
    fprintf(stderr, "%smw record: %s: meter back after %.1f s\n", r->tty ? "\r\033[K" : "", r->path,
            (double)(t - r->lost_at_mono) * 1e-9);
}

/* Read the meter for up to timeout_ms and store what came. */
static void pump(rec_t *r, int timeout_ms)
{
    if (!r->connected) {
        try_reconnect(r);
        if (!r->connected) {
            struct timespec ts = {0, (long)(timeout_ms < 50 ? timeout_ms : 50) * 1000000L};
            nanosleep(&ts, NULL);
            return;
        }
    }
    mw_meter_event ev;
    int n = mw_meter_next(r->m, &ev, timeout_ms);
    while (n > 0) {
        on_event(r, &ev);
        n = mw_meter_next(r->m, &ev, 0);
    }
    if (n < 0) lost(r);
    /* a failed commit (disk full, read-only) loses the data since the last one: say so */
    if (mw_store_maybe_commit(r->st) != 0 && !r->store_failed) {
        fprintf(stderr, "%smw record: %s: %s (the command goes on)\n", r->tty ? "\r\033[K" : "",
                r->o.rundir, mw_store_error(r->st));
        r->store_failed = 1;
    }
}

/* ---- the status line ----------------------------------------------------------------- */

static void status_line(rec_t *r, int force)
{
    int64_t t = now(CLOCK_MONOTONIC);
    if (!r->tty || (!force && t < r->next_status)) return;
    r->next_status = t + STATUS_NS;
    static const char *stage_name[] = {"idle", "running", "idle", "done"};
    char line[1024];
    size_t len = (size_t)snprintf(line, sizeof line, "\r%s %6.1f s", stage_name[r->stage],
                                  (double)(t - r->start_mono) * 1e-9);
    double e_j = 0;
    for (int k = 1; k <= r->nchan; k++) {
        e_j += (double)r->last_mj[k] * 1e-3;
        if (len < sizeof line)
            len += (size_t)snprintf(line + len, sizeof line - len, "  %s %.1f W", r->names.name[k],
                                    r->power_w[k]);
    }
    if (len < sizeof line)
        snprintf(line + len, sizeof line - len, "  %.1f J%s\033[K", e_j,
                 r->connected ? "" : "  (meter lost)");
    fputs(line, stderr);
    fflush(stderr);
}

/* ---- the child ------------------------------------------------------------------------ */

static int is_open_mpi_launcher(const char *argv0, const char *mpi)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", argv0);
    const char *b = basename(buf);
    int launcher = !strcmp(b, "mpirun") || !strcmp(b, "mpiexec") || !strcmp(b, "orterun");
    return launcher && (strstr(mpi, "Open MPI") || strstr(mpi, "OpenRTE"));
}

#define SIMCLUSTER_NICE "5" /* the command's nice value under --meter sim:cluster */

/* Start the command. Returns 0, or the exit status for a command that cannot start. */
static int spawn_child(rec_t *r)
{
    char rundir[PATH_MAX], dbpath[PATH_MAX + 32], mpi[512];
    if (!realpath(r->o.rundir, rundir)) snprintf(rundir, sizeof rundir, "%s", r->o.rundir);
    snprintf(dbpath, sizeof dbpath, "%s/%s", rundir, MW_STORE_DB_NAME);
    setenv("MW_RUN_DIR", rundir, 1);
    setenv("MW_TRACE_DB", dbpath, 1);
    setenv("MW_RECORD_HOST", r->host, 1);
    mw_simcluster *cluster = mw_meter_spec_cluster(r->ms);
    char traffic[PATH_MAX + 16];
    snprintf(traffic, sizeof traffic, "%s/traffic", rundir);
    if (cluster) setenv("MW_TRAFFIC_DIR", traffic, 1);
    if (mw_store_meta_get(r->st, "mpi", mpi, sizeof mpi) != 0) mpi[0] = 0;
    int n = 0;
    while (r->o.cmd[n])
        n++;
    char **argv = calloc((size_t)n + 14, sizeof *argv);
    if (!argv) return 1;
    int j = 0;
    if (cluster) {
        /* the simulated board must keep real time on a machine the simulated nodes
         * oversubscribe: the command (and every process it starts) runs at a lower priority
         * from its first instruction; its power follows its demand, waiting included, so it
         * is not lowered by this */
        argv[j++] = "nice";
        argv[j++] = "-n";
        argv[j++] = SIMCLUSTER_NICE;
    }
    argv[j++] = r->o.cmd[0];
    if (is_open_mpi_launcher(r->o.cmd[0], mpi)) {
        argv[j++] = "-x";
        argv[j++] = "MW_RUN_DIR";
        argv[j++] = "-x";
        argv[j++] = "MW_TRACE_DB";
        argv[j++] = "-x";
        argv[j++] = "MW_RECORD_HOST";
        if (cluster) {
            argv[j++] = "-x";
            argv[j++] = "MW_TRAFFIC_DIR";
        }
    }
    for (int i = 1; i < n; i++)
        argv[j++] = r->o.cmd[i];
    argv[j] = NULL;
    r->cmd_start_ns = now(CLOCK_REALTIME);
    int e = posix_spawnp(&r->child, argv[0], NULL, NULL, argv, environ);
    free(argv);
    unsetenv("MW_TRAFFIC_DIR");
    if (e == 0) {
        if (cluster) mw_simcluster_follow(cluster, r->child, traffic);
        return 0;
    }
    r->child = 0;
    fprintf(stderr, "%smw record: %s: %s\n", r->tty ? "\r\033[K" : "", r->o.cmd[0],
            e == ENOENT ? "command not found" : strerror(e));
    return e == ENOENT ? 127 : 126;
}

static void watch_child(rec_t *r)
{
    if (!r->child || r->child_done) return;
    if (g_forward_sig) {
        kill(r->child, g_forward_sig);
        g_forward_sig = 0;
    }
    int status;
    pid_t p = waitpid(r->child, &status, WNOHANG);
    if (p == r->child) {
        r->child_done = 1;
        mw_simcluster *cluster = mw_meter_spec_cluster(r->ms);
        if (cluster) mw_simcluster_follow(cluster, 0, NULL);
        r->cmd_end_ns = now(CLOCK_REALTIME);
        r->child_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
}

/* ---- stages -------------------------------------------------------------------------- */

static void stage_phase(rec_t *r, const char *name, int64_t start_ns, int64_t end_ns)
{
    mw_store_phase ph = {.rank = -1,
                         .host = r->host,
                         .thread = 0,
                         .kind = "mw",
                         .name = name,
                         .start_ns = start_ns,
                         .end_ns = end_ns,
                         .bytes = 0,
                         .pid = getpid(),
                         .peer = -1};
    if (mw_store_phase_add(r->st, &ph) != 0 && !r->store_failed) {
        fprintf(stderr, "mw record: %s: %s\n", r->o.rundir, mw_store_error(r->st));
        r->store_failed = 1;
    }
}

/* Keep recording until mono time `until` (or an interruption when stoppable). */
static void record_until(rec_t *r, int64_t until, int stoppable)
{
    int64_t t;
    while ((t = now(CLOCK_MONOTONIC)) < until && !(stoppable && g_interrupted)) {
        int64_t left_ms = (until - t) / 1000000 + 1;
        pump(r, left_ms < WAIT_MS ? (int)left_ms : WAIT_MS);
        status_line(r, 0);
    }
}

/* Keep recording until a window ending after t_ns (realtime) has arrived, at most max_ns. */
static void record_past(rec_t *r, int64_t t_ns, int64_t max_ns)
{
    int64_t until = now(CLOCK_MONOTONIC) + max_ns;
    while (now(CLOCK_MONOTONIC) < until && !(r->have_window && r->last_t1_ns >= t_ns)) {
        pump(r, 50);
        status_line(r, 0);
    }
}

static int restamp_map(void *ctx, uint64_t meter_us, int64_t *t_ns)
{
    void **c = ctx;
    return mw_meter_map_segment(c[0], *(int *)c[1], meter_us, t_ns, NULL);
}

/* With a simulated cluster every process ran on this host: the events go to the nodes the
 * processes played, and the live traffic files are removed (mw_simcluster_finish_run). */
static void finish_simcluster(rec_t *r, mw_simcluster *c)
{
    char err[2048], path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/traffic", r->o.rundir);
    if (mw_simcluster_finish_run(c, r->st, path, err, sizeof err) != 0) {
        if (!r->store_failed) fprintf(stderr, "mw record: %s: %s\n", r->o.rundir, err);
        r->store_failed = 1;
    }
}

static void finish_store(rec_t *r, const char *status)
{
    /* the instrumented program's events (libmwprobe), if any */
    mw_merge_stats ms_;
    char err[9000];
    if (mw_merge_run(r->st, r->o.rundir, &ms_, err, sizeof err) != 0) {
        fprintf(stderr, "mw record: %s\n", err);
        r->store_failed = 1;
    } else if (ms_.files) {
        meta_i64(r, "probe_processes", ms_.files);
        meta_i64(r, "probe_events", ms_.events);
        meta_i64(r, "probe_dropped_events", ms_.dropped);
        if (!r->o.quiet)
            fprintf(stderr, "mw record: %lld events from %d instrumented processes merged\n",
                    ms_.events, ms_.files);
    }
    if (mw_meter_spec_cluster(r->ms)) finish_simcluster(r, mw_meter_spec_cluster(r->ms));
    mw_meter_finish(r->m);
    int64_t worst = 0;
    for (int s = 0; s < r->nseg; s++) {
        int64_t t, u;
        if (mw_meter_map_segment(r->m, s, 0, &t, &u) != 0) continue;
        void *ctx[2] = {r->m, &s};
        mw_store_restamp(r->st, s, restamp_map, ctx, u);
        if (u > worst) worst = u;
    }
    mw_clock_state cs;
    mw_clock_get_state(mw_meter_clock(r->m), &cs);
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", cs.drift_ppm);
    meta(r, "clock_drift_ppm", buf);
    meta_i64(r, "clock_uncertainty_ns", worst);
    meta_i64(r, "end_ns", now(CLOCK_REALTIME));
    meta(r, "status", status);
    mw_meter_stats ms;
    mw_meter_get_stats(r->m, &ms);
    meta_i64(r, "meter_bad_crc_lines", (int64_t)ms.bad_crc);
    meta_i64(r, "meter_lost_windows", (int64_t)ms.lost_windows);
    meta_i64(r, "meter_restarts", (int64_t)ms.restarts);
    meta_i64(r, "reconnects", r->reconnects);
    mw_store_commit(r->st);
}

int cmd_record(int argc, char **argv)
{
    rec_t *r = calloc(1, sizeof *r);
    if (!r) return MW_EXIT_FAIL;
    int rc = parse_args(argc, argv, &r->o);
    if (rc >= 0) {
        free(r);
        return rc;
    }
    struct stat sb;
    if (!r->o.force && stat(r->o.rundir, &sb) == 0) {
        fprintf(stderr, "mw record: %s: already exists (choose another -o, or --force)\n",
                r->o.rundir);
        free(r);
        return MW_EXIT_USAGE;
    }
    if ((rc = mw_meter_spec_open("record", r->o.meter, &r->ms)) != 0) {
        free(r);
        return rc;
    }
    r->m = mw_meter_spec_meter(r->ms);
    snprintf(r->path, sizeof r->path, "%s", mw_meter_spec_path(r->ms));
    r->nchan = mw_meter_ident(r->m)->n_current;
    if (r->nchan > MW_CHANNELS_MAX) r->nchan = MW_CHANNELS_MAX;
    char err[4400], cluster_channels[1024];
    mw_simcluster *cluster = mw_meter_spec_cluster(r->ms);
    const char *chlist = r->o.channels;
    if (cluster && !chlist) {
        mw_simcluster_channels(cluster, cluster_channels, sizeof cluster_channels);
        chlist = cluster_channels;
    }
    if (mw_channels_load(&r->names, r->nchan, chlist, err, sizeof err) != 0) {
        fprintf(stderr, "mw record: %s\n", err);
        mw_meter_spec_close(r->ms);
        free(r);
        return MW_EXIT_USAGE;
    }
    r->st = mw_store_create(r->o.rundir, r->o.force, err, sizeof err);
    if (!r->st) {
        fprintf(stderr, "mw record: %s\n", err);
        mw_meter_spec_close(r->ms);
        free(r);
        return MW_EXIT_USAGE;
    }
    mw_sysinfo_hostname(r->host, sizeof r->host);
    const mw_proto_ident *id = mw_meter_ident(r->m);
    for (int k = 1; k <= r->nchan; k++) {
        char pin[8];
        snprintf(pin, sizeof pin, "A%d", id->pin[k]);
        if (mw_store_channel_add(r->st, k, r->names.name[k],
                                 r->names.host[k][0] ? r->names.host[k] : NULL, pin) != 0) {
            fprintf(stderr, "mw record: %s: %s\n", r->o.rundir, mw_store_error(r->st));
            r->store_failed = 1;
        }
    }
    write_meta(r, argv);
    char why[256];
    r->usb = mw_meter_spec_is_sim(r->ms) ? NULL : mw_usb_watch_start(why, sizeof why);
    r->segment = -1;
    r->connected = 1;
    r->tty = !r->o.quiet && isatty(2);
    r->start_mono = now(CLOCK_MONOTONIC);
    meta_i64(r, "start_ns", now(CLOCK_REALTIME));
    mw_store_commit(r->st);

    g_forward_sig = g_interrupted = 0;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    struct sigaction sc, old_chld;
    memset(&sc, 0, sizeof sc);
    sc.sa_handler = on_child;
    sigemptyset(&sc.sa_mask);
    sigaction(SIGCHLD, &sc, &old_chld);

    /* the first window, so that the command lies inside measured time */
    int64_t until = now(CLOCK_MONOTONIC) + FIRST_WAIT_NS;
    while (!r->have_window && now(CLOCK_MONOTONIC) < until && !g_interrupted)
        pump(r, 100);
    if (!r->have_window)
        fprintf(stderr, "mw record: %s: no window from the meter yet; recording anyway\n", r->path);

    const char *status = "complete";
    int exit_code = 0;
    int64_t t;
    if (r->o.idle_s > 0) {
        r->stage = ST_IDLE_BEFORE;
        int64_t s_ns = now(CLOCK_REALTIME);
        record_until(r, now(CLOCK_MONOTONIC) + (int64_t)(r->o.idle_s * 1e9), 1);
        stage_phase(r, "idle-before", s_ns, now(CLOCK_REALTIME));
    }
    if (g_interrupted) {
        status = "interrupted";
        exit_code = 128 + g_interrupted;
    } else {
        r->stage = ST_COMMAND;
        int e = spawn_child(r);
        if (e) {
            status = e == 127 ? "failed: command not found" : "failed: command cannot start";
            exit_code = e;
        } else {
            while (!r->child_done) {
                pump(r, CHILD_POLL_MS);
                watch_child(r);
                status_line(r, 0);
            }
            exit_code = r->child_status;
            /* the window holding the command's end */
            record_past(r, r->cmd_end_ns, 2000000000LL);
            stage_phase(r, "command", r->cmd_start_ns, r->cmd_end_ns);
            meta_i64(r, "cmd_start_ns", r->cmd_start_ns);
            meta_i64(r, "cmd_end_ns", r->cmd_end_ns);
            meta_i64(r, "exit_status", r->child_status);
            if (g_interrupted) status = "interrupted";
            if (r->o.idle_s > 0 && !g_interrupted) {
                r->stage = ST_IDLE_AFTER;
                int64_t s_ns = now(CLOCK_REALTIME);
                record_until(r, now(CLOCK_MONOTONIC) + (int64_t)(r->o.idle_s * 1e9), 1);
                stage_phase(r, "idle-after", s_ns, now(CLOCK_REALTIME));
            }
        }
    }
    if (exit_code && !r->child) meta_i64(r, "exit_status", exit_code);
    r->stage = ST_DONE;
    status_line(r, 1);
    if (r->tty) fputs("\n", stderr);
    t = now(CLOCK_MONOTONIC);
    finish_store(r, r->store_failed ? "failed: store" : status);
    if (!r->o.quiet)
        fprintf(stderr, "mw record: %s: %.1f s, %llu windows x %d channels, %s\n", r->o.rundir,
                (double)(t - r->start_mono) * 1e-9, (unsigned long long)r->windows, r->nchan,
                r->store_failed ? "failed: store" : status);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    mw_usb_watch_stop(r->usb);
    mw_store_close(r->st);
    mw_meter_spec_close(r->ms);
    int store_failed = r->store_failed;
    free(r);
    if (store_failed && exit_code == 0) return MW_EXIT_FAIL;
    return exit_code;
}
