/* The alignment check (models/align.c, collector/cmd_align.c) against traces whose offset is
 * known by construction.
 *
 * The load: a pseudo-random busy/idle sequence, the bits of a 16-bit Galois LFSR (taps
 * 0xB400, seed 0xACE1), 0.5 s per bit, from host time 1 s. The meter: windows of 0.25 s on
 * its own timeline; a window stamped [t0, t1] really covers the host's [t0 - d(t0),
 * t1 - d(t1)], where d(t) = d0 + drift x (t - 100 s) is the injected offset (positive: the
 * meter is late). Its power is 100 W + 150 W x the busy fraction of that host interval,
 * computed here straight from the bits, plus Gaussian noise (GSL's MT19937). The estimate
 * must recover d within 3 of its stated standard errors, the standard error must match
 * the spread of the estimates over 40 noise draws, and a run without a pattern must say so
 * (exit 2 from mw align).
 *
 * Weak patterns must give "cannot tell", never a number: random busy spans the power (a
 * slowly wandering noise) owes nothing to, in 18 of 20 draws at least; a pattern buried
 * under noise 20 times its gain; a pattern repeating every second, which any whole period
 * fits as well; and a drift needs both ends significant (the last third made pure noise:
 * no drift, the note naming the end); and mw align on such a run prints "cannot tell"
 * (exit 1), with null offset and drift in its JSON. */
#include "../unit.h"

#include <ftw.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <sys/stat.h>

#include "align.h"
#include "../capture.h"
#include "cli.h"
#include "mw_store.h"

#define BIT_S 0.5
#define FIRST_BIT_S 1.0
#define IDLE_W 100.0
#define GAIN_W 150.0
#define WINDOW_S 0.25
#define T_CENTRE_S 100.0

typedef struct {
    int nbits;
    unsigned char bits[2048];
    double d0_s, drift; /* offset at T_CENTRE_S, and its slope (s/s) */
    double w0_s;        /* first window's start, meter timeline */
    size_t nw;
    mw_align_window w[8192];
    double clean_w[8192]; /* power without noise */
    mw_align_span sp[2048];
    size_t nsp;
} trace;

static void lfsr_bits(trace *t, int n)
{
    unsigned state = 0xACE1u;
    t->nbits = n;
    for (int i = 0; i < n; i++) {
        unsigned bit = state & 1u;
        state >>= 1;
        if (bit) state ^= 0xB400u;
        t->bits[i] = (unsigned char)bit;
    }
}

/* Busy time of the bits within [a, b] on the host's timeline, bit by bit. */
static double busy_time(const trace *t, double a, double b)
{
    double sum = 0;
    for (int i = 0; i < t->nbits; i++) {
        if (!t->bits[i]) continue;
        double s = FIRST_BIT_S + BIT_S * i, e = s + BIT_S;
        double lo = a > s ? a : s, hi = b < e ? b : e;
        if (hi > lo) sum += hi - lo;
    }
    return sum;
}

static double offset_at(const trace *t, double time_s)
{
    return t->d0_s + t->drift * (time_s - T_CENTRE_S);
}

/* The windows and their noiseless powers; the busy spans (runs of 1 bits). */
static void make_trace(trace *t, int nbits, double d0_s, double drift, double w0_s)
{
    lfsr_bits(t, nbits);
    t->d0_s = d0_s;
    t->drift = drift;
    t->w0_s = w0_s;
    double end = FIRST_BIT_S + BIT_S * nbits + 1.0;
    t->nw = 0;
    for (double a = w0_s; a + WINDOW_S <= end; a += WINDOW_S) {
        double b = a + WINDOW_S;
        double ha = a - offset_at(t, a), hb = b - offset_at(t, b);
        t->w[t->nw] = (mw_align_window){a, b, 0};
        t->clean_w[t->nw] = IDLE_W + GAIN_W * busy_time(t, ha, hb) / (hb - ha);
        t->nw++;
    }
    t->nsp = 0;
    for (int i = 0; i < nbits; i++) {
        if (!t->bits[i]) continue;
        double s = FIRST_BIT_S + BIT_S * i;
        if (t->nsp && t->sp[t->nsp - 1].end_s == s)
            t->sp[t->nsp - 1].end_s = s + BIT_S;
        else
            t->sp[t->nsp++] = (mw_align_span){s, s + BIT_S};
    }
}

