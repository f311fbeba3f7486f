/* cmd_runs — "mw ls RUNDIR..." (one line per run) and "mw show RUNDIR" (a run's metadata
 * and per-channel figures), read from the run store (docs/run-store.md).
 *
 * Both read a run with one scan of its samples in primary-key order (segment, seq,
 * channel), inside one read transaction, accumulating per channel in exact integers
 * (__int128 for the sums of power x time):
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
 * as text tables: every cell is formatted first, then the columns are sized. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "cli.h"
#include "textout.h"
#include "mw_store.h"

#define RUNS_MAX_CHANNELS 64
#define RUNS_HOLE_NS 1000000 /* a hole between windows longer than this is a gap */

typedef struct {
    int channel;
    char name[128], host[128], pin[32];
    int64_t samples;
    __int128 window_pj; /* sum of power_mw x (t1_ns - t0_ns): mW x ns = pJ */
    int64_t covered_ns; /* sum of t1_ns - t0_ns */
    int have_first;
    int64_t first_energy_mj, first_window_nj, last_energy_mj;
    int64_t last_t1_ns;
    int64_t holes, hole_ns;
} chan_stats;

typedef struct {
    char status[256];
    int have_start, have_end;
    int64_t start_ns, end_ns;
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

static int64_t ns_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* a SQLite total() (a double) as int64 ns, clamped */
static int64_t ns_of_double(double v)
{
    if (v != v) return 0;
    return v >= 9223372036854775807.0    ? INT64_MAX
           : v <= -9223372036854775808.0 ? INT64_MIN
                                         : (int64_t)v;
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

/* ---- text tables ------------------------------------------------------------------- */

typedef struct {
    int ncols;
    const char *align; /* per column 'l' or 'r' */
    int nrows, cap;
    char **cells; /* nrows x ncols, malloc'd strings */
} table;

static void table_add(table *t, const char *const *row)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        char **c = realloc(t->cells, (size_t)t->cap * (size_t)t->ncols * sizeof *c);
        if (!c) {
            fprintf(stderr, "mw: out of memory\n");
            exit(MW_EXIT_FAIL);
        }
        t->cells = c;
    }
    for (int i = 0; i < t->ncols; i++) {
        char *s = strdup(row[i] ? row[i] : "");
        if (!s) {
            fprintf(stderr, "mw: out of memory\n");
            exit(MW_EXIT_FAIL);
        }
        t->cells[t->nrows * t->ncols + i] = s;
    }
    t->nrows++;
}

/* Columns two spaces apart, each as wide as its widest cell; no trailing blanks. */
static void table_print(table *t, FILE *out, const char *indent)
{
    int w[32] = {0};
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            int n = (int)strlen(t->cells[r * t->ncols + c]);
            if (n > w[c]) w[c] = n;
        }
    for (int r = 0; r < t->nrows; r++) {
        fputs(indent, out);
        for (int c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            int last = c == t->ncols - 1;
            if (c) fputs("  ", out);
            if (t->align[c] == 'r')
                fprintf(out, "%*s", w[c], s);
            else
                fprintf(out, "%-*s", last ? 0 : w[c], s);
        }
        fputc('\n', out);
    }
}

static void table_free(table *t)
{
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
}

/* ---- reading a run ----------------------------------------------------------------- */

static int db_fail(const char *cmd, mw_store *s)
{
    fprintf(stderr, "mw %s: %s: %s\n", cmd, mw_store_path(s), sqlite3_errmsg(mw_store_db(s)));
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
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_db(s),
                           "SELECT channel, name, host, pin FROM channels ORDER BY channel", -1,
                           &st, NULL) != SQLITE_OK)
        return db_fail(cmd, s);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        chan_stats *c = find_channel(r, sqlite3_column_int(st, 0));
        if (!c) continue;
        const char *v[3] = {(const char *)sqlite3_column_text(st, 1),
                            (const char *)sqlite3_column_text(st, 2),
                            (const char *)sqlite3_column_text(st, 3)};
        if (v[0]) snprintf(c->name, sizeof c->name, "%s", v[0]);
        if (v[1]) snprintf(c->host, sizeof c->host, "%s", v[1]);
        if (v[2]) snprintf(c->pin, sizeof c->pin, "%s", v[2]);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(cmd, s);
}

