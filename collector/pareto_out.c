/* pareto_out — see pareto_out.h. The JSON is written as one line in a fixed key order
 * (docs/models.md), numbers by mw_out_json_number (no NaN: null). */
#include "pareto_out.h"

#include <math.h>

#include "pareto_device.h"
#include "textout.h"
#include "json_schema.h"

static const char *name_of(const mw_pareto_report *r, int i)
{
    return r->profile->dev[i].name;
}

static const double *split_at(const mw_pareto_report *r, int point)
{
    return r->s->split_units + (size_t)point * (size_t)r->s->front.k;
}

static const char *by_name(mw_pareto_by by)
{
    return by == MW_PARETO_BY_TIME ? "time" : by == MW_PARETO_BY_ENERGY ? "energy" : "total_energy";
}

/* --per-device: every in-band device of each run, and the wall's rest */
static void text_parts(FILE *out, const mw_pareto_runs *runs)
{
    fprintf(out, "in-band devices (E_dyn = (mean power over the command - idle power) x t; "
                 "worked: rose by >= %.3g W and %.3g %% of idle):\n",
            MW_PARETO_DEVICE_MIN_W, 100 * MW_PARETO_DEVICE_MIN_FRAC);
    fprintf(out, "  %-24s %-12s %-10s %-7s %s\n", "device", "E_dyn (J)", "idle (W)", "worked",
            "run");
    for (int i = 0; i < runs->n; i++) {
        const mw_pareto_run *run = &runs->run[i];
        for (int j = 0; j < run->npart; j++) {
            const mw_pareto_dev_part *p = &run->part[j];
            fprintf(out, "  ");
            mw_out_text_pad(out, p->name, 24);
            fprintf(out, " %-12.6g %-10.6g %-7s ", p->dyn_J, p->idle_W, p->worked ? "yes" : "no");
            mw_out_text(out, run->run);
            fprintf(out, "\n");
        }
    }
    fprintf(out, "the rest of the node (wall - in-band; not given to any device):\n");
    fprintf(out, "  %-12s %-12s %-12s %-10s %-10s %-10s %s\n", "wall E_dyn", "in-band", "rest E_dyn",
            "wall idle", "in-band", "rest idle", "run");
    for (int i = 0; i < runs->n; i++) {
        const mw_pareto_run *run = &runs->run[i];
        if (isfinite(run->wall_dyn_J))
            fprintf(out, "  %-12.6g %-12.6g %-12.6g %-10.6g %-10.6g %-10.6g ", run->wall_dyn_J,
                    run->inband_dyn_J, run->rest_dyn_J, run->wall_idle_W, run->inband_idle_W,
                    run->rest_idle_W);
        else
            fprintf(out, "  %-12s %-12.6g %-12s %-10s %-10.6g %-10s ", "-", run->inband_dyn_J, "-",
                    "-", run->inband_idle_W, "-");
        mw_out_text(out, run->run);
        fprintf(out, "\n");
    }
}

static void text_devices(FILE *out, const mw_pareto_report *r)
{
    const mw_pareto_front *f = &r->s->front;
    int k = f->k;
    fprintf(out, "mw pareto: %s, %d device%s, n = %.10g units\n", r->source, k, k == 1 ? "" : "s",
            f->n_units);
    if (r->runs) {
        fprintf(out, "runs (units: counter '%s'; E_dyn = energy - idle power x time):\n", r->units);
        fprintf(out, "  %-16s %-14s %-11s %-12s %-10s %s\n", "device", "x (units)", "t (s)",
                "E_dyn (J)", "idle (W)", "run");
        for (int i = 0; i < r->runs->n; i++) {
            const mw_pareto_run *run = &r->runs->run[i];
            fprintf(out, "  ");
            mw_out_text_pad(out, run->device, 16); /* a channel's or source's name: data */
            fprintf(out, " %-14.10g %-11.6g %-12.6g %-10.6g ", run->x_units, run->time_s,
                    run->energy_dyn_J, run->idle_W);
            mw_out_text(out, run->run);
            fprintf(out, "%s\n", run->ndevices > 1 ? " (together)" : "");
        }
    }
    if (r->runs && r->runs->per_device) text_parts(out, r->runs);
    fprintf(out, "devices by dynamic energy per unit, most expensive first:\n");
    for (int rank = 0; rank < k; rank++) {
        const mw_lbopa_device *d = &r->dev[f->rank[rank]];
        fprintf(out, "  %-3d %-16s b %-10.6g J/unit  ", rank, name_of(r, f->rank[rank]),
                d->b_J_per_unit);
        if (d->kind == MW_LBOPA_F_LINEAR)
            fprintf(out, "time linear, %.6g s/unit\n", d->a_s_per_unit);
        else
            fprintf(out, "time through %zu points, %.6g..%.6g units\n", d->npoints, d->x_units[0],
                    d->x_units[d->npoints - 1]);
    }
    if (r->has_add)
        fprintf(out,
                "additivity: devices alone vs together differ by %.3g %% on average over %zu "
                "size%s (Khaleghzadeh et al. 2023 accepts <= 2.5 %%)\n",
                100 * r->add_rel, r->add_n, r->add_n == 1 ? "" : "s");
}

