/* bench_dvfs — run time of Fanfakh's frequency selection (models/dvfs.c) against the number
 * of nodes, printed as a Markdown section for docs/performance.md, next to the thesis's own
 * figures: Algorithm 3 (homogeneous) 1.52 us for 4 nodes and 6.65 us for 32 (section 2.6);
 * Algorithm 5 (heterogeneous) 0.04 ms for 4 nodes and 0.15 ms for 144 (section 3.3.5).
 * Platform: the thesis's Table 3.1, four node types in equal proportions (F_max 2.5 / 2.66 /
 * 2.9 / 3.4 GHz, 14 / 9 / 18 / 14 gears, P_d 20 / 25 / 30 / 35 W, P_s 20 % of P_d), the
 * computation time inversely proportional to the type's GFLOPS (40 / 50 / 60 / 70), the
 * slowest node's communication 30 % of its computation, the others' communication the slack
 * up to the iteration's end. Algorithm 3 runs on 18 gears 2.5-0.8 GHz (Table 2.1). Each figure
 * is the best of 5 means over repeated calls (at least 0.1 s each). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dvfs.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double type_ghz[4][18];
static const size_t type_n[4] = {14, 9, 18, 14};
static const double type_fmax[4] = {2.5, 2.66, 2.9, 3.4}, type_step[4] = {0.1, 0.133, 0.1, 0.133},
                    type_gflops[4] = {40, 50, 60, 70}, type_pd[4] = {20, 25, 30, 35};
static double homo_ghz[18];

typedef struct {
    size_t n;
    double *tcp, *tcm, *pd, *ps;
    mw_dvfs_gears *g, *gh;
    mw_dvfs_problem p, ph;
} platform;

static void make_platform(platform *pl, size_t n)
{
    pl->n = n;
    pl->tcp = malloc(n * sizeof(double));
    pl->tcm = malloc(n * sizeof(double));
    pl->pd = malloc(n * sizeof(double));
    pl->ps = malloc(n * sizeof(double));
    pl->g = malloc(n * sizeof(mw_dvfs_gears));
    pl->gh = malloc(n * sizeof(mw_dvfs_gears));
    double tmax = 100.0 / type_gflops[0], T = 1.3 * tmax;
    for (size_t i = 0; i < n; i++) {
        int t = (int)(i % 4);
        pl->tcp[i] = 100.0 / type_gflops[t];
        pl->tcm[i] = T - pl->tcp[i];
        pl->pd[i] = type_pd[t];
        pl->ps[i] = 0.2 * type_pd[t];
        pl->g[i] = (mw_dvfs_gears){type_ghz[t], type_n[t]};
        pl->gh[i] = (mw_dvfs_gears){homo_ghz, 18};
    }
    pl->p = (mw_dvfs_problem){n, pl->tcp, pl->tcm, pl->pd, pl->ps, NULL, 0, pl->g};
    pl->ph = pl->p;
    pl->ph.gears = pl->gh;
}

static void free_platform(platform *pl)
{
    free(pl->tcp), free(pl->tcm), free(pl->pd), free(pl->ps), free(pl->g), free(pl->gh);
}

enum { ALG3, ALG5, EDP, RR, ORACLE };

/* mean seconds per call, best of 5 */
static double time_alg(platform *pl, int alg, mw_dvfs_eval *e)
{
    size_t *gear = malloc(pl->n * sizeof *gear);
    double best = INFINITY;
    for (int rep = 0; rep < 5; rep++) {
        long calls = 0;
        double t0 = now_s(), t;
        do {
            switch (alg) {
            case ALG3:
                mw_dvfs_select_homogeneous(&pl->ph, gear, e);
                break;
            case ALG5:
                mw_dvfs_select_maxdist(&pl->p, MW_DVFS_HETERO, gear, e);
                break;
            case EDP:
                mw_dvfs_select_edp(&pl->p, MW_DVFS_HETERO, gear, e);
                break;
            case RR:
                mw_dvfs_select_rr(&pl->p, MW_DVFS_HETERO, gear, e);
                break;
            case ORACLE:
                mw_dvfs_oracle(&pl->p, MW_DVFS_HETERO, MW_DVFS_MAXDIST, 100000000ULL, gear, e);
                break;
            }
            calls++;
            t = now_s() - t0;
        } while (t < 0.1);
        if (t / (double)calls < best) best = t / (double)calls;
    }
    free(gear);
    return best;
}

int main(void)
{
    for (int t = 0; t < 4; t++)
        for (size_t k = 0; k < type_n[t]; k++)
            type_ghz[t][k] = type_fmax[t] - type_step[t] * (double)k;
    for (size_t k = 0; k < 18; k++)
        homo_ghz[k] = 2.5 - 0.1 * (double)k;

    printf("## DVFS frequency selection (Fanfakh 2016)\n\n");
    printf("`make bench` (tests/bench/bench_dvfs.c), on this machine (a shared, loaded VM: "
           "±20 %%). The thesis's Table 3.1 platform (four node types in equal proportions); "
           "time per call, best of 5 means. Thesis: Algorithm 3 1.52 µs (4 nodes), 6.65 µs (32); "
           "Algorithm 5 0.04 ms (4 nodes) to 0.15 ms (144), on its own hardware, in a "
           "simulated MPI program.\n\n");
    printf("| nodes | Alg. 3 homogeneous (µs) | thesis | Alg. 5 MaxDist (µs) | thesis | EDP (µs) | "
           "Rauber–Rünger (µs) | MaxDist distance (%%) | saving / degradation (%%) |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    static const size_t ns[] = {4, 8, 16, 32, 64, 128, 144};
    mw_dvfs_eval eo = {0}, md4 = {0};
    double oracle_s = 0, t5_4 = 1;
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        platform pl;
        make_platform(&pl, ns[k]);
        mw_dvfs_eval e3, e5, ee, er;
        double t3 = time_alg(&pl, ALG3, &e3), t5 = time_alg(&pl, ALG5, &e5),
               te = time_alg(&pl, EDP, &ee), tr = time_alg(&pl, RR, &er);
        const char *th3 = ns[k] == 4 ? "1.52" : ns[k] == 32 ? "6.65" : "";
        const char *th5 = ns[k] == 4 ? "40" : ns[k] == 144 ? "150" : "";
        printf("| %zu | %.2f | %s | %.2f | %s | %.2f | %.2f | %.2f | %.2f / %.2f |\n", ns[k],
               t3 * 1e6, th3, t5 * 1e6, th5, te * 1e6, tr * 1e6, e5.distance_pct, e5.saving_pct,
               e5.degradation_pct);
        if (ns[k] == 4) {
            oracle_s = time_alg(&pl, ORACLE, &eo);
            md4 = e5, t5_4 = t5;
        }
        free_platform(&pl);
    }
    printf("\nBrute force on the 4 nodes (14 × 9 × 18 × 14 = 31,752 combinations): %.2f ms, best "
           "distance %.2f %% against MaxDist's %.2f %% (%.0f× slower than MaxDist; the thesis: "
           "MaxDist found the brute force's answer on its small cases and was about 10× faster)."
           "\n\n",
           oracle_s * 1e3, eo.distance_pct, md4.distance_pct, oracle_s / t5_4);
    return 0;
}
