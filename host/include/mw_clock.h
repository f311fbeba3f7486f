/* mw_clock — the meter clock model: maps the meter's crystal time to the host's clock.
 *
 * The meter stamps every window with its own time (t1_us of a W line: crystal time, off by
 * the crystal's error, typically +-100 ppm, and restarting at 0 after a meter reset). The
 * host knows when each line arrived. Delivery only ever delays a line (firmware computing
 * the window, the UART sending it, USB, the host's scheduler), so the true mapping
 * host = offset + slope * meter is the LOWER ENVELOPE of the (meter time, arrival time)
 * pairs, not their mean: the fit is the line under all pairs that minimises the summed
 * distance to them (the linear program of Moon, Skelly & Towsley 1999, solved on the lower
 * convex hull of the pairs), over a sliding window of recent pairs, with isolated pairs far
 * below their neighbours (impossible early arrivals) set aside as outliers.
 *
 * What no one-way method can observe is the fastest delivery itself: it is supplied as
 * latency_ns + line_bytes * (byte_ns + fw_byte_ns) and subtracted from every arrival. The
 * firmware formats a line digit by digit (64-bit divisions) before its first byte leaves,
 * so its part grows with the line's length: measured on the simulated board, the fastest
 * time from a window's end to its line's first byte is about -5.06 ms + 195.5 us per line
 * byte (10 ms with 1 channel, 29 ms with the default 5, 78 ms with 15); the UART then takes
 * byte_ns per byte until the last one, which marks the arrival; USB adds at least 1 ms.
 * docs/clock-model.md has the figures and the limits of this model.
 *
 * Host times are int64 ns of one host clock that does not jump (CLOCK_MONOTONIC is what
 * the recorder uses; it converts to CLOCK_REALTIME itself). Sign convention: drift_ppm
 * positive = the meter's crystal is fast (meter time runs ahead of host time). */
#ifndef MW_CLOCK_H
#define MW_CLOCK_H
#include <stddef.h>
#include <stdint.h>

typedef struct mw_clock mw_clock;

/* Measured defaults (docs/clock-model.md), for firmware 0.1.0: the firmware's fastest
 * window-end-to-first-byte time is MW_CLOCK_FW_LATENCY_NS + line bytes * MW_CLOCK_FW_BYTE_NS
 * (fitted over 1-15 channels at 1, 4, 10 Hz with loads of 3 W-4 kW; lines of 70-500 bytes;
 * not 10 Hz with 12 or more channels, where the firmware falls behind), USB's at least one
 * 1 ms frame. */
#define MW_CLOCK_FW_LATENCY_NS (-5064000LL)
#define MW_CLOCK_FW_BYTE_NS 195500LL
#define MW_CLOCK_USB_MIN_NS 1000000LL
/* ... and the firmware's fastest time is within this of that model for positive loads
 * (worse without load or with export: docs/clock-model.md, "Limits"). */
#define MW_CLOCK_FW_MODEL_ERR_NS 800000LL

typedef struct {
    double fit_window_s;    /* live fit over the pairs of the last fit_window_s s of meter time */
    int64_t latency_ns;     /* fixed part of the fastest delivery, subtracted from arrivals */
    int64_t byte_ns;        /* UART time of one byte (10 bits at 117,647 Bd = 85,000 ns) */
    double max_drift_ppm;   /* a fit steeper than this is not believed (clamped) */
    int64_t outlier_ns;     /* a pair this far below the envelope of the others is an outlier */
    int64_t fw_byte_ns;     /* firmware time per line byte before the first byte leaves */
    int64_t latency_err_ns; /* how far the true fastest delivery may be from the assumed one:
                               added to uncertainty_ns */
} mw_clock_config;

typedef struct {
    int npairs;             /* pairs in the current fit (since the last re-anchor) */
    int outliers;           /* pairs set aside since the last re-anchor */
    double span_s;          /* meter time covered by the fit's pairs, s */
    double drift_ppm;       /* positive = meter fast */
    int64_t uncertainty_ns; /* alignment uncertainty from the fit's residuals at the newest
                               pair (after refit_all: the largest over the segment); defined
                               atop clock.c; large until a few seconds of pairs exist */
} mw_clock_state;

/* Defaults: fit window 600 s, latency MW_CLOCK_FW_LATENCY_NS + MW_CLOCK_USB_MIN_NS,
 * byte_ns 85,000, fw_byte_ns MW_CLOCK_FW_BYTE_NS, max drift 1000 ppm, outliers 2 ms,
 * latency_err_ns MW_CLOCK_FW_MODEL_ERR_NS. */
void mw_clock_config_default(mw_clock_config *cfg);

/* cfg NULL = defaults. Returns NULL only when out of memory. */
mw_clock *mw_clock_new(const mw_clock_config *cfg);
void mw_clock_free(mw_clock *c);

/* One pair: meter_us = the window's end in meter time (t1_us), host_ns = when the line's
 * last byte was available on the host, line_bytes = the line's length including "*XXXX\r\n".
 * Pairs come in increasing meter time; a pair at or before the previous one means the
 * meter's time restarted and re-anchors first. Returns 0, or 1 when the pair was set aside
 * as an outlier (it is still kept, and may be taken back when later pairs confirm it), or
 * -1 when out of memory (the pair is dropped). */
int mw_clock_add(mw_clock *c, uint64_t meter_us, int64_t host_ns, size_t line_bytes);

/* The meter's time restarted (reset, RATE/CH/LOAD/DEFAULTS, reconnect): forget the pairs;
 * the last drift is kept as the prior for the new segment's first seconds. */
void mw_clock_reanchor(mw_clock *c);

/* Host time of meter time meter_us under the current fit. Returns 0, or -1 before the
 * first pair of the segment. */
int mw_clock_map(const mw_clock *c, uint64_t meter_us, int64_t *host_ns);

/* Alignment uncertainty (ns) at meter time meter_us under the current fit: grows away from
 * the middle of the fit's pairs. Returns 0, or -1 before the first pair of the segment. */
int mw_clock_uncertainty(const mw_clock *c, uint64_t meter_us, int64_t *uncertainty_ns);

/* Refit over every pair since the last re-anchor (not just the live window): used once a
 * segment is over, to restamp its windows with the best fit the data allow (fits of
 * fit_window_s centred every fit_window_s / 4, interpolated). map and uncertainty use it
 * until the next pair or re-anchor. */
void mw_clock_refit_all(mw_clock *c);

void mw_clock_get_state(const mw_clock *c, mw_clock_state *st);
#endif
