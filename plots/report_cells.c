/* report_cells — the cells, tables and blocks of the page of `mw report` (report_page.h), and
 * the run's metadata by key.
 *
 * A cell is one <td>: text escaped by mw_html_text (a dash when there is none), or a number
 * cell (class "n", right-aligned by report.css) holding text this file made from a number and
 * its unit (report_html.h). Intervals across runs are Student-t intervals of the mean
 * (models/include/stats.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_html.h"
#include "report_page.h"
#include "stats.h"

void rp_td_text(FILE *f, const char *s)
{
    fputs("<td>", f);
    if (s && s[0])
        mw_html_text(f, s);
    else
        fputs(RP_DASH, f);
    fputs("</td>", f);
}

void rp_td_code(FILE *f, const char *s)
{
    fputs("<td><code>", f);
    mw_html_text(f, s);
    fputs("</code></td>", f);
}

void rp_td_n(FILE *f, const char *s)
{
    fprintf(f, "<td class=\"n\">%s</td>", s);
}

void rp_td_num(FILE *f, double v, int decimals, const char *unit)
{
    char b[64];
    rp_td_n(f, mw_html_num(b, sizeof b, v, decimals, unit));
}

void rp_td_energy(FILE *f, double j)
{
    char b[64];
    rp_td_n(f, mw_html_energy(b, sizeof b, j));
}

void rp_td_seconds(FILE *f, double s)
{
    char b[64];
    rp_td_n(f, mw_html_seconds(b, sizeof b, s));
}

static const char *value(char *b, size_t len, double v, int decimals, const char *unit, int energy)
{
    return energy ? mw_html_energy(b, len, v) : mw_html_num(b, len, v, decimals, unit);
}

void rp_td_mean_sd(FILE *f, double mean, double sd, int decimals, const char *unit, int energy)
{
    char a[64], b[64];
    value(a, sizeof a, mean, decimals, unit, energy);
    if (!isfinite(sd)) {
        rp_td_n(f, a);
        return;
    }
    value(b, sizeof b, sd, decimals, unit, energy);
    fprintf(f, "<td class=\"n\">%s " RP_PLUS_MINUS " %s</td>", a, b);
}

void rp_td_ci(FILE *f, const double *x, size_t n, int decimals, const char *unit, int energy)
{
    double mean, lo, hi;
    if (n < 2 || mw_stats_mean_ci(x, n, RP_CONFIDENCE, &mean, &lo, &hi) != 0) {
        rp_td_n(f, RP_DASH);
        return;
    }
    /* never an interval n cannot support: from 2 runs it spans 12.7 sd; nor one reaching
     * below 0 for what cannot be negative (every caller's figure: times and energies) */
    if (n < 3 || lo < 0) {
        fprintf(f, "<td class=\"n\">%s (n = %zu: too few runs)</td>", RP_DASH, n);
        return;
    }
    char a[64], b[64];
    value(a, sizeof a, lo, decimals, unit, energy);
    value(b, sizeof b, hi, decimals, unit, energy);
    fprintf(f, "<td class=\"n\">[%s, %s]</td>", a, b);
}

void rp_kv_row(FILE *f, const char *label, const char *val, int code)
{
    if (!val || !val[0]) return;
    fprintf(f, "<tr><th scope=\"row\">%s</th>", label);
    if (code)
        rp_td_code(f, val);
    else
        rp_td_text(f, val);
    fputs("</tr>\n", f);
}

void rp_thead(FILE *f, const char *const *cols)
{
    fputs("<thead><tr>", f);
    for (int i = 0; cols[i]; i++)
        fprintf(f, "<th%s>%s</th>", cols[i][0] == '>' ? " class=\"n\"" : "",
                cols[i][0] == '>' ? cols[i] + 1 : cols[i]);
    fputs("</tr></thead>\n", f);
}

void rp_run_open(FILE *f, const rp_report *rp, size_t i)
{
    if (rp->nrun == 1) return;
    fprintf(f, "<details%s><summary>", rp->nrun <= 3 ? " open" : "");
    mw_html_text(f, rp->run[i].title);
    fputs("</summary>\n", f);
}

void rp_run_close(FILE *f, const rp_report *rp)
{
    if (rp->nrun > 1) fputs("</details>\n", f);
}

const char *rp_meta(const rp_run *r, const char *key)
{
    for (size_t i = 0; i < r->nmeta; i++)
        if (!strcmp(r->key[i], key)) return r->val[i];
    return NULL;
}

int rp_meta_ll(const rp_run *r, const char *key, long long *v)
{
    const char *s = rp_meta(r, key);
    if (!s || !s[0]) return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || *end) return -1;
    *v = x;
    return 0;
}
