/* report_findings — the first section of `mw report`'s page (docs/report.md, "Findings"):
 * what the runs say, before the tables that back it. In order:
 *
 *   - the nodes: per channel name that measures a host, and the switch, Pow_idle and
 *     Pow_work by the paper's kernel density with, as their uncertainty, the spread of the
 *     three estimates (kernel density, mixture, phase split) in one run, or across n >= 3
 *     runs the 95 % Student-t interval of the mean (never an interval n cannot support:
 *     with two runs the two values); channels with no load attached (mean power below
 *     RP_UNCONNECTED_W in every run, no host) are listed as unconnected, not as nodes;
 *   - the energy of the first run (or of the one run): per node, during the command, and how
 *     much of it during the ranks' computation (mw_phase_class.h's rule: time outside MPI and
 *     waits, inferred when the program marked no phases) and the rest (communication,
 *     waiting, nothing running); the switch's share of all of it;
 *   - the model (eeg-mofs runs): the NRMSE of time and energy per version, said in words;
 *   - every warning: a run not complete, gaps, the meter's counter off the windows, a node
 *     with one power level, computation inferred, mw fit's notes, figures that failed;
 *   - the first run's power trace, shown (not folded away).
 *
 * Numbers are the analysis's (mw analyze --json), rounded for display. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "mw_alloc.h"
#include "report_html.h"
#include "report_page.h"
#include "stats.h"

#define RP_UNCONNECTED_W 1.0 /* |mean power| below this in every run, no host: nothing there */

/* ---- channels ------------------------------------------------------------------------------ */

/* 1 when the channel called name has no host and draws almost nothing in every run
 * (report_page.h) */
int rp_unconnected(const rp_report *rp, const char *name)
{
    int seen = 0;
    for (size_t i = 0; i < rp->nrun; i++) {
        const mw_analysis_run *an = rp->run[i].an;
        for (size_t k = 0; k < an->nchannels; k++) {
            const mw_analysis_channel *c = &an->channels[k];
            if (strcmp(c->name, name)) continue;
            double w = rp_an_mean_w(c->energy_pj, c->covered_ns);
            if (c->has_host || !(fabs(w) < RP_UNCONNECTED_W)) return 0;
            seen = 1;
        }
    }
    return seen;
}

#define LEVEL_BASELINE 2 /* level_values: the idle baseline, not a level */

/* the values of a level (idle or work, kde; baseline: the idle baseline where the run has
 * one) of the channel called name over the runs */
static size_t level_values(const rp_report *rp, const char *name, int idle, double *x)
{
    size_t n = 0;
    for (size_t i = 0; i < rp->nrun; i++) {
        const mw_analysis_run *an = rp->run[i].an;
        for (size_t k = 0; k < an->nchannels; k++) {
            const mw_analysis_channel *c = &an->channels[k];
            if (strcmp(c->name, name)) continue;
            double v = idle == LEVEL_BASELINE ? (c->idle_source ? c->idle_power_w : NAN)
                       : idle                 ? mw_analysis_idle_w(&c->kde)
                                              : mw_analysis_work_w(&c->kde);
            if (isfinite(v)) x[n++] = v;
        }
    }
    return n;
}

/* one run's level with the spread of the three estimates: "224.3 W (223.5–224.3 W)" */
static void level_one_run(FILE *f, const mw_analysis_channel *c, int idle)
{
    const mw_analysis_estimate *e[3] = {&c->kde, &c->gmm, &c->split};
    double v = idle ? mw_analysis_idle_w(e[0]) : mw_analysis_work_w(e[0]), lo = v, hi = v;
    int m = 0;
    for (int k = 0; k < 3; k++) {
        double x = idle ? mw_analysis_idle_w(e[k]) : mw_analysis_work_w(e[k]);
        if (!isfinite(x)) continue;
        m++;
        lo = fmin(lo, x);
        hi = fmax(hi, x);
    }
    char a[64], b[64], d[64];
    if (!isfinite(v)) {
        rp_td_n(f, RP_DASH);
        return;
    }
    if (m < 2) {
        fprintf(f, "<td class=\"n\">%s</td>", mw_html_num(a, sizeof a, v, 1, "W"));
        return;
    }
    fprintf(f, "<td class=\"n\">%s <span class=\"note\">(%s\xE2\x80\x93%s, %d methods)</span></td>",
            mw_html_num(a, sizeof a, v, 1, "W"), mw_html_num(b, sizeof b, lo, 1, ""),
            mw_html_num(d, sizeof d, hi, 1, "W"), m);
}

