/* cmd_vmeter — "mw vmeter": run the real firmware on the simulated board. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "firmware_path.h"
#include "mw_sim.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw vmeter [--elf FILE] --seconds S --stdout\n\n"
            "Runs the megawatt firmware ELF on the simulated board (simavr, ATmega2560 at\n"
            "16 MHz) and copies what the firmware sends on UART0 to standard output.\n\n"
            "  --elf FILE     firmware ELF (default: the one mw was built with)\n"
            "  --seconds S    simulated seconds to run, then stop (S > 0)\n"
            "  --stdout       write the meter's output to standard output\n"
            "  -h, --help     this text\n");
}

static void to_stdout(void *ctx, uint8_t b) { fputc(b, stdout); }

int cmd_vmeter(int argc, char **argv)
{
    static const struct option opts[] = {
        {"elf", required_argument, NULL, 'e'},    {"seconds", required_argument, NULL, 's'},
        {"stdout", no_argument, NULL, 'o'},       {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char elf[4096] = "";
    double seconds = 0;
    int use_stdout = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'e':
            snprintf(elf, sizeof elf, "%s", optarg);
            break;
        case 's': {
            char *end;
            errno = 0;
            seconds = strtod(optarg, &end);
            if (errno || *end || !(seconds > 0) || seconds > 1e7)
                return mw_cli_usage_error("vmeter", "--seconds: '%s' is not a positive number "
                                                    "of seconds", optarg);
            break;
        }
        case 'o':
            use_stdout = 1;
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
    if (!use_stdout || seconds <= 0)
        return mw_cli_usage_error("vmeter", "give --seconds S and --stdout");
    if (!elf[0] && mw_firmware_path("elf", elf, sizeof elf) != 0) {
        fprintf(stderr, "mw vmeter: no firmware found (%s); build it with 'make' or give --elf\n",
                elf);
        return MW_EXIT_FAIL;
    }
    char err[512];
    mw_sim *sim = mw_sim_open(elf, err, sizeof err);
    if (!sim) {
        fprintf(stderr, "mw vmeter: %s\n", err);
        return MW_EXIT_FAIL;
    }
    mw_sim_set_uart_sink(sim, to_stdout, NULL);
    fprintf(stderr, "mw vmeter: running %s for %.3f simulated s\n", elf, seconds);
    int rc = mw_sim_run_ns(sim, (uint64_t)(seconds * 1e9));
    mw_sim_close(sim);
    fflush(stdout);
    if (rc != 0) {
        fprintf(stderr, "mw vmeter: the firmware stopped or crashed\n");
        return MW_EXIT_FAIL;
    }
    return MW_EXIT_OK;
}
