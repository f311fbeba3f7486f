/* cmd_export — "mw export RUNDIR --format csv|json [--what samples|channels|phases|gaps|meta]
 * [-o FILE]": one table of a run (docs/run-store.md) as CSV or JSON, with stable columns;
 * "--format otf2 -o DIR" and "--format perfetto [-o FILE]": the whole run as a trace for
 * other tools, written by libmw (mw_export.h).
 *
 * The tables are written by export_tables.c (export_tables.h: each one cursor of the run
 * store's read API, read inside one snapshot, consistent even while mw record is writing;
 * text fields quoted or escaped, never altered; numbers formatted exactly from the stored
 * integers; times in seconds since the run's start); this file parses the options, opens
 * the run and chooses where the output goes. With -o the output goes to a temporary file
 * in FILE's directory that is renamed over FILE only when complete, so an error leaves no
 * half-written FILE. */
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
#include "export_tables.h"
#include "mw_export.h"
#include "mw_run.h"
#include "mw_store.h"
#include "textout.h"

typedef enum { FORMAT_UNSET, FORMAT_CSV, FORMAT_JSON, FORMAT_OTF2, FORMAT_PERFETTO } export_format;

typedef struct {
    const char *rundir;
    const char *output; /* -o FILE, NULL = stdout */
    export_format format;
    mw_export_table what;
    int what_given;
} export_opts;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw export RUNDIR --format csv|json\n"
            "                 [--what samples|channels|phases|gaps|meta] [-o FILE]\n"
            "       mw export RUNDIR --format otf2 -o DIR\n"
            "       mw export RUNDIR --format perfetto [-o FILE]\n\n"
            "Writes one table of a run as CSV (a header line, then one line per row; text\n"
            "quoted per RFC 4180) or JSON (one object: {\"schema\": \"megawatt.export/1\",\n"
            "\"what\": TABLE, \"rows\": [objects with the CSV's keys]}; meta: \"meta\": {keys}).\n"
            "Times are seconds since the run's start (meta start_ns, else the first sample's\n"
            "start).\n\n"
            "otf2 (an archive in the new directory DIR) and perfetto (trace-event JSON for\n"
            "ui.perfetto.dev) write the whole run: phases per rank and thread, every\n"
            "channel's power (W); docs/cli.md says what goes where.\n\n"
            "  --format FORMAT    csv, json, otf2 or perfetto\n"
            "  --what TABLE       what to write (default samples):\n"
            "                     samples  time_s (window end), channel (name), power_w,\n"
            "                              vrms_v, irms_a, pf, energy_j (since the run's\n"
            "                              start), start_s (window start), seq, segment,\n"
            "                              flags (meter window flags), uncertainty_ms\n"
            "                     channels channel (number), name, host, pin, meter (the\n"
            "                              name of the meter that measures it), meter_channel\n"
            "                              (its channel on that meter); join with samples'\n"
            "                              channel on name\n"
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
                o->what = MW_EXPORT_SAMPLES;
            else if (!strcmp(optarg, "phases"))
                o->what = MW_EXPORT_PHASES;
            else if (!strcmp(optarg, "gaps"))
                o->what = MW_EXPORT_GAPS;
            else if (!strcmp(optarg, "meta"))
                o->what = MW_EXPORT_META;
            else if (!strcmp(optarg, "channels"))
                o->what = MW_EXPORT_CHANNELS;
            else
                return mw_cli_usage_error(
                    "export", "--what: '%s' is not samples, channels, phases, gaps or meta",
                    optarg);
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

/* The output's buffer: a day's trace is hundreds of MB written in small pieces, so 1 MiB
 * per write(2) rather than stdio's page (a tenth of the export's system time). */
#define EXPORT_BUFFER_BYTES (1 << 20)
/* glibc ignores setvbuf's size when it is given no buffer, so the buffer is ours: one
 * stream per process uses it (the file, or standard output), until the process ends. */
static char export_buffer[EXPORT_BUFFER_BYTES];

/* formula-like text fields (csvout.h), for the warning at the end */
static mw_csv_formulas csv_formulas;

static int export_table(mw_store *s, const export_opts *o, FILE *out)
{
    if (o->format == FORMAT_PERFETTO) {
        char err[1024];
        if (!mw_export_perfetto(s, out, err, sizeof err)) return 0;
        fprintf(stderr, "mw export: %s\n", err);
        return -1;
    }
    return mw_export_table_write(s, out, o->what, o->format == FORMAT_JSON, &csv_formulas);
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
    setvbuf(out, export_buffer, _IOFBF, sizeof export_buffer);
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
    export_opts o = {.format = FORMAT_UNSET, .what = MW_EXPORT_SAMPLES};
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
        setvbuf(stdout, export_buffer, _IOFBF, sizeof export_buffer); /* nothing written yet */
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
