/* calibrate — see mw_calibrate.h. Commands go through mw_meter_command (the reply or "E,",
 * windows arriving meanwhile stay queued); a reading then takes windows from the queue in
 * arrival order, so what arrived before the last command's reply, computed with the
 * constants before it, is dropped first. A reading waits (windows + 4) x 2 window times +
 * 5 s at most. */
#include "mw_calibrate.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int mw_cal_read_constants(const mw_cal_link *l, double *gain, double *phase_deg, char *err,
                          size_t errlen)
{
    mw_meter_event ev; /* the boot line of the reset the opening caused, and the rest so far */
    while (mw_meter_next(l->m, &ev, 0) == 1) {
    }
    for (int k = 0; k <= l->n_current; k++) {
        char cmd[16], reply[256];
        snprintf(cmd, sizeof cmd, "CAL? %d", k);
        int ch;
        if (mw_meter_command(l->m, cmd, "C,", reply, sizeof reply, MW_CAL_CMD_TIMEOUT_MS) != 0 ||
            mw_proto_parse_cal(reply, &ch, &gain[k], &phase_deg[k]) != 0 || ch != k) {
            snprintf(err, errlen, "%s: '%s': %s", l->path, cmd, reply);
            return -1;
        }
    }
    return 0;
}

int mw_cal_set(const mw_cal_link *l, int ch, double gain, double phase_deg, double *gain_set,
               double *phase_set, char *err, size_t errlen)
{
    char cmd[96], reply[256];
    snprintf(cmd, sizeof cmd, "CAL %d %.7g %.3f", ch, gain, phase_deg);
    int r = mw_meter_command(l->m, cmd, "C,", reply, sizeof reply, MW_CAL_CMD_TIMEOUT_MS);
    int k;
    double g, p;
    if (r != 0 || mw_proto_parse_cal(reply, &k, &g, &p) != 0 || k != ch) {
        snprintf(err, errlen, "%s: '%s': %s", l->path, cmd,
                 r < 0      ? reply
                 : reply[0] ? reply
                            : "no reply");
        return -1;
    }
    *gain_set = g;
    *phase_set = p;
    return 0;
}

/* Why window w fails the reading (why: room for the clipping channels), or NULL. */
static const char *bad_window(const mw_proto_window *w, char *why, size_t whylen)
{
    if (w->flags & MW_FLAG_NO_VOLTAGE) return "no mains voltage on the voltage input";
    if (!(w->flags & MW_FLAG_CLIP)) return NULL;
    int len = snprintf(why, whylen, "the ADC clips on channel");
    for (int k = 0; k <= w->nchan && len < (int)whylen - 8; k++)
        if (w->clip & (1u << k)) len += snprintf(why + len, whylen - (size_t)len, " %d", k);
    snprintf(why + len, whylen - (size_t)len, ": beyond full scale");
    return why;
}

/* Window w's values as window i of the reading. */
static void keep_window(const mw_cal_link *l, const mw_proto_window *w, mw_cal_windows *out,
                        size_t i)
{
    size_t cap = out->cap;
    double v = out->vrms_v[i] = w->vrms_mv * 1e-3;
    for (int k = 0; k < l->n_current; k++) {
        double pw = w->ch[k].p_mw * 1e-3, a = w->ch[k].irms_ua * 1e-6;
        out->p_w[(size_t)k * cap + i] = pw;
        out->irms_a[(size_t)k * cap + i] = a;
        out->pf[(size_t)k * cap + i] = v > 0 && a > 0 ? pw / (v * a) : 0;
    }
}

int mw_cal_read_windows(const mw_cal_link *l, mw_cal_windows *out, char *err, size_t errlen)
{
    out->n = out->flagged = 0;
    mw_meter_event ev;
    const char *fail = NULL;
    char why[256];
    /* what arrived before the last command's reply was computed before it */
    int r;
    while ((r = mw_meter_next(l->m, &ev, 0)) == 1)
        if (ev.type == MW_METER_BOOT) fail = "the meter restarted (its calibration in RAM is lost)";
    int skip = 1; /* the window in progress when the command took effect */
    int64_t deadline = mono_ms() + (int64_t)((int)out->cap + 4) * l->window_ms * 2 + 5000;
    while (!fail && out->n < out->cap) {
        if (l->stop && *l->stop) {
            fail = "interrupted";
            break;
        }
        if (mono_ms() > deadline) {
            fail = "no windows from the meter";
            break;
        }
        r = mw_meter_next(l->m, &ev, 250);
        if (r < 0) {
            fail = "the meter went away";
            break;
        }
        if (r == 0) continue;
        if (ev.type == MW_METER_BOOT) {
            fail = "the meter restarted (its calibration in RAM is lost)";
            break;
        }
        if (ev.type != MW_METER_WINDOW) continue;
        const mw_proto_window *w = &ev.w;
        if (skip > 0 || (w->flags & (MW_FLAG_FIRST | MW_FLAG_OVERRUN))) {
            if (skip > 0)
                skip--;
            else
                out->flagged++;
            continue;
        }
        if ((fail = bad_window(w, why, sizeof why))) break;
        if (w->nchan < l->n_current) continue;
        keep_window(l, w, out, out->n++);
    }
    if (!fail) return 0;
    snprintf(err, errlen, "%s: %s", l->path, fail);
    return -1;
}

int mw_cal_save(const mw_cal_link *l, uint32_t date_yyyymmdd, const char *note, char *warn,
                size_t warnlen, char *err, size_t errlen)
{
    char cmd[96], reply[256];
    if (warnlen) warn[0] = 0;
    snprintf(cmd, sizeof cmd, "CALDATE %u%s%s", (unsigned)date_yyyymmdd, note[0] ? " " : "", note);
    int r = mw_meter_command(l->m, cmd, "OK,CALDATE", reply, sizeof reply, MW_CAL_CMD_TIMEOUT_MS);
    if (r < 0) {
        snprintf(err, errlen, "%s: '%s': %s", l->path, cmd, reply);
        return -1;
    }
    if (r > 0)
        snprintf(warn, warnlen,
                 "warning: the meter's firmware keeps no calibration record (%s): saving the "
                 "constants without date (flash this version's firmware)",
                 reply);
    if (mw_meter_command(l->m, "SAVE", "OK,SAVE", reply, sizeof reply, MW_CAL_CMD_TIMEOUT_MS) !=
        0) {
        snprintf(err, errlen, "%s: 'SAVE': %s", l->path, reply);
        return -1;
    }
    return 0;
}

const mw_proto_ident *mw_cal_ident(const mw_cal_link *l)
{
    char reply[256];
    if (mw_meter_command(l->m, "ID", "I,", reply, sizeof reply, MW_CAL_CMD_TIMEOUT_MS) != 0)
        return NULL;
    return mw_meter_ident(l->m);
}
