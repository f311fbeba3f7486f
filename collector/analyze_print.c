/* analyze_print — mw analyze's text report (docs/analysis.md), and the formatting it shares
 * with the JSON document (collector/analyze_json.c), from analysed runs
 * (models/include/mw_analysis.h).
 *
 * Every number is formatted once: exact integers (energies from pJ, times from ns) rounded
 * half away from zero by mw_out_fixed, estimates with printf; never NaN: a figure that does
 * not exist is "-" in text and null in JSON. */
#include "analyze_print.h"

#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "textout.h"

/* ---- formatting ------------------------------------------------------------------------ */

/* text: s with 3 decimals and unit; JSON: 6 decimals */
const char *an_secs(char *buf, size_t len, __int128 ns, int text)
{
    return mw_out_fixed(buf, len, ns, text ? 1000000 : 1000, text ? 3 : 6, text ? "s" : "");
}

/* a double, or null / "-" when it is not a number */
const char *an_dbl(char *buf, size_t len, double v, int decimals, const char *unit, int json)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", json ? "null" : "-");
        return buf;
    }
    snprintf(buf, len, "%.*f%s%s", decimals, v, *unit ? " " : "", unit);
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strcspn(buf + 1, " ")) /* "-0.000" */
        memmove(buf, buf + 1, strlen(buf));
    return buf;
}

/* mean power of pj over cov_ns, 3 decimals (W), or the text for none */
const char *an_mean_w(char *buf, size_t len, mw_energy_pj pj, int64_t cov_ns, int text)
{
    if (cov_ns <= 0) return strcpy(buf, text ? "-" : "null");
    return mw_out_fixed(buf, len, mw_energy_mean_power_mw(pj, cov_ns), 1, 3, text ? "W" : "");
}

const char *an_modality(const mw_analysis_estimate *e, const char *yes, const char *no)
{
    return e->state != MW_ANALYSIS_OK ? NULL : e->levels.bimodal ? yes : no;
}

const an_metric an_metrics[MW_ANALYSIS_METRICS] = {
    {"energy_j", NULL, "energy", "J", 3},
    {"meter_energy_j", NULL, "by meter", "J", 3},
    {"mean_power_w", NULL, "mean power", "W", 3},
    {"dynamic_energy_j", NULL, "dynamic energy", "J", 3},
    {"pow_idle_w", NULL, "Pow_idle kde", "W", 3},
    {"pow_work_w", NULL, "Pow_work kde", "W", 3},
    {"pow_idle_w", "gmm", "Pow_idle gmm", "W", 3},
    {"pow_work_w", "gmm", "Pow_work gmm", "W", 3},
    {"pow_idle_w", "split", "Pow_idle split", "W", 3},
    {"pow_work_w", "split", "Pow_work split", "W", 3},
};

/* J with 3 decimals below 10 kJ, else kJ (text) */
static const char *energy_text(char *buf, size_t len, mw_energy_pj pj)
{
    const mw_energy_pj j = 1000000000000;
    if (pj < 10000 * j && pj > -10000 * j) return mw_out_fixed(buf, len, pj, j / 1000, 3, "J");
    return mw_out_fixed(buf, len, pj, j, 3, "kJ");
}

static const char *est_text(char *buf, size_t len, const mw_analysis_estimate *e, int idle)
{
    return an_dbl(buf, len, idle ? mw_analysis_idle_w(e) : mw_analysis_work_w(e), 3, "W", 0);
}

/* ---- text ------------------------------------------------------------------------------ */

typedef struct {
    int ncols;
    const char *align; /* per column 'l' or 'r' */
    int nrows, cap;
    char **cells;
} table;

static void table_add(table *t, const char *const *row)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->cells = mw_xrealloc(t->cells, (size_t)t->cap * (size_t)t->ncols * sizeof *t->cells);
    }
    for (int i = 0; i < t->ncols; i++)
        t->cells[t->nrows * t->ncols + i] = mw_out_text_dup(row[i]); /* for the terminal */
    t->nrows++;
}

