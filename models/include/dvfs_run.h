/* dvfs_run — a recorded MPI run as the inputs of the DVFS models (dvfs.h), for mw dvfs.
 *
 * The run is taken as one iteration measured at the highest frequency (docs/models.md,
 * "DVFS (Fanfakh)"):
 *  - each rank's times come from its phases (all kinds but mw, mark, counter; a rank is one
 *    (rank, host) pair): its span runs from the end of MPI_Init (else its first phase's
 *    start) to the start of MPI_Finalize (else its last phase's end); T_cm is the length of
 *    the union of its communication phases (kinds comm, wait and mpi, and a program's own
 *    waiting phases, mw_phase_class.h; MPI_Init/MPI_Finalize excepted) inside the span:
 *    waits at barriers are the slack the model counts as communication; T_cp is the rest;
 *  - each rank's dynamic power P_d by eq. 3.15: for each channel measuring it, the largest
 *    window power minus the smallest over the whole run, shared equally among the ranks that
 *    channel measures (models/include/energy.h's rule, the one mw analyze uses).
 * mw_dvfs_phase_class(), mw_dvfs_rank_times(), the P_d functions and the problem's assembly
 * are numbers in, numbers out; mw_dvfs_run_read() is the small reader that feeds them from
 * a run store through its read API (mw_run.h). */
#ifndef MW_DVFS_RUN_H
#define MW_DVFS_RUN_H
#include <stddef.h>
#include <stdint.h>

#include "dvfs.h"
#include "mw_store.h"

/* What a phase is to the rank times (flags). */
enum {
    MW_DVFS_PHASE_COMM = 1,     /* communication or waiting (slack) */
    MW_DVFS_PHASE_INIT = 2,     /* MPI_Init or MPI_Init_thread: the span starts at its end */
    MW_DVFS_PHASE_FINALIZE = 4, /* MPI_Finalize: the span ends at its start */
};
unsigned mw_dvfs_phase_class(const char *kind, const char *name);

typedef struct {
    int64_t start_ns, end_ns;
    unsigned cls; /* MW_DVFS_PHASE_* */
} mw_dvfs_phase;

/* One rank's computation and communication time (s) from its phases, in any order. Both are
 * 0 when the span is empty. */
void mw_dvfs_rank_times(const mw_dvfs_phase *ph, size_t n, double *tcp_s, double *tcm_s);

typedef struct {
    int rank;
    char *host;
    double tcp_s, tcm_s; /* at the highest frequency, s */
    double pd_w, ps_w;   /* dynamic and static power, W */
    int pd_given;        /* pd_w was given (mw_dvfs_run_set_pd), not measured */
} mw_dvfs_rank;

typedef struct {
    int channel;
    char *name, *host;   /* host NULL: the channel measures no one host */
    double min_w, max_w; /* the smallest and largest window power over the run, W */
    size_t samples;      /* its windows */
    size_t nranks;       /* ranks it measures (set by mw_dvfs_run_measured_pd) */
} mw_dvfs_channel;

typedef struct {
    mw_dvfs_rank *ranks; /* by rank, then host */
    size_t nranks;
    mw_dvfs_channel *chans; /* by channel */
    size_t nchans;
} mw_dvfs_run;

/* Read the channels with their power range and the ranks with their times from a store
 * (the caller may hold a snapshot, mw_run.h). 0, or -1 with mw_store_error(s) set; run is
 * then partly filled (free it). */
int mw_dvfs_run_read(mw_store *s, mw_dvfs_run *run);
void mw_dvfs_run_free(mw_dvfs_run *run);

/* Give P_d = pd_w to the ranks named by node: a rank number (when node is a decimal
 * integer) or a host name. Returns how many ranks got it. */
size_t mw_dvfs_run_set_pd(mw_dvfs_run *run, const char *node, double pd_w);

/* P_d of every rank without a given one, eq. 3.15 from the channels. 0, or -1 when a rank
 * has no channel with samples that measures it: *unmeasured is its index. */
int mw_dvfs_run_measured_pd(mw_dvfs_run *run, size_t *unmeasured);

