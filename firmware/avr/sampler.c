/* sampler — see sampler.h. Everything shared with the main loop is volatile; the
 * 8-bit buffer indices are read and written atomically by the hardware. */
#include <stdint.h>
/* the fundamental's products (fund.h) with the ISR's inline multiply (below) */
static inline __attribute__((always_inline)) int32_t mul16s(int16_t a, int16_t b);
#define MW_FUND_MUL(a, b) mul16s((a), (b))
#include "sampler.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <stddef.h>
#include <string.h>
#include <util/atomic.h>
#include <util/delay.h>

#include "afe.h"
#include "schedule.h"

#define CONV_TICKS (MW_CONV_CYCLES / 64u) /* Timer1 at clk/64: 26 ticks per conversion */
#define MISS_TICKS (CONV_TICKS + CONV_TICKS / 2u)
#define HYST 8 /* counts below the threshold before a rising crossing is armed */
#define NBUF 3
#define NONE 0xFF
/* The ADC's reference (afe.h): revision B's 4.096 V on AREF (REFS1:0 = 00), revision A's AVCC
 * (REFS1:0 = 01). Never AVCC on a board with a reference on AREF: the ADC would connect
 * AVCC to AREF internally and short the reference (datasheet, "ADC Voltage Reference"). */
#if MW_BOARD_REV == 'B'
#define ADC_REFS 0u
#else
#define ADC_REFS _BV(REFS0)
#endif

/* A set is m = nchan_i + 2 conversions: position 0 the voltage, position 1 a dummy
 * conversion of the internal 0 V input (MUX5:0 = 011111), positions 2 .. m - 1 current
 * channels 1 .. nchan_i. The dummy makes the set one conversion longer, which moves the
 * aliasing of the mains' harmonic products away from DC (16 channels: the 1 Hz beat of
 * sets of 16 against 600 Hz becomes sets of 17; docs/firmware.md, "Sampling schemes
 * against aliasing"), and it takes the sample-and-hold kick of the voltage channel, which
 * would otherwise leak into the first current channel (its own kick, from 0 V, is a DC
 * offset that the metrology removes). Its ISR advances the mux and adds the set's voltage
 * sample to the fundamental's sums (fund.h), which the voltage's own ISR, the longest, has
 * no room for. */
#define POS_DUMMY 1u
#define ADMUX_0V 0x1Fu /* MUX4:0 = 11111 with MUX5 = 0: 0 V (GND) */
static uint8_t admux_of[MW_MAX_CHANNELS + 1], mux5_of[MW_MAX_CHANNELS + 1];
static uint8_t m, mlast; /* conversions per set (nchan_i + 2), the last channel (nchan_i) */
static uint8_t lat_pos, wr_pos, expect; /* in-flight, written-to-mux, next wanted */
/* resync: bit 0 (RESYNC) set after a missed conversion, until the next set begins; bit 1
 * (TAPS8) in sets of at most MW_SET8_MAX_CONV conversions, so that the ISR tests one byte
 * for both and the 16-channel path pays nothing for the eight taps */
#define RESYNC 1u
#define TAPS8 2u
static uint8_t resync, first_isr;
static uint16_t last_tick;
static volatile uint32_t conv; /* conversions completed since start (meter time / 104 us) */
/* History for the lagged products: vh[j] = v(t - j) of the set t now running, ih[j][k] =
 * i_k(t - 1 - j); hist = complete sets in a row before t (saturated), so a product with a
 * lag beyond hist is left out (after a start or resync) together with its voltage sum */
#define NVH 2 /* -MW_LAG6_LO: the earliest voltage sample a current sample needs ... */
static int16_t vh[NVH + 1];
/* ... but with eight taps, v(t - 3): copied from vh[2] when set t - 1 is complete (by
 * current_sample8, so that the voltage's ISR spends nothing on it) */
static int16_t vh3;
static int16_t s8_i3; /* current_sample8's i(t - 3) and ... */
static uint8_t s8_h;  /* ... hist, across current_sample */
typedef struct {
    int16_t i1, i2, i3, i4; /* i(t - 1) .. i(t - 4): 8 bytes, its address is a shift */
} ihist;
static ihist ih[MW_MAX_CHANNELS]; /* by channel (1..15): ih[0] unused */
_Static_assert(sizeof(ihist) == 8 && MW_MAX_CHANNELS <= 16, "current_sample's history offset");
static uint8_t hist;
/* the outer lags (-2 and +3) in sets of at most MW_SET6_MAX_CONV conversions, and -3 and
 * +4 in sets of at most MW_SET8_MAX_CONV (sums.h); lag_hi: the latest lag summed, the sets
 * of the next window a closing one waits for */
