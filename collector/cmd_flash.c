/* cmd_flash — "mw flash": write the firmware into a meter through its stock bootloader and
 * check that the meter then identifies itself with this mw's version.
 *
 * avrdude does the writing (wiring programmer = stk500v2 with the Mega's auto-reset), run
 * from an argument vector with posix_spawnp, never through a shell. The port is the one
 * given, or the single USB serial port whose VID:PID is an Arduino Mega or a usual clone.
 * Afterwards the port is opened at 115200 8N1 (which resets the board once more), and the
 * identification line is awaited: the firmware sends it at boot, and in reply to "ID\r\n",
 * which is sent only once the bootloader must have handed over (a byte arriving while the
 * bootloader waits would keep it waiting longer).
 *
 * The port is found and opened with the serial transport of libmw (mw_port.h:
 * libserialport, or termios for a pseudo-terminal such as the simulated board's). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "firmware_path.h"
#include "flash_id.h"
#include "mw_port.h"
#include "mw_simboot.h"

extern char **environ;

#define PROBE_AFTER_S 2.0 /* first "ID" probe: the bootloader has surely handed over */
#define PROBE_EVERY_S 1.5
#define AVRDUDE_LIMIT_S 180.0

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw flash [--port PORT] [--timeout S] [--no-verify] [--verbose] [HEX]\n\n"
            "Writes the firmware into a meter (Arduino Mega 2560) through its bootloader with\n"
            "avrdude -c wiring -p atmega2560 -b 115200 -D, then waits for the meter's\n"
            "identification line and checks that it runs megawatt " MW_VERSION ".\n\n"
            "  HEX            Intel HEX firmware (default: the one mw carries)\n"
            "  --port PORT    serial port of the meter; without it, the one USB serial port\n"
            "                 that is an Arduino Mega (2341:0010, 2341:0042) or a clone\n"
            "                 (1a86:7523, 0403:6001)\n"
            "  --timeout S    seconds to wait for the identification line, 0.1 to 3600\n"
            "                 (default 5)\n"
            "  --no-verify    do not read the flash back (avrdude -V)\n"
            "  --verbose      show avrdude's progress and details\n"
            "  -h, --help     this text\n\n"
            "Exit status: 0 flashed and identified, 1 failed (avrdude, the meter's answer), 2 bad\n"
            "usage, a HEX file or port that cannot be used, or no single meter.\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- finding the meter ---------------------------------------------------------------- */

/* The one meter on USB (mw_port_find_meter): 0, or the exit status after a message. */
static int detect_port(char *out, size_t outlen)
{
    char err[2048];
    if (mw_port_find_meter(out, outlen, err, sizeof err) == 0) return 0;
    fprintf(stderr, "mw flash: %s; give --port\n", err);
    return MW_EXIT_USAGE;
}

/* ---- running avrdude ------------------------------------------------------------------ */

static int run_avrdude(const char *port, const char *hex, int verify, int verbose)
{
    char uarg[4200];
    snprintf(uarg, sizeof uarg, "flash:w:%s:i", hex);
    char *argv[20];
    int n = 0;
    argv[n++] = "avrdude";
    argv[n++] = "-c";
    argv[n++] = "wiring";
    argv[n++] = "-p";
    argv[n++] = "atmega2560";
    argv[n++] = "-b";
    argv[n++] = "115200";
    argv[n++] = "-P";
    argv[n++] = (char *)port;
    argv[n++] = "-D"; /* no chip erase: the bootloader erases page by page */
    argv[n++] = verbose ? "-v" : "-q";
    if (!verify) argv[n++] = "-V";
    argv[n++] = "-U";
    argv[n++] = uarg;
    argv[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    /* stdin from /dev/null: avrdude never waits on the terminal */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int err = posix_spawnp(&pid, "avrdude", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err) {
        fprintf(stderr, "mw flash: cannot run avrdude: %s (install the avrdude package)\n",
                strerror(err));
        return -1;
    }
    /* avrdude gives up by itself when the bootloader does not answer; the deadline only
     * catches it hanging (a full 248 KiB image takes about 50 s to write and verify) */
    double deadline = now_s() + AVRDUDE_LIMIT_S;
    int status;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) {
            fprintf(stderr, "mw flash: waiting for avrdude: %s\n", strerror(errno));
            return -1;
        }
        if (now_s() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fprintf(stderr, "mw flash: avrdude still running after %.0f s; stopped it\n",
                    AVRDUDE_LIMIT_S);
            return -1;
        }
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    if (WIFEXITED(status))
        fprintf(stderr, "mw flash: avrdude failed (exit status %d); see its messages above\n",
                WEXITSTATUS(status));
    else
        fprintf(stderr, "mw flash: avrdude was killed by signal %d\n", WTERMSIG(status));
    return -1;
}