static int read_samples(const char *cmd, mw_store *s, run_stats *r)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_db(s),
                           "SELECT channel, t0_ns, t1_ns, power_mw, energy_mj, "
                           "meter_t1_us - meter_t0_us FROM samples "
                           "ORDER BY segment, seq, channel",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(cmd, s);
    int rc;
    int64_t max_t1 = INT64_MIN;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        chan_stats *c = find_channel(r, sqlite3_column_int(st, 0));
        if (!c) {
            fprintf(stderr, "mw %s: %s: more than %d channels\n", cmd, mw_store_path(s),
                    RUNS_MAX_CHANNELS);
            sqlite3_finalize(st);
            return -1;
        }
        int64_t t0 = sqlite3_column_int64(st, 1), t1 = sqlite3_column_int64(st, 2);
        int64_t p = sqlite3_column_int(st, 3), e = sqlite3_column_int64(st, 4); /* p: int32 */
        int64_t meter_us = sqlite3_column_int64(st, 5);
        __int128 pj = (__int128)p * ((__int128)t1 - t0);
        c->samples++;
        c->window_pj += pj;
        c->covered_ns = ns_add(c->covered_ns, ns_diff(t1, t0));
        if (!c->have_first) {
            c->have_first = 1;
            c->first_energy_mj = e;
            c->first_window_nj = (int64_t)((uint64_t)p * (uint64_t)meter_us);
        } else if (ns_diff(t0, c->last_t1_ns) > RUNS_HOLE_NS) {
            c->holes++;
            c->hole_ns = ns_add(c->hole_ns, ns_diff(t0, c->last_t1_ns));
        }
        c->last_energy_mj = e;
        c->last_t1_ns = t1;
        r->samples++;
        r->window_pj += pj;
        if (t1 > max_t1) max_t1 = t1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(cmd, s);
    if (!r->have_end && r->samples) {
        r->have_end = 1;
        r->end_ns = max_t1;
    }
    return 0;
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

/* Everything ls and show need (the caller holds a read transaction: one snapshot). */
static int read_run(const char *cmd, mw_store *s, run_stats *r)
{
    memset(r, 0, sizeof *r);
    sqlite3 *db = mw_store_db(s);
    if (mw_store_meta_get(s, "status", r->status, sizeof r->status))
        snprintf(r->status, sizeof r->status, "unknown");
    r->have_start = mw_store_start_ns(s, &r->start_ns) == 0;
    r->have_end = meta_int(s, "end_ns", &r->end_ns) == 0;
    int rc = read_channels(cmd, s, r) || read_samples(cmd, s, r) ? -1 : 0;
    sqlite3_stmt *st;
    if (!rc && sqlite3_prepare_v2(db, "SELECT count(*), total(end_ns - start_ns) FROM gaps", -1,
                                  &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            r->gaps = sqlite3_column_int64(st, 0);
            r->gap_ns = ns_of_double(sqlite3_column_double(st, 1));
        } else {
            rc = db_fail(cmd, s);
        }
        sqlite3_finalize(st);
    } else if (!rc) {
        rc = db_fail(cmd, s);
    }
    return rc;
}

/* Open RUNDIR for cmd: NULL with the exit code in *code (2: not a run, 1: unreadable). */
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
        fprintf(stderr, "mw %s: %s\n", cmd, err);
        *code = MW_EXIT_FAIL;
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
    fprintf(out, "usage: mw ls RUNDIR...\n\n"
                 "One line per run: its directory, status, start (local time, ISO 8601),\n"
                 "duration, channels, samples (one per channel and window), gaps recorded,\n"
                 "and the energy of all channels (sum over windows of power x duration).\n"
                 "A directory that is not a run is named on standard error (exit 2).\n\n"
                 "  -h, --help  this text\n");
}

