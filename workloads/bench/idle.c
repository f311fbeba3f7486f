/* mwb-idle — the idle baseline: one phase "idle" in which the process only sleeps.
 *
 * It sleeps in clock_nanosleep until an absolute CLOCK_MONOTONIC deadline (so signals that
 * interrupt the sleep do not stretch it) and reports how long the phase really lasted. With
 * nothing else running, the power measured during the phase is the node's idle power
 * (Pow_idle), the reference the other benchmarks' power is compared against. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <mwprobe.h>
#include <stdio.h>

static const char usage[] =
    "usage: mwb-idle [--seconds S]\n"
    "Sleep for S seconds (default 10) inside one probe phase named \"idle\": the idle-power\n"
    "baseline. Prints the requested and the measured duration.\n"
    "  --seconds S   how long to sleep, 0.001 to 1e6 s (default 10)\n"
    "  --help        this text\n";

int main(int argc, char **argv)
{
    double seconds = 10;
    const struct mwb_opt opts[] = {{"seconds", MWB_DOUBLE, &seconds, 1e-3, 1e6, NULL}};
    int rc = mwb_parse(argc, argv, opts, 1, usage, true);
    if (rc >= 0) return rc;

    double t0 = mwb_now();
    mw_phase_begin("idle");
    mwb_sleep_until(t0 + seconds);
    mw_phase_end("idle");
    double slept = mwb_now() - t0;

    printf("requested: %.3f s\n", seconds);
    printf("mwb-idle: idle %.3f s\n", slept);
    return 0;
}
