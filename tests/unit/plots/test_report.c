/* The report library (plots/include/mw_report.h) without the mw command: its numbers are
 * those of `mw analyze --json`, and its steps on runs made here with the run store.
 *
 * Numbers. The page used to read mw analyze's JSON; it now reads the analysis's structs
 * through rp_an_*, which must give, bit for bit, the double that the JSON's text reads back
 * as (json-c, as the page read it), so that a figure rounded twice (the JSON's 6 decimals,
 * then the page's 3) still prints the same. Checked on random runs fed to libmwmodels
 * (uneven window lengths in ns and powers in mW, so the energies in pJ are arbitrary; random
 * phases on three hosts and ranks; the idle baseline; the meter's counter): the JSON of
 * collector/analyze_json.c (mw_analyze_print_json) is parsed with json-c and every figure the
 * page shows — per channel, per phase group and channel, per rank, the aggregate across runs
 * — equals the rp_an_* value (a JSON null: NaN). And by hand: half away from zero, no
 * negative zero, the case that needs the JSON's rounding (0.0124996 J is "0.013 J" on the
 * page, as analyze's 0.012500 is, where rounding the exact value once gives "0.012 J").
 *
 * Steps. rp_report_collect refuses (one line naming the input) what does not exist, a
 * directory that is neither run nor sweep, a run given twice, a store that is not a
 * database; reads a run's metadata, channels and counts. rp_report_analyse analyses each run
 * (the run's derived figures equal the JSON's: range, command time and energy, total
 * energy), says a constant channel as mw analyze says it, and fails with the library's
 * reason on a run without samples ("DIR: no samples"). The page of a run holds its energy
 * table with the JSON's numbers.
 *
 * The model. The page used to read `mw fit --json` (a child process); it now reads libmwmodels'
 * studies through rp_fit_number/rp_fit_paper, which must give, bit for bit, the double json-c
 * read from that JSON's text (mw_out_json_number's %.10g, the paper's %.3f): checked on
 * special values (-0, which json-c reads as the integer 0; NaN and inf, the JSON's null) and on
 * random doubles of every kind (any bit pattern, ties at the 10th digit). rp_report_model on a
 * run it cannot predict: no tables, and the note mw fit's standard error ended with ("mw fit: "
 * and the study's message; after a newline in the run's name only the last line; 399 bytes at
 * most). The section from hand-made studies: the cells as the JSON stated them (0.0124999999996
 * s is "0.013 s", as the JSON's 0.0125 was), a dash for what is missing, the fit's parameters
 * with their interval, or none where an end is not finite, the iteration-limit remark, and
 * mw fit's reason when there is no fit. Under ASan the whole of it leaks nothing. */
#include "../unit.h"

#include <float.h>
#include <ftw.h>
#include <json.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze_print.h"
#include "textout.h"
#include "mw_report.h"
#include "mw_store.h"

#define S_NS 1700000000000000000LL
#define MS 1000000LL
#define SEC 1000000000LL
#define RP_TEST_DASH "\xE2\x80\x93" /* the page's dash, a figure that does not exist */

static char tmp[] = "/tmp/mw-report-XXXXXX";
static char err[1024];

/* ---- the JSON of mw analyze ------------------------------------------------------------ */

/* read leniently: a member or NULL; a number, or NaN for null or missing; a string or NULL;
 * an array's length (0 for anything else) and its element i or NULL */
static json_object *jget(json_object *o, const char *k)
{
    json_object *v = NULL;
    if (o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, k, &v))
        return v;
    return NULL;
}

