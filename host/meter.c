/* meter — a session with one meter (mw_meter.h). Events wait in a fixed ring so that
 * windows arriving while a command awaits its reply are delivered later, in order. The
 * clock model sees every window's (t1_us, arrival) pair; t0 and t1 are mapped with the fit
 * that includes the window itself, and turned from CLOCK_MONOTONIC into CLOCK_REALTIME with
 * the two clocks' difference read once. A window whose line is over 1 s late on the fit is
 * held, with every event after it, until the lines show whether the host read late (the
 * next line on time: stamped as usual) or the meter's time fell behind (lines at the
 * meter's pace, each as late: a new segment, mw_meter.h).
 *
 * Line mode (mw_port_set_lines, docs/performance.md): a session puts its port in it, so
 * that the kernel wakes the reader once a line, when the line's '\n' has come, and the read
 * that brings it stamps the arrival the clock model fits: one poll and one read a line.
 *
 * Predicted reads, for a port where line mode cannot be had (mw_meter_quiet_until_ns,
 * docs/performance.md; its quiet time and the rest of a line at the UART's pace are slept
 * through by the one wait_until): once the fit is settled,
 * the next line cannot end before its window's end on the fit plus its hold, the transport's
 * latency and its bytes at the UART's rate, so the port is left unwatched until a margin
 * before that and the line is then read in one or two wake-ups. The arrivals the clock
 * model fits are still those of the line's last bytes as they come, never the moment the
 * model chose: a line found complete at the first read is counted late (its stamp, the
 * read's, is above the lower envelope, where it does no harm) and the next lines are read
 * as they come, as after a gap, reset, step, held window, bad bytes or reconnect. */
#include "mw_meter.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QCAP 256
#define PROBE_AFTER_MS 2000 /* the bootloader has surely handed over by then */
#define PROBE_EVERY_MS 1500
#define UART_BYTE_NS 85000     /* 10 bits at 117,647 Bd */
#define WAKE_MARGIN_NS 2000000 /* see pump() */
/* Finished segments whose clock is kept for the final restamp. A meter restarts its time a
 * few times in a run; a device restarting it with every line would otherwise cost a clock
 * (kilobytes) per line: beyond this, segments keep their live stamps. */
#define KEEP_SEGMENTS 1024
/* Late windows (mw_meter.h): a line this late on the live fit is held; held windows that
 * span STEP_SPAN_US of meter time (or HOLD_MAX events) and came at least at half the
 * meter's pace start a new segment; held longer than HOLD_MAX_NS: released as read late */
#define LATE_NS 1000000000LL
#define STEP_SPAN_US 1000000ULL
#define HOLD_MAX 64
#define HOLD_MAX_NS 2000000000LL
/* Predicted reads (mw_meter_quiet_until_ns): a settled fit has this many pairs and an
 * uncertainty under PREDICT_MAX_UNC_NS; the port is looked at again PREDICT_MARGIN_NS (plus
 * the uncertainty) before the earliest end of the next line (the shortest of the last
 * PREDICT_LENS window lines); after a gap, reset, step, held window, bad bytes, reconnect
 * or a line found complete at the first read, PREDICT_COOLDOWN lines are read as they come */
#define PREDICT_MIN_PAIRS 20
#define PREDICT_MAX_UNC_NS 5000000LL
#define PREDICT_MARGIN_NS 1000000LL
#define PREDICT_LENS 8
#define PREDICT_COOLDOWN 8