int cmd_ls(int argc, char **argv)
{
    int rc = simple_args("ls", argc, argv, ls_usage);
    if (rc >= 0) return rc;
    if (optind >= argc) return mw_cli_usage_error("ls", "missing RUNDIR");
    table t = {.ncols = 8, .align = "lllrrrrr"};
    const char *head[] = {"run",      "status",  "start", "duration",
                          "channels", "samples", "gaps",  "energy"};
    table_add(&t, head);
    int code = MW_EXIT_OK;
    static run_stats r; /* large: not on the stack */
    for (int i = optind; i < argc; i++) {
        int c = MW_EXIT_OK;
        mw_store *s = open_run("ls", argv[i], &c);
        if (s) {
            sqlite3_exec(mw_store_db(s), "BEGIN", NULL, NULL, NULL);
            if (read_run("ls", s, &r)) c = MW_EXIT_FAIL;
            sqlite3_exec(mw_store_db(s), "COMMIT", NULL, NULL, NULL);
        }
        mw_store_close(s);
        if (c != MW_EXIT_OK) {
            if (code != MW_EXIT_USAGE) code = c;
            continue;
        }
        char start[64] = "-", dur[64] = "-", nch[32], ns[32], ng[32], e[64];
        if (r.have_start) iso_local(start, sizeof start, r.start_ns);
        if (r.have_start && r.have_end) seconds(dur, sizeof dur, ns_diff(r.end_ns, r.start_ns));
        snprintf(nch, sizeof nch, "%d", r.nch);
        snprintf(ns, sizeof ns, "%" PRId64, r.samples);
        snprintf(ng, sizeof ng, "%" PRId64, r.gaps);
        energy(e, sizeof e, r.window_pj);
        const char *row[] = {argv[i], r.status, start, dur, nch, ns, ng, e};
        table_add(&t, row);
    }
    if (t.nrows > 1) table_print(&t, stdout, "");
    table_free(&t);
    return code;
}

/* ---- mw show ----------------------------------------------------------------------- */

static void show_usage(FILE *out)
{
    fprintf(out, "usage: mw show RUNDIR\n\n"
                 "A run's status, start and end (local time, ISO 8601), duration, samples, gaps\n"
                 "and energy, every metadata key, then one line per channel:\n"
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
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_db(s), "SELECT key, value FROM meta ORDER BY key", -1, &st,
                           NULL) != SQLITE_OK)
        return db_fail("show", s);
    table t = {.ncols = 2, .align = "ll"};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *row[] = {(const char *)sqlite3_column_text(st, 0),
                             (const char *)sqlite3_column_text(st, 1)};
        table_add(&t, row);
    }
    sqlite3_finalize(st);
    fprintf(out, "\nmetadata\n");
    table_print(&t, out, "  ");
    table_free(&t);
    return rc == SQLITE_DONE ? 0 : db_fail("show", s);
}

static int show_gaps(mw_store *s, const run_stats *r, FILE *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_db(s),
                           "SELECT start_ns, end_ns, reason FROM gaps ORDER BY start_ns, id", -1,
                           &st, NULL) != SQLITE_OK)
        return db_fail("show", s);
    table t = {.ncols = 4, .align = "rrrl"};
    const char *head[] = {"start", "end", "length", "reason"};
    table_add(&t, head);
    int rc;
    int64_t origin = r->have_start ? r->start_ns : 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
        char sa[64], sb[64], len[64];
        const char *row[] = {
            seconds(sa, sizeof sa, ns_diff(a, origin)), seconds(sb, sizeof sb, ns_diff(b, origin)),
            seconds(len, sizeof len, ns_diff(b, a)), (const char *)sqlite3_column_text(st, 2)};
        table_add(&t, row);
    }
    sqlite3_finalize(st);
    if (t.nrows > 1) {
        fprintf(out, "\ngaps recorded\n");
        table_print(&t, out, "  ");
    }
    table_free(&t);
    return rc == SQLITE_DONE ? 0 : db_fail("show", s);
}

