/* calibrate_ui — the terminal side of "mw calibrate": the session of libmwmodels
 * (calib_session.h) begun on the meter through libmw (mw_calibrate.h), its progress and
 * messages printed on standard error as they happen, the report of the errors before and
 * after and of the constants, the no-load check's table, and the guided mode, which asks for
 * the references one at a time on standard input. */
#ifndef MW_CALIBRATE_UI_H
#define MW_CALIBRATE_UI_H
#include <stddef.h>

#include "calib_session.h"
#include "mw_calibrate.h"

/* A calibration under way: the meter (libmw) and the procedure (libmwmodels), whose
 * functions get this as their context. */
typedef struct {
    mw_cal_link link;
    mw_calib_session s;
} mw_calibrate_ctx;

/* A number in [lo, hi], the whole string: 0, or -1 (nothing written). */
int mw_calibrate_number(const char *arg, double lo, double hi, double *out);
/* The constants in use read (c->link set) and the session c->s begun on them, reaching the
 * meter through libmw and printing with mw_calibrate_event. 0, or -1 (message printed). */
int mw_calibrate_begin(mw_calibrate_ctx *c, int windows);
/* The session's event function: prints to standard error (ctx: the mw_calibrate_ctx). */
void mw_calibrate_event(void *ctx, mw_calib_event ev, const char *text, const mw_calib_reading *r);
/* The errors before and after of every row, then the constants that changed. */
void mw_calibrate_report(const mw_calib_session *s);
/* With every load off each channel's power must be within max_w of 0: prints the table;
 * 0, or -1 when a channel is beyond or the reading failed. */
int mw_calibrate_no_load(mw_calibrate_ctx *c, double max_w);
/* A line from standard input after prompt (on standard error), without its newline and the
 * blanks around it; -1 at end of input or on a signal. */
int mw_calibrate_ask(const char *prompt, char *buf, size_t n);
/* The guided procedure: the references one at a time, then the no-load check. 0, or -1
 * when the meter failed or the input ended. */
int mw_calibrate_guided(mw_calibrate_ctx *c, double no_load_max_w);
#endif