static void text_front(FILE *out, const mw_pareto_report *r)
{
    const mw_pareto_front *f = &r->s->front;
    int k = f->k;
    fprintf(out, "Pareto front, time vs dynamic energy: %d segment%s\n", f->nseg,
            f->nseg == 1 ? "" : "s");
    fprintf(out, "  point  t (s)        E_dyn (J)    split (");
    for (int i = 0; i < k; i++)
        fprintf(out, "%s%s", i ? " " : "", name_of(r, i));
    fprintf(out, ")\n");
    for (int p = 0; p <= f->nseg; p++) {
        fprintf(out, "  %-5d  %-11.6g  %-11.6g ", p, f->t_s[p], f->e_J[p]);
        for (int i = 0; i < k; i++)
            fprintf(out, " %.6g", split_at(r, p)[i]);
        fprintf(out, "\n");
    }
    for (int s = 0; s < f->nseg; s++) {
        fprintf(out, "  segment %d: t %.6g..%.6g s, E_dyn %.6g..%.6g J; %s takes the rest", s,
                f->t_s[s], f->t_s[s + 1], f->e_J[s], f->e_J[s + 1], name_of(r, f->rank[s]));
        if (s + 1 < k) {
            fprintf(out, ", working all the time:");
            for (int rank = s + 1; rank < k; rank++)
                fprintf(out, " %s", name_of(r, f->rank[rank]));
        }
        fprintf(out, "\n");
    }
    const mw_pareto_te *te = &r->s->te;
    if (r->s->has_te) {
        fprintf(out,
                "total energy (P_S = %.6g W), LBOPA-TE: fastest point t %.6g s, E_total %.6g J",
                r->ps_W, te->tmin_s, te->emax_J);
        fprintf(out, "; %d piece%s after it\n", te->npieces, te->npieces == 1 ? "" : "s");
        for (int i = 0; i < te->npieces; i++)
            fprintf(out, "  t %.6g..%.6g s, E_total %.6g..%.6g J\n", te->piece[i].t0_s,
                    te->piece[i].t1_s, te->piece[i].e0_J, te->piece[i].e1_J);
    }
}

static void text_query(FILE *out, const mw_pareto_report *r)
{
    const mw_pareto_solution *q = r->s;
    int k = q->front.k;
    fprintf(out, "for %s %.6g %s: t %.6g s, E_dyn %.6g J", by_name(q->by), q->asked,
            q->by != MW_PARETO_BY_TIME ? "J" : "s", q->t_s, q->e_J);
    if (r->has_ps) fprintf(out, ", E_total %.6g J", q->e_J + r->ps_W * q->t_s);
    fprintf(out, "\n  split:");
    for (int i = 0; i < k; i++)
        fprintf(out, " %s %.6g", name_of(r, i), q->x_units[i]);
    fprintf(out, "\n");
    if (q->has_int) {
        fprintf(out, "  integer split:");
        for (int i = 0; i < k; i++)
            fprintf(out, " %s %lld", name_of(r, i), q->xi[i]);
        fprintf(out, " (t %.6g s, E_dyn %.6g J", q->int_t_s, q->int_e_J);
        if (r->has_ps) fprintf(out, ", E_total %.6g J", q->int_e_J + r->ps_W * q->int_t_s);
        fprintf(out, ")\n");
    }
}

