/* cmd_export — "mw export RUNDIR --format csv|json [--what samples|phases|gaps|meta]
 * [-o FILE]": one table of a run (docs/run-store.md) as CSV or JSON, with stable columns;
 * "--format otf2 -o DIR" and "--format perfetto [-o FILE]": the whole run as a trace for
 * other tools, written by libmw (mw_export.h).
 *
 * Each table is one cursor of the run store's read API (mw_run.h), read inside one snapshot
 * (consistent even while mw record is writing), turned into rows of fields that are either
 * text (quoted per RFC 4180 in CSV, never altered, formula-like fields warned about:
 * csvout.h; escaped in JSON) or numbers. Numbers are formatted from the stored integers with
 * integer arithmetic, so a value is written exactly (power_w from mW with 3 decimals) or
 * rounded once, half away from zero (time_s from ns to 6 decimals). Times are
 * seconds since the run's start (meta start_ns, else the first sample's t0_ns). With -o the
 * output goes to a temporary file in FILE's directory that is renamed over FILE only when
 * complete, so an error leaves no half-written FILE. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "csvout.h"
#include "cli.h"
#include "mw_export.h"
#include "mw_run.h"
#include "mw_store.h"
#include "textout.h"

typedef enum { FORMAT_UNSET, FORMAT_CSV, FORMAT_JSON, FORMAT_OTF2, FORMAT_PERFETTO } export_format;
typedef enum { WHAT_SAMPLES, WHAT_PHASES, WHAT_GAPS, WHAT_META } export_what;

typedef struct {
    const char *rundir;
    const char *output; /* -o FILE, NULL = stdout */
    export_format format;
    export_what what;
    int what_given;
} export_opts;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw export RUNDIR --format csv|json [--what samples|phases|gaps|meta]\n"
            "                 [-o FILE]\n"
            "       mw export RUNDIR --format otf2 -o DIR\n"
            "       mw export RUNDIR --format perfetto [-o FILE]\n\n"
            "Writes one table of a run as CSV (a header line, then one line per row; text\n"
            "quoted per RFC 4180) or JSON (an array of objects with the same keys; meta: one\n"
            "object). Times are seconds since the run's start (meta start_ns, else the first\n"
            "sample's start).\n\n"
            "otf2 (an archive in the new directory DIR) and perfetto (trace-event JSON for\n"
            "ui.perfetto.dev) write the whole run: phases per rank and thread, every\n"
            "channel's power (W); docs/cli.md says what goes where.\n\n"
            "  --format FORMAT    csv, json, otf2 or perfetto\n"
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
    mw_cli_seen seen = {0}; /* options that take one value: once each (cli.h) */
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        int once = mw_cli_once_opt("export", &seen, opts, c, NULL);
        if (once) return once;
        switch (c) {
        case 'f':
            if (!strcmp(optarg, "csv"))
                o->format = FORMAT_CSV;
            else if (!strcmp(optarg, "json"))
                o->format = FORMAT_JSON;
            else if (!strcmp(optarg, "otf2"))
                o->format = FORMAT_OTF2;
            else if (!strcmp(optarg, "perfetto"))
                o->format = FORMAT_PERFETTO;
            else
                return mw_cli_usage_error(
                    "export", "--format: '%s' is not csv, json, otf2 or perfetto", optarg);
            break;
        case 'w':
            o->what_given = 1;
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
    if (o->format == FORMAT_UNSET)
        return mw_cli_usage_error("export", "missing --format csv|json|otf2|perfetto");
    if ((o->format == FORMAT_OTF2 || o->format == FORMAT_PERFETTO) && o->what_given)
        return mw_cli_usage_error("export", "--what: not with --format %s (it writes the whole run)",
                                  o->format == FORMAT_OTF2 ? "otf2" : "perfetto");
    if (o->format == FORMAT_OTF2 && !o->output)
        return mw_cli_usage_error("export", "--format otf2: needs -o DIR");
    return -1;
}

/* t - origin without signed overflow (wraps only for times 292 years apart) */
static int64_t since(int64_t t, int64_t origin)
{
    return (int64_t)((uint64_t)t - (uint64_t)origin);
}

/* v / step rounded half away from zero with `decimals` decimals, step being one unit of the
 * last decimal (textout.h): dec(n, 1500, 1, 3) = "1.500" (mW as W), dec(n, 2499500, 1000,
 * 6) = "0.002500" (ns as s). */
