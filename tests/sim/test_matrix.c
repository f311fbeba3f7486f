/* A sample of issue 20's target matrix (tests/sim/matrix.h), through the real firmware ELF
 * on the simulated board: 1 V + 5 I at 59.97 Hz with 8 % THD whose 7th is 3.6 % (the case
 * four taps missed: -0.13 % with a 2 % 7th), and at 50.02 Hz with the harmonics opposite,
 * 20 s each, sine (PF 0.5-1), pulse and capacitor-input currents at 5-95 % of full scale on
 * every position, and at 59.97 Hz with the harmonics all in phase and all opposite (the
 * cells six taps missed). Every cell must hold the goal as mx_cell_holds reads it (energy within
 * 0.05 %, 0.1 % for the aliasing capacitor-input current, 0.2 % at 5-7 % of full scale;
 * windows within 0.3 % from 35 % of full scale), the frequency within 2 mHz.
 * The whole matrix, 16 channels included, is bench_matrix (docs/performance.md). */
#include "matrix.h"

static void check_run(mx_run *r)
{
    mx_run_board(r);
    print_message("1 V + %d I, %.2f Hz, %s, rotation %d: frequency worst %.1f mHz\n", r->nchan,
                  r->hz, mx_spectrum_name[r->spectrum], r->rot, r->worst_freq_mhz);
    int bad = 0;
    for (int k = 0; k < r->ncell; k++) {
        const mx_cell *c = &r->cell[k];
        int ok = mx_cell_holds(c);
        print_message("  pos %d %-5s PF %.2f %3.0f %% FS: worst window %.3f %% (vs samples %.3f "
                      "%%), energy %+.4f %% (allowed %.2f %%)%s\n",
                      c->pos, mx_kind_name(c->spec.kind), c->spec.pf, c->spec.frac * 100,
                      c->worst_window * 100, c->worst_sampled * 100, c->energy * 100,
                      mx_energy_bound(c) * 100, ok ? "" : "  <- outside the goal");
        bad += !ok;
    }
    assert_int_equal(bad, 0);
    /* issue 20's 2 mHz, with 8 % THD too, from the fundamental's phase (fund.h): the
     * crossings alone read 4-5 mHz at 50.02 Hz with the harmonics opposite */
    assert_true(r->worst_freq_mhz <= 2.0);
}

static void sixty_hz_seventh(void **s)
{
    mx_run r = {.nchan = 5, .hz = 59.97, .spectrum = 3, .rot = 0, .seconds = 20};
    check_run(&r);
}

/* 59.97 Hz, 8 % THD all in phase and all opposite, the loads unrotated: the 95 % pulse on
 * position 1 read +0.070 / -0.077 % with six taps (exact at f, 4f, 7f), whose error on the
 * 3rd and 5th adds up there; eight taps (f, 3f, 5f, 7f) leave none on the three */
static void sixty_hz_in_phase_and_opposite(void **s)
{
    for (int sp = 1; sp <= 2; sp++) {
        mx_run r = {.nchan = 5, .hz = 59.97, .spectrum = sp, .rot = 0, .seconds = 20};
        check_run(&r);
    }
}

static void fifty_hz_opposite(void **s)
{
    mx_run r = {.nchan = 5, .hz = 50.02, .spectrum = 2, .rot = 5, .seconds = 20};
    check_run(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sixty_hz_seventh),
        cmocka_unit_test(sixty_hz_in_phase_and_opposite),
        cmocka_unit_test(fifty_hz_opposite),
    };
    return cmocka_run_group_tests_name("matrix", tests, NULL, NULL);
}
