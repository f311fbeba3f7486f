/* Meter session (host/meter.c) fed with lines made by the firmware's own encoder
 * (firmware/portable/frame.c): windows come out with the numbers that went in; sequence gaps
 * count lost windows; a FIRST flag, a sequence number or meter time going backwards start a
 * new segment; garbage and bit flips never produce a corrupt window and decoding resumes at
 * the next valid line; boot and identification lines are recognised; window times come out
 * in host time within the clock model's reach; lines read late (a stalled reader) keep
 * their meter-time stamps, while a meter whose time stood still starts a new segment whose
 * windows are stamped when they happened. */
#include "../unit.h"

#include <time.h>

#include "crc16.h"
#include "frame.h"
#include "mw_meter.h"

#define PERIOD_US 250016 /* a 4 Hz window: 2404 conversions of 104 us */

static mw_frame make(uint32_t seq, uint8_t flags)
{
    mw_frame f;
    memset(&f, 0, sizeof f);
    f.seq = seq;
    f.t0_us = (uint64_t)seq * PERIOD_US;
    f.t1_us = f.t0_us + PERIOD_US;
    f.flags = flags;
    f.nsets = 401;
    f.freq_mhz = 50000;
    f.vrms_mv = 230000 + (int32_t)seq;
    f.nchan = 3;
    for (int k = 0; k < 3; k++) {
        f.p_mw[k] = 100000 * (k + 1) + (int32_t)seq;
        f.irms_ua[k] = 500000;
        f.pf_milli[k] = 950;
        f.e_mj[k] = (int64_t)seq * 25000 * (k + 1);
    }
    return f;
}

static size_t line(const mw_frame *f, char *buf, size_t cap)
{
    return mw_frame_encode(f, buf, (uint16_t)cap);
}

/* Feed windows seq[0..n) (flags per window) as a stream; arrival = window end + 3 ms. */
static void feed_windows(mw_meter *m, const uint32_t *seq, const uint8_t *flags, int n)
{
    char buf[1200];
    for (int i = 0; i < n; i++) {
        mw_frame f = make(seq[i], flags ? flags[i] : 0);
        size_t len = line(&f, buf, sizeof buf);
        mw_meter_feed(m, buf, len, 1000000000LL + (int64_t)f.t1_us * 1000 + 3000000);
    }
}

static int next_window(mw_meter *m, mw_meter_event *ev)
{
    int r;
    while ((r = mw_meter_next(m, ev, 0)) == 1)
        if (ev->type == MW_METER_WINDOW) return 1;
    return 0;
}

static void decodes_values(void **state)
{
    mw_meter *m = mw_meter_new();
    uint32_t seq[] = {0, 1, 2};
    uint8_t fl[] = {MW_FLAG_FIRST, 0, 0};
    feed_windows(m, seq, fl, 3);
    mw_meter_event ev;
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(next_window(m, &ev), 1);
        assert_int_equal(ev.w.seq, i);
        assert_int_equal(ev.w.t1_us, (i + 1) * PERIOD_US);
        assert_int_equal(ev.w.nchan, 3);
        assert_int_equal(ev.w.ch[1].p_mw, 200000 + (int32_t)i);
        assert_int_equal(ev.w.ch[2].e_mj, (int64_t)i * 75000);
        assert_int_equal(ev.segment, 0);
        assert_int_equal(ev.restart, i == 0);
        assert_int_equal(ev.lost, 0);
        assert_true(ev.t1_ns > ev.t0_ns);
        /* the line's bytes on the wire: body + "*XXXX\r\n" */
        assert_int_equal(ev.line_bytes, strlen(ev.body) + 7);
    }
    assert_int_equal(next_window(m, &ev), 0);
    mw_meter_close(m);
}

static void sequence_gap_counts_lost(void **state)
{
    mw_meter *m = mw_meter_new();
    uint32_t seq[] = {0, 1, 5, 6};
    feed_windows(m, seq, NULL, 4);
    mw_meter_event ev;
    uint32_t lost[] = {0, 0, 3, 0};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(next_window(m, &ev), 1);
        assert_int_equal(ev.lost, lost[i]);
        assert_int_equal(ev.segment, 0);
    }
    mw_meter_stats st;
    mw_meter_get_stats(m, &st);
    assert_int_equal(st.lost_windows, 3);
    assert_int_equal(st.restarts, 0);
    mw_meter_close(m);
}

