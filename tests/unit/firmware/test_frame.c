/* Window frame (firmware/portable/frame.c): energy accumulation is exact over a long run
 * (checked against the sum of p*dt computed here in integers), signed, truncated toward
 * zero in mJ; metrology is rounded to the wire's units; an encoded frame that does not fit
 * is refused. */
#include "../unit.h"

#include "frame.h"

static void energy_is_exact_over_a_day(void **s)
{
    mw_energy e = {0, 0};
    __int128 want_nj = 0;
    uint64_t x = 12345;
    for (int i = 0; i < 4 * 86400; i++) { /* a day of 4 Hz windows */
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int32_t p_mw = (int32_t)(x >> 40) % 4000000 - 1000000; /* -1 kW .. 3 kW */
        uint32_t dt_us = 249600u + (uint32_t)((x >> 20) % 7) * 104u;
        mw_energy_add(&e, p_mw, dt_us);
        want_nj += (__int128)p_mw * dt_us;
    }
    assert_true((__int128)e.uj * 1000 + e.rem_nj == want_nj);
    assert_true(mw_energy_mj(&e) == (int64_t)(want_nj / 1000000));
}

static void energy_sign_and_truncation(void **s)
{
    mw_energy e = {0, 0};
    mw_energy_add(&e, -1500, 1000); /* -1.5 W for 1 ms = -1.5 mJ */
    assert_true(e.uj == -1500 && e.rem_nj == 0);
    assert_true(mw_energy_mj(&e) == -1);
    mw_energy_add(&e, 1, 999); /* +999 nJ: below one uJ, kept in the remainder */
    assert_true(e.uj == -1500 && e.rem_nj == 999);
    mw_energy_add(&e, 1, 1); /* the remainder reaches one uJ */
    assert_true(e.uj == -1499 && e.rem_nj == 0);
}

static void values_in_wire_units(void **s)
{
    mw_metrology r;
    memset(&r, 0, sizeof r);
    r.freq_hz = 49.9876f;
    r.vrms_v = 230.0456f;
    r.p_w[0] = 156.2996f;
    r.irms_a[0] = 0.6789012f;
    r.pf[0] = -0.99951f;
    mw_frame f;
    memset(&f, 0, sizeof f);
    mw_frame_set_values(&f, &r, 1);
    assert_int_equal(f.freq_mhz, 49988);
    assert_int_equal(f.vrms_mv, 230046);
    assert_int_equal(f.p_mw[0], 156300);
    assert_int_equal(f.irms_ua[0], 678901);
    assert_int_equal(f.pf_milli[0], -1000);
    assert_int_equal(f.nchan, 1);
}

static void too_small_a_buffer_is_refused(void **s)
{
    mw_frame f;
    memset(&f, 0, sizeof f);
    f.nchan = 15;
    char big[1024], small[64];
    assert_true(mw_frame_encode(&f, big, sizeof big) > 64);
    assert_int_equal(mw_frame_encode(&f, small, sizeof small), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(energy_is_exact_over_a_day), cmocka_unit_test(energy_sign_and_truncation),
        cmocka_unit_test(values_in_wire_units), cmocka_unit_test(too_small_a_buffer_is_refused)};
    return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
