/* mw stats (collector/cmd_stats.c) on runs built with the mw_store API whose figures are
 * known by construction.
 *
 * Energy runs: channel node0 at a constant power for 10 windows of 0.25 s, so a run's
 * energy is P x 2.5 s and its mean power P. Group A: 40, 80, 120 W (100, 200, 300 J); group
 * B: 160, 200, 240 W (400, 500, 600 J). By hand: A's mean power 80 W, sd 40 W, 95 % CI 80 -+
 * t(0.975, 2) 40 / sqrt 3 = 80 -+ 4.302653 x 23.094011 = [-19.365, 179.365] W; energies
 * 200 -+ 248.414 J. B lies wholly above A: KS D = 1 and Mann-Whitney U = 0, exact p = 2 /
 * C(6,3) = 0.1; Kruskal-Wallis ranks 1-3 / 4-6: H = 12/42 (36/3 + 225/3) - 21 = 27/7 =
 * 3.857143, p = P(chi2(1) > H) = erfc(sqrt(H/2)) = 0.04953.
 *
 * Level runs (Escobar et al. Table 5, N1): 2,400 windows (10 min at 4 Hz) alternating 100 idle and
 * 140 working windows with noise sd 1.5 W / 4 W. v2 run i (i = 0..4) idles at 156.30 + 0.2
 * (i - 2) W and works at 224.72 + 0.5 (i - 2) W, v3 at 156.58 + ... and 234.72 + ...: every
 * estimate lies within 1 W of its level (tests/unit/models/test_levels.c), so Pow_work(v2) < 226.7
 * < 232.7 < Pow_work(v3) and Pow_idle < Pow_work in every run: fully separated groups of 5,
 * KS and Mann-Whitney p = 2/252 = 0.0079365 (exact), Kruskal-Wallis H = 6.818182, p =
 * 0.009023 — Escobar et al. Table 6's 0.008 and 0.009. Channel "switch" is a constant 3.5 W (one
 * level: no Pow_idle). */
#include "../unit.h"

#include <ftw.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../capture.h"
#include "cli.h"
#include "mw_store.h"

#define S_NS 1700000000000000000LL
#define WINDOW_NS 250000000LL

static char tmpdir[64], out[256 * 1024];
static char energy_runs[6][128], v2[5][128], v3[5][128], nosamples[128];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

/* A run whose channel 1 "node0" has n windows of powers p_mw(i), channel 2 "switch" 3.5 W. */
static void make_run(const char *dir, size_t n, int32_t (*p_mw)(size_t, void *), void *ctx)
{
    char err[512];
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    if (!s) fail_msg("%s", err);
    assert_int_equal(mw_store_meta_set(s, "start_ns", "1700000000000000000"), 0);
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "switch", NULL, "A2"), 0);
    int64_t e[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        for (int ch = 1; ch <= 2; ch++) {
            int32_t p = ch == 1 ? p_mw(i, ctx) : 3500;
            e[ch] += (int64_t)p / 4;
            mw_store_sample x = {
                .channel = ch,
                .seq = (uint32_t)i,
                .meter_t0_us = 250000ull * i,
                .meter_t1_us = 250000ull * (i + 1),
                .t0_ns = S_NS + WINDOW_NS * (int64_t)i,
                .t1_ns = S_NS + WINDOW_NS * (int64_t)(i + 1),
                .uncertainty_ns = 50000,
                .power_mw = p,
                .vrms_mv = 230000,
                .irms_ua = p * 1000 / 230,
                .pf_milli = 1000,
                .meter_energy_mj = e[ch],
                .energy_mj = e[ch],
            };
            if (mw_store_sample_add(s, &x)) fail_msg("%s", mw_store_error(s));
        }
    mw_store_close(s);
}

static int32_t constant(size_t i, void *ctx)
{
    return *(int32_t *)ctx;
}

