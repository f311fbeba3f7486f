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

/* The mean period from least-squares lines through the window's rising and its falling
 * crossings (instant against crossing number, one slope for both, an offset each): with
 * n crossings of each kind its noise is sqrt(3 / n) of the one from the first and last
 * rising crossing alone. Per kind, n Sxy and n Sxx (no division): the sums of c and c^2 are exact in
 * 32 bits (n is at most 70), n Sxy exactly from two 32 x 32 -> 64-bit products (it
 * cancels to a fraction of its terms; 64-bit divisions would cost the AVR ~1 ms). */
static float measure_freq(const mw_sums *s, uint8_t m, uint8_t *ok)
{
    *ok = 0;
    float sxy = 0, sxx = 0;
    for (uint8_t e = 0; e < 2; e++) {
        const mw_edges *x = &s->xe[e];
        int32_t n = x->n;
        if (n < 2) continue;
        int32_t sc = n * (n - 1) / 2, scc = (n - 1) * n * (2 * n - 1) / 6;
        int64_t p1 = (int64_t)((uint64_t)(uint32_t)n * x->sct);
        int64_t p2 = (int64_t)((uint64_t)(uint32_t)sc * x->st);
        /* n Sxy and n Sxx: the slope of their sums is the mean of the two kinds' slopes
         * weighted by n Sxx (n differs by one at most between the kinds) */
        sxy += (float)(p1 - p2);
        sxx += (float)(n * scc - sc * sc);
    }
    if (!(sxy > 0) || !(sxx > 0)) return 0;
    float sets = sxy / sxx / 256.0f; /* sets per mains cycle */
    float seconds = sets * (float)m * (float)MW_CONV_US * 1e-6f;
    *ok = 1;
    return 1.0f / seconds;
}

/* Harmonics at which the interpolation is made exact: the fundamental and the odd one
 * that real mains carries most, the 5th, or the 3rd where the 5th comes too near the
 * voltage samples' Nyquist frequency (h theta >= MW_INTERP_MAX_RAD; 16 channels). */
#define MW_INTERP_MAX_RAD 2.2f
#if MW_NLAG != 4
#error "mw_interp is written for four taps, lags -1..2"
#endif

void mw_interp_init(mw_interp *ip, float theta, float c1, float s1)
{
    ip->ok = 0;
    ip->theta = theta;
    ip->h2 = 5.0f * theta < MW_INTERP_MAX_RAD ? 5 : 3;
    if (3.0f * theta >= MW_INTERP_MAX_RAD) return;
    /* rows: Re and Im of sum_j w_j exp(i h theta lag_j) for h = 1, h2; lags -1..2 */
    float (*a)[MW_NLAG] = ip->lu;
    /* exp(i h2 theta) as a power of exp(i theta): no sine */
    float c2 = c1 * c1 - s1 * s1, s2 = 2.0f * c1 * s1;
    float ch = c2 * c1 - s2 * s1, sh = s2 * c1 + c2 * s1; /* h = 3 */
    if (ip->h2 == 5) {
        float t = ch * c2 - sh * s2;
        sh = sh * c2 + ch * s2;
        ch = t;
    }
    for (uint8_t q = 0; q < 2; q++) {
        float c = q ? ch : c1, sn = q ? sh : s1;
        float re[MW_NLAG] = {c, 1.0f, c, c * c - sn * sn};
        float im[MW_NLAG] = {-sn, 0.0f, sn, 2.0f * c * sn};
        for (uint8_t j = 0; j < MW_NLAG; j++) {
            a[2 * q][j] = re[j];
            a[2 * q + 1][j] = im[j];
        }
    }
    /* LU with partial pivoting, once per window; each channel then only substitutes */
    for (uint8_t r = 0; r < MW_NLAG; r++)
        ip->perm[r] = r;
    for (uint8_t c = 0; c < MW_NLAG; c++) {
        uint8_t p = c;
        for (uint8_t r = (uint8_t)(c + 1u); r < MW_NLAG; r++)
            if (fabsf(a[r][c]) > fabsf(a[p][c])) p = r;
        if (fabsf(a[p][c]) < 1e-6f) return;
        if (p != c) {
            for (uint8_t j = 0; j < MW_NLAG; j++) {
                float t = a[c][j];
                a[c][j] = a[p][j];
                a[p][j] = t;
            }
            uint8_t t = ip->perm[c];
            ip->perm[c] = ip->perm[p];
            ip->perm[p] = t;
        }
        for (uint8_t r = (uint8_t)(c + 1u); r < MW_NLAG; r++) {
            a[r][c] /= a[c][c];
            for (uint8_t j = (uint8_t)(c + 1u); j < MW_NLAG; j++)
                a[r][j] -= a[r][c] * a[c][j];
        }
    }
    for (uint8_t r = 0; r < MW_NLAG; r++)
        ip->rdiag[r] = 1.0f / a[r][r];
    ip->ok = 1;
}

