/* lines — see mw_lines.h. The file is opened O_NONBLOCK (a FIFO's open then never waits for
 * a writer) and fstat'ed: a directory is refused, a regular file over the limit is refused on
 * its size, and anything else (a pipe, FIFO, terminal, device) is polled before every read,
 * against one deadline for the whole read. Reading always asks for one byte more than the
 * limit, so a file that grows past it, or a device without an end, is caught by what it
 * gives. The buffer grows by doubling with plain realloc: running out of memory on a large
 * file is the file's error (ENOMEM, reported), not an abort. */
#include "mw_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mw_alloc.h"
#include "mw_err.h"

const mw_lines_limits mw_lines_config = {1u << 20, 4096, MW_LINES_TIMEOUT_MS};

/* "N bytes" as the largest unit that divides it, for the limit in messages */
static const char *human(size_t n, char *buf, size_t len)
{
    if (n >= (1u << 30) && n % (1u << 30) == 0)
        snprintf(buf, len, "%zu GiB", n >> 30);
    else if (n >= (1u << 20) && n % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, len, "%zu KiB", n >> 10);
    else
        snprintf(buf, len, "%zu bytes", n);
    return buf;
}

static int too_big(const char *path, size_t max, char *err, size_t errlen)
{
    char h[32];
    errno = EFBIG;
    return mw_err(err, errlen, "%s: larger than %s, the limit for this file", path,
                  human(max, h, sizeof h));
}

/* Makes room for at least one more byte in *buf (cap *cap), up to max + 2 (one past the
 * limit and the final NUL). 0, or -1 with errno ENOMEM. */
static int grow(char **buf, size_t *cap, size_t n, size_t max)
{
    if (n < *cap) return 0;
    size_t want = *cap < 65536 ? 65536 : *cap * 2;
    if (want > max + 2) want = max + 2;
    char *b = realloc(*buf, want);
    if (!b) {
        errno = ENOMEM;
        return -1;
    }
    *buf = b;
    *cap = want;
    return 0;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is readable or the deadline. 0, or -1 with errno set. */
static int wait_readable(int fd, long long deadline_ms)
{
    for (;;) {
        long long left = deadline_ms - now_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int n = poll(&p, 1, left > 60000 ? 60000 : (int)left);
        if (n > 0) return 0;
        if (n < 0 && errno != EINTR) return -1;
    }
}

/* Reads fd to its end into *text. regular: no polling. 0, or -1 with errno and err set. */
static int read_fd(int fd, int regular, size_t size_hint, const char *path,
                   const mw_lines_limits *lim, char **text, size_t *len, char *err, size_t errlen)
{
    size_t cap = 0, n = 0;
    char *buf = NULL;
    long long deadline = now_ms() + lim->timeout_ms;
    if (regular && size_hint < lim->max_bytes) {
        cap = size_hint + 2;
        if (!(buf = malloc(cap))) goto fail;
    }
    for (;;) {
        if (grow(&buf, &cap, n + 1, lim->max_bytes)) goto fail;
        if (!regular && wait_readable(fd, deadline)) goto fail;
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            goto fail;
        }
        if (got == 0) break;
        n += (size_t)got;
        if (n > lim->max_bytes) {
            free(buf);
            return too_big(path, lim->max_bytes, err, errlen);
        }
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return 0;
fail:;
    int e = errno;
    free(buf);
    if (e == ETIMEDOUT)
        mw_err(err, errlen, "%s: no end of file within %.3g s (a pipe or device that does not end?)",
               path, lim->timeout_ms / 1000.0);
    else
        mw_err(err, errlen, "%s: %s", path, e == ENOMEM ? "out of memory" : strerror(e));
    errno = e;
    return -1;
}

int mw_lines_read_file(const char *path, const mw_lines_limits *lim, char **text, size_t *len,
                       char *err, size_t errlen)
{
    *text = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        mw_err(err, errlen, "%s: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    struct stat st;
    int rc;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        rc = mw_err(err, errlen, "%s: %s", path, strerror(e));
        errno = e;
    } else if (S_ISDIR(st.st_mode)) {
        rc = mw_err(err, errlen, "%s: is a directory", path);
        errno = EISDIR;
    } else if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > lim->max_bytes) {
        rc = too_big(path, lim->max_bytes, err, errlen);
    } else {
        if (S_ISREG(st.st_mode)) /* blocking reads: a file system may answer EAGAIN otherwise */
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        rc = read_fd(fd, S_ISREG(st.st_mode), S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, path,
                     lim, text, len, err, errlen);
    }
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int mw_lines_read_stream(FILE *in, const char *name, const mw_lines_limits *lim, char **text,
                         size_t *len, char *err, size_t errlen)
{
    size_t cap = 0, n = 0;
    char *buf = NULL;
    *text = NULL;
    *len = 0;
    for (;;) {
        if (grow(&buf, &cap, n + 1, lim->max_bytes)) {
            free(buf);
            return mw_err(err, errlen, "%s: out of memory", name);
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, in);
        n += got;
        if (n > lim->max_bytes) {
            free(buf);
            return too_big(name, lim->max_bytes, err, errlen);
        }
        if (got == 0) break;
    }
    if (ferror(in)) {
        int e = errno;
        free(buf);
        mw_err(err, errlen, "%s: read error: %s", name, strerror(e ? e : EIO));
        errno = e ? e : EIO;
        return -1;
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return 0;
}

void mw_lines_init(mw_lines *r, const char *name, char *text, size_t len, size_t max_line_bytes)
{
    memset(r, 0, sizeof *r);
    r->name = mw_xstrdup(name);
    r->p = text;
    r->end = text ? text + len : NULL;
    r->max_line_bytes = max_line_bytes;
}

int mw_lines_open(mw_lines *r, const char *path, const mw_lines_limits *lim, char *err,
                  size_t errlen)
{
    char *text;
    size_t len;
    int rc = mw_lines_read_file(path, lim, &text, &len, err, errlen);
    int e = errno;
    mw_lines_init(r, path, text, len, lim->max_line_bytes);
    r->text = text;
    errno = e;
    return rc;
}

int mw_lines_next(mw_lines *r, char **line, size_t *len, char *err, size_t errlen)
{
    if (!r->p || r->p >= r->end) return 0;
    char *s = r->p;
    char *nl = memchr(s, '\n', (size_t)(r->end - s));
    char *e = nl ? nl : r->end;
    r->line++;
    r->p = nl ? nl + 1 : r->end;
    if (e > s && e[-1] == '\r') e--;
    size_t n = (size_t)(e - s);
    if (r->max_line_bytes && n > r->max_line_bytes) {
        char h[32];
        r->p = r->end; /* no line after an error */
        return mw_err(err, errlen, "%s:%ld: a line longer than %s", r->name, r->line,
                      human(r->max_line_bytes, h, sizeof h));
    }
    if (memchr(s, 0, n)) {
        r->p = r->end;
        return mw_err(err, errlen, "%s:%ld: a NUL byte (this is not a text file)", r->name,
                      r->line);
    }
    *e = 0;
    *line = s;
    if (len) *len = n;
    return 1;
}

void mw_lines_close(mw_lines *r)
{
    free(r->text);
    free(r->name);
    memset(r, 0, sizeof *r);
}
