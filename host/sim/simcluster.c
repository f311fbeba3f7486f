/* simcluster — see mw_simcluster.h. The sampler thread owns every table; the board's thread
 * only reads each pin's current power, an atomic double, so the two never lock. The config
 * file is read through mw_lines (1 MiB, lines of 4096 bytes, 10 s for a FIFO) and split
 * with strtok_r; numbers with mw_num_double (plain decimal only, in range). Noise comes from
 * GSL's MT19937 with a fixed seed (reproducible runs). The run's traffic directory is removed at the end by mw_fs_remove_dir: a link
 * planted in its place is reported and left alone, never followed. */
#include "mw_simcluster.h"

#include "mw_fs.h"
#include "mw_lines.h"
#include "mw_num.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_NODES 14
#define MAX_RANKS 64
#define RESCAN_TICKS 2

typedef struct {
    char name[32];
    int pin;
    double idle_w, work_w, cores;
    int nranks, ranks[MAX_RANKS];
} node_cfg;

typedef struct {
    pid_t tid;
    int node;
    uint64_t run_ns, wait_ns; /* schedstat, cumulative */
    long long sleeps;         /* voluntary context switches, cumulative */
    int seen;
} thread_ent;

typedef struct {
    pid_t pid;
    int node;
    int ranked; /* its rank was found; until then (a process forked by mpirun that has not
                   yet exec'd the rank's program) its environment is read again each scan */
} proc_ent;

typedef struct {
    char name[32];
    uint64_t bytes;
    int seen;
} traffic_ent;

struct mw_simcluster {
    int nnodes;
    node_cfg node[MAX_NODES];
    int has_switch;
    char sw_name[32];
    int sw_pin;
    double sw_idle_w, sw_busy_w, sw_full_bps;
    double noise_w, interval_s;
    _Atomic double pin_w[16];
    /* sampler */
    pthread_t thread;
    int running;
    _Atomic int stop;
    _Atomic int root;         /* pid followed, 0: none */
    _Atomic int follow_gen;   /* bumped by mw_simcluster_follow */
    pthread_mutex_t dir_lock; /* traffic_dir */
    char traffic_dir[4096];
    gsl_rng *rng;
    proc_ent *procs;
    size_t nprocs, capprocs;
    thread_ent *threads;
    size_t nthreads, capthreads;
    traffic_ent *traffic;
    size_t ntraffic, captraffic;
    /* every process followed so far, for mw_simcluster_process */
    pthread_mutex_t seen_lock;
    proc_ent *seen;
    size_t nseen, capseen;
};

/* ---- configuration --------------------------------------------------------------------- */

static void set_defaults(mw_simcluster *c)
{
    static const struct {
        const char *name;
        double idle, work;
    } t5[] = {{"N1", 156.30, 224.72}, {"N2", 146.08, 160.01}, {"N3", 172.76, 226.38}};
    c->nnodes = 3;
    for (int k = 0; k < 3; k++) {
        node_cfg *n = &c->node[k];
        snprintf(n->name, sizeof n->name, "%s", t5[k].name);
        n->pin = k + 1;
        n->idle_w = t5[k].idle;
        n->work_w = t5[k].work;
        n->cores = 1;
    }
    c->has_switch = 1;
    snprintf(c->sw_name, sizeof c->sw_name, "switch");
    c->sw_pin = 4;
    c->sw_idle_w = 3.5;
    c->sw_busy_w = 4.5;
    c->sw_full_bps = 125e6;
}

static int cfg_fail(char *err, size_t n, const char *path, size_t line, const char *what,
                    const char *tok)
{
    snprintf(err, n, "%s:%zu: %s%s%s%s", path, line, what, tok ? " '" : "", tok ? tok : "",
             tok ? "'" : "");
    return -1;
}

static int num(const char *s, double lo, double hi, double *out)
{
    return mw_num_double(s, lo, hi, out) ? -1 : 0;
}

