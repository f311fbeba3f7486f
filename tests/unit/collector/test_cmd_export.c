/* The run store's read-side commands (collector/cmd_export.c, collector/cmd_runs.c): a
 * small run built with the mw_store API, whose figures are known by construction, is
 * exported as CSV and JSON, listed (mw ls) and shown (mw show), and every output is
 * compared with the text it must be; bad usage exits 2 with one line naming what was
 * wrong, and a failed export to a file leaves nothing behind.
 *
 * The run: start_ns S = 1,700,000,000 s (2023-11-14T22:13:20Z), windows of 0.25 s from
 * S + 0.5 s, seq 0..10 with seq 4 lost (a recorded "sequence gap" of 0.25 s). Channel 1
 * "node0" draws 100 W (230 V, 0.434783 A, PF 1), channel 2 "switch" 12.5 W (PF 0.5), so
 * the 10 windows hold 250 J and 31.25 J. The meter's counter also counted the lost window:
 * energy_mj after window k is 25,000 (k + 1) and 3,125 (k + 1), i.e. 275 J and 34.375 J
 * from the start of window 0 to the end of window 10. */
#include "../unit.h"

#include <dirent.h>
#include <sqlite3.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../capture.h"
#include "cli.h"
#include "mw_store.h"

#define S_NS 1700000000000000000LL

static char tmpdir[64], run[128], out[256 * 1024];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void add_window(mw_store *s, int channel, uint32_t seq, int32_t p_mw, int32_t i_ua,
                       int32_t pf, int64_t e_per_window_mj)
{
    mw_store_sample x = {
        .channel = channel,
        .segment = 0,
        .seq = seq,
        .meter_t0_us = 1000000 + 250000ull * seq,
        .meter_t1_us = 1250000 + 250000ull * seq,
        .t0_ns = S_NS + 500000000LL + 250000000LL * seq,
        .t1_ns = S_NS + 750000000LL + 250000000LL * seq,
        .uncertainty_ns = 50000,
        .power_mw = p_mw,
        .vrms_mv = 230000,
        .irms_ua = i_ua,
        .pf_milli = pf,
        .meter_energy_mj = 9000000 + e_per_window_mj * (seq + 1),
        .energy_mj = e_per_window_mj * (seq + 1),
        .flags = seq == 0 ? 0x10u : 0,
    };
    if (mw_store_sample_add(s, &x)) fail_msg("%s", mw_store_error(s));
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-export-XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    snprintf(run, sizeof run, "%s/run1", tmpdir);
    char err[512];
    mw_store *s = mw_store_create(run, 0, err, sizeof err);
    if (!s) fail_msg("%s", err);
    const char *meta[][2] = {
        {"created_ns", "1699999999000000000"},     {"start_ns", "1700000000000000000"},
        {"end_ns", "1700000003250000000"},         {"status", "complete"},
        {"command", "mw record -- ./app \"x,y\""},
    };
    for (unsigned i = 0; i < sizeof meta / sizeof meta[0]; i++)
        assert_int_equal(mw_store_meta_set(s, meta[i][0], meta[i][1]), 0);
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "switch", NULL, "A2"), 0);
    for (uint32_t q = 0; q <= 10; q++) {
        if (q == 4) continue;
        add_window(s, 1, q, 100000, 434783, 1000, 25000);
        add_window(s, 2, q, 12500, 108696, 500, 3125);
    }
    assert_int_equal(mw_store_gap_add(s, S_NS + 1500000000LL, S_NS + 1750000000LL, "sequence gap"),
                     0);
    mw_store_phase ph[] = {
        {0, "n0", 0, "user", "solve", S_NS + 1000000000LL, S_NS + 2500000000LL, 0, 0, -1},
        {1, "n1", 2, "mpi", "MPI_Send, \"big\"\nx", S_NS + 1250000000LL, S_NS + 1250500001LL,
         1048576, 0, 1},
    };
    for (unsigned i = 0; i < 2; i++)
        assert_int_equal(mw_store_phase_add(s, &ph[i]), 0);
    mw_store_close(s);
    setenv("TZ", "UTC0", 1);
    tzset();
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

/* The exit code must be code and the output exactly want. */
static void expect_output(int code, const char *want, char **argv)
{
    int rc = run_mw(argv);
    if (rc != code || strcmp(out, want))
        fail_msg("mw %s: exit %d (want %d), output:\n%s\nwant:\n%s", argv[1], rc, code, out, want);
}

