/* record — see mw_record.h. One session, one thread: mw_record_pump drains the meter's event
 * queue (mw_meter_next, then without waiting), turns every window into one sample per channel
 * and every boot line into the reason of the gap before the next window, and reopens a lost
 * port on its own schedule. Store failures do not stop the session: each pump reports its
 * first write failure and a failed commit in the news, and the caller decides what to say.
 * mw_record_run is a straight sequence of loops of turns (pump, maybe watch the command, hand
 * the news over); the signal flags are only read and cleared between turns.
 *
 * Waking costs CPU (docs/performance.md): a turn sleeps in one poll() on the meter's port
 * and the command's pidfd (pidfd_open), so it wakes when a line arrives, when the command
 * ends, when a signal comes, or when the store's commit is due (mw_store_commit_due_ns:
 * what was written is committed within a second, once a second at most), never on a tick.
 * Without a pidfd (a kernel before 5.3, no descriptor left) SIGCHLD cuts the wait short and
 * a 100 ms tick catches one delivered to another thread. The meter's port is in line mode
 * (mw_port_set_lines): the poll wakes once a line, when it has ended, and one read takes it.
 * Where line mode cannot be had, with a settled clock fit the port is left out of the wait
 * until shortly before the next line can have ended (mw_meter_quiet_until_ns).
 *
 * Several meters (mw_record_add_meter): one session per meter, each with its own meter
 * session (clock model, segments, energy bases, gaps, reconnection), all driven by the
 * first session's loop in this one thread: a turn waits in one poll() on every connected
 * meter's port (but those whose next line cannot have ended yet: the wait ends when the
 * earliest of them is due), then reads each without waiting. One thread and one poll rather than a
 * thread per meter because the run store is one SQLite connection (a second writer would
 * wait up to a second for the first's open transaction, and late reads would shift the
 * arrival times the clock model fits), and because each meter is still read the moment its
 * bytes arrive, which is what its clock model needs. A session's windows are stored under
 * run-wide channels (first_channel + k - 1), its gaps and clock knots under its meter number. */
#include "mw_record.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mw_alloc.h"
#include "mw_usb.h"

#define RECORD_RETRY_NS 200000000LL /* reopen a lost port every 200 ms */
#define RECORD_FIRST_WAIT_NS 3000000000LL
#define RECORD_WAIT_MS 500 /* longest wait for the meter; signals (SIGCHLD too) cut it short */
/* longest wait while the command runs: its pidfd ends the wait when it ends, a signal
 * caught by this thread too; one caught by another thread (the simulated board's,
 * libusb's) is passed on to the command within this */
#define RECORD_CHILD_WAIT_MS 250
/* the same without a pidfd: SIGCHLD delivered to another thread is seen within this */
#define RECORD_CHILD_POLL_MS 100
#define RECORD_MAX_CH MW_PROTO_MAX_I
/* at the end, a meter still connected but without a window for this long (or 4 of its
 * periods, if longer) is lost too */
#define RECORD_SILENT_NS 3000000000LL
/* several meters: each is read at least this often, bytes or not */
#define RECORD_SWEEP_NS 250000000LL

extern char **environ;

struct mw_record {
    mw_meter *m;
    mw_store *st;
    mw_usb_watch *usb;
    char path[4096];
    int nchan;
    /* samples */
    int segment; /* last segment stored, -1 before any */
    int nseg;    /* segments seen */
    int64_t base_mj[RECORD_MAX_CH + 1], last_mj[RECORD_MAX_CH + 1];
    int64_t last_t1_ns;
    double power_w[RECORD_MAX_CH + 1];
    uint64_t windows;
    int have_window;
    /* connection */
    int connected;
    int64_t lost_at_mono, next_retry_mono;
    int reconnects;
    char pending_gap[64]; /* reason for the gap before the next window, "" when none */
    char boot_cause[32];
    mw_record_news *news; /* of the pump under way */
    /* the stages */
    mw_record_stage stage;
    pid_t child;
    int pidfd;      /* the command's (pidfd_open), -1: none */
    int woke_empty; /* the last pump's wait ended without an event (a pidfd's end, a signal) */
    int64_t waited_mono; /* CLOCK_MONOTONIC of the last waitpid */
    int child_status, child_done;
    int64_t cmd_start_ns, cmd_end_ns;
    int64_t start_ns;     /* CLOCK_REALTIME when the session began */
    uint64_t last_t1_us;  /* the last window's end in meter time */
    const char *lost_why; /* lost for good: the gap's reason, written at the end, ... */
    int64_t lost_end_ns;  /* ... up to here */
    /* several meters (mw_record_set_meter, mw_record_add_meter) */
    int meter;         /* the run's meter number, 1.. */
    int first_channel; /* run-wide channel of current channel 1 */
    int multi;         /* one of several meters: knots are the meter's own */
    int64_t last_pump_mono; /* when it was last read (several meters) */
    char name[128];    /* the meter's name, for the outcome */
    mw_record *more[MW_RECORD_MAX_METERS - 1];
    int nmore;
};

