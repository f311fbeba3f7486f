/* mw import (collector/cmd_import.c over libmw's host/import.c): CSV traces become runs whose every
 * stored value is known by construction.
 *
 * - Round trip: the run of test_cmd_export (two channels, 10 windows of 0.25 s, one lost
 *   window = a recorded gap) exported with mw export, imported, and exported again gives
 *   the same samples (every column but seq, which counts the imported windows 0..9) and
 *   the same gap span.
 * - Another meter's file (BOM, comments, CRLF, quotes, blanks, an unknown column, only
 *   time_s/channel/power_w): window starts, gaps, integrated energies, channel numbers and
 *   metadata are checked value by value against figures worked out by hand below.
 * - Unix times (time_ns with start_ns and energy_j; time_s of 1.7e9 s): the run starts at
 *   the first window, energies are the file's.
 * - Every malformed input exits 2 with one line naming FILE:LINE[:COLUMN], and leaves
 *   nothing behind; --force replaces only trace.db. */
#include "../unit.h"

#include <dirent.h>
#include <ftw.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../capture.h"
#include "cli.h"
#include "mw_store.h"
#include "../../../host/store_internal.h" /* the SQLite handle: tests check the rows themselves */

#define S_NS 1700000000000000000LL

static char tmpdir[64], out[256 * 1024];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-import-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
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

static void path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void write_file(const char *file, const char *text)
{
    FILE *f = fopen(file, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *file)
{
    static char buf[64 * 1024];
    FILE *f = fopen(file, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
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

/* ---- round trip ------------------------------------------------------------------------ */

static void add_window(mw_store *s, int channel, uint32_t seq, int32_t p_mw, int32_t i_ua,
                       int32_t pf, int64_t e_per_window_mj)
{
    mw_store_sample x = {
        .channel = channel,
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

/* Drop the 9th CSV field (seq) of every line (fields may be quoted). */
static void drop_seq(char *text)
{
    char *w = text;
    int field = 1, quoted = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '"') quoted = !quoted;
        if (!quoted && *p == '\n') {
            field = 1;
            *w++ = *p;
            continue;
        }
        if (!quoted && *p == ',') field++;
        if (field != 9) *w++ = *p; /* the comma opening field 9 goes with it */
    }
    *w = 0;
}

static void round_trip(void **state)
{
    char run1[128], run2[128], csv[128], again[128];
    path(run1, sizeof run1, "run1");
    path(run2, sizeof run2, "sub/run2");
    path(csv, sizeof csv, "run1.csv");
    path(again, sizeof again, "run2.csv");
    char err[512];
    mw_store *s = mw_store_create(run1, 0, err, sizeof err);
    if (!s) fail_msg("%s", err);
    assert_int_equal(mw_store_meta_set(s, "start_ns", "1700000000000000000"), 0);
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "switch, \"big\"", NULL, "A2"), 0);
    for (uint32_t q = 0; q <= 10; q++) {
        if (q == 4) continue;
        add_window(s, 1, q, 100000, 434783, 1000, 25000);
        add_window(s, 2, q, -12501, 108696, -500, -3125);
    }
    assert_int_equal(mw_store_gap_add(s, S_NS + 1500000000LL, S_NS + 1750000000LL, "sequence gap"),
                     0);
    mw_store_close(s);

    assert_int_equal(run_mw((char *[]){"mw", "export", run1, "--format", "csv", "-o", csv, NULL}),
                     0);
    int rc = run_mw((char *[]){"mw", "import", "--format", "csv", csv, "-o", run2, NULL});
    if (rc) fail_msg("exit %d: %s", rc, out);
    assert_non_null(strstr(out, "20 windows of 2 channels, 1 gap"));
    assert_int_equal(run_mw((char *[]){"mw", "export", run2, "--format", "csv", "-o", again, NULL}),
                     0);
    static char a[64 * 1024];
    snprintf(a, sizeof a, "%s", read_text(csv));
    char *b = read_text(again);
    assert_non_null(strstr(a, "0.750000,node0,100.000,230.000,0.434783,1.000,25.000,0.500000,0,0,"
                              "16,0.050000\n"));
    assert_non_null(strstr(a, ",5,0,0,0.050000\n")); /* seq 5 after the lost window */
    assert_non_null(strstr(b, ",4,0,0,0.050000\n")); /* imported: the 5th window */
    drop_seq(a);
    drop_seq(b);
    assert_non_null(strstr(a, "0.750000,node0,100.000,230.000,0.434783,1.000,25.000,0.500000,0,"
                              "16,0.050000\n"));
    assert_string_equal(a, b);

    assert_int_equal(
        run_mw((char *[]){"mw", "export", run2, "--format", "csv", "--what", "gaps", NULL}), 0);
    assert_string_equal(out, "start_s,end_s,reason\n1.500000,1.750000,import: no samples\n");

    /* the whole database, value by value, against the original (seq aside) */
    sqlite3 *db;
    char sql[1024];
    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    snprintf(sql, sizeof sql, "ATTACH '%s/trace.db' AS a; ATTACH '%s/trace.db' AS b;", run1, run2);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(
        sqlite3_prepare_v2(
            db,
            "SELECT count(*) FROM a.samples x JOIN a.channels cx ON cx.channel = x.channel "
            "JOIN b.channels cy ON cy.name = cx.name JOIN b.samples y ON y.channel = cy.channel "
            "AND y.t1_ns = x.t1_ns - 1700000000000000000 AND y.t0_ns = x.t0_ns - "
            "1700000000000000000 AND y.power_mw = x.power_mw AND y.vrms_mv = x.vrms_mv AND "
            "y.irms_ua = x.irms_ua AND y.pf_milli = x.pf_milli AND y.energy_mj = x.energy_mj AND "
            "y.flags = x.flags AND y.uncertainty_ns = x.uncertainty_ns AND y.segment = 0",
            -1, &st, NULL),
        SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 20);
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_int_equal(count_entries(tmpdir), 4); /* run1, run1.csv, run2.csv, sub */
    snprintf(sql, sizeof sql, "%s/sub", tmpdir);
    assert_int_equal(count_entries(sql), 1); /* run2 only: no temporary directory left */
}

/* ---- another meter's file ------------------------------------------------------------------ */

static int64_t query_int(const char *run, const char *sql)
{
    char err[512];
    mw_store *s = mw_store_open(run, err, sizeof err);
    if (!s) fail_msg("%s", err);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_sqlite(s), sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(mw_store_sqlite(s)));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    mw_store_close(s);
    return v;
}

