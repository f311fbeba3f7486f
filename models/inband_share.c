/* inband_share — see models/include/inband_share.h. A span's mean power of a trace is its
 * exact energy over the union (mw_energy_spans_sum) divided by the window time inside it,
 * so the figures of several traces with different gaps are each their own mean; the wall
 * is the sum of its channels' means. */
#include "inband_share.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"

/* mean power (W) of trace t over s[0..n); NAN when no window covers any of it */
static double mean_w(const mw_energy_trace *t, const mw_energy_span *s, size_t n)
{
    mw_energy_pj pj = 0;
    int64_t cov = 0;
    mw_energy_spans_sum(t, s, n, &pj, &cov);
    if (cov <= 0) return NAN;
    return (double)pj / (double)cov * 1e-3; /* pJ / ns = mW */
}

void mw_inband_share_fill(mw_inband_share_span *sp, const mw_energy_trace *wall, size_t nwall,
                          const mw_energy_trace *src, const int *src_additive, size_t nsrc,
                          const mw_energy_span *s, size_t n)
{
    sp->duration_ns = mw_energy_spans_length_ns(s, n);
    sp->wall_w = nwall ? 0 : NAN;
    for (size_t c = 0; c < nwall; c++)
        sp->wall_w += mean_w(&wall[c], s, n);
    sp->src_w = mw_xcalloc(nsrc ? nsrc : 1, sizeof *sp->src_w);
    sp->inband_w = 0;
    int any = 0;
    for (size_t i = 0; i < nsrc; i++) {
        sp->src_w[i] = mean_w(&src[i], s, n);
        if (src_additive[i]) {
            sp->inband_w += sp->src_w[i];
            any = 1;
        }
    }
    if (!any) sp->inband_w = NAN;
}

double mw_inband_share_pct(const mw_inband_share_span *sp)
{
    if (!isfinite(sp->wall_w) || !isfinite(sp->inband_w) || sp->wall_w <= 0) return NAN;
    return 100.0 * sp->inband_w / sp->wall_w;
}

double mw_inband_share_rest_w(const mw_inband_share_span *sp)
{
    return sp->wall_w - sp->inband_w; /* NAN propagates */
}

static const mw_inband_share_span *idle_of(const mw_inband_share_node *nd)
{
    return nd->idle >= 0 ? &nd->span[nd->idle] : NULL;
}

double mw_inband_share_dyn_wall_w(const mw_inband_share_node *nd, const mw_inband_share_span *sp)
{
    const mw_inband_share_span *i = idle_of(nd);
    return i ? sp->wall_w - i->wall_w : NAN;
}

double mw_inband_share_dyn_inband_w(const mw_inband_share_node *nd,
                                    const mw_inband_share_span *sp)
{
    const mw_inband_share_span *i = idle_of(nd);
    return i ? sp->inband_w - i->inband_w : NAN;
}

double mw_inband_share_dyn_pct(const mw_inband_share_node *nd, const mw_inband_share_span *sp)
{
    double w = mw_inband_share_dyn_wall_w(nd, sp), b = mw_inband_share_dyn_inband_w(nd, sp);
    if (!isfinite(w) || !isfinite(b)) return NAN;
    /* a ratio of two differences near zero is noise (an idle stage against the idle
     * baseline gave "1032 %"): only a rise of the wall above the larger of 1 W and 5 % of
     * the node's idle wall power */
    const mw_inband_share_span *i = idle_of(nd);
    double min_w = MW_INBAND_SHARE_MIN_DYN_FRAC * i->wall_w;
    if (min_w < MW_INBAND_SHARE_MIN_DYN_W) min_w = MW_INBAND_SHARE_MIN_DYN_W;
    if (w < min_w) return NAN;
    return 100.0 * b / w;
}

void mw_inband_share_free(mw_inband_share *s)
{
    if (!s) return;
    for (size_t k = 0; k < s->nnode; k++) {
        mw_inband_share_node *nd = &s->node[k];
        for (size_t j = 0; j < nd->nspan; j++) {
            free(nd->span[j].kind);
            free(nd->span[j].name);
            free(nd->span[j].src_w);
        }
        free(nd->span);
        free(nd->src);
    }
    free(s->node);
    free(s);
}
