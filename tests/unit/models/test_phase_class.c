/* The one rule of a rank's computation (models/include/mw_phase_class.h): its time outside
 * MPI and waits, inside its window (MPI_Init's end to MPI_Finalize's start), with what the
 * program marked as working; the unmarked part inferred. Answers worked out by hand on a
 * time line of whole seconds, and the same rank seen by mw analyze (mw_analysis) and mw dvfs
 * (mw_dvfs_rank_times), which must agree with it.
 *
 * PMPI only (an unmodified program under LD_PRELOAD): MPI_Init [0, 1), MPI_Send [2, 3),
 * MPI_Barrier (wait) [5, 6), MPI_Finalize [8, 9): window [1, 8) = 7 s, in MPI 2 s, so
 * computation [1, 2) + [3, 5) + [6, 8) = 5 s, all inferred.
 *
 * Marked: user "solve" [1, 6) with an MPI_Allreduce [2, 3) inside it, user "wait here" [6, 7)
 * (the program's own waiting), nothing [7, 8), compute "tail" [8, 9) (no MPI: the window is
 * [1, 9)): computation [1, 2) + [3, 6) + [7, 9) = 6 s, of which [1, 2) + [3, 6) + [8, 9) =
 * 5 s marked and [7, 8) = 1 s inferred. */
#include "../unit.h"

#include "dvfs_run.h"
#include "mw_analysis.h"
#include "mw_phase_class.h"

#define SEC 1000000000LL

typedef struct {
    const char *kind, *name;
    int a, b;
} ph;

static size_t rule(const ph *p, size_t n, mw_energy_span **sp, mw_phase_computation *c)
{
    mw_phase_span s[16];
    for (size_t i = 0; i < n; i++)
        s[i] = mw_phase_span_of(p[i].kind, p[i].name, p[i].a * SEC, p[i].b * SEC);
    return mw_phase_computation_spans(s, n, sp, c);
}

static const ph pmpi[] = {{"comm", "MPI_Init", 0, 1},
                          {"comm", "MPI_Send", 2, 3},
                          {"wait", "MPI_Barrier", 5, 6},
                          {"comm", "MPI_Finalize", 8, 9}};

static const ph marked[] = {{"user", "solve", 1, 6},
                            {"comm", "MPI_Allreduce", 2, 3},
                            {"user", "wait here", 6, 7},
                            {"compute", "tail", 8, 9}};

static void pmpi_only(void **state)
{
    mw_energy_span *sp;
    mw_phase_computation c;
    size_t n = rule(pmpi, 4, &sp, &c);
    assert_int_equal(n, 3);
    const int64_t want[3][2] = {{1, 2}, {3, 5}, {6, 8}};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(sp[i].start_ns, want[i][0] * SEC);
        assert_int_equal(sp[i].end_ns, want[i][1] * SEC);
    }
    assert_int_equal(c.window_start_ns, 1 * SEC);
    assert_int_equal(c.window_end_ns, 8 * SEC);
    assert_int_equal(c.work_ns, 5 * SEC);
    assert_int_equal(c.marked_ns, 0);
    assert_int_equal(c.inferred_ns, 5 * SEC);
    assert_int_equal(c.window_work_ns, 5 * SEC);
    assert_int_equal(c.window_not_ns, 2 * SEC);
    free(sp);
}

static void marked_and_inferred(void **state)
{
    mw_energy_span *sp;
    mw_phase_computation c;
    size_t n = rule(marked, 4, &sp, &c);
    assert_int_equal(n, 3);
    const int64_t want[3][2] = {{1, 2}, {3, 6}, {7, 9}};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(sp[i].start_ns, want[i][0] * SEC);
        assert_int_equal(sp[i].end_ns, want[i][1] * SEC);
    }
    assert_int_equal(c.work_ns, 6 * SEC);
    assert_int_equal(c.marked_ns, 5 * SEC);
    assert_int_equal(c.inferred_ns, 1 * SEC);
    free(sp);
    /* nothing but the recorder's kinds of no class: an empty window, no computation */
    mw_phase_span none = mw_phase_span_of("wait", "MPI_Barrier", 0, SEC);
    assert_int_equal(mw_phase_computation_spans(&none, 1, &sp, &c), 0);
    assert_null(sp);
    assert_int_equal(c.work_ns, 0);
    assert_int_equal(mw_phase_computation_spans(NULL, 0, &sp, &c), 0);
    assert_int_equal(c.work_ns, 0);
}

/* mw analyze and mw dvfs see the same computation for the PMPI-only rank */
static void commands_agree(void **state)
{
    char err[256];
    mw_analysis_run *r = mw_analysis_new("agree", 0, NULL);
    assert_int_equal(mw_analysis_add_channel(r, 1, "node", "h", err, sizeof err), 0);
    for (size_t i = 0; i < 4; i++)
        mw_analysis_add_phase(r, 0, "h", pmpi[i].kind, pmpi[i].name, pmpi[i].a * SEC,
                              pmpi[i].b * SEC);
    for (int k = 0; k < 10; k++) /* 100 W, 200 W while computing: the split must see it */
        assert_int_equal(mw_analysis_add_window(r, 1, k * SEC, (k + 1) * SEC,
                                                (k == 1 || k == 3 || k == 4 || k == 6 || k == 7)
                                                    ? 200000
                                                    : 100000,
                                                err, sizeof err),
                         0);
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), 0);
    assert_int_equal(r->nranks, 1);
    assert_int_equal(r->ranks[0].work_ns, 5 * SEC);
    assert_int_equal(r->ranks[0].inferred_ns, 5 * SEC);
    assert_true(r->ranks[0].work_energy_pj == (mw_energy_pj)1000 * 1000000000000);
    const mw_analysis_channel *ch = &r->channels[0];
    assert_int_equal(ch->split.state, MW_ANALYSIS_OK);
    assert_int_equal(ch->split.working_windows, 5);
    assert_true(fabs(mw_analysis_work_w(&ch->split) - 200.0) < 1e-9);
    assert_true(fabs(mw_analysis_idle_w(&ch->split) - 100.0) < 1e-9);
    mw_analysis_free(r);

    mw_dvfs_phase d[4];
    for (size_t i = 0; i < 4; i++)
        d[i] = (mw_dvfs_phase){pmpi[i].a * SEC, pmpi[i].b * SEC,
                               mw_dvfs_phase_class(pmpi[i].kind, pmpi[i].name)};
    double tcp, tcm;
    mw_dvfs_rank_times(d, 4, &tcp, &tcm);
    assert_true(tcp == 5.0);
    assert_true(tcm == 2.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pmpi_only),
        cmocka_unit_test(marked_and_inferred),
        cmocka_unit_test(commands_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
