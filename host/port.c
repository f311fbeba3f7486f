/* port — the serial transport (mw_port.h). libserialport opens and configures the ports it
 * knows (USB CDC/serial adapters, via /sys/class/tty) and lists them with their USB
 * identity; any other terminal (a pty: the simulated board) is configured with termios.
 * Either way reads and writes go through poll() on the port's descriptor, together with one
 * more descriptor of the caller's (mw_port_read_wake: a child's pidfd), and a hang-up (unplug, the board's pty
 * closing) shows as POLLHUP/EIO and is reported as "gone". A meter session puts its port in
 * line mode (mw_port_set_lines: canonical input, no special characters), so that the kernel
 * wakes a reader once a line; a read that does not wait is then a read() alone. */
#include "mw_port.h"

#include <errno.h>
#include <fcntl.h>
#include <libserialport.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

struct mw_port {
    char path[PATH_MAX];
    struct sp_port *sp; /* NULL for a termios port */
    int fd;
    int lines; /* mw_port_set_lines: the kernel hands over whole lines */
};

static const struct {
    int vid, pid;
    const char *kind;
} meter_ids[] = {
    {0x2341, 0x0010, "Arduino Mega 2560"},
    {0x2341, 0x0042, "Arduino Mega 2560 R3"},
    {0x1a86, 0x7523, "CH340 serial (Mega clone)"},
    {0x0403, 0x6001, "FTDI FT232R serial (Mega clone)"},
};

const char *mw_port_meter_kind(int vid, int pid)
{
    for (size_t k = 0; k < sizeof meter_ids / sizeof meter_ids[0]; k++)
        if (vid == meter_ids[k].vid && pid == meter_ids[k].pid) return meter_ids[k].kind;
    return NULL;
}

static mw_port_err classify(int e)
{
    switch (e) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
        return MW_PORT_NOT_FOUND;
    case EACCES:
    case EPERM:
        return MW_PORT_DENIED;
    case EBUSY:
    case EWOULDBLOCK:
        return MW_PORT_BUSY;
    case ENOTTY:
        return MW_PORT_NOT_SERIAL;
    default:
        return MW_PORT_IO;
    }
}

static const char *describe(mw_port_err k, int e)
{
    switch (k) {
    case MW_PORT_NOT_FOUND:
        return "no such port (is the meter plugged in?)";
    case MW_PORT_DENIED:
        return "permission denied (is the user in group dialout?)";
    case MW_PORT_BUSY:
        return "port busy (another program has it open)";
    case MW_PORT_NOT_SERIAL:
        return "not a serial port";
    default:
        return strerror(e);
    }
}

static mw_port *fail(mw_port *p, mw_port_err k, int e, mw_port_err *why, const char *path,
                     char *err, size_t errlen)
{
    if (why) *why = k;
    snprintf(err, errlen, "%s: %s", path, describe(k, e));
    mw_port_close(p);
    return NULL;
}

static int set_termios(int fd)
{
    struct termios t;
    if (tcgetattr(fd, &t) != 0) return -1;
    cfmakeraw(&t);
    t.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CRTSCTS);
    t.c_cflag |= CS8 | CLOCAL | CREAD;
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    cfsetispeed(&t, B115200);
    cfsetospeed(&t, B115200);
    return tcsetattr(fd, TCSANOW, &t);
}

/* Line mode (mw_port.h): canonical input with every special character disabled
 * (_POSIX_VDISABLE: Linux n_tty then gives no byte a meaning but '\n'), no CR/NL
 * translation, no echo, no signals; the bytes come through unchanged. */
int mw_port_set_lines(mw_port *p, int on)
{
    struct termios t;
    if (tcgetattr(p->fd, &t) != 0) return -1;
    if (on) {
        t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL |
                                 IXON | IXOFF | IXANY | IMAXBEL);
        t.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL | ISIG | IEXTEN);
        t.c_lflag |= ICANON;
        for (size_t k = 0; k < NCCS; k++)
            t.c_cc[k] = _POSIX_VDISABLE;
    } else {
        t.c_lflag &= ~(tcflag_t)ICANON;
        t.c_cc[VMIN] = 0;
        t.c_cc[VTIME] = 0;
    }
    /* reads that do not wait (read_line_now) must not block: libserialport opens ports
     * non-blocking too, this makes sure */
    int fl = fcntl(p->fd, F_GETFL);
    if (fl < 0 || (!(fl & O_NONBLOCK) && fcntl(p->fd, F_SETFL, fl | O_NONBLOCK) != 0)) return -1;
    if (tcsetattr(p->fd, TCSANOW, &t) != 0) return -1;
    /* tcsetattr succeeds when any one change took: check that this one did */
    struct termios got;
    if (tcgetattr(p->fd, &got) != 0 || !!(got.c_lflag & ICANON) != !!on) return -1;
    p->lines = on;
    return 0;
}