/* Bad usage: exit code, one line, containing needle. */
static void expect_error(int code, const char *needle, char **argv)
{
    int rc = run_mw(argv);
    if (rc != code || !strstr(out, needle))
        fail_msg("mw %s: exit %d (want %d), output '%s' (want '%s')", argv[1], rc, code, out,
                 needle);
    assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
}

/* The CSV row of one window, from the run's construction (floating point here; the
 * command formats from integers). */
static void sample_csv_row(char *buf, size_t len, const char *name, uint32_t q, double p_w,
                           double i_a, double pf, double e_per_window_j)
{
    snprintf(buf, len, "%.6f,%s,%.3f,230.000,%.6f,%.3f,%.3f,%.6f,%u,0,%u,0.050000\n",
             0.75 + 0.25 * q, name, p_w, i_a, pf, e_per_window_j * (q + 1), 0.5 + 0.25 * q, q,
             q == 0 ? 16u : 0u);
}

static void samples_csv(void **state)
{
    static char want[8192];
    strcpy(want, "time_s,channel,power_w,vrms_v,irms_a,pf,energy_j,start_s,seq,segment,flags,"
                 "uncertainty_ms\n");
    for (uint32_t q = 0; q <= 10; q++) {
        if (q == 4) continue;
        char row[256];
        sample_csv_row(row, sizeof row, "node0", q, 100, 0.434783, 1, 25);
        strcat(want, row);
        sample_csv_row(row, sizeof row, "switch", q, 12.5, 0.108696, 0.5, 3.125);
        strcat(want, row);
    }
    /* the same, written literally for the first rows */
    assert_int_equal(
        strncmp(want,
                "time_s,channel,power_w,vrms_v,irms_a,pf,energy_j,start_s,seq,segment,flags,"
                "uncertainty_ms\n"
                "0.750000,node0,100.000,230.000,0.434783,1.000,25.000,0.500000,0,0,16,0.050000\n"
                "0.750000,switch,12.500,230.000,0.108696,0.500,3.125,0.500000,0,0,16,0.050000\n"
                "1.000000,node0,100.000,230.000,0.434783,1.000,50.000,0.750000,1,0,0,0.050000\n",
                268),
        0);
    expect_output(0, want, (char *[]){"mw", "export", run, "--format", "csv", NULL});
    /* --what samples is the default */
    expect_output(0, want,
                  (char *[]){"mw", "export", "--what", "samples", "--format=csv", run, NULL});
}

static void samples_json(void **state)
{
    assert_int_equal(run_mw((char *[]){"mw", "export", run, "--format", "json", NULL}), 0);
    const char *first =
        "{\"schema\": \"megawatt.export/1\", \"what\": \"samples\", \"rows\": "
        "[\n{\"time_s\":0.750000,\"channel\":\"node0\",\"power_w\":100.000,\"vrms_v\":230.000,"
        "\"irms_a\":0.434783,\"pf\":1.000,\"energy_j\":25.000,\"start_s\":0.500000,\"seq\":0,"
        "\"segment\":0,\"flags\":16,\"uncertainty_ms\":0.050000},\n";
    const char *last =
        ",\n{\"time_s\":3.250000,\"channel\":\"switch\",\"power_w\":12.500,\"vrms_v\":230.000,"
        "\"irms_a\":0.108696,\"pf\":0.500,\"energy_j\":34.375,\"start_s\":3.000000,\"seq\":10,"
        "\"segment\":0,\"flags\":0,\"uncertainty_ms\":0.050000}\n]}\n";
    if (strncmp(out, first, strlen(first)) || strcmp(out + strlen(out) - strlen(last), last))
        fail_msg("got:\n%s", out);
    int objects = 0;
    for (const char *p = out; (p = strchr(p, '{')); p++)
        objects++;
    assert_int_equal(objects, 21); /* 20 rows in the document */
}

