/* dvfs — energy and time of a message-passing program with iterations under CPU frequency
 * scaling, and the choice of each node's frequency, after Fanfakh's PhD thesis (2016,
 * chapters 1-4). Equation and algorithm numbers below are the thesis's.
 *
 * Design. A problem is what one measured iteration (or one whole run) at the highest
 * frequency gives per node i: its computation time T_cp_i and communication time T_cm_i
 * (seconds; T_cm includes the slack spent waiting for slower nodes), its dynamic power P_d_i
 * and static power P_s_i (watts), its cluster (grid models) and its frequency gears (GHz,
 * highest first). A configuration is one scaling factor per node, S_i = F_max_i / F_i >= 1
 * (eq. 1.11). Only computation scales with S (communication does not, [34]); dynamic power
 * scales as S^-3 and dynamic energy as S^-2 (eq. 1.14, 1.16); static power is constant.
 * mw_dvfs_time_s / mw_dvfs_energy_j predict one model's time and energy for any vector S;
 * mw_dvfs_evaluate adds the normalised figures the selection maximises: P_Norm = T_old /
 * T_new, E_Norm = E_new / E_old (old = every node at its F_max), distance = 100 (P_Norm -
 * E_Norm), saving % = 100 (1 - E_Norm), degradation % = 100 (1 - T_old / T_new), so that
 * distance = saving - degradation, and EDP = E_Norm (1 + D_Norm), D_Norm = 1 - P_Norm
 * (eq. 4.8, 4.9). The selectors return a gear index per node (0 = F_max) and its evaluation:
 * MaxDist (Algorithms 3, 5, 7, 8), EDP with MaxDist's search path, Rauber-Rünger's
 * closed-form optimum (eq. 2.3, 2.2, 2.9), and a brute-force oracle over every gear
 * combination (small cases only). The selectors allocate O(n) work space; no function ever
 * returns NaN: bad input gives -1 (or a negative value where documented). GSL is not needed
 * here (every optimum is a closed form or a finite search); the tests check eq. 2.3 against
 * GSL's Brent minimiser.
 *
 * Reading decisions (also in docs/models.md, "DVFS (Fanfakh)"):
 *  - T_old is the model's own time with every S_i = 1 (eq. 3.11 for all synchronous models;
 *    eq. 3.4 prints max_i(T_cp_i + T_cm_i), which is the same number when every node's
 *    T_cp_i + T_cm_i is the iteration's length, as measured times of a synchronous program
 *    are), so that P_Norm = E_Norm = 1 and distance 0 at F_max;
 *  - eq. 4.3 as printed multiplies the static power by S^-2 too; static power does not scale
 *    and is drawn over the node's whole (scaled) computation time, so the asynchronous model
 *    implements S^-2 P_d T_cp + P_s S T_cp;
 *  - "F_i - F_diff" is one gear down in the node's table, so tables need not be evenly
 *    spaced (cpufreq's are not always);
 *  - "the slowest node" of Algorithms 5 and 7 is every node whose predicted computation time
 *    T_cp_i S_i equals the largest (ties all count); when every other node is already at its
 *    lowest gear the slowest ones step down too, so the walk always reaches the bottom. */
#ifndef MW_DVFS_H
#define MW_DVFS_H
#include <stddef.h>

/* A node's frequency gears, GHz, strictly decreasing: ghz[0] is F_max. */
typedef struct {
    const double *ghz;
    size_t n;
} mw_dvfs_gears;

typedef enum {
    /* synchronous iterations on one (heterogeneous) cluster, eq. 3.1 (time), 3.2 (energy);
       with every S_i equal it is the homogeneous model, eq. 2.4 and 2.13 */
    MW_DVFS_HETERO,
    /* synchronous iterations on a grid of clusters, eq. 3.8 (time), 3.9 (energy): the
       communication term is the smallest T_cm of the cluster holding the node with the
       largest T_cp at F_max (the thesis's "slowest cluster h") */
    MW_DVFS_GRID,
    /* hybrid: synchronous inside a cluster, asynchronous between clusters, eq. 4.2 (time:
       the mean over clusters of the cluster's max T_cp S + min T_cm), 4.4 (energy: static
       power over the node's own cluster's time), 4.6, 4.7 (at F_max) */
    MW_DVFS_HYBRID,
    /* fully asynchronous, communication overlapped: eq. 4.1 (time: mean of T_cp S over all
       nodes), eq. 4.3 corrected (energy: S^-2 P_d T_cp + P_s S T_cp per node) */
    MW_DVFS_ASYNC,
} mw_dvfs_model;

typedef struct {
    size_t n;                   /* nodes, >= 1 */
    const double *tcp_s;        /* computation time at F_max, s, >= 0 */
    const double *tcm_s;        /* communication time (slack included) at F_max, s, >= 0 */
    const double *pd_w;         /* dynamic power at F_max, W, >= 0 (eq. 3.15) */
    const double *ps_w;         /* static power, W, >= 0 */
    const size_t *cluster;      /* cluster of each node, < nclusters; NULL: one cluster */
    size_t nclusters;           /* 0 is taken as 1 */
    const mw_dvfs_gears *gears; /* n tables (they may share their arrays) */
} mw_dvfs_problem;

typedef struct {
    double time_s, energy_j;         /* predicted with the configuration */
    double time_old_s, energy_old_j; /* every node at F_max */
    double p_norm, e_norm;           /* T_old / T_new, E_new / E_old (eq. 3.3, 3.4) */
    double saving_pct;               /* 100 (1 - E_Norm) */
    double degradation_pct;          /* 100 (1 - T_old / T_new) */
    double distance_pct;             /* 100 (P_Norm - E_Norm) = saving - degradation */
    double edp;                      /* E_Norm (1 + D_Norm), eq. 4.8, 4.9 */
} mw_dvfs_eval;

