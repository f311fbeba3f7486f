/* A run as the DVFS model's inputs (models/dvfs_run.c), against figures worked by hand:
 *  - phase classes: comm, wait, mpi and a program's own waiting phases are communication;
 *    MPI_Init(_thread) and MPI_Finalize mark the span;
 *  - rank times: MPI_Init ends at 100 ns, MPI_Finalize starts at 1000 ns; waits [600, 800)
 *    and a send [700, 900) overlap (union 300 ns), a send [50, 150) counts from 100 on:
 *    T_cm = 350 ns, T_cp = 900 - 350 = 550 ns; without the markers the span is the phases';
 *  - a run written through the store's API: channels n0@h1 (10..30 W), n1@h2 (5..15 W), sw
 *    without host (100..102 W), ch4 without samples; ranks (0, h1), (1, a0), (1, h2) in
 *    rank then host order, the recorder's, marks and counters left out; P_d by eq. 3.15 is
 *    20 W, 2 W (a0 has no channel: the host-less sw, which only it uses), 10 W;
 *  - --pd specs: "5", "-1", "1=7,h1=3", "0=1,zz=2", "0=1,x", an unmeasured rank;
 *  - gear tables sorted and deduplicated; the problem's arrays; the four selectors with
 *    RR refusing no static power and the oracle refusing more combinations than allowed. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dvfs_run.h"
#include "mw_run.h"
#include "mw_store.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void phase_classes(void **state)
{
    assert_int_equal(mw_dvfs_phase_class("comm", "x"), MW_DVFS_PHASE_COMM);
    assert_int_equal(mw_dvfs_phase_class("wait", "MPI_Barrier"), MW_DVFS_PHASE_COMM);
    assert_int_equal(mw_dvfs_phase_class("user", "Wait global"), MW_DVFS_PHASE_COMM);
    assert_int_equal(mw_dvfs_phase_class("user", "idle"), MW_DVFS_PHASE_COMM);
    assert_int_equal(mw_dvfs_phase_class("user", "compute"), 0);
    assert_int_equal(mw_dvfs_phase_class("omp", "idle"), 0);
    assert_int_equal(mw_dvfs_phase_class("mpi", "MPI_Init"),
                     MW_DVFS_PHASE_COMM | MW_DVFS_PHASE_INIT);
    assert_int_equal(mw_dvfs_phase_class("user", "MPI_Init_thread"), MW_DVFS_PHASE_INIT);
    assert_int_equal(mw_dvfs_phase_class("comm", "MPI_Finalize"),
                     MW_DVFS_PHASE_COMM | MW_DVFS_PHASE_FINALIZE);
}

static void rank_times(void **state)
{
    const unsigned C = MW_DVFS_PHASE_COMM;
    mw_dvfs_phase ph[] = {
        {1000, 1100, C | MW_DVFS_PHASE_FINALIZE},
        {100, 600, 0},
        {600, 800, C},
        {700, 900, C},
        {900, 1000, 0},
        {0, 100, C | MW_DVFS_PHASE_INIT},
        {50, 150, C},
    };
    double tcp, tcm;
    mw_dvfs_rank_times(ph, 7, &tcp, &tcm);
    NEAR(tcm, 350e-9, 1e-18);
    NEAR(tcp, 550e-9, 1e-18);
    /* no markers: the span is [0, 1100); communication 50..150 and 600..900 and the two
     * marker phases (now plain communication): 0..150, 600..900, 1000..1100 = 550 ns */
    for (int i = 0; i < 7; i++)
        ph[i].cls &= C;
    mw_dvfs_rank_times(ph, 7, &tcp, &tcm);
    NEAR(tcm, 550e-9, 1e-18);
    NEAR(tcp, 550e-9, 1e-18);
    mw_dvfs_phase empty[] = {{0, 10, MW_DVFS_PHASE_FINALIZE}, {5, 20, MW_DVFS_PHASE_INIT}};
    mw_dvfs_rank_times(empty, 2, &tcp, &tcm); /* the span ends before it starts */
    assert_true(tcp == 0 && tcm == 0);
}

static void add_windows(mw_store *s, int channel, const int *mw, int n)
{
    for (int i = 0; i < n; i++) {
        mw_store_sample x = {.channel = channel,
                             .seq = (uint32_t)i,
                             .t0_ns = 250 * i,
                             .t1_ns = 250 * (i + 1),
                             .power_mw = mw[i]};
        assert_int_equal(mw_store_sample_add(s, &x), 0);
    }
}

