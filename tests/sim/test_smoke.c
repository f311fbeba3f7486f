/* Simulated-board smoke test: the real firmware ELF ($MW_FIRMWARE_ELF, default
 * build/firmware/megawatt.elf) runs for one simulated second as an atmega2560 at 16 MHz;
 * its UART0 output must contain a CRC-valid identification line. Fails if the firmware
 * prints nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc16.h"
#include "mw_sim.h"

typedef struct {
    char buf[8192];
    size_t n;
} capture;

static void sink(void *ctx, uint8_t b)
{
    capture *c = ctx;
    if (c->n < sizeof c->buf - 1) c->buf[c->n++] = (char)b;
    c->buf[c->n] = 0;
}

static const char *elf_path(void)
{
    const char *p = getenv("MW_FIRMWARE_ELF");
    return p ? p : "build/firmware/megawatt.elf";
}

static void boots_and_identifies(void **state)
{
    char err[256];
    mw_sim *sim = mw_sim_open(elf_path(), err, sizeof err);
    if (!sim) fail_msg("%s", err);
    capture cap = {.n = 0};
    mw_sim_set_uart_sink(sim, sink, &cap);
    assert_int_equal(mw_sim_run_ns(sim, 1000000000ull), 0);
    assert_true(mw_sim_cycles(sim) >= 16000000ull);
    mw_sim_close(sim);

    assert_true(cap.n > 0); /* the firmware printed something */
    char *line = strstr(cap.buf, "I,megawatt,");
    assert_non_null(line);
    char *star = strchr(line, '*');
    assert_non_null(star);
    unsigned crc = 0;
    assert_int_equal(sscanf(star + 1, "%4X", &crc), 1);
    assert_int_equal(crc, mw_crc16(line, (size_t)(star - line)));
}

static void missing_elf_is_a_clear_error(void **state)
{
    char err[256] = "";
    assert_null(mw_sim_open("/nonexistent/megawatt.elf", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/megawatt.elf"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(boots_and_identifies),
        cmocka_unit_test(missing_elf_is_a_clear_error),
    };
    return cmocka_run_group_tests_name("sim_smoke", tests, NULL, NULL);
}
