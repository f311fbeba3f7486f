/* eeg-mofs — multi-objective feature selection for EEG classification, the MPI master–
 * worker of Escobar et al. (§3–4, Algorithms 1–4, Table 4), instrumented with libmwprobe.
 *
 * N individuals (feature masks) in N_Spop subpopulations of M = N/N_Spop evolve by NSGA-II
 * (nsga.h) with the K-means fitness (fitness.h) for G generations. Every `global_every`
 * generations (a global epoch) all subpopulations come back to the master (rank 0), which
 * does a global migration (a ring: subpopulation s sends at most half of its first front
 * to s+1, whose worst members they replace) and a non-dominated sorting of all N. At the
 * end the master merges every subpopulation, keeps the non-dominated distinct points and
 * prints their hypervolume.
 *
 * Distribution (--strategy):
 *   v2  a worker asks for ΔN_Spop = 2 subpopulations per device (`--chunk`), evolves them
 *       for the epoch with a local migration (a ring over the chunk, same rule) every
 *       `local_every` generations, returns them and asks again; the master never computes.
 *   v3  each device thread of a worker asks for one subpopulation (`--chunk`, default 1),
 *       evolves it for the epoch
 *       without local migrations, returns it and asks for the next.
 * Alone (one rank) the master does all the work itself: v3 over its device threads, v2 in
 * the same chunks as a worker would. Requests that find no work left in the epoch are
 * answered "none" and the thread moves on to the next epoch; its request then waits at the
 * master until that epoch starts — that wait is the workers' wait for the global migration.
 * After the last epoch the master broadcasts the END signal (MPI_Ibcast). Waiting ranks —
 * for a message, or in a collective (all non-blocking: MPI_Igather, MPI_Ibcast,
 * MPI_Ireduce) — sleep between tests (`--wait sleep`, default) or poll in MPI (`--wait
 * spin`: MPI_Probe, MPI_Wait).
 *
 * Devices: the CPU (OpenMP over individuals, `--threads`) and, when built with CUDA, each
 * GPU (`--gpus`, fitness_gpu.h), one driving thread per device.
 *
 * Determinism: a subpopulation's random stream is a function of (seed, subpopulation,
 * block), not of who evolves it, and chunks are consecutive subpopulations in index order,
 * so with CPU devices the result depends only on the options and the number of devices per
 * worker — not on the rank count or on timing (with GPUs, fitness values agree with the CPU
 * only within float rounding, so which device evaluates what can matter).
 *
 * Phases (libmwprobe): init, distribute (master's scheduling, workers' requests), evolve
 * (operators, sorting), evaluate cpu / evaluate gpu, local migration, wait global,
 * global migration, merge. The summary at the end gives each phase's time. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data.h"
#include "fitness.h"
#include "fitness_gpu.h"
#include "hv.h"
#include "mwprobe.h"
#include "nsga.h"
#include "opt.h"

#define MAX_DEVICES 9
#define TAG_REQ 1
#define TAG_REPLY 100 /* + device index */

/* ---- options ------------------------------------------------------------------------------ */

typedef struct {
    int v3;
    int patterns, features, classes, informative;
    double separation;
    int individuals, subpops, generations, global_every, local_every, chunk;
    int clusters, kmeans_iters, threads, gpus;
    double migrants; /* fraction of a subpopulation that may emigrate (of its front) */
    eeg_params par;
    unsigned long long seed;
    const char *front_file;
    int quiet;
    int spin; /* --wait spin: MPI's blocking calls (they poll); else sleep between tests */
} options;

static void usage(FILE *f)
{
    fprintf(f, "usage: eeg-mofs [options]            (under mpirun: rank 0 is the master)\n"
               "Multi-objective EEG feature selection (NSGA-II + K-means fitness), after\n"
               "Escobar et al. 2019.\n"
               "  --strategy v2|v3      distribution (also --version v2|v3)          [v3]\n"
               "  --patterns N          patterns in the synthetic data set             [178]\n"
               "  --features N          features per pattern                          [3600]\n"
               "  --classes N           classes (and K-means clusters)                   [3]\n"
               "  --informative N       features that carry the classes    [features/20]\n"
               "  --separation X        class separation on them, noise sds            [4.0]\n"
               "  --individuals N       total individuals N                           [3840]\n"
               "  --subpops N           subpopulations N_Spop (divides N)                [8]\n"
               "  --generations N       generations g                                  [150]\n"
               "  --global-every N      generations between global migrations           [30]\n"
               "  --local-every N       generations between local migrations (v2)       [10]\n"
               "  --chunk N             subpopulations per device and request  [v2: 2, v3: 1]\n"
               "  --migrants X          at most this fraction of M emigrates (of front 0) [0.5]\n"
               "  --crossover P         uniform crossover probability per pair          [0.75]\n"
               "  --mutation P          bit-inversion probability per child            [0.025]\n"
               "  --density P           initial probability a feature is selected       [0.05]\n"
               "  --kmeans-iters N      K-means iterations per individual               [20]\n"
               "  --threads N           OpenMP threads of the CPU device     [OpenMP default]\n"
               "  --gpus N              GPUs to use per rank (0: CPU only)              [all]\n"
               "  --seed N              seed of the data, centroids and evolution        [1]\n"
               "  --front FILE          write the final front (f1 f2 features informative)\n"
               "  --wait sleep|spin     how a rank waits for a message: test and sleep\n"
               "                        (20 us doubling to 1 ms; a waiting node idles, as\n"
               "                        eq. 9 assumes) or MPI's blocking calls (they poll,\n"
               "                        so a waiting rank keeps its core busy)        [sleep]\n"
               "  -q, --quiet           only the summary\n"
               "  -h, --help            this text\n"
               "The last line printed is 'hypervolume: <value>'.\n");
}

