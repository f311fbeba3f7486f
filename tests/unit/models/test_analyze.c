/* mw analyze (collector/cmd_analyze.c) and the energy integrals under it (models/energy.c),
 * against answers known by construction.
 *
 * The energy library: windows of 0.25 s at 100 W hold 250 J; spans cutting windows in half
 * get half a window; consecutive spans with boundaries anywhere add up to the whole exactly
 * (integer picojoules); the meter's counter over a range; the working-window labels.
 *
 * The command, on runs built with the mw_store API. "run1" (start S, 20 windows of 0.25 s
 * from S to S + 5 s, counter consistent with the windows):
 *   node0 @n0   80 W (0-1 s), 200 W (1-2.5 s), 240 W (2.5-4 s), 80 W (4-5 s): 820 J
 *   node1 @n1   60 W, 120 W from 1 to 3 s: 420 J
 *   switch      10 W throughout (constant: one level, a one-line note): 50 J
 *   phases      mw idle-before [0, 1), command [1, 4), idle-after [4, 5);
 *               rank 0 @n0 user init [1, 1.6), solve [1.6, 3.1), finish [3.1, 4): on
 *               node0 120 + 324 + 216 = 660 J = the energy of [1, 4), cut mid-window at
 *               1.6 s and 3.1 s; rank 1 @n1 user solve [1, 2) (120 J on node1), wait
 *               MPI_Barrier [2, 3)
 *   idle power  the idle phases: node0 80 W, node1 60 W, switch 10 W; dynamic energy =
 *               820 - 80 x 5 = 420 J, 420 - 60 x 5 = 120 J, 0 J
 * "run1b" is run1 with node0's working power 20 W higher (880 J): across the two runs,
 * node0's energy is 850 +- 42.426407 J (sample sd = sqrt(1800)).
 * "meter": the export test's run, 10 windows of 100 W with one lost between them that the
 * meter's counter still counts: 250 J by windows, 275 J by the meter, -25 J = -9.0909 %.
 * "nohost": channels without hosts, so each measures every rank.
 * The power levels come from models/levels.c, tested on its own: here only their place in
 * the output and the labels of the phase split (node0: 12 working windows, 8 idle). */
#include "../unit.h"

#include <ctype.h>

#include "../capture.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "energy.h"
#include "mw_store.h"

#define S_NS 1700000000000000000LL
#define MS 1000000LL /* ns */

static char tmpdir[64], run1[128], run1b[128], meter[128], nohost[128];
static char out[512 * 1024], err[64 * 1024];

/* ---- the energy library ------------------------------------------------------------ */

static void ten_windows(mw_energy_window *w, int32_t p_mw)
{
    for (int k = 0; k < 10; k++)
        w[k] = (mw_energy_window){S_NS + 250 * MS * k, S_NS + 250 * MS * (k + 1), p_mw};
}

static void energy_of_windows(void **state)
{
    mw_energy_window w[10];
    ten_windows(w, 100000);
    mw_energy_trace t;
    char e[256];
    assert_int_equal(mw_energy_trace_init(&t, w, 10, e, sizeof e), 0);
    /* whole trace: 100 W x 2.5 s = 250 J, from any span covering it */
    assert_true(mw_energy_span_pj(&t, INT64_MIN, INT64_MAX) == (mw_energy_pj)250000000000000);
    assert_true(mw_energy_span_pj(&t, S_NS - 1000 * MS, S_NS + 9000 * MS) ==
                (mw_energy_pj)250000000000000);
    assert_int_equal(mw_energy_span_covered_ns(&t, INT64_MIN, INT64_MAX), 2500 * MS);
    assert_true(mw_energy_j(mw_energy_span_pj(&t, INT64_MIN, INT64_MAX)) == 250.0);
    /* half of window 0 and half of window 1: 0.25 s = 25 J */
    assert_true(mw_energy_span_pj(&t, S_NS + 125 * MS, S_NS + 375 * MS) ==
                (mw_energy_pj)25000000000000);
    /* inside one window: 1 ns = 100 mW x 1 ns = 100,000 pJ */
    assert_true(mw_energy_span_pj(&t, S_NS + 7, S_NS + 8) == 100000);
    assert_true(mw_energy_span_pj(&t, S_NS + 8, S_NS + 8) == 0);
    assert_true(mw_energy_span_pj(&t, S_NS + 9, S_NS + 8) == 0);
    /* before and after the trace: nothing */
    assert_true(mw_energy_span_pj(&t, 0, S_NS) == 0);
    assert_true(mw_energy_span_pj(&t, S_NS + 2500 * MS, INT64_MAX) == 0);
    size_t i0, i1;
    mw_energy_window_range(&t, S_NS + 250 * MS, S_NS + 750 * MS, &i0, &i1);
    assert_int_equal(i0, 1);
    assert_int_equal(i1, 3);
    mw_energy_window_range(&t, S_NS + 251 * MS, S_NS + 751 * MS, &i0, &i1);
    assert_int_equal(i0, 1);
    assert_int_equal(i1, 4);
    assert_int_equal(mw_energy_mean_power_mw(mw_energy_span_pj(&t, INT64_MIN, INT64_MAX),
                                             mw_energy_span_covered_ns(&t, INT64_MIN, INT64_MAX)),
                     100000);
    /* dynamic energy: 250 J - 80 W x 2.5 s = 50 J */
    assert_true(mw_energy_dynamic_j(mw_energy_span_pj(&t, INT64_MIN, INT64_MAX), 80.0, 2500 * MS) ==
                50.0);
    mw_energy_trace_free(&t);
}

