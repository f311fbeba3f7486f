/* The ADC reference (issue 25): the simulated board converts against the reference that the
 * firmware selects with ADMUX's REFS bits, on the board it sits on, and the two firmware
 * builds select the right one. Expected codes and readings are computed here from the
 * physics alone — pin volts = bias + line quantity / ratio, code = floor(pin volts x 1024 /
 * reference volts) — with the boards' numbers from hardware/README.md, not from afe.h:
 *  - revision-B firmware (megawatt.elf) on a revision-B board (4.096 V on AREF, bias 2.048 V):
 *    codes against 4.096 V, and never a conversion that selects another reference;
 *  - revision-A firmware (megawatt-revA.elf, AVCC) on a revision-A board (AREF open, bias
 *    2.5 V): codes against 5.000 V;
 *  - revision-B firmware on a revision-A board: an open AREF, every code 1023 (clipped);
 *  - AVCC-selecting firmware on a revision-B board given revision B's gains reads 4.096 / 5
 *    of the truth (what REFS left at AVCC would cost), and the board counts the conflict. */
#include <math.h>

#include "harness.h"

#define V_RATIO 191.667 /* mains volts per pin volt (hardware/README.md) */
#define I_RATIO 10.0    /* line amps per pin volt */

typedef struct {
    double v[3]; /* A0 mains volts, A1 and A2 line amps: constant */
} dc_in;

static double dc_fn(void *ctx, double t_s)
{
    (void)t_s;
    return *(const double *)ctx;
}

static h_board *open_on(const char *elf, double aref_v, double bias_v, dc_in *in)
{
    h_board *h = h_open_elf(elf);
    mw_sim_set_board(h->sim, aref_v, bias_v);
    mw_sim_set_noise(h->sim, 0, 1);
    for (int pin = 0; pin < 3; pin++)
        mw_sim_set_wave_fn(h->sim, pin, pin == 0, dc_fn, &in->v[pin]);
    h_wait_boot(h);
    return h;
}

/* Run conversion by conversion (half a conversion apart) and check every code of pins 0..2. */
static void expect_codes(h_board *h, const int want[3])
{
    int seen[3] = {0, 0, 0};
    uint64_t last = 0;
    for (int step = 0; step < 2000; step++) {
        h_run(h, 52e-6);
        int pin;
        uint16_t code;
        uint64_t n = mw_sim_adc_last(h->sim, &pin, &code);
        if (n == last || pin < 0 || pin > 2) continue;
        last = n;
        if (code != want[pin])
            fail_msg("pin A%d converted to %u, expected %d", pin, code, want[pin]);
        seen[pin]++;
    }
    for (int pin = 0; pin < 3; pin++)
        assert_true(seen[pin] >= 50);
}

static int code_of(double pin_v, double vref)
{
    double c = floor(pin_v * 1024.0 / vref);
    return c > 1023 ? 1023 : c < 0 ? 0 : (int)c;
}

static const char *elf_b(void)
{
    return h_elf("MW_FIRMWARE_ELF", "build/firmware/megawatt.elf");
}

static const char *elf_a(void)
{
    return h_elf("MW_FIRMWARE_REVA_ELF", "build/firmware/megawatt-revA.elf");
}

static void rev_b_on_b(void **s)
{
    dc_in in = {{100.0, 3.3, -7.7}};
    h_board *h = open_on(elf_b(), 4.096, 2.048, &in);
    /* 2.048 + 100 / 191.667 = 2.56974 V -> 642.4; 2.378 V -> 594.5; 1.278 V -> 319.5 */
    int want[3] = {642, 594, 319};
    for (int pin = 0; pin < 3; pin++)
        assert_int_equal(want[pin],
                         code_of(2.048 + in.v[pin] / (pin ? I_RATIO : V_RATIO), 4.096));
    expect_codes(h, want);
    assert_int_equal(mw_sim_adc_ref_conflicts(h->sim), 0);
    h_close(h);
}

static void rev_a_on_a(void **s)
{
    dc_in in = {{100.0, 3.3, -7.7}};
    h_board *h = open_on(elf_a(), 0, 2.5, &in);
    /* 2.5 + 0.52174 = 3.02174 V -> 618.85; 2.83 V -> 579.58; 1.73 V -> 354.30 (x 1024 / 5) */
    int want[3] = {618, 579, 354};
    expect_codes(h, want);
    assert_int_equal(mw_sim_adc_ref_conflicts(h->sim), 0);
    h_close(h);
}

static void rev_b_on_a_clips(void **s)
{
    dc_in in = {{100.0, 3.3, -7.7}};
    h_board *h = open_on(elf_b(), 0, 2.5, &in);
    int want[3] = {1023, 1023, 1023}; /* AREF open: nothing to convert against */
    expect_codes(h, want);
    h_close(h);
}

/* 230 V 50 Hz and a 2 kW resistive load: Vrms and P of the last of 4 windows. */
static void mains_reading(h_board *h, double *vrms, double *p_w)
{
    mw_sim_set_noise(h->sim, 0.5, 1);
    mw_sim_set_mains(h->sim, 0, 230.0, 50.0);
    mw_sim_set_load(h->sim, 1, 2000.0, 1.0, MW_SIM_SINE);
    h_forget(h);
    h_run_windows(h, 4, 3.0);
    *vrms = h->win[h->nwin - 1].vrms_mv / 1e3;
    *p_w = h->win[h->nwin - 1].ch[0].p_mw / 1e3;
}

static void avcc_on_rev_b_reads_low(void **s)
{
    double vrms, p;
    h_board *h = h_open_elf(elf_b()); /* the right firmware: the truth, within 0.3 % */
    h_wait_boot(h);
    mains_reading(h, &vrms, &p);
    assert_true(fabs(vrms / 230.0 - 1) < 0.003 && fabs(p / 2000.0 - 1) < 0.003);
    h_close(h);

    h = h_open_elf(elf_a()); /* selects AVCC; revision B's gains entered by hand */
    h_wait_boot(h);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "CAL 0 %.6f 0", 4.096 / 1024 * V_RATIO);
    assert_string_equal(h_cmd(h, cmd), "C,0,0.766668,0.000");
    snprintf(cmd, sizeof cmd, "CAL 1 %.6f 0", 4.096 / 1024 * I_RATIO);
    assert_string_equal(h_cmd(h, cmd), "C,1,0.040000,0.000");
    mains_reading(h, &vrms, &p);
    double k = 4.096 / 5.0; /* each of V and I read k of the truth, P k^2 */
    print_message("AVCC on revision B: %.2f V (expected %.2f), %.1f W (expected %.1f)\n", vrms,
                  230 * k, p, 2000 * k * k);
    assert_true(fabs(vrms / (230.0 * k) - 1) < 0.003);
    assert_true(fabs(p / (2000.0 * k * k) - 1) < 0.005);
    assert_true(mw_sim_adc_ref_conflicts(h->sim) > 0); /* a real board would short AREF */
    h_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rev_b_on_b),
        cmocka_unit_test(rev_a_on_a),
        cmocka_unit_test(rev_b_on_a_clips),
        cmocka_unit_test(avcc_on_rev_b_reads_low),
    };
    return cmocka_run_group_tests_name("reference", tests, NULL, NULL);
}
