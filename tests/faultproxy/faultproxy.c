/* faultproxy — a fault-injecting serial proxy for tests: it sits between a meter's port (the
 * simulated board's pty from `mw vmeter --link PATH`, the "upstream") and the collector, to
 * which it offers a pseudo-terminal of its own (a symlink at --link), and forwards bytes
 * both ways while it drops, duplicates, corrupts (bit flips), delays and reorders bytes,
 * stalls the line, and cuts and restores the link on a schedule.
 *
 * Design. One thread, one poll() loop. Bytes read from one side go through the byte faults
 * (decided per byte with a seeded xorshift generator, so a run is repeatable) into a queue
 * with a due time (--delay); due bytes are written to the other side unless the line is
 * stalled or cut. A cut closes the collector's pty master (the collector sees a hang-up, as
 * when a USB meter is unplugged), removes the link, and after the cut makes a new pty and a
 * new link at the same path; --cut-resets also closes and reopens the upstream port, which
 * resets the simulated board like a meter losing its USB power. The proxy holds a slave
 * descriptor of its collector pty itself, so the pty lives between clients, its unread input
 * can be measured (FIONREAD) and clients are counted with inotify as in host/sim/simpty.c: while
 * no collector has the port open, board bytes are discarded (as a Mega's USB side does).
 *
 * What it did goes to --log FILE as "key=value" lines: one "event ..." line per cut,
 * restore, stall, client open and close (with CLOCK_REALTIME ns and the offset in the --tap
 * stream), and the counts at exit. --tap FILE receives exactly the bytes delivered to the
 * collector, so a test can tell what reached the host intact. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define FP_QCAP (1u << 20) /* bytes queued per direction (delay, stall) */
#define FP_REOPEN_NS 200000000ull

typedef struct {
    double drop, dup, ber, reorder; /* probabilities per byte */
    double delay_ms;
    double stall_ms, stall_period_s;
    double cut_s, cut_period_s;
    double cut_count; /* at most this many cuts (0: no limit) */
    int cut_resets;
    int dir_down, dir_up; /* which directions get the byte faults */
    uint64_t seed;
    double seconds; /* 0: until a signal */
    double after_s; /* byte faults only from this long after the start */
    const char *upstream, *link, *log, *tap;
} fp_opts;

/* one direction's queue: a byte ring with each byte's due time */
typedef struct {
    uint8_t *b;
    uint64_t *due;
    size_t head, len;
    int held; /* a byte held back by --reorder, sent after the next one */
    uint8_t held_b;
    uint64_t held_due;
} fp_queue;

typedef struct {
    uint64_t bytes_in, bytes_out, dropped, duplicated, flipped, reordered, overflow;
} fp_dir_stats;

typedef struct {
    fp_opts o;
    uint64_t rng;
    int up_fd;                      /* the meter's port */
    int master, slave, ino, ino_wd; /* the collector's pty */
    char pts[64];
    int clients;
    int cut;        /* 1 while the link is cut */
    int stalled;    /* 1 while the line is stalled */
    uint64_t t0_ns; /* CLOCK_MONOTONIC at start */
    uint64_t next_cut_ns, restore_ns, next_stall_ns, stall_end_ns;
    fp_queue down, up; /* down: meter -> collector */
    fp_dir_stats sd, su;
    uint64_t tap_off; /* bytes delivered to the collector so far */
    uint64_t cuts, restores, stalls, opens, closes, lost_in_cut, discarded_no_client, unread_at_cut;
    FILE *log, *tap;
} fp_t;

