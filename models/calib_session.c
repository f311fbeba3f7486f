/* calib_session — see calib_session.h. A step keeps the constants it started from (gain0,
 * phase0) to set back channel 0 and its references' channels when it is undone; only the
 * constants that differ are sent again. Rows are added by the check (reading D) and taken
 * back when the step is undone. Messages are at most MSG_MAX - 1 bytes (a port's path and a
 * meter's reply). */
#include "calib_session.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"

#define MSG_MAX 5120

static void say(mw_calib_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(mw_calib_session *s, const char *fmt, ...)
{
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->io.event(s->io.ctx, MW_CALIB_EV_SAY, msg, NULL);
}

void mw_calib_session_init(mw_calib_session *s, const mw_calib_io *io, int n_current, int windows,
                           const double *gain, const double *phase_deg)
{
    memset(s, 0, sizeof *s);
    s->io = *io;
    s->n_current = n_current;
    s->windows = windows;
    for (int k = 0; k <= n_current; k++) {
        s->orig_gain[k] = s->gain[k] = gain[k];
        s->orig_phase_deg[k] = s->phase_deg[k] = phase_deg[k];
    }
}

/* CAL for channel ch; s->gain, s->phase_deg as the meter took them. 0, or -1 (said why). */
static int set_cal(mw_calib_session *s, int ch, double gain, double phase_deg)
{
    char err[MSG_MAX];
    double g, p;
    if (s->io.set(s->io.ctx, ch, gain, phase_deg, &g, &p, err, sizeof err) != 0) {
        say(s, "%s", err);
        return -1;
    }
    s->gain[ch] = g;
    s->phase_deg[ch] = p;
    return 0;
}

/* Robust means of every column of w; outliers: the most dropped of the voltage and of the
 * power, current and PF of the channels in mask. */
static void means(const mw_cal_windows *w, int n_current, uint32_t mask, mw_calib_reading *out)
{
    mw_calib_stat st;
    size_t n = w->n;
    mw_calib_robust(w->vrms_v, n, MW_CALIB_OUTLIER_K, &st);
    out->vrms_v = st.mean;
    out->n = n;
    size_t dropped = n - st.kept;
    for (int k = 0; k < n_current; k++) {
        size_t kept = n, at = (size_t)k * w->cap;
        mw_calib_robust(w->p_w + at, n, MW_CALIB_OUTLIER_K, &st);
        out->p_w[k] = st.mean;
        if (st.kept < kept) kept = st.kept;
        mw_calib_robust(w->irms_a + at, n, MW_CALIB_OUTLIER_K, &st);
        out->irms_a[k] = st.mean;
        if (st.kept < kept) kept = st.kept;
        mw_calib_robust(w->pf + at, n, MW_CALIB_OUTLIER_K, &st);
        out->pf[k] = st.mean;
        if (st.kept < kept) kept = st.kept;
        if ((mask & (1u << (k + 1))) && n - kept > dropped) dropped = n - kept;
    }
    out->outliers = dropped;
    out->flagged = w->flagged;
}

int mw_calib_measure(mw_calib_session *s, const char *what, uint32_t mask, mw_calib_reading *out)
{
    memset(out, 0, sizeof *out);
    s->io.event(s->io.ctx, MW_CALIB_EV_READING, what, NULL);
    size_t cap = (size_t)s->windows;
    double *v = mw_xcalloc(cap * (1 + 3 * (size_t)s->n_current), sizeof *v);
    mw_cal_windows w = {.vrms_v = v, .cap = cap};
    w.p_w = v + cap;
    w.irms_a = w.p_w + cap * (size_t)s->n_current;
    w.pf = w.irms_a + cap * (size_t)s->n_current;
    char err[MSG_MAX];
    int rc = s->io.read(s->io.ctx, &w, err, sizeof err);
    if (rc == 0 && w.n == cap) {
        means(&w, s->n_current, mask, out);
        s->io.event(s->io.ctx, MW_CALIB_EV_READ, NULL, out);
    } else {
        s->io.event(s->io.ctx, MW_CALIB_EV_READ_FAILED, rc ? err : "too few windows", NULL);
        rc = -1;
    }
    free(v);
    return rc;
}

int mw_calib_changed(const mw_calib_session *s)
{
    for (int k = 0; k <= s->n_current; k++)
        if (s->gain[k] != s->orig_gain[k] || s->phase_deg[k] != s->orig_phase_deg[k]) return 1;
    return 0;
}

void mw_calib_restore(mw_calib_session *s)
{
    for (int k = 0; k <= s->n_current; k++)
        if (s->gain[k] != s->orig_gain[k] || s->phase_deg[k] != s->orig_phase_deg[k])
            set_cal(s, k, s->orig_gain[k], s->orig_phase_deg[k]);
}

void mw_calib_keep(mw_calib_session *s)
{
    for (int k = 0; k <= s->n_current; k++) {
        s->orig_gain[k] = s->gain[k];
        s->orig_phase_deg[k] = s->phase_deg[k];
    }
}

void mw_calib_session_note(const mw_calib_session *s, char *out)
{
    mw_calib_note(s->used_vrms_v, s->nused, s->used_ch, s->used_p_w, s->used_i_a, out);
}

/* ---- one step ------------------------------------------------------------------------ */

/* Sets back the constants of channel 0 and of refs to gain, phase (those before the step):
 * MW_CALIB_STEP_UNDONE, or MW_CALIB_STEP_FATAL when the meter refused. */
static int undo_step(mw_calib_session *s, const double *gain, const double *phase,
                     const mw_calib_ref *refs, int nrefs)
{
    int rc = 0;
    if (s->gain[0] != gain[0] || s->phase_deg[0] != phase[0])
        rc |= set_cal(s, 0, gain[0], phase[0]);
    for (int i = 0; i < nrefs; i++) {
        int k = refs[i].ch;
        if (s->gain[k] != gain[k] || s->phase_deg[k] != phase[k])
            rc |= set_cal(s, k, gain[k], phase[k]);
    }
    return rc ? MW_CALIB_STEP_FATAL : MW_CALIB_STEP_UNDONE;
}

/* Reading A's current on every reference's channel: -1 when one has too few ADC counts to
 * calibrate with, a warning when it is low. */
static int enough_current(mw_calib_session *s, const mw_calib_reading *a, const mw_calib_ref *refs,
                          int nrefs)
{
    for (int i = 0; i < nrefs; i++) {
        int k = refs[i].ch;
        double counts = a->irms_a[k - 1] / s->gain[k];
        if (counts < MW_CALIB_MIN_COUNTS) {
            say(s,
                "channel %d: %.3f A rms is %.1f ADC counts: no load on it, or far too small a "
                "one to calibrate with",
                k, a->irms_a[k - 1], counts);
            return -1;
        }
        if (counts < MW_CALIB_LOW_COUNTS)
            say(s,
                "warning: channel %d: %.3f A rms is only %.1f ADC counts: each window is noisy, "
                "average more of them (--windows 64)",
                k, a->irms_a[k - 1], counts);
    }
    return 0;
}

/* The refs' phases set to phase0 + h (gains gain0), then a reading. */
static int probe(mw_calib_session *s, const mw_calib_ref *refs, int nrefs, const double *gain0,
                 const double *phase0, double h, uint32_t mask, mw_calib_reading *out)
{
    char list[64] = "", what[128];
    size_t len = 0;
    for (int i = 0; i < nrefs; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, " %d", refs[i].ch);
    for (int i = 0; i < nrefs; i++)
        if (set_cal(s, refs[i].ch, gain0[refs[i].ch], phase0[refs[i].ch] + h) != 0) return -1;
    snprintf(what, sizeof what, "with the phase of channel%s%s %+.0f deg", nrefs > 1 ? "s" : "",
             list, h);
    return mw_calib_measure(s, what, mask, out);
}

/* Readings B and C, then every reference's new gain and phase into res (vratio: new / old
 * voltage gain). 0, or a step status. */
static int new_channels(mw_calib_session *s, const mw_calib_reading *a, const mw_calib_ref *refs,
                        int nrefs, const double *gain0, const double *phase0, double vratio,
                        uint32_t mask, mw_calib_channel_out *res)
{
    double h = MW_CALIB_PROBE_DEG;
    mw_calib_reading bp, bm;
    if (probe(s, refs, nrefs, gain0, phase0, h, mask, &bp) != 0 ||
        probe(s, refs, nrefs, gain0, phase0, -h, mask, &bm) != 0)
        return MW_CALIB_STEP_FATAL;
    for (int i = 0; i < nrefs; i++) {
        int k = refs[i].ch;
        mw_calib_channel_in in = {.gain_a_per_count = gain0[k],
                                  .phase_deg = phase0[k],
                                  .vrms_v = a->vrms_v,
                                  .irms_a = a->irms_a[k - 1],
                                  .pf_plus = bp.pf[k - 1],
                                  .pf_minus = bm.pf[k - 1],
                                  .probe_deg = h,
                                  .voltage_gain_ratio = vratio,
                                  .ref_power_w = refs[i].power_w,
                                  .ref_current_a = refs[i].current_a,
                                  .ref_pf = refs[i].pf};
        char why[256];
        if (mw_calib_channel(&in, &res[i], why, sizeof why) != 0) {
            say(s, "channel %d: %s", k, why);
            return undo_step(s, gain0, phase0, refs, nrefs);
        }
        if (fabs(res[i].phase_deg) > MW_CALIB_PHASE_WARN_DEG)
            say(s,
                "warning: channel %d: a phase of %+.1f deg is far more than sensors need (a few "
                "degrees): is its reference power factor right?",
                k, res[i].phase_deg);
    }
    return 0;
}

/* A row of the report; returns 1 when its after-error is beyond the check's limit. */
static int add_row(mw_calib_session *s, const char *what, const char *unit, double ref,
                   double before, double after, int is_pf)
{
    mw_calib_row *r = &s->rows[s->nrows++];
    snprintf(r->what, sizeof r->what, "%s", what);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->ref = ref;
    r->before = before;
    r->after = after;
    r->is_pf = is_pf;
    double err = is_pf ? after - ref : mw_calib_error_pct(after, ref);
    return fabs(err) > (is_pf ? MW_CALIB_CHECK_MAX_PF : MW_CALIB_CHECK_MAX_PCT);
}

/* The report's rows from readings A and D; the step undone for a bad check when asked, else
 * its references recorded as used. 0, or a step status. */
static int check(mw_calib_session *s, double ref_vrms_v, const mw_calib_ref *refs, int nrefs,
                 const mw_calib_reading *a, const mw_calib_reading *d, const double *gain0,
                 const double *phase0, int undo_bad_check)
{
    int nrows = s->nrows, bad = 0;
    if (ref_vrms_v > 0) bad |= add_row(s, "voltage", "V", ref_vrms_v, a->vrms_v, d->vrms_v, 0);
    for (int i = 0; i < nrefs; i++) {
        int k = refs[i].ch;
        char what[24];
        snprintf(what, sizeof what, "channel %d", k);
        if (refs[i].power_w > 0)
            bad |= add_row(s, what, "W", refs[i].power_w, a->p_w[k - 1], d->p_w[k - 1], 0);
        else
            bad |= add_row(s, what, "A", refs[i].current_a, a->irms_a[k - 1], d->irms_a[k - 1], 0);
        bad |= add_row(s, "", "PF", refs[i].pf, a->pf[k - 1], d->pf[k - 1], 1);
    }
    if (bad && undo_bad_check) {
        s->nrows = nrows;
        say(s,
            "the check with the new constants is out by more than %g %% (or %g in PF): the load "
            "or the mains changed meanwhile, or the reference is wrong; this step is undone",
            MW_CALIB_CHECK_MAX_PCT, MW_CALIB_CHECK_MAX_PF);
        return undo_step(s, gain0, phase0, refs, nrefs);
    }
    s->check_failed |= bad;
    if (ref_vrms_v > 0) s->used_vrms_v = ref_vrms_v;
    for (int i = 0; i < nrefs; i++) {
        s->used_ch[s->nused] = refs[i].ch;
        s->used_p_w[s->nused] = refs[i].power_w;
        s->used_i_a[s->nused] = refs[i].current_a;
        s->nused++;
    }
    return 0;
}

int mw_calib_step(mw_calib_session *s, double ref_vrms_v, const mw_calib_ref *refs, int nrefs,
                  int undo_bad_check)
{
    mw_calib_reading a, d;
    double gain0[MW_PROTO_MAX_I + 1], phase0[MW_PROTO_MAX_I + 1];
    memcpy(gain0, s->gain, sizeof gain0);
    memcpy(phase0, s->phase_deg, sizeof phase0);
    uint32_t mask = 0;
    for (int i = 0; i < nrefs; i++)
        mask |= 1u << refs[i].ch;
    if (mw_calib_measure(s, "at the calibration in use", mask, &a) != 0) return MW_CALIB_STEP_FATAL;
    if (enough_current(s, &a, refs, nrefs) != 0) return MW_CALIB_STEP_UNDONE;
    double gv_old = s->gain[0], gv_new = gv_old;
    if (ref_vrms_v > 0) {
        gv_new = mw_calib_voltage_gain(gv_old, ref_vrms_v, a.vrms_v);
        if (!(gv_new > 0 && gv_new < 1000)) {
            say(s, "the voltage gain %g is out of range", gv_new);
            return MW_CALIB_STEP_UNDONE;
        }
    }
    mw_calib_channel_out res[MW_PROTO_MAX_I];
    int rc;
    if (nrefs &&
        (rc = new_channels(s, &a, refs, nrefs, gain0, phase0, gv_new / gv_old, mask, res)) != 0)
        return rc;
    if (ref_vrms_v > 0 && set_cal(s, 0, gv_new, s->phase_deg[0]) != 0) return MW_CALIB_STEP_FATAL;
    for (int i = 0; i < nrefs; i++)
        if (set_cal(s, refs[i].ch, res[i].gain_a_per_count, res[i].phase_deg) != 0)
            return MW_CALIB_STEP_FATAL;
    if (mw_calib_measure(s, "with the new calibration", mask, &d) != 0) return MW_CALIB_STEP_FATAL;
    return check(s, ref_vrms_v, refs, nrefs, &a, &d, gain0, phase0, undo_bad_check);
}
