/* plot_kinds_model — the kinds of `mw plot` drawn from the models of mw dvfs and mw pareto:
 * dvfs (plots/gnuplot/dvfs.gp, Fanfakh) and pareto (plots/gnuplot/pareto.gp, Khaleghzadeh et al.).
 * Both call libmwmodels and libmw as those commands do (collector/cmd_dvfs.c,
 * collector/cmd_pareto.c) and draw from the structs: no child process, no JSON.
 *
 * dvfs. The run is read as mw dvfs reads it (models/include/dvfs_run.h): the gear table of --freqs
 * or of this machine's cpufreq table (mw_dvfs_gears_load), each rank's computation and
 * communication times from its phases in one snapshot, its dynamic power P_d measured (eq.
 * 3.15), its static power P_s = MW_DVFS_PS_FRACTION P_d (mw dvfs's defaults: no --pd, --ps);
 * the problem is the heterogeneous synchronous model (models/include/dvfs.h), and mw_dvfs_choose
 * runs the four methods (MaxDist, EDP, Rauber-Rünger, the oracle up to MW_DVFS_ORACLE_MAX_COMBOS
 * combinations). Every rank scaled by the same factor S = F_max / F at each gear gives the
 * curves of normalised performance P_Norm = T_old / T_new, normalised energy E_Norm = E_new /
 * E_old and their distance (mw_dvfs_evaluate); each method with a choice is a point at the
 * mean of its ranks' scaling factors with P_Norm = 1 - degradation and E_Norm = 1 - saving.
 * An unusable run or table is a note figure saying what mw dvfs would say ("mw dvfs: ...").
 *
 * pareto. The profile is read by libmw (mw_profile.h) and its devices built, the additivity
 * of its "together" lines checked and the front solved by libmwmodels (pareto.h) as mw
 * pareto does, with LBOPA-TE (its --total) when the profile gives a static power P_S (the
 * front without it when LBOPA-TE fails). The front Pf(t) is drawn exactly at 400 times
 * between its ends (mw_pareto_energy_J), with the total energy Pf(t) + P_S t; its end-points
 * with PARTITION's split at each, and LBOPA-TE's part of the front, optimal for time and
 * total energy, highlighted. A profile mw pareto refuses is a note figure with its message
 * ("mw pareto: ..."). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dvfs.h"
#include "dvfs_run.h"
#include "mw_alloc.h"
#include "mw_plot.h"
#include "mw_profile.h"
#include "mw_run.h"
#include "mw_store.h"
#include "pareto.h"

#define DVFS_W 1000
#define DVFS_H 700
#define PARETO_W 1000
#define PARETO_H 700
#define PARETO_SAMPLES 400
#define PARETO_ADDITIVE 0.025 /* Khaleghzadeh et al. accept devices within 2.5 % as additive */
#define NOTE_MAX 2048    /* a note figure's text */
#define PARETO_ERR 16384 /* a profile's message quotes a keyword or a device name whole */

/* ---- dvfs --------------------------------------------------------------------------- */

/* mw dvfs's names of the methods, in the order of mw_dvfs_choose's out[] */
static const char *const method_names[4] = {"maxdist", "edp", "rr", "oracle"};

/* mw dvfs's problem for the run: the gear table (GHz, fastest first), the ranks, the problem
 * (every rank with the whole table), every rank at F_max and the methods' choices; s: room
 * for a scaling factor per rank. */
typedef struct {
    double ghz[MW_DVFS_MAX_GEARS];
    size_t nf;
    mw_dvfs_run run;
    mw_dvfs_problem p;
    int have_p;
    mw_dvfs_eval base;
    mw_dvfs_choice res[4];
    double *s;
} dvfs_input;

static void dvfs_input_free(dvfs_input *in)
{
    for (int k = 0; k < 4; k++)
        free(in->res[k].gear);
    if (in->have_p) mw_dvfs_run_problem_free(&in->p);
    mw_dvfs_run_free(&in->run);
    free(in->s);
}

/* The ranks of run dir in one snapshot, as mw dvfs reads them. 0, or -1 with mw dvfs's
 * message in note. */