static void add_noise(trace *t, double sd_w, unsigned long seed)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    for (size_t i = 0; i < t->nw; i++)
        t->w[i].power_w = t->clean_w[i] + gsl_ran_gaussian(rng, sd_w);
    gsl_rng_free(rng);
}

static trace tr; /* large: static */

static void expect_within(const char *what, double got, double want, double sigma, double k)
{
    if (!(fabs(got - want) <= k * sigma))
        fail_msg("%s: %.4f ms, want %.4f ms +- %.0f x %.4f ms", what, got * 1e3, want * 1e3, k,
                 sigma * 1e3);
}

/* +37 ms, windows not aligned with the bits, 2 W noise. */
static void offset_recovered(void **state)
{
    make_trace(&tr, 400, 0.037, 0, 0.113);
    add_noise(&tr, 2.0, 1);
    mw_align_result a;
    assert_int_equal(mw_align_estimate(tr.w, tr.nw, tr.sp, tr.nsp, 0, &a), 0);
    print_message("injected +37.000 ms: %+.3f +- %.3f ms, r %.4f\n", a.all.offset_s * 1e3,
                  a.all.sigma_s * 1e3, a.all.correlation);
    expect_within("offset", a.all.offset_s, 0.037, a.all.sigma_s, 3);
    assert_true(a.all.sigma_s > 0 && a.all.sigma_s < 0.001);
    assert_true(a.all.correlation > 0.99);
    assert_true(fabs(a.all.base_w - IDLE_W) < 1 && fabs(a.all.gain_w - GAIN_W) < 1.5);
    assert_true(fabs(a.all.noise_w - 2.0) < 0.3);
    assert_int_equal(a.all.windows, tr.nw);
    /* no drift injected: none found */
    assert_true(a.have_drift);
    assert_true(fabs(a.drift_ppm) <= 3 * a.drift_sigma_ppm);
}

/* Beyond one window, early, with windows aligned to the bits; and without noise exact to
 * a small fraction of a ms. */
static void other_offsets(void **state)
{
    make_trace(&tr, 300, -0.250, 0, 0.0);
    add_noise(&tr, 2.0, 2);
    mw_align_fit f;
    char note[160];
    assert_int_equal(mw_align_offset(tr.w, tr.nw, tr.sp, tr.nsp, 0, &f, note, sizeof note), 0);
    print_message("injected -250.000 ms: %+.3f +- %.3f ms\n", f.offset_s * 1e3, f.sigma_s * 1e3);
    expect_within("offset -250 ms", f.offset_s, -0.250, f.sigma_s, 3);

    make_trace(&tr, 300, 1.2345, 0, 0.05);
    add_noise(&tr, 0, 3);
    assert_int_equal(mw_align_offset(tr.w, tr.nw, tr.sp, tr.nsp, 0, &f, note, sizeof note), 0);
    print_message("injected +1234.500 ms, no noise: %+.4f ms\n", f.offset_s * 1e3);
    if (fabs(f.offset_s - 1.2345) > 0.0002)
        fail_msg("noiseless: %.4f ms, want 1234.5 ms", f.offset_s * 1e3);
}

