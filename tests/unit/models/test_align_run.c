/* A run's windows and busy spans for the alignment check (models/align_run.c), on a run
 * written through the store's API whose selections are listed by hand:
 *  - the rule: spans only, the host, the kind but not a program's own waiting phases, or
 *    the name when selecting by name;
 *  - user phases on h1 (origin 10 s): rank 0 pid 11 at [0.2, 0.4] s, rank 0 pid 10 at
 *    [1, 2] s and a nested thread's [1.5, 2.5] s, rank 1 pid 5 at [0.5, 1] s; left out: an
 *    "idle" user phase, a phase on h2, an empty one, a compute phase. Selected: 4 phases,
 *    3 processes; spans by rank then pid, each pid's merged: [1, 2.5], [0.2, 0.4], [0.5, 1];
 *  - by name, "idle" is selected even though it is a waiting phase;
 *  - the channels in channel order (no host: ""), the windows of one in seconds and W. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "align_run.h"
#include "mw_store.h"

#define S 1000000000LL
#define ORIGIN (10 * S)
#define NEAR(a, b) assert_true(fabs((a) - (b)) <= 1e-12)

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void the_rule(void **state)
{
    mw_align_selector kind = {"h1", "user", 0, 0}, name = {NULL, "idle", 1, 0};
    mw_store_phase p = {0, "h1", 0, "user", "work", 5, 6, 0, 1, -1};
    assert_true(mw_align_selects(&kind, &p));
    assert_false(mw_align_selects(&name, &p));
    p.name = "Idle";
    assert_false(mw_align_selects(&kind, &p)); /* a waiting phase */
    p.name = "idle";
    assert_true(mw_align_selects(&name, &p)); /* by name, on any host */
    p.name = "work";
    p.host = "h2";
    assert_false(mw_align_selects(&kind, &p));
    p.host = "h1";
    p.end_ns = 5;
    assert_false(mw_align_selects(&kind, &p)); /* not a span */
    p = (mw_store_phase){0, "h1", 0, "compute", "user", 5, 6, 0, 1, -1};
    assert_false(mw_align_selects(&kind, &p));
    kind.by_name = 1; /* named "user" */
    assert_true(mw_align_selects(&kind, &p));
}

static mw_store *small_run(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-alignrun-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char dir[128], err[256];
    snprintf(dir, sizeof dir, "%s/r", tmpdir);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 2, "c2", NULL, NULL), 0);
    assert_int_equal(mw_store_channel_add(s, 1, "c1", "h1", NULL), 0);
    for (int i = 0; i < 3; i++) {
        mw_store_sample x = {.channel = 1,
                             .seq = (uint32_t)i,
                             .t0_ns = ORIGIN + i * S / 4,
                             .t1_ns = ORIGIN + (i + 1) * S / 4,
                             .power_mw = 1500 * (i + 1)};
        assert_int_equal(mw_store_sample_add(s, &x), 0);
    }
    const int64_t o = ORIGIN;
    const mw_store_phase ph[] = {
        {0, "h1", 0, "user", "work", o + S, o + 2 * S, 0, 10, -1},
        {0, "h1", 1, "user", "work", o + 3 * S / 2, o + 5 * S / 2, 0, 10, -1},
        {0, "h1", 0, "user", "work", o + S / 5, o + 2 * S / 5, 0, 11, -1},
        {1, "h1", 0, "user", "work", o + S / 2, o + S, 0, 5, -1},
        {1, "h1", 0, "user", "idle", o + 3 * S, o + 4 * S, 0, 5, -1},
        {1, "h2", 0, "user", "work", o + 3 * S, o + 4 * S, 0, 6, -1},
        {1, "h1", 0, "user", "work", o + 5 * S, o + 5 * S, 0, 5, -1},
        {1, "h1", 0, "compute", "c", o + 5 * S, o + 6 * S, 0, 5, -1},
    };
    for (size_t i = 0; i < sizeof ph / sizeof *ph; i++)
        assert_int_equal(mw_store_phase_add(s, &ph[i]), 0);
    mw_store_close(s);
    s = mw_store_open(dir, err, sizeof err);
    assert_non_null(s);
    return s;
}

static void spans_and_windows(void **state)
{
    mw_store *s = small_run();
    mw_align_selector sel = {"h1", "user", 0, 0};
    int64_t count;
    assert_int_equal(mw_align_run_count(s, &sel, &count), 0);
    assert_int_equal(count, 4);
    mw_align_span *sp;
    size_t n, processes;
    assert_int_equal(mw_align_run_spans(s, &sel, ORIGIN, &sp, &n, &processes), 0);
    assert_int_equal(n, 3);
    assert_int_equal(processes, 3);
    NEAR(sp[0].start_s, 1), NEAR(sp[0].end_s, 2.5);
    NEAR(sp[1].start_s, 0.2), NEAR(sp[1].end_s, 0.4);
    NEAR(sp[2].start_s, 0.5), NEAR(sp[2].end_s, 1);
    free(sp);
    sel = (mw_align_selector){NULL, "idle", 1, 0};
    assert_int_equal(mw_align_run_count(s, &sel, &count), 0);
    assert_int_equal(count, 1);
    mw_align_channel list[MW_ALIGN_MAX_CHANNELS];
    int nch;
    assert_int_equal(mw_align_run_channels(s, list, &nch), 0);
    assert_int_equal(nch, 2);
    assert_string_equal(list[0].name, "c1");
    assert_string_equal(list[0].host, "h1");
    assert_string_equal(list[1].host, "");
    mw_align_window *w;
    assert_int_equal(mw_align_run_windows(s, 1, ORIGIN, &w, &n), 0);
    assert_int_equal(n, 3);
    NEAR(w[2].t0_s, 0.5), NEAR(w[2].t1_s, 0.75), NEAR(w[2].power_w, 4.5);
    free(w);
    assert_int_equal(mw_align_run_windows(s, 2, ORIGIN, &w, &n), 0);
    assert_true(n == 0 && !w);
    mw_store_close(s);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_rule),
        cmocka_unit_test(spans_and_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
