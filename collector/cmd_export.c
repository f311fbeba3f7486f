/* cmd_export — "mw export RUNDIR --format csv|json [--what samples|phases|gaps|meta]
 * [-o FILE]": one table of a run (docs/run-store.md) as CSV or JSON, with stable columns.
 *
 * Each table is one SQL query, read inside one read transaction (a consistent snapshot even
 * while mw record is writing), turned into rows of fields that are either text (quoted per
 * RFC 4180 in CSV, escaped in JSON) or numbers. Numbers are formatted from the stored
 * integers with integer arithmetic, so a value is written exactly (power_w from mW with 3
 * decimals) or rounded once, half away from zero (time_s from ns to 6 decimals). Times are
 * seconds since the run's start (meta start_ns, else the first sample's t0_ns). With -o the
 * output goes to a temporary file in FILE's directory that is renamed over FILE only when
 * complete, so an error leaves no half-written FILE. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "mw_store.h"

typedef enum { FORMAT_UNSET, FORMAT_CSV, FORMAT_JSON } export_format;
typedef enum { WHAT_SAMPLES, WHAT_PHASES, WHAT_GAPS, WHAT_META } export_what;

typedef struct {
    const char *rundir;
    const char *output; /* -o FILE, NULL = stdout */
    export_format format;
    export_what what;
} export_opts;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw export RUNDIR --format csv|json [--what samples|phases|gaps|meta]\n"
            "                 [-o FILE]\n\n"
            "Writes one table of a run as CSV (a header line, then one line per row; text\n"
            "quoted per RFC 4180) or JSON (an array of objects with the same keys; meta: one\n"
            "object). Times are seconds since the run's start (meta start_ns, else the first\n"
            "sample's start).\n\n"
            "  --format csv|json  output format\n"
            "  --what TABLE       what to write (default samples):\n"
            "                     samples  time_s (window end), channel (name), power_w,\n"
            "                              vrms_v, irms_a, pf, energy_j (since the run's\n"
            "                              start), start_s (window start), seq, segment,\n"
            "                              flags (meter window flags), uncertainty_ms\n"
            "                     phases   rank, host, thread, kind, name, start_s, end_s, "
            "bytes\n"
            "                     gaps     start_s, end_s, reason\n"
            "                     meta     key, value\n"
            "  -o, --output FILE  write FILE (replaced only once complete) instead of standard\n"
            "                     output\n"
            "  -h, --help         this text\n");
}

/* Returns -1 when parsing went fine, else the exit code. */
static int parse_args(int argc, char **argv, export_opts *o)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"what", required_argument, NULL, 'w'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!strcmp(optarg, "csv"))
                o->format = FORMAT_CSV;
            else if (!strcmp(optarg, "json"))
                o->format = FORMAT_JSON;
            else
                return mw_cli_usage_error("export", "--format: '%s' is not csv or json", optarg);
            break;
        case 'w':
            if (!strcmp(optarg, "samples"))
                o->what = WHAT_SAMPLES;
            else if (!strcmp(optarg, "phases"))
                o->what = WHAT_PHASES;
            else if (!strcmp(optarg, "gaps"))
                o->what = WHAT_GAPS;
            else if (!strcmp(optarg, "meta"))
                o->what = WHAT_META;
            else
                return mw_cli_usage_error(
                    "export", "--what: '%s' is not samples, phases, gaps or meta", optarg);
            break;
        case 'o':
            if (!*optarg) return mw_cli_usage_error("export", "-o: needs a file name");
            o->output = optarg;
            break;
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error("export", "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error("export", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return mw_cli_usage_error("export", "missing RUNDIR");
    if (argc - optind > 1)
        return mw_cli_usage_error("export", "unexpected argument '%s' (one RUNDIR only)",
                                  argv[optind + 1]);
    o->rundir = argv[optind];
    if (o->format == FORMAT_UNSET) return mw_cli_usage_error("export", "missing --format csv|json");
    return -1;
}

/* v / per_unit with `decimals` decimals (per_unit a multiple of 10^decimals), rounded half
 * away from zero: fixed(buf, 1500, 1000, 3) = "1.500", fixed(buf, 2499500, 1000000000, 6)
 * = "0.002500". */
