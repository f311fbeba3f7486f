/* mw jobs (collector/cmd_jobs.c) in-process, on runs built with the mw_store API whose
 * energies are known by construction (also under ASan/UBSan):
 *   jobs/7.0  job 7 on n1,n2, step 0: 8 windows of 0.25 s from S; node0@n1 100 W,
 *             node1@n2 50 W, switch 12.5 W -> 200 J, 100 J, 25 J over 2 s
 *   jobs/7.1  job 7, step 1: 4 windows from S + 3 s -> 100 J, 50 J, 12.5 J over 1 s
 *   jobs/8.0, jobs/8.1  job 8 on n1,n3 (cluster other), both from S: overlapping steps;
 *             one channel, node0@n3, 100 W -> 200 J each
 *   jobs/plain  no Slurm job: left out, counted
 *   mixed/j, mixed/bad  job 9's run beside a run without a job whose power_mw is forged out
 *             of range: the run without a job is not read, job 9 is printed, exit 0; the
 *             same forgery in job 9's run is a damaged run, exit 2
 *   long/10.0  job 10 on 2000 nodes n0000..n1999 (11999 bytes of node list), one channel
 *             on n1999, the list's last: of the job, 1999 nodes unmeasured
 *   merged/11.0, one/12.0  a run merged from meter hosts (channels_from): a channel without
 *             a host measures its meter's host (merged_hosts_run, numbers there); the same
 *             run not merged: it does not
 * so job 7 has 300 J on node0, 150 J on node1, 37.5 J on the switch, 450 J on its nodes,
 * 487.5 J in all (0.125 Wh, 0.135417 Wh), 3 s recorded; job 8 has 400 J on n3, none on its
 * nodes (n1 unmeasured), its steps flagged. */
#include "../unit.h"

#include <ftw.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../capture.h"
#include "cli.h"
#include "mw_store.h"

#include <sqlite3.h>

#define S_NS 1700000000000000000LL

static char tmpdir[64], jobs[128], out[64 * 1024];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

typedef struct {
    const char *name, *host;
    int32_t p_mw;
} chan;

/* a run DIR/name with n windows from t0_ns, the meters (meter i + 1 on host meter_host[i],
 * which may be NULL), the channels (channel k on meter ch_meter[k]; ch_meter NULL: the
 * one-meter form, mw_store_channel_add) and the meta pairs (NULL-ended) */
static void make_run_meters(const char *name, int64_t t0_ns, int n, const char *const *meter_host,
                            int nmeters, const chan *ch, const int *ch_meter, int nch,
                            const char *const *meta)
{
    char dir[256], err[512];
    snprintf(dir, sizeof dir, "%s/%s", jobs, name);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    if (!s) fail_msg("%s", err);
    assert_int_equal(mw_store_meta_set(s, "status", "complete"), 0);
    for (const char *const *m = meta; m && *m; m += 2)
        assert_int_equal(mw_store_meta_set(s, m[0], m[1]), 0);
    for (int i = 0; i < nmeters; i++) {
        char mname[32];
        snprintf(mname, sizeof mname, "sim-%d", i + 1);
        assert_int_equal(mw_store_meter_add(s, i + 1, mname, meter_host[i], NULL, 0, 0), 0);
    }
    int on_meter[16] = {0};
    for (int k = 0; k < nch; k++)
        if (ch_meter)
            assert_int_equal(mw_store_channel_add_meter(s, k + 1, ch[k].name, ch[k].host, "A1",
                                                        ch_meter[k], ++on_meter[ch_meter[k]]),
                             0);
        else
            assert_int_equal(mw_store_channel_add(s, k + 1, ch[k].name, ch[k].host, "A1"), 0);
    for (int q = 0; q < n; q++)
        for (int k = 0; k < nch; k++) {
            mw_store_sample x = {
                .channel = k + 1,
                .seq = (uint32_t)q,
                .meter_t0_us = 250000ull * (uint64_t)q,
                .meter_t1_us = 250000ull * (uint64_t)(q + 1),
                .t0_ns = t0_ns + 250000000LL * q,
                .t1_ns = t0_ns + 250000000LL * (q + 1),
                .power_mw = ch[k].p_mw,
                .vrms_mv = 230000,
                .energy_mj = (int64_t)ch[k].p_mw / 4 * (q + 1),
            };
            if (mw_store_sample_add(s, &x)) fail_msg("%s", mw_store_error(s));
        }
    mw_store_close(s);
}

