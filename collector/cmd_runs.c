/* cmd_runs — "mw ls RUNDIR..." (one line per run) and "mw show RUNDIR" (a run's metadata
 * and per-channel figures), read from the run store (docs/run-store.md) through its read
 * API (mw_run.h).
 *
 * Both read a run with one scan of its windows in the meter's order (segment, seq,
 * channel), inside one snapshot, summing each channel's windows in exact integers
 * (models/include/window_totals.h):
 *   energy (windows) = sum over the channel's windows of power_mw x (t1_ns - t0_ns), the
 *                      energy of the windows that were recorded;
 *   energy (meter)   = energy_mj of the last window - that of the first + the first
 *                      window's own energy (power_mw x its meter-time length), i.e. the
 *                      meter's counter over the same span, which also counts windows that
 *                      were lost on the way;
 *   mean power       = energy (windows) / the windows' total length;
 *   gaps             = holes of over 1 ms between consecutive windows of the channel.
 * The run's own gaps table (what the recorder noticed) is counted separately. Numbers are
 * formatted from integers, rounded once, and always carry their unit. Output is laid out
 * as text tables (texttable.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "cli.h"
#include "mw_run.h"
#include "mw_store.h"
#include "mw_sweepindex.h"
#include "textout.h"
#include "texttable.h"
#include "window_totals.h"

#define RUNS_MAX_CHANNELS 64
#define RUNS_HOLE_NS 1000000 /* a hole between windows longer than this is a gap */

typedef struct {
    int channel;
    char name[128], host[128], pin[32];
    mw_window_totals t;
} chan_stats;

typedef struct {
    char status[256];
    int have_start, have_end;
    int64_t start_ns, end_ns;
    int have_cmd;                       /* the command's start and end (meta cmd_*_ns) */
    int64_t cmd_start_ns, cmd_end_ns;
    int64_t first_t0_ns, last_t1_ns; /* the windows' extent (samples > 0) */
    int64_t samples, gaps, gap_ns;
    __int128 window_pj;
    int nch;
    chan_stats ch[RUNS_MAX_CHANNELS];
} run_stats;

/* ---- formatting -------------------------------------------------------------------- */

/* a - b and a + b of times read from a run, without signed overflow: they wrap only for a
 * damaged run's times (as mw export's since()) */
