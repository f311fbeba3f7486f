/* Predicted reads (host/meter.c, mw_meter_quiet_until_ns; docs/performance.md): a meter
 * session on a pseudo-terminal, its clock model fed lines whose arrivals follow the physical
 * model written out here (window end + line hold + 1 ms of USB + the line's bytes at
 * 85 us, plus a delay of 0-0.6 ms), not the clock's code:
 *  - the quiet time ends before the next line can have ended (its true earliest end, known
 *    here), and at most the margin (1 ms) plus the uncertainty limit (5 ms) before it;
 *  - no prediction before 20 pairs, nor within 8 lines of a sequence gap or a reset;
 *  - while quiet, a complete line on the port is left unread;
 *  - a line found complete at the first read after the quiet time (the reader woke late) is
 *    counted late, stamped at the read (above the envelope: harmless), and turns
 *    predictions off for 8 lines; a line whose last bytes come after the quiet time is read
 *    as they come (stamped when they came) and predictions go on.
 * The meter session puts its port in line mode (mw_port_set_lines), where the kernel wakes
 * the reader once a line and there is nothing to predict: the rig turns it off, as on a
 * port where it cannot be had. */
#include "../unit.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"
#include "mw_meter.h"
#include "mw_proto.h"

#define PERIOD_US 250016
#define BYTE_NS 85000
#define USB_NS 1000000

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
    int64_t d = t - mono_ns();
    if (d <= 0) return;
    struct timespec ts = {(time_t)(d / 1000000000), (long)(d % 1000000000)};
    nanosleep(&ts, NULL);
}

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
    f.vrms_mv = 230000 + (int32_t)(seq * 37 % 1000);
    f.nchan = 3;
    for (int k = 0; k < 3; k++) {
        f.p_mw[k] = 100000 * (k + 1) + (int32_t)(seq * 91 % 10000);
        f.irms_ua[k] = 500000;
        f.pf_milli[k] = 950;
        f.e_mj[k] = (int64_t)seq * 25000 * (k + 1);
    }
    return f;
}

/* The line of window f (returns its length), and its hold from the protocol's formula. */
static size_t encode(const mw_frame *f, char *buf, size_t cap, int64_t *hold_ns)
{
    size_t len = mw_frame_encode(f, buf, (uint16_t)cap);
    char body[1200];
    memcpy(body, buf, len - 7);
    body[len - 7] = 0;
    mw_proto_window w;
    assert_int_equal(mw_proto_parse_window(body, &w), 0);
    *hold_ns = mw_proto_hold_ns(&w);
    return len;
}

/* When the last byte of window seq's line of len bytes arrives at the earliest: t0_ns is
 * the host time of meter time 0 */
static int64_t earliest_end(int64_t t0_ns, uint32_t seq, size_t len, int64_t hold_ns)
{
    return t0_ns + (int64_t)(seq + 1) * PERIOD_US * 1000 + hold_ns + USB_NS +
           (int64_t)len * BYTE_NS;
}

typedef struct {
    mw_meter *m;
    int master;
    int64_t t0_ns; /* host time of meter time 0 */
    size_t min_len;
} rig;

static void rig_open(rig *r)
{
    r->master = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(r->master >= 0);
    assert_int_equal(grantpt(r->master), 0);
    assert_int_equal(unlockpt(r->master), 0);
    mw_port_err why;
    char err[256];
    mw_port *p = mw_port_open(ptsname(r->master), &why, err, sizeof err);
    assert_non_null(p);
    r->m = mw_meter_new();
    mw_meter_set_port(r->m, p);
    /* predictions are for a port that hands over bytes as they come: a terminal whose line
     * mode cannot be had (mw_port_set_lines); in line mode there are none */
    assert_int_equal(mw_port_lines(p), 1);
    assert_int_equal(mw_meter_quiet_until_ns(r->m), 0);
    assert_int_equal(mw_port_set_lines(p, 0), 0);
    assert_int_equal(mw_port_lines(p), 0);
    r->min_len = SIZE_MAX;
}

static void rig_close(rig *r)
{
    mw_meter_close(r->m);
    close(r->master);
}

/* Feed windows from..to-1 (flags of window from: first) with arrivals of the model. */
static void feed(rig *r, uint32_t from, uint32_t to, uint8_t first)
{
    for (uint32_t s = from; s < to; s++) {
        char buf[1200];
        int64_t hold;
        mw_frame f = make(s, s == from ? first : 0);
        size_t len = encode(&f, buf, sizeof buf, &hold);
        int64_t delay = (int64_t)(s * 7919 % 3) * 300000; /* 0, 0.3 or 0.6 ms */
        mw_meter_feed(r->m, buf, len, earliest_end(r->t0_ns, s, len, hold) + delay);
        mw_meter_event ev;
        while (mw_meter_queued(r->m, &ev))
            ;
        if (len < r->min_len) r->min_len = len;
    }
}

/* 30 windows whose next (seq 30) ends about ahead_ms from now */
static void settle(rig *r, int ahead_ms)
{
    r->t0_ns = mono_ns() + (int64_t)ahead_ms * 1000000 - 31LL * PERIOD_US * 1000;
    feed(r, 0, 30, MW_FLAG_FIRST);
}

