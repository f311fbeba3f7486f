/* report_model — the model of `mw report` (mw_report.h: rp_report_model) and the page's model
 * section (report_page.h: rp_section_model): the Escobar model against the eeg-mofs runs.
 *
 * The model is libmwmodels' study (escobar_study.h), the whole computation of `mw fit --model
 * escobar`, in this process: predict mode over the directories of the runs rp_report_escobar
 * marked (what mw fit was given), then, when that succeeded, fit mode over the same runs as
 * read. The page used to run `mw fit --json` as a child for each and read its JSON; it reads
 * as it did then. Numbers: each is the double that JSON's text read back as (rp_fit_number:
 * cmd_fit.c's "%.10g", rp_fit_paper: its "%.3f" for the paper's NRMSE; then json-c's reading),
 * so a value rounded twice (the JSON's 10 digits, the page's 3 decimals) prints the same.
 * Refusals: the note is the line mw fit's standard error ended with, "mw fit: " and the
 * study's message (fit_said). The fit's notes, which mw fit printed on the standard error
 * that the page never showed, are dropped.
 *
 * Tables: per run the version, N_Spop, rounds and the measured and predicted time and energy;
 * per version the NRMSE of time and energy beside the paper's; per version fitted, its time
 * parameters with standard errors and 95 % intervals. Runs the model does not read are named
 * with the reason; no prediction or no fit is a note with mw fit's reason. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "mw_child.h"
#include "report_html.h"
#include "report_page.h"

/* ---- the model's numbers as mw fit --json stated them -------------------------------------- */

/* a JSON number's text as json-c reads it: without '.' or exponent an integer (so "-0" is
 * +0), else strtod */
static double json_c_number(const char *text)
{
    if (!strpbrk(text, ".eE")) return (double)strtoll(text, NULL, 10);
    return strtod(text, NULL);
}

double rp_fit_number(double v)
{
    if (!isfinite(v)) return NAN; /* null */
    char b[64];
    snprintf(b, sizeof b, "%.10g", v); /* mw_out_json_number */
    return json_c_number(b);
}

double rp_fit_paper(double v)
{
    if (!isfinite(v)) return NAN;
    char b[400]; /* any finite double with 3 decimals */
    snprintf(b, sizeof b, "%.3f", v);
    return json_c_number(b);
}

/* ---- the studies --------------------------------------------------------------------------- */

/* The line mw fit's standard error ended with when its study failed with message err (it
 * printed "mw fit: ERR" last): the last line without trailing blanks, at most 399 bytes (the
 * page took it into 400 bytes), into note. */
static void fit_said(char *note, size_t len, const char *err)
{
    char text[1100], line[400]; /* err: at most 1023 bytes, as mw fit's */
    snprintf(text, sizeof text, "mw fit: %s\n", err);
    snprintf(note, len, "%s", mw_child_last_line(text, line, sizeof line));
}

/* mw fit's warning text, kept (once) */
static void keep_warning(void *ctx, const char *text)
{
    rp_report *rp = ctx;
    for (size_t i = 0; i < rp->nfit_warnings; i++)
        if (!strcmp(rp->fit_warnings[i], text)) return;
    rp->fit_warnings =
        mw_xrealloc(rp->fit_warnings, (rp->nfit_warnings + 1) * sizeof *rp->fit_warnings);
    rp->fit_warnings[rp->nfit_warnings++] = mw_xstrdup(text);
}

int rp_report_model(rp_report *rp)
{
    mw_escobar_study_free(rp->fit);
    mw_escobar_study_free(rp->fit_mode);
    rp->fit = rp->fit_mode = NULL;
    rp->fit_note[0] = rp->fit_mode_note[0] = 0;
    for (size_t i = 0; i < rp->nfit_warnings; i++)
        free(rp->fit_warnings[i]);
    rp->nfit_warnings = 0;
    char **dirs = mw_xcalloc(rp->nrun + 1, sizeof *dirs);
    int n = 0;
    for (size_t i = 0; i < rp->nrun; i++)
        if (rp->run[i].escobar) dirs[n++] = rp->run[i].dir;
    /* mw fit's defaults: 95 % intervals, the switch a channel named *switch*; its notes
     * (warnings) kept for the page */
    mw_escobar_study_opts so = {.fit = 0, .note = keep_warning, .note_ctx = rp};
    char err[1024];
    int rc = 0;
    if (mw_escobar_study_run(&so, dirs, n, &rp->fit, err, sizeof err)) {
        fit_said(rp->fit_note, sizeof rp->fit_note, err);
        rc = -1;
    } else {
        so.fit = 1;
        if (mw_escobar_study_of_runs(&so, rp->fit->runs, rp->fit->nrows, NULL, &rp->fit_mode, err,
                                     sizeof err))
            fit_said(rp->fit_mode_note, sizeof rp->fit_mode_note, err);
    }
    free(dirs);
    return rc;
}