/* Consecutive spans of one rank, with boundaries at odd instants inside windows of uneven
 * power and length, add up exactly to their whole; so does the energy of the holes. */
static void consecutive_spans_add_up(void **state)
{
    enum { N = 1000 };
    static mw_energy_window w[N];
    int64_t t = S_NS;
    unsigned x = 12345;
    for (int k = 0; k < N; k++) {
        x = x * 1103515245u + 12345u;
        int64_t len = 240 * MS + (int64_t)(x % 20000000u);
        /* every 50th window leaves a hole of 0.3 s; some overlap the previous by 2 us */
        int64_t t0 = k % 50 == 49 ? t + 300 * MS : k % 7 == 3 ? t - 2000 : t;
        w[k] = (mw_energy_window){t0, t0 + len, (int32_t)(50000 + x % 250000)};
        t = t0 + len;
    }
    mw_energy_trace tr;
    char e[256];
    assert_int_equal(mw_energy_trace_init(&tr, w, N, e, sizeof e), 0);
    mw_energy_pj sum = 0, whole = mw_energy_span_pj(&tr, S_NS + 333, t - 777);
    int64_t a = S_NS + 333, cov = 0;
    while (a < t - 777) {
        x = x * 1103515245u + 12345u;
        int64_t b = a + 1 + (int64_t)(x % 700000000u);
        if (b > t - 777) b = t - 777;
        sum += mw_energy_span_pj(&tr, a, b);
        cov += mw_energy_span_covered_ns(&tr, a, b);
        a = b;
    }
    assert_true(sum == whole);
    assert_int_equal(cov, mw_energy_span_covered_ns(&tr, S_NS + 333, t - 777));
    /* the same through spans: union of overlapping pieces counts each instant once */
    mw_energy_span sp[] = {{S_NS + 1000 * MS, S_NS + 2000 * MS},
                           {S_NS + 1500 * MS, S_NS + 2500 * MS},
                           {S_NS + 2500 * MS, S_NS + 2600 * MS},
                           {S_NS + 100 * MS, S_NS + 200 * MS},
                           {S_NS + 50 * MS, S_NS + 50 * MS}};
    size_t n = mw_energy_spans_union(sp, 5);
    assert_int_equal(n, 2);
    assert_int_equal(sp[0].start_ns, S_NS + 100 * MS);
    assert_int_equal(sp[1].end_ns, S_NS + 2600 * MS);
    assert_int_equal(mw_energy_spans_length_ns(sp, n), 1700 * MS);
    mw_energy_pj pj;
    mw_energy_spans_sum(&tr, sp, n, &pj, NULL);
    assert_true(pj == mw_energy_span_pj(&tr, S_NS + 100 * MS, S_NS + 200 * MS) +
                          mw_energy_span_pj(&tr, S_NS + 1000 * MS, S_NS + 2600 * MS));
    n = mw_energy_spans_clip(sp, n, S_NS + 150 * MS, S_NS + 1200 * MS);
    assert_int_equal(n, 2);
    assert_int_equal(mw_energy_spans_length_ns(sp, n), 250 * MS);
    mw_energy_trace_free(&tr);
}

static void trace_order_and_errors(void **state)
{
    mw_energy_window w[10];
    ten_windows(w, 100000);
    mw_energy_window r[10];
    for (int k = 0; k < 10; k++)
        r[k] = w[(k * 3) % 10]; /* shuffled: sorted by the trace */
    mw_energy_trace t;
    char e[256];
    assert_int_equal(mw_energy_trace_init(&t, r, 10, e, sizeof e), 0);
    assert_int_equal(r[0].t0_ns, S_NS);
    assert_int_equal(r[9].t1_ns, S_NS + 2500 * MS);
    mw_energy_trace_free(&t);
    /* a window inside another */
    w[4] = (mw_energy_window){S_NS + 500 * MS, S_NS + 1300 * MS, 1};
    assert_int_equal(mw_energy_trace_init(&t, w, 10, e, sizeof e), -1);
    assert_non_null(strstr(e, "lies inside"));
    /* a window ending before it starts */
    ten_windows(w, 100000);
    w[2].t1_ns = w[2].t0_ns - 1;
    assert_int_equal(mw_energy_trace_init(&t, w, 10, e, sizeof e), -1);
    assert_non_null(strstr(e, "ends before it starts"));
    /* empty */
    assert_int_equal(mw_energy_trace_init(&t, w, 0, e, sizeof e), 0);
    assert_true(mw_energy_span_pj(&t, INT64_MIN, INT64_MAX) == 0);
    mw_energy_trace_free(&t);
}

