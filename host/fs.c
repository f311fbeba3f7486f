/* fs — see mw_fs.h. The path is copied once and cut at each '/' in turn; a component that
 * exists must be a directory. */
#include "mw_fs.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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
