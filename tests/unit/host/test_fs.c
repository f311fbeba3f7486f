/* mw_fs_mkdirs (host/fs.c): nested directories made and counted, existing ones kept,
 * trailing slashes, a file in the way and an over-long path refused with errno and a
 * message naming the component. The hostile-link helpers: mw_fs_create_tmp makes a new
 * hidden name in the directory (never reusing one, never through a link), mw_fs_commit
 * renames it over a planted link without touching the link's target, and
 * mw_fs_remove_dir empties and removes a directory but leaves a link in its place (and the
 * directory it points to) alone, with a message naming the path. */
#include "../unit.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

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

static void write_text(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void read_text(const char *p, char *buf, size_t len)
{
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = 0;
    fclose(f);
}

static void tmp_and_commit_replace_a_link(void **state)
{
    (void)state;
    char base[] = "/tmp/mw-fs-XXXXXX", p[256], victim[256], tmp[512], tmp2[512], err[512];
    char got[64];
    assert_non_null(mkdtemp(base));
    snprintf(victim, sizeof victim, "%s/victim", base);
    write_text(victim, "victim\n");
    snprintf(p, sizeof p, "%s/out.txt", base);
    assert_int_equal(symlink(victim, p), 0);
    FILE *f = mw_fs_fopen_tmp(base, "out.txt", tmp, sizeof tmp, err, sizeof err);
    assert_non_null(f);
    snprintf(p, sizeof p, "%s/.out.txt.", base);
    assert_true(strncmp(tmp, p, strlen(p)) == 0); /* hidden, beside the final name */
    int fd = mw_fs_create_tmp(base, "out.txt", tmp2, sizeof tmp2, err, sizeof err);
    assert_true(fd >= 0);
    assert_string_not_equal(tmp, tmp2); /* each call a new name */
    close(fd);
    unlink(tmp2);
    fputs("mine\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(mw_fs_commit(tmp, base, "out.txt", err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/out.txt", base);
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISREG(st.st_mode)); /* the link replaced */
    read_text(p, got, sizeof got);
    assert_string_equal(got, "mine\n");
    read_text(victim, got, sizeof got);
    assert_string_equal(got, "victim\n");
    assert_int_equal(access(tmp, F_OK), -1); /* renamed away */
    /* a directory in the way: refused, named, the temporary file gone */
    snprintf(p, sizeof p, "%s/d", base);
    assert_int_equal(mkdir(p, 0755), 0);
    fd = mw_fs_create_tmp(base, "d", tmp, sizeof tmp, err, sizeof err);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(mw_fs_commit(tmp, base, "d", err, sizeof err), -1);
    if (!strstr(err, p)) fail_msg("'%s' lacks '%s'", err, p);
    assert_int_equal(access(tmp, F_OK), -1);
    /* no such directory */
    snprintf(p, sizeof p, "%s/none", base);
    assert_int_equal(mw_fs_create_tmp(p, "x", tmp, sizeof tmp, err, sizeof err), -1);
    assert_int_equal(errno, ENOENT);
    rmdir(p);
    snprintf(p, sizeof p, "%s/d", base);
    rmdir(p);
    snprintf(p, sizeof p, "%s/out.txt", base);
    unlink(p);
    unlink(victim);
    assert_int_equal(rmdir(base), 0);
}