/* All rows of a query, columns joined by ',' and rows ended by '\n'. */
static const char *query_rows(const char *run, const char *sql)
{
    static char buf[8192];
    char err[512];
    mw_store *s = mw_store_open(run, err, sizeof err);
    if (!s) fail_msg("%s", err);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_sqlite(s), sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(mw_store_sqlite(s)));
    size_t len = 0;
    buf[0] = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int i = 0; i < sqlite3_column_count(st); i++) {
            const char *v = (const char *)sqlite3_column_text(st, i);
            len +=
                (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? "," : "", v ? v : "NULL");
        }
        len += (size_t)snprintf(buf + len, sizeof buf - len, "\n");
    }
    sqlite3_finalize(st);
    mw_store_close(s);
    return buf;
}

/* gpu: ends 10.0, 10.5, 11.0, 12.5, 13.0 s: spacings 0.5, 0.5, 1.5, 0.5, median 0.5 s; 1.5
 * > 0.75 is a hole: window [12.0, 12.5], gap [11.0, 12.0]. Its first window is [9.5, 10.0].
 * Energies, integrated: 50 W x 0.5 s = 25 J, + 30 (60 W) = 55, + 35.0005 (70.001 W) =
 * 90.0005 -> 90.001 J (half away from zero), + 75 (150 W, "1.5e2") = 165.0005 -> 165.001,
 * + 0 (-0.0004 W rounds to -0 mW) = 165.001.
 * "cpu, socket 0": ends every 0.5 s from 10.0 to 13.0 (7 windows, no hole), 100.5 W ...
 * 106.5 W, first window [9.5, 10.0]; "12.3456" W is 12,346 mW. */
static const char foreign_csv[] = "\xEF\xBB\xBF# exported by SomeLogger 3.1\r\n"
                                  "# units: seconds, watts\r\n"
                                  "\r\n"
                                  "time_s, channel, power_w, comment\r\n"
                                  "10.0, gpu, 50, \"start, of run\"\r\n"
                                  "10.0, \"cpu, socket 0\", 100.5,\r\n"
                                  "10.5, gpu, 60,\r\n"
                                  "10.5, \"cpu, socket 0\", 101.5,\r\n"
                                  "  # a comment between rows\r\n"
                                  "11.0, gpu, 70.001,\r\n"
                                  "11.0, \"cpu, socket 0\", 102.5,\r\n"
                                  "11.5, \"cpu, socket 0\", 103.5,\r\n"
                                  "12.0, \"cpu, socket 0\", 12.3456,\r\n"
                                  "12.5, gpu, 1.5e2,\r\n"
                                  "12.5, \"cpu, socket 0\", 105.5,\r\n"
                                  "13.0, gpu, -0.0004, \"two\r\nlines\"\r\n"
                                  "13.0, \"cpu, socket 0\", 106.5,";

