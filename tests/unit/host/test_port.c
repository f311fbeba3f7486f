/* Serial transport (host/port.c) on pseudo-terminals: bytes both ways, a hang-up reported as
 * a lost port, and each kind of open failure classified and named: no such port, not a
 * serial port, busy (held by another opener), permission denied. The wait that also ends
 * on a second descriptor (a child's pidfd: its end) or a signal, for the port and for a meter
 * session on it, and that the bytes come first. Line mode (mw_port_set_lines, issue 22): a
 * line sent in pieces wakes the reader once, after its last piece, with every byte as sent
 * (control characters, NUL and CR included); a line over the kernel's 4095 bytes is cut and
 * the next one is whole; a meter session on the port stamps a window line when its last
 * piece came. */
#include "../unit.h"

#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"
#include "mw_meter.h"
#include "mw_port.h"

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void on_alarm(int sig)
{
    (void)sig;
}

typedef struct {
    int master;
    char slave[256];
} pty_t;

static void pty_open(pty_t *p)
{
    int s;
    assert_int_equal(openpty(&p->master, &s, p->slave, NULL, NULL), 0);
    close(s); /* the port opens it by name */
}

static void bytes_both_ways_and_hangup(void **state)
{
    pty_t t;
    pty_open(&t);
    char err[512];
    mw_port_err why = MW_PORT_IO;
    mw_port *p = mw_port_open(t.slave, &why, err, sizeof err);
    assert_non_null(p);
    assert_int_equal(why, MW_PORT_OK);
    assert_string_equal(mw_port_path(p), t.slave);
    mw_port_info info;
    mw_port_get_info(p, &info);
    assert_int_equal(info.vid, -1); /* a pty is not on USB */
    assert_null(info.kind);

    char buf[64];
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 0), 0); /* nothing yet */
    assert_int_equal(write(t.master, "W,1*ABCD\r\n", 10), 10);
    int n = mw_port_read(p, buf, sizeof buf, 1000);
    assert_int_equal(n, 10);
    assert_memory_equal(buf, "W,1*ABCD\r\n", 10); /* raw: no CR/LF translation */

    assert_int_equal(mw_port_write(p, "ID\r\n", 4, 1000), 0);
    n = (int)read(t.master, buf, sizeof buf);
    assert_int_equal(n, 4);
    assert_memory_equal(buf, "ID\r\n", 4);

    close(t.master); /* the board goes away */
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 1000), -1);
    mw_port_close(p);
}

/* mw_port_read_wake: a readable wake descriptor, a child's end (pidfd) and a signal each end a
 * 5 s wait at once; bytes on the port are read in the same call */
