/* sampler — the ADC in free-running mode and its interrupt (integer sums only).
 *
 * Free-running pipeline (ATmega2560 datasheet, "Changing Channel or Reference Selection"):
 * when the interrupt for conversion j runs, conversion j+1 has already started with the
 * mux latched at its start, so the ISR writes the mux for conversion j+2. The ISR tracks
 * which channel each conversion really used, so that a late ISR (a missed conversion,
 * detected with Timer1) can never mislabel a sample: the sequence is resynchronised at
 * the next voltage sample and the window is flagged with the number of conversions lost.
 * Channels A8..A15 need ADCSRB.MUX5 as well as ADMUX. A set of conversions is the voltage,
 * one dummy conversion of the internal 0 V input (against aliasing and the sample-and-hold
 * kick; not summed), then each current channel: MW_SET_CONV(nchan_i) = nchan_i + 2.
 *
 * Windows: three buffers rotate between the ISR (current window; the closing window, which
 * still receives the products of its last two sets with the next two voltage samples) and
 * the main loop (ready / being read), so the main loop never has to block interrupts to
 * copy a window; buffers are cleared by the main loop on release, never in the ISR. */
#ifndef MW_SAMPLER_H
#define MW_SAMPLER_H
#include <stdint.h>

#include "sums.h"

/* (Re)start sampling: pins[0] voltage, pins[1..nchan_i] currents, windows of period_us.
 * The conversion counter (meter time) restarts at 0. */
void sampler_start(const uint8_t *pins, uint8_t nchan_i, uint32_t period_us);
/* If a window is ready, return a pointer to it (valid until sampler_release). */
const mw_sums *sampler_take(void);
void sampler_release(void);
/* The fundamental's reference for the next windows (fund.h: mw_fund_setup). */
void sampler_set_fund(const mw_fund_ref *r);
/* Crossing threshold for the next windows (mean voltage sample, code - 512). */
void sampler_set_vthreshold(int16_t thr);
/* Windows that were dropped because the main loop did not take them in time. */
uint16_t sampler_lost_windows(void);
/* The conversion counter: conversions completed since sampling (re)started, i.e. meter
 * time / MW_CONV_US of the conversion now running (read atomically). */
uint32_t sampler_conversions(void);
/* Has conversion `conv` started (meter time conv x MW_CONV_US)? Returns 1 once it has, or
 * when it is one conversion away: then it busy-waits on Timer1 until just before that
 * conversion starts (at most 104 us, so that what the caller does next, e.g. start a UART
 * transfer, happens at that instant rather than after the ADC interrupt that marks it);
 * 0 while it is further away. A conversion in the past returns 1 at once. */
uint8_t sampler_reached(uint32_t conv);
#endif
