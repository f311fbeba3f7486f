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
 * cancels to a fraction of its terms; 64-bit divisions would cost the AVR ~1 ms). The
 * crossings' instants are off by an amount that depends on the sampling phase and the
 * harmonics (fund.h): where the window measured the fundamental's phase in its two halves,
 * that is the frequency, and the crossings only check it. */
#define MW_FUND_AGREE_HZ 0.25f
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
    float f = 1.0f / seconds, ff;
    /* the fundamental's phase (fund.h) where the window measured it, lost no conversion
     * (the reference's phase only advances with the sets sampled: a missed one would
     * shift the second half's phase by ~2 pi f 104 us, tens of mHz) and the crossings
     * agree within 0.25 Hz (they are off by tens of mHz at most; the phase wraps at
     * f_ref +- 1 / (2 h T), 4 Hz at 4 windows/s, and the reference may be a start's 50 Hz) */
    if (!s->missed && mw_fund_freq(&s->fref, s->fz, s->nsets, m, &ff) &&
        fabsf(ff - f) < MW_FUND_AGREE_HZ)
        f = ff;
    return f;
}

/* Harmonics at which the interpolation is made exact (mw_interp, metrology.h): with eight
 * taps (1 V + up to 5 I) f, 3f, 5f and 7f while 7 theta < 2.2 rad (65 Hz: 2.08 rad), which
 * leaves no error on the harmonics real mains carries (six taps left up to 1.7 % on the
 * 5th at 60 Hz, and +-0.07 % of a pulse load's power with 8 % THD); with four
 * taps the fundamental and the odd one that real mains carries most, the 5th, or the 3rd
 * where the 5th comes too near the voltage samples' Nyquist frequency (h theta >=
 * MW_INTERP_MAX_RAD; 16 channels). With six, f, 4f and 7f: nodes spread over the band of
 * the 3rd to the 7th, whose errors there are then all small (at 60 Hz with 1 V + 5 I at
 * most 0.9 / 1.7 / 0 % at the 3rd / 5th / 7th, where f, 3f, 5f leaves 7.5 % at the 7th and
 * four taps 14 %) while 7 theta < 2.2 rad; f, 3f, 5f beyond, while 5 theta < 2.6 rad (1 V
 * + 7 I at 60 Hz: 7 theta = 2.47 rad, where f, 4f, 7f would leave 13 % at the 5th). */
#define MW_INTERP_MAX_RAD 2.2f
#define MW_INTERP6_MAX_RAD 2.6f
#if MW_LAG_LO != -3 || MW_LAG_HI != 4
#error "mw_interp is written for lags -3..4"
#endif

/* (c + i s)^h, h >= 1: powers instead of a sine each */
static void cpowu(float c, float s, uint8_t h, float *ch, float *sh)
{
    float rc = c, rs = s;
    for (uint8_t k = 1; k < h; k++) {
        float t = rc * c - rs * s;
        rs = rs * c + rc * s;
        rc = t;
    }
    *ch = rc;
    *sh = rs;
}

static uint8_t choose_harmonics(mw_interp *ip, float theta, uint8_t ntaps)
{
    static const uint8_t six[2][3] = {{1, 4, 7}, {1, 3, 5}}, four[2][2] = {{1, 5}, {1, 3}};
    if (ntaps == 8 && 7.0f * theta < MW_INTERP_MAX_RAD) {
        ip->nt = 8;
        ip->nh = 4;
        for (uint8_t k = 0; k < 4; k++)
            ip->h[k] = (uint8_t)(2u * k + 1u);
        return 1;
    }
    if (ntaps >= 6) {
        for (uint8_t q = 0; q < 2; q++)
            if ((float)six[q][2] * theta < (q ? MW_INTERP6_MAX_RAD : MW_INTERP_MAX_RAD)) {
                ip->nt = 6;
                ip->nh = 3;
                for (uint8_t k = 0; k < 3; k++)
                    ip->h[k] = six[q][k];
                ip->h[3] = 0;
                return 1;
            }
    }
    for (uint8_t q = 0; q < 2; q++)
        if ((float)four[q][1] * theta < MW_INTERP_MAX_RAD) {
            ip->nt = 4;
            ip->nh = 2;
            ip->h[0] = four[q][0];
            ip->h[1] = four[q][1];
            ip->h[2] = 0;
            ip->h[3] = 0;
            return 1;
        }
    ip->nt = 4;
    return 0;
}