static uint8_t taps6, taps8, lag_hi;
static uint8_t nset_cur; /* sets begun in the window being filled (saturated at 255) */
static mw_sums *wlag[MW_LAG_HI + 1]; /* wlag[j]: the window of set t - j (j >= 1) */
_Static_assert(MW_LAG_LO == -3 && MW_LAG_HI == 4 && MW_LAG6_LO == -2,
               "the ISR is written for lags -3..4");
#define LAG(j) ((j) - MW_LAG6_LO) /* the index of lag j (-2..3) in svl[] and svi[] */
static int16_t prev_x;
static uint8_t armed, armed_f; /* a rising, a falling crossing may come */
static uint8_t snap; /* 0, 1: snapshot x1 in this set's current slots, 2: x0 and x1 */
static volatile int16_t vthr; /* set by the main loop */
static volatile mw_fund_ref vfref; /* the fundamental's reference, set by the main loop */
static mw_fund fund;           /* ... and the ISR's, latched per window (fund.h) */
static int16_t thr;           /* the crossing threshold of the window being filled */
static mw_schedule sched;
static uint32_t wseq;

static mw_sums bufs[NBUF];
static uint8_t cur, tail;             /* ISR's buffers */
static mw_sums *wcur;                 /* &bufs[cur], kept so the ISR need not compute it */
static volatile uint8_t ready = NONE; /* published, not yet taken */
static volatile uint8_t held = NONE;  /* being read by the main loop */
static volatile uint16_t lost;

static uint8_t free_buffer(void)
{
    for (uint8_t b = 0; b < NBUF; b++)
        if (b != cur && b != tail && b != ready && b != held) return b;
    return NONE;
}

static void publish(uint8_t b)
{
    if (ready != NONE) {
        lost++; /* the main loop missed a whole window: the older one is dropped */
        memset(&bufs[ready], 0, sizeof bufs[0]); /* rare: freed here, so cleared here */
    }
    ready = b;
}

void sampler_start(const uint8_t *pins, uint8_t nchan_i, uint32_t period_us)
{
    ADCSRA = 0; /* stop: no conversion, no interrupt */
    ADCSRA |= _BV(ADIF);
    for (uint8_t c = 0; c <= nchan_i; c++) { /* channel c at position c + (c > 0) */
        uint8_t pos = (uint8_t)(c ? MW_SET_POS(c - 1u) : 0u);
        admux_of[pos] = (uint8_t)(ADC_REFS | (pins[c] & 7u));
        mux5_of[pos] = (uint8_t)(pins[c] >= 8 ? _BV(MUX5) : 0);
    }
    admux_of[POS_DUMMY] = (uint8_t)(ADC_REFS | ADMUX_0V);
    mux5_of[POS_DUMMY] = 0;
    m = (uint8_t)MW_SET_CONV(nchan_i);
    mlast = nchan_i;
    taps6 = MW_NTAPS(m) >= 6;
    taps8 = MW_NTAPS(m) == 8;
    lag_hi = taps8 ? 4u : taps6 ? 3u : 2u;
    conv = 0;
    wseq = 0;
    resync = taps8 ? TAPS8 : 0;
    hist = 0;
    nset_cur = 0;
    armed = 0;
    armed_f = 0;
    snap = 0;
    prev_x = 0;
    thr = vthr;
    /* no reference until the main loop sets one for this map (sampler_set_fund) */
    vfref.dp = 0;
    vfref.dhp = 0;
    vfref.h = 0;
    memset(&fund, 0, sizeof fund);
    first_isr = 1;
    cur = 0;
    wcur = &bufs[0];
    tail = NONE;
    ready = NONE;
    held = NONE;
    memset(bufs, 0, sizeof bufs);
    mw_schedule_init(&sched, period_us, 0);

    /* conversion 0 uses position 0; position 1 is latched when conversion 1 starts */
    ADCSRB = mux5_of[0]; /* ADTS = 0: free running */
    ADMUX = admux_of[0];
    DIDR0 = 0xFF; /* digital input buffers off on the analog pins */
    DIDR2 = 0xFF;
    /* Timer1 free-running at clk/64, to time-stamp interrupts and to time the line hold:
     * restarted from 0 with its prescaler together with the ADC, so that its ticks keep a
     * fixed phase with the conversions (see sampler_reached) */
    TCCR1A = 0;
    TCCR1B = 0;
    GTCCR = _BV(PSRSYNC);
    TCNT1 = 0;
    TCCR1B = _BV(CS11) | _BV(CS10);
    ADCSRA = _BV(ADEN) | _BV(ADATE) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0) | _BV(ADSC);
    /* the datasheet forbids changing the mux in the first ADC clock after ADSC */
    _delay_us(20);
    lat_pos = 0;
    wr_pos = 1; /* m >= 2 */
    ADCSRB = mux5_of[wr_pos];
    ADMUX = admux_of[wr_pos];
    expect = 0;
    last_tick = TCNT1;
}

