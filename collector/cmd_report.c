/* cmd_report — "mw report RUNDIR|SWEEPDIR... [-o DIR] [--no-figures] [-q]": one
 * self-contained HTML page, DIR/index.html, with the runs' figures, summary tables and
 * metadata (docs/report.md describes the page).
 *
 * Design. The report computes nothing of its own that another command computes: the
 * energy per channel, phase and rank, the power levels and the mean +- sd across runs are
 * the analysis of `mw analyze`, in this process (rp_report_analyse, plots/report_analysis.c:
 * libmwmodels' mw_analysis_read per run and mw_analysis_aggregate_runs), shown as
 * `mw analyze --json` states them; the model table is `mw fit --model escobar --json`
 * (predict, then fit mode) over the runs that models/escobar.h recognises as eeg-mofs runs
 * (mw_escobar_from_run), a child of this executable (/proc/self/exe, with an argument vector:
 * report_child.h): report_fit, the one place mw report runs mw, to become a library call
 * without changing its caller. The figures are drawn in this
 * process by libmwplot (mw_plot_run_job, the job of `mw plot`): INPUTS... into DIR/fig as
 * png (for several runs only the figures across them) and, for 2 to RP_MAX_RUN_FIGURES
 * runs, each RUNDIR into DIR/fig/runN; a figure's kind is the start of its file name
 * (KIND[-CHANNEL].png). What only the report needs is computed here with the libraries:
 * Student-t intervals, Kruskal-Wallis and Mann-Whitney across configurations
 * (models/stats.h), the run metadata (the run store, read-only), the sweep's table
 * (mw_sweepindex.h).
 *
 * This file gathers (inputs, metadata, the analysis, figures); plots/report_page.c writes
 * the page from what it gathered (mw_report.h).
 *
 * Order: arguments, inputs (each a run or a sweep, else exit 2), the analysis (a run that
 * cannot be analysed is exit 2 with the analysis's reason), then DIR is created, the figures
 * made, and the page written to DIR/index.html.tmp and renamed: nothing is created before
 * the input is known to be good, and a failed write leaves no half page. Every string from
 * outside (run directories, metadata, channel and phase names, file names) is escaped
 * (report_html.h); images are referred to as fig/... relative to the page, the style sheet
 * is inline (report_css.h) and there is no script, so DIR opens from disk anywhere. */
#include <errno.h>
#include <getopt.h>
#include <json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "mw_alloc.h"
#include "cli.h"
#include "escobar.h"
#include "mw_fs.h"
#include "mw_plot.h"
#include "mw_run.h"
#include "mw_store.h"
#include "report_child.h"
#include "mw_report.h"
#include "mw_sweepindex.h"

/* ---- memory ------------------------------------------------------------------------ */

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fprintf(stderr, "mw report: out of memory\n");
        exit(MW_EXIT_FAIL);
    }
    return s;
}

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
            "  --profile FILE    also the Pareto front of this mw pareto profile (seed 002)\n"
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
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":o:qh", longs, NULL)) != -1) {
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
            o->profile = optarg;
            break;
        }
        case 'f':
            if (!optarg[0]) return mw_cli_usage_error("report", "--freqs: an empty list");
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

/* The run's metadata, channels and gaps (libmw's read API, mw_run.h); 0, or -1 with a
 * message in err. */
