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

/* mw dvfs's problem: the frequency table (GHz, fastest first) and each rank's times and
 * powers, every rank with the whole table; s: room for a scaling factor per rank. */
typedef struct {
    size_t nf, n;
    double *ghz, *tcp, *tcm, *pd, *ps, *s;
    mw_dvfs_gears *gears;
    mw_dvfs_problem p;
} dvfs_input;

static void dvfs_input_read(dvfs_input *in, struct json_object *js)
{
    struct json_object *fr = mw_plot_jget(js, "frequencies_ghz"),
                       *ranks = mw_plot_jget(js, "ranks");
    size_t nf = jlen(fr), n = jlen(ranks);
    in->nf = nf;
    in->n = n;
    in->ghz = mw_xcalloc(1, (nf + 1) * sizeof *in->ghz);
    for (size_t i = 0; i < nf; i++)
        in->ghz[i] = mw_plot_jnum(json_object_array_get_idx(fr, i));
    in->tcp = mw_xcalloc(1, (n + 1) * sizeof *in->tcp);
    in->tcm = mw_xcalloc(1, (n + 1) * sizeof *in->tcm);
    in->pd = mw_xcalloc(1, (n + 1) * sizeof *in->pd);
    in->ps = mw_xcalloc(1, (n + 1) * sizeof *in->ps);
    in->s = mw_xcalloc(1, (n + 1) * sizeof *in->s);
    in->gears = mw_xcalloc(1, (n + 1) * sizeof *in->gears);
    for (size_t i = 0; i < n; i++) {
        struct json_object *rk = json_object_array_get_idx(ranks, i);
        in->tcp[i] = mw_plot_jnum(mw_plot_jget(rk, "tcp_s"));
        in->tcm[i] = mw_plot_jnum(mw_plot_jget(rk, "tcm_s"));
        in->pd[i] = mw_plot_jnum(mw_plot_jget(rk, "pd_w"));
        in->ps[i] = mw_plot_jnum(mw_plot_jget(rk, "ps_w"));
        in->gears[i] = (mw_dvfs_gears){in->ghz, nf};
    }
    in->p = (mw_dvfs_problem){n, in->tcp, in->tcm, in->pd, in->ps, NULL, 1, in->gears};
}

static void dvfs_input_free(dvfs_input *in)
{
    free(in->ghz);
    free(in->tcp);
    free(in->tcm);
    free(in->pd);
    free(in->ps);
    free(in->s);
    free(in->gears);
}

/* The panels' ranges (P_Norm and E_Norm; distance, %) and the best uniform scaling. */
typedef struct {
    double ylo, yhi, dlo, dhi, best_d, best_s;
} dvfs_ranges;

/* Block 0: every rank at one gear, a row per gear. */
static void write_gear_curve(mw_plot_fig *f, dvfs_input *in, dvfs_ranges *rg)
{
    FILE *d = mw_plot_fig_tsv(f);
    mw_plot_fig_block(f, "every rank at one gear: freq_ghz\tscaling_factor\tp_norm\te_norm\t"
                         "distance_pct\tsaving_pct\tdegradation_pct");
    for (size_t g = 0; g < in->nf; g++) {
        for (size_t i = 0; i < in->n; i++)
            in->s[i] = in->ghz[0] / in->ghz[g];
        mw_dvfs_eval e;
        if (mw_dvfs_evaluate(&in->p, MW_DVFS_HETERO, in->s, &e)) continue;
        fprintf(d, "%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\n", in->ghz[g], in->s[0],
                e.p_norm, e.e_norm, e.distance_pct, e.saving_pct, e.degradation_pct);
        rg->ylo = fmin(rg->ylo, fmin(e.p_norm, e.e_norm));
        rg->yhi = fmax(rg->yhi, fmax(e.p_norm, e.e_norm));
        rg->dlo = fmin(rg->dlo, e.distance_pct);
        rg->dhi = fmax(rg->dhi, e.distance_pct);
        if (e.distance_pct > rg->best_d) {
            rg->best_d = e.distance_pct;
            rg->best_s = in->s[0];
        }
    }
}

