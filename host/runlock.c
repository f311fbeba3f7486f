/* runlock — RUNDIR/.lock held with flock while a recorder owns the run (mw_runlock.h).
 *
 * Taking: open (O_CREAT, O_NOFOLLOW, O_CLOEXEC), refuse anything but a regular file,
 * flock(LOCK_EX | LOCK_NB), then replace the file's content with "PID\n". Refused with
 * EWOULDBLOCK: the holder's pid is read from the file for the message (a holder that has not
 * written it yet reads as 0: "another recorder"). Releasing closes the descriptor; the file
 * is left in place so that every recorder locks the same inode. */
#include "mw_runlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct mw_runlock {
    int fd;
};

/* The pid written in the lock file, or 0. */
static pid_t read_holder(int fd)
{
    char b[32];
    ssize_t n = pread(fd, b, sizeof b - 1, 0);
    if (n <= 0) return 0;
    b[n] = 0;
    char *end;
    long v = strtol(b, &end, 10);
    return end != b && v > 0 ? (pid_t)v : 0;
}

static int write_pid(int fd)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0) return -1;
    return pwrite(fd, b, (size_t)n, 0) == n ? 0 : -1;
}

mw_runlock *mw_runlock_take(const char *rundir, pid_t *holder, char *err, size_t errlen)
{
    *holder = 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", rundir, MW_RUNLOCK_NAME);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        if (e == EWOULDBLOCK) {
            *holder = read_holder(fd);
            if (*holder)
                snprintf(err, errlen, "%s: in use by the recorder with pid %ld", rundir,
                         (long)*holder);
            else
                snprintf(err, errlen, "%s: in use by another recorder", rundir);
        } else {
            snprintf(err, errlen, "%s: %s", path, strerror(e));
        }
        close(fd);
        return NULL;
    }
    mw_runlock *l = malloc(sizeof *l);
    if (!l || write_pid(fd) != 0) {
        snprintf(err, errlen, "%s: %s", path, l ? strerror(errno) : "out of memory");
        free(l);
        close(fd);
        return NULL;
    }
    l->fd = fd;
    return l;
}

void mw_runlock_release(mw_runlock *l)
{
    if (!l) return;
    close(l->fd);
    free(l);
}
