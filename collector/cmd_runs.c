/* cmd_runs — "mw ls RUNDIR..." (one line per run) and "mw show RUNDIR" (a run's metadata
 * and per-channel figures), read from the run store (docs/run-store.md) through its read
 * API (mw_run.h). What a run's figures are, and how they are read and formatted, is in
 * run_summary.h; this file parses the options, calls it and lays the figures out as text
 * tables (texttable.h). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "mw_run.h"
#include "mw_store.h"
#include "mw_sweepindex.h"
#include "run_summary.h"
#include "textout.h"
#include "texttable.h"
#include "window_totals.h"

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
    static mw_runsum_run r; /* large: not on the stack */
    if (status_hint && !mw_store_exists(dir)) {
        const char *row[] = {dir, status_hint, "-", "-", "-", "-", "-", "-"};
        mw_table_add(t, row);
        return MW_EXIT_OK;
    }
    int c = MW_EXIT_OK;
    mw_store *s = mw_runsum_open("ls", dir, &c);
    if (s) {
        mw_run_snapshot_begin(s);
        if (mw_runsum_read("ls", s, &r)) c = mw_store_bad_input(s) ? MW_EXIT_USAGE : MW_EXIT_FAIL;
        mw_run_snapshot_end(s);
    }
    mw_store_close(s);
    if (c != MW_EXIT_OK) return c;
    char start[64] = "-", dur[64] = "-", nch[32], ns[32], ng[32], e[64];
    if (r.have_start) mw_runsum_iso_local(start, sizeof start, r.start_ns);
    const char *what;
    mw_runsum_duration(dur, sizeof dur, &r, &what);
    snprintf(nch, sizeof nch, "%d", r.nch);
    snprintf(ns, sizeof ns, "%" PRId64, r.samples);
    snprintf(ng, sizeof ng, "%" PRId64, r.gaps);
    mw_runsum_energy(e, sizeof e, r.window_pj);
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
                 "key, with several meters a table of them (name, host, port, clock offset),\n"
                 "then one line per channel:\n"
                 "  meter             with several meters: whose channel (METER:CHANNEL)\n"
                 "  samples           windows recorded\n"
                 "  mean power        energy (windows) / the windows' total length\n"
                 "  energy (windows)  sum over the windows of power x (end - start)\n"
                 "  energy (meter)    the meter's counter: last - first + the first window\n"
                 "                    (also counts windows lost on the way)\n"
                 "  gaps              holes over 1 ms between the channel's windows: count, total\n"
                 "and the gaps the recorder noted (start and end in s since the run's start;\n"
                 "with several meters, whose gap: the meter's name).\n\n"
                 "  -h, --help  this text\n");
}

static int show_meta(mw_store *s, FILE *out)
{
    mw_run_cursor *c = mw_run_meta(s);
    if (!c) return mw_runsum_fail("show", s);
    mw_table t = {.ncols = 2, .align = "ll"};
    const char *row[2];
    int rc;
    while ((rc = mw_run_meta_next(c, &row[0], &row[1])) == 1)
        mw_table_add(&t, row);
    mw_run_close(c);
    fprintf(out, "\nmetadata\n");
    mw_table_print(&t, out, "  ");
    mw_table_free(&t);
    return rc ? mw_runsum_fail("show", s) : 0;
}

/* A run of several meters (docs/run-store.md, version 5): a table of them, and their names
 * by number for the gaps (names[meter - 1], *n of them). Returns 0, or -1 with the error said. */
