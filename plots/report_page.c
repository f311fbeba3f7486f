/* report_page — the HTML page of `mw report` (docs/report.md), written from what cmd_report.c
 * gathered (report_internal.h): summary, sweep, energy per channel and phase, power levels,
 * statistics across runs, the model, the figures and the metadata, in that order.
 *
 * Every string from outside goes through mw_html_text (report_html.h); numbers are
 * formatted with their units by mw_html_num/energy/seconds, a missing one as an en dash.
 * Tables that tests read carry ids (energy-N, levels-N, across-channels, sweep-N-runs, ...)
 * and a data-channel attribute on per-channel rows, one row a line. Statistics the report
 * adds (Student-t intervals, Kruskal-Wallis, Mann-Whitney) come from models/stats.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_statistics_double.h>

#include "report_css.h"
#include "mw_alloc.h"
#include "report_html.h"
#include "mw_report.h"
#include "stats.h"

#define RP_CONFIDENCE 0.95

/* ---- JSON access ------------------------------------------------------------------- */

json_object *rp_jget(json_object *o, const char *k)
{
    json_object *v = NULL;
    if (o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, k, &v))
        return v;
    return NULL;
}

/* A number, or NaN for null / missing. */
double rp_jnum(json_object *o, const char *k)
{
    json_object *v = rp_jget(o, k);
    if (v && (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
        return json_object_get_double(v);
    return NAN;
}

const char *rp_jstr(json_object *o, const char *k)
{
    json_object *v = rp_jget(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* 1 true, 0 false, -1 null or missing */
int rp_jbool(json_object *o, const char *k)
{
    json_object *v = rp_jget(o, k);
    if (!v || !json_object_is_type(v, json_type_boolean)) return -1;
    return json_object_get_boolean(v) ? 1 : 0;
}

size_t rp_jlen(json_object *a)
{
    return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

json_object *rp_jat(json_object *a, size_t i)
{
    return i < rp_jlen(a) ? json_object_array_get_idx(a, i) : NULL;
}

/* ---- metadata ------------------------------------------------------------------------ */

static const char *meta(const rp_run *r, const char *key)
{
    for (size_t i = 0; i < r->nmeta; i++)
        if (!strcmp(r->key[i], key)) return r->val[i];
    return NULL;
}

static int meta_ll(const rp_run *r, const char *key, long long *v)
{
    const char *s = meta(r, key);
    if (!s || !s[0]) return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || *end) return -1;
    *v = x;
    return 0;
}

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

/* ---- HTML: cells and tables ----------------------------------------------------------- */

static void td_text(FILE *f, const char *s)
{
    fputs("<td>", f);
    if (s && s[0])
        mw_html_text(f, s);
    else
        fputs("\xE2\x80\x93", f);
    fputs("</td>", f);
}

static void td_code(FILE *f, const char *s)
{
    fputs("<td><code>", f);
    mw_html_text(f, s);
    fputs("</code></td>", f);
}

/* a number cell; the text is ours (numbers and units) */
static void td_n(FILE *f, const char *s)
{
    fprintf(f, "<td class=\"n\">%s</td>", s);
}

static void td_num(FILE *f, double v, int decimals, const char *unit)
{
    char b[64];
    td_n(f, mw_html_num(b, sizeof b, v, decimals, unit));
}

static void td_energy(FILE *f, double j)
{
    char b[64];
    td_n(f, mw_html_energy(b, sizeof b, j));
}

static void td_seconds(FILE *f, double s)
{
    char b[64];
    td_n(f, mw_html_seconds(b, sizeof b, s));
}

/* mean ± sd with a unit; energy in J/kJ by mw_html_energy */
static void td_mean_sd(FILE *f, double mean, double sd, int decimals, const char *unit, int energy)
{
    char a[64], b[64];
    if (energy)
        mw_html_energy(a, sizeof a, mean);
    else
        mw_html_num(a, sizeof a, mean, decimals, unit);
    if (!isfinite(sd)) {
        td_n(f, a);
        return;
    }
    if (energy)
        mw_html_energy(b, sizeof b, sd);
    else
        mw_html_num(b, sizeof b, sd, decimals, unit);
    fprintf(f, "<td class=\"n\">%s \xC2\xB1 %s</td>", a, b);
}

static void td_ci(FILE *f, const double *x, size_t n, int decimals, const char *unit, int energy)
{
    double mean, lo, hi;
    if (n < 2 || mw_stats_mean_ci(x, n, RP_CONFIDENCE, &mean, &lo, &hi) != 0) {
        td_n(f, "\xE2\x80\x93");
        return;
    }
    char a[64], b[64];
    if (energy) {
        mw_html_energy(a, sizeof a, lo);
        mw_html_energy(b, sizeof b, hi);
    } else {
        mw_html_num(a, sizeof a, lo, decimals, unit);
        mw_html_num(b, sizeof b, hi, decimals, unit);
    }
    fprintf(f, "<td class=\"n\">[%s, %s]</td>", a, b);
}

static void kv_row(FILE *f, const char *label, const char *value, int code)
{
    if (!value || !value[0]) return;
    fprintf(f, "<tr><th scope=\"row\">%s</th>", label);
    if (code)
        td_code(f, value);
    else
        td_text(f, value);
    fputs("</tr>\n", f);
}

static void thead(FILE *f, const char *const *cols)
{
    fputs("<thead><tr>", f);
    for (int i = 0; cols[i]; i++)
        fprintf(f, "<th%s>%s</th>", cols[i][0] == '>' ? " class=\"n\"" : "",
                cols[i][0] == '>' ? cols[i] + 1 : cols[i]);
    fputs("</tr></thead>\n", f);
}

/* A run's block: open <details> for several runs (closed beyond three), nothing for one. */
static void run_open(FILE *f, const rp_report *rp, size_t i)
{
    if (rp->nrun == 1) return;
    fprintf(f, "<details%s><summary>", rp->nrun <= 3 ? " open" : "");
    mw_html_text(f, rp->run[i].title);
    fputs("</summary>\n", f);
}

static void run_close(FILE *f, const rp_report *rp)
{
    if (rp->nrun > 1) fputs("</details>\n", f);
}

/* ---- HTML: sections ------------------------------------------------------------------ */

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
    thead(f, cols);
    fputs("<tbody>\n", f);
    for (size_t i = 0; i < rp->nrun; i++) {
        const rp_run *r = &rp->run[i];
        fputs("<tr>", f);
        td_code(f, r->title);
        td_text(f, rp_jstr(r->an, "status"));
        char b[64];
        long long t;
        td_text(f, meta_ll(r, "start_ns", &t) == 0 ? mw_html_utc(b, sizeof b, t) : NULL);
        td_seconds(f, r->duration_s);
        td_seconds(f, r->cmd_s);
        td_energy(f, r->cmd_j);
        td_num(f, r->cmd_s > 0 ? r->cmd_j / r->cmd_s : NAN, 3, "W");
        td_energy(f, r->total_j);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n</section>\n", f);
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
    for (size_t i = 0; i < rp->nrun; i++) {
        const rp_run *r = &rp->run[i];
        run_open(f, rp, i);
        fprintf(f, "<div class=\"scroll\"><table id=\"energy-%zu\">\n", i + 1);
        thead(f, cols);
        fputs("<tbody>\n", f);
        json_object *ch = rp_jget(r->an, "channels");
        for (size_t k = 0; k < rp_jlen(ch); k++) {
            json_object *c = rp_jat(ch, k);
            fputs("<tr data-channel=\"", f);
            mw_html_text(f, rp_jstr(c, "name"));
            fputs("\">", f);
            td_text(f, rp_jstr(c, "name"));
            td_text(f, rp_jstr(c, "host"));
            td_num(f, rp_jnum(c, "windows"), 0, "");
            td_seconds(f, rp_jnum(c, "covered_s"));
            td_energy(f, rp_jnum(c, "energy_j"));
            td_energy(f, rp_jnum(c, "meter_energy_j"));
            td_num(f, rp_jnum(c, "meter_difference_pct"), 4, "%");
            td_num(f, rp_jnum(c, "mean_power_w"), 3, "W");
            td_num(f, rp_jnum(c, "idle_power_w"), 3, "W");
            td_energy(f, rp_jnum(c, "dynamic_energy_j"));
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table></div>\n", f);
        run_close(f, rp);
    }
    fputs("</section>\n", f);
}

static void section_phases(FILE *f, const rp_report *rp)
{
    fputs("<section id=\"phases\">\n<h2>Energy per phase</h2>\n", f);
    fputs("<p class=\"note\">A phase group is one (kind, name); on a channel it is the union "
          "of its intervals over the ranks that channel measures, so overlapping intervals "
          "count once. Kind <code>mw</code>: the recorder's idle baseline and command.</p>\n",
          f);
    static const char *const cols[] = {
        "Kind",    "Phase",       ">Intervals",      ">Duration", "Channel", ">On the channel",
        ">Energy", ">Mean power", ">Dynamic energy", NULL};
    static const char *const rcols[] = {
        "Rank",      "Host",    "Channels",      ">Start",
        ">Duration", ">Energy", ">Working time", ">Energy while working",
        NULL};
    for (size_t i = 0; i < rp->nrun; i++) {
        const rp_run *r = &rp->run[i];
        run_open(f, rp, i);
        json_object *ph = rp_jget(r->an, "phases");
        if (!rp_jlen(ph)) {
            fputs("<p>No phases recorded.</p>\n", f);
        } else {
            fprintf(f, "<div class=\"scroll\"><table id=\"phases-%zu\">\n", i + 1);
            thead(f, cols);
            fputs("<tbody>\n", f);
            for (size_t k = 0; k < rp_jlen(ph); k++) {
                json_object *p = rp_jat(ph, k);
                json_object *pc = rp_jget(p, "channels");
                size_t nc = rp_jlen(pc) ? rp_jlen(pc) : 1;
                for (size_t c = 0; c < nc; c++) {
                    json_object *x = rp_jat(pc, c);
                    fputs("<tr>", f);
                    if (c == 0) {
                        td_text(f, rp_jstr(p, "kind"));
                        td_text(f, rp_jstr(p, "name"));
                        td_num(f, rp_jnum(p, "intervals"), 0, "");
                        td_seconds(f, rp_jnum(p, "duration_s"));
                    } else {
                        fputs("<td></td><td></td><td></td><td></td>", f);
                    }
                    td_text(f, rp_jstr(x, "name"));
                    td_seconds(f, rp_jnum(x, "duration_s"));
                    td_energy(f, rp_jnum(x, "energy_j"));
                    td_num(f, rp_jnum(x, "mean_power_w"), 3, "W");
                    td_energy(f, rp_jnum(x, "dynamic_energy_j"));
                    fputs("</tr>\n", f);
                }
            }
            fputs("</tbody></table></div>\n", f);
        }
        json_object *rk = rp_jget(r->an, "ranks");
        if (rp_jlen(rk)) {
            fputs("<h3>Ranks</h3>\n<div class=\"scroll\"><table>\n", f);
            thead(f, rcols);
            fputs("<tbody>\n", f);
            for (size_t k = 0; k < rp_jlen(rk); k++) {
                json_object *x = rp_jat(rk, k);
                fputs("<tr>", f);
                td_num(f, rp_jnum(x, "rank"), 0, "");
                td_text(f, rp_jstr(x, "host"));
                json_object *chs = rp_jget(x, "channels");
                fputs("<td>", f);
                for (size_t c = 0; c < rp_jlen(chs); c++) {
                    if (c) fputs(", ", f);
                    mw_html_text(f, json_object_get_string(rp_jat(chs, c)));
                }
                fputs("</td>", f);
                td_seconds(f, rp_jnum(x, "start_s"));
                td_seconds(f, rp_jnum(x, "duration_s"));
                td_energy(f, rp_jnum(x, "energy_j"));
                td_seconds(f, rp_jnum(x, "work_s"));
                td_energy(f, rp_jnum(x, "work_energy_j"));
                fputs("</tr>\n", f);
            }
            fputs("</tbody></table></div>\n", f);
        }
        run_close(f, rp);
    }
    fputs("</section>\n", f);
}

static void td_level(FILE *f, json_object *est, const char *key, const char *sdkey)
{
    td_mean_sd(f, rp_jnum(est, key), sdkey ? rp_jnum(est, sdkey) : NAN, 3, "W", 0);
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
        const rp_run *r = &rp->run[i];
        run_open(f, rp, i);
        fprintf(f, "<div class=\"scroll\"><table id=\"levels-%zu\">\n", i + 1);
        thead(f, cols);
        fputs("<tbody>\n", f);
        json_object *ch = rp_jget(r->an, "channels");
        for (size_t k = 0; k < rp_jlen(ch); k++) {
            json_object *c = rp_jat(ch, k);
            json_object *gmm = rp_jget(c, "gmm"), *split = rp_jget(c, "split");
            fputs("<tr data-channel=\"", f);
            mw_html_text(f, rp_jstr(c, "name"));
            fputs("\">", f);
            td_text(f, rp_jstr(c, "name"));
            td_num(f, rp_jnum(c, "pow_idle_w"), 3, "W");
            td_num(f, rp_jnum(c, "pow_work_w"), 3, "W");
            int b = rp_jbool(c, "bimodal");
            td_text(f, b < 0 ? NULL : b ? "yes" : "no");
            td_level(f, gmm, "pow_idle_w", "idle_sd_w");
            td_level(f, gmm, "pow_work_w", "work_sd_w");
            td_level(f, split, "pow_idle_w", "idle_sd_w");
            td_level(f, split, "pow_work_w", "work_sd_w");
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table></div>\n", f);
        /* the estimators' notes: why one level, or why no estimate */
        int any = 0;
        for (size_t k = 0; k < rp_jlen(ch); k++) {
            json_object *c = rp_jat(ch, k);
            json_object *split = rp_jget(c, "split");
            const char *notes[] = {rp_jstr(rp_jget(c, "kde"), "note"),
                                   rp_jstr(rp_jget(c, "gmm"), "note"),
                                   split ? rp_jstr(split, "note") : "no working phases"};
            const char *who[] = {"KDE", "GMM", "split"};
            for (int n = 0; n < 3; n++) {
                if (!notes[n]) continue;
                fputs(any++ ? "<li>" : "<ul class=\"note\">\n<li>", f);
                mw_html_text(f, rp_jstr(c, "name"));
                fprintf(f, ", %s: ", who[n]);
                mw_html_text(f, notes[n]);
                fputs("</li>\n", f);
            }
        }
        if (any) fputs("</ul>\n", f);
        run_close(f, rp);
    }
    fputs("</section>\n", f);
}

/* Per-run values of one channel's figure, for the intervals across runs. */
static size_t channel_values(const rp_report *rp, const char *name, const char *key, double *x)
{
    size_t n = 0;
    for (size_t i = 0; i < rp->nrun; i++) {
        json_object *ch = rp_jget(rp->run[i].an, "channels");
        for (size_t k = 0; k < rp_jlen(ch); k++) {
            json_object *c = rp_jat(ch, k);
            const char *cn = rp_jstr(c, "name");
            if (!cn || strcmp(cn, name)) continue;
            double v = rp_jnum(c, key);
            if (isfinite(v)) x[n++] = v;
        }
    }
    return n;
}

static void td_agg(FILE *f, json_object *agg, const char *key, int decimals, const char *unit,
                   int energy)
{
    json_object *a = rp_jget(agg, key);
    td_mean_sd(f, rp_jnum(a, "mean"), rp_jnum(a, "sd"), decimals, unit, energy);
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
    fprintf(f,
            "<p class=\"note\">Over the %zu runs: mean \xC2\xB1 sample sd (<code>mw analyze"
            "</code>), and the %g %% Student-t interval of the mean (<code>models/stats.h"
            "</code>).</p>\n",
            rp->nrun, RP_CONFIDENCE * 100);
    double *x = mw_xcalloc(rp->nrun, sizeof *x);
    size_t n = 0;
    /* the runs as a whole */
    fputs("<div class=\"scroll\"><table id=\"across-runs\">\n", f);
    static const char *const tcols[] = {"Figure", ">Runs", ">Mean \xC2\xB1 sd", ">95 % interval",
                                        NULL};
    thead(f, tcols);
    fputs("<tbody>\n", f);
    const char *labels[] = {"Command time", "Energy during the command", "Energy, whole run"};
    for (int q = 0; q < 3; q++) {
        n = 0;
        for (size_t i = 0; i < rp->nrun; i++) {
            const rp_run *r = &rp->run[i];
            double v = q == 0 ? r->cmd_s : q == 1 ? r->cmd_j : r->total_j;
            if (isfinite(v)) x[n++] = v;
        }
        fprintf(f, "<tr><td>%s</td><td class=\"n\">%zu</td>", labels[q], n);
        double mean = n ? gsl_stats_mean(x, 1, n) : NAN;
        double sd = n > 1 ? gsl_stats_sd(x, 1, n) : NAN;
        if (q == 0) {
            char a[64], b[64];
            if (isfinite(sd))
                fprintf(f, "<td class=\"n\">%s \xC2\xB1 %s</td>",
                        mw_html_num(a, sizeof a, mean, 3, "s"),
                        mw_html_num(b, sizeof b, sd, 3, "s"));
            else
                td_num(f, mean, 3, "s");
        } else {
            td_mean_sd(f, mean, sd, 3, "J", 1);
        }
        td_ci(f, x, n, 3, q == 0 ? "s" : "J", q != 0);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    /* per channel */
    static const char *const cols[] = {
        "Channel",         ">Runs",           ">Energy",     ">95 % interval", ">Mean power",
        ">Pow_idle (KDE)", ">Pow_work (KDE)", ">Idle (GMM)", ">Work (GMM)",    NULL};
    fputs("<h3>Per channel</h3>\n<div class=\"scroll\"><table id=\"across-channels\">\n", f);
    thead(f, cols);
    fputs("<tbody>\n", f);
    json_object *agg = rp_jget(rp_jget(rp->analysis, "aggregate"), "channels");
    for (size_t k = 0; k < rp_jlen(agg); k++) {
        json_object *a = rp_jat(agg, k);
        const char *name = rp_jstr(a, "name");
        if (!name) continue;
        fputs("<tr data-channel=\"", f);
        mw_html_text(f, name);
        fputs("\">", f);
        td_text(f, name);
        td_num(f, rp_jnum(a, "runs"), 0, "");
        td_agg(f, a, "energy_j", 3, "J", 1);
        n = channel_values(rp, name, "energy_j", x);
        td_ci(f, x, n, 3, "J", 1);
        td_agg(f, a, "mean_power_w", 3, "W", 0);
        td_agg(f, a, "pow_idle_w", 3, "W", 0);
        td_agg(f, a, "pow_work_w", 3, "W", 0);
        td_agg(f, rp_jget(a, "gmm"), "pow_idle_w", 3, "W", 0);
        td_agg(f, rp_jget(a, "gmm"), "pow_work_w", 3, "W", 0);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    free(x);
    fputs("</section>\n", f);
}

/* One configuration of a sweep: its index runs [first, first + n). */
typedef struct {
    size_t first, n;
} rp_config;

static size_t sweep_configs(const rp_sweep *s, rp_config **out)
{
    size_t nr = mw_sweepidx_nruns(s->x), nc = 0;
    rp_config *c = mw_xcalloc(nr, sizeof *c);
    for (size_t k = 0; k < nr; k++) {
        const char *l = mw_sweepidx_run_label(s->x, k);
        if (nc && !strcmp(l, mw_sweepidx_run_label(s->x, c[nc - 1].first))) {
            c[nc - 1].n++;
        } else {
            c[nc].first = k;
            c[nc].n = 1;
            nc++;
        }
    }
    *out = c;
    return nc;
}

static void test_row(FILE *f, const char *what, const char *test, int ok, const mw_test *t,
                     const char *stat)
{
    fprintf(f, "<tr><td>%s</td><td>%s</td>", what, test);
    if (!ok) {
        fputs("<td class=\"n\">\xE2\x80\x93</td><td class=\"n\">\xE2\x80\x93</td></tr>\n", f);
        return;
    }
    char b[64];
    fprintf(f, "<td class=\"n\">%s = %s</td>", stat, mw_html_num(b, sizeof b, t->statistic, 3, ""));
    fprintf(f, "<td class=\"n\">%s%s</td></tr>\n", mw_html_num(b, sizeof b, t->p, 4, ""),
            t->exact ? " (exact)" : "");
}

static void section_sweep(FILE *f, const rp_report *rp)
{
    if (!rp->nsw) return;
    fputs("<section id=\"sweep\">\n<h2>Sweep</h2>\n", f);
    fputs("<p class=\"note\">Per run: the command time and the energy of every channel during "
          "it. Per configuration: mean \xC2\xB1 sample sd and the 95 % Student-t interval of "
          "the mean over its finished runs; across configurations, Kruskal\xE2\x80\x93Wallis "
          "(two or more) and Mann\xE2\x80\x93Whitney (two) on the per-run values "
          "(<code>models/stats.h</code>).</p>\n",
          f);
    for (size_t si = 0; si < rp->nsw; si++) {
        const rp_sweep *s = &rp->sw[si];
        const mw_sweepidx *x = s->x;
        fputs("<h3><code>", f);
        mw_html_text(f, s->dir);
        fputs("</code></h3>\n", f);
        rp_config *cf;
        size_t nc = sweep_configs(s, &cf);
        int maxrep = 0;
        for (size_t k = 0; k < mw_sweepidx_nruns(x); k++)
            if (mw_sweepidx_run_rep(x, k) > maxrep) maxrep = mw_sweepidx_run_rep(x, k);
        size_t np = mw_sweepidx_nparams(x);
        /* configurations x repetitions */
        fprintf(f, "<div class=\"scroll\"><table id=\"sweep-%zu-runs\">\n<thead><tr>", si + 1);
        fputs("<th>Configuration</th>", f);
        for (size_t p = 0; p < np; p++) {
            fputs("<th>", f);
            mw_html_text(f, mw_sweepidx_param_name(x, p));
            fputs("</th>", f);
        }
        for (int rep = 1; rep <= maxrep; rep++)
            fprintf(f, "<th class=\"n\">Run %d: time, energy</th>", rep);
        fputs("</tr></thead>\n<tbody>\n", f);
        for (size_t c = 0; c < nc; c++) {
            size_t k0 = cf[c].first;
            fputs("<tr>", f);
            td_code(f, mw_sweepidx_run_label(x, k0));
            for (size_t p = 0; p < np; p++)
                td_text(f, mw_sweepidx_run_param(x, k0, mw_sweepidx_param_name(x, p)));
            for (int rep = 1; rep <= maxrep; rep++) {
                size_t k = k0;
                while (k < k0 + cf[c].n && mw_sweepidx_run_rep(x, k) != rep)
                    k++;
                if (k == k0 + cf[c].n) {
                    fputs("<td></td>", f);
                    continue;
                }
                int ri = s->run_of[k];
                if (ri < 0) {
                    fputs("<td class=\"n note\">", f);
                    mw_html_text(f, mw_sweepidx_run_status(x, k));
                    fputs("</td>", f);
                    continue;
                }
                const rp_run *r = &rp->run[ri];
                char a[64], b[64];
                fprintf(f, "<td class=\"n\">%s<br>%s</td>", mw_html_seconds(a, sizeof a, r->cmd_s),
                        mw_html_energy(b, sizeof b, r->cmd_j));
            }
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table></div>\n", f);
        /* per configuration */
        double **tv = mw_xcalloc(nc, sizeof *tv), **ev = mw_xcalloc(nc, sizeof *ev);
        size_t *tn = mw_xcalloc(nc, sizeof *tn), *en = mw_xcalloc(nc, sizeof *en);
        fprintf(f, "<div class=\"scroll\"><table id=\"sweep-%zu-configs\">\n", si + 1);
        static const char *const cols[] = {"Configuration",
                                           ">Finished runs",
                                           ">Command time",
                                           ">95 % interval",
                                           ">Energy",
                                           ">95 % interval",
                                           NULL};
        thead(f, cols);
        fputs("<tbody>\n", f);
        for (size_t c = 0; c < nc; c++) {
            tv[c] = mw_xcalloc(cf[c].n, sizeof **tv);
            ev[c] = mw_xcalloc(cf[c].n, sizeof **ev);
            for (size_t k = cf[c].first; k < cf[c].first + cf[c].n; k++) {
                if (s->run_of[k] < 0) continue;
                const rp_run *r = &rp->run[s->run_of[k]];
                if (isfinite(r->cmd_s)) tv[c][tn[c]++] = r->cmd_s;
                if (isfinite(r->cmd_j)) ev[c][en[c]++] = r->cmd_j;
            }
            fputs("<tr>", f);
            td_code(f, mw_sweepidx_run_label(x, cf[c].first));
            fprintf(f, "<td class=\"n\">%zu of %zu</td>", tn[c], cf[c].n);
            double m = tn[c] ? gsl_stats_mean(tv[c], 1, tn[c]) : NAN;
            double sd = tn[c] > 1 ? gsl_stats_sd(tv[c], 1, tn[c]) : NAN;
            td_mean_sd(f, m, sd, 3, "s", 0);
            td_ci(f, tv[c], tn[c], 3, "s", 0);
            m = en[c] ? gsl_stats_mean(ev[c], 1, en[c]) : NAN;
            sd = en[c] > 1 ? gsl_stats_sd(ev[c], 1, en[c]) : NAN;
            td_mean_sd(f, m, sd, 3, "J", 1);
            td_ci(f, ev[c], en[c], 3, "J", 1);
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table></div>\n", f);
        /* tests across configurations (those with values) */
        const double **g = mw_xcalloc(nc, sizeof *g);
        size_t *gn = mw_xcalloc(nc, sizeof *gn);
        fputs("<div class=\"scroll\"><table>\n", f);
        static const char *const tcols[] = {"Figure", "Test", ">Statistic", ">p", NULL};
        thead(f, tcols);
        fputs("<tbody>\n", f);
        for (int q = 0; q < 2; q++) {
            size_t k = 0;
            for (size_t c = 0; c < nc; c++) {
                size_t n = q ? en[c] : tn[c];
                if (!n) continue;
                g[k] = q ? ev[c] : tv[c];
                gn[k++] = n;
            }
            const char *what = q ? "Energy" : "Command time";
            mw_test t;
            int ok = k >= 2 && mw_stats_kruskal_wallis(g, gn, k, &t) == 0;
            test_row(f, what, "Kruskal\xE2\x80\x93Wallis", ok, &t, "H");
            if (k == 2) {
                ok = mw_stats_mann_whitney(g[0], gn[0], g[1], gn[1], &t) == 0;
                test_row(f, what, "Mann\xE2\x80\x93Whitney", ok, &t, "U");
            }
        }
        fputs("</tbody></table></div>\n", f);
        free(g);
        free(gn);
        for (size_t c = 0; c < nc; c++) {
            free(tv[c]);
            free(ev[c]);
        }
        free(tv);
        free(ev);
        free(tn);
        free(en);
        free(cf);
    }
    fputs("</section>\n", f);
}

static void section_model(FILE *f, const rp_report *rp)
{
    if (!rp->nescobar) return;
    fputs("<section id=\"model\">\n<h2>Model: runtime and energy (seed 000)</h2>\n", f);
    fprintf(f,
            "<p class=\"note\">The Escobar et al. model (eq. 3\xE2\x80\x93"
            "9) against the %zu "
            "eeg-mofs run%s: <code>mw fit --model escobar</code>, parameters from each run's own "
            "phases and powers (predict mode); NRMSE = 1 \xE2\x88\x92 \xE2\x80\x96y \xE2\x88\x92 "
            "\xC5\xB7\xE2\x80\x96 / \xE2\x80\x96y \xE2\x88\x92 \xC8\xB3\xE2\x80\x96 (1 perfect; "
            "undefined with one run). <code>docs/models.md</code> describes it.</p>\n",
            rp->nescobar, rp->nescobar == 1 ? "" : "s");
    for (size_t i = 0; i < rp->nrun; i++)
        if (!rp->run[i].escobar) {
            fputs("<p class=\"note\">Left out: <code>", f);
            mw_html_text(f, rp->run[i].title);
            fputs("</code>: ", f);
            mw_html_text(f, rp->run[i].escobar_err);
            fputs("</p>\n", f);
        }
    if (!rp->fit) {
        fputs("<p class=\"warn\">No prediction: ", f);
        mw_html_text(f, rp->fit_note);
        fputs("</p>\n</section>\n", f);
        return;
    }
    static const char *const cols[] = {"Run",
                                       ">Version",
                                       ">N_Spop",
                                       ">Rounds",
                                       ">Time measured",
                                       ">Time predicted",
                                       ">Energy measured",
                                       ">Energy predicted",
                                       NULL};
    fputs("<div class=\"scroll\"><table id=\"model-runs\">\n", f);
    thead(f, cols);
    fputs("<tbody>\n", f);
    json_object *runs = rp_jget(rp->fit, "runs");
    for (size_t k = 0; k < rp_jlen(runs); k++) {
        json_object *r = rp_jat(runs, k);
        fputs("<tr>", f);
        td_code(f, rp_jstr(r, "run"));
        td_num(f, rp_jnum(r, "version"), 0, "");
        td_num(f, rp_jnum(r, "n_spop"), 0, "");
        td_num(f, rp_jnum(r, "rounds"), 0, "");
        td_seconds(f, rp_jnum(rp_jget(r, "time_s"), "measured"));
        td_seconds(f, rp_jnum(rp_jget(r, "time_s"), "predicted"));
        td_energy(f, rp_jnum(rp_jget(r, "energy_j"), "measured"));
        td_energy(f, rp_jnum(rp_jget(r, "energy_j"), "predicted"));
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    json_object *nr = rp_jget(rp->fit, "nrmse");
    if (rp_jlen(nr)) {
        static const char *const ncols[] = {
            ">Version",      ">Runs",           ">NRMSE time", ">Paper (time)",
            ">NRMSE energy", ">Paper (energy)", NULL};
        fputs("<div class=\"scroll\"><table id=\"model-nrmse\">\n", f);
        thead(f, ncols);
        fputs("<tbody>\n", f);
        for (size_t k = 0; k < rp_jlen(nr); k++) {
            json_object *g = rp_jat(nr, k);
            fputs("<tr>", f);
            td_num(f, rp_jnum(g, "version"), 0, "");
            td_num(f, rp_jnum(g, "runs"), 0, "");
            td_num(f, rp_jnum(g, "time"), 3, "");
            td_num(f, rp_jnum(g, "paper_time"), 3, "");
            td_num(f, rp_jnum(g, "energy"), 3, "");
            td_num(f, rp_jnum(g, "paper_energy"), 3, "");
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table></div>\n", f);
    }
    fputs("<h3>Fitted time parameters</h3>\n", f);
    json_object *fits = rp_jget(rp->fit_mode, "fit");
    if (!rp_jlen(fits)) {
        fputs("<p class=\"note\">No least-squares fit: ", f);
        mw_html_text(f, rp->fit_mode_note[0] ? rp->fit_mode_note : "mw fit fitted nothing");
        fputs("</p>\n", f);
    }
    for (size_t k = 0; k < rp_jlen(fits); k++) {
        json_object *g = rp_jat(fits, k);
        char b[64];
        fprintf(
            f, "<p>Version %d: %d runs, %d degrees of freedom, residual sum of squares %s%s.</p>\n",
            (int)rp_jnum(g, "version"), (int)rp_jnum(g, "runs"), (int)rp_jnum(g, "dof"),
            mw_html_num(b, sizeof b, rp_jnum(g, "rss_s2"), 6, "s\xC2\xB2"),
            rp_jbool(g, "converged") == 0 ? " (stopped at the iteration limit)" : "");
        static const char *const pcols[] = {"Parameter", ">Value", ">Standard error",
                                            ">95 % interval", NULL};
        fputs("<div class=\"scroll\"><table>\n", f);
        thead(f, pcols);
        fputs("<tbody>\n", f);
        json_object *ps = rp_jget(g, "parameters");
        for (size_t p = 0; p < rp_jlen(ps); p++) {
            json_object *x = rp_jat(ps, p);
            fputs("<tr>", f);
            td_code(f, rp_jstr(x, "name"));
            td_num(f, rp_jnum(x, "value"), 9, "s");
            td_num(f, rp_jnum(x, "se"), 9, "s");
            json_object *ci = rp_jget(x, "ci");
            if (rp_jlen(ci) == 2) {
                char a[64], c2[64];
                fprintf(f, "<td class=\"n\">[%s, %s]</td>",
                        mw_html_num(a, sizeof a, json_object_get_double(rp_jat(ci, 0)), 9, "s"),
                        mw_html_num(c2, sizeof c2, json_object_get_double(rp_jat(ci, 1)), 9, "s"));
            } else {
                td_n(f, "\xE2\x80\x93");
            }
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table></div>\n", f);
    }
    fputs("</section>\n", f);
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
                    mw_html_text(f, ch);
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

static void section_meta(FILE *f, const rp_report *rp)
{
    fputs("<section id=\"metadata\">\n<h2>Run metadata</h2>\n", f);
    for (size_t i = 0; i < rp->nrun; i++) {
        const rp_run *r = &rp->run[i];
        run_open(f, rp, i);
        fprintf(f, "<div class=\"scroll\"><table class=\"kv\" id=\"meta-%zu\"><tbody>\n", i + 1);
        kv_row(f, "Run directory", r->dir, 1);
        kv_row(f, "Command", meta(r, "command"), 1);
        kv_row(f, "Recorded with", meta(r, "record_command"), 1);
        kv_row(f, "Status", meta(r, "status"), 0);
        kv_row(f, "Exit status", meta(r, "exit_status"), 0);
        char b[128], b2[64];
        long long t0, t1;
        if (meta_ll(r, "start_ns", &t0) == 0) kv_row(f, "Start", mw_html_utc(b, sizeof b, t0), 0);
        if (meta_ll(r, "end_ns", &t1) == 0) kv_row(f, "End", mw_html_utc(b, sizeof b, t1), 0);
        if (meta_ll(r, "start_ns", &t0) == 0 && meta_ll(r, "end_ns", &t1) == 0)
            kv_row(f, "Duration", mw_html_seconds(b, sizeof b, (double)(t1 - t0) / 1e9), 0);
        if (meta_ll(r, "cmd_start_ns", &t0) == 0 && meta_ll(r, "cmd_end_ns", &t1) == 0)
            kv_row(f, "Command duration", mw_html_seconds(b, sizeof b, (double)(t1 - t0) / 1e9), 0);
        if (meta(r, "idle_s")) {
            snprintf(b, sizeof b, "%s s before and after the command", meta(r, "idle_s"));
            kv_row(f, "Idle baseline", b, 0);
        }
        kv_row(f, "Host", meta(r, "hostname"), 0);
        kv_row(f, "Kernel", meta(r, "kernel"), 0);
        kv_row(f, "CPU", meta(r, "cpu_model"), 0);
        kv_row(f, "CPU governor", meta(r, "cpu_governor"), 0);
        kv_row(f, "MPI", meta(r, "mpi"), 0);
        if (meta(r, "mw_version")) {
            snprintf(b, sizeof b, "%s%s%s", meta(r, "mw_version"), meta(r, "mw_git_id") ? " " : "",
                     meta(r, "mw_git_id") ? meta(r, "mw_git_id") : "");
            kv_row(f, "mw", b, 0);
        }
        kv_row(f, "Meter port", meta(r, "meter_port"), 1);
        kv_row(f, "Meter USB", meta(r, "meter_usb"), 0);
        if (meta(r, "meter_firmware")) {
            snprintf(b, sizeof b, "%s%s%s", meta(r, "meter_firmware"),
                     meta(r, "meter_build") ? ", build " : "",
                     meta(r, "meter_build") ? meta(r, "meter_build") : "");
            kv_row(f, "Firmware", b, 0);
        }
        if (meta(r, "meter_rate_hz")) {
            snprintf(b, sizeof b, "%s windows/s", meta(r, "meter_rate_hz"));
            kv_row(f, "Window rate", b, 0);
        }
        if (meta(r, "meter_cal_source")) {
            snprintf(b, sizeof b, "%s%s%s%s%s", meta(r, "meter_cal_source"),
                     meta(r, "meter_calibration_date") ? ", " : "",
                     meta(r, "meter_calibration_date") ? meta(r, "meter_calibration_date") : "",
                     meta(r, "meter_calibration_ref") ? ", references " : "",
                     meta(r, "meter_calibration_ref") ? meta(r, "meter_calibration_ref") : "");
            kv_row(f, "Calibration", b, 0);
        }
        kv_row(f, "Channel names from", meta(r, "channels_from"), 0);
        if (meta(r, "meter_bad_crc_lines")) {
            snprintf(b, sizeof b,
                     "%s lines with a bad CRC, %s windows lost, %s meter restarts, %s reconnects",
                     meta(r, "meter_bad_crc_lines"),
                     meta(r, "meter_lost_windows") ? meta(r, "meter_lost_windows") : "?",
                     meta(r, "meter_restarts") ? meta(r, "meter_restarts") : "?",
                     meta(r, "reconnects") ? meta(r, "reconnects") : "?");
            kv_row(f, "Link", b, 0);
        }
        if (meta(r, "clock_drift_ppm")) {
            snprintf(b, sizeof b, "%s ppm", meta(r, "clock_drift_ppm"));
            kv_row(f, "Meter clock drift", b, 0);
        }
        if (meta_ll(r, "clock_uncertainty_ns", &t0) == 0)
            kv_row(f, "Alignment uncertainty",
                   mw_html_num(b2, sizeof b2, (double)t0 / 1e6, 3, "ms"), 0);
        kv_row(f, "Imported from", meta(r, "import_source"), 1);
        snprintf(b, sizeof b, "%lld", r->nphases);
        kv_row(f, "Phases recorded", b, 0);
        snprintf(b, sizeof b, "%lld", r->ngaps);
        kv_row(f, "Gaps", b, 0);
        fputs("</tbody></table></div>\n", f);
        /* channels */
        fputs("<h3>Channels</h3>\n<div class=\"scroll\"><table>\n", f);
        static const char *const cols[] = {">Channel", "Name", "Host", "Pin", NULL};
        thead(f, cols);
        fputs("<tbody>\n", f);
        for (size_t k = 0; k < r->nch; k++) {
            fprintf(f, "<tr><td class=\"n\">%d</td>", r->ch[k].channel);
            td_text(f, r->ch[k].name);
            td_text(f, r->ch[k].host);
            td_text(f, r->ch[k].pin);
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table></div>\n", f);
        if (r->ngap_rows) {
            long long origin = 0;
            meta_ll(r, "start_ns", &origin);
            fprintf(f,
                    "<h3>Gaps</h3>\n<p class=\"note\">Spans with no window%s; times in s "
                    "since the start.</p>\n",
                    r->ngaps > (long long)r->ngap_rows ? " (the first 50)" : "");
            fputs("<div class=\"scroll\"><table>\n", f);
            static const char *const gcols[] = {">From", ">To", ">Length", "Reason", NULL};
            thead(f, gcols);
            fputs("<tbody>\n", f);
            for (size_t k = 0; k < r->ngap_rows; k++) {
                const rp_gap *g = &r->gap[k];
                fputs("<tr>", f);
                td_seconds(f, (double)(g->start_ns - origin) / 1e9);
                td_seconds(f, (double)(g->end_ns - origin) / 1e9);
                td_seconds(f, (double)(g->end_ns - g->start_ns) / 1e9);
                td_text(f, g->reason);
                fputs("</tr>\n", f);
            }
            fputs("</tbody></table></div>\n", f);
        }
        /* everything */
        fputs("<details><summary>Every metadata key</summary>\n<div class=\"scroll\"><table "
              "class=\"kv\"><tbody>\n",
              f);
        for (size_t k = 0; k < r->nmeta; k++) {
            fputs("<tr><th scope=\"row\"><code>", f);
            mw_html_text(f, r->key[k]);
            fputs("</code></th>", f);
            td_code(f, r->val[k]);
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table></div></details>\n", f);
        run_close(f, rp);
    }
    fputs("</section>\n", f);
}

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
    fputs("<li><a href=\"#summary\">Summary</a></li>", f);
    if (rp->nsw) fputs("<li><a href=\"#sweep\">Sweep</a></li>", f);
    fputs("<li><a href=\"#energy\">Energy</a></li><li><a href=\"#phases\">Phases</a></li>"
          "<li><a href=\"#levels\">Power levels</a></li><li><a href=\"#stats\">Statistics</a>"
          "</li>",
          f);
    if (rp->nescobar) fputs("<li><a href=\"#model\">Model</a></li>", f);
    fputs("<li><a href=\"#figures\">Figures</a></li><li><a href=\"#metadata\">Metadata</a></li>"
          "</ul></nav>\n</header>\n<main>\n",
          f);
    section_summary(f, rp);
    section_sweep(f, rp);
    section_energy(f, rp);
    section_phases(f, rp);
    section_levels(f, rp);
    section_stats(f, rp);
    section_model(f, rp);
    section_figures(f, rp, figures);
    section_meta(f, rp);
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
