/* mw_merge_hosts (host/merge_hosts.c) on agent stores made here with the store API, each
 * host's clock ahead of the launching host's by a known offset: every window is stamped on
 * its host's clock as truth + offset, and the clock exchanges say that offset with a known
 * jitter, so the merged windows must come back exactly on the truth (the offset is the
 * exchanges' median, computed here by hand). Channels and meters are numbered run-wide,
 * shared names become HOST:NAME, a host's gaps concern its meter only; a host whose
 * recording did not end, or that left no store, makes the run partial naming it; a 2 s step
 * in one host's exchanges is detected, keeps the longer side's offset and goes into the
 * uncertainty; a clock 100 ppm fast is fitted as a line and every window corrected by the
 * offset at its own time. A schema 7 host's clock knots come with its windows (its stamps
 * 1 ms off, its knots right: the merged times are right, drifting clock included).
 * Schema 6 hosts' windows are copied row by row, 16 channels a row;
 * a version 5 host store (its table samples, made here by SQL), or a host holding a sample
 * of a channel it does not list, is copied sample by sample, that sample left out, and
 * merges to the same samples. */
#include "../unit.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_merge_hosts.h"
#include "mw_run.h"
#include "mw_store.h"
#include "../../../host/store_internal.h" /* the SQLite handle: tests check the rows themselves */

#define T0 1795000000000000000LL
#define WIN 250000000LL

static char run[128];

typedef struct {
    const char *host;
    int64_t offset_ns; /* the host's clock minus the launcher's */
    int nch;
    const char *const *names;
    const char *status; /* NULL: none set (a recorder killed before its end) */
    int step_at;        /* exchange index from which the host's clock reads +2 s; 0: none */
    double drift_ppm;   /* the offset grows by this (from T0 on the host's clock); with it,
                         * 12 exchanges without jitter */
    int knots;          /* schema 7: the windows' stamps 1 ms late, and clock knots that map
                         * their meter times to the right ones (the recorder's end) */
} host_spec;

/* RUN/hosts/HOST/trace.db with 8 windows per channel (power 1000 * channel + 7), a gap of
 * the whole recording, and 9 clock exchanges */
