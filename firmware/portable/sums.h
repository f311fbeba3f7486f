/* sums — what the ADC interrupt accumulates for one reporting window, integers only.
 * Samples are ADC codes minus 512 (so |x| <= 512) and every product fits 32 bits for the
 * longest window (1 s) with the fewest channels (2): 4808 sets * 512^2 < 2^31.
 *
 * A "set" is one voltage sample, a dummy conversion (0 V, not summed), then one sample of
 * each current channel (MW_SET_CONV below). For
 * current channel k the ISR keeps the correlations sum(i(s) * v(s + j)) at the lags
 * j = MW_LAG_LO..MW_LAG_HI, where v(s) is the voltage sample of set s (taken before the
 * current sample) and v(s + 1) that of the next set: the main loop then reconstructs the
 * voltage at the exact instant of each current sample with an interpolation filter over
 * these neighbouring voltage samples (metrology.h), after the fact, at the frequency it
 * measured. A product with a later voltage sample belongs to the window of its current
 * sample, so a closing window keeps receiving them during the first MW_LAG_HI sets of the
 * next one (fewer in longer sets, which sum fewer lags). sum(v(s + j)) over the same sets is kept for each lag, for the DC offsets. At
 * each rising voltage crossing the ISR also snapshots sum(v) and sum(i), so the DC offsets
 * can be taken over a whole number of mains cycles of the window's own samples. */
#ifndef MW_SUMS_H
#define MW_SUMS_H
#include <stdint.h>

#include "afe.h"
#include "fund.h"

/* A set is the voltage sample, one dummy conversion of the ADC's internal 0 V input
 * (sampler.c: against aliasing and the sample-and-hold kick), then one sample of each
 * current channel: current channel k (0-based) is conversion MW_SET_POS(k) of the set's
 * MW_SET_CONV(nchan_i). */
#define MW_SET_CONV(nchan_i) ((nchan_i) + 2)
#define MW_SET_POS(k) ((k) + 2)

/* The lags of the voltage samples correlated with each current sample: v(s-3) .. v(s+4),
 * eight taps around the current sample's instant (between v(s) and v(s+1)). All eight
 * only in sets of at most MW_SET8_MAX_CONV conversions (1 V + up to 5 I): there the filter
 * is exact at the 3rd, 5th and 7th harmonics together (7 theta < 2.2 rad at 65 Hz); the
 * middle six, v(s-2) .. v(s+3), in sets of at most MW_SET6_MAX_CONV conversions (1 V + up to
 * 7 I: the 7th is near the voltage samples' Nyquist frequency, 7 theta < 2.6 rad at 60 Hz);
 * in longer sets the 7th is above or near it and no filter can rebuild it, so the ISR
 * saves the outer products (16 channels: the ISR budget) and the filter uses v(s-1) ..
 * v(s+2) (MW_NTAPS). The middle six lags' sums are in mw_chsums (32 bytes: the ISR finds
 * a channel's block by a shift), the outer two, lags -3 and 4, in mw_sums.svx. */
#define MW_LAG_LO (-3)
#define MW_LAG_HI 4
#define MW_NLAG (MW_LAG_HI - MW_LAG_LO + 1)
#define MW_LAG6_LO (-2) /* the lag of mw_chsums.svi[0] */
#define MW_NLAG6 6
#define MW_SET8_MAX_CONV 7
#define MW_SET6_MAX_CONV 9
#define MW_NTAPS(m) ((m) <= MW_SET8_MAX_CONV ? 8 : (m) <= MW_SET6_MAX_CONV ? 6 : 4)

/* One current channel's sums (one block, so the ISR addresses them from one pointer). */
typedef struct {
    int32_t si, sii;
    int32_t svi[MW_NLAG6]; /* sum i(s) * v(s + MW_LAG6_LO + j); the outer two 0 in long sets */
} mw_chsums;

/* One kind of crossing (rising or falling), for a least-squares line through all of them:
 * crossing c at instant t_c, in 1/256 of a set since the window began (linear between
 * the samples around it): n, t_0, sum(t_c - t_0) and sum(c (t_c - t_0)). */
typedef struct {
    uint8_t n;
    uint32_t t0, st, sct;
} mw_edges;

typedef struct {
    uint16_t nsets;  /* sample sets in the window */
    uint16_t clip;   /* bit c set: channel c (0 = voltage) hit code 0 or 1023 */
    uint16_t missed; /* conversions missed (ISR too late); window is then flagged */
    uint32_t seq;    /* window number since sampling started (gaps = lost windows) */
    uint32_t conv0;  /* conversion counter at the window's first voltage sample */
    uint32_t conv1;  /* ... at the first voltage sample of the next window */
    int32_t sv, svv;       /* sum v(s), sum v(s)^2 */
    int32_t svl[MW_NLAG6]; /* sum v(s + MW_LAG6_LO + j) over the sets of ch[].svi[j] */
    /* crossings of the voltage through one threshold per window (the previous window's
     * mean, with hysteresis): rising ones (count, set index of the first and last) and,
     * for the frequency, rising and falling ones as xe[0] and xe[1] */
    uint16_t ncross;
    uint16_t x0_set, x1_set;
    mw_edges xe[2];
    /* sums over the sets before the first / last crossing: their differences cover whole
     * mains cycles, from which the DC offsets are taken without bias */
    int32_t x0_sv, x1_sv;
    int32_t x0_si[MW_MAX_I], x1_si[MW_MAX_I]; /* the same for each current channel */
    mw_chsums ch[MW_MAX_I];
    /* the fundamental's phasor in each half of the window, for the frequency (fund.h):
     * the reference latched when the window opened, and the halves' sums */
    mw_fund_ref fref;
    int32_t fz[4];
    /* lags -3 and 4, in sets of at most MW_SET8_MAX_CONV conversions: sum v(s - 3) and sum
     * v(s + 4) over the sets of their products, and sum i(s) * v(s - 3) and sum i(s) *
     * v(s + 4) of each current channel (8 bytes a channel: the ISR's offset is a shift).
     * Last, so that the fields the 16-channel ISR uses keep their offsets (within reach
     * of a displacement from the pointer). */
    int32_t svlx[2];
    int32_t svx[MW_MAX_I][2];
} mw_sums;

#endif