static void wake_fd_and_signal_end_the_wait(void **state)
{
    pty_t t;
    pty_open(&t);
    char err[512], buf[64];
    mw_port *p = mw_port_open(t.slave, NULL, err, sizeof err);
    assert_non_null(p);
    int pp[2];
    assert_int_equal(pipe(pp), 0);
    int woken = -1;
    double t0 = mono_s();
    assert_int_equal(mw_port_read_wake(p, buf, sizeof buf, 200, pp[0], &woken), 0);
    assert_int_equal(woken, 0); /* the timeout, nothing else */
    assert_true(mono_s() - t0 >= 0.19);
    assert_int_equal(write(pp[1], "x", 1), 1);
    t0 = mono_s();
    assert_int_equal(mw_port_read_wake(p, buf, sizeof buf, 5000, pp[0], &woken), 0);
    assert_int_equal(woken, 1);
    assert_true(mono_s() - t0 < 1.0);
    assert_int_equal(write(t.master, "W,1\r\n", 5), 5); /* bytes and the wake fd: bytes read */
    usleep(20000);
    assert_int_equal(mw_port_read_wake(p, buf, sizeof buf, 5000, pp[0], &woken), 5);
    assert_int_equal(woken, 1);
    close(pp[0]);
    close(pp[1]);
#ifdef SYS_pidfd_open
    pid_t kid = fork();
    if (kid == 0) {
        usleep(100000);
        _exit(0);
    }
    int pidfd = (int)syscall(SYS_pidfd_open, kid, 0);
    if (pidfd >= 0) { /* a kernel before 5.3 has none */
        t0 = mono_s();
        assert_int_equal(mw_port_read_wake(p, buf, sizeof buf, 5000, pidfd, &woken), 0);
        assert_int_equal(woken, 1);
        double el = mono_s() - t0;
        assert_true(el >= 0.05 && el < 2.0);
        /* a meter session on the port: mw_meter_next returns 0 at once */
        mw_meter *m = mw_meter_new();
        mw_meter_set_port(m, p);
        mw_meter_set_wake_fd(m, pidfd);
        mw_meter_event ev;
        t0 = mono_s();
        assert_int_equal(mw_meter_next(m, &ev, 5000), 0);
        assert_true(mono_s() - t0 < 1.0);
        mw_meter_set_wake_fd(m, -1); /* no longer: the full wait */
        t0 = mono_s();
        assert_int_equal(mw_meter_next(m, &ev, 150), 0);
        assert_true(mono_s() - t0 >= 0.14);
        mw_meter_set_port(m, NULL); /* closes p */
        mw_meter_close(m);
        p = NULL;
        close(pidfd);
    }
    waitpid(kid, NULL, 0);
    if (!p) p = mw_port_open(t.slave, NULL, err, sizeof err);
    assert_non_null(p);
#endif
    /* a signal this thread catches ends the wait too */
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    struct itimerval it = {{0, 0}, {0, 100000}};
    setitimer(ITIMER_REAL, &it, NULL);
    t0 = mono_s();
    assert_int_equal(mw_port_read_wake(p, buf, sizeof buf, 5000, -1, &woken), 0);
    assert_int_equal(woken, 1);
    assert_true(mono_s() - t0 < 2.0);
    sigaction(SIGALRM, &old, NULL);
    mw_port_close(p);
    close(t.master);
}

/* a child writes the pieces, 50 ms apart, and exits */
static pid_t write_pieces(int fd, const char *const *piece, int n)
{
    pid_t kid = fork();
    if (kid == 0) {
        for (int i = 0; i < n; i++) {
            if (i) usleep(50000);
            if (write(fd, piece[i], strlen(piece[i])) < 0) _exit(1);
        }
        _exit(0);
    }
    return kid;
}

