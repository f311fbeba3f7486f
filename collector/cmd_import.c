/* cmd_import — "mw import --format FORMAT FILE -o RUNDIR [--force]": power traces from other
 * meters (megawatt's CSV, PowerSensor3's dump, Kwollect's JSON, pmlib's CSV) brought in as a run,
 * so that every reader of runs works on them (docs/analysis.md, "Importing traces").
 *
 * The command parses its options, refuses an existing RUNDIR without --force, and calls
 * libmw's importer (mw_import.h), which reads and checks the whole file before it writes the
 * run (into a temporary directory, then put in place, so a failure never leaves a half-made
 * run). Exit status: 0 imported, 2 bad usage or a bad file (the message names
 * FILE:LINE:COLUMN), 1 the run could not be written. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "cli.h"
#include "mw_import.h"
#include "mw_store.h"

/* ---- options ------------------------------------------------------------------------ */

typedef struct {
    const char *file;
    const char *rundir;
    int have_format;
    mw_import_format format;
    int force;
} import_opts;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw import --format FORMAT FILE -o RUNDIR [--force]\n\n"
            "Makes a run (RUNDIR/trace.db) from a power trace recorded by another meter, or\n"
            "written by 'mw export', so that every command that reads runs works on it.\n\n"
            "FORMAT is one of:\n"
            "  csv            megawatt's CSV (below; what 'mw export --format csv' writes)\n"
            "  powersensor3   a PowerSensor3 dump file (psrun -f, PowerSensor::dump): a channel\n"
            "                 pairN per sensor pair, each marker a phase up to the next one\n"
            "  kwollect       Grid'5000 Kwollect JSON (timestamp, device_id, metric_id, value):\n"
            "                 a channel per device and *_watt metric, the device as its host\n"
            "  pmlib          pmlib's CSV (pm_print_data_csv): a channel per line, each set a\n"
            "                 phase, the sets laid end to end\n"
            "(docs/cli.md, \"Importing traces\", says what each becomes.)\n\n"
            "With csv, FILE has a header line naming the columns, then one line per window and\n"
            "channel; lines starting with '#' and blank lines are skipped, fields may be quoted.\n"
            "Columns (others are ignored):\n"
            "  time_s | time_ns   window end: seconds (any origin; values of 1e9 or more are Unix\n"
            "                     time) or nanoseconds since the Unix epoch      (one required)\n"
            "  channel            the channel's name                              (required)\n"
            "  power_w            mean real power over the window, W              (required)\n"
            "  start_s | start_ns window start (default: the end of the channel's previous\n"
            "                     window; the first window lasts the median spacing)\n"
            "  energy_j           cumulative energy at the window's end, J (default: the\n"
            "                     integral of power_w)\n"
            "  vrms_v, irms_a, pf rms voltage (V), rms current (A), power factor (default 0)\n"
            "  flags, uncertainty_ms  as mw export writes them (default 0)\n"
            "A spacing of a channel's window ends over 1.5 x its median spacing is a gap: the\n"
            "window gets the median length and the hole is recorded as a gap.\n\n"
            "  --format FORMAT    the file's format: csv, powersensor3, kwollect, pmlib\n"
            "  -o, --output DIR   the run directory to create\n"
            "  --force            replace the trace.db of an existing RUNDIR (other files stay)\n"
            "  -h, --help         this text\n\n"
            "Exit status: 0 imported, 1 the run could not be written, 2 bad usage or a bad\n"
            "file (the message names FILE:LINE:COLUMN); nothing is left behind on error.\n");
}

/* Returns -1 when parsing went fine, else the exit code. */
static int parse_args(int argc, char **argv, import_opts *o)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'F'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    mw_cli_seen seen = {0}; /* options that take one value: once each (cli.h) */
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        int once = mw_cli_once_opt("import", &seen, opts, c, NULL);
        if (once) return once;
        switch (c) {
        case 'f':
            if (mw_import_format_from_name(optarg, &o->format))
                return mw_cli_usage_error("import", "--format: '%s' is not one of %s", optarg,
                                          mw_import_format_names());
            o->have_format = 1;
            break;
        case 'o':
            if (!*optarg) return mw_cli_usage_error("import", "-o: needs a directory name");
            o->rundir = optarg;
            break;
        case 'F':
            o->force = 1;
            break;
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error("import", "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error("import", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return mw_cli_usage_error("import", "missing FILE");
    if (argc - optind > 1)
        return mw_cli_usage_error("import", "unexpected argument '%s' (one FILE only)",
                                  argv[optind + 1]);
    o->file = argv[optind];
    if (!o->have_format)
        return mw_cli_usage_error("import", "missing --format (%s)", mw_import_format_names());
    if (!o->rundir) return mw_cli_usage_error("import", "missing -o RUNDIR");
    return -1;
}

int cmd_import(int argc, char **argv)
{
    import_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    struct stat st;
    if (stat(o.rundir, &st) == 0 && !o.force) {
        fprintf(stderr, "mw import: %s: already exists (--force replaces its %s)\n", o.rundir,
                MW_STORE_DB_NAME);
        return MW_EXIT_USAGE;
    }
    if (stat(o.rundir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "mw import: %s: exists and is not a directory\n", o.rundir);
        return MW_EXIT_USAGE;
    }
    /* a message can quote a field of the file whole */
    static char err[64 * 1024];
    mw_import *im = mw_import_read_as(o.format, o.file, err, sizeof err);
    if (!im) {
        fprintf(stderr, "mw import: %s\n", err);
        return MW_EXIT_USAGE;
    }
    mw_import_summary sum;
    rc = mw_import_write(im, o.rundir, o.force, &sum, err, sizeof err);
    mw_import_free(im);
    if (rc) {
        fprintf(stderr, "mw import: %s\n", err);
        return MW_EXIT_FAIL;
    }
    printf("mw import: %s: %" PRId64 " windows of %d channel%s, %zu gap%s\n", o.rundir, sum.windows,
           sum.channels, sum.channels == 1 ? "" : "s", sum.gaps, sum.gaps == 1 ? "" : "s");
    return MW_EXIT_OK;
}