/* The ISR's parts, inlined into it (always_inline: the same code as one function, so the
 * same timing; checked by comparing its disassembly). */
#define ISR_PART static inline __attribute__((always_inline))

/* Conversion idx (a voltage sample) opens a new window: the one being filled is handed
 * over (as the tail: the products of its last lag_hi sets with the next voltage samples
 * are still to come, unless the history was reset) and the next begun, or, when the main
 * loop holds every buffer, dropped. Returns the buffer now being filled. */
ISR_PART mw_sums *open_window(mw_sums *w, uint32_t idx)
{
    uint8_t nb = free_buffer();
    if (nb == NONE) { /* the main loop holds everything: drop this window */
        lost++;
        uint32_t s = w->seq;
        memset(w, 0, sizeof *w);
        w->seq = s + 1u;
        wseq++;
        w->conv0 = idx;
        hist = 0; /* the dropped sets' lagged products must not land in the new window */
    } else {
        w->conv1 = idx;
        if (tail != NONE) /* previous tail never completed (windows are longer) */
            publish(tail);
        tail = cur;
        if (!hist) { /* no lagged product will come */
            publish(tail);
            tail = NONE;
        }
        cur = nb;
        w = &bufs[cur]; /* free buffers are already zero (sampler_release) */
        wcur = w;
        w->seq = ++wseq;
        w->conv0 = idx;
    }
    nset_cur = 0;
    thr = vthr; /* one threshold for all of this window's crossings */
    /* and one reference for its fundamental's phase (field by field: a struct copy
     * compiles to two byte loops here) */
    uint16_t dp = vfref.dp, dhp = vfref.dhp, fh = vfref.h;
    fund.ref.dp = dp;
    fund.ref.dhp = dhp;
    fund.ref.h = fh;
    fund.hp = 0;
    w->fref.dp = dp;
    w->fref.dhp = dhp;
    w->fref.h = fh;
    mw_schedule_next(&sched);
    return w;
}

/* A crossing between the samples lo (before) and hi, |lo| + |hi| = den apart: its instant
 * in 1/256 set (a 16-bit division, on two ISRs per mains cycle) into the edge's sums. */
ISR_PART void edge(mw_edges *e, uint16_t s, uint16_t num, uint16_t den)
{
    while (den > 255u) {
        num >>= 1;
        den >>= 1;
    }
    uint32_t t = ((uint32_t)s << 8) + (uint16_t)((num << 8) / den);
    uint8_t c = e->n;
    if (!c) e->t0 = t;
    t -= e->t0;
    e->st += t;
    e->sct += t * c;
    e->n = (uint8_t)(c + 1u);
}

/* The voltage sample x, just before this set of w, against the window's threshold. */
ISR_PART void crossing(mw_sums *w, int16_t x)
{
    int16_t rel = x - thr, prev_rel = prev_x - thr;
    uint16_t s = w->nsets;
    if (rel < -HYST) {
        armed = 1;
    } else if (armed && rel >= 0 && prev_rel < 0) {
        /* a rising crossing just before this set: note where, and snapshot the sums of
         * the sets before it, so the DC offsets can be taken over whole mains cycles
         * (first to last crossing). Each current channel snapshots its own sum in its
         * own slot of this set (snap), so no ISR copies them all at once. */
        armed = 0;
        snap = w->ncross ? 1 : 2;
        if (!w->ncross) {
            w->x0_set = s;
            w->x0_sv = w->sv;
        }
        w->x1_set = s;
        w->x1_sv = w->sv;
        w->ncross++;
        edge(&w->xe[0], s, (uint16_t)-prev_rel, (uint16_t)(rel - prev_rel));
    }
    if (rel > HYST) {
        armed_f = 1;
    } else if (armed_f && rel < 0 && prev_rel >= 0) { /* falling: for the frequency only */
        armed_f = 0;
        edge(&w->xe[1], s, (uint16_t)prev_rel, (uint16_t)(prev_rel - rel));
    }
    prev_x = x;
}