static void restarts_start_segments(void **state)
{
    mw_meter *m = mw_meter_new();
    /* FIRST flag (a RATE or reset), then a reset whose FIRST window was lost (seq goes back
     * from 3 to 1), then meter time going back at a higher seq */
    uint32_t seq[] = {0, 1, 2, 0, 1, 2, 3, 1, 2};
    uint8_t fl[] = {MW_FLAG_FIRST, 0, 0, MW_FLAG_FIRST, 0, 0, 0, 0, 0};
    int seg[] = {0, 0, 0, 1, 1, 1, 1, 2, 2};
    int rst[] = {1, 0, 0, 1, 0, 0, 0, 1, 0};
    feed_windows(m, seq, fl, 9);
    mw_meter_event ev;
    for (int i = 0; i < 9; i++) {
        assert_int_equal(next_window(m, &ev), 1);
        assert_int_equal(ev.segment, seg[i]);
        assert_int_equal(ev.restart, rst[i]);
        assert_int_equal(ev.lost, 0);
    }
    /* the same seq with a smaller meter time also restarts */
    mw_frame f = make(3, 0);
    f.t0_us = 0;
    f.t1_us = 1000;
    char buf[1200];
    mw_meter_feed(m, buf, line(&f, buf, sizeof buf), 5000000000LL);
    assert_int_equal(next_window(m, &ev), 1);
    assert_int_equal(ev.segment, 3);
    mw_meter_stats st;
    mw_meter_get_stats(m, &st);
    assert_int_equal(st.restarts, 3);
    /* every finished segment has a final fit */
    int64_t t;
    for (int s = 0; s < 3; s++)
        assert_int_equal(mw_meter_map_segment(m, s, 0, &t, NULL), 0);
    mw_meter_finish(m);
    assert_int_equal(mw_meter_map_segment(m, 3, 0, &t, NULL), 0);
    assert_int_equal(mw_meter_map_segment(m, 4, 0, &t, NULL), -1);
    mw_meter_close(m);
}

/* xorshift, so the corruption is the same on every run */
static uint32_t rng = 12345;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void garbage_and_bit_flips(void **state)
{
    mw_meter *m = mw_meter_new();
    enum { N = 400 };
    static char stream[N * 200 + N * 40];
    size_t len = 0;
    mw_frame orig[N];
    int flipped = 0, garbage = 0;
    for (uint32_t i = 0; i < N; i++) {
        orig[i] = make(i, i == 0 ? MW_FLAG_FIRST : 0);
        char buf[1200];
        size_t n = line(&orig[i], buf, sizeof buf);
        if (i % 7 == 3) { /* flip one bit anywhere in the line, CR LF included */
            size_t at = rnd() % n;
            buf[at] ^= (char)(1u << (rnd() % 8));
            flipped++;
        }
        if (i % 11 == 5) { /* a burst of noise before the line, with CR/LF/'*' and NULs */
            size_t g = 5 + rnd() % 30;
            for (size_t k = 0; k < g; k++)
                stream[len++] = (char)(rnd() & 0xFF);
            garbage++;
        }
        memcpy(stream + len, buf, n);
        len += n;
    }
    /* fed in odd-sized chunks */
    for (size_t off = 0; off < len;) {
        size_t c = 1 + rnd() % 97;
        if (c > len - off) c = len - off;
        mw_meter_feed(m, stream + off, c, 1000000000LL + (int64_t)off * 100000);
        off += c;
    }
    mw_meter_event ev;
    int got = 0;
    uint32_t prev = 0, first = 0;
    while (next_window(m, &ev)) {
        uint32_t s = ev.w.seq;
        assert_true(s < N);
        const mw_frame *f = &orig[s];
        assert_true(got == 0 || s > prev);
        assert_int_equal(ev.w.t0_us, f->t0_us);
        assert_int_equal(ev.w.t1_us, f->t1_us);
        assert_int_equal(ev.w.vrms_mv, f->vrms_mv);
        for (int k = 0; k < 3; k++) {
            assert_int_equal(ev.w.ch[k].p_mw, f->p_mw[k]);
            assert_int_equal(ev.w.ch[k].irms_ua, f->irms_ua[k]);
            assert_int_equal(ev.w.ch[k].e_mj, f->e_mj[k]);
        }
        assert_int_equal(ev.segment, 0);
        if (got == 0) first = s;
        prev = s;
        got++;
    }
    /* every clean line survives: a flip loses its line, or two when it hits the LF that
     * separates them, and a noise burst can take at most the line it runs into */
    assert_true(got >= N - 2 * flipped - garbage);
    assert_true(got <= N);
    mw_meter_stats st;
    mw_meter_get_stats(m, &st);
    /* the windows missing between the first and the last decoded are counted as lost */
    assert_int_equal(st.lost_windows, (uint64_t)(prev - first + 1) - (uint64_t)got);
    assert_true(st.bad_crc > 0);
    mw_meter_close(m);
}