static int pin_of(const char *s)
{
    if (s[0] != 'A' || !isdigit((unsigned char)s[1])) return -1;
    char *end;
    long p = strtol(s + 1, &end, 10);
    return (*end || p < 1 || p > 15) ? -1 : (int)p;
}

static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 31) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-') return 0;
    return 1;
}

static int pin_used(const mw_simcluster *c, int pin)
{
    for (int k = 0; k < c->nnodes; k++)
        if (c->node[k].pin == pin) return 1;
    return c->has_switch && c->sw_pin == pin;
}

static int name_used(const mw_simcluster *c, const char *name)
{
    for (int k = 0; k < c->nnodes; k++)
        if (!strcmp(c->node[k].name, name)) return 1;
    return c->has_switch && !strcmp(c->sw_name, name);
}

static int parse_line(mw_simcluster *c, char *s, const char *path, size_t ln, char *err,
                      size_t errlen)
{
    char *save = NULL, *tok[8];
    int nt = 0;
    for (char *t = strtok_r(s, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (nt == 8) return cfg_fail(err, errlen, path, ln, "too many fields at", t);
        tok[nt++] = t;
    }
    if (!nt) return 0;
    double v;
    if (!strcmp(tok[0], "noise") || !strcmp(tok[0], "interval")) {
        int is_noise = tok[0][0] == 'n';
        if (nt != 2) return cfg_fail(err, errlen, path, ln, "expected one number after", tok[0]);
        if (num(tok[1], is_noise ? 0 : 0.005, is_noise ? 100 : 10, &v) != 0)
            return cfg_fail(err, errlen, path, ln,
                            is_noise ? "noise must be 0..100 W, not"
                                     : "interval must be 0.005..10 s, not",
                            tok[1]);
        *(is_noise ? &c->noise_w : &c->interval_s) = v;
        return 0;
    }
    int is_node = !strcmp(tok[0], "node");
    if (!is_node && strcmp(tok[0], "switch") != 0)
        return cfg_fail(err, errlen, path, ln, "expected node, switch, noise or interval, not",
                        tok[0]);
    if (nt < 5)
        return cfg_fail(err, errlen, path, ln,
                        is_node ? "expected: node NAME PIN IDLE_W WORK_W [ranks=..] [cores=N]"
                                : "expected: switch NAME PIN IDLE_W BUSY_W [full=BYTES_PER_S]",
                        NULL);
    if (!valid_name(tok[1]))
        return cfg_fail(err, errlen, path, ln, "a name is 1..31 of [A-Za-z0-9_.-], not", tok[1]);
    if (name_used(c, tok[1])) return cfg_fail(err, errlen, path, ln, "name used twice:", tok[1]);
    int pin = pin_of(tok[2]);
    if (pin < 0) return cfg_fail(err, errlen, path, ln, "not a current pin (A1..A15):", tok[2]);
    if (pin_used(c, pin)) return cfg_fail(err, errlen, path, ln, "pin used twice:", tok[2]);
    double idle, busy;
    if (num(tok[3], 0, 5000, &idle) != 0)
        return cfg_fail(err, errlen, path, ln, "idle power must be 0..5000 W, not", tok[3]);
    if (num(tok[4], idle, 5000, &busy) != 0)
        return cfg_fail(err, errlen, path, ln, "working power must be idle..5000 W, not", tok[4]);
    if (!is_node) {
        if (c->has_switch) return cfg_fail(err, errlen, path, ln, "a second switch", NULL);
        c->has_switch = 1;
        snprintf(c->sw_name, sizeof c->sw_name, "%s", tok[1]);
        c->sw_pin = pin;
        c->sw_idle_w = idle;
        c->sw_busy_w = busy;
        for (int i = 5; i < nt; i++) {
            if (strncmp(tok[i], "full=", 5) != 0 || num(tok[i] + 5, 1, 1e12, &c->sw_full_bps) != 0)
                return cfg_fail(err, errlen, path, ln, "expected full=BYTES_PER_S (1..1e12), not",
                                tok[i]);
        }
        return 0;
    }
    if (c->nnodes == MAX_NODES) return cfg_fail(err, errlen, path, ln, "too many nodes", NULL);
    node_cfg *n = &c->node[c->nnodes];
    memset(n, 0, sizeof *n);
    snprintf(n->name, sizeof n->name, "%s", tok[1]);
    n->pin = pin;
    n->idle_w = idle;
    n->work_w = busy;
    n->cores = 1;
    for (int i = 5; i < nt; i++) {
        if (!strncmp(tok[i], "cores=", 6)) {
            if (num(tok[i] + 6, 0.01, 4096, &n->cores) != 0)
                return cfg_fail(err, errlen, path, ln, "cores must be 0.01..4096, not", tok[i]);
        } else if (!strncmp(tok[i], "ranks=", 6)) {
            char *s2 = NULL;
            for (char *r = strtok_r(tok[i] + 6, ",", &s2); r; r = strtok_r(NULL, ",", &s2)) {
                if (num(r, 0, 1 << 20, &v) != 0 || v != floor(v))
                    return cfg_fail(err, errlen, path, ln, "not a rank:", r);
                if (n->nranks == MAX_RANKS)
                    return cfg_fail(err, errlen, path, ln, "too many ranks", NULL);
                n->ranks[n->nranks++] = (int)v;
            }
            if (!n->nranks) return cfg_fail(err, errlen, path, ln, "empty ranks=", NULL);
        } else {
            return cfg_fail(err, errlen, path, ln, "expected ranks=LIST or cores=N, not", tok[i]);
        }
    }
    c->nnodes++;
    return 0;
}

mw_simcluster *mw_simcluster_load(const char *path, char *err, size_t errlen)
{
    mw_simcluster *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->noise_w = 1.0;
    c->interval_s = 0.05;
    if (!path) {
        set_defaults(c);
    } else {
        mw_lines in;
        char *line;
        size_t ln = 0;
        int rc = mw_lines_open(&in, path, &mw_lines_config, err, errlen), got;
        while (rc == 0 && (got = mw_lines_next(&in, &line, NULL, err, errlen)) != 0) {
            if (got < 0) {
                rc = -1;
                break;
            }
            ln = (size_t)in.line;
            char *hash = strchr(line, '#');
            if (hash) *hash = 0;
            rc = parse_line(c, line, path, ln, err, errlen);
        }
        mw_lines_close(&in);
        if (rc == 0 && !c->nnodes) rc = cfg_fail(err, errlen, path, ln, "no node defined", NULL);
        if (rc != 0) {
            free(c);
            return NULL;
        }
    }
    for (int p = 0; p < 16; p++)
        atomic_init(&c->pin_w[p], 0.0);
    for (int k = 0; k < c->nnodes; k++)
        atomic_store(&c->pin_w[c->node[k].pin], c->node[k].idle_w);
    if (c->has_switch) atomic_store(&c->pin_w[c->sw_pin], c->sw_idle_w);
    c->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!c->rng) {
        snprintf(err, errlen, "out of memory");
        free(c);
        return NULL;
    }
    gsl_rng_set(c->rng, 1);
    pthread_mutex_init(&c->dir_lock, NULL);
    pthread_mutex_init(&c->seen_lock, NULL);
    return c;
}

