/* energy — the energy of one channel's power trace over any span of time, exactly.
 *
 * A trace is the channel's windows [t0_ns, t1_ns) with their mean power power_mw (what the
 * meter measured). Its energy is the integral of that step function, so every figure is an
 * exact integer of picojoules (mW x ns = pJ), kept in 128 bits: a day of 200 W is 1.7e19 pJ,
 * past int64. mw_energy_at_pj(t) is the energy from the trace's start up to instant t
 * (windows before t whole, the window holding t pro rata), and the energy of [a, b) is
 * at(b) - at(a): partial windows are apportioned by overlap, and the energies of consecutive
 * spans [a, b), [b, c) add up to that of [a, c) exactly, whatever the windows. Prefix sums
 * and a binary search make each span O(log n).
 *
 * Spans of a phase (from several ranks, overlapping) are first merged into their union
 * (sorted, disjoint) so that no time is counted twice, then clipped to the range analysed.
 *
 * The meter's own counter (the run store's energy_mj) gives a second figure for a range:
 * counter(last window) - counter(first window) + the first window's own energy, less the
 * parts of the first and last windows outside the range. It also counts windows whose lines
 * were lost, so the two differ by those.
 *
 * Dynamic energy (Khaleghzadeh et al.): total - Pow_idle x time, the time being the windows'
 * coverage of the span (time with no window holds no measured energy either).
 *
 * Functions returning int give 0 or -1 (with a message in err). Times are host ns. */
#ifndef MW_ENERGY_H
#define MW_ENERGY_H
#include <stddef.h>
#include <stdint.h>

/* picojoules (mW x ns), exact */
typedef __int128 mw_energy_pj;

#define MW_ENERGY_PJ_PER_J 1000000000000.0

/* One window of one channel: [t0_ns, t1_ns) at power_mw. */
typedef struct {
    int64_t t0_ns, t1_ns;
    int32_t power_mw;
} mw_energy_window;

/* A channel's windows, ordered, with prefix sums (n + 1 each). */
typedef struct {
    const mw_energy_window *w;
    size_t n;
    mw_energy_pj *cum_pj; /* cum_pj[i] = energy of windows 0..i-1 */
    int64_t *cum_ns;      /* cum_ns[i] = length of windows 0..i-1 */
} mw_energy_trace;

/* Orders w[0..n) by (t1_ns, t0_ns) in place if needed and builds the prefix sums. Refuses
 * (-1, err) a window ending before it starts, and one lying inside an earlier one (t0 going
 * back while t1 does not: the trace is not one step function). Windows may touch, overlap
 * slightly (each is integrated whole) or leave holes. n = 0 gives an empty trace. */
int mw_energy_trace_init(mw_energy_trace *t, mw_energy_window *w, size_t n, char *err,
                         size_t errlen);
void mw_energy_trace_free(mw_energy_trace *t);

/* Energy from the trace's start to instant t_ns (0 before the first window, the whole
 * trace after the last). */
mw_energy_pj mw_energy_at_pj(const mw_energy_trace *t, int64_t t_ns);
/* Window time (ns) from the trace's start to t_ns: the same with power 1. */
int64_t mw_energy_covered_at_ns(const mw_energy_trace *t, int64_t t_ns);
/* Energy of [from_ns, to_ns) and the window time inside it; 0 when to_ns <= from_ns. */
mw_energy_pj mw_energy_span_pj(const mw_energy_trace *t, int64_t from_ns, int64_t to_ns);
int64_t mw_energy_span_covered_ns(const mw_energy_trace *t, int64_t from_ns, int64_t to_ns);
/* The windows overlapping [from_ns, to_ns): indices [*i0, *i1). */
void mw_energy_window_range(const mw_energy_trace *t, int64_t from_ns, int64_t to_ns, size_t *i0,
                            size_t *i1);

/* Which channels measure which ranks (docs/analysis.md; the one rule mw analyze, mw dvfs and
 * mw fit share). A channel with a host measures the ranks on that host; a channel without
 * one (NULL or "") measures every rank. */
int mw_energy_channel_measures(const char *channel_host, const char *rank_host);
/* The channels a rank's power and energy are attributed to: the channels on its host, or,
 * when its host has none, the host-less ones. channel_hosts[0..n) are the channels' hosts
 * (NULL or "" for none); returns 1 when channel c is one of the rank's. */
int mw_energy_rank_has_channel(const char *const *channel_hosts, size_t n, size_t c,
                               const char *rank_host);

/* A span of time [start_ns, end_ns). */
typedef struct {
    int64_t start_ns, end_ns;
} mw_energy_span;

/* Sorts s[0..n) and merges overlapping or touching spans in place, dropping empty ones;
 * returns how many remain (the union, sorted and disjoint). */
size_t mw_energy_spans_union(mw_energy_span *s, size_t n);
/* Clips a sorted disjoint s[0..n) to [from_ns, to_ns) in place; returns how many remain. */
size_t mw_energy_spans_clip(mw_energy_span *s, size_t n, int64_t from_ns, int64_t to_ns);
/* Total length of disjoint spans, ns. */
int64_t mw_energy_spans_length_ns(const mw_energy_span *s, size_t n);
/* Energy of the trace over disjoint spans, and the window time inside them (either pointer
 * may be NULL). */
void mw_energy_spans_sum(const mw_energy_trace *t, const mw_energy_span *s, size_t n,
                         mw_energy_pj *pj, int64_t *covered_ns);

/* Labels windows [i0, i1) of the trace: working[i - i0] = 1 when the sorted disjoint spans
 * work[0..nwork) cover more than half of window i, else 0. Returns how many are working. */
size_t mw_energy_label_windows(const mw_energy_trace *t, size_t i0, size_t i1,
                               const mw_energy_span *work, size_t nwork, unsigned char *working);

/* The meter's counter around a range: the first and last windows (in time) that overlap it,
 * their energy_mj (the run store's counter at each window's end) and the first window's
 * length in meter time. */
typedef struct {
    mw_energy_window first, last;
    int64_t first_energy_mj, last_energy_mj;
    int64_t first_meter_us;
} mw_energy_counter;

/* The meter's energy for [from_ns, to_ns): counter(last) - counter(first) + power(first) x
 * meter length(first), less power x the host time of the first window before from_ns and
 * of the last window after to_ns. */
mw_energy_pj mw_energy_meter_pj(const mw_energy_counter *c, int64_t from_ns, int64_t to_ns);

/* Mean power (mW, rounded half away from zero) of pj over covered_ns; 0 when covered_ns
 * <= 0. */
int64_t mw_energy_mean_power_mw(mw_energy_pj pj, int64_t covered_ns);
/* Dynamic energy, J: pj / 1e12 - idle_power_w x covered_ns / 1e9. */
double mw_energy_dynamic_j(mw_energy_pj pj, double idle_power_w, int64_t covered_ns);
/* pj in J (double, for statistics). */
double mw_energy_j(mw_energy_pj pj);
#endif