static int64_t now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

mw_record *mw_record_new(mw_meter *m, mw_store *st, const char *port_path, int nchan, int watch_usb)
{
    mw_record *r = mw_xcalloc(1, sizeof *r);
    r->m = m;
    r->st = st;
    snprintf(r->path, sizeof r->path, "%s", port_path);
    r->nchan = nchan < 0 ? 0 : nchan > RECORD_MAX_CH ? RECORD_MAX_CH : nchan;
    char why[256];
    r->usb = watch_usb ? mw_usb_watch_start(why, sizeof why) : NULL; /* none: periodic retries */
    r->segment = -1;
    r->pidfd = -1;
    r->woke_empty = 1;
    r->connected = 1;
    r->meter = 1;
    r->first_channel = 1;
    r->start_ns = now(CLOCK_REALTIME);
    return r;
}

void mw_record_free(mw_record *r)
{
    if (!r) return;
    if (r->pidfd >= 0) {
        mw_meter_set_wake_fd(r->m, -1);
        close(r->pidfd);
    }
    mw_usb_watch_stop(r->usb);
    free(r);
}

/* ---- samples ----------------------------------------------------------------------- */

static void write_failed(mw_record *r)
{
    if (!r->news->write_failed)
        snprintf(r->news->write_err, sizeof r->news->write_err, "%s", mw_store_error(r->st));
    r->news->write_failed = 1;
}

static void gap(mw_record *r, int64_t from, int64_t to, const char *reason)
{
    if (to < from) to = from;
    if (mw_store_gap_add_meter(r->st, from, to, reason, r->meter) != 0) write_failed(r);
}

static void on_window(mw_record *r, const mw_meter_event *ev)
{
    const mw_proto_window *w = &ev->w;
    if (ev->segment != r->segment && ev->stepped_ns > 0) {
        /* a new segment because the meter's time fell behind the host's (it stood still:
         * a simulated board stopped with this process): its counters went on, so the
         * energy base stays; the windows it never made are a gap */
        if (r->have_window && !r->pending_gap[0])
            snprintf(r->pending_gap, sizeof r->pending_gap, "meter time fell behind (%.1f s)",
                     (double)ev->stepped_ns * 1e-9);
        r->segment = ev->segment;
        r->nseg = ev->segment + 1;
    } else if (ev->segment != r->segment) {
        /* a new segment: the meter restarted its time; energy continues from the last */
        for (int k = 1; k <= r->nchan; k++)
            r->base_mj[k] = r->last_mj[k];
        if (r->have_window && !r->pending_gap[0])
            snprintf(r->pending_gap, sizeof r->pending_gap, "meter reset%s%s%s",
                     r->boot_cause[0] ? " (" : "", r->boot_cause, r->boot_cause[0] ? ")" : "");
        r->segment = ev->segment;
        r->nseg = ev->segment + 1;
    }
    if (r->have_window && r->pending_gap[0]) {
        gap(r, r->last_t1_ns, ev->t0_ns, r->pending_gap);
    } else if (r->have_window && ev->lost) {
        char why[64];
        snprintf(why, sizeof why, "sequence gap (%u windows lost)", ev->lost);
        gap(r, r->last_t1_ns, ev->t0_ns, why);
    }
    r->pending_gap[0] = 0;
    r->boot_cause[0] = 0;
    int n = w->nchan < r->nchan ? w->nchan : r->nchan;
    for (int k = 1; k <= n; k++) {
        mw_store_sample x = {
            .channel = r->first_channel + k - 1,
            .segment = ev->segment,
            .seq = w->seq,
            .meter_t0_us = w->t0_us,
            .meter_t1_us = w->t1_us,
            .t0_ns = ev->t0_ns,
            .t1_ns = ev->t1_ns,
            .uncertainty_ns = ev->uncertainty_ns,
            .power_mw = w->ch[k - 1].p_mw,
            .vrms_mv = w->vrms_mv,
            .irms_ua = w->ch[k - 1].irms_ua,
            .pf_milli = w->ch[k - 1].pf_milli,
            .meter_energy_mj = w->ch[k - 1].e_mj,
            .flags = w->flags,
        };
        /* a device that is not a meter may send any counter: saturate, never overflow */
        if (__builtin_add_overflow(r->base_mj[k], x.meter_energy_mj, &x.energy_mj))
            x.energy_mj = x.meter_energy_mj > 0 ? INT64_MAX : INT64_MIN;
        r->last_mj[k] = x.energy_mj;
        r->power_w[k] = x.power_mw * 1e-3;
        if (mw_store_sample_add(r->st, &x) != 0) write_failed(r);
    }
    r->windows++;
    r->have_window = 1;
    r->last_t1_ns = ev->t1_ns;
    r->last_t1_us = w->t1_us;
}