/* One method of mw dvfs: its name, its ranks' frequencies ("2.4,2,..."), the mean of their
 * scaling factors, saving and degradation (%). */
typedef struct {
    const char *name;
    char freqs[512];
    double mean_s, saving, degradation;
} dvfs_method;

/* 0 when method me is complete enough to draw */
static int read_method(struct json_object *me, const double *ghz, dvfs_method *m)
{
    struct json_object *mf = mw_plot_jget(me, "freqs_ghz");
    double sum = 0;
    size_t k = jlen(mf);
    m->freqs[0] = 0;
    for (size_t i = 0; i < k; i++) {
        double fq = mw_plot_jnum(json_object_array_get_idx(mf, i));
        sum += ghz[0] / fq;
        size_t len = strlen(m->freqs);
        snprintf(m->freqs + len, sizeof m->freqs - len, "%s%g", i ? "," : "", fq);
    }
    m->mean_s = k ? sum / (double)k : NAN;
    m->saving = mw_plot_jnum(mw_plot_jget(me, "saving_pct"));
    m->degradation = mw_plot_jnum(mw_plot_jget(me, "degradation_pct"));
    m->name = json_object_get_string(mw_plot_jget(me, "method"));
    return !k || !isfinite(m->saving) || !isfinite(m->degradation) || !m->name ? -1 : 0;
}

/* What the methods give the variables: their names (at most 8), MaxDist's frequencies. */
typedef struct {
    const char *names[8];
    size_t nnames;
    int have_maxdist, n_other;
    char maxdist_freqs[512];
} dvfs_methods;

/* Block 1: every method; 2: MaxDist alone; 3: the others (the template draws 2 and 3). */
static void write_methods(mw_plot_fig *f, struct json_object *methods, const double *ghz,
                          dvfs_methods *dm, dvfs_ranges *rg)
{
    static const char *const heading[3] = {"methods", "MaxDist", "other methods"};
    FILE *d = mw_plot_fig_tsv(f);
    size_t nm = jlen(methods);
    for (int pass = 0; pass < 3; pass++) {
        mw_plot_fig_block(f,
                          "%s: method\tscaling_factor\tp_norm\te_norm\tdistance_pct\t"
                          "saving_pct\tdegradation_pct\tfreqs_ghz",
                          heading[pass]);
        for (size_t i = 0; i < nm; i++) {
            struct json_object *me = json_object_array_get_idx(methods, i);
            dvfs_method m;
            if (read_method(me, ghz, &m)) continue;
            int is_maxdist = !strcmp(m.name, "maxdist");
            if ((pass == 1 && !is_maxdist) || (pass == 2 && is_maxdist)) continue;
            double p_norm = 1 - m.degradation / 100, e_norm = 1 - m.saving / 100;
            if (pass == 0) {
                if (dm->nnames < 8) dm->names[dm->nnames++] = m.name;
                if (is_maxdist) {
                    dm->have_maxdist = 1;
                    snprintf(dm->maxdist_freqs, sizeof dm->maxdist_freqs, "%s", m.freqs);
                } else {
                    dm->n_other++;
                }
                rg->ylo = fmin(rg->ylo, fmin(p_norm, e_norm));
                rg->yhi = fmax(rg->yhi, fmax(p_norm, e_norm));
            }
            mw_plot_tsv_text(d, m.name);
            fprintf(d, "\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%s\n", m.mean_s, p_norm, e_norm,
                    mw_plot_jnum(mw_plot_jget(me, "distance_pct")), m.saving, m.degradation,
                    m.freqs);
        }
    }
}