/* a run DIR/name with the one meter */
static void make_run(const char *name, int64_t t0_ns, int n, const chan *ch, int nch,
                     const char *const *meta)
{
    make_run_meters(name, t0_ns, n, NULL, 0, ch, NULL, nch, meta);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-jobs-XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    snprintf(jobs, sizeof jobs, "%s/jobs", tmpdir);
    mkdir(jobs, 0777);
    const chan c7[] = {{"node0", "n1", 100000}, {"node1", "n2", 50000}, {"switch", NULL, 12500}};
    const char *m70[] = {"slurm_job_id", "7", "slurm_step_id", "0", "slurm_cluster", "c",
                         "slurm_nodes", "n1,n2", NULL};
    const char *m71[] = {"slurm_job_id", "7", "slurm_step_id", "1", "slurm_cluster", "c",
                         "slurm_nodes", "n1,n2", NULL};
    make_run("7.0", S_NS, 8, c7, 3, m70);
    make_run("7.1", S_NS + 3000000000LL, 4, c7, 3, m71);
    const chan c8[] = {{"node0", "n3", 100000}};
    const char *m80[] = {"slurm_job_id", "8", "slurm_step_id", "0", "slurm_cluster", "other",
                         "slurm_nodes", "n1,n3", NULL};
    const char *m81[] = {"slurm_job_id", "8", "slurm_step_id", "1", "slurm_cluster", "other",
                         "slurm_nodes", "n1,n3", NULL};
    make_run("8.0", S_NS, 8, c8, 1, m80);
    make_run("8.1", S_NS, 8, c8, 1, m81);
    make_run("plain", S_NS, 2, c8, 1, NULL);
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

static void expect_line(const char *line)
{
    if (!strstr(out, line)) fail_msg("line '%s' not in:\n%s", line, out);
}

static void text(void **state)
{
    char *argv[] = {"mw", "jobs", jobs, NULL};
    assert_int_equal(run_mw(argv), 0);
    expect_line("job 7 (cluster c): 2 steps, 3.000 s recorded, nodes n1,n2\n");
    expect_line("  node0            n1               yes             300.000     0.083333\n");
    expect_line("  node1            n2               yes             150.000     0.041667\n");
    expect_line("  switch           switch           no               37.500     0.010417\n");
    expect_line("  total, the job's nodes                            450.000     0.125000\n");
    expect_line("  total, all channels                               487.500     0.135417\n");
    expect_line("job 8 (cluster other): 2 steps, 4.000 s recorded, nodes n1,n3\n");
    expect_line("  steps overlap in time: their energies count that time twice\n");
    expect_line("  nodes no channel measures: n1\n");
    expect_line("  node0            n3               yes             400.000     0.111111\n");
    expect_line("(1 run without a Slurm job left out)\n");
    assert_null(strstr(out, "job 7 (cluster c): 2 steps, 3.000 s recorded, nodes n1,n2\n  steps"));
}

static double num(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v)) fail_msg("no key %s", key);
    return json_object_get_double(v);
}

#define assert_near(x, want, tol) assert_true(fabs((x) - (want)) <= (tol))