static void line_mode_gives_whole_lines(void **state)
{
    pty_t t;
    pty_open(&t);
    char err[512], buf[8192];
    mw_port *p = mw_port_open(t.slave, NULL, err, sizeof err);
    assert_non_null(p);
    assert_int_equal(mw_port_lines(p), 0); /* opened raw */
    assert_int_equal(mw_port_set_lines(p, 1), 0);
    assert_int_equal(mw_port_lines(p), 1);
    /* a line in three pieces: one read, after the last piece */
    const char *pieces[] = {"W,1,", "2,3", "*ABCD\r\n"};
    double t0 = mono_s();
    pid_t kid = write_pieces(t.master, pieces, 3);
    int n = mw_port_read(p, buf, sizeof buf, 5000);
    double el = mono_s() - t0;
    assert_int_equal(n, 14);
    assert_memory_equal(buf, "W,1,2,3*ABCD\r\n", 14);
    assert_true(el >= 0.09 && el < 2.0);
    waitpid(kid, NULL, 0);
    /* a part of a line is not handed over */
    assert_int_equal(write(t.master, "W,2", 3), 3);
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 100), 0);
    /* no byte has a meaning but the line's end: NUL, EOF, erase, kill, interrupt, stop and
     * start, suspend, CR all come through as sent; two lines are two reads */
    static const char ctl[] = "\0\x04\x7f\x15\x17\x03\x1c\x1a\x11\x13\x16\x12\x0f\r\r\n";
    assert_int_equal(write(t.master, ctl, sizeof ctl - 1), (ssize_t)sizeof ctl - 1);
    assert_int_equal(write(t.master, "I,x\r\n", 5), 5);
    usleep(20000);
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 1000), 3 + (int)sizeof ctl - 1);
    assert_memory_equal(buf, "W,2", 3);
    assert_memory_equal(buf + 3, ctl, sizeof ctl - 1);
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 1000), 5);
    assert_memory_equal(buf, "I,x\r\n", 5);
    /* 6000 bytes without a line end: nothing; then the line ends: cut to the kernel's
     * 4095 bytes and its '\n', and the next line is whole */
    char big[6000];
    memset(big, 'G', sizeof big);
    for (size_t k = 0; k < sizeof big; k += 1000)
        assert_int_equal(write(t.master, big + k, 1000), 1000);
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 100), 0);
    assert_int_equal(write(t.master, "\r\nB,1,1\r\n", 9), 9);
    n = mw_port_read(p, buf, sizeof buf, 1000);
    assert_true(n > 1000 && n <= 4096);
    assert_int_equal(buf[n - 1], '\n');
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 1000), 7);
    assert_memory_equal(buf, "B,1,1\r\n", 7);
    /* a read that does not wait is one read(): a line, nothing, both lines in turn */
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 0), 0);
    assert_int_equal(write(t.master, "W,4\r\nW,5\r\n", 10), 10);
    usleep(20000);
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 0), 5);
    assert_memory_equal(buf, "W,4\r\n", 5);
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 0), 5);
    assert_memory_equal(buf, "W,5\r\n", 5);
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 0), 0);
    /* off again: bytes as they come */
    assert_int_equal(mw_port_set_lines(p, 0), 0);
    assert_int_equal(mw_port_lines(p), 0);
    assert_int_equal(write(t.master, "W,3", 3), 3);
    usleep(20000);
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 1000), 3);
    close(t.master); /* a hang-up is still seen */
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 1000), -1);
    mw_port_close(p);
    /* and in line mode by a read that does not wait */
    pty_open(&t);
    p = mw_port_open(t.slave, NULL, err, sizeof err);
    assert_non_null(p);
    assert_int_equal(mw_port_set_lines(p, 1), 0);
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 0), 0);
    close(t.master);
    assert_int_equal(mw_port_read(p, buf, sizeof buf, 0), -1);
    mw_port_close(p);
}

/* A meter session puts its port in line mode: a window line sent in three pieces is one
 * event, stamped when its last piece came, not when its first did */
static void meter_stamps_line_at_its_end(void **state)
{
    pty_t t;
    pty_open(&t);
    char err[512];
    mw_port *p = mw_port_open(t.slave, NULL, err, sizeof err);
    assert_non_null(p);
    mw_meter *m = mw_meter_new();
    mw_meter_set_port(m, p);
    assert_int_equal(mw_port_lines(p), 1);
    mw_frame f;
    memset(&f, 0, sizeof f);
    f.seq = 7;
    f.t0_us = 1000000;
    f.t1_us = 1250016;
    f.nsets = 401;
    f.freq_mhz = 50000;
    f.vrms_mv = 230000;
    f.nchan = 1;
    f.p_mw[0] = 100000;
    f.irms_ua[0] = 434782;
    f.pf_milli[0] = 1000;
    char line[1200], a[600], b[600], c[600];
    size_t len = mw_frame_encode(&f, line, sizeof line);
    assert_true(len > 30);
    size_t k1 = len / 3, k2 = 2 * len / 3;
    snprintf(a, sizeof a, "%.*s", (int)k1, line);
    snprintf(b, sizeof b, "%.*s", (int)(k2 - k1), line + k1);
    snprintf(c, sizeof c, "%.*s", (int)(len - k2), line + k2);
    const char *pieces[] = {a, b, c};
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    pid_t kid = write_pieces(t.master, pieces, 3);
    mw_meter_event ev;
    assert_int_equal(mw_meter_next(m, &ev, 5000), 1);
    waitpid(kid, NULL, 0);
    assert_int_equal(ev.type, MW_METER_WINDOW);
    assert_int_equal(ev.w.seq, 7);
    assert_true(ev.arrival_mono_ns - t0 >= 90000000);   /* after the last piece (100 ms) */
    assert_true(ev.arrival_mono_ns - t0 < 1000000000);
    mw_meter_close(m);
    close(t.master);
}

