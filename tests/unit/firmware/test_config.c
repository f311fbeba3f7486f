/* EEPROM image (firmware/portable/config.c): round trip; blank, corrupt, unknown version
 * and out-of-range images all give the defaults with the right status, never garbage. The
 * calibration record: round trip, "none" is blank, and a record is only believed with the
 * image it was saved with and with every bit intact. */
#include "../unit.h"

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
    /* revision B: 4.096 V / 1024 counts * 191.667 V/V and * 10 A/V */
    assert_true(fabsf(c.cal[0].gain - 0.766668f) < 1e-5f);
    assert_true(fabsf(c.cal[1].gain - 0.040000f) < 1e-6f);
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

static void calibration_record(void **s)
{
    mw_config a;
    mw_config_defaults(&a);
    uint8_t img[MW_CONFIG_IMAGE_SIZE];
    mw_config_to_image(&a, img);
    uint16_t link = mw_config_image_crc(img);
    assert_int_equal(link, mw_crc16(img, MW_CONFIG_IMAGE_SIZE - 2));

    mw_calrec r = {.date_yyyymmdd = 20250314}, back;
    strcpy(r.text, "V230/1:1000W");
    uint8_t rec[MW_CALREC_SIZE];
    mw_calrec_to_image(&r, link, rec);
    /* the layout of config.h: magic, version, date LE, text NUL-padded, link, CRC */
    assert_memory_equal(rec, "MC\x01\x00", 4);
    assert_int_equal(rec[4] | rec[5] << 8 | rec[6] << 16 | (uint32_t)rec[7] << 24, 20250314);
    assert_memory_equal(rec + 8, "V230/1:1000W\0\0\0\0", 16);
    assert_int_equal(rec[24] | rec[25] << 8, link);
    assert_int_equal(rec[26] | rec[27] << 8, mw_crc16(rec, 26));
    assert_int_equal(mw_calrec_from_image(&back, link, rec), 1);
    assert_int_equal(back.date_yyyymmdd, 20250314);
    assert_string_equal(back.text, "V230/1:1000W");

    /* a full 16-character text, no terminator in EEPROM */
    strcpy(r.text, "abcdefghijklmnop");
    mw_calrec_to_image(&r, link, rec);
    assert_int_equal(mw_calrec_from_image(&back, link, rec), 1);
    assert_string_equal(back.text, "abcdefghijklmnop");

    /* saved with another image (e.g. a firmware without records saved since) */
    assert_int_equal(mw_calrec_from_image(&back, (uint16_t)(link ^ 1), rec), 0);
    assert_int_equal(back.date_yyyymmdd, 0);
    assert_string_equal(back.text, "");
    /* every flipped bit is caught */
    uint8_t good[MW_CALREC_SIZE];
    memcpy(good, rec, sizeof good);
    for (int byte = 0; byte < MW_CALREC_SIZE; byte++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(rec, good, sizeof rec);
            rec[byte] ^= (uint8_t)(1 << bit);
            assert_int_equal(mw_calrec_from_image(&back, link, rec), 0);
            assert_int_equal(back.date_yyyymmdd, 0);
        }
    /* none: all 0xFF, i.e. what an erased or never-written EEPROM holds */
    mw_calrec none = {0};
    mw_calrec_to_image(&none, link, rec);
    for (int i = 0; i < MW_CALREC_SIZE; i++)
        assert_int_equal(rec[i], 0xFF);
    assert_int_equal(mw_calrec_from_image(&back, link, rec), 0);

    assert_true(mw_calrec_date_valid(20000101) && mw_calrec_date_valid(29991231));
    assert_false(mw_calrec_date_valid(19991231) || mw_calrec_date_valid(20251301) ||
                 mw_calrec_date_valid(20250100) || mw_calrec_date_valid(20250132) ||
                 mw_calrec_date_valid(0));
    assert_true(mw_calrec_char_valid('a') && mw_calrec_char_valid('Z') &&
                mw_calrec_char_valid('9') && mw_calrec_char_valid('@'));
    assert_false(mw_calrec_char_valid(',') || mw_calrec_char_valid(';') ||
                 mw_calrec_char_valid('*') || mw_calrec_char_valid(' ') ||
                 mw_calrec_char_valid(0) || mw_calrec_char_valid('\x80'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip), cmocka_unit_test(defaults_follow_the_front_end),
        cmocka_unit_test(blank_and_corrupt), cmocka_unit_test(unknown_version_and_invalid_values),
        cmocka_unit_test(calibration_record)};
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
