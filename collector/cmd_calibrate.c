/* cmd_calibrate — "mw calibrate": the meter's voltage gain from a reference voltmeter, and
 * each current channel's gain and phase from a known load read on a reference meter, with
 * the firmware's CAL commands; then a check with the new constants, the before/after errors,
 * and on confirmation CALDATE (date and references, reported in the I line so that every run
 * stores them) and SAVE (EEPROM). docs/calibration.md is the user's guide; the arithmetic is
 * in calib.c.
 *
 * One "step" reads the meter four times, each time a number of windows (--windows, robust
 * means: calib.h), with the window in progress when a command took effect thrown away:
 *   A  at the calibration in use ("before"; Vrms and Irms for the gains);
 *   B  with the phase of every channel being calibrated at its value + 5 degrees;
 *   C  at its value - 5 degrees (B and C give the phase error with its sign);
 *   D  with the new constants set ("after"; the check).
 * Non-interactive, all references make one step (all loads on at once); guided (on a
 * terminal without references, or --interactive), one step per reference as the user gives
 * them, then the no-load check. Opening the port resets the meter, so nothing is kept unless
 * saved: if anything fails, the check is out by more than 1 %, the user declines or --dry-run
 * is given, the constants in use before are set back and nothing is written. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calib.h"
#include "builtin.h"
#include "cli.h"
#include "meter_spec.h"

#define DEFAULT_WINDOWS 16
#define CHECK_MAX_PCT 1.0 /* the check refuses to save beyond this error */
#define CHECK_MAX_PF 0.01 /* ... or this power factor difference */
#define MIN_COUNTS 3.0    /* Irms below this many ADC counts: refuse */
#define LOW_COUNTS 10.0   /* ... below this: warn */
#define PHASE_WARN_DEG 15 /* sensors need a few degrees: beyond this, warn */
#define CMD_TIMEOUT_MS 2000

typedef struct {
    int ch;
    double power_w, current_a, pf;
} cal_ref;

typedef struct {
    const char *meter;
    double ref_vrms_v;
    int nrefs;
    cal_ref refs[MW_PROTO_MAX_I];
    int no_load_check;
    double no_load_max_w;
    int windows;
    int yes, dry_run, interactive;
    const char *note;
    uint32_t date;
} cal_opts;

/* Means of one reading; channel k (1..15) at index k - 1. */
typedef struct {
    double vrms_v;
    double p_w[MW_PROTO_MAX_I], irms_a[MW_PROTO_MAX_I], pf[MW_PROTO_MAX_I];
    size_t n, dropped;
} reading;

typedef struct {
    char what[24], unit[8];
    double ref, before, after;
    int is_pf;
} report_row;

typedef struct {
    cal_opts *o;
    mw_meter_spec *ms;
    mw_meter *m;
    const char *path;
    int n_current, window_ms;
    double orig_gain[MW_PROTO_MAX_I + 1], orig_phase[MW_PROTO_MAX_I + 1];
    double gain[MW_PROTO_MAX_I + 1], phase[MW_PROTO_MAX_I + 1]; /* in the meter's RAM now */
    report_row rows[3 * MW_PROTO_MAX_I + 2];
    int nrows;
    int check_failed; /* an after-error beyond CHECK_MAX_* */
    /* the references used, for the record's text */
    double used_vrms_v;
    int nused;
    int used_ch[MW_PROTO_MAX_I];
    double used_p_w[MW_PROTO_MAX_I], used_i_a[MW_PROTO_MAX_I];
} cal_ctx;

