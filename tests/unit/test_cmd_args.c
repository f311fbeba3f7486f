/* Unit tests for the arguments of "mw vmeter" and "mw flash": every bad argument exits 2
 * with one line naming it, missing files exit 1 naming the file (before any simulation
 * or avrdude runs), and --help documents every option. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Run mw_cli_main with stdout and stderr captured into one buffer. */
static int run(char *out, size_t outlen, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    fflush(stdout);
    fflush(stderr);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int so = dup(1), se = dup(2);
    dup2(fileno(tmp), 1);
    dup2(fileno(tmp), 2);
    int rc = mw_cli_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    rewind(tmp);
    size_t n = fread(out, 1, outlen - 1, tmp);
    out[n] = 0;
    fclose(tmp);
    return rc;
}

static void expect(int code, const char *needle, char **argv)
{
    char out[8192];
    int rc = run(out, sizeof out, argv);
    if (rc != code || !strstr(out, needle))
        fail_msg("mw %s %s...: exit %d (want %d), output '%s' (want '%s')", argv[1],
                 argv[2] ? argv[2] : "", rc, code, out, needle);
    if (code != 0) /* one line */
        assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
}

static void vmeter_bad_arguments(void **state)
{
    expect(2, "--seconds", (char *[]){"mw", "vmeter", "--seconds", "abc", NULL});
    expect(2, "--seconds", (char *[]){"mw", "vmeter", "--seconds", "-1", NULL});
    expect(2, "--stdout", (char *[]){"mw", "vmeter", "--stdout", NULL});
    expect(2, "--frob", (char *[]){"mw", "vmeter", "--frob", NULL});
    expect(2, "--elf", (char *[]){"mw", "vmeter", "--elf", NULL});
    expect(2, "extra", (char *[]){"mw", "vmeter", "extra", NULL});
    expect(2, "--link",
           (char *[]){"mw", "vmeter", "--link", "/tmp/x", "--seconds", "1", "--stdout", NULL});
}

static void vmeter_missing_files(void **state)
{
    expect(1, "/nonexistent/fw.elf",
           (char *[]){"mw", "vmeter", "--elf", "/nonexistent/fw.elf", "--seconds", "1", "--stdout",
                      NULL});
    const char *elf = getenv("MW_FIRMWARE_ELF");
    if (!elf || !*elf) elf = "build/firmware/megawatt.elf";
    expect(1, "/nonexistent/boot.hex",
           (char *[]){"mw", "vmeter", "--elf", (char *)elf, "--bootloader", "/nonexistent/boot.hex",
                      "--seconds", "1", "--stdout", NULL});
}

static void flash_bad_arguments(void **state)
{
    expect(2, "--timeout", (char *[]){"mw", "flash", "--timeout", "0", NULL});
    expect(2, "--port", (char *[]){"mw", "flash", "--port", NULL});
    expect(2, "b.hex", (char *[]){"mw", "flash", "a.hex", "b.hex", NULL});
    expect(2, "--frob", (char *[]){"mw", "flash", "--frob", NULL});
    expect(2, "':'", (char *[]){"mw", "flash", "--port", "/dev/null", "a:b.hex", NULL});
}

static void flash_missing_hex(void **state)
{
    expect(1, "/nonexistent/fw.hex",
           (char *[]){"mw", "flash", "--port", "/dev/null", "/nonexistent/fw.hex", NULL});
}

static void help_documents_every_option(void **state)
{
    char out[8192];
    assert_int_equal(run(out, sizeof out, (char *[]){"mw", "vmeter", "--help", NULL}), 0);
    const char *v[] = {"--elf",        "--link", "--seconds", "--no-reset",
                       "--bootloader", "--hex",  "--stdout",  "--help"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        assert_non_null(strstr(out, v[i]));
    assert_int_equal(run(out, sizeof out, (char *[]){"mw", "flash", "--help", NULL}), 0);
    const char *f[] = {"--port", "--timeout", "--no-verify", "--verbose", "HEX", "--help"};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        assert_non_null(strstr(out, f[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vmeter_bad_arguments),        cmocka_unit_test(vmeter_missing_files),
        cmocka_unit_test(flash_bad_arguments),         cmocka_unit_test(flash_missing_hex),
        cmocka_unit_test(help_documents_every_option),
    };
    return cmocka_run_group_tests_name("cmd_args", tests, NULL, NULL);
}