static void quiet_time_ends_before_the_line(void **state)
{
    rig r;
    rig_open(&r);
    r.t0_ns = mono_ns() + 300000000LL - 31LL * PERIOD_US * 1000;
    feed(&r, 0, 10, MW_FLAG_FIRST);
    assert_int_equal(mw_meter_quiet_until_ns(r.m), 0); /* 10 pairs: not settled */
    feed(&r, 10, 30, 0);
    int64_t q = mw_meter_quiet_until_ns(r.m);
    char buf[1200];
    int64_t hold;
    mw_frame f = make(30, 0);
    encode(&f, buf, sizeof buf, &hold);
    /* the shortest line seen could come next: its end is the earliest possible */
    int64_t end = earliest_end(r.t0_ns, 30, r.min_len, hold);
    assert_true(q > 0);
    assert_true(q <= end - 1000000 + 1000);            /* the 1 ms margin at least */
    assert_true(q >= end - 1000000 - 5000000 - 1000); /* at most margin + uncertainty limit */
    /* while quiet, a complete line on the port waits unread */
    size_t len = mw_frame_encode(&f, buf, sizeof buf);
    assert_int_equal(write(r.master, buf, len), (ssize_t)len);
    mw_meter_event ev;
    assert_int_equal(mw_meter_next(r.m, &ev, 0), 0);
    assert_int_equal(mw_meter_next(r.m, &ev, 20), 0); /* 20 ms: still quiet */
    mw_meter_stats st;
    mw_meter_get_stats(r.m, &st);
    assert_int_equal(st.windows, 30);
    rig_close(&r);
}

static void no_prediction_after_gap_or_reset(void **state)
{
    rig r;
    rig_open(&r);
    settle(&r, 300);
    assert_true(mw_meter_quiet_until_ns(r.m) > 0);
    /* windows 30..34 lost: 8 lines read as they come, then predicted again */
    feed(&r, 35, 36, 0);
    assert_int_equal(mw_meter_quiet_until_ns(r.m), 0);
    feed(&r, 36, 42, 0);
    assert_int_equal(mw_meter_quiet_until_ns(r.m), 0);
    feed(&r, 42, 44, 0);
    assert_true(mw_meter_quiet_until_ns(r.m) > 0);
    /* a reset (FIRST, meter time from 0 again): a new segment, its fit not settled */
    r.t0_ns = mono_ns() + 300000000LL - 11LL * PERIOD_US * 1000;
    feed(&r, 0, 10, MW_FLAG_FIRST);
    assert_int_equal(mw_meter_quiet_until_ns(r.m), 0);
    mw_meter_stats st;
    mw_meter_get_stats(r.m, &st);
    assert_int_equal(st.restarts, 1);
    assert_int_equal(st.lost_windows, 5);
    rig_close(&r);
}

static void complete_line_at_first_read_is_late(void **state)
{
    rig r;
    rig_open(&r);
    settle(&r, 150);
    int64_t q = mw_meter_quiet_until_ns(r.m);
    assert_true(q > mono_ns());
    char buf[1200];
    int64_t hold;
    mw_frame f = make(30, 0);
    size_t len = encode(&f, buf, sizeof buf, &hold);
    /* the line comes on time, but the reader wakes 5 ms after it (descheduled) */
    int64_t end = earliest_end(r.t0_ns, 30, len, hold);
    assert_true(q < end);
    sleep_until(end);
    assert_int_equal(write(r.master, buf, len), (ssize_t)len);
    sleep_until(end + 5000000);
    mw_meter_event ev;
    /* (the line is there: the wait only bounds a hang; 5 s costs nothing when it is read) */
    assert_int_equal(mw_meter_next(r.m, &ev, 5000), 1);
    assert_int_equal(ev.type, MW_METER_WINDOW);
    assert_int_equal(ev.w.seq, 30);
    assert_true(ev.arrival_mono_ns >= end + 5000000); /* stamped at the read: late */
    mw_meter_stats st;
    mw_meter_get_stats(r.m, &st);
    assert_int_equal(st.predicted_reads, 1);
    assert_int_equal(st.late_reads, 1);
    /* read as they come for the next 8 lines */
    assert_int_equal(mw_meter_quiet_until_ns(r.m), 0);
    feed(&r, 31, 38, 0);
    assert_int_equal(mw_meter_quiet_until_ns(r.m), 0);
    feed(&r, 38, 40, 0);
    assert_true(mw_meter_quiet_until_ns(r.m) > 0);
    rig_close(&r);
}

static void last_bytes_after_quiet_time_read_as_they_come(void **state)
{
    rig r;
    rig_open(&r);
    settle(&r, 150);
    int64_t q = mw_meter_quiet_until_ns(r.m);
    assert_true(q > mono_ns());
    char buf[1200];
    int64_t hold;
    mw_frame f = make(30, 0);
    size_t len = encode(&f, buf, sizeof buf, &hold);
    size_t half = len / 2;
    assert_int_equal(write(r.master, buf, half), (ssize_t)half);
    int64_t rest_at = q + 20000000; /* the rest 20 ms after the quiet time */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sleep_until(rest_at);
        _exit(write(r.master, buf + half, len - half) == (ssize_t)(len - half) ? 0 : 1);
    }
    mw_meter_event ev;
    int got = mw_meter_next(r.m, &ev, 10000); /* returns once the rest came (~20 ms) */
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(got, 1);
    assert_int_equal(ev.w.seq, 30);
    /* stamped when its last bytes came, not when the model said */
    assert_true(ev.arrival_mono_ns >= rest_at);
    assert_true(ev.arrival_mono_ns < rest_at + 1000000000LL);
    mw_meter_stats st;
    mw_meter_get_stats(r.m, &st);
    assert_int_equal(st.predicted_reads, 1);
    assert_int_equal(st.late_reads, 0);
    assert_true(mw_meter_quiet_until_ns(r.m) > 0); /* and predictions go on */
    rig_close(&r);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quiet_time_ends_before_the_line),
        cmocka_unit_test(no_prediction_after_gap_or_reset),
        cmocka_unit_test(complete_line_at_first_read_is_late),
        cmocka_unit_test(last_bytes_after_quiet_time_read_as_they_come),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
