/* sampler — the ADC in free-running mode and its interrupt (integer sums only).
 *
 * Free-running pipeline (ATmega2560 datasheet, "Changing Channel or Reference Selection"):
 * when the interrupt for conversion j runs, conversion j+1 has already started with the
 * mux latched at its start, so the ISR writes the mux for conversion j+2. The ISR tracks
 * which channel each conversion really used, so that a late ISR (a missed conversion,
 * detected with Timer1) can never mislabel a sample: the sequence is resynchronised at
 * the next voltage sample and the window is flagged with the number of conversions lost.
 * Channels A8..A15 need ADCSRB.MUX5 as well as ADMUX.
 *
 * Windows: three buffers rotate between the ISR (current window; the closing window,
 * which still receives the products of its last set with the next voltage sample) and
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
/* Crossing threshold for the next windows (mean voltage sample, code - 512). */
void sampler_set_vthreshold(int16_t thr);
/* Windows that were dropped because the main loop did not take them in time. */
uint16_t sampler_lost_windows(void);
#endif
