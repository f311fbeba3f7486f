/* mw_spank — a SPANK plugin for Slurm: `srun --mw-record=DIR [--mw-meter=M] CMD` records the
 * job step with the megawatt meter (`mw record`) into DIR/JOBID.STEPID, without a change to
 * the job script. docs/slurm.md tells how to install it (one plugstack.conf line).
 *
 * Design. The plugin works in srun, the local context, and only there: in
 * slurm_spank_local_user_init (the step is allocated, its tasks not yet launched) it starts
 * ONE `mw record -q -o DIR/JOB.STEP --meter M -- /bin/sh -c 'echo >&3; exec cat >/dev/null'`
 * and waits until the recording runs (the command's first act, writing a line on fd 3, is
 * the sign: `mw record` starts its command only once the meter is open and the run is
 * made); the step's tasks start after that, so the step lies inside measured time. The
 * recorded "command" does nothing but wait for the end of its standard input, a pipe whose
 * only writing end srun holds (close-on-exec, so nothing srun starts holds it too): in
 * slurm_spank_exit the plugin closes it and waits for the recorder to close its run, so
 * when srun returns, the run is complete. If srun dies, the kernel closes the pipe and the
 * run still ends, "complete", with the step's time. Why not the remote context (slurmstepd,
 * one per node): a meter measures the wall power of several nodes from the one host it
 * hangs off, so one recorder per step, on the host running srun, is what a meter needs; N
 * recorders on N nodes would fight for one meter, or find none. Meters on other hosts are
 * a matter for `mw record --meter-hosts` (issue 22), not for this plugin.
 *
 * The recorder gets the step's identity in its environment (SLURM_JOB_ID, SLURM_STEP_ID,
 * SLURM_JOB_NODELIST of the step, SLURM_CLUSTER_NAME, and MW_SLURM_STEP_COMMAND, the step's
 * command line), so that `mw record` stores them (collector/record_slurm.c). It runs in a
 * session of its own (a Ctrl-C at srun's terminal goes to the step, not to the recorder),
 * with a clean signal mask and default dispositions, stdout onto srun's stderr.
 *
 * No meter: if `mw record` cannot start (no meter on the host running srun, a DIR/JOB.STEP
 * that exists, a bad --mw-meter), it says why on srun's stderr and exits 2 before it starts
 * its command; the plugin says "the step runs unrecorded" and the step runs: energy
 * bookkeeping never stops a job. A recording that ends badly is said at srun's exit.
 *
 * Options: --mw-record=DIR; --mw-meter=M (default: $MW_METER, else plugstack.conf's
 * meter=M, else auto). plugstack.conf arguments: meter=M, mw=PATH (the mw program, an
 * absolute path or a name; default "mw", looked up in the absolute directories of srun's
 * PATH only), wait=S (how long to wait for the recorder's start, default 60 s), end_wait=S
 * (how long srun's exit waits for the recorder to close its run before SIGTERM, then SIGKILL
 * 5 s later; default 30 s).
 * An unknown argument fails srun's start (a misconfiguration is loud). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/spank.h>

SPANK_PLUGIN(mw, 1);

#define MW_SPANK_ARG_MAX 4096

static char mw_spank_dir[MW_SPANK_ARG_MAX], mw_spank_meter[MW_SPANK_ARG_MAX];
static char mw_spank_conf_meter[MW_SPANK_ARG_MAX], mw_spank_prog[PATH_MAX] = "mw";
static int mw_spank_wait_s = 60, mw_spank_end_s = 30;
static pid_t mw_spank_pid = -1; /* the recorder */
static int mw_spank_hold = -1;  /* the writing end of its command's stdin */
static int mw_spank_ready_fd = -1; /* the ready pipe's reading end, open until exit */
static char mw_spank_run[MW_SPANK_ARG_MAX + 64];

static int mw_spank_copy(char *dst, size_t n, const char *src, const char *opt)
{
    if (!src || !*src || strlen(src) >= n) {
        slurm_error("mw: %s: needs a value of 1 to %zu bytes", opt, n - 1);
        return -1;
    }
    snprintf(dst, n, "%s", src);
    return 0;
}

static int mw_spank_opt(int val, const char *optarg, int remote)
{
    if (val == 0) return mw_spank_copy(mw_spank_dir, sizeof mw_spank_dir, optarg, "--mw-record");
    return mw_spank_copy(mw_spank_meter, sizeof mw_spank_meter, optarg, "--mw-meter");
}

struct spank_option spank_options[] = {
    {"mw-record", "DIR",
     "record this job step with the megawatt power meter (mw record) into DIR/JOBID.STEPID "
     "(docs/slurm.md)",
     1, 0, mw_spank_opt},
    {"mw-meter", "M",
     "the meter for --mw-record: a serial port, auto or sim (default: $MW_METER, else the "
     "site's plugstack.conf meter=, else auto)",
     1, 1, mw_spank_opt},
    SPANK_OPTIONS_TABLE_END};