static void boot_and_ident_lines(void **state)
{
    mw_meter *m = mw_meter_new();
    const char *bodies[] = {
        "B,2,1", "I,megawatt,0.1.0,abc123,atmega2560,4,250,5,A0:A1:A2:A3:A4:A5,DEFAULT", "OK,RATE"};
    for (int i = 0; i < 3; i++) {
        char buf[256];
        int n = snprintf(buf, sizeof buf, "%s*%04X\r\n", bodies[i],
                         mw_crc16(bodies[i], strlen(bodies[i])));
        mw_meter_feed(m, buf, (size_t)n, 1);
    }
    mw_meter_event ev;
    assert_int_equal(mw_meter_next(m, &ev, 0), 1);
    assert_int_equal(ev.type, MW_METER_BOOT);
    assert_int_equal(ev.mcusr, 2);
    assert_int_equal(ev.config_status, 1);
    assert_int_equal(mw_meter_next(m, &ev, 0), 1);
    assert_int_equal(ev.type, MW_METER_IDENT);
    const mw_proto_ident *id = mw_meter_ident(m);
    assert_non_null(id);
    assert_string_equal(id->fw_version, "0.1.0");
    assert_string_equal(id->build_id, "abc123");
    assert_int_equal(id->rate_hz, 4);
    assert_int_equal(id->window_ms, 250);
    assert_int_equal(id->n_current, 5);
    assert_int_equal(id->pin[0], 0);
    assert_int_equal(id->pin[5], 5);
    assert_string_equal(id->cal_source, "DEFAULT");
    assert_int_equal(mw_meter_next(m, &ev, 0), 1);
    assert_int_equal(ev.type, MW_METER_LINE);
    assert_string_equal(ev.body, "OK,RATE");
    /* no port: once the queue is empty next() says the port is gone, and a command fails at
     * once */
    assert_int_equal(mw_meter_next(m, &ev, 10), -1);
    char reply[128];
    assert_int_equal(mw_meter_command(m, "ID", "I,", reply, sizeof reply, 100), -1);
    mw_meter_close(m);
}

static void window_times_follow_arrivals(void **state)
{
    /* every line arrives exactly the firmware's line hold (3 channels at 4 Hz: 8 + 3 x 6.2 =
     * 26.6 ms, in whole conversions of 104 us: 255, 26.52 ms), its bytes' UART time and the
     * clock model's fixed latency after its window's end, on a host clock 1 s ahead of the
     * meter: the mapped window ends are the true ones (CLOCK_REALTIME differs from
     * CLOCK_MONOTONIC by a constant the test measures; the window lengths are the meter's) */
    mw_clock_config cfg;
    mw_clock_config_default(&cfg);
    mw_meter *m = mw_meter_new();
    char buf[1200];
    struct timespec a, b;
    clock_gettime(CLOCK_REALTIME, &a);
    clock_gettime(CLOCK_MONOTONIC, &b);
    int64_t rt_minus_mono = (a.tv_sec - b.tv_sec) * 1000000000LL + (a.tv_nsec - b.tv_nsec);
    for (uint32_t i = 0; i < 80; i++) {
        mw_frame f = make(i, i ? 0 : MW_FLAG_FIRST);
        size_t n = line(&f, buf, sizeof buf);
        mw_meter_feed(m, buf, n,
                      1000000000LL + (int64_t)f.t1_us * 1000 + 26520000 + cfg.latency_ns +
                          (int64_t)n * cfg.byte_ns);
        mw_meter_event ev;
        assert_int_equal(next_window(m, &ev), 1);
        double err_ms =
            (double)(ev.t1_ns - rt_minus_mono - 1000000000LL - (int64_t)f.t1_us * 1000) * 1e-6;
        assert_true(fabs(err_ms) < 0.1);
        assert_true(ev.t1_ns - ev.t0_ns > 249000000 && ev.t1_ns - ev.t0_ns < 251000000);
    }
    mw_meter_close(m);
}