static void json(void **state)
{
    char *argv[] = {"mw", "jobs", "--json", jobs, NULL};
    assert_int_equal(run_mw(argv), 0);
    json_object *doc = json_tokener_parse(out), *v, *j7, *j8, *ch, *steps;
    assert_non_null(doc);
    assert_true(json_object_object_get_ex(doc, "schema", &v));
    assert_string_equal(json_object_get_string(v), "megawatt.jobs/1");
    assert_true(num(doc, "runs_without_job") == 1);
    assert_true(json_object_object_get_ex(doc, "jobs", &v));
    assert_int_equal(json_object_array_length(v), 2);
    j7 = json_object_array_get_idx(v, 0);
    j8 = json_object_array_get_idx(v, 1);
    assert_true(json_object_object_get_ex(j7, "channels", &ch));
    assert_int_equal(json_object_array_length(ch), 3);
    assert_near(num(json_object_array_get_idx(ch, 0), "energy_j"), 300.0, 1e-6);
    assert_near(num(json_object_array_get_idx(ch, 2), "energy_wh"), 37.5 / 3600, 1e-9);
    assert_true(json_object_object_get_ex(j7, "energy_j", &v));
    assert_near(num(v, "job_nodes"), 450.0, 1e-6);
    assert_near(num(v, "all_channels"), 487.5, 1e-6);
    assert_near(num(j7, "duration_s"), 3.0, 1e-9);
    assert_true(json_object_object_get_ex(j7, "overlapping_steps", &v));
    assert_false(json_object_get_boolean(v));
    assert_true(json_object_object_get_ex(j7, "steps", &steps));
    assert_int_equal(json_object_array_length(steps), 2);
    assert_true(json_object_object_get_ex(json_object_array_get_idx(steps, 1), "start_ns", &v));
    assert_true(json_object_get_int64(v) == S_NS + 3000000000LL);
    assert_true(json_object_object_get_ex(j8, "overlapping_steps", &v));
    assert_true(json_object_get_boolean(v));
    assert_true(json_object_object_get_ex(j8, "nodes_without_channel", &v));
    assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "n1");
    assert_true(json_object_object_get_ex(j8, "energy_j", &v));
    assert_near(num(v, "job_nodes"), 400.0, 1e-6);
    json_object_put(doc);
}

/* one run given directly; a run without a job; bad usage */
static void errors(void **state)
{
    char run7[256], plain[256];
    snprintf(run7, sizeof run7, "%s/7.1", jobs);
    snprintf(plain, sizeof plain, "%s/plain", jobs);
    char *one[] = {"mw", "jobs", run7, NULL};
    assert_int_equal(run_mw(one), 0);
    expect_line("job 7 (cluster c): 1 step, 1.000 s recorded, nodes n1,n2\n");
    char *none[] = {"mw", "jobs", plain, NULL};
    assert_int_equal(run_mw(none), 1);
    expect_line("no run of a Slurm job there (1 run without slurm_job_id)");
    char *nodir[] = {"mw", "jobs", NULL};
    assert_int_equal(run_mw(nodir), 2);
    expect_line("mw jobs: missing DIR");
    char *bad[] = {"mw", "jobs", "--frob", jobs, NULL};
    assert_int_equal(run_mw(bad), 2);
    expect_line("unknown option '--frob'");
}

static void forge_power(const char *run)
{
    char db[300];
    snprintf(db, sizeof db, "%s/trace.db", run);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    /* every sample's power (schema 6: each filled slot of each row of windows) */
    char sql[2048] = "update windows set p1 = iif(p1 is null, null, 1099511627776)";
    for (int k = 2; k <= 16; k++) {
        size_t n = strlen(sql);
        snprintf(sql + n, sizeof sql - n, ", p%d = iif(p%d is null, null, 1099511627776)", k, k);
    }
    assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
}