static double jnum(json_object *o, const char *k)
{
    json_object *v = jget(o, k);
    if (v && (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
        return json_object_get_double(v);
    return NAN;
}

static const char *jstr(json_object *o, const char *k)
{
    json_object *v = jget(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static size_t jlen(json_object *a)
{
    return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static json_object *jat(json_object *a, size_t i)
{
    return i < jlen(a) ? json_object_array_get_idx(a, i) : NULL;
}

static json_object *analyze_json(const mw_analysis_run *const *runs, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    mw_analyze_print_json(f, runs, n);
    assert_int_equal(fclose(f), 0);
    json_object *o = json_tokener_parse(text);
    assert_non_null(o);
    free(text);
    return o;
}

/* page == the JSON's o[key] (null or missing: NaN) */
static void same(double page, json_object *o, const char *key)
{
    double j = jnum(o, key);
    if (isnan(j)) {
        if (!isnan(page)) fail_msg("%s: %.17g, the JSON null", key, page);
        return;
    }
    if (page != j) fail_msg("%s: %.17g, the JSON %.17g", key, page, j);
}

static void same_estimate(const mw_analysis_estimate *e, json_object *o)
{
    int ok = e->state == MW_ANALYSIS_OK;
    same(rp_an_round(mw_analysis_idle_w(e), 3), o, "pow_idle_w");
    same(rp_an_round(mw_analysis_work_w(e), 3), o, "pow_work_w");
    if (!jget(o, "idle_sd_w")) return; /* kde */
    same(rp_an_round(ok ? e->levels.idle_sd_w : NAN, 3), o, "idle_sd_w");
    same(rp_an_round(ok ? e->levels.work_sd_w : NAN, 3), o, "work_sd_w");
}

static void same_channel(const mw_analysis_channel *c, json_object *o)
{
    assert_string_equal(jstr(o, "name"), c->name);
    same((double)c->windows, o, "windows");
    same(rp_an_seconds(c->covered_ns), o, "covered_s");
    same(rp_an_joules(c->energy_pj), o, "energy_j");
    same(c->have_meter ? rp_an_joules(c->meter_pj) : NAN, o, "meter_energy_j");
    same(rp_an_round(mw_analysis_meter_difference_pct(c), 4), o, "meter_difference_pct");
    same(rp_an_mean_w(c->energy_pj, c->covered_ns), o, "mean_power_w");
    same(c->idle_source ? rp_an_round(c->idle_power_w, 6) : NAN, o, "idle_power_w");
    same(rp_an_round(mw_analysis_dynamic_j(c, c->energy_pj, c->covered_ns), 6), o,
         "dynamic_energy_j");
    same_estimate(&c->kde, o);
    if (c->gmm.state != MW_ANALYSIS_SKIPPED) same_estimate(&c->gmm, jget(o, "gmm"));
    if (c->split.state != MW_ANALYSIS_SKIPPED) same_estimate(&c->split, jget(o, "split"));
}

static void same_phase(const mw_analysis_run *r, const mw_analysis_phase *p, json_object *o)
{
    assert_string_equal(jstr(o, "kind"), p->kind);
    assert_string_equal(jstr(o, "name"), p->name);
    same(rp_an_seconds(p->duration_ns), o, "duration_s");
    json_object *pc = jget(o, "channels");
    size_t k = 0;
    for (size_t c = 0; c < r->nchannels; c++) {
        if (!p->channel_duration_ns[c]) continue;
        json_object *x = jat(pc, k++);
        const mw_analysis_channel *ch = &r->channels[c];
        mw_energy_pj pj = p->channel_energy_pj[c];
        int64_t cov = p->channel_covered_ns[c];
        assert_string_equal(jstr(x, "name"), ch->name);
        same(rp_an_seconds(p->channel_duration_ns[c]), x, "duration_s");
        same(rp_an_joules(pj), x, "energy_j");
        same(rp_an_mean_w(pj, cov), x, "mean_power_w");
        same(rp_an_round(mw_analysis_dynamic_j(ch, pj, cov), 6), x, "dynamic_energy_j");
    }
    assert_int_equal(k, jlen(pc));
}

static void same_rank(const mw_analysis_run *r, const mw_analysis_rank *x, json_object *o)
{
    same(x->rank, o, "rank");
    same(rp_an_seconds(mw_analysis_since_ns(r, x->start_ns)), o, "start_s");
    same(rp_an_seconds((__int128)x->end_ns - x->start_ns), o, "duration_s");
    same(rp_an_joules(x->energy_pj), o, "energy_j");
    same(rp_an_seconds(x->work_ns), o, "work_s");
    same(rp_an_joules(x->work_energy_pj), o, "work_energy_j");
}

static void same_run(const mw_analysis_run *r, json_object *o)
{
    same(rp_an_seconds((__int128)r->last_ns - r->first_ns), o, "duration_s");
    json_object *ch = jget(o, "channels"), *ph = jget(o, "phases"), *rk = jget(o, "ranks");
    assert_int_equal(jlen(ch), r->nchannels);
    assert_int_equal(jlen(ph), r->nphases);
    assert_int_equal(jlen(rk), r->nranks);
    for (size_t c = 0; c < r->nchannels; c++)
        same_channel(&r->channels[c], jat(ch, c));
    for (size_t g = 0; g < r->nphases; g++)
        same_phase(r, &r->phases[g], jat(ph, g));
    for (size_t k = 0; k < r->nranks; k++)
        same_rank(r, &r->ranks[k], jat(rk, k));
}

/* the aggregate's mean and sd, 6 decimals, as the page shows them */
static void same_aggregate(const mw_analysis_aggregate *a, json_object *o)
{
    json_object *ch = jget(o, "channels");
    assert_int_equal(jlen(ch), a->nchannels);
    static const struct {
        mw_analysis_metric m;
        const char *group, *key;
    } shown[] = {
        {MW_ANALYSIS_ENERGY, NULL, "energy_j"},      {MW_ANALYSIS_MEAN_POWER, NULL, "mean_power_w"},
        {MW_ANALYSIS_KDE_IDLE, NULL, "pow_idle_w"},  {MW_ANALYSIS_KDE_WORK, NULL, "pow_work_w"},
        {MW_ANALYSIS_GMM_IDLE, "gmm", "pow_idle_w"}, {MW_ANALYSIS_GMM_WORK, "gmm", "pow_work_w"}};
    for (size_t k = 0; k < a->nchannels; k++) {
        json_object *x = jat(ch, k);
        assert_string_equal(jstr(x, "name"), a->channels[k].name);
        same((double)a->channels[k].runs, x, "runs");
        for (size_t i = 0; i < sizeof shown / sizeof *shown; i++) {
            json_object *g = shown[i].group ? jget(x, shown[i].group) : x;
            const mw_analysis_summary *s = &a->channels[k].metric[shown[i].m];
            same(rp_an_round(s->mean, 6), jget(g, shown[i].key), "mean");
            same(rp_an_round(s->sd, 6), jget(g, shown[i].key), "sd");
        }
    }
}

/* ---- random runs ----------------------------------------------------------------------- */

static uint64_t rng_state = 88172645463325252ULL;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static void random_phases(mw_analysis_run *r)
{
    static const char *const hosts[] = {"h0", "h1", "h2"}, *kinds[] = {"compute", "user", "wait"},
                             *names[] = {"a", "b", "idle x"};
    mw_analysis_add_phase(r, -1, "rec", "mw", "idle-before", S_NS, S_NS + 2 * SEC);
    mw_analysis_add_phase(r, -1, "rec", "mw", "command", S_NS + 2 * SEC, S_NS + 50 * SEC);
    for (int i = 0; i < 60; i++) {
        int h = (int)rnd(3);
        int64_t a = S_NS + (int64_t)rnd(60000) * MS + rnd(1000);
        mw_analysis_add_phase(r, h + 3 * (int)rnd(2), hosts[h], kinds[rnd(3)], names[rnd(3)], a,
                              a + (int64_t)rnd(4000) * MS + rnd(1000));
    }
}

/* A run of three channels (h0, h1, one without host), uneven windows, random phases. */
static mw_analysis_run *random_run(void)
{
    mw_analysis_run *r = mw_analysis_new("random", S_NS, NULL);
    static const char *const host[] = {"h0", "h1", NULL}, *name[] = {"node0", "node1", "switch"};
    for (int c = 0; c < 3; c++)
        assert_int_equal(mw_analysis_add_channel(r, c + 1, name[c], host[c], err, sizeof err), 0);
    random_phases(r);
    for (int c = 0; c < 3; c++) {
        int64_t t = S_NS + rnd(1000) * MS;
        int32_t level = (int32_t)(1000 + rnd(200000));
        for (int k = 0; k < 250; k++) {
            int64_t len = 200 * MS + rnd(100000000);
            int32_t p = level + (int32_t)(rnd(2) ? rnd(150000) : rnd(999));
            assert_int_equal(mw_analysis_add_window(r, c + 1, t, t + len, p, err, sizeof err), 0);
            t += len + (rnd(30) == 0 ? rnd(2000) * MS : 0);
        }
    }
    for (size_t c = 0; c < r->nchannels; c++) {
        mw_energy_window a, b;
        if (c != 2 && mw_analysis_counter_windows(r, c, &a, &b))
            mw_analysis_set_counter(r, c, rnd(100000), 250000, 100000 + rnd(100000000));
    }
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), 0);
    return r;
}

static void json_numbers(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        const mw_analysis_run *runs[3];
        for (int i = 0; i < 3; i++)
            runs[i] = random_run();
        json_object *o = analyze_json(runs, 3);
        for (int i = 0; i < 3; i++)
            same_run(runs[i], jat(jget(o, "runs"), (size_t)i));
        mw_analysis_aggregate a;
        mw_analysis_aggregate_runs(runs, 3, &a);
        same_aggregate(&a, jget(o, "aggregate"));
        mw_analysis_aggregate_free(&a);
        json_object_put(o);
        for (int i = 0; i < 3; i++)
            mw_analysis_free((mw_analysis_run *)runs[i]);
    }
}

/* ---- by hand --------------------------------------------------------------------------- */

static void rounding(void **state)
{
    (void)state;
    const mw_energy_pj uj = 1000000; /* 1 µJ in pJ */
    assert_true(rp_an_joules(12 * uj) == strtod("0.000012", NULL));
    assert_true(rp_an_joules(uj / 2) == strtod("0.000001", NULL)); /* half away from zero */
    assert_true(rp_an_joules(-uj / 2) == strtod("-0.000001", NULL));
    assert_true(rp_an_joules(uj / 2 - 1) == 0 && !signbit(rp_an_joules(-(uj / 2 - 1))));
    assert_true(rp_an_seconds(1500) == strtod("0.000002", NULL));
    assert_true(rp_an_seconds(-1499) == strtod("-0.000001", NULL));
    assert_true(rp_an_seconds((__int128)86400 * SEC * 365) == 31536000.0);
    assert_true(rp_an_joules((mw_energy_pj)1000000000000 * 1000000000000) == 1e12);
    assert_true(isnan(rp_an_mean_w(1000, 0))); /* no window time */
    assert_true(rp_an_mean_w((mw_energy_pj)123456789 * 1000000, SEC) == strtod("123.457", NULL));
    assert_true(isnan(rp_an_round(NAN, 3)) && isnan(rp_an_round(INFINITY, 3)));
    assert_true(rp_an_round(-0.0004, 3) == 0 && !signbit(rp_an_round(-0.0004, 3)));
    assert_true(rp_an_round(1.23456789, 6) == strtod("1.234568", NULL));
    /* rounded twice, as the page always did: 0.0124996 J is analyze's 0.012500, "0.013 J" */
    char b[64];
    mw_energy_pj pj = 12499600000;
    snprintf(b, sizeof b, "%.3f", rp_an_joules(pj)); /* as mw_html_energy prints J */
    assert_string_equal(b, "0.013");
    snprintf(b, sizeof b, "%.3f", mw_energy_j(pj));
    assert_string_equal(b, "0.012");
}

/* ---- the model as mw fit --json stated it ----------------------------------------------- */

/* v as `mw fit --json` wrote it (mw_out_json_number; paper: "%.3f", the paper's NRMSE) and
 * json-c read it back, as the page read it: NaN for null */
static double fit_json(double v, int paper)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    fputc('[', f);
    if (paper)
        fprintf(f, "%.3f", v);
    else
        mw_out_json_number(f, v);
    fputc(']', f);
    assert_int_equal(fclose(f), 0);
    json_object *o = json_tokener_parse(text);
    assert_non_null(o);
    json_object *x = json_object_array_get_idx(o, 0);
    double d = x ? json_object_get_double(x) : NAN;
    json_object_put(o);
    free(text);
    return d;
}

/* the page's double is the JSON's, bit for bit (NaN for null) */
static void same_bits(double page, double json, double v)
{
    if (isnan(json) ? !isnan(page) : memcmp(&page, &json, sizeof page) != 0)
        fail_msg("%.17g: the page %.17g, mw fit --json %.17g", v, page, json);
}

/* doubles of every kind: any finite bit pattern, m * 10^e, integers, ties at the 10th digit */
static double random_double(void)
{
    switch (rnd(4)) {
    case 0:
        for (;;) {
            uint64_t bits = (uint64_t)rnd(1u << 31) << 33 ^ (uint64_t)rnd(1u << 31) << 2 ^ rnd(4);
            double v;
            memcpy(&v, &bits, sizeof v);
            if (isfinite(v)) return v;
        }
    case 1:
        return (rnd(2) ? -1.0 : 1.0) * (rnd(1000000) / 1e5) * pow(10, (int)rnd(25) - 12);
    case 2:
        return (rnd(2) ? -1.0 : 1.0) * (double)((uint64_t)rnd(100000) * rnd(1000000) + rnd(10));
    default: /* half a unit of the 10th significant digit, give or take one ulp */
        return nextafter(((1000000000.0 + rnd(900000000)) + 0.5) * pow(10, (int)rnd(21) - 19),
                         rnd(2) ? INFINITY : -INFINITY);
    }
}

static void fit_numbers(void **state)
{
    (void)state;
    const double special[] = {0.0,      -0.0,   NAN,     INFINITY,   -INFINITY,     1e300,
                              -1e-300,  5e-324, DBL_MAX, 1234567890, 12345678901.0, 0.0124999999996,
                              -3.0e-06, 0.439,  0.787,   0.403,      0.744};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++) {
        same_bits(rp_fit_number(special[i]), fit_json(special[i], 0), special[i]);
        if (isfinite(special[i])) /* the paper's NRMSE: constants, finite */
            same_bits(rp_fit_paper(special[i]), fit_json(special[i], 1), special[i]);
    }
    for (int i = 0; i < 200000; i++) {
        double v = random_double();
        same_bits(rp_fit_number(v), fit_json(v, 0), v);
        if (fabs(v) < 1e15) same_bits(rp_fit_paper(v), fit_json(v, 1), v);
    }
    /* by hand: json-c reads "-0" as the integer 0; rounded twice, as the page always did */
    assert_true(rp_fit_number(-0.0) == 0 && !signbit(rp_fit_number(-0.0)));
    assert_true(signbit(rp_fit_paper(-0.0))); /* "-0.000" is a double */
    assert_true(isnan(rp_fit_number(NAN)) && isnan(rp_fit_number(-INFINITY)));
    char b[64];
    snprintf(b, sizeof b, "%.3f", rp_fit_number(0.0124999999996)); /* the JSON's 0.0125 */
    assert_string_equal(b, "0.013");
    snprintf(b, sizeof b, "%.3f", 0.0124999999996);
    assert_string_equal(b, "0.012");
}

