/* stats — see stats.h. The tests of Escobar et al. Table 6 and Student-t intervals.
 *
 * Ranks: the pooled samples are ordered with gsl_sort_index and tied values get the mean of
 * their ranks; every run of t ties adds t³ - t to the tie sum used by the corrections.
 *
 * Kolmogorov–Smirnov: D = max |F_a - F_b| over the pooled values. Exact p (no ties and
 * na·nb <= 10,000): under H0 every interleaving of the two samples is equally likely, i.e.
 * every monotone lattice path from (0,0) to (na,nb); P(D < d) is the fraction of paths that
 * stay strictly inside |i/na - j/nb| < d, counted by the standard recursion (paths into (i,
 * j) = paths into (i-1, j) + paths into (i, j-1)), scaled at every row so that the counts,
 * which reach C(na+nb, na), never overflow (the form of R's psmirnov2x). Otherwise the
 * Kolmogorov distribution at λ = D sqrt(na nb / (na + nb)) (no finite-sample correction, as
 * R's ks.test(exact = FALSE)): Q(λ) = 2 Σ (-1)^(k-1) exp(-2 k² λ²) for λ >= 1, and 1 -
 * sqrt(2π)/λ Σ exp(-(2k-1)² π² / (8 λ²)) below, where that alternating series converges
 * slowly. GSL has neither, so these two sums are written out here.
 *
 * Mann–Whitney: U of a = (rank sum of a) - na(na+1)/2. Exact p (no ties, na, nb < 50, as R's
 * wilcox.test): the number of interleavings with each U, by the recursion N(i, j, u) = N(i-1,
 * j, u - j) + N(i, j-1, u) over the sizes (doubles: the counts stay exact up to 2^53 and are
 * only summed), p = min(1, 2 P(U <= u)) or 2 P(U >= u) on U's side of na nb / 2. Otherwise
 * the normal approximation: z = (U - na nb/2 ∓ 1/2) / σ, σ² = na nb/12 ((N+1) - Σ(t³-t) /
 * (N(N-1))), the 1/2 a continuity correction towards the mean; p = 2 Φ(-|z|)
 * (gsl_cdf_ugaussian_Q).
 *
 * Kruskal–Wallis: H = (12 / (N(N+1)) Σ R_i²/n_i - 3(N+1)) / (1 - Σ(t³-t)/(N³-N)), p =
 * gsl_cdf_chisq_Q(H, k - 1). When every value is the same the statistic is 0/0: reported
 * as H = 0, p = 1 (no evidence of a difference), as the Mann–Whitney σ = 0 case is.
 *
 * Student t: mean ± t_{(1+level)/2, n-1} s / sqrt(n), t from gsl_cdf_tdist_Pinv. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

#define KS_EXACT_MAX 10000  /* na * nb at most, for the exact KS p */
#define MW_EXACT_BELOW 50   /* both sizes under this, for the exact Mann-Whitney p */
#define KOLMOGOROV_TERMS 64 /* terms of either series; both have converged long before */

static int finite_all(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

static void test_clear(mw_test *t)
{
    memset(t, 0, sizeof *t);
}

/* Mid-ranks (1-based) of x[0..n) into rank[], tie sum Σ(t³ - t) into *ties. 0 or -1. */
static int midranks(const double *x, size_t n, double *rank, double *ties)
{
    size_t *p = malloc(n * sizeof *p);
    if (!p) return -1;
    gsl_sort_index(p, x, 1, n);
    *ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && x[p[j]] == x[p[i]])
            j++;
        double r = 0.5 * (double)(i + 1 + j); /* mean of ranks i+1 .. j */
        for (size_t k = i; k < j; k++)
            rank[p[k]] = r;
        double t = (double)(j - i);
        *ties += t * t * t - t;
        i = j;
    }
    free(p);
    return 0;
}

/* ---- Kolmogorov–Smirnov --------------------------------------------------------------- */