/* What mw_dvfs_run_powers() found wrong. */
typedef enum {
    MW_DVFS_PD_OK,
    MW_DVFS_PD_NEGATIVE,   /* the spec is one number, below 0 */
    MW_DVFS_PD_NOT_NODE_W, /* a token is not NODE=W with a number W >= 0 */
    MW_DVFS_PD_NO_NODE,    /* no rank or host NODE in the run */
    MW_DVFS_PD_UNMEASURED, /* a rank without a given P_d that no channel with samples measures */
} mw_dvfs_pd_status;
/* Every rank's P_d from a spec (mw dvfs --pd): NULL, every rank measured (eq. 3.15); "W",
 * every rank W; "NODE=W,...", those ranks W (mw_dvfs_run_set_pd) and the others measured.
 * Numbers are plain decimal (mw_num.h), W from 0 to MW_DVFS_MAX_PD_W. On an error, spec[*at .. *at
 * + *len) is the token at fault (the NODE alone for MW_DVFS_PD_NO_NODE), or *at the index of the
 * unmeasured rank. */
mw_dvfs_pd_status mw_dvfs_run_powers(mw_dvfs_run *run, const char *spec, size_t *at, size_t *len);

/* A gear table ghz[0..n) as dvfs.h wants it: highest first, each frequency once. Returns
 * the new n. */
size_t mw_dvfs_gears_sort(double *ghz, size_t n);

/* The model's problem for the run (set each rank's ps_w first): one node per rank with its
 * times and powers, one cluster, every node with the gear table ghz[0..ngears). The arrays
 * are malloc'd; mw_dvfs_run_problem_free() frees them. */
void mw_dvfs_run_problem(const mw_dvfs_run *run, const double *ghz, size_t ngears,
                         mw_dvfs_problem *p);
void mw_dvfs_run_problem_free(mw_dvfs_problem *p);

/* The selectors mw dvfs compares, as bits of `which`, in this order. */
enum { MW_DVFS_BY_MAXDIST = 1, MW_DVFS_BY_EDP = 2, MW_DVFS_BY_RR = 4, MW_DVFS_BY_ORACLE = 8 };
typedef struct {
    int ok;         /* the selector gave a choice (RR: needs static power > 0) */
    int too_many;   /* the oracle: more than max_combos combinations, not tried */
    size_t *gear;   /* per node, 0 = F_max (malloc'd, p->n; free it) */
    mw_dvfs_eval e; /* the choice's evaluation */
} mw_dvfs_choice;
/* Every selector of `which` on a checked problem with model m (the oracle maximising the
 * distance over at most max_combos combinations) into out[0..4) (maxdist, edp, rr,
 * oracle; the others: ok 0), and every node at F_max evaluated into *base. */
void mw_dvfs_choose(const mw_dvfs_problem *p, mw_dvfs_model m, unsigned which,
                    unsigned long long max_combos, mw_dvfs_eval *base, mw_dvfs_choice out[4]);

/* ---- the gear table and mw dvfs's defaults (shared by mw dvfs and mw plot --kind dvfs) ---- */

#define MW_DVFS_MAX_GEARS 256 /* gears of a table, at most */
#define MW_DVFS_MAX_PD_W 1e6  /* --pd, --ps: a megawatt per rank is past any meter */
/* this machine's cpufreq table (kHz); $MW_CPUFREQ_FILE names another file (tests) */
#define MW_DVFS_CPUFREQ_FILE "/sys/devices/system/cpu/cpu0/cpufreq/scaling_available_frequencies"
#define MW_DVFS_PS_FRACTION 0.20             /* P_s = 0.20 P_d unless told (the thesis's runs) */
#define MW_DVFS_ORACLE_MAX_COMBOS 1000000ULL /* the oracle tries at most so many combinations */

/* The gear table of mw dvfs: list (--freqs: GHz, comma-separated, each 0 < f <= 100) or,
 * when list is NULL, the cpufreq table (kHz) of MW_CPUFREQ_FILE's path or the default;
 * sorted highest first, each frequency once (mw_dvfs_gears_sort). ghz has room for
 * MW_DVFS_MAX_GEARS. 0 with *n gears (0 only for a list of commas alone) and where they came
 * from in source ("--freqs" or the file's path); -1 with the reason in err: "--freqs needs
 * a list of GHz (2.5,2.2,1.8)" (list empty), "--freqs: 'TOKEN' is not a frequency in GHz
 * (0 < f <= 100, at most 256)" or "no frequency table: give the available frequencies with
 * --freqs GHz,GHz,... (PATH is empty|not there)". */
int mw_dvfs_gears_load(const char *list, double *ghz, size_t *n, char *source, size_t srclen,
                       char *err, size_t errlen);
#endif
