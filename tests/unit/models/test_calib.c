/* The arithmetic of mw calibrate (models/calib.c) against values worked out by hand (a
 * calculator's cosines): robust means, the voltage gain, the phase from two probe readings
 * (both signs, and a reactive reference), the current gain from a reference power or
 * current, the rejections, the record's text and dates. */
#include "../unit.h"

#include "calib.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void robust_mean_drops_outliers(void **s)
{
    mw_calib_stat st;
    /* median 3, |x - 3| = 2 1 0 1 97: MAD 1, limit 3.5 x 1.4826 = 5.19: 100 goes */
    double a[] = {1, 2, 3, 4, 100};
    assert_int_equal(mw_calib_robust(a, 5, MW_CALIB_OUTLIER_K, &st), 0);
    NEAR(st.median, 3, 0);
    NEAR(st.mad, 1, 0);
    assert_int_equal(st.kept, 4);
    NEAR(st.mean, 2.5, 1e-12);
    /* even count: median 2.5, deviations 1.5 .5 .5 1.5, MAD 1: all kept */
    double b[] = {4, 1, 3, 2};
    assert_int_equal(mw_calib_robust(b, 4, MW_CALIB_OUTLIER_K, &st), 0);
    NEAR(st.median, 2.5, 0);
    NEAR(st.mad, 1, 0);
    assert_int_equal(st.kept, 4);
    NEAR(st.mean, 2.5, 1e-12);
    /* MAD 0 (most values equal): nothing to judge outliers by, all kept */
    double c[] = {5, 5, 5, 9};
    assert_int_equal(mw_calib_robust(c, 4, MW_CALIB_OUTLIER_K, &st), 0);
    assert_int_equal(st.kept, 4);
    NEAR(st.mean, 6, 1e-12);
    /* an alternating pattern (windows of 12.5 mains cycles) is not an outlier */
    double d[] = {229.89, 230.14, 229.86, 230.19, 229.88, 230.15, 229.87, 230.16};
    assert_int_equal(mw_calib_robust(d, 8, MW_CALIB_OUTLIER_K, &st), 0);
    assert_int_equal(st.kept, 8);
    NEAR(st.mean, 230.0175, 1e-9);
    assert_int_equal(mw_calib_robust(d, 0, MW_CALIB_OUTLIER_K, &st), -1);
}

static void voltage_gain(void **s)
{
    /* reads 249.5 V where the voltmeter says 230 V: 0.935872 x 230 / 249.5 */
    NEAR(mw_calib_voltage_gain(0.935872, 230, 249.5), 0.86272770, 1e-8);
    NEAR(mw_calib_voltage_gain(0.935872, 230, 0), 0, 0);
    NEAR(mw_calib_error_pct(249.5, 230), 8.47826087, 1e-8);
    NEAR(mw_calib_error_pct(999, 1000), -0.1, 1e-12);
}

static void phase_from_two_probes(void **s)
{
    double a, k;
    /* phase set 4 deg too far (sensor without error, resistive load), kappa 0.999:
     * PF+ = 0.999 cos(-4 - 5 deg) = 0.98670065, PF- = 0.999 cos(-4 + 5 deg) = 0.99884785 */
    assert_int_equal(mw_calib_phase_angle(0.98670065, 0.99884785, 5, &a, &k), 0);
    NEAR(a, -4.0, 1e-5);
    NEAR(k, 0.999, 1e-8);
    /* a sensor leading by 2.5 deg, phase 0: PF+ = cos(2.5 - 5), PF- = cos(2.5 + 5) */
    assert_int_equal(mw_calib_phase_angle(0.99904822, 0.99144486, 5, &a, &k), 0);
    NEAR(a, 2.5, 1e-5);
    NEAR(k, 1.0, 1e-8);
    /* reversed sensor: negative power */
    assert_int_equal(mw_calib_phase_angle(-0.98, -0.99, 5, &a, &k), -1);
}

static void channel_from_reference_power(void **s)
{
    /* the first case of phase_from_two_probes, reading 250 V and 4.7 A with gain 0.053,
     * while the voltage gain is being lowered by 230/250 = 0.92; reference 1000 W at PF 1:
     * gain 0.053 x 1000 / (0.999 x 250 x 4.7 x 1 x 0.92) = 0.0490778, phase 4 - 4 = 0,
     * current 4.7 x that ratio = 4.35218 A (= 1000 W / (230 V x 0.999)) */
    mw_calib_channel_in in = {.gain_a_per_count = 0.053,
                              .phase_deg = 4,
                              .vrms_v = 250,
                              .irms_a = 4.7,
                              .pf_plus = 0.98670065,
                              .pf_minus = 0.99884785,
                              .probe_deg = 5,
                              .voltage_gain_ratio = 0.92,
                              .ref_power_w = 1000,
                              .ref_pf = 1};
    mw_calib_channel_out out;
    char why[256];
    assert_int_equal(mw_calib_channel(&in, &out, why, sizeof why), 0);
    NEAR(out.phase_deg, 0, 1e-5);
    NEAR(out.angle_deg, -4, 1e-5);
    NEAR(out.gain_a_per_count, 0.04907775, 1e-8);
    NEAR(out.true_irms_a, 4.35217827, 1e-6);

    /* a reactive reference: 1000 W at PF 0.8 lagging (36.870 deg), sensor without error,
     * phase 0: PF+ = cos(-36.870 - 5) = 0.74466231, PF- = cos(-36.870 + 5) = 0.84924920;
     * reading 230 V, 4.1 A at gain 0.05: phase 0 - 36.870 + 36.870 = 0,
     * gain 0.05 x 1000 / (1 x 230 x 4.1 x 0.8) = 0.06627784, current 1250 VA / 230 V */
    mw_calib_channel_in r = {.gain_a_per_count = 0.05,
                             .phase_deg = 0,
                             .vrms_v = 230,
                             .irms_a = 4.1,
                             .pf_plus = 0.74466231,
                             .pf_minus = 0.84924920,
                             .probe_deg = 5,
                             .voltage_gain_ratio = 1,
                             .ref_power_w = 1000,
                             .ref_pf = 0.8};
    assert_int_equal(mw_calib_channel(&r, &out, why, sizeof why), 0);
    NEAR(out.phase_deg, 0, 1e-5);
    NEAR(out.gain_a_per_count, 0.06627784, 1e-8);
    NEAR(out.true_irms_a, 1250.0 / 230.0, 1e-6);
}