double mw_stats_kolmogorov_q(double lambda)
{
    if (!(lambda > 0)) return 1;
    if (lambda < 1) {
        double z = -(M_PI * M_PI / 8) / (lambda * lambda), s = 0;
        for (int k = 1; k < 2 * KOLMOGOROV_TERMS; k += 2)
            s += exp((double)k * k * z);
        double p = 1 - sqrt(2 * M_PI) / lambda * s;
        return p < 0 ? 0 : p > 1 ? 1 : p;
    }
    double z = -2 * lambda * lambda, s = 0, sign = 1;
    for (int k = 1; k <= KOLMOGOROV_TERMS; k++) {
        s += sign * exp(z * k * k);
        sign = -sign;
    }
    double p = 2 * s;
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* P(D < d) for sizes m, n under H0 without ties (lattice paths, see the top). */
static double ks_exact_below(double d, size_t m, size_t n)
{
    if (m > n) {
        size_t t = m;
        m = n;
        n = t;
    }
    double md = (double)m, nd = (double)n;
    /* D takes values k/(m n): a path point is outside when |i/m - j/n| >= d, i.e. when
     * |i n - j m| >= d m n, compared on the integer lattice with a margin for d's rounding */
    double q = (0.5 + floor(d * md * nd - 1e-7)) / (md * nd);
    double *u = malloc((n + 1) * sizeof *u);
    if (!u) return NAN;
    for (size_t j = 0; j <= n; j++)
        u[j] = ((double)j / nd > q) ? 0 : 1;
    for (size_t i = 1; i <= m; i++) {
        double w = (double)i / (double)(i + n); /* the row's scale: C(i+n, n) / C(i-1+n, n) */
        u[0] = ((double)i / md > q) ? 0 : w * u[0];
        for (size_t j = 1; j <= n; j++)
            u[j] = fabs((double)i / md - (double)j / nd) > q ? 0 : w * u[j] + u[j - 1];
    }
    double r = u[n];
    free(u);
    return r;
}

int mw_stats_ks2(const double *a, size_t na, const double *b, size_t nb, mw_test *t)
{
    test_clear(t);
    if (!na || !nb || !a || !b || !finite_all(a, na) || !finite_all(b, nb)) return -1;
    double *sa = malloc(na * sizeof *sa), *sb = malloc(nb * sizeof *sb);
    if (!sa || !sb) {
        free(sa);
        free(sb);
        return -1;
    }
    memcpy(sa, a, na * sizeof *sa);
    memcpy(sb, b, nb * sizeof *sb);
    gsl_sort(sa, 1, na);
    gsl_sort(sb, 1, nb);
    int ties = 0;
    for (size_t i = 1; i < na; i++)
        ties |= sa[i] == sa[i - 1];
    for (size_t j = 1; j < nb; j++)
        ties |= sb[j] == sb[j - 1];
    /* walk the pooled values in order; at each distinct value take every sample equal to it
     * from both sides, then compare the two ECDFs (integers: |i nb - j na| / (na nb)) */
    size_t i = 0, j = 0;
    double dmax = 0;
    while (i < na || j < nb) {
        double v = i < na && (j >= nb || sa[i] <= sb[j]) ? sa[i] : sb[j];
        if (i < na && j < nb && sa[i] == sb[j]) ties = 1;
        while (i < na && sa[i] == v)
            i++;
        while (j < nb && sb[j] == v)
            j++;
        double diff = fabs((double)i * (double)nb - (double)j * (double)na);
        if (diff > dmax) dmax = diff;
    }
    free(sa);
    free(sb);
    double d = dmax / ((double)na * (double)nb);
    t->statistic = d;
    if (!ties && (double)na * (double)nb <= KS_EXACT_MAX) {
        double below = ks_exact_below(d, na, nb);
        if (isnan(below)) return -1;
        double p = 1 - below;
        t->p = p < 0 ? 0 : p > 1 ? 1 : p;
        t->exact = 1;
    } else {
        double ne = (double)na * (double)nb / ((double)na + (double)nb);
        t->p = mw_stats_kolmogorov_q(d * sqrt(ne));
    }
    return 0;
}

/* ---- Mann–Whitney ---------------------------------------------------------------------- */

/* P(U <= u) for sizes m, n without ties, by counting interleavings. NAN on no memory. */
static double mw_exact_cdf(double u, size_t m, size_t n)
{
    size_t umax = m * n;
    /* cnt[j][v]: interleavings of i a's and j b's whose U (pairs b < a) is v; row i built
     * from row i-1: the last element is an a (above all j b's: U + j) or a b. */
    size_t w = umax + 1;
    double *prev = calloc((n + 1) * w, sizeof *prev), *cur = calloc((n + 1) * w, sizeof *cur);
    if (!prev || !cur) {
        free(prev);
        free(cur);
        return NAN;
    }
    for (size_t j = 0; j <= n; j++) /* i = 0: only b's, U = 0 */
        prev[j * w] = 1;
    for (size_t i = 1; i <= m; i++) {
        memset(cur, 0, (n + 1) * w * sizeof *cur);
        cur[0] = 1; /* j = 0: only a's */
        for (size_t j = 1; j <= n; j++)
            for (size_t v = 0; v <= i * j; v++)
                cur[j * w + v] = (v >= j ? prev[j * w + v - j] : 0) + cur[(j - 1) * w + v];
        double *s = prev;
        prev = cur;
        cur = s;
    }
    double below = 0, all = 0;
    for (size_t v = 0; v <= umax; v++) {
        all += prev[n * w + v];
        if ((double)v <= u + 1e-9) below += prev[n * w + v];
    }
    free(prev);
    free(cur);
    return below / all;
}

int mw_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, mw_test *t)
{
    test_clear(t);
    if (!na || !nb || !a || !b || !finite_all(a, na) || !finite_all(b, nb)) return -1;
    size_t n = na + nb;
    double *x = malloc(n * sizeof *x), *rank = malloc(n * sizeof *rank), ties;
    if (!x || !rank ||
        (memcpy(x, a, na * sizeof *x), memcpy(x + na, b, nb * sizeof *x),
         midranks(x, n, rank, &ties))) {
        free(x);
        free(rank);
        return -1;
    }
    double ra = 0;
    for (size_t i = 0; i < na; i++)
        ra += rank[i];
    free(x);
    free(rank);
    double m = (double)na, k = (double)nb, N = (double)n;
    double u = ra - m * (m + 1) / 2;
    t->statistic = u;
    if (ties == 0 && na < MW_EXACT_BELOW && nb < MW_EXACT_BELOW) {
        double p = u > m * k / 2 ? 1 - mw_exact_cdf(u - 1, na, nb) : mw_exact_cdf(u, na, nb);
        if (isnan(p)) return -1;
        p *= 2;
        t->p = p > 1 ? 1 : p;
        t->exact = 1;
        return 0;
    }
    double var = m * k / 12 * ((N + 1) - ties / (N * (N - 1)));
    double z = u - m * k / 2;
    if (!(var > 0)) { /* every value the same */
        t->p = 1;
        return 0;
    }
    double corr = z > 0 ? 0.5 : z < 0 ? -0.5 : 0;
    z = (z - corr) / sqrt(var);
    double p = 2 * gsl_cdf_ugaussian_Q(fabs(z));
    t->p = p > 1 ? 1 : p;
    return 0;
}