/* ---- the steps on run stores ----------------------------------------------------------- */

static void window(mw_store *s, int ch, uint32_t k, int32_t p_mw)
{
    int64_t t0 = S_NS + 250 * MS * k, t1 = t0 + 250 * MS;
    mw_store_sample x = {.channel = ch,
                         .seq = k,
                         .meter_t0_us = 1000000 + 250000 * (uint64_t)k,
                         .meter_t1_us = 1250000 + 250000 * (uint64_t)k,
                         .t0_ns = t0,
                         .t1_ns = t1,
                         .power_mw = p_mw,
                         .vrms_mv = 230000,
                         .irms_ua = 100000,
                         .pf_milli = 1000,
                         .energy_mj = (int64_t)p_mw * (k + 1) / 4};
    if (mw_store_sample_add(s, &x)) fail_msg("%s", mw_store_error(s));
}

/* A run in dir: node0 (host n0, 80 W then 200 W then 80 W) and a switch at a constant 10 W,
 * 5 s of windows unless empty; the recorder's idle-before and command, a compute phase. */
static void make_run(const char *dir, int empty)
{
    char e[512];
    mw_store *s = mw_store_create(dir, 0, e, sizeof e);
    if (!s) fail_msg("%s", e);
    assert_int_equal(mw_store_meta_set(s, "start_ns", "1700000000000000000"), 0);
    assert_int_equal(mw_store_meta_set(s, "status", "complete"), 0);
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "switch", NULL, "A2"), 0);
    for (uint32_t k = 0; !empty && k < 20; k++) {
        window(s, 1, k, k >= 4 && k < 16 ? 200000 : 80000);
        window(s, 2, k, 10000);
    }
    mw_store_phase ph[] = {
        {-1, "rec", 0, "mw", "idle-before", S_NS, S_NS + 1000 * MS, 0, 0, -1},
        {-1, "rec", 0, "mw", "command", S_NS + 1000 * MS, S_NS + 4000 * MS, 0, 0, -1},
        {0, "n0", 0, "compute", "step", S_NS + 1000 * MS, S_NS + 4000 * MS, 0, 0, -1}};
    for (size_t i = 0; i < sizeof ph / sizeof *ph; i++)
        assert_int_equal(mw_store_phase_add(s, &ph[i]), 0);
    mw_store_close(s);
}