static int dvfs_read_run(const char *dir, mw_dvfs_run *run, char *note, size_t len)
{
    if (!mw_store_exists(dir)) {
        snprintf(note, len, "mw dvfs: %s: not a run (no %s there; make one with mw record)", dir,
                 MW_STORE_DB_NAME);
        return -1;
    }
    char err[1024];
    mw_store *s = mw_store_open(dir, err, sizeof err);
    if (!s) {
        snprintf(note, len, "mw dvfs: %s", err);
        return -1;
    }
    mw_run_snapshot_begin(s);
    int rc = 0;
    if (mw_dvfs_run_read(s, run)) {
        snprintf(note, len, "mw dvfs: %s", mw_store_error(s));
        rc = -1;
    }
    mw_run_snapshot_end(s);
    mw_store_close(s);
    return rc;
}

/* mw dvfs RUNDIR [--freqs LIST] with its defaults into *in (zeroed by the caller): the gear
 * table, the run, P_d measured and P_s = MW_DVFS_PS_FRACTION P_d, the checked problem, the
 * four methods. 0, or -1 with what mw dvfs says in note. */
static int dvfs_solve(const char *freqs, const char *dir, dvfs_input *in, char *note, size_t len)
{
    char src[512], err[1024]; /* a note quotes it whole (NOTE_MAX) */
    if (mw_dvfs_gears_load(freqs, in->ghz, &in->nf, src, sizeof src, err, sizeof err)) {
        snprintf(note, len, "mw dvfs: %s (try 'mw dvfs --help')", err);
        return -1;
    }
    if (dvfs_read_run(dir, &in->run, note, len)) return -1;
    mw_dvfs_run *run = &in->run;
    if (!run->nranks) {
        snprintf(note, len,
                 "mw dvfs: %s: no phases of the program (record it under mw record with "
                 "libmwprobe, or mw merge its events)",
                 dir);
        return -1;
    }
    size_t at, alen;
    if (mw_dvfs_run_powers(run, NULL, &at, &alen)) { /* no --pd: a rank no channel measures */
        const mw_dvfs_rank *r = &run->ranks[at];
        snprintf(note, len,
                 "mw dvfs: rank %d (host %s): no channel with samples measures it; give its "
                 "dynamic power with --pd W or --pd %d=W (try 'mw dvfs --help')",
                 r->rank, r->host, r->rank);
        return -1;
    }
    for (size_t i = 0; i < run->nranks; i++)
        run->ranks[i].ps_w = MW_DVFS_PS_FRACTION * run->ranks[i].pd_w;
    mw_dvfs_run_problem(run, in->ghz, in->nf, &in->p);
    in->have_p = 1;
    if (mw_dvfs_check(&in->p, err, sizeof err)) {
        snprintf(note, len, "mw dvfs: %s: %s%s", dir, err,
                 strstr(err, "power") || strstr(err, "energy")
                     ? " (measured P_d is 0: give it with --pd W)"
                     : "");
        return -1;
    }
    mw_dvfs_choose(&in->p, MW_DVFS_HETERO,
                   MW_DVFS_BY_MAXDIST | MW_DVFS_BY_EDP | MW_DVFS_BY_RR | MW_DVFS_BY_ORACLE,
                   MW_DVFS_ORACLE_MAX_COMBOS, &in->base, in->res);
    in->s = mw_xcalloc(run->nranks, sizeof *in->s);
    return 0;
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
        for (size_t i = 0; i < in->run.nranks; i++)
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

/* One method's choice: its name, its ranks' frequencies ("2.4,2,..."), the mean of their
 * scaling factors, P_Norm and E_Norm (1 - degradation, 1 - saving) and its evaluation. */
typedef struct {
    const char *name;
    char freqs[512];
    double mean_s, p_norm, e_norm;
    const mw_dvfs_eval *e;
} dvfs_method;

static void method_of(const dvfs_input *in, int k, dvfs_method *m)
{
    const mw_dvfs_choice *c = &in->res[k];
    size_t n = in->run.nranks;
    double sum = 0;
    m->name = method_names[k];
    m->freqs[0] = 0;
    for (size_t i = 0; i < n; i++) {
        double fq = in->ghz[c->gear[i]];
        sum += in->ghz[0] / fq;
        size_t len = strlen(m->freqs);
        snprintf(m->freqs + len, sizeof m->freqs - len, "%s%g", i ? "," : "", fq);
    }
    m->mean_s = sum / (double)n;
    m->e = &c->e;
    m->p_norm = 1 - c->e.degradation_pct / 100;
    m->e_norm = 1 - c->e.saving_pct / 100;
}

/* What the methods give the variables: their names, MaxDist's frequencies. */
typedef struct {
    const char *names[4];
    size_t nnames;
    int have_maxdist, n_other;
    char maxdist_freqs[512];
} dvfs_methods;

/* Block 1: every method with a choice; 2: MaxDist alone; 3: the others (the template draws
 * 2 and 3). */
static void write_methods(mw_plot_fig *f, const dvfs_input *in, dvfs_methods *dm, dvfs_ranges *rg)
{
    static const char *const heading[3] = {"methods", "MaxDist", "other methods"};
    FILE *d = mw_plot_fig_tsv(f);
    for (int pass = 0; pass < 3; pass++) {
        mw_plot_fig_block(f,
                          "%s: method\tscaling_factor\tp_norm\te_norm\tdistance_pct\t"
                          "saving_pct\tdegradation_pct\tfreqs_ghz",
                          heading[pass]);
        for (int k = 0; k < 4; k++) {
            if (!in->res[k].ok) continue; /* RR without static power, the oracle skipped */
            int is_maxdist = k == 0;
            if ((pass == 1 && !is_maxdist) || (pass == 2 && is_maxdist)) continue;
            dvfs_method m;
            method_of(in, k, &m);
            if (pass == 0) {
                dm->names[dm->nnames++] = m.name;
                if (is_maxdist) {
                    dm->have_maxdist = 1;
                    snprintf(dm->maxdist_freqs, sizeof dm->maxdist_freqs, "%s", m.freqs);
                } else {
                    dm->n_other++;
                }
                rg->ylo = fmin(rg->ylo, fmin(m.p_norm, m.e_norm));
                rg->yhi = fmax(rg->yhi, fmax(m.p_norm, m.e_norm));
            }
            mw_plot_tsv_text(d, m.name);
            fprintf(d, "\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%s\n", m.mean_s, m.p_norm,
                    m.e_norm, m.e->distance_pct, m.e->saving_pct, m.e->degradation_pct, m.freqs);
        }
    }
}

/* The dvfs figure of the solved problem in. 0, or -1 when it failed. */
static int write_dvfs(const mw_plot_job *j, const char *name, const char *title, dvfs_input *in)
{
    mw_plot_fig *f = mw_plot_fig_begin(j->out, name, "dvfs", DVFS_W, DVFS_H);
    if (!f) return -1;
    dvfs_ranges rg = {INFINITY, -INFINITY, INFINITY, -INFINITY, -INFINITY, 1};
    write_gear_curve(f, in, &rg);
    dvfs_methods dm;
    memset(&dm, 0, sizeof dm);
    write_methods(f, in, &dm, &rg);
    FILE *v = mw_plot_fig_vars(f);
    mw_plot_var_range(v, "ymin", "ymax", rg.ylo, rg.yhi, 0.02);
    mw_plot_var_range(v, "y2min", "y2max", rg.dlo, rg.dhi, 1);
    mw_plot_var_int(v, "have_maxdist", dm.have_maxdist);
    mw_plot_var_str(v, "maxdist_freqs", dm.maxdist_freqs);
    mw_plot_var_int(v, "n_other", dm.n_other);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_int(v, "n_ranks", (long long)in->run.nranks);
    mw_plot_var_int(v, "n_methods", (long long)dm.nnames);
    mw_plot_var_strs(v, "method_name", dm.names, dm.nnames);
    mw_plot_var_num(v, "best_uniform_s", rg.best_s);
    mw_plot_var_num(v, "best_uniform_distance", rg.best_d);
    mw_plot_var_num(v, "s_max", in->ghz[0] / in->ghz[in->nf - 1]);
    return mw_plot_fig_end(f);
}

int mw_plot_dvfs(const mw_plot_job *j, const mw_plot_run *r)
{
    char name[512], title[1024], note[NOTE_MAX];
    snprintf(name, sizeof name, "%sdvfs", j->prefix);
    snprintf(title, sizeof title, "DVFS: normalised energy and performance — %s", r->dir);
    dvfs_input *in = mw_xcalloc(1, sizeof *in);
    int rc;
    if (dvfs_solve(j->freqs, r->dir, in, note, sizeof note))
        rc = mw_plot_note_figure(j->out, name, title, note, DVFS_W, DVFS_H);
    else
        rc = write_dvfs(j, name, title, in);
    dvfs_input_free(in);
    free(in);
    return rc;
}

/* ---- pareto ------------------------------------------------------------------------- */

/* mw pareto PROFILE (--total when it gives a static power): the profile, its devices, the
 * solution (front, PARTITION's splits, LBOPA-TE), the static power (have_ps). */
typedef struct {
    mw_profile p;
    mw_pareto_devices d;
    mw_pareto_solution s;
    double ps;
    int have_ps;
} pareto_input;

static void pareto_input_free(pareto_input *in)
{
    mw_pareto_solution_free(&in->s);
    mw_pareto_devices_free(&in->d);
    mw_profile_free(&in->p);
}

/* The profile and its devices, as mw pareto reads them. 0, or -1 with its message in note. */
static int pareto_read(const char *profile, pareto_input *in, char *err, char *note, size_t len)
{
    int rc = mw_profile_load(profile, &in->p, err, PARETO_ERR) ||
                     mw_pareto_devices_build(&in->p, &in->d, err, PARETO_ERR)
                 ? -1
                 : 0;
    if (rc) snprintf(note, len, "mw pareto: %s", err);
    return rc;
}

/* mw pareto PROFILE, and again with --total when the profile gives a static power (the
 * first answer kept when LBOPA-TE fails), into *in (zeroed by the caller). 0, or -1 with what
 * mw pareto says in note. */
static int pareto_solve(const char *profile, pareto_input *in, char *note, size_t len)
{
    char *err = mw_xcalloc(1, PARETO_ERR);
    int rc = pareto_read(profile, in, err, note, len);
    const mw_profile *p = &in->p;
    double rel;
    size_t nsizes;
    if (!rc && !p->has_n) {
        snprintf(note, len,
                 "mw pareto: no workload: give --n N or an 'n' line in %s (try 'mw pareto "
                 "--help')",
                 profile);
        rc = -1;
    } else if (!rc && p->ntogether && mw_pareto_additivity(p, &rel, &nsizes, err, PARETO_ERR)) {
        snprintf(note, len, "mw pareto: %s", err);
        rc = -1;
    } else if (!rc) {
        in->ps = p->static_power_W;
        in->have_ps = p->has_static_power;
        rc = mw_pareto_solve(in->d.dev, in->d.k, p->n_units, in->ps, in->have_ps,
                             MW_PARETO_NO_QUERY, 0, &in->s, err, PARETO_ERR);
        if (rc && in->have_ps) { /* LBOPA-TE failed: the front without it */
            mw_pareto_solution_free(&in->s);
            rc = mw_pareto_solve(in->d.dev, in->d.k, p->n_units, in->ps, 0, MW_PARETO_NO_QUERY, 0,
                                 &in->s, err, PARETO_ERR);
        }
        if (rc)
            snprintf(note, len, "mw pareto: %s", *err ? err : "the front could not be computed");
    }
    free(err);
    return rc ? -1 : 0;
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

/* Blocks 1 (the front's end-points, with PARTITION's splits) and 2 (LBOPA-TE: the
 * performance-optimal point, then pieces as pairs of rows). */
static void write_points_and_te(mw_plot_fig *f, const pareto_input *in)
{
    FILE *d = mw_plot_fig_tsv(f);
    const mw_pareto_front *pf = &in->s.front;
    mw_plot_fig_block(f, "end-points (mw pareto): t_s\tdynamic_energy_j\ttotal_energy_j\tsplit");
    for (int q = 0; q <= pf->nseg; q++) {
        front_point(d, pf->t_s[q], pf->e_J[q], in->ps, in->have_ps);
        fputc('\t', d);
        const double *sp = in->s.split_units + (size_t)q * (size_t)pf->k;
        for (int i = 0; i < pf->k; i++)
            fprintf(d, "%s%.6g", i ? "," : "", sp[i]);
        fputc('\n', d);
    }
    mw_plot_fig_block(f, "LBOPA-TE, optimal for time and total energy: t_s\ttotal_energy_j "
                         "(the performance-optimal point, then pieces: pairs of rows)");
    const mw_pareto_te *te = &in->s.te;
    if (!in->s.has_te) return;
    fprintf(d, "%.10g\t%.10g\n", te->tmin_s, te->emax_J);
    for (int q = 0; q < te->npieces; q++)
        fprintf(d, "\n%.10g\t%.10g\n%.10g\t%.10g\n", te->piece[q].t0_s, te->piece[q].e0_J,
                te->piece[q].t1_s, te->piece[q].e1_J);
}

/* The pareto figure of the solved profile in. 0, or -1 when it failed. */
static int write_pareto(const mw_plot_job *j, const char *name, const char *title,
                        const pareto_input *in)
{
    mw_plot_fig *f = mw_plot_fig_begin(j->out, name, "pareto", PARETO_W, PARETO_H);
    if (!f) return -1;
    const mw_pareto_front *pf = &in->s.front;
    double elo, ehi;
    write_front(f, pf, in->ps, in->have_ps, &elo, &ehi);
    write_points_and_te(f, in);
    const char *notes[2];
    int nn = 0;
    if (!in->have_ps) notes[nn++] = "no static power in the profile: no total energy, no LBOPA-TE";
    /* the additivity check (mw pareto's line): the front assumes the devices' dynamic energies
     * add up; when the together runs say they do not, the figure says so */
    double rel = NAN;
    size_t nsizes;
    char add[256], aerr[256];
    if (in->p.ntogether && mw_pareto_additivity(&in->p, &rel, &nsizes, aerr, sizeof aerr))
        rel = NAN;
    if (isfinite(rel)) {
        snprintf(add, sizeof add,
                 "additivity check %s: devices alone and together differ by %.3g %% (<= 2.5 %% "
                 "accepted)",
                 rel > PARETO_ADDITIVE ? "FAILED" : "passed", 100 * rel);
        notes[nn++] = add;
    }
    char dl[512] = "";
    for (int i = 0; i < in->p.ndev; i++) {
        size_t len = strlen(dl);
        snprintf(dl + len, sizeof dl - len, "%s%s", i ? ", " : "", in->p.dev[i].name);
    }
    char sub[700];
    snprintf(sub, sizeof sub, "%g units over %d devices (%s)", pf->n_units, in->p.ndev, dl);
    double t0 = pf->t_s[0], t1 = pf->t_s[pf->nseg];
    FILE *v = mw_plot_fig_vars(f);
    mw_plot_var_range(v, "xmin", "xmax", t0, t1, t1 > 0 ? t1 * 0.02 : 1e-3);
    mw_plot_var_range(v, "ymin", "ymax", elo, ehi, ehi > 0 ? ehi * 0.02 : 1e-3);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_str(v, "subtitle", sub);
    mw_plot_var_int(v, "have_total", in->have_ps);
    mw_plot_var_num(v, "static_power", in->have_ps ? in->ps : 0);
    mw_plot_var_int(v, "have_te", in->s.has_te);
    mw_plot_var_int(v, "n_te_pieces", in->s.has_te ? in->s.te.npieces : 0);
    mw_plot_var_int(v, "n_notes", nn);
    mw_plot_var_strs(v, "notes", notes, (size_t)nn);
    mw_plot_var_num(v, "additivity_pct", 100 * rel); /* NaN: not checked */
    mw_plot_var_int(v, "additivity_failed", isfinite(rel) && rel > PARETO_ADDITIVE);
    return mw_plot_fig_end(f);
}

int mw_plot_pareto(const mw_plot_job *j, const char *profile, const char *name)
{
    char title[1024], note[NOTE_MAX];
    snprintf(title, sizeof title, "Time/energy Pareto front — %s (mw pareto)", profile);
    pareto_input in;
    memset(&in, 0, sizeof in);
    int rc;
    if (pareto_solve(profile, &in, note, sizeof note))
        rc = mw_plot_note_figure(j->out, name, title, note, PARETO_W, PARETO_H);
    else
        rc = write_pareto(j, name, title, &in);
    pareto_input_free(&in);
    return rc;
}
