/* mw_calibrate — the meter's side of "mw calibrate" (docs/calibration.md): the calibration
 * constants read and set with the firmware's CAL? and CAL commands, the windows of one
 * calibration reading, and the calibration record written (CALDATE with the date and the
 * references, SAVE to EEPROM) and read back (ID). The procedure (readings at the constants
 * in use, with the phase either side of them and with the new ones) and its arithmetic are
 * libmwmodels' (calib_session.h, calib.h), which reach the meter through these functions.
 *
 * A reading drops what the meter sent before it (a restart there fails it: the constants
 * in RAM are lost), then the window in progress when the last command took effect; windows
 * flagged FIRST or OVERRUN are counted and left out. No mains voltage, a clipping ADC, no
 * windows in time, a lost port or the caller's stop flag fail it. Nothing is printed:
 * functions return 0, or -1 with one line naming the port in the caller's buffer. */
#ifndef MW_CALIBRATE_H
#define MW_CALIBRATE_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "mw_meter.h"
#include "mw_proto.h"

#define MW_CAL_CMD_TIMEOUT_MS 2000

typedef struct {
    mw_meter *m;
    const char *path; /* the port, in messages */
    int n_current;    /* current channels, 1..MW_PROTO_MAX_I */
    int window_ms;
    const volatile sig_atomic_t *stop; /* non-zero (a signal): a reading fails, "interrupted" */
} mw_cal_link;

/* The windows of one reading; the caller gives the room (cap windows: vrms_v[cap], and
 * p_w, irms_a, pf [n_current * cap]), the reading fills n and flagged. Channel k
 * (1..n_current) of window i is at [(k - 1) * cap + i]; pf is P / (V I), 0 without
 * voltage or current. */
typedef struct {
    double *vrms_v, *p_w, *irms_a, *pf;
    size_t cap;
    size_t n;       /* windows read: cap, unless it failed */
    size_t flagged; /* windows left out: FIRST or OVERRUN */
} mw_cal_windows;

/* The constants in use, gain[k] and phase_deg[k] for k = 0 (voltage) .. n_current, after
 * dropping what the meter sent since it was opened (the boot line of the reset the opening
 * caused). */
int mw_cal_read_constants(const mw_cal_link *l, double *gain, double *phase_deg, char *err,
                          size_t errlen);
/* CAL: channel ch's gain (V or A per ADC count) and phase; *gain_set and *phase_set as the
 * meter echoes them back. */
int mw_cal_set(const mw_cal_link *l, int ch, double gain, double phase_deg, double *gain_set,
               double *phase_set, char *err, size_t errlen);
/* cap windows into w. */
int mw_cal_read_windows(const mw_cal_link *l, mw_cal_windows *w, char *err, size_t errlen);
/* CALDATE DATE [NOTE] then SAVE. A firmware that keeps no calibration record refuses
 * CALDATE: the constants are saved all the same and warn gets a line saying so ("" when
 * not). */
int mw_cal_save(const mw_cal_link *l, uint32_t date_yyyymmdd, const char *note, char *warn,
                size_t warnlen, char *err, size_t errlen);
/* The identification as the meter now reports it ("ID"), or NULL when it does not answer. */
const mw_proto_ident *mw_cal_ident(const mw_cal_link *l);
#endif