struct mw_meter {
    mw_port *port;
    mw_clock **done; /* done[s]: the refit clock of finished segment s, 0 .. ndone-1 */
    int ndone;
    int finished; /* the current segment's clock was refit (mw_meter_finish) */
    mw_proto_reader rd;
    mw_clock *clock;
    mw_meter_event q[QCAP];
    int qhead, qlen;
    int have_ident;
    mw_proto_ident ident;
    size_t last_wire; /* bytes of the last window line, "*XXXX\r\n" included */
    int have_last, segment;
    uint32_t last_seq;
    uint64_t last_t1_us;
    mw_meter_stats st;
    int64_t rt_off_ns;  /* CLOCK_REALTIME - CLOCK_MONOTONIC, read once: rt_minus_mono */
    int nheld;          /* the last nheld queued events wait for the late-window decision */
    int64_t held_since; /* CLOCK_MONOTONIC when the first of them was held */
    int wake_fd;        /* mw_meter_set_wake_fd, -1: none */
    /* predicted reads (mw_meter_quiet_until_ns) */
    uint32_t last_period_us;   /* of the last window */
    int64_t last_hold_ns;      /* its line hold */
    size_t lens[PREDICT_LENS]; /* bytes of the last window lines, 0: none yet */
    int ilens;                 /* where the next one goes */
    int cooldown;        /* window lines still to read as they come before predicting again */
    int blind;           /* the port was left unread on a prediction: the next read that
                            brings bytes is the first one after it */
    uint64_t seen_bad;   /* bad_crc + dropped_bytes when last looked at */
    int64_t line_ns;     /* latency + byte time of the clock's model (mw_clock_config) */
    int64_t byte_ns;
    int64_t bytes_at_ns; /* CLOCK_MONOTONIC of the last read that brought bytes */
};

static void release(mw_meter *m, int skip, int64_t step_ns);

static int64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, read once when the meter is made and kept: every time stamp,
 * live or restamped, uses the same offset, so that windows contiguous in meter time stay contiguous
 * in host time (two clock reads per stamp gave each stamp its own jitter: a few ns on a
 * quiet machine, up to a preemption under load, and windows that overlapped). Of five
 * brackets monotonic-realtime-monotonic the tightest is taken. */
static int64_t rt_minus_mono(void)
{
    int64_t best = INT64_MAX, off = 0;
    for (int i = 0; i < 5; i++) {
        int64_t a = now_ns(CLOCK_MONOTONIC), r = now_ns(CLOCK_REALTIME);
        int64_t b = now_ns(CLOCK_MONOTONIC);
        if (b - a < best) {
            best = b - a;
            off = r - (a + (b - a) / 2);
        }
    }
    return off;
}

mw_meter *mw_meter_new(void)
{
    mw_meter *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->rt_off_ns = rt_minus_mono();
    m->wake_fd = -1;
    m->cooldown = PREDICT_COOLDOWN;
    mw_clock_config cfg;
    mw_clock_config_default(&cfg); /* the clock below is made with these */
    m->line_ns = cfg.latency_ns;
    m->byte_ns = cfg.byte_ns;
    m->clock = mw_clock_new(NULL);
    if (!m->clock) {
        free(m);
        return NULL;
    }
    mw_proto_reader_init(&m->rd);
    return m;
}

void mw_meter_close(mw_meter *m)
{
    if (!m) return;
    mw_port_close(m->port);
    mw_clock_free(m->clock);
    for (int i = 0; i < m->ndone; i++)
        mw_clock_free(m->done[i]);
    free(m->done);
    free(m);
}

mw_port *mw_meter_port(mw_meter *m)
{
    return m->port;
}
mw_clock *mw_meter_clock(mw_meter *m)
{
    return m->clock;
}
const mw_proto_ident *mw_meter_ident(const mw_meter *m)
{
    return m->have_ident ? &m->ident : NULL;
}
void mw_meter_get_stats(const mw_meter *m, mw_meter_stats *st)
{
    *st = m->st;
    st->bad_crc = m->rd.bad_crc;
    st->dropped_bytes = m->rd.dropped_bytes;
}

void mw_meter_set_port(mw_meter *m, mw_port *p)
{
    release(m, 0, 0);
    mw_port_close(m->port);
    m->port = p;
    if (p) mw_port_set_lines(p, 1); /* or, where it cannot be had, bytes as they come */
    m->cooldown = PREDICT_COOLDOWN;
    m->blind = 0;
    /* a partial line from the old port is not continued; the counts go on */
    mw_proto_reader r = m->rd;
    mw_proto_reader_init(&m->rd);
    m->rd.bad_crc = r.bad_crc;
    m->rd.dropped_bytes = r.dropped_bytes;
    m->rd.overlong = r.overlong;
}

/* The segment is over: refit its clock over all its pairs and keep it for restamping; the
 * next segment starts with a successor clock (its drift as the prior). Returns 0, or -1 when
 * it is not kept (out of memory, or KEEP_SEGMENTS kept already): then the clock is simply
 * re-anchored, and mw_meter_map_segment knows no final line for the segment. */
