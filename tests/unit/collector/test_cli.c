/* Unit tests for the mw command's dispatch (collector/cli.c): exit codes and messages. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unknown_command_exits_2), cmocka_unit_test(no_command_exits_2),
        cmocka_unit_test(unknown_option_exits_2),  cmocka_unit_test(help_lists_every_command),
        cmocka_unit_test(every_command_has_help),  cmocka_unit_test(version_prints_version),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
