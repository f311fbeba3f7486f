/* cmd_vmeter — "mw vmeter": the real firmware on the simulated board. By default the board
 * is served on a pseudo-terminal in real time (mw_simpty.h) so that any tool written for a
 * meter on /dev/ttyACM0 can talk to it, avrdude included when the board holds the genuine
 * bootloader (mw_simboot.h); --stdout instead runs it as fast as possible for a fixed time
 * and prints what it sends.
 *
 * Options are parsed into one struct by one getopt_long loop: a new option is one entry in
 * the option table, one case in parse_args() (or, for an analog input, in
 * mw_vmeter_parse_analog(), vmeter_opts.c) and one line in usage(). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "mw_num.h"
#include "firmware_path.h"
#include "mw_sim.h"
#include "mw_simboot.h"
#include "mw_simprofile.h"
#include "mw_simpty.h"
#include "vmeter_opts.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw vmeter [--elf FILE] [--link PATH] [--seconds S] [--no-reset]\n"
            "                 [--bootloader HEX [--hex APP.hex]]\n"
            "       mw vmeter [--elf FILE] [--bootloader HEX] [--hex APP.hex] --seconds S "
            "--stdout\n\n"
            "Runs the megawatt firmware on the simulated board (simavr, ATmega2560 at 16 MHz).\n"
            "By default the board's serial port is a pseudo-terminal, run in real time until\n"
            "interrupted: one line on standard error says where it is\n"
            "(\"mw vmeter: meter on /dev/pts/N\"); open it like /dev/ttyACM0. As on a real Mega,\n"
            "opening the port resets the board.\n\n"
            "  --elf FILE        firmware ELF (default: the one mw was built with)\n"
            "  --link PATH       also make PATH a symbolic link to the port (an old link there\n"
            "                    is replaced; any other file is an error)\n"
            "  --seconds S       stop after S seconds (0.001 to 1e7; required with --stdout)\n"
            "  --no-reset        do not reset the board when a client opens the port (avrdude\n"
            "                    then cannot reach the bootloader, as with a real board)\n"
            "  --bootloader HEX  put this Intel HEX bootloader in the boot section (0x3E000)\n"
            "                    and start there on every reset; the application flash is\n"
            "                    empty unless --hex is given, so avrdude can write it, e.g.\n"
            "                    " MW_SIMBOOT_STK500V2_HEX "\n"
            "  --hex APP.hex     application flash from this Intel HEX file instead of the ELF\n"
            "  --stdout          no port: run S simulated seconds as fast as possible and copy\n"
            "                    the meter's output to standard output\n"
            "  --log-frames FILE every line the board sends, as \"HOST_NS LINE\" (host\n"
            "                    CLOCK_REALTIME ns when its last byte left the board; CR LF\n"
            "                    removed), whether or not a client has the port open\n\n"
            "Analog inputs (front-end of docs/analog-front-end.md; nothing connected = 0 A):\n"
            "  --mains V,HZ      mains voltage (V rms) and frequency (Hz) on A0\n"
            "                    (default 230,50; e.g. 120,60 or 230,49.95)\n"
            "  --load PIN=W[,PF[,WAVE]]  a load of W watts (negative: export) on current pin\n"
            "                    A1..A15, power factor 0 < PF <= 1 lagging, WAVE sine or smps\n"
            "                    (repeatable; e.g. --load A1=156.3 --load A5=3.5,1,sine)\n"
            "  --profile FILE    loads from a CSV profile: header t_s,A1,A2,..., rows of time (s)\n"
            "                    and watts, held until the next row (mw_simprofile.h)\n"
            "  --pf PF           power factor for --profile and --load without one (default 1)\n"
            "  --wave WAVE       waveform for --profile and --load without one: sine (default)\n"
            "                    or smps (odd harmonics 3/5/7, PF = displacement PF)\n"
            "  --ppm N           board crystal error in ppm, positive = fast (|N| <= 1000)\n"
            "  --noise LSB       ADC noise, rms in ADC counts (default 0.5)\n"
            "  -h, --help        this text\n");
}

static int parse_seconds(const char *arg, double *out)
{
    return mw_num_double(arg, 1e-3, 1e7, out) ? -1 : 0; /* mw_num.h */
}

/* --stdout runs without a port: the options that need one are errors. -1, or the exit code */
static int check_stdout(const mw_vmeter_opts *o)
{
    if (o->use_stdout && o->seconds <= 0)
        return mw_cli_usage_error("vmeter", "--stdout needs --seconds S");
    if (o->use_stdout && o->link)
        return mw_cli_usage_error("vmeter", "--link: there is no port with --stdout");
    if (o->use_stdout && o->log_frames)
        return mw_cli_usage_error("vmeter", "--log-frames: not with --stdout (no host time)");
    if (o->use_stdout && o->no_reset)
        return mw_cli_usage_error("vmeter", "--no-reset: there is no port with --stdout");
    return -1;
}