static int read_run(rp_run *r, char *err, size_t errlen)
{
    mw_store *s = mw_store_open(r->dir, err, errlen);
    if (!s) return -1;
    int rc = 0;
    mw_run_cursor *c = mw_run_meta(s);
    const char *key, *val;
    size_t cap = 0;
    while (c && (rc = mw_run_meta_next(c, &key, &val)) == 1) {
        if (r->nmeta == cap) {
            cap = cap ? 2 * cap : 32;
            r->key = mw_xrealloc(r->key, cap * sizeof *r->key);
            r->val = mw_xrealloc(r->val, cap * sizeof *r->val);
        }
        r->key[r->nmeta] = mw_xstrdup(key);
        r->val[r->nmeta++] = mw_xstrdup(val);
    }
    mw_run_close(c);
    if (!c || rc) goto fail;
    mw_run_channel ch;
    cap = 0;
    for (c = mw_run_channels(s); c && (rc = mw_run_channel_next(c, &ch)) == 1;) {
        if (r->nch == cap) {
            cap = cap ? 2 * cap : 16;
            r->ch = mw_xrealloc(r->ch, cap * sizeof *r->ch);
        }
        rp_channel *rch = &r->ch[r->nch++];
        rch->channel = ch.channel;
        rch->name = mw_xstrdup(ch.name);
        rch->host = ch.host ? mw_xstrdup(ch.host) : NULL;
        rch->pin = ch.pin ? mw_xstrdup(ch.pin) : NULL;
    }
    mw_run_close(c);
    mw_run_counts n;
    if (!c || rc || mw_run_count(s, &n)) goto fail;
    r->ngaps = n.gaps;
    r->nphases = n.phases;
    r->gap = mw_xcalloc(RP_MAX_GAPS, sizeof *r->gap);
    mw_run_gap g;
    for (c = mw_run_gaps(s); c && r->ngap_rows < RP_MAX_GAPS && (rc = mw_run_gap_next(c, &g)) == 1;)
        r->gap[r->ngap_rows++] = (rp_gap){g.start_ns, g.end_ns, mw_xstrdup(g.reason)};
    mw_run_close(c);
    if (!c || rc < 0) goto fail;
    mw_store_close(s);
    return 0;
fail:
    snprintf(err, errlen, "%s", mw_store_error(s));
    mw_store_close(s);
    return -1;
}

static void run_free(rp_run *r)
{
    free(r->dir);
    free(r->title);
    mw_analysis_free(r->an);
    for (size_t i = 0; i < r->nmeta; i++) {
        free(r->key[i]);
        free(r->val[i]);
    }
    free(r->key);
    free(r->val);
    for (size_t i = 0; i < r->nch; i++) {
        free(r->ch[i].name);
        free(r->ch[i].host);
        free(r->ch[i].pin);
    }
    free(r->ch);
    for (size_t i = 0; i < r->ngap_rows; i++)
        free(r->gap[i].reason);
    free(r->gap);
}

static void report_free(rp_report *rp)
{
    for (size_t i = 0; i < rp->nrun; i++)
        run_free(&rp->run[i]);
    free(rp->run);
    for (size_t i = 0; i < rp->nsw; i++) {
        free(rp->sw[i].dir);
        free(rp->sw[i].run_of);
        mw_sweepidx_close(rp->sw[i].x);
    }
    free(rp->sw);
    mw_analysis_aggregate_free(&rp->agg);
    if (rp->fit) json_object_put(rp->fit);
    if (rp->fit_mode) json_object_put(rp->fit_mode);
    for (size_t i = 0; i < rp->nfig; i++) {
        free(rp->fig[i].sub);
        free(rp->fig[i].name);
    }
    free(rp->fig);
}