typedef struct {
    gsl_rng *r;
    double idle_w, work_w;
} levels_ctx;

static int32_t two_levels(size_t i, void *ctx)
{
    levels_ctx *c = ctx;
    double p = i % 240 < 100 ? c->idle_w + gsl_ran_gaussian(c->r, 1.5)
                             : c->work_w + gsl_ran_gaussian(c->r, 4.0);
    return (int32_t)lround(p * 1000);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-stats-XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    static int32_t watts[] = {40, 80, 120, 160, 200, 240};
    for (int k = 0; k < 6; k++) {
        snprintf(energy_runs[k], sizeof energy_runs[k], "%s/e%d", tmpdir, k);
        int32_t mw = watts[k] * 1000;
        make_run(energy_runs[k], 10, constant, &mw);
    }
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int i = 0; i < 5; i++) {
        gsl_rng_set(r, 100 + (unsigned long)i);
        levels_ctx c2 = {r, 156.30 + 0.2 * (i - 2), 224.72 + 0.5 * (i - 2)};
        snprintf(v2[i], sizeof v2[i], "%s/v2-%d", tmpdir, i);
        make_run(v2[i], 2400, two_levels, &c2);
        levels_ctx c3 = {r, 156.58 + 0.2 * (i - 2), 234.72 + 0.5 * (i - 2)};
        snprintf(v3[i], sizeof v3[i], "%s/v3-%d", tmpdir, i);
        make_run(v3[i], 2400, two_levels, &c3);
    }
    gsl_rng_free(r);
    snprintf(nosamples, sizeof nosamples, "%s/empty", tmpdir);
    make_run(nosamples, 0, constant, NULL);
    return 0;
}