static int keep_clock(mw_meter *m)
{
    if (m->ndone >= KEEP_SEGMENTS) {
        mw_clock_reanchor(m->clock);
        m->finished = 0;
        return -1;
    }
    mw_clock **d = realloc(m->done, (size_t)(m->ndone + 1) * sizeof *d);
    mw_clock *next = d ? mw_clock_successor(m->clock) : NULL;
    if (d) m->done = d;
    if (!next) {
        mw_clock_reanchor(m->clock);
        return -1;
    }
    mw_clock_refit_all(m->clock);
    while (m->ndone < m->segment)
        m->done[m->ndone++] = NULL; /* cannot happen: one per segment */
    m->done[m->ndone++] = m->clock;
    m->clock = next;
    m->finished = 0;
    return 0;
}

void mw_meter_finish(mw_meter *m)
{
    release(m, 0, 0);
    if (!m->finished) mw_clock_refit_all(m->clock);
    m->finished = 1;
}

int mw_meter_map_segment(const mw_meter *m, int seg, uint64_t meter_us, int64_t *t_ns,
                         int64_t *uncertainty_ns)
{
    const mw_clock *c = seg >= 0 && seg < m->ndone          ? m->done[seg]
                        : seg == m->segment && m->have_last ? m->clock
                                                            : NULL;
    int64_t mono;
    if (!c || mw_clock_map(c, meter_us, &mono) != 0) return -1;
    *t_ns = mono + m->rt_off_ns; /* read when the meter was made: rt_minus_mono */
    if (uncertainty_ns && mw_clock_uncertainty(c, meter_us, uncertainty_ns) != 0) {
        mw_clock_state cs;
        mw_clock_get_state(c, &cs);
        *uncertainty_ns = cs.uncertainty_ns;
    }
    return 0;
}

int mw_meter_segment_knots(const mw_meter *m, int seg, mw_clock_knot *out, int cap)
{
    const mw_clock *c = seg >= 0 && seg < m->ndone          ? m->done[seg]
                        : seg == m->segment && m->have_last ? m->clock
                                                            : NULL;
    int n = c ? mw_clock_knots(c, out, cap) : 0;
    for (int i = 0; n <= cap && i < n; i++)
        out[i].t_ns += m->rt_off_ns; /* as mw_meter_map_segment */
    return n;
}

/* Window ev's pair into the clock, and its stamps from the fit that includes it. */
static void stamp(mw_meter *m, mw_meter_event *ev)
{
    const mw_proto_window *w = &ev->w;
    ev->segment = m->segment;
    /* the line left the meter its hold after the window's end (docs/protocol.md) */
    mw_clock_add(m->clock, w->t1_us, ev->arrival_mono_ns - mw_proto_hold_ns(w), ev->line_bytes);
    int64_t t0, t1;
    mw_clock_map(m->clock, w->t0_us, &t0);
    mw_clock_map(m->clock, w->t1_us, &t1);
    int64_t off = m->rt_off_ns;
    ev->t0_ns = t0 + off;
    ev->t1_ns = t1 + off;
    mw_clock_state cs;
    mw_clock_get_state(m->clock, &cs);
    ev->uncertainty_ns = cs.uncertainty_ns;
}

/* How late window ev's line came on the live fit, ns (0 before there is one). */
static int64_t lateness(const mw_meter *m, const mw_meter_event *ev)
{
    int64_t t1;
    if (mw_clock_map(m->clock, ev->w.t1_us, &t1) != 0) return 0;
    return ev->arrival_mono_ns - mw_proto_hold_ns(&ev->w) - t1;
}

/* The held events, all but the last skip queued ones, released: their windows stamped as
 * read late (step_ns 0), or as a new segment whose meter time fell behind by step_ns. */
static void release(mw_meter *m, int skip, int64_t step_ns)
{
    if (!m->nheld) return;
    m->cooldown = PREDICT_COOLDOWN; /* held windows: read the next lines as they come */
    if (step_ns > 0) {
        keep_clock(m);
        m->segment++;
        m->st.time_steps++;
    }
    int first = 1;
    for (int i = m->qlen - skip - m->nheld; i < m->qlen - skip; i++) {
        mw_meter_event *ev = &m->q[(m->qhead + i) % QCAP];
        if (ev->type != MW_METER_WINDOW) continue;
        if (first && step_ns > 0) {
            ev->restart = 1;
            ev->stepped_ns = step_ns;
        }
        first = 0;
        stamp(m, ev);
    }
    m->nheld = 0;
}

