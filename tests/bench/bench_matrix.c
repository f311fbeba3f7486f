/* bench_matrix — issue 20's whole target matrix through the real firmware ELF on the
 * simulated board (tests/sim/matrix.h: the runs, the truth, the goal's bounds), printed as
 * a Markdown section for docs/performance.md: 1 V + 5 I (three rotations of the loads over
 * the positions) and 1 V + 15 I, 50.02 and 59.97 Hz, clean mains and 8 % THD in three
 * phasings, 20 s each; per run the cells that hold the goal and, for the others, their
 * figures. test_matrix asserts a sample of it. A subset: MW_MX_NCHAN (5 or 15), MW_MX_HZ
 * (50 or 60) and MW_MX_SPECTRA (the spectra's indices, e.g. "12": in phase and opposite)
 * leave out the runs they do not name. */
#include "../sim/matrix.h"

#include <string.h>

/* 1 if the run is in the subset the environment names (all when it names none) */
static int wanted(int nchan, double hz, int spectrum)
{
    const char *n = getenv("MW_MX_NCHAN"), *f = getenv("MW_MX_HZ"), *sp = getenv("MW_MX_SPECTRA");
    if (n && *n && atoi(n) != nchan) return 0;
    if (f && *f && fabs(atof(f) - hz) > 1.0) return 0;
    if (sp && *sp && !strchr(sp, '0' + spectrum)) return 0;
    return 1;
}

static void bench(void **s)
{
    printf("## Target matrix of issue 20 (bench_matrix)\n\n");
    printf("Each row one 20 s run of the real firmware on the simulated board, 0.5 LSB of "
           "noise; loads (sine PF 1 / 0.8 / 0.5, 60-degree pulses, capacitor-input "
           "currents; 5-100 %% of full scale) rotated over the positions (rot); a cell holds "
           "when its energy is within 0.05 %% (capacitor-input: 0.1 %%; 5-7 %% of full "
           "scale: 0.2 %%) and, from 35 %% of full scale, every window within 0.3 %% (the "
           "capacitor-input current: of the mean of v i at its sample instants). The "
           "truth: the integral of v i at 2^18 steps per period over each channel's "
           "span (tests/sim/matrix.h).\n\n");
    printf("| map | mains | voltage | rot | cells holding | frequency, worst | cells outside |\n");
    printf("|---|---|---|---|---|---|---|\n");
    static const double hz[2] = {50.02, 59.97};
    static const int rots5[3] = {0, 5, 10};
    for (int map = 0; map < 2; map++)
        for (int f = 0; f < 2; f++)
            for (int sp = 0; sp < MX_NSPECTRA; sp++)
                for (int r = 0; r < (map ? 1 : 3); r++) {
                    if (!wanted(map ? 15 : 5, hz[f], sp)) continue;
                    mx_run run = {.nchan = map ? 15 : 5, .hz = hz[f], .spectrum = sp,
                                  .rot = map ? 0 : rots5[r], .seconds = 20};
                    mx_run_board(&run);
                    mx_print_run(&run);
                    fflush(stdout);
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(bench)};
    return cmocka_run_group_tests_name("bench_matrix", tests, NULL, NULL);
}
