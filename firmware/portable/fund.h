/* fund — the phase of the mains fundamental in each half of a window: the frequency.
 *
 * Why not the crossings alone: a crossing timed linearly between the two voltage samples
 * around it (728 us apart with 1 V + 5 I, 1,768 us with 1 V + 15 I) is off by an amount
 * that depends on where between the samples it falls and, with harmonics, is far from
 * zero (the waveform is no line there: with 8 % THD opposite the fundamental its slope at
 * the crossing is 0.35 of the fundamental's). The true crossings are exactly periodic, but
 * the sampling phase at successive crossings drifts slowly (27.47 sets per cycle at 60 Hz:
 * the phase alternates and drifts by 0.03 set per cycle), so over the 12-15 cycles of a
 * window the errors do not average out: they form a slope, up to 4 mHz (1 V + 5 I) and 11
 * mHz (1 V + 15 I) with 8 % THD and no noise in the host model (tests/unit/firmware/
 * test_fund.c), the same as measured (docs/firmware.md, "Frequency").
 *
 * What instead: every voltage sample of the window's first and of its second half (h sets
 * each) is weighted by a Hann window and multiplied by exp(-i 2 pi f_ref t) at a reference
 * frequency f_ref (the last one measured), and summed (the ISR: three 16 x 16 products, a
 * sine table in flash). From the first half's sum to the second's the fundamental's phase
 * advances by 2 pi (f - f_ref) h T (T the set interval), so f = f_ref + that / (2 pi h T);
 * the sums' symmetric windows put each phase at its half's centre, h sets apart. A Hann
 * window lets the image at -f and the harmonics (aliased or not) leak into a sum by < 1e-4
 * once a half spans 3 or more cycles (4 windows/s and slower); it is used from 2 cycles
 * per half (10 windows/s at 45 Hz: 8-24 mHz with 8 % THD in the host model, the crossings
 * 7-87 mHz). The metrology keeps the crossings' figure where it is not measured or where
 * the two disagree by 0.25 Hz or more. The reference is a phase step dp per set in 1/8192 cycle
 * (0.17 Hz steps at 1 V + 5 I: f_ref need not be near f, only known); the sine table has 4096
 * entries (with 1024, the host model's error grew from 0.14-0.30 to 0.28-0.44 mHz rms). The ISR
 * does this in the dummy conversion's interrupt, which had nothing else to do (sampler.c). */
#ifndef MW_FUND_H
#define MW_FUND_H
#include <stdint.h>

#ifdef __AVR__
#include <avr/pgmspace.h>
#define MW_PROGMEM PROGMEM
#define MW_FUND_READ(off) ((int16_t)pgm_read_word((const uint8_t *)mw_fund_sin + (off)))
#else
#define MW_PROGMEM
#define MW_FUND_READ(off) (mw_fund_sin[(off) >> 1])
#endif
/* a x b, signed 16 x 16 -> 32 bits; the ISR defines it as its inline multiply first */
#ifndef MW_FUND_MUL
#define MW_FUND_MUL(a, b) ((int32_t)(a) * (int32_t)(b))
#endif

#define MW_FUND_TAB 4096u
/* The reference's phase in 1/8192 cycle, so that the table's byte offset is the phase with
 * its lowest bit cleared (no shift in the ISR); a quarter cycle is 2048. */
#define MW_FUND_CYCLE 8192u
#define MW_FUND_OFF(ph) ((uint16_t)((ph) & (MW_FUND_CYCLE - 2u)))
#define MW_FUND_QUARTER (MW_FUND_CYCLE / 4u)
extern const int16_t mw_fund_sin[MW_FUND_TAB] MW_PROGMEM;

/* The reference of one window, latched by the ISR when the window opens (h = 0: none). */
typedef struct {
    uint16_t dp;  /* reference phase per set, MW_FUND_CYCLE = one cycle */
    uint16_t dhp; /* Hann phase per set, 65536 / h (65536 = one half window) */
    uint16_t h;   /* sets per half; 0: not measured */
} mw_fund_ref;

/* The ISR's running state: the reference's phase and the Hann window's. */
typedef struct {
    mw_fund_ref ref;
    uint16_t ph, hp;
} mw_fund;

/* Voltage sample x (code - 512) of set s (0 = the window's first) into the halves' sums
 * z[0..1] (first half: real, imaginary) and z[2..3] (second half). */
static inline __attribute__((always_inline)) void mw_fund_sample(mw_fund *f, int32_t *z, uint16_t s,
                                                                 int16_t x)
{
    uint16_t ph = (uint16_t)((f->ph + f->ref.dp) & (MW_FUND_CYCLE - 1u));
    f->ph = ph;
    uint16_t h = f->ref.h;
    if (s >= (uint16_t)(h << 1)) return;
    if (s >= h) {
        z += 2;
        if (s == h) f->hp = 0;
    }
    uint16_t hp = f->hp;
    f->hp = (uint16_t)(hp + f->ref.dhp);
    /* the Hann weight (1 - cos) / 2 in Q14, 0..16383, from the same table; unsigned, as
     * 32767 - cos reaches 65534 (the AVR's int has 16 bits) */
    uint16_t ho = MW_FUND_OFF((hp >> 3) + MW_FUND_QUARTER);
    int16_t hw = (int16_t)((uint16_t)(32767u - (uint16_t)MW_FUND_READ(ho)) >> 2);
    int16_t xw = (int16_t)(MW_FUND_MUL(x, hw) >> 8); /* |xw| <= 32766 */
    int16_t c = MW_FUND_READ(MW_FUND_OFF(ph + MW_FUND_QUARTER));
    int16_t sn = MW_FUND_READ(MW_FUND_OFF(ph));
    z[0] += (int16_t)(MW_FUND_MUL(xw, c) >> 16);
    z[1] -= (int16_t)(MW_FUND_MUL(xw, sn) >> 16);
}

/* The reference for windows of period_us with nchan_i current channels at mains
 * frequency hz (the last measured): h = (sets per window - 1) / 2, so both halves fit in
 * every window; h = 0 (not measured) when a half would span fewer than MW_FUND_MIN_CYCLES (2)
 * cycles. */
void mw_fund_setup(mw_fund_ref *r, float hz, uint8_t nchan_i, uint32_t period_us);

/* The window's frequency from its halves' sums (z as above, ref as latched, nsets its
 * sets, m conversions per set); 0 when not measured, else 1 and *hz. */
uint8_t mw_fund_freq(const mw_fund_ref *ref, const int32_t *z, uint16_t nsets, uint8_t m,
                     float *hz);

#endif