static void remove_dir_leaves_links_alone(void **state)
{
    (void)state;
    char base[] = "/tmp/mw-fs-XXXXXX", p[600], d[256], v[256], err[512];
    assert_non_null(mkdtemp(base));
    snprintf(v, sizeof v, "%s/victimdir", base);
    assert_int_equal(mkdir(v, 0755), 0);
    snprintf(p, sizeof p, "%s/precious", v);
    write_text(p, "keep\n");
    /* a link in place of the directory: reported, left, its target untouched */
    snprintf(d, sizeof d, "%s/traffic", base);
    assert_int_equal(symlink(v, d), 0);
    assert_int_equal(mw_fs_remove_dir(d, err, sizeof err), -1);
    if (!strstr(err, d) || !strstr(err, "symbolic link"))
        fail_msg("'%s' should name %s as a symbolic link", err, d);
    assert_int_equal(access(p, F_OK), 0);
    struct stat st;
    assert_int_equal(lstat(d, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(unlink(d), 0);
    /* a real directory holding a file and a link to the victim: both removed, not followed */
    assert_int_equal(mkdir(d, 0755), 0);
    snprintf(p, sizeof p, "%s/a", d);
    write_text(p, "a\n");
    snprintf(p, sizeof p, "%s/link", d);
    assert_int_equal(symlink(v, p), 0);
    assert_int_equal(mw_fs_remove_dir(d, err, sizeof err), 0);
    assert_int_equal(access(d, F_OK), -1);
    snprintf(p, sizeof p, "%s/precious", v);
    assert_int_equal(access(p, F_OK), 0);
    /* nothing there: fine */
    assert_int_equal(mw_fs_remove_dir(d, err, sizeof err), 0);
    /* a file in place of the directory: left */
    write_text(d, "f\n");
    assert_int_equal(mw_fs_remove_dir(d, err, sizeof err), -1);
    assert_int_equal(access(d, F_OK), 0);
    unlink(d);
    unlink(p);
    rmdir(v);
    assert_int_equal(rmdir(base), 0);
}

/* mw_fs_fresh_dir: a link in place of the directory is replaced (the link, not its target),
 * a stale directory is emptied without following the links in it, nothing there is fine */
static void fresh_dir_replaces_links(void **state)
{
    (void)state;
    char base[] = "/tmp/mw-fs-XXXXXX", p[600], d[256], v[256], err[512];
    int replaced = -1;
    assert_non_null(mkdtemp(base));
    snprintf(v, sizeof v, "%s/victimdir", base);
    assert_int_equal(mkdir(v, 0755), 0);
    snprintf(p, sizeof p, "%s/precious", v);
    write_text(p, "keep\n");
    snprintf(d, sizeof d, "%s/traffic", base);
    assert_int_equal(symlink(v, d), 0);
    assert_int_equal(mw_fs_fresh_dir(d, &replaced, err, sizeof err), 0);
    assert_int_equal(replaced, 1);
    struct stat st;
    assert_int_equal(lstat(d, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0777 & ~mw_fs_umask());
    assert_int_equal(access(p, F_OK), 0); /* the target keeps its file */
    /* a stale directory of ours with a link to the victim's file in it */
    char l[600];
    snprintf(l, sizeof l, "%s/4242", d);
    assert_int_equal(symlink(p, l), 0);
    assert_int_equal(mw_fs_fresh_dir(d, &replaced, err, sizeof err), 0);
    assert_int_equal(replaced, 0);
    assert_int_equal(lstat(l, &st), -1); /* the link went, not its target */
    assert_int_equal(access(p, F_OK), 0);
    /* nothing there */
    assert_int_equal(rmdir(d), 0);
    assert_int_equal(mw_fs_fresh_dir(d, &replaced, err, sizeof err), 0);
    assert_int_equal(replaced, 0);
    assert_int_equal(rmdir(d), 0);
    unlink(p);
    rmdir(v);
    assert_int_equal(rmdir(base), 0);
}

/* mw_fs_fopen_replace + mw_fs_commit_replace: a link at the path is replaced, its target
 * keeps its text; a bare name is made in the current directory; "DIR/" is no file name */
static void replace_path_replaces_a_link(void **state)
{
    (void)state;
    char base[] = "/tmp/mw-fs-XXXXXX", p[600], v[600], tmp[700], err[512], cwd[600];
    assert_non_null(mkdtemp(base));
    snprintf(v, sizeof v, "%s/victim", base);
    write_text(v, "keep\n");
    snprintf(p, sizeof p, "%s/out.txt", base);
    assert_int_equal(symlink(v, p), 0);
    FILE *f = mw_fs_fopen_replace(p, tmp, sizeof tmp, err, sizeof err);
    assert_non_null(f);
    fputs("new\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(mw_fs_commit_replace(tmp, p, err, sizeof err), 0);
    char got[16] = "";
    FILE *r = fopen(v, "r");
    assert_non_null(fgets(got, sizeof got, r));
    fclose(r);
    assert_string_equal(got, "keep\n");
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    /* a bare name: in the current directory */
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(base), 0);
    f = mw_fs_fopen_replace("bare.txt", tmp, sizeof tmp, err, sizeof err);
    assert_non_null(f);
    assert_int_equal(strncmp(tmp, "./.bare.txt.", 12), 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(mw_fs_commit_replace(tmp, "bare.txt", err, sizeof err), 0);
    assert_int_equal(unlink("bare.txt"), 0);
    assert_int_equal(chdir(cwd), 0);
    /* no file name */
    snprintf(p, sizeof p, "%s/", base);
    assert_null(mw_fs_fopen_replace(p, tmp, sizeof tmp, err, sizeof err));
    snprintf(p, sizeof p, "%s/out.txt", base);
    unlink(p);
    unlink(v);
    assert_int_equal(rmdir(base), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(makes_and_counts),
                                       cmocka_unit_test(tmp_and_commit_replace_a_link),
                                       cmocka_unit_test(remove_dir_leaves_links_alone),
                                       cmocka_unit_test(fresh_dir_replaces_links),
                                       cmocka_unit_test(replace_path_replaces_a_link)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