/* The dvfs figure of mw dvfs's output js. 0, or -1 when it failed. */
static int write_dvfs(const mw_plot_job *j, const char *name, const char *title, dvfs_input *in,
                      struct json_object *js)
{
    mw_plot_fig *f = mw_plot_fig_begin(j->out, name, "dvfs", DVFS_W, DVFS_H);
    if (!f) return -1;
    dvfs_ranges rg = {INFINITY, -INFINITY, INFINITY, -INFINITY, -INFINITY, 1};
    write_gear_curve(f, in, &rg);
    dvfs_methods dm;
    memset(&dm, 0, sizeof dm);
    write_methods(f, mw_plot_jget(js, "methods"), in->ghz, &dm, &rg);
    FILE *v = mw_plot_fig_vars(f);
    mw_plot_var_range(v, "ymin", "ymax", rg.ylo, rg.yhi, 0.02);
    mw_plot_var_range(v, "y2min", "y2max", rg.dlo, rg.dhi, 1);
    mw_plot_var_int(v, "have_maxdist", dm.have_maxdist);
    mw_plot_var_str(v, "maxdist_freqs", dm.maxdist_freqs);
    mw_plot_var_int(v, "n_other", dm.n_other);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_int(v, "n_ranks", (long long)in->n);
    mw_plot_var_int(v, "n_methods", (long long)dm.nnames);
    mw_plot_var_strs(v, "method_name", dm.names, dm.nnames);
    mw_plot_var_num(v, "best_uniform_s", rg.best_s);
    mw_plot_var_num(v, "best_uniform_distance", rg.best_d);
    mw_plot_var_num(v, "s_max", in->ghz[0] / in->ghz[in->nf - 1]);
    return mw_plot_fig_end(f);
}

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
    dvfs_input in;
    dvfs_input_read(&in, js);
    char err[256];
    int rc;
    if (!in.n || !in.nf || mw_dvfs_check(&in.p, err, sizeof err)) {
        char note[400];
        snprintf(note, sizeof note, "mw dvfs gave no usable problem: %s",
                 !in.n    ? "no ranks"
                 : !in.nf ? "no frequencies"
                          : err);
        rc = mw_plot_note_figure(j->out, name, title, note, DVFS_W, DVFS_H);
    } else {
        rc = write_dvfs(j, name, title, &in, js);
    }
    dvfs_input_free(&in);
    json_object_put(js);
    return rc;
}

/* ---- pareto ------------------------------------------------------------------------- */

/* `mw pareto PROFILE --json`, again with --total when the profile gives a static power
 * (*ps, else NaN; the first answer kept when the second fails). NULL with the reason in why
 * when mw pareto gave nothing. */
static struct json_object *pareto_json(const char *profile, double *ps, char *why, size_t len)
{
    char *argv[] = {"mw", "pareto", (char *)profile, "--json", NULL, NULL};
    struct json_object *js = mw_plot_mw_json(argv, why, len);
    if (!js) return NULL;
    *ps = mw_plot_jnum(mw_plot_jget(js, "static_power_W"));
    if (isfinite(*ps)) { /* again with LBOPA-TE */
        argv[4] = "--total";
        struct json_object *jt = mw_plot_mw_json(argv, why, len);
        if (jt) {
            json_object_put(js);
            js = jt;
        }
    }
    return js;
}

/* mw pareto's devices, rebuilt as LBOPA's time and energy functions (their points
 * malloc'd in xs, ts) */
typedef struct {
    size_t k;
    mw_lbopa_device *dev;
    double **xs, **ts;
    const char **names; /* into the JSON */
} pareto_devices;

/* 0 when every device is usable (and there is one, and n_units is a number) */
static int read_devices(pareto_devices *pd, struct json_object *devs, double n_units)
{
    size_t k = pd->k = jlen(devs);
    pd->dev = mw_xcalloc(1, (k + 1) * sizeof *pd->dev);
    pd->xs = mw_xcalloc(1, (k + 1) * sizeof *pd->xs);
    pd->ts = mw_xcalloc(1, (k + 1) * sizeof *pd->ts);
    pd->names = mw_xcalloc(1, (k + 1) * sizeof *pd->names);
    int ok = k > 0 && isfinite(n_units);
    for (size_t i = 0; i < k && ok; i++) {
        struct json_object *dj = json_object_array_get_idx(devs, i);
        mw_lbopa_device *dev = &pd->dev[i];
        pd->names[i] = json_object_get_string(mw_plot_jget(dj, "name"));
        dev->b_J_per_unit = mw_plot_jnum(mw_plot_jget(dj, "b_J_per_unit"));
        const char *kind = json_object_get_string(mw_plot_jget(dj, "time"));
        if (kind && !strcmp(kind, "linear")) {
            dev->kind = MW_LBOPA_F_LINEAR;
            dev->a_s_per_unit = mw_plot_jnum(mw_plot_jget(dj, "a_s_per_unit"));
        } else {
            struct json_object *pts = mw_plot_jget(dj, "points");
            size_t np = jlen(pts);
            pd->xs[i] = mw_xcalloc(1, (np + 1) * sizeof **pd->xs);
            pd->ts[i] = mw_xcalloc(1, (np + 1) * sizeof **pd->ts);
            for (size_t q = 0; q < np; q++) {
                struct json_object *pt = json_object_array_get_idx(pts, q);
                pd->xs[i][q] = mw_plot_jnum(mw_plot_jget(pt, "x_units"));
                pd->ts[i][q] = mw_plot_jnum(mw_plot_jget(pt, "t_s"));
            }
            dev->kind = MW_LBOPA_F_PWL;
            dev->x_units = pd->xs[i];
            dev->t_s = pd->ts[i];
            dev->npoints = np;
        }
        ok = mw_lbopa_device_ok(dev) == 0;
    }
    return ok ? 0 : -1;
}

