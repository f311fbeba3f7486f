/* The compact phase encoding (host/phase_codec.c, docs/run-store.md): events round-trip
 * exactly, extremes included (int64 limits, negative bytes and peers); the sizes are those of
 * LEB128 worked by hand; unsorted input is refused; damaged data (cut short, a varint too
 * long, a time past int64) is an error, never a wrong event. */
#include "../unit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../../host/phase_codec.h"

static void round_trip(void **state)
{
    mw_pc_event ev[] = {
        {1000, 1000, 0, 0, -1},                 /* an instant */
        {1010, 3010, 0, 5, 1},                  /* 10 ns later, 2 µs long */
        {1010, 1011, -7, 127, -2147483647 - 1}, /* same start; negative bytes; INT32_MIN */
        {2000000000000000000, INT64_MAX, INT64_MIN, 128, 2147483647},
    };
    size_t n = sizeof ev / sizeof ev[0];
    unsigned char buf[sizeof ev / sizeof ev[0] * MW_PC_EVENT_MAX];
    size_t len = mw_pc_encode(ev, n, 990, buf);
    assert_true(len > 0);
    mw_pc_reader r;
    mw_pc_reader_init(&r, buf, len, 990);
    mw_pc_event got;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(mw_pc_next(&r, &got), 1);
        assert_true(got.start_ns == ev[i].start_ns && got.end_ns == ev[i].end_ns);
        assert_true(got.bytes == ev[i].bytes && got.name == ev[i].name);
        assert_int_equal(got.peer, ev[i].peer);
    }
    assert_int_equal(mw_pc_next(&r, &got), 0);
}

/* LEB128 by hand: deltas 10, 2000 (2 bytes: 2000 >= 128), name 1, bytes 0 -> 0, peer -1 -> 1 */
static void sizes(void **state)
{
    mw_pc_event ev[] = {{10, 2010, 0, 1, -1}, {20, 20, 64, 300, 3}};
    unsigned char buf[2 * MW_PC_EVENT_MAX];
    /* 1 + 2 + 1 + 1 + 1 = 6; then 1 (10) + 1 (0) + 2 (300) + 2 (zigzag 64 = 128) + 1 (6) = 7 */
    assert_int_equal(mw_pc_encode(ev, 2, 0, buf), 13);
    static const unsigned char first[] = {10, 0xd0, 0x0f, 1, 0, 1};
    assert_memory_equal(buf, first, sizeof first);
}

static void refuses_unsorted(void **state)
{
    unsigned char buf[2 * MW_PC_EVENT_MAX];
    mw_pc_event back[] = {{20, 30, 0, 0, 0}, {10, 30, 0, 0, 0}};
    assert_int_equal(mw_pc_encode(back, 2, 0, buf), 0);
    mw_pc_event before_base[] = {{5, 6, 0, 0, 0}};
    assert_int_equal(mw_pc_encode(before_base, 1, 10, buf), 0);
    mw_pc_event ends_early[] = {{5, 4, 0, 0, 0}};
    assert_int_equal(mw_pc_encode(ends_early, 1, 0, buf), 0);
    mw_pc_event bad_name[] = {{5, 6, 0, -1, 0}};
    assert_int_equal(mw_pc_encode(bad_name, 1, 0, buf), 0);
}

static int decode_all(const unsigned char *d, size_t len, int64_t base)
{
    mw_pc_reader r;
    mw_pc_reader_init(&r, d, len, base);
    mw_pc_event e;
    int rc;
    while ((rc = mw_pc_next(&r, &e)) == 1) {
    }
    return rc;
}

static void damaged(void **state)
{
    mw_pc_event ev[] = {{100, 200, 5, 3, 1}};
    unsigned char buf[MW_PC_EVENT_MAX];
    size_t len = mw_pc_encode(ev, 1, 0, buf);
    for (size_t cut = 1; cut < len; cut++) /* every cut is an error */
        assert_int_equal(decode_all(buf, cut, 0), -1);
    unsigned char eleven[11 + 4];
    memset(eleven, 0x80, 11); /* a varint that never ends within 10 bytes */
    memset(eleven + 11, 0, 4);
    assert_int_equal(decode_all(eleven, sizeof eleven, 0), -1);
    /* a start past INT64_MAX: base INT64_MAX - 1, delta 5 */
    unsigned char past[] = {5, 0, 0, 0, 0};
    assert_int_equal(decode_all(past, sizeof past, INT64_MAX - 1), -1);
    /* an end past INT64_MAX: length 2^63 - 1 from start 1 */
    unsigned char longest[] = {1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0};
    assert_int_equal(decode_all(longest, sizeof longest, 0), -1);
    /* a peer beyond int32 (zigzag 2^32) */
    unsigned char peer[] = {0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10};
    assert_int_equal(decode_all(peer, sizeof peer, 0), -1);
    assert_int_equal(decode_all(NULL, 0, 0), 0); /* empty: no events */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(sizes),
        cmocka_unit_test(refuses_unsorted),
        cmocka_unit_test(damaged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
