/* pareto_device (models/pareto_device.c, "mw pareto --per-device"): a profile's devices from
 * the in-band sources, on runs written through the run store whose figures are known by
 * construction: 4 windows a second, 10 s idle, the command, 2 s idle; node h1's wall N1 at
 * 150 W idle; its package 30 W idle, 50 W when the CPU works, dram 5 / 7 W, core (not
 * additive) 10 / 25 W, a GPU 40 W idle; the wall rises by 30 W with the CPU and by 1.15 x the
 * GPU's rise. So the CPU socket (package + dram) idles at 35 W and works 22 W above it:
 * 220 J in 10 s; the wall 300 J, the rest 80 J and 75 W at idle. Together with the GPU at
 * 61 W, 200 units on h1: 100 units each, 220 + 210 J. A run on h2 (no wall channel) has no
 * wall figure and, read with an h1 run, makes every name "HOST/SOURCE". Refusals name the
 * run: nothing rose, a working host without in-band sources. */
#include "../unit.h"

#include <ftw.h>
#include <math.h>
#include <sys/stat.h>

#include "mw_inband.h"
#include "mw_store.h"
#include "pareto_device.h"
#include "pareto_runs.h"

#define B ((int64_t)1700000000000000000)
#define NS(s) ((int64_t)((s)*1e9 + 0.5))

