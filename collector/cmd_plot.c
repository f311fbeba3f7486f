/* cmd_plot — "mw plot RUNDIR|SWEEPDIR|PROFILE... [--kind KIND]... [-o DIR] [--format png|svg]
 * [--channel NAME]... [--freqs LIST]": gnuplot figures of runs, sweeps and workload profiles
 * (docs/plots.md). Every figure's path is printed on standard output, one a line, and
 * nothing else is; messages go to standard error.
 *
 * Inputs. A sweep directory becomes its finished runs (mw_sweepidx_expand; their sweep
 * configuration labels group them in boxplot), a directory holding trace.db is a run, a
 * regular file is a profile for `mw pareto` (kind pareto). Everything is checked before the
 * first file is made: a bad option, a --freqs list or profile that does not read, an input
 * that is none of these, a --channel no run has, or several inputs without -o exit 2 with
 * one line naming it, and nothing is created.
 *
 * Kinds. Per run: trace, timeline, histogram, energy, inband, dvfs; over several runs: boxplot,
 * model; per profile: pareto. Without --kind: one run gets trace, timeline, histogram and
 * energy, dvfs when it has MPI ranks and a frequency table (--freqs, or this machine's
 * cpufreq), model when it is an eeg-mofs run; several runs get boxplot, and model when
 * eeg-mofs runs are among them (the per-run kinds only when asked, so that a sweep of
 * hundreds of runs does not make thousands of figures); profiles get pareto. A defaulted
 * dvfs that cannot be drawn is skipped with one line on standard error (model and pareto
 * without their inputs in silence); a kind asked for
 * that does not apply gives a figure saying why. Figures go to -o DIR, else to the one
 * input's plots/ folder (RUNDIR/plots, SWEEPDIR/plots, the profile's folder's plots/); when
 * several runs share DIR, per-run figures are named RUN-KIND... after the run's folder.
 *
 * Exit: 0 when every figure was drawn, 1 when one failed (gnuplot, a file), 2 for unusable
 * input found while reading (a run without samples).
 *
 * Design: this file parses the options and prints; the job itself (inputs, kinds, figures)
 * is libmwplot's mw_plot_run_job (plots/plot_job.c), which hands back each figure's path
 * (printed here as it comes) and its notes (printed here as "mw plot: NOTE"). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "mw_alloc.h"
#include "mw_plot.h"

#define CMD "plot"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw plot RUNDIR|SWEEPDIR|PROFILE... [--kind KIND]... [-o DIR]\n"
            "               [--format png|svg] [--channel NAME]... [--freqs LIST]\n\n"
            "Draws figures of runs, sweeps and workload profiles with gnuplot\n"
            "(docs/plots.md) and prints each figure's path, one a line. Beside each figure\n"
            "NAME.png (or .svg) are its data NAME.tsv and its script NAME.gp: 'gnuplot\n"
            "NAME.gp' in that folder draws it again.\n\n"
            "Kinds (--kind, repeatable; default: those that apply to the input):\n"
            "  trace      every channel's power over time, the phases of each node in a lane\n"
            "             below, the idle baseline and gaps marked (one run)\n"
            "  timeline   a lane per rank with its phases, under the power (one run)\n"
            "  histogram  per channel: the window powers in ceil(sqrt(n)) bins, the kernel\n"
            "             density with Pow_idle/Pow_work, and the kde, gmm and phase-split\n"
            "             estimates side by side (one run)\n"
            "  energy     energy of the run and of each phase, per node, and its static and\n"
            "             dynamic parts (one run)\n"
            "  inband     per node, its wall power with its in-band sources (RAPL, GPUs)\n"
            "             stacked below it (one run recorded with them; docs/inband.md)\n"
            "  dvfs       normalised energy and performance against the CPU scaling factor,\n"
            "             with mw dvfs's MaxDist choice (one MPI run; needs --freqs or cpufreq)\n"
            "  boxplot    Pow_idle and Pow_work per node across runs, per eeg-mofs version or\n"
            "             sweep configuration (several runs)\n"
            "  model      eeg-mofs: measured and modelled time and energy over N_Spop, per\n"
            "             version, NRMSE in the legend (mw fit --model escobar)\n"
            "  pareto     the time/energy Pareto front of a profile (mw pareto), the part\n"
            "             optimal for total energy highlighted (PROFILE)\n\n"
            "  -o, --output DIR   where the figures go (default: RUNDIR/plots, SWEEPDIR/plots;\n"
            "                     required with several inputs)\n"
            "  --format F         png (pngcairo, default) or svg\n"
            "  --channel NAME     only this channel (repeatable; default: all)\n"
            "  --freqs LIST       CPU frequencies in GHz for dvfs (as mw dvfs --freqs)\n"
            "  -h, --help         this text\n\n"
            "Exit status: 0 all figures drawn, 1 a figure failed (gnuplot's messages are on\n"
            "standard error), 2 bad usage or unusable input (nothing is made then).\n");
}

static int parse_args(int argc, char **argv, mw_plot_request *o)
{
    static const struct option opts[] = {
        {"kind", required_argument, NULL, 'k'},
        {"output", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, 'f'},
        {"channel", required_argument, NULL, 'c'},
        {"freqs", required_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const int repeatable[] = {'k', 'c', 0};
    mw_cli_seen seen = {0}; /* options that take one value: once each (cli.h) */
    optind = 0;
    opterr = 0;
    int c;
    o->channels = mw_xcalloc((size_t)argc + 1, sizeof *o->channels);
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        int once = mw_cli_once_opt("plot", &seen, opts, c, repeatable);
        if (once) return once;
        switch (c) {
        case 'k': {
            int k = mw_plot_kind_index(optarg);
            if (k < 0)
                return mw_cli_usage_error(CMD,
                                          "--kind '%s': not one of trace, timeline, histogram, "
                                          "energy, inband, dvfs, boxplot, model, pareto",
                                          optarg);
            o->kinds[k] = 1;
            o->any_kind = 1;
            break;
        }
        case 'o':
            if (!*optarg) return mw_cli_usage_error(CMD, "-o: empty directory name");
            o->outdir = optarg;
            break;
        case 'f':
            if (!strcmp(optarg, "png"))
                o->svg = 0;
            else if (!strcmp(optarg, "svg"))
                o->svg = 1;
            else
                return mw_cli_usage_error(CMD, "--format '%s': not png or svg", optarg);
            break;
        case 'c':
            if (!*optarg) return mw_cli_usage_error(CMD, "--channel: empty name");
            o->channels[o->nchannels++] = optarg;
            break;
        case 'q': {
            int bad = mw_cli_check_freqs(CMD, optarg); /* 0x10, nan: exit 2, not a note */
            if (bad) return bad;
            o->freqs = optarg;
            break;
        }
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error(CMD, "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return mw_cli_usage_error(CMD, "missing RUNDIR, SWEEPDIR or PROFILE");
    o->inputs = argv + optind;
    o->ninputs = argc - optind;
    for (int i = 0; i < o->ninputs; i++) { /* a profile that does not read is bad input */
        int bad = mw_cli_check_profile(CMD, o->inputs[i]);
        if (bad) return bad;
    }
    if (o->ninputs > 1 && !o->outdir)
        return mw_cli_usage_error(CMD, "%d inputs: say where the figures go with -o DIR",
                                  o->ninputs);
    return -1;
}

static void print_note(void *ctx, const char *text)
{
    fprintf(stderr, "mw plot: %s\n", text);
}

static void print_figure(void *ctx, const char *path)
{
    printf("%s\n", path);
    fflush(stdout);
}

int cmd_plot(int argc, char **argv)
{
    mw_plot_request o;
    memset(&o, 0, sizeof o);
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) {
        free(o.channels);
        return rc;
    }
    if (!o.nchannels) {
        free(o.channels);
        o.channels = NULL;
    }
    o.note = print_note;
    o.figure = print_figure;
    mw_plot_result res;
    char err[1024];
    rc = mw_plot_run_job(&o, &res, err, sizeof err);
    free(o.channels);
    if (rc == MW_PLOT_JOB_BAD_INPUT) rc = mw_cli_usage_error(CMD, "%s", err);
    if (rc == MW_PLOT_JOB_UNREADABLE) {
        fprintf(stderr, "mw plot: %s\n", err);
        rc = MW_EXIT_USAGE;
    }
    if (rc) {
        mw_plot_result_free(&res);
        return rc;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mw plot: standard output: write error: %s\n", strerror(errno));
        res.failed++;
    }
    rc = res.unusable ? MW_EXIT_USAGE : res.failed ? MW_EXIT_FAIL : MW_EXIT_OK;
    mw_plot_result_free(&res);
    return rc;
}