/* The held events (the last one a late window): decided yet? The step is the least late of
 * them (the others' lines had delays of their own). */
static void decide(mw_meter *m)
{
    const mw_meter_event *f = NULL, *l = NULL;
    int nw = 0;
    int64_t late_ns = INT64_MAX;
    for (int i = m->qlen - m->nheld; i < m->qlen; i++) {
        const mw_meter_event *ev = &m->q[(m->qhead + i) % QCAP];
        if (ev->type != MW_METER_WINDOW) continue;
        if (!f) f = ev;
        l = ev;
        nw++;
        int64_t late = lateness(m, ev);
        if (late < late_ns) late_ns = late;
    }
    uint64_t span_us = l->w.t1_us - f->w.t1_us;
    int64_t arrived_ns = l->arrival_mono_ns - f->arrival_mono_ns;
    int enough = nw >= 3 && (span_us >= STEP_SPAN_US || m->nheld >= HOLD_MAX);
    if (enough && (double)arrived_ns * 2 >= (double)span_us * 1000)
        release(m, 0, late_ns); /* at the meter's pace: its time fell behind */
    else if (m->nheld >= HOLD_MAX)
        release(m, 0, 0);
}

/* Window ev, just queued: classified against the last one, then stamped or held. */
static void window_event(mw_meter *m, mw_meter_event *ev)
{
    const mw_proto_window *w = &ev->w;
    ev->restart = 0;
    ev->lost = 0;
    ev->stepped_ns = 0;
    m->st.windows++;
    if (!m->have_last) {
        ev->restart = 1;
    } else if ((w->flags & MW_FLAG_FIRST) || w->seq <= m->last_seq || w->t1_us <= m->last_t1_us) {
        release(m, 1, 0);
        ev->restart = 1;
        keep_clock(m);
        m->segment++;
        m->st.restarts++;
    } else if (w->seq > m->last_seq + 1) {
        ev->lost = w->seq - m->last_seq - 1;
        m->st.lost_windows += ev->lost;
    }
    if (ev->restart || ev->lost) m->cooldown = PREDICT_COOLDOWN;
    else if (m->cooldown > 0) m->cooldown--;
    m->have_last = 1;
    m->last_seq = w->seq;
    m->last_t1_us = w->t1_us;
    m->last_period_us = mw_proto_period_us(w);
    m->last_hold_ns = mw_proto_hold_ns(w);
    m->lens[m->ilens] = ev->line_bytes;
    m->ilens = (m->ilens + 1) % PREDICT_LENS;
    if (!ev->restart) {
        int64_t late = lateness(m, ev);
        if (late > LATE_NS) {
            if (!m->nheld) m->held_since = now_ns(CLOCK_MONOTONIC);
            m->nheld++;
            decide(m);
            return;
        }
        release(m, 1, 0);
    }
    stamp(m, ev);
}

/* One CRC-checked line in m->rd.line: make it an event. */
static void line_event(mw_meter *m, int64_t arrival)
{
    if (m->qlen == QCAP) {
        m->st.queue_overflows++;
        return;
    }
    mw_meter_event *ev = &m->q[(m->qhead + m->qlen) % QCAP];
    const char *body = m->rd.line;
    size_t len = strlen(body);
    memcpy(ev->body, body, len + 1);
    ev->line_bytes = len + 7; /* "*XXXX\r\n" */
    ev->arrival_mono_ns = arrival;
    m->st.lines++;
    switch (body[0]) {
    case 'W':
        if (mw_proto_parse_window(body, &ev->w) != 0) {
            m->st.bad_lines++;
            return;
        }
        ev->type = MW_METER_WINDOW;
        m->last_wire = ev->line_bytes;
        m->qlen++;
        window_event(m, ev); /* holds it, or not */
        return;
    case 'B':
        if (mw_proto_parse_boot(body, &ev->mcusr, &ev->config_status) != 0) {
            m->st.bad_lines++;
            return;
        }
        ev->type = MW_METER_BOOT;
        break;
    case 'I':
        if (mw_proto_parse_ident(body, &m->ident) != 0) {
            m->st.bad_lines++;
            return;
        }
        m->have_ident = 1;
        ev->type = MW_METER_IDENT;
        break;
    default:
        ev->type = MW_METER_LINE;
        break;
    }
    m->qlen++;
    if (m->nheld) m->nheld++; /* behind a held window */
}