static void foreign_file(void **state)
{
    char csv[128], run[128];
    path(csv, sizeof csv, "logger.csv");
    path(run, sizeof run, "run");
    write_file(csv, foreign_csv);
    int rc = run_mw((char *[]){"mw", "import", csv, "--format=csv", "--output", run, NULL});
    if (rc) fail_msg("exit %d: %s", rc, out);
    assert_string_equal(query_rows(run, "SELECT channel, name, host, pin FROM channels "
                                        "ORDER BY channel"),
                        "1,gpu,NULL,NULL\n2,cpu, socket 0,NULL,NULL\n");
    assert_string_equal(query_rows(run, "SELECT seq, segment, t0_ns, t1_ns, meter_t0_us, "
                                        "meter_t1_us, power_mw, energy_mj, meter_energy_mj, "
                                        "vrms_mv, irms_ua, pf_milli, flags, uncertainty_ns "
                                        "FROM samples WHERE channel = 1 ORDER BY seq"),
                        "0,0,9500000000,10000000000,0,500000,50000,25000,25000,0,0,0,0,0\n"
                        "1,0,10000000000,10500000000,500000,1000000,60000,55000,55000,0,0,0,0,0\n"
                        "2,0,10500000000,11000000000,1000000,1500000,70001,90001,90001,0,0,0,0,0\n"
                        "3,0,12000000000,12500000000,2500000,3000000,150000,165001,165001,0,0,0,0,"
                        "0\n"
                        "4,0,12500000000,13000000000,3000000,3500000,0,165001,165001,0,0,0,0,0\n");
    assert_string_equal(query_rows(run, "SELECT seq, t0_ns, t1_ns, power_mw FROM samples "
                                        "WHERE channel = 2 ORDER BY seq"),
                        "0,9500000000,10000000000,100500\n"
                        "1,10000000000,10500000000,101500\n"
                        "2,10500000000,11000000000,102500\n"
                        "3,11000000000,11500000000,103500\n"
                        "4,11500000000,12000000000,12346\n"
                        "5,12000000000,12500000000,105500\n"
                        "6,12500000000,13000000000,106500\n");
    assert_string_equal(query_rows(run, "SELECT start_ns, end_ns, reason FROM gaps"),
                        "11000000000,12000000000,import: no samples of gpu\n");
    char want[512];
    snprintf(want, sizeof want,
             "channels_from,import\nend_ns,13000000000\nimport_energy,integrated from "
             "power_w\nimport_format,csv\nimport_source,%s\nstart_ns,0\nstatus,imported\n",
             csv);
    assert_string_equal(query_rows(run, "SELECT key, value FROM meta WHERE key IN ('status', "
                                        "'import_source', 'import_format', 'import_energy', "
                                        "'start_ns', 'end_ns', 'channels_from') ORDER BY key"),
                        want);
    assert_non_null(strstr(out, "12 windows of 2 channels, 1 gap\n"));

    /* nothing in it aligns: no phases */
    assert_int_equal(run_mw((char *[]){"mw", "align", run, NULL}), 2);
    assert_non_null(strstr(out, "no load pattern"));
}