/* across runs: mean and its interval from n >= 3, else the values */
static void level_runs(FILE *f, const double *x, size_t n)
{
    char a[64], b[64], c[64];
    double mean, lo, hi;
    if (!n) {
        rp_td_n(f, RP_DASH);
    } else if (n >= 3 && !mw_stats_mean_ci(x, n, RP_CONFIDENCE, &mean, &lo, &hi)) {
        fprintf(f, "<td class=\"n\">%s <span class=\"note\">[%s, %s], n = %zu</span></td>",
                mw_html_num(a, sizeof a, mean, 1, "W"), mw_html_num(b, sizeof b, lo, 1, ""),
                mw_html_num(c, sizeof c, hi, 1, "W"), n);
    } else {
        fputs("<td class=\"n\">", f);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s%s", i ? ", " : "", mw_html_num(a, sizeof a, x[i], 1, "W"));
        fprintf(f, " <span class=\"note\">(n = %zu: no interval)</span></td>", n);
    }
}

static void nodes_table(FILE *f, const rp_report *rp)
{
    size_t room = 0;
    for (size_t i = 0; i < rp->nrun; i++)
        room += rp->run[i].an->nchannels;
    double *x = mw_xcalloc(room + 1, sizeof *x);
    static const char *const cols[] = {"Node (channel)", ">Pow_idle", ">Pow_work",
                                       ">Idle baseline", NULL};
    fputs("<h3>Power of each node</h3>\n<div class=\"scroll\"><table id=\"findings-levels\">\n", f);
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    const mw_analysis_run *one = rp->nrun == 1 ? rp->run[0].an : NULL;
    for (size_t k = 0; k < rp->agg.nchannels; k++) {
        const char *name = rp->agg.channels[k].name;
        if (rp_unconnected(rp, name)) continue;
        fputs("<tr data-channel=\"", f);
        mw_html_text(f, name);
        fputs("\">", f);
        rp_td_text(f, name);
        const mw_analysis_channel *c = NULL;
        for (size_t j = 0; one && j < one->nchannels; j++)
            if (!strcmp(one->channels[j].name, name)) c = &one->channels[j];
        if (c) {
            level_one_run(f, c, 1);
            level_one_run(f, c, 0);
            rp_td_num(f, c->idle_source ? c->idle_power_w : NAN, 1, "W");
        } else {
            level_runs(f, x, level_values(rp, name, 1, x));
            level_runs(f, x, level_values(rp, name, 0, x));
            level_runs(f, x, level_values(rp, name, LEVEL_BASELINE, x));
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    free(x);
    fputs("<p class=\"note\">Pow_idle and Pow_work by the paper's kernel-density method; in "
          "brackets ",
          f);
    fputs(rp->nrun == 1 ? "the range of the three estimates (kernel density, Gaussian mixture, "
                          "phase split: <a href=\"#levels\">Power levels</a>), a measure of how "
                          "well the run fixes them. "
                        : "the 95 % Student-t interval of the mean over the runs (from three "
                          "runs on; with fewer, the values). ",
          f);
    fputs("The idle baseline is the mean power while the recorder waited before and after the "
          "command (<code>mw record --idle</code>).</p>\n",
          f);
}

/* ---- energy -------------------------------------------------------------------------------- */

/* the energy during the command of channel c: its "command" group, else the whole range */
static void command_energy(const mw_analysis_run *an, size_t c, double *j, double *s)
{
    *j = rp_an_joules(an->channels[c].energy_pj);
    *s = rp_an_seconds(an->channels[c].covered_ns);
    for (size_t g = 0; g < an->nphases; g++)
        if (!strcmp(an->phases[g].kind, "mw") && !strcmp(an->phases[g].name, "command") &&
            an->phases[g].channel_duration_ns[c]) {
            *j = rp_an_joules(an->phases[g].channel_energy_pj[c]);
            *s = rp_an_seconds(an->phases[g].channel_covered_ns[c]);
        }
}

static void energy_table(FILE *f, const rp_report *rp)
{
    const rp_run *r = &rp->run[0];
    const mw_analysis_run *an = r->an;
    fputs("<h3>Where the energy went", f);
    if (rp->nrun > 1) {
        fputs(": <code>", f);
        mw_html_text(f, r->title);
        fputs("</code>", f);
    }
    fputs("</h3>\n", f);
    static const char *const cols[] = {"Node (channel)", ">During the command",
                                       ">During the computation", ">Share",
                                       ">Dynamic (above idle)", NULL};
    fputs("<div class=\"scroll\"><table id=\"findings-energy\">\n", f);
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    double all = 0, sw = 0;
    for (size_t c = 0; c < an->nchannels; c++) {
        const mw_analysis_channel *ch = &an->channels[c];
        if (rp_unconnected(rp, ch->name)) continue;
        double j, s;
        command_energy(an, c, &j, &s);
        all += j;
        if (!ch->has_host && strstr(ch->name, "switch")) sw += j;
        double wj = rp_an_joules(ch->work_energy_pj);
        fputs("<tr data-channel=\"", f);
        mw_html_text(f, ch->name);
        fputs("\">", f);
        rp_td_text(f, ch->name);
        rp_td_energy(f, j);
        int node = ch->has_host && ch->work_ns; /* a switch serves every rank: no share */
        rp_td_energy(f, node ? wj : NAN);
        rp_td_num(f, node && j > 0 ? 100 * wj / j : NAN, 1, "%");
        rp_td_energy(f, ch->idle_source ? j - ch->idle_power_w * s : NAN);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    char a[64], b[64];
    fprintf(f, "<p>All connected channels together: <strong>%s</strong> during the command (%s).",
            mw_html_energy(a, sizeof a, all), mw_html_seconds(b, sizeof b, r->cmd_s));
    if (sw > 0 && all > 0)
        fprintf(f, " The switch drew <strong>%.2f %%</strong> of it (%s).", 100 * sw / all,
                mw_html_energy(a, sizeof a, sw));
    fputs("</p>\n<p class=\"note\">The computation is the time of the node's ranks outside MPI "
          "and waits (<code>docs/analysis.md</code>, \"Computation\"); the rest of the command "
          "is communication, waiting, or no rank running. Dynamic: the energy above the node's "
          "idle baseline.</p>\n",
          f);
}

/* ---- the model ----------------------------------------------------------------------------- */

static void model_words(FILE *f, const rp_report *rp)
{
    if (!rp->nescobar) return;
    fputs("<h3>The model</h3>\n", f);
    if (!rp->fit) {
        fputs("<p class=\"warn\">No model prediction: ", f);
        mw_html_text(f, rp->fit_note);
        fputs("</p>\n", f);
        return;
    }
    fputs("<ul>\n", f);
    for (int k = 0; k < rp->fit->ngroups; k++) {
        const mw_escobar_study_group *g = &rp->fit->group[k];
        fprintf(f, "<li>Version %d, %d runs: ", g->version, g->nruns);
        if (!isfinite(g->nrmse_t) || !isfinite(g->nrmse_e)) {
            fputs("NRMSE undefined (one run, or equal times).</li>\n", f);
            continue;
        }
        fprintf(f,
                "from each run's own parameters the model predicts time with NRMSE %.3f and "
                "energy with %.3f (1: every run exactly; 0: no better than the runs' mean; "
                "below 0: worse; the paper's %.3f and %.3f)",
                g->nrmse_t, g->nrmse_e, g->paper_nrmse_t, g->paper_nrmse_e);
        const mw_escobar_study_group *fg =
            rp->fit_mode ? mw_escobar_study_group_of(rp->fit_mode, g->version) : NULL;
        int fit_known = fg && fg->fitted && isfinite(fg->nrmse_t) && isfinite(fg->nrmse_e);
        if (fit_known)
            fprintf(f, "; with its time parameters fitted to these runs, %.3f and %.3f",
                    fg->nrmse_t, fg->nrmse_e);
        fputs(". ", f);
        int pred_good = g->nrmse_t >= 0.5 && g->nrmse_e >= 0.5;
        int fit_good = !fit_known || (fg->nrmse_t >= 0.5 && fg->nrmse_e >= 0.5);
        fputs(pred_good && fit_good ? "It follows the measurements."
              : pred_good ? "From their own parts it explains the runs, but fitted over N_Spop "
                            "it does not follow them: the runs vary in ways its shape does not "
                            "(see the model's figure)."
                          : "It does not follow the measurements well: see the model's table "
                            "and figure.",
              f);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n<p class=\"note\">The first NRMSE tests the model's structure (nothing tuned "
          "to the runs' times: <code>mw fit</code>, predict mode), the second how well its shape "
          "over N_Spop can follow them (<code>mw fit --mode fit</code>); "
          "<a href=\"#model\">Model</a> and <code>docs/models.md</code>, "
          "\xE2\x80\x9CWhat the numbers mean\xE2\x80\x9D.</p>\n",
          f);
}

/* ---- warnings ------------------------------------------------------------------------------ */

static void warn(FILE *f, int *n, const char *text)
{
    if (!(*n)++) fputs("<h3>Warnings</h3>\n<ul class=\"warn\" id=\"findings-warnings\">\n", f);
    fputs("<li>", f);
    fputs(text, f);
}

/* " <code>RUN</code></li>" */
static void run_end(FILE *f, const rp_run *r)
{
    fputs(" <code>", f);
    mw_html_text(f, r->title);
    fputs("</code></li>\n", f);
}

static void run_warnings(FILE *f, const rp_report *rp, size_t i, int *n)
{
    const rp_run *r = &rp->run[i];
    const mw_analysis_run *an = r->an;
    if (strcmp(an->status, "complete")) {
        warn(f, n, "status ");
        mw_html_text(f, an->status);
        fputs(":", f);
        run_end(f, r);
    }
    if (r->ngaps > 0) {
        char b[96];
        snprintf(b, sizeof b, "%lld gap%s in the windows:", r->ngaps, r->ngaps == 1 ? "" : "s");
        warn(f, n, b);
        run_end(f, r);
    }
    if (an->probe_dropped > 0) {
        char b[128];
        snprintf(b, sizeof b, "the probes dropped %lld events (phases incomplete):",
                 (long long)an->probe_dropped);
        warn(f, n, b);
        run_end(f, r);
    }
    int inferred = 0;
    for (size_t k = 0; k < an->nranks; k++)
        inferred |= an->ranks[k].inferred_ns > 0 && an->ranks[k].inferred_ns == an->ranks[k].work_ns;
    if (inferred) {
        warn(f, n, "computation inferred (the program recorded only MPI phases: its time "
                   "outside MPI counts as computation):");
        run_end(f, r);
    }
    for (size_t k = 0; k < an->nchannels; k++) {
        const mw_analysis_channel *c = &an->channels[k];
        double pct = mw_analysis_meter_difference_pct(c);
        /* a channel with nothing on it: its relative difference is of noise */
        if (isfinite(pct) && fabs(pct) > 0.5 && !rp_unconnected(rp, c->name)) {
            char b[160];
            snprintf(b, sizeof b, "the meter's counter and the windows differ by %.2f %% on ",
                     pct);
            warn(f, n, b);
            mw_html_text(f, c->name);
            fputs(" (windows lost?):", f);
            run_end(f, r);
        }
    }
}

/* 1 when run i's channel called name is a node whose power showed one level */
static int one_level(const rp_report *rp, size_t i, const char *name)
{
    const mw_analysis_run *an = rp->run[i].an;
    for (size_t k = 0; k < an->nchannels; k++) {
        const mw_analysis_channel *c = &an->channels[k];
        if (!strcmp(c->name, name))
            return c->has_host && c->kde.state == MW_ANALYSIS_OK && !c->kde.levels.bimodal &&
                   !c->kde.constant;
    }
    return 0;
}

/* A node with one power level: one warning per node, naming at most three of its runs. */
static void one_level_warnings(FILE *f, const rp_report *rp, int *n)
{
    for (size_t k = 0; k < rp->agg.nchannels; k++) {
        const char *name = rp->agg.channels[k].name;
        size_t count = 0;
        for (size_t i = 0; i < rp->nrun; i++)
            count += (size_t)one_level(rp, i, name);
        if (!count) continue;
        warn(f, n, "one power level on node ");
        mw_html_text(f, name);
        fprintf(f, " in %zu of %zu run%s (Pow_idle and Pow_work are the same level: it never "
                   "idled, or never worked):",
                count, rp->nrun, rp->nrun == 1 ? "" : "s");
        size_t shown = 0;
        for (size_t i = 0; i < rp->nrun && shown < 3; i++)
            if (one_level(rp, i, name)) {
                fputs(shown++ ? ", <code>" : " <code>", f);
                mw_html_text(f, rp->run[i].title);
                fputs("</code>", f);
            }
        if (count > shown) fprintf(f, " and %zu more", count - shown);
        fputs("</li>\n", f);
    }
}

static void warnings(FILE *f, const rp_report *rp)
{
    int n = 0;
    for (size_t i = 0; i < rp->nrun; i++)
        run_warnings(f, rp, i, &n);
    one_level_warnings(f, rp, &n);
    size_t nun = 0, seen = 0; /* the unconnected channels: one line, not one each */
    for (size_t k = 0; k < rp->agg.nchannels; k++)
        nun += rp_unconnected(rp, rp->agg.channels[k].name) != 0;
    for (size_t k = 0; k < rp->agg.nchannels; k++)
        if (rp_unconnected(rp, rp->agg.channels[k].name)) {
            if (!seen)
                warn(f, &n, nun == 1 ? "nothing connected to channel " : "nothing connected to "
                                                                         "channels ");
            fputs(seen++ ? ", " : "", f);
            mw_html_text(f, rp->agg.channels[k].name);
        }
    if (nun) fputs(" (below 1 W in every run): left out of the findings</li>\n", f);
    for (size_t i = 0; rp->nescobar && i < rp->nfit_warnings; i++) {
        warn(f, &n, "mw fit: ");
        mw_html_text(f, rp->fit_warnings[i]);
        fputs("</li>\n", f);
    }
    if (rp->nescobar && rp->fit_mode_note[0]) {
        warn(f, &n, "mw fit: ");
        mw_html_text(f, rp->fit_mode_note);
        fputs("</li>\n", f);
    }
    if (rp->fig_failed) warn(f, &n, "mw plot could not draw every figure</li>\n");
    if (rp->fig_note[0]) {
        warn(f, &n, "");
        mw_html_text(f, rp->fig_note);
        fputs("</li>\n", f);
    }
    if (n)
        fputs("</ul>\n", f);
    else
        fputs("<p id=\"findings-warnings\">No warnings.</p>\n", f);
}

/* ---- the trace ----------------------------------------------------------------------------- */

static void first_trace(FILE *f, const rp_report *rp)
{
    for (size_t i = 0; i < rp->nfig; i++) {
        const rp_fig *g = &rp->fig[i];
        if (strcmp(g->name, "trace.png") || (g->run != -1 && g->run != 0)) continue;
        if (g->run == -1 && rp->nrun > 1) continue; /* over every input: not one run's */
        fputs("<figure>\n<img src=\"", f);
        fputs(g->sub, f); /* ours: "fig" or "fig/runN" */
        fputs("/", f);
        mw_html_url_segment(f, g->name);
        fputs("\" alt=\"Power trace\">\n<figcaption>The power of every connected channel over "
              "the run; where the program recorded phases, each node's ranks' phases in a lane "
              "below (computation that no phase marked is hatched: inferred). ",
              f);
        const mw_analysis_run *an = rp->run[0].an;
        if (an && an->meter_hosts > 1) /* mw record --meter-hosts (docs/scaling.md) */
            fprintf(f,
                    "Its channels come from %zu meter hosts (each channel's in the column "
                    "Meter host of <a href=\"#energy\">Energy per channel</a>), all on one time "
                    "axis: the launching host's clock, each host's windows moved by its measured "
                    "clock offset (<a href=\"#meter-hosts\">Meter hosts</a>). ",
                    an->meter_hosts);
        if (rp->nrun > 1) {
            fputs("Run <code>", f);
            mw_html_text(f, rp->run[0].title);
            fputs("</code>. ", f);
        }
        fputs("<a href=\"#figures\">All figures</a>.</figcaption>\n</figure>\n", f);
        return;
    }
}

void rp_section_findings(FILE *f, const rp_report *rp)
{
    fputs("<section id=\"findings\">\n<h2>Findings</h2>\n", f);
    nodes_table(f, rp);
    energy_table(f, rp);
    model_words(f, rp);
    warnings(f, rp);
    first_trace(f, rp);
    fputs("</section>\n", f);
}