static int64_t ns_diff(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* an exact sum of ns as int64, clamped */
static int64_t ns_clamp(__int128 v)
{
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

static const char *seconds(char *buf, size_t len, int64_t ns)
{
    return mw_out_fixed(buf, len, ns, 1000000, 3, "s");
}

/* Energy from pJ: J with 3 decimals below 10 kJ, kJ with 3 decimals above. */
static const char *energy(char *buf, size_t len, __int128 pj)
{
    const __int128 j = 1000000000000;
    if (pj < 10000 * j && pj > -10000 * j) return mw_out_fixed(buf, len, pj, j / 1000, 3, "J");
    return mw_out_fixed(buf, len, pj, j, 3, "kJ");
}

/* Local time, ISO 8601 with the UTC offset: 2023-11-14T23:13:20+01:00. */
static const char *iso_local(char *buf, size_t len, int64_t ns)
{
    time_t t = (time_t)(ns / 1000000000 - (ns % 1000000000 < 0 ? 1 : 0));
    struct tm tm;
    if (!localtime_r(&t, &tm)) {
        snprintf(buf, len, "?");
        return buf;
    }
    char d[64];
    strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
    long off = tm.tm_gmtoff;
    char sign = off < 0 ? '-' : '+';
    if (off < 0) off = -off;
    int hh = (int)(off / 3600 % 100), mm = (int)(off / 60 % 60); /* UTC offsets are < 24 h */
    snprintf(buf, len, "%.40s%c%02d:%02d", d, sign, hh, mm);
    return buf;
}

/* ---- reading a run ----------------------------------------------------------------- */

static int run_fail(const char *cmd, mw_store *s)
{
    fprintf(stderr, "mw %s: %s\n", cmd, mw_store_error(s));
    return -1;
}

static chan_stats *find_channel(run_stats *r, int channel)
{
    for (int i = 0; i < r->nch; i++)
        if (r->ch[i].channel == channel) return &r->ch[i];
    if (r->nch == RUNS_MAX_CHANNELS) return NULL;
    chan_stats *c = &r->ch[r->nch++];
    memset(c, 0, sizeof *c);
    c->channel = channel;
    snprintf(c->name, sizeof c->name, "%d", channel);
    snprintf(c->host, sizeof c->host, "-");
    snprintf(c->pin, sizeof c->pin, "-");
    return c;
}

static int read_channels(const char *cmd, mw_store *s, run_stats *r)
{
    mw_run_cursor *c = mw_run_channels(s);
    if (!c) return run_fail(cmd, s);
    mw_run_channel ch;
    int rc;
    while ((rc = mw_run_channel_next(c, &ch)) == 1) {
        chan_stats *cs = find_channel(r, ch.channel);
        if (!cs) continue;
        snprintf(cs->name, sizeof cs->name, "%s", ch.name);
        if (ch.host) snprintf(cs->host, sizeof cs->host, "%s", ch.host);
        if (ch.pin) snprintf(cs->pin, sizeof cs->pin, "%s", ch.pin);
    }
    mw_run_close(c);
    return rc ? run_fail(cmd, s) : 0;
}

static int read_samples(const char *cmd, mw_store *s, run_stats *r)
{
    mw_run_cursor *c = mw_run_windows(s, -1, MW_RUN_BY_WINDOW);
    if (!c) return run_fail(cmd, s);
    mw_store_sample w;
    int rc;
    int64_t max_t1 = INT64_MIN, min_t0 = INT64_MAX;
    while ((rc = mw_run_window_next(c, &w)) == 1) {
        chan_stats *cs = find_channel(r, w.channel);
        if (!cs) {
            fprintf(stderr, "mw %s: %s: more than %d channels\n", cmd, mw_store_path(s),
                    RUNS_MAX_CHANNELS);
            mw_run_close(c);
            return -1;
        }
        mw_window_totals_add(&cs->t, w.t0_ns, w.t1_ns, w.power_mw, w.energy_mj,
                             (int64_t)(w.meter_t1_us - w.meter_t0_us), RUNS_HOLE_NS);
        r->samples++;
        r->window_pj += (__int128)w.power_mw * ((__int128)w.t1_ns - w.t0_ns);
        if (w.t1_ns > max_t1) max_t1 = w.t1_ns;
        if (w.t0_ns < min_t0) min_t0 = w.t0_ns;
    }
    r->first_t0_ns = min_t0;
    r->last_t1_ns = max_t1;
    mw_run_close(c);
    if (rc) return run_fail(cmd, s);
    if (!r->have_end && r->samples) {
        r->have_end = 1;
        r->end_ns = max_t1;
    }
    return 0;
}

/* the gaps the recorder noted: count and total length */
static int read_gaps(const char *cmd, mw_store *s, run_stats *r)
{
    mw_run_cursor *c = mw_run_gaps(s);
    if (!c) return run_fail(cmd, s);
    mw_run_gap g;
    int rc;
    __int128 total = 0;
    while ((rc = mw_run_gap_next(c, &g)) == 1) {
        r->gaps++;
        total += (__int128)g.end_ns - g.start_ns;
    }
    mw_run_close(c);
    r->gap_ns = ns_clamp(total);
    return rc ? run_fail(cmd, s) : 0;
}

static int meta_int(mw_store *s, const char *key, int64_t *v)
{
    char buf[64], *end;
    if (mw_store_meta_get(s, key, buf, sizeof buf)) return -1;
    errno = 0;
    long long x = strtoll(buf, &end, 10);
    if (errno || end == buf || *end) return -1;
    *v = x;
    return 0;
}

/* Everything ls and show need (the caller holds a snapshot). */
static int read_run(const char *cmd, mw_store *s, run_stats *r)
{
    memset(r, 0, sizeof *r);
    if (mw_store_meta_get(s, "status", r->status, sizeof r->status))
        snprintf(r->status, sizeof r->status, "unknown");
    r->have_start = mw_store_start_ns(s, &r->start_ns) == 0;
    r->have_end = meta_int(s, "end_ns", &r->end_ns) == 0;
    r->have_cmd = meta_int(s, "cmd_start_ns", &r->cmd_start_ns) == 0 &&
                  meta_int(s, "cmd_end_ns", &r->cmd_end_ns) == 0 && r->cmd_end_ns >= r->cmd_start_ns;
    return read_channels(cmd, s, r) || read_samples(cmd, s, r) || read_gaps(cmd, s, r) ? -1 : 0;
}

/* The run's duration: the command's run time (meta cmd_start_ns to cmd_end_ns) when it
 * ran one — the recording's own end (meta end_ns) comes after the idle stages and the merge
 * of the probe's events, so it is not the program's time — else, for a run without a
 * command (imported, or still recording), start to end (the last window's end when there
 * is no end yet), else the windows' extent; "-" when none is known. *what says which. */
static const char *run_duration(char *buf, size_t len, const run_stats *r, const char **what)
{
    snprintf(buf, len, "-");
    *what = "";
    if (r->have_cmd) {
        *what = "the command's run time";
        return seconds(buf, len, ns_diff(r->cmd_end_ns, r->cmd_start_ns));
    }
    if (r->have_start && r->have_end) { /* no command: an imported trace, a live run */
        *what = "start to end: no command times recorded";
        return seconds(buf, len, ns_diff(r->end_ns, r->start_ns));
    }
    if (r->samples) {
        *what = "the recorded windows, first to last";
        return seconds(buf, len, ns_diff(r->last_t1_ns, r->first_t0_ns));
    }
    return buf;
}

/* Open RUNDIR for cmd: NULL with the exit code in *code (2: not a run, or bad input (not a
 * megawatt run store, not a database, corrupt: mw_store_open's EINVAL); 1: the system
 * failed, an I/O error). */
static mw_store *open_run(const char *cmd, const char *rundir, int *code)
{
    if (!mw_store_exists(rundir)) {
        fprintf(stderr, "mw %s: %s: not a run (no %s there)\n", cmd, rundir, MW_STORE_DB_NAME);
        *code = MW_EXIT_USAGE;
        return NULL;
    }
    char err[1024];
    mw_store *s = mw_store_open(rundir, err, sizeof err);
    if (!s) {
        *code = errno == EINVAL ? MW_EXIT_USAGE : MW_EXIT_FAIL;
        fprintf(stderr, "mw %s: %s\n", cmd, err);
    }
    return s;
}

/* --help, or an unknown option: -1 when there is none (argv[1..] are operands). */
static int simple_args(const char *cmd, int argc, char **argv, void (*usage)(FILE *))
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return MW_EXIT_OK;
        }
        return mw_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
    }
    return -1;
}

