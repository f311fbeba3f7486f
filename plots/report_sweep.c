/* report_sweep — the page's sweep section (report_page.h: rp_section_sweep), per sweep given:
 * a table of configurations x repetitions (each finished run's command time and energy, the
 * status of the others), a table per configuration (mean +- sample sd and the Student-t
 * interval of its finished runs' command time and energy), and the tests across the
 * configurations that have values: Kruskal-Wallis for two or more, Mann-Whitney for exactly
 * two (models/include/stats.h).
 *
 * A configuration is a run of consecutive index runs with one label (the sweep index lists
 * each configuration's repetitions together); a run's values are rp_run's cmd_s and cmd_j. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "mw_alloc.h"
#include "report_html.h"
#include "report_page.h"
#include "stats.h"

/* One configuration of a sweep: its index runs [first, first + n), and the command times and
 * energies of its finished runs. */
typedef struct {
    size_t first, n;
    double *t, *e;
    size_t nt, ne;
} rp_config;

static size_t sweep_configs(const rp_report *rp, const rp_sweep *s, rp_config **out)
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
    for (size_t i = 0; i < nc; i++) {
        c[i].t = mw_xcalloc(c[i].n, sizeof *c[i].t);
        c[i].e = mw_xcalloc(c[i].n, sizeof *c[i].e);
        for (size_t k = c[i].first; k < c[i].first + c[i].n; k++) {
            if (s->run_of[k] < 0) continue;
            const rp_run *r = &rp->run[s->run_of[k]];
            if (isfinite(r->cmd_s)) c[i].t[c[i].nt++] = r->cmd_s;
            if (isfinite(r->cmd_j)) c[i].e[c[i].ne++] = r->cmd_j;
        }
    }
    *out = c;
    return nc;
}

static void configs_free(rp_config *c, size_t nc)
{
    for (size_t i = 0; i < nc; i++) {
        free(c[i].t);
        free(c[i].e);
    }
    free(c);
}

/* The cell of repetition rep of configuration c: its time and energy, its status when it is
 * not a finished run, empty when there is no such repetition. */
static void rep_cell(FILE *f, const rp_report *rp, const rp_sweep *s, const rp_config *c, int rep)
{
    size_t k = c->first;
    while (k < c->first + c->n && mw_sweepidx_run_rep(s->x, k) != rep)
        k++;
    if (k == c->first + c->n) {
        fputs("<td></td>", f);
        return;
    }
    int ri = s->run_of[k];
    if (ri < 0) {
        fputs("<td class=\"n note\">", f);
        mw_html_text(f, mw_sweepidx_run_status(s->x, k));
        fputs("</td>", f);
        return;
    }
    const rp_run *r = &rp->run[ri];
    char a[64], b[64];
    fprintf(f, "<td class=\"n\">%s<br>%s</td>", mw_html_seconds(a, sizeof a, r->cmd_s),
            mw_html_energy(b, sizeof b, r->cmd_j));
}

