/* frame — the window line ("W,...", docs/protocol.md): its flags, its fields in wire units,
 * the encoder, and the exact energy accumulator behind its energy field. Portable C: the
 * firmware sends what mw_frame_encode writes, and the host decoder (host/protocol.c) is
 * tested against this same encoder. Units are in the field names. */
#ifndef MW_FRAME_H
#define MW_FRAME_H
#include <stdint.h>

#include "afe.h"
#include "metrology.h"

/* window flags (one definition, shared by the firmware and the host decoder) */
#define MW_FLAG_OVERRUN 0x01u     /* conversions missed or windows dropped */
#define MW_FLAG_CLIP 0x02u        /* some channel reached ADC code 0 or 1023 */
#define MW_FLAG_NO_VOLTAGE 0x04u  /* Vrms below MW_FRAME_MIN_VRMS_V: P and PF meaningless */
#define MW_FLAG_CAL_DEFAULT 0x08u /* calibration defaults in use */
#define MW_FLAG_FIRST 0x10u       /* first window after boot or a restart of sampling */
#define MW_FLAG_NO_FREQ 0x20u     /* mains frequency not measured in this window */
#define MW_FLAG_WDT_RESET 0x40u   /* with FIRST: reset by the watchdog */
#define MW_FLAG_BOR_RESET 0x80u   /* with FIRST: reset by brown-out */

#define MW_FRAME_MIN_VRMS_V 23.0f /* 10 % of 230 V */

/* The line hold (docs/protocol.md): a window's line starts leaving the UART exactly
 * MW_LINE_HOLD_US after the window's end (t1_us), whatever its values took to compute and
 * format, so that the host's clock model sees a constant latency: 8 ms + 6.2 ms per current
 * channel (the worst formatting time with margin), at most the period less 20 ms, rounded
 * down to whole conversions (MW_CONV_US: the firmware counts them). When the work takes
 * longer (10 Hz with 12 or more channels) the line leaves when it is ready. */
#define MW_LINE_HOLD_RAW_US(nchan, period_us)                                                      \
    ((8000ul + 6200ul * (uint32_t)(nchan)) < (uint32_t)(period_us)-20000ul                         \
         ? (8000ul + 6200ul * (uint32_t)(nchan))                                                   \
         : (uint32_t)(period_us)-20000ul)
#define MW_LINE_HOLD_US(nchan, period_us)                                                          \
    ((uint32_t)MW_CONV_US * (MW_LINE_HOLD_RAW_US(nchan, period_us) / (uint32_t)MW_CONV_US))

typedef struct {
    uint32_t seq;
    uint64_t t0_us, t1_us; /* meter time */
    uint8_t flags;
    uint16_t nsets, missed, clip;
    int32_t freq_mhz, vrms_mv;
    uint8_t nchan; /* current channels */
    int32_t p_mw[MW_MAX_I], irms_ua[MW_MAX_I];
    int16_t pf_milli[MW_MAX_I];
    int64_t e_mj[MW_MAX_I];
} mw_frame;

/* Rounds a window's metrology to wire units (frequency, voltage, and per channel power,
 * current, power factor); energies are left to the caller. */
void mw_frame_set_values(mw_frame *f, const mw_metrology *r, uint8_t nchan);

/* Writes the whole line (with "*CRC\r\n") into buf; returns its length, 0 if it did not
 * fit. */
uint16_t mw_frame_encode(const mw_frame *f, char *buf, uint16_t cap);

/* Energy of one channel: microjoules plus the nanojoule remainder, so that adding
 * p_mw x dt_us (mW x us = nJ) window after window never drifts. */
typedef struct {
    int64_t uj;
    int32_t rem_nj;
} mw_energy;

void mw_energy_add(mw_energy *e, int32_t p_mw, uint32_t dt_us);
/* Millijoules, truncated toward zero. */
int64_t mw_energy_mj(const mw_energy *e);

#endif