static char path_buf[8][1024];
static char long_name[420];
static char *at(int slot, const char *name)
{
    snprintf(path_buf[slot], sizeof path_buf[slot], "%s/%s", tmp, name);
    return path_buf[slot];
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(tmp)) return -1;
    make_run(at(0, "run"), 0);
    make_run(at(0, "empty"), 1);
    make_run(at(0, "new\nline"), 0);
    /* a run whose path is longer than a note: long/a...a/b...b (200 each) */
    snprintf(long_name, sizeof long_name, "long/%0200d", 0);
    memset(long_name + 5, 'a', 200);
    mkdir(at(0, "long"), 0755);
    mkdir(at(0, long_name), 0755);
    snprintf(long_name + 205, sizeof long_name - 205, "/%0200d", 0);
    memset(long_name + 206, 'b', 200);
    make_run(at(0, long_name), 0);
    mkdir(at(0, "plain"), 0755);
    mkdir(at(0, "junk"), 0755);
    FILE *f = fopen(at(0, "junk/trace.db"), "w");
    if (!f) return -1;
    fputs("not a database\n", f);
    return fclose(f);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    (void)state;
    return nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

typedef struct {
    char lines[8][4200];
    rp_say_kind kinds[8];
    int n;
} said;

static void on_say(void *ctx, rp_say_kind kind, const char *text)
{
    said *s = ctx;
    assert_true(s->n < 8);
    assert_null(strchr(text, '\n'));
    s->kinds[s->n] = kind;
    snprintf(s->lines[s->n++], sizeof s->lines[0], "%s", text);
}

