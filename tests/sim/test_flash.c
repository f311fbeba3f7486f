/* End-to-end flashing test: a simulated board fresh from the factory (application flash
 * erased, the genuine Arduino Mega stk500v2 bootloader in the boot section, BOOTRST on) is
 * served on a pseudo-terminal in real time by a second thread, with the Mega's DTR
 * auto-reset. "mw flash --port PTY build/firmware/megawatt.hex" then runs the real avrdude
 * through it (write and read-back verify) and waits for the meter to identify itself with
 * this mw's version. Afterwards the test checks on its own that the board sent a CRC-valid
 * identification line, that its flash now holds exactly the HEX file below the untouched
 * bootloader, and that the bytes really went through the bootloader (two resets: avrdude's
 * open and mw flash's; the host sent the image and received it back). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "flash_id.h"
#include "mw_simboot.h"
#include "mw_simpty.h"

typedef struct {
    pthread_mutex_t lock;
    char buf[1 << 16];
    size_t n;
} capture;

static void tap(void *ctx, uint8_t b)
{
    capture *c = ctx;
    pthread_mutex_lock(&c->lock);
    if (c->n < sizeof c->buf) c->buf[c->n++] = (char)b;
    pthread_mutex_unlock(&c->lock);
}

/* A CRC-valid identification line anywhere in what the board sent. */
static int find_id(capture *c, mw_flash_id *id)
{
    int found = 0;
    pthread_mutex_lock(&c->lock);
    size_t start = 0;
    for (size_t i = 0; i < c->n && !found; i++)
        if (c->buf[i] == '\n') {
            found = mw_flash_parse_id(c->buf + start, i - start, id) == 1;
            start = i + 1;
        }
    pthread_mutex_unlock(&c->lock);
    return found;
}

typedef struct {
    mw_simpty *pty;
    int rc;
} runner;

static void *run_board(void *arg)
{
    runner *r = arg;
    r->rc = mw_simpty_run(r->pty, 0);
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void flash_through_genuine_bootloader(void **state)
{
    const char *elf = getenv("MW_FIRMWARE_ELF");
    if (!elf || !*elf) elf = "build/firmware/megawatt.elf";
    char hex[4096];
    snprintf(hex, sizeof hex, "%s", elf);
    char *dot = strrchr(hex, '.');
    assert_non_null(dot);
    snprintf(dot, sizeof hex - (size_t)(dot - hex), ".hex");
    if (access(MW_SIMBOOT_STK500V2_HEX, R_OK) != 0)
        fail_msg("%s missing: install arduino-core-avr (make deps)", MW_SIMBOOT_STK500V2_HEX);
    if (access("/usr/bin/avrdude", X_OK) != 0)
        fail_msg("/usr/bin/avrdude missing: install avrdude (make deps)");

    char err[512];
    mw_sim *sim = mw_simboot_open(elf, MW_SIMBOOT_STK500V2_HEX, NULL, err, sizeof err);
    if (!sim) fail_msg("%s", err);
    /* factory state: nothing below the bootloader */
    uint8_t word0[2];
    assert_int_equal(mw_simboot_read_flash(sim, 0, word0, 2), 0);
    assert_int_equal(word0[0], 0xFF);
    assert_int_equal(word0[1], 0xFF);
    assert_int_equal(mw_simboot_compare_hex(sim, hex, NULL, err, sizeof err), 1);

    mw_simpty *pty = mw_simpty_open(sim, NULL, err, sizeof err);
    if (!pty) fail_msg("%s", err);
    mw_simpty_set_reset_on_open(pty, 1);
    capture *cap = calloc(1, sizeof *cap);
    assert_non_null(cap);
    pthread_mutex_init(&cap->lock, NULL);
    mw_simpty_set_tap(pty, tap, cap);
    runner r = {pty, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, run_board, &r), 0);

    char port[64];
    snprintf(port, sizeof port, "%s", mw_simpty_path(pty));
    char *argv[] = {"mw", "flash", "--port", port, hex, NULL};
    double t0 = now_s();
    int rc = mw_cli_main(5, argv);
    double t1 = now_s();

    /* the board's own account of what it sent, independent of mw flash */
    mw_flash_id id;
    int got = 0;
    for (int i = 0; i < 3000 && !(got = find_id(cap, &id)); i++) /* 30 s at most */
        usleep(10000);

    mw_simpty_request_stop(pty);
    pthread_join(th, NULL);
    mw_simpty_stats st;
    mw_simpty_get_stats(pty, &st);
    printf("# flash + identify: %.1f s wall; host->board %llu B, board->host %llu B, "
           "resets %llu, max lag %.1f ms, slips %llu\n",
           t1 - t0, (unsigned long long)st.to_board, (unsigned long long)st.from_board,
           (unsigned long long)st.resets, (double)st.max_lag_ns * 1e-6,
           (unsigned long long)st.lag_slips);

    assert_int_equal(rc, MW_EXIT_OK);
    assert_int_equal(r.rc, 0);
    assert_true(got);
    assert_string_equal(id.version, MW_VERSION);

    uint32_t diff = 0;
    int cmp = mw_simboot_compare_hex(sim, hex, &diff, err, sizeof err);
    if (cmp != 0)
        fail_msg("flash differs from %s at 0x%x (%s)", hex, (unsigned)diff, cmp < 0 ? err : "");
    assert_int_equal(mw_simboot_compare_hex(sim, MW_SIMBOOT_STK500V2_HEX, NULL, err, sizeof err),
                     0);
    long image = mw_simboot_parse_hex(hex, MW_SIMBOOT_ADDR, NULL, NULL, err, sizeof err);
    assert_true(image > 0);
    assert_true(st.resets >= 2);                  /* avrdude's open, then mw flash's */
    assert_true(st.to_board > (uint64_t)image);   /* the image went in ... */
    assert_true(st.from_board > (uint64_t)image); /* ... and came back for verify */
    assert_int_equal(st.dropped, 0);

    mw_simpty_close(pty);
    mw_sim_close(sim);
    pthread_mutex_destroy(&cap->lock);
    free(cap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flash_through_genuine_bootloader),
    };
    return cmocka_run_group_tests_name("sim_flash", tests, NULL, NULL);
}
