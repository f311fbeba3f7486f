/* record_hosts — the launching side of "mw record --meter-hosts" (record_hosts.h).
 *
 * The run directory is made and locked, then a UDP socket answers the agents' clock
 * exchanges (a thread: every request is answered with this host's CLOCK_REALTIME at once).
 * Just before CMD starts, RUNDIR/probe (where an instrumented CMD's probes spill) is made
 * fresh, as a one-host recording does (record_dirs.h): a link planted there is replaced, its
 * target untouched, and an earlier run's spill files are not merged into this one.
 * The agents are started through the job launcher: inside a Slurm allocation (SLURM_JOB_ID
 * set) one job step "srun --overlap --nodes=N --ntasks-per-node=1 --nodelist=HOSTS mw agent
 * ..." (each agent finds its host by SLURMD_NODENAME), else Open MPI's "mpirun -np 1 --host
 * H mw agent ... --host-name H : ..." (one application context per host, -npernode 1 in
 * effect); MW_LAUNCHER=srun|mpirun forces one. MW_TEST_LAUNCH_HOST=NAME (tests only) puts
 * every mpirun context on host NAME (e.g. localhost) while each agent keeps the name it
 * was given. The command starts when every agent has said its recorder is recording (a
 * notice from the recorder's command, so its meter is open); when an agent says its meter
 * could not be used, or after MW_AGENT_START_S (default 60) seconds, the run is refused
 * (exit 2, CMD not run, what this run made removed). When the command ends, the exchanges
 * are answered "stop";
 * the agents end their recordings within about a second, the launcher ends, and the stores
 * are merged into RUNDIR/trace.db (mw_merge_hosts.h). RUNDIR is made with one mkdir (an
 * existing one is refused without --force); an existing hosts/ or hosts/HOST must be a
 * directory of this user's (lstat: a link is refused). Only datagrams carrying the run's
 * MAC under the run's key (record_hosts.h; MW_RUN_SECRET in the launcher's environment,
 * not CMD's) and a fresh seq are answered or heeded. */
#include <errno.h>
#include <ftw.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <sodium.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "mw_merge.h"
#include "mw_merge_hosts.h"
#include "mw_runlock.h"
#include "mw_store.h"
#include "mw_sysinfo.h"
#include "record_dirs.h"
#include "record_hosts.h"

extern char **environ;

typedef struct {
    int n;
    char name[MW_HOSTS_MAX][MW_HOST_NAME_MAX + 1];
    const char *meter[MW_HOSTS_MAX]; /* into spec copy, or the --meter */
    atomic_int ready[MW_HOSTS_MAX], failed[MW_HOSTS_MAX];
    int fd, thread_on; /* thread_on: th runs (joined by clock_end) */
    atomic_int stop, quit;
    pthread_t th;
    uint8_t key[MW_RUN_SECRET_LEN]; /* the run's key (record_hosts.h) */
    uint64_t last_seq[MW_HOSTS_MAX][3]; /* per host and kind: the last heeded request's seq */
    char *spec; /* malloc'd copy */
} hosts_t;

static volatile sig_atomic_t g_sig, g_interrupted; /* g_sig: to forward; g_interrupted: seen */
static void on_sig(int sig) { g_sig = g_interrupted = sig; }

static int64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int mw_hosts_sign(void *msg, size_t len, const uint8_t key[MW_RUN_SECRET_LEN])
{
    if (len < MW_CLK_TAG_LEN || sodium_init() < 0) return -1;
    uint8_t *m = msg;
    crypto_auth(m + len - MW_CLK_TAG_LEN, m, len - MW_CLK_TAG_LEN, key);
    return 0;
}

int mw_hosts_verify(const void *msg, size_t len, const uint8_t key[MW_RUN_SECRET_LEN])
{
    const uint8_t *m = msg;
    if (len < MW_CLK_TAG_LEN || sodium_init() < 0) return 0;
    return crypto_auth_verify(m + len - MW_CLK_TAG_LEN, m, len - MW_CLK_TAG_LEN, key) == 0;
}

