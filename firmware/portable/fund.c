/* fund — see fund.h. */
#include "fund.h"

#include <math.h>

#include "afe.h"
#include "sums.h"

#define MW_FUND_MIN_CYCLES 2.0f /* per half (see fund.h) */

void mw_fund_setup(mw_fund_ref *r, float hz, uint8_t nchan_i, uint32_t period_us)
{
    uint8_t m = (uint8_t)MW_SET_CONV(nchan_i);
    float t_set = (float)m * (float)MW_CONV_US * 1e-6f;
    uint32_t sets = period_us / ((uint32_t)m * MW_CONV_US);
    uint16_t h = sets > 4u ? (uint16_t)((sets - 1u) / 2u) : 0u;
    r->dp = 0;
    r->dhp = 0;
    r->h = 0;
    if (!h || !(hz > 0) || hz * (float)h * t_set < MW_FUND_MIN_CYCLES) return;
    float dp = hz * t_set * (float)MW_FUND_CYCLE;
    if (!(dp >= 1.0f && dp < (float)(MW_FUND_CYCLE / 2u))) return;
    r->dp = (uint16_t)lroundf(dp);
    r->dhp = (uint16_t)(65536ul / h);
    r->h = h;
}

uint8_t mw_fund_freq(const mw_fund_ref *ref, const int32_t *z, uint16_t nsets, uint8_t m, float *hz)
{
    uint16_t h = ref->h;
    if (!h || !ref->dp || nsets < 2u * (uint32_t)h) return 0;
    float t_set = (float)m * (float)MW_CONV_US * 1e-6f;
    float f_ref = (float)ref->dp / (float)MW_FUND_CYCLE / t_set;
    /* the second half's phasor times the conjugate of the first's */
    float r0 = (float)z[0], i0 = (float)z[1], r1 = (float)z[2], i1 = (float)z[3];
    float re = r1 * r0 + i1 * i0, im = i1 * r0 - r1 * i0;
    if (!(re * re + im * im > 0)) return 0;
    float d = atan2f(im, re);
    *hz = f_ref + d / (2.0f * 3.14159265358979f * (float)h * t_set);
    return 1;
}
