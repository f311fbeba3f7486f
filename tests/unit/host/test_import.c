/* The importer as a library (host/import.c, mw_import.h): its error contract and what it
 * hands back, without the mw command (tests/unit/collector/test_cmd_import.c checks the
 * command end to end: stored values, messages as users see them, exit codes).
 *
 * - A bad file: NULL / -1 with "FILE:LINE[:COLUMN]: what" in the caller's buffer, nothing on
 *   standard error; a buffer too small gets the message cut, NUL-terminated.
 * - A good file: the windows walked in channel order with their starts (the first one a
 *   median spacing before its end), and mw_import_write's summary: windows, channels, gap
 *   spans.
 * - A file that cannot be read: "FILE: reason"; a run that cannot be written: -1 with
 *   "RUNDIR: ..." and nothing left behind. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_import.h"
#include "mw_store.h"

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-libimport-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void bad_file_message(void **state)
{
    static const char text[] = "time_s,channel,power_w\n0.25,a,1\n0.5,a,abc\n";
    char err[256] = "";
    assert_null(mw_import_parse("x.csv", text, strlen(text), err, sizeof err));
    assert_string_equal(err, "x.csv:3:3: power_w: 'abc' is not a number");
    assert_int_equal(mw_import_check("x.csv", text, strlen(text), NULL, NULL, err, sizeof err), -1);
    assert_string_equal(err, "x.csv:3:3: power_w: 'abc' is not a number");
    char small[8];
    assert_int_equal(mw_import_check("x.csv", text, strlen(text), NULL, NULL, small, sizeof small),
                     -1);
    assert_string_equal(small, "x.csv:3");
    assert_int_equal(mw_import_check("x.csv", "", 0, NULL, NULL, err, sizeof err), -1);
    assert_string_equal(err, "x.csv:1: no header line (the file holds no data)");

    /* a NUL byte is no field's end: "12<NUL>345" is not 12 W, "a<NUL>b" is not channel a,
     * quoted or not */
    static const char nul1[] = "time_s,channel,power_w\n1,a,12\0"
                               "345\n2,a,13\n";
    assert_null(mw_import_parse("n.csv", nul1, sizeof nul1 - 1, err, sizeof err));
    assert_string_equal(err, "n.csv:2:3: a NUL byte in the field (this is not a text file)");
    static const char nul2[] = "time_s,channel,power_w\n1,\"a\0b\",12\n2,a,13\n";
    assert_null(mw_import_parse("n.csv", nul2, sizeof nul2 - 1, err, sizeof err));
    assert_string_equal(err, "n.csv:2:2: a NUL byte in the field (this is not a text file)");
}

typedef struct {
    int n;
    int channel[8];
    int64_t t0_ns[8], t1_ns[8];
} walk;

static void each(void *ctx, int channel, int64_t t0_ns, int64_t t1_ns)
{
    walk *w = ctx;
    if (w->n < 8) {
        w->channel[w->n] = channel;
        w->t0_ns[w->n] = t0_ns;
        w->t1_ns[w->n] = t1_ns;
    }
    w->n++;
}