/* Sample x (centred) of conversion idx, the voltage: a set begins. */
ISR_PART void voltage_sample(mw_sums *w, uint32_t idx, int16_t x)
{
    if ((int32_t)(idx - sched.target) >= 0) w = open_window(w, idx); /* a new window */
    crossing(w, x);
    w->nsets++;
    if (nset_cur != 0xFF) nset_cur++;
    w->sv += x;
    w->svv += (int32_t)x * x;
    vh[2] = vh[1];
    vh[1] = vh[0];
    vh[0] = x;
    /* the voltage sums of each lag, over the sets whose products include it: set t - j
     * for lag j >= 0 (this sample), set t for lags -1, -2 (the earlier ones); lags -1..2,
     * and -2 and 3 in short sets (taps6) */
    mw_sums *tw = tail == NONE ? w : &bufs[tail];
    mw_sums *w1 = nset_cur > 1 ? w : tw, *w2 = nset_cur > 2 ? w : tw;
    wlag[1] = w1;
    wlag[2] = w2;
    w->svl[LAG(0)] += x;
    uint8_t h = hist;
    if (h) {
        w->svl[LAG(-1)] += vh[1];
        w1->svl[LAG(1)] += x;
        if (h >= 2) w2->svl[LAG(2)] += x;
    }
    if (taps6) {
        mw_sums *w3 = nset_cur > 3 ? w : tw;
        wlag[3] = w3;
        if (h >= 2) w->svl[LAG(-2)] += vh[2];
        if (h >= 3) w3->svl[LAG(3)] += x;
    }
}

/* Sample x (centred) of current channel done (1..nchan_i, conversion done + 1 of the set,
 * after the voltage and the dummy): its own sums and its products
 * with the earlier voltage samples go to this window; the products of the channel's
 * earlier samples with this set's voltage sample, to their windows (wlag). Written out
 * for lags -3..4 (one pointer per window, no loops; lags -2 and 3 only in sets of at most
 * MW_SET6_MAX_CONV conversions, -3 and 4 in sets of at most MW_SET8_MAX_CONV, sums.h):
 * every cycle here is spent on 15 of
 * every 16 conversions. */
#define CH_AT(win, off) ((mw_chsums *)((char *)(win) + (off)))
_Static_assert(sizeof(mw_chsums) == 32 && MW_MAX_CHANNELS <= 16, "current_sample's offset");

/* a * b, signed 16 x 16 -> 32 bits, inline (Atmel AVR201, "muls16x16_32"): 20 cycles
 * where the call to libgcc's __mulhisi3 and its register shuffling cost about 60 here.
 * mulsu leaves bit 15 of its product in C: the sbc extends the sign into the top byte. */
static inline __attribute__((always_inline)) int32_t mul16s(int16_t a, int16_t b)
{
    int32_t r;
    uint8_t zero;
    __asm__("clr   %[z]\n\t"
            "muls  %B[a], %B[b]\n\t"
            "movw  %C[r], r0\n\t"
            "mul   %A[a], %A[b]\n\t"
            "movw  %A[r], r0\n\t"
            "mulsu %B[a], %A[b]\n\t"
            "sbc   %D[r], %[z]\n\t"
            "add   %B[r], r0\n\t"
            "adc   %C[r], r1\n\t"
            "adc   %D[r], %[z]\n\t"
            "mulsu %B[b], %A[a]\n\t"
            "sbc   %D[r], %[z]\n\t"
            "add   %B[r], r0\n\t"
            "adc   %C[r], r1\n\t"
            "adc   %D[r], %[z]\n\t"
            "clr   __zero_reg__"
            : [r] "=&r"(r), [z] "=&r"(zero)
            : [a] "a"(a), [b] "a"(b)
            : "r0");
    return r;
}
/* *(int32_t *)(p + d) += a * b, the same product accumulated in place: the sum is loaded
 * with a displacement from the Y or Z pointer, so no pointer is moved to and fro (the
 * compiler's code for `*acc += mul16s(a, b)` through X spent 8 cycles per product on it)
 * and no 32-bit product is held in registers. The "+m" operand only tells the compiler
 * which memory the instruction changes. */