static void on_event(mw_record *r, const mw_meter_event *ev)
{
    switch (ev->type) {
    case MW_METER_WINDOW:
        on_window(r, ev);
        break;
    case MW_METER_BOOT: {
        static const char *causes[] = {"power-on", "reset line", "brown-out", "watchdog", "JTAG"};
        r->boot_cause[0] = 0;
        for (int b = 4; b >= 0; b--)
            if (ev->mcusr & (1u << b))
                snprintf(r->boot_cause, sizeof r->boot_cause, "%s", causes[b]);
        if (!r->boot_cause[0]) snprintf(r->boot_cause, sizeof r->boot_cause, "bootloader");
        break;
    }
    default:
        break;
    }
}

/* ---- the connection ------------------------------------------------------------------ */

static void lost(mw_record *r)
{
    r->connected = 0;
    r->lost_at_mono = now(CLOCK_MONOTONIC);
    r->next_retry_mono = r->lost_at_mono + RECORD_RETRY_NS;
    mw_meter_set_port(r->m, NULL);
    snprintf(r->pending_gap, sizeof r->pending_gap, "disconnected");
    r->news->lost = 1;
}

static void try_reconnect(mw_record *r)
{
    int64_t t = now(CLOCK_MONOTONIC);
    int arrived = r->usb ? mw_usb_watch_poll(r->usb, NULL) : 0;
    if (!arrived && t < r->next_retry_mono) return;
    r->next_retry_mono = t + RECORD_RETRY_NS;
    char err[512];
    mw_port *p = mw_port_open(r->path, NULL, err, sizeof err);
    if (!p) return;
    mw_meter_set_port(r->m, p);
    r->connected = 1;
    r->reconnects++;
    r->news->back = 1;
    r->news->away_s = (double)(t - r->lost_at_mono) * 1e-9;
}

/* A news with nothing to say yet. */
static void news_clear(const mw_record *r, mw_record_news *n)
{
    n->stage = r->stage;
    n->pumped = n->back = n->write_failed = n->lost = n->commit_failed = 0;
    n->no_window = n->spawn_errno = 0;
    n->away_s = 0;
    n->write_err[0] = n->commit_err[0] = 0;
    n->port = r->path;
}

/* timeout_ms, or less when the store's commit falls due sooner */
static int until_commit_ms(const mw_record *r, int timeout_ms)
{
    int64_t due = mw_store_commit_due_ns(r->st);
    if (due == INT64_MAX) return timeout_ms;
    int64_t left = (due - now(CLOCK_MONOTONIC) + 999999) / 1000000;
    return left < 0 ? 0 : left < timeout_ms ? (int)left : timeout_ms;
}

static int pump_one(mw_record *r, int timeout_ms, mw_record_news *news)
{
    news_clear(r, news);
    timeout_ms = until_commit_ms(r, timeout_ms);
    news->pumped = 1;
    r->news = news;
    if (!r->connected) {
        try_reconnect(r);
        if (!r->connected) {
            r->woke_empty = 1;
            struct timespec ts = {0, (long)(timeout_ms < 50 ? timeout_ms : 50) * 1000000L};
            nanosleep(&ts, NULL);
            r->news = NULL;
            return 0;
        }
    }
    mw_meter_event ev;
    int n = mw_meter_next(r->m, &ev, timeout_ms);
    r->woke_empty = n <= 0;
    while (n > 0) { /* what that read brought; the next turn reads again */
        on_event(r, &ev);
        n = mw_meter_queued(r->m, &ev);
    }
    if (n == 0 && !mw_meter_port(r->m)) n = -1; /* no port (fed): gone once drained */
    if (n < 0) lost(r);
    r->news = NULL;
    return news->write_failed ? -1 : 0;
}

/* The store's commit when due (once a second), after every meter of the turn has been read
 * and stamped: with several meters one commit for all, none between two meters' reads. A
 * failed commit (disk full, read-only) loses the data since the last one. */
static int commit_due(mw_record *r, mw_record_news *news)
{
    if (mw_store_maybe_commit(r->st) == 0) return 0;
    if (!news->commit_failed) {
        snprintf(news->commit_err, sizeof news->commit_err, "%s", mw_store_error(r->st));
        news->commit_failed = 1;
    }
    return -1;
}

/* Several meters: wait up to timeout_ms (50 ms while a port is gone, to reopen it; less when
 * the store's commit falls due) for bytes on any connected meter's port, or the command's
 * end (its pidfd: *child_woke). A signal cuts it short. A meter whose next line cannot have
 * ended yet (mw_meter_quiet_until_ns) is left out of the poll, and the wait ends when its
 * line is due, whichever meter's is earliest. Returns the sessions to read now, bit i for
 * session i (0: r, i: r->more[i - 1]): those whose port has something to say (bytes, a
 * hangup), whose line is due, and those whose port is gone. */
