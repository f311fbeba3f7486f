/* metrology — turns one window's integer sums into physical values. Pure arithmetic on
 * `float` (the AVR's only floating type), identical on the host where it is unit-tested.
 *
 * DC offset: taken from the window's own samples over the whole mains cycles between its
 * first and last rising crossing (no filter, no start-up transient, and no bias from a
 * window that holds a non-integer number of cycles); the plain window means without mains.
 * Real power: the voltage at the instant of each current sample is reconstructed from the
 * voltage samples before and after it with exact sinusoidal interpolation at the measured
 * mains frequency (linear interpolation would lose ~0.5 % at 50 Hz), then shifted by the
 * channel's phase calibration. Units: volts, amps, watts, hertz. */
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

/* nchan_i current channels; position of current channel k in a set is k + 1 of
 * nchan_i + 1 conversions. cal[0] is the voltage channel, cal[1 + k] current channel k. */
void mw_metrology_compute(const mw_sums *s, uint8_t nchan_i, const mw_cal *cal, float fallback_hz,
                          mw_metrology *out);

/* Mean of the voltage samples (ADC code - 512) in the window, rounded: the threshold the
 * ISR uses to detect crossings in the next window. */
int16_t mw_metrology_vmean(const mw_sums *s);

#endif