/* a damaged run without a job is left out unread: it does not make the jobs' exit 2 */
static void damaged_plain_run(void **state)
{
    char mixed[256], bad[300], j9[300];
    snprintf(mixed, sizeof mixed, "%s/mixed", tmpdir);
    mkdir(mixed, 0777);
    const chan c[] = {{"node0", "n1", 100000}};
    const char *m9[] = {"slurm_job_id", "9", "slurm_step_id", "0", "slurm_nodes", "n1", NULL};
    make_run("../mixed/j", S_NS, 4, c, 1, m9);
    make_run("../mixed/bad", S_NS, 4, c, 1, NULL);
    snprintf(bad, sizeof bad, "%s/bad", mixed);
    snprintf(j9, sizeof j9, "%s/j", mixed);
    forge_power(bad);
    char *argv[] = {"mw", "jobs", mixed, NULL};
    assert_int_equal(run_mw(argv), 0);
    expect_line("job 9 (cluster -): 1 step, 1.000 s recorded, nodes n1\n");
    expect_line("  node0            n1               yes             100.000     0.027778\n");
    expect_line("(1 run without a Slurm job left out)\n");
    forge_power(j9);
    assert_int_equal(run_mw(argv), 2);
    expect_line("power_mw = 1099511627776 is out of its range");
}

/* a node list far longer than 4 KiB is neither cut nor mis-read */
static void long_node_list(void **state)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/long", tmpdir);
    mkdir(dir, 0777);
    static char nodes[2000 * 6];
    size_t len = 0;
    for (int i = 0; i < 2000; i++)
        len += (size_t)snprintf(nodes + len, sizeof nodes - len, "%sn%04d", i ? "," : "", i);
    assert_int_equal(len, 11999);
    const chan c[] = {{"last", "n1999", 100000}};
    const char *m[] = {"slurm_job_id", "10", "slurm_step_id", "0", "slurm_nodes", nodes, NULL};
    make_run("../long/10.0", S_NS, 4, c, 1, m);
    char *argv[] = {"mw", "jobs", "--json", dir, NULL};
    assert_int_equal(run_mw(argv), 0);
    json_object *doc = json_tokener_parse(out), *v, *j, *ch;
    assert_non_null(doc);
    assert_true(json_object_object_get_ex(doc, "jobs", &v));
    j = json_object_array_get_idx(v, 0);
    assert_true(json_object_object_get_ex(j, "nodes", &v));
    assert_int_equal(json_object_array_length(v), 2000);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 1999)), "n1999");
    assert_true(json_object_object_get_ex(j, "nodes_without_channel", &v));
    assert_int_equal(json_object_array_length(v), 1999);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 1998)), "n1998");
    assert_true(json_object_object_get_ex(j, "channels", &ch));
    assert_true(json_object_object_get_ex(json_object_array_get_idx(ch, 0), "job_node", &v));
    assert_true(json_object_get_boolean(v));
    json_object_put(doc);
}

/* the energy of the channels of the job's JSON j that measure node (their "measures") */
static double node_j(json_object *j, const char *node)
{
    json_object *ch, *v;
    assert_true(json_object_object_get_ex(j, "channels", &ch));
    double sum = 0;
    for (size_t k = 0; k < json_object_array_length(ch); k++) {
        json_object *c = json_object_array_get_idx(ch, k);
        assert_true(json_object_object_get_ex(c, "measures", &v));
        if (!strcmp(json_object_get_string(v), node)) sum += num(c, "energy_j");
    }
    return sum;
}

/* the one job of mw jobs --json DIR: its JSON (doc to put) */
static json_object *one_job(const char *dir, json_object **doc)
{
    char *argv[] = {"mw", "jobs", "--json", (char *)dir, NULL};
    assert_int_equal(run_mw(argv), 0);
    json_object *v;
    *doc = json_tokener_parse(out);
    assert_non_null(*doc);
    assert_true(json_object_object_get_ex(*doc, "jobs", &v));
    assert_int_equal(json_object_array_length(v), 1);
    return json_object_array_get_idx(v, 0);
}

/* A run merged from meter hosts (meta channels_from "hosts (mw merge)", as mw_merge_hosts
 * writes): meter 1 on n1, meter 2 on n2, meter 3 on no host; 8 windows of 0.25 s (2 s):
 *   n1:ch1  meter 1, no host   100 W -> 200 J, measures n1 (its meter's host)
 *   n1:ch2  meter 1, no host    40 W ->  80 J, measures n1
 *   n2:ch1  meter 2, no host   200 W -> 400 J, measures n2
 *   x       meter 2, host n1    20 W ->  40 J, measures n1 (its own host wins)
 *   pdu     meter 3, no host    10 W ->  20 J, measures "pdu" (its meter has no host)
 * so n1 320 J, n2 400 J, the job's nodes 720 J, all channels 740 J = n1 + n2 + pdu. The same
 * run without channels_from (a one-host run): the host-less channels measure their names,
 * only x is of a job node (40 J), n2 unmeasured. */
