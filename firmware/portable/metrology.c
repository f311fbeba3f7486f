/* metrology — see metrology.h. */
#include "metrology.h"

#include <math.h>

#include "afe.h"

#define MW_PI_F 3.14159265358979f

int16_t mw_metrology_vmean(const mw_sums *s)
{
    if (!s->nsets) return 0;
    float m = (float)s->sv / (float)s->nsets;
    return (int16_t)lroundf(m);
}

static float measure_freq(const mw_sums *s, uint8_t m, uint8_t *ok)
{
    *ok = 0;
    if (s->ncross < 2 || s->x1_set == s->x0_set) return 0;
    /* crossing instant in sets, linear between the samples a (below) and b (at/above) */
    float f0 = (float)-s->x0_a / (float)(s->x0_b - s->x0_a);
    float f1 = (float)-s->x1_a / (float)(s->x1_b - s->x1_a);
    float sets = (float)(s->x1_set - s->x0_set) + f1 - f0;
    float seconds = sets * (float)m * (float)MW_CONV_US * 1e-6f;
    if (!(seconds > 0)) return 0;
    *ok = 1;
    return (float)(s->ncross - 1) / seconds;
}

void mw_metrology_compute(const mw_sums *s, uint8_t nchan_i, const mw_cal *cal, float fallback_hz,
                          mw_metrology *out)
{
    uint8_t m = (uint8_t)(nchan_i + 1);
    float n = (float)(s->nsets ? s->nsets : 1);
    float mv = (float)s->sv / n;
    float mvn = (float)s->svn / n;
    /* DC offsets over the whole mains cycles between the first and last rising crossing:
     * a window of a non-integer number of cycles has AC means that are not zero, and
     * removing those (with the plain window means) would bias P low by ~(1/(pi N))^2 */
    int whole = s->ncross >= 2 && s->x1_set > s->x0_set;
    float nd = whole ? (float)(s->x1_set - s->x0_set) : n;
    float dv = whole ? (float)(s->x1_sv - s->x0_sv) / nd : mv;
    float var_v = (float)s->svv / n - 2.0f * dv * mv + dv * dv; /* mean((v - dv)^2) */
    float gv = cal[0].gain;
    out->vrms_v = var_v > 0 ? sqrtf(var_v) * gv : 0;

    /* the ISR stores the samples around each crossing relative to its threshold */
    float f = measure_freq(s, m, &out->freq_ok);
    out->freq_hz = out->freq_ok ? f : fallback_hz;

    float t_set = (float)m * (float)MW_CONV_US * 1e-6f; /* seconds between voltage samples */
    float theta = 2.0f * MW_PI_F * out->freq_hz * t_set;
    float sin_theta = sinf(theta);

    for (uint8_t k = 0; k < nchan_i; k++) {
        const mw_cal *c = &cal[1 + k];
        float mi = (float)s->si[k] / n;
        float di = whole ? (float)(s->x1_si[k] - s->x0_si[k]) / nd : mi;
        float var_i = (float)s->sii[k] / n - 2.0f * di * mi + di * di;
        /* mean((i - di)(v - dv)) with v(s), and with v(s+1) */
        float cp = (float)s->svi[k] / n - dv * mi - di * mv + dv * di;
        float cn = (float)s->svni[k] / n - dv * mi - di * mvn + dv * di;
        /* fraction of the set interval from v(s) to the voltage instant we want */
        /* phase_deg at the mains frequency is phase_deg / (360 f) seconds */
        float a = (float)(k + 1) / (float)m + c->phase_deg / (360.0f * out->freq_hz * t_set);
        float wp, wn;
        if (fabsf(sin_theta) > 1e-4f) {
            wp = sinf((1.0f - a) * theta) / sin_theta;
            wn = sinf(a * theta) / sin_theta;
        } else { /* degenerate: fall back to linear interpolation */
            wp = 1.0f - a;
            wn = a;
        }
        float p = (wp * cp + wn * cn) * gv * c->gain;
        float irms = var_i > 0 ? sqrtf(var_i) * c->gain : 0;
        out->p_w[k] = p;
        out->irms_a[k] = irms;
        float s_va = out->vrms_v * irms;
        out->pf[k] = s_va > 0 ? p / s_va : 0;
    }
}
