/* cmd_vmeter — "mw vmeter": the real firmware on the simulated board. By default the board
 * is served on a pseudo-terminal in real time (mw_simpty.h) so that any tool written for a
 * meter on /dev/ttyACM0 can talk to it, avrdude included when the board holds the genuine
 * bootloader (mw_simboot.h); --stdout instead runs it as fast as possible for a fixed time
 * and prints what it sends.
 *
 * Options are parsed into one struct by one getopt_long loop: a new option is one entry in
 * the option table, one case in parse_args() and one line in usage(). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "firmware_path.h"
#include "mw_sim.h"
#include "mw_simboot.h"
#include "mw_simpty.h"

typedef struct {
    char elf[4096];
    const char *link;       /* --link PATH */
    const char *bootloader; /* --bootloader HEX */
    const char *hex;        /* --hex APP.hex */
    double seconds;         /* 0 = until interrupted */
    int use_stdout;
    int no_reset;
} vmeter_opts;

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
            "  --seconds S       stop after S seconds (S > 0; required with --stdout)\n"
            "  --no-reset        do not reset the board when a client opens the port (avrdude\n"
            "                    then cannot reach the bootloader, as with a real board)\n"
            "  --bootloader HEX  put this Intel HEX bootloader in the boot section (0x3E000)\n"
            "                    and start there on every reset; the application flash is\n"
            "                    empty unless --hex is given, so avrdude can write it, e.g.\n"
            "                    " MW_SIMBOOT_STK500V2_HEX "\n"
            "  --hex APP.hex     application flash from this Intel HEX file instead of the ELF\n"
            "  --stdout          no port: run S simulated seconds as fast as possible and copy\n"
            "                    the meter's output to standard output\n"
            "  -h, --help        this text\n");
}

static int parse_seconds(const char *arg, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !(v > 0) || v > 1e7) return -1;
    *out = v;
    return 0;
}

/* Returns -1 when parsing went fine, else the exit code (help printed, or usage error). */
static int parse_args(int argc, char **argv, vmeter_opts *o)
{
    static const struct option opts[] = {
        {"elf", required_argument, NULL, 'e'},
        {"link", required_argument, NULL, 'l'},
        {"seconds", required_argument, NULL, 's'},
        {"stdout", no_argument, NULL, 'o'},
        {"no-reset", no_argument, NULL, 'R'},
        {"bootloader", required_argument, NULL, 'b'},
        {"hex", required_argument, NULL, 'x'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
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
                    "vmeter", "--seconds: '%s' is not a positive number of seconds", optarg);
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
    if (o->use_stdout && o->seconds <= 0)
        return mw_cli_usage_error("vmeter", "--stdout needs --seconds S");
    if (o->use_stdout && o->link)
        return mw_cli_usage_error("vmeter", "--link: there is no port with --stdout");
    if (o->use_stdout && o->no_reset)
        return mw_cli_usage_error("vmeter", "--no-reset: there is no port with --stdout");
    return -1;
}

static void to_stdout(void *ctx, uint8_t b)
{
    fputc(b, stdout);
}

static mw_simpty *volatile g_pty; /* for the signal handler */

static void on_signal(int sig)
{
    mw_simpty *p = g_pty;
    if (p) mw_simpty_request_stop(p);
}

static int serve_pty(mw_sim *sim, const vmeter_opts *o)
{
    char err[512];
    mw_simpty *pty = mw_simpty_open(sim, o->link, err, sizeof err);
    if (!pty) {
        fprintf(stderr, "mw vmeter: %s\n", err);
        return MW_EXIT_FAIL;
    }
    mw_simpty_set_reset_on_open(pty, !o->no_reset);
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
    if (rc != 0) {
        fprintf(stderr, "mw vmeter: the firmware stopped or crashed\n");
        return MW_EXIT_FAIL;
    }
    return MW_EXIT_OK;
}

int cmd_vmeter(int argc, char **argv)
{
    vmeter_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    if (!o.elf[0] && mw_firmware_path("elf", o.elf, sizeof o.elf) != 0) {
        fprintf(stderr, "mw vmeter: no firmware found (%s); build it with 'make' or give --elf\n",
                o.elf);
        return MW_EXIT_FAIL;
    }
    char err[512];
    mw_sim *sim = mw_simboot_open(o.elf, o.bootloader, o.hex, err, sizeof err);
    if (!sim) {
        fprintf(stderr, "mw vmeter: %s\n", err);
        return MW_EXIT_FAIL;
    }
    if (!o.use_stdout) {
        rc = serve_pty(sim, &o);
        mw_sim_close(sim);
        return rc;
    }
    mw_sim_set_uart_sink(sim, to_stdout, NULL);
    fprintf(stderr, "mw vmeter: running %s for %.3f simulated s\n", o.hex ? o.hex : o.elf,
            o.seconds);
    int st = mw_sim_run_ns(sim, (uint64_t)(o.seconds * 1e9));
    mw_sim_close(sim);
    fflush(stdout);
    if (st != 0) {
        fprintf(stderr, "mw vmeter: the firmware stopped or crashed\n");
        return MW_EXIT_FAIL;
    }
    return MW_EXIT_OK;
}