static int teardown(void **state)
{
    return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int run_mw(char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return mw_run_captured(out, sizeof out, argc, argv);
}

static void expect_error(int code, const char *needle, char **argv)
{
    int rc = run_mw(argv);
    if (rc != code || !strstr(out, needle))
        fail_msg("exit %d (want %d), output '%s' (want '%s')", rc, code, out, needle);
    assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
}

static void energy_text(void **state)
{
    char want[4096];
    int w = (int)strlen(energy_runs[0]);
    snprintf(want, sizeof want,
             "channel node0\n"
             "\n"
             "group  quantity  runs            mean            sd  95 %% CI of the mean\n"
             "A      energy       3       200.000 J     100.000 J  [-48.414, 448.414] J\n"
             "B      energy       3       500.000 J     100.000 J  [251.586, 748.414] J\n"
             "\n"
             "group  %-*s  value\n"
             "A      %s  100.000 J\n"
             "A      %s  200.000 J\n"
             "A      %s  300.000 J\n"
             "B      %s  400.000 J\n"
             "B      %s  500.000 J\n"
             "B      %s  600.000 J\n"
             "\n"
             "tests (two-sided)\n"
             "  Kolmogorov-Smirnov  A vs B: D = 1.0000, p = 0.1 (exact)\n"
             "  Mann-Whitney        A vs B: U = 0.0, p = 0.1 (exact)\n"
             "  Kruskal-Wallis      2 groups: H = 3.8571, df = 1, p = 0.04953 (chi-square)\n",
             w, "run", energy_runs[0], energy_runs[1], energy_runs[2], energy_runs[3],
             energy_runs[4], energy_runs[5]);
    int rc =
        run_mw((char *[]){"mw", "stats", "--channel", "node0", "--quantity", "energy", "--group",
                          "A", energy_runs[0], energy_runs[1], energy_runs[2], "--group", "B",
                          energy_runs[3], energy_runs[4], energy_runs[5], NULL});
    if (rc || strcmp(out, want)) fail_msg("exit %d, output:\n%s\nwant:\n%s", rc, out, want);
    /* the hand values behind the figures above */
    assert_true(fabs(4.302653 * 100 / sqrt(3) - 248.414) < 5e-4);
    assert_true(fabs(erfc(sqrt(27.0 / 14)) - 0.04953) < 5e-6);
}

static void mean_power_json(void **state)
{
    int rc =
        run_mw((char *[]){"mw", "stats", "--json", "--channel=node0", "--quantity", "mean_power",
                          "--group", "A", energy_runs[0], energy_runs[1], energy_runs[2], "--group",
                          "B", energy_runs[3], energy_runs[4], energy_runs[5], NULL});
    assert_int_equal(rc, 0);
    const char *head = "{\n  \"schema\": \"megawatt.stats/1\",\n  \"channel\": \"node0\",\n"
                       "  \"method\": \"kde\",\n"
                       "  \"confidence\": 0.95,\n  \"groups\": [\n    {\"name\": \"A\", "
                       "\"quantity\": \"mean_power\", \"unit\": \"W\", \"n\": 3, \"mean\": "
                       "80.000000, \"sd\": 40.000000, \"ci_low\": -19.3655";
    if (strncmp(out, head, strlen(head))) fail_msg("got:\n%s", out);
    char run0[300];
    snprintf(run0, sizeof run0, "\"runs\": [{\"run\": \"%s\", \"value\": 40.000000}, ",
             energy_runs[0]);
    assert_non_null(strstr(out, run0));
    assert_non_null(strstr(out, "\"ci_high\": 179.3655"));
    assert_non_null(strstr(out, "\"kolmogorov_smirnov\": {\"statistic\": 1, \"p\": 0.1, "
                                "\"exact\": true}"));
    assert_non_null(strstr(out, "\"mann_whitney\": {\"statistic\": 0, \"p\": 0.1, "
                                "\"exact\": true}"));
    assert_non_null(strstr(out, "\"kruskal_wallis\": {\"statistic\": 3.85714, \"df\": 1, "
                                "\"p\": 0.0495346, \"exact\": false}"));
    assert_string_equal(out + strlen(out) - 7, "\n  }\n}\n");

    /* three groups: Kruskal-Wallis only; one run in a group: no sd, no interval */
    rc = run_mw((char *[]){"mw",    "stats",        "--json",       "--channel",
                           "node0", "--quantity",   "mean_power",   "--group",
                           "a",     energy_runs[0], energy_runs[1], "--group",
                           "b",     energy_runs[2], energy_runs[3], "--group",
                           "c",     energy_runs[4], "--confidence", "0.9",
                           NULL});
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "\"confidence\": 0.9,"));
    assert_non_null(strstr(out, "\"n\": 1, \"mean\": 200.000000, \"sd\": null, \"ci_low\": "
                                "null, \"ci_high\": null"));
    assert_non_null(strstr(out, "\"kolmogorov_smirnov\": null"));
    assert_non_null(strstr(out, "\"mann_whitney\": null"));
    /* ranks a 1,2 (3), b 3,4 (7), c 5: H = 12/30 (9/2 + 49/2 + 25) - 18 = 3.6, df 2, p =
     * exp(-1.8) = 0.165299 */
    assert_non_null(strstr(out, "\"kruskal_wallis\": {\"statistic\": 3.6, \"df\": 2, \"p\": "
                                "0.165299, \"exact\": false}"));
    assert_null(strstr(out, "nan"));
    /* one group: description only */
    rc = run_mw((char *[]){"mw", "stats", "--channel", "node0", "--quantity", "mean_power",
                           "--group", "a", energy_runs[0], energy_runs[1], NULL});
    assert_int_equal(rc, 0);
    assert_null(strstr(out, "tests"));
    /* 90 %: t(0.95, 1) = 6.313752; {40, 80}: 60 -+ 6.313752 x 20 = [-66.275, 186.275] */
    rc = run_mw((char *[]){"mw", "stats", "--channel", "node0", "--quantity", "mean_power",
                           "--confidence", "0.9", "--group", "a", energy_runs[0], energy_runs[1],
                           NULL});
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "90 % CI of the mean"));
    assert_non_null(strstr(out, "[-66.275, 186.275] W"));
}