static unsigned wait_ports(mw_record *r, int timeout_ms, int *child_woke)
{
    struct pollfd pfd[MW_RECORD_MAX_METERS + 1];
    int who[MW_RECORD_MAX_METERS + 1];
    int64_t quiet[MW_RECORD_MAX_METERS];
    nfds_t n = 0;
    unsigned ready = 0;
    timeout_ms = until_commit_ms(r, timeout_ms);
    if (r->pidfd >= 0) { /* the command's end wakes the wait, as in a one-meter turn */
        pfd[n] = (struct pollfd){.fd = r->pidfd, .events = POLLIN};
        who[n++] = -1;
    }
    int64_t t = now(CLOCK_MONOTONIC), end = t + (int64_t)timeout_ms * 1000000;
    for (int i = 0; i <= r->nmore; i++) {
        mw_record *s = i ? r->more[i - 1] : r;
        mw_port *p = s->connected ? mw_meter_port(s->m) : NULL;
        quiet[i] = 0;
        if (!p) {
            ready |= 1u << i;
            if (end > t + 50000000) end = t + 50000000;
            continue;
        }
        if ((quiet[i] = mw_meter_quiet_until_ns(s->m)) > 0) { /* no line before then */
            if (quiet[i] < end) end = quiet[i];
            continue;
        }
        pfd[n] = (struct pollfd){.fd = mw_port_fd(p), .events = POLLIN};
        who[n++] = i;
    }
    *child_woke = 0;
    int64_t left = end > t ? end - t : 0;
    struct timespec ts = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
    if (ppoll(pfd, n, &ts, NULL) > 0)
        for (nfds_t k = 0; k < n; k++) {
            if (!pfd[k].revents) continue;
            if (who[k] < 0) *child_woke = 1;
            else ready |= 1u << who[k];
        }
    t = now(CLOCK_MONOTONIC);
    for (int i = 0; i <= r->nmore; i++)
        if (quiet[i] > 0 && quiet[i] <= t) ready |= 1u << i; /* its line is due: read it */
    return ready;
}

/* What another meter's turn had to say, into the turn's news (the first of each kind). */
static void news_merge(mw_record_news *into, const mw_record_news *n)
{
    if ((n->back || n->lost) && !into->back && !into->lost) {
        into->back = n->back;
        into->lost = n->lost;
        into->away_s = n->away_s;
        into->port = n->port;
    }
    if (n->write_failed && !into->write_failed) {
        into->write_failed = 1;
        memcpy(into->write_err, n->write_err, sizeof into->write_err);
    }
    if (n->commit_failed && !into->commit_failed) {
        into->commit_failed = 1;
        memcpy(into->commit_err, n->commit_err, sizeof into->commit_err);
    }
}

int mw_record_pump(mw_record *r, int timeout_ms, mw_record_news *news)
{
    if (!r->nmore) {
        int rc = pump_one(r, timeout_ms, news);
        return commit_due(r, news) != 0 ? -1 : rc;
    }
    int child_woke;
    unsigned ready = wait_ports(r, timeout_ms, &child_woke);
    int64_t t = now(CLOCK_MONOTONIC);
    int rc = 0;
    news_clear(r, news);
    news->pumped = 1;
    for (int i = 0; i <= r->nmore; i++) {
        mw_record *s = i ? r->more[i - 1] : r;
        /* a quiet meter is still read every RECORD_SWEEP_NS: the windows its session
         * holds back (mw_meter.h) and the commit's cadence do not wait for its bytes */
        if (!(ready & (1u << i)) && t - s->last_pump_mono < RECORD_SWEEP_NS) continue;
        s->last_pump_mono = t;
        s->stage = r->stage;
        mw_record_news n;
        if (pump_one(s, 0, &n) != 0) rc = -1;
        news_merge(news, &n);
    }
    /* also when no meter was read: the wait was cut short for it, and the next waits (cut
     * to it again) would spin until it is made */
    if (commit_due(r, news) != 0) rc = -1;
    if (child_woke) r->woke_empty = 1; /* watch_command looks now */
    return rc;
}

void mw_record_set_meter(mw_record *r, int meter, int first_channel, const char *name)
{
    r->meter = meter;
    r->first_channel = first_channel;
    snprintf(r->name, sizeof r->name, "%s", name ? name : "");
}

int mw_record_add_meter(mw_record *r, mw_record *other)
{
    if (r->nmore >= MW_RECORD_MAX_METERS - 1 || other == r || other->nmore || other->st != r->st)
        return -1;
    r->more[r->nmore++] = other;
    r->multi = other->multi = 1;
    return 0;
}

int64_t mw_record_start_ns(const mw_record *r)
{
    return r->start_ns;
}

uint64_t mw_record_windows(const mw_record *r)
{
    return r->windows;
}

int mw_record_connected(const mw_record *r)
{
    return r->connected;
}

double mw_record_power_w(const mw_record *r, int k)
{
    return k >= 1 && k <= r->nchan ? r->power_w[k] : 0;
}

int64_t mw_record_energy_mj(const mw_record *r, int k)
{
    return k >= 1 && k <= r->nchan ? r->last_mj[k] : 0;
}

/* ---- metadata ------------------------------------------------------------------------ */

/* Set key; the first failure's message goes into err. */
static void meta(mw_store *st, const char *key, const char *value, int *failed, char *err,
                 size_t errlen)
{
    if (mw_store_meta_set(st, key, value) == 0) return;
    if (!*failed) snprintf(err, errlen, "%s", mw_store_error(st));
    *failed = 1;
}

