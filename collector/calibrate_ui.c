/* calibrate_ui — see calibrate_ui.h. The session's meter functions are libmw's with the
 * link in the context. A reading's progress is one line on standard error,
 * "reading N windows WHAT ..." flushed before the reading and ended by " done (...)" or
 * " failed" and the reason; every other message is "mw calibrate: TEXT". The guided mode
 * asks again after an answer it cannot read, and goes on to the next channel after a step
 * that was undone. */
#include "calibrate_ui.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mw_num.h"

int mw_calibrate_number(const char *arg, double lo, double hi, double *out)
{
    return mw_num_double(arg, lo, hi, out) ? -1 : 0;
}

void mw_calibrate_event(void *ctx, mw_calib_event ev, const char *text, const mw_calib_reading *r)
{
    const mw_calibrate_ctx *c = ctx;
    switch (ev) {
    case MW_CALIB_EV_READING:
        fprintf(stderr, "reading %d windows %s ...", c->s.windows, text);
        fflush(stderr);
        break;
    case MW_CALIB_EV_READ:
        fprintf(stderr, " done (outliers left out: %zu; flagged windows: %zu)\n", r->outliers,
                r->flagged);
        break;
    case MW_CALIB_EV_READ_FAILED:
        fprintf(stderr, " failed\nmw calibrate: %s\n", text);
        break;
    case MW_CALIB_EV_SAY:
        fprintf(stderr, "mw calibrate: %s\n", text);
        break;
    }
}

static int io_set(void *ctx, int ch, double gain, double phase_deg, double *gain_set,
                  double *phase_set, char *err, size_t errlen)
{
    return mw_cal_set(&((mw_calibrate_ctx *)ctx)->link, ch, gain, phase_deg, gain_set, phase_set,
                      err, errlen);
}

static int io_read(void *ctx, mw_cal_windows *w, char *err, size_t errlen)
{
    return mw_cal_read_windows(&((mw_calibrate_ctx *)ctx)->link, w, err, errlen);
}

int mw_calibrate_begin(mw_calibrate_ctx *c, int windows)
{
    double gain[MW_PROTO_MAX_I + 1], phase[MW_PROTO_MAX_I + 1];
    char err[5120];
    if (mw_cal_read_constants(&c->link, gain, phase, err, sizeof err) != 0) {
        fprintf(stderr, "mw calibrate: %s\n", err);
        return -1;
    }
    mw_calib_io io = {.ctx = c, .set = io_set, .read = io_read, .event = mw_calibrate_event};
    mw_calib_session_init(&c->s, &io, c->link.n_current, windows, gain, phase);
    return 0;
}

void mw_calibrate_report(const mw_calib_session *s)
{
    if (!s->nrows) return;
    printf("\n%-10s %-3s %11s %11s %9s %11s %9s\n", "", "", "reference", "before", "error", "after",
           "error");
    for (int i = 0; i < s->nrows; i++) {
        const mw_calib_row *r = &s->rows[i];
        if (r->is_pf)
            printf("%-10s %-3s %11.4f %11.4f %+9.4f %11.4f %+9.4f\n", r->what, r->unit, r->ref,
                   r->before, r->before - r->ref, r->after, r->after - r->ref);
        else
            printf("%-10s %-3s %11.3f %11.3f %+7.3f %% %11.3f %+7.3f %%\n", r->what, r->unit,
                   r->ref, r->before, mw_calib_error_pct(r->before, r->ref), r->after,
                   mw_calib_error_pct(r->after, r->ref));
    }
    printf("\n%-22s %12s %12s\n", "constant", "before", "after");
    for (int k = 0; k <= s->n_current; k++) {
        if (s->gain[k] != s->orig_gain[k])
            printf("channel %-2d gain %-7s %12.6f %12.6f\n", k, k ? "A/count" : "V/count",
                   s->orig_gain[k], s->gain[k]);
        if (s->phase_deg[k] != s->orig_phase_deg[k])
            printf("channel %-2d phase deg    %+12.3f %+12.3f\n", k, s->orig_phase_deg[k],
                   s->phase_deg[k]);
    }
}

int mw_calibrate_no_load(mw_calibrate_ctx *c, double max_w)
{
    mw_calib_reading r;
    if (mw_calib_measure(&c->s, "with no load", 0xFFFEu, &r) != 0) return -1;
    int bad = 0;
    printf("\nno-load check (|P| <= %g W):\n", max_w);
    for (int k = 1; k <= c->s.n_current; k++) {
        int ok = fabs(r.p_w[k - 1]) <= max_w;
        bad += !ok;
        printf("channel %-2d %+10.3f W %9.4f A rms (%5.2f counts)  %s\n", k, r.p_w[k - 1],
               r.irms_a[k - 1], r.irms_a[k - 1] / c->s.gain[k],
               ok ? "ok" : "TOO HIGH: a load still on, crosstalk or a bad sensor");
    }
    return bad ? -1 : 0;
}

