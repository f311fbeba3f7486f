/* Unit tests for the arguments of "mw vmeter" and "mw flash": every bad argument exits 2
 * with one line naming it, missing files exit 2 naming the file (bad input, docs/cli.md;
 * before any simulation or avrdude runs), and --help documents every option. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../capture.h"
#include "cli.h"

static int run(char *out, size_t outlen, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return mw_run_captured(out, outlen, argc, argv);
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
    expect(2, "--mains", (char *[]){"mw", "vmeter", "--mains", "230", NULL});
    expect(2, "--mains", (char *[]){"mw", "vmeter", "--mains", "230,500", NULL});
    expect(2, "--load", (char *[]){"mw", "vmeter", "--load", "A0=100", NULL});
    expect(2, "--load", (char *[]){"mw", "vmeter", "--load", "A1=abc", NULL});
    expect(2, "--load", (char *[]){"mw", "vmeter", "--load", "A1=100,1.5", NULL});
    expect(2, "--load", (char *[]){"mw", "vmeter", "--load", "A1=100,1,square", NULL});
    expect(2, "--load", (char *[]){"mw", "vmeter", "--load", "A1=1", "--load", "A1=2", NULL});
    expect(2, "--ppm", (char *[]){"mw", "vmeter", "--ppm", "5000", NULL});
    expect(2, "--noise", (char *[]){"mw", "vmeter", "--noise", "-1", NULL});
    expect(2, "--pf", (char *[]){"mw", "vmeter", "--pf", "0", NULL});
    expect(2, "--wave", (char *[]){"mw", "vmeter", "--wave", "tri", NULL});
    expect(2, "/nonexistent/p.csv",
           (char *[]){"mw", "vmeter", "--profile", "/nonexistent/p.csv", NULL});
}

/* The analog options reach the board: 120 V 60 Hz mains and a 500 W SMPS load on A1
 * (18 A peak, inside the 24 A full scale: no clipping). */
static void vmeter_analog_options(void **state)
{
    static char out[65536];
    const char *elf = getenv("MW_FIRMWARE_ELF");
    if (!elf || !*elf) elf = "build/firmware/megawatt.elf";
    int rc = run(out, sizeof out,
                 (char *[]){"mw", "vmeter", "--elf", (char *)elf, "--mains", "120,60", "--load",
                            "A1=500,0.8,smps", "--seconds", "0.8", "--stdout", NULL});
    assert_int_equal(rc, 0);
    const char *w = strstr(out, "W,1,"); /* the second window */
    assert_non_null(w);
    long seq, t0, t1, flags, sets, missed, clip, f_mhz, v_mv, p_mw;
    assert_int_equal(sscanf(w, "W,%ld,%ld,%ld,%lx,%ld,%ld,%lx,%ld,%ld;%ld", &seq, &t0, &t1, &flags,
                            &sets, &missed, &clip, &f_mhz, &v_mv, &p_mw),
                     10);
    assert_true(labs(f_mhz - 60000) < 20);
    assert_true(labs(v_mv - 120000) < 600);
    assert_int_equal(clip, 0);
    assert_true(labs(p_mw - 500000) < 5000);
}

static void vmeter_missing_files(void **state)
{
    expect(2, "/nonexistent/fw.elf",
           (char *[]){"mw", "vmeter", "--elf", "/nonexistent/fw.elf", "--seconds", "1", "--stdout",
                      NULL});
    const char *elf = getenv("MW_FIRMWARE_ELF");
    if (!elf || !*elf) elf = "build/firmware/megawatt.elf";
    expect(2, "/nonexistent/boot.hex",
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
    expect(2, "/nonexistent/fw.hex",
           (char *[]){"mw", "flash", "--port", "/dev/null", "/nonexistent/fw.hex", NULL});
}

static void help_documents_every_option(void **state)
{
    char out[8192];
    assert_int_equal(run(out, sizeof out, (char *[]){"mw", "vmeter", "--help", NULL}), 0);
    const char *v[] = {"--elf", "--link",   "--seconds", "--no-reset", "--bootloader",
                       "--hex", "--stdout", "--mains",   "--load",     "--profile",
                       "--pf",  "--wave",   "--ppm",     "--noise",    "--help"};
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
        cmocka_unit_test(vmeter_bad_arguments),  cmocka_unit_test(vmeter_missing_files),
        cmocka_unit_test(vmeter_analog_options), cmocka_unit_test(flash_bad_arguments),
        cmocka_unit_test(flash_missing_hex),     cmocka_unit_test(help_documents_every_option),
    };
    return cmocka_run_group_tests_name("cmd_args", tests, NULL, NULL);
}