/* Returns -1 when parsing went fine, else the exit code (help printed, or usage error). */
static int parse_args(int argc, char **argv, mw_vmeter_opts *o)
{
    static const struct option opts[] = {
        {"elf", required_argument, NULL, 'e'},
        {"link", required_argument, NULL, 'l'},
        {"seconds", required_argument, NULL, 's'},
        {"stdout", no_argument, NULL, 'o'},
        {"no-reset", no_argument, NULL, 'R'},
        {"bootloader", required_argument, NULL, 'b'},
        {"hex", required_argument, NULL, 'x'},
        {"mains", required_argument, NULL, 'm'},
        {"load", required_argument, NULL, 'L'},
        {"profile", required_argument, NULL, 'P'},
        {"pf", required_argument, NULL, 'f'},
        {"wave", required_argument, NULL, 'w'},
        {"ppm", required_argument, NULL, 'p'},
        {"noise", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {"log-frames", required_argument, NULL, 'F'},
        {NULL, 0, NULL, 0},
    };
    static const int repeatable[] = {'L', 0};
    mw_cli_seen seen = {0}; /* options that take one value: once each (cli.h) */
    optind = 0; /* 0, not 1: glibc then fully reinitialises getopt (tests call us repeatedly) */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int once = mw_cli_once_opt("vmeter", &seen, opts, c, repeatable);
        if (once) return once;
        switch (c) {
        case 'e':
            if (!*optarg || strlen(optarg) >= sizeof o->elf)
                return mw_cli_usage_error("vmeter", "--elf: '%s' is not a usable path", optarg);
            snprintf(o->elf, sizeof o->elf, "%s", optarg);
            break;
        case 'l':
            if (!*optarg) return mw_cli_usage_error("vmeter", "--link: needs a path");
            o->link = optarg;
            break;
        case 's':
            if (parse_seconds(optarg, &o->seconds) != 0)
                return mw_cli_usage_error(
                    "vmeter", "--seconds: '%s' is not a number of seconds in 0.001..1e7", optarg);
            break;
        case 'o':
            o->use_stdout = 1;
            break;
        case 'R':
            o->no_reset = 1;
            break;
        case 'b':
            o->bootloader = optarg;
            break;
        case 'x':
            o->hex = optarg;
            break;
        case 'F':
            if (!*optarg) return mw_cli_usage_error("vmeter", "--log-frames: needs a path");
            o->log_frames = optarg;
            break;
        case 'm': /* the analog inputs */
        case 'L':
        case 'P':
        case 'f':
        case 'w':
        case 'p':
        case 'n': {
            int rc = mw_vmeter_parse_analog(c, optarg, o);
            if (rc >= 0) return rc;
            break;
        }
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error("vmeter", "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error("vmeter", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mw_cli_usage_error("vmeter", "unexpected argument '%s'", argv[optind]);
    return check_stdout(o);
}

static void to_stdout(void *ctx, uint8_t b)
{
    fputc(b, stdout);
}

static mw_simpty *volatile g_pty; /* for the signal handler */

/* --log-frames: the board's output cut into lines, each written with the host time. A reset
 * (a client's open) cuts the line being sent: its start is written alone, so that the boot
 * line that follows is a line of its own, as the client's decoder sees it. */
typedef struct {
    FILE *f;
    const mw_simpty *pty;
    uint64_t resets; /* mw_simpty's count when the line began */
    char line[2048];
    size_t len;
} frame_log;

static void log_frame_byte(void *ctx, uint8_t b)
{
    frame_log *fl = ctx;
    mw_simpty_stats st;
    mw_simpty_get_stats(fl->pty, &st); /* same thread: the board's */
    if (st.resets != fl->resets) {
        if (fl->len) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            fprintf(fl->f, "%lld %.*s\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec,
                    (int)fl->len, fl->line);
        }
        fl->len = 0;
        fl->resets = st.resets;
    }
    if (b == '\n') {
        if (fl->len && fl->line[fl->len - 1] == '\r') fl->len--;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        fprintf(fl->f, "%lld %.*s\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec,
                (int)fl->len, fl->line);
        fflush(fl->f);
        fl->len = 0;
    } else if (fl->len < sizeof fl->line) {
        fl->line[fl->len++] = (char)b;
    }
}

static void on_signal(int sig)
{
    mw_simpty *p = g_pty;
    if (p) mw_simpty_request_stop(p);
}

static int serve_pty(mw_sim *sim, const mw_vmeter_opts *o)
{
    char err[512];
    mw_simpty *pty = mw_simpty_open(sim, o->link, err, sizeof err);
    if (!pty) {
        fprintf(stderr, "mw vmeter: %s\n", err);
        return MW_EXIT_FAIL;
    }
    mw_simpty_set_reset_on_open(pty, !o->no_reset);
    frame_log fl = {0};
    if (o->log_frames) {
        /* a link planted at the name is refused, never written through (O_NOFOLLOW); the
         * log grows while the meter runs, so it is written in place */
        int lfd = open(o->log_frames, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
        fl.f = lfd < 0 ? NULL : fdopen(lfd, "w");
        if (lfd >= 0 && !fl.f) close(lfd);
        if (!fl.f) {
            fprintf(stderr, "mw vmeter: --log-frames: %s: %s\n", o->log_frames, strerror(errno));
            mw_simpty_close(pty);
            return MW_EXIT_USAGE; /* a file argument it cannot use (docs/cli.md) */
        }
        fl.pty = pty;
        mw_simpty_set_tap(pty, log_frame_byte, &fl);
    }
    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    g_pty = pty;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    if (mw_simpty_link(pty))
        fprintf(stderr, "mw vmeter: meter on %s (link %s)\n", mw_simpty_path(pty),
                mw_simpty_link(pty));
    else
        fprintf(stderr, "mw vmeter: meter on %s\n", mw_simpty_path(pty));
    fflush(stderr);
    int rc = mw_simpty_run(pty, (uint64_t)(o->seconds * 1e9));
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    g_pty = NULL;
    mw_simpty_close(pty);
    if (fl.f) fclose(fl.f);
    if (rc != 0) {
        fprintf(stderr, "mw vmeter: the firmware stopped or crashed\n");
        return MW_EXIT_FAIL;
    }
    return MW_EXIT_OK;
}

int cmd_vmeter(int argc, char **argv)
{
    mw_vmeter_opts o;
    memset(&o, 0, sizeof o);
    o.mains_v = 230;
    o.mains_hz = 50;
    o.pf = 1;
    o.wave = MW_SIM_SINE;
    o.noise_lsb = -1;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    mw_simprofile *profile = NULL;
    if (o.profile) {
        char perr[512];
        profile = mw_simprofile_load(o.profile, perr, sizeof perr);
        if (!profile) {
            fprintf(stderr, "mw vmeter: --profile: %s\n", perr);
            return MW_EXIT_USAGE;
        }
    }
    if (!o.elf[0] && mw_firmware_path("elf", o.elf, sizeof o.elf) != 0) {
        fprintf(stderr, "mw vmeter: no firmware found (%s); build it with 'make' or give --elf\n",
                o.elf);
        return MW_EXIT_FAIL;
    }
    char err[512];
    mw_sim *sim = mw_simboot_open(o.elf, o.bootloader, o.hex, err, sizeof err);
    if (!sim) { /* --elf, --bootloader or --hex missing or not firmware: bad input */
        fprintf(stderr, "mw vmeter: %s\n", err);
        mw_simprofile_free(profile);
        return MW_EXIT_USAGE;
    }
    mw_sim_set_mains(sim, 0, o.mains_v, o.mains_hz);
    mw_sim_set_crystal_ppm(sim, o.ppm);
    if (o.noise_lsb >= 0) mw_sim_set_noise(sim, o.noise_lsb, 1);
    if (profile) mw_simprofile_attach(profile, sim, o.profile_pf, o.profile_wave);
    for (int i = 0; i < o.nloads; i++)
        mw_sim_set_load(sim, o.loads[i].pin, o.loads[i].w, o.loads[i].pf, o.loads[i].wave);
    if (!o.use_stdout) {
        rc = serve_pty(sim, &o);
        mw_sim_close(sim);
        mw_simprofile_free(profile);
        return rc;
    }
    mw_sim_set_uart_sink(sim, to_stdout, NULL);
    fprintf(stderr, "mw vmeter: running %s for %.3f simulated s\n", o.hex ? o.hex : o.elf,
            o.seconds);
    int st = mw_sim_run_ns(sim, (uint64_t)(o.seconds * 1e9));
    mw_sim_close(sim);
    mw_simprofile_free(profile);
    fflush(stdout);
    if (st != 0) {
        fprintf(stderr, "mw vmeter: the firmware stopped or crashed\n");
        return MW_EXIT_FAIL;
    }
    return MW_EXIT_OK;
}