static inline __attribute__((always_inline)) void mac16s(void *p, uint8_t d, int16_t a, int16_t b)
{
    uint8_t t0, t1, t2, t3, z;
    __asm__("ldd   %[t0], %a[p]+%[d]\n\t"
            "ldd   %[t1], %a[p]+%[d]+1\n\t"
            "ldd   %[t2], %a[p]+%[d]+2\n\t"
            "ldd   %[t3], %a[p]+%[d]+3\n\t"
            "clr   %[z]\n\t"
            "mul   %A[a], %A[b]\n\t"
            "add   %[t0], r0\n\t"
            "adc   %[t1], r1\n\t"
            "adc   %[t2], %[z]\n\t"
            "adc   %[t3], %[z]\n\t"
            "muls  %B[a], %B[b]\n\t"
            "add   %[t2], r0\n\t"
            "adc   %[t3], r1\n\t"
            "mulsu %B[a], %A[b]\n\t"
            "sbc   %[t3], %[z]\n\t"
            "add   %[t1], r0\n\t"
            "adc   %[t2], r1\n\t"
            "adc   %[t3], %[z]\n\t"
            "mulsu %B[b], %A[a]\n\t"
            "sbc   %[t3], %[z]\n\t"
            "add   %[t1], r0\n\t"
            "adc   %[t2], r1\n\t"
            "adc   %[t3], %[z]\n\t"
            "std   %a[p]+%[d], %[t0]\n\t"
            "std   %a[p]+%[d]+1, %[t1]\n\t"
            "std   %a[p]+%[d]+2, %[t2]\n\t"
            "std   %a[p]+%[d]+3, %[t3]\n\t"
            "clr   __zero_reg__"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [z] "=&r"(z),
              "+m"(*(int32_t *)((char *)p + d))
            : [p] "b"(p), [d] "I"(d), [a] "a"(a), [b] "a"(b)
            : "r0");
}
#define SVI(j) ((uint8_t)(offsetof(mw_chsums, svi) + 4u * LAG(j)))
/* channel done's svx (lags -3 and 4) at offsetof(svx) + (done - 1) x 8 */
#define SVX_BASE (offsetof(mw_sums, svx) - sizeof(((mw_sums *)0)->svx[0]))
_Static_assert(sizeof(((mw_sums *)0)->svx[0]) == 8, "current_sample's svx offset");
/* The voltage sums of lags -3 and 4 (sets of at most MW_SET8_MAX_CONV conversions), taken
 * with the set's first current sample (current_sample8), not in the voltage's ISR, so that
 * the code for the other maps is what it was (see current_sample8). */
ISR_PART void voltage_taps8(mw_sums *w)
{
    uint8_t h = hist;
    mw_sums *tw = tail == NONE ? w : &bufs[tail];
    mw_sums *w4 = nset_cur > 4 ? w : tw;
    wlag[4] = w4;
    if (h >= 3) w->svlx[0] += vh3;
    if (h >= 4) w4->svlx[1] += vh[0];
}

ISR_PART void current_sample(mw_sums *w, uint8_t done, int16_t x)
{
    /* channel done's sums at offsetof(ch) + (done - 1) x 32: done x 16 by a nibble swap
     * (done <= 15), doubled, where `(done - 1) * sizeof` compiled to a 20-cycle shift loop */
    uint16_t off = (uint16_t)((offsetof(mw_sums, ch) - sizeof(mw_chsums)) +
                              ((uint16_t)(uint8_t)(done << 4) << 1));
    mw_chsums *c = CH_AT(w, off);
    /* &ih[done]: done x 8 in one byte (done <= 15), where the index compiled to a loop */
    ihist *hp = (ihist *)((char *)ih + (uint8_t)(done << 3));
    if (snap) { /* before this set's sample: the sum over the sets before the crossing */
        int32_t si = c->si;
        w->x1_si[done - 1u] = si;
        if (snap == 2) w->x0_si[done - 1u] = si;
    }
    int16_t v0 = vh[0];
    c->si += x;
    mac16s(c, offsetof(mw_chsums, sii), x, x);
    mac16s(c, SVI(0), x, v0);
    uint8_t h = hist;
    if (h) {
        mac16s(c, SVI(-1), x, vh[1]);
        mac16s(CH_AT(wlag[1], off), SVI(1), hp->i1, v0);
        if (h >= 2) mac16s(CH_AT(wlag[2], off), SVI(2), hp->i2, v0);
    }
    if (taps6) { /* the outer lags, in short sets only */
        if (h >= 2) mac16s(c, SVI(-2), x, vh[2]);
        if (h >= 3) mac16s(CH_AT(wlag[3], off), SVI(3), hp->i3, v0);
        hp->i3 = hp->i2;
    }
    hp->i2 = hp->i1;
    hp->i1 = x;
    if (done == mlast) { /* the set is complete */
        if (h < MW_LAG_HI) hist = (uint8_t)(h + 1u);
        if (tail != NONE && nset_cur >= lag_hi) { /* its last lagged product is in */
            publish(tail);
            tail = NONE;
        }
        snap = 0;
    }
}

