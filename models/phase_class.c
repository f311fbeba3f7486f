/* phase_class — a rank's computation, the one rule (mw_phase_class.h): the window and the
 * rank's explicit working phases, united, less the union of its communication and waiting
 * phases; the part of it that the working phases cover is "marked", the rest "inferred".
 * All arithmetic is on sorted disjoint span lists (models/include/energy.h), exact in ns. */
#include "mw_phase_class.h"

#include <stdint.h>
#include <stdlib.h>

#include "mw_alloc.h"

/* a[0..na) less b[0..nb), both sorted and disjoint, into out (room for na + nb); count */
static size_t spans_minus(const mw_energy_span *a, size_t na, const mw_energy_span *b, size_t nb,
                          mw_energy_span *out)
{
    size_t m = 0, j = 0;
    for (size_t i = 0; i < na; i++) {
        int64_t s = a[i].start_ns, e = a[i].end_ns;
        while (j < nb && b[j].end_ns <= s)
            j++;
        for (size_t k = j; k < nb && b[k].start_ns < e; k++) {
            if (b[k].start_ns > s) out[m++] = (mw_energy_span){s, b[k].start_ns};
            if (b[k].end_ns > s) s = b[k].end_ns;
            if (s >= e) break;
        }
        if (s < e) out[m++] = (mw_energy_span){s, e};
    }
    return m;
}

/* the window: first start (end of MPI_Init) to last end (start of MPI_Finalize) */
static void window_of(const mw_phase_span *ph, size_t n, int64_t *lo_ns, int64_t *hi_ns)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, init_end = INT64_MIN, fin_start = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        if (ph[i].end_ns <= ph[i].start_ns) continue;
        if (ph[i].start_ns < lo) lo = ph[i].start_ns;
        if (ph[i].end_ns > hi) hi = ph[i].end_ns;
        if ((ph[i].edge & MW_PHASE_MPI_INIT) && ph[i].end_ns > init_end) init_end = ph[i].end_ns;
        if ((ph[i].edge & MW_PHASE_MPI_FINALIZE) && ph[i].start_ns < fin_start)
            fin_start = ph[i].start_ns;
    }
    if (init_end != INT64_MIN) lo = init_end;
    if (fin_start != INT64_MAX) hi = fin_start;
    *lo_ns = lo;
    *hi_ns = hi;
}

size_t mw_phase_computation_spans(const mw_phase_span *ph, size_t n, mw_energy_span **spans,
                                  mw_phase_computation *c)
{
    mw_phase_computation dummy;
    if (!c) c = &dummy;
    *c = (mw_phase_computation){0};
    size_t cap = 2 * n + 2;
    mw_energy_span *work = mw_xcalloc(cap, sizeof *work), *not = mw_xcalloc(cap, sizeof *not);
    mw_energy_span *out = mw_xcalloc(cap, sizeof *out), *mk = mw_xcalloc(cap, sizeof *mk);
    size_t nw = 0, nn = 0;
    int64_t lo, hi;
    window_of(ph, n, &lo, &hi);
    c->window_start_ns = lo;
    c->window_end_ns = hi;
    for (size_t i = 0; i < n; i++) {
        mw_energy_span s = {ph[i].start_ns, ph[i].end_ns};
        if (ph[i].cls == MW_PHASE_WORK || ph[i].cls == MW_PHASE_GPU) work[nw++] = s;
        if (ph[i].cls == MW_PHASE_COMM || ph[i].cls == MW_PHASE_WAIT) not[nn++] = s;
    }
    nn = mw_energy_spans_union(not, nn);
    /* marked: the working phases less the not-computing ones */
    size_t nmw = mw_energy_spans_union(work, nw);
    size_t nmk = spans_minus(work, nmw, not, nn, mk);
    c->marked_ns = mw_energy_spans_length_ns(mk, nmk);
    /* computation: the window with the working phases, less the not-computing ones */
    if (hi > lo) work[nmw++] = (mw_energy_span){lo, hi};
    nw = mw_energy_spans_union(work, nmw);
    size_t m = spans_minus(work, nw, not, nn, out);
    c->work_ns = mw_energy_spans_length_ns(out, m);
    c->inferred_ns = c->work_ns - c->marked_ns;
    if (hi > lo) {
        /* in 128 bits, saturated: a damaged run's times may lie INT64_MAX apart */
        __int128 in = 0;
        for (size_t i = 0; i < m; i++) { /* the computation within the window */
            int64_t a = out[i].start_ns > lo ? out[i].start_ns : lo;
            int64_t b = out[i].end_ns < hi ? out[i].end_ns : hi;
            if (b > a) in += (__int128)b - a;
        }
        __int128 not_in = (__int128)hi - lo - in;
        c->window_work_ns = in > INT64_MAX ? INT64_MAX : (int64_t)in;
        c->window_not_ns = not_in > INT64_MAX ? INT64_MAX : (int64_t)not_in;
    }
    free(work);
    free(not);
    free(mk);
    if (!m) {
        free(out);
        out = NULL;
    }
    *spans = out;
    return m;
}

size_t mw_phase_inferred_spans(const mw_phase_span *ph, size_t n, mw_energy_span **spans)
{
    mw_energy_span *c;
    size_t m = mw_phase_computation_spans(ph, n, &c, NULL);
    mw_energy_span *work = mw_xcalloc(n + 1, sizeof *work);
    size_t nw = 0;
    for (size_t i = 0; i < n; i++)
        if (ph[i].cls == MW_PHASE_WORK || ph[i].cls == MW_PHASE_GPU)
            work[nw++] = (mw_energy_span){ph[i].start_ns, ph[i].end_ns};
    nw = mw_energy_spans_union(work, nw);
    mw_energy_span *out = m ? mw_xcalloc(m + nw, sizeof *out) : NULL;
    size_t k = m ? spans_minus(c, m, work, nw, out) : 0;
    free(c);
    free(work);
    if (!k) {
        free(out);
        out = NULL;
    }
    *spans = out;
    return k;
}