/* The stated standard error is the spread of the estimates over noise draws. */
static void uncertainty_calibrated(void **state)
{
    make_trace(&tr, 240, 0.037, 0, 0.113);
    enum { DRAWS = 40 };
    double sum_e2 = 0, sum_s = 0;
    int within_2s = 0;
    for (int k = 0; k < DRAWS; k++) {
        add_noise(&tr, 10.0, 100 + (unsigned long)k);
        mw_align_fit f;
        char note[160];
        assert_int_equal(mw_align_offset(tr.w, tr.nw, tr.sp, tr.nsp, 0, &f, note, sizeof note), 0);
        double e = f.offset_s - 0.037;
        sum_e2 += e * e;
        sum_s += f.sigma_s;
        within_2s += fabs(e) <= 2 * f.sigma_s;
    }
    double rms = sqrt(sum_e2 / DRAWS), mean_sigma = sum_s / DRAWS;
    print_message("offset error over %d draws: rms %.3f ms, stated sigma %.3f ms, %d within 2 "
                  "sigma\n",
                  DRAWS, rms * 1e3, mean_sigma * 1e3, within_2s);
    assert_true(rms / mean_sigma > 0.6 && rms / mean_sigma < 1.5);
    assert_true(within_2s >= 34); /* 95 % expected: 38 of 40 */
}

/* 27 ms at the start, 47 ms at the end: 100 ppm. */
static void drift_recovered(void **state)
{
    make_trace(&tr, 400, 0.037, 100e-6, 0.113);
    add_noise(&tr, 2.0, 4);
    mw_align_result a;
    assert_int_equal(mw_align_estimate(tr.w, tr.nw, tr.sp, tr.nsp, 0, &a), 0);
    assert_true(a.have_drift);
    print_message("injected %+.3f / %+.3f ms at %.1f / %.1f s, 100 ppm: %+.3f +- %.3f / %+.3f "
                  "+- %.3f ms, %+.1f +- %.1f ppm\n",
                  offset_at(&tr, a.head.time_s) * 1e3, offset_at(&tr, a.tail.time_s) * 1e3,
                  a.head.time_s, a.tail.time_s, a.head.offset_s * 1e3, a.head.sigma_s * 1e3,
                  a.tail.offset_s * 1e3, a.tail.sigma_s * 1e3, a.drift_ppm, a.drift_sigma_ppm);
    expect_within("start", a.head.offset_s, offset_at(&tr, a.head.time_s), a.head.sigma_s, 3);
    expect_within("end", a.tail.offset_s, offset_at(&tr, a.tail.time_s), a.tail.sigma_s, 3);
    expect_within("all", a.all.offset_s, offset_at(&tr, a.all.time_s), a.all.sigma_s, 3);
    assert_true(a.head.time_s < 80 && a.tail.time_s > 120);
    if (!(fabs(a.drift_ppm - 100) <= 3 * a.drift_sigma_ppm))
        fail_msg("drift %.1f +- %.1f ppm, want 100", a.drift_ppm, a.drift_sigma_ppm);
    assert_true(a.drift_sigma_ppm < 20);
}

static void no_pattern(void **state)
{
    make_trace(&tr, 100, 0.037, 0, 0.0);
    add_noise(&tr, 2.0, 5);
    mw_align_result a;
    /* no spans */
    assert_int_equal(mw_align_estimate(tr.w, tr.nw, tr.sp, 0, 0, &a), MW_ALIGN_NO_PATTERN);
    assert_non_null(strstr(a.note, "no busy phase begins or ends"));
    assert_true(a.all.offset_s == 0 && a.all.sigma_s == 0 && !a.have_drift);
    /* one span covering every window: no edge */
    mw_align_span all = {-10, 1000};
    assert_int_equal(mw_align_estimate(tr.w, tr.nw, &all, 1, 0, &a), MW_ALIGN_NO_PATTERN);
    /* spans only after the windows */
    mw_align_span late[2] = {{2000, 2001}, {2002, 2003}};
    assert_int_equal(mw_align_estimate(tr.w, tr.nw, late, 2, 0, &a), MW_ALIGN_NO_PATTERN);
    /* too few windows */
    assert_int_equal(mw_align_estimate(tr.w, 3, tr.sp, tr.nsp, 0, &a), MW_ALIGN_NO_PATTERN);
    assert_non_null(strstr(a.note, "windows"));
    /* a constant power follows no pattern */
    for (size_t i = 0; i < tr.nw; i++)
        tr.w[i].power_w = 42;
    assert_int_equal(mw_align_estimate(tr.w, tr.nw, tr.sp, tr.nsp, 0, &a), MW_ALIGN_NO_PEAK);
    assert_non_null(strstr(a.note, "does not follow"));
    /* NaN windows are ignored, not propagated */
    add_noise(&tr, 2.0, 5);
    tr.w[7].power_w = NAN;
    assert_int_equal(mw_align_estimate(tr.w, tr.nw, tr.sp, tr.nsp, 0, &a), 0);
    assert_int_equal(a.all.windows, tr.nw - 1);
    assert_true(isfinite(a.all.offset_s) && isfinite(a.all.sigma_s));
}