static void phases_gaps_meta(void **state)
{
    expect_output(0,
                  "rank,host,thread,kind,name,start_s,end_s,bytes\n"
                  "0,n0,0,user,solve,1.000000,2.500000,0\n"
                  "1,n1,2,mpi,\"MPI_Send, \"\"big\"\"\nx\",1.250000,1.250500,1048576\n",
                  (char *[]){"mw", "export", run, "--format", "csv", "--what", "phases", NULL});
    expect_output(0,
                  "{\"schema\": \"megawatt.export/1\", \"what\": \"phases\", \"rows\": "
                  "[\n{\"rank\":0,\"host\":\"n0\",\"thread\":0,\"kind\":\"user\",\"name\":"
                  "\"solve\",\"start_s\":1.000000,\"end_s\":2.500000,\"bytes\":0},\n"
                  "{\"rank\":1,\"host\":\"n1\",\"thread\":2,\"kind\":\"mpi\",\"name\":"
                  "\"MPI_Send, \\\"big\\\"\\nx\",\"start_s\":1.250000,\"end_s\":1.250500,"
                  "\"bytes\":1048576}\n]}\n",
                  (char *[]){"mw", "export", run, "--format", "json", "--what", "phases", NULL});
    expect_output(0, "start_s,end_s,reason\n1.500000,1.750000,sequence gap\n",
                  (char *[]){"mw", "export", run, "--format", "csv", "--what", "gaps", NULL});
    expect_output(0,
                  "{\"schema\": \"megawatt.export/1\", \"what\": \"gaps\", \"rows\": "
                  "[\n{\"start_s\":1.500000,\"end_s\":1.750000,\"reason\":\"sequence gap\"}\n]}\n",
                  (char *[]){"mw", "export", run, "--format", "json", "--what", "gaps", NULL});
    expect_output(0,
                  "key,value\n"
                  "command,\"mw record -- ./app \"\"x,y\"\"\"\n"
                  "created_ns,1699999999000000000\n"
                  "end_ns,1700000003250000000\n"
                  "schema_version,7\n"
                  "start_ns,1700000000000000000\n"
                  "status,complete\n",
                  (char *[]){"mw", "export", run, "--format", "csv", "--what", "meta", NULL});
    expect_output(0,
                  "{\"schema\": \"megawatt.export/1\", \"what\": \"meta\", \"meta\": "
                  "{\n\"command\":\"mw record -- ./app \\\"x,y\\\"\",\n"
                  "\"created_ns\":\"1699999999000000000\",\n"
                  "\"end_ns\":\"1700000003250000000\",\n"
                  "\"schema_version\":\"7\",\n"
                  "\"start_ns\":\"1700000000000000000\",\n"
                  "\"status\":\"complete\"\n}}\n",
                  (char *[]){"mw", "export", run, "--format", "json", "--what", "meta", NULL});
}

/* channels: the fixture's two channels (host, pin), both on the run's one meter ("meter": no
 * meter_usb in its meta), each its channel of the same number (mw_store_channel_add); then a
 * second meter written here with SQL and the switch moved onto it as its channel 3 */
static void channels_table(void **state)
{
    expect_output(0,
                  "channel,name,host,pin,meter,meter_channel\n"
                  "1,node0,n0,A1,meter,1\n"
                  "2,switch,,A2,meter,2\n",
                  (char *[]){"mw", "export", run, "--format", "csv", "--what", "channels", NULL});
    char db[600];
    snprintf(db, sizeof db, "%s/trace.db", run);
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h,
                                  "INSERT INTO meters(meter, name) VALUES (2, 'sim-2');"
                                  "UPDATE channels SET meter = 2, meter_channel = 3 "
                                  "WHERE channel = 2",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(h);
    expect_output(0,
                  "{\"schema\": \"megawatt.export/1\", \"what\": \"channels\", \"rows\": [\n"
                  "{\"channel\":1,\"name\":\"node0\",\"host\":\"n0\",\"pin\":\"A1\","
                  "\"meter\":\"meter\",\"meter_channel\":1},\n"
                  "{\"channel\":2,\"name\":\"switch\",\"host\":null,\"pin\":\"A2\","
                  "\"meter\":\"sim-2\",\"meter_channel\":3}\n]}\n",
                  (char *[]){"mw", "export", run, "--format", "json", "--what", "channels", NULL});
}

