/* mw merge (host/merge.c) on hand-written spill files (docs/probe.md): events land in
 * the phases table with their rank, host, pid, thread, kind, name, bytes and peer; times are
 * moved by the clock offset interpolated between the file's clock samples (computed here
 * by hand); a partial last line is ignored; a malformed file is skipped and named with its
 * line; merging again replaces, never duplicates; the recorder's own phases stay; a merge
 * removes the spill files it merged (only those), and a merge that finds none keeps the
 * store. The compact phase_blocks (schema 3) read back through mw_run.h exactly as the same
 * events stored as rows of phases, in every order and filter, at <= 24 bytes an event. */
#include "../unit.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_merge.h"
#include "mw_run.h"
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
    mw_merge_opts keep = {.keep_spill = 1};
    assert_int_equal(mw_merge_run_opts(s, rundir, &keep, &st, NULL, NULL, err, sizeof err), 0);
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

    /* again (the files kept): the same, not twice; the recorder's phase is kept; the files
     * merged are removed, the skipped one stays */
    char probe[256], path[300];
    snprintf(probe, sizeof probe, "%s/probe", rundir);
    assert_int_equal(mw_merge_run(s, rundir, &st, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(st.files, 2);
    assert_int_equal(q1(s, "select count(*) from phases"), 4);
    assert_int_equal(q1(s, "select count(*) from clock_sync"), 2);
    assert_int_equal(q1(s, "select count(*) from phases where kind='mw'"), 1);
    assert_int_equal(q1(s, "select value from meta where key='probe_dropped_events'"), 5);
    snprintf(path, sizeof path, "%s/node7.4242.mwp", probe);
    assert_int_equal(access(path, F_OK), -1);
    snprintf(path, sizeof path, "%s/rec.17.mwp", probe);
    assert_int_equal(access(path, F_OK), -1);
    snprintf(path, sizeof path, "%s/bad.1.mwp", probe);
    assert_int_equal(access(path, F_OK), 0);
    /* and again: only the bad file is there, nothing is merged, nothing lost */
    assert_int_equal(mw_merge_run(s, rundir, &st, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(st.files, 0);
    assert_int_equal(q1(s, "select count(*) from phases"), 4);
    assert_int_equal(q1(s, "select count(*) from clock_sync"), 2);
    mw_store_close(s);
    char cmd[256];
    *strrchr(rundir, '/') = 0; /* the temporary directory around the run */
    snprintf(cmd, sizeof cmd, "rm -rf %.120s", rundir);
    assert_int_equal(system(cmd), 0);
}

/* ---- compact blocks read back as rows -------------------------------------------------- */

/* A spill file of rank r: thread 0 makes N0 MPI calls (distinct start times, varied lengths,
 * bytes and peers) and counters; thread 1 nests "step" phases in "solve" phases (written in
 * end order: the file is not in start order) and marks instants. Rank 1's clock is off. */
static void chatty_file(int r, int n0)
{
    char name[64];
    snprintf(name, sizeof name, "h%d.%d.mwp", r, 100 + r);
    size_t cap = (size_t)n0 * 80 + 100000, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    len += (size_t)snprintf(t + len, cap - len,
                            "H\t1\th%d\t%d\tCLOCK_REALTIME\nR\t%d\t2\nT\t0\t1\nT\t1\t2\n"
                            "N\t0\tMPI_Send\nN\t1\tMPI_Recv\nN\t2\tsolve\nN\t3\tstep\n"
                            "N\t4\ttick\nN\t5\titer\n",
                            r, 100 + r, r);
    if (r == 1)
        len += (size_t)snprintf(t + len, cap - len,
                                "C\t1000000000\t2\t10\n"); /* no ties between the ranks */
    int64_t base = 1000000000;
    for (int i = 0; i < n0; i++) {
        int64_t t0 = base + (int64_t)i * 4000 + r * 7, d = (i * 37) % 3000;
        len += (size_t)snprintf(t + len, cap - len, "E\t0\t2\t%d\t%lld\t%lld\t%d\t%d\n", i % 2,
                                (long long)t0, (long long)(t0 + d), (i % 5) * 1000,
                                i % 2 ? 1 - r : -1);
        if (i % 100 == 0)
            len += (size_t)snprintf(t + len, cap - len, "E\t0\t7\t5\t%lld\t%lld\t%d\t-1\n",
                                    (long long)(t0 + 3001), (long long)(t0 + 3001), i - 50);
    }
    for (int k = 0; k < 50; k++) { /* solve k: [s, s+300000), steps inside, then the mark */
        int64_t st = base + (int64_t)k * 400000 + 11 + r * 5;
        for (int j = 0; j < 3; j++)
            len +=
                (size_t)snprintf(t + len, cap - len, "E\t1\t0\t3\t%lld\t%lld\t0\t-1\n",
                                 (long long)(st + 1 + j * 1000), (long long)(st + 900 + j * 1000));
        len += (size_t)snprintf(t + len, cap - len, "E\t1\t0\t2\t%lld\t%lld\t0\t-1\n",
                                (long long)st, (long long)(st + 300000));
        len += (size_t)snprintf(t + len, cap - len, "E\t1\t6\t4\t%lld\t%lld\t0\t-1\n",
                                (long long)(st + 300013), (long long)(st + 300013));
    }
    len += (size_t)snprintf(t + len, cap - len, "X\t1\n");
    assert_true(len < cap);
    write_file(name, t);
    free(t);
}

/* a new run in rundir/NAME with the recorder's own phase (which ties a probe event's start) */
static mw_store *new_run(const char *name)
{
    char dir[256], err[512];
    snprintf(dir, sizeof dir, "%s/%s", rundir, name);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    mw_store_phase own = {-1, "rec", 0, "mw", "command", 1000000007, 2000000000, 0, 1, -1};
    assert_int_equal(mw_store_phase_add(s, &own), 0);
    return s;
}

static void merge_into(mw_store *s, const char *name, long long compact_min)
{
    char dir[256], err[512];
    snprintf(dir, sizeof dir, "%s/%s", rundir, name);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s/probe && cp -r %s/probe %s/", dir, rundir, dir);
    assert_int_equal(system(cmd), 0);
    mw_merge_stats st;
    mw_merge_opts o = {.compact_min_events = compact_min};
    assert_int_equal(mw_merge_run_opts(s, dir, &o, &st, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(st.files, 2);
}

/* the two cursors give the same phases, field by field; returns how many */
static long same_phases(mw_run_cursor *a, mw_run_cursor *b)
{
    assert_non_null(a);
    assert_non_null(b);
    mw_store_phase x, y;
    long n = 0;
    int ra, rb;
    while ((ra = mw_run_phase_next(a, &x)) == 1) {
        rb = mw_run_phase_next(b, &y);
        assert_int_equal(rb, 1);
        assert_int_equal(x.rank, y.rank);
        assert_string_equal(x.host, y.host);
        assert_int_equal(x.thread, y.thread);
        assert_string_equal(x.kind, y.kind);
        assert_string_equal(x.name, y.name);
        assert_true(x.start_ns == y.start_ns && x.end_ns == y.end_ns && x.bytes == y.bytes);
        assert_true(x.pid == y.pid && x.peer == y.peer);
        n++;
    }
    assert_int_equal(ra, 0);
    assert_int_equal(mw_run_phase_next(b, &y), 0);
    mw_run_close(a);
    mw_run_close(b);
    return n;
}

static void blocks_read_as_rows(void **state)
{
    snprintf(rundir, sizeof rundir, "/tmp/mw-mergec-XXXXXX");
    assert_non_null(mkdtemp(rundir));
    enum { N0 = 10000 }; /* > 2 blocks of 4096 on thread 0 (of MPI calls) */
    chatty_file(0, N0);
    chatty_file(1, N0);
    mw_store *rows = new_run("rows"), *blocks = new_run("blocks");
    merge_into(rows, "rows", 1000000000);
    merge_into(blocks, "blocks", 1);
    long long nev = 2 * (N0 + N0 / 100 + 50 * 5);
    assert_int_equal(q1(rows, "select count(*) from phases"), nev + 1);
    /* user phases, marks and counters stay rows; the MPI calls are blocks */
    long long own = 2 * (N0 / 100 + 50 * 5);
    assert_int_equal(q1(blocks, "select count(*) from phases"), 1 + own);
    assert_int_equal(q1(blocks, "select count(*) from phases where kind = 'comm'"), 0);
    assert_int_equal(q1(blocks, "select sum(events) from phase_blocks"), nev - own);
    assert_true(q1(blocks, "select count(*) from phase_blocks") >= 6);
    /* compact: the blobs and their rows' columns under 24 bytes an event */
    long long bytes = q1(blocks, "select sum(length(data) + length(host) + 40) from phase_blocks");
    assert_true(bytes <= 24 * (nev - own));

    static const char *const comm[] = {"comm", NULL}, *const not_mw[] = {"mw", NULL};
    mw_run_phase_filter f[6];
    for (int i = 0; i < 6; i++)
        f[i] = mw_run_phase_all();
    f[1].order = MW_RUN_BY_RANK;
    f[2].kinds = comm;
    f[2].rank = 1;
    f[3].not_kinds = not_mw;
    f[3].spans = 1;
    f[3].order = MW_RUN_BY_RANK;
    f[4].name = "step";
    f[4].ranked = 1;
    f[5].name = "no such name";
    /* spans: the calls of length (37 i mod 3000) > 0 (all but i = 0, 3000, 6000, 9000) and the
     * 200 user phases of each rank; no instant */
    long want[6] = {nev + 1, nev + 1, N0, 2 * (N0 - 4 + 200), 300, 0};
    for (int i = 0; i < 6; i++) {
        long n = same_phases(mw_run_phases(rows, &f[i]), mw_run_phases(blocks, &f[i]));
        assert_int_equal(n, want[i]);
    }
    assert_int_equal(
        same_phases(mw_run_phases_by_start_rank(rows), mw_run_phases_by_start_rank(blocks)),
        nev + 1);
    mw_run_counts ca, cb;
    assert_int_equal(mw_run_count(rows, &ca), 0);
    assert_int_equal(mw_run_count(blocks, &cb), 0);
    assert_int_equal(cb.phases, nev + 1);
    assert_int_equal(ca.phases, cb.phases);
    int64_t va = 0, vb = 1;
    assert_int_equal(mw_run_counter_first(rows, "iter", &va), 1);
    assert_int_equal(mw_run_counter_first(blocks, "iter", &vb), 1);
    assert_int_equal(va, -50);
    assert_int_equal(vb, -50);
    int *ranks;
    size_t nranks;
    assert_int_equal(mw_store_phase_ranks(blocks, &ranks, &nranks), 0);
    assert_int_equal(nranks, 2);
    free(ranks);
    /* the simulated cluster's re-hosting reaches the blocks too */
    assert_int_equal(mw_store_phases_set_host_of_pid(rows, 101, "N2"), 0);
    assert_int_equal(mw_store_phases_set_host_of_pid(blocks, 101, "N2"), 0);
    assert_int_equal(mw_store_commit(blocks), 0);
    assert_int_equal(same_phases(mw_run_phases(rows, NULL), mw_run_phases(blocks, NULL)), nev + 1);
    /* a damaged block is an error, not wrong phases */
    assert_int_equal(sqlite3_exec(mw_store_sqlite(blocks),
                                  "UPDATE phase_blocks SET data = x'ff' WHERE id = 2", NULL, NULL,
                                  NULL),
                     SQLITE_OK);
    mw_run_cursor *c = mw_run_phases(blocks, NULL);
    mw_store_phase p;
    int rc;
    while ((rc = mw_run_phase_next(c, &p)) == 1) {
    }
    assert_int_equal(rc, -1);
    assert_non_null(strstr(mw_store_error(blocks), "phase block 2 is damaged"));
    mw_run_close(c);
    /* so is an event naming no phase_names row (first delta 0, length 1, name 99) */
    assert_int_equal(sqlite3_exec(mw_store_sqlite(blocks),
                                  "UPDATE phase_blocks SET data = x'0001630000' WHERE id = 2", NULL,
                                  NULL, NULL),
                     SQLITE_OK);
    c = mw_run_phases(blocks, NULL);
    while ((rc = mw_run_phase_next(c, &p)) == 1) {
    }
    assert_int_equal(rc, -1);
    assert_non_null(strstr(mw_store_error(blocks), "phase block 2 is damaged"));
    mw_run_close(c);
    mw_store_close(rows);
    mw_store_close(blocks);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %.120s", rundir);
    assert_int_equal(system(cmd), 0);
}

/* MW_MERGE_AGGREGATE_HZ / aggregate_hz = 1000 with the default 250 ms window: a window of
 * more than 250 events becomes one phase per name, end to end from its first start, as long
 * as its events together, bytes summed; a quieter window keeps its events. Computed by hand:
 * 12,000 calls 100 µs apart from t = 1 s (MPI_Send 10 µs 8 bytes to rank 1, MPI_Recv 20 µs
 * from rank 1, alternating, until 2.2 s): the windows from 1.0, 1.25, 1.5, 1.75 s hold 1250
 * of each, the one from 2.0 s 1000 of each; then 100 calls 1 ms apart from 3 s: kept. */
static void aggregates_busy_windows(void **state)
{
    snprintf(rundir, sizeof rundir, "/tmp/mw-mergea-XXXXXX");
    assert_non_null(mkdtemp(rundir));
    size_t cap = 2000000, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    len += (size_t)snprintf(t + len, cap - len,
                            "H\t1\th\t9\tCLOCK_REALTIME\nR\t0\t2\n"
                            "N\t0\tMPI_Send\nN\t1\tMPI_Recv\n");
    for (long long i = 0; i < 12000; i++) {
        long long t0 = 1000000000LL + i * 100000;
        len += (size_t)snprintf(t + len, cap - len, "E\t0\t2\t%lld\t%lld\t%lld\t%lld\t1\n", i % 2,
                                t0, t0 + (i % 2 ? 20000 : 10000), i % 2 ? 0LL : 8LL);
    }
    for (long long i = 0; i < 100; i++) {
        long long t0 = 3000000000LL + i * 1000000;
        len +=
            (size_t)snprintf(t + len, cap - len, "E\t0\t2\t0\t%lld\t%lld\t8\t1\n", t0, t0 + 10000);
    }
    write_file("h.9.mwp", t);
    free(t);
    mw_store *s = new_run("agg");
    char dir[256], err[512];
    snprintf(dir, sizeof dir, "%s/agg", rundir);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "cp -r %s/probe %s/", rundir, dir);
    assert_int_equal(system(cmd), 0);
    mw_merge_stats st;
    mw_merge_opts o = {.compact_min_events = 1, .aggregate_hz = 1000};
    assert_int_equal(mw_merge_run_opts(s, dir, &o, &st, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(st.events, 12100);
    assert_int_equal(st.aggregated, 12000 - 10);
    assert_int_equal(q1(s, "select value from meta where key='probe_aggregated_events'"), 11990);
    static const char *const comm[] = {"comm", NULL};
    mw_run_phase_filter f = mw_run_phase_all();
    f.kinds = comm;
    mw_run_cursor *c = mw_run_phases(s, &f);
    mw_store_phase p;
    for (int w = 0; w < 5; w++) {
        long long n = w < 4 ? 1250 : 1000, start = 1000000000LL + w * 250000000LL;
        assert_int_equal(mw_run_phase_next(c, &p), 1);
        assert_string_equal(p.name, "MPI_Send");
        assert_true(p.start_ns == start && p.end_ns == start + n * 10000);
        assert_true(p.bytes == 8 * n && p.peer == 1);
        assert_int_equal(mw_run_phase_next(c, &p), 1);
        assert_string_equal(p.name, "MPI_Recv");
        assert_true(p.start_ns == start + n * 10000 && p.end_ns == start + n * 30000);
        assert_true(p.bytes == 0 && p.peer == 1);
    }
    for (long long i = 0; i < 100; i++) {
        assert_int_equal(mw_run_phase_next(c, &p), 1);
        assert_true(p.start_ns == 3000000000LL + i * 1000000 && p.end_ns == p.start_ns + 10000);
    }
    assert_int_equal(mw_run_phase_next(c, &p), 0);
    mw_run_close(c);
    mw_store_close(s);
    snprintf(cmd, sizeof cmd, "rm -rf %.120s", rundir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(merges_with_interpolated_offsets),
                                       cmocka_unit_test(blocks_read_as_rows),
                                       cmocka_unit_test(aggregates_busy_windows)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
