/* lbopa — bi-objective (time, energy) distribution of a workload of n units over k devices,
 * Khaleghzadeh, Fahad, Reddy Manumachu, Lastovetsky (2023): LBOPA (Algorithm 1) builds
 * the Pareto front of T(X) = max_i f_i(x_i) and E(X) = sum_i b_i x_i over the splits X with
 * sum_i x_i = n; PARTITION (Algorithm 2) gives the split for a time on it; LBOPA-TE
 * (Algorithm 3) keeps the part of it that is Pareto-optimal for time and total energy
 * E + P_S T. Units are in the names: x in work units (whatever the application splits:
 * individuals, matrix rows), time in s, energy in J, power in W.
 *
 * Time functions f_i: linear (f(x) = a x), piecewise-linear through measured points (x, t)
 * with f(0) = 0 and the last piece's slope beyond the last point, or a callback. All must be
 * continuous and strictly increasing (Theorem 1's condition). An idle device (x_i = 0) takes
 * no time: T(X) is the max over the devices with x_i > 0. Dynamic-energy functions are linear,
 * g_i(x) = b_i x with b_i > 0 (the case the paper solves exactly). Functions return 0, or
 * -1 for unusable input or no answer, writing no NaN. */
#ifndef MW_LBOPA_H
#define MW_LBOPA_H
#include <stddef.h>

typedef enum {
    MW_LBOPA_F_LINEAR,  /* f(x) = a_s_per_unit * x */
    MW_LBOPA_F_PWL,     /* through (0, 0) and (x_units[j], t_s[j]), both strictly increasing */
    MW_LBOPA_F_CALLBACK /* f_s(x, ctx): continuous, strictly increasing on x >= 0 */
} mw_lbopa_fkind;

typedef struct {
    mw_lbopa_fkind kind;
    double a_s_per_unit;
    const double *x_units, *t_s; /* PWL points, borrowed */
    size_t npoints;
    double (*f_s)(double x_units, void *ctx);
    void *ctx;
    double b_J_per_unit; /* g(x) = b x: dynamic energy per unit of work */
} mw_lbopa_device;

/* f_i(x), s. x < 0 is treated as 0. */
double mw_lbopa_f_s(const mw_lbopa_device *d, double x_units);
/* f_i^{-1}(t): the work the device does in t seconds (0 for t <= f(0)). Closed form for
 * linear and piecewise-linear f, Brent's method (GSL) for callbacks. */
int mw_lbopa_finv(const mw_lbopa_device *d, double t_s, double *x_units);
/* The same by Brent's method (gsl_root_fsolver_brent) whatever the kind. */
int mw_lbopa_finv_brent(const mw_lbopa_device *d, double t_s, double *x_units);
/* Checks a device: kind, a > 0, points strictly increasing and positive, b > 0, finite. */
int mw_lbopa_device_ok(const mw_lbopa_device *d);

/* Objectives of a split x (k values): T(X) (s) and E(X) (J). */
double mw_lbopa_T_s(const mw_lbopa_device *dev, int k, const double *x_units);
double mw_lbopa_E_J(const mw_lbopa_device *dev, int k, const double *x_units);

/* min over X (sum x = n) of max f_j(x_j) over the m devices dev[idx[0..m-1]] (Algorithm 1
 * line 4): the t with sum_j f_j^{-1}(t) = n, by Brent's method. */
int mw_lbopa_balance_s(const mw_lbopa_device *dev, const int *idx, int m, double n_units,
                       double *t_s);

/* The front in the (time, dynamic energy) plane: rank[r] is the device of rank r by b
 * decreasing (ties in input order); points (t_s[r], e_J[r]), r = 0..k-1, are Algorithm 1's
 * end-points: t_r the balanced time of ranks r..k-1, e_r = b_r n - sum_{j>r} (b_r - b_j)
 * f_j^{-1}(t_r). Segment s (0 <= s < nseg) joins points s and s+1; on it ranks < s get
 * nothing, rank s the rest, ranks > s work all the time: Pf(t) = b_s n - sum_{j>s}
 * (b_s - b_j) f_j^{-1}(t). nseg = k - 1 unless the last ranks share one b: then the trailing
 * segments would be flat (equal energy for more time, dominated) and are dropped. */
typedef struct {
    int k, nseg;
    double n_units;
    const mw_lbopa_device *dev; /* borrowed: must outlive the front */
    int *rank;
    double *t_s, *e_J;
} mw_pareto_front;

