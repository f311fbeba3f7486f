/* cmd_plot — "mw plot RUNDIR|SWEEPDIR|PROFILE... [--kind KIND]... [-o DIR] [--format png|svg]
 * [--channel NAME]... [--freqs LIST]": gnuplot figures of runs, sweeps and workload profiles
 * (docs/plots.md). Every figure's path is printed on standard output, one a line, and
 * nothing else is; messages go to standard error.
 *
 * Inputs. A sweep directory becomes its finished runs (mw_sweepidx_expand; their sweep
 * configuration labels group them in boxplot), a directory holding trace.db is a run, a
 * regular file is a profile for `mw pareto` (kind pareto). Everything is checked before the
 * first file is made: a bad option, an input that is none of these, a --channel no run has,
 * or several inputs without -o exit 2 with one line naming it, and nothing is created.
 *
 * Kinds. Per run: trace, timeline, histogram, energy, dvfs; over several runs: boxplot,
 * model; per profile: pareto. Without --kind: one run gets trace, timeline, histogram and
 * energy, dvfs when it has MPI ranks and a frequency table (--freqs, or this machine's
 * cpufreq), model when it is an eeg-mofs run; several runs get boxplot, and model when
 * eeg-mofs runs are among them (the per-run kinds only when asked, so that a sweep of
 * hundreds of runs does not make thousands of figures); profiles get pareto. A defaulted
 * kind that does not apply is skipped with one line on standard error; a kind asked for
 * that does not apply gives a figure saying why. Figures go to -o DIR, else to the one
 * input's plots/ folder (RUNDIR/plots, SWEEPDIR/plots, the profile's folder's plots/); when
 * several runs share DIR, per-run figures are named RUN-KIND... after the run's folder.
 *
 * Exit: 0 when every figure was drawn, 1 when one failed (gnuplot, a file), 2 for unusable
 * input found while reading (a run without samples). */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "mw_store.h"
#include "mw_plot.h"
#include "mw_sweepindex.h"

#define CMD "plot"
#define CPUFREQ_FILE "/sys/devices/system/cpu/cpu0/cpufreq/scaling_available_frequencies"

enum { K_TRACE, K_TIMELINE, K_HISTOGRAM, K_ENERGY, K_DVFS, K_BOXPLOT, K_MODEL, K_PARETO, K_COUNT };
static const char *const kind_names[K_COUNT] = {"trace", "timeline", "histogram", "energy",
                                                "dvfs",  "boxplot",  "model",     "pareto"};

typedef struct {
    int kinds[K_COUNT];
    int any_kind;
    const char *outdir;
    int svg;
    char **channels; /* NULL-terminated */
    int nchannels;
    const char *freqs;
    char **inputs;
    int ninputs;
} plot_opts;

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

static int kind_index(const char *s)
{
    for (int k = 0; k < K_COUNT; k++)
        if (!strcmp(s, kind_names[k])) return k;
    return -1;
}