/* The run of the header, open read-only in *out. */
static mw_store *small_run(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-dvfsrun-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char dir[128], err[256];
    snprintf(dir, sizeof dir, "%s/r", tmpdir);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 1, "n0", "h1", NULL), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "n1", "h2", NULL), 0);
    assert_int_equal(mw_store_channel_add(s, 3, "sw", NULL, NULL), 0);
    assert_int_equal(mw_store_channel_add(s, 4, "ch4", "", NULL), 0);
    add_windows(s, 1, (const int[]){10000, 30000, 20000}, 3);
    add_windows(s, 2, (const int[]){15000, 5000}, 2);
    add_windows(s, 3, (const int[]){100000, 102000}, 2);
    const mw_store_phase ph[] = {
        {1, "h2", 0, "user", "compute", 0, 400, 0, 2, -1},
        {1, "a0", 0, "user", "compute", 0, 300, 0, 3, -1},
        {1, "a0", 0, "comm", "send", 300, 400, 0, 3, -1},
        {0, "h1", 0, "user", "compute", 0, 200, 0, 1, -1},
        {0, "h1", 0, "wait", "MPI_Barrier", 200, 400, 0, 1, -1},
        {-1, "", 0, "mw", "idle-before", 0, 1000, 0, 0, -1},
        {0, "h1", 0, "mark", "m", 500, 500, 0, 1, -1},
        {2, "h3", 0, "counter", "c", 0, 0, 7, 9, -1},
    };
    for (size_t i = 0; i < sizeof ph / sizeof *ph; i++)
        assert_int_equal(mw_store_phase_add(s, &ph[i]), 0);
    mw_store_close(s);
    s = mw_store_open(dir, err, sizeof err);
    assert_non_null(s);
    return s;
}

static void done(mw_store *s)
{
    mw_store_close(s);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void read_a_run(void **state)
{
    mw_store *s = small_run();
    mw_dvfs_run run;
    assert_int_equal(mw_dvfs_run_read(s, &run), 0);
    assert_int_equal(run.nchans, 4);
    assert_string_equal(run.chans[0].host, "h1");
    assert_null(run.chans[2].host);
    assert_null(run.chans[3].host); /* "" is no host */
    NEAR(run.chans[0].min_w, 10, 0);
    NEAR(run.chans[0].max_w, 30, 0);
    NEAR(run.chans[1].min_w, 5, 0);
    NEAR(run.chans[2].max_w, 102, 0);
    assert_int_equal(run.chans[0].samples, 3);
    assert_int_equal(run.chans[3].samples, 0);
    assert_int_equal(run.nranks, 3);
    static const int rank[] = {0, 1, 1};
    static const char *const host[] = {"h1", "a0", "h2"};
    static const double tcm[] = {200e-9, 100e-9, 0};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(run.ranks[i].rank, rank[i]);
        assert_string_equal(run.ranks[i].host, host[i]);
        NEAR(run.ranks[i].tcm_s, tcm[i], 1e-18);
        NEAR(run.ranks[i].tcp_s, 400e-9 - tcm[i], 1e-18);
    }
    size_t at, len;
    assert_int_equal(mw_dvfs_run_powers(&run, NULL, &at, &len), MW_DVFS_PD_OK);
    NEAR(run.ranks[0].pd_w, 20, 1e-12);
    NEAR(run.ranks[1].pd_w, 2, 1e-12);
    NEAR(run.ranks[2].pd_w, 10, 1e-12);
    assert_int_equal(run.chans[2].nranks, 1);
    assert_false(run.ranks[0].pd_given);
    mw_dvfs_run_free(&run);
    done(s);
}