static void merged_hosts_run(void **state)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/merged", tmpdir);
    mkdir(dir, 0777);
    const char *hosts[] = {"n1", "n2", NULL};
    const chan c[] = {{"n1:ch1", NULL, 100000}, {"n1:ch2", NULL, 40000},
                      {"n2:ch1", NULL, 200000}, {"x", "n1", 20000}, {"pdu", NULL, 10000}};
    const int on[] = {1, 1, 2, 2, 3};
    const char *m[] = {"slurm_job_id", "11", "slurm_step_id", "0", "slurm_nodes", "n1,n2",
                       "channels_from", "hosts (mw merge)", NULL};
    make_run_meters("../merged/11.0", S_NS, 8, hosts, 3, c, on, 5, m);
    json_object *doc, *v;
    json_object *j = one_job(dir, &doc);
    assert_near(node_j(j, "n1"), 320.0, 1e-6);
    assert_near(node_j(j, "n2"), 400.0, 1e-6);
    assert_near(node_j(j, "pdu"), 20.0, 1e-6);
    assert_near(node_j(j, "n1:ch1") + node_j(j, "n2:ch1"), 0.0, 1e-9);
    assert_true(json_object_object_get_ex(j, "nodes_without_channel", &v));
    assert_int_equal(json_object_array_length(v), 0);
    assert_true(json_object_object_get_ex(j, "energy_j", &v));
    assert_near(num(v, "job_nodes"), 720.0, 1e-6);
    assert_near(num(v, "all_channels"), 740.0, 1e-6);
    assert_near(node_j(j, "n1") + node_j(j, "n2") + node_j(j, "pdu"), num(v, "all_channels"),
                1e-6);
    json_object_put(doc);
    char *argv[] = {"mw", "jobs", dir, NULL};
    assert_int_equal(run_mw(argv), 0);
    expect_line("  n1:ch1           n1               yes             200.000     0.055556\n");
    expect_line("  n2:ch1           n2               yes             400.000     0.111111\n");
    expect_line("  x                n1               yes              40.000     0.011111\n");
    expect_line("  pdu              pdu              no               20.000     0.005556\n");
    expect_line("  total, the job's nodes                            720.000     0.200000\n");
    expect_line("  total, all channels                               740.000     0.205556\n");
    /* the same run, not merged from meter hosts: the rule does not apply */
    char one[256];
    snprintf(one, sizeof one, "%s/one", tmpdir);
    mkdir(one, 0777);
    const char *m1[] = {"slurm_job_id", "12", "slurm_step_id", "0", "slurm_nodes", "n1,n2", NULL};
    make_run_meters("../one/12.0", S_NS, 8, hosts, 3, c, on, 5, m1);
    j = one_job(one, &doc);
    assert_near(node_j(j, "n1"), 40.0, 1e-6);
    assert_near(node_j(j, "n1:ch1"), 200.0, 1e-6);
    assert_true(json_object_object_get_ex(j, "nodes_without_channel", &v));
    assert_int_equal(json_object_array_length(v), 1);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "n2");
    assert_true(json_object_object_get_ex(j, "energy_j", &v));
    assert_near(num(v, "job_nodes"), 40.0, 1e-6);
    assert_near(num(v, "all_channels"), 740.0, 1e-6);
    json_object_put(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text),
        cmocka_unit_test(json),
        cmocka_unit_test(errors),
        cmocka_unit_test(damaged_plain_run),
        cmocka_unit_test(long_node_list),
        cmocka_unit_test(merged_hosts_run),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
