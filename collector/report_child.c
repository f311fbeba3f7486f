/* report_child — run another mw command (the running executable, /proc/self/exe) with an
 * argument vector and read its output into memory (report_child.h).
 *
 * posix_spawn with file actions: stdin from /dev/null, stdout onto a pipe's write end (the
 * parent reads it to end of file, then waits), stderr onto an unlinked tmpfile() when it is
 * captured. The executable's path is read once from /proc/self/exe in the parent, so the
 * child runs exactly this mw build whatever PATH holds. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_child.h"

extern char **environ;

static int append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (c < *len + n + 1)
            c *= 2;
        char *b = realloc(*buf, c);
        if (!b) return -1;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = 0;
    return 0;
}

static char *read_stream(FILE *f)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    char chunk[4096];
    size_t got;
    rewind(f);
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (append(&buf, &len, &cap, chunk, got) != 0) {
            free(buf);
            return NULL;
        }
    if (!buf) buf = calloc(1, 1);
    return buf;
}

int mw_report_child_run(char *const argv[], int capture_err, mw_report_child *c)
{
    memset(c, 0, sizeof *c);
    c->status = -1;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(c->err_start, sizeof c->err_start, "/proc/self/exe: %s", strerror(errno));
        return -1;
    }
    exe[n] = 0;
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        snprintf(c->err_start, sizeof c->err_start, "pipe: %s", strerror(errno));
        return -1;
    }
    FILE *errf = NULL;
    if (capture_err && !(errf = tmpfile())) {
        snprintf(c->err_start, sizeof c->err_start, "temporary file: %s", strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    if (errf) posix_spawn_file_actions_adddup2(&fa, fileno(errf), 2);
    pid_t pid;
    fflush(stdout);
    fflush(stderr);
    int e = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (e != 0) {
        snprintf(c->err_start, sizeof c->err_start, "cannot start mw (%s): %s", "/proc/self/exe",
                 strerror(e));
        close(pfd[0]);
        if (errf) fclose(errf);
        return -1;
    }
    size_t cap = 0;
    int failed = 0;
    char chunk[8192];
    for (;;) {
        ssize_t got = read(pfd[0], chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (!failed && append(&c->out, &c->out_len, &cap, chunk, (size_t)got) != 0) failed = 1;
    }
    close(pfd[0]);
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR) {
            ws = -1;
            break;
        }
    if (ws == -1)
        c->status = -1;
    else if (WIFEXITED(ws))
        c->status = WEXITSTATUS(ws);
    else if (WIFSIGNALED(ws))
        c->status = 128 + WTERMSIG(ws);
    if (!c->out) c->out = calloc(1, 1);
    if (errf) {
        c->err = read_stream(errf);
        fclose(errf);
    }
    if (failed || !c->out || (errf && !c->err)) {
        snprintf(c->err_start, sizeof c->err_start, "out of memory");
        c->status = -1;
        return -1;
    }
    if (c->status == -1) {
        snprintf(c->err_start, sizeof c->err_start, "waitpid: %s", strerror(errno));
        return -1;
    }
    return 0;
}

void mw_report_child_free(mw_report_child *c)
{
    free(c->out);
    free(c->err);
    c->out = c->err = NULL;
}

const char *mw_report_child_last_err(const mw_report_child *c, char *buf, size_t len)
{
    buf[0] = 0;
    if (c->status == -1 && c->err_start[0]) {
        snprintf(buf, len, "%s", c->err_start);
        return buf;
    }
    if (!c->err) return buf;
    size_t end = strlen(c->err);
    while (end > 0 && c->err[end - 1] == '\n')
        end--;
    size_t start = end;
    while (start > 0 && c->err[start - 1] != '\n')
        start--;
    size_t n = end - start;
    if (n >= len) n = len - 1;
    memcpy(buf, c->err + start, n);
    buf[n] = 0;
    return buf;
}
