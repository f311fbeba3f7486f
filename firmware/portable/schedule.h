/* schedule — where reporting windows end, in conversions, with no drift.
 * Window k ends at the first set boundary at or after k * period_us of crystal time
 * (conversion c starts at c * 104 us). Targets advance by period_us / 104 conversions with
 * the remainder carried (Bresenham), so rounding never accumulates. */
#ifndef MW_SCHEDULE_H
#define MW_SCHEDULE_H
#include <stdint.h>

typedef struct {
    uint32_t target; /* conversion index the next window boundary must reach */
    uint16_t q, r;   /* period = q * 104 + r us */
    uint16_t acc;    /* carried remainder, < 104 */
} mw_schedule;

/* Rates the meter supports, Hz. */
#define MW_RATES_HZ                                                                                \
    {                                                                                              \
        1, 2, 4, 5, 8, 10                                                                          \
    }
int mw_rate_valid(uint8_t hz);

/* Start a schedule whose first boundary is one period after conversion `start`. */
void mw_schedule_init(mw_schedule *s, uint32_t period_us, uint32_t start);
/* Advance to the next boundary. */
void mw_schedule_next(mw_schedule *s);

#endif
