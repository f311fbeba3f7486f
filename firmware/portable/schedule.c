/* schedule — see schedule.h. */
#include "schedule.h"

#include "afe.h"

int mw_rate_valid(uint8_t hz)
{
    static const uint8_t rates[] = MW_RATES_HZ;
    for (uint8_t i = 0; i < sizeof rates; i++)
        if (rates[i] == hz) return 1;
    return 0;
}

void mw_schedule_init(mw_schedule *s, uint32_t period_us, uint32_t start)
{
    s->q = (uint16_t)(period_us / MW_CONV_US);
    s->r = (uint16_t)(period_us % MW_CONV_US);
    s->acc = 0;
    s->target = start;
    mw_schedule_next(s);
}

void mw_schedule_next(mw_schedule *s)
{
    s->target += s->q;
    s->acc += s->r;
    if (s->acc >= MW_CONV_US) {
        s->acc -= MW_CONV_US;
        s->target++;
    }
}
