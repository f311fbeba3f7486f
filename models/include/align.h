/* align — the alignment check: how far the meter's windows are off the host's timeline,
 * estimated from a load pattern the program left in its phases (docs/analysis.md,
 * "Alignment check").
 *
 * The expected power shape is the number of busy spans at each instant on the host's
 * timeline (1 while one rank is busy, 0 while idle). For a trial offset d, the shape's mean
 * over each window's [t0 - d, t1 - d] (exact, from the shape's running integral) is what the
 * window would read if the meter's timeline were d late; the estimate is the d that best
 * explains the measured powers by a straight line P = base + gain x shape mean, i.e. the
 * maximum of their Pearson correlation. A GSL FFT cross-correlation on a grid of 1 ms (or
 * coarser for runs over about 35 minutes) finds the peak's neighbourhood within +-2 s; the
 * exact correlation is then scanned at 1 ms around it and the maximum refined by a
 * parabola through the three best points. The uncertainty is the standard error of the
 * nonlinear least-squares fit, sigma_d^2 = s^2 / |g - proj(g on 1, x)|^2, where g is the
 * derivative of the fitted window powers with respect to d and s^2 the residual variance
 * (the curvature of the least-squares cost at its minimum), multiplied by the residuals'
 * integrated autocorrelation time (1 + 2 x the sum of their positive lag autocorrelations),
 * so that power that wanders where the pattern does not explain it widens the error.
 *
 * Significance: the same search (best correlation within +-max offset) is run with the
 * pattern shifted around the windows' span by ALIGN_SHIFTS (39) amounts, none within
 * 2 x max offset + 2 windows of the true position and each at least a window from the next
 * (a shorter span cannot be tested: "cannot tell"); p = (1 + shifted patterns matching at least
 * as well) / 40. An estimate is given only when p <= MW_ALIGN_P_MAX (no shifted pattern
 * matched as well); otherwise "cannot tell" (MW_ALIGN_NOT_SIGNIFICANT): a weak pattern, or one
 * that repeats within the search range, matches shifted copies of itself as well as the
 * truth. Nor when another offset, away from the correlation peak (its width: where r is
 * above halfway between the peak and the median over the search range, plus a window), fits
 * about as well: better than any shifted pattern and its Fisher z within 3 x
 * sqrt(2 / (n - 3)) of the peak's (a pattern that
 * repeats within the search range fits every whole period). Drift: the same estimate, with its own test, on the first and on the last third
 * of the pattern (by edge times), offset difference over time; only when both ends are
 * significant on their own. Times are seconds from any common origin. */
#ifndef MW_ALIGN_H
#define MW_ALIGN_H
#include <stddef.h>

#define MW_ALIGN_MAX_OFFSET_S 2.0 /* default search range, +- s */
#define MW_ALIGN_STEP_S 0.001     /* the exact correlation's scan step */
/* Returns: no edge of the pattern within the windows, or too few windows */
#define MW_ALIGN_NO_PATTERN (-1)
/* Returns: no positive correlation, or its peak at the edge of the search range */
#define MW_ALIGN_NO_PEAK (-2)
/* Returns: cannot tell: the match is no better than with shifted patterns (or the windows
 * span too little time to test it); the fit is filled in, but is no estimate */
#define MW_ALIGN_NOT_SIGNIFICANT (-3)
#define MW_ALIGN_P_MAX 0.03 /* p of 1/40: no shifted pattern matched as well */

/* One measured window on the meter's timeline (as stored), s, and its mean power. */
typedef struct {
    double t0_s, t1_s;
    double power_w;
} mw_align_window;

/* A busy span on the host's timeline, s; overlapping spans add up (two busy ranks = 2). */
typedef struct {
    double start_s, end_s;
} mw_align_span;

typedef struct {
    double offset_s;    /* positive: the meter's timeline is late (stamps events later) */
    double sigma_s;     /* one standard error of offset_s */
    double correlation; /* Pearson r of the window powers and the shifted shape */
    double base_w;      /* fitted power with the shape at 0, W */
    double gain_w;      /* fitted power per unit of shape (per busy span), W */
    double noise_w;     /* residual standard deviation of the fit, W */
    double time_s;      /* mean time of the edges the estimate used */
    size_t windows;     /* windows used */
    size_t edges;       /* changes of the shape within the windows' span */
    double tau;         /* the residuals' autocorrelation time (windows) widening sigma_s */
    int significant;    /* p_value <= MW_ALIGN_P_MAX */
    double p_value;     /* (1 + shifted patterns matching at least as well) / (1 + shifts) */
    double null_r;      /* the best correlation of any shifted pattern */
    size_t shifts;      /* shifted patterns tried (0: span too short for the test) */
    double peak_width_s;    /* width of the correlation peak (above halfway to the median) */
    double second_r;        /* the best correlation away from the peak (0: none) */
    double second_offset_s; /* ... and its offset */
} mw_align_fit;

typedef struct {
    mw_align_fit all; /* over every window */
    int have_drift;   /* head and tail estimated */
    mw_align_fit head, tail;
    double drift_ppm;       /* (tail - head offset) / (tail - head time) x 1e6; positive:
                               the meter's timeline runs fast */
    double drift_sigma_ppm; /* its standard error */
    char note[320];         /* why there is no estimate, or no drift */
} mw_align_result;

/* The offset over all windows and, when each third of the pattern has at least 4 edges,
 * at its head and tail (drift, when both are significant). Windows in any order, not
 * overlapping. max_offset_s <= 0: MW_ALIGN_MAX_OFFSET_S. Returns 0, MW_ALIGN_NO_PATTERN,
 * MW_ALIGN_NO_PEAK or MW_ALIGN_NOT_SIGNIFICANT (reason in out->note). No NaN is ever
 * written. */
int mw_align_estimate(const mw_align_window *w, size_t nw, const mw_align_span *busy, size_t nbusy,
                      double max_offset_s, mw_align_result *out);

/* The offset over the given windows only. Same returns; note gets the reason. */
int mw_align_offset(const mw_align_window *w, size_t nw, const mw_align_span *busy, size_t nbusy,
                    double max_offset_s, mw_align_fit *fit, char *note, size_t notelen);

/* Sort spans by start and merge those that overlap or touch, in place; drops empty ones.
 * Returns the new count (the union of one rank's busy phases). */
size_t mw_align_merge(mw_align_span *s, size_t n);
#endif