/* rp_report_collect on inputs: its result, err holding the reason */
static int collect(rp_report *rp, said *s, char **inputs, int n)
{
    memset(rp, 0, sizeof *rp);
    memset(s, 0, sizeof *s);
    rp->say = on_say;
    rp->say_ctx = s;
    return rp_report_collect(rp, inputs, n, err, sizeof err);
}

static void refusals(void **state)
{
    (void)state;
    rp_report rp;
    said s;
    char want[2048];
    char *none[] = {at(0, "nonexistent")}, *plain[] = {at(1, "plain")},
         *twice[] = {at(2, "run"), at(3, "run")}, *junk[] = {at(4, "junk")};
    assert_int_equal(collect(&rp, &s, none, 1), -1);
    snprintf(want, sizeof want, "%s: No such file or directory", none[0]);
    assert_string_equal(err, want);
    rp_report_free(&rp);
    assert_int_equal(collect(&rp, &s, plain, 1), -1);
    snprintf(want, sizeof want, "%s: not a run (no trace.db) nor a sweep (no sweep.db)", plain[0]);
    assert_string_equal(err, want);
    rp_report_free(&rp);
    assert_int_equal(collect(&rp, &s, twice, 2), -1);
    snprintf(want, sizeof want, "%s: given twice", twice[0]);
    assert_string_equal(err, want);
    rp_report_free(&rp);
    assert_int_equal(collect(&rp, &s, junk, 1), -1);
    assert_non_null(strstr(err, "not a database"));
    rp_report_free(&rp);
    assert_int_equal(s.n, 0); /* nothing said */
}