/* row without its cell `leave_out` (-1: none); row has t->ncols cells besides that one */
static void table_add_but(table *t, const char *const *row, int leave_out)
{
    const char *cells[32];
    for (int i = 0, k = 0; k < t->ncols && k < 32; i++)
        if (i != leave_out) cells[k++] = row[i];
    table_add(t, cells);
}

/* Columns two spaces apart, each as wide as its widest cell; then freed. */
static void table_print(table *t, FILE *out)
{
    int w[32] = {0};
    for (int i = 0; i < t->nrows * t->ncols; i++) {
        int n = (int)strlen(t->cells[i]);
        if (n > w[i % t->ncols]) w[i % t->ncols] = n;
    }
    for (int r = 0; r < t->nrows; r++) {
        fputs("  ", out);
        for (int c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            if (c) fputs("  ", out);
            if (t->align[c] == 'r')
                fprintf(out, "%*s", w[c], s);
            else
                fprintf(out, "%-*s", c == t->ncols - 1 ? 0 : w[c], s);
        }
        fputc('\n', out);
    }
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
}

static void text_energy(FILE *out, const mw_analysis_run *r)
{
    /* a run merged from several meter hosts also says each channel's (docs/scaling.md) */
    int mh = r->meter_hosts > 1;
    table t = {.ncols = 10 + mh, .align = mh ? "lllrrrrrrlr" : "llrrrrrrlr"};
    const char *head[] = {"channel",    "host",       "meter host", "windows",   "energy",
                          "by meter",   "difference", "mean power", "idle power", "idle from",
                          "dynamic energy"};
    table_add_but(&t, head, mh ? -1 : 2);
    for (size_t i = 0; i < r->nchannels; i++) {
        const mw_analysis_channel *c = &r->channels[i];
        char n[32], e[64], m[64] = "-", df[96] = "-", p[64], ip[64], dy[64];
        snprintf(n, sizeof n, "%zu", c->windows);
        energy_text(e, sizeof e, c->energy_pj);
        double pct = mw_analysis_meter_difference_pct(c);
        if (c->have_meter) {
            energy_text(m, sizeof m, c->meter_pj);
            energy_text(df, sizeof df, c->energy_pj - c->meter_pj);
            if (isfinite(pct)) snprintf(df + strlen(df), sizeof df - strlen(df), " (%.3f %%)", pct);
        }
        const char *src = mw_analysis_idle_source_name(c->idle_source);
        const char *row[] = {
            c->name,
            c->has_host ? c->host : "-",
            c->meter_host[0] ? c->meter_host : "-",
            n,
            e,
            m,
            df,
            an_mean_w(p, sizeof p, c->energy_pj, c->covered_ns, 1),
            an_dbl(ip, sizeof ip, c->idle_source ? c->idle_power_w : NAN, 3, "W", 0),
            src ? src : "-",
            an_dbl(dy, sizeof dy, mw_analysis_dynamic_j(c, c->energy_pj, c->covered_ns), 3, "J",
                   0)};
        table_add_but(&t, row, mh ? -1 : 2);
    }
    table_print(&t, out);
}

static void text_levels(FILE *out, const mw_analysis_run *r)
{
    table lv = {.ncols = 8, .align = "lrrlrrrr"};
    const char *lhead[] = {"channel",  "kde idle", "kde work",   "kde",
                           "gmm idle", "gmm work", "split idle", "split work"};
    table_add(&lv, lhead);
    for (size_t i = 0; i < r->nchannels; i++) {
        const mw_analysis_channel *c = &r->channels[i];
        char v[6][64];
        const char *modal = an_modality(&c->kde, "bimodal", "unimodal");
        const char *row[] = {c->name,
                             est_text(v[0], 64, &c->kde, 1),
                             est_text(v[1], 64, &c->kde, 0),
                             modal ? modal : "-",
                             est_text(v[2], 64, &c->gmm, 1),
                             est_text(v[3], 64, &c->gmm, 0),
                             est_text(v[4], 64, &c->split, 1),
                             est_text(v[5], 64, &c->split, 0)};
        table_add(&lv, row);
    }
    table_print(&lv, out);
    for (size_t i = 0; i < r->nchannels; i++) {
        const mw_analysis_channel *c = &r->channels[i];
        const mw_analysis_estimate *e[] = {&c->kde, &c->gmm, &c->split};
        const char *nm[] = {"kde", "gmm", "split"};
        for (int k = 0; k < 3; k++)
            if (e[k]->levels.note[0]) {
                fputs("  note: ", out);
                mw_out_text(out, c->name);
                fprintf(out, " %s: %s\n", nm[k], e[k]->levels.note);
            }
        if (c->split.state == MW_ANALYSIS_SKIPPED) {
            fputs("  note: ", out);
            mw_out_text(out, c->name);
            fputs(" split: no computation on its ranks (no time of theirs outside MPI "
                  "and waits)\n",
                  out);
        }
    }
}