/* ---- the model ------------------------------------------------------------------------- */

int mw_simcluster_nnodes(const mw_simcluster *c)
{
    return c->nnodes;
}

double mw_simcluster_node_power_w(const mw_simcluster *c, int node, double u)
{
    const node_cfg *n = &c->node[node];
    if (u < 0) u = 0;
    if (u > 1) u = 1;
    return n->idle_w + (n->work_w - n->idle_w) * u;
}

double mw_simcluster_switch_power_w(const mw_simcluster *c, double bytes_per_s)
{
    if (!c->has_switch) return 0;
    double u = bytes_per_s / c->sw_full_bps;
    if (u < 0) u = 0;
    if (u > 1) u = 1;
    return c->sw_idle_w + (c->sw_busy_w - c->sw_idle_w) * u;
}

static int node_index_of_rank(const mw_simcluster *c, int rank)
{
    if (rank < 0) rank = 0;
    for (int k = 0; k < c->nnodes; k++)
        for (int i = 0; i < c->node[k].nranks; i++)
            if (c->node[k].ranks[i] == rank) return k;
    /* the k-th node (k = 0, 1, ...) takes rank k unless it lists its ranks; other ranks go
     * round-robin over the nodes without ranks= but the front end (node 0) */
    if (rank < c->nnodes && !c->node[rank].nranks) return rank;
    int workers[MAX_NODES], nw = 0;
    for (int k = 1; k < c->nnodes; k++)
        if (!c->node[k].nranks) workers[nw++] = k;
    if (!nw) return 0;
    return workers[(rank < c->nnodes ? rank : rank - c->nnodes) % nw];
}

