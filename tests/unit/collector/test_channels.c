/* The channels file (collector/channels.c): names and hosts read line by line whatever the
 * line's length (a 2,000-character comment is one line, not two), errors naming the file
 * and line, a host name too long for the run store refused rather than cut. */
#include "../unit.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "channels.h"

static char path[64];

static void write_file(const char *text)
{
    snprintf(path, sizeof path, "/tmp/mw-channels-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    setenv("MW_CHANNELS_FILE", path, 1);
}

static void long_comment_is_one_line(void **s)
{
    static char text[4096];
    char comment[2001];
    memset(comment, 'x', 2000);
    comment[2000] = 0;
    snprintf(text, sizeof text, "1 alpha hpc-1\n# %s\n3 gamma\n5 switch\n", comment);
    write_file(text);
    mw_channels ch;
    char err[256] = "";
    int rc = mw_channels_load(&ch, 5, NULL, err, sizeof err);
    unlink(path);
    if (rc) fail_msg("%s", err);
    assert_string_equal(ch.name[1], "alpha");
    assert_string_equal(ch.host[1], "hpc-1");
    assert_string_equal(ch.name[3], "gamma");
    assert_string_equal(ch.host[3], "");
    assert_string_equal(ch.name[5], "switch");
    assert_string_equal(ch.source, path);
}

static void errors_name_file_and_line(void **s)
{
    mw_channels ch;
    char err[512], want[128];
    write_file("1 a\n\n2 b c d\n");
    assert_int_equal(mw_channels_load(&ch, 5, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3: expected 'CHANNEL NAME [HOST]'", path);
    if (!strstr(err, want)) fail_msg("got '%s', want '%s'", err, want);
    unlink(path);

    static char text[1024];
    char host[301];
    memset(host, 'h', 300);
    host[300] = 0;
    snprintf(text, sizeof text, "# hosts\n2 node %s\n", host);
    write_file(text);
    assert_int_equal(mw_channels_load(&ch, 5, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: host name longer than 255 characters", path);
    if (!strstr(err, want)) fail_msg("got '%s', want '%s'", err, want);
    unlink(path);

    /* a directory is no file: its read error is reported, not taken for an empty file */
    setenv("MW_CHANNELS_FILE", "/tmp", 1);
    assert_int_equal(mw_channels_load(&ch, 5, NULL, err, sizeof err), -1);
    if (!strstr(err, "/tmp: ")) fail_msg("got '%s', want '/tmp: <reason>'", err);

    write_file("1 a\n2 a\n");
    assert_int_equal(mw_channels_load(&ch, 5, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: 'a' is already channel 1", path);
    if (!strstr(err, want)) fail_msg("got '%s', want '%s'", err, want);
    unlink(path);
}

/* a file named by MW_CHANNELS_FILE that cannot be read is an error naming it; only a missing
 * file at the default place means default names */
static void unreadable_files_are_errors(void **s)
{
    mw_channels ch;
    char err[512], want[256], dir[] = "/tmp/mw-chfiles-XXXXXX", p[128];
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/loop", dir);
    assert_int_equal(symlink(p, p), 0);
    setenv("MW_CHANNELS_FILE", p, 1);
    assert_int_equal(mw_channels_load(&ch, 5, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: %s", p, strerror(ELOOP));
    assert_string_equal(err, want);
    unlink(p);

    snprintf(p, sizeof p, "%s/missing", dir);
    setenv("MW_CHANNELS_FILE", p, 1);
    assert_int_equal(mw_channels_load(&ch, 5, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: %s (named by MW_CHANNELS_FILE)", p, strerror(ENOENT));
    assert_string_equal(err, want);

    /* a line of 4097 bytes is over the limit; 4096 is not (a comment) */
    static char text[8300];
    memset(text, 'x', sizeof text);
    text[0] = '#';
    text[4096] = '\n';
    text[4097] = '#';
    text[4097 + 4097] = '\n';
    text[4097 + 4098] = 0;
    write_file(text);
    assert_int_equal(mw_channels_load(&ch, 5, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: a line longer than 4 KiB", path);
    assert_string_equal(err, want);
    unlink(path);

    /* nothing at the default place: default names */
    unsetenv("MW_CHANNELS_FILE");
    setenv("XDG_CONFIG_HOME", dir, 1);
    assert_int_equal(mw_channels_load(&ch, 5, NULL, err, sizeof err), 0);
    assert_string_equal(ch.name[1], "ch1");
    assert_string_equal(ch.source, "default names");
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(long_comment_is_one_line),
        cmocka_unit_test(unreadable_files_are_errors),
        cmocka_unit_test(errors_name_file_and_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
