/* plot_kinds_model — the kinds of `mw plot` drawn from the models' commands: dvfs
 * (plots/gnuplot/dvfs.gp, seed 003) and pareto (plots/gnuplot/pareto.gp, seed 002).
 *
 * dvfs. `mw dvfs RUNDIR --json [--freqs LIST]` runs as a child process: its per-rank
 * computation and communication times, dynamic and static powers and the frequency table
 * are the problem (models/dvfs.h, the heterogeneous synchronous model mw dvfs uses); every
 * rank scaled by the same factor S = F_max / F at each gear gives the curves of normalised
 * performance P_Norm = T_old / T_new, normalised energy E_Norm = E_new / E_old and their
 * distance (mw_dvfs_evaluate); each method mw dvfs ran (MaxDist, EDP, Rauber-Rünger, the
 * oracle) is a point at the mean of its ranks' scaling factors with the P_Norm and E_Norm
 * mw dvfs reports for it (1 - degradation, 1 - saving).
 *
 * pareto. `mw pareto PROFILE --json` (and with --total when the profile gives a static
 * power) runs as a child process; its devices rebuild the time and energy functions
 * (models/lbopa.h), whose front Pf(t) is drawn exactly at 400 times between its ends
 * (mw_pareto_energy_J), with the total energy Pf(t) + P_S t; the front's end-points come
 * from mw pareto, and so does LBOPA-TE's part of the front, optimal for time and total
 * energy, which is highlighted. */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "dvfs.h"
#include "lbopa.h"
#include "mw_plot.h"

#define DVFS_W 1000
#define DVFS_H 700
#define PARETO_W 1000
#define PARETO_H 700
#define PARETO_SAMPLES 400