static void no_samples(void **state)
{
    (void)state;
    rp_report rp;
    said s;
    char *in[] = {at(0, "run"), at(1, "empty")};
    assert_int_equal(collect(&rp, &s, in, 2), 0);
    assert_int_equal(rp.nrun, 2);
    assert_int_equal(rp_report_analyse(&rp, err, sizeof err), -1);
    char want[1200];
    snprintf(want, sizeof want, "%s: no samples", in[1]);
    assert_string_equal(err, want);
    assert_int_equal(s.n, 0); /* notes only once every run is analysed */
    rp_report_free(&rp);
}

/* the page's per-run figures equal the JSON's */
static void derived(const rp_run *r)
{
    json_object *o = analyze_json((const mw_analysis_run *const[]){r->an}, 1);
    json_object *run = jat(jget(o, "runs"), 0);
    same_run(r->an, run);
    same(r->duration_s, run, "duration_s");
    double total = 0, cmd_j = 0;
    json_object *ch = jget(run, "channels"), *ph = jget(run, "phases");
    for (size_t k = 0; k < jlen(ch); k++)
        total += jnum(jat(ch, k), "energy_j");
    assert_true(r->total_j == total);
    for (size_t g = 0; g < jlen(ph); g++) {
        json_object *p = jat(ph, g);
        if (strcmp(jstr(p, "kind"), "mw") || strcmp(jstr(p, "name"), "command")) continue;
        same(r->cmd_s, p, "duration_s");
        for (size_t k = 0; k < jlen(jget(p, "channels")); k++)
            cmd_j += jnum(jat(jget(p, "channels"), k), "energy_j");
    }
    assert_true(r->cmd_j == cmd_j);
    json_object_put(o);
}

static void one_run(void **state)
{
    (void)state;
    rp_report rp;
    said s;
    char *in[] = {at(0, "run")};
    assert_int_equal(collect(&rp, &s, in, 1), 0);
    const rp_run *r = &rp.run[0];
    assert_int_equal(rp.nrun, 1);
    assert_int_equal(r->nch, 2);
    assert_string_equal(r->ch[1].name, "switch");
    assert_int_equal(r->nphases, 3);
    assert_int_equal(rp_report_analyse(&rp, err, sizeof err), 0);
    assert_true(r->cmd_s == 3.0);
    assert_true(r->cmd_j == 3 * 10 + 200 * 3);
    derived(r);
    /* the constant switch, as mw analyze says it */
    char want[1200];
    snprintf(want, sizeof want,
             "mw analyze: %s: channel switch: constant power 10.000 W in all 20 windows: one "
             "level, not bimodal",
             in[0]);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.kinds[0], RP_SAY_LINE);
    assert_string_equal(s.lines[0], want);
    /* the page */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    char *argv[] = {"mw", "report", in[0], NULL};
    rp_write_page(f, &rp, in, 1, 0, 3, argv);
    assert_int_equal(fclose(f), 0);
    assert_non_null(strstr(text, "<table id=\"energy-1\">"));
    assert_non_null(strstr(text, "<tr data-channel=\"switch\"><td>switch</td><td>\xE2\x80\x93"
                                 "</td><td class=\"n\">20</td><td class=\"n\">5.000 s</td>"
                                 "<td class=\"n\">50.000 J</td>"));
    assert_null(strstr(text, "<script"));
    free(text);
    rp_report_free(&rp);
}