/* ---- the section --------------------------------------------------------------------------- */

static void runs_table(FILE *f, const mw_escobar_study *s)
{
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
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    for (int k = 0; k < s->nrows; k++) {
        const mw_escobar_study_row *r = &s->rows[k];
        fputs("<tr>", f);
        rp_td_code(f, r->run->dir);
        rp_td_num(f, r->p.version, 0, "");
        rp_td_num(f, r->p.n_spop, 0, "");
        rp_td_num(f, r->pr.rounds, 0, "");
        rp_td_seconds(f, rp_fit_number(r->run->t_measured_s));
        rp_td_seconds(f, rp_fit_number(r->pr.t_cluster_s));
        rp_td_energy(f, rp_fit_number(r->run->e_measured_j));
        rp_td_energy(f, rp_fit_number(r->pr.energy_j));
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

/* Per version the NRMSE of time and energy twice — with each run's own parameters (s, predict
 * mode) and with the time parameters fitted to the runs (fit, fit mode; a dash where nothing
 * was fitted) — beside the paper's, and what each means (docs/models.md, "What the numbers
 * mean"). */
static void nrmse_table(FILE *f, const mw_escobar_study *s, const mw_escobar_study *fit)
{
    if (!s->ngroups) return;
    static const char *const cols[] = {">Version",
                                       ">Runs",
                                       ">NRMSE time, each run's parameters",
                                       ">NRMSE time, fitted",
                                       ">Paper (time)",
                                       ">NRMSE energy, each run's parameters",
                                       ">NRMSE energy, fitted",
                                       ">Paper (energy)",
                                       NULL};
    fputs("<div class=\"scroll\"><table id=\"model-nrmse\">\n", f);
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    for (int k = 0; k < s->ngroups; k++) {
        const mw_escobar_study_group *g = &s->group[k];
        const mw_escobar_study_group *fg = fit ? mw_escobar_study_group_of(fit, g->version) : NULL;
        int fitted = fg && fg->fitted;
        fputs("<tr>", f);
        rp_td_num(f, g->version, 0, "");
        rp_td_num(f, g->nruns, 0, "");
        rp_td_num(f, rp_fit_number(g->nrmse_t), 3, "");
        rp_td_num(f, rp_fit_number(fitted ? fg->nrmse_t : NAN), 3, "");
        rp_td_num(f, rp_fit_paper(g->paper_nrmse_t), 3, "");
        rp_td_num(f, rp_fit_number(g->nrmse_e), 3, "");
        rp_td_num(f, rp_fit_number(fitted ? fg->nrmse_e : NAN), 3, "");
        rp_td_num(f, rp_fit_paper(g->paper_nrmse_e), 3, "");
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n"
          "<p class=\"note\">Two NRMSEs, two questions. <em>Each run's parameters</em> "
          "(<code>mw fit</code>, predict mode): the model is given each run's own measured "
          "parts (its phases' times per individual, its nodes' powers) and nothing is tuned to "
          "the runs' total times \xE2\x80\x94 does eq. 3\xE2\x80\x93" "9 explain a run from its "
          "parts? <em>Fitted</em> (<code>mw fit --mode fit</code>): per version the time "
          "parameters are fitted to all the runs by least squares \xE2\x80\x94 can the model's "
          "shape over N_Spop follow them? The paper's values are for its own cluster. The "
          "figure draws the measured mean per N_Spop with its 95 % interval and both model "
          "lines (<code>docs/models.md</code>, \xE2\x80\x9CWhat the numbers mean\xE2\x80\x9D)."
          "</p>\n",
          f);
}

/* one version's fitted time parameters (what mw fit --json said: a standard error and an
 * interval only where the fit has intervals, the interval only where both ends are finite) */
static void fit_table(FILE *f, const mw_escobar_study_group *g)
{
    const mw_escobar_fit *ft = &g->fit;
    char b[64];
    fprintf(f, "<p>Version %d: %d runs, %d degrees of freedom, residual sum of squares %s%s.</p>\n",
            g->version, g->nruns, ft->dof,
            mw_html_num(b, sizeof b, rp_fit_number(ft->rss), 6, "s\xC2\xB2"),
            ft->converged ? "" : " (stopped at the iteration limit)");
    static const char *const cols[] = {"Parameter", ">Value", ">Standard error", ">95 % interval",
                                       NULL};
    fputs("<div class=\"scroll\"><table>\n", f);
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    for (int j = 0; j < MW_ESCOBAR_NFIT; j++) {
        if (!ft->used[j]) continue;
        fputs("<tr>", f);
        rp_td_code(f, mw_escobar_fit_names[j]);
        rp_td_num(f, rp_fit_number(ft->value[j]), 9, "s");
        rp_td_num(f, rp_fit_number(ft->have_ci ? ft->se[j] : NAN), 9, "s");
        if (ft->have_ci && isfinite(ft->ci_lo[j]) && isfinite(ft->ci_hi[j])) {
            char a[64], c2[64];
            fprintf(f, "<td class=\"n\">[%s, %s]</td>",
                    mw_html_num(a, sizeof a, rp_fit_number(ft->ci_lo[j]), 9, "s"),
                    mw_html_num(c2, sizeof c2, rp_fit_number(ft->ci_hi[j]), 9, "s"));
        } else {
            rp_td_n(f, RP_DASH);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

/* the heading, and the runs the model left out */
static void model_head(FILE *f, const rp_report *rp)
{
    fputs("<section id=\"model\">\n<h2>Model: runtime and energy (Escobar et al. 2019)</h2>\n", f);
    fprintf(f,
            "<p class=\"note\">The Escobar et al. model (eq. 3\xE2\x80\x93"
            "9) against the %zu "
            "eeg-mofs run%s: <code>mw fit --model escobar</code>, parameters from each run's own "
            "phases and powers (predict mode), and time parameters fitted to the runs (fit "
            "mode); NRMSE = 1 \xE2\x88\x92 \xE2\x80\x96y \xE2\x88\x92 "
            "\xC5\xB7\xE2\x80\x96 / \xE2\x80\x96y \xE2\x88\x92 \xC8\xB3\xE2\x80\x96 (1 perfect; "
            "undefined with one run). <code>docs/models.md</code> describes it.</p>\n",
            rp->nescobar, rp->nescobar == 1 ? "" : "s");
    for (size_t i = 0; i < rp->nrun; i++)
        if (!rp->run[i].escobar) {
            fputs("<p class=\"note\">Left out: <code>", f);
            mw_html_text(f, rp->run[i].title);
            fputs("</code>: ", f);
            /* the reason names the run's directory first: the title has said which run */
            const char *why = rp->run[i].escobar_err, *dir = rp->run[i].dir;
            size_t n = strlen(dir);
            if (!strncmp(why, dir, n) && !strncmp(why + n, ": ", 2)) why += n + 2;
            mw_html_text(f, why);
            fputs("</p>\n", f);
        }
}

void rp_section_model(FILE *f, const rp_report *rp)
{
    if (!rp->nescobar) return;
    model_head(f, rp);
    if (!rp->fit) {
        fputs("<p class=\"warn\">No prediction: ", f);
        mw_html_text(f, rp->fit_note);
        fputs("</p>\n</section>\n", f);
        return;
    }
    runs_table(f, rp->fit);
    nrmse_table(f, rp->fit, rp->fit_mode);
    fputs("<h3>Fitted time parameters</h3>\n", f);
    int fitted = 0;
    for (int k = 0; rp->fit_mode && k < rp->fit_mode->ngroups; k++)
        fitted += rp->fit_mode->group[k].fitted;
    if (!fitted) {
        fputs("<p class=\"note\">No least-squares fit: ", f);
        mw_html_text(f, rp->fit_mode_note[0] ? rp->fit_mode_note : "mw fit fitted nothing");
        fputs("</p>\n", f);
    }
    for (int k = 0; rp->fit_mode && k < rp->fit_mode->ngroups; k++)
        if (rp->fit_mode->group[k].fitted) fit_table(f, &rp->fit_mode->group[k]);
    for (size_t i = 0; i < rp->nfit_warnings; i++) {
        fputs("<p class=\"warn\">mw fit: ", f);
        mw_html_text(f, rp->fit_warnings[i]);
        fputs("</p>\n", f);
    }
    fputs("</section>\n", f);
}