static void meter_counter(void **state)
{
    /* windows 0 and 1 of 80 W, counter 20 J then 40 J: over [0.125, 0.375) s, 20 J */
    mw_energy_counter c = {
        .first = {S_NS, S_NS + 250 * MS, 80000},
        .last = {S_NS + 250 * MS, S_NS + 500 * MS, 80000},
        .first_energy_mj = 20000,
        .last_energy_mj = 40000,
        .first_meter_us = 250000,
    };
    assert_true(mw_energy_meter_pj(&c, S_NS + 125 * MS, S_NS + 375 * MS) ==
                (mw_energy_pj)20000000000000);
    assert_true(mw_energy_meter_pj(&c, INT64_MIN, INT64_MAX) == (mw_energy_pj)40000000000000);
    /* one window, range inside it */
    c.last = c.first;
    c.last_energy_mj = c.first_energy_mj;
    assert_true(mw_energy_meter_pj(&c, S_NS + 100 * MS, S_NS + 150 * MS) ==
                (mw_energy_pj)4000000000000);
}

static void working_labels(void **state)
{
    mw_energy_window w[10];
    ten_windows(w, 100000);
    mw_energy_trace t;
    char e[256];
    assert_int_equal(mw_energy_trace_init(&t, w, 10, e, sizeof e), 0);
    /* window 0: exactly half covered (idle); 1: half + 1 ns (working); 2-3: covered by
     * pieces of two spans; 4-9: nothing */
    mw_energy_span sp[] = {{S_NS + 125 * MS, S_NS + 250 * MS},
                           {S_NS + 375 * MS - 1, S_NS + 600 * MS},
                           {S_NS + 650 * MS, S_NS + 1000 * MS}};
    unsigned char lab[10];
    assert_int_equal(mw_energy_label_windows(&t, 0, 10, sp, 3, lab), 3);
    unsigned char want[10] = {0, 1, 1, 1, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(lab, want, 10);
    assert_int_equal(mw_energy_label_windows(&t, 2, 4, sp, 3, lab), 2);
    mw_energy_trace_free(&t);
}

/* ---- runs ------------------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void window(mw_store *s, int ch, uint32_t seq, int64_t t0, int64_t t1, int32_t p_mw,
                   int64_t energy_mj)
{
    mw_store_sample x = {
        .channel = ch,
        .seq = seq,
        .meter_t0_us = 1000000 + (uint64_t)(t0 - S_NS) / 1000,
        .meter_t1_us = 1000000 + (uint64_t)(t1 - S_NS) / 1000,
        .t0_ns = t0,
        .t1_ns = t1,
        .uncertainty_ns = 50000,
        .power_mw = p_mw,
        .vrms_mv = 230000,
        .irms_ua = 100000,
        .pf_milli = 1000,
        .meter_energy_mj = 5000000 + energy_mj,
        .energy_mj = energy_mj,
    };
    if (mw_store_sample_add(s, &x)) fail_msg("%s", mw_store_error(s));
}

static void phase(mw_store *s, int rank, const char *host, const char *kind, const char *name,
                  int64_t a_ms, int64_t b_ms)
{
    mw_store_phase p = {rank, host, 0, kind, name, S_NS + a_ms * MS, S_NS + b_ms * MS, 0, 0, -1};
    assert_int_equal(mw_store_phase_add(s, &p), 0);
}

static mw_store *new_run(const char *dir)
{
    char e[512];
    mw_store *s = mw_store_create(dir, 0, e, sizeof e);
    if (!s) fail_msg("%s", e);
    assert_int_equal(mw_store_meta_set(s, "start_ns", "1700000000000000000"), 0);
    assert_int_equal(mw_store_meta_set(s, "status", "complete"), 0);
    return s;
}

/* run1 (extra = 0) and run1b (extra = 20 W on node0 while working) */
static void make_run1(const char *dir, int32_t extra_mw)
{
    mw_store *s = new_run(dir);
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "node1", "n1", "A2"), 0);
    assert_int_equal(mw_store_channel_add(s, 3, "switch", NULL, "A3"), 0);
    int64_t e[4] = {0};
    for (uint32_t k = 0; k < 20; k++) {
        int32_t p[4] = {0, 80000, 60000, 10000};
        if (k >= 4 && k < 10) p[1] = 200000 + extra_mw;
        if (k >= 10 && k < 16) p[1] = 240000 + extra_mw;
        if (k >= 4 && k < 12) p[2] = 120000;
        for (int c = 1; c <= 3; c++) {
            e[c] += p[c] / 4; /* mW x 0.25 s = mJ */
            window(s, c, k, S_NS + 250 * MS * k, S_NS + 250 * MS * (k + 1), p[c], e[c]);
        }
    }
    phase(s, -1, "rec", "mw", "idle-before", 0, 1000);
    phase(s, -1, "rec", "mw", "command", 1000, 4000);
    phase(s, -1, "rec", "mw", "idle-after", 4000, 5000);
    phase(s, 0, "n0", "user", "init", 1000, 1600);
    phase(s, 0, "n0", "user", "solve", 1600, 3100);
    phase(s, 0, "n0", "user", "finish", 3100, 4000);
    phase(s, 1, "n1", "user", "solve", 1000, 2000);
    phase(s, 1, "n1", "wait", "MPI_Barrier", 2000, 3000);
    /* the program's own waiting phase: not work (work_s stays 1 s, the split's labels too) */
    phase(s, 1, "n1", "user", "Wait for data", 2000, 3000);
    phase(s, 1, "n1", "mark", "checkpoint", 2500, 2500);
    mw_store_close(s);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-analyze-XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    snprintf(run1, sizeof run1, "%s/run1", tmpdir);
    snprintf(run1b, sizeof run1b, "%s/run1b", tmpdir);
    snprintf(meter, sizeof meter, "%s/meter", tmpdir);
    snprintf(nohost, sizeof nohost, "%s/nohost", tmpdir);
    make_run1(run1, 0);
    make_run1(run1b, 20000);

    mw_store *s = new_run(meter);
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    for (uint32_t q = 0; q <= 10; q++)
        if (q != 4)
            window(s, 1, q, S_NS + 500 * MS + 250 * MS * q, S_NS + 750 * MS + 250 * MS * q, 100000,
                   25000 * (q + 1));
    mw_store_close(s);

    s = new_run(nohost);
    assert_int_equal(mw_store_channel_add(s, 1, "psu0", NULL, "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "psu1", NULL, "A2"), 0);
    for (uint32_t k = 0; k < 8; k++) {
        window(s, 1, k, S_NS + 250 * MS * k, S_NS + 250 * MS * (k + 1), k < 4 ? 100000 : 300000, 0);
        window(s, 2, k, S_NS + 250 * MS * k, S_NS + 250 * MS * (k + 1), k < 4 ? 50000 : 70000, 0);
    }
    phase(s, 0, "a", "compute", "step", 1000, 2000);
    phase(s, 1, "b", "compute", "step", 1000, 1500);
    mw_store_close(s);
    return 0;
}

static int teardown(void **state)
{
    return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Run mw with stdout into out and stderr into err. */
static int run_mw(char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return mw_run_captured2(out, sizeof out, err, sizeof err, argc, argv);
}

/* the text must be in out */
static void has(const char *text)
{
    if (!strstr(out, text)) fail_msg("'%s' not in:\n%s", text, out);
}

/* the text between `from` and the next `to` of out, in a static buffer */
static const char *slice(const char *from, const char *to)
{
    static char buf[16384];
    const char *a = strstr(out, from);
    if (!a) fail_msg("'%s' not in:\n%s", from, out);
    const char *b = strstr(a + strlen(from), to);
    size_t n = b ? (size_t)(b - a) : strlen(a);
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, a, n);
    buf[n] = 0;
    return buf;
}

static void in_slice(const char *sl, const char *text)
{
    if (!strstr(sl, text)) fail_msg("'%s' not in:\n%s", text, sl);
}

/* a word "nan", "inf" or "infinity" (not part of one such as "inferred") */
static void no_nan(void)
{
    for (const char *p = out; *p; p++) {
        if (p > out && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
        size_t n = !strncasecmp(p, "nan", 3) ? 3 : !strncasecmp(p, "infinity", 8) ? 8
                   : !strncasecmp(p, "inf", 3)                                    ? 3
                                                                                  : 0;
        if (n && !isalnum((unsigned char)p[n]) && p[n] != '_')
            fail_msg("NaN or inf in output:\n%s", out);
    }
}

/* Every key of docs/analysis.md is there; channel figures are exact. */
static void json_run1(void **state)
{
    assert_int_equal(run_mw((char *[]){"mw", "analyze", run1, "--json", NULL}), 0);
    no_nan();
    /* the constant switch: a one-line note on stderr, no error */
    assert_non_null(strstr(err, "channel switch: constant power 10.000 W in all 20 windows"));
    assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);
    const char *keys[] = {"\"version\": 1",
                          "\"runs\": [",
                          "\"run\": ",
                          "\"status\": \"complete\"",
                          "\"start_ns\": 1700000000000000000",
                          "\"from_s\": 0.000000",
                          "\"to_s\": 5.000000",
                          "\"duration_s\": 5.000000",
                          "\"channels\": [",
                          "\"channel\": 1",
                          "\"name\": \"node0\"",
                          "\"host\": \"n0\"",
                          "\"host\": null",
                          "\"meter_host\": null", /* its one meter, no host recorded */
                          "\"windows\": 20",
                          "\"covered_s\": ",
                          "\"energy_j\": ",
                          "\"meter_energy_j\": ",
                          "\"meter_difference_j\": ",
                          "\"meter_difference_pct\": ",
                          "\"mean_power_w\": ",
                          "\"idle_power_w\": ",
                          "\"idle_power_source\": \"idle phases\"",
                          "\"dynamic_energy_j\": ",
                          "\"pow_idle_w\": ",
                          "\"pow_work_w\": ",
                          "\"bimodal\": ",
                          "\"kde\": {",
                          "\"bandwidth_w\": ",
                          "\"bins\": ",
                          "\"gmm\": {",
                          "\"idle_sd_w\": ",
                          "\"work_sd_w\": ",
                          "\"idle_weight\": ",
                          "\"split\": {",
                          "\"working_windows\": ",
                          "\"idle_windows\": ",
                          "\"note\": ",
                          "\"phases\": [",
                          "\"kind\": \"user\"",
                          "\"intervals\": ",
                          "\"ranks\": [",
                          "\"rank\": 0",
                          "\"work_s\": ",
                          "\"work_inferred_s\": ",
                          "\"work_energy_j\": ",
                          "\"start_s\": ",
                          "\"end_s\": ",
                          "\"aggregate\": {\"runs\": 1",
                          "\"mean\": ",
                          "\"sd\": null",
                          "\"n\": 1"};
    for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++)
        has(keys[i]);

    /* who measures whom: node0 rank 0, node1 rank 1, the switch (no host) both */
    has("\"name\": \"node0\", \"host\": \"n0\", \"ranks\": [0],");
    has("\"name\": \"node1\", \"host\": \"n1\", \"ranks\": [1],");
    has("\"name\": \"switch\", \"host\": null, \"ranks\": [0, 1],");
    const char *n0 = slice("\"name\": \"node0\", \"host\"", "\"split\"");
    in_slice(n0, "\"windows\": 20, \"covered_s\": 5.000000, \"energy_j\": 820.000000, "
                 "\"meter_energy_j\": 820.000000, \"meter_difference_j\": 0.000000, "
                 "\"meter_difference_pct\": 0.0000");
    in_slice(n0, "\"mean_power_w\": 164.000, \"idle_power_w\": 80.000000, "
                 "\"idle_power_source\": \"idle phases\", \"dynamic_energy_j\": 420.000000");
    const char *n1 = slice("\"name\": \"node1\", \"host\"", "\"split\"");
    in_slice(n1, "\"energy_j\": 420.000000");
    in_slice(n1, "\"idle_power_w\": 60.000000");
    in_slice(n1, "\"dynamic_energy_j\": 120.000000");
    const char *sw = slice("\"name\": \"switch\", \"host\"", "\"split\"");
    in_slice(sw, "\"energy_j\": 50.000000");
    in_slice(sw, "\"dynamic_energy_j\": 0.000000");
    /* constant: one level at 10 W by both density methods */
    in_slice(sw, "\"pow_idle_w\": 10.000, \"pow_work_w\": 10.000, \"bimodal\": false");
    in_slice(sw, "\"gmm\": {\"pow_idle_w\": 10.000, \"pow_work_w\": 10.000, \"bimodal\": false");
    /* the split's labels: node0 works from 1 to 4 s, node1 from 1 to 2 s, the switch sees
     * every rank */
    in_slice(slice("\"name\": \"node0\", \"host\"", "\"phases\""),
             "\"working_windows\": 12, \"idle_windows\": 8");
    in_slice(slice("\"name\": \"node1\", \"host\"", "\"phases\""),
             "\"working_windows\": 4, \"idle_windows\": 16");
    in_slice(slice("\"name\": \"switch\", \"host\"", "\"phases\""),
             "\"working_windows\": 12, \"idle_windows\": 8");

    /* phases: consecutive phases of rank 0 add up to [1, 4) on node0: 120 + 324 + 216 */
    in_slice(slice("\"name\": \"init\"", "]}"),
             "{\"name\": \"node0\", \"duration_s\": 0.600000, \"covered_s\": 0.600000, "
             "\"energy_j\": 120.000000, \"mean_power_w\": 200.000, \"dynamic_energy_j\": "
             "72.000000}");
    const char *solve = slice("\"name\": \"solve\"", "]}");
    in_slice(solve, "\"intervals\": 2, \"duration_s\": 2.100000");
    in_slice(solve, "{\"name\": \"node0\", \"duration_s\": 1.500000, \"covered_s\": 1.500000, "
                    "\"energy_j\": 324.000000, \"mean_power_w\": 216.000");
    in_slice(solve, "{\"name\": \"node1\", \"duration_s\": 1.000000, \"covered_s\": 1.000000, "
                    "\"energy_j\": 120.000000, \"mean_power_w\": 120.000, "
                    "\"dynamic_energy_j\": 60.000000}");
    in_slice(solve, "{\"name\": \"switch\", \"duration_s\": 2.100000, \"covered_s\": 2.100000, "
                    "\"energy_j\": 21.000000");
    in_slice(slice("\"name\": \"finish\"", "]}"),
             "{\"name\": \"node0\", \"duration_s\": 0.900000, \"covered_s\": 0.900000, "
             "\"energy_j\": 216.000000");
    /* the recorder's phases cover every channel */
    const char *cmd = slice("\"kind\": \"mw\", \"name\": \"command\"", "]}");
    in_slice(cmd, "\"duration_s\": 3.000000");
    in_slice(cmd, "{\"name\": \"node0\", \"duration_s\": 3.000000, \"covered_s\": 3.000000, "
                  "\"energy_j\": 660.000000");
    in_slice(cmd, "{\"name\": \"node1\", \"duration_s\": 3.000000, \"covered_s\": 3.000000, "
                  "\"energy_j\": 300.000000");
    in_slice(cmd, "{\"name\": \"switch\", \"duration_s\": 3.000000, \"covered_s\": 3.000000, "
                  "\"energy_j\": 30.000000");
    /* wait phases are phases too; marks (instants) are not */
    in_slice(slice("\"name\": \"MPI_Barrier\"", "]}"),
             "{\"name\": \"node1\", \"duration_s\": 1.000000, \"covered_s\": 1.000000, "
             "\"energy_j\": 120.000000");
    assert_null(strstr(out, "checkpoint"));

    /* ranks on their nodes */
    assert_non_null(strstr(out, "{\"rank\": 0, \"host\": \"n0\", \"channels\": [\"node0\"], "
                                "\"start_s\": 1.000000, \"end_s\": 4.000000, \"duration_s\": "
                                "3.000000, \"energy_j\": 660.000000, \"work_s\": 3.000000, "
                                "\"work_inferred_s\": 0.000000, \"work_energy_j\": 660.000000}"));
    assert_non_null(strstr(out, "{\"rank\": 1, \"host\": \"n1\", \"channels\": [\"node1\"], "
                                "\"start_s\": 1.000000, \"end_s\": 3.000000, \"duration_s\": "
                                "2.000000, \"energy_j\": 240.000000, \"work_s\": 1.000000, "
                                "\"work_inferred_s\": 0.000000, \"work_energy_j\": 120.000000}"));
    /* the aggregate of one run */
    in_slice(slice("\"aggregate\"", "\"name\": \"node1\""),
             "\"energy_j\": {\"n\": 1, \"mean\": 820.000000, \"sd\": null}");
}

