/* The trace exporters' shared layout (host/export_common.c) and the exporters on a small run
 * (host/export_otf2.c, host/export_perfetto.c), also under ASan/UBSan: phases dealt to lanes
 * (each lane's phases nest; one that overlaps without nesting opens a lane; GPU work apart;
 * timelines by rank), worked out by hand below; invalid UTF-8 replaced per RFC 3629 (overlong
 * forms and surrogates too) and valid text kept; interning through table growth; OTF2 refuses
 * an existing directory and leaves nothing after a failure; the Perfetto JSON parses (json-c)
 * with one slice per phase. The integration tests (test_export_otf2.sh, test_export_perfetto.sh)
 * check the numbers against the CSV with readers nobody here wrote. */
#include "../unit.h"

#include <errno.h>
#include <ftw.h>
#include <json.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../../host/export_internal.h" /* the layout the exporters share */
#include "mw_export.h"
#include "mw_store.h"

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

/* Rank 0 thread 0 on host h: G [0,200) holds A [0,100), which holds B [10,50) and the instant
 * E at 50; C [50,150) overlaps A without nesting (a second lane); D [100,120) nests in G
 * once A is over; F [0,10) is GPU work. The recorder's command (rank -1) spans it all. */
static const mw_store_phase phases[] = {
    {0, "h", 0, "user", "A", 1000, 1100, 0, 1, -1},
    {0, "h", 0, "user", "C", 1050, 1150, 0, 1, -1},
    {0, "h", 0, "user", "B", 1010, 1050, 0, 1, -1},
    {0, "h", 0, "mark", "E", 1050, 1050, 0, 1, -1},
    {0, "h", 0, "user", "D", 1100, 1120, 0, 1, -1},
    {0, "h", 0, "gpu", "F", 1000, 1010, 64, 1, -1},
    {0, "h", 0, "user", "G", 1000, 1200, 0, 1, -1},
    {-1, "rec", 0, "mw", "command", 900, 1300, 0, 0, -1},
};

static mw_store *written(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-export-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char dir[128], err[256];
    snprintf(dir, sizeof dir, "%s/r", tmpdir);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 1, "n\"ode\n1", "h", NULL), 0);
    for (int seq = 0; seq < 4; seq++) {
        mw_store_sample x = {.channel = 1, .seq = (uint32_t)seq, .t0_ns = 1000 + 100 * seq,
                             .t1_ns = 1100 + 100 * seq, .power_mw = 1500 + seq};
        assert_int_equal(mw_store_sample_add(s, &x), 0);
    }
    for (size_t i = 0; i < sizeof phases / sizeof *phases; i++)
        assert_int_equal(mw_store_phase_add(s, &phases[i]), 0);
    assert_int_equal(mw_store_commit(s), 0);
    return s;
}

static void done(mw_store *s)
{
    mw_store_close(s);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The names of line l's phases in order, comma-separated. */
static void line_names(const mw_exp_phases *x, size_t l, char *out, size_t len)
{
    out[0] = 0;
    for (size_t i = x->line[l].first; i < x->line[l].first + x->line[l].n; i++) {
        assert_int_equal(x->ph[i].line, l);
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i > x->line[l].first ? "," : "",
                 x->str.s[x->ph[i].name]);
    }
}

static void lanes_by_hand(void **state)
{
    mw_store *s = written();
    mw_exp_phases x;
    char err[256], names[128];
    assert_int_equal(mw_exp_phases_load(s, &x, err, sizeof err), 0);
    assert_int_equal(x.nph, 8);
    assert_int_equal(x.nline, 4);
    /* by rank: the recorder first; then rank 0's thread 0: lane 1, lane 2, its GPU work */
    assert_int_equal(x.line[0].rank, -1);
    line_names(&x, 0, names, sizeof names);
    assert_string_equal(names, "command");
    assert_true(x.line[1].rank == 0 && x.line[1].lane == 0 && !x.line[1].gpu);
    line_names(&x, 1, names, sizeof names);
    assert_string_equal(names, "G,A,B,E,D");
    assert_true(x.line[2].rank == 0 && x.line[2].lane == 1 && !x.line[2].gpu);
    line_names(&x, 2, names, sizeof names);
    assert_string_equal(names, "C");
    assert_true(x.line[3].rank == 0 && x.line[3].lane == 0 && x.line[3].gpu);
    line_names(&x, 3, names, sizeof names);
    assert_string_equal(names, "F");
    assert_string_equal(x.str.s[x.line[1].host], "h");
    mw_exp_phases_free(&x);
    done(s);
}

