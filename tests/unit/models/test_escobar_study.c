/* The Escobar study (models/escobar_study.c) on runs built here as structs, against answers
 * worked by hand. The runs are v3 with two CPU requesters (ranks 1 and 2, P_CPU = 1, one
 * subpopulation a chunk), N = 240, g = 30, N_Gm = 1, one channel over every rank (Pow 100 W,
 * idle 50 W). A chunk is 30 (240 / s) t seconds, so with t = 1 ms the busiest requester's
 * time is 7.2, 3.6, 4.8, 3.6 s for N_Spop s = 1..4 (1, 1, 2, 2 rounds of 7.2 / s):
 *
 *  - predict, each run's own parameters (T_master = T_com = 0): T = 7.2, 3.6, 4.8 against
 *    measured 7, 4, 5; E = 100 T (the channel busy all along); NRMSE of time
 *    1 - sqrt(0.24 / (14 / 3)) = 0.773221; relative errors (7.2 - 7) / 7 = 0.028571...;
 *  - predict with a calibration run: W/F by rank (rank 1: 1 ms), else the calibration's mean
 *    (rank 5: (1 + 3) / 2 = 2 ms), its T_master 0.5 and T_com 0.25, the power levels of the
 *    channel of the same name only: s = 2 gives chunks of 3.6 s and 7.2 s on the two
 *    requesters, T = 0.5 + 7.2 + 0.25 = 7.95 s;
 *  - the first missing parameter in input order is the one named, worded as mw fit says it
 *    (the run's, or the calibration's); parameters the model refuses name the run;
 *  - fit: times made by the model with t = 1 ms and T_master + T_com = 0.4 s (7.6, 4, 5.2, 4)
 *    are recovered from a start of 2 ms and 0.2 s, the rows then predict them exactly
 *    (NRMSE 1) and T_master : T_com keeps the runs' own 1 : 1; times 0.1 s below the model's
 *    give T_master + T_com = -0.1 and its note; one run is too few for 2 parameters;
 *  - groups come v2 then v3 whatever the input order, with the paper's NRMSE;
 *  - options out of range and inputs that are not runs. */
#include "../unit.h"

#include "escobar_study.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* the v3 run described above: N_Spop s, W/F t, T_master, T_com, measured time */
static void v3_run(mw_escobar_run *r, const char *dir, int s, double t, double t_master,
                   double t_com, double t_meas)
{
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    mw_escobar_params *p = &r->p;
    p->version = 3;
    p->individuals = 240;
    p->n_spop = s;
    p->g = 30;
    p->n_lm = 1;
    p->n_gm = 1;
    p->t_master_s = t_master;
    p->t_com_s = t_com;
    p->nworkers = 2;
    for (int i = 0; i < 2; i++) {
        mw_escobar_worker *w = &p->w[i];
        w->rank = i + 1;
        snprintf(w->host, sizeof w->host, "a");
        w->delta_spop = 1;
        w->p_cpu = 1;
        w->t_cpu_s = t;
    }
    p->nnodes = 1;
    snprintf(p->node[0].name, sizeof p->node[0].name, "n0");
    p->node[0].all = 1;
    p->node[0].master = 1;
    p->node[0].pow_w = 100;
    p->node[0].pow_idle_w = 50;
    r->ranks = 3;
    r->have_t_cpu = r->have_t_master = r->have_t_lm = 1;
    r->t_measured_s = t_meas;
    r->e_measured_j = 100 * t_meas;
}