static void pareto_devices_free(pareto_devices *pd)
{
    for (size_t i = 0; i < pd->k; i++) {
        free(pd->xs[i]);
        free(pd->ts[i]);
    }
    free(pd->xs);
    free(pd->ts);
    free(pd->dev);
    free(pd->names);
}

/* a TSV row's "t e total" with total = e + ps t (or "-" without a static power) */
static void front_point(FILE *d, double t, double e, double ps, int have_ps)
{
    fprintf(d, "%.10g\t%.10g\t", t, e);
    mw_plot_tsv_num(d, have_ps ? e + ps * t : NAN);
}

/* Block 0: the front Pf(t) at PARETO_SAMPLES times between its ends, with the total energy;
 * the energies' range in *elo, *ehi. */
static void write_front(mw_plot_fig *f, const mw_pareto_front *pf, double ps, int have_ps,
                        double *elo, double *ehi)
{
    FILE *d = mw_plot_fig_tsv(f);
    mw_plot_fig_block(f, "front Pf(t): t_s\tdynamic_energy_j\ttotal_energy_j");
    double t0 = pf->t_s[0], t1 = pf->t_s[pf->nseg];
    int samples = pf->nseg ? PARETO_SAMPLES : 1;
    *elo = INFINITY;
    *ehi = -INFINITY;
    for (int q = 0; q < samples; q++) {
        double t = samples > 1 ? t0 + (t1 - t0) * q / (samples - 1) : t0;
        if (q == samples - 1) t = t1;
        double e;
        if (mw_pareto_energy_J(pf, t, &e)) continue;
        front_point(d, t, e, ps, have_ps);
        fputc('\n', d);
        *elo = fmin(*elo, e);
        *ehi = fmax(*ehi, have_ps ? e + ps * t : e);
    }
}

/* Blocks 1 (mw pareto's end-points of the front, with their splits) and 2 (LBOPA-TE: the
 * performance-optimal point, then pieces as pairs of rows). Returns whether LBOPA-TE's
 * point is there; its pieces' count in *npieces. */
static int write_points_and_te(mw_plot_fig *f, struct json_object *js, double ps, int have_ps,
                               size_t *npieces)
{
    FILE *d = mw_plot_fig_tsv(f);
    mw_plot_fig_block(f, "end-points (mw pareto): t_s\tdynamic_energy_j\ttotal_energy_j\tsplit");
    struct json_object *pts = mw_plot_jget(mw_plot_jget(js, "front"), "points");
    for (size_t q = 0; q < jlen(pts); q++) {
        struct json_object *pt = json_object_array_get_idx(pts, q);
        front_point(d, mw_plot_jnum(mw_plot_jget(pt, "t_s")), mw_plot_jnum(mw_plot_jget(pt, "e_J")),
                    ps, have_ps);
        fputc('\t', d);
        struct json_object *sp = mw_plot_jget(pt, "split");
        for (size_t i = 0; i < jlen(sp); i++)
            fprintf(d, "%s%.6g", i ? "," : "", mw_plot_jnum(json_object_array_get_idx(sp, i)));
        fputc('\n', d);
    }
    mw_plot_fig_block(f, "LBOPA-TE, optimal for time and total energy: t_s\ttotal_energy_j "
                         "(the performance-optimal point, then pieces: pairs of rows)");
    struct json_object *total = mw_plot_jget(js, "total"), *pieces = mw_plot_jget(total, "pieces");
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
    *npieces = jlen(pieces);
    return have_te;
}

