/* The in-band share (models/inband_share.c, inband_share_run.c) against powers chosen by
 * hand: a wall of 100 W then 200 W, a package of 30 W then 70 W, a core (a part, not
 * summed) of 20 W then 50 W, a dram of 10 W with a hole in its windows (its mean is not
 * diluted by the hole): over each span the wall, each source, the sum, the share, the rest
 * and the dynamic figures over the idle span are the hand-computed numbers; a window cut
 * by a span counts pro rata; no wall channel and no additive source give NAN. Then a run
 * written through the store's write API and read back by mw_inband_share_read: the node's
 * wall is the channel of its host, another host's phases are not its spans, the recorder's
 * idle phases are its idle span, a window flagged backwards is left out. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inband_share.h"
#include "mw_store.h"

#define S 1000000000LL
#define T0 1700000000000000000LL

/* 1 s windows [k, k+1) s at p(k) W */
static size_t windows(mw_energy_window *w, int from_s, int to_s, int skip_from, int skip_to,
                      double w_lo, double w_hi)
{
    size_t n = 0;
    for (int k = from_s; k < to_s; k++) {
        if (k >= skip_from && k < skip_to) continue;
        w[n++] = (mw_energy_window){k * S, (k + 1) * S, (int32_t)((k < 2 ? w_lo : w_hi) * 1000)};
    }
    return n;
}

static void test_fill(void **state)
{
    mw_energy_window ww[8], wa[8], wb[8], wc[8];
    mw_energy_trace wall, src[3];
    char err[256];
    assert_int_equal(mw_energy_trace_init(&wall, ww, windows(ww, 0, 4, 0, 0, 100, 200), err, sizeof err), 0);
    assert_int_equal(mw_energy_trace_init(&src[0], wa, windows(wa, 0, 4, 0, 0, 30, 70), err, sizeof err), 0);
    assert_int_equal(mw_energy_trace_init(&src[1], wb, windows(wb, 0, 4, 0, 0, 20, 50), err, sizeof err), 0);
    /* dram: 10 W, no window in [2, 3) */
    assert_int_equal(mw_energy_trace_init(&src[2], wc, windows(wc, 0, 4, 2, 3, 10, 10), err, sizeof err), 0);
    const int additive[3] = {1, 0, 1};
    mw_inband_share_node nd = {.idle = 1, .nsrc = 3};
    mw_inband_share_span sp[4];
    memset(sp, 0, sizeof sp);
    mw_energy_span run = {0, 4 * S}, idle = {0, 2 * S}, work = {2 * S, 4 * S}, cut = {S + S / 2, 2 * S + S / 2};
    mw_inband_share_fill(&sp[0], &wall, 1, src, additive, 3, &run, 1);
    mw_inband_share_fill(&sp[1], &wall, 1, src, additive, 3, &idle, 1);
    mw_inband_share_fill(&sp[2], &wall, 1, src, additive, 3, &work, 1);
    mw_inband_share_fill(&sp[3], &wall, 1, src, additive, 3, &cut, 1);
    nd.span = sp;
    nd.nspan = 4;
    /* the run: wall 150, package 50, core 35 (not summed), dram 10 over its 3 s */
    assert_int_equal(sp[0].duration_ns, 4 * S);
    assert_float_equal(sp[0].wall_w, 150, 1e-9);
    assert_float_equal(sp[0].src_w[0], 50, 1e-9);
    assert_float_equal(sp[0].src_w[1], 35, 1e-9);
    assert_float_equal(sp[0].src_w[2], 10, 1e-9);
    assert_float_equal(sp[0].inband_w, 60, 1e-9);
    assert_float_equal(mw_inband_share_pct(&sp[0]), 40, 1e-9);
    assert_float_equal(mw_inband_share_rest_w(&sp[0]), 90, 1e-9);
    /* idle: 100 W wall, 40 W in-band; work: 200 and 80 */
    assert_float_equal(sp[1].inband_w, 40, 1e-9);
    assert_float_equal(mw_inband_share_rest_w(&sp[1]), 60, 1e-9);
    assert_float_equal(sp[2].wall_w, 200, 1e-9);
    assert_float_equal(sp[2].inband_w, 80, 1e-9);
    assert_float_equal(mw_inband_share_dyn_wall_w(&nd, &sp[2]), 100, 1e-9);
    assert_float_equal(mw_inband_share_dyn_inband_w(&nd, &sp[2]), 40, 1e-9);
    assert_float_equal(mw_inband_share_dyn_pct(&nd, &sp[2]), 40, 1e-9);
    assert_true(isnan(mw_inband_share_dyn_pct(&nd, &sp[1]))); /* no increase over itself */
    /* [1.5, 2.5): half of each side */
    assert_float_equal(sp[3].wall_w, 150, 1e-9);
    assert_float_equal(sp[3].src_w[0], 50, 1e-9);
    assert_float_equal(sp[3].src_w[2], 10, 1e-9); /* only [1.5, 2) is covered */
    /* no wall, no additive source */
    mw_inband_share_span none;
    const int no_add[3] = {0, 0, 0};
    mw_inband_share_fill(&none, NULL, 0, src, no_add, 3, &run, 1);
    assert_true(isnan(none.wall_w));
    assert_true(isnan(none.inband_w));
    assert_true(isnan(mw_inband_share_pct(&none)));
    assert_true(isnan(mw_inband_share_rest_w(&none)));
    nd.idle = -1;
    assert_true(isnan(mw_inband_share_dyn_wall_w(&nd, &sp[2])));
    free(none.src_w);
    for (int i = 0; i < 4; i++)
        free(sp[i].src_w);
    mw_energy_trace_free(&wall);
    for (int i = 0; i < 3; i++)
        mw_energy_trace_free(&src[i]);
}

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void wall_window(mw_store *s, int ch, uint32_t seq, int64_t t0, int64_t t1, int32_t p_mw)
{
    mw_store_sample x = {.channel = ch, .seq = seq, .meter_t0_us = (uint64_t)(t0 - T0) / 1000,
                         .meter_t1_us = (uint64_t)(t1 - T0) / 1000, .t0_ns = t0, .t1_ns = t1,
                         .power_mw = p_mw};
    assert_int_equal(mw_store_sample_add(s, &x), 0);
}

