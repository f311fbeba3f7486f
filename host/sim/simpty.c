/* simpty — the simulated board on a pseudo-terminal (see mw_simpty.h). The run loop
 * alternates between moving bytes (inotify events, pty master -> board, board -> pty
 * master) and running the board for one slice of true time; when the board's clock is ahead
 * of CLOCK_MONOTONIC it waits in ppoll() on the master, the inotify descriptor and an
 * eventfd that mw_simpty_request_stop() writes to. Host bytes are read from the master only
 * while there is room to keep them, so a full board queue holds the host back through the
 * pty instead of losing bytes. */
#include "mw_simpty.h"
#include "mw_simboot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define SLICE_NS 1000000ull     /* board time run between two looks at the pty */
#define MAX_LAG_NS 250000000ull /* behind by more than this: let the difference go */
#define IN_CAP 4096u            /* host -> board bytes read but not yet queued */
#define OUT_CAP 65536u          /* board -> host bytes not yet taken by the pty */
#define CHUNK 64u               /* bytes handed to mw_sim_uart_send at a time */

struct mw_simpty {
    mw_sim *sim;
    int master, slave, ino, evfd;
    char path[64];
    char link[PATH_MAX];
    int reset_on_open;
    int clients;        /* open client descriptors as counted from inotify events */
    struct termios raw; /* the port's settings when no client has it open */
    atomic_int stop;
    uint8_t in[IN_CAP];
    size_t in_len;
    uint8_t out[OUT_CAP]; /* ring */
    size_t out_head, out_len;
    void (*tap)(void *ctx, uint8_t byte);
    void *tap_ctx;
    mw_simpty_stats st;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void board_out(void *ctx, uint8_t b)
{
    mw_simpty *p = ctx;
    p->st.from_board++;
    if (p->tap) p->tap(p->tap_ctx, b);
    if (p->st.clients_known && p->clients == 0) {
        p->st.discarded++;
        return;
    }
    if (p->out_len == OUT_CAP) {
        p->st.dropped++;
        return;
    }
    p->out[(p->out_head + p->out_len) % OUT_CAP] = b;
    p->out_len++;
}

static int make_link(const char *target, const char *link, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(link, &st) == 0) {
        if (!S_ISLNK(st.st_mode)) {
            snprintf(err, errlen, "%s exists and is not a symbolic link; not replacing it", link);
            return -1;
        }
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "%s: %s", link, strerror(errno));
        return -1;
    }
    /* make the new link beside the old one, then rename it over: the path never vanishes */
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", link, (long)getpid());
    unlink(tmp);
    if (symlink(target, tmp) != 0 || rename(tmp, link) != 0) {
        snprintf(err, errlen, "%s: %s", link, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

mw_simpty *mw_simpty_open(mw_sim *sim, const char *link, char *err, size_t errlen)
{
    mw_simpty *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->sim = sim;
    p->slave = p->ino = p->evfd = -1;
    p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (p->master < 0 || grantpt(p->master) != 0 || unlockpt(p->master) != 0 ||
        ptsname_r(p->master, p->path, sizeof p->path) != 0) {
        snprintf(err, errlen, "cannot create a pseudo-terminal: %s", strerror(errno));
        goto fail;
    }
    fcntl(p->master, F_SETFL, fcntl(p->master, F_GETFL) | O_NONBLOCK);
    /* Our own slave descriptor: the pty stays alive between clients, and its settings
     * (raw: no echo, no line editing; 115200 8N1) stay as set here. */
    p->slave = open(p->path, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (p->slave < 0) {
        snprintf(err, errlen, "%s: %s", p->path, strerror(errno));
        goto fail;
    }
    if (tcgetattr(p->slave, &p->raw) == 0) {
        cfmakeraw(&p->raw);
        p->raw.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CRTSCTS);
        p->raw.c_cflag |= CS8 | CLOCAL | CREAD;
        p->raw.c_cc[VMIN] = 1;
        p->raw.c_cc[VTIME] = 0;
        cfsetispeed(&p->raw, B115200);
        cfsetospeed(&p->raw, B115200);
        tcsetattr(p->slave, TCSANOW, &p->raw);
    }
    p->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (p->evfd < 0) {
        snprintf(err, errlen, "eventfd: %s", strerror(errno));
        goto fail;
    }
    p->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (p->ino >= 0 &&
        inotify_add_watch(p->ino, p->path, IN_OPEN | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE) >= 0) {
        p->st.clients_known = 1;
    } else if (p->ino >= 0) {
        close(p->ino);
        p->ino = -1;
    }
    if (link && *link) {
        if (strlen(link) >= sizeof p->link) {
            snprintf(err, errlen, "%s: path too long", link);
            goto fail;
        }
        if (make_link(p->path, link, err, errlen) != 0) goto fail;
        snprintf(p->link, sizeof p->link, "%s", link);
    }
    mw_sim_set_uart_sink(sim, board_out, p);
    return p;
fail:
    mw_simpty_close(p);
    return NULL;
}

void mw_simpty_close(mw_simpty *p)
{
    if (!p) return;
    if (p->link[0]) {
        char target[PATH_MAX];
        ssize_t n = readlink(p->link, target, sizeof target - 1);
        if (n > 0) {
            target[n] = 0;
            if (!strcmp(target, p->path)) unlink(p->link);
        }
    }
    if (p->sim) mw_sim_set_uart_sink(p->sim, NULL, NULL);
    int fds[] = {p->ino, p->evfd, p->slave, p->master};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0) close(fds[i]);
    free(p);
}

const char *mw_simpty_path(const mw_simpty *p)
{
    return p->path;
}
const char *mw_simpty_link(const mw_simpty *p)
{
    return p->link[0] ? p->link : NULL;
}
void mw_simpty_set_reset_on_open(mw_simpty *p, int on)
{
    p->reset_on_open = on;
}

void mw_simpty_set_tap(mw_simpty *p, void (*fn)(void *ctx, uint8_t byte), void *ctx)
{
    p->tap = fn;
    p->tap_ctx = ctx;
}

void mw_simpty_request_stop(mw_simpty *p)
{
    atomic_store(&p->stop, 1);
    uint64_t one = 1;
    ssize_t r = write(p->evfd, &one, sizeof one);
    (void)r;
}

void mw_simpty_get_stats(const mw_simpty *p, mw_simpty_stats *st)
{
    *st = p->st;
}

/* A client opened the port with none open before: stale output goes, the board resets. */
static void client_arrived(mw_simpty *p)
{
    p->st.client_opens++;
    p->out_len = 0;
    tcflush(p->slave, TCIFLUSH);
    if (p->reset_on_open) {
        mw_simboot_reset(p->sim);
        p->st.resets++;
    }
}

static void read_inotify(mw_simpty *p)
{
    if (p->ino < 0) return;
    _Alignas(struct inotify_event) char buf[4096];
    for (;;) {
        ssize_t n = read(p->ino, buf, sizeof buf);
        if (n <= 0) return;
        for (char *q = buf; q < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)q;
            if (e->mask & IN_Q_OVERFLOW) {
                p->clients = 1; /* unknown: assume someone listens */
            } else if (e->mask & IN_OPEN) {
                if (p->clients++ == 0) client_arrived(p);
            } else if (e->mask & (IN_CLOSE_WRITE | IN_CLOSE_NOWRITE)) {
                /* the last client gone: undo what it left set (with echo on, the board's
                 * output would come back to it as input) */
                if (p->clients > 0 && --p->clients == 0) tcsetattr(p->slave, TCSANOW, &p->raw);
            }
            q += sizeof *e + e->len;
        }
    }
}