/* --from/--to cut windows; phases are clipped to the range. */
static void time_ranges(void **state)
{
    assert_int_equal(run_mw((char *[]){"mw", "analyze", "--json", run1, "--from", "0.125", "--to",
                                       "0.375", NULL}),
                     0);
    const char *n0 = slice("\"name\": \"node0\", \"host\"", "\"kde\"");
    /* half of window 0 and half of window 1 at 80 W: 20 J; the meter's counter less the
     * halves outside: 20 J */
    in_slice(n0, "\"windows\": 2, \"covered_s\": 0.250000, \"energy_j\": 20.000000, "
                 "\"meter_energy_j\": 20.000000, \"meter_difference_j\": 0.000000");
    has("\"from_s\": 0.125000, \"to_s\": 0.375000, \"duration_s\": 0.250000");
    /* the idle baseline is the run's, whatever the range */
    in_slice(n0, "\"idle_power_w\": 80.000000");
    in_slice(n0, "\"dynamic_energy_j\": 0.000000");

    assert_int_equal(
        run_mw((char *[]){"mw", "analyze", "--json", run1, "--from", "1.6", "--to", "3.1", NULL}),
        0);
    in_slice(slice("\"name\": \"node0\", \"host\"", "\"kde\""), "\"energy_j\": 324.000000");
    const char *init = slice("\"name\": \"init\"", "}");
    in_slice(init, "\"duration_s\": 0.000000, \"channels\": []");
    in_slice(slice("\"name\": \"solve\"", "]}"),
             "{\"name\": \"node0\", \"duration_s\": 1.500000, \"covered_s\": 1.500000, "
             "\"energy_j\": 324.000000");
    assert_non_null(strstr(out, "\"rank\": 0, \"host\": \"n0\", \"channels\": [\"node0\"], "
                                "\"start_s\": 1.600000, \"end_s\": 3.100000, \"duration_s\": "
                                "1.500000, \"energy_j\": 324.000000"));
    /* open-ended ranges */
    assert_int_equal(run_mw((char *[]){"mw", "analyze", "--json", run1, "--from", "4", NULL}), 0);
    in_slice(slice("\"name\": \"node0\", \"host\"", "\"kde\""), "\"energy_j\": 80.000000");
    assert_int_equal(run_mw((char *[]){"mw", "analyze", "--json", run1, "--to", "1", NULL}), 0);
    in_slice(slice("\"name\": \"node0\", \"host\"", "\"kde\""), "\"energy_j\": 80.000000");
}