/* Without start_ns, times count from the first sample's start (S + 0.5 s). */
static void origin_without_start(void **state)
{
    char err[512], dir[160];
    snprintf(dir, sizeof dir, "%s/nostart", tmpdir);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 3, "gpu", "n0", "A3"), 0);
    add_window(s, 3, 2, -1500, 6522, -1000, -375);
    add_window(s, 7, 3, 1, 1, 1, 1); /* a channel missing from the channels table */
    mw_store_close(s);
    expect_output(0,
                  "time_s,channel,power_w,vrms_v,irms_a,pf,energy_j,start_s,seq,segment,flags,"
                  "uncertainty_ms\n"
                  "0.250000,gpu,-1.500,230.000,0.006522,-1.000,-1.125,0.000000,2,0,0,0.050000\n"
                  "0.500000,7,0.001,230.000,0.000001,0.001,0.004,0.250000,3,0,0,0.050000\n",
                  (char *[]){"mw", "export", dir, "--format", "csv", NULL});
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void output_file(void **state)
{
    char dir[160], file[200];
    snprintf(dir, sizeof dir, "%s/out", tmpdir);
    assert_int_equal(mkdir(dir, 0777), 0);
    snprintf(file, sizeof file, "%s/gaps.csv", dir);
    expect_output(
        0, "",
        (char *[]){"mw", "export", run, "--format", "csv", "--what", "gaps", "-o", file, NULL});
    FILE *f = fopen(file, "r");
    assert_non_null(f);
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    assert_string_equal(buf, "start_s,end_s,reason\n1.500000,1.750000,sequence gap\n");
    assert_int_equal(count_entries(dir), 1); /* no temporary file left */

    /* a directory that does not exist: exit 1, the path named, nothing written */
    char bad[220];
    snprintf(bad, sizeof bad, "%s/nosuch/x.csv", tmpdir);
    expect_error(1, bad, (char *[]){"mw", "export", run, "--format", "csv", "-o", bad, NULL});
    assert_int_equal(count_entries(tmpdir), 2); /* run1, out */
}

static void export_bad_usage(void **state)
{
    expect_error(2, "missing RUNDIR", (char *[]){"mw", "export", "--format", "csv", NULL});
    expect_error(2, tmpdir, (char *[]){"mw", "export", tmpdir, "--format", "csv", NULL});
    expect_error(2, "not a run", (char *[]){"mw", "export", tmpdir, "--format", "csv", NULL});
    expect_error(2, "/nonexistent/run",
                 (char *[]){"mw", "export", "/nonexistent/run", "--format", "csv", NULL});
    expect_error(2, "--format: 'xml'", (char *[]){"mw", "export", run, "--format", "xml", NULL});
    expect_error(2, "missing --format", (char *[]){"mw", "export", run, NULL});
    expect_error(2, "--what: 'rows'",
                 (char *[]){"mw", "export", run, "--format", "csv", "--what", "rows", NULL});
    expect_error(2, "'extra'", (char *[]){"mw", "export", run, "extra", "--format", "csv", NULL});
    expect_error(2, "--frob", (char *[]){"mw", "export", run, "--frob", NULL});
    expect_error(2, "--format", (char *[]){"mw", "export", run, "--format", NULL});
    assert_int_equal(run_mw((char *[]){"mw", "export", "--help", NULL}), 0);
    assert_non_null(strstr(out, "usage: mw export RUNDIR --format csv|json"));
}

static void ls(void **state)
{
    char want[1024];
    snprintf(want, sizeof want,
             "run%*s  status    start                      duration  channels  samples  gaps  "
             "   energy\n"
             "%s  complete  2023-11-14T22:13:20+00:00   3.250 s         2       20     1  "
             "281.250 J\n",
             (int)strlen(run) - 3, "", run);
    expect_output(0, want, (char *[]){"mw", "ls", run, NULL});

    /* local time: the same instant in Paris (UTC+1 in November) */
    setenv("TZ", "Europe/Paris", 1);
    tzset();
    assert_int_equal(run_mw((char *[]){"mw", "ls", run, NULL}), 0);
    setenv("TZ", "UTC0", 1);
    tzset();
    assert_non_null(strstr(out, "2023-11-14T23:13:20+01:00"));

    /* a directory that is not a run: named on stderr, the others still listed, exit 2 */
    assert_int_equal(run_mw((char *[]){"mw", "ls", tmpdir, run, NULL}), 2);
    char line[300];
    snprintf(line, sizeof line, "mw ls: %s: not a run (no trace.db there)\n", tmpdir);
    assert_non_null(strstr(out, line));
    assert_non_null(strstr(out, "281.250 J\n"));
    expect_error(2, "missing RUNDIR", (char *[]){"mw", "ls", NULL});
}

