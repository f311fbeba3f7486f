/* child — see mw_child.h. fork, then in the child: stdin from /dev/null, stdout and stderr onto
 * pipes, chdir, execvp; an exec failure comes back through a close-on-exec pipe as errno.
 * The parent polls both pipes to the end (a child writing much to both never blocks), then
 * waits. */
#include "mw_child.h"
#include "mw_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>


typedef struct {
    char *p;
    size_t n, cap;
} obuf;

static void obuf_add(obuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1)
            cap *= 2;
        b->p = mw_xrealloc(b->p, cap);
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

int mw_child_run(const char *prog, char *const argv[], const char *dir, char **out, char **err,
                 int *status)
{
    *out = *err = NULL;
    *status = -1;
    if (!prog || !argv || !argv[0]) {
        *err = strdup("no program to run");
        return -1;
    }
    int po[2], pe[2], px[2]; /* stdout, stderr, exec failure */
    if (pipe(po)) goto nopipe;
    if (pipe(pe)) {
        close(po[0]);
        close(po[1]);
        goto nopipe;
    }
    if (pipe2(px, O_CLOEXEC)) {
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        goto nopipe;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        close(px[0]);
        close(px[1]);
        goto nopipe;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(pe[0]);
        close(px[0]);
        int e = 0;
        if (dir && chdir(dir)) e = errno;
        if (!e) {
            signal(SIGPIPE, SIG_DFL);
            execvp(prog, argv);
            e = errno;
        }
        if (write(px[1], &e, sizeof e) < 0) _exit(127);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    close(px[1]);
    int e = 0;
    ssize_t got;
    do
        got = read(px[0], &e, sizeof e);
    while (got < 0 && errno == EINTR);
    close(px[0]);
    obuf bo = {0}, be = {0};
    obuf_add(&bo, "", 0);
    obuf_add(&be, "", 0);
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char tmp[65536];
            ssize_t n = read(fds[i].fd, tmp, sizeof tmp);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
                continue;
            }
            obuf_add(i ? &be : &bo, tmp, (size_t)n);
        }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0) close(fds[i].fd);
    int ws;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    *out = bo.p;
    if (got == (ssize_t)sizeof e && e) {
        char msg[2 * PATH_MAX + 128];
        snprintf(msg, sizeof msg, "cannot run %s%s%s: %s", prog, dir ? " in " : "", dir ? dir : "",
                 strerror(e));
        free(be.p);
        *err = strdup(msg);
        *status = -1;
        return -1;
    }
    *err = be.p;
    return 0;
nopipe:
    *err = strdup(strerror(errno));
    return -1;
}

const char *mw_child_last_line(const char *text, char *buf, size_t len)
{
    buf[0] = 0;
    if (!text || !len) return buf;
    size_t end = strlen(text);
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' '))
        end--;
    size_t start = end;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    size_t n = end - start;
    if (n >= len) n = len - 1;
    memcpy(buf, text + start, n);
    buf[n] = 0;
    return buf;
}
