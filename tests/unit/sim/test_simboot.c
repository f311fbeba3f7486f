/* Unit tests for the Intel HEX reader of host/sim/simboot.c (mw_simboot_parse_hex): record
 * types 00-05, segment and linear base addresses, and the errors it must name (checksum,
 * bad digits, truncated files, data outside the flash). The genuine Mega bootloader, when
 * installed, must read as 5928 bytes starting at the boot section. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mw_simboot.h"

/* Append one record with a correct checksum (or a wrong one when bad_sum). */
static void record(FILE *f, uint8_t type, uint16_t addr, const uint8_t *data, uint8_t len,
                   int bad_sum)
{
    uint8_t sum = (uint8_t)(len + (addr >> 8) + (addr & 0xFF) + type);
    fprintf(f, ":%02X%04X%02X", len, addr, type);
    for (int i = 0; i < len; i++) {
        fprintf(f, "%02X", data[i]);
        sum = (uint8_t)(sum + data[i]);
    }
    fprintf(f, "%02X\r\n", (uint8_t)(-sum + (bad_sum ? 1 : 0)));
}

static char path[64];

static FILE *new_file(void)
{
    snprintf(path, sizeof path, "/tmp/mw-simboot-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    return f;
}

typedef struct {
    uint32_t addr[8];
    size_t len[8];
    int n;
} seen;

static int collect(void *ctx, uint32_t addr, const uint8_t *data, size_t len)
{
    seen *s = ctx;
    if (s->n < 8) {
        s->addr[s->n] = addr;
        s->len[s->n] = len;
        s->n++;
    }
    return 0;
}

static void base_addresses(void **state)
{
    FILE *f = new_file();
    uint8_t d[4] = {1, 2, 3, 4}, seg[2] = {0x30, 0x00}, lin[2] = {0x00, 0x02};
    record(f, 0x00, 0x0010, d, 4, 0);
    record(f, 0x02, 0x0000, seg, 2, 0); /* 0x3000 * 16 = 0x30000 */
    record(f, 0x00, 0xE000, d, 2, 0);
    record(f, 0x03, 0x0000, d, 4, 0);   /* start address: ignored */
    record(f, 0x04, 0x0000, lin, 2, 0); /* 0x0002 << 16 = 0x20000 */
    record(f, 0x00, 0x0100, d, 3, 0);
    record(f, 0x05, 0x0000, d, 4, 0);
    record(f, 0x01, 0x0000, NULL, 0, 0);
    fclose(f);
    seen s = {.n = 0};
    char err[256];
    assert_int_equal(
        mw_simboot_parse_hex(path, MW_SIMBOOT_FLASH_SIZE, collect, &s, err, sizeof err), 9);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.addr[0], 0x10);
    assert_int_equal(s.addr[1], 0x3E000);
    assert_int_equal(s.len[1], 2);
    assert_int_equal(s.addr[2], 0x20100);
    unlink(path);
}

static void expect_error(const char *what)
{
    char err[256] = "";
    assert_int_equal(mw_simboot_parse_hex(path, MW_SIMBOOT_FLASH_SIZE, NULL, NULL, err, sizeof err),
                     -1);
    if (!strstr(err, what)) fail_msg("error '%s' does not say '%s'", err, what);
    assert_non_null(strstr(err, path));
    unlink(path);
}

static void checksum_error_names_line(void **state)
{
    FILE *f = new_file();
    uint8_t d[2] = {0xAA, 0x55};
    record(f, 0x00, 0, d, 2, 0);
    record(f, 0x00, 2, d, 2, 1);
    record(f, 0x01, 0, NULL, 0, 0);
    fclose(f);
    expect_error(":2: checksum error");
}

static void bad_digit(void **state)
{
    FILE *f = new_file();
    fputs(":02000000ZZ0000\n:00000001FF\n", f);
    fclose(f);
    expect_error(":1: bad hex digit");
}

static void length_mismatch(void **state)
{
    FILE *f = new_file();
    fputs(":0400000001020304F2\n:0300000001020304F2\n", f);
    fclose(f);
    expect_error(":2: record length");
}

static void truncated_file(void **state)
{
    FILE *f = new_file();
    uint8_t d[2] = {1, 2};
    record(f, 0x00, 0, d, 2, 0);
    fclose(f);
    expect_error("no end-of-file record");
}

static void outside_flash(void **state)
{
    FILE *f = new_file();
    uint8_t d[2] = {1, 2}, lin[2] = {0x00, 0x04};
    record(f, 0x04, 0, lin, 2, 0); /* 0x40000: past the ATmega2560's 256 KiB */
    record(f, 0x00, 0, d, 2, 0);
    record(f, 0x01, 0, NULL, 0, 0);
    fclose(f);
    expect_error("outside");
}

static void missing_file(void **state)
{
    char err[256] = "";
    assert_int_equal(mw_simboot_parse_hex("/nonexistent/x.hex", 100, NULL, NULL, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "/nonexistent/x.hex"));
}

static void genuine_bootloader(void **state)
{
    if (access(MW_SIMBOOT_STK500V2_HEX, R_OK) != 0) skip();
    seen s = {.n = 0};
    char err[256];
    long n = mw_simboot_parse_hex(MW_SIMBOOT_STK500V2_HEX, MW_SIMBOOT_FLASH_SIZE, collect, &s, err,
                                  sizeof err);
    assert_true(n > 0);
    assert_true(n <= (long)(MW_SIMBOOT_FLASH_SIZE - MW_SIMBOOT_ADDR));
    assert_int_equal(s.addr[0], MW_SIMBOOT_ADDR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(base_addresses), cmocka_unit_test(checksum_error_names_line),
        cmocka_unit_test(bad_digit),      cmocka_unit_test(length_mismatch),
        cmocka_unit_test(truncated_file), cmocka_unit_test(outside_flash),
        cmocka_unit_test(missing_file),   cmocka_unit_test(genuine_bootloader),
    };
    return cmocka_run_group_tests_name("simboot", tests, NULL, NULL);
}
