/* cmd_agent — "mw agent": the recording agent of one meter host, started by "mw record
 * --meter-hosts" through the job launcher (record_hosts.h; not meant to be typed).
 *
 * The agent finds its host's name (--host-name, else MW_HOST_NAME, else SLURMD_NODENAME,
 * else gethostname up to the first '.') and its meter (--meter, or its HOST=METER entry of
 * --meter-hosts; default auto), and starts "mw record -o RUNDIR/hosts/HOST --meter M -q --
 * mw agent --wait-fd N ...": the host's recording is a whole mw record (clock model, gaps,
 * reconnects, its own store), whose command only says "recording" to the launcher (one UDP
 * notice) and waits for the end of a pipe the agent holds the other end of.
 *
 * Meanwhile the agent makes a burst of 4 clock exchanges with the launcher (record_hosts.h)
 * every second and keeps the one of least round trip: its offset (this host's clock minus
 * the launcher's) and uncertainty (half the round trip), in memory. When the launcher
 * answers "stop" (or has not answered for 30 s) the agent closes the pipe: the command ends,
 * the recorder finishes its run. Once the recorder is gone (finished, or killed: then at
 * once) the agent writes the exchanges into the host's store as clock_sync rows (rank -1,
 * this host) — after the recorder, never beside it, so that the two writers do not contend
 * for the store. It exits 0 whatever became of the recorder, so that the launcher (mpirun
 * aborts a job when one process fails) leaves the other hosts' agents alone; a recorder
 * that failed (its meter could not be used) is said to the launcher at once. Every datagram
 * carries a MAC under the run's key (MW_RUN_SECRET from the environment, record_hosts.h);
 * replies whose tag does not verify or that answer another request are ignored, each
 * request has a fresh, increasing seq, and an exchange waits at most
 * 200 ms in all, whatever arrives.
 * MW_TEST_CLOCK_STEP_NS=N with MW_TEST_CLOCK_STEP_AT_S=S (tests only) adds N ns to this
 * host's clock readings in the exchanges from S s after the agent started (only on host H
 * with MW_TEST_CLOCK_STEP_HOST=H): a clock stepped mid-run, as the merge sees it. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "mw_store.h"
#include "record_hosts.h"

typedef struct {
    const char *run, *clock, *host, *meter, *spec, *wait_fd;
    int force;
    uint8_t key[MW_RUN_SECRET_LEN]; /* the run's secret (MW_RUN_SECRET, record_hosts.h) */
} agent_opts;

static int64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: mw agent --run RUNDIR --clock ADDR:PORT [--host-name H]\n"
                 "                [--meter M | --meter-hosts H=M,...] [--force]\n\n"
                 "The recording agent of one meter host, started by 'mw record --meter-hosts'\n"
                 "through srun or mpirun (docs/scaling.md); not meant to be typed. It needs\n"
                 "the run's secret in its environment (MW_RUN_SECRET, set by mw record).\n");
}

/* ---- the clock loop --------------------------------------------------------------------- */

static int connect_clock(const char *clock)
{
    char host[512];
    const char *colon = strrchr(clock, ':');
    if (!colon || colon == clock || (size_t)(colon - clock) >= sizeof host) return -1;
    memcpy(host, clock, (size_t)(colon - clock));
    host[colon - clock] = '\0';
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *ai, *p;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0) return -1;
    int fd = -1;
    for (p = ai; p && fd < 0; p = p->ai_next) {
        fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, p->ai_addr, p->ai_addrlen) != 0) close(fd), fd = -1;
    }
    freeaddrinfo(ai);
    return fd;
}

typedef struct {
    int64_t step_ns, step_at_ns, start_ns; /* the test's clock step */
} fake_clock;

static int64_t host_now(const fake_clock *f)
{
    int64_t t = now_ns(CLOCK_REALTIME);
    if (f->step_ns && now_ns(CLOCK_MONOTONIC) - f->start_ns >= f->step_at_ns) t += f->step_ns;
    return t;
}

/* one exchange: 1 answered (offset, uncertainty, stop out), 0 no answer in 200 ms (a fixed
 * deadline: datagrams that are not the answer cannot keep it waiting) */
