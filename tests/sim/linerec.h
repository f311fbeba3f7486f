/* linerec — shared by the alignment test and benchmark: the simulated board's W lines
 * captured as they leave its UART, each with the true time of its window's end (from the
 * ADC's sample instants), of its first and last byte, its line hold and length. Header-only
 * (static), included after harness.h. */
#ifndef MW_TEST_LINEREC_H
#define MW_TEST_LINEREC_H
#include <math.h>

/* simavr 1.6's UART sends a byte every 1e6 / (117647 / 11) = 93 us (truncated): it counts a
 * parity bit that 8N1 has not, and has no second transmit buffer, so each byte also waits for
 * the transmit interrupt, now and then behind the ADC's: 93.5 us on average, measured here.
 * The real UART takes 85 us (10 bits, back to back). */
#define SIM_BYTE_NS 93500LL
#define SAMPLE_DELAY_CYCLES 192.0 /* 1.5 ADC clocks of 128 cycles */

typedef struct {
    uint64_t t1_us;
    int64_t true_end_ns; /* true time of the window's end */
    int64_t first_ns;    /* true time its line's first byte left */
    int64_t last_ns;     /* ... and its last byte */
    int64_t hold_ns;     /* the line hold the protocol gives it (mw_proto_hold_ns) */
    size_t bytes;        /* line length including "*XXXX\r\n" */
    int first;           /* FIRST flag: meter time restarted */
} rec;

typedef struct {
    mw_sim *sim;
    double ppm;
    mw_proto_reader rd;
    mw_proto_window w;
    int pending, nbytes;
    int64_t first_ns;
    rec *r;
    int n, cap;
} recorder;

static __attribute__((unused)) void rec_sink(void *ctx, uint8_t b)
{
    recorder *R = ctx;
    int64_t now = (int64_t)mw_sim_time_ns(R->sim);
    if (R->nbytes++ == 0) R->first_ns = now;
    if (mw_proto_reader_push(&R->rd, b) && R->rd.line[0] == 'W')
        R->pending = mw_proto_parse_window(R->rd.line, &R->w) == 0;
    if (b != '\n') return;
    if (R->pending && R->n < R->cap) {
        rec *q = &R->r[R->n++];
        q->t1_us = R->w.t1_us;
        double start_s = mw_sim_adc_sample_time(R->sim, R->w.t1_us / 104) -
                         SAMPLE_DELAY_CYCLES / (16e6 * (1 + R->ppm * 1e-6));
        q->true_end_ns = (int64_t)llround(start_s * 1e9);
        q->first_ns = R->first_ns;
        q->last_ns = now;
        q->hold_ns = mw_proto_hold_ns(&R->w);
        q->bytes = (size_t)R->nbytes;
        q->first = (R->w.flags & MW_FLAG_FIRST) != 0;
    }
    R->pending = 0;
    R->nbytes = 0;
}

/* A node alternating between idle (180 W) and busy (420 W) every 3.7 s. */
static __attribute__((unused)) double stepping(void *ctx, int pin, uint64_t t_ns)
{
    return (t_ns / 3700000000ull) % 2 ? 420.0 : 180.0;
}
/* A recorder for up to `seconds` of lines of a board with crystal error ppm, attached to
 * the board's UART (and its crystal set to ppm). */
static __attribute__((unused)) recorder *recorder_new(mw_sim *sim, double ppm, double seconds)
{
    recorder *R = calloc(1, sizeof *R);
    assert_non_null(R);
    R->cap = (int)(seconds * 10) + 64;
    R->r = calloc((size_t)R->cap, sizeof *R->r);
    assert_non_null(R->r);
    R->sim = sim;
    R->ppm = ppm;
    mw_proto_reader_init(&R->rd);
    mw_sim_set_crystal_ppm(sim, ppm);
    mw_sim_set_uart_sink(sim, rec_sink, R);
    return R;
}
#endif