/* LU with partial pivoting of the nt x nt system in ip->lu, once per window; each channel
 * then only substitutes. 0 if singular. */
static uint8_t factorise(mw_interp *ip)
{
    uint8_t nt = ip->nt;
    float(*a)[MW_NLAG] = ip->lu;
    for (uint8_t r = 0; r < nt; r++)
        ip->perm[r] = r;
    for (uint8_t c = 0; c < nt; c++) {
        uint8_t p = c;
        for (uint8_t r = (uint8_t)(c + 1u); r < nt; r++)
            if (fabsf(a[r][c]) > fabsf(a[p][c])) p = r;
        if (fabsf(a[p][c]) < 1e-7f) return 0;
        if (p != c) {
            for (uint8_t j = 0; j < nt; j++) {
                float t = a[c][j];
                a[c][j] = a[p][j];
                a[p][j] = t;
            }
            uint8_t t = ip->perm[c];
            ip->perm[c] = ip->perm[p];
            ip->perm[p] = t;
        }
        for (uint8_t r = (uint8_t)(c + 1u); r < nt; r++) {
            a[r][c] /= a[c][c];
            for (uint8_t j = (uint8_t)(c + 1u); j < nt; j++)
                a[r][j] -= a[r][c] * a[c][j];
        }
    }
    for (uint8_t r = 0; r < nt; r++)
        ip->rdiag[r] = 1.0f / a[r][r];
    return 1;
}

void mw_interp_init(mw_interp *ip, float theta, uint8_t ntaps)
{
    ip->ok = 0;
    ip->theta = theta;
    ip->c1 = cosf(theta);
    ip->s1 = sinf(theta);
    if (!choose_harmonics(ip, theta, ntaps)) return;
    /* rows: Re and Im of sum_u w_u exp(i h theta lag_u) for each exact h; the taps' lags
     * run from lo = -nt / 2 + 1 */
    int8_t lo = (int8_t)(1 - (int8_t)(ip->nt / 2u));
    for (uint8_t q = 0; q < ip->nh; q++) {
        float ch, sh;
        cpowu(ip->c1, ip->s1, ip->h[q], &ch, &sh);
        /* exp(i h theta lo) = conj(exp(i h theta))^-lo */
        float pc, ps;
        cpowu(ch, -sh, (uint8_t)-lo, &pc, &ps);
        for (uint8_t u = 0; u < ip->nt; u++) {
            ip->lu[2 * q][u] = pc;
            ip->lu[2 * q + 1][u] = ps;
            float t = pc * ch - ps * sh;
            ps = ps * ch + pc * sh;
            pc = t;
        }
    }
    ip->ok = factorise(ip);
}

/* The two-tap sinusoidal interpolation between v(s) and v(s + 1), exact for the
 * fundamental only: where no better filter can be made. */
static void two_taps(float theta, float a, float *w)
{
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
}

void mw_interp_weights(const mw_interp *ip, float a, float *w)
{
    if (!ip->ok) {
        two_taps(ip->theta, a, w);
        return;
    }
    /* right-hand side exp(i h theta a) for each exact h (powers of the first) */
    float c = cosf(ip->theta * a), sn = sinf(ip->theta * a);
    float rhs[MW_NLAG], y[MW_NLAG], x[MW_NLAG];
    for (uint8_t q = 0; q < ip->nh; q++)
        cpowu(c, sn, ip->h[q], &rhs[2 * q], &rhs[2 * q + 1]);
    uint8_t nt = ip->nt;
    for (uint8_t r = 0; r < nt; r++) {
        float v = rhs[ip->perm[r]];
        for (uint8_t j = 0; j < r; j++)
            v -= ip->lu[r][j] * y[j];
        y[r] = v;
    }
    for (int8_t r = (int8_t)(nt - 1u); r >= 0; r--) {
        float v = y[r];
        for (uint8_t j = (uint8_t)(r + 1); j < nt; j++)
            v -= ip->lu[r][j] * x[j];
        x[r] = v * ip->rdiag[r];
    }
    /* tap u has lag 1 - nt / 2 + u, at index lag - MW_LAG_LO */
    uint8_t off = (uint8_t)(1 - nt / 2 - MW_LAG_LO);
    for (uint8_t j = 0; j < MW_NLAG; j++)
        w[j] = 0;
    for (uint8_t u = 0; u < nt; u++)
        w[off + u] = x[u];
}