static volatile sig_atomic_t g_stop;
static void on_stop(int sig)
{
    g_stop = sig;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw calibrate [--meter PORT|auto|sim] [--reference-voltage V]\n"
            "                    [--channel N (--reference-power W | --reference-current A)\n"
            "                     [--reference-pf PF]]... [--no-load-check] [--windows N]\n"
            "                    [--yes | --dry-run] [--date YYYYMMDD] [--note TEXT]\n"
            "       mw calibrate [--meter ...] [--interactive]\n\n"
            "Calibrates the meter against reference instruments (docs/calibration.md): the\n"
            "voltage gain from a voltmeter reading of the mains at the meter, each current\n"
            "channel's gain and phase from a load (a kettle, heater or incandescent lamp: a\n"
            "resistive one, PF 1) whose power or current a reference meter reads. It reads the\n"
            "meter's windows (outliers dropped), computes the constants, sets them and reads\n"
            "again, shows the errors before and after, and on confirmation writes them to the\n"
            "meter's EEPROM with the date and the references, which the meter then reports in\n"
            "its identification (mw info, and the metadata of every run).\n\n"
            "Without references, on a terminal (or with --interactive), it asks for them one\n"
            "at a time, then offers the no-load check.\n\n"
            "  --meter M                serial port, 'auto' (default) or 'sim'\n"
            "  --reference-voltage V    the mains voltage the reference voltmeter reads, V rms\n"
            "  --channel N              a current channel (1..15) with a load on it; the options\n"
            "                           after it describe that load (repeatable, all loads on\n"
            "                           at once)\n"
            "  --reference-power W      its real power on the reference meter, W\n"
            "  --reference-current A    or its current, A rms\n"
            "  --reference-pf PF        its power factor, lagging, 0 < PF <= 1 (default 1)\n"
            "  --no-load-check          with every load off: each channel's power must be\n"
            "                           within --no-load-max W of 0 (not with --channel)\n"
            "  --no-load-max W          limit of the no-load check (default 1 W)\n"
            "  --windows N              windows per reading, 4..400 (default 16)\n"
            "  --yes                    save without asking (needed when standard input is\n"
            "                           not a terminal)\n"
            "  --dry-run                compute and check, then restore; save nothing\n"
            "  --date YYYYMMDD          the calibration's date (default: today)\n"
            "  --note TEXT              the references as the meter keeps them, up to 16 of\n"
            "                           A-Z a-z 0-9 . _ - + / : = @ (default: from the\n"
            "                           references, e.g. V230/1:1000W)\n"
            "  --interactive            ask for the references on standard input\n"
            "  -h, --help               this text\n\n"
            "Exit status: 0 calibrated (or nothing to save), 1 failed (meter, check out by more\n"
            "than 1 %%, no-load check, declined), 2 bad usage or no usable port.\n");
}

