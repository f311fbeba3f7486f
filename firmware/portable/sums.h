/* sums — what the ADC interrupt accumulates for one reporting window, integers only.
 * Samples are ADC codes minus 512 (so |x| <= 512) and every product fits 32 bits for the
 * longest window (1 s) with the fewest channels (2): 4808 sets * 512^2 < 2^31.
 *
 * A "set" is one voltage sample followed by one sample of each current channel. For
 * current channel k the ISR keeps both sum(i*v(s)) and sum(i*v(s+1)), where v(s) is the
 * voltage sample of the set and v(s+1) that of the next set, so the main loop can place
 * the voltage at the exact instant of the current sample (phase correction) afterwards. At
 * each rising voltage crossing it also snapshots Σv and Σi, so the DC offsets can be taken
 * over a whole number of mains cycles of the window's own samples. */
#ifndef MW_SUMS_H
#define MW_SUMS_H
#include <stdint.h>

#include "afe.h"

typedef struct {
    uint16_t nsets;  /* sample sets in the window */
    uint16_t clip;   /* bit c set: channel c (0 = voltage) hit code 0 or 1023 */
    uint16_t missed; /* conversions missed (ISR too late); window is then flagged */
    uint32_t seq;    /* window number since sampling started (gaps = lost windows) */
    uint32_t conv0;  /* conversion counter at the window's first voltage sample */
    uint32_t conv1;  /* ... at the first voltage sample of the next window */
    int32_t sv, svv; /* sum v(s), sum v(s)^2 */
    int32_t svn;     /* sum v(s+1) */
    int32_t si[MW_MAX_I], sii[MW_MAX_I];
    int32_t svi[MW_MAX_I];  /* sum i*v(s) */
    int32_t svni[MW_MAX_I]; /* sum i*v(s+1) */
    /* rising crossings of the voltage through the previous window's mean (with hysteresis):
     * count, and for the first and last one the set index before the crossing and the two
     * samples around it (for linear interpolation of the instant) */
    uint16_t ncross;
    uint16_t x0_set, x1_set;
    int16_t x0_a, x0_b, x1_a, x1_b;
    /* sums over the sets before the first / last crossing: their differences cover whole
     * mains cycles, from which the DC offsets are taken without bias */
    int32_t x0_sv, x1_sv;
    int32_t x0_si[MW_MAX_I], x1_si[MW_MAX_I];
} mw_sums;

#endif