static void meta_i64(mw_store *st, const char *key, int64_t v, int *failed, char *err,
                     size_t errlen)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    meta(st, key, b, failed, err, errlen);
}

int mw_record_meter_meta(mw_store *st, mw_meter *m, const char *port_path, int sim, char *err,
                         size_t errlen)
{
    return mw_record_meter_meta_as(st, m, 1, port_path, sim, err, errlen);
}

int mw_record_meter_meta_as(mw_store *st, mw_meter *m, int meter, const char *port_path, int sim,
                            char *err, size_t errlen)
{
    char buf[8192], key[9][40];
    int failed = 0;
    static const char *const what[] = {"port",      "usb",        "firmware",
                                       "build",     "rate_hz",    "pins",
                                       "cal_source", "calibration_date", "calibration_ref"};
    for (int i = 0; i < 9; i++) /* meter_KEY, or meterN_KEY for meter N > 1 */
        if (meter > 1)
            snprintf(key[i], sizeof key[i], "meter%d_%s", meter, what[i]);
        else
            snprintf(key[i], sizeof key[i], "meter_%s", what[i]);
    const mw_proto_ident *id = mw_meter_ident(m);
    meta(st, key[0], port_path, &failed, err, errlen);
    mw_port_info pi;
    mw_port_get_info(mw_meter_port(m), &pi);
    if (pi.vid >= 0)
        snprintf(buf, sizeof buf, "%04x:%04x %s", (unsigned)pi.vid, (unsigned)pi.pid,
                 pi.serial[0] ? pi.serial : "no-serial");
    else
        snprintf(buf, sizeof buf, "none%s", sim ? " (simulated board)" : "");
    meta(st, key[1], buf, &failed, err, errlen);
    meta(st, key[2], id->fw_version, &failed, err, errlen);
    meta(st, key[3], id->build_id, &failed, err, errlen);
    meta_i64(st, key[4], id->rate_hz, &failed, err, errlen);
    size_t len = 0;
    for (int k = 0; k <= id->n_current; k++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%sA%d", k ? ":" : "", id->pin[k]);
    meta(st, key[5], buf, &failed, err, errlen);
    meta(st, key[6], id->cal_source, &failed, err, errlen);
    if (id->cal_date_yyyymmdd) {
        snprintf(buf, sizeof buf, "%04d-%02d-%02d", id->cal_date_yyyymmdd / 10000,
                 id->cal_date_yyyymmdd / 100 % 100, id->cal_date_yyyymmdd % 100);
        meta(st, key[7], buf, &failed, err, errlen);
        meta(st, key[8], id->cal_ref, &failed, err, errlen);
    }
    return failed ? -1 : 0;
}

/* ---- the end ------------------------------------------------------------------------- */

/* Segment s's final mapping into the store (schema 7: readers map the windows' meter times
 * through it, nothing is rewritten); *from, when not NULL, mapped through it as readers do.
 * Returns its uncertainty, or -1 when the segment has no clock or the store refused. */
static int64_t keep_knots(mw_record *r, int s, uint64_t last_us, int64_t *from)
{
    int64_t t, u;
    if (mw_meter_map_segment(r->m, s, 0, &t, &u) != 0) return -1;
    int n = mw_meter_segment_knots(r->m, s, NULL, 0);
    mw_clock_knot *k = n > 0 ? malloc((size_t)n * sizeof *k) : NULL;
    if (!k || mw_meter_segment_knots(r->m, s, k, n) != n ||
        mw_store_knots_add(r->st, r->multi ? r->meter : 0, s, k, n, u)) {
        free(k); /* on failure the windows keep their live stamps */
        return -1;
    }
    if (from) *from = mw_clock_knots_map(k, n, (int64_t)last_us);
    free(k);
    return u;
}

/* One meter's end: the windows it still held, every segment's final fit kept in the store
 * (*worst: the largest uncertainty), the gap of a meter lost for good. */
static void finish_one(mw_record *r, mw_record_news *n, int64_t *worst)
{
    mw_meter_finish(r->m);
    /* the windows it released (held while late: mw_meter.h) */
    r->news = n;
    mw_meter_event ev;
    while (mw_meter_queued(r->m, &ev))
        on_event(r, &ev);
    r->news = NULL;
    /* from the last window's end as readers map it: the two tile */
    int64_t from = r->have_window ? r->last_t1_ns : r->start_ns;
    for (int s = 0; s < r->nseg; s++) {
        int last = r->have_window && s == r->segment;
        int64_t u = keep_knots(r, s, r->last_t1_us, last ? &from : NULL);
        if (u > *worst) *worst = u;
    }
    if (r->lost_why) {
        r->news = n;
        gap(r, from, r->lost_end_ns, r->lost_why);
        r->news = NULL;
    }
}

int mw_record_finish(mw_record *r, const char *status, char *err, size_t errlen)
{
    mw_record_news n;
    news_clear(r, &n);
    int64_t worst = 0;
    mw_meter_stats sum = {0};
    int reconnects = 0;
    for (int i = 0; i <= r->nmore; i++) { /* every meter; the link statistics summed */
        mw_record *s = i ? r->more[i - 1] : r;
        finish_one(s, &n, &worst);
        mw_meter_stats ms;
        mw_meter_get_stats(s->m, &ms);
        sum.bad_crc += ms.bad_crc;
        sum.lost_windows += ms.lost_windows;
        sum.restarts += ms.restarts;
        sum.time_steps += ms.time_steps;
        sum.predicted_reads += ms.predicted_reads;
        sum.late_reads += ms.late_reads;
        reconnects += s->reconnects;
    }
    int failed = 0;
    mw_clock_state cs;
    mw_clock_get_state(mw_meter_clock(r->m), &cs);
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", cs.drift_ppm);
    meta(r->st, "clock_drift_ppm", buf, &failed, err, errlen);
    meta_i64(r->st, "clock_uncertainty_ns", worst, &failed, err, errlen);
    meta_i64(r->st, "end_ns", now(CLOCK_REALTIME), &failed, err, errlen);
    meta(r->st, "status", status, &failed, err, errlen);
    meta_i64(r->st, "meter_bad_crc_lines", (int64_t)sum.bad_crc, &failed, err, errlen);
    meta_i64(r->st, "meter_lost_windows", (int64_t)sum.lost_windows, &failed, err, errlen);
    meta_i64(r->st, "meter_restarts", (int64_t)sum.restarts, &failed, err, errlen);
    meta_i64(r->st, "reconnects", reconnects, &failed, err, errlen);
    meta_i64(r->st, "meter_time_steps", (int64_t)sum.time_steps, &failed, err, errlen);
    meta_i64(r->st, "meter_predicted_reads", (int64_t)sum.predicted_reads, &failed, err, errlen);
    meta_i64(r->st, "meter_late_reads", (int64_t)sum.late_reads, &failed, err, errlen);
    if (n.write_failed && !failed) {
        snprintf(err, errlen, "%s", n.write_err);
        failed = 1;
    }
    return failed ? -1 : 0;
}

/* ---- the command ----------------------------------------------------------------------- */

static int is_open_mpi_launcher(const char *argv0, const char *mpi)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", argv0);
    const char *b = basename(buf);
    int launcher = !strcmp(b, "mpirun") || !strcmp(b, "mpiexec") || !strcmp(b, "orterun");
    return launcher && (strstr(mpi, "Open MPI") || strstr(mpi, "OpenRTE"));
}

