/* Line builder (firmware/portable/line.c): integer formatting against printf, CRC framing
 * checked by the host decoder, overflow never writes past the buffer. */
#include "../unit.h"

#include "crc16.h"
#include "line.h"
#include "mw_proto.h"

static void integers_match_printf(void **s)
{
    static const int64_t v[] = {0, 1, -1, 9, 10, 12345, -987654321, INT64_MAX, INT64_MIN};
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
        char buf[64], want[64];
        mw_line l;
        mw_line_init(&l, buf, sizeof buf);
        mw_line_i64(&l, v[i]);
        buf[l.len] = 0;
        snprintf(want, sizeof want, "%lld", (long long)v[i]);
        assert_string_equal(buf, want);
    }
    char buf[64];
    mw_line l;
    mw_line_init(&l, buf, sizeof buf);
    mw_line_u64(&l, UINT64_MAX);
    buf[l.len] = 0;
    assert_string_equal(buf, "18446744073709551615");
    /* around the 32-bit and 9-digit cuts (line.c), against the C library */
    static const uint64_t u[] = {4294967295u, 4294967296u, 1000000000u, 999999999u,
                                 4000000000000000000u, 4000000000000000001u, 1000000000000000000u,
                                 10000000000u, 123456789012345678u};
    for (unsigned i = 0; i < sizeof u / sizeof u[0]; i++) {
        char want[32];
        mw_line_init(&l, buf, sizeof buf);
        mw_line_u64(&l, u[i]);
        buf[l.len] = 0;
        snprintf(want, sizeof want, "%llu", (unsigned long long)u[i]);
        assert_string_equal(buf, want);
    }
}

static void hex_and_fixed(void **s)
{
    char buf[64];
    mw_line l;
    mw_line_init(&l, buf, sizeof buf);
    mw_line_hex(&l, 0);
    mw_line_char(&l, ' ');
    mw_line_hex(&l, 0xBEEF01);
    mw_line_char(&l, ' ');
    mw_line_fixed(&l, 48828, 6);
    mw_line_char(&l, ' ');
    mw_line_fixed(&l, -2500, 3);
    mw_line_char(&l, ' ');
    mw_line_fixed(&l, 7, 0);
    buf[l.len] = 0;
    assert_string_equal(buf, "0 BEEF01 0.048828 -2.500 7");
}

static void finish_adds_checkable_crc(void **s)
{
    char buf[64];
    mw_line l;
    mw_line_init(&l, buf, sizeof buf);
    mw_line_str(&l, "OK,SAVE");
    uint16_t n = mw_line_finish(&l);
    assert_int_equal(n, strlen("OK,SAVE*XXXX\r\n"));
    char want[32];
    snprintf(want, sizeof want, "OK,SAVE*%04X\r\n", mw_crc16("OK,SAVE", 7));
    assert_string_equal(buf, want);
    assert_int_equal(mw_proto_check_crc(buf, n - 2), 7);
}

static void overflow_is_refused(void **s)
{
    char buf[24];
    memset(buf, 0x5A, sizeof buf);
    mw_line l;
    mw_line_init(&l, buf, 16); /* the builder owns only 16 bytes */
    mw_line_str(&l, "0123456789ABCDEF");
    assert_int_equal(mw_line_finish(&l), 0);
    for (int i = 16; i < 24; i++)
        assert_int_equal((unsigned char)buf[i], 0x5A);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_match_printf), cmocka_unit_test(hex_and_fixed),
        cmocka_unit_test(finish_adds_checkable_crc), cmocka_unit_test(overflow_is_refused)};
    return cmocka_run_group_tests_name("line", tests, NULL, NULL);
}