/* ---- the model ------------------------------------------------------------------------- */

/* the page of rp (malloc'd) */
static char *page_of(const rp_report *rp, char **in)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    char *argv[] = {"mw", "report", in[0], NULL};
    rp_write_page(f, rp, in, 1, 0, 3, argv);
    assert_int_equal(fclose(f), 0);
    return text;
}

/* A run the model cannot predict (not an eeg-mofs run, marked as one by hand): no tables,
 * the note as mw fit's standard error ended: "mw fit: " and the study's message, its last
 * line when a newline in the run's name splits it, 399 bytes at most. */
static void model_refused(void **state)
{
    (void)state;
    char *names[] = {"run", "new\nline", long_name};
    for (int i = 0; i < 3; i++) {
        rp_report rp;
        said s;
        char *in[] = {at(0, names[i])};
        assert_int_equal(collect(&rp, &s, in, 1), 0);
        assert_int_equal(rp_report_escobar(&rp), 0); /* not an eeg-mofs run */
        rp.run[0].escobar = 1;
        rp.nescobar = 1;
        assert_int_equal(rp_report_model(&rp), -1);
        assert_null(rp.fit);
        assert_null(rp.fit_mode);
        mw_escobar_study_opts so = {.fit = 0};
        mw_escobar_study *st;
        char e2[1024], want[1100];
        assert_int_equal(mw_escobar_study_run(&so, in, 1, &st, e2, sizeof e2),
                         MW_ESCOBAR_STUDY_BAD_INPUT);
        assert_non_null(strstr(e2, "missing parameter"));
        snprintf(want, sizeof want, "mw fit: %s", e2);
        const char *line = strrchr(want, '\n') ? strrchr(want, '\n') + 1 : want;
        if (i == 1) assert_true(!strncmp(line, "line: missing parameter", 23));
        if (i == 2) assert_true(strlen(line) > 399);
        assert_int_equal(strlen(rp.fit_note), i == 2 ? 399 : strlen(line));
        assert_true(!strncmp(rp.fit_note, line, strlen(rp.fit_note)));
        rp.say = NULL; /* mw analyze's note names the run, newline and all */
        assert_int_equal(rp_report_analyse(&rp, err, sizeof err), 0);
        char *page = page_of(&rp, in);
        assert_non_null(strstr(page, "<p class=\"warn\">No prediction: "));
        free(page);
        rp_report_free(&rp);
    }
}

/* hand-made studies: predict mode (2 runs of v3) and fit mode (v3 fitted) */
static mw_escobar_study *study(int nrows)
{
    mw_escobar_study *st = calloc(1, sizeof *st);
    assert_non_null(st);
    st->nrows = nrows;
    st->runs = calloc((size_t)nrows + 1, sizeof *st->runs);
    st->rows = calloc((size_t)nrows + 1, sizeof *st->rows);
    assert_true(st->runs && st->rows);
    st->ngroups = 1;
    st->group[0] = (mw_escobar_study_group){.version = 3, .nruns = 2};
    return st;
}

