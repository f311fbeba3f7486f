/* fs — see mw_fs.h. mw_fs_mkdirs copies the path once and cuts it at each '/' in turn; a
 * component that exists must be a directory. The temporary names of mw_fs_create_tmp are
 * the name with a dot before it and six letters after, drawn from the pid, a counter and the
 * clock, tried again on EEXIST; open(O_CREAT|O_EXCL|O_NOFOLLOW) is the only call that makes
 * one, so a name taken by anyone (a link included) is never used. mw_fs_remove_dir opens the
 * directory with O_NOFOLLOW|O_DIRECTORY and unlinks by name relative to that descriptor, so a
 * directory swapped for a link after the check is not followed either. */
#include "mw_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int mw_fs_mkdirs(const char *path, int *made, char *err, size_t errlen)
{
    char buf[4096];
    int n = 0;
    if (made) *made = 0;
    size_t len = strlen(path);
    if (len >= sizeof buf) {
        if (err) snprintf(err, errlen, "%s: path too long", path);
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, len + 1);
    while (len > 1 && buf[len - 1] == '/')
        buf[--len] = 0;
    if (!len) {
        if (err) snprintf(err, errlen, "an empty directory name");
        errno = ENOENT;
        return -1;
    }
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = 0;
        struct stat st;
        if (mkdir(buf, 0777) == 0) {
            n++;
        } else if (errno == EEXIST && stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) {
            n = 0; /* only a run of new components at the end counts */
        } else {
            int e = errno == EEXIST ? ENOTDIR : errno;
            if (err)
                snprintf(err, errlen, "%s: cannot create directory %s: %s", path, buf,
                         e == ENOTDIR ? "exists and is not a directory" : strerror(e));
            /* nothing half-made: the n components just made above it go again */
            for (int i = 0; i < n; i++) {
                char *slash = strrchr(buf, '/');
                if (!slash || slash == buf) break;
                *slash = 0;
                if (rmdir(buf) != 0) break;
            }
            errno = e;
            return -1;
        }
        if (!c) break;
        *p = c;
    }
    if (made) *made = n;
    return 0;
}

int mw_fs_find_beside_exe(const char *const rel[], const char *fallback, char *out, size_t outlen)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        const char *dir = dirname(exe);
        for (size_t i = 0; rel[i]; i++) {
            snprintf(out, outlen, "%s/%s", dir, rel[i]);
            if (access(out, R_OK) == 0) return 0;
        }
    }
    if (!fallback) return -1;
    snprintf(out, outlen, "%s", fallback);
    return access(out, R_OK) == 0 ? 0 : -1;
}

static void say(char *err, size_t errlen, const char *dir, const char *name, int e)
{
    if (err) snprintf(err, errlen, "%s/%s: %s", dir, name, strerror(e));
    errno = e;
}

int mw_fs_create_tmp(const char *dir, const char *name, char *tmp, size_t tmplen, char *err,
                     size_t errlen)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static unsigned counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long v = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16);
    for (int tries = 0; tries < 1000; tries++) {
        v = v * 6364136223846793005UL + 1442695040888963407UL + counter++;
        char suf[7];
        unsigned long x = v >> 16;
        for (int i = 0; i < 6; i++, x /= 62)
            suf[i] = letters[x % 62];
        suf[6] = 0;
        if ((size_t)snprintf(tmp, tmplen, "%s/.%s.%s", dir, name, suf) >= tmplen) {
            say(err, errlen, dir, name, ENAMETOOLONG);
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) return fd;
        if (errno != EEXIST) {
            say(err, errlen, dir, name, errno);
            return -1;
        }
    }
    say(err, errlen, dir, name, EEXIST);
    return -1;
}

FILE *mw_fs_fopen_tmp(const char *dir, const char *name, char *tmp, size_t tmplen, char *err,
                      size_t errlen)
{
    int fd = mw_fs_create_tmp(dir, name, tmp, tmplen, err, errlen);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        say(err, errlen, dir, name, e);
    }
    return f;
}