/* ---- weak patterns: "cannot tell" ----------------------------------------------------- */

/* Windows of WINDOW_S over [0, dur) whose power is 100 W + AR(1) noise (sd sd_w, lag-1
 * correlation 0.8: a slowly wandering power), and busy spans that are random runs (each bit
 * of BIT_S busy with probability 1/2, from its own random stream): the power owes nothing to
 * the pattern. */
static void random_trace(trace *t, double dur, double sd_w, unsigned long seed)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    t->nw = 0;
    double e = 0;
    for (double a = 0; a + WINDOW_S <= dur; a += WINDOW_S) {
        e = 0.8 * e + gsl_ran_gaussian(rng, sd_w * 0.6);
        t->w[t->nw++] = (mw_align_window){a, a + WINDOW_S, 100 + e};
    }
    t->nsp = 0;
    for (double a = 0.3; a + BIT_S <= dur; a += BIT_S) {
        if (gsl_rng_uniform(rng) < 0.5) continue;
        if (t->nsp && t->sp[t->nsp - 1].end_s == a)
            t->sp[t->nsp - 1].end_s = a + BIT_S;
        else
            t->sp[t->nsp++] = (mw_align_span){a, a + BIT_S};
    }
    gsl_rng_free(rng);
}

/* A random pattern the power does not follow: cannot tell, in at least 18 of 20 draws (a
 * test at p <= 1/40 says "significant" by chance in 2.5 % of them: 0.5 expected). */
static void random_pattern_cannot_tell(void **state)
{
    int told = 0;
    for (unsigned long k = 0; k < 20; k++) {
        random_trace(&tr, 120, 2.0, 500 + k);
        mw_align_result a;
        int rc = mw_align_estimate(tr.w, tr.nw, tr.sp, tr.nsp, 0, &a);
        assert_true(rc == MW_ALIGN_NOT_SIGNIFICANT || rc == MW_ALIGN_NO_PEAK || rc == 0);
        if (rc == 0) told++;
        if (rc == MW_ALIGN_NOT_SIGNIFICANT) {
            assert_non_null(strstr(a.note, "cannot tell"));
            assert_false(a.have_drift);
            assert_false(a.all.significant);
        }
    }
    print_message("random patterns: %d of 20 draws gave an offset\n", told);
    assert_true(told <= 2);
}

/* The pattern is there but buried: a gain of 1 W under 20 W of noise (a correlation of about
 * 0.025 over 480 windows): cannot tell. The same with a gain of 150 W: told, within its
 * error. */