/* ---- mw ls ------------------------------------------------------------------------- */

static void ls_usage(FILE *out)
{
    fprintf(out, "usage: mw ls RUNDIR|SWEEPDIR...\n\n"
                 "One line per run: its directory, status, start (local time, ISO 8601),\n"
                 "duration (the command's run time: from its start to its end, without the idle\n"
                 "stages or the merge of its events), channels, samples (one per channel and\n"
                 "window), gaps recorded,\n"
                 "and the energy of all channels (sum over windows of power x duration).\n"
                 "A sweep directory (mw sweep) stands for its runs, each listed (one not recorded\n"
                 "yet with the sweep's status). A directory that is not a run is named on\n"
                 "standard error (exit 2).\n\n"
                 "  -h, --help  this text\n");
}

/* One row of mw ls for run directory dir (status_hint: a sweep's status for a run that has
 * no store yet, else NULL). Returns the exit code of that run. */
static int ls_row(mw_table *t, const char *dir, const char *status_hint)
{
    static run_stats r; /* large: not on the stack */
    if (status_hint && !mw_store_exists(dir)) {
        const char *row[] = {dir, status_hint, "-", "-", "-", "-", "-", "-"};
        mw_table_add(t, row);
        return MW_EXIT_OK;
    }
    int c = MW_EXIT_OK;
    mw_store *s = open_run("ls", dir, &c);
    if (s) {
        mw_run_snapshot_begin(s);
        if (read_run("ls", s, &r)) c = mw_store_bad_input(s) ? MW_EXIT_USAGE : MW_EXIT_FAIL;
        mw_run_snapshot_end(s);
    }
    mw_store_close(s);
    if (c != MW_EXIT_OK) return c;
    char start[64] = "-", dur[64] = "-", nch[32], ns[32], ng[32], e[64];
    if (r.have_start) iso_local(start, sizeof start, r.start_ns);
    const char *what;
    run_duration(dur, sizeof dur, &r, &what);
    snprintf(nch, sizeof nch, "%d", r.nch);
    snprintf(ns, sizeof ns, "%" PRId64, r.samples);
    snprintf(ng, sizeof ng, "%" PRId64, r.gaps);
    energy(e, sizeof e, r.window_pj);
    const char *row[] = {dir, r.status, start, dur, nch, ns, ng, e};
    mw_table_add(t, row);
    return MW_EXIT_OK;
}

