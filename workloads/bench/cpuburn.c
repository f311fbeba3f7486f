/* mwb-cpuburn — every core busy with arithmetic and nothing else: the CPU's working power
 * without memory traffic.
 *
 * Each OpenMP thread runs mwb_burn() (common.c): a fixed instruction mix held in registers,
 * 4 independent 64-bit integer chains x = x * M + C (a multiply and an add) and 4 independent
 * double chains y = y * A + B (a multiply and an add, A < 1 so y stays normal); one step of
 * the 8 chains is 16 operations (8 integer, 8 floating point), and the independent chains keep
 * the pipelines full. Threads read CLOCK_MONOTONIC every 4096 steps (a few us) and stop at
 * the deadline (program start + --seconds), so the run lasts --seconds within microseconds.
 * Reports operations per second, all threads together (1 Gop = 1e9 operations).
 * Probe: phase "cpuburn" (main thread) around the parallel region, counter "operations". */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <mwprobe.h>
#include <omp.h>
#include <stdio.h>

static const char usage[] =
    "usage: mwb-cpuburn [--seconds S] [--threads N]\n"
    "Keep N threads (default: all cores) busy for S seconds (default 10) with a fixed,\n"
    "register-resident mix of 64-bit integer and double multiply-adds (16 operations per\n"
    "step: 8 integer, 8 floating point); no memory traffic. Probe phase \"cpuburn\".\n"
    "Prints the operations per second of all threads together (Gop/s, 1e9 op/s).\n"
    "  --seconds S   run time, 0.01 to 1e6 s (default 10)\n"
    "  --threads N   OpenMP threads, 1 to 4096 (default: all cores)\n"
    "  --help        this text\n";

int main(int argc, char **argv)
{
    int64_t start_ns = mwb_clock_ns(CLOCK_MONOTONIC);
    double seconds = 10;
    int64_t threads = 0;
    const struct mwb_opt opts[] = {
        {"seconds", MWB_DOUBLE, &seconds, 0.01, 1e6, NULL},
        {"threads", MWB_INT, &threads, 1, 4096, NULL},
    };
    int rc = mwb_parse(argc, argv, opts, 2, usage, true);
    if (rc >= 0) return rc;
    if (threads > 0) omp_set_num_threads((int)threads);

    int64_t deadline_ns = start_ns + (int64_t)(seconds * 1e9);
    uint64_t steps = 0;
    int used = 1;
    double t0 = mwb_now();
    mw_phase_begin("cpuburn");
#pragma omp parallel reduction(+ : steps)
    {
#pragma omp single nowait
        used = omp_get_num_threads();
        steps +=
            mwb_burn(CLOCK_MONOTONIC, deadline_ns, 0x1234567u + (uint64_t)omp_get_thread_num());
    }
    mw_phase_end("cpuburn");
    double elapsed = mwb_now() - t0;
    double ops = (double)steps * MWB_BURN_OPS_PER_STEP;
    mw_counter("operations", (int64_t)ops);

    printf("threads: %d\n", used);
    printf("time: %.3f s\n", elapsed);
    printf("operations: %.4g op (%d op per step: 8 integer, 8 floating point)\n", ops,
           MWB_BURN_OPS_PER_STEP);
    printf("per thread: %.3f Gop/s\n", ops / elapsed / 1e9 / used);
    printf("mwb-cpuburn: %.3f Gop/s on %d threads, %.3f s\n", ops / elapsed / 1e9, used, elapsed);
    return 0;
}
