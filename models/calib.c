/* calib — see calib.h. */
#include "calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (M_PI / 180.0)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int mw_calib_robust(const double *x, size_t n, double k, mw_calib_stat *out)
{
    memset(out, 0, sizeof *out);
    if (!n) return -1;
    double *v = malloc(n * sizeof *v);
    if (!v) return -1;
    memcpy(v, x, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_double);
    double med = median_sorted(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = fabs(x[i] - med);
    qsort(v, n, sizeof *v, cmp_double);
    double mad = median_sorted(v, n);
    free(v);
    double limit = k * 1.4826 * mad, sum = 0;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (mad == 0 || fabs(x[i] - med) <= limit) {
            sum += x[i];
            kept++;
        }
    out->mean = sum / (double)kept;
    out->median = med;
    out->mad = mad;
    out->n = n;
    out->kept = kept;
    return 0;
}

double mw_calib_voltage_gain(double gain_v_per_count, double ref_vrms_v, double meas_vrms_v)
{
    return meas_vrms_v > 0 ? gain_v_per_count * ref_vrms_v / meas_vrms_v : 0;
}

int mw_calib_phase_angle(double pf_plus, double pf_minus, double probe_deg, double *angle_deg,
                         double *kappa)
{
    double h = probe_deg * DEG;
    double c = (pf_plus + pf_minus) / (2 * cos(h)); /* kappa cos a */
    double s = (pf_plus - pf_minus) / (2 * sin(h)); /* kappa sin a */
    *angle_deg = 0;
    *kappa = 0;
    if (!(c > 0)) return -1;
    *angle_deg = atan2(s, c) / DEG;
    *kappa = hypot(s, c);
    return 0;
}

int mw_calib_channel(const mw_calib_channel_in *in, mw_calib_channel_out *out, char *why,
                     size_t whylen)
{
    memset(out, 0, sizeof *out);
    if (!(in->ref_pf > 0 && in->ref_pf <= 1)) {
        snprintf(why, whylen, "the reference power factor %g is not in (0, 1]", in->ref_pf);
        return -1;
    }
    if (!(in->irms_a > 0) || !(in->vrms_v > 0)) {
        snprintf(why, whylen, "no current or no voltage measured");
        return -1;
    }
    if (mw_calib_phase_angle(in->pf_plus, in->pf_minus, in->probe_deg, &out->angle_deg,
                             &out->kappa) != 0) {
        snprintf(why, whylen,
                 "the measured power is not positive (sensor the wrong way round, or no "
                 "load)");
        return -1;
    }
    if (out->kappa < 0.5 || out->kappa > 1.05) {
        snprintf(why, whylen,
                 "P/(V I) = %.3f of what the phase readings imply: not a steady sinusoidal "
                 "load",
                 out->kappa);
        return -1;
    }
    double lag_deg = acos(in->ref_pf) / DEG;
    out->phase_deg = in->phase_deg + out->angle_deg + lag_deg;
    if (!(out->phase_deg > -90 && out->phase_deg < 90)) {
        snprintf(why, whylen, "the phase correction %+.3f deg is out of range (-90, 90)",
                 out->phase_deg);
        return -1;
    }
    double ratio;
    if (in->ref_power_w > 0) {
        /* the power read at the new phase with the gains in use: kappa V I PF_ref, and with
         * the new voltage gain: that x voltage_gain_ratio */
        double p_w = out->kappa * in->vrms_v * in->irms_a * in->ref_pf * in->voltage_gain_ratio;
        ratio = in->ref_power_w / p_w;
    } else if (in->ref_current_a > 0) {
        ratio = in->ref_current_a / in->irms_a;
    } else {
        snprintf(why, whylen, "no reference power or current");
        return -1;
    }
    out->gain_a_per_count = in->gain_a_per_count * ratio;
    out->true_irms_a = in->irms_a * ratio;
    if (!(out->gain_a_per_count > 0 && out->gain_a_per_count < 1000)) {
        snprintf(why, whylen, "the new gain %g is out of range (0, 1000)", out->gain_a_per_count);
        return -1;
    }
    return 0;
}

double mw_calib_error_pct(double measured, double reference)
{
    return reference != 0 ? 100.0 * (measured - reference) / reference : 0;
}

/* %g-like without an exponent and without trailing zeros: 230, 229.7, 4.35 */
static void num(char *out, size_t n, double v)
{
    snprintf(out, n, "%.3f", v);
    char *dot = strchr(out, '.');
    if (!dot) return;
    char *e = out + strlen(out) - 1;
    while (e > dot && *e == '0')
        *e-- = 0;
    if (e == dot) *e = 0;
}

void mw_calib_note(double ref_vrms_v, int n, const int *channel, const double *ref_power_w,
                   const double *ref_current_a, char *out)
{
    char full[512] = "", v[80] = "", b[64];
    if (ref_vrms_v > 0) {
        num(b, sizeof b, ref_vrms_v);
        snprintf(v, sizeof v, "V%s", b);
    }
    size_t len = strlen(v);
    memcpy(full, v, len + 1);
    for (int i = 0; i < n; i++) {
        num(b, sizeof b, ref_power_w[i] > 0 ? ref_power_w[i] : ref_current_a[i]);
        len += (size_t)snprintf(full + len, sizeof full - len, "%s%d:%s%s", len ? "/" : "",
                                channel[i], b, ref_power_w[i] > 0 ? "W" : "A");
    }
    if (len <= MW_CALIB_NOTE_MAX) {
        memcpy(out, full, len + 1);
        return;
    }
    /* the channels only, grouped by the kind of reference */
    char s[512];
    size_t sl = (size_t)snprintf(s, sizeof s, "%s", v);
    int np = 0, ni = 0;
    for (int kind = 0; kind < 2; kind++) {
        int first = 1;
        for (int i = 0; i < n; i++) {
            if ((ref_power_w[i] > 0) != (kind == 0)) continue;
            sl += (size_t)snprintf(s + sl, sizeof s - sl, "%s%d",
                                   first ? (kind ? (sl ? "/I:" : "I:") : (sl ? "/P:" : "P:")) : "+",
                                   channel[i]);
            first = 0;
            if (kind)
                ni++;
            else
                np++;
        }
    }
    if (sl <= MW_CALIB_NOTE_MAX) {
        memcpy(out, s, sl + 1);
        return;
    }
    sl = (size_t)snprintf(s, sizeof s, "%s", v);
    if (np) sl += (size_t)snprintf(s + sl, sizeof s - sl, "%sP:%dch", sl ? "/" : "", np);
    if (ni) sl += (size_t)snprintf(s + sl, sizeof s - sl, "%sI:%dch", sl ? "/" : "", ni);
    s[MW_CALIB_NOTE_MAX] = 0;
    memcpy(out, s, strlen(s) + 1);
}

int mw_calib_note_valid(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > MW_CALIB_NOTE_MAX) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              strchr("._-+/:=@", c)))
            return 0;
    }
    return 1;
}

uint32_t mw_calib_date(int year, int month, int day)
{
    return (uint32_t)(year * 10000 + month * 100 + day);
}

int mw_calib_date_valid(uint32_t d)
{
    unsigned y = d / 10000u, m = d / 100u % 100u, day = d % 100u;
    static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 2000 || y > 2999 || m < 1 || m > 12 || day < 1) return 0;
    unsigned max = mdays[m - 1] + (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
    return day <= max;
}