/* Windows 0..n) at 4 Hz, window k's line arriving late_ns(k) after the fastest delivery
 * (as in window_times_follow_arrivals); every window popped into ev[k]. */
static void feed_late(mw_meter *m, int n, int64_t (*late_ns)(int), mw_meter_event *ev)
{
    mw_clock_config cfg;
    mw_clock_config_default(&cfg);
    char buf[1200];
    int got = 0;
    for (int k = 0; k < n; k++) {
        mw_frame f = make((uint32_t)k, k ? 0 : MW_FLAG_FIRST);
        size_t len = line(&f, buf, sizeof buf);
        mw_meter_feed(m, buf, len,
                      1000000000LL + (int64_t)f.t1_us * 1000 + 26520000 + cfg.latency_ns +
                          (int64_t)len * cfg.byte_ns + late_ns(k));
        while (got < n && next_window(m, &ev[got]))
            got++;
    }
    mw_meter_finish(m);
    while (got < n && mw_meter_queued(m, &ev[got]))
        if (ev[got].type == MW_METER_WINDOW) got++;
    assert_int_equal(got, n);
}

/* the recorder stalled 4 s: windows 20..35 were read at once, when 35 arrived */
static int64_t backlog_late(int k)
{
    return k >= 20 && k <= 35 ? (int64_t)(35 - k) * PERIOD_US * 1000 : 0;
}

static void late_reads_keep_meter_time(void **state)
{
    /* the lines waited in the port's buffers: stamped by meter time, one segment, no step */
    mw_meter *m = mw_meter_new();
    mw_meter_event ev[60];
    feed_late(m, 60, backlog_late, ev);
    for (int k = 0; k < 60; k++) {
        assert_int_equal(ev[k].w.seq, k);
        assert_int_equal(ev[k].segment, 0);
        assert_int_equal(ev[k].stepped_ns, 0);
        double err_us = (double)(ev[k].t1_ns - ev[0].t1_ns - (int64_t)k * PERIOD_US * 1000) * 1e-3;
        assert_true(fabs(err_us) < 100);
    }
    mw_meter_stats st;
    mw_meter_get_stats(m, &st);
    assert_int_equal(st.time_steps, 0);
    mw_meter_close(m);
}

/* the meter's time stood still 4 s before window 20 (a simulated board stopped with the
 * recorder): every line from 20 on is 4 s late, at the meter's pace */
static int64_t step_late(int k)
{
    return k >= 20 ? 4000000000LL : 0;
}

static void meter_time_step_starts_segment(void **state)
{
    mw_meter *m = mw_meter_new();
    mw_meter_event ev[60];
    feed_late(m, 60, step_late, ev);
    for (int k = 0; k < 60; k++) {
        assert_int_equal(ev[k].segment, k < 20 ? 0 : 1);
        assert_int_equal(ev[k].restart, k == 0 || k == 20);
    }
    /* how late its line came: the step and the line's own delivery (UART, USB) */
    assert_true(ev[20].stepped_ns > 3990000000LL && ev[20].stepped_ns < 4050000000LL);
    /* stamped when they happened: a 4 s hole between 19 and 20, none elsewhere */
    double hole_ms = (double)(ev[20].t0_ns - ev[19].t1_ns) * 1e-6;
    assert_true(fabs(hole_ms - 4000) < 1);
    for (int k = 21; k < 60; k++)
        assert_true(llabs(ev[k].t0_ns - ev[k - 1].t1_ns) < 100000);
    mw_meter_stats st;
    mw_meter_get_stats(m, &st);
    assert_int_equal(st.time_steps, 1);
    assert_int_equal(st.restarts, 0);
    mw_meter_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decodes_values),
        cmocka_unit_test(sequence_gap_counts_lost),
        cmocka_unit_test(restarts_start_segments),
        cmocka_unit_test(garbage_and_bit_flips),
        cmocka_unit_test(boot_and_ident_lines),
        cmocka_unit_test(window_times_follow_arrivals),
        cmocka_unit_test(late_reads_keep_meter_time),
        cmocka_unit_test(meter_time_step_starts_segment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
