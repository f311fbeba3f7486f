/* report_page — the HTML page of `mw report` (docs/report.md; mw_report.h: rp_write_page),
 * written from a built report: the findings (report_findings.c), summary, sweep (report_sweep.c), energy per channel and phase,
 * power levels, statistics across runs, the model (report_model.c), the figures and the
 * metadata (report_meta.c), in that order.
 *
 * The analysis's numbers are read from its structs (models/include/mw_analysis.h) as
 * `mw analyze --json` states them (rp_an_*, report_analysis.c), so the page shows exactly
 * analyze's numbers, rounded again for display. Every string from outside goes through
 * mw_html_text (report_html.h); numbers are formatted with their units, a missing one as an
 * en dash (report_cells.c). Tables that tests read carry ids (energy-N, levels-N,
 * across-channels, sweep-N-runs, ...) and a data-channel attribute on per-channel rows, one row
 * a line. Intervals across runs come from models/include/stats.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_statistics_double.h>

#include "mw_alloc.h"
#include "mw_plot.h"
#include "report_css.h"
#include "report_html.h"
#include "report_page.h"

/* The figure kinds of mw plot (docs/plots.md), in page order: a figure belongs to the kind
 * its file name begins with (mw plot names a run's figures KIND[-CHANNEL]). */
static const struct {
    const char *kind, *title, *caption;
} kinds[] = {
    {"trace", "Power traces",
     "Every channel's power over time, the phases of each node in a lane below, the idle "
     "baseline and gaps marked"},
    {"timeline", "Phase timelines", "A lane per rank with its phases, under the power"},
    {"energy", "Energy per phase",
     "Energy of the run and of each phase, per node, and its static and dynamic parts"},
    {"histogram", "Power histograms",
     "The window powers in \xE2\x8C\x88\xE2\x88\x9An\xE2\x8C\x89 bins, the kernel density with "
     "Pow_idle/Pow_work, and the KDE, GMM and phase-split estimates side by side"},
    {"boxplot", "Power levels across runs",
     "Pow_idle and Pow_work per node across runs, per eeg-mofs version or sweep configuration"},
    {"model", "Model against measurements",
     "Measured and modelled time and energy over N_Spop, per version, NRMSE in the legend"},
    {"inband", "In-band power beside the wall",
     "Per node, its wall power with its in-band sources (RAPL, GPUs) stacked below it"},
    {"dvfs", "DVFS",
     "Normalised energy and performance against the CPU scaling factor, with mw dvfs's "
     "MaxDist choice"},
    {"pareto", "Time-energy Pareto front", "The time/energy Pareto front"},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static int kind_of(const char *name)
{
    for (size_t k = 0; k < NKINDS; k++) {
        size_t n = strlen(kinds[k].kind);
        if (!strncmp(name, kinds[k].kind, n) &&
            (name[n] == 0 || name[n] == '-' || name[n] == '_' || name[n] == '.'))
            return (int)k;
    }
    return -1;
}

/* ---- summary ------------------------------------------------------------------------------- */

static void section_summary(FILE *f, const rp_report *rp)
{
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n", f);
    fputs("<p class=\"note\">Command time: the recorded command's span (the recorder's phase "
          "<code>command</code>). Energies are of every channel together, exact integrals of "
          "the meter's windows (<code>mw analyze</code>).</p>\n",
          f);
    fputs("<div class=\"scroll\"><table id=\"runs\">\n", f);
    static const char *const cols[] = {"Run",
                                       "Status",
                                       "Start",
                                       ">Recorded",
                                       ">Command time",
                                       ">Energy during the command",
                                       ">Mean power during it",
                                       ">Energy, whole run",
                                       NULL};
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    for (size_t i = 0; i < rp->nrun; i++) {
        const rp_run *r = &rp->run[i];
        fputs("<tr>", f);
        rp_td_code(f, r->title);
        rp_td_text(f, r->an->status);
        char b[64];
        long long t;
        rp_td_text(f, rp_meta_ll(r, "start_ns", &t) == 0 ? mw_html_utc(b, sizeof b, t) : NULL);
        rp_td_seconds(f, r->duration_s);
        rp_td_seconds(f, r->cmd_s);
        rp_td_energy(f, r->cmd_j);
        rp_td_num(f, r->cmd_s > 0 ? r->cmd_j / r->cmd_s : NAN, 3, "W");
        rp_td_energy(f, r->total_j);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    for (size_t i = 0; i < rp->nrun; i++) { /* a meter lost for good, gaps */
        int64_t span, cov;
        char note[160];
        if (!mw_analysis_coverage(rp->run[i].an, &span, &cov, note, sizeof note)) continue;
        fputs("<p class=\"warn\">Run <code>", f);
        mw_html_text(f, rp->run[i].title);
        fputs("</code>: ", f);
        mw_html_text(f, note);
        fputs("; its figures are of the covered time only.</p>\n", f);
    }
    fputs("</section>\n", f);
}

/* ---- energy per channel -------------------------------------------------------------------- */

/* <tr data-channel="NAME"> */
static void tr_channel(FILE *f, const char *name)
{
    fputs("<tr data-channel=\"", f);
    mw_html_text(f, name);
    fputs("\">", f);
}

/* meter_host: 1 adds the cell of the host its meter hangs on (a run merged from several) */
static void energy_row(FILE *f, const mw_analysis_channel *c, int meter_host)
{
    tr_channel(f, c->name);
    rp_td_text(f, c->name);
    rp_td_text(f, c->has_host ? c->host : NULL);
    if (meter_host) rp_td_text(f, c->meter_host[0] ? c->meter_host : NULL);
    rp_td_num(f, (double)c->windows, 0, "");
    rp_td_seconds(f, rp_an_seconds(c->covered_ns));
    rp_td_energy(f, rp_an_joules(c->energy_pj));
    rp_td_energy(f, c->have_meter ? rp_an_joules(c->meter_pj) : NAN);
    rp_td_num(f, rp_an_round(mw_analysis_meter_difference_pct(c), 4), 4, "%");
    rp_td_num(f, rp_an_mean_w(c->energy_pj, c->covered_ns), 3, "W");
    rp_td_num(f, c->idle_source ? rp_an_round(c->idle_power_w, 6) : NAN, 3, "W");
    rp_td_energy(f, rp_an_round(mw_analysis_dynamic_j(c, c->energy_pj, c->covered_ns), 6));
    fputs("</tr>\n", f);
}

static void section_energy(FILE *f, const rp_report *rp)
{
    fputs("<section id=\"energy\">\n<h2>Energy per channel</h2>\n", f);
    fputs("<p class=\"note\">Energy over the analysed range (partial windows apportioned), the "
          "same by the meter's own counter, their difference, mean power over the window time; "
          "dynamic energy = energy \xE2\x88\x92 idle power \xC3\x97 window time, the idle power "
          "from the run's idle baseline (<code>mw record --idle</code>).</p>\n",
          f);
    static const char *const cols[] = {"Channel",         "Host",        ">Windows",
                                       ">Window time",    ">Energy",     ">By the meter's counter",
                                       ">Difference",     ">Mean power", ">Idle power",
                                       ">Dynamic energy", NULL};
    static const char *const mh_cols[] = {
        "Channel",         "Host",        "Meter host",  ">Windows",   ">Window time", ">Energy",
        ">By the meter's counter", ">Difference", ">Mean power", ">Idle power", ">Dynamic energy",
        NULL};
    for (size_t i = 0; i < rp->nrun; i++) {
        const mw_analysis_run *an = rp->run[i].an;
        int mh = an->meter_hosts > 1; /* merged from several hosts: say each channel's */
        rp_run_open(f, rp, i);
        fprintf(f, "<div class=\"scroll\"><table id=\"energy-%zu\">\n", i + 1);
        rp_thead(f, mh ? mh_cols : cols);
        fputs("<tbody>\n", f);
        for (size_t k = 0; k < an->nchannels; k++)
            energy_row(f, &an->channels[k], mh);
        fputs("</tbody></table></div>\n", f);
        rp_run_close(f, rp);
    }
    fputs("</section>\n", f);
}

/* ---- energy per phase ---------------------------------------------------------------------- */

/* A row of phase group p: its own cells on its first row (first), and its figures on channel
 * index c (c < 0: on no channel, dashes). */
static void phase_row(FILE *f, const mw_analysis_run *an, const mw_analysis_phase *p, int first,
                      long c)
{
    fputs("<tr>", f);
    if (first) {
        rp_td_text(f, p->kind);
        rp_td_text(f, p->name);
        rp_td_num(f, (double)p->intervals, 0, "");
        rp_td_seconds(f, rp_an_seconds(p->duration_ns));
    } else {
        fputs("<td></td><td></td><td></td><td></td>", f);
    }
    const mw_analysis_channel *ch = c >= 0 ? &an->channels[c] : NULL;
    mw_energy_pj pj = ch ? p->channel_energy_pj[c] : 0;
    int64_t cov = ch ? p->channel_covered_ns[c] : 0;
    rp_td_text(f, ch ? ch->name : NULL);
    rp_td_seconds(f, ch ? rp_an_seconds(p->channel_duration_ns[c]) : NAN);
    rp_td_energy(f, ch ? rp_an_joules(pj) : NAN);
    rp_td_num(f, ch ? rp_an_mean_w(pj, cov) : NAN, 3, "W");
    rp_td_energy(f, ch ? rp_an_round(mw_analysis_dynamic_j(ch, pj, cov), 6) : NAN);
    fputs("</tr>\n", f);
}

static void phases_table(FILE *f, const mw_analysis_run *an, size_t i)
{
    static const char *const cols[] = {
        "Kind",    "Phase",       ">Intervals",      ">Duration", "Channel", ">On the channel",
        ">Energy", ">Mean power", ">Dynamic energy", NULL};
    if (!an->nphases) {
        fputs("<p>No phases recorded.</p>\n", f);
        return;
    }
    fprintf(f, "<div class=\"scroll\"><table id=\"phases-%zu\">\n", i + 1);
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    for (size_t k = 0; k < an->nphases; k++) {
        const mw_analysis_phase *p = &an->phases[k];
        int rows = 0; /* a row per channel the group is on (mw analyze lists those) */
        for (size_t c = 0; c < an->nchannels; c++)
            if (p->channel_duration_ns[c]) phase_row(f, an, p, !rows++, (long)c);
        if (!rows) phase_row(f, an, p, 1, -1);
    }
    fputs("</tbody></table></div>\n", f);
}

static void ranks_table(FILE *f, const mw_analysis_run *an)
{
    static const char *const cols[] = {
        "Rank",     "Host",          ">Start",    ">Duration", ">Energy", ">Computation",
        ">Of which inferred", ">Energy while computing", "Channels", NULL};
    if (!an->nranks) return;
    fputs("<h3>Ranks</h3>\n<p class=\"note\">Computation: the rank's time outside MPI and waits; "
          "inferred: the part no phase of the program marked (<code>docs/analysis.md</code>, "
          "\"Computation\").</p>\n<div class=\"scroll\"><table>\n",
          f);
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    for (size_t k = 0; k < an->nranks; k++) {
        const mw_analysis_rank *x = &an->ranks[k];
        fputs("<tr>", f);
        rp_td_num(f, x->rank, 0, "");
        rp_td_text(f, x->host);
        rp_td_seconds(f, rp_an_seconds(mw_analysis_since_ns(an, x->start_ns)));
        rp_td_seconds(f, rp_an_seconds((__int128)x->end_ns - x->start_ns));
        rp_td_energy(f, rp_an_joules(x->energy_pj));
        rp_td_seconds(f, rp_an_seconds(x->work_ns));
        rp_td_seconds(f, rp_an_seconds(x->inferred_ns));
        rp_td_energy(f, rp_an_joules(x->work_energy_pj));
        fputs("<td>", f);
        for (size_t c = 0; c < x->nchannels; c++) {
            if (c) fputs(", ", f);
            mw_html_text(f, an->channels[x->channels[c]].name);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

static void section_phases(FILE *f, const rp_report *rp)
{
    fputs("<section id=\"phases\">\n<h2>Energy per phase</h2>\n", f);
    fputs("<p class=\"note\">A phase group is one (kind, name); on a channel it is the union "
          "of its intervals over the ranks that channel measures, so overlapping intervals "
          "count once. Kind <code>mw</code>: the recorder's idle baseline and command.</p>\n",
          f);
    for (size_t i = 0; i < rp->nrun; i++) {
        rp_run_open(f, rp, i);
        phases_table(f, rp->run[i].an, i);
        ranks_table(f, rp->run[i].an);
        rp_run_close(f, rp);
    }
    fputs("</section>\n", f);
}

/* ---- power levels -------------------------------------------------------------------------- */

/* an estimate's level ± its sd (the mixture's and the split's) */
static void td_level(FILE *f, const mw_analysis_estimate *e, int idle)
{
    double level = idle ? mw_analysis_idle_w(e) : mw_analysis_work_w(e);
    double sd = e->state == MW_ANALYSIS_OK ? idle ? e->levels.idle_sd_w : e->levels.work_sd_w : NAN;
    rp_td_mean_sd(f, rp_an_round(level, 3), rp_an_round(sd, 3), 3, "W", 0);
}

static void levels_row(FILE *f, const mw_analysis_channel *c)
{
    tr_channel(f, c->name);
    rp_td_text(f, c->name);
    rp_td_num(f, rp_an_round(mw_analysis_idle_w(&c->kde), 3), 3, "W");
    rp_td_num(f, rp_an_round(mw_analysis_work_w(&c->kde), 3), 3, "W");
    int ok = c->kde.state == MW_ANALYSIS_OK;
    rp_td_text(f, !ok ? NULL : c->kde.levels.bimodal ? "yes" : "no");
    td_level(f, &c->gmm, 1);
    td_level(f, &c->gmm, 0);
    td_level(f, &c->split, 1);
    td_level(f, &c->split, 0);
    fputs("</tr>\n", f);
}

/* an estimate's note, NULL when it has none */
static const char *est_note(const mw_analysis_estimate *e)
{
    return e->state != MW_ANALYSIS_SKIPPED && e->levels.note[0] ? e->levels.note : NULL;
}

/* the estimators' notes: why one level, or why no estimate; none for the channels with
 * nothing connected (one warning in the findings says so: their notes are about noise) */
static void levels_notes(FILE *f, const rp_report *rp, const mw_analysis_run *an)
{
    int any = 0, left_out = 0;
    for (size_t k = 0; k < an->nchannels; k++) {
        const mw_analysis_channel *c = &an->channels[k];
        if (rp_unconnected(rp, c->name)) {
            left_out++;
            continue;
        }
        const char *notes[] = {est_note(&c->kde), est_note(&c->gmm),
                               c->split.state == MW_ANALYSIS_SKIPPED ? "no working phases"
                                                                     : est_note(&c->split)};
        const char *who[] = {"KDE", "GMM", "split"};
        for (int n = 0; n < 3; n++) {
            if (!notes[n]) continue;
            fputs(any++ ? "<li>" : "<ul class=\"note\">\n<li>", f);
            mw_html_text(f, c->name);
            fprintf(f, ", %s: ", who[n]);
            mw_html_text(f, notes[n]);
            fputs("</li>\n", f);
        }
    }
    if (left_out)
        fprintf(f, "%s<li>the notes of the %d channel%s with nothing connected (Warnings) left "
                   "out</li>\n",
                any++ ? "" : "<ul class=\"note\">\n", left_out, left_out == 1 ? "" : "s");
    if (any) fputs("</ul>\n", f);
}

static void section_levels(FILE *f, const rp_report *rp)
{
    fputs("<section id=\"levels\">\n<h2>Pow<sub>idle</sub> and Pow<sub>work</sub></h2>\n", f);
    fputs("<p class=\"note\">Each channel's two power levels three ways: the paper's kernel "
          "density of the window powers (the two highest maxima; one level when the density "
          "has one), a two-component Gaussian mixture (means \xC2\xB1 sd), and the phase split "
          "(mean \xC2\xB1 sd of the windows labelled working and idle from the program's "
          "phases). <code>docs/analysis.md</code> says how each works.</p>\n",
          f);
    static const char *const cols[] = {"Channel",       ">Pow_idle (KDE)", ">Pow_work (KDE)",
                                       "Two levels",    ">Idle (GMM)",     ">Work (GMM)",
                                       ">Idle (split)", ">Work (split)",   NULL};
    for (size_t i = 0; i < rp->nrun; i++) {
        const mw_analysis_run *an = rp->run[i].an;
        rp_run_open(f, rp, i);
        fprintf(f, "<div class=\"scroll\"><table id=\"levels-%zu\">\n", i + 1);
        rp_thead(f, cols);
        fputs("<tbody>\n", f);
        for (size_t k = 0; k < an->nchannels; k++)
            levels_row(f, &an->channels[k]);
        fputs("</tbody></table></div>\n", f);
        levels_notes(f, rp, an);
        rp_run_close(f, rp);
    }
    fputs("</section>\n", f);
}

/* ---- statistics across runs ---------------------------------------------------------------- */

/* A group of like runs for the statistics: runs of one sweep configuration, or runs given
 * directly that recorded the same command (rp_run.like). */
typedef struct {
    const char *like;
    size_t *run; /* indices into rp->run */
    size_t n;
} run_group;

/* The energies of the channels called name over the group's runs; x has room for them. */
static size_t channel_energies(const rp_report *rp, const run_group *g, const char *name,
                               double *x)
{
    size_t n = 0;
    for (size_t j = 0; j < g->n; j++) {
        const mw_analysis_run *an = rp->run[g->run[j]].an;
        for (size_t k = 0; k < an->nchannels; k++)
            if (!strcmp(an->channels[k].name, name))
                x[n++] = rp_an_joules(an->channels[k].energy_pj);
    }
    return n;
}

/* mean ± sd across runs, as mw analyze --json states them (6 decimals) */
static void td_agg(FILE *f, const mw_analysis_summary *s, const char *unit, int energy)
{
    rp_td_mean_sd(f, rp_an_round(s->mean, 6), rp_an_round(s->sd, 6), 3, unit, energy);
}

/* the group's runs as a whole: command time, its energy, the run's energy */
static void across_runs(FILE *f, const rp_report *rp, const run_group *g, size_t gi, double *x)
{
    if (gi)
        fprintf(f, "<div class=\"scroll\"><table id=\"across-runs-%zu\">\n", gi + 1);
    else
        fputs("<div class=\"scroll\"><table id=\"across-runs\">\n", f);
    static const char *const tcols[] = {"Figure", ">Runs", ">Mean \xC2\xB1 sd", ">95 % interval",
                                        NULL};
    rp_thead(f, tcols);
    fputs("<tbody>\n", f);
    const char *labels[] = {"Command time", "Energy during the command", "Energy, whole run"};
    for (int q = 0; q < 3; q++) {
        size_t n = 0;
        for (size_t j = 0; j < g->n; j++) {
            const rp_run *r = &rp->run[g->run[j]];
            double v = q == 0 ? r->cmd_s : q == 1 ? r->cmd_j : r->total_j;
            if (isfinite(v)) x[n++] = v;
        }
        fprintf(f, "<tr><td>%s</td><td class=\"n\">%zu</td>", labels[q], n);
        double mean = n ? gsl_stats_mean(x, 1, n) : NAN;
        double sd = n > 1 ? gsl_stats_sd(x, 1, n) : NAN;
        rp_td_mean_sd(f, mean, sd, 3, q == 0 ? "s" : "J", q != 0);
        rp_td_ci(f, x, n, 3, q == 0 ? "s" : "J", q != 0);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

/* per channel name: mw analyze's aggregate over the group's runs, and the energy's interval */
static void across_channels(FILE *f, const rp_report *rp, const run_group *g, size_t gi,
                            double *x)
{
    static const char *const cols[] = {
        "Channel",         ">Runs",           ">Energy",     ">95 % interval", ">Mean power",
        ">Pow_idle (KDE)", ">Pow_work (KDE)", ">Idle (GMM)", ">Work (GMM)",    NULL};
    const mw_analysis_run **runs = mw_xcalloc(g->n, sizeof *runs);
    for (size_t j = 0; j < g->n; j++)
        runs[j] = rp->run[g->run[j]].an;
    mw_analysis_aggregate agg;
    mw_analysis_aggregate_runs(runs, g->n, &agg);
    free(runs);
    if (gi)
        fprintf(f, "<div class=\"scroll\"><table id=\"across-channels-%zu\">\n", gi + 1);
    else
        fputs("<div class=\"scroll\"><table id=\"across-channels\">\n", f);
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    for (size_t k = 0; k < agg.nchannels; k++) {
        const mw_analysis_name_summary *a = &agg.channels[k];
        tr_channel(f, a->name);
        rp_td_text(f, a->name);
        rp_td_num(f, (double)a->runs, 0, "");
        td_agg(f, &a->metric[MW_ANALYSIS_ENERGY], "J", 1);
        rp_td_ci(f, x, channel_energies(rp, g, a->name, x), 3, "J", 1);
        td_agg(f, &a->metric[MW_ANALYSIS_MEAN_POWER], "W", 0);
        td_agg(f, &a->metric[MW_ANALYSIS_KDE_IDLE], "W", 0);
        td_agg(f, &a->metric[MW_ANALYSIS_KDE_WORK], "W", 0);
        td_agg(f, &a->metric[MW_ANALYSIS_GMM_IDLE], "W", 0);
        td_agg(f, &a->metric[MW_ANALYSIS_GMM_WORK], "W", 0);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    mw_analysis_aggregate_free(&agg);
}

/* the groups of like runs, in order of their first run; *ng of them */
static run_group *run_groups(const rp_report *rp, size_t *ng)
{
    run_group *g = mw_xcalloc(rp->nrun, sizeof *g);
    *ng = 0;
    for (size_t i = 0; i < rp->nrun; i++) {
        const char *like = rp->run[i].like ? rp->run[i].like : "";
        size_t k = 0;
        while (k < *ng && strcmp(g[k].like, like))
            k++;
        if (k == *ng) g[(*ng)++] = (run_group){like, mw_xcalloc(rp->nrun, sizeof(size_t)), 0};
        g[k].run[g[k].n++] = i;
    }
    return g;
}

static void section_stats(FILE *f, const rp_report *rp)
{
    fputs("<section id=\"stats\">\n<h2>Statistics across runs</h2>\n", f);
    if (rp->nrun < 2) {
        fputs("<p>One run: statistics across runs need two or more. The spread of each power "
              "level within the run is in the mixture's and the split's sd above.</p>\n"
              "</section>\n",
              f);
        return;
    }
    size_t ng;
    run_group *g = run_groups(rp, &ng);
    fprintf(f,
            "<p class=\"note\">Like with like: the runs of one sweep configuration, or runs given "
            "directly that recorded the same command, each group on its own (%zu group%s). Mean "
            "\xC2\xB1 sample sd (<code>mw analyze</code>), and the %g %% Student-t interval of the "
            "mean (<code>models/include/stats.h</code>) from three runs on.</p>\n",
            ng, ng == 1 ? "" : "s", RP_CONFIDENCE * 100);
    size_t room = rp->nrun;
    for (size_t i = 0; i < rp->nrun; i++)
        room += rp->run[i].an->nchannels;
    double *x = mw_xcalloc(room, sizeof *x);
    for (size_t k = 0; k < ng; k++) {
        if (ng > 1) {
            fputs("<h3><code>", f);
            mw_html_text(f, g[k].like[0] ? g[k].like : "(no command recorded)");
            fprintf(f, "</code>: %zu run%s</h3>\n", g[k].n, g[k].n == 1 ? "" : "s");
        }
        if (g[k].n < 2) {
            fputs("<p class=\"note\">One run: nothing to compare it with.</p>\n", f);
        } else {
            across_runs(f, rp, &g[k], k, x);
            across_channels(f, rp, &g[k], k, x);
        }
        free(g[k].run);
    }
    free(g);
    free(x);
    fputs("</section>\n", f);
}

/* ---- figures ------------------------------------------------------------------------------- */

/* The channel a per-channel figure is about: the channel of run (-1 with one run: that run)
 * whose file-name part (mw_plot_safe_name, as plot_kinds_run.c names the figure) is part;
 * else part itself. The caption then names the channel as it is, not its file name. */
static const char *fig_channel(const rp_report *rp, int run, const char *part)
{
    if (run < 0 && rp->nrun != 1) return part;
    size_t r = run < 0 ? 0 : (size_t)run;
    if (r >= rp->nrun) return part;
    char safe[MW_PLOT_NAME];
    for (size_t k = 0; k < rp->run[r].nch; k++) {
        if (!rp->run[r].ch[k].name) continue;
        mw_plot_safe_name(safe, sizeof safe, rp->run[r].ch[k].name);
        if (!strcmp(safe, part)) return rp->run[r].ch[k].name;
    }
    return part;
}

/* 1 for the timeline of a run (run -1 with one run: that run) without ranks: its lanes are
 * empty and the figure is the power trace again */
static int no_lanes(const rp_report *rp, int run, const char *kind)
{
    if (strcmp(kind, "timeline") || (run < 0 && rp->nrun != 1)) return 0;
    size_t r = run < 0 ? 0 : (size_t)run;
    return r < rp->nrun && rp->run[r].an && rp->run[r].an->nranks == 0;
}

/* The figures of one run (or run -1: over every input), a heading per kind. */
static void figure_group(FILE *f, const rp_report *rp, int run, int level)
{
    for (int k = 0; k <= (int)NKINDS; k++) {
        int kk = k == (int)NKINDS ? -1 : k;
        int any = 0;
        for (size_t i = 0; i < rp->nfig; i++) {
            const rp_fig *g = &rp->fig[i];
            if (g->run != run || kind_of(g->name) != kk) continue;
            if (!any++)
                fprintf(f, "<h%d>%s</h%d>\n", level, kk < 0 ? "Other figures" : kinds[kk].title,
                        level);
            if (kk >= 0 && no_lanes(rp, run, kinds[kk].kind)) {
                fputs("<p class=\"note\">No lanes: the program recorded no phases "
                      "(libmwprobe, <code>docs/probe.md</code>), so its timeline would only "
                      "repeat the power trace; it is left out (<code>",
                      f);
                fprintf(f, "%s/", g->sub);
                mw_html_text(f, g->name);
                fputs("</code>).</p>\n", f);
                continue;
            }
            /* src: SUB (ours: "fig" or "fig/runN") / NAME as one URL segment */
            fprintf(f, "<figure>\n<img src=\"%s/", g->sub);
            mw_html_url_segment(f, g->name);
            fprintf(f, "\" alt=\"%s: ", kk < 0 ? "Figure" : kinds[kk].title);
            mw_html_text(f, g->name);
            fputs("\">\n<figcaption>", f);
            if (kk >= 0) {
                fputs(kinds[kk].caption, f);
                /* a per-channel figure (KIND-CHANNEL.png) names its channel */
                size_t n = strlen(kinds[kk].kind);
                const char *dot = strrchr(g->name, '.');
                if (g->name[n] == '-' && dot && dot > g->name + n + 1) {
                    fputs("; channel ", f);
                    char *ch = mw_xstrdup(g->name + n + 1);
                    ch[dot - (g->name + n + 1)] = 0;
                    mw_html_text(f, fig_channel(rp, run, ch));
                    free(ch);
                }
                fputs(". ", f);
            }
            fprintf(f, "<code>%s/", g->sub);
            mw_html_text(f, g->name);
            fputs("</code></figcaption>\n</figure>\n", f);
        }
    }
}

static void section_figures(FILE *f, const rp_report *rp, int wanted)
{
    fputs("<section id=\"figures\">\n<h2>Figures</h2>\n", f);
    if (!wanted) {
        fputs("<p class=\"note\">Made without figures (<code>--no-figures</code>).</p>\n"
              "</section>\n",
              f);
        return;
    }
    fputs("<p class=\"note\">Drawn by <code>mw plot</code> (<code>docs/plots.md</code>); beside "
          "each figure in <code>fig/</code> are its data (<code>.tsv</code>) and gnuplot script "
          "(<code>.gp</code>).</p>\n",
          f);
    if (rp->fig_note[0]) {
        fputs("<p class=\"warn\">", f);
        mw_html_text(f, rp->fig_note);
        fputs("</p>\n", f);
    }
    if (rp->fig_failed)
        fputs("<p class=\"warn\">mw plot could not draw every figure (its messages were on "
              "standard error); the others are here.</p>\n",
              f);
    if (!rp->nfig) {
        fputs("<p>No figures.</p>\n</section>\n", f);
        return;
    }
    figure_group(f, rp, -1, 3);
    if (rp->nrun > RP_MAX_RUN_FIGURES)
        fprintf(f,
                "<p class=\"note\">%zu runs: no figures of each run (a report draws them for "
                "up to %d runs; <code>mw plot RUNDIR</code> draws one run's).</p>\n",
                rp->nrun, RP_MAX_RUN_FIGURES);
    for (size_t i = 0; i < rp->nrun && rp->nrun > 1; i++) {
        int any = 0;
        for (size_t k = 0; k < rp->nfig; k++)
            any |= rp->fig[k].run == (int)i;
        if (!any) continue;
        fputs("<details><summary>Figures of ", f);
        mw_html_text(f, rp->run[i].title);
        fputs("</summary>\n", f);
        figure_group(f, rp, (int)i, 4);
        fputs("</details>\n", f);
    }
    fputs("</section>\n", f);
}

/* ---- the page ------------------------------------------------------------------------------ */

void rp_write_page(FILE *f, const rp_report *rp, char *const *inputs, int ninputs, int figures,
                   int argc, char **argv)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"mw report " MW_VERSION "\">\n<title>",
          f);
    fputs("megawatt report: ", f);
    if (ninputs == 1)
        mw_html_text(f, inputs[0]);
    else
        fprintf(f, "%zu runs", rp->nrun);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>Energy report</h1>\n",
            mw_report_css);
    fputs("<p class=\"sub\">", f);
    for (int i = 0; i < ninputs; i++) {
        if (i) fputs(", ", f);
        fputs("<code>", f);
        mw_html_text(f, inputs[i]);
        fputs("</code>", f);
    }
    fprintf(f, " \xE2\x80\x94 %zu run%s", rp->nrun, rp->nrun == 1 ? "" : "s");
    if (rp->nsw) fprintf(f, " from %zu sweep%s", rp->nsw, rp->nsw == 1 ? "" : "s");
    fputs("</p>\n<nav><ul>", f);
    fputs("<li><a href=\"#findings\">Findings</a></li><li><a href=\"#summary\">Summary</a></li>",
          f);
    if (rp->nsw) fputs("<li><a href=\"#sweep\">Sweep</a></li>", f);
    fputs("<li><a href=\"#energy\">Energy</a></li><li><a href=\"#phases\">Phases</a></li>"
          "<li><a href=\"#levels\">Power levels</a></li><li><a href=\"#stats\">Statistics</a>"
          "</li>",
          f);
    if (rp_has_inband(rp)) fputs("<li><a href=\"#inband\">In-band</a></li>", f);
    if (rp->nescobar) fputs("<li><a href=\"#model\">Model</a></li>", f);
    fputs("<li><a href=\"#figures\">Figures</a></li><li><a href=\"#metadata\">Metadata</a></li>"
          "</ul></nav>\n</header>\n<main>\n",
          f);
    rp_section_findings(f, rp);
    section_summary(f, rp);
    rp_section_sweep(f, rp);
    section_energy(f, rp);
    section_phases(f, rp);
    section_levels(f, rp);
    rp_section_inband(f, rp);
    section_stats(f, rp);
    rp_section_model(f, rp);
    section_figures(f, rp, figures);
    rp_section_meta(f, rp);
    rp_references(f);
    fputs("</main>\n<footer>\n<p>Made by <code>", f);
    for (int i = 0; i < argc; i++) {
        if (i) fputc(' ', f);
        mw_html_text(f, i == 0 ? "mw report" : argv[i]);
    }
    char b[64];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    fprintf(f,
            "</code> (mw " MW_VERSION ", " MW_GIT_ID ") on %s.</p>\n</footer>\n</body>\n</html>\n",
            mw_html_utc(b, sizeof b, (long long)now.tv_sec * 1000000000LL + now.tv_nsec));
}
