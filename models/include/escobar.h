/* escobar — the runtime and energy model of Escobar et al. (§5.2, eq. 3-9) for the
 * master-worker EEG feature selection (workloads/eeg, eeg-mofs), its parameters taken from
 * recorded runs, a least-squares fit of its time parameters to a sweep, and NRMSE.
 *
 * The model (docs/models.md, "Escobar runtime and energy model"):
 *   eq. 5  C_GPU = x (N / N_Spop) dN_Spop
 *   eq. 6  C_CPU = (1 - x) (N / N_Spop) dN_Spop
 *   eq. 7  T_chunk = N_Lm (g max(ceil(C_GPU / P_GPU) W_GPU/F_GPU,
 *                               ceil(C_CPU / P_CPU) W_CPU/F_CPU) + T_Lm)
 *   eq. 8  T_cluster = N_Gm (T_master + max_i T_i + T_com)
 *   eq. 9  E_i = Pow_i T_i + Pow_i^idle (T_cluster - T_i);
 *          E_SW = Pow_SW T_com + Pow_SW^idle (T_cluster - T_com); E = sum E_i + E_SW.
 * Reading decisions (docs/models.md, "Escobar runtime and energy model"): g = generations per
 * local epoch, N_Lm = local epochs per global epoch, N_Gm = global epochs; v3: N_Lm = 1, g =
 * generations per global epoch, T_Lm = 0. W/F is kept as one number per device, t = W/F, seconds
 * per individual. Several rounds: a global epoch hands out ceil(N_Spop / dN_Spop) chunks (the last
 * one possibly smaller) to the requesters as they become free (the workload's dynamic
 * distribution, simulated greedily: each chunk to the requester with the least busy time,
 * ties to the lowest index); a requester's T_i is the sum of eq. 7 over its chunks, so with
 * R equal requesters T_i = ceil(chunks / R) T_chunk: the saw-tooth over N_Spop. eq. 9 is
 * applied over the whole run: a node's busy time is N_Gm (its requesters' largest per-epoch
 * busy time, plus T_master on the master's node), T_com in E_SW is N_Gm T_com.
 *
 * Requesters ("workers" here) are what asks the master for work: in v2 one per worker rank
 * (dN_Spop = chunk x devices, x = GPUs / devices, P_GPU = GPUs), in v3 one per device thread
 * (dN_Spop = chunk, x = 0 for the CPU thread, 1 for a GPU thread with P_GPU = 1).
 *
 * Functions returning int give 0, or -1 with a message in err. No NaN is returned where a
 * number is promised, except mw_escobar_nrmse (NaN: undefined, the caller prints null).
 * The model against a set of runs (calibration, fit per version, NRMSE: what mw fit reports)
 * is escobar_study.h. */
#ifndef MW_ESCOBAR_H
#define MW_ESCOBAR_H
#include <stddef.h>

#define MW_ESCOBAR_MAX_WORKERS 128
#define MW_ESCOBAR_MAX_NODES 64
#define MW_ESCOBAR_NAME 64

/* One requester. */
typedef struct {
    int rank;                   /* MPI rank it runs on (for matching a calibration run) */
    char host[MW_ESCOBAR_NAME]; /* the host of that rank (the nodes it loads) */
    int gpu;                    /* v3: 1 for a GPU device thread, 0 for the CPU thread; v2: 0 */
    int delta_spop;             /* dN_Spop: subpopulations it asks for at a time */
    double x;                   /* share of its chunk evaluated on GPUs, [0, 1] */
    int p_cpu, p_gpu;           /* P_CPU: OpenMP threads; P_GPU: GPUs evaluating in parallel */
    double t_cpu_s;             /* W_CPU/F_CPU: one individual on one CPU thread, s */
    double t_gpu_s;             /* W_GPU/F_GPU: one individual on one GPU, s */
} mw_escobar_worker;

/* One powered element measured by a channel (a node). */
typedef struct {
    char name[MW_ESCOBAR_NAME]; /* the channel's name */
    char host[MW_ESCOBAR_NAME]; /* the host it measures, "" for none */
    int all;                    /* 1: measures every rank (a channel without a host);
                                   else it carries the workers with its host */
    int master;                 /* 1: the master's rank runs on it (or all) */
    double pow_w, pow_idle_w;   /* Pow_i, Pow_i^idle, W */
} mw_escobar_node;

typedef struct {
    int version;       /* 2 or 3 */
    int individuals;   /* N */
    int n_spop;        /* N_Spop */
    int g;             /* generations per local epoch (v3: per global epoch) */
    int n_lm;          /* N_Lm: local epochs per global epoch (v3: 1) */
    int n_gm;          /* N_Gm: global epochs */
    double t_master_s; /* T_master: the master's global migration, per global epoch, s */
    double t_com_s;    /* T_com: communication per global epoch, s */
    double t_lm_s;     /* T_Lm: one local migration, s (v3: 0) */
    int nworkers;
    mw_escobar_worker w[MW_ESCOBAR_MAX_WORKERS];
    int nnodes;
    mw_escobar_node node[MW_ESCOBAR_MAX_NODES];
    int has_switch;
    char switch_name[MW_ESCOBAR_NAME];
    double pow_sw_w, pow_sw_idle_w; /* Pow_SW, Pow_SW^idle, W */
} mw_escobar_params;