static char tmp[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void phase(mw_store *s, int rank, const char *host, const char *kind, const char *name,
                  int64_t t0, int64_t t1, int64_t bytes)
{
    mw_store_phase p = {rank, host, 0, kind, name, t0, t1, bytes, 0, -1};
    assert_int_equal(mw_store_phase_add(s, &p), 0);
}

/* one in-band source of host: idle_w, busy_w while the command (windows 40..40+4 tc) runs */
static void source(mw_store *s, const char *host, const char *name, int additive, double tc,
                   double idle_w, double busy_w)
{
    mw_inband_info in = {.kind = "rapl", .additive = additive};
    snprintf(in.name, sizeof in.name, "%s", name);
    snprintf(in.domain, sizeof in.domain, "x");
    int src, n = (int)((12 + tc) * 4);
    assert_int_equal(mw_store_inband_channel_add(s, host, &in, &src), 0);
    mw_inband_window w[256];
    int64_t e = 0;
    for (int i = 0; i < n; i++) {
        double p = i >= 40 && i < 40 + (int)(tc * 4) ? busy_w : idle_w;
        e += (int64_t)(p * 250000);
        w[i] = (mw_inband_window){src, (uint32_t)i, B + NS(i * 0.25), B + NS((i + 1) * 0.25),
                                  (int64_t)(p * 1000), e, e, 0};
    }
    assert_int_equal(mw_store_inband_windows_add(s, w, (size_t)n), 0);
}

/* RUN name on host: counter x (0: on host h3 instead), command tc s, the CPU working or not,
 * the GPU at gpu_w while it runs; a wall channel for the host or not */
static void make_run(const char *name, const char *host, double x, double tc, int cpu,
                     double gpu_w, int wall)
{
    char dir[128], err[256];
    snprintf(dir, sizeof dir, "%s/%s", tmp, name);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    int n = (int)((12 + tc) * 4);
    if (wall) {
        assert_int_equal(mw_store_channel_add(s, 1, "N1", host, NULL), 0);
        for (int i = 0; i < n; i++) {
            int work = i >= 40 && i < 40 + (int)(tc * 4);
            double p = 150 + (work ? (cpu ? 30 : 0) + 1.15 * (gpu_w - 40) : 0);
            mw_store_sample w = {.channel = 1, .seq = (uint32_t)i, .t0_ns = B + NS(i * 0.25),
                                 .t1_ns = B + NS((i + 1) * 0.25), .power_mw = (int32_t)(p * 1000)};
            assert_int_equal(mw_store_sample_add(s, &w), 0);
        }
    }
    source(s, host, "rapl:package-0", 1, tc, 30, cpu ? 50 : 30);
    source(s, host, "rapl:package-0/core", 0, tc, 10, cpu ? 25 : 10);
    source(s, host, "rapl:package-0/dram", 1, tc, 5, cpu ? 7 : 5);
    source(s, host, "nvml:gpu0", 1, tc, 40, gpu_w);
    int64_t c0 = B + NS(10), c1 = B + NS(10 + tc);
    phase(s, -1, "front", "mw", "idle-before", B, c0, 0);
    phase(s, -1, "front", "mw", "command", c0, c1, 0);
    phase(s, -1, "front", "mw", "idle-after", c1, c1 + NS(2), 0);
    phase(s, 0, x ? host : "h3", "counter", "products", c1, c1, (int64_t)(x ? x : 100));
    mw_store_close(s);
}

static int setup(void **state)
{
    snprintf(tmp, sizeof tmp, "/tmp/mw-pdev-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    make_run("c", "h1", 100, 10, 1, 40, 1);
    make_run("t", "h1", 200, 10, 1, 61, 1);
    make_run("h2", "h2", 100, 10, 1, 40, 0);
    make_run("flat", "h1", 100, 10, 0, 40, 1);
    make_run("elsewhere", "h1", 0, 10, 1, 40, 1);
    return 0;
}

static int teardown(void **state)
{
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static int read_runs(const char *a, const char *b, mw_pareto_runs *r, char *err, size_t errlen)
{
    static char dir[2][128];
    char *dirs[2];
    snprintf(dir[0], sizeof dir[0], "%s/%s", tmp, a);
    dirs[0] = dir[0];
    if (b) snprintf(dir[1], sizeof dir[1], "%s/%s", tmp, b);
    dirs[1] = dir[1];
    return mw_pareto_runs_read_mode(dirs, b ? 2 : 1, "products", 1, r, err, errlen);
}

static void figures(void **state)
{
    mw_pareto_runs r;
    char err[512] = "";
    assert_int_equal(read_runs("c", "t", &r, err, sizeof err), 0);
    assert_int_equal(r.n, 2);
    assert_true(r.per_device);
    const mw_pareto_run *c = &r.run[0], *t = &r.run[1];
    assert_string_equal(c->device, "rapl:package-0");
    assert_int_equal(c->ndevices, 1);
    assert_int_equal(c->npart, 2); /* the socket and the GPU: core is not a device */
    assert_string_equal(c->part[0].name, "rapl:package-0");
    assert_float_equal(c->part[0].dyn_J, 220, 1e-9);
    assert_float_equal(c->part[0].idle_W, 35, 1e-9);
    assert_true(c->part[0].worked);
    assert_string_equal(c->part[1].name, "nvml:gpu0");
    assert_float_equal(c->part[1].dyn_J, 0, 1e-9);
    assert_false(c->part[1].worked);
    assert_float_equal(c->x_units, 100, 0);
    assert_float_equal(c->time_s, 10, 1e-9);
    assert_float_equal(c->energy_dyn_J, 220, 1e-9);
    assert_float_equal(c->idle_W, 35, 1e-9);
    assert_float_equal(c->wall_dyn_J, 300, 1e-9);
    assert_float_equal(c->rest_dyn_J, 80, 1e-9);
    assert_float_equal(c->rest_idle_W, 75, 1e-9);
    /* together: each of the two given 200 / 2 units */
    assert_string_equal(t->device, "rapl:package-0,nvml:gpu0");
    assert_int_equal(t->ndevices, 2);
    assert_float_equal(t->x_units, 100, 0);
    assert_float_equal(t->energy_dyn_J, 220 + 21 * 10, 1e-9);
    assert_float_equal(t->rest_dyn_J, (30 + 1.15 * 21) * 10 - 430, 1e-9);
    char *text;
    assert_int_equal(mw_pareto_runs_profile_text(&r, "products", &text, err, sizeof err), -1);
    assert_non_null(strstr(err, "a together run must run exactly the devices measured alone"));
    mw_pareto_runs_free(&r);

    /* no wall channel on h2: no wall figure; two hosts: the host before every name */
    assert_int_equal(read_runs("h2", NULL, &r, err, sizeof err), 0);
    assert_true(isnan(r.run[0].wall_dyn_J) && isnan(r.run[0].rest_dyn_J));
    assert_string_equal(r.run[0].device, "rapl:package-0");
    mw_pareto_runs_free(&r);
    assert_int_equal(read_runs("c", "h2", &r, err, sizeof err), 0);
    assert_string_equal(r.run[0].device, "h1/rapl:package-0");
    assert_string_equal(r.run[1].device, "h2/rapl:package-0");
    assert_string_equal(r.run[1].part[1].name, "h2/nvml:gpu0");
    mw_pareto_runs_free(&r);
}

static void refusals(void **state)
{
    mw_pareto_runs r;
    char err[512], want[512];
    assert_int_equal(read_runs("flat", NULL, &r, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s/flat: --per-device: no in-band device's power rose by 1 W and 5 %% of its idle "
             "power during the command (rapl:package-0, nvml:gpu0)",
             tmp);
    assert_string_equal(err, want);
    assert_null(r.run);
    assert_int_equal(read_runs("elsewhere", NULL, &r, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s/elsewhere: --per-device: host 'h3', where counter 'products' was counted, has "
             "no additive in-band source (record with --inband rapl,nvml there)",
             tmp);
    assert_string_equal(err, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(figures),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