void mw_meter_feed(mw_meter *m, const void *buf, size_t n, int64_t arrival_mono_ns)
{
    const uint8_t *b = buf;
    m->st.bytes += n;
    for (size_t i = 0; i < n; i++)
        if (mw_proto_reader_push(&m->rd, b[i])) line_event(m, arrival_mono_ns);
}

static int pop(mw_meter *m, mw_meter_event *ev)
{
    if (m->qlen <= m->nheld) return 0;
    *ev = m->q[m->qhead];
    m->qhead = (m->qhead + 1) % QCAP;
    m->qlen--;
    return 1;
}

void mw_meter_set_wake_fd(mw_meter *m, int fd)
{
    m->wake_fd = fd;
}

/* The rest of a line that has begun cannot be there before the UART has sent it: the time
 * (CLOCK_MONOTONIC ns) until which there is no need to look, counted from the read that
 * brought its last bytes, or 0 (no line begun, or its length unknown). A 16-channel line takes
 * 42 ms and would otherwise cost tens of wake-ups; the margin leaves the read of the line's
 * last byte, which stamps its arrival, on time for a line up to WAKE_MARGIN_NS / UART_BYTE_NS
 * bytes shorter than the previous window line. */
static int64_t rest_of_line_ns(const mw_meter *m)
{
    if (m->port && mw_port_lines(m->port)) return 0; /* the kernel waits for the line's end */
    if (m->rd.len == 0 || m->last_wire <= m->rd.len + 2) return 0;
    return m->bytes_at_ns + (int64_t)(m->last_wire - m->rd.len - 2) * UART_BYTE_NS -
           WAKE_MARGIN_NS;
}

/* The one "sleep until" of a session, with the port left unwatched (a predicted quiet
 * time, the rest of a line at the UART's pace): until end_ns (CLOCK_MONOTONIC), ended early
 * by a signal and, given woken, by the wake descriptor (then *woken = 1). */
static void wait_until(const mw_meter *m, int64_t end_ns, int *woken)
{
    int64_t left = end_ns - now_ns(CLOCK_MONOTONIC);
    if (left <= 0) return;
    struct timespec ts = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
    struct pollfd pfd = {.fd = m->wake_fd, .events = POLLIN};
    int r = ppoll(&pfd, woken && m->wake_fd >= 0 ? 1 : 0, &ts, NULL);
    if (woken && ((r < 0 && errno == EINTR) || (r > 0 && pfd.revents))) *woken = 1;
}

/* Read the port once, waiting up to timeout_ms; with woken, the wait also ends when the wake
 * descriptor is readable or a signal comes (*woken = 1). Returns 0, or -1 when the port is
 * gone. */
static int pump(mw_meter *m, int timeout_ms, int *woken)
{
    if (!m->port) return -1;
    /* sleep through most of a line that has begun (rest_of_line_ns); mw_meter_next has
     * already waited for it (mw_meter_quiet_until_ns), a command's reply has not */
    int64_t rest = rest_of_line_ns(m);
    if (rest && timeout_ms > 0) {
        int64_t t = now_ns(CLOCK_MONOTONIC), wait = rest - t;
        if (wait > (int64_t)timeout_ms * 1000000) wait = (int64_t)timeout_ms * 1000000;
        if (wait >= 1000000) {
            wait_until(m, t + wait, NULL);
            timeout_ms -= (int)(wait / 1000000);
        }
    }
    uint8_t buf[4096];
    int n = mw_port_read_wake(m->port, buf, sizeof buf, timeout_ms, woken ? m->wake_fd : -1,
                              woken);
    if (n < 0) return -1;
    /* the first read after a predicted quiet time decides, whether it brought bytes or not:
     * one that finds nothing means the line had not come, and later bytes are read as they
     * come (a line that then arrives in one piece, as a USB adapter delivers it, is on time) */
    int was_blind = m->blind;
    m->blind = 0;
    if (was_blind) m->st.predicted_reads++;
    if (n > 0) {
        uint64_t windows = m->st.windows;
        m->bytes_at_ns = now_ns(CLOCK_MONOTONIC);
        mw_meter_feed(m, buf, (size_t)n, m->bytes_at_ns);
        /* the first bytes after a predicted quiet time already end a window line: it arrived
         * before the read, when is not known (its stamp is the read's, late: harmless to
         * the lower envelope), and the prediction was too late: read as they come again */
        if (was_blind && m->st.windows > windows) {
            m->st.late_reads++;
            m->cooldown = PREDICT_COOLDOWN;
        }
    }
    return 0;
}

