/* sysinfo — see mw_sysinfo.h. Files are read directly (/proc, /sys); mpirun is run from an
 * argument vector with its output on a pipe, never through a shell. */
#include "mw_sysinfo.h"

#include "mw_err.h"
#include "mw_store.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

void mw_sysinfo_hostname(char *out, size_t n)
{
    if (gethostname(out, n) != 0) snprintf(out, n, "unknown");
    out[n - 1] = 0;
}

void mw_sysinfo_kernel(char *out, size_t n)
{
    struct utsname u;
    if (uname(&u) != 0)
        snprintf(out, n, "unknown");
    else
        snprintf(out, n, "%s %s %s", u.sysname, u.release, u.machine);
}

static void first_line_value(const char *path, const char *key, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    char line[512];
    snprintf(out, n, "unknown");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        if (key && strncmp(line, key, strlen(key)) != 0) continue;
        char *v = key ? strchr(line, ':') : line;
        if (!v) continue;
        v += key ? 1 : 0;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = 0;
        snprintf(out, n, "%s", v);
        break;
    }
    fclose(f);
}

void mw_sysinfo_cpu_model(char *out, size_t n)
{
    first_line_value("/proc/cpuinfo", "model name", out, n);
}

void mw_sysinfo_governor(char *out, size_t n)
{
    first_line_value("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", NULL, out, n);
    if (!strcmp(out, "unknown")) snprintf(out, n, "none");
}

void mw_sysinfo_mpi(char *out, size_t n)
{
    snprintf(out, n, "none");
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"mpirun", "--version", NULL};
    pid_t pid;
    int r = posix_spawnp(&pid, "mpirun", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (r != 0) {
        close(pfd[0]);
        return;
    }
    char buf[512];
    size_t len = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long ms = 5000 - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        struct pollfd p = {.fd = pfd[0], .events = POLLIN};
        if (ms <= 0 || poll(&p, 1, (int)ms) <= 0) break;
        ssize_t got = read(pfd[0], buf + len, sizeof buf - 1 - len);
        if (got <= 0) break;
        len += (size_t)got;
        if (len == sizeof buf - 1) break;
    }
    close(pfd[0]);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    buf[len] = 0;
    buf[strcspn(buf, "\n")] = 0;
    if (buf[0]) snprintf(out, n, "%s", buf);
}

void mw_sysinfo_quote_argv(char *const *argv, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; argv[i]; i++) {
        const char *a = argv[i];
        int plain = a[0] != 0;
        for (const char *c = a; *c; c++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                        "-_./=:,+@%",
                        *c))
                plain = 0;
        char word[4096];
        size_t w = 0;
        if (plain) {
            w = (size_t)snprintf(word, sizeof word, "%s", a);
        } else {
            word[w++] = '\'';
            for (const char *c = a; *c && w < sizeof word - 6; c++) {
                if (*c == '\'') {
                    memcpy(word + w, "'\\''", 4);
                    w += 4;
                } else {
                    word[w++] = *c;
                }
            }
            word[w++] = '\'';
            word[w] = 0;
        }
        if (w >= sizeof word) w = sizeof word - 1;
        len += (size_t)snprintf(out + len, len < n ? n - len : 0, "%s%s", i ? " " : "", word);
        if (len >= n) return;
    }
}

int mw_sysinfo_meta(mw_store *s, char *const *cmd, char *const *mw_argv, const char *hostname,
                    char *err, size_t errlen)
{
    char buf[8192];
    void (*const facts[])(char *, size_t) = {mw_sysinfo_kernel, mw_sysinfo_cpu_model,
                                             mw_sysinfo_governor, mw_sysinfo_mpi};
    static const char *const fact_keys[] = {"kernel", "cpu_model", "cpu_governor", "mpi"};
    mw_sysinfo_quote_argv(cmd, buf, sizeof buf);
    if (mw_store_meta_set(s, "command", buf)) goto fail;
    memcpy(buf, "mw ", 3);
    mw_sysinfo_quote_argv(mw_argv, buf + 3, sizeof buf - 3);
    if (mw_store_meta_set(s, "record_command", buf) || mw_store_meta_set(s, "hostname", hostname))
        goto fail;
    for (size_t i = 0; i < sizeof facts / sizeof *facts; i++) {
        facts[i](buf, sizeof buf);
        if (mw_store_meta_set(s, fact_keys[i], buf)) goto fail;
    }
    if (mw_store_meta_set(s, "mw_version", MW_VERSION) ||
        mw_store_meta_set(s, "mw_git_id", MW_GIT_ID))
        goto fail;
    return 0;
fail:
    return mw_err(err, errlen, "%s", mw_store_error(s));
}