static volatile sig_atomic_t g_stop;
static void on_signal(int sig)
{
    g_stop = sig;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static uint64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: repeatable per --seed */
static uint64_t rnd(fp_t *f)
{
    f->rng ^= f->rng >> 12;
    f->rng ^= f->rng << 25;
    f->rng ^= f->rng >> 27;
    return f->rng * 2685821657736338717ull;
}
static int chance(fp_t *f, double p)
{
    return p > 0 && (double)(rnd(f) >> 11) * (1.0 / 9007199254740992.0) < p;
}

static void logf_(fp_t *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(fp_t *f, const char *fmt, ...)
{
    if (!f->log) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f->log, fmt, ap);
    va_end(ap);
    fflush(f->log);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: faultproxy --upstream PORT --link PATH [faults] [--seed N] [--log FILE]\n"
            "                  [--tap FILE] [--seconds S]\n\n"
            "Forwards bytes between the meter's port PORT (e.g. the link of `mw vmeter --link`)\n"
            "and a new pseudo-terminal for the collector, linked at PATH, injecting faults.\n"
            "Rates are probabilities per byte (0..1), applied to both directions unless --dir.\n\n"
            "  --drop R         drop a byte\n"
            "  --dup R          send a byte twice\n"
            "  --ber R          flip one random bit of a byte (byte error rate)\n"
            "  --reorder R      swap a byte with the next one\n"
            "  --delay MS       deliver every byte MS milliseconds late\n"
            "  --stall MS@P     hold the line (both ways, nothing lost) for MS ms every P s\n"
            "  --cut S@P        cut the link for S s every P s (first cut at P s): the\n"
            "                   collector's pty is closed (it sees a hang-up), PATH removed,\n"
            "                   then a new pty is linked at PATH\n"
            "  --cut-count N    at most N cuts (default: no limit)\n"
            "  --cut-resets     a cut also closes and reopens PORT (resets the simulated board,\n"
            "                   like a meter losing its USB power)\n"
            "  --dir D          byte faults on: down (meter to collector), up, both (default)\n"
            "  --after S        byte faults only from S s after the start (default 0)\n"
            "  --seed N         random seed (default 1)\n"
            "  --log FILE       events and counts as key=value lines\n"
            "  --tap FILE       every byte delivered to the collector\n"
            "  --seconds S      stop after S seconds (default: at SIGINT/SIGTERM)\n"
            "  -h, --help       this text\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("faultproxy: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

static int num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* "A@B" */
static int pair(const char *s, double alo, double ahi, double *a, double *b)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    char *at = strchr(buf, '@');
    if (!at) return -1;
    *at = 0;
    return num(buf, alo, ahi, a) || num(at + 1, 0.01, 1e6, b) ? -1 : 0;
}

/* Returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, fp_opts *o)
{
    static const struct option opts[] = {{"upstream", required_argument, NULL, 'u'},
                                         {"link", required_argument, NULL, 'l'},
                                         {"drop", required_argument, NULL, 'd'},
                                         {"dup", required_argument, NULL, 'D'},
                                         {"ber", required_argument, NULL, 'b'},
                                         {"reorder", required_argument, NULL, 'r'},
                                         {"delay", required_argument, NULL, 'y'},
                                         {"stall", required_argument, NULL, 's'},
                                         {"cut", required_argument, NULL, 'c'},
                                         {"cut-resets", no_argument, NULL, 'R'},
                                         {"dir", required_argument, NULL, 'i'},
                                         {"seed", required_argument, NULL, 'S'},
                                         {"log", required_argument, NULL, 'L'},
                                         {"tap", required_argument, NULL, 'T'},
                                         {"seconds", required_argument, NULL, 'x'},
                                         {"after", required_argument, NULL, 'a'},
                                         {"cut-count", required_argument, NULL, 'C'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    opterr = 0;
    int c, li = -1;
    double v;
    while ((c = getopt_long(argc, argv, ":h", opts, &li)) != -1) {
        const char *name = li >= 0 ? opts[li].name : "?";
        li = -1;
        switch (c) {
        case 'u':
            o->upstream = optarg;
            break;
        case 'l':
            o->link = optarg;
            break;
        case 'd':
        case 'D':
        case 'b':
        case 'r':
            if (num(optarg, 0, 1, &v))
                return usage_error("--%s: '%s' is not a rate in 0..1", name, optarg);
            *(c == 'd' ? &o->drop : c == 'D' ? &o->dup : c == 'b' ? &o->ber : &o->reorder) = v;
            break;
        case 'y':
            if (num(optarg, 0, 60000, &o->delay_ms))
                return usage_error("--delay: '%s' is not 0..60000 ms", optarg);
            break;
        case 's':
            if (pair(optarg, 1, 600000, &o->stall_ms, &o->stall_period_s) ||
                o->stall_ms >= o->stall_period_s * 1000)
                return usage_error("--stall: '%s' is not MS@PERIOD_S with MS < PERIOD", optarg);
            break;
        case 'c':
            if (pair(optarg, 0.01, 3600, &o->cut_s, &o->cut_period_s) ||
                o->cut_s >= o->cut_period_s)
                return usage_error("--cut: '%s' is not S@PERIOD_S with S < PERIOD", optarg);
            break;
        case 'R':
            o->cut_resets = 1;
            break;
        case 'i':
            o->dir_down = !strcmp(optarg, "down") || !strcmp(optarg, "both");
            o->dir_up = !strcmp(optarg, "up") || !strcmp(optarg, "both");
            if (!o->dir_down && !o->dir_up)
                return usage_error("--dir: '%s' is not down, up or both", optarg);
            break;
        case 'S':
            if (num(optarg, 0, 1e18, &v) || v != floor(v))
                return usage_error("--seed: '%s' is not a whole number", optarg);
            o->seed = (uint64_t)v;
            break;
        case 'L':
            o->log = optarg;
            break;
        case 'T':
            o->tap = optarg;
            break;
        case 'x':
            if (num(optarg, 0.001, 1e7, &o->seconds))
                return usage_error("--seconds: '%s' is not a positive number", optarg);
            break;
        case 'C':
            if (num(optarg, 1, 1e9, &o->cut_count) || o->cut_count != floor(o->cut_count))
                return usage_error("--cut-count: '%s' is not a whole number >= 1", optarg);
            break;
        case 'a':
            if (num(optarg, 0, 1e7, &o->after_s))
                return usage_error("--after: '%s' is not a number of seconds", optarg);
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            return usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return usage_error("unexpected argument '%s'", argv[optind]);
    if (!o->upstream) return usage_error("missing --upstream PORT");
    if (!o->link) return usage_error("missing --link PATH");
    return -1;
}

static void set_raw(int fd)
{
    struct termios t;
    if (tcgetattr(fd, &t) != 0) return;
    cfmakeraw(&t);
    t.c_cflag |= CS8 | CLOCAL | CREAD;
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    cfsetispeed(&t, B115200);
    cfsetospeed(&t, B115200);
    tcsetattr(fd, TCSANOW, &t);
}

static int open_upstream(fp_t *f)
{
    f->up_fd = open(f->o.upstream, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (f->up_fd < 0) {
        fprintf(stderr, "faultproxy: %s: %s\n", f->o.upstream, strerror(errno));
        return -1;
    }
    set_raw(f->up_fd);
    return 0;
}

/* a symlink made beside the path and renamed over it: the path never names a half-made link */
static int make_link(const char *target, const char *link)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", link, (long)getpid());
    unlink(tmp);
    if (symlink(target, tmp) != 0 || rename(tmp, link) != 0) {
        fprintf(stderr, "faultproxy: %s: %s\n", link, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int open_collector_side(fp_t *f)
{
    f->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (f->master < 0 || grantpt(f->master) != 0 || unlockpt(f->master) != 0 ||
        ptsname_r(f->master, f->pts, sizeof f->pts) != 0) {
        fprintf(stderr, "faultproxy: cannot create a pseudo-terminal: %s\n", strerror(errno));
        return -1;
    }
    fcntl(f->master, F_SETFL, fcntl(f->master, F_GETFL) | O_NONBLOCK);
    f->slave = open(f->pts, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (f->slave < 0) {
        fprintf(stderr, "faultproxy: %s: %s\n", f->pts, strerror(errno));
        return -1;
    }
    set_raw(f->slave);
    f->clients = 0;
    f->ino_wd = inotify_add_watch(f->ino, f->pts, IN_OPEN | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE);
    if (f->ino_wd < 0) {
        fprintf(stderr, "faultproxy: inotify on %s: %s\n", f->pts, strerror(errno));
        return -1;
    }
    return make_link(f->pts, f->o.link);
}

static void close_collector_side(fp_t *f)
{
    if (f->ino_wd >= 0) inotify_rm_watch(f->ino, f->ino_wd);
    f->ino_wd = -1;
    /* drain the watch's last events: they belong to the old pty */
    char buf[4096];
    while (read(f->ino, buf, sizeof buf) > 0) {
    }
    if (f->master >= 0) close(f->master);
    if (f->slave >= 0) close(f->slave);
    f->master = f->slave = -1;
    f->clients = 0;
}

/* bytes written to the collector but not read by it yet */
static int unread(fp_t *f)
{
    int n = 0;
    if (f->slave < 0 || ioctl(f->slave, FIONREAD, &n) != 0) return 0;
    return n;
}

static void read_inotify(fp_t *f)
{
    _Alignas(struct inotify_event) char buf[4096];
    for (;;) {
        ssize_t n = read(f->ino, buf, sizeof buf);
        if (n <= 0) return;
        for (char *q = buf; q < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)q;
            q += sizeof *e + e->len;
            if (e->wd != f->ino_wd) continue;
            if (e->mask & IN_OPEN) {
                if (f->clients++ == 0) {
                    f->opens++;
                    logf_(f, "event open t_ns=%llu offset=%llu\n", (unsigned long long)real_ns(),
                          (unsigned long long)f->tap_off);
                }
            } else if (e->mask & (IN_CLOSE_WRITE | IN_CLOSE_NOWRITE)) {
                if (f->clients > 0 && --f->clients == 0) {
                    f->closes++;
                    int u = unread(f);
                    logf_(f, "event close t_ns=%llu offset=%llu unread=%d\n",
                          (unsigned long long)real_ns(), (unsigned long long)f->tap_off, u);
                    tcflush(f->slave, TCIFLUSH); /* stale bytes are not for the next client */
                    set_raw(f->slave);
                }
            }
        }
    }
}

static int queue_init(fp_queue *q)
{
    q->b = malloc(FP_QCAP);
    q->due = malloc(FP_QCAP * sizeof *q->due);
    return q->b && q->due ? 0 : -1;
}

static void push(fp_queue *q, fp_dir_stats *s, uint8_t b, uint64_t due)
{
    if (q->len == FP_QCAP) { /* full: the oldest byte goes */
        q->head = (q->head + 1) % FP_QCAP;
        q->len--;
        s->overflow++;
    }
    size_t i = (q->head + q->len) % FP_QCAP;
    q->b[i] = b;
    q->due[i] = due;
    q->len++;
}

/* One byte read from a side: the byte faults, then the queue. */
static void take(fp_t *f, fp_queue *q, fp_dir_stats *s, int faults, uint8_t b, uint64_t now)
{
    uint64_t due = now + (uint64_t)(f->o.delay_ms * 1e6);
    s->bytes_in++;
    faults = faults && now >= f->t0_ns + (uint64_t)(f->o.after_s * 1e9);
    if (faults && chance(f, f->o.drop)) {
        s->dropped++;
        return;
    }
    if (faults && chance(f, f->o.ber)) {
        b ^= (uint8_t)(1u << (rnd(f) >> 61));
        s->flipped++;
    }
    int copies = 1;
    if (faults && chance(f, f->o.dup)) {
        copies = 2;
        s->duplicated++;
    }
    for (int k = 0; k < copies; k++) {
        if (q->held) { /* the held byte goes after this one */
            push(q, s, b, due);
            push(q, s, q->held_b, due);
            q->held = 0;
        } else if (faults && chance(f, f->o.reorder)) {
            q->held = 1;
            q->held_b = b;
            q->held_due = due;
            s->reordered++;
        } else {
            push(q, s, b, due);
        }
    }
}

/* a held byte waits at most 20 ms for its successor */
static void release_held(fp_queue *q, fp_dir_stats *s, uint64_t now)
{
    if (q->held && now >= q->held_due + 20000000ull) {
        push(q, s, q->held_b, q->held_due);
        q->held = 0;
    }
}

/* Write the queue's due bytes to fd; returns bytes written. */
static size_t deliver(fp_queue *q, fp_dir_stats *s, int fd, uint64_t now, FILE *tap)
{
    size_t total = 0;
    while (q->len && q->due[q->head] <= now) {
        size_t run = 0, max = FP_QCAP - q->head < q->len ? FP_QCAP - q->head : q->len;
        while (run < max && q->due[q->head + run] <= now)
            run++;
        ssize_t n = write(fd, q->b + q->head, run);
        if (n <= 0) break;
        if (tap) fwrite(q->b + q->head, 1, (size_t)n, tap);
        q->head = (q->head + (size_t)n) % FP_QCAP;
        q->len -= (size_t)n;
        s->bytes_out += (uint64_t)n;
        total += (size_t)n;
        if ((size_t)n < run) break;
    }
    return total;
}

static void do_cut(fp_t *f, uint64_t now)
{
    int u = unread(f);
    f->cuts++;
    f->unread_at_cut += (uint64_t)(u > 0 ? u : 0);
    f->lost_in_cut += f->down.len + f->up.len;
    f->down.len = f->up.len = 0;
    f->down.held = f->up.held = 0;
    logf_(f, "event cut t_ns=%llu offset=%llu unread=%d clients=%d\n",
          (unsigned long long)real_ns(), (unsigned long long)f->tap_off, u, f->clients);
    close_collector_side(f);
    unlink(f->o.link);
    if (f->o.cut_resets && f->up_fd >= 0) {
        close(f->up_fd);
        f->up_fd = -1;
    }
    f->cut = 1;
    f->restore_ns = now + (uint64_t)(f->o.cut_s * 1e9);
    f->next_cut_ns += (uint64_t)(f->o.cut_period_s * 1e9);
}

static int do_restore(fp_t *f)
{
    if (f->up_fd < 0 && open_upstream(f) != 0) return -1;
    if (open_collector_side(f) != 0) return -1;
    f->cut = 0;
    f->restores++;
    logf_(f, "event restore t_ns=%llu offset=%llu pts=%s\n", (unsigned long long)real_ns(),
          (unsigned long long)f->tap_off, f->pts);
    return 0;
}

static void schedule(fp_t *f, uint64_t now)
{
    if (f->o.cut_period_s > 0) {
        int more = !f->o.cut_count || (double)f->cuts < f->o.cut_count;
        if (!f->cut && more && now >= f->next_cut_ns) do_cut(f, now);
        if (f->cut && now >= f->restore_ns && do_restore(f) != 0) g_stop = -1;
    }
    if (f->o.stall_period_s > 0) {
        if (!f->stalled && now >= f->next_stall_ns) {
            f->stalled = 1;
            f->stalls++;
            f->stall_end_ns = now + (uint64_t)(f->o.stall_ms * 1e6);
            f->next_stall_ns += (uint64_t)(f->o.stall_period_s * 1e9);
            logf_(f, "event stall t_ns=%llu ms=%g\n", (unsigned long long)real_ns(), f->o.stall_ms);
        } else if (f->stalled && now >= f->stall_end_ns) {
            f->stalled = 0;
        }
    }
}

/* read what a side has for the other one; returns -1 when the side hung up */
static int pull(fp_t *f, int fd, fp_queue *q, fp_dir_stats *s, int faults, int keep, uint64_t now)
{
    uint8_t buf[4096];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
        if (n <= 0) return -1;
        if (!keep) {
            *(f->cut ? &f->lost_in_cut : &f->discarded_no_client) += (uint64_t)n;
            continue;
        }
        for (ssize_t i = 0; i < n; i++)
            take(f, q, s, faults, buf[i], now);
    }
}

static uint64_t next_due(const fp_queue *q)
{
    return q->len ? q->due[q->head] : UINT64_MAX;
}

static void write_counts(fp_t *f)
{
    static const char *dn[2] = {"down", "up"};
    const fp_dir_stats *ss[2] = {&f->sd, &f->su};
    for (int d = 0; d < 2; d++)
        logf_(f,
              "%s_bytes_in=%llu\n%s_bytes_out=%llu\n%s_dropped=%llu\n%s_duplicated=%llu\n"
              "%s_flipped=%llu\n%s_reordered=%llu\n%s_overflow=%llu\n",
              dn[d], (unsigned long long)ss[d]->bytes_in, dn[d],
              (unsigned long long)ss[d]->bytes_out, dn[d], (unsigned long long)ss[d]->dropped,
              dn[d], (unsigned long long)ss[d]->duplicated, dn[d],
              (unsigned long long)ss[d]->flipped, dn[d], (unsigned long long)ss[d]->reordered,
              dn[d], (unsigned long long)ss[d]->overflow);
    logf_(f,
          "cuts=%llu\nrestores=%llu\nstalls=%llu\nclient_opens=%llu\nclient_closes=%llu\n"
          "lost_in_cut=%llu\nunread_at_cut=%llu\ndiscarded_no_client=%llu\ntap_bytes=%llu\n",
          (unsigned long long)f->cuts, (unsigned long long)f->restores,
          (unsigned long long)f->stalls, (unsigned long long)f->opens,
          (unsigned long long)f->closes, (unsigned long long)f->lost_in_cut,
          (unsigned long long)f->unread_at_cut, (unsigned long long)f->discarded_no_client,
          (unsigned long long)f->tap_off);
}

static int run(fp_t *f)
{
    uint64_t end = f->o.seconds > 0 ? f->t0_ns + (uint64_t)(f->o.seconds * 1e9) : UINT64_MAX;
    while (!g_stop) {
        uint64_t now = mono_ns();
        if (now >= end) break;
        schedule(f, now);
        if (g_stop) break;
        read_inotify(f);
        int link_up = !f->cut;
        /* meter -> collector (bytes that come while the link is cut are lost) */
        if (f->up_fd >= 0) {
            int keep = link_up && f->clients > 0;
            if (pull(f, f->up_fd, &f->down, &f->sd, f->o.dir_down, keep, now) < 0) {
                fprintf(stderr, "faultproxy: %s: the meter's port hung up\n", f->o.upstream);
                return 1;
            }
        }
        if (link_up && pull(f, f->master, &f->up, &f->su, f->o.dir_up, 1, now) < 0) {
            /* cannot happen while we hold a slave descriptor */
        }
        release_held(&f->down, &f->sd, now);
        release_held(&f->up, &f->su, now);
        if (link_up && !f->stalled) {
            f->tap_off += deliver(&f->down, &f->sd, f->master, now, f->tap);
            if (f->up_fd >= 0) deliver(&f->up, &f->su, f->up_fd, now, NULL);
        }
        /* sleep until something can happen */
        uint64_t wake = now + 100000000ull;
        if (link_up && !f->stalled) {
            uint64_t d =
                next_due(&f->down) < next_due(&f->up) ? next_due(&f->down) : next_due(&f->up);
            if (d < wake) wake = d;
        }
        if (f->down.held || f->up.held) wake = now + 5000000ull < wake ? now + 5000000ull : wake;
        if (f->cut && f->restore_ns < wake) wake = f->restore_ns;
        if (!f->cut && f->o.cut_period_s > 0 && f->next_cut_ns < wake &&
            (!f->o.cut_count || (double)f->cuts < f->o.cut_count))
            wake = f->next_cut_ns;
        if (f->stalled && f->stall_end_ns < wake) wake = f->stall_end_ns;
        if (!f->stalled && f->o.stall_period_s > 0 && f->next_stall_ns < wake)
            wake = f->next_stall_ns;
        if (end < wake) wake = end;
        struct pollfd p[4];
        nfds_t n = 0;
        if (f->up_fd >= 0) p[n++] = (struct pollfd){.fd = f->up_fd, .events = POLLIN};
        if (link_up) {
            short ev = POLLIN;
            if (f->down.len && !f->stalled && next_due(&f->down) <= now) ev |= POLLOUT;
            p[n++] = (struct pollfd){.fd = f->master, .events = ev};
            p[n++] = (struct pollfd){.fd = f->ino, .events = POLLIN};
        }
        uint64_t t = mono_ns();
        int ms = wake > t ? (int)((wake - t + 999999) / 1000000) : 0;
        if (poll(p, n, ms) < 0 && errno != EINTR) {
            perror("faultproxy: poll");
            return 1;
        }
    }
    return g_stop < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    fp_t f;
    memset(&f, 0, sizeof f);
    f.o.dir_down = f.o.dir_up = 1;
    f.o.seed = 1;
    int rc = parse_args(argc, argv, &f.o);
    if (rc >= 0) return rc;
    f.rng = f.o.seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!f.rng) f.rng = 1;
    f.master = f.slave = f.ino_wd = f.up_fd = -1;
    if (queue_init(&f.down) || queue_init(&f.up)) {
        fprintf(stderr, "faultproxy: out of memory\n");
        return 1;
    }
    if (f.o.log && !(f.log = fopen(f.o.log, "w"))) {
        fprintf(stderr, "faultproxy: %s: %s\n", f.o.log, strerror(errno));
        return 1;
    }
    if (f.o.tap && !(f.tap = fopen(f.o.tap, "w"))) {
        fprintf(stderr, "faultproxy: %s: %s\n", f.o.tap, strerror(errno));
        return 1;
    }
    f.ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (f.ino < 0) {
        fprintf(stderr, "faultproxy: inotify: %s\n", strerror(errno));
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (open_upstream(&f) != 0 || open_collector_side(&f) != 0) return 1;
    f.t0_ns = mono_ns();
    f.next_cut_ns = f.t0_ns + (uint64_t)(f.o.cut_period_s * 1e9);
    f.next_stall_ns = f.t0_ns + (uint64_t)(f.o.stall_period_s * 1e9);
    logf_(&f,
          "start t_ns=%llu seed=%llu drop=%g dup=%g ber=%g reorder=%g delay_ms=%g stall_ms=%g "
          "stall_period_s=%g cut_s=%g cut_period_s=%g cut_resets=%d after_s=%g pts=%s\n",
          (unsigned long long)real_ns(), (unsigned long long)f.o.seed, f.o.drop, f.o.dup, f.o.ber,
          f.o.reorder, f.o.delay_ms, f.o.stall_ms, f.o.stall_period_s, f.o.cut_s, f.o.cut_period_s,
          f.o.cut_resets, f.o.after_s, f.pts);
    fprintf(stderr, "faultproxy: collector side on %s (link %s)\n", f.pts, f.o.link);
    rc = run(&f);
    if (f.tap) fflush(f.tap);
    logf_(&f, "end t_ns=%llu\n", (unsigned long long)real_ns());
    write_counts(&f);
    if (!f.cut) {
        char target[PATH_MAX];
        ssize_t n = readlink(f.o.link, target, sizeof target - 1);
        if (n > 0) {
            target[n] = 0;
            if (!strcmp(target, f.pts)) unlink(f.o.link);
        }
    }
    close_collector_side(&f);
    if (f.up_fd >= 0) close(f.up_fd);
    close(f.ino);
    if (f.log) fclose(f.log);
    if (f.tap) fclose(f.tap);
    free(f.down.b);
    free(f.down.due);
    free(f.up.b);
    free(f.up.due);
    return rc;
}
