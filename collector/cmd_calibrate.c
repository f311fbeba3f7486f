/* cmd_calibrate — "mw calibrate": the meter's voltage gain from a reference voltmeter, and
 * each current channel's gain and phase from a known load read on a reference meter, with
 * the firmware's CAL commands; then a check with the new constants, the before/after errors,
 * and on confirmation CALDATE (date and references, reported in the I line so that every run
 * stores them) and SAVE (EEPROM). docs/calibration.md is the user's guide.
 *
 * The procedure (four readings a step: at the constants in use, with the phase +- 5 degrees,
 * with the new constants) is libmwmodels' (calib_session.h, its arithmetic calib.h); it
 * reaches the meter through libmw (mw_calibrate.h: CAL?, CAL, the windows of a reading,
 * CALDATE and SAVE), and what it says is printed by calibrate_ui.c, which also holds the
 * report and the guided mode. This file parses the options, opens the meter and runs the
 * steps in order. Non-interactive, all references make one step (all loads on at once);
 * guided (on a terminal without references, or --interactive), one step per reference as
 * the user gives them, then the no-load check. Opening the port resets the meter, so
 * nothing is kept unless saved: if anything fails, the check is out by more than 1 %, the
 * user declines or --dry-run is given, the constants in use before are set back and nothing
 * is written. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "calib.h"
#include "calibrate_ui.h"
#include "cli.h"
#include "meter_spec.h"
#include "mw_num.h"

#define DEFAULT_WINDOWS 16

typedef struct {
    const char *meter;
    double ref_vrms_v;
    int nrefs;
    mw_calib_ref refs[MW_PROTO_MAX_I];
    int no_load_check;
    double no_load_max_w;
    int windows;
    int yes, dry_run, interactive;
    const char *note;
    uint32_t date;
} cal_opts;

/* long options' codes */
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

/* ---- options ------------------------------------------------------------------------- */

/* --channel N: a new reference, *last. -1 to go on, or the exit status. */
static int parse_channel(const char *arg, cal_opts *o, mw_calib_ref **last)
{
    int64_t v;
    if (mw_num_int64(arg, 1, MW_PROTO_MAX_I, &v))
        return mw_cli_usage_error("calibrate", "--channel: '%s' is not a channel 1..15", arg);
    for (int i = 0; i < o->nrefs; i++)
        if (o->refs[i].ch == (int)v)
            return mw_cli_usage_error("calibrate", "--channel %d is given twice", (int)v);
    *last = &o->refs[o->nrefs++];
    (*last)->ch = (int)v;
    (*last)->pf = 1;
    return -1;
}

/* --reference-power, --reference-current, --reference-pf of the last --channel */
static int parse_ref(int c, const char *arg, mw_calib_ref *last)
{
    const char *name = c == O_P   ? "--reference-power"
                       : c == O_I ? "--reference-current"
                                  : "--reference-pf";
    if (!last) return mw_cli_usage_error("calibrate", "%s needs a --channel N before it", name);
    if (c == O_PF) {
        if (mw_calibrate_number(arg, 1e-3, 1, &last->pf))
            return mw_cli_usage_error("calibrate",
                                      "--reference-pf: '%s' is not a power factor in (0, 1]", arg);
        return -1;
    }
    if (last->power_w > 0 || last->current_a > 0)
        return mw_cli_usage_error("calibrate",
                                  "--channel %d: give one --reference-power or "
                                  "--reference-current",
                                  last->ch);
    if (mw_calibrate_number(arg, 1e-3, 1e6, c == O_P ? &last->power_w : &last->current_a))
        return mw_cli_usage_error("calibrate", "%s: '%s' is not a positive %s", name, arg,
                                  c == O_P ? "power in W" : "current in A");
    return -1;
}