static void pd_specs(void **state)
{
    mw_store *s = small_run();
    mw_dvfs_run run;
    size_t at, len;
    assert_int_equal(mw_dvfs_run_read(s, &run), 0);
    assert_int_equal(mw_dvfs_run_powers(&run, "5", &at, &len), MW_DVFS_PD_OK);
    for (int i = 0; i < 3; i++)
        assert_true(run.ranks[i].pd_w == 5 && run.ranks[i].pd_given);
    mw_dvfs_run_free(&run);
    assert_int_equal(mw_dvfs_run_read(s, &run), 0);
    assert_int_equal(mw_dvfs_run_powers(&run, "-1", &at, &len), MW_DVFS_PD_NEGATIVE);
    assert_true(at == 0 && len == 2);
    assert_int_equal(mw_dvfs_run_powers(&run, "1=7,h1=3", &at, &len), MW_DVFS_PD_OK);
    NEAR(run.ranks[0].pd_w, 3, 0);
    NEAR(run.ranks[1].pd_w, 7, 0);
    NEAR(run.ranks[2].pd_w, 7, 0);
    assert_int_equal(mw_dvfs_run_powers(&run, "0=1,zz=2", &at, &len), MW_DVFS_PD_NO_NODE);
    assert_true(at == 4 && len == 2);
    assert_int_equal(mw_dvfs_run_powers(&run, "0=1,x", &at, &len), MW_DVFS_PD_NOT_NODE_W);
    assert_true(at == 4 && len == 1);
    assert_int_equal(mw_dvfs_run_powers(&run, "0=abc", &at, &len), MW_DVFS_PD_NOT_NODE_W);
    assert_int_equal(mw_dvfs_run_powers(&run, "=3", &at, &len), MW_DVFS_PD_NOT_NODE_W);
    assert_int_equal(mw_dvfs_run_powers(&run, "0=-2", &at, &len), MW_DVFS_PD_NOT_NODE_W);
    /* a rank whose host has no channel, and no host-less channel with samples */
    free(run.chans[2].host);
    run.chans[2].host = strdup("h9");
    run.ranks[1].pd_given = 0;
    assert_int_equal(mw_dvfs_run_powers(&run, NULL, &at, &len), MW_DVFS_PD_UNMEASURED);
    assert_int_equal(at, 1);
    mw_dvfs_run_free(&run);
    done(s);
}

static void gears_problem_and_choices(void **state)
{
    double ghz[] = {1, 2.5, 2, 2.5, 1.5};
    assert_int_equal(mw_dvfs_gears_sort(ghz, 5), 4);
    assert_true(ghz[0] == 2.5 && ghz[1] == 2 && ghz[2] == 1.5 && ghz[3] == 1);
    mw_dvfs_rank ranks[2] = {{0, "a", 1.0, 0.5, 10, 0, 0}, {1, "b", 0.8, 0.7, 12, 0, 0}};
    mw_dvfs_run run = {ranks, 2, NULL, 0};
    mw_dvfs_problem p;
    mw_dvfs_run_problem(&run, ghz, 4, &p);
    assert_int_equal(p.n, 2);
    assert_true(p.tcp_s[1] == 0.8 && p.tcm_s[0] == 0.5 && p.pd_w[1] == 12 && p.ps_w[0] == 0);
    assert_true(p.gears[1].ghz == ghz && p.gears[1].n == 4 && !p.cluster);
    char err[128];
    assert_int_equal(mw_dvfs_check(&p, err, sizeof err), 0);
    mw_dvfs_eval base;
    mw_dvfs_choice c[4];
    mw_dvfs_choose(&p, MW_DVFS_HETERO, 15, 10, &base, c); /* 4^2 = 16 > 10 combinations */
    NEAR(base.time_old_s, 1.5, 1e-12);                    /* max(1 + 0.5, 0.8 + 0.7) */
    NEAR(base.energy_old_j, 10 * 1.0 + 12 * 0.8, 1e-12);  /* no static power */
    assert_true(c[0].ok && c[1].ok && !c[2].ok && !c[3].ok && c[3].too_many && !c[2].too_many);
    size_t g[2];
    mw_dvfs_eval e;
    assert_int_equal(mw_dvfs_select_maxdist(&p, MW_DVFS_HETERO, g, &e), 0);
    assert_true(g[0] == c[0].gear[0] && g[1] == c[0].gear[1] &&
                e.distance_pct == c[0].e.distance_pct);
    for (int k = 0; k < 4; k++)
        free(c[k].gear);
    mw_dvfs_choose(&p, MW_DVFS_HETERO, MW_DVFS_BY_ORACLE, 16, &base, c);
    assert_true(!c[0].ok && !c[1].ok && c[3].ok && !c[3].too_many);
    assert_true(c[3].e.distance_pct >= 0);
    for (int k = 0; k < 4; k++)
        free(c[k].gear);
    mw_dvfs_run_problem_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(phase_classes),
        cmocka_unit_test(rank_times),
        cmocka_unit_test(read_a_run),
        cmocka_unit_test(pd_specs),
        cmocka_unit_test(gears_problem_and_choices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