static int bad(const char *what, const char *arg)
{
    fprintf(stderr, "eeg-mofs: %s: '%s'\n", what, arg ? arg : "");
    return 2;
}

static int parse_int(const char *opt, const char *s, long lo, long hi, int *out)
{
    long v;
    if (eeg_opt_long("eeg-mofs", opt, s, lo, hi, &v) != 0) return -1;
    *out = (int)v;
    return 0;
}

static int parse_real(const char *opt, const char *s, double lo, double hi, double *out)
{
    return eeg_opt_real("eeg-mofs", opt, s, lo, hi, out);
}

/* 0: run; 1: --help done; 2: bad usage (message printed) */
static int parse(int argc, char **argv, options *o)
{
    *o = (options){.v3 = 1,
                   .patterns = 178,
                   .features = 3600,
                   .classes = 3,
                   .informative = -1,
                   .separation = 4.0,
                   .individuals = 3840,
                   .subpops = 8,
                   .generations = 150,
                   .global_every = 30,
                   .local_every = 10,
                   .chunk = -1,
                   .clusters = -1,
                   .kmeans_iters = 20,
                   .threads = 0,
                   .gpus = -1,
                   .migrants = 0.5,
                   .par = {.p_cross = 0.75, .p_mut = 0.025, .density = 0.05},
                   .seed = 1};
    enum {
        O_STRAT = 256,
        O_PAT,
        O_FEAT,
        O_CLS,
        O_INF,
        O_SEP,
        O_IND,
        O_SUB,
        O_GEN,
        O_GE,
        O_LE,
        O_CHUNK,
        O_MIG,
        O_PC,
        O_PM,
        O_DEN,
        O_KI,
        O_THR,
        O_GPU,
        O_SEED,
        O_FRONT,
        O_WAIT
    };
    static const struct option lo[] = {{"strategy", required_argument, 0, O_STRAT},
                                       {"version", required_argument, 0, O_STRAT},
                                       {"patterns", required_argument, 0, O_PAT},
                                       {"features", required_argument, 0, O_FEAT},
                                       {"classes", required_argument, 0, O_CLS},
                                       {"informative", required_argument, 0, O_INF},
                                       {"separation", required_argument, 0, O_SEP},
                                       {"individuals", required_argument, 0, O_IND},
                                       {"subpops", required_argument, 0, O_SUB},
                                       {"generations", required_argument, 0, O_GEN},
                                       {"global-every", required_argument, 0, O_GE},
                                       {"local-every", required_argument, 0, O_LE},
                                       {"chunk", required_argument, 0, O_CHUNK},
                                       {"migrants", required_argument, 0, O_MIG},
                                       {"crossover", required_argument, 0, O_PC},
                                       {"mutation", required_argument, 0, O_PM},
                                       {"density", required_argument, 0, O_DEN},
                                       {"kmeans-iters", required_argument, 0, O_KI},
                                       {"threads", required_argument, 0, O_THR},
                                       {"gpus", required_argument, 0, O_GPU},
                                       {"seed", required_argument, 0, O_SEED},
                                       {"front", required_argument, 0, O_FRONT},
                                       {"wait", required_argument, 0, O_WAIT},
                                       {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    opterr = 0;
    optind = 1;
    int c, seed_set = 0;
    while ((c = getopt_long(argc, argv, "qh", lo, NULL)) != -1) {
        int r = 0, tmp;
        switch (c) {
        case 'h':
            usage(stdout);
            return 1;
        case 'q':
            o->quiet = 1;
            break;
        case O_STRAT:
            if (!strcmp(optarg, "v2"))
                o->v3 = 0;
            else if (!strcmp(optarg, "v3"))
                o->v3 = 1;
            else
                return bad("--strategy wants v2 or v3", optarg);
            break;
        case O_PAT:
            r = parse_int("--patterns", optarg, 2, 1000000, &o->patterns);
            break;
        case O_FEAT:
            r = parse_int("--features", optarg, 1, 10000000, &o->features);
            break;
        case O_CLS:
            r = parse_int("--classes", optarg, 2, 1000, &o->classes);
            break;
        case O_INF:
            r = parse_int("--informative", optarg, 0, INT_MAX, &o->informative);
            break;
        case O_SEP:
            r = parse_real("--separation", optarg, 0, 1e6, &o->separation);
            break;
        case O_IND:
            r = parse_int("--individuals", optarg, 4, 100000000, &o->individuals);
            break;
        case O_SUB:
            r = parse_int("--subpops", optarg, 1, 100000, &o->subpops);
            break;
        case O_GEN:
            r = parse_int("--generations", optarg, 1, 10000000, &o->generations);
            break;
        case O_GE:
            r = parse_int("--global-every", optarg, 1, 10000000, &o->global_every);
            break;
        case O_LE:
            r = parse_int("--local-every", optarg, 1, 10000000, &o->local_every);
            break;
        case O_CHUNK:
            r = parse_int("--chunk", optarg, 1, 100000, &o->chunk);
            break;
        case O_MIG:
            r = parse_real("--migrants", optarg, 0, 1, &o->migrants);
            break;
        case O_PC:
            r = parse_real("--crossover", optarg, 0, 1, &o->par.p_cross);
            break;
        case O_PM:
            r = parse_real("--mutation", optarg, 0, 1, &o->par.p_mut);
            break;
        case O_DEN:
            r = parse_real("--density", optarg, 0, 1, &o->par.density);
            break;
        case O_KI:
            r = parse_int("--kmeans-iters", optarg, 0, 100000, &o->kmeans_iters);
            break;
        case O_THR:
            r = parse_int("--threads", optarg, 1, 4096, &o->threads);
            break;
        case O_GPU:
            r = parse_int("--gpus", optarg, 0, MAX_DEVICES - 1, &o->gpus);
            break;
        case O_SEED:
            r = parse_int("--seed", optarg, 0, INT_MAX, &tmp);
            o->seed = (unsigned long long)tmp;
            seed_set = 1;
            break;
        case O_FRONT:
            o->front_file = optarg;
            break;
        case O_WAIT:
            if (!strcmp(optarg, "sleep"))
                o->spin = 0;
            else if (!strcmp(optarg, "spin"))
                o->spin = 1;
            else
                return bad("--wait wants sleep or spin", optarg);
            break;
        case ':':
            return bad("option needs a value", argv[optind - 1]);
        default:
            return bad("unknown option (see --help)", argv[optind - 1]);
        }
        if (r) return 2;
    }
    (void)seed_set;
    if (optind < argc) return bad("unexpected argument (see --help)", argv[optind]);
    if (o->informative < 0) o->informative = o->features / 20 > 0 ? o->features / 20 : 1;
    if (o->informative > o->features) {
        fprintf(stderr, "eeg-mofs: --informative %d exceeds --features %d\n", o->informative,
                o->features);
        return 2;
    }
    if (o->patterns < o->classes) {
        fprintf(stderr, "eeg-mofs: --patterns %d is fewer than --classes %d\n", o->patterns,
                o->classes);
        return 2;
    }
    if (o->clusters < 0) o->clusters = o->classes;
    if (o->individuals % o->subpops || o->individuals / o->subpops < 4) {
        fprintf(stderr,
                "eeg-mofs: --individuals %d must be a multiple of --subpops %d with at least 4 "
                "per subpopulation\n",
                o->individuals, o->subpops);
        return 2;
    }
    if (o->generations % o->global_every) {
        fprintf(stderr, "eeg-mofs: --generations %d is not a multiple of --global-every %d\n",
                o->generations, o->global_every);
        return 2;
    }
    if (!o->v3 && o->global_every % o->local_every) {
        fprintf(stderr, "eeg-mofs: --global-every %d is not a multiple of --local-every %d\n",
                o->global_every, o->local_every);
        return 2;
    }
    if (o->chunk < 0) o->chunk = o->v3 ? 1 : 2;
    return 0;
}

/* ---- phase times (the summary) ----------------------------------------------------------- */

enum {
    PH_INIT,
    PH_DIST,
    PH_EVOLVE,
    PH_EVAL_CPU,
    PH_EVAL_GPU,
    PH_LOCAL,
    PH_WAIT,
    PH_GLOBAL,
    PH_MERGE,
    PH_N
};
static const char *const ph_name[PH_N] = {"init",         "distribute",       "evolve",
                                          "evaluate cpu", "evaluate gpu",     "local migration",
                                          "wait global",  "global migration", "merge"};
static double ph_time[MAX_DEVICES][PH_N]; /* per device thread (0: the main thread) */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
    int ph, dev;
    double t0;
} phase_t;

static phase_t ph_begin(int dev, int ph)
{
    mw_phase_begin(ph_name[ph]);
    return (phase_t){ph, dev, now_s()};
}

static void ph_end(phase_t p)
{
    ph_time[p.dev][p.ph] += now_s() - p.t0;
    mw_phase_end(ph_name[p.ph]);
}

/* ---- devices --------------------------------------------------------------------------------- */

typedef struct {
    int index; /* 0: the CPU, 1…: GPUs */
    eeg_gpu *gpu;
    const eeg_fit *fit;
    int threads;
    long evaluated; /* individuals */
    int eval_failed;
} device;

/* eeg_eval_fn: the evaluate phase cuts the surrounding evolve phase in two */
static void device_eval(void *ctx, const uint64_t *masks, int n, double *f1, double *f2)
{
    device *d = ctx;
    mw_phase_end(ph_name[PH_EVOLVE]);
    phase_t p = ph_begin(d->index, d->gpu ? PH_EVAL_GPU : PH_EVAL_CPU);
    if (d->gpu) {
        if (eeg_gpu_eval(d->gpu, masks, n, f1, f2) != 0) d->eval_failed = 1;
    } else {
        eeg_fit_eval(d->fit, masks, n, f1, f2, d->threads);
    }
    d->evaluated += n;
    mw_counter("eeg evaluated", n); /* individuals in this evaluate phase */
    double t1 = now_s();
    ph_end(p);
    ph_time[d->index][PH_EVOLVE] -= t1 - p.t0; /* evolve counts the operators only */
    mw_phase_begin(ph_name[PH_EVOLVE]);
}

/* generations [gen0, gen0 + count) of one subpopulation; block names its random stream */
static void evolve(const options *o, device *d, gsl_rng *r, eeg_pop *p, int block, int count)
{
    phase_t ph = ph_begin(d->index, PH_EVOLVE);
    eeg_rng_seed(r, o->seed, p->id, block);
    if (!p->evaluated) eeg_pop_evaluate(p, device_eval, d);
    for (int g = 0; g < count; g++)
        eeg_pop_generation(p, &o->par, r, device_eval, d);
    ph_end(ph);
}

/* a ring migration over n subpopulations: s sends at most frac·M of its front 0 to s+1 */
static void ring_migration(eeg_pop **pops, int n, double frac)
{
    if (n < 2) return;
    int m = pops[0]->m, w = pops[0]->words;
    int max = (int)(frac * m);
    int *idx = malloc((size_t)m * sizeof *idx);
    int *cnt = calloc((size_t)n, sizeof *cnt);
    uint64_t *mk = malloc((size_t)n * (size_t)m * (size_t)w * sizeof *mk);
    double *f1 = malloc((size_t)n * (size_t)m * sizeof *f1);
    double *f2 = malloc((size_t)n * (size_t)m * sizeof *f2);
    if (idx && cnt && mk && f1 && f2) {
        /* take every emigrant first, so a subpopulation sends its own members, not ones
         * that just arrived */
        for (int s = 0; s < n; s++) {
            cnt[s] = eeg_pop_emigrants(pops[s], max, idx);
            for (int k = 0; k < cnt[s]; k++) {
                size_t at = (size_t)s * (size_t)m + (size_t)k;
                memcpy(mk + at * (size_t)w, pops[s]->mask + (size_t)idx[k] * (size_t)w,
                       (size_t)w * sizeof *mk);
                f1[at] = pops[s]->f1[idx[k]];
                f2[at] = pops[s]->f2[idx[k]];
            }
        }
        for (int s = 0; s < n; s++) {
            size_t at = (size_t)s * (size_t)m;
            eeg_pop_immigrate(pops[(s + 1) % n], mk + at * (size_t)w, f1 + at, f2 + at, cnt[s]);
        }
    }
    free(idx);
    free(cnt);
    free(mk);
    free(f1);
    free(f2);
}

/* one chunk for one global epoch. v2: the chunk's subpopulations are dealt round-robin to
 * the devices, which evolve them `local_every` generations at a time, with a local
 * migration over the whole chunk between blocks. v3: one subpopulation, one block. */
typedef struct worker worker;
static void evolve_chunk(worker *wk, int dev, eeg_pop **pops, int n, int epoch);

/* ---- the process-wide state ------------------------------------------------------------------ */

struct worker {
    const options *o;
    int rank, size, ndev;
    device dev[MAX_DEVICES];
    eeg_data data;
    eeg_fit *fit;
    int epochs;
    size_t pop_bytes;
    /* alone (rank 0 with size 1): the master's own queue */
    pthread_mutex_t lock;
    int next, epoch; /* next subpopulation to hand out in this epoch */
    eeg_pop *pops;   /* the master's: all N_Spop */
    eeg_pop **pp;    /* pointers to them, in index order */
};

static void evolve_chunk(worker *wk, int dev, eeg_pop **pops, int n, int epoch)
{
    const options *o = wk->o;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (o->v3) {
        for (int k = 0; k < n; k++)
            evolve(o, &wk->dev[dev], r, pops[k], epoch, o->global_every);
    } else {
        /* v2 on one device thread per chunk: with several devices the chunk's
         * subpopulations are dealt to them and evolved in parallel, then migrate */
        int blocks = o->global_every / o->local_every;
        for (int b = 0; b < blocks; b++) {
            int block = epoch * blocks + b;
            if (wk->ndev == 1) {
                for (int k = 0; k < n; k++)
                    evolve(o, &wk->dev[0], r, pops[k], block, o->local_every);
            } else {
#pragma omp parallel num_threads(wk->ndev)
                {
                    /* the team may be smaller than asked (OMP_DYNAMIC, thread limits):
                     * stride by its real size so every subpopulation is evolved */
                    int t = omp_get_thread_num(), team = omp_get_num_threads();
                    gsl_rng *rt = gsl_rng_alloc(gsl_rng_mt19937);
                    for (int k = t; k < n; k += team)
                        evolve(o, &wk->dev[t], rt, pops[k], block, o->local_every);
                    gsl_rng_free(rt);
                }
            }
            /* a local migration closes every block (N_Lm per epoch, as in the model) */
            phase_t ph = ph_begin(0, PH_LOCAL);
            ring_migration(pops, n, o->migrants);
            ph_end(ph);
        }
    }
    gsl_rng_free(r);
}

/* ---- messages ----------------------------------------------------------------------------------
 * request (worker → master, TAG_REQ): int32 {epoch, device, wanted, returned}, then the
 *   returned subpopulations (eeg_pop_pack each);
 * reply (master → worker, TAG_REPLY + device): int32 {epoch, count, 0, 0}, then count
 *   subpopulations. count 0: no work left for this thread in that epoch. */
typedef struct {
    int32_t epoch, dev, wanted, n;
} msg_hdr;

static unsigned char *msg_buf(size_t bytes)
{
    unsigned char *b = malloc(bytes);
    if (!b) {
        fprintf(stderr, "eeg-mofs: out of memory (%zu bytes for a message)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return b;
}

/* Waiting (--wait). Open MPI's blocking calls poll, so a rank waiting in MPI_Probe or a
 * collective keeps a core at work power; with `sleep` a rank tests for the message and
 * sleeps between tests (20 us, doubling to 1 ms: at most 1 ms late), so a node whose ranks
 * wait idles, as eq. 9 of Escobar et al. assumes. */
static void nap(long *ns)
{
    struct timespec ts = {0, *ns};
    nanosleep(&ts, NULL);
    *ns = *ns >= 500000 ? 1000000 : *ns * 2; /* 20, 40, ... 640 us, then 1 ms */
}

static void wait_msg(const options *o, int src, int tag, MPI_Status *st)
{
    if (o->spin) {
        MPI_Probe(src, tag, MPI_COMM_WORLD, st);
        return;
    }
    long ns = 20000;
    for (;;) {
        int flag = 0;
        MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, st);
        if (flag) return;
        nap(&ns);
    }
}

/* completes a request (the collectives are all non-blocking ones): MPI_Wait with --wait
 * spin, else test and nap */
static void wait_req(const options *o, MPI_Request *rq)
{
    if (o->spin) {
        MPI_Wait(rq, MPI_STATUS_IGNORE);
        return;
    }
    long ns = 20000;
    for (;;) {
        int flag = 0;
        MPI_Test(rq, &flag, MPI_STATUS_IGNORE);
        if (flag) return;
        nap(&ns);
    }
}

/* the END signal: a broadcast from rank 0 */
static void bcast_end(const options *o, int *end_signal)
{
    MPI_Request rq;
    MPI_Ibcast(end_signal, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq);
    wait_req(o, &rq);
}

static void send_pops(worker *wk, int dest, int tag, msg_hdr h, eeg_pop **pops)
{
    size_t bytes = sizeof h + (size_t)h.n * wk->pop_bytes;
    unsigned char *b = msg_buf(bytes);
    memcpy(b, &h, sizeof h);
    for (int k = 0; k < h.n; k++)
        eeg_pop_pack(pops[k], b + sizeof h + (size_t)k * wk->pop_bytes);
    MPI_Send(b, (int)bytes, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
    free(b);
}

/* receives one message with a header and subpopulations into pops (allocated by the
 * caller, at least h.n of them; with `by_id` into pops[id]) */
static msg_hdr recv_pops(worker *wk, int src, int tag, eeg_pop *pops, int cap, int by_id,
                         MPI_Status *st)
{
    MPI_Status probe;
    wait_msg(wk->o, src, tag, &probe);
    int bytes;
    MPI_Get_count(&probe, MPI_BYTE, &bytes);
    unsigned char *b = msg_buf((size_t)bytes);
    MPI_Recv(b, bytes, MPI_BYTE, probe.MPI_SOURCE, probe.MPI_TAG, MPI_COMM_WORLD, st);
    msg_hdr h;
    memcpy(&h, b, sizeof h);
    if ((size_t)bytes != sizeof h + (size_t)h.n * wk->pop_bytes || h.n > cap) {
        fprintf(stderr, "eeg-mofs: rank %d: malformed message from rank %d (%d bytes)\n", wk->rank,
                probe.MPI_SOURCE, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int k = 0; k < h.n; k++) {
        const unsigned char *src_b = b + sizeof h + (size_t)k * wk->pop_bytes;
        int32_t id;
        memcpy(&id, src_b + sizeof(int32_t), sizeof id); /* pop header: magic, id, … */
        eeg_pop *dst = by_id ? (id >= 0 && id < cap ? &pops[id] : NULL) : &pops[k];
        if (!dst || eeg_pop_unpack(dst, src_b, wk->pop_bytes) != 0) {
            fprintf(stderr, "eeg-mofs: rank %d: bad subpopulation from rank %d\n", wk->rank,
                    probe.MPI_SOURCE);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    free(b);
    return h;
}

/* ---- the master ------------------------------------------------------------------------------ */

static void global_step(worker *wk, int *global_front)
{
    const options *o = wk->o;
    phase_t ph = ph_begin(0, PH_GLOBAL);
    eeg_pop **pp = malloc((size_t)o->subpops * sizeof *pp);
    for (int s = 0; s < o->subpops; s++)
        pp[s] = &wk->pops[s];
    ring_migration(pp, o->subpops, o->migrants);
    free(pp);
    /* non-dominated sorting of all N (Algorithm 1 line 9/26): the size of the global front */
    int n = o->individuals, m = n / o->subpops;
    double *f1 = malloc((size_t)n * sizeof *f1), *f2 = malloc((size_t)n * sizeof *f2);
    int *rank = malloc((size_t)n * sizeof *rank);
    for (int s = 0; s < o->subpops; s++) {
        memcpy(f1 + (size_t)s * (size_t)m, wk->pops[s].f1, (size_t)m * sizeof *f1);
        memcpy(f2 + (size_t)s * (size_t)m, wk->pops[s].f2, (size_t)m * sizeof *f2);
    }
    eeg_nds(f1, f2, n, rank);
    int front = 0;
    for (int i = 0; i < n; i++)
        front += rank[i] == 0;
    *global_front = front;
    free(f1);
    free(f2);
    free(rank);
    ph_end(ph);
}

static void master(worker *wk, const int *ndev_of)
{
    const options *o = wk->o;
    const int S = o->subpops, E = wk->epochs;
    /* done[r * MAX_DEVICES + t]: the last epoch thread t of rank r was told is over */
    int *done = malloc((size_t)wk->size * MAX_DEVICES * sizeof *done);
    for (int i = 0; i < wk->size * MAX_DEVICES; i++)
        done[i] = -1;
    msg_hdr *pend = malloc((size_t)wk->size * MAX_DEVICES * sizeof *pend);
    int *pend_src = malloc((size_t)wk->size * MAX_DEVICES * sizeof *pend_src), npend = 0;
    eeg_pop **out = malloc((size_t)S * sizeof *out);

    for (int e = 0; e < E; e++) {
        phase_t ph = ph_begin(0, PH_DIST);
        int next = 0, away = 0;
        /* answers one request of this epoch */
#define SERVE(src, h)                                                                              \
    do {                                                                                           \
        int cnt_ = S - next < (h).wanted ? S - next : (h).wanted;                                  \
        for (int k_ = 0; k_ < cnt_; k_++)                                                          \
            out[k_] = &wk->pops[next + k_];                                                        \
        send_pops(wk, (src), TAG_REPLY + (h).dev, (msg_hdr){e, cnt_, 0, cnt_}, out);               \
        next += cnt_;                                                                              \
        away += cnt_;                                                                              \
        if (cnt_ == 0) done[(src)*MAX_DEVICES + (h).dev] = e;                                      \
    } while (0)
        int held = npend;
        npend = 0;
        for (int k = 0; k < held; k++)
            SERVE(pend_src[k], pend[k]);
        while (next < S || away > 0) {
            MPI_Status st;
            msg_hdr h = recv_pops(wk, MPI_ANY_SOURCE, TAG_REQ, wk->pops, S, 1, &st);
            away -= h.n;
            if (h.epoch < e) { /* a straggler of an epoch already over */
                send_pops(wk, st.MPI_SOURCE, TAG_REPLY + h.dev, (msg_hdr){h.epoch, 0, 0, 0}, NULL);
                done[st.MPI_SOURCE * MAX_DEVICES + h.dev] = h.epoch;
            } else if (h.epoch == e) {
                SERVE(st.MPI_SOURCE, h);
            } else {
                pend[npend] = h;
                pend_src[npend++] = st.MPI_SOURCE;
            }
        }
#undef SERVE
        ph_end(ph);
        int gf;
        global_step(wk, &gf);
        if (!o->quiet)
            printf("epoch %d/%d: generation %d, global front %d of %d individuals\n", e + 1, E,
                   (e + 1) * o->global_every, gf, o->individuals);
        fflush(stdout);
    }
    /* every worker thread must hear that the last epoch is over before the END signal */
    phase_t ph = ph_begin(0, PH_DIST);
    for (;;) {
        int missing = 0;
        for (int r = 1; r < wk->size; r++)
            for (int t = 0; t < ndev_of[r]; t++)
                missing += done[r * MAX_DEVICES + t] < E - 1;
        if (!missing) break;
        MPI_Status st;
        msg_hdr h = recv_pops(wk, MPI_ANY_SOURCE, TAG_REQ, wk->pops, S, 1, &st);
        send_pops(wk, st.MPI_SOURCE, TAG_REPLY + h.dev, (msg_hdr){h.epoch, 0, 0, 0}, NULL);
        done[st.MPI_SOURCE * MAX_DEVICES + h.dev] = h.epoch;
    }
    int end_signal = 1;
    bcast_end(o, &end_signal);
    ph_end(ph);
    free(done);
    free(pend);
    free(pend_src);
    free(out);
}

/* ---- workers ------------------------------------------------------------------------------------
 */

typedef struct {
    worker *wk;
    int dev;
} thread_arg;

/* one requesting thread of a worker: v3 one per device, v2 one per process */
static void *worker_thread(void *arg)
{
    thread_arg *a = arg;
    worker *wk = a->wk;
    const options *o = wk->o;
    int cap = o->v3 ? o->chunk : o->chunk * wk->ndev;
    eeg_pop *pops = calloc((size_t)cap, sizeof *pops);
    eeg_pop **pp = malloc((size_t)cap * sizeof *pp);
    for (int k = 0; k < cap; k++) {
        eeg_pop_alloc(&pops[k], -1, o->individuals / o->subpops, o->features);
        pp[k] = &pops[k];
    }
    int held = 0, waiting = 0;
    for (int e = 0; e < wk->epochs;) {
        phase_t ph = ph_begin(a->dev, waiting ? PH_WAIT : PH_DIST);
        send_pops(wk, 0, TAG_REQ, (msg_hdr){e, a->dev, cap, held}, pp);
        held = 0;
        msg_hdr h = recv_pops(wk, 0, TAG_REPLY + a->dev, pops, cap, 0, MPI_STATUS_IGNORE);
        ph_end(ph);
        if (h.n == 0) { /* nothing left in epoch e: wait for the next */
            e++;
            waiting = 1;
            continue;
        }
        waiting = 0;
        held = h.n;
        evolve_chunk(wk, a->dev, pp, held, e);
    }
    for (int k = 0; k < cap; k++)
        eeg_pop_free(&pops[k]);
    free(pops);
    free(pp);
    return NULL;
}

static void worker_run(worker *wk)
{
    int threads = wk->o->v3 ? wk->ndev : 1;
    thread_arg args[MAX_DEVICES];
    pthread_t tid[MAX_DEVICES];
    for (int t = 0; t < threads; t++)
        args[t] = (thread_arg){wk, t};
    if (threads == 1) {
        worker_thread(&args[0]);
    } else {
        for (int t = 0; t < threads; t++)
            pthread_create(&tid[t], NULL, worker_thread, &args[t]);
        for (int t = 0; t < threads; t++)
            pthread_join(tid[t], NULL);
    }
    int end_signal = 0;
    bcast_end(wk->o, &end_signal);
}

/* ---- alone: the master does everything ------------------------------------------------------ */

static void *alone_thread(void *arg)
{
    thread_arg *a = arg;
    worker *wk = a->wk;
    const options *o = wk->o;
    for (;;) {
        pthread_mutex_lock(&wk->lock);
        int first = wk->next, n = o->subpops - first < o->chunk ? o->subpops - first : o->chunk;
        wk->next += n;
        pthread_mutex_unlock(&wk->lock);
        if (n <= 0) break;
        evolve_chunk(wk, a->dev, wk->pp + first, n, wk->epoch);
    }
    return NULL;
}

static void alone(worker *wk)
{
    const options *o = wk->o;
    for (int e = 0; e < wk->epochs; e++) {
        wk->epoch = e;
        if (o->v3) {
            wk->next = 0;
            thread_arg args[MAX_DEVICES];
            pthread_t tid[MAX_DEVICES];
            for (int t = 0; t < wk->ndev; t++)
                args[t] = (thread_arg){wk, t};
            if (wk->ndev == 1) {
                alone_thread(&args[0]);
            } else {
                for (int t = 0; t < wk->ndev; t++)
                    pthread_create(&tid[t], NULL, alone_thread, &args[t]);
                for (int t = 0; t < wk->ndev; t++)
                    pthread_join(tid[t], NULL);
            }
        } else {
            int size = o->chunk * wk->ndev;
            for (int first = 0; first < o->subpops; first += size)
                evolve_chunk(wk, 0, wk->pp + first,
                             o->subpops - first < size ? o->subpops - first : size, e);
        }
        int gf;
        global_step(wk, &gf);
        if (!o->quiet)
            printf("epoch %d/%d: generation %d, global front %d of %d individuals\n", e + 1,
                   wk->epochs, (e + 1) * o->global_every, gf, o->individuals);
        fflush(stdout);
    }
}

/* ---- the end: merge, hypervolume, summary ------------------------------------------------------
 */

typedef struct {
    int points;
    double hv, mean_features, informative_fraction;
} result;

static int merge(worker *wk, result *res)
{
    const options *o = wk->o;
    phase_t ph = ph_begin(0, PH_MERGE);
    int n = o->individuals, m = n / o->subpops, w = wk->pops[0].words;
    double *f1 = malloc((size_t)n * sizeof *f1), *f2 = malloc((size_t)n * sizeof *f2);
    int *idx = malloc((size_t)n * sizeof *idx);
    if (!f1 || !f2 || !idx) {
        free(f1);
        free(f2);
        free(idx);
        return -1;
    }
    for (int s = 0; s < o->subpops; s++) {
        memcpy(f1 + (size_t)s * (size_t)m, wk->pops[s].f1, (size_t)m * sizeof *f1);
        memcpy(f2 + (size_t)s * (size_t)m, wk->pops[s].f2, (size_t)m * sizeof *f2);
    }
    res->hv = eeg_hv(f1, f2, n);
    res->points = eeg_front(f1, f2, n, idx);
    FILE *ff = NULL;
    if (o->front_file && !(ff = fopen(o->front_file, "w")))
        fprintf(stderr, "eeg-mofs: cannot write %s: %s\n", o->front_file, strerror(errno));
    if (ff) fprintf(ff, "# f1 (intra, min)\tf2 (inter, max)\tfeatures\tinformative\n");
    long sel = 0, inf = 0;
    for (int k = 0; k < res->points; k++) {
        const uint64_t *mk = wk->pops[idx[k] / m].mask + (size_t)(idx[k] % m) * (size_t)w;
        int d = 0, di = 0;
        for (int f = 0; f < o->features; f++)
            if (mk[f / 64] >> (f % 64) & 1) {
                d++;
                di += wk->data.informative[f];
            }
        sel += d;
        inf += di;
        if (ff) fprintf(ff, "%.9f\t%.9f\t%d\t%d\n", f1[idx[k]], f2[idx[k]], d, di);
    }
    int bad_file = ff && fclose(ff) != 0;
    res->mean_features = res->points ? (double)sel / res->points : 0.0;
    res->informative_fraction = sel ? (double)inf / (double)sel : 0.0;
    free(f1);
    free(f2);
    free(idx);
    ph_end(ph);
    return bad_file || (o->front_file && !ff) ? -1 : 0;
}

static void summary(worker *wk, double wall, const result *res)
{
    const options *o = wk->o;
    double mine[PH_N + 1] = {0}, sum[PH_N + 1], max[PH_N + 1];
    for (int t = 0; t < MAX_DEVICES; t++)
        for (int p = 0; p < PH_N; p++)
            mine[p] += ph_time[t][p];
    long ev = 0;
    for (int d = 0; d < wk->ndev; d++)
        ev += wk->dev[d].evaluated;
    mine[PH_N] = (double)ev;
    MPI_Request rq[2];
    MPI_Ireduce(mine, sum, PH_N + 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Ireduce(mine, max, PH_N + 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD, &rq[1]);
    wait_req(o, &rq[0]);
    wait_req(o, &rq[1]);
    if (wk->rank != 0) return;
    printf("\neeg-mofs %s: %d rank%s, N = %d individuals in %d subpopulations of %d, "
           "%d generations (global migration every %d",
           o->v3 ? "v3" : "v2", wk->size, wk->size > 1 ? "s" : "", o->individuals, o->subpops,
           o->individuals / o->subpops, o->generations, o->global_every);
    if (!o->v3) printf(", local every %d", o->local_every);
    printf("), data %d patterns x %d features (%d informative), seed %llu\n", o->patterns,
           o->features, o->informative, o->seed);
    printf("%-18s %14s %16s\n", "phase", "total s", "max per rank s");
    for (int p = 0; p < PH_N; p++)
        if (sum[p] > 0) printf("%-18s %14.3f %16.3f\n", ph_name[p], sum[p], max[p]);
    printf("wall time: %.3f s\n", wall);
    printf("evaluated: %.0f individuals, %.1f individuals/s\n", sum[PH_N],
           wall > 0 ? sum[PH_N] / wall : 0.0);
    printf("front: %d points, %.1f features each on average, informative fraction %.3f "
           "(data: %.3f)\n",
           res->points, res->mean_features, res->informative_fraction,
           (double)o->informative / o->features);
    printf("hypervolume: %.6f\n", res->hv);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    options o;
    if (rank != 0) { /* one rank reports bad usage */
        FILE *null = fopen("/dev/null", "w");
        if (null) stderr = null;
    }
    int pr = parse(argc, argv, &o);
    if (pr) {
        MPI_Finalize();
        return pr == 1 ? 0 : 2;
    }
    double t0 = now_s();
    worker wk = {.o = &o, .rank = rank, .size = size};
    pthread_mutex_init(&wk.lock, NULL);
    wk.epochs = o.generations / o.global_every;
    wk.pop_bytes = eeg_pop_bytes(o.individuals / o.subpops, o.features);
    omp_set_max_active_levels(2);

    phase_t ph = ph_begin(0, PH_INIT);
    if (eeg_data_synth(&wk.data, o.patterns, o.features, o.classes, o.informative, o.separation,
                       o.seed) != 0 ||
        !(wk.fit = eeg_fit_new(&wk.data, o.clusters, o.kmeans_iters, o.seed))) {
        fprintf(stderr, "eeg-mofs: rank %d: cannot build the data set (out of memory?)\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int gpus = eeg_gpu_count();
    if (o.gpus >= 0 && o.gpus < gpus) gpus = o.gpus;
    if (gpus > MAX_DEVICES - 1) gpus = MAX_DEVICES - 1;
    wk.ndev = 1;
    wk.dev[0] = (device){.index = 0, .fit = wk.fit, .threads = o.threads};
    for (int g = 0; g < gpus; g++) {
        const char *why = NULL;
        eeg_gpu *gp = eeg_gpu_new(wk.fit, g, &why);
        if (!gp) {
            fprintf(stderr, "eeg-mofs: rank %d: GPU %d not used: %s\n", rank, g, why);
            continue;
        }
        wk.dev[wk.ndev] = (device){.index = wk.ndev, .gpu = gp, .fit = wk.fit};
        wk.ndev++;
    }
    /* v3 workers call MPI from several threads */
    if (wk.ndev > 1 && o.v3 && size > 1 && provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr,
                "eeg-mofs: rank %d: the MPI library gives no MPI_THREAD_MULTIPLE: CPU only\n",
                rank);
        for (int d = 1; d < wk.ndev; d++)
            eeg_gpu_free(wk.dev[d].gpu);
        wk.ndev = 1;
    }
    int *ndev_of = calloc((size_t)size, sizeof *ndev_of);
    int my_threads = o.v3 ? wk.ndev : 1;
    MPI_Request grq;
    MPI_Igather(&my_threads, 1, MPI_INT, ndev_of, 1, MPI_INT, 0, MPI_COMM_WORLD, &grq);
    wait_req(&o, &grq);
    if (rank == 0) {
        wk.pops = calloc((size_t)o.subpops, sizeof *wk.pops);
        wk.pp = calloc((size_t)o.subpops, sizeof *wk.pp);
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        for (int s = 0; s < o.subpops; s++) {
            if (eeg_pop_alloc(&wk.pops[s], s, o.individuals / o.subpops, o.features) != 0) {
                fprintf(stderr, "eeg-mofs: out of memory for the population\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            eeg_rng_seed(r, o.seed, s, -1);
            eeg_pop_init(&wk.pops[s], o.par.density, r);
            wk.pp[s] = &wk.pops[s];
        }
        gsl_rng_free(r);
        if (!o.quiet) {
            printf("eeg-mofs %s: %d rank%s; rank 0: %d device%s (CPU: %d threads",
                   o.v3 ? "v3" : "v2", size, size > 1 ? "s" : "", wk.ndev, wk.ndev > 1 ? "s" : "",
                   o.threads > 0 ? o.threads : omp_get_max_threads());
            for (int d = 1; d < wk.ndev; d++)
                printf("; GPU %s", eeg_gpu_name(wk.dev[d].gpu));
            printf(")\n");
            fflush(stdout);
        }
    }
    /* the run's parameters, for the models (mw fit reads them from the run store) */
    if (rank == 0) {
        mw_counter("eeg version", o.v3 ? 3 : 2);
        mw_counter("eeg individuals", o.individuals);
        mw_counter("eeg subpops", o.subpops);
        mw_counter("eeg generations", o.generations);
        mw_counter("eeg global every", o.global_every);
        mw_counter("eeg local every", o.v3 ? 0 : o.local_every);
        mw_counter("eeg chunk", o.chunk);
        mw_counter("eeg ranks", size);
    }
    mw_counter("eeg cpu threads", o.threads > 0 ? o.threads : omp_get_max_threads());
    mw_counter("eeg gpus", wk.ndev - 1);
    ph_end(ph);

    if (size == 1)
        alone(&wk);
    else if (rank == 0)
        master(&wk, ndev_of);
    else
        worker_run(&wk);

    int status = 0;
    result res = {0};
    if (rank == 0 && merge(&wk, &res) != 0) status = 1;
    for (int d = 0; d < wk.ndev; d++)
        if (wk.dev[d].eval_failed) {
            fprintf(stderr, "eeg-mofs: rank %d: GPU evaluations failed (worst fitness used)\n",
                    rank);
            status = 1;
        }
    summary(&wk, now_s() - t0, &res);

    for (int d = 1; d < wk.ndev; d++)
        eeg_gpu_free(wk.dev[d].gpu);
    if (wk.pops) {
        for (int s = 0; s < o.subpops; s++)
            eeg_pop_free(&wk.pops[s]);
        free(wk.pops);
        free(wk.pp);
    }
    free(ndev_of);
    eeg_fit_free(wk.fit);
    eeg_data_free(&wk.data);
    MPI_Finalize();
    return status;
}
