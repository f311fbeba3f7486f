/* Unit tests for the mw command's dispatch (collector/cli.c): exit codes and messages, and
 * the option helpers every command shares: a number that is not plain decimal or is out of
 * range, and an option that takes one value given twice, are usage errors (exit 2, one line
 * naming the option) in the commands that parse with getopt_long and in the hand-written
 * parsers (longopt.h) alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../capture.h"
#include "cli.h"

static int run_captured(char *out, size_t outlen, int argc, char **argv)
{
    return mw_run_captured(out, outlen, argc, argv);
}

static void unknown_command_exits_2(void **state)
{
    char out[4096];
    char *argv[] = {"mw", "nosuch", NULL};
    assert_int_equal(run_captured(out, sizeof out, 2, argv), MW_EXIT_USAGE);
    assert_non_null(strstr(out, "unknown command 'nosuch'"));
    /* one line */
    assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
}

static void no_command_exits_2(void **state)
{
    char out[4096];
    char *argv[] = {"mw", NULL};
    assert_int_equal(run_captured(out, sizeof out, 1, argv), MW_EXIT_USAGE);
}

static void unknown_option_exits_2(void **state)
{
    char out[4096];
    char *argv[] = {"mw", "--frobnicate", NULL};
    assert_int_equal(run_captured(out, sizeof out, 2, argv), MW_EXIT_USAGE);
    assert_non_null(strstr(out, "--frobnicate"));
}

static void help_lists_every_command(void **state)
{
    char out[8192];
    char *argv[] = {"mw", "--help", NULL};
    assert_int_equal(run_captured(out, sizeof out, 2, argv), MW_EXIT_OK);
    for (const mw_cli_command *c = mw_cli_commands; c->name; c++)
        assert_non_null(strstr(out, c->name));
}

static void every_command_has_help(void **state)
{
    for (const mw_cli_command *c = mw_cli_commands; c->name; c++) {
        char out[8192];
        char *argv[] = {"mw", (char *)c->name, "--help", NULL};
        assert_int_equal(run_captured(out, sizeof out, 3, argv), MW_EXIT_OK);
        assert_non_null(strstr(out, "usage: mw"));
    }
}

static void version_prints_version(void **state)
{
    char out[4096];
    char *argv[] = {"mw", "--version", NULL};
    assert_int_equal(run_captured(out, sizeof out, 2, argv), MW_EXIT_OK);
    assert_non_null(strstr(out, MW_VERSION));
}

/* mw ARGV... exits 2 with exactly the one line want (the "(try ...)" hint after it) */
static void refused(const char *want, char **argv)
{
    char out[4096];
    int argc = 0;
    while (argv[argc])
        argc++;
    int rc = run_captured(out, sizeof out, argc, argv);
    if (rc != MW_EXIT_USAGE || strncmp(out, want, strlen(want)) != 0)
        fail_msg("exit %d, '%s' (want 2, '%s')", rc, out, want);
    assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
}

static void numbers_refused_naming_the_option(void **state)
{
    refused("mw analyze: --from: '0x10' is not a number",
            (char *[]){"mw", "analyze", "--from", "0x10", "r", NULL});
    refused("mw analyze: --to: 'nan' is not a number",
            (char *[]){"mw", "analyze", "--to", "nan", "r", NULL});
    refused("mw analyze: --idle-power: '1e308' is out of range (0 to 1e+06 W)",
            (char *[]){"mw", "analyze", "--idle-power", "1e308", "r", NULL});
    refused("mw record: --idle: ' 1' is not a number",
            (char *[]){"mw", "record", "--idle", " 1", "-o", "r", "--", "true", NULL});
    refused("mw stats: --confidence: 'inf' is not a number",
            (char *[]){"mw", "stats", "--confidence", "inf", NULL});
    refused("mw fit: --confidence: '1' is out of range (1e-06 to 0.999999)",
            (char *[]){"mw", "fit", "--confidence", "1", NULL});
    refused("mw sweep: --reps: '2.0' is not a whole number",
            (char *[]){"mw", "sweep", "--reps", "2.0", NULL});
    refused("mw sweep: --reps: '1001' is out of range (1 to 1000)",
            (char *[]){"mw", "sweep", "--reps", "1001", NULL});
    refused("mw dvfs: --ps-fraction: '101' is out of range (0 to 100)",
            (char *[]){"mw", "dvfs", "--ps-fraction", "101", NULL});
    refused("mw pareto: --n: '1e16' is out of range (1e-09 to 1e+15 units)",
            (char *[]){"mw", "pareto", "--n", "1e16", "p", NULL});
    refused("mw flash: --timeout: '5s' is not a number",
            (char *[]){"mw", "flash", "--timeout", "5s", NULL});
    refused("mw monitor: --seconds: '0x1p3' is not a number",
            (char *[]){"mw", "monitor", "--seconds", "0x1p3", NULL});
}

static void single_valued_options_once(void **state)
{
    refused("mw analyze: --from given twice",
            (char *[]){"mw", "analyze", "--from", "1", "--from=2", "r", NULL});
    refused("mw export: --output given twice",
            (char *[]){"mw", "export", "-o", "a", "--output", "b", "r", NULL});
    refused("mw stats: --method given twice",
            (char *[]){"mw", "stats", "--method", "kde", "--method=gmm", NULL});
    refused("mw dvfs: --freqs given twice",
            (char *[]){"mw", "dvfs", "--freqs", "2", "--freqs", "1", "r", NULL});
    refused("mw fit: --table given twice",
            (char *[]){"mw", "fit", "--table", "a", "--table", "b", NULL});
    refused("mw sweep: --meter given twice",
            (char *[]){"mw", "sweep", "--meter", "sim", "--meter=sim", NULL});
    refused("mw calibrate: --date given twice",
            (char *[]){"mw", "calibrate", "--date", "20250101", "--date", "20250102", NULL});
    /* repeatable ones are not refused for repeating */
    char out[4096];
    char *argv[] = {"mw", "plot", "--kind", "trace", "--kind", "trace", NULL};
    assert_int_equal(run_captured(out, sizeof out, 6, argv), MW_EXIT_USAGE);
    assert_null(strstr(out, "twice"));
    assert_non_null(strstr(out, "missing RUNDIR"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unknown_command_exits_2),
        cmocka_unit_test(no_command_exits_2),
        cmocka_unit_test(unknown_option_exits_2),
        cmocka_unit_test(help_lists_every_command),
        cmocka_unit_test(every_command_has_help),
        cmocka_unit_test(version_prints_version),
        cmocka_unit_test(numbers_refused_naming_the_option),
        cmocka_unit_test(single_valued_options_once),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
