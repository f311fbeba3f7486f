/* Simulated board on a pseudo-terminal (host/sim/simpty.c): real-time pacing, clients that
 * open, close and reopen the port (each first open resets the board, which then sends its
 * identification line again; the port is raw again after its last client), and the symlink
 * rules (a stale link is replaced, a regular file is never overwritten). Runs the real
 * firmware ELF ($MW_FIRMWARE_ELF). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "flash_id.h"
#include "mw_simpty.h"

static const char *elf_path(void)
{
    const char *p = getenv("MW_FIRMWARE_ELF");
    return p && *p ? p : "build/firmware/megawatt.elf";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *run_board(void *arg)
{
    mw_simpty_run(arg, 0);
    return NULL;
}

/* Open the port like a serial tool, wait up to timeout_s for a valid identification line. */
static int read_id(const char *port, double timeout_s)
{
    int fd = open(port, O_RDWR | O_NOCTTY | O_NONBLOCK);
    assert_true(fd >= 0);
    struct termios t;
    assert_int_equal(tcgetattr(fd, &t), 0);
    cfmakeraw(&t);
    tcsetattr(fd, TCSANOW, &t);
    char line[512];
    size_t len = 0;
    int found = 0;
    double end = now_s() + timeout_s;
    while (!found && now_s() < end) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0) continue;
        char buf[256];
        ssize_t n = read(fd, buf, sizeof buf);
        for (ssize_t i = 0; i < n && !found; i++) {
            if (buf[i] == '\n') {
                mw_flash_id id;
                found = mw_flash_parse_id(line, len, &id) == 1;
                len = 0;
            } else if (len < sizeof line) {
                line[len++] = buf[i];
            }
        }
    }
    close(fd);
    return found;
}

static void paced_to_real_time(void **state)
{
    char err[512];
    mw_sim *sim = mw_sim_open(elf_path(), err, sizeof err);
    if (!sim) fail_msg("%s", err);
    mw_simpty *pty = mw_simpty_open(sim, NULL, err, sizeof err);
    if (!pty) fail_msg("%s", err);
    double t0 = now_s();
    assert_int_equal(mw_simpty_run(pty, 500000000ull), 0);
    double wall = now_s() - t0;
    assert_true(mw_sim_time_ns(sim) >= 500000000ull);
    assert_true(wall >= 0.49); /* never ahead of real time: the point */
    /* behind it only when the machine is too loaded to give the board its ~0.2 core: a
     * bound that catches a hang, not a slow machine (it was 1.5 s) */
    assert_true(wall < 10.0);
    mw_simpty_stats st;
    mw_simpty_get_stats(pty, &st);
    assert_true(st.from_board > 0);                /* the boot lines ... */
    assert_int_equal(st.discarded, st.from_board); /* ... went nowhere: no client */
    mw_simpty_close(pty);
    mw_sim_close(sim);
}

static void clients_open_close_reopen(void **state)
{
    char err[512];
    mw_sim *sim = mw_sim_open(elf_path(), err, sizeof err);
    if (!sim) fail_msg("%s", err);
    char dir[] = "/tmp/mw-simpty-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char link[256];
    snprintf(link, sizeof link, "%s/meter", dir);
    mw_simpty *pty = mw_simpty_open(sim, link, err, sizeof err);
    if (!pty) fail_msg("%s", err);
    assert_string_equal(mw_simpty_link(pty), link);
    mw_simpty_set_reset_on_open(pty, 1);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, run_board, pty), 0);
    usleep(300000); /* the boot line is long gone when the first client comes */
    /* (up to 30 s each: a board booting on a loaded machine may take seconds; a quiet one
     * answers in a fraction of one) */
    assert_true(read_id(link, 30.0));
    assert_true(read_id(mw_simpty_path(pty), 30.0)); /* closed and reopened */
    /* a client that leaves echo on: once it is gone the port is raw again, so the board's
     * output cannot come back into it */
    int fd = open(link, O_RDWR | O_NOCTTY);
    assert_true(fd >= 0);
    struct termios t;
    assert_int_equal(tcgetattr(fd, &t), 0);
    t.c_lflag |= ECHO | ICANON;
    assert_int_equal(tcsetattr(fd, TCSANOW, &t), 0);
    close(fd);
    usleep(100000);
    fd = open(link, O_RDWR | O_NOCTTY);
    assert_true(fd >= 0);
    assert_int_equal(tcgetattr(fd, &t), 0);
    assert_int_equal(t.c_lflag & (ECHO | ICANON), 0);
    close(fd);
    mw_simpty_request_stop(pty);
    pthread_join(th, NULL);
    mw_simpty_stats st;
    mw_simpty_get_stats(pty, &st);
    assert_true(st.clients_known);
    assert_int_equal(st.client_opens, 4);
    assert_int_equal(st.resets, 4);
    mw_simpty_close(pty);
    struct stat sb;
    assert_int_equal(lstat(link, &sb), -1); /* the link went with the pty */
    rmdir(dir);
    mw_sim_close(sim);
}

static void link_rules(void **state)
{
    char err[512];
    mw_sim *sim = mw_sim_open(elf_path(), err, sizeof err);
    if (!sim) fail_msg("%s", err);
    char dir[] = "/tmp/mw-simpty-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char link[256];
    snprintf(link, sizeof link, "%s/meter", dir);

    /* a stale link (its pty long gone) is replaced */
    assert_int_equal(symlink("/dev/pts/nonexistent", link), 0);
    mw_simpty *pty = mw_simpty_open(sim, link, err, sizeof err);
    if (!pty) fail_msg("%s", err);
    char target[256];
    ssize_t n = readlink(link, target, sizeof target - 1);
    assert_true(n > 0);
    target[n] = 0;
    assert_string_equal(target, mw_simpty_path(pty));
    mw_simpty_close(pty);

    /* a regular file is left alone */
    FILE *f = fopen(link, "w");
    assert_non_null(f);
    fputs("precious\n", f);
    fclose(f);
    assert_null(mw_simpty_open(sim, link, err, sizeof err));
    assert_non_null(strstr(err, "not a symbolic link"));
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    unlink(link);
    rmdir(dir);
    mw_sim_close(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paced_to_real_time),
        cmocka_unit_test(clients_open_close_reopen),
        cmocka_unit_test(link_rules),
    };
    return cmocka_run_group_tests_name("sim_simpty", tests, NULL, NULL);
}