static int exchange(int fd, const agent_opts *o, const fake_clock *f,
                    int64_t *mid_ns, int64_t *offset_ns, int64_t *unc_ns, int *stop)
{
    mw_clk_request q = {.magic = MW_CLK_MAGIC, .kind = MW_CLK_EXCHANGE};
    snprintf(q.host, sizeof q.host, "%s", o->host);
    q.seq = mw_hosts_next_seq();
    if (mw_hosts_sign(&q, sizeof q, o->key) != 0) return 0; /* before t1: not in the round trip */
    int64_t t1 = host_now(f), end = now_ns(CLOCK_MONOTONIC) + 200000000LL;
    if (send(fd, &q, sizeof q, 0) != (ssize_t)sizeof q) return 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    for (;;) {
        int64_t left_ms = (end - now_ns(CLOCK_MONOTONIC)) / 1000000;
        if (left_ms <= 0 || poll(&p, 1, (int)left_ms) <= 0) return 0;
        mw_clk_reply r;
        if (recv(fd, &r, sizeof r, 0) != (ssize_t)sizeof r || r.magic != MW_CLK_MAGIC ||
            !mw_hosts_verify(&r, sizeof r, o->key))
            continue; /* not the launcher's */
        if (r.seq != q.seq) continue; /* a late (or replayed) answer to an earlier request */
        int64_t t3 = host_now(f);
        *mid_ns = t1 + (t3 - t1) / 2;
        *offset_ns = *mid_ns - r.t2_ns;
        *unc_ns = (t3 - t1) / 2 + 1;
        *stop = r.stop || !r.known;
        return 1;
    }
}

/* a notice (record_hosts.h: MW_CLK_READY, MW_CLK_FAILED) to the launcher, three times (UDP
 * may lose one); no answer is awaited */
static void notice(const agent_opts *o, const char *host, uint32_t kind)
{
    int fd = connect_clock(o->clock);
    if (fd < 0) return;
    mw_clk_request q = {.magic = MW_CLK_MAGIC, .kind = kind};
    snprintf(q.host, sizeof q.host, "%s", host);
    for (int i = 0; i < 3; i++) { /* each its own seq: the launcher heeds the first to come */
        q.seq = mw_hosts_next_seq();
        if (mw_hosts_sign(&q, sizeof q, o->key) != 0 || send(fd, &q, sizeof q, 0) < 0) break;
    }
    close(fd);
}

/* the recorder's command: "recording" to the launcher, then wait for the pipe's end */
static int wait_fd(const agent_opts *o)
{
    int fd = atoi(o->wait_fd);
    char b[64];
    notice(o, o->host, MW_CLK_READY);
    for (;;) {
        ssize_t n = read(fd, b, sizeof b);
        if (n == 0 || (n < 0 && errno != EINTR)) return 0;
    }
}

typedef struct {
    int64_t local_ns, offset_ns, unc_ns; /* clock_sync's sign: launcher = local + offset */
} xrow;
typedef struct {
    xrow *row;
    size_t n, cap;
} xrows;

/* exchanges every second until stop, the launcher's silence (30 s), or the recorder's end
 * (*ws its wait status, 1 returned) */