void mw_metrology_weights(float theta, float a, uint8_t ntaps, float *w)
{
    mw_interp ip;
    mw_interp_init(&ip, theta, ntaps);
    mw_interp_weights(&ip, a, w);
}

/* The filters of each channel, kept from window to window. */
static mw_wcache wc;

/* Makes wc hold every channel's filter for theta (m conversions per set): those made for
 * a theta within tol (relative) of it, with the channel's phase unchanged, are kept. */
static void weights_for(uint8_t m, uint8_t nchan_i, const mw_cal *cal, float theta, float tol)
{
    if (m != wc.m || !(fabsf(theta - wc.theta) <= tol * wc.theta)) {
        wc.m = m;
        wc.theta = theta;
        for (uint8_t k = 0; k < MW_MAX_I; k++)
            wc.valid[k] = 0;
    }
    mw_interp ip;
    uint8_t ip_ready = 0;
    /* phase_deg at the mains frequency f is phase_deg / (360 f) seconds, 2 pi phase_deg /
     * (360 theta) of the set interval */
    float a_cal = 2.0f * MW_PI_F / (360.0f * wc.theta);
    for (uint8_t k = 0; k < nchan_i; k++) {
        float ph = cal[1 + k].phase_deg;
        if (wc.valid[k] && wc.phase_deg[k] == ph) continue;
        if (!ip_ready) {
            mw_interp_init(&ip, wc.theta, (uint8_t)MW_NTAPS(m));
            ip_ready = 1;
        }
        /* fraction of the set interval from v(s) to the voltage instant we want */
        float a = (float)MW_SET_POS(k) / (float)m + ph * a_cal;
        mw_interp_weights(&ip, a, wc.w[k]);
        wc.phase_deg[k] = ph;
        wc.valid[k] = 1;
    }
}

void mw_metrology_prepare(uint8_t nchan_i, const mw_cal *cal, float hz)
{
    uint8_t m = (uint8_t)MW_SET_CONV(nchan_i);
    float theta = 2.0f * MW_PI_F * hz * (float)m * (float)MW_CONV_US * 1e-6f;
    /* re-centred when a quarter of the tolerance away, so that the next windows, whose
     * frequency moves little, find their filters made */
    weights_for(m, nchan_i, cal, theta, 5e-5f);
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
     * with 1 + 5 channels), and mw_metrology_prepare has usually made them already */
    weights_for(m, nchan_i, cal, theta, 2e-4f);

    /* per channel, multiplications only (a float division costs ~4 of them on the AVR) */
    float inv_n = 1.0f / n, inv_nd = 1.0f / nd;
    float mvl[MW_NLAG];
    mvl[0] = (float)s->svlx[0] * inv_n; /* lags -3 and 4 apart (sums.h) */
    for (uint8_t j = 0; j < MW_NLAG6; j++)
        mvl[j + MW_LAG6_LO - MW_LAG_LO] = (float)s->svl[j] * inv_n;
    mvl[MW_NLAG - 1] = (float)s->svlx[1] * inv_n;
    for (uint8_t k = 0; k < nchan_i; k++) {
        const mw_cal *c = &cal[1 + k];
        const mw_chsums *cs = &s->ch[k];
        float mi = (float)cs->si * inv_n;
        float di = whole ? (float)(s->x1_si[k] - s->x0_si[k]) * inv_nd : mi;
        float var_i = (float)cs->sii * inv_n - 2.0f * di * mi + di * di;
        const float *w = wc.w[k];
        /* the products at lags -3..4: -3 and 4 in svx, -2..3 in the channel's block */
        int32_t svi[MW_NLAG];
        svi[0] = s->svx[k][0];
        for (uint8_t j = 0; j < MW_NLAG6; j++)
            svi[j + MW_LAG6_LO - MW_LAG_LO] = cs->svi[j];
        svi[MW_NLAG - 1] = s->svx[k][1];
        /* sum_j w_j mean((i - di)(v(s + lag_j) - dv)) */
        float pv = 0, pm = 0, pw = 0;
        for (uint8_t j = 0; j < MW_NLAG; j++) {
            pv += w[j] * (float)svi[j];
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