int mw_calibrate_ask(const char *prompt, char *buf, size_t n)
{
    fprintf(stderr, "%s", prompt);
    fflush(stderr);
    if (!fgets(buf, (int)n, stdin)) return -1;
    buf[strcspn(buf, "\r\n")] = 0;
    char *s = buf;
    while (*s == ' ' || *s == '\t')
        s++;
    memmove(buf, s, strlen(s) + 1);
    size_t len = strlen(buf);
    while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
        buf[--len] = 0;
    return 0;
}

/* Asks for the voltage reference until one is given and its step done, or skipped. */
static int guided_voltage(mw_calibrate_ctx *c)
{
    char line[256];
    double v;
    for (;;) {
        if (mw_calibrate_ask("Mains voltage on the reference voltmeter, V rms (Enter: skip): ",
                             line, sizeof line) != 0)
            return -1;
        if (!line[0]) return 0;
        if (mw_calibrate_number(line, 1, 1000, &v) == 0) {
            int r = mw_calib_step(&c->s, v, NULL, 0, 1);
            if (r == MW_CALIB_STEP_FATAL) return -1;
            if (r == 0) return 0;
            continue;
        }
        fprintf(stderr, "'%s' is not a voltage\n", line);
    }
}

/* Channel k's reference: 1 with *r, 0 to skip the channel, 2 for no more channels, 3 to
 * ask again, -1 at the end of the input. */
static int guided_reference(int k, mw_calib_ref *r)
{
    char line[256], prompt[512];
    snprintf(prompt, sizeof prompt,
             "\nChannel %d: a load on its sensor alone (kettle, heater, incandescent lamp);\n"
             "its power on the reference meter in W, or its current as e.g. 4.35A\n"
             "(Enter: skip this channel, q: no more channels): ",
             k);
    if (mw_calibrate_ask(prompt, line, sizeof line) != 0) return -1;
    if (!strcmp(line, "q")) return 2;
    if (!line[0]) return 0;
    size_t len = strlen(line);
    int amps = len > 1 && (line[len - 1] == 'A' || line[len - 1] == 'a');
    if (amps || line[len - 1] == 'W' || line[len - 1] == 'w') line[--len] = 0;
    if (mw_calibrate_number(line, 1e-3, 1e6, amps ? &r->current_a : &r->power_w) != 0) {
        fprintf(stderr, "'%s' is not a power or current; channel %d again\n", line, k);
        return 3;
    }
    if (mw_calibrate_ask("Its power factor (Enter: 1, a resistive load): ", line, sizeof line) != 0)
        return -1;
    if (line[0] && mw_calibrate_number(line, 1e-3, 1, &r->pf) != 0) {
        fprintf(stderr, "'%s' is not a power factor in (0, 1]; channel %d again\n", line, k);
        return 3;
    }
    return 1;
}

int mw_calibrate_guided(mw_calibrate_ctx *c, double no_load_max_w)
{
    char line[256];
    fprintf(stderr,
            "Calibration of the meter on %s, one reference at a time (docs/calibration.md).\n"
            "Each reading takes %d windows (%.1f s); keep the loads steady meanwhile.\n\n",
            c->link.path, c->s.windows, c->s.windows * c->link.window_ms / 1000.0);
    if (guided_voltage(c) != 0) return -1;
    for (int k = 1; k <= c->s.n_current; k++) {
        mw_calib_ref r = {.ch = k, .pf = 1};
        int a = guided_reference(k, &r);
        if (a < 0) return -1;
        if (a == 2) break;
        if (a == 3) k--;
        if (a != 1) continue;
        int rs = mw_calib_step(&c->s, 0, &r, 1, 1);
        if (rs == MW_CALIB_STEP_FATAL) return -1;
        if (rs == MW_CALIB_STEP_UNDONE) fprintf(stderr, "channel %d: not calibrated\n", k);
    }
    if (mw_calibrate_ask("\nNo-load check: switch every load off, leaving the sensors clamped on "
                         "their\nleads, then Enter (s: skip): ",
                         line, sizeof line) != 0)
        return -1;
    if (strcmp(line, "s") != 0 && mw_calibrate_no_load(c, no_load_max_w) != 0)
        fprintf(stderr, "mw calibrate: the no-load check failed\n");
    return 0;
}