/* Unix time: the run starts at its first window; the file's energies are kept. */
static void unix_times(void **state)
{
    char csv[128], run[128];
    path(csv, sizeof csv, "ns.csv");
    path(run, sizeof run, "ns");
    write_file(csv, "channel,time_ns,start_ns,power_w,energy_j,vrms_v,irms_a,pf\n"
                    "a,1700000000250000000,1700000000000000000,10,1000.5,230.1,0.05,0.87\n"
                    "a,1700000000500000000,,20,,229.9,0.1,-0.871\n"
                    "a,1700000001500000000,1700000001000000000,30,2000,230,0.15,1\n");
    int rc = run_mw((char *[]){"mw", "import", "--format", "csv", csv, "-o", run, NULL});
    if (rc) fail_msg("exit %d: %s", rc, out);
    /* window 2 starts at window 1's end; integrated from 1000.5 J: + 20 W x 0.25 s = 1005.5;
     * window 3 after a hole (1.0 s > 1.5 x the median 0.625 s): a gap [0.5, 1.0] s */
    assert_string_equal(query_rows(run, "SELECT t0_ns, t1_ns, power_mw, energy_mj, vrms_mv, "
                                        "irms_ua, pf_milli FROM samples ORDER BY seq"),
                        "1700000000000000000,1700000000250000000,10000,1000500,230100,50000,870\n"
                        "1700000000250000000,1700000000500000000,20000,1005500,229900,100000,-871\n"
                        "1700000001000000000,1700000001500000000,30000,2000000,230000,150000,1000"
                        "\n");
    assert_int_equal(query_int(run, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = "
                                    "'start_ns'"),
                     1700000000000000000LL);
    assert_string_equal(query_rows(run, "SELECT value FROM meta WHERE key = 'import_energy'"),
                        "energy_j column, integrated where empty\n");
    assert_string_equal(query_rows(run, "SELECT start_ns, end_ns FROM gaps"),
                        "1700000000500000000,1700000001000000000\n");

    /* time_s as Unix seconds, exact to the ns despite 19 significant digits */
    path(csv, sizeof csv, "unix.csv");
    path(run, sizeof run, "unix");
    write_file(csv, "time_s,channel,power_w\n1700000000.250000001,x,1\n1700000000.5,x,2\n");
    rc = run_mw((char *[]){"mw", "import", "--format", "csv", csv, "-o", run, NULL});
    if (rc) fail_msg("exit %d: %s", rc, out);
    assert_string_equal(query_rows(run, "SELECT t0_ns, t1_ns FROM samples ORDER BY seq"),
                        "1700000000000000002,1700000000250000001\n"
                        "1700000000250000001,1700000000500000000\n");
    assert_int_equal(query_int(run, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = "
                                    "'start_ns'"),
                     1700000000000000002LL);
}

/* ---- bad input ----------------------------------------------------------------------------- */

/* The file holding text is refused with exit 2, one line containing needle (after the
 * file's name), and nothing is created. */
static void expect_refused(const char *text, const char *needle)
{
    char csv[128], run[128], want[256];
    path(csv, sizeof csv, "bad.csv");
    path(run, sizeof run, "out/run");
    write_file(csv, text);
    int before = count_entries(tmpdir);
    int rc = run_mw((char *[]){"mw", "import", "--format", "csv", csv, "-o", run, NULL});
    snprintf(want, sizeof want, "mw import: %s:%s", csv, needle);
    if (rc != 2 || strncmp(out, want, strlen(want)) || strchr(out, '\n') != out + strlen(out) - 1)
        fail_msg("exit %d, output '%s' (want 2, '%s...')", rc, out, want);
    assert_int_equal(count_entries(tmpdir), before);
    struct stat st;
    assert_int_not_equal(stat(run, &st), 0);
}

static void bad_files(void **state)
{
    expect_refused("", "1: no header line");
    expect_refused("# only a comment\n\n", "3: no header line");
    expect_refused("time_s,channel,power_w\n", "1: a header but no rows");
    expect_refused("time_s,channel\n1,a\n", "1: the header names no column 'power_w'");
    expect_refused("channel,power_w\na,1\n", "1: the header names no time column");
    expect_refused("time_s,power_w\n1,1\n", "1: the header names no column 'channel'");
    expect_refused("time_s,channel,power_w,power_w\n", "1:4: column 'power_w' repeats column 3");
    expect_refused("time_s,time_ns,channel,power_w\n", "1:2: column 'time_ns' repeats column 1");
    expect_refused("time_ns,start_s,channel,power_w\n", "1:2: start_s goes with time_s");
    expect_refused("time_s,channel,power_w\n0.25,a,1\n0.5,a,abc\n",
                   "3:3: power_w: 'abc' is not a number");
    expect_refused("time_s,channel,power_w\n0.25,a,1\n0.5,a,3000000\n",
                   "3:3: power_w: '3000000' is out of range");
    expect_refused("time_s,channel,power_w,pf\n0.25,a,1,1.2\n", "2:4: pf: '1.2' is out of range");
    expect_refused("time_s,channel,power_w\n0.25,a,1\n0.5,a,\n", "3:3: power_w: empty");
    expect_refused("time_s,channel,power_w\n0.25,a,1\n,a,1\n", "3:1: time_s: empty");
    expect_refused("time_s,channel,power_w\n0.25,a,1\n0.5,a\n", "3: 2 fields, the header names 3");
    expect_refused("time_s,channel,power_w\n0.25,a,1\n0.5,b,1\n0.5,a,1\n0.25,a,2\n",
                   "5:1: time_s: '0.25' is not after the previous window of channel 'a' (line 4)");
    expect_refused("time_s,channel,power_w\n0.25,\"a,1\n", "2:2: a quoted field is not closed");
    expect_refused("time_s,channel,power_w\n0.25,\"a\"x,1\n", "2:2: text after a closing quote");
    expect_refused("time_s,channel,power_w\n0.25,,1\n", "2:2: channel: empty name");
    expect_refused("time_s,start_s,channel,power_w\n0.25,0.25,a,1\n",
                   "2:2: start_s: '0.25' is not before the window's end");
    expect_refused("time_s,start_s,channel,power_w\n0.25,0,a,1\n0.5,0.2,a,1\n",
                   "3:2: start_s: '0.2' is before the end of the previous window of channel 'a'");
    expect_refused("time_s,channel,power_w\n0.25,a,1\n",
                   "2:1: channel 'a' has a single window and no start column");
    expect_refused("time_s,channel,power_w\n1e99999,a,1\n", "2:1: time_s: '1e99999' is out of");
    expect_refused("time_s,channel,power_w\n1.2.3,a,1\n", "2:1: time_s: '1.2.3' is not a number");
    expect_refused("time_s,channel,power_w\nnan,a,1\n", "2:1: time_s: 'nan' is not a number");
}