static void buried_pattern(void **state)
{
    make_trace(&tr, 240, 0.037, 0, 0.113);
    for (size_t i = 0; i < tr.nw; i++)
        tr.clean_w[i] = IDLE_W + (tr.clean_w[i] - IDLE_W) / GAIN_W * 1.0;
    add_noise(&tr, 20.0, 7);
    mw_align_result a;
    int rc = mw_align_estimate(tr.w, tr.nw, tr.sp, tr.nsp, 0, &a);
    print_message("1 W under 20 W noise: rc %d, r %.3f, shifted up to %.3f: %s\n", rc,
                  a.all.correlation, a.all.null_r, a.note);
    assert_true(rc == MW_ALIGN_NOT_SIGNIFICANT || rc == MW_ALIGN_NO_PEAK);
    make_trace(&tr, 240, 0.037, 0, 0.113);
    add_noise(&tr, 20.0, 7);
    assert_int_equal(mw_align_estimate(tr.w, tr.nw, tr.sp, tr.nsp, 0, &a), 0);
    assert_true(a.all.significant && a.all.p_value <= MW_ALIGN_P_MAX);
    assert_true(a.all.null_r < a.all.correlation);
    expect_within("150 W under 20 W noise", a.all.offset_s, 0.037, a.all.sigma_s, 3);
}

/* A pattern that repeats faster than the search range (busy 0.75 s, idle 0.25 s, like a
 * time step loop) from before the first window to after the last: the power follows it,
 * but any offset plus a whole period fits as well, so the offset cannot be told; the
 * estimate must say so, not pick one. */
static void repetitive_pattern(void **state)
{
    tr.nw = 0;
    for (double a = 0; a + WINDOW_S <= 120; a += WINDOW_S)
        tr.w[tr.nw++] = (mw_align_window){a, a + WINDOW_S, 0};
    tr.nsp = 0;
    for (double a = -9.5; a <= 130; a += 1.0)
        tr.sp[tr.nsp++] = (mw_align_span){a, a + 0.75};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 9);
    for (size_t i = 0; i < tr.nw; i++) { /* 0.1 s late, +-2 W */
        double a = tr.w[i].t0_s - 0.1, b = tr.w[i].t1_s - 0.1, busy = 0;
        for (size_t k = 0; k < tr.nsp; k++) {
            double lo = fmax(a, tr.sp[k].start_s), hi = fmin(b, tr.sp[k].end_s);
            if (hi > lo) busy += hi - lo;
        }
        tr.w[i].power_w = IDLE_W + GAIN_W * busy / WINDOW_S + gsl_ran_gaussian(rng, 2.0);
    }
    gsl_rng_free(rng);
    mw_align_result a;
    int rc = mw_align_estimate(tr.w, tr.nw, tr.sp, tr.nsp, 0, &a);
    print_message("period 1 s: rc %d, r %.3f, shifted up to %.3f\n", rc, a.all.correlation,
                  a.all.null_r);
    assert_int_equal(rc, MW_ALIGN_NOT_SIGNIFICANT);
    assert_non_null(strstr(a.note, "cannot tell"));
}

/* Drift only from two significant ends: the power follows the pattern in the first two
 * thirds and is pure noise in the last: an offset overall, no drift, and the note names the
 * end. */
static void drift_needs_both_ends(void **state)
{
    make_trace(&tr, 400, 0.037, 100e-6, 0.113);
    add_noise(&tr, 2.0, 11);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 12);
    double t_end = tr.w[tr.nw - 1].t1_s;
    for (size_t i = 0; i < tr.nw; i++)
        if (tr.w[i].t0_s > t_end * 0.62) tr.w[i].power_w = IDLE_W + gsl_ran_gaussian(rng, 2.0);
    gsl_rng_free(rng);
    mw_align_result a;
    int rc = mw_align_estimate(tr.w, tr.nw, tr.sp, tr.nsp, 0, &a);
    print_message("dead end: rc %d r %.3f null %.3f second %.3f at %.0f ms: %s\n", rc,
                  a.all.correlation, a.all.null_r, a.all.second_r, a.all.second_offset_s * 1e3,
                  a.note);
    assert_int_equal(rc, 0);
    assert_false(a.have_drift);
    assert_non_null(strstr(a.note, "at the end of the pattern"));
    assert_non_null(strstr(a.note, "cannot tell"));
}

