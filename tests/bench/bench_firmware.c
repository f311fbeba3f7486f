/* bench_firmware — the firmware's figures on the simulated board (cycle-exact simavr),
 * printed as a Markdown section for docs/performance.md:
 *  - ADC conversions processed per second vs the ADC's maximum (9,615.4/s at 125 kHz),
 *  - ADC interrupt service time, mean and worst, in CPU cycles (16 MHz),
 *  - per-window real-power error vs the ideal value (tests/sim/truth.h) over a grid,
 *  - simulation speed (simulated seconds per host second). */
#include <time.h>

#include "../sim/harness.h"
#include "../sim/truth.h"

#define ADC_VECT_NUM 29 /* ATmega2560 ADC conversion complete */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void throughput(const char *chmap, int m, double seconds)
{
    h_board *h = h_open();
    assert_string_equal(h_cmd(h, chmap), "OK,CH");
    for (int pin = 1; pin < m; pin++)
        mw_sim_set_load(h->sim, pin, 150.0 + 10 * pin, 0.95, MW_SIM_SMPS);
    mw_sim_isr_watch(h->sim, ADC_VECT_NUM);
    h_forget(h);
    double t0 = now_s();
    h_run(h, seconds);
    double wall = now_s() - t0;
    uint64_t used = 0, missed = 0;
    const mw_proto_window *a = &h->win[1], *b = &h->win[h->nwin - 1];
    for (int i = 1; i < h->nwin; i++) { /* a set: the m channels and the dummy 0 V conversion */
        used += (uint64_t)h->win[i].nsets * (uint64_t)(m + 1);
        missed += h->win[i].missed;
    }
    double span = (b->t1_us - a->t0_us) * 1e-6;
    uint64_t n;
    double mean;
    uint64_t max;
    mw_sim_isr_stats(h->sim, &n, &mean, &max);
    printf("| %d (1 V + %d I) | %.1f | %.2f %% | %llu | %.1f | %llu | %.1f %% | %.1f |\n", m, m - 1,
           used / span, 100.0 * used / span / (125000.0 / 13.0), (unsigned long long)missed, mean,
           (unsigned long long)max, 100.0 * mean * (used / span) / 16e6, seconds / wall);
    h_close(h);
}

static void error_table(mw_sim_wave wave, double vrms, double hz)
{
    static const double frac[] = {0.05, 0.20, 1.00}, pfs[] = {1.0, 0.8, 0.5};
    vrms_g = vrms;
    hz_g = hz;
    for (int f = 0; f < 3; f++) {
        h_board *h = h_open();
        mw_sim_set_mains(h->sim, 0, vrms, hz);
        load l[3];
        for (int p = 0; p < 3; p++) {
            l[p] = (load){frac[f] * 20.0 / wave_peak(wave), pfs[p], wave};
            mw_sim_set_current(h->sim, 1 + p, l[p].i1_peak, l[p].pf, wave);
        }
        h_run_windows(h, 21, 10.0);
        printf("| %s | %.0f V %.0f Hz | %.0f %% |", wave == MW_SIM_SINE ? "sine" : "SMPS", vrms, hz,
               frac[f] * 100);
        for (int p = 0; p < 3; p++) {
            double sum = 0, worst = 0, cyc = 0;
            int n = 0;
            double p_cycle = vrms * l[p].i1_peak / M_SQRT2 * l[p].pf;
            for (int i = 1; i < h->nwin; i++) {
                truth t = window_truth(h, &h->win[i], p, &l[p]);
                double e = (h->win[i].ch[p].p_mw / 1e3 - t.p) / t.p * 100;
                sum += e;
                worst = fmax(worst, fabs(e));
                cyc = fmax(cyc, fabs((h->win[i].ch[p].p_mw / 1e3 - p_cycle) / p_cycle * 100));
                n++;
            }
            printf(" %+.3f / %.3f / %.3f |", sum / n, worst, cyc);
        }
        printf("\n");
        h_close(h);
    }
}

static void bench(void **s)
{
    printf("## Firmware on the simulated board\n\n");
    printf("`make bench` (tests/bench/bench_firmware.c): the real firmware ELF in simavr, "
           "ATmega2560 at 16 MHz, ADC clock 125 kHz, 4 Hz windows.\n\n");
    printf("### Conversions and interrupt load\n\n");
    printf("| channels | conversions processed /s | of the ADC maximum (9,615.4/s) | "
           "missed | ADC ISR mean (cycles) | ADC ISR worst (cycles) | CPU in the ADC ISR | "
           "sim speed (x real time) |\n|---|---|---|---|---|---|---|---|\n");
    throughput("CH 0 1 2 3 4 5", 6, 10.0);
    throughput("CH 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", 16, 10.0);
    printf("\nThe ISR is timed from the jump to its vector to its RETI (add 5 cycles of "
           "interrupt response); one conversion lasts 1,664 cycles. A set is the channels "
           "and one dummy conversion of the 0 V input after the voltage (docs/firmware.md, "
           "\"Sampling schemes against aliasing\"), whose interrupt advances the mux and adds "
           "the set's voltage sample to the fundamental's sums for the frequency "
           "(docs/firmware.md, \"Metrology\"): conversions and the mean count it.\n\n");
    printf("### Real-power error per window\n\n");
    printf("Each cell: mean / worst |error| vs the ideal value over the window's own sample "
           "instants (tests/sim/truth.h) / worst |error| vs the cycle-average P (which a "
           "window of a non-integer number of mains cycles differs from), in %%, over 20 "
           "windows of 250 ms after the first, ADC noise 0.5 LSB rms. Full scale = 20 A "
           "peak (revision B: +-2.0 V at the pin).\n\n");
    printf("| waveform | mains | current | PF 1 | PF 0.8 | PF 0.5 |\n|---|---|---|---|---|---|\n");
    error_table(MW_SIM_SINE, 230, 50);
    error_table(MW_SIM_SMPS, 230, 50);
    error_table(MW_SIM_SINE, 120, 60);
    error_table(MW_SIM_SMPS, 120, 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(bench)};
    /* cmocka's own report goes to stderr-like output; keep stdout for the Markdown */
    return cmocka_run_group_tests_name("bench_firmware", tests, NULL, NULL);
}