static void utf8_replaced(void **state)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain", "plain"},
        {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"}, /* é€😀 */
        {"a\xff" "b", "a\xef\xbf\xbd" "b"},
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                         /* overlong "/" */
        {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},         /* a surrogate */
        {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* > U+10FFFF */
        {"cut \xe2\x82", "cut \xef\xbf\xbd\xef\xbf\xbd"},                 /* truncated */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *o = mw_exp_utf8(cases[i].in);
        assert_string_equal(o, cases[i].out);
        free(o);
    }
    mw_exp_strings t = {0};
    assert_int_equal(mw_exp_strings_id(&t, "a\xff"), 0);
    assert_int_equal(mw_exp_strings_id(&t, "a\xef\xbf\xbd"), 0); /* the same once replaced */
    char b[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(b, sizeof b, "s%d", i);
        assert_int_equal(mw_exp_strings_id(&t, b), i + 1);
    }
    assert_int_equal(mw_exp_strings_id(&t, "s500"), 501);
    mw_exp_strings_free(&t);
}

static void otf2_refuses_and_cleans(void **state)
{
    mw_store *s = written();
    char dir[128], err[256];
    snprintf(dir, sizeof dir, "%s/o", tmpdir);
    assert_int_equal(mw_export_otf2(s, dir, err, sizeof err), 0);
    struct stat st;
    char f[160];
    snprintf(f, sizeof f, "%s/traces.otf2", dir);
    assert_int_equal(stat(f, &st), 0);
    assert_int_equal(mw_export_otf2(s, dir, err, sizeof err), -1);
    assert_int_equal(errno, EEXIST);
    assert_non_null(strstr(err, "exists"));
    /* a phase before 1970: an error, and nothing left in tmpdir but r and o */
    mw_store_phase neg = {0, "h", 1, "user", "early", -5, 10, 0, 1, -1};
    assert_int_equal(mw_store_phase_add(s, &neg), 0);
    assert_int_equal(mw_store_commit(s), 0);
    snprintf(dir, sizeof dir, "%s/n", tmpdir);
    assert_int_equal(mw_export_otf2(s, dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "before 1970"));
    assert_int_equal(lstat(dir, &st), -1);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 2", tmpdir);
    assert_int_equal(system(cmd), 0);
    done(s);
}

static void perfetto_parses(void **state)
{
    mw_store *s = written();
    char *buf = NULL, err[256];
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    assert_int_equal(mw_export_perfetto(s, out, err, sizeof err), 0);
    fclose(out);
    json_object *doc = json_tokener_parse(buf);
    assert_non_null(doc);
    json_object *ev;
    assert_true(json_object_object_get_ex(doc, "traceEvents", &ev));
    int slices = 0, counters = 0, zero_at_end = 0;
    for (size_t i = 0; i < json_object_array_length(ev); i++) {
        json_object *e = json_object_array_get_idx(ev, i), *ph, *name, *args, *w;
        assert_true(json_object_object_get_ex(e, "ph", &ph));
        const char *p = json_object_get_string(ph);
        slices += !strcmp(p, "X");
        if (strcmp(p, "C")) continue;
        counters++;
        assert_true(json_object_object_get_ex(e, "name", &name));
        assert_string_equal(json_object_get_string(name), "n\"ode\n1");
        assert_true(json_object_object_get_ex(e, "args", &args));
        assert_true(json_object_object_get_ex(args, "W", &w));
        zero_at_end += json_object_get_double(w) == 0.0;
    }
    assert_int_equal(slices, 8);
    assert_int_equal(counters, 5); /* 4 windows and the 0 where they end */
    assert_int_equal(zero_at_end, 1);
    json_object_put(doc);
    free(buf);
    done(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lanes_by_hand),
        cmocka_unit_test(utf8_replaced),
        cmocka_unit_test(otf2_refuses_and_cleans),
        cmocka_unit_test(perfetto_parses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