/* cmd under nice -n nice (NULL: as is); Open MPI's launcher gets "-x NAME" for each of
 * forward after cmd[0]. Returns 0 with *pid, or posix_spawnp's error number. */
static int spawn(char *const *cmd, const char *nice, const char *mpi, const char *const *forward,
                 pid_t *pid)
{
    size_t n = 0, nfwd = 0;
    while (cmd[n])
        n++;
    while (forward[nfwd])
        nfwd++;
    char **argv = mw_xcalloc(n + 4 + 2 * nfwd, sizeof *argv);
    size_t j = 0;
    if (nice) {
        argv[j++] = "nice";
        argv[j++] = "-n";
        argv[j++] = (char *)nice;
    }
    argv[j++] = cmd[0];
    if (is_open_mpi_launcher(cmd[0], mpi))
        for (size_t i = 0; i < nfwd; i++) {
            argv[j++] = "-x";
            argv[j++] = (char *)forward[i];
        }
    for (size_t i = 1; i < n; i++)
        argv[j++] = cmd[i];
    argv[j] = NULL;
    int e = posix_spawnp(pid, argv[0], NULL, NULL, argv, environ);
    free(argv);
    return e;
}

/* Start the command with the run in its environment. Returns 0, or the error number. */
static int start_command(mw_record *r, const mw_record_command *c)
{
    char rundir[PATH_MAX], dbpath[PATH_MAX + 32], mpi[512], traffic[PATH_MAX + 16];
    if (!realpath(c->rundir, rundir)) snprintf(rundir, sizeof rundir, "%s", c->rundir);
    snprintf(dbpath, sizeof dbpath, "%s/%s", rundir, MW_STORE_DB_NAME);
    snprintf(traffic, sizeof traffic, "%s/traffic", rundir);
    setenv("MW_RUN_DIR", rundir, 1);
    setenv("MW_TRACE_DB", dbpath, 1);
    setenv("MW_RECORD_HOST", c->host, 1);
    if (c->traffic) setenv("MW_TRAFFIC_DIR", traffic, 1);
    if (mw_store_meta_get(r->st, "mpi", mpi, sizeof mpi) != 0) mpi[0] = 0;
    const char *const vars[] = {"MW_RUN_DIR", "MW_TRACE_DB", "MW_RECORD_HOST",
                                c->traffic ? "MW_TRAFFIC_DIR" : NULL, NULL};
    r->cmd_start_ns = now(CLOCK_REALTIME);
    int e = spawn(c->cmd, c->nice, mpi, vars, &r->child);
    unsetenv("MW_TRAFFIC_DIR");
    if (e == 0) {
#ifdef SYS_pidfd_open
        r->pidfd = (int)syscall(SYS_pidfd_open, r->child, 0); /* close-on-exec */
        if (r->pidfd >= 0) mw_meter_set_wake_fd(r->m, r->pidfd);
#endif
        if (c->command) c->command(c->ctx, r->child, c->traffic ? traffic : NULL);
        return 0;
    }
    r->child = 0;
    return e;
}

