/* clock_knots — a segment's final clock fit as points (mw_clock.h, "the mapping as
 * points"), applied: what the run store's readers and its view samples compute for each
 * window's meter time (host/store.c, docs/run-store.md). Apart from clock.c so that a reader
 * (libmegawatt, host/api.c) takes only this arithmetic and not the clock model with its
 * GSL: the installed library needs SQLite and libc alone. */
#include <stdint.h>

#include "mw_clock.h"

int64_t mw_clock_round_sql(double r)
{
    /* SQLite's roundFunc with 0 digits (3.40): (sqlite_int64)(r + 0.5), mirrored below 0 */
    if (!(r > -9.2e18 && r < 9.2e18)) return r < 0 ? INT64_MIN : INT64_MAX;
    return r >= 0 ? (int64_t)(r + 0.5) : -(int64_t)(-r + 0.5);
}

int64_t mw_clock_knots_map(const mw_clock_knot *k, int n, int64_t meter_us)
{
    int lo = 0, hi = n; /* the last point with x_us <= meter_us, or the first */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (k[mid].x_us <= meter_us)
            lo = mid;
        else
            hi = mid;
    }
    int64_t dx;
    double d = __builtin_sub_overflow(meter_us, k[lo].x_us, &dx)
                   ? (double)meter_us - (double)k[lo].x_us /* SQLite's REAL fallback */
                   : (double)dx;
    int64_t t, r = mw_clock_round_sql(d * k[lo].slope_ns_per_us);
    return __builtin_add_overflow(k[lo].t_ns, r, &t) ? (r < 0 ? INT64_MIN : INT64_MAX) : t;
}