/* A number in [lo, hi], the whole string. */
static int parse_num(const char *arg, double lo, double hi, double *out)
{
    double v;
    if (mw_cli_number(arg, &v) || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, cal_opts *o)
{
    enum {
        O_VREF = 256,
        O_CH,
        O_P,
        O_I,
        O_PF,
        O_NOLOAD,
        O_NOLOADMAX,
        O_WIN,
        O_YES,
        O_DRY,
        O_DATE,
        O_NOTE,
        O_INTER
    };
    static const struct option opts[] = {{"meter", required_argument, NULL, 'm'},
                                         {"reference-voltage", required_argument, NULL, O_VREF},
                                         {"channel", required_argument, NULL, O_CH},
                                         {"reference-power", required_argument, NULL, O_P},
                                         {"reference-current", required_argument, NULL, O_I},
                                         {"reference-pf", required_argument, NULL, O_PF},
                                         {"no-load-check", no_argument, NULL, O_NOLOAD},
                                         {"no-load-max", required_argument, NULL, O_NOLOADMAX},
                                         {"windows", required_argument, NULL, O_WIN},
                                         {"yes", no_argument, NULL, O_YES},
                                         {"dry-run", no_argument, NULL, O_DRY},
                                         {"date", required_argument, NULL, O_DATE},
                                         {"note", required_argument, NULL, O_NOTE},
                                         {"interactive", no_argument, NULL, O_INTER},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    int c;
    double v;
    cal_ref *last = NULL;
    while ((c = getopt_long(argc, argv, ":hy", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            o->meter = optarg;
            break;
        case O_VREF:
            if (parse_num(optarg, 1, 1000, &o->ref_vrms_v))
                return mw_cli_usage_error("calibrate",
                                          "--reference-voltage: '%s' is not a voltage in "
                                          "1..1000 V",
                                          optarg);
            break;
        case O_CH:
            if (parse_num(optarg, 1, MW_PROTO_MAX_I, &v) || v != (int)v)
                return mw_cli_usage_error("calibrate", "--channel: '%s' is not a channel 1..15",
                                          optarg);
            for (int i = 0; i < o->nrefs; i++)
                if (o->refs[i].ch == (int)v)
                    return mw_cli_usage_error("calibrate", "--channel %d is given twice", (int)v);
            last = &o->refs[o->nrefs++];
            last->ch = (int)v;
            last->pf = 1;
            break;
        case O_P:
        case O_I:
        case O_PF: {
            const char *name = c == O_P   ? "--reference-power"
                               : c == O_I ? "--reference-current"
                                          : "--reference-pf";
            if (!last)
                return mw_cli_usage_error("calibrate", "%s needs a --channel N before it", name);
            if (c == O_PF) {
                if (parse_num(optarg, 1e-3, 1, &last->pf))
                    return mw_cli_usage_error("calibrate",
                                              "--reference-pf: '%s' is not a power factor in "
                                              "(0, 1]",
                                              optarg);
            } else {
                if (last->power_w > 0 || last->current_a > 0)
                    return mw_cli_usage_error("calibrate",
                                              "--channel %d: give one --reference-power or "
                                              "--reference-current",
                                              last->ch);
                if (parse_num(optarg, 1e-3, 1e6, c == O_P ? &last->power_w : &last->current_a))
                    return mw_cli_usage_error("calibrate", "%s: '%s' is not a positive %s", name,
                                              optarg, c == O_P ? "power in W" : "current in A");
            }
            break;
        }
        case O_NOLOAD:
            o->no_load_check = 1;
            break;
        case O_NOLOADMAX:
            if (parse_num(optarg, 1e-3, 1e5, &o->no_load_max_w))
                return mw_cli_usage_error("calibrate", "--no-load-max: '%s' is not a power in W",
                                          optarg);
            break;
        case O_WIN:
            if (parse_num(optarg, 4, 400, &v) || v != (int)v)
                return mw_cli_usage_error("calibrate", "--windows: '%s' is not 4..400", optarg);
            o->windows = (int)v;
            break;
        case 'y':
        case O_YES:
            o->yes = 1;
            break;
        case O_DRY:
            o->dry_run = 1;
            break;
        case O_DATE:
            if (parse_num(optarg, 0, 1e8, &v) || v != (uint32_t)v || strlen(optarg) != 8 ||
                !mw_calib_date_valid((uint32_t)v))
                return mw_cli_usage_error("calibrate", "--date: '%s' is not a date YYYYMMDD",
                                          optarg);
            o->date = (uint32_t)v;
            break;
        case O_NOTE:
            if (!mw_calib_note_valid(optarg))
                return mw_cli_usage_error("calibrate",
                                          "--note: '%s' is not 1..16 of A-Z a-z 0-9 . _ - + / : "
                                          "= @",
                                          optarg);
            o->note = optarg;
            break;
        case O_INTER:
            o->interactive = 1;
            break;
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error("calibrate", "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error("calibrate", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mw_cli_usage_error("calibrate", "unexpected argument '%s'", argv[optind]);
    for (int i = 0; i < o->nrefs; i++)
        if (!(o->refs[i].power_w > 0) && !(o->refs[i].current_a > 0))
            return mw_cli_usage_error("calibrate",
                                      "--channel %d: needs --reference-power W or "
                                      "--reference-current A",
                                      o->refs[i].ch);
    if (o->yes && o->dry_run)
        return mw_cli_usage_error("calibrate", "--yes and --dry-run exclude each other");
    if (o->no_load_check && o->nrefs)
        return mw_cli_usage_error("calibrate",
                                  "--no-load-check needs every load off, --channel a load on: "
                                  "run them one after the other");
    int refs = o->nrefs || o->ref_vrms_v > 0;
    if (o->interactive && (refs || o->no_load_check))
        return mw_cli_usage_error("calibrate",
                                  "--interactive asks for the references: give none with it");
    if (!refs && !o->no_load_check && !o->interactive) {
        if (!isatty(0))
            return mw_cli_usage_error("calibrate",
                                      "nothing to do: give --reference-voltage V, --channel N "
                                      "--reference-power W, --no-load-check or --interactive");
        o->interactive = 1;
    }
    if ((refs || o->interactive) && !o->yes && !o->dry_run && !o->interactive && !isatty(0))
        return mw_cli_usage_error("calibrate",
                                  "standard input is not a terminal: give --yes to save "
                                  "without asking, or --dry-run");
    return -1;
}

/* ---- talking to the meter -------------------------------------------------------------- */

static int set_cal(cal_ctx *c, int ch, double gain, double phase_deg)
{
    char cmd[96], reply[256];
    snprintf(cmd, sizeof cmd, "CAL %d %.7g %.3f", ch, gain, phase_deg);
    int r = mw_meter_command(c->m, cmd, "C,", reply, sizeof reply, CMD_TIMEOUT_MS);
    int k;
    double g, p;
    if (r != 0 || mw_proto_parse_cal(reply, &k, &g, &p) != 0 || k != ch) {
        fprintf(stderr, "mw calibrate: %s: '%s': %s\n", c->path, cmd,
                r < 0      ? reply
                : reply[0] ? reply
                           : "no reply");
        return -1;
    }
    c->gain[ch] = g;
    c->phase[ch] = p;
    return 0;
}

static int read_calibration(cal_ctx *c)
{
    for (int k = 0; k <= c->n_current; k++) {
        char cmd[16], reply[256];
        snprintf(cmd, sizeof cmd, "CAL? %d", k);
        int ch;
        if (mw_meter_command(c->m, cmd, "C,", reply, sizeof reply, CMD_TIMEOUT_MS) != 0 ||
            mw_proto_parse_cal(reply, &ch, &c->gain[k], &c->phase[k]) != 0 || ch != k) {
            fprintf(stderr, "mw calibrate: %s: '%s': %s\n", c->path, cmd, reply);
            return -1;
        }
        c->orig_gain[k] = c->gain[k];
        c->orig_phase[k] = c->phase[k];
    }
    return 0;
}

/* Set back what was in use at the start. */
static void restore(cal_ctx *c)
{
    for (int k = 0; k <= c->n_current; k++)
        if (c->gain[k] != c->orig_gain[k] || c->phase[k] != c->orig_phase[k])
            set_cal(c, k, c->orig_gain[k], c->orig_phase[k]);
}

static int64_t mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Read the meter for c->o->windows windows; the outliers reported are those of the voltage
 * and of the channels in mask (bit k: channel k). Returns 0, or -1 with the reason printed. */
static int measure(cal_ctx *c, const char *what, uint32_t mask, reading *out)
{
    int nwin = c->o->windows;
    memset(out, 0, sizeof *out);
    fprintf(stderr, "reading %d windows %s ...", nwin, what);
    fflush(stderr);
    double *v = calloc((size_t)nwin * (1 + 3 * MW_PROTO_MAX_I), sizeof *v);
    if (!v) return -1;
    double *p = v + nwin, *ia = p + nwin * MW_PROTO_MAX_I, *pf = ia + nwin * MW_PROTO_MAX_I;
    mw_meter_event ev;
    const char *fail = NULL;
    char why[256];
    /* what arrived before the last command's reply was computed before it */
    int r;
    while ((r = mw_meter_next(c->m, &ev, 0)) == 1)
        if (ev.type == MW_METER_BOOT) fail = "the meter restarted (its calibration in RAM is lost)";
    int skip = 1; /* the window in progress when the command took effect */
    int n = 0;
    int64_t deadline = mono_ms() + (int64_t)(nwin + 4) * c->window_ms * 2 + 5000;
    while (!fail && n < nwin) {
        if (g_stop) {
            fail = "interrupted";
            break;
        }
        if (mono_ms() > deadline) {
            fail = "no windows from the meter";
            break;
        }
        r = mw_meter_next(c->m, &ev, 250);
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
                out->dropped++;
            continue;
        }
        if (w->flags & MW_FLAG_NO_VOLTAGE) {
            fail = "no mains voltage on the voltage input";
            break;
        }
        if (w->flags & MW_FLAG_CLIP) {
            int len = snprintf(why, sizeof why, "the ADC clips on channel");
            for (int k = 0; k <= w->nchan && len < (int)sizeof why - 8; k++)
                if (w->clip & (1u << k))
                    len += snprintf(why + len, sizeof why - (size_t)len, " %d", k);
            snprintf(why + len, sizeof why - (size_t)len, ": beyond full scale");
            fail = why;
            break;
        }
        if (w->nchan < c->n_current) continue;
        v[n] = w->vrms_mv * 1e-3;
        for (int k = 0; k < c->n_current; k++) {
            double pw = w->ch[k].p_mw * 1e-3, i = w->ch[k].irms_ua * 1e-6;
            p[k * nwin + n] = pw;
            ia[k * nwin + n] = i;
            pf[k * nwin + n] = v[n] > 0 && i > 0 ? pw / (v[n] * i) : 0;
        }
        n++;
    }
    if (fail) {
        fprintf(stderr, " failed\nmw calibrate: %s: %s\n", c->path, fail);
        free(v);
        return -1;
    }
    mw_calib_stat st;
    mw_calib_robust(v, (size_t)n, MW_CALIB_OUTLIER_K, &st);
    out->vrms_v = st.mean;
    out->n = (size_t)n;
    size_t dropped = (size_t)n - st.kept;
    for (int k = 0; k < c->n_current; k++) {
        size_t kept = (size_t)n;
        mw_calib_robust(p + k * nwin, (size_t)n, MW_CALIB_OUTLIER_K, &st);
        out->p_w[k] = st.mean;
        if (st.kept < kept) kept = st.kept;
        mw_calib_robust(ia + k * nwin, (size_t)n, MW_CALIB_OUTLIER_K, &st);
        out->irms_a[k] = st.mean;
        if (st.kept < kept) kept = st.kept;
        mw_calib_robust(pf + k * nwin, (size_t)n, MW_CALIB_OUTLIER_K, &st);
        out->pf[k] = st.mean;
        if (st.kept < kept) kept = st.kept;
        if ((mask & (1u << (k + 1))) && (size_t)n - kept > dropped) dropped = (size_t)n - kept;
    }
    fprintf(stderr, " done (outliers left out: %zu; flagged windows: %zu)\n", dropped,
            out->dropped);
    free(v);
    return 0;
}

/* ---- the procedure ------------------------------------------------------------------- */

/* A row of the report; returns 1 when its after-error is beyond the check's limit. */
static int add_row(cal_ctx *c, const char *what, const char *unit, double ref, double before,
                   double after, int is_pf)
{
    report_row *r = &c->rows[c->nrows++];
    snprintf(r->what, sizeof r->what, "%s", what);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->ref = ref;
    r->before = before;
    r->after = after;
    r->is_pf = is_pf;
    double err = is_pf ? after - ref : mw_calib_error_pct(after, ref);
    return fabs(err) > (is_pf ? CHECK_MAX_PF : CHECK_MAX_PCT);
}

/* Constants differ from the ones in use at the start. */
static int changed(const cal_ctx *c)
{
    for (int k = 0; k <= c->n_current; k++)
        if (c->gain[k] != c->orig_gain[k] || c->phase[k] != c->orig_phase[k]) return 1;
    return 0;
}

/* Set back the constants of channel 0 and of refs to what they were before a step. */
static int undo_step(cal_ctx *c, const double *gain, const double *phase, const cal_ref *refs,
                     int nrefs)
{
    int rc = 0;
    if (c->gain[0] != gain[0] || c->phase[0] != phase[0]) rc |= set_cal(c, 0, gain[0], phase[0]);
    for (int i = 0; i < nrefs; i++) {
        int k = refs[i].ch;
        if (c->gain[k] != gain[k] || c->phase[k] != phase[k])
            rc |= set_cal(c, k, gain[k], phase[k]);
    }
    return rc ? -1 : 0;
}

#define STEP_FATAL (-1)  /* the meter failed: stop */
#define STEP_UNDONE (-2) /* this step's references cannot be used; its constants set back */

/* One step (A, B, C, D above) for the voltage reference (0: none) and the loads refs.
 * Returns 0, STEP_FATAL or STEP_UNDONE. A check beyond the limits is STEP_UNDONE when
 * undo_bad_check (guided), else its rows stay and c->check_failed is set. */
static int run_step(cal_ctx *c, double ref_vrms_v, const cal_ref *refs, int nrefs,
                    int undo_bad_check)
{
    reading a, bp, bm, d;
    double gain0[MW_PROTO_MAX_I + 1], phase0[MW_PROTO_MAX_I + 1];
    memcpy(gain0, c->gain, sizeof gain0);
    memcpy(phase0, c->phase, sizeof phase0);
    uint32_t mask = 0;
    for (int i = 0; i < nrefs; i++)
        mask |= 1u << refs[i].ch;
    if (measure(c, "at the calibration in use", mask, &a) != 0) return STEP_FATAL;
    for (int i = 0; i < nrefs; i++) {
        int k = refs[i].ch;
        double counts = a.irms_a[k - 1] / c->gain[k];
        if (counts < MIN_COUNTS) {
            fprintf(stderr,
                    "mw calibrate: channel %d: %.3f A rms is %.1f ADC counts: no load on it, or "
                    "far too small a one to calibrate with\n",
                    k, a.irms_a[k - 1], counts);
            return STEP_UNDONE;
        }
        if (counts < LOW_COUNTS)
            fprintf(stderr,
                    "mw calibrate: warning: channel %d: %.3f A rms is only %.1f ADC counts: "
                    "each window is noisy, average more of them (--windows 64)\n",
                    k, a.irms_a[k - 1], counts);
    }
    double gv_old = c->gain[0], gv_new = gv_old;
    if (ref_vrms_v > 0) {
        gv_new = mw_calib_voltage_gain(gv_old, ref_vrms_v, a.vrms_v);
        if (!(gv_new > 0 && gv_new < 1000)) {
            fprintf(stderr, "mw calibrate: the voltage gain %g is out of range\n", gv_new);
            return STEP_UNDONE;
        }
    }
    mw_calib_channel_out res[MW_PROTO_MAX_I];
    if (nrefs) {
        char list[64] = "";
        size_t len = 0;
        for (int i = 0; i < nrefs; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, " %d", refs[i].ch);
        double h = MW_CALIB_PROBE_DEG;
        char what[128];
        for (int i = 0; i < nrefs; i++)
            if (set_cal(c, refs[i].ch, gain0[refs[i].ch], phase0[refs[i].ch] + h) != 0)
                return STEP_FATAL;
        snprintf(what, sizeof what, "with the phase of channel%s%s %+.0f deg", nrefs > 1 ? "s" : "",
                 list, h);
        if (measure(c, what, mask, &bp) != 0) return STEP_FATAL;
        for (int i = 0; i < nrefs; i++)
            if (set_cal(c, refs[i].ch, gain0[refs[i].ch], phase0[refs[i].ch] - h) != 0)
                return STEP_FATAL;
        snprintf(what, sizeof what, "with the phase of channel%s%s %+.0f deg", nrefs > 1 ? "s" : "",
                 list, -h);
        if (measure(c, what, mask, &bm) != 0) return STEP_FATAL;
        for (int i = 0; i < nrefs; i++) {
            int k = refs[i].ch;
            mw_calib_channel_in in = {.gain_a_per_count = gain0[k],
                                      .phase_deg = phase0[k],
                                      .vrms_v = a.vrms_v,
                                      .irms_a = a.irms_a[k - 1],
                                      .pf_plus = bp.pf[k - 1],
                                      .pf_minus = bm.pf[k - 1],
                                      .probe_deg = h,
                                      .voltage_gain_ratio = gv_new / gv_old,
                                      .ref_power_w = refs[i].power_w,
                                      .ref_current_a = refs[i].current_a,
                                      .ref_pf = refs[i].pf};
            char why[256];
            if (mw_calib_channel(&in, &res[i], why, sizeof why) != 0) {
                fprintf(stderr, "mw calibrate: channel %d: %s\n", k, why);
                return undo_step(c, gain0, phase0, refs, nrefs) ? STEP_FATAL : STEP_UNDONE;
            }
            if (fabs(res[i].phase_deg) > PHASE_WARN_DEG)
                fprintf(stderr,
                        "mw calibrate: warning: channel %d: a phase of %+.1f deg is far more than "
                        "sensors need (a few degrees): is its reference power factor right?\n",
                        k, res[i].phase_deg);
        }
    }
    if (ref_vrms_v > 0 && set_cal(c, 0, gv_new, c->phase[0]) != 0) return STEP_FATAL;
    for (int i = 0; i < nrefs; i++)
        if (set_cal(c, refs[i].ch, res[i].gain_a_per_count, res[i].phase_deg) != 0)
            return STEP_FATAL;
    if (measure(c, "with the new calibration", mask, &d) != 0) return STEP_FATAL;
    int nrows = c->nrows, bad = 0;
    if (ref_vrms_v > 0) bad |= add_row(c, "voltage", "V", ref_vrms_v, a.vrms_v, d.vrms_v, 0);
    for (int i = 0; i < nrefs; i++) {
        int k = refs[i].ch;
        char what[24];
        snprintf(what, sizeof what, "channel %d", k);
        if (refs[i].power_w > 0)
            bad |= add_row(c, what, "W", refs[i].power_w, a.p_w[k - 1], d.p_w[k - 1], 0);
        else
            bad |= add_row(c, what, "A", refs[i].current_a, a.irms_a[k - 1], d.irms_a[k - 1], 0);
        bad |= add_row(c, "", "PF", refs[i].pf, a.pf[k - 1], d.pf[k - 1], 1);
    }
    if (bad && undo_bad_check) {
        c->nrows = nrows;
        fprintf(stderr,
                "mw calibrate: the check with the new constants is out by more than %g %% (or %g "
                "in PF): the load or the mains changed meanwhile, or the reference is wrong; "
                "this step is undone\n",
                CHECK_MAX_PCT, CHECK_MAX_PF);
        return undo_step(c, gain0, phase0, refs, nrefs) ? STEP_FATAL : STEP_UNDONE;
    }
    c->check_failed |= bad;
    if (ref_vrms_v > 0) c->used_vrms_v = ref_vrms_v;
    for (int i = 0; i < nrefs; i++) {
        c->used_ch[c->nused] = refs[i].ch;
        c->used_p_w[c->nused] = refs[i].power_w;
        c->used_i_a[c->nused] = refs[i].current_a;
        c->nused++;
    }
    return 0;
}

static void print_report(cal_ctx *c)
{
    if (!c->nrows) return;
    printf("\n%-10s %-3s %11s %11s %9s %11s %9s\n", "", "", "reference", "before", "error", "after",
           "error");
    for (int i = 0; i < c->nrows; i++) {
        const report_row *r = &c->rows[i];
        if (r->is_pf)
            printf("%-10s %-3s %11.4f %11.4f %+9.4f %11.4f %+9.4f\n", r->what, r->unit, r->ref,
                   r->before, r->before - r->ref, r->after, r->after - r->ref);
        else
            printf("%-10s %-3s %11.3f %11.3f %+7.3f %% %11.3f %+7.3f %%\n", r->what, r->unit,
                   r->ref, r->before, mw_calib_error_pct(r->before, r->ref), r->after,
                   mw_calib_error_pct(r->after, r->ref));
    }
    printf("\n%-22s %12s %12s\n", "constant", "before", "after");
    for (int k = 0; k <= c->n_current; k++) {
        if (c->gain[k] != c->orig_gain[k])
            printf("channel %-2d gain %-7s %12.6f %12.6f\n", k, k ? "A/count" : "V/count",
                   c->orig_gain[k], c->gain[k]);
        if (c->phase[k] != c->orig_phase[k])
            printf("channel %-2d phase deg    %+12.3f %+12.3f\n", k, c->orig_phase[k], c->phase[k]);
    }
}

/* With every load off each channel's power must be within the limit of 0. */
static int no_load_check(cal_ctx *c)
{
    reading r;
    if (measure(c, "with no load", 0xFFFEu, &r) != 0) return -1;
    double lim = c->o->no_load_max_w;
    int bad = 0;
    printf("\nno-load check (|P| <= %g W):\n", lim);
    for (int k = 1; k <= c->n_current; k++) {
        int ok = fabs(r.p_w[k - 1]) <= lim;
        bad += !ok;
        printf("channel %-2d %+10.3f W %9.4f A rms (%5.2f counts)  %s\n", k, r.p_w[k - 1],
               r.irms_a[k - 1], r.irms_a[k - 1] / c->gain[k],
               ok ? "ok" : "TOO HIGH: a load still on, crosstalk or a bad sensor");
    }
    return bad ? -1 : 0;
}

/* A line from standard input without its newline; -1 at end of input or interruption. */
static int ask(const char *prompt, char *buf, size_t n)
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

/* The guided procedure: the references one at a time, then the no-load check. */
static int guided(cal_ctx *c)
{
    char line[256];
    double v;
    fprintf(stderr,
            "Calibration of the meter on %s, one reference at a time (docs/calibration.md).\n"
            "Each reading takes %d windows (%.1f s); keep the loads steady meanwhile.\n\n",
            c->path, c->o->windows, c->o->windows * c->window_ms / 1000.0);
    for (;;) {
        if (ask("Mains voltage on the reference voltmeter, V rms (Enter: skip): ", line,
                sizeof line) != 0)
            return -1;
        if (!line[0]) break;
        if (parse_num(line, 1, 1000, &v) == 0) {
            int r = run_step(c, v, NULL, 0, 1);
            if (r == STEP_FATAL) return -1;
            if (r == 0) break;
            continue;
        }
        fprintf(stderr, "'%s' is not a voltage\n", line);
    }
    for (int k = 1; k <= c->n_current; k++) {
        cal_ref r = {.ch = k, .pf = 1};
        char prompt[512];
        snprintf(prompt, sizeof prompt,
                 "\nChannel %d: a load on its sensor alone (kettle, heater, incandescent lamp);\n"
                 "its power on the reference meter in W, or its current as e.g. 4.35A\n"
                 "(Enter: skip this channel, q: no more channels): ",
                 k);
        if (ask(prompt, line, sizeof line) != 0) return -1;
        if (!strcmp(line, "q")) break;
        if (!line[0]) continue;
        size_t len = strlen(line);
        int amps = len > 1 && (line[len - 1] == 'A' || line[len - 1] == 'a');
        if (amps || line[len - 1] == 'W' || line[len - 1] == 'w') line[--len] = 0;
        if (parse_num(line, 1e-3, 1e6, amps ? &r.current_a : &r.power_w) != 0) {
            fprintf(stderr, "'%s' is not a power or current; channel %d again\n", line, k);
            k--;
            continue;
        }
        if (ask("Its power factor (Enter: 1, a resistive load): ", line, sizeof line) != 0)
            return -1;
        if (line[0] && parse_num(line, 1e-3, 1, &r.pf) != 0) {
            fprintf(stderr, "'%s' is not a power factor in (0, 1]; channel %d again\n", line, k);
            k--;
            continue;
        }
        int rs = run_step(c, 0, &r, 1, 1);
        if (rs == STEP_FATAL) return -1;
        if (rs == STEP_UNDONE) fprintf(stderr, "channel %d: not calibrated\n", k);
    }
    if (ask("\nNo-load check: switch every load off, leaving the sensors clamped on their\n"
            "leads, then Enter (s: skip): ",
            line, sizeof line) != 0)
        return -1;
    if (strcmp(line, "s") != 0 && no_load_check(c) != 0)
        fprintf(stderr, "mw calibrate: the no-load check failed\n");
    return 0;
}

static uint32_t today(void)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    return mw_calib_date(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

/* CALDATE, SAVE, then the meter's identification as it now reads. */
static int save(cal_ctx *c)
{
    char note[MW_CALIB_NOTE_MAX + 1], cmd[96], reply[256];
    if (c->o->note)
        snprintf(note, sizeof note, "%s", c->o->note);
    else
        mw_calib_note(c->used_vrms_v, c->nused, c->used_ch, c->used_p_w, c->used_i_a, note);
    uint32_t date = c->o->date ? c->o->date : today();
    snprintf(cmd, sizeof cmd, "CALDATE %u%s%s", (unsigned)date, note[0] ? " " : "", note);
    int r = mw_meter_command(c->m, cmd, "OK,CALDATE", reply, sizeof reply, CMD_TIMEOUT_MS);
    if (r < 0) {
        fprintf(stderr, "mw calibrate: %s: '%s': %s\n", c->path, cmd, reply);
        return -1;
    }
    if (r > 0)
        fprintf(stderr,
                "mw calibrate: warning: the meter's firmware keeps no calibration record "
                "(%s): saving the constants without date (flash this version's firmware)\n",
                reply);
    if (mw_meter_command(c->m, "SAVE", "OK,SAVE", reply, sizeof reply, CMD_TIMEOUT_MS) != 0) {
        fprintf(stderr, "mw calibrate: %s: 'SAVE': %s\n", c->path, reply);
        return -1;
    }
    const mw_proto_ident *id = NULL;
    if (mw_meter_command(c->m, "ID", "I,", reply, sizeof reply, CMD_TIMEOUT_MS) == 0)
        id = mw_meter_ident(c->m);
    if (id && id->cal_date_yyyymmdd)
        printf("\nsaved: calibration %s, dated %d (%s)\n", id->cal_source, id->cal_date_yyyymmdd,
               id->cal_ref[0] ? id->cal_ref : "no references noted");
    else
        printf("\nsaved: calibration %s\n", id ? id->cal_source : "EEPROM");
    return 0;
}

int cmd_calibrate(int argc, char **argv)
{
    cal_opts o = {.no_load_max_w = 1.0, .windows = DEFAULT_WINDOWS};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    cal_ctx c = {.o = &o};
    if ((rc = mw_meter_spec_open("calibrate", o.meter, &c.ms)) != 0) return rc;
    c.m = mw_meter_spec_meter(c.ms);
    c.path = mw_meter_spec_path(c.ms);
    const mw_proto_ident *id = mw_meter_ident(c.m);
    c.n_current = id->n_current;
    c.window_ms = id->window_ms;
    for (int i = 0; i < o.nrefs; i++)
        if (o.refs[i].ch > c.n_current) {
            fprintf(stderr, "mw calibrate: --channel %d: the meter on %s has %d current channels\n",
                    o.refs[i].ch, c.path, c.n_current);
            mw_meter_spec_close(c.ms);
            return MW_EXIT_USAGE;
        }
    printf("meter:       %s%s, megawatt %s (build %s), %d current channels\n", c.path,
           mw_meter_spec_is_sim(c.ms) ? " (simulated board)" : "", id->fw_version, id->build_id,
           c.n_current);
    if (id->cal_date_yyyymmdd)
        printf("calibration: %s, dated %d (%s)\n", id->cal_source, id->cal_date_yyyymmdd,
               id->cal_ref[0] ? id->cal_ref : "no references noted");
    else
        printf("calibration: %s\n", id->cal_source);
    fflush(stdout);
    g_stop = 0;
    struct sigaction sa, oi, ot;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: a prompt's read is interrupted too */
    sigaction(SIGINT, &sa, &oi);
    sigaction(SIGTERM, &sa, &ot);

    rc = MW_EXIT_OK;
    mw_meter_event ev; /* the boot line of the reset the opening caused, and the rest so far */
    while (mw_meter_next(c.m, &ev, 0) == 1) {
    }
    int ok = read_calibration(&c) == 0;
    if (ok && o.interactive)
        ok = guided(&c) == 0;
    else if (ok && (o.nrefs || o.ref_vrms_v > 0))
        ok = run_step(&c, o.ref_vrms_v, o.refs, o.nrefs, 0) == 0;
    if (ok && o.no_load_check && no_load_check(&c) != 0) {
        fprintf(stderr, "mw calibrate: the no-load check failed\n");
        rc = MW_EXIT_FAIL;
    }
    if (!ok) rc = MW_EXIT_FAIL;
    if (ok) print_report(&c);
    fflush(stdout);
    if (ok && changed(&c)) {
        char line[64] = "";
        if (c.check_failed) {
            fprintf(stderr,
                    "mw calibrate: the check with the new constants is out by more than %g %% "
                    "(or %g in PF): the load or the mains changed meanwhile, or a reference is "
                    "wrong; nothing saved\n",
                    CHECK_MAX_PCT, CHECK_MAX_PF);
            rc = MW_EXIT_FAIL;
        } else if (o.dry_run) {
            printf("\ndry run: nothing saved; the meter keeps its calibration\n");
        } else if (!o.yes && (ask("\nWrite the new calibration to the meter's EEPROM? [y/N] ", line,
                                  sizeof line) != 0 ||
                              (strcmp(line, "y") && strcmp(line, "Y") && strcmp(line, "yes")))) {
            printf("\nnot saved; the meter keeps its calibration\n");
            rc = MW_EXIT_FAIL;
        } else if (save(&c) != 0) {
            rc = MW_EXIT_FAIL;
        } else {
            for (int k = 0; k <= c.n_current; k++) { /* saved: nothing to restore */
                c.orig_gain[k] = c.gain[k];
                c.orig_phase[k] = c.phase[k];
            }
        }
    }
    if (changed(&c)) restore(&c);
    fflush(stdout);
    sigaction(SIGINT, &oi, NULL);
    sigaction(SIGTERM, &ot, NULL);
    mw_meter_spec_close(c.ms);
    return rc;
}