static void merge(void **state)
{
    mw_align_span s[] = {{5, 6}, {1, 2}, {1.5, 3}, {3, 4}, {7, 7}, {8, 9}, {8.2, 8.5}};
    size_t n = mw_align_merge(s, 7);
    assert_int_equal(n, 3);
    assert_true(s[0].start_s == 1 && s[0].end_s == 4);
    assert_true(s[1].start_s == 5 && s[1].end_s == 6);
    assert_true(s[2].start_s == 8 && s[2].end_s == 9);
}

/* ---- mw align on a stored run --------------------------------------------------------- */

#define S_NS 1700000000000000000LL

static char tmpdir[64], run[128], out[64 * 1024];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int run_mw(char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return mw_run_captured(out, sizeof out, argc, argv);
}

static int64_t ns(double s)
{
    return S_NS + (int64_t)llround(s * 1e9);
}

/* The trace as a run: node0 on host n0 measures it, the switch draws a constant 12 W;
 * rank 0 on n0 marked its busy bits as user phases "busy", and the recorder its stage. */
static void make_run(const char *dir, int with_phases)
{
    char err[512];
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    if (!s) fail_msg("%s", err);
    assert_int_equal(mw_store_meta_set(s, "start_ns", "1700000000000000000"), 0);
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "switch", NULL, "A2"), 0);
    for (size_t i = 0; i < tr.nw; i++) {
        for (int c = 1; c <= 2; c++) {
            mw_store_sample x = {
                .channel = c,
                .seq = (uint32_t)i,
                .meter_t0_us = (uint64_t)llround(tr.w[i].t0_s * 1e6),
                .meter_t1_us = (uint64_t)llround(tr.w[i].t1_s * 1e6),
                .t0_ns = ns(tr.w[i].t0_s),
                .t1_ns = ns(tr.w[i].t1_s),
                .power_mw = c == 1 ? (int32_t)llround(tr.w[i].power_w * 1e3) : 12000,
            };
            assert_int_equal(mw_store_sample_add(s, &x), 0);
        }
    }
    if (with_phases) {
        mw_store_phase p = {-1, "n0", 0, "mw", "command", ns(0.5), ns(FIRST_BIT_S + 200), 0, 0, -1};
        assert_int_equal(mw_store_phase_add(s, &p), 0);
        for (size_t i = 0; i < tr.nsp; i++) {
            /* each busy span as two touching phases, to check they are merged */
            double a = tr.sp[i].start_s, b = tr.sp[i].end_s, m = (a + b) / 2;
            mw_store_phase q = {0, "n0", 0, "user", "busy", ns(a), ns(m), 0, 4242, -1};
            assert_int_equal(mw_store_phase_add(s, &q), 0);
            q.start_ns = ns(m);
            q.end_ns = ns(b);
            assert_int_equal(mw_store_phase_add(s, &q), 0);
        }
    }
    mw_store_close(s);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-align-XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    snprintf(run, sizeof run, "%s/run", tmpdir);
    return 0;
}

static int teardown(void **state)
{
    return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static double json_number(const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\": ", key);
    const char *p = strstr(out, k);
    if (!p) fail_msg("no %s in:\n%s", key, out);
    return strtod(p + strlen(k), NULL);
}