/* every run of sweep directory dir, in the index's order; the exit code */
static int ls_sweep(mw_table *t, const char *dir)
{
    char err[1024];
    mw_sweepidx *x = mw_sweepidx_open(dir, err, sizeof err);
    if (!x) {
        fprintf(stderr, "mw ls: %s\n", err);
        return MW_EXIT_USAGE;
    }
    int code = MW_EXIT_OK;
    for (size_t i = 0; i < mw_sweepidx_nruns(x); i++) {
        int c = ls_row(t, mw_sweepidx_run_dir(x, i), mw_sweepidx_run_status(x, i));
        if (c != MW_EXIT_OK && code != MW_EXIT_USAGE) code = c;
    }
    mw_sweepidx_close(x);
    return code;
}

int cmd_ls(int argc, char **argv)
{
    int rc = simple_args("ls", argc, argv, ls_usage);
    if (rc >= 0) return rc;
    if (optind >= argc) return mw_cli_usage_error("ls", "missing RUNDIR");
    mw_table t = {.ncols = 8, .align = "lllrrrrr"};
    const char *head[] = {"run",      "status",  "start", "duration",
                          "channels", "samples", "gaps",  "energy"};
    mw_table_add(&t, head);
    int code = MW_EXIT_OK;
    for (int i = optind; i < argc; i++) {
        int c = mw_sweepidx_is_sweep(argv[i]) ? ls_sweep(&t, argv[i]) : ls_row(&t, argv[i], NULL);
        if (c != MW_EXIT_OK && code != MW_EXIT_USAGE) code = c;
    }
    if (t.nrows > 1) mw_table_print(&t, stdout, "");
    mw_table_free(&t);
    return code;
}

/* ---- mw show ----------------------------------------------------------------------- */

static void show_usage(FILE *out)
{
    fprintf(out, "usage: mw show RUNDIR\n\n"
                 "A run's status, start and end of the recording (local time, ISO 8601; the end\n"
                 "comes after the merge of the program's events), duration (the command's run\n"
                 "time), the time the windows cover, samples, gaps and energy, every metadata\n"
                 "key, then one line per channel:\n"
                 "  samples           windows recorded\n"
                 "  mean power        energy (windows) / the windows' total length\n"
                 "  energy (windows)  sum over the windows of power x (end - start)\n"
                 "  energy (meter)    the meter's counter: last - first + the first window\n"
                 "                    (also counts windows lost on the way)\n"
                 "  gaps              holes over 1 ms between the channel's windows: count, total\n"
                 "and the gaps the recorder noted (start and end in s since the run's start).\n\n"
                 "  -h, --help  this text\n");
}

static int show_meta(mw_store *s, FILE *out)
{
    mw_run_cursor *c = mw_run_meta(s);
    if (!c) return run_fail("show", s);
    mw_table t = {.ncols = 2, .align = "ll"};
    const char *row[2];
    int rc;
    while ((rc = mw_run_meta_next(c, &row[0], &row[1])) == 1)
        mw_table_add(&t, row);
    mw_run_close(c);
    fprintf(out, "\nmetadata\n");
    mw_table_print(&t, out, "  ");
    mw_table_free(&t);
    return rc ? run_fail("show", s) : 0;
}

static int show_gaps(mw_store *s, const run_stats *r, FILE *out)
{
    mw_run_cursor *c = mw_run_gaps(s);
    if (!c) return run_fail("show", s);
    mw_table t = {.ncols = 4, .align = "rrrl"};
    const char *head[] = {"start", "end", "length", "reason"};
    mw_table_add(&t, head);
    mw_run_gap g;
    int rc;
    int64_t origin = r->have_start ? r->start_ns : 0;
    while ((rc = mw_run_gap_next(c, &g)) == 1) {
        char sa[64], sb[64], len[64];
        const char *row[] = {seconds(sa, sizeof sa, ns_diff(g.start_ns, origin)),
                             seconds(sb, sizeof sb, ns_diff(g.end_ns, origin)),
                             seconds(len, sizeof len, ns_diff(g.end_ns, g.start_ns)), g.reason};
        mw_table_add(&t, row);
    }
    mw_run_close(c);
    if (t.nrows > 1) {
        fprintf(out, "\ngaps recorded\n");
        mw_table_print(&t, out, "  ");
    }
    mw_table_free(&t);
    return rc ? run_fail("show", s) : 0;
}