/* ",KEY:" then a JSON number, string or array */
static void jnum(FILE *out, const char *key, double v)
{
    fputs(key, out);
    mw_out_json_number(out, v);
}

static void jstr(FILE *out, const char *key, const char *v)
{
    fputs(key, out);
    mw_out_json_string(out, v);
}

static void jsplit(FILE *out, const char *key, const double *x, int k)
{
    fputs(key, out);
    for (int i = 0; i < k; i++)
        jnum(out, i ? "," : "[", x[i]);
    fputc(']', out);
}

/* ,"inband": null, or the run's in-band devices and the wall's rest (--per-device) */
static void json_parts(FILE *out, const mw_pareto_run *run)
{
    if (!run->npart) {
        fprintf(out, ",\"inband\":null");
        return;
    }
    fprintf(out, ",\"inband\":{\"devices\":[");
    for (int j = 0; j < run->npart; j++) {
        const mw_pareto_dev_part *p = &run->part[j];
        jstr(out, j ? ",{\"name\":" : "{\"name\":", p->name);
        jstr(out, ",\"host\":", p->host);
        jnum(out, ",\"e_dyn_J\":", p->dyn_J);
        jnum(out, ",\"idle_W\":", p->idle_W);
        fprintf(out, ",\"worked\":%s}", p->worked ? "true" : "false");
    }
    jnum(out, "],\"wall_e_dyn_J\":", run->wall_dyn_J);
    jnum(out, ",\"wall_idle_W\":", run->wall_idle_W);
    jnum(out, ",\"inband_e_dyn_J\":", run->inband_dyn_J);
    jnum(out, ",\"inband_idle_W\":", run->inband_idle_W);
    jnum(out, ",\"rest_e_dyn_J\":", run->rest_dyn_J);
    jnum(out, ",\"rest_idle_W\":", run->rest_idle_W);
    fprintf(out, "}");
}

static void json_runs_devices(FILE *out, const mw_pareto_report *r)
{
    const mw_pareto_front *f = &r->s->front;
    jnum(out, "{\"schema\":\"" MW_SCHEMA_PARETO "\",\"n_units\":", f->n_units);
    fprintf(out, ",\"runs\":");
    if (r->runs) {
        jstr(out, "{\"units\":", r->units);
        fprintf(out, ",\"per_device\":%s", r->runs->per_device ? "true" : "false");
        fprintf(out, ",\"runs\":[");
        for (int i = 0; i < r->runs->n; i++) {
            const mw_pareto_run *run = &r->runs->run[i];
            jstr(out, i ? ",{\"run\":" : "{\"run\":", run->run);
            jstr(out, ",\"device\":", run->device);
            fprintf(out, ",\"together\":%s", run->ndevices > 1 ? "true" : "false");
            jnum(out, ",\"x_units\":", run->x_units);
            jnum(out, ",\"t_s\":", run->time_s);
            jnum(out, ",\"e_dyn_J\":", run->energy_dyn_J);
            jnum(out, ",\"idle_W\":", run->idle_W);
            json_parts(out, run);
            fprintf(out, "}");
        }
        fprintf(out, "]}");
    } else {
        fprintf(out, "null");
    }
    if (r->has_ps)
        jnum(out, ",\"static_power_W\":", r->ps_W);
    else
        fprintf(out, ",\"static_power_W\":null");
    fprintf(out, ",\"devices\":[");
    for (int i = 0; i < f->k; i++) {
        const mw_lbopa_device *d = &r->dev[i];
        jstr(out, i ? ",{\"name\":" : "{\"name\":", name_of(r, i));
        int rank = 0;
        while (f->rank[rank] != i)
            rank++;
        fprintf(out, ",\"rank\":%d", rank);
        jnum(out, ",\"b_J_per_unit\":", d->b_J_per_unit);
        if (d->kind == MW_LBOPA_F_LINEAR) {
            jnum(out, ",\"time\":\"linear\",\"a_s_per_unit\":", d->a_s_per_unit);
        } else {
            fprintf(out, ",\"time\":\"points\",\"points\":[");
            for (size_t j = 0; j < d->npoints; j++) {
                jnum(out, j ? ",{\"x_units\":" : "{\"x_units\":", d->x_units[j]);
                jnum(out, ",\"t_s\":", d->t_s[j]);
                fprintf(out, "}");
            }
            fprintf(out, "]");
        }
        fprintf(out, "}");
    }
    fprintf(out, "]");
}