/* The meter's counter counts a lost window: 275 J against 250 J. */
static void meter_difference(void **state)
{
    assert_int_equal(run_mw((char *[]){"mw", "analyze", meter, "--json", NULL}), 0);
    no_nan();
    has("\"windows\": 10, \"covered_s\": 2.500000, \"energy_j\": 250.000000, "
        "\"meter_energy_j\": 275.000000, \"meter_difference_j\": -25.000000, "
        "\"meter_difference_pct\": -9.0909");
    has("\"mean_power_w\": 100.000, \"idle_power_w\": null, \"idle_power_source\": null, "
        "\"dynamic_energy_j\": null");
    has("\"split\": null");
    has("\"phases\": [],\n   \"ranks\": [],\n   \"inband\": null}");
    has("\"from_s\": 0.500000, \"to_s\": 3.250000, \"duration_s\": 2.750000");
    /* with an idle power given */
    assert_int_equal(
        run_mw((char *[]){"mw", "analyze", meter, "--json", "--idle-power", "40", NULL}), 0);
    has("\"idle_power_w\": 40.000000, \"idle_power_source\": \"--idle-power\", "
        "\"dynamic_energy_j\": 150.000000");
    /* text: units on every figure */
    assert_int_equal(run_mw((char *[]){"mw", "analyze", meter, NULL}), 0);
    has("250.000 J");
    has("275.000 J");
    has("-25.000 J (-9.091 %)");
    has("100.000 W");
    no_nan();
}

