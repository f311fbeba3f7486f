/* mw_clock — the meter clock model: maps the meter's crystal time to the host's clock.
 *
 * The meter stamps every window with its own time (t1_us of a W line: crystal time, off by
 * the crystal's error, typically +-100 ppm, and restarting at 0 after a meter reset). The
 * host knows when each line arrived. Delivery only ever delays a line (the firmware's line
 * hold, the UART sending it, USB, the host's scheduler), so the true mapping
 * host = offset + slope * meter is the LOWER ENVELOPE of the (meter time, arrival time)
 * pairs, not their mean: the fit is the line under all pairs that minimises the summed
 * distance to them (the linear program of Moon, Skelly & Towsley 1999, solved on the lower
 * convex hull of the pairs), over a sliding window of recent pairs, with isolated pairs far
 * below their neighbours (impossible early arrivals) set aside as outliers.
 *
 * What no one-way method can observe is the fastest delivery itself. The firmware holds
 * each window's line until a fixed time after the window's end (the line hold,
 * MW_LINE_HOLD_US in docs/protocol.md: 8 ms + 6.2 ms per current channel, at most the period
 * less 20 ms), so its first byte leaves exactly then (within 3 us, measured on the simulated
 * board) whatever the values took to format. The CALLER subtracts that hold from the arrival
 * before mw_clock_add (the meter session does: mw_proto_hold_ns); the clock subtracts the
 * rest, latency_ns + line_bytes * byte_ns: the UART's byte_ns per byte until the last one,
 * which marks the arrival, and the transport's fastest delivery after it (USB: at least one
 * 1 ms frame). docs/clock-model.md has the figures and the limits of this model.
 *
 * Host times are int64 ns of one host clock that does not jump (CLOCK_MONOTONIC is what
 * the recorder uses; it converts to CLOCK_REALTIME itself). Sign convention: drift_ppm
 * positive = the meter's crystal is fast (meter time runs ahead of host time). */
#ifndef MW_CLOCK_H
#define MW_CLOCK_H
#include <stddef.h>
#include <stdint.h>

typedef struct mw_clock mw_clock;

/* The transport's fastest delivery after the line's last byte has left the meter: USB's one
 * 1 ms full-speed frame (docs/clock-model.md). */
#define MW_CLOCK_USB_MIN_NS 1000000LL
/* How far the meter side of the fastest delivery may be from hold + line_bytes * byte_ns:
 * the firmware's first byte leaves 2.2-2.9 us before the end of its hold on the simulated
 * board (1-15 channels, every rate and load; docs/clock-model.md); a real ADC may start its
 * conversions up to one ADC clock (8 us) after the timer the firmware counts the hold with,
 * and a real UART sends the start bit up to one bit (8.5 us) after the write; and the hold
 * elapses in meter time, which the caller takes as host time: off by the crystal's error,
 * 10 us for a 101 ms hold at 100 ppm. */
#define MW_CLOCK_LATENCY_ERR_NS 20000LL

typedef struct {
    double fit_window_s;    /* live fit over the pairs of the last fit_window_s s of meter time */
    int64_t latency_ns;     /* fixed part of the fastest delivery after the line's last byte
                               (the caller has removed the line hold), subtracted from arrivals */
    int64_t byte_ns;        /* UART time of one byte (10 bits at 117,647 Bd = 85,000 ns) */
    double max_drift_ppm;   /* a fit steeper than this is not believed (clamped) */
    int64_t outlier_ns;     /* a pair this far below the envelope of the others is an outlier */
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

/* Defaults: fit window 600 s, latency MW_CLOCK_USB_MIN_NS, byte_ns 85,000, max drift
 * 1000 ppm, outliers 2 ms, latency_err_ns MW_CLOCK_LATENCY_ERR_NS. */
void mw_clock_config_default(mw_clock_config *cfg);

/* cfg NULL = defaults. Returns NULL only when out of memory. */
mw_clock *mw_clock_new(const mw_clock_config *cfg);
void mw_clock_free(mw_clock *c);

/* One pair: meter_us = the window's end in meter time (t1_us), host_ns = when the line's
 * last byte was available on the host MINUS the line hold (mw_proto_hold_ns of the window),
 * line_bytes = the line's length including "*XXXX\r\n".
 * Pairs come in increasing meter time; a pair at or before the previous one means the
 * meter's time restarted and re-anchors first. Returns 0, or 1 when the pair was set aside
 * as an outlier (it is still kept, and may be taken back when later pairs confirm it), or
 * -1 when out of memory (the pair is dropped). */
int mw_clock_add(mw_clock *c, uint64_t meter_us, int64_t host_ns, size_t line_bytes);

/* The meter's time restarted (reset, RATE/CH/LOAD/DEFAULTS, reconnect): forget the pairs;
 * the last drift is kept as the prior for the new segment's first seconds. */
void mw_clock_reanchor(mw_clock *c);

/* A new clock for the next segment: c's configuration, and c's drift (with its error) as
 * its prior, as mw_clock_reanchor would leave c, while c itself is left intact, so that a
 * finished segment's clock (after mw_clock_refit_all) can go on restamping that segment's
 * windows while the successor takes the next one's pairs. NULL only when out of memory. */
mw_clock *mw_clock_successor(const mw_clock *c);

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

/* The mapping of mw_clock_map as points a reader without the clock can apply (the run store
 * keeps them: docs/run-store.md, table clock_knots). Point i holds meter time x_us, the host
 * time t_ns there (mw_clock_map's, to the ns) and the slope (ns of host time per us of meter
 * time) from it on: to the next point, or beyond the last one the last fit's own line. The
 * first point lies MW_CLOCK_KNOT_LEAD_US before the first knot on the first fit's line, so
 * that meter times before the first knot follow that line, as mw_clock_map does.
 * mw_clock_knots_map applies them: the last point at or before meter_us (the first point
 * when none is), t_ns + round((meter_us - x_us) x slope) with SQLite's round() (half away
 * from zero, of r + 0.5 truncated), in double arithmetic, so that SQL gives the same ns:
 * within 1 ns of mw_clock_map. */
#define MW_CLOCK_KNOT_LEAD_US 1000000
typedef struct {
    int64_t x_us;           /* meter time */
    int64_t t_ns;           /* host time at x_us (the clock's, without an origin added) */
    double slope_ns_per_us; /* from x_us on */
} mw_clock_knot;

/* Writes up to cap points to out; returns how many the mapping has (call with cap 0 to
 * size), 0 when the clock maps nothing (no pair, no fit). */
int mw_clock_knots(const mw_clock *c, mw_clock_knot *out, int cap);
/* The host time of meter_us under n >= 1 points sorted by x_us (see above). */
int64_t mw_clock_knots_map(const mw_clock_knot *k, int n, int64_t meter_us);
/* SQLite's round() of r to an integer, as mw_clock_knots_map and the store's SQL use it */
int64_t mw_clock_round_sql(double r);
#endif
