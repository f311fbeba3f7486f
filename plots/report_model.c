/* report_model — the page's model section (report_page.h: rp_section_model): the Escobar
 * model against the eeg-mofs runs, read from `mw fit --model escobar --json`'s documents in
 * rp_report (fit: predict mode, fit_mode: fit mode), which collector/cmd_report.c provides;
 * and the lenient JSON access they are read with (mw_report.h: rp_jget ...).
 *
 * Tables: per run the version, N_Spop, rounds and the measured and predicted time and energy;
 * per version the NRMSE of time and energy beside the paper's; per version fitted, its time
 * parameters with standard errors and 95 % intervals. Runs the model does not read are named
 * with the reason; no prediction or no fit is a note with mw fit's reason. */
#include <math.h>
#include <string.h>

#include "report_html.h"
#include "report_page.h"

/* ---- JSON access --------------------------------------------------------------------------- */

json_object *rp_jget(json_object *o, const char *k)
{
    json_object *v = NULL;
    if (o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, k, &v))
        return v;
    return NULL;
}

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

/* ---- the section --------------------------------------------------------------------------- */

static void runs_table(FILE *f, json_object *runs)
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
    for (size_t k = 0; k < rp_jlen(runs); k++) {
        json_object *r = rp_jat(runs, k);
        fputs("<tr>", f);
        rp_td_code(f, rp_jstr(r, "run"));
        rp_td_num(f, rp_jnum(r, "version"), 0, "");
        rp_td_num(f, rp_jnum(r, "n_spop"), 0, "");
        rp_td_num(f, rp_jnum(r, "rounds"), 0, "");
        rp_td_seconds(f, rp_jnum(rp_jget(r, "time_s"), "measured"));
        rp_td_seconds(f, rp_jnum(rp_jget(r, "time_s"), "predicted"));
        rp_td_energy(f, rp_jnum(rp_jget(r, "energy_j"), "measured"));
        rp_td_energy(f, rp_jnum(rp_jget(r, "energy_j"), "predicted"));
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

static void nrmse_table(FILE *f, json_object *nr)
{
    if (!rp_jlen(nr)) return;
    static const char *const cols[] = {
        ">Version",      ">Runs",           ">NRMSE time", ">Paper (time)",
        ">NRMSE energy", ">Paper (energy)", NULL};
    fputs("<div class=\"scroll\"><table id=\"model-nrmse\">\n", f);
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    for (size_t k = 0; k < rp_jlen(nr); k++) {
        json_object *g = rp_jat(nr, k);
        fputs("<tr>", f);
        rp_td_num(f, rp_jnum(g, "version"), 0, "");
        rp_td_num(f, rp_jnum(g, "runs"), 0, "");
        rp_td_num(f, rp_jnum(g, "time"), 3, "");
        rp_td_num(f, rp_jnum(g, "paper_time"), 3, "");
        rp_td_num(f, rp_jnum(g, "energy"), 3, "");
        rp_td_num(f, rp_jnum(g, "paper_energy"), 3, "");
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

/* one version's fitted time parameters */
static void fit_table(FILE *f, json_object *g)
{
    char b[64];
    fprintf(f, "<p>Version %d: %d runs, %d degrees of freedom, residual sum of squares %s%s.</p>\n",
            (int)rp_jnum(g, "version"), (int)rp_jnum(g, "runs"), (int)rp_jnum(g, "dof"),
            mw_html_num(b, sizeof b, rp_jnum(g, "rss_s2"), 6, "s\xC2\xB2"),
            rp_jbool(g, "converged") == 0 ? " (stopped at the iteration limit)" : "");
    static const char *const cols[] = {"Parameter", ">Value", ">Standard error", ">95 % interval",
                                       NULL};
    fputs("<div class=\"scroll\"><table>\n", f);
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    json_object *ps = rp_jget(g, "parameters");
    for (size_t p = 0; p < rp_jlen(ps); p++) {
        json_object *x = rp_jat(ps, p);
        fputs("<tr>", f);
        rp_td_code(f, rp_jstr(x, "name"));
        rp_td_num(f, rp_jnum(x, "value"), 9, "s");
        rp_td_num(f, rp_jnum(x, "se"), 9, "s");
        json_object *ci = rp_jget(x, "ci");
        if (rp_jlen(ci) == 2) {
            char a[64], c2[64];
            fprintf(f, "<td class=\"n\">[%s, %s]</td>",
                    mw_html_num(a, sizeof a, json_object_get_double(rp_jat(ci, 0)), 9, "s"),
                    mw_html_num(c2, sizeof c2, json_object_get_double(rp_jat(ci, 1)), 9, "s"));
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
    runs_table(f, rp_jget(rp->fit, "runs"));
    nrmse_table(f, rp_jget(rp->fit, "nrmse"));
    fputs("<h3>Fitted time parameters</h3>\n", f);
    json_object *fits = rp_jget(rp->fit_mode, "fit");
    if (!rp_jlen(fits)) {
        fputs("<p class=\"note\">No least-squares fit: ", f);
        mw_html_text(f, rp->fit_mode_note[0] ? rp->fit_mode_note : "mw fit fitted nothing");
        fputs("</p>\n", f);
    }
    for (size_t k = 0; k < rp_jlen(fits); k++)
        fit_table(f, rp_jat(fits, k));
    fputs("</section>\n", f);
}