uint64_t mw_hosts_next_seq(void)
{
    static _Atomic uint64_t last;
    uint64_t t = (uint64_t)now_ns(CLOCK_MONOTONIC), prev = atomic_load(&last), next;
    do
        next = t > prev ? t : prev + 1;
    while (!atomic_compare_exchange_weak(&last, &prev, next));
    return next;
}

int mw_hosts_secret_get(uint8_t key[MW_RUN_SECRET_LEN])
{
    const char *e = getenv("MW_RUN_SECRET");
    if (!e || strlen(e) != 2 * MW_RUN_SECRET_LEN) return -1;
    for (int i = 0; i < MW_RUN_SECRET_LEN; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char c = e[2 * i + k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0) return -1;
            v = v * 16 + (unsigned)d;
        }
        key[i] = (uint8_t)v;
    }
    return 0;
}

int mw_hosts_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > MW_HOST_NAME_MAX || name[0] == '.' || name[0] == '-') return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

/* "h1,h2=/dev/ttyACM1,..." -> h; 0, or the exit code with the argument named */
static int parse_spec(hosts_t *h, const char *spec, const char *meter)
{
    if (!(h->spec = strdup(spec))) return MW_EXIT_FAIL;
    char *save = NULL;
    if (!spec[0] || spec[strlen(spec) - 1] == ',' || spec[0] == ',' || strstr(spec, ",,"))
        return mw_cli_usage_error("record", "--meter-hosts '%s': an empty host name", spec);
    for (char *tok = strtok_r(h->spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (eq) *eq = '\0';
        if (!mw_hosts_name_ok(tok))
            return mw_cli_usage_error("record",
                                      "--meter-hosts: '%s' is not a host name (letters, digits, "
                                      "'.', '_', '-'; at most %d)", tok, MW_HOST_NAME_MAX);
        if (eq && !eq[1])
            return mw_cli_usage_error("record", "--meter-hosts: %s=: an empty meter", tok);
        if (h->n == MW_HOSTS_MAX)
            return mw_cli_usage_error("record", "--meter-hosts: more than %d hosts",
                                      MW_HOSTS_MAX);
        for (int i = 0; i < h->n; i++)
            if (!strcmp(h->name[i], tok))
                return mw_cli_usage_error("record", "--meter-hosts: host '%s' listed twice",
                                          tok);
        snprintf(h->name[h->n], sizeof h->name[h->n], "%s", tok);
        h->meter[h->n++] = eq ? eq + 1 : meter;
        /* the agents get "HOST=METER,..." (srun) or one mpirun context per host split by ":" */
        const char *m = h->meter[h->n - 1];
        if (m && (strpbrk(m, ",=") || !strcmp(m, ":")))
            return mw_cli_usage_error("record", "--meter-hosts: host %s: meter '%s': a meter "
                                      "with ',' or '=', or ':' alone, cannot be given to an "
                                      "agent", tok, m);
    }
    return 0;
}

/* ---- the clock exchanges' answering thread ---------------------------------------------- */

static void *clock_server(void *arg)
{
    hosts_t *h = arg;
    while (!h->quit) {
        struct pollfd p = {.fd = h->fd, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0) continue;
        mw_clk_request q;
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(h->fd, &q, sizeof q, 0, (struct sockaddr *)&from, &fl);
        if (n != (ssize_t)sizeof q || q.magic != MW_CLK_MAGIC || q.kind > MW_CLK_FAILED ||
            !mw_hosts_verify(&q, sizeof q, h->key))
            continue; /* not from one of this run's agents */
        q.host[MW_HOST_NAME_MAX] = '\0';
        mw_clk_reply r = {.magic = MW_CLK_MAGIC, .seq = q.seq, .stop = (uint32_t)h->stop};
        int replay = 0;
        for (int i = 0; i < h->n; i++)
            if (!strcmp(h->name[i], q.host)) {
                r.known = 1;
                if (q.seq <= h->last_seq[i][q.kind]) {
                    replay = 1; /* an earlier request again (a replay, or reordered) */
                    break;
                }
                h->last_seq[i][q.kind] = q.seq;
                if (q.kind == MW_CLK_FAILED) h->failed[i] = 1;
                if (q.kind == MW_CLK_READY) h->ready[i] = 1;
            }
        if (replay || q.kind != MW_CLK_EXCHANGE) continue;
        r.t2_ns = now_ns(CLOCK_REALTIME);
        if (mw_hosts_sign(&r, sizeof r, h->key) != 0) continue;
        sendto(h->fd, &r, sizeof r, 0, (struct sockaddr *)&from, fl);
    }
    return NULL;
}

/* binds the UDP socket (any address, a free port) and starts the thread; port out */
static int clock_start(hosts_t *h, int *port)
{
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
    int v4 = 0;
    h->fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (h->fd >= 0) {
        int off = 0;
        setsockopt(h->fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    }
    if (h->fd < 0 || bind(h->fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (h->fd >= 0) close(h->fd);
        v4 = 1;
        struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
        h->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (h->fd < 0 || bind(h->fd, (struct sockaddr *)&a4, sizeof a4) != 0) return -1;
    }
    struct sockaddr_storage got;
    socklen_t gl = sizeof got;
    if (getsockname(h->fd, (struct sockaddr *)&got, &gl) != 0) return -1;
    *port = ntohs(v4 ? ((struct sockaddr_in *)&got)->sin_port
                     : ((struct sockaddr_in6 *)&got)->sin6_port);
    if (pthread_create(&h->th, NULL, clock_server, h) != 0) return -1;
    h->thread_on = 1;
    return 0;
}

/* the one end of the answering thread and its socket, whatever clock_start got to */
static void clock_end(hosts_t *h)
{
    h->quit = 1;
    if (h->thread_on) pthread_join(h->th, NULL);
    h->thread_on = 0;
    if (h->fd >= 0) close(h->fd);
    h->fd = -1;
}

/* the run's key into h->key and the environment (MW_RUN_SECRET, inherited by the
 * launcher and so by the agents: never on a command line); 0, or -1 */
static int make_secret(hosts_t *h)
{
    char hex[2 * MW_RUN_SECRET_LEN + 1];
    if (getrandom(h->key, sizeof h->key, 0) != (ssize_t)sizeof h->key) return -1;
    for (int i = 0; i < MW_RUN_SECRET_LEN; i++) snprintf(hex + 2 * i, 3, "%02x", h->key[i]);
    return setenv("MW_RUN_SECRET", hex, 1);
}

/* ---- the launcher's command line --------------------------------------------------------- */

/* per host at most 16 entries (mpirun: ":" -np 1 --host H, agent_common's 7, --host-name H
 * --meter M; srun: its 16 in all), plus the launcher's few and the NULL at the end */
#define ARGV_MAX (16 * MW_HOSTS_MAX + 64)
typedef struct {
    char *v[ARGV_MAX];
    int n, over; /* over: an entry did not fit (refused, never written past the end) */
} argv_t;

static void add(argv_t *a, const char *s)
{
    if (a->n + 1 >= ARGV_MAX) { /* the last one stays NULL */
        a->over = 1;
        return;
    }
    a->v[a->n++] = (char *)s;
}

/* the agents' launcher: srun inside a Slurm allocation, else mpirun */
static int use_srun(void)
{
    const char *l = getenv("MW_LAUNCHER");
    if (l && *l) return !strcmp(l, "srun");
    return getenv("SLURM_JOB_ID") != NULL;
}

static void agent_common(argv_t *a, const char *mw, const char *rundir, const char *clock,
                         int force)
{
    add(a, mw);
    add(a, "agent");
    add(a, "--run");
    add(a, rundir);
    add(a, "--clock");
    add(a, clock);
    if (force) add(a, "--force");
}

/* the srun form's HOST=METER list is written into nodes */
static void build_launch(argv_t *a, hosts_t *h, const char *mw, const char *rundir,
                         const char *clock, int force, char *nodes, size_t nodes_len)
{
    if (use_srun()) {
        static char nn[32], nt[32], nl[MW_HOSTS_MAX * (MW_HOST_NAME_MAX + 1) + 16];
        snprintf(nn, sizeof nn, "--nodes=%d", h->n);
        snprintf(nt, sizeof nt, "--ntasks=%d", h->n);
        nl[0] = '\0';
        strcat(nl, "--nodelist=");
        for (int i = 0; i < h->n; i++) {
            if (i) strcat(nl, ",");
            strcat(nl, h->name[i]);
        }
        add(a, "srun"), add(a, "--overlap"), add(a, nn), add(a, nt);
        add(a, "--ntasks-per-node=1"), add(a, nl), add(a, "--kill-on-bad-exit=0");
        /* the agents need MW_RUN_SECRET (and PATH, MW_*): whatever a site's SLURM_EXPORT_ENV
         * (e.g. NONE) or the allocation's --export says, the option overrides it */
        add(a, "--export=ALL");
        agent_common(a, mw, rundir, clock, force);
        nodes[0] = '\0';
        for (int i = 0; i < h->n; i++) { /* HOST=METER,... */
            size_t l = strlen(nodes);
            snprintf(nodes + l, nodes_len - l, "%s%s=%s", i ? "," : "", h->name[i],
                     h->meter[i] ? h->meter[i] : "auto");
        }
        add(a, "--meter-hosts");
        add(a, nodes);
        return;
    }
    const char *local = getenv("MW_TEST_LAUNCH_HOST");
    add(a, "mpirun");
    if (geteuid() == 0) add(a, "--allow-run-as-root");
    if (local && *local) add(a, "--oversubscribe");
    add(a, "-x"), add(a, "MW_RUN_SECRET"); /* the name only: the value stays in environ */
    for (int i = 0; i < h->n; i++) {
        if (i) add(a, ":");
        add(a, "-np"), add(a, "1"), add(a, "--host");
        add(a, local && *local ? local : h->name[i]);
        agent_common(a, mw, rundir, clock, force);
        add(a, "--host-name"), add(a, h->name[i]);
        add(a, "--meter"), add(a, h->meter[i] ? h->meter[i] : "auto");
    }
}

/* ---- the run ---------------------------------------------------------------------------- */

/* own_group: the child leads a process group of its own (the launcher: a terminal's Ctrl-C
 * reaches CMD, and the agents end their recordings when told, not killed with it) */
static pid_t spawn(char **argv, int own_group)
{
    pid_t pid;
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    if (own_group) {
        posix_spawnattr_setpgroup(&at, 0);
        posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    }
    int e = posix_spawnp(&pid, argv[0], NULL, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    if (e) {
        fprintf(stderr, "mw record: cannot start %s: %s\n", argv[0], strerror(e));
        return -1;
    }
    return pid;
}

/* waits for pid up to timeout_s (< 0: for ever); its wait status, or -1 when it still runs */
static int wait_for(pid_t pid, double timeout_s)
{
    int64_t end = now_ns(CLOCK_MONOTONIC) + (int64_t)(timeout_s * 1e9);
    for (;;) {
        int ws;
        pid_t r = waitpid(pid, &ws, timeout_s < 0 ? 0 : WNOHANG);
        if (r == pid) return ws;
        if (r < 0 && errno != EINTR) return 0;
        if (g_sig && g_sig != SIGCHLD) {
            kill(pid, g_sig);
            g_sig = 0;
        }
        if (timeout_s >= 0 && now_ns(CLOCK_MONOTONIC) >= end) return -1;
        if (r == 0) usleep(50000);
    }
}

/* every agent has made an exchange, the launcher ended, or the time is up; -1 when no agent
 * started */
static int wait_ready(hosts_t *h, pid_t launcher, int quiet)
{
    const char *e = getenv("MW_AGENT_START_S");
    double limit = e && atof(e) > 0 ? atof(e) : 60;
    int64_t end = now_ns(CLOCK_MONOTONIC) + (int64_t)(limit * 1e9);
    int nready = 0, ended = 0;
    while (now_ns(CLOCK_MONOTONIC) < end && !g_sig) {
        int nfailed = 0;
        nready = 0;
        for (int i = 0; i < h->n; i++) nready += h->ready[i], nfailed += h->failed[i];
        if (nready == h->n || nfailed) break;
        int ws;
        if (waitpid(launcher, &ws, WNOHANG) == launcher) {
            ended = 1;
            break;
        }
        usleep(50000);
    }
    for (int i = 0; i < h->n; i++)
        if (h->failed[i])
            fprintf(stderr, "mw record: host %s: its meter could not be used (see above)\n",
                    h->name[i]);
        else if (!h->ready[i])
            fprintf(stderr, "mw record: host %s: its agent %s\n", h->name[i],
                    ended ? "ended without recording" : "was not recording (yet)");
    if (!quiet && nready == h->n)
        fprintf(stderr, "mw record: %d agents recording\n", h->n);
    return nready == h->n ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb, (void)f;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* a run that could not start: what this run made goes (the whole directory when it made it:
 * nftw without following a link) */
static void unmake(const char *rundir, int made)
{
    if (made && nftw(rundir, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "mw record: %s: not removed: %s\n", rundir, strerror(errno));
}

static int run_cmd(char **cmd, const char *rundir, int64_t *t0, int64_t *t1)
{
    setenv("MW_RUN_DIR", rundir, 1);
    mw_rec_dirs_prepare(rundir, 0); /* RUNDIR/probe fresh: no planted link, no stale file */
    *t0 = now_ns(CLOCK_REALTIME);
    pid_t pid = spawn(cmd, 0);
    int ws = pid < 0 ? 127 << 8 : wait_for(pid, -1);
    *t1 = now_ns(CLOCK_REALTIME);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* a Slurm job or step id from the environment: a whole number, else NULL */
static const char *slurm_id(const char *var)
{
    const char *v = getenv(var);
    if (!v || !*v || strlen(v) > 20 || strspn(v, "0123456789") != strlen(v)) return NULL;
    return v;
}

/* the launcher's own Slurm job and step (the merge took the job's nodes and the node to
 * channel map from the host stores, mw_merge_hosts.h); 0, or -1 */
static int note_slurm(mw_store *st)
{
    const char *job = slurm_id("SLURM_JOB_ID"), *step = slurm_id("SLURM_STEP_ID");
    if (!job) return 0;
    int rc = mw_store_meta_set(st, "slurm_job_id", job);
    if (step) rc |= mw_store_meta_set(st, "slurm_step_id", step);
    return rc;
}

/* what the launching host knows into the merged run: the machine, the command, its span
 * (phase "command" of kind "mw") and exit status, the launcher, its Slurm job */
static void note_run(const char *rundir, char **cmd, char **argv, int64_t t0, int64_t t1,
                     int code)
{
    char err[4600], host[256], b[64];
    mw_store *st = mw_store_open_write(rundir, err, sizeof err);
    if (!st) {
        fprintf(stderr, "mw record: %s\n", err);
        return;
    }
    mw_sysinfo_hostname(host, sizeof host);
    int rc = mw_sysinfo_meta(st, cmd, argv, host, err, sizeof err);
    snprintf(b, sizeof b, "%lld", (long long)t0);
    rc |= t0 ? mw_store_meta_set(st, "cmd_start_ns", b) : 0;
    snprintf(b, sizeof b, "%lld", (long long)t1);
    rc |= t0 ? mw_store_meta_set(st, "cmd_end_ns", b) : 0;
    snprintf(b, sizeof b, "%d", code);
    rc |= mw_store_meta_set(st, "exit_status", b);
    rc |= mw_store_meta_set(st, "launcher", use_srun() ? "srun" : "mpirun");
    rc |= note_slurm(st);
    mw_store_phase ph = {.rank = -1, .host = host, .kind = "mw", .name = "command",
                         .start_ns = t0, .end_ns = t1, .pid = getpid(), .peer = -1};
    if (t0) rc |= mw_store_phase_add(st, &ph);
    /* an instrumented CMD's events (libmwprobe, RUNDIR/probe), on this host's clock */
    mw_merge_stats ms;
    if (!rc && mw_merge_run(st, rundir, &ms, mw_merge_say_skipped, NULL, err, sizeof err) != 0)
        fprintf(stderr, "mw record: %s\n", err);
    if (rc || mw_store_commit(st))
        fprintf(stderr, "mw record: %s: the command's metadata not stored: %s\n", rundir,
                mw_store_error(st));
    mw_store_close(st);
}

static void say(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "mw record: %s\n", line);
}

/* the agents, the command, the end; the exit code */
static int record(hosts_t *h, const char *rundir, int force, int quiet, char **cmd,
                  char **argv)
{
    char mw[4096], clock[600], hn[256] = "localhost";
    ssize_t n = readlink("/proc/self/exe", mw, sizeof mw - 1);
    if (n <= 0) return MW_EXIT_FAIL;
    mw[n] = '\0';
    int port;
    h->fd = -1;
    if (make_secret(h) != 0 || clock_start(h, &port) != 0) {
        fprintf(stderr, "mw record: cannot open the clock exchange socket: %s\n",
                strerror(errno));
        clock_end(h);
        return MW_EXIT_FAIL;
    }
    const char *addr = getenv("MW_CLOCK_ADDR");
    if (!addr || !*addr) gethostname(hn, sizeof hn - 1), addr = hn;
    snprintf(clock, sizeof clock, "%s:%d", addr, port);
    size_t nodes_len = (size_t)h->n * 4200 + 16;
    char *nodes = malloc(nodes_len);
    argv_t *a = calloc(1, sizeof *a);
    if (!nodes || !a) {
        clock_end(h); /* never freed under the thread's feet */
        free(nodes);
        free(a);
        return MW_EXIT_FAIL;
    }
    build_launch(a, h, mw, rundir, clock, force, nodes, nodes_len);
    if (a->over)
        fprintf(stderr, "mw record: --meter-hosts: the launcher's command line is too long "
                        "(%d hosts)\n", h->n);
    pid_t launcher = a->over ? -1 : spawn(a->v, 1);
    unsetenv("MW_RUN_SECRET"); /* the agents have it; CMD need not */
    int code = MW_EXIT_FAIL, started = launcher > 0 && wait_ready(h, launcher, quiet) == 0;
    const char *status = "complete";
    int64_t t0 = 0, t1 = 0;
    if (started) {
        code = g_sig ? 128 + g_sig : run_cmd(cmd, rundir, &t0, &t1);
        if (g_interrupted) status = "interrupted"; /* not a CMD that died by itself */
    }
    h->stop = 1; /* the next exchange of every agent says so */
    if (launcher > 0 && wait_for(launcher, 30) == -1) {
        fprintf(stderr, "mw record: the agents did not end in 30 s: stopping them\n");
        kill(launcher, SIGTERM);
        if (wait_for(launcher, 10) == -1) kill(launcher, SIGKILL), wait_for(launcher, -1);
    }
    clock_end(h);
    if (!started) { /* refused before the command started: nothing stays */
        fprintf(stderr, "mw record: %s: not every meter host could record: CMD not run\n",
                rundir);
        free(nodes);
        free(a);
        return MW_EXIT_USAGE;
    }
    mw_merge_hosts_stats ms;
    char err[4600];
    if (mw_merge_hosts(rundir, status, &ms, say, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "mw record: %s\n", err);
        code = code ? code : MW_EXIT_FAIL;
    } else {
        note_run(rundir, cmd, argv, t0, t1, code);
        char al[200];
        mw_merge_hosts_align_text(&ms, al, sizeof al);
        if (!quiet)
            fprintf(stderr, "mw record: %d hosts merged: %d channels, %lld windows (%s); %s\n",
                    ms.hosts, ms.channels, ms.samples, ms.status, al);
        if (ms.lost && code == 0) code = MW_EXIT_FAIL;
    }
    mw_rec_dirs_done(rundir);
    free(nodes);
    free(a);
    return code;
}

/* path, when it exists, is a directory of this user's (follow 0: lstat, a link is refused,
 * never followed; 1: the -o the user named may be a link); 0, or the exit code said */
static int own_dir(const char *path, int follow)
{
    struct stat sb;
    if ((follow ? stat(path, &sb) : lstat(path, &sb)) != 0) {
        if (errno == ENOENT) return 0;
        fprintf(stderr, "mw record: %s: %s\n", path, strerror(errno));
        return MW_EXIT_USAGE;
    }
    if (S_ISDIR(sb.st_mode) && sb.st_uid == geteuid()) return 0;
    fprintf(stderr, "mw record: %s: not a directory of this user's (a link, a file or "
                    "another user's): refused\n", path);
    return MW_EXIT_USAGE;
}

/* RUNDIR (made: this run made it, atomically: an existing one is refused without --force)
 * and RUNDIR/hosts; an existing hosts/ or hosts/HOST must be a directory of this user's */
static int make_dirs(const hosts_t *h, const char *rundir, const char *hosts, int force,
                     int *made)
{
    *made = mkdir(rundir, 0777) == 0;
    if (!*made && errno == EEXIST && !force) {
        fprintf(stderr, "mw record: %s: already exists (choose another -o, or --force)\n",
                rundir);
        return MW_EXIT_USAGE;
    }
    if (!*made && errno != EEXIST) {
        fprintf(stderr, "mw record: %s: %s\n", rundir, strerror(errno));
        return MW_EXIT_USAGE;
    }
    if (!*made && own_dir(rundir, 1)) return MW_EXIT_USAGE;
    if (mkdir(hosts, 0777) != 0 && (errno != EEXIST || own_dir(hosts, 0))) {
        if (errno != EEXIST) fprintf(stderr, "mw record: %s: %s\n", hosts, strerror(errno));
        return MW_EXIT_USAGE;
    }
    for (int i = 0; i < h->n; i++) {
        char p[4300];
        snprintf(p, sizeof p, "%s/%s", hosts, h->name[i]);
        if (own_dir(p, 0)) return MW_EXIT_USAGE;
    }
    return 0;
}

int mw_rec_hosts_run(const char *rundir, const char *spec, const char *meter, int force,
                     int quiet, char **cmd, char **argv)
{
    hosts_t *h = calloc(1, sizeof *h);
    if (!h) return MW_EXIT_FAIL;
    int rc = parse_spec(h, spec, meter), made = 0;
    char hosts[4200];
    snprintf(hosts, sizeof hosts, "%s/hosts", rundir);
    if (!rc) rc = make_dirs(h, rundir, hosts, force, &made);
    pid_t holder;
    char err[4400];
    mw_runlock *lock = rc ? NULL : mw_runlock_take(rundir, &holder, err, sizeof err);
    if (!rc && !lock) {
        fprintf(stderr, "mw record: %s\n", err);
        rc = MW_EXIT_USAGE;
    }
    char abs_run[4096];
    if (!rc && !realpath(rundir, abs_run)) rc = MW_EXIT_FAIL;
    if (!rc) {
        rundir = abs_run; /* for the agents (their working directory may differ) and CMD */
        struct sigaction sa = {.sa_handler = on_sig}, old[3];
        int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
        for (int i = 0; i < 3; i++) sigaction(sigs[i], &sa, &old[i]);
        rc = record(h, rundir, force, quiet, cmd, argv);
        for (int i = 0; i < 3; i++) sigaction(sigs[i], &old[i], NULL);
    }
    mw_runlock_release(lock);
    if (rc == MW_EXIT_USAGE && (lock || made)) unmake(rundir, made);
    free(h->spec);
    free(h);
    return rc;
}