/* Host -> board: hand buffered bytes to the board's queue, keep what it refuses. */
static void feed_board(mw_simpty *p)
{
    size_t done = 0;
    while (done < p->in_len) {
        size_t n = p->in_len - done < CHUNK ? p->in_len - done : CHUNK;
        if (mw_sim_uart_send(p->sim, p->in + done, n) != 0) {
            if (n == 1 || mw_sim_uart_send(p->sim, p->in + done, 1) != 0) break;
            n = 1;
        }
        done += n;
    }
    if (done) {
        memmove(p->in, p->in + done, p->in_len - done);
        p->in_len -= done;
        p->st.to_board += done;
    }
}

static void pump(mw_simpty *p)
{
    read_inotify(p);
    feed_board(p);
    while (p->in_len < IN_CAP) {
        ssize_t n = read(p->master, p->in + p->in_len, IN_CAP - p->in_len);
        if (n <= 0)
            break; /* EAGAIN: nothing waiting; EIO: no slave open (cannot last: we hold one) */
        p->in_len += (size_t)n;
        feed_board(p);
    }
    while (p->out_len) {
        size_t run = OUT_CAP - p->out_head < p->out_len ? OUT_CAP - p->out_head : p->out_len;
        ssize_t n = write(p->master, p->out + p->out_head, run);
        if (n <= 0) break;
        p->out_head = (p->out_head + (size_t)n) % OUT_CAP;
        p->out_len -= (size_t)n;
    }
    if (!p->out_len) p->out_head = 0;
}

/* Sleep up to ns, waking early for pty input, pty room for pending output, client
 * arrivals and stop requests. */
static void wait_io(mw_simpty *p, uint64_t ns)
{
    struct pollfd fds[3];
    nfds_t n = 0;
    short ev = (short)((p->in_len < IN_CAP ? POLLIN : 0) | (p->out_len ? POLLOUT : 0));
    fds[n++] = (struct pollfd){.fd = p->master, .events = ev};
    fds[n++] = (struct pollfd){.fd = p->evfd, .events = POLLIN};
    if (p->ino >= 0) fds[n++] = (struct pollfd){.fd = p->ino, .events = POLLIN};
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull),
                          .tv_nsec = (long)(ns % 1000000000ull)};
    int r = ppoll(fds, n, &ts, NULL);
    if (r > 0 && (fds[0].revents & (POLLHUP | POLLERR)) && !(fds[0].revents & POLLIN)) {
        /* no slave open (cannot happen while we hold ours): do not spin, just sleep */
        nanosleep(&ts, NULL);
    }
}

int mw_simpty_run(mw_simpty *p, uint64_t duration_ns)
{
    uint64_t t0 = mono_ns();
    uint64_t s0 = mw_sim_time_ns(p->sim);
    int rc = 0;
    while (!atomic_load(&p->stop)) {
        pump(p);
        uint64_t sim_el = mw_sim_time_ns(p->sim) - s0;
        if (duration_ns && sim_el >= duration_ns) break;
        uint64_t real_el = mono_ns() - t0;
        if (sim_el > real_el) {
            wait_io(p, sim_el - real_el);
            continue;
        }
        uint64_t lag = real_el - sim_el;
        if (lag > p->st.max_lag_ns) p->st.max_lag_ns = lag;
        if (lag > MAX_LAG_NS) {
            t0 += lag - MAX_LAG_NS;
            p->st.lag_slips++;
        }
        uint64_t slice = SLICE_NS;
        if (duration_ns && duration_ns - sim_el < slice) slice = duration_ns - sim_el;
        if (mw_sim_run_ns(p->sim, slice) != 0) {
            rc = -1;
            break;
        }
    }
    pump(p);
    /* drain the eventfd so a later run does not wake at once */
    uint64_t v;
    while (read(p->evfd, &v, sizeof v) > 0) {
    }
    atomic_store(&p->stop, 0);
    return rc;
}