static void text_phases(FILE *out, const mw_analysis_run *r)
{
    table pt = {.ncols = 8, .align = "llrlrrrr"};
    const char *phead[] = {"kind",   "phase",      "duration",       "channel",
                           "energy", "mean power", "dynamic energy", "time on channel"};
    table_add(&pt, phead);
    for (size_t g = 0; g < r->nphases; g++) {
        const mw_analysis_phase *p = &r->phases[g];
        char du[64];
        an_secs(du, sizeof du, p->duration_ns, 1);
        int any = 0;
        for (size_t c = 0; c < r->nchannels; c++) {
            if (!p->channel_duration_ns[c]) continue;
            mw_energy_pj pj = p->channel_energy_pj[c];
            int64_t cov = p->channel_covered_ns[c];
            char e[64], mp[64], dy[64], tc[64];
            const char *row[] = {
                any ? "" : p->kind,
                any ? "" : p->name,
                any ? "" : du,
                r->channels[c].name,
                energy_text(e, sizeof e, pj),
                an_mean_w(mp, sizeof mp, pj, cov, 1),
                an_dbl(dy, sizeof dy, mw_analysis_dynamic_j(&r->channels[c], pj, cov), 3, "J", 0),
                an_secs(tc, sizeof tc, p->channel_duration_ns[c], 1)};
            table_add(&pt, row);
            any = 1;
        }
        if (!any) {
            const char *row[] = {p->kind, p->name, du, "-", "-", "-", "-", "-"};
            table_add(&pt, row);
        }
    }
    table_print(&pt, out);
}

static void text_ranks(FILE *out, const mw_analysis_run *r)
{
    table kt = {.ncols = 10, .align = "rllrrrrrrr"};
    const char *khead[] = {"rank",     "host",   "channels",  "start",    "end",
                           "duration", "energy", "work time", "inferred", "work energy"};
    table_add(&kt, khead);
    int inferred = 0;
    for (size_t k = 0; k < r->nranks; k++) {
        const mw_analysis_rank *rk = &r->ranks[k];
        char rn[32], ch[512] = "", st[64], en[64], du[64], e[64], wt[64], we[64], in[64];
        snprintf(rn, sizeof rn, "%d", rk->rank);
        for (size_t j = 0; j < rk->nchannels; j++) {
            if (j) strncat(ch, ",", sizeof ch - strlen(ch) - 1);
            strncat(ch, r->channels[rk->channels[j]].name, sizeof ch - strlen(ch) - 1);
        }
        const char *row[] = {rn,
                             rk->host,
                             rk->nchannels ? ch : "-",
                             an_secs(st, sizeof st, mw_analysis_since_ns(r, rk->start_ns), 1),
                             an_secs(en, sizeof en, mw_analysis_since_ns(r, rk->end_ns), 1),
                             an_secs(du, sizeof du, (__int128)rk->end_ns - rk->start_ns, 1),
                             energy_text(e, sizeof e, rk->energy_pj),
                             an_secs(wt, sizeof wt, rk->work_ns, 1),
                             an_secs(in, sizeof in, rk->inferred_ns, 1),
                             energy_text(we, sizeof we, rk->work_energy_pj)};
        table_add(&kt, row);
        if (rk->inferred_ns > 0) inferred = 1;
    }
    table_print(&kt, out);
    fputs("work time: a rank's time outside MPI and waits (docs/analysis.md, \"Computation\")",
          out);
    fputs(inferred ? "; inferred: the part of it no phase of the program marked as working "
                     "(all of it for a program with only MPI phases)\n"
                   : "\n",
          out);
}