static void channel_from_reference_current(void **s)
{
    /* 4.35 A on the reference where the meter reads 4.0 A: 0.048828 x 4.35 / 4.0 */
    mw_calib_channel_in in = {.gain_a_per_count = 0.048828,
                              .phase_deg = 0,
                              .vrms_v = 230,
                              .irms_a = 4.0,
                              .pf_plus = 0.99904822,
                              .pf_minus = 0.99144486,
                              .probe_deg = 5,
                              .voltage_gain_ratio = 1,
                              .ref_current_a = 4.35,
                              .ref_pf = 1};
    mw_calib_channel_out out;
    char why[256];
    assert_int_equal(mw_calib_channel(&in, &out, why, sizeof why), 0);
    NEAR(out.gain_a_per_count, 0.05310045, 1e-8);
    NEAR(out.phase_deg, 2.5, 1e-5); /* the sensor's 2.5 deg lead */
}

static void channel_rejections(void **s)
{
    mw_calib_channel_in in = {.gain_a_per_count = 0.048828,
                              .phase_deg = 0,
                              .vrms_v = 230,
                              .irms_a = 4.0,
                              .pf_plus = 0.99904822,
                              .pf_minus = 0.99144486,
                              .probe_deg = 5,
                              .voltage_gain_ratio = 1,
                              .ref_power_w = 1000,
                              .ref_pf = 1};
    mw_calib_channel_out out;
    char why[256];
    mw_calib_channel_in t = in;
    t.pf_plus = -t.pf_plus;
    t.pf_minus = -t.pf_minus;
    assert_int_equal(mw_calib_channel(&t, &out, why, sizeof why), -1);
    assert_non_null(strstr(why, "wrong way round"));
    t = in;
    t.ref_pf = 0;
    assert_int_equal(mw_calib_channel(&t, &out, why, sizeof why), -1);
    t = in;
    t.irms_a = 0;
    assert_int_equal(mw_calib_channel(&t, &out, why, sizeof why), -1);
    t = in;
    t.phase_deg = 88; /* 88 + 2.5 */
    assert_int_equal(mw_calib_channel(&t, &out, why, sizeof why), -1);
    assert_non_null(strstr(why, "out of range"));
    t = in;
    t.ref_power_w = 0;
    assert_int_equal(mw_calib_channel(&t, &out, why, sizeof why), -1);
    t = in;
    t.pf_plus *= 0.3; /* PF far below what the probes' difference implies */
    t.pf_minus *= 0.3;
    assert_int_equal(mw_calib_channel(&t, &out, why, sizeof why), -1);
}

static void note_text(void **s)
{
    char out[MW_CALIB_NOTE_MAX + 1];
    int ch[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    double p[9] = {1000, 2000, 100, 100, 100, 100, 100, 100, 100}, i[9] = {0};
    mw_calib_note(230, 1, ch, p, i, out);
    assert_string_equal(out, "V230/1:1000W");
    mw_calib_note(229.7, 0, ch, p, i, out);
    assert_string_equal(out, "V229.7");
    mw_calib_note(230, 2, ch, p, i, out); /* "V230/1:1000W/2:2000W" is 20 characters */
    assert_string_equal(out, "V230/P:1+2");
    mw_calib_note(230, 9, ch, p, i, out);
    assert_string_equal(out, "V230/P:9ch");
    double p2[2] = {1000, 0}, i2[2] = {0, 4.35};
    int ch2[2] = {1, 3};
    mw_calib_note(0, 2, ch2, p2, i2, out);
    assert_string_equal(out, "1:1000W/3:4.35A");
    mw_calib_note(230, 2, ch2, p2, i2, out);
    assert_string_equal(out, "V230/P:1/I:3");
    assert_true(mw_calib_note_valid("V230/P:1+2") && mw_calib_note_valid("fluke87@lab"));
    assert_false(mw_calib_note_valid("") || mw_calib_note_valid("a b") ||
                 mw_calib_note_valid("a,b") || mw_calib_note_valid("abcdefghijklmnopq"));
}

static void dates(void **s)
{
    assert_int_equal(mw_calib_date(2025, 3, 14), 20250314);
    assert_true(mw_calib_date_valid(20250314) && mw_calib_date_valid(20240229) &&
                mw_calib_date_valid(20000229) && mw_calib_date_valid(29991231));
    assert_false(mw_calib_date_valid(20250229) || mw_calib_date_valid(21000229) ||
                 mw_calib_date_valid(20250431) || mw_calib_date_valid(20251301) ||
                 mw_calib_date_valid(19991231) || mw_calib_date_valid(20250300));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(robust_mean_drops_outliers),
        cmocka_unit_test(voltage_gain),
        cmocka_unit_test(phase_from_two_probes),
        cmocka_unit_test(channel_from_reference_power),
        cmocka_unit_test(channel_from_reference_current),
        cmocka_unit_test(channel_rejections),
        cmocka_unit_test(note_text),
        cmocka_unit_test(dates),
    };
    return cmocka_run_group_tests_name("calib", tests, NULL, NULL);
}