static void model_studies(rp_report *rp)
{
    mw_escobar_study *p = rp->fit = study(2);
    snprintf(p->runs[0].dir, sizeof p->runs[0].dir, "v3 <one>");
    p->runs[0].t_measured_s = 0.0124999999996; /* the JSON's 0.0125: 0.013 s */
    p->runs[0].e_measured_j = 2.0124999999996; /* 2.013 J */
    p->rows[0] = (mw_escobar_study_row){
        .run = &p->runs[0],
        .p = {.version = 3, .n_spop = 4},
        .pr = {.rounds = 2, .t_cluster_s = NAN, .energy_j = 3.0134999999996}};
    snprintf(p->runs[1].dir, sizeof p->runs[1].dir, "two");
    p->runs[1].t_measured_s = 1.5;
    p->runs[1].e_measured_j = 10;
    p->rows[1] = (mw_escobar_study_row){.run = &p->runs[1],
                                        .p = {.version = 3, .n_spop = 1},
                                        .pr = {.rounds = 1, .t_cluster_s = 1.25, .energy_j = 12}};
    p->group[0].nrmse_t = 0.0124999999996;
    p->group[0].nrmse_e = NAN;
    p->group[0].paper_nrmse_t = 0.787;
    p->group[0].paper_nrmse_e = 0.744;
    mw_escobar_study *f = rp->fit_mode = study(0);
    mw_escobar_fit *ft = &f->group[0].fit;
    f->group[0].fitted = 1;
    f->group[0].nrmse_t = 0.4375; /* fit mode's, beside the predict one: 0.438 */
    f->group[0].nrmse_e = NAN;
    ft->used[MW_ESCOBAR_FIT_T_CPU] = ft->used[MW_ESCOBAR_FIT_T_OVH] = 1;
    ft->value[MW_ESCOBAR_FIT_T_CPU] = 3.639314283e-06;
    ft->se[MW_ESCOBAR_FIT_T_CPU] = 1.168847161e-05;
    ft->ci_lo[MW_ESCOBAR_FIT_T_CPU] = -0.0001448767991;
    ft->ci_hi[MW_ESCOBAR_FIT_T_CPU] = 0.0001521554277;
    ft->value[MW_ESCOBAR_FIT_T_OVH] = 0.009857773715;
    ft->se[MW_ESCOBAR_FIT_T_OVH] = 0.004216499149;
    ft->ci_lo[MW_ESCOBAR_FIT_T_OVH] = -0.04371792775;
    ft->ci_hi[MW_ESCOBAR_FIT_T_OVH] = INFINITY; /* no interval shown */
    ft->have_ci = 1;
    ft->dof = 1;
    ft->rss = 1.632158306e-05;
    ft->converged = 0;
}

/* The section from the studies, with the numbers as mw fit --json stated them. */
static void model_section(void **state)
{
    (void)state;
    rp_report rp;
    said s;
    char *in[] = {at(0, "run")};
    assert_int_equal(collect(&rp, &s, in, 1), 0);
    assert_int_equal(rp_report_analyse(&rp, err, sizeof err), 0);
    rp.run[0].escobar = 1;
    rp.nescobar = 1;
    model_studies(&rp);
#define TD "<td class=\"n\">"
    static const char *const want[] = {
        "<tr><td><code>v3 &lt;one&gt;</code></td>" TD "3</td>" TD "4</td>" TD "2</td>" TD
        "0.013 s</td>" TD RP_TEST_DASH "</td>" TD "2.013 J</td>" TD "3.014 J</td></tr>",
        "<tr><td><code>two</code></td>" TD "3</td>" TD "1</td>" TD "1</td>" TD "1.500 s</td>" TD
        "1.250 s</td>" TD "10.000 J</td>" TD "12.000 J</td></tr>",
        "<tr>" TD "3</td>" TD "2</td>" TD "0.013</td>" TD "0.438</td>" TD "0.787</td>" TD
        RP_TEST_DASH "</td>" TD RP_TEST_DASH "</td>" TD "0.744</td></tr>",
        "<p>Version 3: 2 runs, 1 degrees of freedom, residual sum of squares 0.000016 s\xC2\xB2 "
        "(stopped at the iteration limit).</p>",
        "<tr><td><code>t_cpu_s</code></td>" TD "0.000003639 s</td>" TD "0.000011688 s</td>" TD
        "[-0.000144877 s, 0.000152155 s]</td></tr>",
        "<tr><td><code>t_ovh_s</code></td>" TD "0.009857774 s</td>" TD
        "0.004216499 s</td>" TD RP_TEST_DASH "</td></tr>"};
#undef TD
    char *page = page_of(&rp, in);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(page, want[i])) fail_msg("not on the page: %s", want[i]);
    assert_null(strstr(page, "No least-squares fit"));
    free(page);
    rp.fit_mode->group[0].fit.converged = 1;
    page = page_of(&rp, in);
    assert_non_null(strstr(page, "of squares 0.000016 s\xC2\xB2.</p>"));
    free(page);
    /* no fit: mw fit's reason */
    mw_escobar_study_free(rp.fit_mode);
    rp.fit_mode = NULL;
    snprintf(rp.fit_mode_note, sizeof rp.fit_mode_note, "mw fit: v3: 2 runs for 3 <parameters>");
    page = page_of(&rp, in);
    assert_non_null(strstr(page, "<h3>Fitted time parameters</h3>\n<p class=\"note\">No "
                                 "least-squares fit: mw fit: v3: 2 runs for 3 &lt;parameters&gt;"
                                 "</p>\n</section>"));
    free(page);
    rp_report_free(&rp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_numbers),  cmocka_unit_test(rounding),
        cmocka_unit_test(fit_numbers),   cmocka_unit_test(refusals),
        cmocka_unit_test(no_samples),    cmocka_unit_test(one_run),
        cmocka_unit_test(model_refused), cmocka_unit_test(model_section),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