static void watch_command(mw_record *r, const mw_record_command *c)
{
    if (!r->child || r->child_done) return;
    if (c->forward && *c->forward) {
        kill(r->child, *c->forward);
        *c->forward = 0;
    }
    /* with a pidfd, the command's end ends a wait without an event: look then (and at least
     * once a second, in case a meter's lines never leave a wait empty) */
    int64_t t = now(CLOCK_MONOTONIC);
    if (r->pidfd >= 0 && !r->woke_empty && t - r->waited_mono < 1000000000LL)
        return;
    r->waited_mono = t;
    int status;
    pid_t p = waitpid(r->child, &status, WNOHANG);
    if (p == r->child) {
        r->child_done = 1;
        if (r->pidfd >= 0) { /* readable from now on: no longer a reason to wake */
            mw_meter_set_wake_fd(r->m, -1);
            close(r->pidfd);
            r->pidfd = -1;
        }
        if (c->command) c->command(c->ctx, 0, NULL);
        r->cmd_end_ns = now(CLOCK_REALTIME);
        r->child_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
}

/* ---- the stages ------------------------------------------------------------------------ */

/* Every meter still connected has a window ending at t_ns or later (INT64_MIN: a window). */
static int windows_reach(const mw_record *r, int64_t t_ns)
{
    for (int i = 0; i <= r->nmore; i++) {
        const mw_record *s = i ? r->more[i - 1] : r;
        if (i && !s->connected) continue; /* a lost companion waits for no one */
        if (!s->have_window || s->last_t1_ns < t_ns) return 0;
    }
    return 1;
}

static int interrupted(const mw_record_command *c)
{
    return c->interrupted ? *c->interrupted : 0;
}

static void tell(const mw_record_command *c, const mw_record_news *n, int *failed)
{
    if (n->write_failed || n->commit_failed) *failed = 1;
    if (c->news) c->news(c->ctx, n);
}

/* One turn: read the meter for up to timeout_ms, watch the command, hand the news over. */
static void turn(mw_record *r, const mw_record_command *c, int timeout_ms, int *failed)
{
    mw_record_news n;
    mw_record_pump(r, timeout_ms, &n);
    watch_command(r, c);
    tell(c, &n, failed);
}

/* A write of the stages that failed: its news. */
static void write_failed_news(mw_record *r, const mw_record_command *c, int *failed)
{
    mw_record_news n;
    news_clear(r, &n);
    n.write_failed = 1;
    snprintf(n.write_err, sizeof n.write_err, "%s", mw_store_error(r->st));
    tell(c, &n, failed);
}

static void stage_meta_i64(mw_record *r, const mw_record_command *c, const char *key, int64_t v,
                           int *failed)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    if (mw_store_meta_set(r->st, key, b) != 0) write_failed_news(r, c, failed);
}

static void stage_phase(mw_record *r, const mw_record_command *c, const char *name,
                        int64_t start_ns, int64_t end_ns, int *failed)
{
    mw_store_phase ph = {.rank = -1,
                         .host = c->host,
                         .thread = 0,
                         .kind = "mw",
                         .name = name,
                         .start_ns = start_ns,
                         .end_ns = end_ns,
                         .bytes = 0,
                         .pid = getpid(),
                         .peer = -1};
    if (mw_store_phase_add(r->st, &ph) != 0) write_failed_news(r, c, failed);
}

/* An idle baseline of idle_s, until an interruption at most, as the phase `name`. */
static void idle_stage(mw_record *r, const mw_record_command *c, mw_record_stage stage,
                       const char *name, int *failed)
{
    r->stage = stage;
    int64_t s_ns = now(CLOCK_REALTIME), t;
    int64_t until = now(CLOCK_MONOTONIC) + (int64_t)(c->idle_s * 1e9);
    while ((t = now(CLOCK_MONOTONIC)) < until && !interrupted(c)) {
        int64_t left_ms = (until - t) / 1000000 + 1;
        turn(r, c, left_ms < RECORD_WAIT_MS ? (int)left_ms : RECORD_WAIT_MS, failed);
    }
    stage_phase(r, c, name, s_ns, now(CLOCK_REALTIME), failed);
}