static const char *dec(char *buf, int64_t v, int64_t step, int decimals)
{
    return mw_out_fixed(buf, 32, v, step, decimals, "");
}

static const char *integer(char *buf, int64_t v)
{
    snprintf(buf, 32, "%" PRId64, v);
    return buf;
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

/* formula-like text fields (csvout.h), for the warning at the end */
static mw_csv_formulas csv_formulas;

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
        csv_formulas.row = w->rows + 1;
        for (int i = 0; i < w->n; i++) {
            if (i) fputc(',', w->out);
            if (!f[i].s) continue;
            csv_formulas.column = w->names[i];
            if (f[i].text)
                mw_csv_text(w->out, f[i].s, &csv_formulas);
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
                mw_out_json_string(w->out, f[i].s);
            else
                fputs(f[i].s, w->out);
        }
        fputc('}', w->out);
    }
    w->rows++;
}

/* The end of a table; on a read error (rc < 0) the store's message. 0 or -1. */
static int writer_end(writer *w, mw_store *s, int rc)
{
    if (rc < 0) fprintf(stderr, "mw export: %s\n", mw_store_error(s));
    if (w->format == FORMAT_JSON) fputs("\n]\n", w->out);
    return rc < 0 ? -1 : 0;
}

static int open_error(mw_store *s)
{
    fprintf(stderr, "mw export: %s\n", mw_store_error(s));
    return -1;
}

static const char *const sample_names[] = {
    "time_s",   "channel", "power_w", "vrms_v",  "irms_a", "pf",
    "energy_j", "start_s", "seq",     "segment", "flags",  "uncertainty_ms",
};

static int export_samples(mw_store *s, writer *w, int64_t origin)
{
    mw_run_cursor *c = mw_run_named_windows(s);
    if (!c) return open_error(s);
    writer_begin(w);
    mw_store_sample x;
    const char *name;
    char n[MAX_FIELDS][32];
    int rc;
    while ((rc = mw_run_named_window_next(c, &x, &name)) == 1) {
        const field f[] = {
            {dec(n[0], since(x.t1_ns, origin), 1000, 6), 0},
            {name, 1},
            {dec(n[2], x.power_mw, 1, 3), 0},
            {dec(n[3], x.vrms_mv, 1, 3), 0},
            {dec(n[4], x.irms_ua, 1, 6), 0},
            {dec(n[5], x.pf_milli, 1, 3), 0},
            {dec(n[6], x.energy_mj, 1, 3), 0},
            {dec(n[7], since(x.t0_ns, origin), 1000, 6), 0},
            {integer(n[8], x.seq), 0},
            {integer(n[9], x.segment), 0},
            {integer(n[10], x.flags), 0},
            {dec(n[11], x.uncertainty_ns, 1, 6), 0},
        };
        writer_row(w, f);
    }
    mw_run_close(c);
    return writer_end(w, s, rc);
}

static const char *const phase_names[] = {"rank", "host",    "thread", "kind",
                                          "name", "start_s", "end_s",  "bytes"};

static int export_phases(mw_store *s, writer *w, int64_t origin)
{
    mw_run_cursor *c = mw_run_phases_by_start_rank(s);
    if (!c) return open_error(s);
    writer_begin(w);
    mw_store_phase p;
    char n[MAX_FIELDS][32];
    int rc;
    while ((rc = mw_run_phase_next(c, &p)) == 1) {
        const field f[] = {
            {integer(n[0], p.rank), 0},
            {p.host, 1},
            {integer(n[2], p.thread), 0},
            {p.kind, 1},
            {p.name, 1},
            {dec(n[5], since(p.start_ns, origin), 1000, 6), 0},
            {dec(n[6], since(p.end_ns, origin), 1000, 6), 0},
            {integer(n[7], p.bytes), 0},
        };
        writer_row(w, f);
    }
    mw_run_close(c);
    return writer_end(w, s, rc);
}

static const char *const gap_names[] = {"start_s", "end_s", "reason"};

static int export_gaps(mw_store *s, writer *w, int64_t origin)
{
    mw_run_cursor *c = mw_run_gaps(s);
    if (!c) return open_error(s);
    writer_begin(w);
    mw_run_gap g;
    char n[2][32];
    int rc;
    while ((rc = mw_run_gap_next(c, &g)) == 1) {
        const field f[] = {
            {dec(n[0], since(g.start_ns, origin), 1000, 6), 0},
            {dec(n[1], since(g.end_ns, origin), 1000, 6), 0},
            {g.reason, 1},
        };
        writer_row(w, f);
    }
    mw_run_close(c);
    return writer_end(w, s, rc);
}

