/* sweep_precision (models/sweep_precision.c): mw sweep's repetition rule on runs whose
 * answer is worked out by hand. Three done runs of 1.00, 1.01, 0.99 s and 10.0, 10.1,
 * 9.9 J: mean 1 and 10, sd 0.01 and 0.1, so the Student-t 95 % half-width is
 * t(0.975, 2) = 4.3027 x sd / sqrt(3): 2.484 % of the mean, within 2.5 % (met at the
 * minimum of 3 runs) but not within 2 % (then 4 runs: t(0.975, 3) = 3.182 x 0.01 / 2 =
 * 1.59 %). Runs that failed, have no figures, are planned or lie beyond the rounds count
 * as the rule says; through a sweep index the verdict carries the stop reason and the
 * precisions reached (NAN with fewer than 2 runs). */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>

#include "mw_sweepindex.h"
#include "sweep_precision.h"

#define REL3 (4.302652729749464 * 0.01 / sqrt(3)) /* 2.484 % */

static mw_sweepidx_w_run run(int rep, const char *status, double t, double e)
{
    mw_sweepidx_w_run r = {.config = 1, .rep = rep, .cmd_s = t, .energy_j = e};
    snprintf(r.status, sizeof r.status, "%s", status);
    return r;
}

static void three_runs(void **state)
{
    const mw_sweepidx_w_run r[] = {run(1, "done", 1.00, 10.0), run(2, "done", 1.01, 10.1),
                                   run(3, "done", 0.99, 9.9)};
    mw_sweep_eval ev = {0};
    mw_sweep_eval_runs(r, 3, 10, 0.025, &ev);
    assert_int_equal(ev.n, 3);
    assert_int_equal(ev.done, 3);
    assert_int_equal(ev.attempts, 3);
    assert_true(fabs(ev.mean_t_s - 1) < 1e-12 && fabs(ev.sd_t_s - 0.01) < 1e-12);
    assert_true(fabs(ev.mean_e_j - 10) < 1e-12 && fabs(ev.sd_e_j - 0.1) < 1e-12);
    assert_true(ev.have);
    assert_true(fabs(ev.pt.rel - REL3) < 1e-9 && fabs(ev.pe.rel - REL3) < 1e-9);
    assert_int_equal(mw_sweep_precision_met(&ev), 1);
    assert_int_equal(mw_sweep_runs_needed(&ev, 0.025, 10), 3);
    assert_string_equal(mw_sweep_stop_reason(&ev, 1), "precision");
    assert_string_equal(mw_sweep_stop_reason(&ev, 0), "reps");

    mw_sweep_eval_runs(r, 3, 10, 0.02, &ev); /* the buffer is reused */
    assert_int_equal(mw_sweep_precision_met(&ev), 0);
    assert_int_equal(mw_sweep_runs_needed(&ev, 0.02, 10), 4);
    assert_int_equal(mw_sweep_runs_needed(&ev, 0.02, 3), 3); /* at most rounds */
    assert_string_equal(mw_sweep_stop_reason(&ev, 1), "max-reps");
    mw_sweep_eval_free(&ev);
    assert_null(ev.t_s);
}

