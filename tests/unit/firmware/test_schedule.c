/* Window schedule (firmware/portable/schedule.c): boundary k is conversion
 * floor(k * period / 104 us) exactly, for every rate, over a day of windows. */
#include "../unit.h"

#include "schedule.h"

static void exact_for_every_rate(void **s)
{
    static const uint32_t hz[] = {1, 2, 4, 5, 8, 10};
    for (unsigned r = 0; r < 6; r++) {
        uint32_t period = 1000000u / hz[r];
        mw_schedule sc;
        mw_schedule_init(&sc, period, 0);
        for (uint64_t k = 1; k <= 86400u * hz[r]; k++) {
            uint64_t want = k * period / 104u;
            if (sc.target != (uint32_t)want)
                fail_msg("%u Hz window %llu: %u, want %llu", hz[r], (unsigned long long)k,
                         sc.target, (unsigned long long)want);
            mw_schedule_next(&sc);
        }
    }
}

static void starts_where_told(void **s)
{
    mw_schedule sc;
    mw_schedule_init(&sc, 250000, 1000);
    assert_int_equal(sc.target, 1000 + 250000 / 104);
}

static void rates(void **s)
{
    for (int hz = 0; hz < 256; hz++)
        assert_int_equal(mw_rate_valid((uint8_t)hz),
                         hz == 1 || hz == 2 || hz == 4 || hz == 5 || hz == 8 || hz == 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(exact_for_every_rate),
                                       cmocka_unit_test(starts_where_told),
                                       cmocka_unit_test(rates)};
    return cmocka_run_group_tests_name("schedule", tests, NULL, NULL);
}