/* The voltage sample of this set (vh[0], set nsets - 1 of w) into the fundamental's sums
 * (fund.h), in the dummy conversion's interrupt: not in the voltage sample's, which is
 * the longest (crossings, a new window). Inline: the ISR saves these registers anyway (a
 * function of its own cost 5 cycles more per conversion with 1 V + 5 I). */
static inline __attribute__((always_inline)) void fund_sample(mw_sums *w)
{
    mw_fund_sample(&fund, w->fz, (uint16_t)(w->nsets - 1u), vh[0]);
}

/* Sample raw of conversion done of the set in step with it: 1, and the next one wanted is
 * noted; 0 if not (the sets are resynchronised). */
ISR_PART uint8_t in_step(mw_sums *w, uint8_t done)
{
    if (done != expect) { /* cannot happen without a miss; be safe */
        w->missed++;
        resync |= RESYNC;
        return 0;
    }
    expect = (uint8_t)(done + 1u == m ? 0 : done + 1u);
    return 1;
}

/* Raw code of channel ch (0 voltage, 1.. currents), centred, its clipping noted. */
ISR_PART int16_t centred(mw_sums *w, uint8_t ch, uint16_t raw)
{
    if (raw == 0 || raw >= 1023) w->clip |= (uint16_t)(1u << ch);
    return (int16_t)raw - 512;
}

/* A current sample (conversion done >= 2 of the set) in sets of at most MW_SET8_MAX_CONV
 * conversions, with the eight taps' sums and products, called last in the ISR: a function
 * of its own, because inline the registers of that code cost every conversion of every
 * map (the ISR kept a stack frame, or saved one more register: +4 to +13 cycles a
 * conversion with 16 channels); called, no value is live across the call, and the ISR's
 * code for the other maps and samples is what it was. */
static __attribute__((noinline)) void current_sample8(mw_sums *w, uint8_t done, uint16_t raw)
{
    if (!in_step(w, done)) return;
    uint8_t ch = (uint8_t)(done - 1u);
    int16_t x = centred(w, ch, raw);
    if (ch == 1) voltage_taps8(w);
    /* what current_sample changes that the outer lags need: i(t - 3) (its history
     * shifts) and the complete sets in a row before this one (it may count this one),
     * kept in memory, not in registers, across it */
    s8_i3 = ((ihist *)((char *)ih + (uint8_t)(ch << 3)))->i3;
    s8_h = hist;
    current_sample(w, ch, x); /* lags -2..3, the history, the set's end */
    ihist *hp = (ihist *)((char *)ih + (uint8_t)(ch << 3));
    uint8_t h = s8_h;
    uint16_t xo = (uint16_t)(SVX_BASE + (uint8_t)(ch << 3));
    if (h >= 3) mac16s((char *)w + xo, 0, x, vh3);
    if (h >= 4) mac16s((char *)wlag[4] + xo, 4, hp->i4, vh[0]);
    hp->i4 = s8_i3;
    if (ch == mlast) vh3 = vh[2]; /* v(t - 2), the next set's v(t - 3) */
}

