/* mw_lines (host/lines.c), the bounded reader of every file a user names: lines split at
 * "\n" and "\r\n" with their numbers; a line over the limit and a NUL byte refused naming
 * FILE:LINE; a regular file over the size limit refused before reading, /dev/zero refused
 * after limit + 1 bytes; a FIFO nobody writes refused at the deadline (not a hang), one
 * written and closed read whole; a directory, a missing file and a link loop reported with
 * their errno. */
#include "../unit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mw_lines.h"

static char dir[] = "/tmp/mw-lines-XXXXXX";
static char path[128];

static int setup(void **s)
{
    (void)s;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **s)
{
    (void)s;
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

static const char *put(const char *name, const char *text, size_t len)
{
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return path;
}

static const mw_lines_limits small = {64, 16, 300};

static void lines_and_numbers(void **s)
{
    (void)s;
    static const char text[] = "one\r\n\ntwo  # x\nlast";
    put("a", text, sizeof text - 1);
    mw_lines r;
    char err[256] = "", *line;
    size_t len;
    assert_int_equal(mw_lines_open(&r, path, &small, err, sizeof err), 0);
    const char *want[] = {"one", "", "two  # x", "last"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(mw_lines_next(&r, &line, &len, err, sizeof err), 1);
        assert_string_equal(line, want[i]);
        assert_int_equal(len, strlen(want[i]));
        assert_int_equal(r.line, i + 1);
    }
    assert_int_equal(mw_lines_next(&r, &line, &len, err, sizeof err), 0);
    mw_lines_close(&r);

    put("empty", "", 0);
    assert_int_equal(mw_lines_open(&r, path, &small, err, sizeof err), 0);
    assert_int_equal(mw_lines_next(&r, &line, NULL, err, sizeof err), 0);
    mw_lines_close(&r);
}

static void long_line_and_nul_name_the_line(void **s)
{
    (void)s;
    mw_lines r;
    char err[256] = "", *line, want[200];
    /* 16 bytes is the limit: a 16-byte line passes (its \r\n not counted), 17 does not */
    static const char t1[] = "0123456789abcdef\r\n0123456789abcdefg\nnext\n";
    put("long", t1, sizeof t1 - 1);
    assert_int_equal(mw_lines_open(&r, path, &small, err, sizeof err), 0);
    assert_int_equal(mw_lines_next(&r, &line, NULL, err, sizeof err), 1);
    assert_int_equal(mw_lines_next(&r, &line, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: a line longer than 16 bytes", path);
    assert_string_equal(err, want);
    assert_int_equal(mw_lines_next(&r, &line, NULL, err, sizeof err), 0); /* none after */
    mw_lines_close(&r);

    static const char t2[] = "ok\n12\0" "345\n";
    put("nul", t2, sizeof t2 - 1);
    assert_int_equal(mw_lines_open(&r, path, &small, err, sizeof err), 0);
    assert_int_equal(mw_lines_next(&r, &line, NULL, err, sizeof err), 1);
    assert_int_equal(mw_lines_next(&r, &line, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: a NUL byte (this is not a text file)", path);
    assert_string_equal(err, want);
    mw_lines_close(&r);
}

static void size_limits(void **s)
{
    (void)s;
    char buf[65], err[256] = "", *text, want[200];
    size_t len;
    memset(buf, 'x', sizeof buf);
    put("64", buf, 64); /* exactly the limit */
    assert_int_equal(mw_lines_read_file(path, &small, &text, &len, err, sizeof err), 0);
    assert_int_equal(len, 64);
    assert_int_equal(text[64], 0);
    free(text);
    put("65", buf, 65);
    errno = 0;
    assert_int_equal(mw_lines_read_file(path, &small, &text, &len, err, sizeof err), -1);
    assert_int_equal(errno, EFBIG);
    assert_null(text);
    snprintf(want, sizeof want, "%s: larger than 64 bytes, the limit for this file", path);
    assert_string_equal(err, want);

    /* a device without an end: refused once it gave limit + 1 bytes */
    mw_lines_limits mib = {1u << 20, 0, 1000};
    assert_int_equal(mw_lines_read_file("/dev/zero", &mib, &text, &len, err, sizeof err), -1);
    assert_int_equal(errno, EFBIG);
    assert_string_equal(err, "/dev/zero: larger than 1 MiB, the limit for this file");

    /* a stream over the limit */
    FILE *f = fmemopen(buf, 65, "r");
    assert_int_equal(mw_lines_read_stream(f, "mem", &small, &text, &len, err, sizeof err), -1);
    assert_string_equal(err, "mem: larger than 64 bytes, the limit for this file");
    fclose(f);
    f = fmemopen(buf, 10, "r");
    assert_int_equal(mw_lines_read_stream(f, "mem", &small, &text, &len, err, sizeof err), 0);
    assert_int_equal(len, 10);
    free(text);
    fclose(f);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void fifo_bounded_in_time(void **s)
{
    (void)s;
    char fifo[128], err[256] = "", *text, want[200];
    size_t len;
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* nobody writes: refused at the deadline (300 ms), not a hang */
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(mw_lines_read_file(fifo, &small, &text, &len, err, sizeof err), -1);
    double took = seconds_since(&t0);
    assert_int_equal(errno, ETIMEDOUT);
    assert_true(took >= 0.29 && took < 5);
    snprintf(want, sizeof want, "%s: no end of file within 0.3 s", fifo);
    if (!strstr(err, want)) fail_msg("got '%s'", err);

    /* a writer that writes and closes: read whole */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(fifo, O_WRONLY);
        ssize_t w = write(fd, "1 a\n2 b\n", 8);
        _exit(w == 8 ? 0 : 1);
    }
    mw_lines_limits slow = {64, 16, 5000};
    assert_int_equal(mw_lines_read_file(fifo, &slow, &text, &len, err, sizeof err), 0);
    assert_int_equal(len, 8);
    assert_string_equal(text, "1 a\n2 b\n");
    free(text);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void errors_keep_errno(void **s)
{
    (void)s;
    char err[256] = "", *text, want[200], loop[128];
    size_t len;
    mw_lines r;
    assert_int_equal(mw_lines_read_file(dir, &small, &text, &len, err, sizeof err), -1);
    assert_int_equal(errno, EISDIR);
    snprintf(want, sizeof want, "%s: is a directory", dir);
    assert_string_equal(err, want);

    snprintf(loop, sizeof loop, "%s/loop", dir);
    assert_int_equal(symlink(loop, loop), 0);
    assert_int_equal(mw_lines_open(&r, loop, &small, err, sizeof err), -1);
    assert_int_equal(errno, ELOOP);
    snprintf(want, sizeof want, "%s: %s", loop, strerror(ELOOP));
    assert_string_equal(err, want);
    mw_lines_close(&r);

    snprintf(loop, sizeof loop, "%s/none", dir);
    assert_int_equal(mw_lines_read_file(loop, &small, &text, &len, err, sizeof err), -1);
    assert_int_equal(errno, ENOENT);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_and_numbers),
        cmocka_unit_test(long_line_and_nul_name_the_line),
        cmocka_unit_test(size_limits),
        cmocka_unit_test(fifo_bounded_in_time),
        cmocka_unit_test(errors_keep_errno),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
