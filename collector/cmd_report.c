/* cmd_report — "mw report RUNDIR|SWEEPDIR... [-o DIR] [--profile FILE] [--freqs LIST]
 * [--no-figures] [-q]": one self-contained HTML page, DIR/index.html, with the runs' figures,
 * summary tables and metadata (docs/report.md describes the page).
 *
 * Design. The report is libmwplot's (plots/include/mw_report.h): this file parses the
 * options, calls its steps in order and prints what they say. The steps: the inputs become
 * runs with their metadata (rp_report_collect), every run is analysed as `mw analyze`
 * analyses it, with the mean +- sd across runs (rp_report_analyse: libmwmodels'
 * mw_analysis_read), the eeg-mofs runs are found (rp_report_escobar) and the model tables
 * made from them as `mw fit --model escobar` makes its own, predict mode then fit mode
 * (rp_report_model: libmwmodels' study, escobar_study.h), the figures are drawn by the job of
 * `mw plot` (rp_report_figures: mw_plot_run_job), and the page is written (rp_write_page).
 * All of it in this process: mw report runs no mw command; the one program it starts is
 * gnuplot, for the figures.
 *
 * Order: arguments, inputs (each a run or a sweep, else exit 2), the analysis (a run that
 * cannot be analysed is exit 2 with the analysis's reason, as mw analyze says it), the model
 * (a refusal is a note on the page, never a failure), then DIR is created, the figures made, and
 * the page written to a new DIR/.index.html.XXXXXX (mw_fs_fopen_tmp: never through a planted
 * link) and renamed: nothing is created before the input is known to be good, and a failed
 * write leaves no half page. Progress and the notes of mw plot and mw
 * analyze go to standard error unless -q; warnings always. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "mw_alloc.h"
#include "mw_fs.h"
#include "mw_report.h"

/* ---- options ----------------------------------------------------------------------- */

typedef struct {
    const char *out_dir;
    int figures;
    int quiet;
    char **inputs;
    int ninputs;
    const char *profile; /* --profile: a mw pareto profile for the pareto figure */
    const char *freqs;   /* --freqs: passed to mw plot (the dvfs figure) */
} rp_opts;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw report RUNDIR|SWEEPDIR... [-o DIR] [--profile FILE] [--freqs LIST]\n"
            "                 [--no-figures] [-q]\n\n"
            "Writes one self-contained HTML page, DIR/index.html, about the runs: their\n"
            "metadata (command, host, meter, firmware, channels, start, duration), energy per\n"
            "channel and per phase, Pow_idle/Pow_work (KDE, Gaussian mixture, phase split),\n"
            "statistics across runs (mean +- sd, 95 %% Student-t intervals), the model fit for\n"
            "eeg-mofs runs, and the figures of `mw plot` (PNG files in DIR/fig/). Every path\n"
            "in the page is relative and the style is inline, with no script: DIR can be\n"
            "copied anywhere and opens from disk in a browser. A SWEEPDIR (mw sweep) stands\n"
            "for its finished runs, with a table of configurations x repetitions and\n"
            "statistics per configuration. Prints the path of index.html; progress goes to\n"
            "standard error. Details: docs/report.md.\n\n"
            "  -o, --output DIR  where to write (default: RUNDIR/report or SWEEPDIR/report;\n"
            "                    required with several inputs); made if missing. index.html\n"
            "                    and the figures are replaced, other files left alone\n"
            "  --profile FILE    also the Pareto front of this mw pareto profile\n"
            "                    (Khaleghzadeh et al. 2023)\n"
            "  --freqs LIST      CPU frequencies in GHz for the DVFS figure (mw plot --freqs;\n"
            "                    default: this machine's cpufreq table)\n"
            "  --no-figures      no figures (mw plot is not run)\n"
            "  -q, --quiet       no progress on standard error\n"
            "  -h, --help        this text\n");
}

static int parse_opts(int argc, char **argv, rp_opts *o)
{
    static const struct option longs[] = {{"output", required_argument, NULL, 'o'},
                                          {"no-figures", no_argument, NULL, 'F'},
                                          {"profile", required_argument, NULL, 'P'},
                                          {"freqs", required_argument, NULL, 'f'},
                                          {"quiet", no_argument, NULL, 'q'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->figures = 1;
    opterr = 0;
    mw_cli_seen seen = {0}; /* options that take one value: once each (cli.h) */
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":o:qh", longs, NULL)) != -1) {
        int once = mw_cli_once_opt("report", &seen, longs, c, NULL);
        if (once) return once;
        switch (c) {
        case 'o':
            if (!optarg[0]) return mw_cli_usage_error("report", "-o: an empty directory name");
            o->out_dir = optarg;
            break;
        case 'F':
            o->figures = 0;
            break;
        case 'P': {
            struct stat sb;
            if (stat(optarg, &sb) != 0 || !S_ISREG(sb.st_mode))
                return mw_cli_usage_error("report", "--profile %s: not a file", optarg);
            int bad = mw_cli_check_profile("report", optarg);
            if (bad) return bad;
            o->profile = optarg;
            break;
        }
        case 'f':
            if (!optarg[0]) return mw_cli_usage_error("report", "--freqs: an empty list");
            int bad = mw_cli_check_freqs("report", optarg);
            if (bad) return bad;
            o->freqs = optarg;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return -1;
        case ':':
            return mw_cli_usage_error("report", "%s needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error("report", "unknown option %s", argv[optind - 1]);
        }
    }
    o->inputs = argv + optind;
    o->ninputs = argc - optind;
    if (o->ninputs == 0) return mw_cli_usage_error("report", "no RUNDIR or SWEEPDIR given");
    for (int i = 0; i < o->ninputs; i++)
        if (!o->inputs[i][0]) return mw_cli_usage_error("report", "an empty RUNDIR argument");
    if (o->ninputs > 1 && !o->out_dir)
        return mw_cli_usage_error("report", "%d inputs: say where the report goes with -o DIR",
                                  o->ninputs);
    return 0;
}

