/* mw dvfs in-process (collector/cmd_dvfs.c): a bad --freqs token is named as given (the
 * message was once printed from freed memory: "--freqs nan,1" named heap bytes; the ASan
 * build of this test reads it again), before the run is even opened; on a small run written
 * with the store's API — rank 0 on h1 computing 300 ms then waiting 100 ms at a barrier,
 * rank 1 on h2 computing 400 ms — the rank table holds those times and --pd's powers with
 * P_s = 0.2 P_d, and --pd messages name the token at fault. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../capture.h"
#include "cli.h"
#include "mw_store.h"

#define MS 1000000LL

static char tmpdir[64], run[128], out[64 * 1024], err[4096];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int dvfs(char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return mw_run_captured2(out, sizeof out, err, sizeof err, argc, argv);
}

static void bad_freqs_token_is_named(void **state)
{
    static const char *const cases[][2] = {
        {"nan,1", "'nan'"}, {"2,abc,1", "'abc'"}, {"101", "'101'"}, {"2.5,-1", "'-1'"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = dvfs(
            (char *[]){"mw", "dvfs", "/nonexistent/run", "--freqs", (char *)cases[i][0], NULL});
        assert_int_equal(rc, 2);
        if (!strstr(err, "--freqs: ") || !strstr(err, cases[i][1]))
            fail_msg("--freqs %s: '%s' does not name %s", cases[i][0], err, cases[i][1]);
        assert_string_equal(out, "");
    }
}

static void setup_run(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-cmddvfs-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    snprintf(run, sizeof run, "%s/run", tmpdir);
    char e[256];
    mw_store *s = mw_store_create(run, 0, e, sizeof e);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 1, "n0", "h1", NULL), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "n1", "h2", NULL), 0);
    const mw_store_phase ph[] = {
        {0, "h1", 0, "user", "compute", 0, 300 * MS, 0, 1, -1},
        {0, "h1", 0, "wait", "MPI_Barrier", 300 * MS, 400 * MS, 0, 1, -1},
        {1, "h2", 0, "user", "compute", 0, 400 * MS, 0, 2, -1},
    };
    for (size_t i = 0; i < sizeof ph / sizeof *ph; i++)
        assert_int_equal(mw_store_phase_add(s, &ph[i]), 0);
    mw_store_close(s);
}

static void rank_table(void **state)
{
    setup_run();
    int rc = dvfs((char *[]){"mw", "dvfs", run, "--freqs", "2.5,2,1.5", "--pd", "0=10,h2=20",
                             "--method", "maxdist", NULL});
    if (rc) fail_msg("exit %d: %s", rc, err);
    if (!strstr(out,
                "     0  h1                 0.300000   0.100000    10.000     2.000  (--pd)\n"))
        fail_msg("rank 0 not in:\n%s", out);
    if (!strstr(out,
                "     1  h2                 0.400000   0.000000    20.000     4.000  (--pd)\n"))
        fail_msg("rank 1 not in:\n%s", out);
    assert_non_null(strstr(out, "gears: 3, 2.500..1.500 GHz (from --freqs)\n"));
    assert_null(strstr(out, "\nedp "));
    /* no channel has samples: P_d must be given */
    rc = dvfs((char *[]){"mw", "dvfs", run, "--freqs", "2", NULL});
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, "rank 0 (host h1): no channel with samples measures it"));
    rc = dvfs((char *[]){"mw", "dvfs", run, "--freqs", "2", "--pd", "0=1,7=3", NULL});
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, "--pd: no rank or host '7' in the run"));
    rc = dvfs((char *[]){"mw", "dvfs", run, "--freqs", "2", "--pd", "0=1,h2=x", NULL});
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, "--pd: 'h2=x' is not W or NODE=W (W from 0 to 1e+06)"));
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_freqs_token_is_named),
        cmocka_unit_test(rank_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