static json_object *parse_json(const char *text, const char *what)
{
    json_tokener *tok = json_tokener_new_ex(64);
    if (!tok) return NULL;
    json_object *o = json_tokener_parse_ex(tok, text, (int)strlen(text));
    enum json_tokener_error e = json_tokener_get_error(tok);
    if (!o || e != json_tokener_success) {
        fprintf(stderr, "mw report: %s: its JSON does not parse (%s)\n", what,
                json_tokener_error_desc(e));
        if (o) json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

/* ---- progress ---------------------------------------------------------------------- */

static int quiet;

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
    if (quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("mw report: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* What the analysis says (rp_report.say): mw analyze's notes, progress. */
static void say(void *ctx, rp_say_kind kind, const char *text)
{
    (void)ctx;
    if (kind == RP_SAY_WARNING)
        fprintf(stderr, "mw report: warning: %s\n", text);
    else if (!quiet)
        fprintf(stderr, kind == RP_SAY_PROGRESS ? "mw report: %s\n" : "%s\n", text);
}

/* ---- inputs ------------------------------------------------------------------------ */

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return xasprintf("%.*s/%s", (int)n, dir, name);
}

/* Checks the inputs and lists the runs: a sweep's finished runs (mw_sweepidx_expand) with
 * their configuration, a run as it is. */
static int collect_runs(const rp_opts *o, rp_report *rp)
{
    for (int i = 0; i < o->ninputs; i++) {
        const char *in = o->inputs[i];
        struct stat sb;
        if (stat(in, &sb) != 0) return mw_cli_usage_error("report", "%s: %s", in, strerror(errno));
        if (!S_ISDIR(sb.st_mode)) return mw_cli_usage_error("report", "%s: not a directory", in);
        if (!mw_sweepidx_is_sweep(in) && !mw_store_exists(in))
            return mw_cli_usage_error("report",
                                      "%s: not a run (no trace.db) nor a sweep (no sweep.db)", in);
    }
    char err[512];
    char **list = NULL;
    int n = 0;
    if (mw_sweepidx_expand(o->ninputs, o->inputs, &list, &n, err, sizeof err) != 0)
        return mw_cli_usage_error("report", "%s", err);
    if (n == 0) {
        mw_sweepidx_free_list(list, n);
        return mw_cli_usage_error("report", "no run to report on");
    }
    rp->run = mw_xcalloc((size_t)n, sizeof *rp->run);
    for (int i = 0; i < n; i++) {
        rp_run *r = &rp->run[rp->nrun++];
        r->dir = mw_xstrdup(list[i]);
        r->title = mw_xstrdup(list[i]);
        r->sweep = -1;
    }
    mw_sweepidx_free_list(list, n);
    for (size_t i = 0; i < rp->nrun; i++) {
        rp_run *r = &rp->run[i];
        for (size_t j = 0; j < i; j++)
            if (!strcmp(rp->run[j].dir, r->dir))
                return mw_cli_usage_error("report", "%s: given twice", r->dir);
        if (!mw_store_exists(r->dir))
            return mw_cli_usage_error("report", "%s: not a run (no trace.db)", r->dir);
    }
    /* the sweeps' tables: which runs each holds */
    for (int i = 0; i < o->ninputs; i++) {
        if (!mw_sweepidx_is_sweep(o->inputs[i])) continue;
        mw_sweepidx *x = mw_sweepidx_open(o->inputs[i], err, sizeof err);
        if (!x) return mw_cli_usage_error("report", "%s", err);
        rp->sw = mw_xrealloc(rp->sw, (rp->nsw + 1) * sizeof *rp->sw);
        rp_sweep *s = &rp->sw[rp->nsw];
        s->dir = mw_xstrdup(o->inputs[i]);
        s->x = x;
        size_t nr = mw_sweepidx_nruns(x);
        s->run_of = mw_xcalloc(nr, sizeof *s->run_of);
        for (size_t k = 0; k < nr; k++) {
            s->run_of[k] = -1;
            const char *d = mw_sweepidx_run_dir(x, k);
            for (size_t j = 0; d && j < rp->nrun; j++) {
                rp_run *r = &rp->run[j];
                if (r->sweep < 0 && !strcmp(r->dir, d)) {
                    r->sweep = (int)rp->nsw;
                    free(r->title);
                    r->title = xasprintf("%s, repetition %d", mw_sweepidx_run_label(x, k),
                                         mw_sweepidx_run_rep(x, k));
                    s->run_of[k] = (int)j;
                    break;
                }
            }
        }
        rp->nsw++;
    }
    return 0;
}

/* ---- the model: the one mw child -------------------------------------------------------
 * report_fit is the only place mw report still runs mw (a child, report_child.h); it is to
 * become one library call with the same result (the escobar fit) without changing its
 * callers. */

/* `mw fit --model escobar --mode MODE --json` over the eeg-mofs runs: 0 with its JSON in
 * *out (NULL, and note saying so, when it does not parse), or -1 when mw fit failed (note:
 * its reason). */
static int report_fit(const rp_report *rp, const char *mode, json_object **out, char *note,
                      size_t notelen)
{
    char **argv = mw_xcalloc(rp->nrun + 8, sizeof *argv);
    int k = 0;
    argv[k++] = "mw";
    argv[k++] = "fit";
    argv[k++] = "--model";
    argv[k++] = "escobar";
    argv[k++] = "--mode";
    argv[k++] = (char *)mode;
    argv[k++] = "--json";
    for (size_t i = 0; i < rp->nrun; i++)
        if (rp->run[i].escobar) argv[k++] = rp->run[i].dir;
    argv[k] = NULL;
    mw_report_child c;
    int rc = 0;
    if (mw_report_child_run(argv, &c) != 0 || c.status != 0) {
        char line[400];
        mw_report_child_last_err(&c, line, sizeof line);
        snprintf(note, notelen, "%s", line[0] ? line : "mw fit failed");
        rc = -1;
    } else {
        *out = parse_json(c.out, "mw fit --json");
        if (!*out) snprintf(note, notelen, "mw fit --json: its output does not parse");
    }
    mw_report_child_free(&c);
    free(argv);
    return rc;
}

/* The escobar model over the eeg-mofs runs: predict mode, and fit mode when it can. */
static void model(rp_report *rp)
{
    mw_escobar_run *er = mw_xcalloc(1, sizeof *er);
    for (size_t i = 0; i < rp->nrun; i++) {
        rp_run *r = &rp->run[i];
        r->escobar =
            mw_escobar_from_run(r->dir, NULL, er, r->escobar_err, sizeof r->escobar_err) == 0;
        rp->nescobar += (size_t)r->escobar;
    }
    free(er);
    if (!rp->nescobar) return;
    progress("model: mw fit --model escobar over %zu eeg-mofs run%s", rp->nescobar,
             rp->nescobar == 1 ? "" : "s");
    if (report_fit(rp, "predict", &rp->fit, rp->fit_note, sizeof rp->fit_note) != 0)
        progress("model: %s", rp->fit_note);
    if (rp->fit) /* no fit mode without a prediction */
        report_fit(rp, "fit", &rp->fit_mode, rp->fit_mode_note, sizeof rp->fit_mode_note);
}

/* ---- figures ----------------------------------------------------------------------- */

/* mw_plot_run_job's notes are progress ("mw plot: ..." as `mw plot` says them); the last
 * is kept, for when the job ends in an unusable run */
typedef struct {
    char last[600];
} plot_notes;

static void plot_note(void *ctx, const char *text)
{
    plot_notes *n = ctx;
    snprintf(n->last, sizeof n->last, "mw plot: %s", text);
    if (!quiet) fprintf(stderr, "%s\n", n->last);
}

/* the figure code's messages (gnuplot's output, a figure's failure), progress like notes */
static void plot_message(void *ctx, const char *line)
{
    plot_notes *n = ctx;
    snprintf(n->last, sizeof n->last, "%s", line);
    if (!quiet) fprintf(stderr, "%s\n", line);
}

/* A figure of DIR/SUB on the page, under run (-1: over every input); each name once. */
static void add_figure(rp_report *rp, const char *path, const char *sub, int run)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < rp->nfig; i++)
        if (rp->fig[i].run == run && !strcmp(rp->fig[i].name, base)) return;
    rp->fig = mw_xrealloc(rp->fig, (rp->nfig + 1) * sizeof *rp->fig);
    rp->fig[rp->nfig].sub = mw_xstrdup(sub);
    rp->fig[rp->nfig].name = mw_xstrdup(base);
    rp->fig[rp->nfig].run = run;
    rp->nfig++;
}

/* The figures of INPUTS in DIR/SUB (SUB "fig" or "fig/runN"), as `mw plot INPUTS -o DIR/SUB
 * --format png` draws them (libmwplot: mw_plot_run_job), listed under run (-1: the figures
 * over all the inputs). A failed figure leaves the others (said); a job refused, or with
 * an unusable run, leaves a note instead of its figures. The job's notes and the figure
 * code's messages (gnuplot's output, why a figure failed) are progress: hidden by -q. */
static void plot_into(rp_report *rp, char *const *inputs, int ninputs, const char *freqs,
                      const char *out_dir, const char *sub, int run)
{
    char *figdir = join(out_dir, sub);
    char err[512];
    if (mw_fs_mkdirs(figdir, NULL, err, sizeof err) != 0) {
        snprintf(rp->fig_note, sizeof rp->fig_note, "%s", err);
        fprintf(stderr, "mw report: warning: %s\n", err);
        free(figdir);
        return;
    }
    plot_notes notes = {""};
    mw_plot_request req = {.inputs = inputs, .ninputs = ninputs, .outdir = figdir};
    req.freqs = freqs;
    req.note = plot_note;
    req.message = plot_message;
    req.ctx = &notes;
    mw_plot_result res;
    int rc = mw_plot_run_job(&req, &res, err, sizeof err);
    if (rc || res.unusable) { /* as `mw plot` exiting 2: its last line said why */
        if (rc)
            snprintf(notes.last, sizeof notes.last, "mw plot: %s%s", err,
                     rc == MW_PLOT_JOB_BAD_INPUT ? " (try 'mw plot --help')" : "");
        snprintf(rp->fig_note, sizeof rp->fig_note, "mw plot failed (exit %d): %.480s",
                 MW_EXIT_USAGE, notes.last[0] ? notes.last : "no message");
        fprintf(stderr, "mw report: warning: %s\n", rp->fig_note);
    } else {
        if (res.failed) {
            rp->fig_failed = 1;
            fprintf(stderr, "mw report: warning: mw plot: a figure failed (above); the others "
                            "are on the page\n");
        }
        for (size_t i = 0; i < res.nfigures; i++)
            add_figure(rp, res.figures[i], sub, run);
    }
    mw_plot_result_free(&res);
    free(figdir);
}

/* The figures: those of mw plot over every input (one run: its per-run figures; several:
 * across runs) and the --profile, and each run's own in DIR/fig/runN: of every run when
 * there are at most RP_MAX_RUN_FIGURES, else of the runs given by themselves and the first
 * run of each sweep (up to RP_MAX_RUN_FIGURES). */
static void figures(const rp_opts *o, rp_report *rp, const char *out_dir)
{
    progress("figures: mw plot ... -o %s/fig --format png", out_dir);
    char **in = mw_xcalloc((size_t)o->ninputs + 1, sizeof *in);
    for (int i = 0; i < o->ninputs; i++)
        in[i] = o->inputs[i];
    if (o->profile) in[o->ninputs] = (char *)o->profile;
    plot_into(rp, in, o->ninputs + (o->profile != NULL), o->freqs, out_dir, "fig", -1);
    free(in);
    if (rp->nrun < 2) goto out;
    size_t made = 0;
    for (size_t i = 0; i < rp->nrun && made < RP_MAX_RUN_FIGURES; i++) {
        int first_of_sweep = rp->run[i].sweep >= 0;
        for (size_t j = 0; j < i && first_of_sweep; j++)
            if (rp->run[j].sweep == rp->run[i].sweep) first_of_sweep = 0;
        if (rp->nrun > RP_MAX_RUN_FIGURES && rp->run[i].sweep >= 0 && !first_of_sweep) continue;
        char sub[64];
        snprintf(sub, sizeof sub, "fig/run%zu", i + 1);
        plot_into(rp, &rp->run[i].dir, 1, o->freqs, out_dir, sub, (int)i);
        made++;
    }
out:
    if (!rp->nfig && !rp->fig_note[0])
        snprintf(rp->fig_note, sizeof rp->fig_note, "mw plot made no figure");
    progress("figures: %zu", rp->nfig);
}

/* ---- the command --------------------------------------------------------------------- */

int cmd_report(int argc, char **argv)
{
    rp_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc < 0) return MW_EXIT_OK; /* --help */
    if (rc) return rc;
    quiet = o.quiet;
    rp_report rp;
    memset(&rp, 0, sizeof rp);
    rp.say = say;
    char *out_dir = o.out_dir ? mw_xstrdup(o.out_dir) : join(o.inputs[0], "report");
    char *page = join(out_dir, "index.html");
    char *tmp = join(out_dir, "index.html.tmp");
    char err[1024];
    struct stat sb;
    if (stat(out_dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        rc = mw_cli_usage_error("report", "-o %s: not a directory", out_dir);
        goto done;
    }
    if ((rc = collect_runs(&o, &rp)) != 0) goto done;
    for (size_t i = 0; i < rp.nrun; i++)
        if (read_run(&rp.run[i], err, sizeof err) != 0) {
            rc = mw_cli_usage_error("report", "%s", err);
            goto done;
        }
    /* no progress before this: unusable input is one line on stderr */
    if (rp_report_analyse(&rp, err, sizeof err) != 0) {
        fprintf(stderr, "mw report: mw analyze: %s\n", err);
        rc = MW_EXIT_USAGE;
        goto done;
    }
    progress("analysed %zu run%s (mw analyze)", rp.nrun, rp.nrun == 1 ? "" : "s");
    model(&rp);
    if (mw_fs_mkdirs(out_dir, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "mw report: %s\n", err);
        rc = MW_EXIT_FAIL;
        goto done;
    }
    if (o.figures) figures(&o, &rp, out_dir);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "mw report: %s: %s\n", tmp, strerror(errno));
        rc = MW_EXIT_FAIL;
        goto done;
    }
    rp_write_page(f, &rp, o.inputs, o.ninputs, o.figures, argc, argv);
    if (ferror(f) | (fclose(f) != 0) || rename(tmp, page) != 0) {
        fprintf(stderr, "mw report: %s: cannot write it: %s\n", page, strerror(errno));
        unlink(tmp);
        rc = MW_EXIT_FAIL;
        goto done;
    }
    progress("wrote %s", page);
    printf("%s\n", page);
    rc = MW_EXIT_OK;
done:
    report_free(&rp);
    free(out_dir);
    free(page);
    free(tmp);
    return rc;
}
