/* mw merge (host/merge.c) on hand-written spill files (docs/probe.md): events land in
 * the phases table with their rank, host, pid, thread, kind, name, bytes and peer; times are
 * moved by the clock offset interpolated between the file's clock samples (computed here
 * by hand); a partial last line is ignored; a malformed file is skipped and named with its
 * line; merging again replaces, never duplicates; the recorder's own phases stay. */
#include "../unit.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_merge.h"
#include "mw_store.h"
#include "../../../host/store_internal.h" /* the SQLite handle: tests check the rows themselves */

static char rundir[128];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/probe", rundir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/probe/%s", rundir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static long long q1(mw_store *s, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(mw_store_sqlite(s), sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void merges_with_interpolated_offsets(void **state)
{
    snprintf(rundir, sizeof rundir, "/tmp/mw-merge-XXXXXX");
    assert_non_null(mkdtemp(rundir));
    char sub[128];
    snprintf(sub, sizeof sub, "%.100s/run", rundir);
    char err[512];
    mw_store *s = mw_store_create(sub, 0, err, sizeof err);
    assert_non_null(s);
    mw_store_phase own = {-1, "rec", 0, "mw", "command", 1, 2, 0, 1, -1};
    assert_int_equal(mw_store_phase_add(s, &own), 0);
    snprintf(rundir, sizeof rundir, "%.120s", sub);

    /* rank 1 on node7: offset +1,000,000 ns at local 1e9, +3,000,000 at local 3e9 */
    write_file("node7.4242.mwp", "H\t1\tnode7\t4242\tCLOCK_REALTIME\n"
                                 "R\t1\t2\n"
                                 "C\t1000000000\t1000000\t20000\n"
                                 "T\t0\t4242\n"
                                 "N\t0\tMPI_Send\n"
                                 "E\t0\t2\t0\t2000000000\t2000500000\t1048576\t0\n"
                                 "N\t1\tsolve\n"
                                 "E\t0\t0\t1\t500000000\t4000000000\t0\t-1\n"
                                 "C\t3000000000\t3000000\t30000\n"
                                 "D\t5\t0\n"
                                 "X\t4000000001\n");
    /* rank 0 on the recorder's host: no clock samples (offset 0); a partial last line */
    write_file("rec.17.mwp", "H\t1\trec\t17\tCLOCK_REALTIME\n"
                             "R\t0\t2\n"
                             "N\t0\tMPI_Barrier\n"
                             "E\t3\t3\t0\t100\t250\t0\t-1\n"
                             "E\t0\t3\t0\t300\t45");
    /* a broken file: an event with an unknown name id */
    write_file("bad.1.mwp", "H\t1\tbad\t1\tCLOCK_REALTIME\nE\t0\t2\t9\t1\t2\t0\t-1\n");

    mw_merge_stats st;
    assert_int_equal(mw_merge_run(s, rundir, &st, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(st.files, 2);
    assert_int_equal(st.skipped, 1);
    assert_int_equal(st.events, 3);
    assert_int_equal(st.clock_samples, 2);
    assert_int_equal(st.dropped, 5);

    /* MPI_Send at local 2e9 .. 2.0005e9: offset 2,000,000 and 2,000,500 ns */
    assert_int_equal(q1(s, "select start_ns from phases where name='MPI_Send'"), 2002000000LL);
    assert_int_equal(q1(s, "select end_ns from phases where name='MPI_Send'"), 2002500500LL);
    assert_int_equal(q1(s, "select bytes from phases where name='MPI_Send'"), 1048576);
    assert_int_equal(q1(s, "select peer from phases where name='MPI_Send'"), 0);
    assert_int_equal(q1(s, "select rank from phases where name='MPI_Send'"), 1);
    assert_int_equal(q1(s, "select pid from phases where name='MPI_Send'"), 4242);
    assert_int_equal(q1(s, "select count(*) from phases where name='MPI_Send' and kind='comm' "
                           "and host='node7'"),
                     1);
    /* solve: before the first sample the first offset holds, after the last the last */
    assert_int_equal(q1(s, "select start_ns from phases where name='solve'"), 501000000LL);
    assert_int_equal(q1(s, "select end_ns from phases where name='solve'"), 4003000000LL);
    assert_int_equal(q1(s, "select count(*) from phases where name='solve' and kind='user'"), 1);
    /* rank 0: offset 0, thread 3, the partial line ignored */
    assert_int_equal(q1(s, "select count(*) from phases where rank=0"), 1);
    assert_int_equal(q1(s, "select start_ns from phases where rank=0"), 100);
    assert_int_equal(q1(s, "select thread from phases where rank=0"), 3);
    assert_int_equal(q1(s, "select count(*) from phases where kind='wait'"), 1);
    assert_int_equal(q1(s, "select count(*) from clock_sync where rank=1 and host='node7'"), 2);
    assert_int_equal(q1(s, "select uncertainty_ns from clock_sync order by local_ns desc"), 30000);

    /* again: the same, not twice; the recorder's phase is kept */
    assert_int_equal(mw_merge_run(s, rundir, &st, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(q1(s, "select count(*) from phases"), 4);
    assert_int_equal(q1(s, "select count(*) from clock_sync"), 2);
    assert_int_equal(q1(s, "select count(*) from phases where kind='mw'"), 1);
    mw_store_close(s);
    char cmd[256];
    *strrchr(rundir, '/') = 0; /* the temporary directory around the run */
    snprintf(cmd, sizeof cmd, "rm -rf %.120s", rundir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(merges_with_interpolated_offsets)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