static void every_kind_of_run(void **state)
{
    /* rounds 6: rep 7 is no attempt; rep 3 is done without figures; rep 4 only planned */
    const mw_sweepidx_w_run r[] = {run(1, "done", 1.00, 10.0), run(2, "failed", NAN, NAN),
                                   run(3, "done", NAN, NAN), run(4, "planned", NAN, NAN),
                                   run(7, "done", 1.02, 10.2)};
    mw_sweep_eval ev = {0};
    mw_sweep_eval_runs(r, 5, 6, 0.025, &ev);
    assert_int_equal(ev.n, 2);
    assert_int_equal(ev.done, 3);
    assert_int_equal(ev.failed, 1);
    assert_int_equal(ev.attempts, 3);
    assert_true(fabs(ev.mean_t_s - 1.01) < 1e-12);
    assert_true(fabs(ev.sd_t_s - 0.01 * sqrt(2)) < 1e-12);
    assert_int_equal(mw_sweep_precision_met(&ev), 0); /* fewer than 3 */
    /* t(0.975, 3) 0.01414 / 2 = 2.25 % of 1.01 (3 runs: 3.49 %): 4, plus the failure */
    assert_int_equal(mw_sweep_runs_needed(&ev, 0.025, 6), 5);
    mw_sweep_eval_runs(r, 1, 6, 0.025, &ev); /* one run: the minimum */
    assert_int_equal(mw_sweep_runs_needed(&ev, 0.025, 6), 3);
    mw_sweep_eval_runs(r, 0, 6, 0.025, &ev); /* none */
    assert_int_equal(ev.have, 0);
    assert_int_equal(mw_sweep_runs_needed(&ev, 0.025, 6), 3);
    mw_sweep_eval_free(&ev);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void verdict_from_the_index(void **state)
{
    char tmp[] = "/tmp/mw-sweepprec-XXXXXX", err[512];
    assert_non_null(mkdtemp(tmp));
    static const char *const vals[] = {"1", "2"};
    const mw_sweepidx_param p[] = {{"a", 2, vals}};
    char *const cmd[] = {"x", "{a}"};
    mw_sweepidx_w *w = mw_sweepidx_w_create(tmp, p, 1, 2, cmd, err, sizeof err);
    assert_non_null(w);
    const char *v1[] = {"1"}, *v2[] = {"2"};
    assert_int_equal(mw_sweepidx_w_config(w, 1, "a=1", v1, err, sizeof err), 0);
    assert_int_equal(mw_sweepidx_w_config(w, 2, "a=2", v2, err, sizeof err), 0);
    const double t[] = {1.00, 1.01, 0.99}, e[] = {10.0, 10.1, 9.9};
    for (int k = 0; k < 3; k++) {
        char rel[32];
        mw_sweepidx_w_run r;
        snprintf(rel, sizeof rel, "runs/a=1-r%d", k + 1);
        assert_int_equal(mw_sweepidx_w_plan(w, 1, k + 1, rel, &r, err, sizeof err), 0);
        snprintf(r.status, sizeof r.status, "done");
        r.cmd_s = t[k];
        r.energy_j = e[k];
        assert_int_equal(mw_sweepidx_w_update(w, &r, err, sizeof err), 0);
    }
    assert_int_equal(mw_sweepidx_w_plan(w, 2, 1, "runs/a=2-r1", NULL, err, sizeof err), 0);
    mw_sweep_rule ru;
    assert_int_equal(mw_sweep_rule_of(w, 1, 10, 1, 0.025, &ru, err, sizeof err), 0);
    assert_int_equal(ru.met, 1);
    assert_int_equal(ru.runs_needed, 3);
    assert_string_equal(ru.stop, "precision");
    assert_true(fabs(ru.time_rel - REL3) < 1e-9 && fabs(ru.energy_rel - REL3) < 1e-9);
    assert_int_equal(mw_sweep_rule_of(w, 1, 10, 0, 0, &ru, err, sizeof err), 0);
    assert_string_equal(ru.stop, "reps");
    assert_int_equal(ru.runs_needed, 10);
    assert_true(fabs(ru.time_rel - REL3) < 1e-9); /* reached, whatever was asked */
    assert_int_equal(mw_sweep_rule_of(w, 2, 10, 1, 0.025, &ru, err, sizeof err), 0);
    assert_int_equal(ru.met, 0);
    assert_string_equal(ru.stop, "max-reps");
    assert_true(isnan(ru.time_rel) && isnan(ru.energy_rel));
    mw_sweep_eval ev = {0};
    assert_int_equal(mw_sweep_eval_config(w, 0, 10, 1, &ev, err, sizeof err), 0);
    assert_int_equal(ev.n, 3); /* every configuration's */
    mw_sweep_eval_free(&ev);
    mw_sweepidx_w_close(w);
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(three_runs),
        cmocka_unit_test(every_kind_of_run),
        cmocka_unit_test(verdict_from_the_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
