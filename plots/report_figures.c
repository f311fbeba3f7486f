/* report_figures — the figures of a report (mw_report.h: rp_report_figures), drawn in this
 * process by the job of `mw plot` (mw_plot_run_job, plot_job.c) and placed on the page.
 *
 * The inputs and the profile go to one job into DIR/fig (one run: its per-run figures;
 * several: the figures across them); for 2 to RP_MAX_RUN_FIGURES runs each run gets a job of
 * its own into DIR/fig/runN, for more only the runs given by themselves and the first run of
 * each sweep (up to that many). A figure is listed once per run under the name the job gave
 * it; its kind is the start of that name (KIND[-CHANNEL].png, report_page.c).
 *
 * The job's notes and the figure code's messages (gnuplot's output, why a figure failed) are
 * said as `mw plot` says them (RP_SAY_LINE), and the last of them is kept: a job refused, or
 * ending in an unusable run, is what `mw plot` exiting 2 was, and the page's note quotes that
 * line. A figure that failed leaves the others, and a warning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "mw_fs.h"
#include "mw_plot.h"
#include "mw_report.h"

#define RP_EXIT_USAGE 2 /* what `mw plot` exited with on an unusable run (the page says it) */

typedef struct {
    const rp_report *rp;
    char last[600]; /* the last note or message, as mw plot says it */
} plot_notes;

static void say(const rp_report *rp, rp_say_kind kind, const char *text)
{
    if (rp->say) rp->say(rp->say_ctx, kind, text);
}

static void plot_note(void *ctx, const char *text)
{
    plot_notes *n = ctx;
    snprintf(n->last, sizeof n->last, "mw plot: %s", text);
    say(n->rp, RP_SAY_LINE, n->last);
}

static void plot_message(void *ctx, const char *line)
{
    plot_notes *n = ctx;
    snprintf(n->last, sizeof n->last, "%s", line);
    say(n->rp, RP_SAY_LINE, line);
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

/* The job's outcome: its figures listed, or why there are none. */
static void job_done(rp_report *rp, int rc, const mw_plot_result *res, const char *err,
                     plot_notes *notes, const char *sub, int run)
{
    if (rc || res->unusable) { /* as `mw plot` exiting 2: its last line said why */
        if (rc)
            snprintf(notes->last, sizeof notes->last, "mw plot: %s%s", err,
                     rc == MW_PLOT_JOB_BAD_INPUT ? " (try 'mw plot --help')" : "");
        snprintf(rp->fig_note, sizeof rp->fig_note, "mw plot failed (exit %d): %.480s",
                 RP_EXIT_USAGE, notes->last[0] ? notes->last : "no message");
        say(rp, RP_SAY_WARNING, rp->fig_note);
        return;
    }
    if (res->failed) {
        rp->fig_failed = 1;
        say(rp, RP_SAY_WARNING, "mw plot: a figure failed (above); the others are on the page");
    }
    for (size_t i = 0; i < res->nfigures; i++)
        add_figure(rp, res->figures[i], sub, run);
}

/* The figures of inputs in OUT_DIR/SUB (SUB "fig" or "fig/runN"), as `mw plot INPUTS -o
 * OUT_DIR/SUB --format png` draws them, listed under run (-1: over all the inputs). */
static void plot_into(rp_report *rp, char *const *inputs, int ninputs, const char *freqs,
                      const char *out_dir, const char *sub, int run)
{
    char *figdir = rp_path_join(out_dir, sub);
    char err[512];
    if (mw_fs_mkdirs(figdir, NULL, err, sizeof err) != 0) {
        snprintf(rp->fig_note, sizeof rp->fig_note, "%s", err);
        say(rp, RP_SAY_WARNING, err);
        free(figdir);
        return;
    }
    plot_notes notes = {rp, ""};
    mw_plot_request req = {.inputs = inputs, .ninputs = ninputs, .outdir = figdir};
    req.freqs = freqs;
    req.note = plot_note;
    req.message = plot_message;
    req.ctx = &notes;
    mw_plot_result res;
    int rc = mw_plot_run_job(&req, &res, err, sizeof err);
    job_done(rp, rc, &res, err, &notes, sub, run);
    mw_plot_result_free(&res);
    free(figdir);
}

/* Run i's own figures: all runs up to RP_MAX_RUN_FIGURES, else those given by themselves and
 * the first run of each sweep. */
static int own_figures(const rp_report *rp, size_t i)
{
    if (rp->nrun <= RP_MAX_RUN_FIGURES || rp->run[i].sweep < 0) return 1;
    for (size_t j = 0; j < i; j++)
        if (rp->run[j].sweep == rp->run[i].sweep) return 0;
    return 1;
}

void rp_report_figures(rp_report *rp, const rp_figure_request *q)
{
    char line[4200];
    snprintf(line, sizeof line, "figures: mw plot ... -o %s/fig --format png", q->out_dir);
    say(rp, RP_SAY_PROGRESS, line);
    char **in = mw_xcalloc((size_t)q->ninputs + 1, sizeof *in);
    for (int i = 0; i < q->ninputs; i++)
        in[i] = q->inputs[i];
    if (q->profile) in[q->ninputs] = (char *)q->profile;
    plot_into(rp, in, q->ninputs + (q->profile != NULL), q->freqs, q->out_dir, "fig", -1);
    free(in);
    size_t made = 0;
    for (size_t i = 0; rp->nrun > 1 && i < rp->nrun && made < RP_MAX_RUN_FIGURES; i++) {
        if (!own_figures(rp, i)) continue;
        char sub[64];
        snprintf(sub, sizeof sub, "fig/run%zu", i + 1);
        plot_into(rp, &rp->run[i].dir, 1, q->freqs, q->out_dir, sub, (int)i);
        made++;
    }
    if (!rp->nfig && !rp->fig_note[0])
        snprintf(rp->fig_note, sizeof rp->fig_note, "mw plot made no figure");
    snprintf(line, sizeof line, "figures: %zu", rp->nfig);
    say(rp, RP_SAY_PROGRESS, line);
}