static void align_command(void **state)
{
    make_trace(&tr, 400, 0.037, 50e-6, 0.113);
    add_noise(&tr, 2.0, 6);
    make_run(run, 1);

    int rc = run_mw((char *[]){"mw", "align", run, "--json", NULL});
    if (rc) fail_msg("exit %d:\n%s", rc, out);
    double off = json_number("offset_ms") / 1e3, u = json_number("uncertainty_ms") / 1e3;
    double t = T_CENTRE_S; /* edges are spread evenly about the centre */
    expect_within("mw align offset", off, offset_at(&tr, t), u, 3 + 0.0002 / u);
    double drift = json_number("drift_ppm"), du = json_number("drift_uncertainty_ppm");
    if (!(fabs(drift - 50) <= 3 * du)) fail_msg("drift %.1f +- %.1f ppm, want 50", drift, du);
    assert_non_null(strstr(out, "\"channel\": \"node0\""));
    assert_non_null(strstr(out, "\"phases\": \"kind 'user' on n0\""));
    assert_non_null(strstr(out, "\"processes\": 1,"));
    assert_true(json_number("correlation") > 0.99);

    /* text, with the phases named */
    rc = run_mw((char *[]){"mw", "align", "--phases", "busy", run, "--channel", "node0", NULL});
    if (rc) fail_msg("exit %d:\n%s", rc, out);
    assert_non_null(strstr(out, "pattern      "));
    assert_non_null(strstr(out, "kind or name 'busy' on n0"));
    assert_non_null(strstr(out, "offset       +3"));
    assert_non_null(strstr(out, "drift        +"));

    /* the switch has no host: every host's phases; its power does not follow them */
    rc = run_mw((char *[]){"mw", "align", run, "--channel", "switch", NULL});
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "does not follow"));

    /* the same phases over a power that owes them nothing (random, wandering): cannot tell,
     * exit 1, the report printed without an offset, the JSON's offset null */
    char weak[160];
    snprintf(weak, sizeof weak, "%s-weak", run);
    make_trace(&tr, 400, 0.037, 50e-6, 0.113);
    {
        trace *noise = malloc(sizeof *noise);
        random_trace(noise, tr.w[tr.nw - 1].t1_s + 1, 2.0, 78);
        for (size_t i = 0; i < tr.nw; i++)
            tr.w[i].power_w = noise->w[i < noise->nw ? i : noise->nw - 1].power_w;
        free(noise);
    }
    make_run(weak, 1);
    rc = run_mw((char *[]){"mw", "align", weak, NULL});
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "offset       cannot tell"));
    assert_non_null(strstr(out, "drift        cannot tell"));
    assert_null(strstr(out, " ms +- "));
    rc = run_mw((char *[]){"mw", "align", weak, "--json", NULL});
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "\"significant\": false"));
    assert_non_null(strstr(out, "\"offset_ms\": null"));
    assert_non_null(strstr(out, "\"drift_ppm\": null"));

    /* no such phases: no pattern, exit 2, one line */
    rc = run_mw((char *[]){"mw", "align", run, "--phases", "solve", NULL});
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "no load pattern"));
    assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
}

static void align_without_pattern(void **state)
{
    make_trace(&tr, 100, 0.037, 0, 0.0);
    add_noise(&tr, 2.0, 7);
    make_run(run, 0);
    int rc = run_mw((char *[]){"mw", "align", run, NULL});
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "no load pattern"));
    assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);

    rc = run_mw((char *[]){"mw", "align", run, "--channel", "nosuch", NULL});
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "no channel 'nosuch' (channels: node0, switch)"));
    assert_int_equal(run_mw((char *[]){"mw", "align", tmpdir, NULL}), 2);
    assert_non_null(strstr(out, "not a run"));
    assert_int_equal(run_mw((char *[]){"mw", "align", NULL}), 2);
    assert_non_null(strstr(out, "missing RUNDIR"));
    assert_int_equal(run_mw((char *[]){"mw", "align", run, "--frob", NULL}), 2);
    assert_int_equal(run_mw((char *[]){"mw", "align", "--help", NULL}), 0);
    assert_non_null(strstr(out, "usage: mw align RUNDIR"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(offset_recovered),
        cmocka_unit_test(other_offsets),
        cmocka_unit_test(uncertainty_calibrated),
        cmocka_unit_test(drift_recovered),
        cmocka_unit_test(no_pattern),
        cmocka_unit_test(random_pattern_cannot_tell),
        cmocka_unit_test(buried_pattern),
        cmocka_unit_test(repetitive_pattern),
        cmocka_unit_test(drift_needs_both_ends),
        cmocka_unit_test(merge),
        cmocka_unit_test_setup_teardown(align_command, setup, teardown),
        cmocka_unit_test_setup_teardown(align_without_pattern, setup, teardown),
    };
    return cmocka_run_group_tests_name("align", tests, NULL, NULL);
}