static void good_file_walk_and_write(void **state)
{
    /* b first; a's last window after a hole of 1.0 s (> 1.5 x its median 0.25 s) */
    static const char text[] = "time_s,channel,power_w\n0.5,b,1\n0.25,a,1\n0.5,a,2\n0.75,a,2\n"
                               "1.75,a,3\n0.75,b,1\n";
    char err[256] = "", run[128];
    walk w = {0};
    assert_int_equal(mw_import_check("g.csv", text, strlen(text), each, &w, err, sizeof err), 0);
    assert_int_equal(w.n, 6);
    static const int ch[] = {0, 0, 1, 1, 1, 1};
    static const int64_t ms0[] = {250, 500, 0, 250, 500, 1500},
                         ms1[] = {500, 750, 250, 500, 750, 1750};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(w.channel[i], ch[i]);
        assert_int_equal(w.t0_ns[i], ms0[i] * 1000000);
        assert_int_equal(w.t1_ns[i], ms1[i] * 1000000);
    }
    mw_import *im = mw_import_parse("g.csv", text, strlen(text), err, sizeof err);
    if (!im) fail_msg("%s", err);
    snprintf(run, sizeof run, "%s/sub/run", tmpdir);
    mw_import_summary sum = {0};
    if (mw_import_write(im, run, 0, &sum, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(sum.windows, 6);
    assert_int_equal(sum.channels, 2);
    assert_int_equal(sum.gaps, 1);
    assert_true(mw_store_exists(run));
    /* an existing run without force: refused, left as it was */
    assert_int_equal(mw_import_write(im, run, 0, &sum, err, sizeof err), -1);
    assert_non_null(strstr(err, "/sub/run: File exists"));
    assert_int_equal(mw_import_write(im, run, 1, NULL, err, sizeof err), 0);
    mw_import_free(im);
}

static void unreadable_and_unwritable(void **state)
{
    char err[512], file[128], run[160];
    snprintf(file, sizeof file, "%s/none.csv", tmpdir);
    assert_null(mw_import_read(file, err, sizeof err));
    assert_non_null(strstr(err, "/none.csv: No such file or directory"));
    snprintf(file, sizeof file, "%s/ok.csv", tmpdir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("time_s,channel,power_w\n0.25,a,1\n0.5,a,2\n", f);
    fclose(f);
    mw_import *im = mw_import_read(file, err, sizeof err);
    if (!im) fail_msg("%s", err);
    snprintf(run, sizeof run, "%s/run", file); /* under a plain file */
    assert_int_equal(mw_import_write(im, run, 0, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "/ok.csv/run: cannot create: "));
    mw_import_free(im);
    struct stat st;
    assert_int_not_equal(stat(run, &st), 0);
}

/* The other formats, each with a window layout worked out by hand (the formats: host/import_*.c
 * and tests/integration/import_data/README.md), walked through mw_import_each_window. */
static walk parse_walk(mw_import_format fmt, const char *text)
{
    char err[256] = "";
    walk w = {0};
    mw_import *im = mw_import_parse_as(fmt, "f", text, strlen(text), err, sizeof err);
    if (!im) fail_msg("%s", err);
    mw_import_each_window(im, each, &w);
    mw_import_free(im);
    return w;
}

static void other_formats(void **state)
{
    mw_import_format fmt;
    assert_int_equal(mw_import_format_from_name("kwollect", &fmt), 0);
    assert_int_equal(fmt, MW_IMPORT_KWOLLECT);
    assert_int_equal(mw_import_format_from_name("CSV", &fmt), -1);
    /* PowerSensor3: readings at 1 and 2 ms, the first window as long as the spacing */
    walk w = parse_walk(MW_IMPORT_POWERSENSOR3,
                        "marker time dt_micro current0 voltage0 power0 power_total\n"
                        "S 0.001 1000 1 1 1 1\nA 0.002 1000 1 1 1 1\n");
    assert_int_equal(w.n, 2);
    assert_int_equal(w.t0_ns[0], 0);
    assert_int_equal(w.t1_ns[1], 2000000);
    /* Kwollect: 2000-01-01T01:00:00+01:00 is 946684800 s (2000-01-01T00:00:00Z), a leap
     * day and a negative offset; windows of 1 s */
    w = parse_walk(
        MW_IMPORT_KWOLLECT,
        "[{\"timestamp\": \"2000-01-01T01:00:00+01:00\", \"device_id\": \"d\", "
        "\"metric_id\": \"p_watt\", \"value\": 1},\n"
        " {\"timestamp\": \"1999-12-31T19:00:01.000000000-05:00\", \"device_id\": \"d\", "
        "\"metric_id\": \"p_watt\", \"value\": 1}]");
    assert_int_equal(w.n, 2);
    assert_int_equal(w.t1_ns[0], 946684800LL * 1000000000);
    assert_int_equal(w.t0_ns[0], 946684799LL * 1000000000);
    assert_int_equal(w.t1_ns[1], 946684801LL * 1000000000);
    w = parse_walk(MW_IMPORT_KWOLLECT,
                   "{\"timestamp\": \"2024-02-29T00:00:00Z\", \"device_id\": \"d\", "
                   "\"metric_id\": \"p_watt\", \"value\": 1}\n"
                   "{\"timestamp\": \"2024-03-01T00:00:00Z\", \"device_id\": \"d\", "
                   "\"metric_id\": \"p_watt\", \"value\": 1}\n");
    assert_int_equal(w.t1_ns[0], 1709164800LL * 1000000000); /* date -d 2024-02-29Z +%s */
    assert_int_equal(w.t1_ns[1] - w.t1_ns[0], 86400LL * 1000000000);
    /* pmlib: set 1 follows set 0, one spacing (0.5 s) after its last sample */
    w = parse_walk(MW_IMPORT_PMLIB, "Set_id;Time;Line 1;Sum\n0;0.000000;1;1\n0;0.500000;1;1\n"
                                    "1;0.000000;1;1\n1;0.500000;1;1\n");
    assert_int_equal(w.n, 4);
    static const int64_t ms0[] = {-500, 0, 500, 1000}, ms1[] = {0, 500, 1000, 1500};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(w.t0_ns[i], ms0[i] * 1000000);
        assert_int_equal(w.t1_ns[i], ms1[i] * 1000000);
    }
    char err[256];
    static const char bad[] = "[{\"timestamp\": 1, \"device_id\": \"d\", \"metric_id\": "
                              "\"p_watt\", \"value\": 1e400}]";
    assert_null(
        mw_import_parse_as(MW_IMPORT_KWOLLECT, "k.json", bad, strlen(bad), err, sizeof err));
    assert_string_equal(err, "k.json:1: value: 1e400 is out of range");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_file_message),
        cmocka_unit_test(other_formats),
        cmocka_unit_test_setup_teardown(good_file_walk_and_write, setup, teardown),
        cmocka_unit_test_setup_teardown(unreadable_and_unwritable, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