/* ---- Kruskal–Wallis -------------------------------------------------------------------- */

int mw_stats_kruskal_wallis(const double *const *groups, const size_t *sizes, size_t k, mw_test *t)
{
    test_clear(t);
    if (k < 2 || !groups || !sizes) return -1;
    size_t n = 0;
    for (size_t g = 0; g < k; g++) {
        if (!sizes[g] || !groups[g] || !finite_all(groups[g], sizes[g])) return -1;
        n += sizes[g];
    }
    double *x = malloc(n * sizeof *x), *rank = malloc(n * sizeof *rank), ties;
    if (!x || !rank) {
        free(x);
        free(rank);
        return -1;
    }
    for (size_t g = 0, o = 0; g < k; o += sizes[g], g++)
        memcpy(x + o, groups[g], sizes[g] * sizeof *x);
    if (midranks(x, n, rank, &ties)) {
        free(x);
        free(rank);
        return -1;
    }
    double N = (double)n, s = 0;
    for (size_t g = 0, o = 0; g < k; o += sizes[g], g++) {
        double r = 0;
        for (size_t i = 0; i < sizes[g]; i++)
            r += rank[o + i];
        s += r * r / (double)sizes[g];
    }
    free(x);
    free(rank);
    t->df = (double)(k - 1);
    double corr = 1 - ties / (N * N * N - N);
    if (!(corr > 0)) { /* every value the same */
        t->statistic = 0;
        t->p = 1;
        return 0;
    }
    double h = (12 / (N * (N + 1)) * s - 3 * (N + 1)) / corr;
    t->statistic = h > 0 ? h : 0; /* -1e-15 from round-off when the groups are alike */
    t->p = gsl_cdf_chisq_Q(t->statistic, t->df);
    return 0;
}

/* ---- Student t interval ---------------------------------------------------------------- */

int mw_stats_mean_ci(const double *x, size_t n, double level, double *mean, double *lo, double *hi)
{
    if (n < 2 || !x || !(level > 0 && level < 1) || !finite_all(x, n)) return -1;
    double m = gsl_stats_mean(x, 1, n), sd = gsl_stats_sd_m(x, 1, n, m);
    double half = gsl_cdf_tdist_Pinv(0.5 + level / 2, (double)(n - 1)) * sd / sqrt((double)n);
    *mean = m;
    *lo = m - half;
    *hi = m + half;
    return 0;
}
