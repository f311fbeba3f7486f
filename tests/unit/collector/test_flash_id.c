/* Unit tests for collector/flash_id.c: the identification line mw flash waits for after
 * writing the firmware — CRC over the bytes before '*', upper-case hex, noise before the
 * line ignored, version and build id extracted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "crc16.h"
#include "flash_id.h"

static void make_line(char *out, size_t outlen, const char *prefix, const char *body)
{
    snprintf(out, outlen, "%s%s*%04X\r\n", prefix, body, mw_crc16(body, strlen(body)));
}

static void valid_line(void **state)
{
    char line[256];
    make_line(line, sizeof line, "", "I,megawatt,0.1.0,abc123,atmega2560,4,250");
    mw_flash_id id;
    assert_int_equal(mw_flash_parse_id(line, strlen(line), &id), 1);
    assert_string_equal(id.version, "0.1.0");
    assert_string_equal(id.build, "abc123");
    assert_string_equal(id.line, "I,megawatt,0.1.0,abc123,atmega2560,4,250");
}

static void noise_before_is_ignored(void **state)
{
    char line[256];
    make_line(line, sizeof line, "\x1b\xffjunk", "I,megawatt,0.2.0,x,y");
    mw_flash_id id;
    assert_int_equal(mw_flash_parse_id(line, strlen(line), &id), 1);
    assert_string_equal(id.version, "0.2.0");
}

static void bad_crc(void **state)
{
    char line[256];
    make_line(line, sizeof line, "", "I,megawatt,0.1.0,abc,atmega2560");
    char *star = strchr(line, '*');
    star[1] = star[1] == '0' ? '1' : '0';
    mw_flash_id id;
    assert_int_equal(mw_flash_parse_id(line, strlen(line), &id), -1);
}

static void lower_case_hex_is_refused(void **state)
{
    /* find a body whose CRC has a letter in it, then write that CRC in lower case */
    char body[64], line[256];
    unsigned crc = 0;
    for (int i = 0; i < 100; i++) {
        snprintf(body, sizeof body, "I,megawatt,0.1.0,b%d,atmega2560", i);
        crc = mw_crc16(body, strlen(body));
        char hex[8];
        snprintf(hex, sizeof hex, "%04X", crc);
        if (strpbrk(hex, "ABCDEF")) break;
    }
    snprintf(line, sizeof line, "%s*%04x\r\n", body, crc);
    mw_flash_id id;
    assert_int_equal(mw_flash_parse_id(line, strlen(line), &id), -1);
    snprintf(line, sizeof line, "%s*%04X\r\n", body, crc);
    assert_int_equal(mw_flash_parse_id(line, strlen(line), &id), 1);
}

static void other_lines(void **state)
{
    char line[256];
    make_line(line, sizeof line, "", "W,1,2,3");
    mw_flash_id id;
    assert_int_equal(mw_flash_parse_id(line, strlen(line), &id), 0);
    make_line(line, sizeof line, "", "I,megawatt,0.1.0"); /* no build id */
    assert_int_equal(mw_flash_parse_id(line, strlen(line), &id), -1);
    assert_int_equal(mw_flash_parse_id("", 0, &id), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_line),  cmocka_unit_test(noise_before_is_ignored),
        cmocka_unit_test(bad_crc),     cmocka_unit_test(lower_case_hex_is_refused),
        cmocka_unit_test(other_lines),
    };
    return cmocka_run_group_tests_name("flash_id", tests, NULL, NULL);
}
