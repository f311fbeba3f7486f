/* failwrite — an LD_PRELOAD shim for tests: writes to files under one directory fail with
 * ENOSPC (disk full) or EROFS (read-only file system) while a trigger file exists, so a
 * test can fill the "disk" in the middle of a recording and free it again, without root and
 * without mounting anything.
 *
 * Environment:
 *   FAILWRITE_DIR      files whose path (/proc/self/fd/N) starts with this absolute,
 *                      canonical directory are affected
 *   FAILWRITE_ERRNO    ENOSPC (default) or EROFS
 *   FAILWRITE_TRIGGER  writes fail while this file exists (default: always)
 *
 * write, pwrite, pwrite64, writev, pwritev, fallocate, posix_fallocate and ftruncate (only
 * when it grows the file) are interposed; each affected call that is refused counts in
 * the file FAILWRITE_DIR/../failwrite.count (one byte appended per refusal, so the test
 * can see the shim was hit). Memory-mapped writes (SQLite's -shm index) are not seen: they
 * never allocate blocks on a full file system either, as the file already has its size. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*pwritev_fn)(int, const struct iovec *, int, off_t);
typedef int (*fallocate_fn)(int, int, off_t, off_t);
typedef int (*pfallocate_fn)(int, off_t, off_t);
typedef int (*ftruncate_fn)(int, off_t);

static void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

/* 0 to let the call through, else the errno to fail it with */
static int refuse(int fd)
{
    const char *dir = getenv("FAILWRITE_DIR");
    if (!dir || !*dir) return 0;
    const char *trig = getenv("FAILWRITE_TRIGGER");
    if (trig && *trig && access(trig, F_OK) != 0) return 0;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    size_t dl = strlen(dir);
    if (strncmp(path, dir, dl) != 0 || (path[dl] != '/' && path[dl] != 0)) return 0;
    const char *e = getenv("FAILWRITE_ERRNO");
    int err = e && !strcmp(e, "EROFS") ? EROFS : ENOSPC;
    /* count the refusal beside the directory (not in it: it is "full") */
    char count[PATH_MAX + 32];
    snprintf(count, sizeof count, "%s.failwrite.count", dir);
    int saved = errno;
    int cfd = open(count, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (cfd >= 0) {
        write_fn w = (write_fn)next("write");
        if (w) (void)w(cfd, "x", 1);
        close(cfd);
    }
    errno = saved;
    return err;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    int e = refuse(fd);
    if (e) {
        errno = e;
        return -1;
    }
    return ((write_fn)next("write"))(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    int e = refuse(fd);
    if (e) {
        errno = e;
        return -1;
    }
    return ((pwrite_fn)next("pwrite"))(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    int e = refuse(fd);
    if (e) {
        errno = e;
        return -1;
    }
    return ((pwrite_fn)next("pwrite64"))(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    int e = refuse(fd);
    if (e) {
        errno = e;
        return -1;
    }
    return ((writev_fn)next("writev"))(fd, iov, cnt);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    int e = refuse(fd);
    if (e) {
        errno = e;
        return -1;
    }
    return ((pwritev_fn)next("pwritev"))(fd, iov, cnt, off);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
    int e = refuse(fd);
    if (e) {
        errno = e;
        return -1;
    }
    return ((fallocate_fn)next("fallocate"))(fd, mode, off, len);
}

int posix_fallocate(int fd, off_t off, off_t len)
{
    int e = refuse(fd);
    if (e) return e; /* posix_fallocate returns the error */
    return ((pfallocate_fn)next("posix_fallocate"))(fd, off, len);
}

int ftruncate(int fd, off_t len)
{
    struct stat st;
    int e = refuse(fd);
    if (e && (e == EROFS || (fstat(fd, &st) == 0 && len > st.st_size))) {
        errno = e;
        return -1;
    }
    return ((ftruncate_fn)next("ftruncate"))(fd, len);
}
