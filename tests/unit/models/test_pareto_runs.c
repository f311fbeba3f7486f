/* pareto_runs (models/pareto_runs.c): a Khaleghzadeh et al. profile from run directories, on runs
 * written through the run store whose figures are known by construction (as
 * tests/integration/test_pareto_runs.sh): device N2 (host h2) idles at 100 W and works at
 * 150 W, N3 (host h3) idles at 50 W and works at 90 W (94 W in the together run), a switch
 * at 3.5 W that is never a device; 10 s idle, the command, 2 s idle, 4 windows a second.
 * So a100 (100 units in 10 s on N2) has 500 J dynamic, a200 1000 J in 20 s, b100 400 J in
 * 10 s, b200 600 J in 15 s, both (100 units on each) 500 + 440 J; the static power is
 * 100 + 50 W. The counter is summed per host (a100's comes in two parts), hosts in name
 * order (both's h3 counter is written first). Refusals name the run: no idle baseline,
 * uneven work, no counter, a host no channel measures, no device alone, time not
 * increasing with size. */
#include "../unit.h"

#include <ctype.h>
#include <ftw.h>
#include <sys/stat.h>

#include "mw_store.h"
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

/* RUN name: x2 units on h2, x3 on h3 (0: none; host9: the h2 work counted on h9), a command
 * of tc s with N2 at p2 W and N3 at p3 W */
static void make_run(const char *name, double x2, double x3, double tc, double p2, double p3,
                     int idle, int host9)
{
    char dir[128], err[256];
    snprintf(dir, sizeof dir, "%s/%s", tmp, name);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 1, "N2", "h2", NULL), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "N3", "h3", NULL), 0);
    assert_int_equal(mw_store_channel_add(s, 3, "switch", NULL, NULL), 0);
    int n = (int)((12 + tc) * 4);
    for (int i = 1; i <= n; i++) {
        double t = i * 0.25;
        int work = t > 10 && t <= 10 + tc;
        const double pw[3] = {work ? p2 : 100, work ? p3 : 50, 3.5};
        for (int c = 0; c < 3; c++) {
            mw_store_sample x = {.channel = c + 1,
                                 .seq = (uint32_t)i,
                                 .t0_ns = B + NS(t - 0.25),
                                 .t1_ns = B + NS(t),
                                 .power_mw = (int32_t)(pw[c] * 1000)};
            assert_int_equal(mw_store_sample_add(s, &x), 0);
        }
    }
    int64_t c0 = B + NS(10), c1 = B + NS(10 + tc);
    if (idle) phase(s, -1, "front", "mw", "idle-before", B, c0, 0);
    phase(s, -1, "front", "mw", "command", c0, c1, 0);
    if (idle) phase(s, -1, "front", "mw", "idle-after", c1, c1 + NS(2), 0);
    if (x3) phase(s, 1, "h3", "counter", "products", c1, c1, (int64_t)x3);
    if (x2 && host9) phase(s, 0, "h9", "counter", "products", c1, c1, (int64_t)x2);
    if (x2 && !host9) {
        phase(s, 0, "h2", "counter", "products", c0, c0, (int64_t)(x2 * 0.6));
        phase(s, 0, "h2", "counter", "products", c1, c1, (int64_t)(x2 * 0.4));
    }
    phase(s, 0, "h2", "counter", "other", c1, c1, 7);
    mw_store_close(s);
}

static int setup(void **state)
{
    snprintf(tmp, sizeof tmp, "/tmp/mw-pruns-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    make_run("a100", 100, 0, 10, 150, 0, 1, 0);
    make_run("a200", 200, 0, 20, 150, 0, 1, 0);
    make_run("b100", 0, 100, 10, 0, 90, 1, 0);
    make_run("b200", 0, 200, 15, 0, 90, 1, 0);
    make_run("both", 100, 100, 10, 150, 94, 1, 0);
    make_run("noidle", 100, 0, 10, 150, 0, 0, 0);
    make_run("uneven", 100, 200, 10, 150, 90, 1, 0);
    make_run("slow100", 100, 0, 25, 150, 0, 1, 0);
    make_run("h9", 100, 0, 10, 150, 0, 1, 1);
    return 0;
}

static int teardown(void **state)
{
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

/* reads the runs named (space-separated) with units; returns read's status */
static int read_runs(const char *names, const char *units, mw_pareto_runs *r, char *err,
                     size_t errlen)
{
    static char dir[16][128]; /* mw_pareto_run.run points at the names given */
    char *dirs[16], buf[256];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save), n++) {
        snprintf(dir[n], sizeof dir[n], "%s/%s", tmp, w);
        dirs[n] = dir[n];
    }
    return mw_pareto_runs_read(dirs, n, units, r, err, errlen);
}