static size_t jlen(struct json_object *a)
{
    return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* ---- dvfs --------------------------------------------------------------------------- */

int mw_plot_dvfs(const mw_plot_job *j, const mw_plot_run *r)
{
    char name[512], title[1024], why[1024];
    snprintf(name, sizeof name, "%sdvfs", j->prefix);
    snprintf(title, sizeof title, "DVFS: normalised energy and performance — %s", r->dir);
    char *argv[8];
    int a = 0;
    argv[a++] = "mw";
    argv[a++] = "dvfs";
    argv[a++] = r->dir;
    argv[a++] = "--json";
    if (j->freqs) {
        argv[a++] = "--freqs";
        argv[a++] = (char *)j->freqs;
    }
    argv[a] = NULL;
    struct json_object *js = mw_plot_mw_json(argv, why, sizeof why);
    if (!js) {
        char note[1100];
        snprintf(note, sizeof note, "%s%s", strncmp(why, "mw ", 3) ? "mw dvfs: " : "", why);
        return mw_plot_note_figure(j->out, name, title, note, DVFS_W, DVFS_H);
    }
    struct json_object *fr = mw_plot_jget(js, "frequencies_ghz"),
                       *ranks = mw_plot_jget(js, "ranks"), *methods = mw_plot_jget(js, "methods");
    size_t nf = jlen(fr), n = jlen(ranks);
    double *ghz = mw_xcalloc(1, (nf + 1) * sizeof *ghz);
    for (size_t i = 0; i < nf; i++)
        ghz[i] = mw_plot_jnum(json_object_array_get_idx(fr, i));
    double *tcp = mw_xcalloc(1, (n + 1) * sizeof *tcp),
           *tcm = mw_xcalloc(1, (n + 1) * sizeof *tcm);
    double *pd = mw_xcalloc(1, (n + 1) * sizeof *pd), *ps = mw_xcalloc(1, (n + 1) * sizeof *ps);
    double *s = mw_xcalloc(1, (n + 1) * sizeof *s);
    mw_dvfs_gears *gears = mw_xcalloc(1, (n + 1) * sizeof *gears);
    for (size_t i = 0; i < n; i++) {
        struct json_object *rk = json_object_array_get_idx(ranks, i);
        tcp[i] = mw_plot_jnum(mw_plot_jget(rk, "tcp_s"));
        tcm[i] = mw_plot_jnum(mw_plot_jget(rk, "tcm_s"));
        pd[i] = mw_plot_jnum(mw_plot_jget(rk, "pd_w"));
        ps[i] = mw_plot_jnum(mw_plot_jget(rk, "ps_w"));
        gears[i] = (mw_dvfs_gears){ghz, nf};
    }
    mw_dvfs_problem p = {n, tcp, tcm, pd, ps, NULL, 1, gears};
    char err[256];
    int rc;
    if (!n || !nf || mw_dvfs_check(&p, err, sizeof err)) {
        char note[400];
        snprintf(note, sizeof note, "mw dvfs gave no usable problem: %s",
                 !n    ? "no ranks"
                 : !nf ? "no frequencies"
                       : err);
        rc = mw_plot_note_figure(j->out, name, title, note, DVFS_W, DVFS_H);
        goto out;
    }
    mw_plot_fig *f = mw_plot_fig_begin(j->out, name, "dvfs", DVFS_W, DVFS_H);
    if (!f) {
        rc = -1;
        goto out;
    }
    FILE *d = mw_plot_fig_tsv(f), *v = mw_plot_fig_vars(f);
    mw_plot_fig_block(f, "every rank at one gear: freq_ghz\tscaling_factor\tp_norm\te_norm\t"
                         "distance_pct\tsaving_pct\tdegradation_pct");
    double best_d = -INFINITY, best_s = 1, ylo = INFINITY, yhi = -INFINITY, dlo = INFINITY,
           dhi = -INFINITY;
    for (size_t g = 0; g < nf; g++) {
        for (size_t i = 0; i < n; i++)
            s[i] = ghz[0] / ghz[g];
        mw_dvfs_eval e;
        if (mw_dvfs_evaluate(&p, MW_DVFS_HETERO, s, &e)) continue;
        fprintf(d, "%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\n", ghz[g], s[0], e.p_norm,
                e.e_norm, e.distance_pct, e.saving_pct, e.degradation_pct);
        ylo = fmin(ylo, fmin(e.p_norm, e.e_norm));
        yhi = fmax(yhi, fmax(e.p_norm, e.e_norm));
        dlo = fmin(dlo, e.distance_pct);
        dhi = fmax(dhi, e.distance_pct);
        if (e.distance_pct > best_d) {
            best_d = e.distance_pct;
            best_s = s[0];
        }
    }
    mw_plot_fig_block(f, "methods: method\tscaling_factor\tp_norm\te_norm\tdistance_pct\t"
                         "saving_pct\tdegradation_pct\tfreqs_ghz");
    size_t nm = jlen(methods);
    const char *mnames[8];
    size_t nmn = 0;
    int have_maxdist = 0, n_other = 0;
    char maxdist_freqs[512] = "";
    /* block 1: every method; 2: MaxDist alone; 3: the others (the template draws 2 and 3) */
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1)
            mw_plot_fig_block(f, "MaxDist: method\tscaling_factor\tp_norm\te_norm\tdistance_pct\t"
                                 "saving_pct\tdegradation_pct\tfreqs_ghz");
        if (pass == 2)
            mw_plot_fig_block(f, "other methods: method\tscaling_factor\tp_norm\te_norm\t"
                                 "distance_pct\tsaving_pct\tdegradation_pct\tfreqs_ghz");
        for (size_t m = 0; m < nm; m++) {
            struct json_object *me = json_object_array_get_idx(methods, m);
            struct json_object *mf = mw_plot_jget(me, "freqs_ghz");
            double sum = 0;
            size_t k = jlen(mf);
            char freqs[512] = "";
            for (size_t i = 0; i < k; i++) {
                double fq = mw_plot_jnum(json_object_array_get_idx(mf, i));
                sum += ghz[0] / fq;
                size_t len = strlen(freqs);
                snprintf(freqs + len, sizeof freqs - len, "%s%g", i ? "," : "", fq);
            }
            double sv = mw_plot_jnum(mw_plot_jget(me, "saving_pct")),
                   dg = mw_plot_jnum(mw_plot_jget(me, "degradation_pct"));
            const char *mn = json_object_get_string(mw_plot_jget(me, "method"));
            if (!k || !isfinite(sv) || !isfinite(dg) || !mn) continue;
            int is_maxdist = !strcmp(mn, "maxdist");
            if ((pass == 1 && !is_maxdist) || (pass == 2 && is_maxdist)) continue;
            if (pass == 0) {
                if (nmn < 8) mnames[nmn++] = mn;
                if (is_maxdist) {
                    have_maxdist = 1;
                    snprintf(maxdist_freqs, sizeof maxdist_freqs, "%s", freqs);
                } else {
                    n_other++;
                }
                ylo = fmin(ylo, fmin(1 - dg / 100, 1 - sv / 100));
                yhi = fmax(yhi, fmax(1 - dg / 100, 1 - sv / 100));
            }
            mw_plot_tsv_text(d, mn);
            fprintf(d, "\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%s\n", sum / (double)k,
                    1 - dg / 100, 1 - sv / 100, mw_plot_jnum(mw_plot_jget(me, "distance_pct")), sv,
                    dg, freqs);
        }
    }
    mw_plot_var_range(v, "ymin", "ymax", ylo, yhi, 0.02);
    mw_plot_var_range(v, "y2min", "y2max", dlo, dhi, 1);
    mw_plot_var_int(v, "have_maxdist", have_maxdist);
    mw_plot_var_str(v, "maxdist_freqs", maxdist_freqs);
    mw_plot_var_int(v, "n_other", n_other);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_int(v, "n_ranks", (long long)n);
    mw_plot_var_int(v, "n_methods", (long long)nmn);
    mw_plot_var_strs(v, "method_name", mnames, nmn);
    mw_plot_var_num(v, "best_uniform_s", best_s);
    mw_plot_var_num(v, "best_uniform_distance", best_d);
    mw_plot_var_num(v, "s_max", ghz[0] / ghz[nf - 1]);
    rc = mw_plot_fig_end(f);