/* ---- talking to the meter ------------------------------------------------------------- */

/* Wait for a valid identification line. Returns 1 found, 0 none within the time, -1 on a
 * port error (message in err). *bad counts identification lines with a wrong CRC. */
static int wait_for_id(mw_port *pt, double timeout_s, mw_flash_id *id, int *bad, char *err,
                       size_t errlen)
{
    char line[512];
    size_t len = 0;
    double start = now_s(), deadline = start + timeout_s, probe = start + PROBE_AFTER_S;
    *bad = 0;
    for (;;) {
        double t = now_s();
        if (t >= deadline) return 0;
        if (t >= probe) {
            mw_port_write(pt, "ID\r\n", 4, 500);
            probe = t + PROBE_EVERY_S;
        }
        double until = probe < deadline ? probe : deadline;
        char buf[256];
        int n = mw_port_read(pt, buf, sizeof buf, (int)((until - t) * 1000.0) + 1);
        if (n < 0) {
            snprintf(err, errlen, "reading the port failed");
            return -1;
        }
        for (int i = 0; i < n; i++) {
            if (buf[i] == '\n') {
                int r = mw_flash_parse_id(line, len, id);
                if (r == 1) return 1;
                if (r < 0) (*bad)++;
                len = 0;
            } else if (len < sizeof line) {
                line[len++] = buf[i];
            } else {
                len = 0; /* no line is that long: noise */
            }
        }
    }
}

