/* calib_session — the procedure of "mw calibrate" (docs/calibration.md), with the meter
 * behind the caller's functions (mw calibrate gives libmw's, mw_calibrate.h; the unit test
 * a simulated meter) and the arithmetic of calib.h.
 *
 * A reading is a number of windows, each channel's voltage, power, current and power factor
 * averaged robustly (mw_calib_robust: outliers dropped). One step reads the meter four
 * times:
 *   A  at the constants in use ("before"; Vrms and Irms for the gains);
 *   B  with the phase of every channel being calibrated at its value + 5 degrees;
 *   C  at its value - 5 degrees (B and C give the phase error with its sign);
 *   D  with the new constants set ("after"; the check).
 * A channel with too little current is refused before anything is set; a channel whose
 * arithmetic fails, or (when asked) a check beyond the limits, has the step's constants set
 * back. The session keeps the constants in use at the start, those in the meter now, the
 * report's rows and the references used, so that the caller can show the errors and the
 * constants before and after, set back the start's constants, or save.
 *
 * The session prints nothing: what it has to say (a reading begins, ends or fails; a
 * warning; why a step failed) goes to the caller's event function as it happens, worded
 * for mw calibrate, which prints each line after "mw calibrate: ". */
#ifndef MW_CALIB_SESSION_H
#define MW_CALIB_SESSION_H
#include <stddef.h>
#include <stdint.h>

#include "calib.h"
#include "mw_calibrate.h"
#include "mw_proto.h"

#define MW_CALIB_CHECK_MAX_PCT 1.0 /* a check beyond this error fails ... */
#define MW_CALIB_CHECK_MAX_PF 0.01 /* ... or beyond this power factor difference */
#define MW_CALIB_MIN_COUNTS 3.0    /* Irms below this many ADC counts: refused */
#define MW_CALIB_LOW_COUNTS 10.0   /* ... below this: a warning */
#define MW_CALIB_PHASE_WARN_DEG 15 /* sensors need a few degrees: beyond this, a warning */

#define MW_CALIB_STEP_FATAL (-1) /* the meter failed: stop */
#define MW_CALIB_STEP_UNDONE                                                                       \
    (-2) /* this step's references cannot be used; its constants set back */

/* The means of one reading; channel k (1..15) at index k - 1. */
typedef struct {
    double vrms_v;
    double p_w[MW_PROTO_MAX_I], irms_a[MW_PROTO_MAX_I], pf[MW_PROTO_MAX_I];
    size_t n;        /* windows averaged */
    size_t flagged;  /* windows left out by the meter's flags */
    size_t outliers; /* the most left out of the voltage or a channel asked about */
} mw_calib_reading;

/* A load on channel ch read by a reference meter: its power (W) or current (A rms), the
 * other 0, and its power factor (lagging, (0, 1]). */
typedef struct {
    int ch;
    double power_w, current_a, pf;
} mw_calib_ref;

/* A row of the report: reference, before and after (errors: % or, for a PF, difference). */
typedef struct {
    char what[24], unit[8];
    double ref, before, after;
    int is_pf;
} mw_calib_row;

typedef enum {
    MW_CALIB_EV_READING,     /* a reading begins; text: what ("with the new calibration") */
    MW_CALIB_EV_READ,        /* it ended; r: its means */
    MW_CALIB_EV_READ_FAILED, /* it failed; text: why, naming the port */
    MW_CALIB_EV_SAY          /* text: a warning, or why a step failed or could not be undone */
} mw_calib_event;

/* The meter, as the caller reaches it: the functions of mw_calibrate.h with ctx their
 * mw_cal_link. */
typedef struct {
    void *ctx;
    int (*set)(void *ctx, int ch, double gain, double phase_deg, double *gain_set,
               double *phase_set, char *err, size_t errlen);
    int (*read)(void *ctx, mw_cal_windows *w, char *err, size_t errlen);
    void (*event)(void *ctx, mw_calib_event ev, const char *text, const mw_calib_reading *r);
} mw_calib_io;

typedef struct {
    mw_calib_io io;
    int n_current, windows; /* windows per reading */
    /* channel k (0: the voltage) */
    double orig_gain[MW_PROTO_MAX_I + 1], orig_phase_deg[MW_PROTO_MAX_I + 1]; /* at the start */
    double gain[MW_PROTO_MAX_I + 1], phase_deg[MW_PROTO_MAX_I + 1]; /* in the meter's RAM now */
    mw_calib_row rows[3 * MW_PROTO_MAX_I + 2];
    int nrows;
    int check_failed; /* an after-error beyond the check's limits (kept, not undone) */
    /* the references used, for the record's text */
    double used_vrms_v;
    int nused;
    int used_ch[MW_PROTO_MAX_I];
    double used_p_w[MW_PROTO_MAX_I], used_i_a[MW_PROTO_MAX_I];
} mw_calib_session;

/* A session over n_current channels reading `windows` windows at a time, the meter's
 * constants in use gain[0..n_current], phase_deg[0..n_current]. */
void mw_calib_session_init(mw_calib_session *s, const mw_calib_io *io, int n_current, int windows,
                           const double *gain, const double *phase_deg);
/* One reading; mask (bit k: channel k) picks the channels whose outliers are reported.
 * 0, or -1 (READ_FAILED said why). */
int mw_calib_measure(mw_calib_session *s, const char *what, uint32_t mask, mw_calib_reading *out);
/* One step for the voltage reference ref_vrms_v (0: none) and the loads refs. Returns 0,
 * MW_CALIB_STEP_FATAL or MW_CALIB_STEP_UNDONE. A check beyond the limits is STEP_UNDONE
 * when undo_bad_check (the guided mode), else its rows stay and s->check_failed is set. */
int mw_calib_step(mw_calib_session *s, double ref_vrms_v, const mw_calib_ref *refs, int nrefs,
                  int undo_bad_check);
/* 1 when the constants in the meter differ from those at the start. */
int mw_calib_changed(const mw_calib_session *s);
/* Sets back the start's constants where they differ (a failure is said, and the rest go on). */
void mw_calib_restore(mw_calib_session *s);
/* The constants in the meter are now kept (saved): nothing to set back. */
void mw_calib_keep(mw_calib_session *s);
/* The record's text from the references used (mw_calib_note); out: MW_CALIB_NOTE_MAX + 1. */
void mw_calib_session_note(const mw_calib_session *s, char *out);
#endif