static int clock_loop(const agent_opts *o, int fd, pid_t rec, xrows *x, int *ws)
{
    const char *s = getenv("MW_TEST_CLOCK_STEP_NS"), *at = getenv("MW_TEST_CLOCK_STEP_AT_S"),
               *only = getenv("MW_TEST_CLOCK_STEP_HOST");
    if (only && *only && strcmp(only, o->host)) s = NULL;
    fake_clock f = {s ? strtoll(s, NULL, 10) : 0, at ? (int64_t)(atof(at) * 1e9) : 0,
                    now_ns(CLOCK_MONOTONIC)};
    int64_t last_answer = now_ns(CLOCK_MONOTONIC);
    for (int stop = 0; !stop;) {
        int64_t best_mid = 0, best_off = 0, best_unc = INT64_MAX;
        for (int k = 0; k < 4 && fd >= 0; k++) {
            int64_t mid, off, unc;
            int st_k = 0;
            if (exchange(fd, o, &f, &mid, &off, &unc, &st_k) && unc < best_unc)
                best_mid = mid, best_off = off, best_unc = unc;
            stop |= st_k;
        }
        if (best_unc != INT64_MAX) {
            last_answer = now_ns(CLOCK_MONOTONIC);
            if (x->n == x->cap) {
                xrow *g = realloc(x->row, (x->cap = x->cap ? 2 * x->cap : 256) * sizeof *g);
                if (g) x->row = g;
                else x->cap = x->n;
            }
            if (x->n < x->cap) x->row[x->n++] = (xrow){best_mid, -best_off, best_unc};
        } else if (now_ns(CLOCK_MONOTONIC) - last_answer > 30000000000LL) {
            fprintf(stderr, "mw agent: %s: the launcher has not answered for 30 s: ending\n",
                    o->host);
            break;
        }
        for (int i = 0; i < 10 && !stop; i++) {
            if (waitpid(rec, ws, WNOHANG) == rec) return 1;
            usleep(100000);
        }
    }
    return 0;
}

/* the exchanges into the host's store, once its recorder is gone */
static void store_exchanges(const char *dir, const char *host, pid_t rec, const xrows *x)
{
    char err[4400];
    if (!x->n || !mw_store_exists(dir)) return;
    mw_store *st = mw_store_open_write(dir, err, sizeof err);
    int rc = st ? 0 : -1;
    for (size_t i = 0; !rc && i < x->n; i++)
        rc = mw_store_clock_sync_add(st, -1, host, (int64_t)rec, x->row[i].local_ns,
                                     x->row[i].offset_ns, x->row[i].unc_ns);
    if (!rc) rc = mw_store_commit(st);
    if (rc) fprintf(stderr, "mw agent: %s: clock exchanges not stored: %s\n", host,
                    st ? mw_store_error(st) : err);
    mw_store_close(st);
}

/* ---- the agent ---------------------------------------------------------------------------- */

static int parse(int argc, char **argv, agent_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = !strcmp(a, "--run")           ? &o->run
                           : !strcmp(a, "--clock")       ? &o->clock
                           : !strcmp(a, "--host-name")   ? &o->host
                           : !strcmp(a, "--meter")       ? &o->meter
                           : !strcmp(a, "--meter-hosts") ? &o->spec
                           : !strcmp(a, "--wait-fd")     ? &o->wait_fd
                                                         : NULL;
        if (!strcmp(a, "--force")) {
            o->force = 1;
            continue;
        }
        if (!dst) return mw_cli_usage_error("agent", "unknown argument '%s'", a);
        if (i + 1 >= argc) return mw_cli_usage_error("agent", "'%s' needs a value", a);
        if (*dst) return mw_cli_usage_error("agent", "'%s' given twice", a);
        *dst = argv[++i];
    }
    return -1;
}

/* this host's name into buf (see top); 0, or -1 when it is not a good one */
static int host_name(const agent_opts *o, char *buf, size_t len)
{
    const char *e = getenv("MW_HOST_NAME"), *s = getenv("SLURMD_NODENAME");
    if (o->host) snprintf(buf, len, "%s", o->host);
    else if (e && *e) snprintf(buf, len, "%s", e);
    else if (s && *s) snprintf(buf, len, "%s", s);
    else {
        if (gethostname(buf, len - 1) != 0) return -1;
        buf[len - 1] = '\0';
        char *dot = strchr(buf, '.');
        if (dot) *dot = '\0';
    }
    return mw_hosts_name_ok(buf) ? 0 : -1;
}

/* the meter of host in "H=M,H2,..." (NULL: the entry names none; -1 when host is absent) */
static int meter_of(const char *spec, const char *host, char *buf, size_t len)
{
    size_t hl = strlen(host);
    for (const char *p = spec; p && *p;) {
        const char *end = strchr(p, ','), *stop = end ? end : p + strlen(p);
        if ((size_t)(stop - p) >= hl && !strncmp(p, host, hl) &&
            (p + hl == stop || p[hl] == '=')) {
            if (p + hl == stop) return 0;
            snprintf(buf, len, "%.*s", (int)(stop - p - (long)hl - 1), p + hl + 1);
            return 1;
        }
        p = end ? end + 1 : NULL;
    }
    return -1;
}