static void show_channels(const run_stats *r, FILE *out)
{
    table t = {.ncols = 9, .align = "rlllrrrrr"};
    const char *head[] = {
        "channel",          "name",           "host", "pin", "samples", "mean power",
        "energy (windows)", "energy (meter)", "gaps"};
    table_add(&t, head);
    for (int i = 0; i < r->nch; i++) {
        const chan_stats *c = &r->ch[i];
        char ch[16], n[32], p[64] = "-", ew[64] = "-", em[64] = "-", g[96], gs[64];
        snprintf(ch, sizeof ch, "%d", c->channel);
        snprintf(n, sizeof n, "%" PRId64, c->samples);
        if (c->covered_ns > 0) {
            __int128 mw = c->window_pj / c->covered_ns; /* mW, rounded below */
            __int128 rem = c->window_pj % c->covered_ns;
            if (rem < 0) rem = -rem;
            if (2 * rem >= c->covered_ns) mw += c->window_pj < 0 ? -1 : 1;
            mw_out_fixed(p, sizeof p, mw, 1, 3, "W");
        }
        if (c->samples) {
            energy(ew, sizeof ew, c->window_pj);
            __int128 nj =
                ((__int128)c->last_energy_mj - c->first_energy_mj) * 1000000 + c->first_window_nj;
            energy(em, sizeof em, nj * 1000);
        }
        snprintf(g, sizeof g, "%" PRId64 " (%s)", c->holes, seconds(gs, sizeof gs, c->hole_ns));
        const char *row[] = {ch, c->name, c->host, c->pin, n, p, ew, em, g};
        table_add(&t, row);
    }
    fputc('\n', out);
    table_print(&t, out, "");
    table_free(&t);
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
    sqlite3_exec(mw_store_db(s), "BEGIN", NULL, NULL, NULL); /* one snapshot for all */
    if (read_run("show", s, &r)) {
        sqlite3_exec(mw_store_db(s), "COMMIT", NULL, NULL, NULL);
        mw_store_close(s);
        return MW_EXIT_FAIL;
    }
    char start[64] = "-", end[64] = "-", dur[64] = "-", samples[64], gaps[96], gs[64], e[64];
    if (r.have_start) iso_local(start, sizeof start, r.start_ns);
    if (r.have_end) iso_local(end, sizeof end, r.end_ns);
    if (r.have_start && r.have_end) seconds(dur, sizeof dur, ns_diff(r.end_ns, r.start_ns));
    snprintf(samples, sizeof samples, "%" PRId64 " in %d channel%s", r.samples, r.nch,
             r.nch == 1 ? "" : "s");
    snprintf(gaps, sizeof gaps, "%" PRId64 " (%s)", r.gaps, seconds(gs, sizeof gs, r.gap_ns));
    energy(e, sizeof e, r.window_pj);
    strncat(e, " in all channels", sizeof e - strlen(e) - 1);
    table t = {.ncols = 2, .align = "ll"};
    const char *rows[][2] = {{"run", dir},   {"status", r.status}, {"start", start},
                             {"end", end},   {"duration", dur},    {"samples", samples},
                             {"gaps", gaps}, {"energy", e}};
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++)
        table_add(&t, rows[i]);
    table_print(&t, stdout, "");
    table_free(&t);
    if (show_meta(s, stdout)) code = MW_EXIT_FAIL;
    show_channels(&r, stdout);
    if (show_gaps(s, &r, stdout)) code = MW_EXIT_FAIL;
    sqlite3_exec(mw_store_db(s), "COMMIT", NULL, NULL, NULL);
    mw_store_close(s);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mw show: standard output: write error\n");
        code = MW_EXIT_FAIL;
    }
    return code;
}
