/* mwb-pattern — a known load pattern for aligning the power trace with the program's clock
 * (mw align): a pseudo-random sequence of busy and idle bits of --bit-ms each.
 *
 * The bits are a maximal-length LFSR sequence (an m-sequence) of order K (--order, 2 to 32):
 * a Galois LFSR of K bits whose feedback masks are primitive polynomials (Xilinx XAPP052's
 * taps; each was checked to give the full period 2^K - 1 from state 1). The start state is
 * --seed (1 to 2^K - 1); each bit is the state's lowest bit, after which the state shifts
 * right and, when that bit was 1, is XORed with the mask. Over a full period there are 2^(K-1)
 * ones and 2^(K-1) - 1 zeros, the autocorrelation is two-valued (a sharp peak), and another
 * seed gives the same sequence rotated. Busy (1) bits run mwb_burn() (the mwb-cpuburn mix) on
 * every thread, idle (0) bits sleep on every thread.
 *
 * Timing: bit i lasts from t0 + i bit to t0 + (i + 1) bit on CLOCK_REALTIME, the clock the
 * probe stamps its events with (t0 = 20 ms after start). Every OpenMP thread follows that
 * schedule by itself in one parallel region (absolute clock_nanosleep, or burning until the
 * edge), so there is no barrier, no spinning runtime between bits, and no drift. Thread 0
 * makes one probe phase per bit, named "busy" or "idle". The sequence line (the bits as a 0/1
 * string and t0 in ns) is printed and flushed before bit 0 starts. A step of the system clock
 * during the run shifts the remaining edges with it. Number of bits: --bits, or
 * floor(--seconds / bit), else one full period. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <mwprobe.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "usage: mwb-pattern [--order K] [--seed S] [--bit-ms MS] [--bits N | --seconds S]\n"
    "                   [--threads N]\n"
    "A pseudo-random busy/idle load pattern: the maximal-length LFSR sequence (m-sequence) of\n"
    "order K from start state S; a 1 bit keeps every thread busy (the mwb-cpuburn mix), a 0 bit\n"
    "sleeps, each bit MS ms long. Probe: one phase per bit, \"busy\" or \"idle\". Prints first\n"
    "  sequence: BITS t0: T0 ns (CLOCK_REALTIME) bit: MS ms\n"
    "(the bits as a 0/1 string, bit 0 starting at T0), then the timing and a summary line.\n"
    "  --order K     LFSR order, 2 to 32: period 2^K - 1 bits (default 7, 127 bits)\n"
    "  --seed S      start state, 1 to 2^K - 1 (default 1)\n"
    "  --bit-ms MS   bit length, 1 to 1e7 ms (default 1000)\n"
    "  --bits N      number of bits, 1 to 10000000 (default: one period)\n"
    "  --seconds S   or: as many whole bits as fit in S seconds (at least 1)\n"
    "  --threads N   OpenMP threads, 1 to 4096 (default: all cores)\n"
    "  --help        this text\n";

/* Galois feedback masks of maximal-length LFSRs, by order (bit t-1 set for each tap t). */
static const uint32_t lfsr_mask[33] = {
    [2] = 0x3,         [3] = 0x6,        [4] = 0xc,         [5] = 0x14,        [6] = 0x30,
    [7] = 0x60,        [8] = 0xb8,       [9] = 0x110,       [10] = 0x240,      [11] = 0x500,
    [12] = 0x829,      [13] = 0x100d,    [14] = 0x2015,     [15] = 0x6000,     [16] = 0xd008,
    [17] = 0x12000,    [18] = 0x20400,   [19] = 0x40023,    [20] = 0x90000,    [21] = 0x140000,
    [22] = 0x300000,   [23] = 0x420000,  [24] = 0xe10000,   [25] = 0x1200000,  [26] = 0x2000023,
    [27] = 0x4000013,  [28] = 0x9000000, [29] = 0x14000000, [30] = 0x20000029, [31] = 0x48000000,
    [32] = 0x80200003,
};