typedef enum { MW_DVFS_MAXDIST, MW_DVFS_EDP } mw_dvfs_objective;

/* 0 when the problem is usable (finite, non-negative times and powers, some computation,
   E_old > 0, valid clusters, gear tables strictly decreasing and positive), else -1 with the
   reason in err. */
int mw_dvfs_check(const mw_dvfs_problem *p, char *err, size_t len);

/* Predicted time (s) and energy (J) of the model for scaling factors s[0..n) (each >= 1 is
   meaningful; any positive value is computed). -1 on bad input. */
double mw_dvfs_time_s(const mw_dvfs_problem *p, mw_dvfs_model m, const double *s);
double mw_dvfs_energy_j(const mw_dvfs_problem *p, mw_dvfs_model m, const double *s);
/* Both, normalised against every node at F_max. 0, or -1 on bad input. */
int mw_dvfs_evaluate(const mw_dvfs_problem *p, mw_dvfs_model m, const double *s, mw_dvfs_eval *e);
/* The same for gear indices (0 = F_max). */
int mw_dvfs_evaluate_gears(const mw_dvfs_problem *p, mw_dvfs_model m, const size_t *gear,
                           mw_dvfs_eval *e);

/* The homogeneous model with one scaling factor s for all nodes. Eq. 2.4: T_new =
   T_MaxCompOld s + T_MinCommOld. Eq. 2.13: E_new = sum_i s^-2 P_d T_cp_i + P_s (T_MaxCompOld
   s + T_MinCommOld) N. */
double mw_dvfs_homo_time_s(double tcp_max_s, double tcm_min_s, double s);
double mw_dvfs_homo_energy_j(const double *tcp_s, size_t n, double tcm_min_s, double pd_w,
                             double ps_w, double s);

/* Rauber and Rünger's model, tasks of times t_s[0..n) (T_1 = the largest; no sorting is
   needed), power P_dyn, P_static, the slowest task's scaling factor s1. Eq. 1.19: E = P_dyn
   s1^-2 (T_1 + sum_{i>=2} T_i^3 / T_1^2) + P_static T_1 s1 N. Eq. 2.3: the s1 minimising it,
   cbrt((2/N) (P_dyn / P_static) (1 + sum_{i>=2} T_i^3 / T_1^3)). -1 on bad input (P_static
   must be > 0 for 2.3). */
double mw_dvfs_rr_energy_j(const double *t_s, size_t n, double pdyn_w, double pstatic_w, double s1);
double mw_dvfs_rr_sopt(const double *t_s, size_t n, double pdyn_w, double pstatic_w);

/* The gear of table g nearest to ghz (the higher one on a tie). */
size_t mw_dvfs_nearest_gear(const mw_dvfs_gears *g, double ghz);

/* Algorithm 3 (homogeneous cluster): one scaling factor for every node, tried at every gear
   of the common table, model eq. 2.4/2.13 (the thesis's section 2.8 model; P_d, P_s are the
   nodes' means); keeps the gear of the largest P_Norm - E_Norm (> 0, else F_max). Exact over
   uniform configurations. Every node must have the same table. 0, or -1. */
int mw_dvfs_select_homogeneous(const mw_dvfs_problem *p, size_t *gear, mw_dvfs_eval *e);

/* MaxDist: Algorithm 5 for MW_DVFS_HETERO, 7 for MW_DVFS_GRID, 8 for MW_DVFS_HYBRID and
   MW_DVFS_ASYNC. Start at F_i = F_max_i / S_cp_i, S_cp_i = max T_cp / T_cp_i (eq. 3.6, 3.7,
   3.13, 3.14), rounded to the nearest gear, one gear higher where possible; then step down one
   gear at a time (5, 7: every node but the slowest; 8: every node), evaluating each step and
   keeping the largest distance (> 0, else every node at F_max); 7 and 8 stop at the first
   step with a negative distance. O(F N) steps of O(N). gear[0..n), e: the choice and its
   evaluation. 0, or -1 on bad input. */
int mw_dvfs_select_maxdist(const mw_dvfs_problem *p, mw_dvfs_model m, size_t *gear,
                           mw_dvfs_eval *e);
/* Spiliopoulos et al.'s EDP governor as the thesis adapts it (section 3.4.3, eq. 4.8): the
   same start and downward walk, minimising E_Norm (1 + D_Norm) (1 at F_max), to the bottom
   (no early stop). */
int mw_dvfs_select_edp(const mw_dvfs_problem *p, mw_dvfs_model m, size_t *gear, mw_dvfs_eval *e);
/* Rauber and Rünger (R_E, section 2.7.3): s1 = eq. 2.3 on the computation times T_cp_i with
   P_dyn, P_static the nodes' means, clamped to >= 1; S_i = s1 T_1 / T_cp_i (eq. 2.2); F_i =
   F_max_i / S_i (eq. 2.9) rounded to the nearest gear; evaluated with model m. Needs some
   static power. 0, or -1. */
int mw_dvfs_select_rr(const mw_dvfs_problem *p, mw_dvfs_model m, size_t *gear, mw_dvfs_eval *e);

/* Brute force: every combination of gears (prod_i gears[i].n of them, at most max_combos),
   the best by the objective (ties: the first in odometer order, node 0 fastest-varying, F_max
   first). 0, -1 on bad input, -2 when there are more than max_combos combinations. */
int mw_dvfs_oracle(const mw_dvfs_problem *p, mw_dvfs_model m, mw_dvfs_objective obj,
                   unsigned long long max_combos, size_t *gear, mw_dvfs_eval *e);
#endif