static void test_read(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-share-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char dir[128], err[512];
    snprintf(dir, sizeof dir, "%s/run", tmpdir);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 1, "N1", "h1", "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "N2", "h2", "A2"), 0);
    /* 8 windows of 250 ms: h1 120 W for the first second, then 180 W; h2 90 W */
    for (uint32_t k = 0; k < 8; k++) {
        int64_t a = T0 + (int64_t)k * S / 4, b = a + S / 4;
        wall_window(s, 1, k, a, b, k < 4 ? 120000 : 180000);
        wall_window(s, 2, k, a, b, 90000);
    }
    mw_inband_info pkg = {.name = "rapl:package-0", .kind = "rapl", .domain = "package",
                          .additive = 1};
    int src;
    assert_int_equal(mw_store_inband_channel_add(s, "h1", &pkg, &src), 0);
    /* 100 ms windows over [0.1, 1.9) s: 30 W then 60 W; one flagged backwards at 0 W */
    mw_inband_window w[18];
    for (int k = 0; k < 18; k++) {
        int64_t a = T0 + (k + 1) * S / 10;
        w[k] = (mw_inband_window){src, (uint32_t)k, a, a + S / 10, a < T0 + S ? 30000 : 60000, 0, 0, 0};
    }
    w[3].power_mw = 0;
    w[3].flags = MW_INBAND_FLAG_BACKWARDS;
    assert_int_equal(mw_store_inband_windows_add(s, w, 18), 0);
    mw_store_phase ph[] = {
        {-1, "rec", 0, "mw", "idle-before", T0, T0 + S, 0, 0, -1},
        {-1, "rec", 0, "mw", "command", T0 + S, T0 + 2 * S, 0, 0, -1},
        {0, "h1", 0, "user", "solve", T0 + S + S / 2, T0 + 2 * S, 0, 0, -1},
        {1, "h2", 0, "user", "other", T0, T0 + 2 * S, 0, 0, -1}, /* not h1's */
        {0, "h1", 0, "mark", "m", T0 + S, T0 + S, 0, 0, -1},     /* an instant */
    };
    for (size_t i = 0; i < sizeof ph / sizeof ph[0]; i++)
        assert_int_equal(mw_store_phase_add(s, &ph[i]), 0);
    mw_store_close(s);

    mw_inband_share *r;
    assert_int_equal(mw_inband_share_read(dir, INT64_MIN, INT64_MAX, &r, err, sizeof err), 0);
    assert_non_null(r);
    assert_int_equal(r->nnode, 1);
    const mw_inband_share_node *nd = &r->node[0];
    assert_string_equal(nd->host, "h1");
    assert_string_equal(nd->wall, "N1");
    assert_int_equal(nd->nsrc, 1);
    /* run (cut to [0.1, 1.9) where both have data), mw/command, mw/idle-before, user/solve,
     * idle */
    assert_int_equal(nd->nspan, 5);
    const char *names[] = {"run", "command", "idle-before", "solve", "idle"};
    for (int j = 0; j < 5; j++)
        assert_string_equal(nd->span[j].name, names[j]);
    assert_null(nd->span[0].kind);
    assert_null(nd->span[4].kind);
    assert_int_equal(nd->idle, 4);
    assert_int_equal(nd->span[0].duration_ns, 18 * S / 10);
    assert_float_equal(nd->span[0].wall_w, (0.9 * 120 + 0.9 * 180) / 1.8, 1e-9);
    /* the backwards window is left out: 30 W over the 8 others before 1 s */
    assert_float_equal(nd->span[0].src_w[0], (0.8 * 30 + 0.9 * 60) / 1.7, 1e-9);
    assert_float_equal(nd->span[2].inband_w, 30, 1e-9);   /* idle-before, cut at 0.1 s */
    assert_float_equal(nd->span[3].wall_w, 180, 1e-9);    /* solve */
    assert_float_equal(mw_inband_share_pct(&nd->span[3]), 100.0 * 60 / 180, 1e-9);
    assert_float_equal(mw_inband_share_dyn_pct(nd, &nd->span[1]), 100.0 * 30 / 60, 1e-9);
    mw_inband_share_free(r);

    /* a range: [1.5, 1.7) s */
    assert_int_equal(mw_inband_share_read(dir, T0 + 15 * S / 10, T0 + 17 * S / 10, &r, err, sizeof err), 0);
    assert_int_equal(r->node[0].span[0].duration_ns, 2 * S / 10);
    assert_float_equal(r->node[0].span[0].inband_w, 60, 1e-9);
    mw_inband_share_free(r);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* a run without in-band sources: no share */
static void test_none(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-share-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char dir[128], err[512];
    snprintf(dir, sizeof dir, "%s/run", tmpdir);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 1, "N1", "h1", "A1"), 0);
    wall_window(s, 1, 0, T0, T0 + S, 1000);
    mw_store_close(s);
    mw_inband_share *r = (mw_inband_share *)1;
    assert_int_equal(mw_inband_share_read(dir, INT64_MIN, INT64_MAX, &r, err, sizeof err), 0);
    assert_null(r);
    assert_int_equal(mw_inband_share_read("/nonexistent/run", INT64_MIN, INT64_MAX, &r, err, sizeof err), -1);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill),
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
