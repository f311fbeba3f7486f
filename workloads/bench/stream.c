/* mwb-stream — memory bandwidth: the STREAM triad a[i] = b[i] + s * c[i] over arrays much
 * larger than the caches, on all cores (OpenMP), for --seconds.
 *
 * The arrays are allocated 64-byte aligned and first touched by the same static OpenMP
 * schedule as the triad, so on a NUMA node each thread's part lies in its own memory. b and
 * c hold small multiples of 1/4 (b[i] = i mod 1024, c[i] = (i mod 13) / 4) and s = 3, so
 * every a[i] is exact in double and the result is checked element by element against the
 * analytic value (i mod 1024) + 0.75 (i mod 13). Sweeps repeat until the deadline (program
 * start + --seconds, allocation included): a new sweep starts only while the deadline is more
 * than half a mean sweep away, so the run ends within half a sweep of it. Bandwidth follows
 * the STREAM convention: 3 arrays x 8 bytes per element per sweep (24 B; the write-allocate
 * read of a is not counted), 1 GB = 1e9 B; mean over all sweeps, and the best sweep.
 * Probe: phases "init", "stream", "check" (main thread), counter "bytes". */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <math.h>
#include <mwprobe.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "usage: mwb-stream [--size MIB] [--seconds S] [--threads N]\n"
    "The STREAM triad a[i] = b[i] + 3 c[i] on three arrays of MIB MiB each (default 64,\n"
    "3 x 64 MiB in all), repeated for S seconds (default 10) on N OpenMP threads (default: all\n"
    "cores). Prints the bandwidth in GB/s (1e9 B/s; 24 B per element: 3 arrays x 8 B, the\n"
    "STREAM convention) and checks every element against its analytic value (exit 1 if not).\n"
    "Probe phases \"init\", \"stream\", \"check\".\n"
    "  --size MIB    MiB per array, 0.001 to 65536 (default 64)\n"
    "  --seconds S   run time including allocation, 0.01 to 1e6 s (default 10)\n"
    "  --threads N   OpenMP threads, 1 to 4096 (default: all cores)\n"
    "  --help        this text\n";

static double expected(size_t i)
{
    return (double)(i % 1024) + 0.75 * (double)(i % 13);
}

int main(int argc, char **argv)
{
    double start = mwb_now();
    double seconds = 10, mib = 64;
    int64_t threads = 0;
    const struct mwb_opt opts[] = {
        {"size", MWB_DOUBLE, &mib, 0.001, 65536, NULL},
        {"seconds", MWB_DOUBLE, &seconds, 0.01, 1e6, NULL},
        {"threads", MWB_INT, &threads, 1, 4096, NULL},
    };
    int rc = mwb_parse(argc, argv, opts, 3, usage, true);
    if (rc >= 0) return rc;
    if (threads > 0) omp_set_num_threads((int)threads);

    const double s = 3.0;
    size_t n = (size_t)(mib * 1048576.0 / sizeof(double));
    if (n < 1) n = 1;
    size_t bytes = (n * sizeof(double) + 63) / 64 * 64;

    mw_phase_begin("init");
    double *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes),
           *c = aligned_alloc(64, bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "%s: cannot allocate 3 x %zu bytes\n", mwb_prog, bytes);
        return 1;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = -1.0;
        b[i] = (double)(i % 1024);
        c[i] = 0.25 * (double)(i % 13);
    }
    mw_phase_end("init");

    double deadline = start + seconds;
    long sweeps = 0;
    double best = INFINITY;
    int used = omp_get_max_threads();
    double t0 = mwb_now(), now = t0;
    mw_phase_begin("stream");
    do {
        double ts = now;
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        now = mwb_now();
        sweeps++;
        if (now - ts < best) best = now - ts;
    } while (now + 0.5 * (now - t0) / (double)sweeps < deadline);
    mw_phase_end("stream");
    double elapsed = now - t0;
    double moved = 3.0 * sizeof(double) * (double)n * (double)sweeps;
    mw_counter("bytes", (int64_t)moved);

    mw_phase_begin("check");
    double maxerr = 0;
    size_t bad = 0;
#pragma omp parallel for schedule(static) reduction(max : maxerr) reduction(+ : bad)
    for (size_t i = 0; i < n; i++) {
        double want = expected(i), err = fabs(a[i] - want);
        if (err > maxerr) maxerr = err;
        if (!(err <= 1e-12 * want)) bad++;
    }
    mw_phase_end("check");

    double gbs = moved / elapsed / 1e9;
    printf("arrays: 3 x %.3f MiB (%zu doubles each)\n", (double)n * 8 / 1048576.0, n);
    printf("threads: %d\n", used);
    printf("sweeps: %ld in %.3f s\n", sweeps, elapsed);
    printf("best sweep: %.3f GB/s (%.3f ms)\n", 24.0 * (double)n / best / 1e9, best * 1e3);
    printf("check: %s (%zu of %zu elements wrong, max abs error %.3g)\n", bad ? "FAILED" : "passed",
           bad, n, maxerr);
    printf("mwb-stream: triad %.3f GB/s on %d threads, %.3f s, check %s\n", gbs, used, elapsed,
           bad ? "FAILED" : "passed");
    free(a);
    free(b);
    free(c);
    return bad ? 1 : 0;
}