const char *mw_simcluster_node_of_rank(const mw_simcluster *c, int rank)
{
    return c->node[node_index_of_rank(c, rank)].name;
}

void mw_simcluster_channels(const mw_simcluster *c, char *out, size_t outlen)
{
    int maxpin = c->has_switch ? c->sw_pin : 0;
    for (int k = 0; k < c->nnodes; k++)
        if (c->node[k].pin > maxpin) maxpin = c->node[k].pin;
    size_t len = 0;
    out[0] = 0;
    for (int p = 1; p <= maxpin; p++) {
        char one[80];
        snprintf(one, sizeof one, "ch%d", p);
        for (int k = 0; k < c->nnodes; k++)
            if (c->node[k].pin == p)
                snprintf(one, sizeof one, "%s@%s", c->node[k].name, c->node[k].name);
        if (c->has_switch && c->sw_pin == p) snprintf(one, sizeof one, "%s", c->sw_name);
        len += (size_t)snprintf(out + len, len < outlen ? outlen - len : 0, "%s%s",
                                p > 1 ? "," : "", one);
    }
}

void mw_simcluster_describe(const mw_simcluster *c, char *out, size_t outlen)
{
    size_t len = (size_t)snprintf(out, outlen, "simulated cluster:");
    for (int k = 0; k < c->nnodes && len < outlen; k++)
        len += (size_t)snprintf(out + len, outlen - len, " %s A%d %.2f..%.2f W cores %g;",
                                c->node[k].name, c->node[k].pin, c->node[k].idle_w,
                                c->node[k].work_w, c->node[k].cores);
    if (c->has_switch && len < outlen)
        len += (size_t)snprintf(out + len, outlen - len, " %s A%d %.2f..%.2f W at %.3g B/s;",
                                c->sw_name, c->sw_pin, c->sw_idle_w, c->sw_busy_w, c->sw_full_bps);
    if (len < outlen)
        snprintf(out + len, outlen - len, " noise %.2f W, every %.3f s", c->noise_w, c->interval_s);
}

double mw_simcluster_pin_power_w(mw_simcluster *c, int pin)
{
    return pin >= 1 && pin <= 15 ? atomic_load(&c->pin_w[pin]) : 0;
}

static double pin_power_fn(void *ctx, int pin, uint64_t t_ns)
{
    (void)t_ns;
    mw_simcluster *c = ctx;
    return atomic_load_explicit(&c->pin_w[pin], memory_order_relaxed);
}

void mw_simcluster_attach(mw_simcluster *c, mw_sim *sim)
{
    for (int k = 0; k < c->nnodes; k++)
        mw_sim_set_load_fn(sim, c->node[k].pin, pin_power_fn, c, 0.95, MW_SIM_SMPS);
    if (c->has_switch) mw_sim_set_load_fn(sim, c->sw_pin, pin_power_fn, c, 1.0, MW_SIM_SINE);
}

/* ---- the sampler ----------------------------------------------------------------------- */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap * 2 : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