static void show(void **state)
{
    char want[4096];
    snprintf(want, sizeof want,
             "run       %s\n"
             "status    complete\n"
             "start     2023-11-14T22:13:20+00:00\n"
             "end       2023-11-14T22:13:23+00:00\n"
             "duration  3.250 s (start to end: no command times recorded)\n"
             "recorded  2.750 s of windows\n"
             "samples   20 in 2 channels\n"
             "gaps      1 (0.250 s)\n"
             "energy    281.250 J in all channels\n"
             "\n"
             "metadata\n"
             "  command         mw record -- ./app \"x,y\"\n"
             "  created_ns      1699999999000000000\n"
             "  end_ns          1700000003250000000\n"
             "  schema_version  7\n"
             "  start_ns        1700000000000000000\n"
             "  status          complete\n"
             "\n"
             "channel  name    host  pin  samples  mean power  energy (windows)  energy (meter)"
             "         gaps\n"
             "      1  node0   n0    A1        10   100.000 W         250.000 J       275.000 J"
             "  1 (0.250 s)\n"
             "      2  switch  -     A2        10    12.500 W          31.250 J        34.375 J"
             "  1 (0.250 s)\n"
             "\n"
             "gaps recorded\n"
             "    start      end   length  reason\n"
             "  1.500 s  1.750 s  0.250 s  sequence gap\n",
             run);
    expect_output(0, want, (char *[]){"mw", "show", run, NULL});
    expect_error(2, "not a run", (char *[]){"mw", "show", tmpdir, NULL});
    expect_error(2, "missing RUNDIR", (char *[]){"mw", "show", NULL});
    expect_error(2, "'x'", (char *[]){"mw", "show", run, "x", NULL});
    assert_int_equal(run_mw((char *[]){"mw", "show", "--help", NULL}), 0);
    assert_non_null(strstr(out, "usage: mw show RUNDIR"));
    assert_int_equal(run_mw((char *[]){"mw", "ls", "-h", NULL}), 0);
    assert_non_null(strstr(out, "usage: mw ls RUNDIR|SWEEPDIR..."));
}

/* A reader while a writer holds an uncommitted transaction sees the committed rows. */
static void read_while_writing(void **state)
{
    char err[512], dir[160];
    snprintf(dir, sizeof dir, "%s/live", tmpdir);
    mw_store *w = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(w);
    assert_int_equal(mw_store_meta_set(w, "start_ns", "1700000000000000000"), 0);
    assert_int_equal(mw_store_meta_set(w, "status", "recording"), 0);
    assert_int_equal(mw_store_channel_add(w, 1, "node0", "n0", "A1"), 0);
    add_window(w, 1, 0, 100000, 434783, 1000, 25000);
    assert_int_equal(mw_store_commit(w), 0);
    add_window(w, 1, 1, 100000, 434783, 1000, 25000); /* not committed */
    char want[512];
    snprintf(want, sizeof want,
             "run%*s  status     start                      duration  channels  samples  gaps  "
             "  energy\n"
             "%s  recording  2023-11-14T22:13:20+00:00   0.750 s         1        1     0  "
             "25.000 J\n",
             (int)strlen(dir) - 3, "", dir);
    expect_output(0, want, (char *[]){"mw", "ls", dir, NULL});
    mw_store_close(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(samples_csv, setup, teardown),
        cmocka_unit_test_setup_teardown(samples_json, setup, teardown),
        cmocka_unit_test_setup_teardown(phases_gaps_meta, setup, teardown),
        cmocka_unit_test_setup_teardown(channels_table, setup, teardown),
        cmocka_unit_test_setup_teardown(origin_without_start, setup, teardown),
        cmocka_unit_test_setup_teardown(output_file, setup, teardown),
        cmocka_unit_test_setup_teardown(export_bad_usage, setup, teardown),
        cmocka_unit_test_setup_teardown(ls, setup, teardown),
        cmocka_unit_test_setup_teardown(show, setup, teardown),
        cmocka_unit_test_setup_teardown(read_while_writing, setup, teardown),
    };
    return cmocka_run_group_tests_name("cmd_export", tests, NULL, NULL);
}
