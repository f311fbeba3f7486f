/* Serial transport (host/port.c) on pseudo-terminals: bytes both ways, a hang-up reported as
 * a lost port, and each kind of open failure classified and named: no such port, not a
 * serial port, busy (held by another opener), permission denied. */
#include "../unit.h"

#include <fcntl.h>
#include <pty.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mw_port.h"

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
        cmocka_unit_test(open_failures_are_classified),
        cmocka_unit_test(second_opener_is_told_busy),
        cmocka_unit_test(permission_denied),
        cmocka_unit_test(meter_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