int mw_port_lines(const mw_port *p)
{
    return p->lines;
}

mw_port *mw_port_open(const char *path, mw_port_err *why, char *err, size_t errlen)
{
    mw_port *p = calloc(1, sizeof *p);
    if (!p) return fail(NULL, MW_PORT_IO, ENOMEM, why, path, err, errlen);
    p->fd = -1;
    snprintf(p->path, sizeof p->path, "%s", path);
    struct stat st;
    if (stat(path, &st) != 0) return fail(p, classify(errno), errno, why, path, err, errlen);
    if (!S_ISCHR(st.st_mode)) return fail(p, MW_PORT_NOT_SERIAL, 0, why, path, err, errlen);
    /* libserialport knows devices by their real name (not a /dev/serial/by-id link) */
    char real[PATH_MAX];
    const char *name = realpath(path, real) ? real : path;
    if (sp_get_port_by_name(name, &p->sp) == SP_OK) {
        if (sp_open(p->sp, SP_MODE_READ_WRITE) != SP_OK) {
            int e = errno;
            sp_free_port(p->sp);
            p->sp = NULL;
            return fail(p, classify(e), e, why, path, err, errlen);
        }
        if (sp_get_port_handle(p->sp, &p->fd) != SP_OK || sp_set_baudrate(p->sp, 115200) != SP_OK ||
            sp_set_bits(p->sp, 8) != SP_OK || sp_set_parity(p->sp, SP_PARITY_NONE) != SP_OK ||
            sp_set_stopbits(p->sp, 1) != SP_OK ||
            sp_set_flowcontrol(p->sp, SP_FLOWCONTROL_NONE) != SP_OK) {
            char *m = sp_last_error_message();
            snprintf(err, errlen, "%s: cannot set 115200 8N1: %s", path, m ? m : "failed");
            sp_free_error_message(m);
            if (why) *why = MW_PORT_IO;
            mw_port_close(p);
            return NULL;
        }
    } else {
        p->sp = NULL;
        p->fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (p->fd < 0) return fail(p, classify(errno), errno, why, path, err, errlen);
        if (set_termios(p->fd) != 0) {
            int e = errno;
            return fail(p, e == ENOTTY || e == EINVAL ? MW_PORT_NOT_SERIAL : classify(e), e, why,
                        path, err, errlen);
        }
    }
    if (flock(p->fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        return fail(p, e == EWOULDBLOCK ? MW_PORT_BUSY : classify(e), e, why, path, err, errlen);
    }
    if (why) *why = MW_PORT_OK;
    return p;
}

void mw_port_close(mw_port *p)
{
    if (!p) return;
    if (p->sp) {
        sp_close(p->sp);
        sp_free_port(p->sp);
    } else if (p->fd >= 0) {
        close(p->fd);
    }
    free(p);
}

const char *mw_port_path(const mw_port *p)
{
    return p->path;
}
int mw_port_fd(const mw_port *p)
{
    return p->fd;
}

static void info_from_sp(struct sp_port *sp, mw_port_info *info)
{
    info->vid = info->pid = -1;
    info->bus = info->address = -1;
    info->serial[0] = info->manufacturer[0] = info->product[0] = 0;
    info->kind = NULL;
    if (sp_get_port_transport(sp) != SP_TRANSPORT_USB) return;
    sp_get_port_usb_vid_pid(sp, &info->vid, &info->pid);
    sp_get_port_usb_bus_address(sp, &info->bus, &info->address);
    const char *s;
    if ((s = sp_get_port_usb_serial(sp))) snprintf(info->serial, sizeof info->serial, "%s", s);
    if ((s = sp_get_port_usb_manufacturer(sp)))
        snprintf(info->manufacturer, sizeof info->manufacturer, "%s", s);
    if ((s = sp_get_port_usb_product(sp))) snprintf(info->product, sizeof info->product, "%s", s);
    info->kind = mw_port_meter_kind(info->vid, info->pid);
}

void mw_port_get_info(const mw_port *p, mw_port_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->path, sizeof info->path, "%s", p->path);
    info->vid = info->pid = info->bus = info->address = -1;
    if (p->sp) info_from_sp(p->sp, info);
}

int mw_port_read(mw_port *p, void *buf, size_t n, int timeout_ms)
{
    return mw_port_read_wake(p, buf, n, timeout_ms, -1, NULL);
}

/* A read that does not wait, in line mode: no poll() first (the caller's own poll, over
 * several meters' ports, said this one has something). Canonical input tells the cases
 * apart by itself: a line, EAGAIN (none yet), 0 (hung up: a real port unplugged) or EIO
 * (a pty whose other end closed). */
static int read_line_now(mw_port *p, void *buf, size_t n)
{
    ssize_t got = read(p->fd, buf, n);
    if (got < 0) return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    return got == 0 ? -1 : (int)got;
}