/* Table 6: Pow_work v2 vs v3, and Pow_idle vs Pow_work within v2. */
static void table6_levels(void **state)
{
    char *argv[40] = {"mw",       "stats",  "--channel", "node0", "--quantity",
                      "pow_work", "--json", "--group",   "v2"};
    int a = 9;
    for (int i = 0; i < 5; i++)
        argv[a++] = v2[i];
    argv[a++] = "--group";
    argv[a++] = "v3";
    for (int i = 0; i < 5; i++)
        argv[a++] = v3[i];
    argv[a] = NULL;
    assert_int_equal(run_mw(argv), 0);
    assert_non_null(strstr(out, "\"kolmogorov_smirnov\": {\"statistic\": 1, \"p\": 0.00793651, "
                                "\"exact\": true}"));
    assert_non_null(strstr(out, "\"mann_whitney\": {\"statistic\": 0, \"p\": 0.00793651, "
                                "\"exact\": true}"));
    assert_non_null(strstr(out, "\"kruskal_wallis\": {\"statistic\": 6.81818, \"df\": 1, "
                                "\"p\": 0.00902344, \"exact\": false}"));
    /* each run's level within 1 W of its construction, the groups' means within 0.5 W */
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < 5; i++) {
            char key[200];
            snprintf(key, sizeof key, "{\"run\": \"%s\", \"value\": ", g ? v3[i] : v2[i]);
            const char *p = strstr(out, key);
            assert_non_null(p);
            double v = strtod(p + strlen(key), NULL), want = (g ? 234.72 : 224.72) + 0.5 * (i - 2);
            if (fabs(v - want) > 1.0) fail_msg("pow_work %s: %.3f W, built %.2f W", key, v, want);
        }
    const char *m2 = strstr(out, "\"name\": \"v2\""), *m3 = strstr(out, "\"name\": \"v3\"");
    assert_non_null(m2);
    assert_non_null(m3);
    double mean2 = strtod(strstr(m2, "\"mean\": ") + 8, NULL);
    double mean3 = strtod(strstr(m3, "\"mean\": ") + 8, NULL);
    assert_true(fabs(mean2 - 224.72) < 0.5 && fabs(mean3 - 234.72) < 0.5);

    /* idle vs work within v2: the same runs, two quantities; text labels name both */
    char *b[40] = {"mw", "stats", "--channel", "node0", "--group", "v2:pow_idle"};
    a = 6;
    for (int i = 0; i < 5; i++)
        b[a++] = v2[i];
    b[a++] = "--group";
    b[a++] = "v2:pow_work";
    for (int i = 0; i < 5; i++)
        b[a++] = v2[i];
    b[a] = NULL;
    assert_int_equal(run_mw(b), 0);
    assert_non_null(strstr(out, "channel node0, power levels by kernel density\n"));
    assert_non_null(strstr(out, "v2     pow_idle     5       156."));
    assert_non_null(strstr(out, "Kolmogorov-Smirnov  v2:pow_idle vs v2:pow_work: D = 1.0000, p "
                                "= 0.007937 (exact)"));
    assert_non_null(strstr(out, "Mann-Whitney        v2:pow_idle vs v2:pow_work: U = 0.0, p = "
                                "0.007937 (exact)"));
    assert_non_null(strstr(out, "H = 6.8182, df = 1, p = 0.009023 (chi-square)"));
    /* the same by the Gaussian mixture */
    char *c[40];
    memcpy(c, b, sizeof c);
    c[a] = "--method";
    c[a + 1] = "gmm";
    c[a + 2] = NULL;
    assert_int_equal(run_mw(c), 0);
    assert_non_null(strstr(out, "power levels by Gaussian mixture"));
    assert_non_null(strstr(out, "p = 0.007937 (exact)"));
}