typedef struct {
    const char *port_arg, *hex_arg; /* NULL: not given */
    double timeout_s;
    int verify, verbose;
} flash_opts;

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, flash_opts *o)
{
    static const struct option opts[] = {
        {"port", required_argument, NULL, 'p'}, {"timeout", required_argument, NULL, 't'},
        {"no-verify", no_argument, NULL, 'V'},  {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    mw_cli_seen seen = {0}; /* options that take one value: once each (cli.h) */
    optind = 0; /* 0, not 1: glibc then fully reinitialises getopt (tests call us repeatedly) */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int once = mw_cli_once_opt("flash", &seen, opts, c, NULL);
        if (once) return once;
        switch (c) {
        case 'p':
            if (!*optarg) return mw_cli_usage_error("flash", "--port: needs a port name");
            o->port_arg = optarg;
            break;
        case 't': {
            int rc = mw_cli_double("flash", "--timeout", optarg, 0.1, 3600, "s", &o->timeout_s);
            if (rc) return rc;
            break;
        }
        case 'V':
            o->verify = 0;
            break;
        case 'v':
            o->verbose = 1;
            break;
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error("flash", "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error("flash", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind > 1)
        return mw_cli_usage_error("flash", "unexpected argument '%s'", argv[optind + 1]);
    if (optind < argc) o->hex_arg = argv[optind];
    return -1;
}

/* The HEX file to write (given, or the one mw carries) into hex, checked, its size in
 * *bytes. Returns -1 to go on, else the exit status after a message. */
static int find_hex(const char *hex_arg, char *hex, size_t hexlen, long *bytes)
{
    if (hex_arg) {
        if (strlen(hex_arg) >= hexlen) return mw_cli_usage_error("flash", "HEX: path too long");
        snprintf(hex, hexlen, "%s", hex_arg);
    } else if (mw_firmware_path("hex", hex, hexlen) != 0) {
        fprintf(stderr, "mw flash: no firmware found (%s); build it with 'make' or give HEX\n",
                hex);
        return MW_EXIT_FAIL;
    }
    if (strchr(hex, ':'))
        return mw_cli_usage_error("flash", "HEX: '%s' contains ':', which avrdude -U cannot take",
                                  hex);
    char err[1024];
    *bytes = mw_simboot_parse_hex(hex, MW_SIMBOOT_ADDR, NULL, NULL, err, sizeof err);
    if (*bytes < 0) { /* missing, unreadable or not Intel HEX: bad input (docs/cli.md) */
        fprintf(stderr, "mw flash: %s\n", err);
        return MW_EXIT_USAGE;
    }
    return -1;
}

/* The port (given, or the one meter on USB) into port, checked to be a serial device we
 * may open: avrdude 7.1 does not stop when it cannot open the port (it spins). Returns -1
 * to go on, else the exit status after a message. */
static int find_port(const char *port_arg, char *port, size_t portlen)
{
    if (port_arg) {
        snprintf(port, portlen, "%s", port_arg);
    } else {
        int rc = detect_port(port, portlen);
        if (rc) return rc;
    }
    struct stat sb;
    if (stat(port, &sb) != 0) { /* an unusable port is bad input, as for --meter */
        fprintf(stderr, "mw flash: %s: %s\n", port, strerror(errno));
        return MW_EXIT_USAGE;
    }
    if (!S_ISCHR(sb.st_mode)) {
        fprintf(stderr, "mw flash: %s is not a serial device\n", port);
        return MW_EXIT_USAGE;
    }
    if (access(port, R_OK | W_OK) != 0) {
        fprintf(stderr, "mw flash: %s: %s (is your user in the dialout group?)\n", port,
                strerror(errno));
        return MW_EXIT_USAGE;
    }
    return -1;
}

/* After writing (t1: when avrdude was done): the meter's identification line, and its
 * version checked against ours. */
static int check_meter(const char *port, double timeout, double t1)
{
    char err[1024];
    mw_port *pt = mw_port_open(port, NULL, err, sizeof err);
    if (!pt) {
        fprintf(stderr, "mw flash: flashed, but cannot open the port to check the meter: %s\n",
                err);
        return MW_EXIT_FAIL;
    }
    mw_flash_id id;
    int bad = 0;
    int found = wait_for_id(pt, timeout, &id, &bad, err, sizeof err);
    mw_port_close(pt);
    if (found < 0) {
        fprintf(stderr, "mw flash: flashed, but %s on %s\n", err, port);
        return MW_EXIT_FAIL;
    }
    if (!found) {
        if (bad)
            fprintf(stderr,
                    "mw flash: flashed, but the meter's identification line had a bad "
                    "CRC (%d times in %.1f s)\n",
                    bad, timeout);
        else
            fprintf(stderr, "mw flash: flashed, but the meter did not identify itself in %.1f s\n",
                    timeout);
        return MW_EXIT_FAIL;
    }
    printf("mw flash: meter says %s (identified %.1f s after flashing)\n", id.line, now_s() - t1);
    if (strcmp(id.version, MW_VERSION) != 0) {
        fprintf(stderr, "mw flash: the meter runs megawatt %s, expected %s\n", id.version,
                MW_VERSION);
        return MW_EXIT_FAIL;
    }
    return MW_EXIT_OK;
}

int cmd_flash(int argc, char **argv)
{
    flash_opts o = {.timeout_s = 5.0, .verify = 1};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    char hex[4096], port[4096];
    long bytes = 0;
    if ((rc = find_hex(o.hex_arg, hex, sizeof hex, &bytes)) >= 0) return rc;
    if ((rc = find_port(o.port_arg, port, sizeof port)) >= 0) return rc;
    double t0 = now_s();
    if (run_avrdude(port, hex, o.verify, o.verbose) != 0) return MW_EXIT_FAIL;
    double t1 = now_s();
    printf("mw flash: wrote %s (%ld bytes%s) to %s in %.1f s\n", hex, bytes,
           o.verify ? ", verified" : "", port, t1 - t0);
    fflush(stdout);
    return check_meter(port, o.timeout_s, t1);
}
