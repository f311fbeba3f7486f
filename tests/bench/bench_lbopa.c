/* bench_lbopa — LBOPA (models/lbopa.c, Khaleghzadeh et al. Algorithm 1) run time against the
 * number of devices k = 2 ... 256, printed as a Markdown section for docs/performance.md; with it
 * PARTITION (Algorithm 2) and LBOPA-TE (Algorithm 3) on the same front. Devices: linear time
 * functions (speeds 1 ... 10 units/s) and, in a second row per k, piecewise-linear ones
 * through 8 points; b from 0.1 to 5 J/unit; n = 10^6 units; P_S = 100 W. Times are the best
 * of 5 runs (at least 20 ms of repetitions each). The paper bounds LBOPA by O(k^3 log2 n)
 * (Theorem 2); here each of the k balanced times is one Brent solve over O(k) inverses, so
 * O(k^2) per front. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lbopa.h"

#define NPTS 8

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double px[256][NPTS], pt[256][NPTS];

static void make(mw_lbopa_device *d, int k, int pwl)
{
    unsigned s = 2024;
    for (int i = 0; i < k; i++) {
        s = s * 1103515245u + 12345u;
        double speed = 1 + 9.0 * ((s >> 8) % 10000) / 10000.0;
        s = s * 1103515245u + 12345u;
        d[i] = (mw_lbopa_device){0};
        d[i].b_J_per_unit = 0.1 + 4.9 * ((s >> 8) % 10000) / 10000.0;
        if (!pwl) {
            d[i].kind = MW_LBOPA_F_LINEAR;
            d[i].a_s_per_unit = 1 / speed;
            continue;
        }
        double t = 0;
        for (int j = 0; j < NPTS; j++) { /* slower and faster stretches */
            px[i][j] = 1e5 * (j + 1);
            t += 1e5 / (speed * (j % 2 ? 0.7 : 1.3));
            pt[i][j] = t;
        }
        d[i].kind = MW_LBOPA_F_PWL;
        d[i].x_units = px[i];
        d[i].t_s = pt[i];
        d[i].npoints = NPTS;
    }
}

/* seconds per call of what: 0 front, 1 PARTITION (at the front's middle time), 2 LBOPA-TE */
static double time_it(const mw_lbopa_device *d, int k, int what)
{
    double best = INFINITY, x[256];
    mw_pareto_front f;
    if (mw_lbopa_front(d, k, 1e6, &f)) return NAN;
    double tm = 0.5 * (f.t_s[0] + f.t_s[f.nseg]);
    for (int rep = 0; rep < 5; rep++) {
        long calls = 0;
        double t0 = now_s(), t1;
        do {
            if (what == 0) {
                mw_pareto_front g;
                if (mw_lbopa_front(d, k, 1e6, &g)) return NAN;
                mw_pareto_front_free(&g);
            } else if (what == 1) {
                if (mw_lbopa_partition(&f, tm, x)) return NAN;
            } else {
                mw_pareto_te te;
                if (mw_lbopa_te(&f, 100, &te)) return NAN;
                mw_pareto_te_free(&te);
            }
            calls++;
            t1 = now_s();
        } while (t1 - t0 < 0.02);
        best = fmin(best, (t1 - t0) / (double)calls);
    }
    mw_pareto_front_free(&f);
    return best;
}

int main(void)
{
    static mw_lbopa_device d[256];
    printf("## LBOPA: Pareto front of a workload split (Khaleghzadeh et al. 2023)\n\n");
    printf(
        "`tests/bench/bench_lbopa.c`: the front of n = 10^6 units over k devices (LBOPA),\n"
        "the split for one time on it (PARTITION) and its total-energy part at P_S = 100 W\n"
        "(LBOPA-TE); linear time functions, or piecewise-linear through 8 points; best of 5.\n\n");
    printf("| k | f | LBOPA | PARTITION | LBOPA-TE | segments |\n");
    printf("|---:|---|---:|---:|---:|---:|\n");
    for (int k = 2; k <= 256; k *= 2)
        for (int pwl = 0; pwl < 2; pwl++) {
            make(d, k, pwl);
            mw_pareto_front f;
            if (mw_lbopa_front(d, k, 1e6, &f)) {
                printf("| %d | %s | failed | | | |\n", k, pwl ? "pwl" : "linear");
                continue;
            }
            int nseg = f.nseg;
            mw_pareto_front_free(&f);
            double a = time_it(d, k, 0), b = time_it(d, k, 1), c = time_it(d, k, 2);
            printf("| %d | %s | %.3g µs | %.3g µs | %.3g µs | %d |\n", k, pwl ? "pwl" : "linear",
                   1e6 * a, 1e6 * b, 1e6 * c, nseg);
        }
    return 0;
}
