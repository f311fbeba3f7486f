/* mw_fs_mkdirs (host/fs.c): nested directories made and counted, existing ones kept,
 * trailing slashes, a file in the way and an over-long path refused with errno and a
 * message naming the component. */
#include "../unit.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_fs.h"

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void makes_and_counts(void **state)
{
    (void)state;
    char base[] = "/tmp/mw-fs-XXXXXX", p[256], err[512];
    assert_non_null(mkdtemp(base));
    int made = -1;
    snprintf(p, sizeof p, "%s/a/b/c/", base);
    assert_int_equal(mw_fs_mkdirs(p, &made, err, sizeof err), 0);
    assert_int_equal(made, 3);
    snprintf(p, sizeof p, "%s/a/b/c", base);
    assert_true(is_dir(p));
    assert_int_equal(mw_fs_mkdirs(p, &made, err, sizeof err), 0);
    assert_int_equal(made, 0); /* all there already */
    snprintf(p, sizeof p, "%s/a/d", base);
    assert_int_equal(mw_fs_mkdirs(p, &made, NULL, 0), 0);
    assert_int_equal(made, 1);
    /* a file in the way */
    snprintf(p, sizeof p, "%s/f", base);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(p, sizeof p, "%s/f/g", base);
    assert_int_equal(mw_fs_mkdirs(p, &made, err, sizeof err), -1);
    assert_int_equal(errno, ENOTDIR);
    char want[300];
    snprintf(want, sizeof want, "cannot create directory %s/f: exists and is not a directory",
             base);
    if (!strstr(err, want)) fail_msg("'%s' lacks '%s'", err, want);
    assert_int_equal(made, 0);
    /* too long */
    char longp[5000];
    memset(longp, 'x', sizeof longp - 1);
    longp[0] = '/';
    longp[sizeof longp - 1] = 0;
    assert_int_equal(mw_fs_mkdirs(longp, NULL, err, sizeof err), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    assert_int_equal(mw_fs_mkdirs("", NULL, err, sizeof err), -1);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -r '%s'", base);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(makes_and_counts)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
