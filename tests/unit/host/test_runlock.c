/* The run directory's lock (host/runlock.c, mw_runlock.h): taken, the file holds our pid; a
 * second taker (another open of the file, as another recorder makes) is refused with the
 * holder's pid; released, it can be taken again; a holder killed with SIGKILL leaves a file
 * that locks nothing; a symbolic link planted as .lock is refused and its target not
 * created; a missing directory is an error with no holder. */
#include "../unit.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mw_runlock.h"

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/mw-runlock-XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, MW_RUNLOCK_NAME);
    unlink(p);
    snprintf(p, sizeof p, "%s/target", dir);
    unlink(p);
    rmdir(dir);
}

static void taken_refused_released(void **state)
{
    (void)state;
    make_dir();
    char err[256], p[128], buf[32] = "";
    pid_t holder = -1;
    mw_runlock *l = mw_runlock_take(dir, &holder, err, sizeof err);
    assert_non_null(l);
    assert_int_equal(holder, 0);
    snprintf(p, sizeof p, "%s/%s", dir, MW_RUNLOCK_NAME);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    char want[32];
    snprintf(want, sizeof want, "%ld\n", (long)getpid());
    assert_string_equal(buf, want);
    assert_null(mw_runlock_take(dir, &holder, err, sizeof err));
    assert_int_equal(holder, getpid());
    snprintf(want, sizeof want, "pid %ld", (long)getpid());
    assert_non_null(strstr(err, want));
    mw_runlock_release(l);
    l = mw_runlock_take(dir, &holder, err, sizeof err);
    assert_non_null(l);
    mw_runlock_release(l);
    mw_runlock_release(NULL);
    remove_dir();
}

static void killed_holder_locks_nothing(void **state)
{
    (void)state;
    make_dir();
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        char e[256];
        pid_t h;
        mw_runlock *l = mw_runlock_take(dir, &h, e, sizeof e);
        (void)!write(fds[1], l ? "y" : "n", 1);
        pause();
        _exit(0);
    }
    char c = 0;
    assert_int_equal(read(fds[0], &c, 1), 1);
    assert_int_equal(c, 'y');
    char err[256];
    pid_t holder;
    assert_null(mw_runlock_take(dir, &holder, err, sizeof err));
    assert_int_equal(holder, child);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    mw_runlock *l = mw_runlock_take(dir, &holder, err, sizeof err);
    assert_non_null(l);
    mw_runlock_release(l);
    close(fds[0]);
    close(fds[1]);
    remove_dir();
}

static void link_and_missing_refused(void **state)
{
    (void)state;
    make_dir();
    char err[256], p[128], target[128];
    pid_t holder = -1;
    snprintf(p, sizeof p, "%s/%s", dir, MW_RUNLOCK_NAME);
    snprintf(target, sizeof target, "%s/target", dir);
    assert_int_equal(symlink(target, p), 0);
    assert_null(mw_runlock_take(dir, &holder, err, sizeof err));
    assert_int_equal(holder, 0);
    assert_non_null(strstr(err, MW_RUNLOCK_NAME));
    struct stat st;
    assert_int_not_equal(lstat(target, &st), 0);
    remove_dir();
    snprintf(p, sizeof p, "%s/no/such/dir", dir);
    assert_null(mw_runlock_take(p, &holder, err, sizeof err));
    assert_int_equal(holder, 0);
    assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(taken_refused_released),
        cmocka_unit_test(killed_holder_locks_nothing),
        cmocka_unit_test(link_and_missing_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