out:
    free(ghz);
    free(tcp);
    free(tcm);
    free(pd);
    free(ps);
    free(s);
    free(gears);
    json_object_put(js);
    return rc;
}

/* ---- pareto ------------------------------------------------------------------------- */

int mw_plot_pareto(const mw_plot_job *j, const char *profile, const char *name)
{
    char title[1024], why[1024];
    snprintf(title, sizeof title, "Time/energy Pareto front — %s (mw pareto)", profile);
    char *argv[] = {"mw", "pareto", (char *)profile, "--json", NULL, NULL};
    struct json_object *js = mw_plot_mw_json(argv, why, sizeof why);
    if (!js) {
        char note[1100];
        snprintf(note, sizeof note, "%s%s", strncmp(why, "mw ", 3) ? "mw pareto: " : "", why);
        return mw_plot_note_figure(j->out, name, title, note, PARETO_W, PARETO_H);
    }
    double ps = mw_plot_jnum(mw_plot_jget(js, "static_power_W"));
    if (isfinite(ps)) { /* again with LBOPA-TE */
        argv[4] = "--total";
        struct json_object *jt = mw_plot_mw_json(argv, why, sizeof why);
        if (jt) {
            json_object_put(js);
            js = jt;
        }
    }
    struct json_object *devs = mw_plot_jget(js, "devices"), *front = mw_plot_jget(js, "front"),
                       *total = mw_plot_jget(js, "total");
    size_t k = jlen(devs);
    double n_units = mw_plot_jnum(mw_plot_jget(js, "n_units"));
    mw_lbopa_device *dev = mw_xcalloc(1, (k + 1) * sizeof *dev);
    double **xs = mw_xcalloc(1, (k + 1) * sizeof *xs),
           **ts = mw_xcalloc(1, (k + 1) * sizeof *ts);
    const char **dnames = mw_xcalloc(1, (k + 1) * sizeof *dnames);
    int rc = 0, ok = k > 0 && isfinite(n_units);
    for (size_t i = 0; i < k && ok; i++) {
        struct json_object *dj = json_object_array_get_idx(devs, i);
        dnames[i] = json_object_get_string(mw_plot_jget(dj, "name"));
        dev[i].b_J_per_unit = mw_plot_jnum(mw_plot_jget(dj, "b_J_per_unit"));
        const char *kind = json_object_get_string(mw_plot_jget(dj, "time"));
        if (kind && !strcmp(kind, "linear")) {
            dev[i].kind = MW_LBOPA_F_LINEAR;
            dev[i].a_s_per_unit = mw_plot_jnum(mw_plot_jget(dj, "a_s_per_unit"));
        } else {
            struct json_object *pts = mw_plot_jget(dj, "points");
            size_t np = jlen(pts);
            xs[i] = mw_xcalloc(1, (np + 1) * sizeof **xs);
            ts[i] = mw_xcalloc(1, (np + 1) * sizeof **ts);
            for (size_t q = 0; q < np; q++) {
                xs[i][q] = mw_plot_jnum(mw_plot_jget(json_object_array_get_idx(pts, q), "x_units"));
                ts[i][q] = mw_plot_jnum(mw_plot_jget(json_object_array_get_idx(pts, q), "t_s"));
            }
            dev[i].kind = MW_LBOPA_F_PWL;
            dev[i].x_units = xs[i];
            dev[i].t_s = ts[i];
            dev[i].npoints = np;
        }
        ok = mw_lbopa_device_ok(&dev[i]) == 0;
    }
    mw_pareto_front pf;
    memset(&pf, 0, sizeof pf);
    if (!ok || mw_lbopa_front(dev, (int)k, n_units, &pf)) {
        rc = mw_plot_note_figure(j->out, name, title,
                                 "mw pareto's devices give no front (see mw pareto PROFILE)",
                                 PARETO_W, PARETO_H);
        goto out;
    }
    mw_plot_fig *f = mw_plot_fig_begin(j->out, name, "pareto", PARETO_W, PARETO_H);
    if (!f) {
        rc = -1;
        goto out_front;
    }
    FILE *d = mw_plot_fig_tsv(f), *v = mw_plot_fig_vars(f);
    int have_ps = isfinite(ps);
    mw_plot_fig_block(f, "front Pf(t): t_s\tdynamic_energy_j\ttotal_energy_j");
    double t0 = pf.t_s[0], t1 = pf.t_s[pf.nseg];
    int samples = pf.nseg ? PARETO_SAMPLES : 1;
    double elo = INFINITY, ehi = -INFINITY;
    for (int q = 0; q < samples; q++) {
        double t = samples > 1 ? t0 + (t1 - t0) * q / (samples - 1) : t0;
        if (q == samples - 1) t = t1;
        double e;
        if (mw_pareto_energy_J(&pf, t, &e)) continue;
        fprintf(d, "%.10g\t%.10g\t", t, e);
        mw_plot_tsv_num(d, have_ps ? e + ps * t : NAN);
        fputc('\n', d);
        elo = fmin(elo, e);
        ehi = fmax(ehi, have_ps ? e + ps * t : e);
    }
    mw_plot_fig_block(f, "end-points (mw pareto): t_s\tdynamic_energy_j\ttotal_energy_j\tsplit");
    struct json_object *pts = mw_plot_jget(front, "points");
    for (size_t q = 0; q < jlen(pts); q++) {
        struct json_object *pt = json_object_array_get_idx(pts, q);
        double t = mw_plot_jnum(mw_plot_jget(pt, "t_s")), e = mw_plot_jnum(mw_plot_jget(pt, "e_J"));
        fprintf(d, "%.10g\t%.10g\t", t, e);
        mw_plot_tsv_num(d, have_ps ? e + ps * t : NAN);
        fputc('\t', d);
        struct json_object *sp = mw_plot_jget(pt, "split");
        for (size_t i = 0; i < jlen(sp); i++)
            fprintf(d, "%s%.6g", i ? "," : "", mw_plot_jnum(json_object_array_get_idx(sp, i)));
        fputc('\n', d);
    }
    mw_plot_fig_block(f, "LBOPA-TE, optimal for time and total energy: t_s\ttotal_energy_j "
                         "(the performance-optimal point, then pieces: pairs of rows)");
    struct json_object *pieces = mw_plot_jget(total, "pieces");
    double tmin = mw_plot_jnum(mw_plot_jget(total, "tmin_s")),
           emax = mw_plot_jnum(mw_plot_jget(total, "emax_J"));
    int have_te = total && isfinite(tmin) && isfinite(emax);
    if (have_te) fprintf(d, "%.10g\t%.10g\n", tmin, emax);
    for (size_t q = 0; q < jlen(pieces); q++) {
        struct json_object *pc = json_object_array_get_idx(pieces, q);
        fprintf(d, "\n%.10g\t%.10g\n%.10g\t%.10g\n", mw_plot_jnum(mw_plot_jget(pc, "t0_s")),
                mw_plot_jnum(mw_plot_jget(pc, "e0_J")), mw_plot_jnum(mw_plot_jget(pc, "t1_s")),
                mw_plot_jnum(mw_plot_jget(pc, "e1_J")));
    }
    const char *notes[2];
    int nn = 0;
    if (!have_ps) notes[nn++] = "no static power in the profile: no total energy, no LBOPA-TE";
    char dl[512] = "";
    for (size_t i = 0; i < k; i++) {
        size_t len = strlen(dl);
        snprintf(dl + len, sizeof dl - len, "%s%s", i ? ", " : "", dnames[i] ? dnames[i] : "?");
    }
    char sub[700];
    snprintf(sub, sizeof sub, "%g units over %zu devices (%s)%s", n_units, k, dl,
             have_ps ? "" : "");
    mw_plot_var_range(v, "xmin", "xmax", t0, t1, t1 > 0 ? t1 * 0.02 : 1e-3);
    mw_plot_var_range(v, "ymin", "ymax", elo, ehi, ehi > 0 ? ehi * 0.02 : 1e-3);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_str(v, "subtitle", sub);
    mw_plot_var_int(v, "have_total", have_ps);
    mw_plot_var_num(v, "static_power", have_ps ? ps : 0);
    mw_plot_var_int(v, "have_te", have_te);
    mw_plot_var_int(v, "n_te_pieces", (long long)jlen(pieces));
    mw_plot_var_int(v, "n_notes", nn);
    mw_plot_var_strs(v, "notes", notes, (size_t)nn);
    rc = mw_plot_fig_end(f);
out_front:
    mw_pareto_front_free(&pf);
out:
    for (size_t i = 0; i < k; i++) {
        free(xs[i]);
        free(ts[i]);
    }
    free(xs);
    free(ts);
    free(dev);
    free(dnames);
    json_object_put(js);
    return rc;
}