typedef struct {
    double t_cluster_s; /* eq. 8 */
    double t_epoch_s;   /* T_master + max_i T_i + T_com */
    double t_max_i_s;   /* max_i T_i: the busiest requester's time per global epoch */
    int chunks;         /* chunks per global epoch */
    int rounds;         /* most chunks any requester gets per global epoch */
    double busy_s[MW_ESCOBAR_MAX_NODES];   /* per node, busy time over the run (N_Gm T_i ...) */
    double e_node_j[MW_ESCOBAR_MAX_NODES]; /* eq. 9 per node, J */
    double e_switch_j;                     /* 0 without a switch */
    double energy_j;                       /* E */
} mw_escobar_prediction;

/* eq. 5-7: one chunk of `subpops` subpopulations on requester w, s (N_Lm local epochs). */
double mw_escobar_chunk_time_s(const mw_escobar_params *p, const mw_escobar_worker *w, int subpops);
/* Checks the parameters (counts >= 1, times >= 0 and finite, devices for the work given):
 * 0, or -1 naming the parameter. */
int mw_escobar_check(const mw_escobar_params *p, char *err, size_t errlen);
/* eq. 5-9 with the rounds of chunks described above. */
int mw_escobar_predict(const mw_escobar_params *p, mw_escobar_prediction *out, char *err,
                       size_t errlen);
/* The same without checking the times (structure must be valid: mw_escobar_check once):
 * for fitted parameters, which least squares may make negative. */
void mw_escobar_predict_raw(const mw_escobar_params *p, mw_escobar_prediction *out);

/* NRMSE = 1 - ||y - yhat|| / ||y - mean(y)|| (1: perfect; 0: no better than the mean).
 * NaN when n = 0 or every y is the same (undefined). */
double mw_escobar_nrmse(const double *y, const double *yhat, size_t n);

/* ---- least squares: the time parameters fitted to measured T_cluster of several runs ---- */

enum {
    MW_ESCOBAR_FIT_T_CPU, /* W_CPU/F_CPU, shared by every CPU */
    MW_ESCOBAR_FIT_T_GPU, /* W_GPU/F_GPU, shared by every GPU */
    MW_ESCOBAR_FIT_T_LM,  /* T_Lm (runs of v2 only) */
    MW_ESCOBAR_FIT_T_OVH, /* T_master + T_com per global epoch (only their sum is seen in
                             T_cluster; split in each run's own ratio, 1:1 when both 0) */
    MW_ESCOBAR_NFIT
};
extern const char *const mw_escobar_fit_names[MW_ESCOBAR_NFIT]; /* "t_cpu_s", ... */

typedef struct {
    int used[MW_ESCOBAR_NFIT]; /* the parameters the runs depend on (the others untouched) */
    double value[MW_ESCOBAR_NFIT];
    double se[MW_ESCOBAR_NFIT];                            /* standard error (when have_ci) */
    double ci_lo[MW_ESCOBAR_NFIT], ci_hi[MW_ESCOBAR_NFIT]; /* Student-t interval */
    int have_ci;      /* 0 when dof = 0 or the covariance is singular */
    int nparams, dof; /* fitted parameters, runs - parameters */
    double rss;       /* residual sum of squares, s^2 */
    int iterations;
    int converged; /* 0: stopped at the iteration limit (the figures are the last step's) */
} mw_escobar_fit;

/* Sets the fitted parameters theta[] (those with used[k]) into p: every worker's t_cpu_s /
 * t_gpu_s, t_lm_s (v2), t_master_s + t_com_s = theta[T_OVH] in p's own ratio. */
void mw_escobar_apply(mw_escobar_params *p, const double *theta, const int *used);

/* Fits theta to t_s[i] = T_cluster(runs[i]) by nonlinear least squares (GSL multifit_nlinear,
 * Levenberg-Marquardt; the model is piecewise linear in theta), starting from the runs' own
 * values (means; 1 ms where none). Covariance s^2 (J'J)^-1 with s^2 = rss / (n - p), the
 * interval value +- t_{(1+confidence)/2, n-p} se. Needs n >= the parameters used. */
int mw_escobar_fit_time(const mw_escobar_params *runs, const double *t_s, size_t n,
                        double confidence, mw_escobar_fit *out, char *err, size_t errlen);

/* ---- parameters from a recorded eeg-mofs run (the run store, docs/run-store.md) ---- */

typedef struct {
    char dir[512];
    mw_escobar_params p; /* structure always; times and powers as measured */
    int ranks, generations, global_every, local_every, chunk;
    /* which measured parameters the run gave (0: missing, see mw_escobar_from_run) */
    int have_t_cpu, have_t_gpu, have_t_master, have_t_lm;
    double t_measured_s; /* from the end of every rank's init to the end of the last global
                            migration: the N_Gm epochs eq. 8 models */
    double e_measured_j; /* every channel's energy over that span */
    double wall_s;       /* the recorded command's duration, s */
} mw_escobar_run;

/* Reads RUNDIR: the counters of rank 0 (eeg version, individuals, subpops, generations,
 * global every, local every, chunk, ranks) and of each rank (eeg cpu threads, eeg gpus)
 * give the structure; W/F per rank and device = evaluate time / ceil(individuals / P) over
 * its evaluate phases and their "eeg evaluated" counters; T_master = mean global migration
 * phase (rank 0); T_com = the workers' distribute phases per requester and global epoch;
 * T_Lm = mean local migration phase; per channel Pow and Pow^idle by the paper's kernel
 * density (levels.h: the higher and lower level; one level: both), a channel named like
 * switch_name (case-insensitive; NULL: "switch") is the switch. A missing structural counter
 * or no power samples is an error naming the parameter and how to get it; a missing time
 * parameter only clears its have_* flag. */
int mw_escobar_from_run(const char *rundir, const char *switch_name, mw_escobar_run *out, char *err,
                        size_t errlen);
#endif