static void usage_and_places(void **state)
{
    char csv[128], run[128], notes[160];
    path(csv, sizeof csv, "ok.csv");
    path(run, sizeof run, "run");
    write_file(csv, "time_s,channel,power_w\n0.25,a,1\n0.5,a,2\n");
    struct {
        const char *needle;
        char *argv[9];
    } bad[] = {
        {"missing FILE", {"mw", "import", "--format", "csv", "-o", run, NULL}},
        {"missing --format (csv, powersensor3, kwollect, pmlib)",
         {"mw", "import", csv, "-o", run, NULL}},
        {"--format: 'json' is not one of csv, powersensor3, kwollect, pmlib",
         {"mw", "import", "--format", "json", csv, "-o", run}},
        {"missing -o RUNDIR", {"mw", "import", "--format", "csv", csv, NULL}},
        {"'x'", {"mw", "import", "--format", "csv", csv, "x", "-o", run}},
        {"--frob", {"mw", "import", "--frob", NULL}},
        {"nosuch.csv: No such file",
         {"mw", "import", "--format", "csv", "/nonexistent/nosuch.csv", "-o", run}},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = run_mw(bad[i].argv);
        if (rc != 2 || !strstr(out, bad[i].needle))
            fail_msg("case %u: exit %d, '%s' (want '%s')", i, rc, out, bad[i].needle);
    }
    assert_int_equal(count_entries(tmpdir), 1);
    assert_int_equal(run_mw((char *[]){"mw", "import", "--help", NULL}), 0);
    assert_non_null(strstr(out, "usage: mw import --format FORMAT FILE -o RUNDIR"));

    /* an existing directory: refused, then --force replaces trace.db only */
    assert_int_equal(mkdir(run, 0777), 0);
    snprintf(notes, sizeof notes, "%s/notes.txt", run);
    write_file(notes, "mine\n");
    assert_int_equal(run_mw((char *[]){"mw", "import", "--format", "csv", csv, "-o", run, NULL}),
                     2);
    assert_non_null(strstr(out, "already exists"));
    assert_int_equal(count_entries(run), 1);
    assert_int_equal(
        run_mw((char *[]){"mw", "import", "--format", "csv", csv, "-o", run, "--force", NULL}), 0);
    assert_int_equal(query_int(run, "SELECT count(*) FROM samples"), 2);
    write_file(csv, "time_s,channel,power_w\n0.25,a,1\n0.5,a,2\n0.75,b,3\n1,b,3\n");
    assert_int_equal(
        run_mw((char *[]){"mw", "import", "--format", "csv", csv, "-o", run, "--force", NULL}), 0);
    /* trace.db, notes.txt: the -wal and -shm the reader above left are gone with the old
     * database */
    assert_int_equal(count_entries(run), 2);
    assert_int_equal(query_int(run, "SELECT count(*) FROM samples"), 4);
    assert_string_equal(read_text(notes), "mine\n");
    assert_int_equal(count_entries(tmpdir), 2); /* ok.csv, run: no temporary directory */

    /* a place that cannot be written: exit 1, nothing left */
    char under_file[200];
    snprintf(under_file, sizeof under_file, "%s/run", csv);
    assert_int_equal(
        run_mw((char *[]){"mw", "import", "--format", "csv", csv, "-o", under_file, NULL}), 1);
    assert_int_equal(count_entries(tmpdir), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(foreign_file, setup, teardown),
        cmocka_unit_test_setup_teardown(unix_times, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_files, setup, teardown),
        cmocka_unit_test_setup_teardown(usage_and_places, setup, teardown),
    };
    return cmocka_run_group_tests_name("cmd_import", tests, NULL, NULL);
}