static void predict_own(void **state)
{
    (void)state;
    mw_escobar_run *runs = calloc(3, sizeof *runs);
    v3_run(&runs[0], "s1", 1, 0.001, 0, 0, 7);
    v3_run(&runs[1], "s2", 2, 0.001, 0, 0, 4);
    v3_run(&runs[2], "s3", 3, 0.001, 0, 0, 5);
    mw_escobar_study_opts o = {0};
    mw_escobar_study *s;
    char err[256];
    assert_int_equal(mw_escobar_study_of_runs(&o, runs, 3, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_OK);
    free(runs); /* the study holds its own copies */
    assert_int_equal(s->nrows, 3);
    assert_int_equal(s->fit, 0);
    NEAR(s->confidence, 0.95, 1e-15);
    const double t[3] = {7.2, 3.6, 4.8}, meas[3] = {7, 4, 5};
    for (int i = 0; i < 3; i++) {
        const mw_escobar_study_row *r = &s->rows[i];
        assert_ptr_equal(r->run, &s->runs[i]);
        NEAR(r->pr.t_cluster_s, t[i], 1e-9);
        NEAR(r->pr.energy_j, 100 * t[i], 1e-6);
        NEAR(r->t_err_rel, (t[i] - meas[i]) / meas[i], 1e-12);
        NEAR(r->e_err_rel, (t[i] - meas[i]) / meas[i], 1e-12);
        NEAR(r->t_cpu_s, 0.001, 1e-15);
        assert_true(isnan(r->t_gpu_s)); /* no GPU requester */
    }
    NEAR(s->rows[0].t_err_rel, 0.2 / 7, 1e-12);
    assert_int_equal(s->ngroups, 1);
    const mw_escobar_study_group *g = mw_escobar_study_group_of(s, 3);
    assert_non_null(g);
    assert_null(mw_escobar_study_group_of(s, 2));
    assert_int_equal(g->nruns, 3);
    assert_int_equal(g->fitted, 0);
    NEAR(g->nrmse_t, 0.77322132, 1e-7);
    NEAR(g->nrmse_e, 0.77322132, 1e-7); /* E = 100 T, both measured and predicted */
    NEAR(g->paper_nrmse_t, 0.787, 1e-12);
    NEAR(g->paper_nrmse_e, 0.744, 1e-12);
    mw_escobar_study_free(s);
}

static void predict_calibrated(void **state)
{
    (void)state;
    mw_escobar_run *r = calloc(2, sizeof *r), *cal = &r[1];
    v3_run(&r[0], "run", 2, 0.004, 9, 9, 8);
    r[0].p.w[1].rank = 5; /* not in the calibration run: its mean */
    r[0].p.nnodes = 2;
    r[0].p.node[1] = r[0].p.node[0];
    snprintf(r[0].p.node[1].name, sizeof r[0].p.node[1].name, "n9");
    r[0].have_t_master = 0; /* the calibration gives it */
    v3_run(cal, "cal", 2, 0.001, 0.5, 0.25, 1);
    cal->p.w[1].t_cpu_s = 0.003;
    cal->p.node[0].pow_w = 200;
    cal->p.node[0].pow_idle_w = 20;
    mw_escobar_study_opts o = {0};
    mw_escobar_study *s;
    char err[256];
    assert_int_equal(mw_escobar_study_of_runs(&o, r, 1, cal, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_OK);
    const mw_escobar_study_row *row = &s->rows[0];
    NEAR(row->p.w[0].t_cpu_s, 0.001, 1e-15);
    NEAR(row->p.w[1].t_cpu_s, 0.002, 1e-15);
    NEAR(row->p.t_master_s, 0.5, 1e-15);
    NEAR(row->p.t_com_s, 0.25, 1e-15);
    NEAR(row->p.node[0].pow_w, 200, 1e-12); /* n0 by name */
    NEAR(row->p.node[0].pow_idle_w, 20, 1e-12);
    NEAR(row->p.node[1].pow_w, 100, 1e-12); /* n9: its own */
    NEAR(row->pr.t_cluster_s, 7.95, 1e-9);
    NEAR(row->t_cpu_s, 0.0015, 1e-15);
    NEAR(s->runs[0].p.w[0].t_cpu_s, 0.004, 1e-15); /* the run as measured */
    mw_escobar_study_free(s);
    free(r);
}

static void missing_parameters(void **state)
{
    (void)state;
    mw_escobar_run *r = calloc(4, sizeof *r);
    v3_run(&r[0], "ok", 1, 0.001, 0, 0, 7);
    v3_run(&r[1], "nomaster", 2, 0.001, 0, 0, 4);
    r[1].have_t_master = 0;
    v3_run(&r[2], "nocpu", 3, 0.001, 0, 0, 5);
    r[2].have_t_cpu = 0;
    mw_escobar_study_opts o = {0};
    mw_escobar_study *s = (mw_escobar_study *)1;
    char err[512];
    assert_int_equal(mw_escobar_study_of_runs(&o, r, 3, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_BAD_INPUT);
    assert_null(s);
    assert_string_equal(err, "nomaster: missing parameter T_master (t_master_s): no 'global "
                             "migration' phases on rank 0; record a run that has it, or give "
                             "--calibration RUNDIR");
    assert_int_equal(mw_escobar_study_of_runs(&o, r + 2, 1, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_BAD_INPUT);
    assert_string_equal(err, "nocpu: missing parameter W_CPU/F_CPU (t_cpu_s): no 'evaluate "
                             "cpu' phases with 'eeg evaluated' counters; record a run that has "
                             "it, or give --calibration RUNDIR");
    /* the calibration's own gap, named as the calibration's */
    v3_run(&r[3], "cal", 1, 0.001, 0, 0, 7);
    r[3].have_t_master = 0;
    assert_int_equal(mw_escobar_study_of_runs(&o, r, 1, &r[3], &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_BAD_INPUT);
    assert_string_equal(err, "--calibration cal: missing parameter T_master (t_master_s): no "
                             "'global migration' phases on rank 0; calibrate with a run that "
                             "has it");
    /* fit mode needs no measured time parameter */
    o.fit = 1;
    assert_int_equal(mw_escobar_study_of_runs(&o, r, 3, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_OK);
    mw_escobar_study_free(s);
    /* parameters the model refuses */
    o.fit = 0;
    r[0].p.n_gm = 0;
    assert_int_equal(mw_escobar_study_of_runs(&o, r, 1, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_BAD_INPUT);
    assert_string_equal(err, "ok: the model's parameters: N_Gm 0 < 1");
    free(r);
}

static void collect_note(void *ctx, const char *text)
{
    char *buf = ctx;
    size_t n = strlen(buf);
    snprintf(buf + n, 1024 - n, "%s|", text);
}

/* four v3 runs, s = 1..4, measured = the model's with 1 ms and an overhead ovh, started from
 * 2 ms and T_master = T_com = 0.1 */
static mw_escobar_run *fit_runs(double ovh)
{
    mw_escobar_run *r = calloc(4, sizeof *r);
    const double k[4] = {7.2, 3.6, 4.8, 3.6};
    for (int i = 0; i < 4; i++)
        v3_run(&r[i], "f", i + 1, 0.002, 0.1, 0.1, k[i] + ovh);
    return r;
}

static void fit_mode(void **state)
{
    (void)state;
    mw_escobar_run *r = fit_runs(0.4);
    char notes[1024] = "", err[512];
    mw_escobar_study_opts o = {
        .fit = 1, .confidence = 0.9, .note = collect_note, .note_ctx = notes};
    mw_escobar_study *s;
    assert_int_equal(mw_escobar_study_of_runs(&o, r, 4, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_OK);
    assert_string_equal(notes, "");
    NEAR(s->confidence, 0.9, 1e-15);
    const mw_escobar_study_group *g = mw_escobar_study_group_of(s, 3);
    assert_int_equal(g->fitted, 1);
    assert_int_equal(g->fit.nparams, 2);
    assert_int_equal(g->fit.dof, 2);
    assert_true(g->fit.used[MW_ESCOBAR_FIT_T_CPU] && g->fit.used[MW_ESCOBAR_FIT_T_OVH]);
    assert_false(g->fit.used[MW_ESCOBAR_FIT_T_GPU] || g->fit.used[MW_ESCOBAR_FIT_T_LM]);
    NEAR(g->fit.value[MW_ESCOBAR_FIT_T_CPU], 0.001, 1e-9);
    NEAR(g->fit.value[MW_ESCOBAR_FIT_T_OVH], 0.4, 1e-6);
    for (int i = 0; i < 4; i++) {
        NEAR(s->rows[i].pr.t_cluster_s, r[i].t_measured_s, 1e-6);
        NEAR(s->rows[i].p.t_master_s, 0.2, 1e-6); /* the run's own 1 : 1 */
        NEAR(s->rows[i].p.t_com_s, 0.2, 1e-6);
        NEAR(s->rows[i].t_cpu_s, 0.001, 1e-9);
    }
    NEAR(g->nrmse_t, 1, 1e-6);
    mw_escobar_study_free(s);
    free(r);

    /* an overhead < 0 is fitted as it is, with a note */
    r = fit_runs(-0.1);
    assert_int_equal(mw_escobar_study_of_runs(&o, r, 4, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_OK);
    NEAR(s->group[0].fit.value[MW_ESCOBAR_FIT_T_OVH], -0.1, 1e-6);
    assert_string_equal(notes, "v3: fitted t_ovh_s = -0.1 < 0: these runs do not determine it "
                               "(add runs whose N_Spop changes the rounds or chunk sizes)|");
    mw_escobar_study_free(s);

    /* one run for two parameters */
    assert_int_equal(mw_escobar_study_of_runs(&o, r, 1, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_BAD_INPUT);
    assert_null(s);
    assert_string_equal(err, "v3: 1 runs for 2 parameters (t_cpu_s, t_ovh_s): the fit needs at "
                             "least 2 (give more runs of v3, or --mode predict)");
    free(r);
}

static void groups_by_version(void **state)
{
    (void)state;
    mw_escobar_run *r = calloc(3, sizeof *r);
    v3_run(&r[0], "a", 1, 0.001, 0, 0, 7);
    v3_run(&r[1], "b", 2, 0.001, 0, 0, 3);
    v3_run(&r[2], "c", 2, 0.001, 0, 0, 3);
    r[2].p.version = 2; /* g = 30 generations a local epoch, T_Lm = 0.1 s: 3.6 + 0.1 */
    r[2].p.t_lm_s = 0.1;
    mw_escobar_study_opts o = {0};
    mw_escobar_study *s;
    char err[256];
    assert_int_equal(mw_escobar_study_of_runs(&o, r, 3, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_OK);
    assert_int_equal(s->ngroups, 2);
    assert_int_equal(s->group[0].version, 2);
    assert_int_equal(s->group[0].nruns, 1);
    assert_int_equal(s->group[1].version, 3);
    assert_int_equal(s->group[1].nruns, 2);
    NEAR(s->group[0].paper_nrmse_t, 0.439, 1e-12);
    NEAR(s->group[0].paper_nrmse_e, 0.403, 1e-12);
    assert_true(isnan(s->group[0].nrmse_t)); /* one run: undefined */
    NEAR(s->rows[2].pr.t_cluster_s, 3.7, 1e-9);
    /* y = 7, 3 against 7.2, 3.6: 1 - sqrt(0.04 + 0.36) / sqrt(4 + 4) */
    NEAR(s->group[1].nrmse_t, 1 - sqrt(0.4) / sqrt(8), 1e-9);
    mw_escobar_study_free(s);
    free(r);
}

static void options_and_inputs(void **state)
{
    (void)state;
    mw_escobar_run *r = calloc(1, sizeof *r);
    v3_run(r, "a", 1, 0.001, 0, 0, 7);
    mw_escobar_study *s;
    char err[512];
    mw_escobar_study_opts o = {.confidence = 1};
    assert_int_equal(mw_escobar_study_of_runs(&o, r, 1, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_FAILED);
    assert_null(s);
    assert_int_equal(mw_escobar_study_of_runs(NULL, r, 1, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_FAILED);
    o.confidence = 0;
    assert_int_equal(mw_escobar_study_of_runs(&o, r, -1, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_FAILED);
    /* no runs: an empty study */
    assert_int_equal(mw_escobar_study_of_runs(&o, NULL, 0, NULL, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_OK);
    assert_int_equal(s->nrows, 0);
    assert_int_equal(s->ngroups, 0);
    mw_escobar_study_free(s);
    free(r);
    /* directories */
    assert_int_equal(mw_escobar_study_run(&o, NULL, 0, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_BAD_INPUT);
    assert_string_equal(err, "no run directories");
    char *dirs[] = {"/nonexistent/run"};
    assert_int_equal(mw_escobar_study_run(&o, dirs, 1, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_BAD_INPUT);
    assert_null(s);
    assert_non_null(strstr(err, "/nonexistent/run: not a run"));
    o.calibration = "/nonexistent/cal";
    assert_int_equal(mw_escobar_study_run(&o, dirs, 1, &s, err, sizeof err),
                     MW_ESCOBAR_STUDY_BAD_INPUT);
    assert_non_null(strstr(err, "--calibration /nonexistent/cal: not a run"));
    mw_escobar_study_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(predict_own),        cmocka_unit_test(predict_calibrated),
        cmocka_unit_test(missing_parameters), cmocka_unit_test(fit_mode),
        cmocka_unit_test(groups_by_version),  cmocka_unit_test(options_and_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