void mw_interp_weights(const mw_interp *ip, float a, float c, float sn, float *w)
{
    float theta = ip->theta;
    if (!ip->ok) { /* the two-tap sinusoidal interpolation, exact for the fundamental */
        float st = sinf(theta);
        for (uint8_t j = 0; j < MW_NLAG; j++)
            w[j] = 0;
        if (fabsf(st) > 1e-4f) {
            w[-MW_LAG_LO] = sinf((1.0f - a) * theta) / st;
            w[1 - MW_LAG_LO] = sinf(a * theta) / st;
        } else {
            w[-MW_LAG_LO] = 1.0f - a;
            w[1 - MW_LAG_LO] = a;
        }
        return;
    }
    /* right-hand side exp(i h theta a) for h = 1 and h2 (a power of the first) */
    float c2 = c * c - sn * sn, s2 = 2.0f * c * sn; /* h = 2 */
    float c3 = c2 * c - s2 * sn, s3 = s2 * c + c2 * sn;
    float ch = c3, sh = s3;
    if (ip->h2 == 5) {
        ch = c3 * c2 - s3 * s2;
        sh = s3 * c2 + c3 * s2;
    }
    float rhs[MW_NLAG] = {c, sn, ch, sh}, y[MW_NLAG];
    for (uint8_t r = 0; r < MW_NLAG; r++) {
        float v = rhs[ip->perm[r]];
        for (uint8_t j = 0; j < r; j++)
            v -= ip->lu[r][j] * y[j];
        y[r] = v;
    }
    for (int8_t r = MW_NLAG - 1; r >= 0; r--) {
        float v = y[r];
        for (uint8_t j = (uint8_t)(r + 1); j < MW_NLAG; j++)
            v -= ip->lu[r][j] * w[j];
        w[r] = v * ip->rdiag[r];
    }
}

void mw_metrology_weights(float theta, float a, float *w)
{
    mw_interp ip;
    mw_interp_init(&ip, theta, cosf(theta), sinf(theta));
    mw_interp_weights(&ip, a, cosf(theta * a), sinf(theta * a), w);
}

void mw_metrology_compute(const mw_sums *s, uint8_t nchan_i, const mw_cal *cal, float fallback_hz,
                          mw_metrology *out)
{
    uint8_t m = (uint8_t)MW_SET_CONV(nchan_i); /* conversions per set */
    float n = (float)(s->nsets ? s->nsets : 1);
    float mv = (float)s->sv / n;
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
    /* the filters of the last windows serve while the frequency stays within 0.02 % of
     * theirs (their response then moves by < 1e-6 at the fundamental, < 1e-5 at the 5th
     * with 1 + 5 channels): the main loop's time per window stays what it was */
    static mw_wcache wc;
    if (m != wc.m || fabsf(theta - wc.theta) > 2e-4f * wc.theta) {
        wc.m = m;
        wc.theta = theta;
        for (uint8_t k = 0; k < MW_MAX_I; k++)
            wc.valid[k] = 0;
    }
    mw_interp ip;
    uint8_t ip_ready = 0;

    /* per channel, multiplications only (a float division costs ~4 of them on the AVR) */
    float inv_n = 1.0f / n, inv_nd = 1.0f / nd, a_cal = 1.0f / (360.0f * out->freq_hz * t_set);
    float mvl[MW_NLAG];
    for (uint8_t j = 0; j < MW_NLAG; j++)
        mvl[j] = (float)s->svl[j] * inv_n;
    for (uint8_t k = 0; k < nchan_i; k++) {
        const mw_cal *c = &cal[1 + k];
        const mw_chsums *cs = &s->ch[k];
        float mi = (float)cs->si * inv_n;
        float di = whole ? (float)(cs->x1_si - cs->x0_si) * inv_nd : mi;
        float var_i = (float)cs->sii * inv_n - 2.0f * di * mi + di * di;
        /* fraction of the set interval from v(s) to the voltage instant we want */
        /* phase_deg at the mains frequency is phase_deg / (360 f) seconds */
        float *w = wc.w[k];
        if (!wc.valid[k] || wc.phase_deg[k] != c->phase_deg) {
            if (!ip_ready) {
                mw_interp_init(&ip, wc.theta, cosf(wc.theta), sinf(wc.theta));
                ip_ready = 1;
            }
            float a = (float)MW_SET_POS(k) / (float)m + c->phase_deg * a_cal;
            mw_interp_weights(&ip, a, cosf(wc.theta * a), sinf(wc.theta * a), w);
            wc.phase_deg[k] = c->phase_deg;
            wc.valid[k] = 1;
        }
        /* sum_j w_j mean((i - di)(v(s + lag_j) - dv)) */
        float pv = 0, pm = 0, pw = 0;
        for (uint8_t j = 0; j < MW_NLAG; j++) {
            pv += w[j] * (float)cs->svi[j];
            pm += w[j] * mvl[j];
            pw += w[j];
        }
        float p = pv * inv_n - di * pm + (dv * di - dv * mi) * pw;
        p *= gv * c->gain;
        float irms = var_i > 0 ? sqrtf(var_i) * c->gain : 0;
        out->p_w[k] = p;
        out->irms_a[k] = irms;
        float s_va = out->vrms_v * irms;
        out->pf[k] = s_va > 0 ? p / s_va : 0;
    }
}