static int parse_args(int argc, char **argv, plot_opts *o)
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
    optind = 0;
    opterr = 0;
    int c;
    o->channels = calloc((size_t)argc + 1, sizeof *o->channels);
    if (!o->channels) return mw_cli_usage_error(CMD, "out of memory");
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'k': {
            int k = kind_index(optarg);
            if (k < 0)
                return mw_cli_usage_error(CMD,
                                          "--kind '%s': not one of trace, timeline, histogram, "
                                          "energy, dvfs, boxplot, model, pareto",
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
        case 'q':
            o->freqs = optarg;
            break;
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
    if (o->ninputs > 1 && !o->outdir)
        return mw_cli_usage_error(CMD, "%d inputs: say where the figures go with -o DIR",
                                  o->ninputs);
    return -1;
}

/* ---- the inputs -------------------------------------------------------------------- */

typedef struct {
    char **runs; /* from mw_sweepidx_expand */
    int nruns;
    const char **labels; /* sweep configuration of each run, or NULL */
    mw_plot_peek *peek;
    char **profiles;
    int nprofiles;
    char **prefix; /* per-run figure name prefix */
} plot_inputs;

static void inputs_free(plot_inputs *in)
{
    if (in->labels)
        for (int i = 0; i < in->nruns; i++)
            free((char *)in->labels[i]);
    free(in->labels);
    if (in->prefix)
        for (int i = 0; i < in->nruns; i++)
            free(in->prefix[i]);
    free(in->prefix);
    free(in->peek);
    mw_sweepidx_free_list(in->runs, in->nruns);
    free(in->profiles);
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Labels of the runs of sweep `dir`, by their directory. */
static void sweep_labels(const char *dir, plot_inputs *in)
{
    char err[512];
    mw_sweepidx *x = mw_sweepidx_open(dir, err, sizeof err);
    if (!x) return;
    for (size_t i = 0; i < mw_sweepidx_nruns(x); i++) {
        const char *d = mw_sweepidx_run_dir(x, i), *l = mw_sweepidx_run_label(x, i);
        for (int r = 0; r < in->nruns && d && l; r++)
            if (!in->labels[r] && !strcmp(in->runs[r], d)) in->labels[r] = strdup(l);
    }
    mw_sweepidx_close(x);
}

static int gather_inputs(const plot_opts *o, plot_inputs *in)
{
    char **dirs = calloc((size_t)o->ninputs + 1, sizeof *dirs);
    in->profiles = calloc((size_t)o->ninputs + 1, sizeof *in->profiles);
    if (!dirs || !in->profiles) {
        free(dirs);
        return mw_cli_usage_error(CMD, "out of memory");
    }
    int nd = 0;
    for (int i = 0; i < o->ninputs; i++) {
        const char *a = o->inputs[i];
        if (is_file(a))
            in->profiles[in->nprofiles++] = (char *)a;
        else if (mw_sweepidx_is_sweep(a) || mw_store_exists(a))
            dirs[nd++] = (char *)a;
        else {
            free(dirs);
            struct stat st;
            if (stat(a, &st)) return mw_cli_usage_error(CMD, "%s: %s", a, strerror(errno));
            return mw_cli_usage_error(CMD,
                                      "%s: not a run (no trace.db), a sweep (no sweep.db) "
                                      "or a profile",
                                      a);
        }
    }
    char err[1024];
    if (mw_sweepidx_expand(nd, dirs, &in->runs, &in->nruns, err, sizeof err)) {
        free(dirs);
        fprintf(stderr, "mw plot: %s\n", err);
        return MW_EXIT_USAGE;
    }
    in->labels = calloc((size_t)in->nruns + 1, sizeof *in->labels);
    in->peek = calloc((size_t)in->nruns + 1, sizeof *in->peek);
    in->prefix = calloc((size_t)in->nruns + 1, sizeof *in->prefix);
    if (!in->labels || !in->peek || !in->prefix) {
        free(dirs);
        return mw_cli_usage_error(CMD, "out of memory");
    }
    for (int i = 0; i < nd; i++)
        if (mw_sweepidx_is_sweep(dirs[i])) sweep_labels(dirs[i], in);
    free(dirs);
    for (int r = 0; r < in->nruns; r++)
        if (mw_plot_run_peek(in->runs[r], &in->peek[r], err, sizeof err)) {
            fprintf(stderr, "mw plot: %s\n", err);
            return MW_EXIT_USAGE;
        }
    for (int k = 0; k < o->nchannels; k++) { /* every --channel names a channel of some run */
        int found = 0;
        for (int r = 0; r < in->nruns && !found; r++)
            for (int c = 0; c < in->peek[r].nch && !found; c++)
                found = !strcmp(in->peek[r].names[c], o->channels[k]);
        if (!found)
            return mw_cli_usage_error(CMD, "--channel '%s': no such channel in the runs",
                                      o->channels[k]);
    }
    /* per-run figure names: RUN- when several runs share the folder, unique */
    for (int r = 0; r < in->nruns; r++) {
        char base[PATH_MAX], safe[256], p[300];
        snprintf(base, sizeof base, "%s", in->runs[r]);
        size_t len = strlen(base);
        while (len > 1 && base[len - 1] == '/')
            base[--len] = 0;
        mw_plot_safe_name(safe, sizeof safe, basename(base));
        if (in->nruns == 1)
            p[0] = 0;
        else
            snprintf(p, sizeof p, "%s-", safe);
        for (int q = 0; q < r; q++)
            if (!strcmp(in->prefix[q], p)) {
                snprintf(p, sizeof p, "%s.%d-", safe, r + 1);
                break;
            }
        in->prefix[r] = strdup(p);
    }
    return -1;
}

static int have_freq_table(const plot_opts *o)
{
    if (o->freqs) return 1;
    const char *f = getenv("MW_CPUFREQ_FILE");
    return access(f && *f ? f : CPUFREQ_FILE, R_OK) == 0;
}

/* ---- running ----------------------------------------------------------------------- */

static void skipped(const char *what, const char *kind, const char *why)
{
    fprintf(stderr, "mw plot: %s%skind %s skipped: %s\n", what ? what : "", what ? ": " : "", kind,
            why);
}

/* The kinds to draw: those asked for, else the defaults for the inputs (a defaulted kind
 * that does not apply is said to be skipped). */
static void choose_kinds(const plot_opts *o, const plot_inputs *in, int want[K_COUNT])
{
    if (o->any_kind) {
        memcpy(want, o->kinds, sizeof o->kinds);
        return;
    }
    int any_eeg = 0;
    for (int r = 0; r < in->nruns; r++)
        if (in->peek[r].eeg_version) any_eeg = 1;
    if (in->nruns == 1) {
        want[K_TRACE] = want[K_TIMELINE] = want[K_HISTOGRAM] = want[K_ENERGY] = 1;
        if (!in->peek[0].has_ranks)
            skipped(in->runs[0], "dvfs", "no MPI ranks in the run");
        else if (!have_freq_table(o))
            skipped(in->runs[0], "dvfs", "no CPU frequency table here (give --freqs LIST)");
        else
            want[K_DVFS] = 1;
    } else if (in->nruns > 1) {
        want[K_BOXPLOT] = 1;
        fprintf(stderr,
                "mw plot: %d runs: the per-run kinds (trace, timeline, histogram, energy, "
                "dvfs) only with --kind\n",
                in->nruns);
    }
    if (in->nruns && any_eeg)
        want[K_MODEL] = 1;
    else if (in->nruns)
        skipped(NULL, "model", "no eeg-mofs run among the inputs");
    if (in->nprofiles)
        want[K_PARETO] = 1;
    else if (in->nruns)
        skipped(NULL, "pareto", "needs a PROFILE (mw pareto --help)");
}

/* -o DIR, else the one input's plots/ folder (a profile's: its folder's plots/) */
static void output_dir(const plot_opts *o, const plot_inputs *in, char *out, size_t len)
{
    if (o->outdir) {
        snprintf(out, len, "%s", o->outdir);
    } else if (in->nruns) {
        snprintf(out, len, "%s/plots", o->inputs[0]);
    } else {
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s", in->profiles[0]);
        snprintf(out, len, "%s/plots", dirname(tmp));
    }
}

/* The per-run kinds of want, one run in memory at a time; without a run, a note figure
 * per kind asked for. Returns MW_EXIT_USAGE when a run was unusable, else 0. */
static int plot_per_run(const plot_opts *o, const plot_inputs *in, const int want[K_COUNT],
                        mw_plot_job *job)
{
    int usage_rc = 0;
    for (int r = 0; r < in->nruns; r++) {
        mw_plot_run *run;
        char err[1024];
        if (mw_plot_run_load(in->runs[r], &run, err, sizeof err)) {
            fprintf(stderr, "mw plot: %s\n", err);
            usage_rc = MW_EXIT_USAGE;
            continue;
        }
        for (int c = 0; c < run->nch && o->nchannels; c++) {
            run->ch[c].selected = 0;
            for (int k = 0; k < o->nchannels; k++)
                if (!strcmp(run->ch[c].name, o->channels[k])) run->ch[c].selected = 1;
        }
        job->prefix = in->prefix[r];
        if (want[K_TRACE]) mw_plot_trace(job, run);
        if (want[K_TIMELINE]) mw_plot_timeline(job, run);
        if (want[K_HISTOGRAM]) mw_plot_histogram(job, run);
        if (want[K_ENERGY]) mw_plot_energy(job, run);
        if (want[K_DVFS]) mw_plot_dvfs(job, run);
        mw_plot_run_free(run);
    }
    job->prefix = "";
    if (!in->nruns)
        for (int k = 0; k < K_COUNT; k++)
            if (want[k] && k <= K_DVFS) {
                char title[64];
                snprintf(title, sizeof title, "mw plot --kind %s", kind_names[k]);
                mw_plot_note_figure(job->out, kind_names[k], title,
                                    "this kind is drawn from a run: no RUNDIR given", 1200, 700);
            }
    return usage_rc;
}

/* pareto: a figure per profile (pareto, or pareto-NAME when there are several) */
static void plot_profiles(const plot_inputs *in, const mw_plot_job *job)
{
    if (!in->nprofiles)
        mw_plot_note_figure(job->out, "pareto", "Time/energy Pareto front",
                            "the pareto kind is drawn from a PROFILE (mw pareto --help); "
                            "reading runs is not done yet",
                            1000, 700);
    for (int p = 0; p < in->nprofiles; p++) {
        char name[300], tmp[PATH_MAX], safe[256];
        snprintf(tmp, sizeof tmp, "%s", in->profiles[p]);
        mw_plot_safe_name(safe, sizeof safe, basename(tmp));
        if (in->nprofiles > 1)
            snprintf(name, sizeof name, "pareto-%s", safe);
        else
            snprintf(name, sizeof name, "pareto");
        mw_plot_pareto(job, in->profiles[p], name);
    }
}

int cmd_plot(int argc, char **argv)
{
    plot_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) {
        free(o.channels);
        return rc;
    }
    plot_inputs in;
    memset(&in, 0, sizeof in);
    rc = gather_inputs(&o, &in);
    if (rc >= 0) {
        inputs_free(&in);
        free(o.channels);
        return rc;
    }
    int want[K_COUNT] = {0};
    choose_kinds(&o, &in, want);
    char outdir[PATH_MAX];
    output_dir(&o, &in, outdir, sizeof outdir);
    char source[1024];
    snprintf(source, sizeof source, "%s%s", o.inputs[0], o.ninputs > 1 ? " ..." : "");
    mw_plot_out out = {outdir, o.svg, source, 0, 0};
    mw_plot_job job = {&out, "", o.nchannels ? o.channels : NULL, o.any_kind, o.freqs};
    int usage_rc = 0;
    if (want[K_TRACE] || want[K_TIMELINE] || want[K_HISTOGRAM] || want[K_ENERGY] || want[K_DVFS])
        usage_rc = plot_per_run(&o, &in, want, &job);
    if (want[K_BOXPLOT]) {
        if (in.nruns < 2)
            mw_plot_note_figure(&out, "boxplot", "Power levels across runs",
                                "a boxplot needs several runs (a sweep, or RUNDIRs)", 1200, 700);
        else
            mw_plot_boxplot(&job, in.runs, in.labels, (size_t)in.nruns);
    }
    if (want[K_MODEL]) mw_plot_model(&job, in.runs, (size_t)in.nruns);
    if (want[K_PARETO]) plot_profiles(&in, &job);

    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mw plot: standard output: write error: %s\n", strerror(errno));
        out.failures++;
    }
    inputs_free(&in);
    free(o.channels);
    if (usage_rc) return usage_rc;
    return out.failures ? MW_EXIT_FAIL : MW_EXIT_OK;
}