static void open_failures_are_classified(void **state)
{
    char err[512];
    mw_port_err why;
    assert_null(mw_port_open("/nonexistent/ttyACM9", &why, err, sizeof err));
    assert_int_equal(why, MW_PORT_NOT_FOUND);
    assert_non_null(strstr(err, "/nonexistent/ttyACM9"));
    assert_non_null(strstr(err, "no such port"));

    /* a character device that is not a terminal, and a plain file */
    assert_null(mw_port_open("/dev/null", &why, err, sizeof err));
    assert_int_equal(why, MW_PORT_NOT_SERIAL);
    assert_non_null(strstr(err, "/dev/null: not a serial port"));
    char file[] = "/tmp/mw-test-port-XXXXXX";
    int fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    assert_null(mw_port_open(file, &why, err, sizeof err));
    assert_int_equal(why, MW_PORT_NOT_SERIAL);
    unlink(file);
}

static void second_opener_is_told_busy(void **state)
{
    pty_t t;
    pty_open(&t);
    char err[512];
    mw_port_err why;
    mw_port *a = mw_port_open(t.slave, &why, err, sizeof err);
    assert_non_null(a);
    mw_port *b = mw_port_open(t.slave, &why, err, sizeof err);
    assert_null(b);
    assert_int_equal(why, MW_PORT_BUSY);
    assert_non_null(strstr(err, t.slave));
    assert_non_null(strstr(err, "busy"));
    mw_port_close(a);
    b = mw_port_open(t.slave, &why, err, sizeof err); /* free again */
    assert_non_null(b);
    mw_port_close(b);
    close(t.master);
}

static void permission_denied(void **state)
{
    pty_t t;
    pty_open(&t);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* root opens anything: become nobody, whom the root-owned pty (0620) refuses; an
         * ordinary user takes the permissions off its own pty */
        if (geteuid() == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0) _exit(10);
        } else if (chmod(t.slave, 0) != 0) {
            _exit(11);
        }
        char err[512];
        mw_port_err why;
        mw_port *p = mw_port_open(t.slave, &why, err, sizeof err);
        if (p) _exit(12);
        if (why != MW_PORT_DENIED) _exit(13);
        if (!strstr(err, t.slave) || !strstr(err, "permission denied")) _exit(14);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    close(t.master);
}

static void meter_ids(void **state)
{
    assert_string_equal(mw_port_meter_kind(0x2341, 0x0042), "Arduino Mega 2560 R3");
    assert_string_equal(mw_port_meter_kind(0x2341, 0x0010), "Arduino Mega 2560");
    assert_non_null(mw_port_meter_kind(0x1a86, 0x7523));
    assert_non_null(mw_port_meter_kind(0x0403, 0x6001));
    assert_null(mw_port_meter_kind(0x0403, 0x6015));
    assert_null(mw_port_meter_kind(-1, -1));
    /* listing works on any machine; meters, if any, come first */
    mw_port_info *v;
    int n = mw_port_list(&v);
    assert_true(n >= 0);
    for (int i = 1; i < n; i++)
        assert_false(v[i].kind && !v[i - 1].kind);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bytes_both_ways_and_hangup),
        cmocka_unit_test(wake_fd_and_signal_end_the_wait),
        cmocka_unit_test(line_mode_gives_whole_lines),
        cmocka_unit_test(meter_stamps_line_at_its_end),
        cmocka_unit_test(open_failures_are_classified),
        cmocka_unit_test(second_opener_is_told_busy),
        cmocka_unit_test(permission_denied),
        cmocka_unit_test(meter_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