#define SHOW_METERS 16
static int show_meters(mw_store *s, char (*names)[128], int *n, FILE *out)
{
    mw_run_cursor *c = mw_run_meters(s);
    if (!c) return mw_runsum_fail("show", s);
    mw_table t = {.ncols = 5, .align = "lllll"};
    const char *head[] = {"meter", "name", "host", "port", "clock offset"};
    mw_table_add(&t, head);
    mw_run_meter m;
    int rc;
    *n = 0;
    while ((rc = mw_run_meter_next(c, &m)) == 1) {
        char num[16], off[96];
        snprintf(num, sizeof num, "%d", m.meter);
        /* in ms with 3 decimals: a merged host's offset and bound are microseconds, which
           seconds with 3 decimals showed as 0.000 s +- 0.000 s */
        if (m.clock_uncertainty_ns < 0) /* a lost host's: unknown (docs/scaling.md) */
            snprintf(off, sizeof off, "%.3f ms +- unknown", (double)m.clock_offset_ns / 1e6);
        else
            snprintf(off, sizeof off, "%.3f ms +- %.3f ms", (double)m.clock_offset_ns / 1e6,
                     (double)m.clock_uncertainty_ns / 1e6);
        const char *row[] = {num, m.name, m.host ? m.host : "-", m.port ? m.port : "-", off};
        mw_table_add(&t, row);
        if (m.meter >= 1 && m.meter <= SHOW_METERS)
            snprintf(names[m.meter - 1], sizeof names[0], "%s", m.name);
        if (m.meter > *n && m.meter <= SHOW_METERS) *n = m.meter;
    }
    mw_run_close(c);
    if (t.nrows > 2) {
        fprintf(out, "\nmeters\n");
        mw_table_print(&t, out, "  ");
    }
    mw_table_free(&t);
    return rc ? mw_runsum_fail("show", s) : 0;
}

static int show_gaps(mw_store *s, const mw_runsum_run *r, char (*meters)[128], int nmeters,
                     FILE *out)
{
    mw_run_cursor *c = mw_run_gaps(s);
    if (!c) return mw_runsum_fail("show", s);
    mw_table t = {.ncols = 4, .align = "rrrl"};
    const char *head[] = {"start", "end", "length", "reason"};
    mw_table_add(&t, head);
    mw_run_gap g;
    int rc;
    int64_t origin = r->have_start ? r->start_ns : 0;
    while ((rc = mw_run_gap_next(c, &g)) == 1) {
        char sa[64], sb[64], len[64], why[512];
        if (nmeters > 1 && g.meter >= 1 && g.meter <= nmeters) /* whose, with several */
            snprintf(why, sizeof why, "%s (meter %s)", g.reason, meters[g.meter - 1]);
        else
            snprintf(why, sizeof why, "%s", g.reason);
        const char *row[] = {
            mw_runsum_seconds(sa, sizeof sa, mw_runsum_ns_diff(g.start_ns, origin)),
            mw_runsum_seconds(sb, sizeof sb, mw_runsum_ns_diff(g.end_ns, origin)),
            mw_runsum_seconds(len, sizeof len, mw_runsum_ns_diff(g.end_ns, g.start_ns)), why};
        mw_table_add(&t, row);
    }
    mw_run_close(c);
    if (t.nrows > 1) {
        fprintf(out, "\ngaps recorded\n");
        mw_table_print(&t, out, "  ");
    }
    mw_table_free(&t);
    return rc ? mw_runsum_fail("show", s) : 0;
}

/* With several meters a column "meter" says whose channel it is: NAME:CHANNEL, as in the
 * channels file. */