static void text_run(FILE *out, const mw_analysis_run *r)
{
    char a[64], b[64], d[64];
    fputs("run ", out);
    mw_out_text(out, r->dir);
    fputs(" (", out);
    mw_out_text(out, r->status);
    fprintf(out, "): %s to %s since the start, %s\n",
            an_secs(a, sizeof a, mw_analysis_since_ns(r, r->first_ns), 1),
            an_secs(b, sizeof b, mw_analysis_since_ns(r, r->last_ns), 1),
            an_secs(d, sizeof d, (__int128)r->last_ns - r->first_ns, 1));
    int64_t span, cov;
    char note[160];
    if (mw_analysis_coverage(r, &span, &cov, note, sizeof note))
        fprintf(out, "warning: %s: the figures are of the covered time only (gaps: mw show)\n",
                note);
    if (r->probe_dropped > 0)
        fprintf(out, "warning: the probes dropped %" PRId64 " events: phases and computation are "
                     "incomplete (docs/probe.md, MW_PROBE_RING_EVENTS)\n", r->probe_dropped);
    fputs("\nenergy\n", out);
    text_energy(out, r);
    fputs("\npower levels (kde: the paper's kernel density; gmm: 2-component Gaussian "
          "mixture; split: phase-labelled windows)\n",
          out);
    text_levels(out, r);
    if (r->nphases) {
        fputs("\nphases (union of each phase's intervals over the ranks a channel measures)\n",
              out);
        text_phases(out, r);
    }
    if (r->nranks) {
        fputs("\nranks (energy of the channels measuring the rank's host)\n", out);
        text_ranks(out, r);
    }
    mw_analyze_inband_text(out, r);
}

static void text_aggregate(FILE *out, const mw_analysis_aggregate *a)
{
    fprintf(out, "\nacross %zu runs: mean ± sd (sample sd, GSL)\n", a->nruns);
    const int part[2][2] = {{MW_ANALYSIS_ENERGY, MW_ANALYSIS_KDE_IDLE},
                            {MW_ANALYSIS_KDE_IDLE, MW_ANALYSIS_METRICS}}; /* energy, levels */
    for (int g = 0; g < 2; g++) {
        int m0 = part[g][0], nm = part[g][1] - m0;
        table t = {.ncols = 2 + nm, .align = "lrrrrrrr"};
        const char *head[2 + MW_ANALYSIS_METRICS] = {"channel", "runs"};
        for (int m = 0; m < nm; m++)
            head[2 + m] = an_metrics[m0 + m].label;
        table_add(&t, head);
        for (size_t k = 0; k < a->nchannels; k++) {
            const mw_analysis_name_summary *n = &a->channels[k];
            char cells[MW_ANALYSIS_METRICS][128], rn[32];
            const char *row[2 + MW_ANALYSIS_METRICS] = {n->name, rn};
            snprintf(rn, sizeof rn, "%zu", n->runs);
            for (int m = 0; m < nm; m++) {
                const an_metric *mt = &an_metrics[m0 + m];
                const mw_analysis_summary *s = &n->metric[m0 + m];
                char mv[48], sv[48];
                if (!s->n)
                    snprintf(cells[m], sizeof cells[m], "-");
                else
                    snprintf(cells[m], sizeof cells[m], "%s ± %s %s",
                             an_dbl(mv, sizeof mv, s->mean, mt->decimals, "", 0),
                             an_dbl(sv, sizeof sv, s->sd, mt->decimals, "", 0), mt->unit);
                row[2 + m] = cells[m];
            }
            table_add(&t, row);
        }
        if (g) fputc('\n', out);
        table_print(&t, out);
    }
}

void mw_analyze_print_text(FILE *out, const mw_analysis_run *const *runs, size_t nruns)
{
    for (size_t i = 0; i < nruns; i++) {
        if (i) fputc('\n', out);
        text_run(out, runs[i]);
    }
    if (nruns > 1) {
        mw_analysis_aggregate a;
        mw_analysis_aggregate_runs(runs, nruns, &a);
        text_aggregate(out, &a);
        mw_analysis_aggregate_free(&a);
    }
}