/* One option with a value (other than --meter). -1 to go on, or the exit status. */
static int parse_value(int c, const char *arg, cal_opts *o, mw_calib_ref **last)
{
    int64_t v;
    switch (c) {
    case O_VREF:
        if (mw_calibrate_number(arg, 1, 1000, &o->ref_vrms_v))
            return mw_cli_usage_error(
                "calibrate", "--reference-voltage: '%s' is not a voltage in 1..1000 V", arg);
        return -1;
    case O_CH:
        return parse_channel(arg, o, last);
    case O_NOLOADMAX:
        if (mw_calibrate_number(arg, 1e-3, 1e5, &o->no_load_max_w))
            return mw_cli_usage_error("calibrate", "--no-load-max: '%s' is not a power in W", arg);
        return -1;
    case O_WIN:
        if (mw_num_int64(arg, 4, 400, &v))
            return mw_cli_usage_error("calibrate", "--windows: '%s' is not 4..400", arg);
        o->windows = (int)v;
        return -1;
    case O_DATE:
        if (mw_num_int64(arg, 0, 99999999, &v) || strlen(arg) != 8 ||
            !mw_calib_date_valid((uint32_t)v))
            return mw_cli_usage_error("calibrate", "--date: '%s' is not a date YYYYMMDD", arg);
        o->date = (uint32_t)v;
        return -1;
    case O_NOTE:
        if (!mw_calib_note_valid(arg))
            return mw_cli_usage_error(
                "calibrate", "--note: '%s' is not 1..16 of A-Z a-z 0-9 . _ - + / : = @", arg);
        o->note = arg;
        return -1;
    default:
        return parse_ref(c, arg, *last);
    }
}

/* The options together; standard input's being a terminal decides the guided mode. */
static int check_args(cal_opts *o)
{
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

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, cal_opts *o)
{
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
    int c, rc = -1;
    mw_calib_ref *last = NULL;
    mw_cli_seen seen = {0}; /* a load's --channel, --reference-* may repeat, one per load */
    static const int per_load[] = {O_CH, O_P, O_I, O_PF, 0};
    while (rc < 0 && (c = getopt_long(argc, argv, ":hy", opts, NULL)) != -1) {
        if ((rc = mw_cli_once_opt("calibrate", &seen, opts, c, per_load)) != 0) return rc;
        rc = -1;
        if (c == 'm')
            o->meter = optarg;
        else if (c == 'y' || c == O_YES)
            o->yes = 1;
        else if (c == O_NOLOAD)
            o->no_load_check = 1;
        else if (c == O_DRY)
            o->dry_run = 1;
        else if (c == O_INTER)
            o->interactive = 1;
        else if (c == 'h') {
            usage(stdout);
            return MW_EXIT_OK;
        } else if (c == ':')
            return mw_cli_usage_error("calibrate", "option '%s' needs a value", argv[optind - 1]);
        else if (c == '?')
            return mw_cli_usage_error("calibrate", "unknown option '%s'", argv[optind - 1]);
        else
            rc = parse_value(c, optarg, o, &last);
    }
    if (rc >= 0) return rc;
    if (optind < argc)
        return mw_cli_usage_error("calibrate", "unexpected argument '%s'", argv[optind]);
    return check_args(o);
}

/* ---- the meter ------------------------------------------------------------------------ */

