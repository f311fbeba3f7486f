/* Serial transport (host/port.c) on pseudo-terminals: bytes both ways, a hang-up reported as
 * a lost port, and each kind of open failure classified and named: no such port, not a
 * serial port, busy (held by another opener), permission denied. The wait that also ends
 * on a second descriptor (a child's pidfd: its end) or a signal, for the port and for a meter
 * session on it, and that the bytes come first. */
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
        cmocka_unit_test(open_failures_are_classified),
        cmocka_unit_test(second_opener_is_told_busy),
        cmocka_unit_test(permission_denied),
        cmocka_unit_test(meter_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
