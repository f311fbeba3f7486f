/* calib — the arithmetic of `mw calibrate` (docs/calibration.md), apart from the meter so
 * that every formula can be checked by hand: robust means over windows (median and MAD,
 * outliers dropped), the voltage gain from a reference voltmeter, a current channel's phase
 * from its power factor read with the phase set either side of the value in use, its gain
 * from a reference power or current, errors, and the short text the meter keeps with the
 * date of its calibration. Pure functions, no I/O. Units are in the names: V, A, W, degrees;
 * gains are volts or amps per ADC count, as the firmware's `CAL` takes them.
 *
 * The phase model (the firmware's metrology, docs/firmware.md): with the phase calibration
 * set to phi, a channel whose current is at angle x from the voltage (x = the sensor's lead
 * minus the load's lag) reads P = S cos(x - phi) and PF = P / (V I) = kappa cos(x - phi),
 * where S is the apparent power and kappa <= 1 the small loss from noise and harmonics in
 * the rms values. Read at phi0 + h and phi0 - h, with a = x - phi0:
 *     PF+ + PF- = 2 kappa cos(a) cos(h),   PF+ - PF- = 2 kappa sin(a) sin(h),
 * so a and kappa follow exactly (no small-angle approximation), and the sign of the error
 * with them; load changes between the readings cancel, as each window's PF is a ratio. The
 * new phase is phi0 + a + acos(PF_ref): a resistive load (PF_ref = 1) then reads PF = 1. */
#ifndef MW_CALIB_H
#define MW_CALIB_H
#include <stddef.h>
#include <stdint.h>

#define MW_CALIB_OUTLIER_K 3.5 /* outlier: farther than 3.5 x 1.4826 MAD from the median */
#define MW_CALIB_PROBE_DEG 5.0 /* phase offset of the two probe readings */
#define MW_CALIB_NOTE_MAX 16   /* the record's text (firmware MW_CALREC_TEXT_MAX) */

typedef struct {
    double mean;   /* of the values kept */
    double median; /* of all values */
    double mad;    /* median absolute deviation from the median, all values */
    size_t n, kept;
} mw_calib_stat;

/* Values farther than k * 1.4826 * MAD from the median are dropped (none when the MAD is
 * 0), the rest averaged. Returns 0, or -1 when n is 0. */
int mw_calib_robust(const double *x, size_t n, double k, mw_calib_stat *out);

/* New voltage gain: gain x reference / measured (both rms). 0 when measured <= 0. */
double mw_calib_voltage_gain(double gain_v_per_count, double ref_vrms_v, double meas_vrms_v);

/* The angle a (degrees) of the current from where the phase in use puts it, and kappa,
 * from PF read with the phase at phi0 + probe (pf_plus) and phi0 - probe (pf_minus).
 * Returns 0, or -1 when the readings say the power is not positive (sensor reversed,
 * export, no load). */
int mw_calib_phase_angle(double pf_plus, double pf_minus, double probe_deg, double *angle_deg,
                         double *kappa);

typedef struct {
    double gain_a_per_count, phase_deg; /* the calibration in use */
    double vrms_v, irms_a;              /* means of the windows read with it */
    double pf_plus, pf_minus;           /* means of P/(V I) at phase_deg +- probe_deg */
    double probe_deg;
    double voltage_gain_ratio; /* new / in-use voltage gain (1: voltage not recalibrated) */
    double ref_power_w;        /* the reference: real power (> 0) ... */
    double ref_current_a;      /* ... or rms current (> 0); the other 0 */
    double ref_pf;             /* power factor of the reference load, lagging, (0, 1] */
} mw_calib_channel_in;

typedef struct {
    double gain_a_per_count, phase_deg; /* the new calibration */
    double angle_deg;                   /* a: the phase error found (+ = current leads) */
    double kappa;
    double true_irms_a; /* the current the new gain makes the meter read */
} mw_calib_channel_out;

/* A channel's new gain and phase. With a reference power the gain makes the meter read
 * P_ref at the new phase: gain x P_ref / (kappa V I PF_ref x voltage_gain_ratio), which is
 * free of the noise that inflates Irms; with a reference current, gain x I_ref / Irms.
 * Returns 0, or -1 with the reason in why (out of the firmware's ranges, no load). */
int mw_calib_channel(const mw_calib_channel_in *in, mw_calib_channel_out *out, char *why,
                     size_t whylen);

/* (measured - reference) / reference, in percent. */
double mw_calib_error_pct(double measured, double reference);

/* The text kept with the date: "V230/1:1000W/2:4.35A" (voltage, then each channel's
 * reference) when it fits in MW_CALIB_NOTE_MAX characters, else the channels only
 * ("V230/P:1+2/I:3"), else counts ("V230/P:7ch"). ref_vrms_v 0: no voltage reference;
 * per channel either ref_power_w or ref_current_a is > 0. out: MW_CALIB_NOTE_MAX + 1. */
void mw_calib_note(double ref_vrms_v, int n, const int *channel, const double *ref_power_w,
                   const double *ref_current_a, char *out);

/* A text the meter accepts (1..16 of A-Z a-z 0-9 . _ - + / : = @): 1 or 0. */
int mw_calib_note_valid(const char *s);

/* yyyymmdd of a broken-down local date, and its check (2000..2999, months, days). */
uint32_t mw_calib_date(int year, int month, int day);
int mw_calib_date_valid(uint32_t yyyymmdd);

#endif
