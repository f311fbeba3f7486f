/* sampler — see sampler.h. Everything shared with the main loop is volatile; the
 * 8-bit buffer indices are read and written atomically by the hardware. */
#include "sampler.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <string.h>
#include <util/atomic.h>
#include <util/delay.h>

#include "schedule.h"

#define CONV_TICKS (MW_CONV_CYCLES / 64u) /* Timer1 at clk/64: 26 ticks per conversion */
#define MISS_TICKS (CONV_TICKS + CONV_TICKS / 2u)
#define HYST 8 /* counts below the threshold before a rising crossing is armed */
#define NBUF 3
#define NONE 0xFF

static uint8_t admux_of[MW_MAX_CHANNELS], mux5_of[MW_MAX_CHANNELS];
static uint8_t m;                       /* conversions per set */
static uint8_t lat_pos, wr_pos, expect; /* in-flight, written-to-mux, next wanted */
static uint8_t resync, have_prev, first_isr, tail_pending;
static uint16_t last_tick;
static volatile uint32_t conv; /* conversions completed since start (meter time / 104 us) */
static int16_t v_cur, i_last[MW_MAX_I];
static int16_t prev_rel;
static uint8_t armed;
static uint8_t snap; /* 0, 1: snapshot x1 in this set's current slots, 2: x0 and x1 */
static volatile int16_t vthr;
static mw_schedule sched;
static uint32_t wseq;

static mw_sums bufs[NBUF];
static uint8_t cur, tail;             /* ISR's buffers */
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
    for (uint8_t c = 0; c <= nchan_i; c++) {
        admux_of[c] = (uint8_t)(_BV(REFS0) | (pins[c] & 7u)); /* AVCC reference */
        mux5_of[c] = (uint8_t)(pins[c] >= 8 ? _BV(MUX5) : 0);
    }
    m = (uint8_t)(nchan_i + 1);
    conv = 0;
    wseq = 0;
    resync = 0;
    have_prev = 0;
    tail_pending = 0;
    armed = 0;
    snap = 0;
    prev_rel = 0;
    first_isr = 1;
    cur = 0;
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
    wr_pos = m > 1 ? 1 : 0;
    ADCSRB = mux5_of[wr_pos];
    ADMUX = admux_of[wr_pos];
    expect = 0;
    last_tick = TCNT1;
}

/* The ISR's parts, inlined into it (always_inline: the same code as one function, so the
 * same timing; checked by comparing its disassembly). */
#define ISR_PART static inline __attribute__((always_inline))

/* Conversion idx (a voltage sample) opens a new window: the one being filled is handed
 * over (its tail, the current samples of its last set, still to come when have_prev) and
 * the next begun, or, when the main loop holds every buffer, dropped. Returns the buffer
 * now being filled. */
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
        have_prev = 0; /* the dropped set's tails must not land in the new window */
    } else {
        w->conv1 = idx;
        if (tail != NONE) /* previous tail never completed (m == 1 impossible) */
            publish(tail);
        tail = cur;
        tail_pending = have_prev;
        if (!tail_pending) {
            publish(tail);
            tail = NONE;
        }
        cur = nb;
        w = &bufs[cur]; /* free buffers are already zero (sampler_release) */
        w->seq = ++wseq;
        w->conv0 = idx;
    }
    mw_schedule_next(&sched);
    return w;
}

/* The voltage's position rel against the threshold, just before this set of w. */
ISR_PART void crossing(mw_sums *w, int16_t rel)
{
    if (rel < -HYST) {
        armed = 1;
    } else if (armed && rel >= 0 && prev_rel < 0) {
        /* a rising crossing just before this set: note where, and snapshot the sums of
         * the sets before it, so the DC offsets can be taken over whole mains cycles
         * (first to last crossing). Each current channel snapshots its own sum in its
         * own slot of this set (snap), so no ISR copies them all at once. */
        armed = 0;
        uint16_t s = w->nsets;
        snap = w->ncross ? 1 : 2;
        if (!w->ncross) {
            w->x0_set = s;
            w->x0_a = prev_rel;
            w->x0_b = rel;
            w->x0_sv = w->sv;
        }
        w->x1_set = s;
        w->x1_a = prev_rel;
        w->x1_b = rel;
        w->x1_sv = w->sv;
        w->ncross++;
    }
    prev_rel = rel;
}

/* Sample x (centred) of conversion idx, the voltage: a set begins. */
ISR_PART void voltage_sample(mw_sums *w, uint32_t idx, int16_t x)
{
    if (have_prev) bufs[tail == NONE ? cur : tail].svn += x;
    if ((int32_t)(idx - sched.target) >= 0) w = open_window(w, idx); /* a new window */
    crossing(w, x - vthr);
    w->nsets++;
    w->sv += x;
    w->svv += (int32_t)x * x;
    v_cur = x;
}

/* Sample x (centred) of current channel done (1..m - 1). */
ISR_PART void current_sample(mw_sums *w, uint8_t done, int16_t x)
{
    uint8_t k = (uint8_t)(done - 1u);
    if (snap) { /* before this set's sample: the sum over the sets before the crossing */
        w->x1_si[k] = w->si[k];
        if (snap == 2) w->x0_si[k] = w->si[k];
    }
    w->si[k] += x;
    w->sii[k] += (int32_t)x * x;
    w->svi[k] += (int32_t)x * v_cur;
    if (have_prev) bufs[tail == NONE ? cur : tail].svni[k] += (int32_t)i_last[k] * v_cur;
    i_last[k] = x;
    if (done == m - 1u) {
        if (tail != NONE) {
            publish(tail);
            tail = NONE;
        }
        tail_pending = 0;
        have_prev = 1;
        snap = 0;
    }
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
    mw_sums *w = &bufs[cur];
    if (missed) {
        w->missed += missed;
        resync = 1;
        return;
    }
    if (resync) {
        if (done != 0) {
            w->missed++; /* counted as lost: the sample cannot be placed in a set */
            return;
        }
        resync = 0;
        have_prev = 0;
        expect = 0;
    }
    if (done != expect) { /* cannot happen without a miss; be safe */
        w->missed++;
        resync = 1;
        return;
    }
    expect = (uint8_t)(done + 1u == m ? 0 : done + 1u);

    int16_t x = (int16_t)raw - 512;
    if (raw == 0 || raw >= 1023) w->clip |= (uint16_t)(1u << done);
    if (done == 0)
        voltage_sample(w, idx, x);
    else
        current_sample(w, done, x);
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
