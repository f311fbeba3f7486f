/* EEPROM image (firmware/portable/config.c): round trip; blank, corrupt, unknown version
 * and out-of-range images all give the defaults with the right status, never garbage. */
#include "unit.h"

#include "afe.h"
#include "config.h"
#include "crc16.h"

static void round_trip(void **s)
{
    mw_config a, b;
    mw_config_defaults(&a);
    a.rate_hz = 10;
    a.nchan_i = 15;
    for (int i = 0; i < 16; i++)
        a.pins[i] = (uint8_t)(15 - i);
    a.cal[7].gain = 0.0123f;
    a.cal[7].phase_deg = -3.25f;
    assert_true(mw_config_valid(&a));
    uint8_t img[MW_CONFIG_IMAGE_SIZE];
    mw_config_to_image(&a, img);
    assert_int_equal(mw_config_from_image(&b, img), MW_CONFIG_OK);
    assert_memory_equal(&a, &b, sizeof a);
}

static void defaults_follow_the_front_end(void **s)
{
    mw_config c;
    mw_config_defaults(&c);
    assert_int_equal(c.rate_hz, 4);
    assert_int_equal(c.nchan_i, 5);
    /* 5 V / 1024 counts * 191.667 V/V and * 10 A/V */
    assert_true(fabsf(c.cal[0].gain - 0.935872f) < 1e-5f);
    assert_true(fabsf(c.cal[1].gain - 0.048828f) < 1e-6f);
}

static void blank_and_corrupt(void **s)
{
    uint8_t img[MW_CONFIG_IMAGE_SIZE];
    mw_config c, d;
    mw_config_defaults(&d);
    memset(img, 0xFF, sizeof img);
    assert_int_equal(mw_config_from_image(&c, img), MW_CONFIG_BLANK);
    assert_memory_equal(&c, &d, sizeof c);

    mw_config a;
    mw_config_defaults(&a);
    a.cal[3].gain = 0.5f;
    uint8_t good[MW_CONFIG_IMAGE_SIZE];
    mw_config_to_image(&a, good);
    for (int byte = 0; byte < MW_CONFIG_IMAGE_SIZE; byte++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(img, good, sizeof img);
            img[byte] ^= (uint8_t)(1 << bit);
            mw_config_status st = mw_config_from_image(&c, img);
            assert_int_equal(st, MW_CONFIG_CORRUPT); /* the CRC covers every byte */
            assert_memory_equal(&c, &d, sizeof c);
        }
}

static void unknown_version_and_invalid_values(void **s)
{
    mw_config a, c;
    mw_config_defaults(&a);
    uint8_t img[MW_CONFIG_IMAGE_SIZE];
    mw_config_to_image(&a, img);
    img[2] = 2; /* a future layout, with a valid CRC */
    uint16_t crc = mw_crc16(img, MW_CONFIG_IMAGE_SIZE - 2);
    img[MW_CONFIG_IMAGE_SIZE - 2] = (uint8_t)crc;
    img[MW_CONFIG_IMAGE_SIZE - 1] = (uint8_t)(crc >> 8);
    assert_int_equal(mw_config_from_image(&c, img), MW_CONFIG_VERSION_UNKNOWN);

    a.pins[2] = a.pins[1]; /* duplicate pin, CRC valid */
    mw_config_to_image(&a, img);
    assert_int_equal(mw_config_from_image(&c, img), MW_CONFIG_INVALID);
    mw_config_defaults(&a);
    a.rate_hz = 3;
    mw_config_to_image(&a, img);
    assert_int_equal(mw_config_from_image(&c, img), MW_CONFIG_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip), cmocka_unit_test(defaults_follow_the_front_end),
        cmocka_unit_test(blank_and_corrupt), cmocka_unit_test(unknown_version_and_invalid_values)};
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
