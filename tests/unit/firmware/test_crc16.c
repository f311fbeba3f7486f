/* Unit tests for firmware/portable/crc16 against the published CRC-16/CCITT-FALSE check
 * value and properties any CRC must have. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "crc16.h"

static void check_value(void **state)
{
    /* catalogue check value of CRC-16/CCITT-FALSE */
    assert_int_equal(mw_crc16("123456789", 9), 0x29B1);
    assert_int_equal(mw_crc16("", 0), 0xFFFF);
}

static void incremental_equals_whole(void **state)
{
    const char *s = "W,12,250000,0;1:230000";
    size_t n = strlen(s);
    for (size_t cut = 0; cut <= n; cut++) {
        uint16_t c = mw_crc16_update(MW_CRC16_INIT, s, cut);
        c = mw_crc16_update(c, s + cut, n - cut);
        assert_int_equal(c, mw_crc16(s, n));
    }
}

static void detects_every_single_bit_flip(void **state)
{
    char buf[32] = "I,megawatt,0.1.0,abc,atmega2560";
    uint16_t ref = mw_crc16(buf, sizeof buf);
    for (size_t i = 0; i < sizeof buf * 8; i++) {
        buf[i / 8] ^= (char)(1 << (i % 8));
        assert_int_not_equal(mw_crc16(buf, sizeof buf), ref);
        buf[i / 8] ^= (char)(1 << (i % 8));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_value),
        cmocka_unit_test(incremental_equals_whole),
        cmocka_unit_test(detects_every_single_bit_flip),
    };
    return cmocka_run_group_tests_name("crc16", tests, NULL, NULL);
}