/* got equals want word by word, numbers within a relative 1e-12 */
static void same_text(const char *got, const char *want)
{
    const char *g = got, *w = want;
    while (*g && *w) {
        char *ge, *we;
        double x = strtod(g, &ge), y = strtod(w, &we);
        if (ge != g && we != w && (isdigit((unsigned char)*g) || *g == '-')) {
            if (fabs(x - y) > 1e-12 * fabs(y)) fail_msg("%g != %g in\n%s", x, y, got);
            g = ge;
            w = we;
        } else {
            if (*g != *w) fail_msg("'%s' != '%s'", g, w);
            g++;
            w++;
        }
    }
    if (*g || *w) fail_msg("texts differ in length:\n%s\n%s", got, want);
}

static void figures_and_profile(void **state)
{
    mw_pareto_runs r = {0};
    char err[512], *text;
    assert_int_equal(read_runs("a100 a200 b100 b200 both", "products", &r, err, sizeof err), 0);
    assert_int_equal(r.n, 5);
    const struct {
        const char *dev;
        int ndev;
        double x, t, e, idle;
    } want[] = {{"N2", 1, 100, 10, 500, 100},
                {"N2", 1, 200, 20, 1000, 100},
                {"N3", 1, 100, 10, 400, 50},
                {"N3", 1, 200, 15, 600, 50},
                {"N2,N3", 2, 100, 10, 940, 150}};
    for (int i = 0; i < 5; i++) {
        assert_string_equal(r.run[i].device, want[i].dev);
        assert_int_equal(r.run[i].ndevices, want[i].ndev);
        assert_true(fabs(r.run[i].x_units - want[i].x) < 1e-9);
        assert_true(fabs(r.run[i].time_s - want[i].t) < 1e-9);
        assert_true(fabs(r.run[i].energy_dyn_J - want[i].e) < 1e-6);
        assert_true(fabs(r.run[i].idle_W - want[i].idle) < 1e-9);
    }
    assert_int_equal(mw_pareto_runs_profile_text(&r, "products", &text, err, sizeof err), 0);
    same_text(text, "# profile built by mw pareto from 5 runs; units: counter 'products'\n"
                    "static_power 150 # W, the devices' idle powers summed\n"
                    "device N2 100:10:500 200:20:1000\n"
                    "device N3 100:10:400 200:15:600\n"
                    "together 100:940\n");
    free(text);
    mw_pareto_runs_free(&r);
}

/* read (or, with profile, the profile text) fails with exactly want (%s: the directory) */
static void refused(const char *names, const char *units, int profile, const char *want,
                    const char *dirname)
{
    mw_pareto_runs r = {0};
    char err[512], w[512], dir[128], *text = NULL;
    snprintf(dir, sizeof dir, "%s/%s", tmp, dirname);
    snprintf(w, sizeof w, want, dir, dir);
    if (!profile) {
        assert_int_equal(read_runs(names, units, &r, err, sizeof err), -1);
        assert_null(r.run);
    } else {
        assert_int_equal(read_runs(names, units, &r, err, sizeof err), 0);
        assert_int_equal(mw_pareto_runs_profile_text(&r, units, &text, err, sizeof err), -1);
        assert_null(text);
        mw_pareto_runs_free(&r);
    }
    assert_string_equal(err, w);
}

static void refusals(void **state)
{
    refused("a100 noidle", "products", 0,
            "%s: no idle baseline for the dynamic energy (record with --idle S)", "noidle");
    refused("uneven", "products", 0,
            "%s: counter 'products' is 100 on host 'h2' but 200 on host 'h3' (a run of several "
            "devices gives each the same work, for the additivity check)",
            "uneven");
    refused("a100", "flops", 0,
            "%s: no counter 'flops' > 0 (the workload's units of work, e.g. mwb-dgemm's "
            "'products'; see --units)",
            "a100");
    refused("h9", "products", 0,
            "%s: no channel measures host 'h9', where counter 'products' was counted (give the "
            "channel that host in --channels)",
            "h9");
    refused("both", "products", 1,
            "no run measures one device alone (the profile needs each device alone at two "
            "sizes or more)",
            "both");
    refused("a100 a200 both", "products", 1,
            "%s: a together run must run exactly the devices measured alone (1 of them); it "
            "ran N2,N3",
            "both");
    char want[512];
    snprintf(want, sizeof want,
             "device N2: 200 units took 20 s (%s/a200) but 100 units 25 s (%%s): a profile "
             "needs time increasing with size (sizes further apart, or more repetitions)",
             tmp);
    refused("slow100 a200", "products", 1, want, "slow100");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(figures_and_profile),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