static ssize_t read_small(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t got = read(fd, buf, n - 1);
    close(fd);
    if (got < 0) return -1;
    buf[got] = 0;
    return got;
}

/* parent pid from /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold anything) */
static pid_t ppid_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (read_small(path, buf, sizeof buf) <= 0) return -1;
    char *p = strrchr(buf, ')');
    if (!p) return -1;
    char state;
    int ppid;
    if (sscanf(p + 1, " %c %d", &state, &ppid) != 2) return -1;
    return (pid_t)ppid;
}

/* MPI rank from the process's environment, -1 when it has none */
static int rank_of(pid_t pid)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK=", "PMIX_RANK=", "PMI_RANK="};
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char *var = NULL;
    size_t cap = 0;
    int rank = -1;
    while (rank < 0 && getdelim(&var, &cap, 0, f) > 0)
        for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
            if (!strncmp(var, vars[i], strlen(vars[i]))) {
                char *end;
                long r = strtol(var + strlen(vars[i]), &end, 10);
                if (end != var + strlen(vars[i]) && r >= 0 && r < (1 << 20)) rank = (int)r;
                break;
            }
    free(var);
    fclose(f);
    return rank;
}

static int proc_index(const mw_simcluster *c, pid_t pid)
{
    for (size_t i = 0; i < c->nprocs; i++)
        if (c->procs[i].pid == pid) return (int)i;
    return -1;
}

/* The processes under root: every pid whose chain of parents reaches root. */
static void rescan(mw_simcluster *c)
{
    DIR *d = opendir("/proc");
    if (!d) return;
    pid_t *pid = NULL, *par = NULL;
    size_t n = 0, cap = 0, cap2 = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        if (grow((void **)&pid, &cap, n + 1, sizeof *pid) ||
            grow((void **)&par, &cap2, n + 1, sizeof *par))
            break;
        pid[n] = (pid_t)atoi(e->d_name);
        par[n] = ppid_of(pid[n]);
        n++;
    }
    closedir(d);
    unsigned char *in = calloc(n ? n : 1, 1);
    if (in) {
        pid_t root = (pid_t)atomic_load(&c->root);
        for (size_t i = 0; i < n; i++)
            in[i] = root > 0 && pid[i] == root;
        for (int changed = 1; changed;) {
            changed = 0;
            for (size_t i = 0; i < n; i++) {
                if (in[i]) continue;
                for (size_t j = 0; j < n; j++)
                    if (in[j] && pid[j] == par[i]) {
                        in[i] = changed = 1;
                        break;
                    }
            }
        }
        proc_ent *keep = NULL;
        size_t nk = 0, capk = 0;
        for (size_t i = 0; i < n; i++) {
            if (!in[i] || grow((void **)&keep, &capk, nk + 1, sizeof *keep)) continue;
            int old = proc_index(c, pid[i]);
            if (old >= 0 && c->procs[old].ranked) {
                keep[nk++] = c->procs[old];
                continue;
            }
            int rank = rank_of(pid[i]);
            keep[nk].pid = pid[i];
            keep[nk].node = node_index_of_rank(c, rank);
            keep[nk].ranked = rank >= 0;
            if (old < 0 || keep[nk].node != c->procs[old].node) {
                pthread_mutex_lock(&c->seen_lock);
                size_t k = 0;
                while (k < c->nseen && c->seen[k].pid != pid[i])
                    k++;
                if (k < c->nseen)
                    c->seen[k] = keep[nk];
                else if (!grow((void **)&c->seen, &c->capseen, c->nseen + 1, sizeof *c->seen))
                    c->seen[c->nseen++] = keep[nk];
                pthread_mutex_unlock(&c->seen_lock);
            }
            nk++;
        }
        free(c->procs);
        c->procs = keep;
        c->nprocs = nk;
        c->capprocs = capk;
    }
    free(in);
    free(pid);
    free(par);
}

static thread_ent *thread_find(mw_simcluster *c, pid_t tid)
{
    for (size_t i = 0; i < c->nthreads; i++)
        if (c->threads[i].tid == tid) return &c->threads[i];
    return NULL;
}