static void idle_power_option(void **state)
{
    assert_int_equal(
        run_mw((char *[]){"mw", "analyze", run1, "--json", "--idle-power", "node1=40", NULL}), 0);
    /* node1 from the option, node0 from the idle phases */
    in_slice(slice("\"name\": \"node1\", \"host\"", "\"kde\""),
             "\"idle_power_w\": 40.000000, \"idle_power_source\": \"--idle-power\", "
             "\"dynamic_energy_j\": 220.000000");
    in_slice(slice("\"name\": \"node0\", \"host\"", "\"kde\""),
             "\"idle_power_source\": \"idle phases\", \"dynamic_energy_j\": 420.000000");
    assert_int_equal(run_mw((char *[]){"mw", "analyze", run1, "--json", "--idle-power", "50",
                                       "--idle-power", "switch=10", NULL}),
                     0);
    in_slice(slice("\"name\": \"node0\", \"host\"", "\"kde\""), "\"dynamic_energy_j\": 570.000000");
    in_slice(slice("\"name\": \"switch\", \"host\"", "\"kde\""),
             "\"idle_power_w\": 10.000000, \"idle_power_source\": \"--idle-power\", "
             "\"dynamic_energy_j\": 0.000000");
}

/* Channels without a host each measure every rank; ranks map to all of them. */
static void ranks_without_hosts(void **state)
{
    assert_int_equal(run_mw((char *[]){"mw", "analyze", nohost, "--json", NULL}), 0);
    /* psu0: 100 W then 300 W from 1 s: [1, 2) holds 300 J; rank 1's [1, 1.5): 150 J */
    has("{\"rank\": 0, \"host\": \"a\", \"channels\": [\"psu0\", \"psu1\"], \"start_s\": "
        "1.000000, \"end_s\": 2.000000, \"duration_s\": 1.000000, \"energy_j\": 370.000000");
    has("{\"rank\": 1, \"host\": \"b\", \"channels\": [\"psu0\", \"psu1\"], \"start_s\": "
        "1.000000, \"end_s\": 1.500000, \"duration_s\": 0.500000, \"energy_j\": 185.000000");
    const char *step = slice("\"name\": \"step\"", "]}");
    in_slice(step, "{\"name\": \"psu0\", \"duration_s\": 1.000000, \"covered_s\": 1.000000, "
                   "\"energy_j\": 300.000000");
    in_slice(step, "{\"name\": \"psu1\", \"duration_s\": 1.000000, \"covered_s\": 1.000000, "
                   "\"energy_j\": 70.000000");
    in_slice(slice("\"name\": \"psu0\", \"host\"", "\"phases\""),
             "\"working_windows\": 4, \"idle_windows\": 4");
}

