/* The simulated cluster (host/sim/simcluster.c): the configuration file (defaults from Escobar et
 * al. Table 5, errors naming file and line), the rank-to-node rule, the linear power model, and
 * the live sampler against real processes: a child that burns the CPU and then sleeps, with
 * its MPI rank in its environment, must drive its node between the configured levels, and a
 * traffic file growing at line rate must drive the switch to its busy level. After a run
 * (mw_simcluster_finish_run), every event of a followed process carries the node it played,
 * every MPI rank's events and clock samples its rank's node, the recorder's own phases keep
 * their host, and the traffic directory is gone. */
#include "../unit.h"

#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mw_simcluster.h"
#include "mw_store.h"

static char path[64];

static void write_file(const char *text)
{
    snprintf(path, sizeof path, "/tmp/mw-cluster-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void defaults_are_table5(void **s)
{
    char err[256], ch[256];
    mw_simcluster *c = mw_simcluster_load(NULL, err, sizeof err);
    assert_non_null(c);
    assert_int_equal(mw_simcluster_nnodes(c), 3);
    assert_float_equal(mw_simcluster_node_power_w(c, 0, 0), 156.30, 1e-9);
    assert_float_equal(mw_simcluster_node_power_w(c, 0, 1), 224.72, 1e-9);
    assert_float_equal(mw_simcluster_node_power_w(c, 1, 1), 160.01, 1e-9);
    assert_float_equal(mw_simcluster_node_power_w(c, 2, 0.5), (172.76 + 226.38) / 2, 1e-9);
    assert_float_equal(mw_simcluster_node_power_w(c, 2, 7), 226.38, 1e-9); /* u capped at 1 */
    assert_float_equal(mw_simcluster_switch_power_w(c, 0), 3.5, 1e-9);
    assert_float_equal(mw_simcluster_switch_power_w(c, 62.5e6), 4.0, 1e-9);
    assert_float_equal(mw_simcluster_switch_power_w(c, 1e12), 4.5, 1e-9);
    mw_simcluster_channels(c, ch, sizeof ch);
    assert_string_equal(ch, "N1@N1,N2@N2,N3@N3,switch");
    /* rank 0 the front end, 1 and 2 the workers, then round-robin over the workers */
    assert_string_equal(mw_simcluster_node_of_rank(c, -1), "N1");
    assert_string_equal(mw_simcluster_node_of_rank(c, 0), "N1");
    assert_string_equal(mw_simcluster_node_of_rank(c, 1), "N2");
    assert_string_equal(mw_simcluster_node_of_rank(c, 2), "N3");
    assert_string_equal(mw_simcluster_node_of_rank(c, 3), "N2");
    assert_string_equal(mw_simcluster_node_of_rank(c, 4), "N3");
    assert_float_equal(mw_simcluster_pin_power_w(c, 1), 156.30, 1e-9);
    assert_float_equal(mw_simcluster_pin_power_w(c, 4), 3.5, 1e-9);
    assert_float_equal(mw_simcluster_pin_power_w(c, 5), 0, 1e-9);
    mw_simcluster_free(c);
}

static void file_with_ranks(void **s)
{
    write_file("# two nodes\nnode fe A2 100 200 ranks=0,3 cores=2\n"
               "node w A5 50 80   # worker\nswitch sw A1 2 4 full=1000\nnoise 0\n");
    char err[256], ch[256];
    mw_simcluster *c = mw_simcluster_load(path, err, sizeof err);
    unlink(path);
    if (!c) fail_msg("%s", err);
    mw_simcluster_channels(c, ch, sizeof ch);
    assert_string_equal(ch, "sw,fe@fe,ch3,ch4,w@w");
    assert_string_equal(mw_simcluster_node_of_rank(c, 0), "fe");
    assert_string_equal(mw_simcluster_node_of_rank(c, 3), "fe");
    assert_string_equal(mw_simcluster_node_of_rank(c, 1), "w");
    assert_string_equal(mw_simcluster_node_of_rank(c, 2), "w");
    assert_float_equal(mw_simcluster_switch_power_w(c, 500), 3, 1e-9);
    mw_simcluster_free(c);
    /* a front end with its ranks listed, two workers without: every worker gets ranks */
    write_file("node fe A1 100 200 ranks=0\nnode w1 A2 50 80\nnode w2 A3 50 80\n");
    c = mw_simcluster_load(path, err, sizeof err);
    unlink(path);
    if (!c) fail_msg("%s", err);
    static const char *const want[] = {"fe", "w1", "w2", "w1", "w2", "w1"};
    for (int r = 0; r < 6; r++)
        assert_string_equal(mw_simcluster_node_of_rank(c, r), want[r]);
    mw_simcluster_free(c);
}

static void errors_name_file_and_line(void **s)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"node N1 A1 100 200\nnode N2 A1 100 200\n", ":2: pin used twice: 'A1'"},
        {"node N1 A1 100 200\nnode N1 A2 100 200\n", ":2: name used twice: 'N1'"},
        {"node N1 A16 100 200\n", ":1: not a current pin (A1..A15): 'A16'"},
        {"node N1 A1 200 100\n", ":1: working power must be idle..5000 W, not '100'"},
        {"node N1 A1 x 100\n", ":1: idle power must be 0..5000 W, not 'x'"},
        {"node N1 A1 1 2 cores=0\n", ":1: cores must be 0.01..4096, not 'cores=0'"},
        {"node N1 A1 1 2 ranks=a\n", ":1: not a rank: 'a'"},
        {"node N1 A1 1 2 speed=3\n", ":1: expected ranks=LIST or cores=N, not 'speed=3'"},
        {"node N/1 A1 1 2\n", ":1: a name is 1..31 of [A-Za-z0-9_.-], not 'N/1'"},
        {"nodes N1 A1 1 2\n", ":1: expected node, switch, noise or interval, not 'nodes'"},
        {"node N1 A1 1\n", ":1: expected: node NAME PIN IDLE_W WORK_W"},
        {"# nothing\n", ":1: no node defined"},
        {"node N1 A1 1 2\nnoise -1\n", ":2: noise must be 0..100 W, not '-1'"},
        {"node N1 A1 1 2\nswitch s A2 1 2 full=0\n", ":2: expected full=BYTES_PER_S"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        write_file(cases[i].text);
        char err[256];
        mw_simcluster *c = mw_simcluster_load(path, err, sizeof err);
        unlink(path);
        if (c) fail_msg("case %zu loaded", i);
        if (!strstr(err, path) || !strstr(err, cases[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].want);
    }
    char err[256];
    assert_null(mw_simcluster_load("/nonexistent/cluster", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/cluster: No such file"));
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* mean of a pin's power over [from, to) seconds from t0, sampled every 10 ms */
static double mean_power(mw_simcluster *c, int pin, double t0, double from, double to)
{
    while (now_s() < t0 + from)
        sleep_s(0.005);
    double sum = 0;
    int n = 0;
    while (now_s() < t0 + to) {
        sum += mw_simcluster_pin_power_w(c, pin);
        n++;
        sleep_s(0.01);
    }
    return n ? sum / n : -1;
}

static void follows_a_real_process(void **s)
{
    write_file("node fe A1 100 200\nnode w A2 50 150\nswitch sw A3 2 4 full=1e6\nnoise 0\n");
    char err[256], dir[] = "/tmp/mw-traffic-XXXXXX";
    mw_simcluster *c = mw_simcluster_load(path, err, sizeof err);
    unlink(path);
    if (!c) fail_msg("%s", err);
    assert_non_null(mkdtemp(dir));
    assert_int_equal(mw_simcluster_start(c), 0);
    int ev[2]; /* the child writes a byte when it starts burning and one when it sleeps */
    assert_int_equal(pipe(ev), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        /* this test again as rank 1 (the worker node): 1.0 s busy, then 1.5 s asleep; like a
         * process forked by mpirun, it is seen without a rank first (200 ms before exec) */
        close(ev[0]);
        dup2(ev[1], 3);
        sleep_s(0.2);
        char *argv[] = {"test_simcluster", "--burn", NULL};
        char *envp[] = {"OMPI_COMM_WORLD_RANK=1", NULL};
        execve("/proc/self/exe", argv, envp);
        _exit(127);
    }
    mw_simcluster_follow(c, child, dir);
    close(ev[1]);
    char byte;
    assert_int_equal(read(ev[0], &byte, 1), 1);
    double t0 = now_s(); /* burning from now for 1.0 s */
    /* the traffic of one process: 2e5 bytes every 100 ms = 2e6 B/s, twice the full rate */
    char tf[64];
    snprintf(tf, sizeof tf, "%s/4242", dir);
    double busy_w = mean_power(c, 2, t0, 0.3, 0.85);
    double fe_busy_w = mean_power(c, 1, t0, 0.85, 0.95);
    FILE *f = fopen(tf, "w");
    assert_non_null(f);
    uint64_t bytes = 0;
    double sw_sum = 0;
    int sw_n = 0;
    for (int i = 0; i < 8; i++) {
        unsigned char b[16] = "mwtx0001";
        for (int k = 0; k < 8; k++)
            b[8 + k] = (unsigned char)(bytes >> (8 * k));
        fseek(f, 0, SEEK_SET);
        fwrite(b, 1, 16, f);
        fflush(f);
        bytes += 200000;
        if (i >= 3) {
            sw_sum += mw_simcluster_pin_power_w(c, 3);
            sw_n++;
        }
        sleep_s(0.1);
    }
    fclose(f);
    assert_int_equal(read(ev[0], &byte, 1), 1);
    t0 = now_s(); /* asleep since at most 0.8 s, for 1.5 s */
    double idle_w = mean_power(c, 2, t0, 0.2, 0.6);
    close(ev[0]);
    int st;
    waitpid(child, &st, 0);
    sleep_s(0.3);
    double sw_after_w = mw_simcluster_pin_power_w(c, 3);
    pid_t pid = 0;
    const char *node0 = mw_simcluster_process(c, 0, &pid);
    char node[32];
    snprintf(node, sizeof node, "%s", node0 ? node0 : "(none)");
    mw_simcluster_follow(c, 0, NULL);
    mw_simcluster_free(c);
    unlink(tf);
    rmdir(dir);
    /* busy: the burning thread's demand is one core (u = 1 even while it waits for one);
     * generous: a loaded machine delays the sampler and the scheduler's accounting */
    if (busy_w < 120) fail_msg("busy worker node %.2f W, want ~150", busy_w);
    if (fe_busy_w > 100.001) fail_msg("front end %.2f W while only rank 1 ran", fe_busy_w);
    if (idle_w > 52) fail_msg("sleeping worker node %.2f W, want ~50", idle_w);
    if (sw_sum / sw_n < 3.8) fail_msg("switch at line rate %.2f W, want ~4", sw_sum / sw_n);
    if (sw_after_w > 2.001) fail_msg("switch after the traffic stopped %.2f W", sw_after_w);
    assert_int_equal(pid, child);
    assert_string_equal(node, "w");
}

/* one row per line, "a|b|..." (the sqlite3 shell's list mode) */
static const char *rows(const char *rundir, const char *sql)
{
    static char out[1024];
    char db[256];
    snprintf(db, sizeof db, "%s/%s", rundir, MW_STORE_DB_NAME);
    sqlite3 *h;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    size_t len = 0;
    out[0] = 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        for (int i = 0; i < sqlite3_column_count(st); i++)
            len += (size_t)snprintf(out + len, sizeof out - len, "%s%s",
                                    (const char *)sqlite3_column_text(st, i),
                                    i + 1 < sqlite3_column_count(st) ? "|" : "\n");
    sqlite3_finalize(st);
    sqlite3_close(h);
    return out;
}

static void finish_run_gives_events_their_nodes(void **s)
{
    write_file("node fe A1 100 200 ranks=0\nnode w1 A2 50 80\nnode w2 A3 50 80\nnoise 0\n");
    char err[512], run[] = "/tmp/mw-cluster-run-XXXXXX", traffic[64], file[96];
    mw_simcluster *c = mw_simcluster_load(path, err, sizeof err);
    unlink(path);
    if (!c) fail_msg("%s", err);
    assert_non_null(mkdtemp(run));
    snprintf(traffic, sizeof traffic, "%s/traffic", run);
    assert_int_equal(mkdir(traffic, 0777), 0);
    snprintf(file, sizeof file, "%s/4242", traffic);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    /* a process without a rank, followed until the sampler has seen it: the front end's */
    assert_int_equal(mw_simcluster_start(c), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        sleep_s(0.5);
        _exit(0);
    }
    mw_simcluster_follow(c, child, traffic);
    pid_t pid = 0;
    for (int i = 0; i < 200 && !mw_simcluster_process(c, 0, &pid); i++)
        sleep_s(0.01);
    assert_int_equal(pid, child);
    mw_simcluster_follow(c, 0, NULL);
    waitpid(child, NULL, 0);

    mw_store *st = mw_store_create(run, 1, err, sizeof err);
    if (!st) fail_msg("%s", err);
    mw_store_phase ph[] = {
        {.rank = -1, .host = "h", .kind = "user", .name = "a", .pid = child, .peer = -1},
        {.rank = -1, .host = "h", .kind = "mw", .name = "command", .pid = child, .peer = -1},
        {.rank = 1, .host = "h", .kind = "mpi", .name = "b", .pid = 7, .peer = -1},
        {.rank = 2, .host = "h", .kind = "mpi", .name = "c", .pid = 8, .peer = -1},
        {.rank = 2, .host = "h", .kind = "mw", .name = "d", .pid = 8, .peer = -1},
    };
    for (size_t i = 0; i < sizeof ph / sizeof *ph; i++)
        assert_int_equal(mw_store_phase_add(st, &ph[i]), 0);
    assert_int_equal(mw_store_clock_sync_add(st, 2, "h", 8, 1, 2, 3), 0);
    assert_int_equal(mw_store_clock_sync_add(st, 0, "h", 9, 1, 2, 3), 0);
    int *ranks;
    size_t nranks;
    assert_int_equal(mw_store_phase_ranks(st, &ranks, &nranks), 0);
    assert_int_equal(nranks, 2);
    assert_int_equal(ranks[0], 1);
    assert_int_equal(ranks[1], 2);
    free(ranks);
    if (mw_simcluster_finish_run(c, st, traffic, err, sizeof err)) fail_msg("%s", err);
    mw_store_close(st);
    mw_simcluster_free(c);
    assert_string_equal(rows(run, "SELECT name, host FROM phases ORDER BY id"),
                        "a|fe\ncommand|h\nb|w1\nc|w2\nd|h\n");
    /* rank 0 has no phases: its clock sample keeps its host */
    assert_string_equal(rows(run, "SELECT rank, host FROM clock_sync ORDER BY id"), "2|w2\n0|h\n");
    assert_non_null(strstr(rows(run, "SELECT value FROM meta WHERE key = 'simulated_cluster'"),
                           "simulated cluster: fe A1 100.00..200.00 W"));
    struct stat sb;
    assert_int_not_equal(stat(traffic, &sb), 0);
    char db[96];
    static const char *const suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(db, sizeof db, "%s/%s%s", run, MW_STORE_DB_NAME, suffix[i]);
        unlink(db);
    }
    assert_int_equal(rmdir(run), 0);
}

static int burn(void)
{
    double t0 = now_s();
    volatile double x = 0;
    if (write(3, "b", 1) != 1) return 1;
    while (now_s() < t0 + 1.0)
        x += 1;
    if (write(3, "s", 1) != 1) return 1;
    close(3);
    sleep_s(1.5);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--burn")) return burn();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_table5),
        cmocka_unit_test(file_with_ranks),
        cmocka_unit_test(errors_name_file_and_line),
        cmocka_unit_test(follows_a_real_process),
        cmocka_unit_test(finish_run_gives_events_their_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