/* The earliest end of the next window line on the live fit (CLOCK_MONOTONIC ns), less the
 * margin, when a prediction is allowed; 0 when the port must be read as bytes come. */
static int64_t predicted_wake_ns(mw_meter *m)
{
    uint64_t bad = m->rd.bad_crc + m->rd.dropped_bytes;
    if (bad != m->seen_bad) { /* bytes were lost: a line may have been too */
        m->seen_bad = bad;
        m->cooldown = PREDICT_COOLDOWN;
    }
    if (!m->port || mw_port_lines(m->port) || !m->have_last || m->cooldown > 0 || m->nheld ||
        m->rd.len > 0 || m->last_period_us == 0)
        return 0; /* in line mode a line costs one wake-up already */
    mw_clock_state cs;
    mw_clock_get_state(m->clock, &cs);
    if (cs.npairs < PREDICT_MIN_PAIRS || cs.uncertainty_ns > PREDICT_MAX_UNC_NS) return 0;
    size_t len = SIZE_MAX;
    for (int i = 0; i < PREDICT_LENS; i++)
        if (m->lens[i] && m->lens[i] < len) len = m->lens[i];
    int64_t t1;
    if (len == SIZE_MAX || mw_clock_map(m->clock, m->last_t1_us + m->last_period_us, &t1) != 0)
        return 0;
    /* the fit maps a window's end to its line's last byte less the hold, the transport's
     * latency and the line's bytes (mw_clock.h): added back, the line's earliest end */
    return t1 + m->last_hold_ns + m->line_ns + (int64_t)len * m->byte_ns - PREDICT_MARGIN_NS -
           cs.uncertainty_ns;
}

int64_t mw_meter_quiet_until_ns(mw_meter *m)
{
    int64_t now = now_ns(CLOCK_MONOTONIC), rest = m->port ? rest_of_line_ns(m) : 0;
    if (rest) return rest > now ? rest : 0; /* the UART's pace alone, no prediction */
    int64_t t = predicted_wake_ns(m);
    if (t <= now) return 0;
    m->blind = 1;
    return t;
}