/* configurations x repetitions */
static void runs_table(FILE *f, const rp_report *rp, size_t si, const rp_config *cf, size_t nc)
{
    const rp_sweep *s = &rp->sw[si];
    const mw_sweepidx *x = s->x;
    int maxrep = 0;
    for (size_t k = 0; k < mw_sweepidx_nruns(x); k++)
        if (mw_sweepidx_run_rep(x, k) > maxrep) maxrep = mw_sweepidx_run_rep(x, k);
    size_t np = mw_sweepidx_nparams(x);
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
        rp_td_code(f, mw_sweepidx_run_label(x, k0));
        for (size_t p = 0; p < np; p++)
            rp_td_text(f, mw_sweepidx_run_param(x, k0, mw_sweepidx_param_name(x, p)));
        for (int rep = 1; rep <= maxrep; rep++)
            rep_cell(f, rp, s, &cf[c], rep);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

/* mean ± sd and the interval of x[0..n) */
static void td_summary(FILE *f, const double *x, size_t n, const char *unit, int energy)
{
    double m = n ? gsl_stats_mean(x, 1, n) : NAN;
    double sd = n > 1 ? gsl_stats_sd(x, 1, n) : NAN;
    rp_td_mean_sd(f, m, sd, 3, unit, energy);
    rp_td_ci(f, x, n, 3, unit, energy);
}

/* per configuration */
static void configs_table(FILE *f, const rp_sweep *s, size_t si, const rp_config *cf, size_t nc)
{
    fprintf(f, "<div class=\"scroll\"><table id=\"sweep-%zu-configs\">\n", si + 1);
    static const char *const cols[] = {"Configuration",
                                       ">Finished runs",
                                       ">Command time",
                                       ">95 % interval",
                                       ">Energy",
                                       ">95 % interval",
                                       NULL};
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    for (size_t c = 0; c < nc; c++) {
        fputs("<tr>", f);
        rp_td_code(f, mw_sweepidx_run_label(s->x, cf[c].first));
        fprintf(f, "<td class=\"n\">%zu of %zu</td>", cf[c].nt, cf[c].n);
        td_summary(f, cf[c].t, cf[c].nt, "s", 0);
        td_summary(f, cf[c].e, cf[c].ne, "J", 1);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

static void test_row(FILE *f, const char *what, const char *test, int ok, const mw_test *t,
                     const char *stat)
{
    fprintf(f, "<tr><td>%s</td><td>%s</td>", what, test);
    if (!ok) {
        fputs("<td class=\"n\">" RP_DASH "</td><td class=\"n\">" RP_DASH "</td></tr>\n", f);
        return;
    }
    char b[64];
    fprintf(f, "<td class=\"n\">%s = %s</td>", stat, mw_html_num(b, sizeof b, t->statistic, 3, ""));
    fprintf(f, "<td class=\"n\">%s%s</td></tr>\n", mw_html_num(b, sizeof b, t->p, 4, ""),
            t->exact ? " (exact)" : "");
}

/* tests across the configurations with values */
static void tests_table(FILE *f, const rp_config *cf, size_t nc)
{
    const double **g = mw_xcalloc(nc, sizeof *g);
    size_t *gn = mw_xcalloc(nc, sizeof *gn);
    fputs("<div class=\"scroll\"><table>\n", f);
    static const char *const tcols[] = {"Figure", "Test", ">Statistic", ">p", NULL};
    rp_thead(f, tcols);
    fputs("<tbody>\n", f);
    for (int q = 0; q < 2; q++) {
        size_t k = 0;
        for (size_t c = 0; c < nc; c++) {
            size_t n = q ? cf[c].ne : cf[c].nt;
            if (!n) continue;
            g[k] = q ? cf[c].e : cf[c].t;
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
}

void rp_section_sweep(FILE *f, const rp_report *rp)
{
    if (!rp->nsw) return;
    fputs("<section id=\"sweep\">\n<h2>Sweep</h2>\n", f);
    fputs("<p class=\"note\">Per run: the command time and the energy of every channel during "
          "it. Per configuration: mean \xC2\xB1 sample sd and the 95 % Student-t interval of "
          "the mean over its finished runs; across configurations, Kruskal\xE2\x80\x93Wallis "
          "(two or more) and Mann\xE2\x80\x93Whitney (two) on the per-run values "
          "(<code>models/include/stats.h</code>).</p>\n",
          f);
    for (size_t si = 0; si < rp->nsw; si++) {
        const rp_sweep *s = &rp->sw[si];
        fputs("<h3><code>", f);
        mw_html_text(f, s->dir);
        fputs("</code></h3>\n", f);
        rp_config *cf;
        size_t nc = sweep_configs(rp, s, &cf);
        runs_table(f, rp, si, cf, nc);
        configs_table(f, s, si, cf, nc);
        tests_table(f, cf, nc);
        configs_free(cf, nc);
    }
    fputs("</section>\n", f);
}