static const char *fixed(char *buf, size_t len, int64_t v, int64_t per_unit, int decimals)
{
    uint64_t q = 1;
    for (int i = 0; i < decimals; i++)
        q *= 10;
    uint64_t step = (uint64_t)per_unit / q;
    uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;
    uint64_t r = a / step + (a % step >= (step + 1) / 2 ? 1 : 0);
    int neg = v < 0 && r != 0;
    if (decimals)
        snprintf(buf, len, "%s%" PRIu64 ".%0*" PRIu64, neg ? "-" : "", r / q, decimals, r % q);
    else
        snprintf(buf, len, "%s%" PRIu64, neg ? "-" : "", r);
    return buf;
}

/* t - origin without signed overflow (wraps only for times 292 years apart) */
static int64_t since(int64_t t, int64_t origin)
{
    return (int64_t)((uint64_t)t - (uint64_t)origin);
}

/* One output field: text (quoted/escaped), a number (written as is), or null. */
typedef struct {
    const char *s; /* NULL = null (empty in CSV) */
    int text;
} field;

#define MAX_FIELDS 12

typedef struct {
    FILE *out;
    export_format format;
    const char *const *names;
    int n;
    long rows;
} writer;

static void csv_text(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void json_text(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void writer_begin(writer *w)
{
    if (w->format == FORMAT_JSON) {
        fputc('[', w->out);
        return;
    }
    for (int i = 0; i < w->n; i++)
        fprintf(w->out, "%s%s", i ? "," : "", w->names[i]);
    fputc('\n', w->out);
}

static void writer_row(writer *w, const field *f)
{
    if (w->format == FORMAT_CSV) {
        for (int i = 0; i < w->n; i++) {
            if (i) fputc(',', w->out);
            if (!f[i].s) continue;
            if (f[i].text)
                csv_text(w->out, f[i].s);
            else
                fputs(f[i].s, w->out);
        }
        fputc('\n', w->out);
    } else {
        fputs(w->rows ? ",\n{" : "\n{", w->out);
        for (int i = 0; i < w->n; i++) {
            fprintf(w->out, "%s\"%s\":", i ? "," : "", w->names[i]);
            if (!f[i].s)
                fputs("null", w->out);
            else if (f[i].text)
                json_text(w->out, f[i].s);
            else
                fputs(f[i].s, w->out);
        }
        fputc('}', w->out);
    }
    w->rows++;
}

static void writer_end(writer *w)
{
    if (w->format == FORMAT_JSON) fputs("\n]\n", w->out);
}

/* "" for NULL: a damaged run may hold NULL where the schema says NOT NULL, and meta's key may
 * be NULL (a TEXT primary key allows it) */
static const char *col_text(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    return t ? t : "";
}

/* Run sql and write its rows; format_row turns a result row into fields. Returns 0 or -1
 * (message printed). */
static int export_query(mw_store *s, writer *w, const char *sql, int64_t origin_ns,
                        void (*format_row)(sqlite3_stmt *, int64_t, field *, char (*)[32]))
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_db(s), sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "mw export: %s: %s\n", mw_store_path(s), sqlite3_errmsg(mw_store_db(s)));
        return -1;
    }
    writer_begin(w);
    field f[MAX_FIELDS];
    char num[MAX_FIELDS][32];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        format_row(st, origin_ns, f, num);
        writer_row(w, f);
    }
    if (rc != SQLITE_DONE)
        fprintf(stderr, "mw export: %s: %s\n", mw_store_path(s), sqlite3_errmsg(mw_store_db(s)));
    sqlite3_finalize(st);
    writer_end(w);
    return rc == SQLITE_DONE ? 0 : -1;
}

static const char *const sample_names[] = {
    "time_s",   "channel", "power_w", "vrms_v",  "irms_a", "pf",
    "energy_j", "start_s", "seq",     "segment", "flags",  "uncertainty_ms",
};
static const char sample_sql[] =
    "SELECT s.t1_ns, coalesce(c.name, CAST(s.channel AS TEXT)), s.power_mw, s.vrms_mv, "
    "s.irms_ua, s.pf_milli, s.energy_mj, s.t0_ns, s.seq, s.segment, s.flags, s.uncertainty_ns "
    "FROM samples s LEFT JOIN channels c ON c.channel = s.channel "
    "ORDER BY s.segment, s.seq, s.channel";