int mw_meter_next(mw_meter *m, mw_meter_event *ev, int timeout_ms)
{
    if (m->nheld && now_ns(CLOCK_MONOTONIC) - m->held_since > HOLD_MAX_NS) release(m, 0, 0);
    if (pop(m, ev)) return 1;
    int64_t deadline = now_ns(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000;
    for (;;) {
        /* rounded up: a wait cut short by the rounding would wake again at once */
        int64_t left_ns = deadline - now_ns(CLOCK_MONOTONIC);
        int left_ms = left_ns > 0 ? (int)((left_ns + 999999) / 1000000) : 0;
        int woken = 0;
        int64_t quiet = mw_meter_quiet_until_ns(m);
        if (quiet) { /* no line before then: the port is not worth a wake-up */
            wait_until(m, quiet < deadline ? quiet : deadline, &woken);
            if (woken || now_ns(CLOCK_MONOTONIC) >= deadline) return 0;
            continue;
        }
        if (pump(m, left_ms, &woken) < 0) {
            if (!m->port) return -1; /* fed (mw_meter_feed): held events wait for more */
            release(m, 0, 0);        /* what was held was read late, before the port went */
            return pop(m, ev) ? 1 : -1;
        }
        if (pop(m, ev)) return 1;
        if (woken || now_ns(CLOCK_MONOTONIC) >= deadline) return 0;
    }
}

int mw_meter_queued(mw_meter *m, mw_meter_event *ev)
{
    return pop(m, ev);
}

/* Find the first queued non-window line starting with expect or "E,", remove it from the
 * queue and copy its body. Returns 0 (expected), 1 (error reply) or -1 (none yet). */
static int take_reply(mw_meter *m, const char *expect, char *reply, size_t replylen)
{
    size_t elen = strlen(expect);
    for (int i = 0; i < m->qlen; i++) {
        mw_meter_event *ev = &m->q[(m->qhead + i) % QCAP];
        if (ev->type == MW_METER_WINDOW || ev->type == MW_METER_BOOT) continue;
        int r = !strncmp(ev->body, expect, elen) ? 0 : !strncmp(ev->body, "E,", 2) ? 1 : -1;
        if (r < 0) continue;
        snprintf(reply, replylen, "%s", ev->body);
        if (i >= m->qlen - m->nheld) m->nheld--;
        for (int j = i; j < m->qlen - 1; j++)
            m->q[(m->qhead + j) % QCAP] = m->q[(m->qhead + j + 1) % QCAP];
        m->qlen--;
        return r;
    }
    return -1;
}

int mw_meter_command(mw_meter *m, const char *cmd, const char *expect, char *reply, size_t replylen,
                     int timeout_ms)
{
    char line[128];
    int n = snprintf(line, sizeof line, "%s\r\n", cmd);
    if (!m->port || n >= (int)sizeof line ||
        mw_port_write(m->port, line, (size_t)n, timeout_ms) != 0) {
        snprintf(reply, replylen, "cannot send '%s'", cmd);
        return -1;
    }
    int64_t deadline = now_ns(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000;
    for (;;) {
        int r = take_reply(m, expect, reply, replylen);
        if (r >= 0) return r;
        int64_t left_ms = (deadline - now_ns(CLOCK_MONOTONIC)) / 1000000;
        if (left_ms <= 0) {
            snprintf(reply, replylen, "no reply to '%s' within %d ms", cmd, timeout_ms);
            return -1;
        }
        if (pump(m, (int)left_ms, NULL) < 0) {
            snprintf(reply, replylen, "port lost while waiting for the reply to '%s'", cmd);
            return -1;
        }
    }
}

mw_meter *mw_meter_open(const char *path, int ident_ms, mw_port_err *why, char *err, size_t errlen)
{
    mw_port *p = mw_port_open(path, why, err, errlen);
    if (!p) return NULL;
    mw_meter *m = mw_meter_new();
    if (!m) {
        mw_port_close(p);
        snprintf(err, errlen, "%s: out of memory", path);
        if (why) *why = MW_PORT_IO;
        return NULL;
    }
    m->port = p;
    mw_port_set_lines(p, 1); /* one wake-up a line; without it, bytes as they come */
    int64_t start = now_ns(CLOCK_MONOTONIC), probe = start + (int64_t)PROBE_AFTER_MS * 1000000;
    int64_t deadline = start + (int64_t)ident_ms * 1000000;
    while (!m->have_ident) {
        int64_t t = now_ns(CLOCK_MONOTONIC);
        if (t >= deadline) break;
        if (t >= probe) {
            mw_port_write(m->port, "ID\r\n", 4, 200);
            probe = t + (int64_t)PROBE_EVERY_MS * 1000000;
        }
        int64_t until = probe < deadline ? probe : deadline;
        if (pump(m, (int)((until - t) / 1000000) + 1, NULL) < 0) {
            snprintf(err, errlen, "%s: the port went away while waiting for the meter", path);
            if (why) *why = MW_PORT_IO;
            mw_meter_close(m);
            return NULL;
        }
    }
    if (!m->have_ident) {
        if (m->st.lines)
            snprintf(err, errlen,
                     "%s: no megawatt identification within %.1f s (%llu other lines: is it "
                     "running megawatt firmware? try 'mw flash')",
                     path, ident_ms / 1000.0, (unsigned long long)m->st.lines);
        else
            snprintf(err, errlen,
                     "%s: no answer within %.1f s (%llu bytes in whole lines, %llu lines with a "
                     "bad CRC: is a meter "
                     "with megawatt firmware there? try 'mw flash')",
                     path, ident_ms / 1000.0, (unsigned long long)m->st.bytes,
                     (unsigned long long)m->rd.bad_crc);
        if (why) *why = MW_PORT_IO;
        mw_meter_close(m);
        return NULL;
    }
    return m;
}