/* A thread's demand over an interval of dt_ns in which it ran run_ns, waited wait_ns for a
 * core and went to sleep `sleeps` times (voluntary context switches).
 * - A thread that never slept wanted a core all the interval — computing, or polling in MPI
 *   even with sched_yield: on its own node it would have run all of it. Its demand is
 *   run + wait (the kernel adds a wait to schedstat when the wait ends, so one interval may
 *   get more than dt of it and the next less; the node's carry spreads that).
 * - A thread that slept does a fixed amount of work between sleeps. On its own node it would
 *   not queue: its time there is the interval less its wait, of which it ran run_ns, so its
 *   demand is run * dt / (dt - wait), at most run + wait. An MPI rank testing for a message
 *   every millisecond and sleeping in between (eeg-mofs --wait sleep) runs microseconds per
 *   wake-up and queues behind the other nodes' work at each one: that wait does not count. */
static double thread_demand_ns(double dt_ns, double run, double wait, double sleeps)
{
    if (sleeps <= 0 || dt_ns <= 0) return run + wait;
    double rest = dt_ns - wait;
    if (rest <= 0 || run * dt_ns >= (run + wait) * rest) return run + wait;
    return run * dt_ns / rest;
}

/* voluntary context switches of a thread so far, from /proc/PID/task/TID/status; -1 if
 * unreadable */
static long long thread_sleeps(pid_t pid, pid_t tid)
{
    static const char key[] = "\nvoluntary_ctxt_switches:";
    char path[96], buf[8192];
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
    if (read_small(path, buf, sizeof buf) <= 0) return -1;
    const char *k = strstr(buf, key);
    unsigned long long v;
    if (!k || sscanf(k + sizeof key - 1, "%llu", &v) != 1) return -1;
    return (long long)v;
}

/* Adds each node's CPU demand since the last call (thread-ns) to demand_ns[]. */
static void sample_threads(mw_simcluster *c, double dt_ns, double *demand_ns, int first)
{
    for (size_t i = 0; i < c->nthreads; i++)
        c->threads[i].seen = 0;
    for (size_t p = 0; p < c->nprocs; p++) {
        char path[96];
        snprintf(path, sizeof path, "/proc/%d/task", (int)c->procs[p].pid);
        DIR *d = opendir(path);
        if (!d) continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!isdigit((unsigned char)e->d_name[0])) continue;
            pid_t tid = (pid_t)atoi(e->d_name);
            char sp[128], buf[128];
            snprintf(sp, sizeof sp, "/proc/%d/task/%d/schedstat", (int)c->procs[p].pid, (int)tid);
            unsigned long long run, wait;
            if (read_small(sp, buf, sizeof buf) <= 0 || sscanf(buf, "%llu %llu", &run, &wait) != 2)
                continue;
            long long sleeps = thread_sleeps(c->procs[p].pid, tid);
            thread_ent *t = thread_find(c, tid);
            if (t) {
                if (run >= t->run_ns && wait >= t->wait_ns)
                    demand_ns[t->node] += thread_demand_ns(
                        dt_ns, (double)(run - t->run_ns), (double)(wait - t->wait_ns),
                        sleeps < 0 || t->sleeps < 0 ? 0 : (double)(sleeps - t->sleeps));
            } else if (!grow((void **)&c->threads, &c->capthreads, c->nthreads + 1,
                             sizeof *c->threads)) {
                t = &c->threads[c->nthreads++];
                t->tid = tid;
                /* a thread born since the last sample: all its time is in this interval */
                if (!first)
                    demand_ns[c->procs[p].node] +=
                        thread_demand_ns(dt_ns, (double)run, (double)wait, (double)sleeps);
            }
            if (t) {
                t->node = c->procs[p].node;
                t->run_ns = run;
                t->wait_ns = wait;
                t->sleeps = sleeps;
                t->seen = 1;
            }
        }
        closedir(d);
    }
    size_t k = 0;
    for (size_t i = 0; i < c->nthreads; i++)
        if (c->threads[i].seen) c->threads[k++] = c->threads[i];
    c->nthreads = k;
}