/* Two runs: each, then mean +- sd per channel name. */
static void across_runs(void **state)
{
    assert_int_equal(run_mw((char *[]){"mw", "analyze", "--json", run1, run1b, NULL}), 0);
    no_nan();
    const char *agg = slice("\"aggregate\"", "\"name\": \"node1\"");
    in_slice(agg, "{\"runs\": 2, \"channels\": [");
    in_slice(agg, "\"name\": \"node0\", \"runs\": 2");
    in_slice(agg, "\"energy_j\": {\"n\": 2, \"mean\": 850.000000, \"sd\": 42.426407}");
    in_slice(agg, "\"meter_energy_j\": {\"n\": 2, \"mean\": 850.000000, \"sd\": 42.426407}");
    in_slice(agg, "\"dynamic_energy_j\": {\"n\": 2, \"mean\": 450.000000, \"sd\": 42.426407}");
    in_slice(agg, "\"gmm\": {\"pow_idle_w\": {\"n\": 2, ");
    in_slice(agg, "\"split\": {\"pow_idle_w\": {\"n\": 2, ");
    in_slice(slice("\"name\": \"node1\", \"runs\": 2", "}}"),
             "\"energy_j\": {\"n\": 2, \"mean\": 420.000000, \"sd\": 0.000000}");
    /* text: both runs, then the table */
    assert_int_equal(run_mw((char *[]){"mw", "analyze", run1, run1b, NULL}), 0);
    no_nan();
    char want[256];
    snprintf(want, sizeof want, "run %s (complete): 0.000 s to 5.000 s since the start, 5.000 s",
             run1b);
    has(want);
    has("across 2 runs: mean ± sd");
    has("850.000 ± 42.426 J");
    has("164.000 W");
    has("820.000 J");
    has("880.000 J");
    has("solve");
}

static void text_report(void **state)
{
    assert_int_equal(run_mw((char *[]){"mw", "analyze", run1, NULL}), 0);
    no_nan();
    has("\nenergy\n");
    has("820.000 J");
    has("0.000 J (0.000 %)");
    has("80.000 W");
    has("idle phases");
    has("420.000 J");
    has("\npower levels");
    has("\nphases");
    has("324.000 J");
    has("216.000 W");
    has("\nranks");
    has("660.000 J");
    assert_null(strstr(out, "across"));
    assert_non_null(strstr(err, "constant power 10.000 W"));
}

/* Unusable input: one line, exit 2, nothing on stdout. */
static void expect_error(const char *needle, char **argv)
{
    int rc = run_mw(argv);
    if (rc != 2 || !strstr(err, needle) || out[0])
        fail_msg("exit %d (want 2), stderr '%s' (want '%s'), stdout '%s'", rc, err, needle, out);
    if (strchr(err, '\n') != err + strlen(err) - 1) fail_msg("not one line: '%s'", err);
}