static void show_channels(const mw_runsum_run *r, char (*meters)[128], int nmeters, FILE *out)
{
    int multi = nmeters > 1;
    mw_table t = {.ncols = multi ? 10 : 9, .align = multi ? "rllllrrrrr" : "rlllrrrrr"};
    const char *head[] = {"channel",    "name",           "host",           "pin", "samples",
                          "mean power", "energy (windows)", "energy (meter)", "gaps", "meter"};
    if (multi) { /* the meter after the pin */
        memmove(&head[4], &head[3], 6 * sizeof head[0]);
        head[4] = "meter";
    }
    mw_table_add(&t, head);
    for (int i = 0; i < r->nch; i++) {
        const mw_runsum_channel *c = &r->ch[i];
        char ch[16], n[32], p[64] = "-", ew[64] = "-", em[64] = "-", g[96], gs[64], m[160] = "-";
        snprintf(ch, sizeof ch, "%d", c->channel);
        snprintf(n, sizeof n, "%" PRId64, c->t.samples);
        __int128 mean_mw;
        if (!mw_window_totals_mean_mw(&c->t, &mean_mw))
            mw_out_fixed(p, sizeof p, mean_mw, 1, 3, "W");
        if (c->t.samples) {
            mw_runsum_energy(ew, sizeof ew, c->t.window_pj);
            mw_runsum_energy(em, sizeof em, mw_window_totals_meter_pj(&c->t));
        }
        snprintf(g, sizeof g, "%" PRId64 " (%s)", c->t.holes,
                 mw_runsum_seconds(gs, sizeof gs, c->t.hole_ns));
        if (multi && c->meter >= 1 && c->meter <= nmeters)
            snprintf(m, sizeof m, "%s:%d", meters[c->meter - 1], c->meter_channel);
        const char *plain[] = {ch, c->name, c->host, c->pin, n, p, ew, em, g};
        const char *row[] = {ch, c->name, c->host, c->pin, m, n, p, ew, em, g};
        mw_table_add(&t, multi ? row : plain);
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
    mw_store *s = mw_runsum_open("show", dir, &code);
    if (!s) return code;
    static mw_runsum_run r;
    mw_run_snapshot_begin(s); /* one snapshot for all */
    if (mw_runsum_read("show", s, &r)) {
        code = mw_store_bad_input(s) ? MW_EXIT_USAGE : MW_EXIT_FAIL; /* docs/cli.md */
        mw_run_snapshot_end(s);
        mw_store_close(s);
        return code;
    }
    char start[64] = "-", end[64] = "-", dur[128] = "-", samples[64], gaps[96], gs[64], e[64];
    if (r.have_start) mw_runsum_iso_local(start, sizeof start, r.start_ns);
    if (r.have_end) mw_runsum_iso_local(end, sizeof end, r.end_ns);
    char rec[96] = "-";
    const char *what;
    mw_runsum_duration(dur, sizeof dur, &r, &what);
    if (*what) {
        size_t l = strlen(dur);
        snprintf(dur + l, sizeof dur - l, " (%s)", what);
    }
    if (r.samples) {
        mw_runsum_seconds(rec, sizeof rec, mw_runsum_ns_diff(r.last_t1_ns, r.first_t0_ns));
        strncat(rec, " of windows", sizeof rec - strlen(rec) - 1);
    }
    snprintf(samples, sizeof samples, "%" PRId64 " in %d channel%s", r.samples, r.nch,
             r.nch == 1 ? "" : "s");
    snprintf(gaps, sizeof gaps, "%" PRId64 " (%s)", r.gaps,
             mw_runsum_seconds(gs, sizeof gs, r.gap_ns));
    mw_runsum_energy(e, sizeof e, r.window_pj);
    strncat(e, " in all channels", sizeof e - strlen(e) - 1);
    mw_table t = {.ncols = 2, .align = "ll"};
    const char *rows[][2] = {{"run", dir},         {"status", r.status}, {"start", start},
                             {"end", end},         {"duration", dur},    {"recorded", rec},
                             {"samples", samples}, {"gaps", gaps},       {"energy", e}};
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++)
        mw_table_add(&t, rows[i]);
    mw_table_print(&t, stdout, "");
    mw_table_free(&t);
    int bad = show_meta(s, stdout), nmeters = 0;
    static char meters[SHOW_METERS][128];
    bad |= show_meters(s, meters, &nmeters, stdout);
    show_channels(&r, meters, nmeters, stdout);
    bad |= show_gaps(s, &r, meters, nmeters, stdout);
    if (bad) code = mw_store_bad_input(s) ? MW_EXIT_USAGE : MW_EXIT_FAIL;
    mw_run_snapshot_end(s);
    mw_store_close(s);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mw show: standard output: write error\n");
        code = MW_EXIT_FAIL;
    }
    return code;
}