/* ---- messages ---------------------------------------------------------------------- */

/* What the report says (rp_report.say); ctx: the -q flag. */
static void say(void *ctx, rp_say_kind kind, const char *text)
{
    const int *quiet = ctx;
    if (kind == RP_SAY_WARNING)
        fprintf(stderr, "mw report: warning: %s\n", text);
    else if (!*quiet)
        fprintf(stderr, kind == RP_SAY_PROGRESS ? "mw report: %s\n" : "%s\n", text);
}

static void progress(const rp_report *rp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void progress(const rp_report *rp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *line = mw_xcalloc((size_t)(n > 0 ? n : 0) + 1, 1);
    va_start(ap, fmt);
    vsnprintf(line, (size_t)n + 1, fmt, ap);
    va_end(ap);
    rp->say(rp->say_ctx, RP_SAY_PROGRESS, line);
    free(line);
}

/* ---- the model --------------------------------------------------------------------------- */

/* The escobar model over the eeg-mofs runs (rp_report_model): predict mode, and fit mode when
 * it can. The progress still names mw fit, whose computation it is. */
static void model(rp_report *rp)
{
    if (!rp_report_escobar(rp)) return;
    progress(rp, "model: mw fit --model escobar over %zu eeg-mofs run%s", rp->nescobar,
             rp->nescobar == 1 ? "" : "s");
    if (rp_report_model(rp) != 0) progress(rp, "model: %s", rp->fit_note);
}

/* ---- the command --------------------------------------------------------------------- */

/* The page into a new DIR/.index.html.XXXXXX (O_EXCL|O_NOFOLLOW), renamed DIR/index.html (a
 * link there is replaced, never written through): 0, or MW_EXIT_FAIL (said). */
static int write_page(const rp_report *rp, const rp_opts *o, const char *out_dir, int argc,
                      char **argv)
{
    char *page = rp_path_join(out_dir, "index.html");
    char tmp[PATH_MAX + 300], err[PATH_MAX + 400];
    int rc = MW_EXIT_OK;
    FILE *f = mw_fs_fopen_tmp(out_dir, "index.html", tmp, sizeof tmp, err, sizeof err);
    if (!f) {
        fprintf(stderr, "mw report: %s\n", err);
        rc = MW_EXIT_FAIL;
    } else {
        rp_write_page(f, rp, o->inputs, o->ninputs, o->figures, argc, argv);
        int bad = ferror(f) | (fclose(f) != 0);
        if (bad) unlink(tmp);
        if (bad || mw_fs_commit(tmp, out_dir, "index.html", NULL, 0) != 0) {
            fprintf(stderr, "mw report: %s: cannot write it: %s\n", page, strerror(errno));
            rc = MW_EXIT_FAIL;
        }
    }
    if (!rc) {
        progress(rp, "wrote %s", page);
        printf("%s\n", page);
    }
    free(page);
    return rc;
}

/* inputs, analysis, model, DIR, figures: 0 or the exit status (said) */
static int build(rp_report *rp, const rp_opts *o, const char *out_dir)
{
    char err[1024];
    struct stat sb;
    if (stat(out_dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return mw_cli_usage_error("report", "-o %s: not a directory", out_dir);
    if (rp_report_collect(rp, o->inputs, o->ninputs, err, sizeof err) != 0)
        return mw_cli_usage_error("report", "%s", err);
    /* no progress before this: unusable input is one line on stderr */
    if (rp_report_analyse(rp, err, sizeof err) != 0) {
        fprintf(stderr, "mw report: mw analyze: %s\n", err);
        return MW_EXIT_USAGE;
    }
    progress(rp, "analysed %zu run%s (mw analyze)", rp->nrun, rp->nrun == 1 ? "" : "s");
    model(rp);
    if (mw_fs_mkdirs(out_dir, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "mw report: %s\n", err);
        return MW_EXIT_FAIL;
    }
    if (o->figures) {
        rp_figure_request q = {o->inputs, o->ninputs, o->profile, o->freqs, out_dir};
        rp_report_figures(rp, &q);
    }
    return MW_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
    rp_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc < 0) return MW_EXIT_OK; /* --help */
    if (rc) return rc;
    rp_report rp;
    memset(&rp, 0, sizeof rp);
    rp.say = say;
    rp.say_ctx = &o.quiet;
    char *out_dir = o.out_dir ? mw_xstrdup(o.out_dir) : rp_path_join(o.inputs[0], "report");
    rc = build(&rp, &o, out_dir);
    if (!rc) rc = write_page(&rp, &o, out_dir, argc, argv);
    rp_report_free(&rp);
    free(out_dir);
    return rc;
}