ISR(ADC_vect)
{
    uint16_t now = TCNT1;
    uint16_t raw = ADC;
    uint16_t dt = now - last_tick;
    last_tick = now;
    uint8_t missed = 0, done;
    if (!first_isr && dt > MISS_TICKS) {
        missed = (uint8_t)((dt + CONV_TICKS / 2u) / CONV_TICKS - 1u);
        if (!missed) missed = 1;
        done = wr_pos; /* no ISR ran since the mux was written: both latched it */
    } else {
        done = lat_pos;
    }
    first_isr = 0;
    lat_pos = wr_pos;
    uint8_t nx = (uint8_t)(lat_pos + 1u);
    if (nx == m) nx = 0;
    wr_pos = nx;
    ADCSRB = mux5_of[nx];
    ADMUX = admux_of[nx];

    uint32_t idx = conv + missed; /* index of the conversion that just completed */
    conv = idx + 1u;
    mw_sums *w = wcur;
    if (missed) {
        w->missed += missed;
        resync |= RESYNC;
        return;
    }
    if (resync) { /* rare, or a map with eight taps */
        if (resync & RESYNC) {
            if (done != 0) {
                w->missed++; /* counted as lost: the sample cannot be placed in a set */
                return;
            }
            resync = (uint8_t)(resync & ~RESYNC);
            hist = 0;
            expect = 0;
        }
        if (resync && done > POS_DUMMY) { /* TAPS8: a current sample */
            current_sample8(w, done, raw); /* the last thing this ISR does */
            return;
        }
    }
    if (!in_step(w, done)) return;
    if (done == POS_DUMMY) { /* the 0 V conversion: nothing to add; its time serves */
        fund_sample(w);
        return;
    }
    uint8_t ch = done ? (uint8_t)(done - 1u) : 0u; /* channel: 0 voltage, 1.. currents */
    _Static_assert(MW_SET_POS(0) == POS_DUMMY + 1u, "the ISR's channel = position - 1");
    int16_t x = centred(w, ch, raw);
    if (done == 0)
        voltage_sample(w, idx, x);
    else
        current_sample(w, ch, x);
}

const mw_sums *sampler_take(void)
{
    uint8_t b;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        b = ready;
        if (b != NONE) {
            ready = NONE;
            held = b;
        }
    }
    return b == NONE ? 0 : &bufs[b];
}

void sampler_release(void)
{
    /* cleared here, in the main loop, so the ISR never spends ~1,400 cycles on it */
    if (held != NONE) memset(&bufs[held], 0, sizeof bufs[0]);
    held = NONE;
}

void sampler_set_fund(const mw_fund_ref *r)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        vfref.dp = r->dp;
        vfref.dhp = r->dhp;
        vfref.h = r->h;
    }
}

void sampler_set_vthreshold(int16_t thr)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        vthr = thr;
    }
}

uint16_t sampler_lost_windows(void)
{
    uint16_t l;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        l = lost;
    }
    return l;
}

uint32_t sampler_conversions(void)
{
    uint32_t v;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        v = conv;
    }
    return v;
}

/* Conversion k >= 1 starts (25 + 13 (k - 1)) x 128 cycles after the ADC was started (the
 * first conversion takes 25 ADC clocks), i.e. 24 + 26 k Timer1 ticks after its restart in
 * sampler_start, which precedes the ADC's by a few cycles; both run on the crystal, so this
 * holds for as long as sampling runs, missed interrupts or not (mod 2^16 ticks). */
#define FIRST_CONV_TICKS 24u
/* sampler_reached returns this many ticks before the conversion starts: the caller's UART
 * write then puts the first byte in UDR0 just before the ADC interrupt that the start of
 * the conversion raises (which would otherwise come first and delay it by ~40 us): 2.2-2.9
 * us early on the simulated board, whatever the channel map, rate and load (with two ticks
 * it is ~1.5 us late, with one the ADC interrupt comes first: docs/clock-model.md). */
#define LEAD_TICKS 3u

uint8_t sampler_reached(uint32_t target)
{
    int32_t ahead = (int32_t)(target - sampler_conversions());
    if (ahead <= 0) return 1;
    if (ahead > 1) return 0;
    /* conversion target - 1 is running: wait for the tick before target's start. TCNT1 is
     * read with interrupts off (the ISR reads it too, and the two bytes of a 16-bit timer
     * read share one TEMP register). */
    uint16_t due = (uint16_t)(FIRST_CONV_TICKS + CONV_TICKS * (uint16_t)target - LEAD_TICKS);
    for (;;) {
        uint16_t now;
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
        {
            now = TCNT1;
        }
        if ((int16_t)(now - due) >= 0) return 1;
    }
}