/* NAME=S of plugstack.conf, S whole seconds 1 to 3600, into *s; 0, or -1 said */
static int mw_spank_seconds(const char *arg, int *s)
{
    const char *v = strchr(arg, '=') + 1;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || n < 1 || n > 3600) {
        slurm_error("mw: plugstack.conf %s: not a whole number of seconds (1 to 3600)", arg);
        return -1;
    }
    *s = (int)n;
    return 0;
}

/* plugstack.conf arguments */
int slurm_spank_init(spank_t sp, int ac, char **av)
{
    for (int i = 0; i < ac; i++) {
        int rc = 0;
        if (!strncmp(av[i], "meter=", 6))
            rc = mw_spank_copy(mw_spank_conf_meter, sizeof mw_spank_conf_meter, av[i] + 6,
                               "plugstack.conf meter=");
        else if (!strncmp(av[i], "mw=", 3)) {
            rc = mw_spank_copy(mw_spank_prog, sizeof mw_spank_prog, av[i] + 3, "plugstack.conf mw=");
            if (!rc && mw_spank_prog[0] != '/' && strchr(mw_spank_prog, '/')) {
                slurm_error("mw: plugstack.conf mw=%s: an absolute path or a name on PATH",
                            mw_spank_prog);
                rc = -1;
            }
        }
        else if (!strncmp(av[i], "wait=", 5))
            rc = mw_spank_seconds(av[i], &mw_spank_wait_s);
        else if (!strncmp(av[i], "end_wait=", 9))
            rc = mw_spank_seconds(av[i], &mw_spank_end_s);
        else {
            slurm_error("mw: plugstack.conf: unknown argument '%s' (meter=M, mw=PATH, wait=S, "
                        "end_wait=S)", av[i]);
            rc = -1;
        }
        if (rc) return -1;
    }
    return 0;
}

/* text onto out[*len..] if it fits within cap bytes; 0 if not */
static int mw_spank_put(char *out, size_t cap, size_t *len, const char *text, size_t k)
{
    if (*len + k > cap) return 0;
    memcpy(out + *len, text, k);
    *len += k;
    return 1;
}

/* "a b 'c d' 'it'\''s'": the step's command for MW_SLURM_STEP_COMMAND, shell-quoted where
 * needed (a ' as '\''); a command longer than n bytes holds is cut after its last whole word
 * and ends " ..." */
static void mw_spank_join(int argc, char **argv, char *out, size_t n)
{
    size_t len = 0, cap = n - 5; /* room for " ..." and the NUL */
    for (int i = 0; i < argc && argv[i]; i++) {
        size_t mark = len;
        int plain = argv[i][0] != 0;
        for (const char *p = argv[i]; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%", *p))
                plain = 0;
        int ok = !i || mw_spank_put(out, cap, &len, " ", 1);
        if (!plain) ok = ok && mw_spank_put(out, cap, &len, "'", 1);
        for (const char *p = argv[i]; ok && *p; p++)
            ok = *p == '\'' ? mw_spank_put(out, cap, &len, "'\\''", 4)
                            : mw_spank_put(out, cap, &len, p, 1);
        if (!plain) ok = ok && mw_spank_put(out, cap, &len, "'", 1);
        if (!ok) {
            len = mark;
            memcpy(out + len, mark ? " ..." : "...", mark ? 4 : 3);
            len += mark ? 4 : 3;
            break;
        }
    }
    out[len] = 0;
}

/* the recorder's environment: srun's, with the step's identity set (built before fork:
 * after it only async-signal-safe calls) */
static char **mw_spank_env(uint32_t job, uint32_t step, const char *cmd)
{
    extern char **environ;
    static const char *ours[] = {"SLURM_JOB_ID=", "SLURM_STEP_ID=", "MW_SLURM_STEP_COMMAND=",
                                 "SLURM_JOB_NODELIST=", "SLURM_CLUSTER_NAME=", NULL};
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 8, sizeof *env);
    if (!env) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int skip = 0;
        for (const char **o = ours; *o; o++)
            if (!strncmp(environ[i], *o, strlen(*o))) skip = 1;
        if (!skip) env[k++] = environ[i];
    }
    const char *nodes = getenv("SLURM_STEP_NODELIST");
    if (!nodes) nodes = getenv("SLURM_JOB_NODELIST");
    const char *cluster = getenv("SLURM_CLUSTER_NAME");
    if (asprintf(&env[k++], "SLURM_JOB_ID=%u", job) < 0 ||
        asprintf(&env[k++], "SLURM_STEP_ID=%u", step) < 0 ||
        asprintf(&env[k++], "MW_SLURM_STEP_COMMAND=%s", cmd) < 0 ||
        (nodes && asprintf(&env[k++], "SLURM_JOB_NODELIST=%s", nodes) < 0) ||
        (cluster && asprintf(&env[k++], "SLURM_CLUSTER_NAME=%s", cluster) < 0))
        return NULL; /* srun is about to fail anyway; no recording */
    env[k] = NULL;
    return env;
}

