/* mwb-dgemm — dense floating point: C = A B for n x n doubles, cache-blocked, on all cores
 * (OpenMP), no BLAS, repeated for --seconds.
 *
 * Row-major matrices. C is cut into --block x --block tiles; OpenMP shares the tiles (both
 * tile loops collapsed, static schedule), and each thread computes its tile as a sum over the
 * k tiles of A(i, k-tile) B(k-tile, j-tile) with the i-k-j loop order, so the innermost loop
 * runs along rows of B and C (unit stride, `omp simd`) while a block of B stays in cache.
 * A[i][k] = (i + 1) / (k + 1) and B[k][j] = (k + 1) (j + 1) / n, so every term of
 * C[i][j] = sum_k A[i][k] B[k][j] is (i + 1) (j + 1) / n and C[i][j] = (i + 1) (j + 1)
 * exactly in real numbers: each element is checked against that within 1e-9 relative (the
 * rounding of n terms is ~n 1e-16). A wrong index, a skipped or doubled tile would miss it.
 * Multiplications repeat until the deadline (program start + --seconds, set-up included);
 * one starts only while the deadline is more than half a mean multiplication away; with
 * --products N exactly N are done instead (a fixed problem size, for Khaleghzadeh et al.'s
 * profiles). GFLOP/s counts 2 n^3 floating-point operations per multiplication (1 GFLOP = 1e9).
 * Probe: phases "init", "dgemm" (all multiplications), "check" (main thread), counters
 * "flops" and "products". */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <math.h>
#include <mwprobe.h>
#include <omp.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

static const char usage[] =
    "usage: mwb-dgemm [--n N] [--block B] [--seconds S | --products N] [--threads N]\n"
    "Blocked dense matrix product C = A B of N x N doubles (default 1024), repeated for S\n"
    "seconds (default 10) on all cores (OpenMP over B x B tiles of C, default 64); no BLAS.\n"
    "Prints GFLOP/s (2 N^3 per product, 1e9 FLOP/s) and checks C against its analytic value\n"
    "(A[i][k] = (i+1)/(k+1), B[k][j] = (k+1)(j+1)/N, so C[i][j] = (i+1)(j+1)) within 1e-9\n"
    "relative (exit 1 if not). Probe phases \"init\", \"dgemm\", \"check\"; counters\n"
    "\"flops\" and \"products\".\n"
    "  --n N         matrix order, 1 to 32768 (default 1024)\n"
    "  --block B     tile size, 1 to 4096 (default 64)\n"
    "  --seconds S   run time including set-up, 0.01 to 1e6 s (default 10)\n"
    "  --products N  do exactly N products, 1 to 1e9, whatever the time\n"
    "  --threads N   OpenMP threads, 1 to 4096 (default: all cores)\n"
    "  --help        this text\n";

static void multiply(size_t n, size_t bs, const double *restrict a, const double *restrict b,
                     double *restrict c)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (size_t ib = 0; ib < n; ib += bs) {
        for (size_t jb = 0; jb < n; jb += bs) {
            size_t ie = ib + bs < n ? ib + bs : n, je = jb + bs < n ? jb + bs : n;
            for (size_t i = ib; i < ie; i++)
                for (size_t j = jb; j < je; j++)
                    c[i * n + j] = 0;
            for (size_t kb = 0; kb < n; kb += bs) {
                size_t ke = kb + bs < n ? kb + bs : n;
                for (size_t i = ib; i < ie; i++) {
                    double *restrict ci = c + i * n;
                    for (size_t k = kb; k < ke; k++) {
                        const double aik = a[i * n + k];
                        const double *restrict bk = b + k * n;
#pragma omp simd
                        for (size_t j = jb; j < je; j++)
                            ci[j] += aik * bk[j];
                    }
                }
            }
        }
    }
}

int main(int argc, char **argv)
{
    double start = mwb_now();
    double seconds = 0; /* 0: not given (10 s) */
    int64_t order = 1024, block = 64, threads = 0, products = 0;
    const struct mwb_opt opts[] = {
        {"n", MWB_INT, &order, 1, 32768, NULL},
        {"block", MWB_INT, &block, 1, 4096, NULL},
        {"seconds", MWB_DOUBLE, &seconds, 0.01, 1e6, NULL},
        {"threads", MWB_INT, &threads, 1, 4096, NULL},
        {"products", MWB_INT, &products, 1, 1000000000, NULL},
    };
    int rc = mwb_parse(argc, argv, opts, 5, usage, true);
    if (rc >= 0) return rc;
    if (products > 0 && seconds > 0) {
        fprintf(stderr, "%s: --seconds and --products: give one\n", mwb_prog);
        return 2;
    }
    if (seconds == 0) seconds = 10;
    if (threads > 0) omp_set_num_threads((int)threads);
    const size_t n = (size_t)order, bs = (size_t)block;

    mw_phase_begin("init");
    double *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b),
           *c = malloc(n * n * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "%s: cannot allocate 3 x %zu bytes\n", mwb_prog, n * n * sizeof *a);
        return 1;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < n; k++) {
            a[i * n + k] = (double)(i + 1) / (double)(k + 1);
            b[i * n + k] = (double)(i + 1) * (double)(k + 1) / (double)n;
            c[i * n + k] = 0;
        }
    }
    mw_phase_end("init");

    double deadline = start + seconds;
    long reps = 0;
    double t0 = mwb_now(), now = t0;
    mw_phase_begin("dgemm");
    do {
        multiply(n, bs, a, b, c);
        now = mwb_now();
        reps++;
    } while (products > 0 ? reps < products : now + 0.5 * (now - t0) / (double)reps < deadline);
    mw_phase_end("dgemm");
    double elapsed = now - t0;
    double flops = 2.0 * (double)n * (double)n * (double)n * (double)reps;
    mw_counter("flops", flops < 9.2e18 ? (int64_t)flops : INT64_MAX);
    mw_counter("products", (int64_t)reps);

    mw_phase_begin("check");
    double maxrel = 0;
#pragma omp parallel for schedule(static) reduction(max : maxrel)
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            double want = (double)(i + 1) * (double)(j + 1);
            double rel = fabs(c[i * n + j] - want) / want;
            if (!(rel <= maxrel)) /* also catches NaN */
                maxrel = isnan(rel) ? INFINITY : rel;
        }
    }
    mw_phase_end("check");
    int ok = maxrel <= 1e-9;

    printf("matrices: %zu x %zu doubles, tiles %zu x %zu\n", n, n, bs, bs);
    printf("threads: %d\n", omp_get_max_threads());
    printf("products: %ld in %.3f s (%.3f ms each)\n", reps, elapsed, elapsed / (double)reps * 1e3);
    printf("check: %s (max relative error %.3g, bound 1e-9)\n", ok ? "passed" : "FAILED", maxrel);
    printf("mwb-dgemm: %.3f GFLOP/s on %d threads, %zu x %zu doubles, %.3f s, check %s\n",
           flops / elapsed / 1e9, omp_get_max_threads(), n, n, elapsed, ok ? "passed" : "FAILED");
    free(a);
    free(b);
    free(c);
    return ok ? 0 : 1;
}