static void bad_input(void **state)
{
    char *e0 = energy_runs[0];
    expect_error(2, "missing --channel", (char *[]){"mw", "stats", "--group", "a", e0, NULL});
    expect_error(2, "missing --group", (char *[]){"mw", "stats", "--channel", "node0", NULL});
    expect_error(2, "missing --quantity",
                 (char *[]){"mw", "stats", "--channel", "node0", "--group", "a", e0, NULL});
    expect_error(2, "before any --group",
                 (char *[]){"mw", "stats", "--channel", "node0", e0, "--group", "a", e0, NULL});
    expect_error(2, "--group a: no run directories",
                 (char *[]){"mw", "stats", "--channel", "node0", "--quantity", "energy", "--group",
                            "a", "--group", "b", e0, NULL});
    expect_error(2, "--group needs a name",
                 (char *[]){"mw", "stats", "--channel", "node0", "--group", NULL});
    expect_error(2, "'power' is not pow_idle",
                 (char *[]){"mw", "stats", "--channel", "node0", "--quantity", "power", NULL});
    expect_error(2, "'x' is not pow_idle",
                 (char *[]){"mw", "stats", "--channel", "node0", "--group", "a:x", e0, NULL});
    expect_error(2, "--method: 'em'",
                 (char *[]){"mw", "stats", "--method", "em", "--group", "a", e0, NULL});
    expect_error(2, "--confidence: '95'", (char *[]){"mw", "stats", "--confidence", "95", NULL});
    expect_error(2, "unknown option '--frob'", (char *[]){"mw", "stats", "--frob", NULL});
    expect_error(2, "different units",
                 (char *[]){"mw", "stats", "--channel", "node0", "--group", "a:energy", e0,
                            "--group", "b:mean_power", e0, NULL});
    expect_error(2, "--group 'a' given twice",
                 (char *[]){"mw", "stats", "--channel", "node0", "--quantity", "energy", "--group",
                            "a", e0, "--group", "a", e0, NULL});
    /* unusable runs: named, exit 2, nothing printed before */
    char line[300];
    snprintf(line, sizeof line, "mw stats: %s: not a run (no trace.db there)\n", tmpdir);
    expect_error(2, line,
                 (char *[]){"mw", "stats", "--channel", "node0", "--quantity", "energy", "--group",
                            "a", e0, tmpdir, NULL});
    snprintf(line, sizeof line, "mw stats: %s: no channel 'gpu' (its channels: node0, switch)\n",
             e0);
    expect_error(2, line,
                 (char *[]){"mw", "stats", "--channel", "gpu", "--quantity", "energy", "--group",
                            "a", e0, NULL});
    snprintf(line, sizeof line, "mw stats: %s: channel node0 has no samples\n", nosamples);
    expect_error(2, line,
                 (char *[]){"mw", "stats", "--channel", "node0", "--quantity", "mean_power",
                            "--group", "a", e0, nosamples, NULL});
    snprintf(line, sizeof line,
             "mw stats: %s: channel switch has one power level, no pow_idle: constant input "
             "(3.500 W): one level\n",
             v2[0]);
    expect_error(2, line,
                 (char *[]){"mw", "stats", "--channel", "switch", "--quantity", "pow_idle",
                            "--group", "a", v2[0], NULL});
    /* a run at one constant power: no levels by either method */
    expect_error(2, "one power level, no pow_work",
                 (char *[]){"mw", "stats", "--channel", "node0", "--quantity", "pow_work",
                            "--method", "gmm", "--group", "a", e0, NULL});
    assert_int_equal(run_mw((char *[]){"mw", "stats", "--help", NULL}), 0);
    assert_non_null(strstr(out, "usage: mw stats --channel NAME"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(energy_text),
        cmocka_unit_test(mean_power_json),
        cmocka_unit_test(table6_levels),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