/* the mw program: mw=PATH as given (absolute: slurm_spank_init), else the first executable
 * file NAME in an absolute directory of srun's PATH; empty and relative entries (".") are
 * skipped, so a root srun in a user-writable directory never runs ./mw. 0, or -1: none */
static int mw_spank_which(char *out, size_t n)
{
    if (mw_spank_prog[0] == '/') return snprintf(out, n, "%s", mw_spank_prog) < (int)n ? 0 : -1;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        size_t k = strcspn(p, ":");
        struct stat st;
        int w = snprintf(out, n, "%.*s/%s", (int)k, p, mw_spank_prog);
        if (p[0] == '/' && w > 0 && (size_t)w < n && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
            access(out, X_OK) == 0)
            return 0;
        p += k + (p[k] == ':');
    }
    return -1;
}

/* in the child: fd 0 the hold pipe, fd 3 the ready pipe, stdout to stderr; then exec */
static void mw_spank_exec(int hold_r, int ready_w, char **argv, char **env)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    setsid();
    if (dup2(hold_r, 0) < 0 || dup2(ready_w, 3) < 0 || dup2(2, 1) < 0) _exit(126);
    closefrom(4);
    execve(argv[0], argv, env); /* a path: mw_spank_which */
    _exit(127);
}

/* ms from now to deadline (CLOCK_MONOTONIC), 0 when past */
static int mw_spank_left_ms(const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
                   (deadline->tv_nsec - now.tv_nsec) / 1000000;
    return ms <= 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
}

static struct timespec mw_spank_deadline(int s)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += s;
    return t;
}

/* waits for the recorder's sign; 1 recording, 0 it ended (status in *st), -1 timeout */
static int mw_spank_ready(int fd, int *st)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    struct timespec end = mw_spank_deadline(mw_spank_wait_s);
    int rc;
    do /* against a fixed deadline: a signal does not restart the whole wait */
        rc = poll(&p, 1, mw_spank_left_ms(&end));
    while (rc < 0 && errno == EINTR);
    if (rc <= 0) return -1;
    char c;
    if (read(fd, &c, 1) == 1) return 1;
    waitpid(mw_spank_pid, st, 0);
    mw_spank_pid = -1;
    return 0;
}

static void mw_spank_unrecorded(int st)
{
    if (WIFEXITED(st))
        slurm_error("mw: --mw-record: mw record could not start (exit status %d, said above): "
                    "the step runs unrecorded", WEXITSTATUS(st));
    else
        slurm_error("mw: --mw-record: mw record could not start: the step runs unrecorded");
}

/* DIR made if missing (0755), then as it must be for runs of ours: itself a directory (not a
 * symbolic link), owned by us, writable by no one else unless sticky (like /tmp); else the
 * step runs unrecorded. 1 when fine. */
static int mw_spank_dir_ok(void)
{
    struct stat st;
    const char *why = NULL;
    if (mkdir(mw_spank_dir, 0755) != 0 && errno != EEXIST) why = strerror(errno);
    else if (lstat(mw_spank_dir, &st) != 0) why = strerror(errno);
    else if (S_ISLNK(st.st_mode)) why = "a symbolic link";
    else if (!S_ISDIR(st.st_mode)) why = "not a directory";
    else if (st.st_uid != geteuid()) why = "not owned by the user running srun";
    else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
        why = "writable by others (group or other, without the sticky bit)";
    if (why)
        slurm_error("mw: --mw-record=%s: %s: the step runs unrecorded", mw_spank_dir, why);
    return !why;
}

/* fds 0 to 2 open, on /dev/null where srun was started with one closed: else a pipe would
 * land there, and the child's dup2(fd, fd) would keep its close-on-exec (each open takes
 * the lowest free fd: the closed one) */
static int mw_spank_std_open(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) < 0) return -1;
    return 0;
}

