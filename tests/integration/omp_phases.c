/* omp_phases — an OpenMP program with known parallel regions, for test_probe_omp.sh.
 *
 * Built with clang -fopenmp (LLVM libomp, which has OMPT) and run with libmwprobe linked
 * or preloaded. Three parallel regions of NTHREADS threads each, separated by 40 ms of
 * serial sleep that no region may cover:
 *   region 1: a trivial omp single (a barrier inside the region), then every thread sleeps
 *             until 100 ms after the region's start
 *   region 2: every thread computes until 150 ms after the region's start
 *   region 3: every thread sleeps until 200 ms after the region's start
 * The end is a deadline taken before the region opens, not a time per thread, so a thread
 * that starts late on a busy machine does not make the region longer. The runtime is
 * initialised (omp_get_max_threads) before the first stamp: its start-up inside the first
 * fork comes before OMPT's parallel_begin and is no part of any region.
 *
 * Output, all times CLOCK_REALTIME ns, so the test has the truth to compare the probe with:
 *   "threads N"           the team size seen inside the first region
 *   "region K T0 T1"      stamps just before region K opens and just after it closes
 *   "work K THREAD NS"    the time thread THREAD spent in region K outside barriers: from its
 *                         first statement to its last, less its wait at the single's barrier
 * Uses no probe API: the regions must come from the OMPT tool. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NTHREADS 3
#define MS 1000000LL

static int64_t work_ns[NTHREADS];

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void sleep_until(int64_t t_ns)
{
    struct timespec ts = {(time_t)(t_ns / 1000000000), (long)(t_ns % 1000000000)};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
}

static void compute_until(int64_t t_ns)
{
    volatile double x = 1.0;
    while (now_ns() < t_ns)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
}

static void report(int k, int64_t t0, int64_t t1, int team)
{
    printf("region %d %lld %lld\n", k, (long long)t0, (long long)t1);
    for (int i = 0; i < team && i < NTHREADS; i++)
        printf("work %d %d %lld\n", k, i, (long long)work_ns[i]);
}

int main(void)
{
    int team = 0;
    int64_t t0, t1;

    if (omp_get_max_threads() < 1) return 1;
    sleep_ms(40);
    t0 = now_ns();
#pragma omp parallel num_threads(NTHREADS)
    {
        int64_t a = now_ns();
        int64_t b = now_ns();
#pragma omp single
        team = omp_get_num_threads();
        int64_t c = now_ns();
        sleep_until(t0 + 100 * MS);
        int me = omp_get_thread_num();
        if (me < NTHREADS) work_ns[me] = (b - a) + (now_ns() - c);
    }
    t1 = now_ns();
    printf("threads %d\n", team);
    report(1, t0, t1, team);

    sleep_ms(40);
    t0 = now_ns();
#pragma omp parallel num_threads(NTHREADS)
    {
        int64_t a = now_ns();
        compute_until(t0 + 150 * MS);
        int me = omp_get_thread_num();
        if (me < NTHREADS) work_ns[me] = now_ns() - a;
    }
    t1 = now_ns();
    report(2, t0, t1, team);

    sleep_ms(40);
    t0 = now_ns();
#pragma omp parallel num_threads(NTHREADS)
    {
        int64_t a = now_ns();
        sleep_until(t0 + 200 * MS);
        int me = omp_get_thread_num();
        if (me < NTHREADS) work_ns[me] = now_ns() - a;
    }
    t1 = now_ns();
    report(3, t0, t1, team);
    sleep_ms(40);
    return 0;
}