int cmd_agent(int argc, char **argv)
{
    if (mw_cli_wants_help(argc, argv)) {
        usage(stdout);
        return MW_EXIT_OK;
    }
    agent_opts o = {0};
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    char host[256], meter[4200] = "auto", dir[4400], mw[4096];
    if (host_name(&o, host, sizeof host) != 0)
        return mw_cli_usage_error("agent", "no usable host name ('%s')", host);
    o.host = host;
    int no_key = mw_hosts_secret_get(o.key) != 0;
    const char *no_key_msg = "no run secret (MW_RUN_SECRET: 64 hex digits, given by mw "
                             "record --meter-hosts through the environment)";
    if (o.wait_fd) {
        int64_t fd;
        int bad = mw_cli_int("agent", "--wait-fd", o.wait_fd, 3, 1 << 20, &fd);
        if (bad) return bad;
        if (!o.clock) return mw_cli_usage_error("agent", "--wait-fd: missing --clock");
        if (no_key) return mw_cli_usage_error("agent", "%s", no_key_msg);
        return wait_fd(&o);
    }
    if (!o.run || !o.clock) return mw_cli_usage_error("agent", "missing --run or --clock");
    if (no_key) return mw_cli_usage_error("agent", "%s", no_key_msg);
    if (o.meter) snprintf(meter, sizeof meter, "%s", o.meter);
    else if (o.spec && meter_of(o.spec, host, meter, sizeof meter) < 0) {
        fprintf(stderr, "mw agent: host %s is not in --meter-hosts %s\n", host, o.spec);
        return MW_EXIT_OK; /* a node of the step that has no meter: nothing to record */
    }
    ssize_t n = readlink("/proc/self/exe", mw, sizeof mw - 1);
    int p[2];
    if (n <= 0 || pipe2(p, O_CLOEXEC) != 0) return MW_EXIT_FAIL;
    mw[n] = '\0';
    char fdnum[16];
    snprintf(fdnum, sizeof fdnum, "%d", p[0]);
    snprintf(dir, sizeof dir, "%s/hosts/%s", o.run, host);
    char *av[] = {mw,     "record", "-o",          dir,  "--meter", meter, "-q",
                  "--",   mw,       "agent",       "--wait-fd", fdnum, "--clock",
                  (char *)o.clock,  "--host-name", host, NULL,      NULL};
    if (o.force) { /* mw record ... -q --force -- ... */
        memmove(av + 8, av + 7, 9 * sizeof *av);
        av[7] = "--force";
    }
    pid_t pid = fork();
    if (pid < 0) return MW_EXIT_FAIL;
    if (pid == 0) { /* the read end goes through mw record to its command */
        fcntl(p[0], F_SETFD, 0);
        setenv("MW_AGENT_HOST", host, 1); /* record_slurm.c: the merge maps nodes */
        execv(mw, av);
        _exit(127);
    }
    close(p[0]);
    int fd = connect_clock(o.clock), ws = 0;
    xrows x = {NULL, 0, 0};
    int ended = clock_loop(&o, fd, pid, &x, &ws);
    close(p[1]); /* the recorder's command ends: the recording is over */
    while (!ended && waitpid(pid, &ws, 0) < 0 && errno == EINTR) {}
    if (fd >= 0) close(fd);
    store_exchanges(dir, host, pid, &x);
    free(x.row);
    if (WIFSIGNALED(ws))
        fprintf(stderr, "mw agent: %s: the recorder was killed by signal %d\n", host,
                WTERMSIG(ws));
    else if (WEXITSTATUS(ws)) {
        fprintf(stderr, "mw agent: %s: the recorder exited %d\n", host, WEXITSTATUS(ws));
        notice(&o, host, MW_CLK_FAILED); /* the launcher need not wait for it */
    }
    return MW_EXIT_OK;
}