/* The pareto figure of the front pf of mw pareto's answer js. 0, or -1 when it failed. */
static int write_pareto(const mw_plot_job *j, const char *name, const char *title,
                        struct json_object *js, double ps, const pareto_devices *pd,
                        const mw_pareto_front *pf)
{
    mw_plot_fig *f = mw_plot_fig_begin(j->out, name, "pareto", PARETO_W, PARETO_H);
    if (!f) return -1;
    int have_ps = isfinite(ps);
    double elo, ehi;
    size_t npieces;
    write_front(f, pf, ps, have_ps, &elo, &ehi);
    int have_te = write_points_and_te(f, js, ps, have_ps, &npieces);
    const char *notes[2];
    int nn = 0;
    if (!have_ps) notes[nn++] = "no static power in the profile: no total energy, no LBOPA-TE";
    char dl[512] = "";
    for (size_t i = 0; i < pd->k; i++) {
        size_t len = strlen(dl);
        snprintf(dl + len, sizeof dl - len, "%s%s", i ? ", " : "",
                 pd->names[i] ? pd->names[i] : "?");
    }
    char sub[700];
    snprintf(sub, sizeof sub, "%g units over %zu devices (%s)%s",
             mw_plot_jnum(mw_plot_jget(js, "n_units")), pd->k, dl, have_ps ? "" : "");
    double t0 = pf->t_s[0], t1 = pf->t_s[pf->nseg];
    FILE *v = mw_plot_fig_vars(f);
    mw_plot_var_range(v, "xmin", "xmax", t0, t1, t1 > 0 ? t1 * 0.02 : 1e-3);
    mw_plot_var_range(v, "ymin", "ymax", elo, ehi, ehi > 0 ? ehi * 0.02 : 1e-3);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_str(v, "subtitle", sub);
    mw_plot_var_int(v, "have_total", have_ps);
    mw_plot_var_num(v, "static_power", have_ps ? ps : 0);
    mw_plot_var_int(v, "have_te", have_te);
    mw_plot_var_int(v, "n_te_pieces", (long long)npieces);
    mw_plot_var_int(v, "n_notes", nn);
    mw_plot_var_strs(v, "notes", notes, (size_t)nn);
    return mw_plot_fig_end(f);
}

int mw_plot_pareto(const mw_plot_job *j, const char *profile, const char *name)
{
    char title[1024], why[1024];
    snprintf(title, sizeof title, "Time/energy Pareto front — %s (mw pareto)", profile);
    double ps = NAN;
    struct json_object *js = pareto_json(profile, &ps, why, sizeof why);
    if (!js) {
        char note[1100];
        snprintf(note, sizeof note, "%s%s", strncmp(why, "mw ", 3) ? "mw pareto: " : "", why);
        return mw_plot_note_figure(j->out, name, title, note, PARETO_W, PARETO_H);
    }
    double n_units = mw_plot_jnum(mw_plot_jget(js, "n_units"));
    pareto_devices pd;
    memset(&pd, 0, sizeof pd);
    mw_pareto_front pf;
    memset(&pf, 0, sizeof pf);
    int rc;
    if (read_devices(&pd, mw_plot_jget(js, "devices"), n_units) ||
        mw_lbopa_front(pd.dev, (int)pd.k, n_units, &pf)) {
        rc = mw_plot_note_figure(j->out, name, title,
                                 "mw pareto's devices give no front (see mw pareto PROFILE)",
                                 PARETO_W, PARETO_H);
    } else {
        rc = write_pareto(j, name, title, js, ps, &pd, &pf);
        mw_pareto_front_free(&pf);
    }
    pareto_devices_free(&pd);
    json_object_put(js);
    return rc;
}
