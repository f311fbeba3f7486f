/* inband_align — the meter's alignment measured against a node's in-band power
 * (docs/inband.md, "Alignment cross-check"): in-band counters are stamped on the host's
 * clock, so the offset that best lines the node's wall windows up with its in-band power
 * is the meter's residual offset, found on real hardware without any phase pattern.
 *
 * For a trial offset d, window i's in-band value x_i(d) is the in-band traces' summed mean
 * power over [t0_i - d, t1_i - d] (exact, models/include/energy.h): what the window would
 * hold if the meter's timeline were d late. The estimate is the d of the largest Pearson
 * correlation of the windows' wall powers y_i with x_i(d): scanned every 10 ms over
 * +-max_offset_s, then every 1 ms around the best, the maximum refined by a parabola through
 * the three best points. Its uncertainty is the standard error of the least-squares fit
 * y = base + gain x(d): sigma_d^2 = s^2 / |g - proj(g on 1, x)|^2, g = gain dx/dd, s^2 the
 * residual variance (as align.h). Only windows whose every shifted span lies inside the
 * in-band data are used. Numbers in, numbers out. */
#ifndef MW_INBAND_ALIGN_H
#define MW_INBAND_ALIGN_H
#include <stddef.h>

#include "energy.h"

typedef struct {
    double offset_s;    /* positive: the meter's timeline is late */
    double sigma_s;     /* one standard error */
    double correlation; /* Pearson r at the offset */
    double base_w, gain_w;
    size_t windows; /* windows used */
} mw_inband_align_fit;

/* 0, or -1 with the reason in note (too few windows inside the in-band data, no variation,
 * no positive correlation, the peak at the edge of the range). max_offset_s <= 0: 2 s. */
int mw_inband_align(const mw_energy_window *wall, size_t nwall, const mw_energy_trace *src,
                    size_t nsrc, double max_offset_s, mw_inband_align_fit *out, char *note,
                    size_t notelen);
#endif
