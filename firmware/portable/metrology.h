/* metrology — turns one window's integer sums into physical values. Pure arithmetic on
 * `float` (the AVR's only floating type), identical on the host where it is unit-tested.
 *
 * DC offset: taken from the window's own samples over the whole mains cycles between its
 * first and last rising crossing (no filter, no start-up transient, and no bias from a
 * window that holds a non-integer number of cycles); the plain window means without mains.
 * Real power: the voltage at the instant of each current sample (shifted by the channel's
 * phase calibration) is reconstructed from the eight voltage samples around it, v(s-3) ..
 * v(s+4), in sets of at most MW_SET8_MAX_CONV conversions (1 V + up to 5 I), the six v(s-2)
 * .. v(s+3) in sets of at most MW_SET6_MAX_CONV, four, v(s-1) .. v(s+2), beyond, with
 * a filter made exact at the measured mains frequency and at harmonics (mw_interp); applied to the ISR's lagged correlations after the fact (docs/firmware.md,
 * "Metrology", compares the methods). Units: volts, amps, watts, hertz. */
#ifndef MW_METROLOGY_H
#define MW_METROLOGY_H
#include <stdint.h>

#include "sums.h"

typedef struct {
    float gain;      /* volts or amps per ADC count */
    float phase_deg; /* current channels: positive = the sensor's current leads, so the
                        voltage is taken that much later; ignored for the voltage channel */
} mw_cal;

typedef struct {
    float vrms_v;
    float freq_hz;   /* measured; fallback_hz when fewer than two crossings */
    uint8_t freq_ok; /* 1 if measured in this window */
    float p_w[MW_MAX_I];
    float irms_a[MW_MAX_I];
    float pf[MW_MAX_I]; /* P / (Vrms * Irms), 0 when either is 0; negative = export */
} mw_metrology;

/* nchan_i current channels; position of current channel k in a set is MW_SET_POS(k) = k + 2
 * of MW_SET_CONV(nchan_i) = nchan_i + 2 conversions (sums.h). cal[0] is the voltage channel, cal[1 + k] current channel k. */
void mw_metrology_compute(const mw_sums *s, uint8_t nchan_i, const mw_cal *cal, float fallback_hz,
                          mw_metrology *out);

/* Makes the filters (below) of every channel for a mains frequency hz ahead of time, in
 * the main loop's idle time: mw_metrology_compute keeps them while the window's measured
 * frequency is within 0.02 % of hz, and otherwise makes them itself (up to ~15 ms of the
 * AVR's time with six taps and five channels, inside the window's line hold). */
void mw_metrology_prepare(uint8_t nchan_i, const mw_cal *cal, float hz);

/* Mean of the voltage samples (ADC code - 512) in the window, rounded: the threshold the
 * ISR uses to detect crossings in the next window. */
int16_t mw_metrology_vmean(const mw_sums *s);

/* The interpolation filter: weights w[j] of the voltage samples v(s + MW_LAG_LO + j) that
 * give the voltage at fraction a of the set interval past v(s), theta = 2 pi f x (set
 * interval). ntaps = 8 (lags -3..4, sets of at most MW_SET8_MAX_CONV conversions): exact at
 * f, 3 f, 5 f and 7 f where 7 theta < 2.2 rad (up to 65 Hz), so the 3rd, 5th and 7th
 * harmonics are rebuilt without error; else as with six. ntaps = 6 (lags -2..3, sets of at
 * most MW_SET6_MAX_CONV conversions): exact
 * at the fundamental and at 4 f and 7 f where 7 theta < 2.2 rad, so that the error is
 * small across the 3rd, 5th and 7th together (docs/firmware.md, "Choosing the
 * interpolation"), else at f, 3 f and 5 f where 5 theta < 2.6 rad, else as with four. ntaps
 * = 4 (lags -1..2; the outer weights 0): exact at the fundamental and at the 5th harmonic, or
 * the 3rd where 5 theta >= 2.2 rad (too near the voltage samples' Nyquist frequency); the
 * two-tap sinusoidal interpolation beyond. Prepared once per window (the system depends on
 * theta only: LU-factorised), then solved for each channel's a. */
#define MW_INTERP_MAXH 4 /* exact harmonics */
typedef struct {
    float theta, c1, s1; /* theta, cos and sin of it */
    uint8_t ok, nt, nh;  /* usable, taps, exact harmonics */
    uint8_t h[MW_INTERP_MAXH];
    uint8_t perm[MW_NLAG];
    float lu[MW_NLAG][MW_NLAG];
    float rdiag[MW_NLAG]; /* 1 / lu[r][r] */
} mw_interp;
void mw_interp_init(mw_interp *ip, float theta, uint8_t ntaps);
void mw_interp_weights(const mw_interp *ip, float a, float *w);
/* The filters of each current channel, kept from window to window (metrology.c). */
typedef struct {
    float theta;
    uint8_t m;
    uint8_t valid[MW_MAX_I];
    float phase_deg[MW_MAX_I];
    float w[MW_MAX_I][MW_NLAG];
} mw_wcache;
/* Both at once. */
void mw_metrology_weights(float theta, float a, uint8_t ntaps, float *w);

#endif
