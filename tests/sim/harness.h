/* harness — helpers shared by the simulated-board tests: a board running the real
 * firmware ELF, its output split into CRC-checked lines by the host decoder, windows
 * parsed, and commands sent. Header-only (static) so each test binary stays one file. */
#ifndef MW_TEST_HARNESS_H
#define MW_TEST_HARNESS_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_proto.h"
#include "mw_sim.h"

#define H_MAX_WIN 512
#define H_MAX_LINES 64

typedef struct {
    mw_sim *sim;
    mw_proto_reader rd;
    mw_proto_window win[H_MAX_WIN];
    int nwin;
    char lines[H_MAX_LINES][MW_PROTO_MAX_LINE + 1]; /* non-window lines, in order */
    int nlines;
    int bad_windows;
} h_board;

static __attribute__((unused)) void h_sink(void *ctx, uint8_t b)
{
    h_board *h = ctx;
    if (!mw_proto_reader_push(&h->rd, b)) return;
    if (h->rd.line[0] == 'W') {
        if (h->nwin < H_MAX_WIN && mw_proto_parse_window(h->rd.line, &h->win[h->nwin]) == 0)
            h->nwin++;
        else if (h->nwin < H_MAX_WIN)
            h->bad_windows++;
    } else if (h->nlines < H_MAX_LINES) {
        snprintf(h->lines[h->nlines++], MW_PROTO_MAX_LINE + 1, "%s", h->rd.line);
    }
}

static __attribute__((unused)) const char *h_elf(const char *env, const char *dflt)
{
    const char *p = getenv(env);
    return p && *p ? p : dflt;
}

static __attribute__((unused)) h_board *h_open_elf(const char *elf)
{
    h_board *h = calloc(1, sizeof *h);
    assert_non_null(h);
    char err[512];
    h->sim = mw_sim_open(elf, err, sizeof err);
    if (!h->sim) fail_msg("%s", err);
    mw_proto_reader_init(&h->rd);
    mw_sim_set_uart_sink(h->sim, h_sink, h);
    return h;
}

static __attribute__((unused)) void h_run(h_board *h, double seconds)
{
    assert_int_equal(mw_sim_run_ns(h->sim, (uint64_t)(seconds * 1e9)), 0);
}

/* Run until the boot banner's identification line has arrived. */
static __attribute__((unused)) void h_wait_boot(h_board *h)
{
    for (int i = 0; i < 200; i++) {
        for (int j = 0; j < h->nlines; j++)
            if (!strncmp(h->lines[j], "I,", 2)) return;
        h_run(h, 0.005);
    }
    fail_msg("the firmware did not identify itself within 1 s");
}

static __attribute__((unused)) h_board *h_open(void)
{
    h_board *h = h_open_elf(h_elf("MW_FIRMWARE_ELF", "build/firmware/megawatt.elf"));
    h_wait_boot(h);
    return h;
}

static __attribute__((unused)) void h_close(h_board *h)
{
    mw_sim_close(h->sim);
    free(h);
}

/* Run until n more windows have arrived (or fail after `limit` simulated seconds). */
static __attribute__((unused)) void h_run_windows(h_board *h, int n, double limit)
{
    int target = h->nwin + n;
    double t = 0;
    while (h->nwin < target) {
        if (t > limit) fail_msg("only %d of %d windows after %.1f simulated s", h->nwin, target, t);
        h_run(h, 0.05);
        t += 0.05;
    }
}

/* Send a command and run until a reply line (not a window) arrives; returns it. */
static __attribute__((unused)) const char *h_cmd(h_board *h, const char *cmd)
{
    int before = h->nlines;
    char buf[2048];
    snprintf(buf, sizeof buf, "%s\r\n", cmd);
    assert_int_equal(mw_sim_uart_send(h->sim, buf, strlen(buf)), 0);
    for (int i = 0; i < 100 && h->nlines == before; i++)
        h_run(h, 0.01);
    if (h->nlines == before) fail_msg("no reply to '%s'", cmd);
    return h->lines[before];
}

/* Drop collected windows (e.g. after a reconfiguration). */
static __attribute__((unused)) void h_forget(h_board *h)
{
    h->nwin = 0;
}

#endif