int mw_port_read_wake(mw_port *p, void *buf, size_t n, int timeout_ms, int wake_fd, int *woken)
{
    if (timeout_ms <= 0 && p->lines) {
        if (woken) *woken = 0;
        return read_line_now(p, buf, n);
    }
    struct pollfd pfd[2] = {{.fd = p->fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
    if (woken) *woken = 0;
    int r = poll(pfd, wake_fd >= 0 ? 2 : 1, timeout_ms < 0 ? 0 : timeout_ms);
    if (r < 0 && errno == EINTR && woken) *woken = 1; /* a signal: the caller looks at it */
    if (r < 0) return errno == EINTR ? 0 : -1;
    if (r == 0) return 0;
    if (wake_fd >= 0 && pfd[1].revents && woken) *woken = 1;
    if (!pfd[0].revents) return 0;
    if (pfd[0].revents & POLLNVAL) return -1;
    ssize_t got;
    if (p->sp) {
        enum sp_return sr = sp_nonblocking_read(p->sp, buf, n);
        got = sr;
        if (sr < 0) return -1;
    } else {
        got = read(p->fd, buf, n);
        if (got < 0) return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    }
    /* readable but nothing there: end of file, i.e. hung up */
    if (got == 0) return (pfd[0].revents & (POLLHUP | POLLERR | POLLIN)) ? -1 : 0;
    return (int)got;
}

int mw_port_write(mw_port *p, const void *buf, size_t n, int timeout_ms)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const char *c = buf;
    while (n > 0) {
        ssize_t w = p->sp ? sp_nonblocking_write(p->sp, c, n) : write(p->fd, c, n);
        if (w < 0 && errno != EAGAIN && errno != EINTR) return -1;
        if (w > 0) {
            c += w;
            n -= (size_t)w;
            continue;
        }
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long el = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        if (el >= timeout_ms) return -1;
        struct pollfd pfd = {.fd = p->fd, .events = POLLOUT};
        if (poll(&pfd, 1, (int)(timeout_ms - el)) < 0 && errno != EINTR) return -1;
        if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) return -1;
    }
    return 0;
}

void mw_port_flush_input(mw_port *p)
{
    if (p->sp)
        sp_flush(p->sp, SP_BUF_INPUT);
    else
        tcflush(p->fd, TCIFLUSH);
}

static int meter_first(const void *a, const void *b)
{
    const mw_port_info *x = a, *y = b;
    if (!!x->kind != !!y->kind) return x->kind ? -1 : 1;
    return strcmp(x->path, y->path);
}

int mw_port_list(mw_port_info **out)
{
    struct sp_port **ports = NULL;
    *out = NULL;
    if (sp_list_ports(&ports) != SP_OK) return -1;
    int n = 0;
    while (ports[n])
        n++;
    mw_port_info *v = calloc((size_t)n + 1, sizeof *v);
    if (!v) {
        sp_free_port_list(ports);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        snprintf(v[i].path, sizeof v[i].path, "%s", sp_get_port_name(ports[i]));
        info_from_sp(ports[i], &v[i]);
    }
    sp_free_port_list(ports);
    qsort(v, (size_t)n, sizeof *v, meter_first);
    *out = v;
    return n;
}

int mw_port_find_meter(char *path, size_t pathlen, char *err, size_t errlen)
{
    mw_port_info *v;
    int n = mw_port_list(&v);
    if (n < 0) {
        snprintf(err, errlen, "cannot list serial ports; give the port");
        return -1;
    }
    char found[1024] = "", others[1024] = "";
    int nfound = 0;
    for (int i = 0; i < n; i++) {
        char item[400];
        if (v[i].vid >= 0)
            snprintf(item, sizeof item, "%.200s (%04x:%04x%s%s%s%.80s)", v[i].path,
                     (unsigned)v[i].vid, (unsigned)v[i].pid, v[i].kind ? ", " : "",
                     v[i].kind ? v[i].kind : "", v[i].serial[0] ? ", serial " : "", v[i].serial);
        else
            snprintf(item, sizeof item, "%.200s", v[i].path);
        char *list = v[i].kind ? found : others;
        size_t len = strlen(list);
        snprintf(list + len, sizeof found - len, "%s%s", len ? ", " : "", item);
        if (v[i].kind && nfound++ == 0) snprintf(path, pathlen, "%s", v[i].path);
    }
    free(v);
    if (nfound == 1) return 0;
    if (nfound == 0)
        snprintf(err, errlen,
                 "no meter found on USB (Arduino Mega 2341:0010, 2341:0042, clones 1a86:7523, "
                 "0403:6001); serial ports seen: %s; without a meter, --meter sim (or "
                 "sim:cluster) records on the simulated board",
                 others[0] ? others : "none");
    else
        snprintf(err, errlen, "%d possible meters: %s; choose one", nfound, found);
    return -1;
}