/* The meter opened, checked against the options and shown. 0, or the exit status. */
static int open_meter(const cal_opts *o, mw_meter_spec **ms, mw_calibrate_ctx *c)
{
    int rc = mw_meter_spec_open("calibrate", o->meter, ms);
    if (rc != 0) return rc;
    c->link.m = mw_meter_spec_meter(*ms);
    c->link.path = mw_meter_spec_path(*ms);
    c->link.stop = &g_stop;
    const mw_proto_ident *id = mw_meter_ident(c->link.m);
    c->link.n_current = id->n_current;
    c->link.window_ms = id->window_ms;
    for (int i = 0; i < o->nrefs; i++)
        if (o->refs[i].ch > c->link.n_current) {
            fprintf(stderr, "mw calibrate: --channel %d: the meter on %s has %d current channels\n",
                    o->refs[i].ch, c->link.path, c->link.n_current);
            mw_meter_spec_close(*ms);
            return MW_EXIT_USAGE;
        }
    printf("meter:       %s%s, megawatt %s (build %s), %d current channels\n", c->link.path,
           mw_meter_spec_is_sim(*ms) ? " (simulated board)" : "", id->fw_version, id->build_id,
           c->link.n_current);
    if (id->cal_date_yyyymmdd)
        printf("calibration: %s, dated %d (%s)\n", id->cal_source, id->cal_date_yyyymmdd,
               id->cal_ref[0] ? id->cal_ref : "no references noted");
    else
        printf("calibration: %s\n", id->cal_source);
    fflush(stdout);
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
static int save(const cal_opts *o, mw_calibrate_ctx *c)
{
    char note[MW_CALIB_NOTE_MAX + 1], warn[512], err[5120];
    if (o->note)
        snprintf(note, sizeof note, "%s", o->note);
    else
        mw_calib_session_note(&c->s, note);
    int r = mw_cal_save(&c->link, o->date ? o->date : today(), note, warn, sizeof warn, err,
                        sizeof err);
    if (warn[0]) fprintf(stderr, "mw calibrate: %s\n", warn);
    if (r != 0) {
        fprintf(stderr, "mw calibrate: %s\n", err);
        return -1;
    }
    const mw_proto_ident *id = mw_cal_ident(&c->link);
    if (id && id->cal_date_yyyymmdd)
        printf("\nsaved: calibration %s, dated %d (%s)\n", id->cal_source, id->cal_date_yyyymmdd,
               id->cal_ref[0] ? id->cal_ref : "no references noted");
    else
        printf("\nsaved: calibration %s\n", id ? id->cal_source : "EEPROM");
    mw_calib_keep(&c->s); /* saved: nothing to restore */
    return 0;
}

/* New constants: saved when the check passed and the user agrees. The exit status. */
static int confirm_and_save(const cal_opts *o, mw_calibrate_ctx *c)
{
    char line[64] = "";
    if (c->s.check_failed) {
        fprintf(stderr,
                "mw calibrate: the check with the new constants is out by more than %g %% "
                "(or %g in PF): the load or the mains changed meanwhile, or a reference is "
                "wrong; nothing saved\n",
                MW_CALIB_CHECK_MAX_PCT, MW_CALIB_CHECK_MAX_PF);
        return MW_EXIT_FAIL;
    }
    if (o->dry_run) {
        printf("\ndry run: nothing saved; the meter keeps its calibration\n");
        return MW_EXIT_OK;
    }
    if (!o->yes && (mw_calibrate_ask("\nWrite the new calibration to the meter's EEPROM? [y/N] ",
                                     line, sizeof line) != 0 ||
                    (strcmp(line, "y") && strcmp(line, "Y") && strcmp(line, "yes")))) {
        printf("\nnot saved; the meter keeps its calibration\n");
        return MW_EXIT_FAIL;
    }
    return save(o, c) == 0 ? MW_EXIT_OK : MW_EXIT_FAIL;
}

/* The steps the options ask for, the report, the saving; the start's constants set back
 * unless saved. The exit status. */
static int run(const cal_opts *o, mw_calibrate_ctx *c)
{
    int rc = MW_EXIT_OK;
    int ok = mw_calibrate_begin(c, o->windows) == 0;
    if (ok && o->interactive)
        ok = mw_calibrate_guided(c, o->no_load_max_w) == 0;
    else if (ok && (o->nrefs || o->ref_vrms_v > 0))
        ok = mw_calib_step(&c->s, o->ref_vrms_v, o->refs, o->nrefs, 0) == 0;
    if (ok && o->no_load_check && mw_calibrate_no_load(c, o->no_load_max_w) != 0) {
        fprintf(stderr, "mw calibrate: the no-load check failed\n");
        rc = MW_EXIT_FAIL;
    }
    if (!ok) rc = MW_EXIT_FAIL;
    if (ok) mw_calibrate_report(&c->s);
    fflush(stdout);
    if (ok && mw_calib_changed(&c->s)) {
        int r = confirm_and_save(o, c);
        if (r != MW_EXIT_OK) rc = r;
    }
    if (mw_calib_changed(&c->s)) mw_calib_restore(&c->s);
    fflush(stdout);
    return rc;
}

int cmd_calibrate(int argc, char **argv)
{
    cal_opts o = {.no_load_max_w = 1.0, .windows = DEFAULT_WINDOWS};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    mw_calibrate_ctx c;
    memset(&c, 0, sizeof c);
    mw_meter_spec *ms;
    if ((rc = open_meter(&o, &ms, &c)) != 0) return rc;
    g_stop = 0;
    struct sigaction sa, oi, ot;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: a prompt's read is interrupted too */
    sigaction(SIGINT, &sa, &oi);
    sigaction(SIGTERM, &sa, &ot);
    rc = run(&o, &c);
    sigaction(SIGINT, &oi, NULL);
    sigaction(SIGTERM, &ot, NULL);
    mw_meter_spec_close(ms);
    return rc;
}