/* The command, from its start to the window holding its end. Returns its exit code. */
static int command_stage(mw_record *r, const mw_record_command *c, mw_record_outcome *out,
                         int *failed)
{
    r->stage = MW_RECORD_COMMAND;
    int e = start_command(r, c);
    if (e) {
        mw_record_news n;
        news_clear(r, &n);
        n.spawn_errno = e;
        tell(c, &n, failed);
        out->status = e == ENOENT ? "failed: command not found" : "failed: command cannot start";
        return e == ENOENT ? 127 : 126;
    }
    while (!r->child_done)
        turn(r, c, r->pidfd >= 0 ? RECORD_CHILD_WAIT_MS : RECORD_CHILD_POLL_MS, failed);
    /* the window holding the command's end */
    int64_t until = now(CLOCK_MONOTONIC) + 2000000000LL;
    while (now(CLOCK_MONOTONIC) < until && !windows_reach(r, r->cmd_end_ns))
        turn(r, c, 50, failed);
    stage_phase(r, c, "command", r->cmd_start_ns, r->cmd_end_ns, failed);
    stage_meta_i64(r, c, "cmd_start_ns", r->cmd_start_ns, failed);
    stage_meta_i64(r, c, "cmd_end_ns", r->cmd_end_ns, failed);
    stage_meta_i64(r, c, "exit_status", r->child_status, failed);
    return r->child_status;
}

/* The end: a meter whose port is still gone, that never sent a window, or that has sent none
 * for RECORD_SILENT_NS (or 4 of its periods) is lost for good: mw_record_finish writes the
 * gap from its last window (the session's start without one) to end. Returns 1 when lost. */
static int lost_check(mw_record *r, int64_t end)
{
    const mw_proto_ident *id = mw_meter_ident(r->m);
    int64_t silent = RECORD_SILENT_NS;
    if (id && id->rate_hz > 0 && 4000000000LL / id->rate_hz > silent)
        silent = 4000000000LL / id->rate_hz;
    const char *why = !r->connected                  ? "meter lost (disconnected)"
                      : !r->have_window              ? "meter lost (no window)"
                      : end - r->last_t1_ns > silent ? "meter lost (no window)"
                                                     : NULL;
    if (!why) return 0;
    r->lost_why = why; /* the gap: mw_record_finish, from the last window's final time */
    r->lost_end_ns = end;
    r->pending_gap[0] = 0;
    return 1;
}

/* Every meter lost for good is in the outcome: from when (the earliest), and in the status
 * (", meter lost at S s"; with several meters ", meter NAME lost at S s" for each). */
static void lost_for_good(mw_record *r, mw_record_outcome *out)
{
    int64_t end = now(CLOCK_REALTIME);
    size_t len = (size_t)snprintf(out->status_buf, sizeof out->status_buf, "%s", out->status);
    for (int i = 0; i <= r->nmore; i++) {
        mw_record *s = i ? r->more[i - 1] : r;
        if (!lost_check(s, end)) continue;
        int64_t at = s->have_window ? s->last_t1_ns : s->start_ns;
        if (!out->meter_lost || at < out->meter_lost_ns) out->meter_lost_ns = at;
        out->meter_lost = 1;
        double at_s = (double)(at - r->start_ns) * 1e-9;
        if (len < sizeof out->status_buf)
            len += (size_t)snprintf(out->status_buf + len, sizeof out->status_buf - len,
                                    ", meter%s%.60s lost at %.1f s", r->multi ? " " : "",
                                    r->multi ? s->name : "", at_s > 0 ? at_s : 0.0);
    }
    if (out->meter_lost) out->status = out->status_buf;
}

int mw_record_run(mw_record *r, const mw_record_command *c, mw_record_outcome *out)
{
    int failed = 0;
    out->meter_lost = 0;
    out->meter_lost_ns = 0;
    r->stage = MW_RECORD_FIRST_WINDOW;
    int64_t until = now(CLOCK_MONOTONIC) + RECORD_FIRST_WAIT_NS;
    while (!windows_reach(r, INT64_MIN) && now(CLOCK_MONOTONIC) < until && !interrupted(c))
        turn(r, c, 100, &failed);
    if (!r->have_window) {
        mw_record_news n;
        news_clear(r, &n);
        n.no_window = 1;
        tell(c, &n, &failed);
    }
    out->status = "complete";
    out->exit_code = 0;
    if (c->idle_s > 0) idle_stage(r, c, MW_RECORD_IDLE_BEFORE, "idle-before", &failed);
    int sig = interrupted(c);
    if (sig) {
        out->status = "interrupted";
        out->exit_code = 128 + sig;
    } else {
        out->exit_code = command_stage(r, c, out, &failed);
        if (r->child && interrupted(c)) out->status = "interrupted";
        else if (r->child && out->exit_code) out->status = "command failed"; /* ran, exit != 0 */
        if (r->child && c->idle_s > 0 && !interrupted(c))
            idle_stage(r, c, MW_RECORD_IDLE_AFTER, "idle-after", &failed);
    }
    if (out->exit_code && !r->child) stage_meta_i64(r, c, "exit_status", out->exit_code, &failed);
    lost_for_good(r, out);
    return failed ? -1 : 0;
}