static void errors(void **state)
{
    char dir[200], db[260];
    expect_error("missing RUNDIR", (char *[]){"mw", "analyze", NULL});
    expect_error("not a run", (char *[]){"mw", "analyze", tmpdir, NULL});
    expect_error("/nonexistent/run: not a run",
                 (char *[]){"mw", "analyze", "/nonexistent/run", NULL});
    /* one bad run among good ones: nothing printed */
    expect_error("not a run", (char *[]){"mw", "analyze", tmpdir, run1, NULL});
    /* a trace.db that is no database */
    snprintf(dir, sizeof dir, "%s/garbage", tmpdir);
    assert_int_equal(mkdir(dir, 0777), 0);
    snprintf(db, sizeof db, "%s/trace.db", dir);
    FILE *f = fopen(db, "w");
    assert_non_null(f);
    fputs("this is not a database, just text that is long enough to look like a header....\n", f);
    fclose(f);
    expect_error(dir, (char *[]){"mw", "analyze", dir, NULL});
    /* a run with no samples (with and without start_ns) */
    snprintf(dir, sizeof dir, "%s/empty", tmpdir);
    mw_store *s = new_run(dir);
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    mw_store_close(s);
    expect_error("no samples", (char *[]){"mw", "analyze", dir, NULL});
    snprintf(dir, sizeof dir, "%s/bare", tmpdir);
    char e[512];
    s = mw_store_create(dir, 0, e, sizeof e);
    assert_non_null(s);
    mw_store_close(s);
    expect_error("no samples", (char *[]){"mw", "analyze", dir, NULL});
    /* windows that are not one time series */
    snprintf(dir, sizeof dir, "%s/nested", tmpdir);
    s = new_run(dir);
    window(s, 1, 0, S_NS, S_NS + 1000 * MS, 1000, 1);
    window(s, 1, 1, S_NS + 200 * MS, S_NS + 300 * MS, 1000, 2);
    mw_store_close(s);
    expect_error("lies inside", (char *[]){"mw", "analyze", dir, NULL});
    /* ranges */
    expect_error("--from 3 is not before --to 1",
                 (char *[]){"mw", "analyze", run1, "--from", "3", "--to", "1", NULL});
    expect_error("--from 2 is not before --to 2",
                 (char *[]){"mw", "analyze", run1, "--from", "2", "--to", "2", NULL});
    expect_error("no samples between 100 s and the end",
                 (char *[]){"mw", "analyze", run1, "--from", "100", NULL});
    expect_error("no samples between the start and -3 s",
                 (char *[]){"mw", "analyze", run1, "--to", "-3", NULL});
    expect_error("--from: 'x'", (char *[]){"mw", "analyze", run1, "--from", "x", NULL});
    expect_error("--to: 'nan'", (char *[]){"mw", "analyze", run1, "--to", "nan", NULL});
    expect_error("--to", (char *[]){"mw", "analyze", run1, "--to", NULL});
    expect_error("--idle-power: '-5'",
                 (char *[]){"mw", "analyze", run1, "--idle-power", "-5", NULL});
    expect_error("--idle-power: 'node0=w'",
                 (char *[]){"mw", "analyze", run1, "--idle-power", "node0=w", NULL});
    expect_error("--idle-power: no channel 'gpu'",
                 (char *[]){"mw", "analyze", run1, "--idle-power", "gpu=5", NULL});
    expect_error("unknown option '--frob'", (char *[]){"mw", "analyze", run1, "--frob", NULL});
    assert_int_equal(run_mw((char *[]){"mw", "analyze", "--help", NULL}), 0);
    assert_non_null(strstr(out, "usage: mw analyze RUNDIR..."));
}

/* The attribution rule every command shares (models/include/energy.h), case by case from
 * docs/analysis.md: node channels a, b on hosts "a", "b", a host-less channel (the switch,
 * or a meter whose channels name no host). */
static void attribution(void **state)
{
    (void)state;
    assert_true(mw_energy_channel_measures("a", "a"));
    assert_false(mw_energy_channel_measures("a", "b"));
    assert_true(mw_energy_channel_measures(NULL, "b")); /* host-less: every rank */
    assert_true(mw_energy_channel_measures("", "b"));
    const char *hosts[] = {"a", "b", NULL};
    /* a rank on a has its own channel only; the switch is not one of its channels */
    assert_true(mw_energy_rank_has_channel(hosts, 3, 0, "a"));
    assert_false(mw_energy_rank_has_channel(hosts, 3, 1, "a"));
    assert_false(mw_energy_rank_has_channel(hosts, 3, 2, "a"));
    /* a rank on c, a host without a channel, falls back to the host-less ones */
    assert_false(mw_energy_rank_has_channel(hosts, 3, 0, "c"));
    assert_true(mw_energy_rank_has_channel(hosts, 3, 2, "c"));
    /* no channel names a host: every channel is every rank's */
    const char *none[] = {NULL, ""};
    assert_true(mw_energy_rank_has_channel(none, 2, 0, "a"));
    assert_true(mw_energy_rank_has_channel(none, 2, 1, "a"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(energy_of_windows),
        cmocka_unit_test(consecutive_spans_add_up),
        cmocka_unit_test(trace_order_and_errors),
        cmocka_unit_test(meter_counter),
        cmocka_unit_test(working_labels),
        cmocka_unit_test(json_run1),
        cmocka_unit_test(time_ranges),
        cmocka_unit_test(meter_difference),
        cmocka_unit_test(idle_power_option),
        cmocka_unit_test(ranks_without_hosts),
        cmocka_unit_test(across_runs),
        cmocka_unit_test(text_report),
        cmocka_unit_test(errors),
        cmocka_unit_test(attribution),
    };
    return cmocka_run_group_tests_name("analyze", tests, setup, teardown);
}