/* Bytes sent since the last call, over every traffic file. */
static double sample_traffic(mw_simcluster *c, int first)
{
    char dir[4096];
    pthread_mutex_lock(&c->dir_lock);
    snprintf(dir, sizeof dir, "%s", c->traffic_dir);
    pthread_mutex_unlock(&c->dir_lock);
    if (!dir[0]) return 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    double bytes = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof c->traffic[0].name) continue;
        char path[sizeof dir + sizeof e->d_name + 2];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        unsigned char b[16];
        ssize_t got = pread(fd, b, 16, 0);
        close(fd);
        if (got != 16 || memcmp(b, "mwtx0001", 8) != 0) continue;
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--)
            v = v << 8 | b[8 + i];
        traffic_ent *t = NULL;
        for (size_t i = 0; i < c->ntraffic; i++)
            if (!strcmp(c->traffic[i].name, e->d_name)) t = &c->traffic[i];
        if (!t) {
            if (grow((void **)&c->traffic, &c->captraffic, c->ntraffic + 1, sizeof *c->traffic))
                continue;
            t = &c->traffic[c->ntraffic++];
            memcpy(t->name, e->d_name, strlen(e->d_name) + 1); /* length checked above */
            t->bytes = 0;
            if (first) t->bytes = v;
        }
        if (v > t->bytes) bytes += (double)(v - t->bytes);
        t->bytes = v;
    }
    closedir(d);
    return bytes;
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *sampler_main(void *arg)
{
    mw_simcluster *c = arg;
    int64_t step = (int64_t)(c->interval_s * 1e9), last = mono_ns(), next = last;
    double demand[MAX_NODES] = {0}, carry[MAX_NODES] = {0};
    /* the switch follows the traffic rate over the last TX_TICKS samples (about a window) */
    enum { TX_TICKS = 5 };
    double tx_bytes[TX_TICKS] = {0}, tx_dt[TX_TICKS] = {0};
    rescan(c);
    sample_threads(c, 0, demand, 1);
    sample_traffic(c, 1);
    int gen = atomic_load(&c->follow_gen);
    for (unsigned tick = 1; !atomic_load(&c->stop); tick++) {
        next += step;
        struct timespec ts = {.tv_sec = next / 1000000000, .tv_nsec = next % 1000000000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
        int64_t now = mono_ns();
        if (now - next > 10 * step) next = now; /* fell far behind: do not burst */
        double dt = (double)(now - last);
        last = now;
        int g = atomic_load(&c->follow_gen);
        if (g != gen || tick % RESCAN_TICKS == 0) rescan(c);
        gen = g;
        memset(demand, 0, sizeof demand);
        sample_threads(c, dt, demand, 0);
        tx_bytes[tick % TX_TICKS] = sample_traffic(c, 0);
        tx_dt[tick % TX_TICKS] = dt;
        double bytes = 0, span_ns = 0;
        for (int i = 0; i < TX_TICKS; i++) {
            bytes += tx_bytes[i];
            span_ns += tx_dt[i];
        }
        for (int k = 0; k < c->nnodes; k++) {
            /* the kernel adds a thread's wait for a core to its schedstat only when it gets
             * one, so demand comes in late bursts: what exceeds the node's cores in one
             * interval is carried to the next (at most two intervals' worth) */
            double cap = dt * c->node[k].cores, d = demand[k] + carry[k];
            double u = cap > 0 ? fmin(d, cap) / cap : 0;
            carry[k] = fmin(fmax(d - cap, 0), 2 * cap);
            double w = mw_simcluster_node_power_w(c, k, u);
            if (c->noise_w > 0) w += gsl_ran_gaussian(c->rng, c->noise_w);
            atomic_store(&c->pin_w[c->node[k].pin], w > 0 ? w : 0);
        }
        if (c->has_switch)
            atomic_store(&c->pin_w[c->sw_pin], mw_simcluster_switch_power_w(
                                                   c, span_ns > 0 ? bytes / (span_ns * 1e-9) : 0));
    }
    return NULL;
}

const char *mw_simcluster_process(mw_simcluster *c, size_t i, pid_t *pid)
{
    const char *name = NULL;
    pthread_mutex_lock(&c->seen_lock);
    if (i < c->nseen) {
        *pid = c->seen[i].pid;
        name = c->node[c->seen[i].node].name;
    }
    pthread_mutex_unlock(&c->seen_lock);
    return name;
}

void mw_simcluster_follow(mw_simcluster *c, pid_t root, const char *traffic_dir)
{
    pthread_mutex_lock(&c->dir_lock);
    snprintf(c->traffic_dir, sizeof c->traffic_dir, "%s", traffic_dir ? traffic_dir : "");
    pthread_mutex_unlock(&c->dir_lock);
    atomic_store(&c->root, (int)root);
    atomic_fetch_add(&c->follow_gen, 1);
}

int mw_simcluster_start(mw_simcluster *c)
{
    if (c->running) return -1;
    c->nprocs = c->nthreads = c->ntraffic = 0;
    atomic_store(&c->stop, 0);
    if (pthread_create(&c->thread, NULL, sampler_main, c) != 0) return -1;
    c->running = 1;
    return 0;
}

void mw_simcluster_stop(mw_simcluster *c)
{
    if (!c || !c->running) return;
    atomic_store(&c->stop, 1);
    pthread_join(c->thread, NULL);
    c->running = 0;
    for (int k = 0; k < c->nnodes; k++)
        atomic_store(&c->pin_w[c->node[k].pin], c->node[k].idle_w);
    if (c->has_switch) atomic_store(&c->pin_w[c->sw_pin], c->sw_idle_w);
}

void mw_simcluster_free(mw_simcluster *c)
{
    if (!c) return;
    mw_simcluster_stop(c);
    gsl_rng_free(c->rng);
    pthread_mutex_destroy(&c->dir_lock);
    pthread_mutex_destroy(&c->seen_lock);
    free(c->seen);
    free(c->procs);
    free(c->threads);
    free(c->traffic);
    free(c);
}

/* ---- the recorded run ------------------------------------------------------------------ */

/* The first failure's message into err; returns -1. */
static int first_failure(int *failed, const char *msg, char *err, size_t errlen)
{
    if (!*failed) snprintf(err, errlen, "%s", msg);
    *failed = 1;
    return -1;
}

int mw_simcluster_finish_run(mw_simcluster *c, mw_store *st, const char *traffic_dir, char *err,
                             size_t errlen)
{
    char desc[2048];
    int failed = 0;
    mw_simcluster_describe(c, desc, sizeof desc);
    if (mw_store_meta_set(st, "simulated_cluster", desc))
        first_failure(&failed, mw_store_error(st), err, errlen);
    pid_t pid;
    const char *node;
    for (size_t i = 0; (node = mw_simcluster_process(c, i, &pid)) != NULL; i++)
        if (mw_store_phases_set_host_of_pid(st, pid, node)) {
            first_failure(&failed, mw_store_error(st), err, errlen);
            break;
        }
    int *ranks;
    size_t nranks;
    if (mw_store_phase_ranks(st, &ranks, &nranks))
        first_failure(&failed, mw_store_error(st), err, errlen);
    for (size_t i = 0; i < nranks; i++)
        if (mw_store_set_host_of_rank(st, ranks[i], mw_simcluster_node_of_rank(c, ranks[i])))
            first_failure(&failed, mw_store_error(st), err, errlen);
    free(ranks);
    char why[4096 + 200];
    if (traffic_dir && mw_fs_remove_dir(traffic_dir, why, sizeof why))
        first_failure(&failed, why, err, errlen);
    return failed ? -1 : 0;
}