static int mw_spank_start(spank_t sp)
{
    uint32_t job = 0, step = 0;
    int argc = 0;
    char **argv = NULL;
    if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS) {
        slurm_error("mw: --mw-record: no job or step id from Slurm: the step runs unrecorded");
        return 0;
    }
    static char cmd[MW_SPANK_ARG_MAX];
    if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) == ESPANK_SUCCESS)
        mw_spank_join(argc, argv, cmd, sizeof cmd);
    if (!mw_spank_dir_ok()) return 0;
    snprintf(mw_spank_run, sizeof mw_spank_run, "%s/%u.%u", mw_spank_dir, job, step);
    const char *meter = mw_spank_meter[0] ? mw_spank_meter
                        : getenv("MW_METER") && *getenv("MW_METER") ? getenv("MW_METER")
                        : mw_spank_conf_meter[0] ? mw_spank_conf_meter : "auto";
    static char prog[PATH_MAX];
    if (mw_spank_which(prog, sizeof prog)) {
        slurm_error("mw: --mw-record: no %s in an absolute directory of PATH: the step runs "
                    "unrecorded", mw_spank_prog);
        return 0;
    }
    char *rargv[] = {prog, "record", "-q", "-o", mw_spank_run, "--meter",
                     (char *)meter, "--", "/bin/sh", "-c",
                     "echo recording >&3; exec 3>&-; exec cat >/dev/null", NULL};
    char **env = mw_spank_env(job, step, cmd);
    int hold[2], ready[2];
    if (!env || mw_spank_std_open() || pipe2(hold, O_CLOEXEC) || pipe2(ready, O_CLOEXEC)) {
        slurm_error("mw: --mw-record: %s: the step runs unrecorded", strerror(errno));
        return 0;
    }
    mw_spank_pid = fork();
    if (mw_spank_pid == 0) mw_spank_exec(hold[0], ready[1], rargv, env);
    close(hold[0]);
    close(ready[1]);
    mw_spank_hold = hold[1];
    if (mw_spank_pid < 0) {
        slurm_error("mw: --mw-record: fork: %s: the step runs unrecorded", strerror(errno));
        close(ready[0]);
        close(mw_spank_hold);
        mw_spank_hold = -1;
        return 0;
    }
    int st = 0, r = mw_spank_ready(ready[0], &st);
    /* a recorder late past the wait still writes its sign: the pipe stays open until exit
     * (closed now, its echo would die of SIGPIPE and end the recording at once) */
    if (r < 0) mw_spank_ready_fd = ready[0];
    else close(ready[0]);
    if (r == 0) mw_spank_unrecorded(st);
    if (r < 0)
        slurm_error("mw: --mw-record: the recorder did not start within %d s: the step runs, "
                    "the run %s may miss its start", mw_spank_wait_s, mw_spank_run);
    return 0;
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
    if (spank_context() != S_CTX_LOCAL || !mw_spank_dir[0]) return 0;
    return mw_spank_start(sp);
}

/* the recorder's pid once it ended (status in *st), else 0, by the deadline */
static pid_t mw_spank_reap(int s, int *st)
{
    struct timespec end = mw_spank_deadline(s);
    pid_t got;
    while ((got = waitpid(mw_spank_pid, st, WNOHANG)) == 0 && mw_spank_left_ms(&end) > 0)
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    return got;
}

/* srun is done with the step: end the recorded command, wait for the run to be closed; a
 * recorder still there after end_wait= s gets SIGTERM (its session: mw record and its
 * command), then SIGKILL after MW_SPANK_TERM_S more: srun is never held longer */
#define MW_SPANK_TERM_S 5
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    if (spank_context() != S_CTX_LOCAL || mw_spank_pid <= 0) return 0;
    if (mw_spank_hold >= 0) close(mw_spank_hold);
    mw_spank_hold = -1;
    if (mw_spank_ready_fd >= 0) close(mw_spank_ready_fd);
    mw_spank_ready_fd = -1;
    int st = 0;
    pid_t got = mw_spank_reap(mw_spank_end_s, &st);
    if (got == 0) {
        slurm_error("mw: --mw-record: the recorder of %s has not ended in %d s: stopping it "
                    "(SIGTERM)", mw_spank_run, mw_spank_end_s);
        kill(-mw_spank_pid, SIGTERM); /* its own session and process group (setsid) */
        got = mw_spank_reap(MW_SPANK_TERM_S, &st);
    }
    if (got == 0) {
        kill(-mw_spank_pid, SIGKILL);
        got = waitpid(mw_spank_pid, &st, 0);
        slurm_error("mw: --mw-record: the recorder of %s killed (SIGKILL): the run stays "
                    "\"recording\" (mw ls tells)", mw_spank_run);
    } else if (got == mw_spank_pid && WIFEXITED(st) && WEXITSTATUS(st) != 0)
        slurm_error("mw: --mw-record: the recording %s ended with exit status %d (said above)",
                    mw_spank_run, WEXITSTATUS(st));
    else if (got == mw_spank_pid && WIFSIGNALED(st))
        slurm_error("mw: --mw-record: the recorder of %s ended by signal %d", mw_spank_run,
                    WTERMSIG(st));
    mw_spank_pid = -1;
    return 0;
}