/* meta: CSV key,value rows; JSON one object {"key": "value", ...}. */
static int export_meta(mw_store *s, FILE *out, export_format format)
{
    mw_run_cursor *c = mw_run_meta(s);
    if (!c) return open_error(s);
    fputs(format == FORMAT_CSV ? "key,value\n" : "{", out);
    int rc, rows = 0;
    const char *k, *v; /* v NULL: a NULL value */
    while ((rc = mw_run_meta_next_nullable(c, &k, &v)) == 1) {
        if (format == FORMAT_CSV) {
            csv_formulas.row = rows + 1;
            csv_formulas.column = "key";
            mw_csv_text(out, k, &csv_formulas);
            fputc(',', out);
            csv_formulas.column = "value";
            if (v) mw_csv_text(out, v, &csv_formulas);
            fputc('\n', out);
        } else {
            fputs(rows ? ",\n" : "\n", out);
            mw_out_json_string(out, k);
            fputc(':', out);
            if (v)
                mw_out_json_string(out, v);
            else
                fputs("null", out);
        }
        rows++;
    }
    mw_run_close(c);
    if (format == FORMAT_JSON) fputs("\n}\n", out);
    if (rc < 0) fprintf(stderr, "mw export: %s\n", mw_store_error(s));
    return rc < 0 ? -1 : 0;
}

static int export_table(mw_store *s, const export_opts *o, FILE *out)
{
    if (o->format == FORMAT_PERFETTO) {
        char err[1024];
        if (!mw_export_perfetto(s, out, err, sizeof err)) return 0;
        fprintf(stderr, "mw export: %s\n", err);
        return -1;
    }
    if (o->what == WHAT_META) return export_meta(s, out, o->format);
    int64_t origin = 0;
    mw_store_start_ns(s, &origin); /* a run with neither start_ns nor samples: origin 0 */
    writer w = {.out = out, .format = o->format};
    switch (o->what) {
    case WHAT_SAMPLES:
        w.names = sample_names;
        w.n = 12;
        return export_samples(s, &w, origin);
    case WHAT_PHASES:
        w.names = phase_names;
        w.n = 8;
        return export_phases(s, &w, origin);
    default:
        w.names = gap_names;
        w.n = 3;
        return export_gaps(s, &w, origin);
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
        return rc && mw_store_bad_input(s) ? MW_EXIT_USAGE : MW_EXIT_FAIL; /* docs/cli.md */
    }
    return MW_EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
    export_opts o = {.format = FORMAT_UNSET, .what = WHAT_SAMPLES};
    memset(&csv_formulas, 0, sizeof csv_formulas);
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    if (!mw_store_exists(o.rundir)) {
        fprintf(stderr, "mw export: %s: not a run (no %s there)\n", o.rundir, MW_STORE_DB_NAME);
        return MW_EXIT_USAGE;
    }
    struct stat st;
    if (o.format == FORMAT_OTF2 && lstat(o.output, &st) == 0) {
        fprintf(stderr, "mw export: %s: exists (otf2 writes a new directory)\n", o.output);
        return MW_EXIT_USAGE;
    }
    char err[1024];
    mw_store *s = mw_store_open(o.rundir, err, sizeof err);
    if (!s) {
        int code = errno == EINVAL ? MW_EXIT_USAGE : MW_EXIT_FAIL; /* not a run store: 2 */
        fprintf(stderr, "mw export: %s\n", err);
        return code;
    }
    mw_run_snapshot_begin(s); /* one read transaction: every cursor sees the same snapshot */
    if (o.format == FORMAT_OTF2) {
        if ((rc = mw_export_otf2(s, o.output, err, sizeof err) ? MW_EXIT_FAIL : MW_EXIT_OK))
            fprintf(stderr, "mw export: %s\n", err);
    } else if (o.output) {
        rc = export_to_file(s, &o);
    } else {
        rc = !export_table(s, &o, stdout) ? MW_EXIT_OK
             : mw_store_bad_input(s)      ? MW_EXIT_USAGE /* a forged value: bad input */
                                          : MW_EXIT_FAIL;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "mw export: standard output: write error: %s\n", strerror(errno));
            rc = MW_EXIT_FAIL;
        }
    }
    mw_run_snapshot_end(s);
    mw_store_close(s);
    mw_csv_formulas_warn(&csv_formulas, "export");
    return rc;
}
