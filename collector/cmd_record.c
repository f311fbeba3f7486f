/* cmd_record — "mw record": record the meter while a command runs.
 *
 * The meter is opened first, or every meter of --meter given several times
 * (record_meters.c; nothing is created when one cannot be, or one is given twice), then the
 * run directory and its store (mw_store.h), with the meters, the channels' names and the
 * metadata of the machine and meter 1. The recording itself is libmw's (mw_record.h): it stores every window of every
 * channel, keeps the energy continuous across meter resets, reopens a lost port while the
 * command goes on, and runs the stages (idle baseline before, the command, idle baseline
 * after). This file gives it the command and the signal flags; what happened is said by
 * record_news.c (each news on stderr, and on a terminal one status line). At the end the instrumented command's events
 * are merged (mw_merge.h), a simulated cluster's bookkeeping is done (mw_simcluster.h), and
 * the session keeps every segment's final clock fit (clock_knots) and writes the closing
 * metadata.
 *
 * The first store failure is said once; the command goes on, the run's status becomes
 * "failed: store" and the exit status 1 (unless the command's is not 0). A meter lost for
 * good (mw_record.h) is said at the end, the status gets ", meter lost at S s" (S since the
 * run's start) and the exit status is 1, again unless the command's is not 0: the
 * command's own failure is what its caller wants to see.
 *
 * Descriptors: a few are taken (on /dev/null) before anything is opened and given back just
 * before the end's work (merge, cluster bookkeeping, closing metadata), so a recording that
 * could start under a tight `ulimit -n` can also finish; where even the reserve cannot be
 * had, the run is refused at once with exit status 2 and nothing is made.
 *
 * The run directory is locked (mw_runlock.h, RUNDIR/.lock) before --force removes anything
 * and until the end: a second recorder of the same directory, forced or not, is refused with
 * exit status 2 and the holder's pid, and nothing of the first run is touched.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP are forwarded to the child (the run ends
 * "interrupted"), except a SIGINT or SIGHUP the terminal sent (si_code SI_KERNEL), which the
 * child, in the same process group, got already. SIGXFSZ and SIGPIPE are caught by a handler
 * that does nothing, so that the write fails instead (EFBIG past ulimit -f, EPIPE) and takes
 * the disk-full path: said once, the command goes on, "failed: store", exit status 1. A
 * signal that was ignored when mw started (nohup) stays ignored; a caught one is reset to its
 * default in the command by exec. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "record_cmd.h"
#include "record_dirs.h"
#include "record_hosts.h"
#include "record_inband.h"
#include "record_signals.h"
#include "record_slurm.h"
#include "channels.h"
#include "cli.h"
#include "meter_spec.h"
#include "mw_fs.h"
#include "mw_merge.h"
#include "mw_record.h"
#include "mw_runlock.h"
#include "mw_simcluster.h"
#include "mw_store.h"
#include "mw_sysinfo.h"
#include "textout.h"

static void usage(FILE *out)
{
    char cfg[4096];
    mw_channels_file(cfg, sizeof cfg);
    fprintf(out,
            "usage: mw record -o RUNDIR [--meter PORT|auto|sim[:PROFILE|:cluster[=FILE]]]...\n"
            "                 [--idle S] [--channels LIST] [--inband LIST] [--inband-hz HZ]\n"
            "                 [--force] [--quiet] -- CMD [ARGS...]\n"
            "       mw record -o RUNDIR --meter-hosts H1[=M1],H2[=M2],... [--meter M]\n"
            "                 [--force] [--quiet] -- CMD [ARGS...]\n\n"
            "Records the meter while CMD runs, into RUNDIR/trace.db (docs/run-store.md), and\n"
            "exits with CMD's exit status (127: CMD not found, 128+N: killed by signal N).\n"
            "CMD gets MW_RUN_DIR, MW_TRACE_DB and MW_RECORD_HOST in its environment (with\n"
            "Open MPI's mpirun they are passed to every rank with -x); the events of an\n"
            "instrumented CMD (libmwprobe) are merged into the run when it ends.\n"
            "SIGINT, SIGTERM and SIGHUP are passed on to CMD (the run ends 'interrupted').\n"
            "RUNDIR is locked while recording (RUNDIR/.lock): a second 'mw record' of it,\n"
            "--force or not, exits 2 naming the recorder's pid.\n"
            "If the meter is unplugged, recording resumes when it is back; CMD goes on.\n\n"
            "  -o, --output RUNDIR  run directory to create (refused if it exists)\n"
            "  --force              replace the trace of an existing RUNDIR\n"
            "  --meter M            serial port (e.g. /dev/ttyACM0), 'auto' (default: the one\n"
            "                       Arduino Mega on USB) or 'sim' (the simulated board;\n"
            "                       sim:PROFILE drives its loads from a CSV step profile;\n"
            "                       sim:cluster[=FILE] from the CPU activity of CMD's\n"
            "                       processes and its MPI traffic: docs/simulated-cluster.md);\n"
            "                       given up to 4 times, several meters (each 'sim' a board\n"
            "                       of its own, sim-1, sim-2...); 'auto' alone: every meter\n"
            "                       on USB; each meter has its own gaps\n"
            "  --idle S             record S seconds of idle baseline before and after CMD\n"
            "                       (0 to 86400; default 0)\n"
            "  --channels LIST      channel names in channel order, NAME or NAME@HOST,\n"
            "                       e.g. node0,node1,node2,node3,switch (default: the file\n"
            "                       %s, lines 'CHANNEL NAME [HOST]'\n"
            "                       or, with several meters, 'METER:CHANNEL NAME [HOST]',\n"
            "                       METER its serial or sim-N; else ch1, ch2, ..., m2.ch1...)\n"
            MW_REC_INBAND_USAGE
            "  --meter-hosts LIST   meters on several hosts: one agent per host records its\n"
            "                       meter (H=M, else --meter) through srun or mpirun, into\n"
            "                       RUNDIR/hosts/H; merged at the end (docs/scaling.md)\n"
            "  -q, --quiet          no status line\n"
            "  -h, --help           this text\n\n"
            "On a terminal one status line shows the time, W per channel and the energy so\n"
            "far. Exit status 2: bad usage, RUNDIR exists or is being recorded, a meter's\n"
            "port cannot be used, a meter is given twice, or the channels file names a\n"
            "meter not recorded (nothing is created then). Exit status 1 (when CMD's is 0):\n"
            "the store failed (disk full, past ulimit -f, read-only), or the meter was lost\n"
            "for good (gone or silent at the end: status 'complete, meter lost at S s'); CMD\n"
            "goes on either way.\n",
            cfg);
}

static int parse_args(int argc, char **argv, rec_opts *o)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"meter", required_argument, NULL, 'm'},
                                         {"idle", required_argument, NULL, 'i'},
                                         {"channels", required_argument, NULL, 'c'},
                                         {"meter-hosts", required_argument, NULL, 'H'},
                                         {"force", no_argument, NULL, 'f'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"help", no_argument, NULL, 'h'},
                                         MW_REC_INBAND_OPTIONS,
                                         {NULL, 0, NULL, 0}};
    mw_cli_seen seen = {0}; /* options that take one value: once each (cli.h) */
    static const int repeatable[] = {'m', 0};
    optind = 0;
    opterr = 0;
    mw_rec_inband_init(&o->inband);
    int c;
    /* "+": stop at the first non-option, so CMD's own options are never taken as ours */
    while ((c = getopt_long(argc, argv, "+:o:qh", opts, NULL)) != -1) {
        int once = mw_cli_once_opt("record", &seen, opts, c, repeatable);
        if (once) return once;
        switch (c) {
        case 'o':
            o->rundir = optarg;
            break;
        case 'm':
            if (o->nmeter == REC_MAX_METERS)
                return mw_cli_usage_error("record", "--meter: at most %d meters", REC_MAX_METERS);
            o->meter[o->nmeter++] = optarg;
            break;
        case 'c':
            o->channels = optarg;
            break;
        case 'H':
            o->meter_hosts = optarg;
            break;
        case 'f':
            o->force = 1;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'i': {
            double v;
            int rc = mw_cli_double("record", "--idle", optarg, 0, 86400, "s", &v);
            if (rc) return rc;
            o->idle_s = v;
            break;
        }
        case MW_REC_INBAND_OPT:
        case MW_REC_INBAND_HZ_OPT:
            if ((c = mw_rec_inband_option(&o->inband, c, optarg)) >= 0) return c;
            break;
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
    if (mw_store_meta_set(r->st, key, value) != 0) mw_rec_store_failed(r, mw_store_error(r->st));
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
    meta(r, "status", "recording");
    if (mw_sysinfo_meta(r->st, r->o.cmd, argv, r->host, buf, sizeof buf))
        mw_rec_store_failed(r, buf);
    if (mw_record_meter_meta(r->st, r->m, r->path, mw_meter_spec_is_sim(r->ms), buf, sizeof buf))
        mw_rec_store_failed(r, buf);
    if (mw_meter_spec_calibration(r->m, buf, sizeof buf) != 0)
        fprintf(stderr, "mw record: %s: calibration not read (%s)\n", r->path, buf);
    meta(r, "meter_calibration", buf);
    snprintf(buf, sizeof buf, "%g", r->o.idle_s);
    meta(r, "idle_s", buf);
    meta(r, "channels_from", r->names.source);
    mw_rec_slurm_meta(r); /* inside a Slurm job: the job, its nodes, their channels */
}

/* The command started or ended (mw_record_command.command): a simulated cluster follows it. */
static void on_command(void *ctx, pid_t pid, const char *traffic_dir)
{
    rec_t *r = ctx;
    mw_simcluster *cluster = mw_meter_spec_cluster(r->ms);
    if (cluster) mw_simcluster_follow(cluster, pid, traffic_dir);
}

/* ---- the end ------------------------------------------------------------------------- */

static void finish_store(rec_t *r, const char *status)
{
    /* the instrumented program's events (libmwprobe), if any */
    mw_merge_stats ms;
    char err[9000];
    if (mw_merge_run(r->st, r->o.rundir, &ms, mw_merge_say_skipped, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "mw record: %s\n", err);
        r->store_failed = 1;
    } else if (ms.files) {
        meta_i64(r, "probe_processes", ms.files);
        meta_i64(r, "probe_events", ms.events);
        meta_i64(r, "probe_dropped_events", ms.dropped);
        if (!r->o.quiet)
            fprintf(stderr, "mw record: %lld events from %d instrumented process%s merged\n",
                    ms.events, ms.files, ms.files == 1 ? "" : "es");
        if (ms.dropped) /* even with -q: the run is not what it looks like */
            fprintf(stderr,
                    "mw record: warning: the probes dropped %lld events (%.1f %%): "
                    "raise MW_PROBE_RING_EVENTS (docs/probe.md)\n",
                    ms.dropped, 100.0 * (double)ms.dropped / (double)(ms.dropped + ms.events));
    }
    mw_rec_dirs_done(r->o.rundir);
    /* with a simulated cluster every process ran on this host: the events go to the nodes
     * the processes played */
    mw_simcluster *cluster = mw_meter_spec_cluster(r->ms);
    char traffic[PATH_MAX + 300];
    snprintf(traffic, sizeof traffic, "%s/traffic", r->o.rundir);
    if (cluster && mw_simcluster_finish_run(cluster, r->st, traffic, err, sizeof err) != 0)
        mw_rec_store_failed(r, err);
    if (mw_record_finish(r->rec, status, err, sizeof err) != 0) mw_rec_store_failed(r, err);
    mw_store_commit(r->st);
}

/* The store failed and the run may still read "recording" (its last transaction, the
 * closing one, was lost: a WAL past ulimit -f cannot grow). Closing the store checkpoints
 * what was committed and empties the WAL; a fresh connection then has room for the one key.
 * Where the directory refuses every write (read-only) the status stays "recording". */
static void status_last_try(rec_t *r)
{
    char err[4400], cur[64];
    mw_store *st = mw_store_open_write(r->o.rundir, err, sizeof err);
    if (!st) return;
    if (mw_store_meta_get(st, "status", cur, sizeof cur) == 0 && !strcmp(cur, "recording") &&
        (mw_store_meta_set(st, "status", "failed: store") != 0 || mw_store_commit(st) != 0))
        fprintf(stderr, "mw record: %s: status not stored: %s\n", r->o.rundir, mw_store_error(st));
    mw_store_close(st);
}

/* ---- setting up ---------------------------------------------------------------------- */

/* The meters, the channels' names, the run's store and its first metadata. Returns -1, or
 * the exit code with everything undone. */
static int open_run(rec_t *r, char **argv)
{
    struct stat sb;
    if (!r->o.force && stat(r->o.rundir, &sb) == 0) {
        fprintf(stderr, "mw record: %s: already exists (choose another -o, or --force)\n",
                r->o.rundir);
        return MW_EXIT_USAGE;
    }
    if (mw_rec_reserve_take(r) != 0) {
        fprintf(stderr, "mw record: cannot start: %s (ulimit -n %ld)\n", strerror(errno),
                sysconf(_SC_OPEN_MAX));
        mw_rec_reserve_give_back(r);
        return MW_EXIT_USAGE;
    }
    int rc = mw_rec_meters_open(r); /* every meter, or none and nothing made */
    if (rc >= 0) {
        mw_rec_reserve_give_back(r);
        return rc;
    }
    char err[4400], cluster_channels[1024];
    mw_simcluster *cluster = mw_meter_spec_cluster(r->ms);
    const char *chlist = r->o.channels;
    if (cluster && !chlist) {
        mw_simcluster_channels(cluster, cluster_channels, sizeof cluster_channels);
        chlist = cluster_channels;
    }
    int names_rc = mw_rec_meters_names(r, chlist, err, sizeof err);
    if (names_rc == 0 && chlist != r->o.channels) /* the cluster's names, not a --channels */
        snprintf(r->names.source, sizeof r->names.source, "simulated cluster");
    if (names_rc != 0 || mw_rec_lock_and_create(r, err, sizeof err) != 0) {
        fprintf(stderr, "mw record: %s\n", err);
        mw_rec_meters_close(r);
        mw_rec_reserve_give_back(r);
        return MW_EXIT_USAGE;
    }
    mw_sysinfo_hostname(r->host, sizeof r->host);
    mw_rec_meters_store(r);
    write_meta(r, argv);
    mw_rec_meters_meta(r);
    mw_rec_meters_sessions(r);
    r->tty = !r->o.quiet && isatty(2);
    r->start_mono = mw_rec_now(CLOCK_MONOTONIC);
    meta_i64(r, "start_ns", mw_record_start_ns(r->rec));
    mw_store_commit(r->st);
    return -1;
}

int cmd_record(int argc, char **argv)
{
    rec_t *r = calloc(1, sizeof *r);
    if (!r) return MW_EXIT_FAIL;
    int rc = parse_args(argc, argv, &r->o);
    if (rc < 0 && r->o.meter_hosts &&
        (r->o.idle_s > 0 || r->o.channels || r->o.inband.given || r->o.nmeter > 1))
        rc = mw_cli_usage_error("record", "--meter-hosts: not with --idle, --channels, "
                                          "--inband or several --meter (docs/scaling.md)");
    if (rc < 0 && r->o.meter_hosts)
        rc = mw_rec_hosts_run(r->o.rundir, r->o.meter_hosts,
                              r->o.nmeter ? r->o.meter[0] : NULL, r->o.force, r->o.quiet,
                              r->o.cmd, argv);
    if (rc < 0) rc = open_run(r, argv);
    if (rc >= 0) {
        free(r);
        return rc;
    }
    mw_record_signals old;
    mw_record_signals_catch(&old);
    mw_record_command c = {
        .cmd = r->o.cmd,
        .rundir = r->o.rundir,
        .host = r->host,
        .traffic = mw_meter_spec_cluster(r->ms) != NULL,
        /* the simulated board must keep real time on a machine the simulated nodes
         * oversubscribe: the command (and every process it starts) runs at a lower priority
         * from its first instruction; its power follows its demand, waiting included, so it
         * is not lowered by this */
        .nice = mw_meter_spec_cluster(r->ms) ? SIMCLUSTER_NICE : NULL,
        .idle_s = r->o.idle_s,
        .interrupted = &mw_record_interrupted,
        .forward = &mw_record_forward_sig,
        .ctx = r,
        .news = mw_rec_on_news,
        .command = on_command,
    };
    c.traffic = mw_rec_dirs_prepare(r->o.rundir, c.traffic);
    mw_record_outcome out;
    mw_rec_inband_start(&r->o.inband, r->st, r->o.rundir, r->host, r->o.quiet); /* said */
    mw_record_run(r->rec, &c, &out); /* what was not stored was said */
    if (mw_rec_inband_stop(&r->o.inband, r->st, r->o.quiet)) r->store_failed = 1;
    const char *status = out.status;
    int exit_code = out.exit_code;
    r->stage = STAGE_DONE;
    mw_rec_status_line(r, 1);
    if (r->tty) fputs("\n", stderr);
    int64_t t = mw_rec_now(CLOCK_MONOTONIC);
    if (out.meter_lost && r->nmeters > 1)
        fprintf(stderr, "mw record: %s: %s (a meter did not come back)\n", r->o.rundir, status);
    else if (out.meter_lost)
        fprintf(stderr, "mw record: %s: the meter did not come back; no data after %.1f s\n",
                r->path, (double)(out.meter_lost_ns - mw_record_start_ns(r->rec)) * 1e-9);
    mw_rec_reserve_give_back(r); /* room for the end's work (see top) */
    finish_store(r, r->store_failed ? "failed: store" : status);
    if (!r->o.quiet && r->nmeters > 1)
        fprintf(stderr, "mw record: %s: %.1f s, %llu samples of %d channels on %d meters, %s\n",
                r->o.rundir, (double)(t - r->start_mono) * 1e-9,
                (unsigned long long)mw_rec_samples(r), r->nchan, r->nmeters,
                r->store_failed ? "failed: store" : status);
    else if (!r->o.quiet)
        fprintf(stderr, "mw record: %s: %.1f s, %llu windows x %d channels, %s\n", r->o.rundir,
                (double)(t - r->start_mono) * 1e-9, (unsigned long long)mw_record_windows(r->rec),
                r->nchan, r->store_failed ? "failed: store" : status);
    mw_store_close(r->st);
    if (r->store_failed) status_last_try(r);
    mw_record_signals_restore(
        &old); /* after the last write: past ulimit -f it fails, nothing kills */
    mw_runlock_release(r->lock);
    mw_rec_meters_close(r);
    int failed = r->store_failed;
    free(r);
    /* the command's own failure wins: it is what the caller ran */
    if ((failed || out.meter_lost) && exit_code == 0) return MW_EXIT_FAIL;
    return exit_code;
}