static void make_host(const host_spec *h)
{
    char dir[300], err[512];
    snprintf(dir, sizeof dir, "%s/hosts/%s", run, h->host);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    char name[64];
    snprintf(name, sizeof name, "sim-%s", h->host);
    assert_int_equal(mw_store_meter_add(s, 1, name, h->host, "/dev/pts/9", 0, 0), 0);
    for (int k = 1; k <= h->nch; k++)
        assert_int_equal(mw_store_channel_add_meter(s, k, h->names[k - 1], NULL, "A1", 1, k), 0);
    for (int i = 0; i < 8; i++)
        for (int k = 1; k <= h->nch; k++) {
            mw_store_sample x = {.channel = k, .segment = 1, .seq = (uint32_t)i,
                                 .meter_t0_us = (uint64_t)i * 250000,
                                 .meter_t1_us = (uint64_t)(i + 1) * 250000,
                                 .t0_ns = T0 + h->offset_ns + i * WIN + h->knots * 1000000,
                                 .t1_ns = T0 + h->offset_ns + (i + 1) * WIN + h->knots * 1000000,
                                 .uncertainty_ns = 100000, .power_mw = 1000 * k + 7,
                                 .vrms_mv = 230000, .pf_milli = 1000};
            assert_int_equal(mw_store_sample_add(s, &x), 0);
        }
    if (h->knots) { /* meter time 0 at T0 + offset, 1 ns per ns; a lead point before */
        mw_clock_knot k[2] = {{-1000000, T0 + h->offset_ns - 1000000000, 1000.0},
                              {0, T0 + h->offset_ns, 1000.0}};
        assert_int_equal(mw_store_knots_add(s, 1, 1, k, 2, 100000), 0);
    }
    assert_int_equal(mw_store_gap_add(s, T0 + h->offset_ns + 3 * WIN, T0 + h->offset_ns + 4 * WIN,
                                      "disconnected"),
                     0);
    static const int64_t jitter_ns[9] = {0, 2000, -2000, 1000, -1000, 3000, -3000, 500, -500};
    for (int j = 0; j < (h->drift_ppm ? 12 : 9); j++) {
        int64_t step = h->step_at && j >= h->step_at ? 2000000000LL : 0;
        if (h->drift_ppm) { /* offset(local) = offset + drift x (local - T0), exactly */
            int64_t local = T0 + j * 1000000000LL;
            int64_t off = h->offset_ns + (int64_t)(h->drift_ppm * 1e-6 * (double)(j * 1000000000LL));
            assert_int_equal(mw_store_clock_sync_add(s, -1, h->host, 1, local, -off, 10000), 0);
            continue;
        }
        /* clock_sync's sign: the launcher's clock read local + offset_ns; a stepped clock
         * reads its local times stepped too */
        assert_int_equal(mw_store_clock_sync_add(s, -1, h->host, 1, T0 + j * 1000000000LL + step,
                                                 -(h->offset_ns + jitter_ns[j] + step), 10000),
                         0);
    }
    if (h->status) assert_int_equal(mw_store_meta_set(s, "status", h->status), 0);
    mw_store_close(s);
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

static void qs(mw_store *s, const char *sql, char *out, size_t len)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(mw_store_sqlite(s), sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

static void new_run(void)
{
    snprintf(run, sizeof run, "/tmp/mw-mergehosts-XXXXXX");
    assert_non_null(mkdtemp(run));
    char p[200];
    snprintf(p, sizeof p, "%s/hosts", run);
    assert_int_equal(mkdir(p, 0777), 0);
}

static void rm_run(void)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", run);
    assert_int_equal(system(cmd), 0);
}

static void said(void *ctx, const char *line)
{
    char *buf = ctx;
    size_t n = strlen(buf);
    snprintf(buf + n, 4096 - n, "%s\n", line);
}

static void two_hosts_on_one_axis(void **state)
{
    new_run();
    static const char *const n1[] = {"a", "b", "c"}, *const n2[] = {"a", "d"};
    host_spec h1 = {"h1", 3000000, 3, n1, "complete", 0, 0, 0};
    host_spec h2 = {"h2", -7000000, 2, n2, "complete", 0, 0, 1};
    make_host(&h2); /* made out of order: the merge orders hosts by name */
    make_host(&h1);
    mw_merge_hosts_stats st;
    char err[1024], says[4096] = "";
    assert_int_equal(mw_merge_hosts(run, NULL, &st, said, says, err, sizeof err), 0);
    assert_int_equal(st.hosts, 2);
    assert_int_equal(st.lost, 0);
    assert_int_equal(st.channels, 5);
    assert_int_equal(st.samples, 40);
    assert_string_equal(st.status, "complete");
    mw_store *s = mw_store_open(run, err, sizeof err);
    assert_non_null(s);
    /* the offsets: the median of the exchanges is the true one, the bound the median
     * exchange's (10 us) plus the median absolute deviation (1 us, by hand) */
    assert_int_equal(q1(s, "SELECT clock_offset_ns FROM meters WHERE host = 'h1'"), 3000000);
    assert_int_equal(q1(s, "SELECT clock_offset_ns FROM meters WHERE host = 'h2'"), -7000000);
    assert_int_equal(q1(s, "SELECT clock_uncertainty_ns FROM meters WHERE host = 'h2'"), 11000);
    /* every window back on the truth, on both hosts */
    assert_int_equal(q1(s, "SELECT count(*) FROM samples WHERE t0_ns = 1795000000000000000 + "
                           "seq * 250000000 AND t1_ns = t0_ns + 250000000"),
                     40);
    assert_int_equal(q1(s, "SELECT min(uncertainty_ns) FROM samples"), 100000 + 11000);
    /* h2's clock knots came along (its live stamps are 1 ms late), and the run's end is the
     * last window's final end */
    assert_int_equal(q1(s, "SELECT count(*) FROM clock_knots WHERE meter = 2"), 2);
    assert_int_equal(q1(s, "SELECT CAST(value AS INTEGER) - 1795000000000000000 FROM meta WHERE "
                           "key = 'end_ns'"),
                     8 * WIN);
    /* channels: h1's a b c then h2's a d; the shared name qualified */
    char buf[256];
    qs(s, "SELECT group_concat(name, ' ') FROM (SELECT name FROM channels ORDER BY channel)",
       buf, sizeof buf);
    assert_string_equal(buf, "h1:a b c h2:a d");
    assert_int_equal(q1(s, "SELECT meter * 10 + meter_channel FROM channels WHERE channel = 5"),
                     22);
    assert_int_equal(q1(s, "SELECT count(*) FROM meters WHERE name IN ('sim-h1', 'sim-h2')"), 2);
    /* the powers went with their channels */
    assert_int_equal(q1(s, "SELECT min(power_mw) = max(power_mw) AND min(power_mw) = 2007 FROM "
                           "samples WHERE channel = 5"),
                     1);
    /* h2's gap: its meter only, on the launcher's axis */
    assert_int_equal(q1(s, "SELECT count(*) FROM gaps WHERE meter = 2 AND reason = "
                           "'h2: disconnected' AND start_ns = 1795000000000000000 + 750000000"),
                     1);
    assert_int_equal(q1(s, "SELECT count(*) FROM gaps WHERE meter IS NULL"), 0);
    mw_store_close(s);
    /* merging again gives the same */
    assert_int_equal(mw_merge_hosts(run, NULL, &st, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(st.samples, 40);
    rm_run();
}

/* host's store as version 5 wrote it: table samples (key, indexes), user_version 5 */
static void host_to_v5(const char *host)
{
    char db[300];
    snprintf(db, sizeof db, "%s/hosts/%s/trace.db", run, host);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(h,
                     "CREATE TABLE s5 AS SELECT * FROM samples; DROP VIEW samples; "
                     "DROP INDEX IF EXISTS windows_time; DROP TABLE windows; "
                     "CREATE TABLE samples (channel INTEGER NOT NULL, segment INTEGER NOT NULL, "
                     "seq INTEGER NOT NULL, meter_t0_us INTEGER NOT NULL, meter_t1_us INTEGER "
                     "NOT NULL, t0_ns INTEGER NOT NULL, t1_ns INTEGER NOT NULL, uncertainty_ns "
                     "INTEGER NOT NULL, power_mw INTEGER NOT NULL, vrms_mv INTEGER NOT NULL, "
                     "irms_ua INTEGER NOT NULL, pf_milli INTEGER NOT NULL, meter_energy_mj "
                     "INTEGER NOT NULL, energy_mj INTEGER NOT NULL, flags INTEGER NOT NULL, "
                     "PRIMARY KEY (segment, seq, channel)) WITHOUT ROWID; "
                     "CREATE INDEX samples_channel_time ON samples(channel, t1_ns); "
                     "CREATE INDEX samples_time ON samples(t1_ns); "
                     "INSERT INTO samples SELECT * FROM s5; DROP TABLE s5; "
                     "PRAGMA user_version = 5",
                     NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s", msg);
    sqlite3_close(h);
}

/* a sample of channel 9, which the host does not list, in a row of its own */
static void host_stray_channel(const char *host)
{
    char dir[300], err[512];
    snprintf(dir, sizeof dir, "%s/hosts/%s", run, host);
    mw_store *s = mw_store_open_write(dir, err, sizeof err);
    assert_non_null(s);
    mw_store_sample x = {.channel = 9, .segment = 1, .seq = 3, .t0_ns = T0, .t1_ns = T0 + WIN,
                         .power_mw = 99};
    assert_int_equal(mw_store_sample_add(s, &x), 0);
    mw_store_close(s);
}

static void older_and_odd_host_stores(void **state)
{
    for (int variant = 0; variant < 2; variant++) {
        new_run();
        static const char *const n1[] = {"a", "b", "c"}, *const n2[] = {"a", "d"};
        host_spec h1 = {"h1", 3000000, 3, n1, "complete", 0, 0, 0};
        host_spec h2 = {"h2", -7000000, 2, n2, "complete", 0, 0, 0};
        make_host(&h1);
        make_host(&h2);
        if (variant == 0) host_to_v5("h2");
        else host_stray_channel("h2");
        mw_merge_hosts_stats st;
        char err[1024];
        assert_int_equal(mw_merge_hosts(run, NULL, &st, NULL, NULL, err, sizeof err), 0);
        assert_int_equal(st.samples, 40); /* the stray sample left out */
        mw_store *s = mw_store_open(run, err, sizeof err);
        assert_non_null(s);
        assert_int_equal(q1(s, "SELECT count(*) FROM samples WHERE t0_ns = 1795000000000000000 "
                               "+ seq * 250000000 AND t1_ns = t0_ns + 250000000"),
                         40);
        assert_int_equal(q1(s, "SELECT min(power_mw) = max(power_mw) AND min(power_mw) = 2007 "
                               "FROM samples WHERE channel = 5"),
                         1);
        /* h1 row by row (8 windows), h2 sample by sample (16), each on its meter */
        assert_int_equal(q1(s, "SELECT count(*) FROM windows WHERE meter = 1"), 8);
        assert_int_equal(q1(s, "SELECT count(*) FROM windows WHERE meter = 2 AND channel0 IN "
                               "(4, 5) AND p2 IS NULL"),
                         16);
        /* segments numbered after h1's */
        assert_int_equal(q1(s, "SELECT min(segment) FROM samples WHERE channel >= 4"), 2);
        mw_store_close(s);
        rm_run();
    }
}

static void lost_hosts_and_a_step(void **state)
{
    new_run();
    static const char *const n[] = {"x", "y"};
    host_spec h1 = {"h1", 0, 2, n, "complete", 6, 0, 0}; /* +2 s from the 7th of 9 exchanges */
    host_spec h2 = {"h2", 0, 2, n, NULL, 0, 0, 0};    /* killed: no status */
    make_host(&h1);
    make_host(&h2);
    char p[300];
    snprintf(p, sizeof p, "%s/hosts/h3", run); /* an agent that made nothing */
    assert_int_equal(mkdir(p, 0777), 0);
    snprintf(p, sizeof p, "%s/hosts/bad\nname", run); /* not a host name: not ours */
    assert_int_equal(mkdir(p, 0777), 0);
    mw_merge_hosts_stats st;
    char err[1024], says[4096] = "";
    assert_int_equal(mw_merge_hosts(run, "complete", &st, said, says, err, sizeof err), 0);
    assert_int_equal(st.hosts, 3);
    assert_int_equal(st.lost, 2);
    assert_string_equal(st.status, "complete, partial: hosts h2, h3 lost");
    assert_int_equal(st.steps, 1);
    assert_non_null(strstr(says, "host h1: clock stepped by +2.000 s at 6.0 s"));
    assert_non_null(strstr(says, "host h3 lost"));
    mw_store *s = mw_store_open(run, err, sizeof err);
    assert_non_null(s);
    /* the killed host's windows are kept */
    assert_int_equal(q1(s, "SELECT count(*) FROM samples JOIN channels USING (channel) WHERE "
                           "meter = 2"),
                     16);
    /* the step: the longer side's offset (0, jitter aside), the step in the bound */
    assert_true(q1(s, "SELECT abs(clock_offset_ns) FROM meters WHERE host = 'h1'") <= 3000);
    assert_true(q1(s, "SELECT clock_uncertainty_ns FROM meters WHERE host = 'h1'") >= 2000000000LL);
    assert_int_equal(q1(s, "SELECT value FROM meta WHERE key = 'clock_steps'"), 1);
    char buf[256];
    qs(s, "SELECT value FROM meta WHERE key = 'status'", buf, sizeof buf);
    assert_string_equal(buf, "complete, partial: hosts h2, h3 lost");
    qs(s, "SELECT value FROM meta WHERE key = 'hosts_lost'", buf, sizeof buf);
    assert_string_equal(buf, "h2, h3");
    mw_store_close(s);
    rm_run();
}

/* a host whose clock runs 100 ppm fast: each window goes back by the offset at its own time */
static void drifting_clock(void **state)
{
    new_run();
    static const char *const n[] = {"x"};
    host_spec h1 = {"h1", 5000000, 1, n, "complete", 0, 100.0, 1};
    make_host(&h1);
    mw_merge_hosts_stats st;
    char err[1024];
    assert_int_equal(mw_merge_hosts(run, NULL, &st, NULL, NULL, err, sizeof err), 0);
    mw_store *s = mw_store_open(run, err, sizeof err);
    assert_non_null(s);
    /* host time H = T0 + 5 ms + i x 250 ms; truth = H - (5 ms + 100e-6 x (H - T0)) */
    for (int i = 0; i < 8; i++) {
        char sql[256];
        int64_t hns = 5000000 + i * WIN, truth = hns - (5000000 + hns / 10000);
        snprintf(sql, sizeof sql, "SELECT t0_ns - 1795000000000000000 FROM samples WHERE seq = %d", i);
        int64_t got = q1(s, sql);
        assert_true(got - truth <= 2 && truth - got <= 2);
    }
    char buf[64];
    qs(s, "SELECT value FROM meta WHERE key = 'clock_drift.h1_ppm'", buf, sizeof buf);
    assert_string_equal(buf, "100.000");
    mw_store_close(s);
    rm_run();
}

/* a hostile store's clock exchanges: offsets INT64_MIN / INT64_MAX, an uncertainty of 1e18
 * ns, a negative one, a local time at INT64_MAX (signed overflow before, which UBSan aborts
 * on) are refused and said; the host's good exchanges still place its windows exactly; a
 * clock "drifting" 5000 ppm (no real clock's) is taken as not drifting */
static void hostile_clock_rows(void **state)
{
    new_run();
    static const char *const n[] = {"x"};
    host_spec h1 = {"h1", 5000000, 1, n, "complete", 0, 0, 0};
    host_spec h2 = {"h2", 7000000, 1, n, "complete", 0, 5000.0, 0};
    make_host(&h1);
    make_host(&h2);
    char dir[300], err[1024];
    snprintf(dir, sizeof dir, "%s/hosts/h1", run);
    mw_store *hs = mw_store_open_write(dir, err, sizeof err);
    assert_non_null(hs);
    assert_int_equal(mw_store_clock_sync_add(hs, -1, "h1", 1, T0, INT64_MIN, 10000), 0);
    assert_int_equal(mw_store_clock_sync_add(hs, -1, "h1", 1, T0, INT64_MAX, 10000), 0);
    assert_int_equal(mw_store_clock_sync_add(hs, -1, "h1", 1, T0, -5000000, 1000000000000000000LL), 0);
    assert_int_equal(mw_store_clock_sync_add(hs, -1, "h1", 1, T0, -5000000, -1), 0);
    assert_int_equal(mw_store_clock_sync_add(hs, -1, "h1", 1, INT64_MAX, -5000000, 10000), 0);
    assert_int_equal(mw_store_clock_sync_add(hs, -1, "h1", 1, INT64_MIN, -5000000, 10000), 0);
    assert_int_equal(mw_store_commit(hs), 0);
    mw_store_close(hs);
    mw_merge_hosts_stats st;
    char lines[4096] = "";
    assert_int_equal(mw_merge_hosts(run, NULL, &st, said, lines, err, sizeof err), 0);
    assert_non_null(strstr(lines, "host h1: 6 clock exchanges out of range"));
    assert_null(strstr(lines, "host h2: "));
    mw_store *s = mw_store_open(run, err, sizeof err);
    assert_non_null(s);
    /* h1's windows back on the truth: T0 + i x 250 ms exactly (the good exchanges' median) */
    assert_int_equal(q1(s, "SELECT count(*) FROM samples s JOIN channels c USING (channel)"
                           " JOIN meters m ON m.meter = c.meter WHERE m.host = 'h1'"
                           " AND s.t0_ns = 1795000000000000000 + s.seq * 250000000"), 8);
    char buf[64];
    qs(s, "SELECT value FROM meta WHERE key = 'clock_offset.h1_ns'", buf, sizeof buf);
    assert_string_equal(buf, "5000000");
    qs(s, "SELECT value FROM meta WHERE key = 'clock_drift.h2_ppm'", buf, sizeof buf);
    assert_string_equal(buf, "0.000");
    mw_store_close(s);
    rm_run();
}

/* host "a" with meta key "b.x" and host "a.b" with key "x" keep both (they shared
 * "host.a.b.x"); a host store with 65 channels is lost (said), its channels not in the run */
static void meta_keys_and_caps(void **state)
{
    new_run();
    static const char *const n[] = {"x"};
    host_spec ha = {"a", 0, 1, n, "complete", 0, 0, 0}, hb = {"a.b", 0, 1, n, "complete", 0, 0, 0};
    static const char *many[65];
    static char names[65][16];
    for (int k = 0; k < 65; k++) snprintf(names[k], sizeof names[k], "c%d", k), many[k] = names[k];
    host_spec hc = {"c", 0, 65, many, "complete", 0, 0, 0};
    make_host(&ha);
    make_host(&hb);
    make_host(&hc);
    char dir[300], err[1024];
    snprintf(dir, sizeof dir, "%s/hosts/a", run);
    mw_store *hs = mw_store_open_write(dir, err, sizeof err);
    assert_non_null(hs);
    assert_int_equal(mw_store_meta_set(hs, "b.x", "from a"), 0);
    assert_int_equal(mw_store_commit(hs), 0);
    mw_store_close(hs);
    snprintf(dir, sizeof dir, "%s/hosts/a.b", run);
    hs = mw_store_open_write(dir, err, sizeof err);
    assert_non_null(hs);
    assert_int_equal(mw_store_meta_set(hs, "x", "from a.b"), 0);
    assert_int_equal(mw_store_commit(hs), 0);
    mw_store_close(hs);
    mw_merge_hosts_stats st;
    char lines[4096] = "";
    assert_int_equal(mw_merge_hosts(run, NULL, &st, said, lines, err, sizeof err), 0);
    assert_non_null(strstr(lines, "host c lost: "));
    assert_non_null(strstr(lines, "more than 64 channels"));
    mw_store *s = mw_store_open(run, err, sizeof err);
    assert_non_null(s);
    char buf[64];
    qs(s, "SELECT value FROM meta WHERE key = 'host.a:b.x'", buf, sizeof buf);
    assert_string_equal(buf, "from a");
    qs(s, "SELECT value FROM meta WHERE key = 'host.a.b:x'", buf, sizeof buf);
    assert_string_equal(buf, "from a.b");
    assert_int_equal(q1(s, "SELECT count(*) FROM channels"), 2); /* a:x and a.b:x */
    mw_store_close(s);
    rm_run();
}

/* merging again (mw merge over mw record's merge) keeps the launcher's metadata, the run's
 * status and the phases; the hosts' part is made anew (a host's store changed in between) */
static void merge_again_keeps(void **state)
{
    new_run();
    static const char *const n[] = {"x"};
    host_spec h1 = {"h1", 5000000, 1, n, "complete", 0, 0, 0};
    make_host(&h1);
    mw_merge_hosts_stats st;
    char err[1024];
    assert_int_equal(mw_merge_hosts(run, "interrupted", &st, NULL, NULL, err, sizeof err), 0);
    mw_store *s = mw_store_open_write(run, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_meta_set(s, "launcher", "mpirun"), 0);
    mw_store_phase ph = {.rank = -1, .host = "l", .kind = "mw", .name = "command",
                         .start_ns = T0, .end_ns = T0 + WIN, .pid = 1, .peer = -1};
    assert_int_equal(mw_store_phase_add(s, &ph), 0);
    assert_int_equal(mw_store_commit(s), 0);
    mw_store_close(s);
    host_spec h2 = {"h2", 0, 1, n, "complete", 0, 0, 0}; /* copied in afterwards */
    make_host(&h2);
    assert_int_equal(mw_merge_hosts_again(run, &st, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(st.hosts, 2);
    s = mw_store_open(run, err, sizeof err);
    assert_non_null(s);
    char buf[128];
    qs(s, "SELECT value FROM meta WHERE key = 'launcher'", buf, sizeof buf);
    assert_string_equal(buf, "mpirun");
    qs(s, "SELECT value FROM meta WHERE key = 'status'", buf, sizeof buf);
    assert_string_equal(buf, "interrupted");
    assert_int_equal(q1(s, "SELECT count(*) FROM phases WHERE name = 'command'"), 1);
    assert_int_equal(q1(s, "SELECT count(*) FROM channels"), 2);
    assert_int_equal(q1(s, "SELECT count(*) FROM meta WHERE key = 'clock_offset.h1_ns'"), 1);
    mw_store_close(s);
    char p[300];
    snprintf(p, sizeof p, "%s/trace.db.premerge", run);
    assert_int_equal(access(p, F_OK), -1);
    rm_run();
}

static void nothing_to_merge(void **state)
{
    new_run();
    mw_merge_hosts_stats st;
    char err[1024];
    assert_int_equal(mw_merge_hosts(run, NULL, &st, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "no host store to merge"));
    assert_int_equal(mw_merge_hosts_present(run), 1);
    rm_run();
    assert_int_equal(mw_merge_hosts_present("/nonexistent/run"), 0);
    assert_int_equal(mw_merge_hosts("/nonexistent/run", NULL, &st, NULL, NULL, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "/nonexistent/run/hosts"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(two_hosts_on_one_axis),
                                       cmocka_unit_test(older_and_odd_host_stores),
                                       cmocka_unit_test(lost_hosts_and_a_step),
                                       cmocka_unit_test(drifting_clock),
                                       cmocka_unit_test(hostile_clock_rows),
                                       cmocka_unit_test(meta_keys_and_caps),
                                       cmocka_unit_test(merge_again_keeps),
                                       cmocka_unit_test(nothing_to_merge)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