static void json_front(FILE *out, const mw_pareto_report *r)
{
    const mw_pareto_front *f = &r->s->front;
    if (r->has_add) {
        jnum(out, ",\"additivity\":{\"mean_rel_diff\":", r->add_rel);
        fprintf(out, ",\"sizes\":%zu}", r->add_n);
    } else {
        fprintf(out, ",\"additivity\":null");
    }
    fprintf(out, ",\"front\":{\"points\":[");
    for (int p = 0; p <= f->nseg; p++) {
        jnum(out, p ? ",{\"t_s\":" : "{\"t_s\":", f->t_s[p]);
        jnum(out, ",\"e_J\":", f->e_J[p]);
        jsplit(out, ",\"split\":", split_at(r, p), f->k);
        fprintf(out, "}");
    }
    fprintf(out, "],\"segments\":[");
    for (int s = 0; s < f->nseg; s++) {
        jnum(out, s ? ",{\"t0_s\":" : "{\"t0_s\":", f->t_s[s]);
        jnum(out, ",\"t1_s\":", f->t_s[s + 1]);
        jnum(out, ",\"e0_J\":", f->e_J[s]);
        jnum(out, ",\"e1_J\":", f->e_J[s + 1]);
        jstr(out, ",\"rest\":", name_of(r, f->rank[s]));
        fprintf(out, "}");
    }
    fprintf(out, "]},\"total\":");
    const mw_pareto_te *te = &r->s->te;
    if (r->s->has_te) {
        jnum(out, "{\"tmin_s\":", te->tmin_s);
        jnum(out, ",\"emax_J\":", te->emax_J);
        fprintf(out, ",\"pieces\":[");
        for (int i = 0; i < te->npieces; i++) {
            jnum(out, i ? ",{\"t0_s\":" : "{\"t0_s\":", te->piece[i].t0_s);
            jnum(out, ",\"e0_J\":", te->piece[i].e0_J);
            jnum(out, ",\"t1_s\":", te->piece[i].t1_s);
            jnum(out, ",\"e1_J\":", te->piece[i].e1_J);
            fprintf(out, "}");
        }
        fprintf(out, "]}");
    } else {
        fprintf(out, "null");
    }
}

static void json_query(FILE *out, const mw_pareto_report *r)
{
    const mw_pareto_solution *q = r->s;
    int k = q->front.k;
    fprintf(out, ",\"query\":");
    if (q->by == MW_PARETO_NO_QUERY) {
        fprintf(out, "null}\n");
        return;
    }
    fprintf(out, "{\"by\":\"%s\"", by_name(q->by));
    jnum(out, ",\"asked\":", q->asked);
    jnum(out, ",\"t_s\":", q->t_s);
    jnum(out, ",\"e_J\":", q->e_J);
    if (r->has_ps)
        jnum(out, ",\"total_J\":", q->e_J + r->ps_W * q->t_s);
    else
        fprintf(out, ",\"total_J\":null");
    jsplit(out, ",\"split\":", q->x_units, k);
    fprintf(out, ",\"integer\":");
    if (q->has_int) {
        fprintf(out, "{\"split\":[");
        for (int i = 0; i < k; i++)
            fprintf(out, "%s%lld", i ? "," : "", q->xi[i]);
        jnum(out, "],\"t_s\":", q->int_t_s);
        jnum(out, ",\"e_J\":", q->int_e_J);
        fprintf(out, "}");
    } else {
        fprintf(out, "null");
    }
    fprintf(out, "}}\n");
}

void mw_pareto_print_text(FILE *out, const mw_pareto_report *r)
{
    text_devices(out, r);
    text_front(out, r);
    if (r->s->by != MW_PARETO_NO_QUERY) text_query(out, r);
}

void mw_pareto_print_json(FILE *out, const mw_pareto_report *r)
{
    json_runs_devices(out, r);
    json_front(out, r);
    json_query(out, r);
}