/* LBOPA (Algorithm 1). dev: k >= 1 devices; n_units > 0. */
int mw_lbopa_front(const mw_lbopa_device *dev, int k, double n_units, mw_pareto_front *out);
void mw_pareto_front_free(mw_pareto_front *f);
/* The segment holding t (the first at a shared end-point), or -1 outside [t_0, t_nseg]. */
int mw_pareto_segment(const mw_pareto_front *f, double t_s);
/* Pf(t), the least dynamic energy of a split finishing in exactly t. */
int mw_pareto_energy_J(const mw_pareto_front *f, double t_s, double *e_J);
/* The least time on the front with dynamic energy <= e_J (t_0 when e_J >= e_0; -1 below the
 * front's least energy). */
int mw_pareto_time_for_energy_s(const mw_pareto_front *f, double e_J, double *t_s);

/* PARTITION (Algorithm 2): the Pareto-optimal split x (k values, input order) with
 * T = t_s and E = Pf(t_s); -1 for t outside the front. */
int mw_lbopa_partition(const mw_pareto_front *f, double t_s, double *x_units);
/* The integer split closest to x in the Euclidean norm with the same sum n (x must sum to
 * the integer n within 1e-6): floor every x_i, then give the remaining units one each to the
 * largest fractional parts (ties: the lower b, then the lower index). Khaleghzadeh et al. §5.1. */
int mw_lbopa_round(const mw_lbopa_device *dev, int k, const double *x_units, long long n,
                   long long *xi);

/* LBOPA-TE (Algorithm 3): the part of the front that is Pareto-optimal for time and total
 * energy E + P_S t, as linear pieces in the (t, total energy) plane, from the performance-
 * optimal point (tmin_s, emax_J) on. Segments are first cut where some f_j^{-1} has a kink
 * (its profile's times), so that each piece is exactly linear (for callbacks: 64 pieces per
 * segment, an approximation). */
typedef struct {
    double t0_s, e0_J, t1_s, e1_J; /* total energy */
} mw_pareto_piece;
typedef struct {
    double ps_W, tmin_s, emax_J;
    mw_pareto_piece *piece;
    int npieces;
} mw_pareto_te;
int mw_lbopa_te(const mw_pareto_front *f, double ps_W, mw_pareto_te *out);
void mw_pareto_te_free(mw_pareto_te *te);
/* 1 when the time t is on LBOPA-TE's front (the point tmin or inside a kept piece; a piece
 * whose left end is a cut is open there), else 0. */
int mw_pareto_te_contains(const mw_pareto_te *te, double t_s);

/* The least time on LBOPA-TE's front with total energy <= e_J: tmin_s when e_J >= emax_J,
 * else within the first piece reaching e_J (linear along it); -1 below its least total
 * energy. */
int mw_pareto_te_time_for_energy_s(const mw_pareto_te *te, double e_J, double *t_s);
/* LBOPA-TE's least total energy: the end of its last piece, or emax_J without pieces. */
double mw_pareto_te_least_energy_J(const mw_pareto_te *te);

/* Profile builder (Khaleghzadeh et al. §6.1): measurements of each device alone at several workload
 * sizes become f_i (piecewise-linear through the mean time at each size) and g_i (b_i, the
 * least-squares slope through the origin of dynamic energy vs size). device = -1: all k
 * devices together, each given x_units (for the additivity check). energy_J is the total
 * energy over time_s; dynamic = total - ps_W * time_s. */
typedef struct {
    int device;
    double x_units, time_s, energy_J;
} mw_lbopa_meas;
typedef struct {
    int k;
    mw_lbopa_device *dev; /* k devices, kind PWL, their points in storage */
    double *storage;
} mw_lbopa_profile;
/* err gets a one-line reason on -1 (a device without measurements, times not increasing
 * with size, b <= 0, ...). */
int mw_lbopa_profile_build(const mw_lbopa_meas *m, size_t nm, int k, double ps_W,
                           mw_lbopa_profile *out, char *err, size_t errlen);
void mw_lbopa_profile_free(mw_lbopa_profile *p);
/* Additivity (Khaleghzadeh et al. §6.1): at every size where all devices were measured alone and
 * together, |sum_i E_dyn,i - E_dyn,together| / E_dyn,together (means over repetitions);
 * mean_rel the mean over those sizes, nsizes their number. -1 when there is none. The paper
 * accepts the profiles as additive at a mean difference within its precision, 2.5 %. */
int mw_lbopa_additivity(const mw_lbopa_meas *m, size_t nm, int k, double ps_W, double *mean_rel,
                        size_t *nsizes);
#endif