static void sample_row(sqlite3_stmt *st, int64_t origin, field *f, char (*n)[32])
{
    fixed(n[0], 32, since(sqlite3_column_int64(st, 0), origin), 1000000000, 6);
    fixed(n[2], 32, sqlite3_column_int64(st, 2), 1000, 3);
    fixed(n[3], 32, sqlite3_column_int64(st, 3), 1000, 3);
    fixed(n[4], 32, sqlite3_column_int64(st, 4), 1000000, 6);
    fixed(n[5], 32, sqlite3_column_int64(st, 5), 1000, 3);
    fixed(n[6], 32, sqlite3_column_int64(st, 6), 1000, 3);
    fixed(n[7], 32, since(sqlite3_column_int64(st, 7), origin), 1000000000, 6);
    snprintf(n[8], 32, "%" PRId64, (int64_t)sqlite3_column_int64(st, 8));
    snprintf(n[9], 32, "%" PRId64, (int64_t)sqlite3_column_int64(st, 9));
    snprintf(n[10], 32, "%" PRId64, (int64_t)sqlite3_column_int64(st, 10));
    fixed(n[11], 32, sqlite3_column_int64(st, 11), 1000000, 6);
    for (int i = 0; i < 12; i++)
        f[i] = (field){n[i], 0};
    f[1] = (field){col_text(st, 1), 1};
}

static const char *const phase_names[] = {"rank", "host",    "thread", "kind",
                                          "name", "start_s", "end_s",  "bytes"};
static const char phase_sql[] = "SELECT rank, host, thread, kind, name, start_ns, end_ns, bytes "
                                "FROM phases ORDER BY start_ns, rank, thread, id";

static void phase_row(sqlite3_stmt *st, int64_t origin, field *f, char (*n)[32])
{
    snprintf(n[0], 32, "%" PRId64, (int64_t)sqlite3_column_int64(st, 0));
    snprintf(n[2], 32, "%" PRId64, (int64_t)sqlite3_column_int64(st, 2));
    fixed(n[5], 32, since(sqlite3_column_int64(st, 5), origin), 1000000000, 6);
    fixed(n[6], 32, since(sqlite3_column_int64(st, 6), origin), 1000000000, 6);
    snprintf(n[7], 32, "%" PRId64, (int64_t)sqlite3_column_int64(st, 7));
    for (int i = 0; i < 8; i++)
        f[i] = (field){n[i], 0};
    f[1] = (field){col_text(st, 1), 1};
    f[3] = (field){col_text(st, 3), 1};
    f[4] = (field){col_text(st, 4), 1};
}

static const char *const gap_names[] = {"start_s", "end_s", "reason"};
static const char gap_sql[] = "SELECT start_ns, end_ns, reason FROM gaps ORDER BY start_ns, id";

static void gap_row(sqlite3_stmt *st, int64_t origin, field *f, char (*n)[32])
{
    fixed(n[0], 32, since(sqlite3_column_int64(st, 0), origin), 1000000000, 6);
    fixed(n[1], 32, since(sqlite3_column_int64(st, 1), origin), 1000000000, 6);
    f[0] = (field){n[0], 0};
    f[1] = (field){n[1], 0};
    f[2] = (field){col_text(st, 2), 1};
}