static void show_channels(const run_stats *r, FILE *out)
{
    mw_table t = {.ncols = 9, .align = "rlllrrrrr"};
    const char *head[] = {
        "channel",          "name",           "host", "pin", "samples", "mean power",
        "energy (windows)", "energy (meter)", "gaps"};
    mw_table_add(&t, head);
    for (int i = 0; i < r->nch; i++) {
        const chan_stats *c = &r->ch[i];
        char ch[16], n[32], p[64] = "-", ew[64] = "-", em[64] = "-", g[96], gs[64];
        snprintf(ch, sizeof ch, "%d", c->channel);
        snprintf(n, sizeof n, "%" PRId64, c->t.samples);
        __int128 mean_mw;
        if (!mw_window_totals_mean_mw(&c->t, &mean_mw))
            mw_out_fixed(p, sizeof p, mean_mw, 1, 3, "W");
        if (c->t.samples) {
            energy(ew, sizeof ew, c->t.window_pj);
            energy(em, sizeof em, mw_window_totals_meter_pj(&c->t));
        }
        snprintf(g, sizeof g, "%" PRId64 " (%s)", c->t.holes, seconds(gs, sizeof gs, c->t.hole_ns));
        const char *row[] = {ch, c->name, c->host, c->pin, n, p, ew, em, g};
        mw_table_add(&t, row);
    }
    fputc('\n', out);
    mw_table_print(&t, out, "");
    mw_table_free(&t);
}

int cmd_show(int argc, char **argv)
{
    int rc = simple_args("show", argc, argv, show_usage);
    if (rc >= 0) return rc;
    if (optind >= argc) return mw_cli_usage_error("show", "missing RUNDIR");
    if (argc - optind > 1)
        return mw_cli_usage_error("show", "unexpected argument '%s' (one RUNDIR only)",
                                  argv[optind + 1]);
    const char *dir = argv[optind];
    int code = MW_EXIT_OK;
    mw_store *s = open_run("show", dir, &code);
    if (!s) return code;
    static run_stats r;
    mw_run_snapshot_begin(s); /* one snapshot for all */
    if (read_run("show", s, &r)) {
        code = mw_store_bad_input(s) ? MW_EXIT_USAGE : MW_EXIT_FAIL; /* docs/cli.md */
        mw_run_snapshot_end(s);
        mw_store_close(s);
        return code;
    }
    char start[64] = "-", end[64] = "-", dur[128] = "-", samples[64], gaps[96], gs[64], e[64];
    if (r.have_start) iso_local(start, sizeof start, r.start_ns);
    if (r.have_end) iso_local(end, sizeof end, r.end_ns);
    char rec[96] = "-";
    const char *what;
    run_duration(dur, sizeof dur, &r, &what);
    if (*what) {
        size_t l = strlen(dur);
        snprintf(dur + l, sizeof dur - l, " (%s)", what);
    }
    if (r.samples) {
        seconds(rec, sizeof rec, ns_diff(r.last_t1_ns, r.first_t0_ns));
        strncat(rec, " of windows", sizeof rec - strlen(rec) - 1);
    }
    snprintf(samples, sizeof samples, "%" PRId64 " in %d channel%s", r.samples, r.nch,
             r.nch == 1 ? "" : "s");
    snprintf(gaps, sizeof gaps, "%" PRId64 " (%s)", r.gaps, seconds(gs, sizeof gs, r.gap_ns));
    energy(e, sizeof e, r.window_pj);
    strncat(e, " in all channels", sizeof e - strlen(e) - 1);
    mw_table t = {.ncols = 2, .align = "ll"};
    const char *rows[][2] = {{"run", dir},   {"status", r.status}, {"start", start},
                             {"end", end},   {"duration", dur},    {"recorded", rec},
                             {"samples", samples}, {"gaps", gaps}, {"energy", e}};
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++)
        mw_table_add(&t, rows[i]);
    mw_table_print(&t, stdout, "");
    mw_table_free(&t);
    int bad = show_meta(s, stdout);
    show_channels(&r, stdout);
    bad |= show_gaps(s, &r, stdout);
    if (bad) code = mw_store_bad_input(s) ? MW_EXIT_USAGE : MW_EXIT_FAIL;
    mw_run_snapshot_end(s);
    mw_store_close(s);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mw show: standard output: write error\n");
        code = MW_EXIT_FAIL;
    }
    return code;
}