int mw_fs_commit(const char *tmp, const char *dir, const char *name, char *err, size_t errlen)
{
    char to[PATH_MAX];
    if ((size_t)snprintf(to, sizeof to, "%s/%s", dir, name) >= sizeof to) {
        unlink(tmp);
        say(err, errlen, dir, name, ENAMETOOLONG);
        return -1;
    }
    if (rename(tmp, to) == 0) return 0;
    int e = errno;
    unlink(tmp);
    say(err, errlen, dir, name, e);
    return -1;
}

FILE *mw_fs_fopen_replace(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen)
{
    char dir[PATH_MAX], name[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!*path || (slash && !slash[1])) { /* "" or "dir/": no file name */
        if (err) snprintf(err, errlen, "%s: not a file name", path);
        errno = EISDIR;
        return NULL;
    }
    int dn = !slash ? snprintf(dir, sizeof dir, ".")
             : slash == path ? snprintf(dir, sizeof dir, "/")
                             : snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if ((size_t)snprintf(name, sizeof name, "%s", slash ? slash + 1 : path) >= sizeof name ||
        (size_t)dn >= sizeof dir) {
        if (err) snprintf(err, errlen, "%s: %s", path, strerror(ENAMETOOLONG));
        errno = ENAMETOOLONG;
        return NULL;
    }
    return mw_fs_fopen_tmp(dir, name, tmp, tmplen, err, errlen);
}

int mw_fs_commit_replace(const char *tmp, const char *path, char *err, size_t errlen)
{
    if (rename(tmp, path) == 0) return 0;
    int e = errno;
    unlink(tmp);
    if (err) snprintf(err, errlen, "%s: %s", path, strerror(e));
    errno = e;
    return -1;
}

/* Unlinks every entry of the open directory dfd but . and ..; a sub-directory is kept (the
 * count of those kept returned, errno EISDIR/ENOTEMPTY then up to the caller). */
static int empty_dir(int dfd)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return -1;
    }
    int kept = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno != ENOENT) kept++;
    }
    closedir(d);
    return kept;
}

int mw_fs_remove_dir(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        if (err) snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    const char *why = S_ISLNK(st.st_mode)    ? "is a symbolic link, not the directory mw made"
                      : !S_ISDIR(st.st_mode) ? "is not the directory mw made"
                                             : NULL;
    int fd = why ? -1 : open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (!why && fd < 0)
        why = errno == ELOOP || errno == ENOTDIR ? "is a symbolic link, not the directory mw made"
                                                 : strerror(errno);
    if (why) {
        if (err) snprintf(err, errlen, "%s: %s; left alone", path, why);
        errno = ENOTDIR;
        return -1;
    }
    int kept = empty_dir(fd);
    if (kept != 0 || rmdir(path) != 0) {
        int e = kept > 0 ? ENOTEMPTY : errno;
        if (err) snprintf(err, errlen, "%s: cannot remove it: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    return 0;
}

int mw_fs_fresh_dir(const char *path, int *replaced, char *err, size_t errlen)
{
    struct stat st;
    *replaced = 0;
    if (lstat(path, &st) == 0) {
        *replaced = S_ISDIR(st.st_mode) ? 0 : 1;
        int bad = S_ISDIR(st.st_mode) ? mw_fs_remove_dir(path, err, errlen)
                                      : unlink(path); /* the link itself, never its target */
        if (bad) {
            if (err && !S_ISDIR(st.st_mode))
                snprintf(err, errlen, "%s: cannot remove it: %s", path, strerror(errno));
            return -1;
        }
    } else if (errno != ENOENT) {
        if (err) snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (mkdir(path, 0777) != 0) { /* mkdir never follows a link: EEXIST if one came back */
        if (err) snprintf(err, errlen, "%s: cannot create it: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

mode_t mw_fs_umask(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned mask;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &mask) == 1) {
            fclose(f);
            return (mode_t)mask;
        }
    if (f) fclose(f);
    mode_t m = umask(0);
    umask(m);
    return m;
}