/* meta: CSV key,value rows; JSON one object {"key": "value", ...}. */
static int export_meta(mw_store *s, FILE *out, export_format format)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_db(s), "SELECT key, value FROM meta ORDER BY key", -1, &st,
                           NULL) != SQLITE_OK) {
        fprintf(stderr, "mw export: %s: %s\n", mw_store_path(s), sqlite3_errmsg(mw_store_db(s)));
        return -1;
    }
    fputs(format == FORMAT_CSV ? "key,value\n" : "{", out);
    int rc, rows = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = col_text(st, 0);
        const char *v = sqlite3_column_type(st, 1) == SQLITE_NULL ? NULL : col_text(st, 1);
        if (format == FORMAT_CSV) {
            csv_text(out, k);
            fputc(',', out);
            if (v) csv_text(out, v);
            fputc('\n', out);
        } else {
            fputs(rows ? ",\n" : "\n", out);
            json_text(out, k);
            fputc(':', out);
            if (v)
                json_text(out, v);
            else
                fputs("null", out);
        }
        rows++;
    }
    if (format == FORMAT_JSON) fputs("\n}\n", out);
    if (rc != SQLITE_DONE)
        fprintf(stderr, "mw export: %s: %s\n", mw_store_path(s), sqlite3_errmsg(mw_store_db(s)));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int export_table(mw_store *s, const export_opts *o, FILE *out)
{
    if (o->what == WHAT_META) return export_meta(s, out, o->format);
    int64_t origin = 0;
    mw_store_start_ns(s, &origin); /* a run with neither start_ns nor samples: origin 0 */
    writer w = {.out = out, .format = o->format};
    switch (o->what) {
    case WHAT_SAMPLES:
        w.names = sample_names;
        w.n = 12;
        return export_query(s, &w, sample_sql, origin, sample_row);
    case WHAT_PHASES:
        w.names = phase_names;
        w.n = 8;
        return export_query(s, &w, phase_sql, origin, phase_row);
    default:
        w.names = gap_names;
        w.n = 3;
        return export_query(s, &w, gap_sql, origin, gap_row);
    }
}

/* Export into a temporary file next to path, renamed over it when complete. */
static int export_to_file(mw_store *s, const export_opts *o)
{
    char tmp[4200];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", o->output) >= sizeof tmp) {
        fprintf(stderr, "mw export: %s: file name too long\n", o->output);
        return MW_EXIT_FAIL;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "mw export: %s: cannot write: %s\n", o->output, strerror(errno));
        return MW_EXIT_FAIL;
    }
    mode_t mask = umask(0); /* mkstemp makes 0600; give the file the usual 0666 & ~umask */
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *out = fdopen(fd, "w");
    if (!out) {
        fprintf(stderr, "mw export: %s: %s\n", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return MW_EXIT_FAIL;
    }
    int rc = export_table(s, o, out);
    int werr = 0;
    if (fflush(out) != 0 || ferror(out) || fsync(fd) != 0) werr = errno ? errno : EIO;
    if (fclose(out) != 0 && !werr) werr = errno;
    if (!rc && werr) fprintf(stderr, "mw export: %s: write error: %s\n", o->output, strerror(werr));
    if (!rc && !werr && rename(tmp, o->output) != 0) {
        fprintf(stderr, "mw export: %s: %s\n", o->output, strerror(errno));
        werr = errno;
    }
    if (rc || werr) {
        unlink(tmp);
        return MW_EXIT_FAIL;
    }
    return MW_EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
    export_opts o = {.format = FORMAT_UNSET, .what = WHAT_SAMPLES};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    if (!mw_store_exists(o.rundir)) {
        fprintf(stderr, "mw export: %s: not a run (no %s there)\n", o.rundir, MW_STORE_DB_NAME);
        return MW_EXIT_USAGE;
    }
    char err[1024];
    mw_store *s = mw_store_open(o.rundir, err, sizeof err);
    if (!s) {
        fprintf(stderr, "mw export: %s\n", err);
        return MW_EXIT_FAIL;
    }
    /* one read transaction: every query sees the same snapshot */
    sqlite3_exec(mw_store_db(s), "BEGIN", NULL, NULL, NULL);
    if (o.output) {
        rc = export_to_file(s, &o);
    } else {
        rc = export_table(s, &o, stdout) ? MW_EXIT_FAIL : MW_EXIT_OK;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "mw export: standard output: write error: %s\n", strerror(errno));
            rc = MW_EXIT_FAIL;
        }
    }
    sqlite3_exec(mw_store_db(s), "COMMIT", NULL, NULL, NULL);
    mw_store_close(s);
    return rc;
}