int main(int argc, char **argv)
{
    int64_t order = 7, seed = 1, nbits = 0, threads = 0;
    double bit_ms = 1000, seconds = 0;
    bool bits_given = false, seconds_given = false;
    const struct mwb_opt opts[] = {
        {"order", MWB_INT, &order, 2, 32, NULL},
        {"seed", MWB_INT, &seed, 1, 4294967295.0, NULL},
        {"bit-ms", MWB_DOUBLE, &bit_ms, 1, 1e7, NULL},
        {"bits", MWB_INT, &nbits, 1, 1e7, &bits_given},
        {"seconds", MWB_DOUBLE, &seconds, 1e-3, 1e7, &seconds_given},
        {"threads", MWB_INT, &threads, 1, 4096, NULL},
    };
    int rc = mwb_parse(argc, argv, opts, 6, usage, true);
    if (rc >= 0) return rc;
    uint64_t period = (UINT64_C(1) << order) - 1;
    if ((uint64_t)seed > period) {
        fprintf(stderr,
                "%s: --seed: out of range: '%lld' (allowed: 1 to %llu for order %lld) "
                "(try --help)\n",
                mwb_prog, (long long)seed, (unsigned long long)period, (long long)order);
        return 2;
    }
    if (bits_given && seconds_given) {
        fprintf(stderr, "%s: --bits and --seconds exclude each other (try --help)\n", mwb_prog);
        return 2;
    }
    if (seconds_given) {
        nbits = (int64_t)(seconds * 1e3 / bit_ms + 1e-9);
        if (nbits < 1) nbits = 1;
        if (nbits > 10000000) {
            fprintf(stderr, "%s: --seconds: too many bits (%lld, at most 10000000) (try --help)\n",
                    mwb_prog, (long long)nbits);
            return 2;
        }
    } else if (!bits_given) {
        nbits = period > 10000000 ? 10000000 : (int64_t)period;
    }
    if ((double)nbits * bit_ms > 1e12) {
        fprintf(stderr, "%s: %lld bits of %g ms: longer than 1e9 s (try --help)\n", mwb_prog,
                (long long)nbits, bit_ms);
        return 2;
    }
    if (threads > 0) omp_set_num_threads((int)threads);

    char *bits = malloc((size_t)nbits + 1);
    if (!bits) {
        fprintf(stderr, "%s: cannot allocate %lld bytes\n", mwb_prog, (long long)nbits + 1);
        return 1;
    }
    uint32_t state = (uint32_t)seed, mask = lfsr_mask[order];
    int64_t ones = 0;
    for (int64_t i = 0; i < nbits; i++) {
        uint32_t bit = state & 1;
        state >>= 1;
        if (bit) state ^= mask;
        bits[i] = bit ? '1' : '0';
        ones += bit;
    }
    bits[nbits] = '\0';

    const int64_t bit_ns = (int64_t)(bit_ms * 1e6);
    mw_mark("pattern"); /* starts the probe (its file, its thread) before the first edge */
    const int64_t t0 = mwb_realtime_ns() + 20000000;
    printf("sequence: %s t0: %lld ns (CLOCK_REALTIME) bit: %g ms\n", bits, (long long)t0, bit_ms);
    fflush(stdout);

    int64_t max_late_ns = 0;
    int used = 1;
#pragma omp parallel
    {
        const int me = omp_get_thread_num();
        if (me == 0) used = omp_get_num_threads();
        mwb_sleep_until_realtime(t0);
        for (int64_t i = 0; i < nbits; i++) {
            const int64_t edge = t0 + (i + 1) * bit_ns;
            const char *name = bits[i] == '1' ? "busy" : "idle";
            if (me == 0) {
                int64_t late = mwb_realtime_ns() - (t0 + i * bit_ns);
                if (late > max_late_ns) max_late_ns = late;
                mw_phase_begin(name);
            }
            if (bits[i] == '1')
                mwb_burn(CLOCK_REALTIME, edge, (uint64_t)me + 1);
            else
                mwb_sleep_until_realtime(edge);
            if (me == 0) mw_phase_end(name);
        }
    }
    const int64_t t_end = mwb_realtime_ns();

    printf("bits: %lld of %g ms (%lld busy, %lld idle), LFSR order %lld (period %llu bits), "
           "seed %lld\n",
           (long long)nbits, bit_ms, (long long)ones, (long long)(nbits - ones), (long long)order,
           (unsigned long long)period, (long long)seed);
    printf("timing: edges up to %.3f ms late (thread 0), ended %.3f ms after the last edge\n",
           (double)max_late_ns / 1e6, (double)(t_end - (t0 + nbits * bit_ns)) / 1e6);
    printf("mwb-pattern: %lld bits (%lld busy) of %g ms on %d threads, %.3f s\n", (long long)nbits,
           (long long)ones, bit_ms, used, (double)(nbits * bit_ns) / 1e9);
    free(bits);
    return 0;
}
