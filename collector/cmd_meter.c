/* cmd_meter — "mw info" (what the meter is and how it is set up) and "mw monitor" (live
 * readings without recording). Both open the meter like "mw record" (meter_spec.h). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "meter_spec.h"

static void info_usage(FILE *out)
{
    fprintf(out, "usage: mw info [--meter PORT|auto|sim[:PROFILE]]\n"
                 "       mw info --list\n\n"
                 "Shows the meter's identity (firmware version and build, USB identity), its\n"
                 "window length, channel map and calibration. --list lists the serial ports\n"
                 "instead, candidate meters (Arduino Mega VID:PID or a usual clone) first,\n"
                 "with their USB VID:PID and serial number.\n\n"
                 "  --meter M    serial port (e.g. /dev/ttyACM0), 'auto' (default: the one\n"
                 "               Arduino Mega on USB) or 'sim' (the simulated board)\n"
                 "  --list       list the serial ports and which could be meters\n"
                 "  -h, --help   this text\n\n"
                 "Exit status: 0 ok, 1 the meter failed to answer, 2 bad usage or no usable "
                 "port.\n");
}

static void monitor_usage(FILE *out)
{
    fprintf(out, "usage: mw monitor [--meter PORT|auto|sim[:PROFILE]] [--seconds S]\n\n"
                 "Shows the meter's readings live without recording them: on a terminal one\n"
                 "line that updates (mains V and Hz, W per channel, energy since start);\n"
                 "otherwise one line per window: time_s (window end, host clock, s since\n"
                 "start), vrms_v, freq_hz, then power_w of every channel.\n\n"
                 "  --meter M    serial port, 'auto' (default) or 'sim'\n"
                 "  --seconds S  stop after S seconds, 0.001 to 1e9 (default: until interrupted)\n"
                 "  -h, --help   this text\n");
}

/* Parse --meter (and --seconds when seconds != NULL). Returns -1 to go on, else exit code. */
static int parse(const char *cmd, int argc, char **argv, const char **meter, double *seconds,
                 int *list, void (*usage)(FILE *))
{
    static const struct option opts[] = {{"meter", required_argument, NULL, 'm'},
                                         {"seconds", required_argument, NULL, 's'},
                                         {"list", no_argument, NULL, 'l'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    mw_cli_seen seen = {0}; /* options that take one value: once each (cli.h) */
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int once = mw_cli_once_opt(cmd, &seen, opts, c, NULL);
        if (once) return once;
        switch (c) {
        case 'm':
            *meter = optarg;
            break;
        case 'l':
            if (!list) return mw_cli_usage_error(cmd, "unknown option '--list'");
            *list = 1;
            break;
        case 's': {
            double v = 0;
            if (!seconds) return mw_cli_usage_error(cmd, "unknown option '--seconds'");
            int rc = mw_cli_double(cmd, "--seconds", optarg, 0.001, 1e9, "s", &v);
            if (rc) return rc;
            *seconds = v;
            break;
        }
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return mw_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return -1;
}

static int list_ports(void)
{
    mw_port_info *v;
    int n = mw_port_list(&v);
    if (n < 0) {
        fprintf(stderr, "mw info: cannot list the serial ports\n");
        return MW_EXIT_FAIL;
    }
    printf("%-24s %-9s %-22s %s\n", "port", "usb", "serial", "what");
    for (int i = 0; i < n; i++) {
        char usb[16] = "-";
        if (v[i].vid >= 0)
            snprintf(usb, sizeof usb, "%04x:%04x", (unsigned)v[i].vid, (unsigned)v[i].pid);
        printf("%-24s %-9s %-22s %s\n", v[i].path, usb, v[i].serial[0] ? v[i].serial : "-",
               v[i].kind       ? v[i].kind
               : v[i].vid >= 0 ? "not a known meter"
                               : "not on USB");
    }
    if (n == 0) printf("(no serial ports)\n");
    free(v);
    return MW_EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
    const char *meter = NULL;
    int list = 0;
    int rc = parse("info", argc, argv, &meter, NULL, &list, info_usage);
    if (rc >= 0) return rc;
    if (list) return list_ports();
    mw_meter_spec *ms;
    if ((rc = mw_meter_spec_open("info", meter, &ms)) != 0) return rc;
    mw_meter *m = mw_meter_spec_meter(ms);
    const mw_proto_ident *id = mw_meter_ident(m);
    mw_port_info pi;
    mw_port_get_info(mw_meter_port(m), &pi);
    printf("port:         %s%s\n", mw_meter_spec_path(ms),
           mw_meter_spec_is_sim(ms) ? " (simulated board)" : "");
    if (pi.vid >= 0)
        printf("usb:          %04x:%04x %s%s%s, serial %s, bus %d address %d\n", (unsigned)pi.vid,
               (unsigned)pi.pid, pi.kind ? pi.kind : "not a known meter", pi.product[0] ? ", " : "",
               pi.product, pi.serial[0] ? pi.serial : "unknown", pi.bus, pi.address);
    else
        printf("usb:          none (not a USB device)\n");
    printf("firmware:     megawatt %s, build %s, %s\n", id->fw_version, id->build_id, id->mcu);
    printf("windows:      %d per s, %d ms each\n", id->rate_hz, id->window_ms);
    printf("voltage:      channel 0 on A%d\n", id->pin[0]);
    printf("currents:     %d channel%s:", id->n_current, id->n_current == 1 ? "" : "s");
    for (int k = 1; k <= id->n_current; k++)
        printf(" %d=A%d", k, id->pin[k]);
    printf("\ncalibration:  %s", !strcmp(id->cal_source, "EEPROM")
                                     ? "saved in EEPROM"
                                     : "DEFAULT (never calibrated: see docs/calibration.md)");
    if (id->cal_date_yyyymmdd)
        printf(", calibrated %04d-%02d-%02d (%s)", id->cal_date_yyyymmdd / 10000,
               id->cal_date_yyyymmdd / 100 % 100, id->cal_date_yyyymmdd % 100,
               id->cal_ref[0] ? id->cal_ref : "no references noted");
    printf("\n");
    char cal[1024];
    rc = MW_EXIT_OK;
    if (mw_meter_spec_calibration(m, cal, sizeof cal) != 0) {
        fprintf(stderr, "mw info: %s: %s\n", mw_meter_spec_path(ms), cal);
        rc = MW_EXIT_FAIL;
    } else {
        char *save = NULL;
        for (char *t = strtok_r(cal, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
            int k;
            double g, ph;
            if (sscanf(t, "%d:%lf,%lf", &k, &g, &ph) == 3)
                printf("  channel %-2d  gain %.6f %s/count  phase %+.3f deg\n", k, g, k ? "A" : "V",
                       ph);
        }
    }
    mw_meter_spec_close(ms);
    return rc;
}

static volatile sig_atomic_t g_stop;
static void on_stop(int sig)
{
    g_stop = sig;
}

int cmd_monitor(int argc, char **argv)
{
    const char *meter = NULL;
    double seconds = 0;
    int rc = parse("monitor", argc, argv, &meter, &seconds, NULL, monitor_usage);
    if (rc >= 0) return rc;
    mw_meter_spec *ms;
    if ((rc = mw_meter_spec_open("monitor", meter, &ms)) != 0) return rc;
    mw_meter *m = mw_meter_spec_meter(ms);
    g_stop = 0;
    struct sigaction sa, oi, ot;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, &oi);
    sigaction(SIGTERM, &sa, &ot);
    int tty = isatty(1);
    double e_j[MW_PROTO_MAX_I] = {0};
    int64_t start_ns = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = MW_EXIT_OK;
    while (!g_stop) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (seconds > 0 && (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 >= seconds)
            break;
        mw_meter_event ev;
        int r = mw_meter_next(m, &ev, 200);
        if (r < 0) {
            fprintf(stderr, "%smw monitor: %s: the meter went away\n", tty ? "\n" : "",
                    mw_meter_spec_path(ms));
            rc = MW_EXIT_FAIL;
            break;
        }
        if (r == 0 || ev.type != MW_METER_WINDOW) continue;
        if (!start_ns) start_ns = ev.t0_ns;
        const mw_proto_window *w = &ev.w;
        double dt = (double)(w->t1_us - w->t0_us) * 1e-6;
        if (tty) {
            printf("\r%8.1f s  %6.1f V %6.3f Hz ", (ev.t1_ns - start_ns) * 1e-9, w->vrms_mv * 1e-3,
                   w->freq_mhz * 1e-3);
            for (int k = 0; k < w->nchan; k++) {
                e_j[k] += w->ch[k].p_mw * 1e-3 * dt;
                printf(" %d:%7.1f W", k + 1, w->ch[k].p_mw * 1e-3);
            }
            double e_tot = 0;
            for (int k = 0; k < w->nchan; k++)
                e_tot += e_j[k];
            printf("  %.1f J %s\033[K", e_tot,
                   w->flags & ~(uint32_t)(MW_FLAG_CAL_DEFAULT | MW_FLAG_FIRST) ? "(flagged)" : "");
        } else {
            printf("%.3f,%.3f,%.3f", (ev.t1_ns - start_ns) * 1e-9, w->vrms_mv * 1e-3,
                   w->freq_mhz * 1e-3);
            for (int k = 0; k < w->nchan; k++)
                printf(",%.3f", w->ch[k].p_mw * 1e-3);
            printf("\n");
        }
        fflush(stdout);
    }
    if (tty) printf("\n");
    sigaction(SIGINT, &oi, NULL);
    sigaction(SIGTERM, &ot, NULL);
    mw_meter_spec_close(ms);
    return rc;
}
