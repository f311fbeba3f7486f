/* simboard — the simulated board (see mw_sim.h). It owns one simavr avr_t loaded with the
 * firmware ELF. Output bytes are pushed to a sink callback; input bytes wait in a queue
 * and are raised into the UART when its receive FIFO signals XON. simavr's own console
 * printing and its "sleep while polling" behaviour are switched off so runs are as fast as
 * the host allows and deterministic. */
#include "afe.h"
#include "mw_sim.h"
#include "simboard_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#include <avr_adc.h>
#include <avr_eeprom.h>
#include <avr_uart.h>
#include <sim_avr.h>
/* Debian's libsimavr is built with ELF_SYMBOLS: without this, our elf_firmware_t would be
 * shorter than the one elf_read_firmware fills in (it writes the symbol table past it). */
#define ELF_SYMBOLS 1
#include <sim_elf.h>
#include <sim_interrupts.h>
#include <sim_irq.h>

#define MW_SIM_F_CPU 16000000u
#define MW_SIM_TXQ 4096u
#define MW_SIM_MAX_H 51 /* highest harmonic of the built-in waveforms */

typedef enum { SRC_NONE = 0, SRC_MAINS, SRC_POWER, SRC_CURRENT, SRC_FN, SRC_VWAVE, SRC_IWAVE } src_kind;

typedef struct {
    src_kind kind;
    mw_sim_wave wave;
    double pf, lag, p_w, i1_peak; /* lag = acos(pf), radians */
    mw_sim_power_fn fn;
    mw_sim_wave_fn wfn; /* SRC_VWAVE (volts), SRC_IWAVE (amps) */
    void *ctx;
} pin_source;

struct mw_sim {
    avr_t *avr;
    double ppm;
    uint64_t cycle0;
    mw_sim_uart_fn sink;
    void *sink_ctx;
    avr_irq_t *uart_irq; /* base of UART0's IRQs */
    uint8_t rxq[MW_SIM_TXQ];
    size_t rxq_head, rxq_tail;
    int xon;
    /* analog */
    double mains_vrms, mains_hz;
    pin_source pins[16];
    gsl_rng *rng;
    double noise_lsb;
    avr_adc_t *adc;
    uint16_t pending, result; /* conversion in progress, last completed */
    int pending_pin, result_pin;
    double aref_v, bias_v; /* the board: what AREF carries (0 = open), the inputs' bias */
    double adc_vref;       /* the reference of the conversion being started */
    uint64_t ref_conflicts;
    int adc_busy, adc_first;
    uint64_t adc_enable_cycle; /* start of the first conversion after ADEN */
    avr_io_t reset_io;         /* registered with simavr only for its reset callback */
    uint64_t isr_enter, isr_count, isr_total, isr_max;
    int isr_in;
    uint16_t latched; /* ADC data register after an ADCL read */
    int latched_valid;
    uint64_t nconv;
    /* front-end imperfections (mw_sim_set_crosstalk, mw_sim_set_sh_kick) */
    mw_sim_frontend xt_rev, kick_rev;
    double xt_hz;                                  /* mains frequency xt_* were made for */
    double xt_mag[MW_SIM_MAX_H + 1], xt_arg[MW_SIM_MAX_H + 1]; /* c(h f) */
    double kick_r_mux;
    double kick[2][2]; /* [voltage pin?][first conversion?]: fraction left */
    double sh_hold;    /* pin volts (from the bias) the hold capacitor carries */
};

/* Waveforms as harmonic series sum a_h sin(h x + ph_h), fundamental peak 1, phase 0. */
typedef struct {
    uint8_t h;
    double a, ph;
} harm;
static const harm w_sine[] = {{1, 1, 0}};
static const harm w_smps[] = {{1, 1, 0}, {3, 0.75, M_PI}, {5, 0.5, 0}, {7, 0.25, M_PI}};
/* The textbook capacitor-input rectifier (ideal diodes, reservoir C, load R, omega R C = 8):
 * the bridge conducts from 48.2 to 97.1 degrees of each half cycle with
 * i = omega C Vp cos(x) + Vp sin(x) / R; its Fourier series by numeric integration (2^16
 * points), referred to its fundamental (peak 1, phase 0; the fundamental's own 25 degree
 * lead is left to the caller's pf). */
static const harm w_capin[] = {
    {1, 1, 0},                {3, 0.845727, -3.122486}, {5, 0.594957, 0.112477},
    {7, 0.346406, -2.728558}, {9, 0.216520, 1.132168},  {11, 0.208963, -1.313582},
    {13, 0.191502, 2.263212}, {15, 0.147138, -0.375914}, {17, 0.123302, -2.821022},
    {19, 0.123149, 0.919112}, {21, 0.112469, -1.740210}, {23, 0.093742, 1.977501},
    {25, 0.087308, -0.499612}, {27, 0.086918, -3.085075}, {29, 0.078756, 0.572315},
    {31, 0.069454, -1.955942}, {33, 0.067943, 1.815226}, {35, 0.066609, -0.788441},
    {37, 0.060310, 2.900785}, {39, 0.055742, 0.386913}, {41, 0.055601, -2.156993},
    {43, 0.053551, 1.520022}, {45, 0.048913, -1.045441}, {47, 0.046924, 2.721576},
    {49, 0.046878, 0.152993}, {51, 0.044498, -2.444765}};
/* An active-PFC supply: a near-sine current with the small odd harmonics such supplies
 * leave (THD 5.3 %, within IEC 61000-3-2 class A/D by far). */
static const harm w_pfc[] = {{1, 1, 0},        {3, 0.040, 0.3},   {5, 0.025, -0.5},
                             {7, 0.015, 1.1},  {9, 0.010, -1.9},  {11, 0.008, 2.4},
                             {13, 0.006, -0.7}, {15, 0.004, 0.9}, {17, 0.004, -2.2},
                             {19, 0.003, 1.7},  {21, 0.003, -1.2}, {23, 0.002, 2.9},
                             {25, 0.002, -0.2}};

static const harm *wave_tab(mw_sim_wave wave, int *n)
{
#define TAB(t) (*n = (int)(sizeof t / sizeof t[0]), t)
    switch (wave) {
    case MW_SIM_SMPS:
        return TAB(w_smps);
    case MW_SIM_CAPIN:
        return TAB(w_capin);
    case MW_SIM_PFC:
        return TAB(w_pfc);
    default:
        return TAB(w_sine);
    }
#undef TAB
}

double mw_sim_wave_value(mw_sim_wave wave, double x)
{
    if (wave == MW_SIM_SMPS)
        return sin(x) - 0.75 * sin(3 * x) + 0.5 * sin(5 * x) - 0.25 * sin(7 * x);
    if (wave == MW_SIM_SINE) return sin(x);
    int n;
    const harm *t = wave_tab(wave, &n);
    double s = 0;
    for (int j = 0; j < n; j++)
        s += t[j].a * sin(t[j].h * x + t[j].ph);
    return s;
}

static double true_seconds(const mw_sim *sim, uint64_t cycle)
{
    return (double)(cycle - sim->cycle0) / (MW_SIM_F_CPU * (1.0 + sim->ppm * 1e-6));
}

/* A built-in source's fundamental peak current (A) and phase (radians) at true time t;
 * 0 for sources that are not harmonic series (mains, waveform callbacks, nothing). */
static int src_harmonic(mw_sim *sim, int pin, double t, double *i1, double *x)
{
    const pin_source *p = &sim->pins[pin];
    switch (p->kind) {
    case SRC_CURRENT:
        *i1 = p->i1_peak;
        break;
    case SRC_POWER:
    case SRC_FN: {
        double pw = p->kind == SRC_FN ? p->fn(p->ctx, pin, (uint64_t)(t * 1e9)) : p->p_w;
        /* P = Vrms * I1rms * pf  ->  I1 peak = sqrt2 * P / (Vrms * pf) */
        *i1 = sim->mains_vrms > 0 ? M_SQRT2 * pw / (sim->mains_vrms * p->pf) : 0;
        break;
    }
    default:
        return 0;
    }
    *x = 2.0 * M_PI * sim->mains_hz * t - p->lag;
    return 1;
}

/* Instantaneous value at pin `pin` in physical units (V for mains, A for loads). */
static double pin_value(mw_sim *sim, int pin, double t)
{
    const pin_source *p = &sim->pins[pin];
    double i1, x;
    if (src_harmonic(sim, pin, t, &i1, &x)) return i1 * mw_sim_wave_value(p->wave, x);
    if (p->kind == SRC_MAINS)
        return sim->mains_vrms * M_SQRT2 * sin(2.0 * M_PI * sim->mains_hz * t);
    if (p->kind == SRC_VWAVE || p->kind == SRC_IWAVE) return p->wfn(p->ctx, t);
    return 0;
}

static int is_voltage_pin(const mw_sim *sim, int pin)
{
    return sim->pins[pin].kind == SRC_MAINS || sim->pins[pin].kind == SRC_VWAVE;
}

/* c(h f) of the shared bias for harmonics 1..MW_SIM_MAX_H at the current mains frequency:
 * c = -Z_b / (R_src + 1 / (j w C_F)), Z_b = R_b || C_b (revision A) or R_o (revision B). */
static void crosstalk_prepare(mw_sim *sim)
{
    const double r_src = 1200.0; /* 200 Ohm burden + 1 kOhm series resistor */
    int a = sim->xt_rev == MW_SIM_FE_REV_A;
    double c_f = a ? 10e-9 : 1e-9, r_b = a ? 5e3 : 0.05, c_b = a ? 10.1e-6 : 0;
    for (int h = 1; h <= MW_SIM_MAX_H; h++) {
        double w = 2.0 * M_PI * sim->mains_hz * h;
        double zr = r_b / (1 + pow(w * r_b * c_b, 2)), zi = -w * r_b * r_b * c_b / (1 + pow(w * r_b * c_b, 2));
        double dr = r_src, di = -1.0 / (w * c_f); /* R_src + 1/(j w C_F) */
        double den = dr * dr + di * di;
        double cr = -(zr * dr + zi * di) / den, ci = -(zi * dr - zr * di) / den;
        sim->xt_mag[h] = hypot(cr, ci);
        sim->xt_arg[h] = atan2(ci, cr);
    }
    sim->xt_hz = sim->mains_hz;
}

/* What current pin q puts on the shared bias at t, in pin volts (before the factor's sign:
 * c already carries it). */
static double crosstalk_from(mw_sim *sim, int q, double t)
{
    const pin_source *p = &sim->pins[q];
    double i1, x;
    if (src_harmonic(sim, q, t, &i1, &x)) {
        int n;
        const harm *tab = wave_tab(p->wave, &n);
        double s = 0;
        for (int j = 0; j < n; j++)
            s += sim->xt_mag[tab[j].h] * tab[j].a * sin(tab[j].h * x + tab[j].ph + sim->xt_arg[tab[j].h]);
        return i1 * s / MW_AFE_I_RATIO;
    }
    if (p->kind != SRC_IWAVE) return 0;
    /* a waveform callback: the fundamental's c, as -|c| and a delay of its phase past 180 */
    double d = remainder(sim->xt_arg[1] + M_PI, 2 * M_PI) / (2.0 * M_PI * sim->mains_hz);
    return -sim->xt_mag[1] * p->wfn(p->ctx, t + d) / MW_AFE_I_RATIO;
}

/* The pin's voltage from the bias at true time t (volts), crosstalk included. */
static double pin_volts(mw_sim *sim, int pin, double t)
{
    int vpin = is_voltage_pin(sim, pin);
    double v = pin_value(sim, pin, t) / (vpin ? MW_AFE_V_RATIO : MW_AFE_I_RATIO);
    if (sim->xt_rev == MW_SIM_FE_IDEAL || vpin) return v;
    if (sim->xt_hz != sim->mains_hz) crosstalk_prepare(sim);
    for (int q = 0; q < 16; q++)
        if (q != pin && !is_voltage_pin(sim, q)) v += crosstalk_from(sim, q, t);
    return v;
}

static uint16_t volts_code(mw_sim *sim, double volts)
{
    if (sim->adc_vref <= 0) return 1023; /* open AREF: any input is above the reference */
    double code = floor((sim->bias_v + volts) * 1024.0 / sim->adc_vref +
                        (sim->noise_lsb > 0 ? gsl_ran_gaussian(sim->rng, sim->noise_lsb) : 0));
    if (code < 0) code = 0;
    if (code > 1023) code = 1023;
    return (uint16_t)code;
}

/* Fraction of the hold capacitor's initial voltage (relative to the pin's) left after t:
 * the pin node (filter C_F, source r_src to the signal) and the hold node (14 pF) joined by
 * r_mux; x' = M x from x0 = (0, 1), e^{Mt} by Sylvester's formula (distinct real roots). */
static double sh_left(double r_src, double c_f, double r_mux, double t)
{
    const double c_sh = 14e-12;
    double a11 = -(1 / r_src + 1 / r_mux) / c_f, a12 = (1 / r_mux) / c_f;
    double a21 = (1 / r_mux) / c_sh, a22 = -(1 / r_mux) / c_sh;
    double tr = a11 + a22, det = a11 * a22 - a12 * a21, disc = sqrt(tr * tr / 4 - det);
    double l1 = tr / 2 + disc, l2 = tr / 2 - disc;
    double e1 = exp(l1 * t), e2 = exp(l2 * t);
    return (e1 * (a22 - l2) - e2 * (a22 - l1)) / (l1 - l2);
}

/* the single-ended internal inputs (ATmega2560 datasheet, table 26-4) */
#define PIN_BANDGAP (-2) /* MUX5:0 = 011110: 1.1 V */
#define PIN_GND (-3)     /* MUX5:0 = 011111: 0 V */

/* The sample the ADC takes of `pin` (-1: none) at true time t: the pin's volts, plus what
 * the hold capacitor brings from the previous conversion; it then holds that. */
static uint16_t sample_pin(mw_sim *sim, int pin, double t, int first)
{
    if (pin == PIN_BANDGAP || pin == PIN_GND) { /* stiff internal sources: no kick */
        sim->sh_hold = (pin == PIN_BANDGAP ? 1.1 : 0.0) - sim->bias_v;
        return volts_code(sim, sim->sh_hold);
    }
    double v = pin < 0 ? 0 : pin_volts(sim, pin, t);
    if (sim->kick_rev != MW_SIM_FE_IDEAL && pin >= 0)
        v += sim->kick[is_voltage_pin(sim, pin)][first] * (sim->sh_hold - v);
    sim->sh_hold = v;
    return pin < 0 ? 0 : volts_code(sim, v);
}

/* The ADC peripheral, modelled here rather than by simavr 1.6, whose free-running mode
 * re-arms each conversion from the (late-firing) timer callback and so stretches every
 * conversion by 0-3 cycles, and which cannot hold values for A8..A15. This model follows
 * the datasheet: the mux (ADMUX MUX4:0 + ADCSRB MUX5) is latched when a conversion starts,
 * the input is sampled 1.5 ADC clocks later (13.5 for the first conversion after ADEN),
 * the result and ADIF arrive 13 ADC clocks (25 for the first) after the start, and in
 * free-running mode the next conversion starts at that same instant, on exact cycles. */
#define R_ADCSRA_ADEN 0x80
#define R_ADCSRA_ADSC 0x40
#define R_ADCSRA_ADATE 0x20
#define R_ADCSRA_ADIF 0x10

static avr_cycle_count_t adc_done(struct avr_t *avr, avr_cycle_count_t when, void *param);

/* The reference that ADMUX's REFS1:0 select (datasheet table "Voltage Reference Selections
 * for ADC"), on this board. */
static double adc_reference(mw_sim *sim, uint8_t admux)
{
    static const double internal_v[4] = {0, MW_SIM_AVCC_V, 1.1, 2.56};
    unsigned refs = (admux >> 6) & 3u;
    if (refs == 0) return sim->aref_v;
    if (sim->aref_v > 0) sim->ref_conflicts++;
    return internal_v[refs];
}

/* Start a conversion at cycle `start` (may be slightly in the past when called from the
 * completion of the previous one). Returns the cycle at which it completes. */
static uint64_t adc_start(mw_sim *sim, uint64_t start)
{
    avr_t *avr = sim->avr;
    uint8_t admux = avr->data[sim->adc->r_admux];
    uint8_t adcsrb = avr->data[sim->adc->r_adcsrb];
    int pin = (admux & 7) | ((adcsrb & 0x08) ? 8 : 0); /* MUX2:0 and MUX5 */
    if (admux & 0x18) pin = -1; /* differential / gain modes: not wired on the meter */
    if ((admux & 0x1F) >= 0x1E && !(adcsrb & 0x08)) /* MUX5:0 = 011110, 011111 */
        pin = (admux & 0x1F) == 0x1E ? PIN_BANDGAP : PIN_GND;
    int first = sim->adc_first;
    sim->adc_first = 0;
    if (first) sim->adc_enable_cycle = start;
    uint64_t delay = first ? MW_ADC_FIRST_SAMPLE_DELAY_CYCLES : MW_ADC_SAMPLE_DELAY_CYCLES;
    uint64_t length = (first ? 25u : 13u) * MW_ADC_PRESCALER;
    sim->adc_vref = adc_reference(sim, admux);
    sim->pending = sample_pin(sim, pin, true_seconds(sim, start + delay), first);
    sim->pending_pin = pin;
    sim->adc_busy = 1;
    avr->data[sim->adc->r_adcsra] |= R_ADCSRA_ADSC;
    sim->nconv++;
    return start + length;
}

static avr_cycle_count_t adc_done(struct avr_t *avr, avr_cycle_count_t when, void *param)
{
    mw_sim *sim = param;
    sim->result = sim->pending;
    sim->result_pin = sim->pending_pin;
    sim->adc_busy = 0;
    avr_raise_interrupt(avr, &sim->adc->adc); /* sets ADIF; fires if ADIE */
    uint8_t sra = avr->data[sim->adc->r_adcsra];
    uint8_t adts = avr->data[sim->adc->r_adcsrb] & 0x07;
    if ((sra & R_ADCSRA_ADEN) && (sra & R_ADCSRA_ADATE) && adts == 0)
        return adc_start(sim, when); /* free running: next conversion starts now, exactly */
    avr->data[sim->adc->r_adcsra] &= (uint8_t)~R_ADCSRA_ADSC;
    return 0;
}

static void adcsra_write(struct avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    mw_sim *sim = param;
    uint8_t old = avr->data[addr];
    if (v & R_ADCSRA_ADIF) /* writing one clears the flag */
        avr_clear_interrupt(avr, &sim->adc->adc);
    uint8_t keep = (uint8_t)(avr->data[addr] & R_ADCSRA_ADIF); /* as the clear left it */
    uint8_t nv = (uint8_t)((v & ~R_ADCSRA_ADIF) | keep);
    if (sim->adc_busy)
        nv |= R_ADCSRA_ADSC; /* ADSC reads one while converting; writing zero has no effect */
    avr->data[addr] = nv;
    /* simavr keeps ADIE in its vector's regbit, which reads this register: nothing to do */
    if ((old & R_ADCSRA_ADEN) && !(nv & R_ADCSRA_ADEN)) { /* ADC off: abort */
        avr_cycle_timer_cancel(avr, adc_done, sim);
        sim->adc_busy = 0;
        avr->data[addr] &= (uint8_t)~R_ADCSRA_ADSC;
        return;
    }
    if (!(old & R_ADCSRA_ADEN) && (nv & R_ADCSRA_ADEN)) sim->adc_first = 1;
    if ((nv & R_ADCSRA_ADEN) && (v & R_ADCSRA_ADSC) && !sim->adc_busy) {
        uint64_t done = adc_start(sim, avr->cycle);
        avr_cycle_timer_register(avr, done - avr->cycle, adc_done, sim);
    }
}

static uint16_t adc_result(mw_sim *sim)
{
    uint16_t v = sim->result;
    if (sim->avr->data[sim->adc->r_admux] & 0x20) /* ADLAR */
        v = (uint16_t)(v << 6);
    return v;
}

static uint8_t adcl_read(struct avr_t *avr, avr_io_addr_t addr, void *param)
{
    mw_sim *sim = param;
    sim->latched = adc_result(sim);
    sim->latched_valid = 1;
    avr->data[sim->adc->r_adcl] = (uint8_t)sim->latched;
    avr->data[sim->adc->r_adch] = (uint8_t)(sim->latched >> 8);
    return (uint8_t)sim->latched;
}

static uint8_t adch_read(struct avr_t *avr, avr_io_addr_t addr, void *param)
{
    mw_sim *sim = param;
    uint16_t v = sim->latched_valid ? sim->latched : adc_result(sim);
    sim->latched_valid = 0;
    avr->data[sim->adc->r_adch] = (uint8_t)(v >> 8);
    return (uint8_t)(v >> 8);
}

/* ADCSRB holds MUX5 and the trigger source: a plain register here. */
static void adcsrb_write(struct avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    avr->data[addr] = v;
}

int mw_sim_eeprom_write(mw_sim *sim, uint16_t addr, const void *buf, uint16_t len);

/* Called by simavr on every reset (button, watchdog): the ADC model restarts idle. */
static void adc_model_reset(avr_io_t *io)
{
    mw_sim *sim = (mw_sim *)((char *)io - offsetof(mw_sim, reset_io));
    avr_cycle_timer_cancel(sim->avr, adc_done, sim);
    sim->adc_busy = 0;
    sim->adc_first = 0;
}

static int attach_adc(mw_sim *sim)
{
    for (avr_io_t *io = sim->avr->io_port; io; io = io->next)
        if (io->kind && !strcmp(io->kind, "adc")) sim->adc = (avr_adc_t *)io;
    if (!sim->adc) return -1;
    avr_t *avr = sim->avr;
    int l = AVR_DATA_TO_IO(sim->adc->r_adcl), h = AVR_DATA_TO_IO(sim->adc->r_adch);
    int a = AVR_DATA_TO_IO(sim->adc->r_adcsra), b = AVR_DATA_TO_IO(sim->adc->r_adcsrb);
    avr->io[l].r.c = adcl_read;
    avr->io[l].r.param = sim;
    avr->io[h].r.c = adch_read;
    avr->io[h].r.param = sim;
    avr->io[a].w.c = adcsra_write;
    avr->io[a].w.param = sim;
    avr->io[b].w.c = adcsrb_write;
    avr->io[b].w.param = sim;
    sim->reset_io.kind = "megawatt-adc";
    sim->reset_io.reset = adc_model_reset;
    avr_register_io(avr, &sim->reset_io);
    /* a new chip's EEPROM is erased (0xFF); simavr starts it at 0x00 */
    static const uint8_t ff[256] = {[0 ... 255] = 0xFF};
    for (uint16_t at = 0; at < 4096; at += sizeof ff)
        mw_sim_eeprom_write(sim, at, ff, sizeof ff);
    return 0;
}

void mw_sim_set_mains(mw_sim *sim, int pin, double vrms, double hz)
{
    for (int p = 0; p < 16; p++)
        if (sim->pins[p].kind == SRC_MAINS) sim->pins[p].kind = SRC_NONE;
    sim->pins[pin & 15].kind = SRC_MAINS;
    sim->mains_vrms = vrms;
    sim->mains_hz = hz;
}

static void set_src(mw_sim *sim, int pin, src_kind k, double pf, mw_sim_wave wave)
{
    pin_source *p = &sim->pins[pin & 15];
    p->kind = k;
    p->pf = pf > 0 && pf <= 1 ? pf : 1;
    p->lag = acos(p->pf); /* once here, not for every ADC sample */
    p->wave = wave;
}

void mw_sim_set_load(mw_sim *sim, int pin, double p_w, double pf, mw_sim_wave wave)
{
    set_src(sim, pin, SRC_POWER, pf, wave);
    sim->pins[pin & 15].p_w = p_w;
}

void mw_sim_set_current(mw_sim *sim, int pin, double i1_peak_a, double pf, mw_sim_wave wave)
{
    set_src(sim, pin, SRC_CURRENT, pf, wave);
    sim->pins[pin & 15].i1_peak = i1_peak_a;
}

void mw_sim_set_load_fn(mw_sim *sim, int pin, mw_sim_power_fn fn, void *ctx, double pf,
                        mw_sim_wave wave)
{
    set_src(sim, pin, SRC_FN, pf, wave);
    sim->pins[pin & 15].fn = fn;
    sim->pins[pin & 15].ctx = ctx;
}

void mw_sim_set_wave_fn(mw_sim *sim, int pin, int is_voltage, mw_sim_wave_fn fn, void *ctx)
{
    pin_source *p = &sim->pins[pin & 15];
    p->kind = is_voltage ? SRC_VWAVE : SRC_IWAVE;
    p->wfn = fn;
    p->ctx = ctx;
}

void mw_sim_set_crosstalk(mw_sim *sim, mw_sim_frontend rev)
{
    sim->xt_rev = rev == MW_SIM_FE_REV_A || rev == MW_SIM_FE_REV_B ? rev : MW_SIM_FE_IDEAL;
    if (sim->xt_rev != MW_SIM_FE_IDEAL) crosstalk_prepare(sim);
}

void mw_sim_set_sh_kick(mw_sim *sim, mw_sim_frontend rev, double r_mux_ohm)
{
    sim->kick_rev = rev == MW_SIM_FE_REV_A || rev == MW_SIM_FE_REV_B ? rev : MW_SIM_FE_IDEAL;
    if (!(r_mux_ohm > 0) || !isfinite(r_mux_ohm)) sim->kick_rev = MW_SIM_FE_IDEAL;
    if (sim->kick_rev == MW_SIM_FE_IDEAL) return;
    sim->kick_r_mux = r_mux_ohm;
    double c_f = sim->kick_rev == MW_SIM_FE_REV_A ? 10e-9 : 1e-9;
    const double r_src[2] = {1200.0, 8.25e3 * 1e3 / (8.25e3 + 1e3) + 330.0}; /* I, V */
    const double t[2] = {(double)MW_ADC_SAMPLE_DELAY_CYCLES / MW_SIM_F_CPU,
                         (double)MW_ADC_FIRST_SAMPLE_DELAY_CYCLES / MW_SIM_F_CPU};
    for (int v = 0; v < 2; v++)
        for (int f = 0; f < 2; f++)
            sim->kick[v][f] = sh_left(r_src[v], c_f, r_mux_ohm, t[f]);
}

void mw_sim_set_noise(mw_sim *sim, double lsb_rms, unsigned long seed)
{
    sim->noise_lsb = lsb_rms;
    gsl_rng_set(sim->rng, seed);
}

void mw_sim_set_board(mw_sim *sim, double aref_v, double bias_v)
{
    sim->aref_v = aref_v > 0 ? aref_v : 0;
    sim->bias_v = bias_v;
}

uint64_t mw_sim_adc_last(const mw_sim *sim, int *pin, uint16_t *code)
{
    *pin = sim->result_pin;
    *code = sim->result;
    return sim->nconv - (uint64_t)sim->adc_busy;
}

uint64_t mw_sim_adc_ref_conflicts(const mw_sim *sim)
{
    return sim->ref_conflicts;
}

uint64_t mw_sim_adc_conversions(const mw_sim *sim)
{
    return sim->nconv;
}

double mw_sim_adc_sample_time(const mw_sim *sim, uint64_t index)
{
    /* conversion 0 samples 13.5 ADC clocks after its start; conversion c >= 1 starts
     * 25 + 13 (c - 1) clocks after it and samples 1.5 clocks later: 13.5 + 13 c in all */
    uint64_t cycle =
        sim->adc_enable_cycle + MW_ADC_FIRST_SAMPLE_DELAY_CYCLES + index * (uint64_t)MW_CONV_CYCLES;
    return true_seconds(sim, cycle);
}

static void uart_out_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    mw_sim *sim = param;
    if (sim->sink) sim->sink(sim->sink_ctx, (uint8_t)value);
}

static void feed_uart(mw_sim *sim)
{
    while (sim->xon && sim->rxq_tail != sim->rxq_head) {
        uint8_t b = sim->rxq[sim->rxq_tail];
        sim->rxq_tail = (sim->rxq_tail + 1) % MW_SIM_TXQ;
        avr_raise_irq(sim->uart_irq + UART_IRQ_INPUT, b); /* may call xoff_hook */
    }
}

static void xon_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    mw_sim *sim = param;
    sim->xon = 1;
    feed_uart(sim);
}

static void xoff_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    mw_sim *sim = param;
    sim->xon = 0;
}

/* simavr logs chatter ("Loaded N .text") to stdout; keep errors only, on stderr. */
static void quiet_logger(avr_t *avr, const int level, const char *fmt, va_list ap)
{
    if (level <= LOG_ERROR) {
        fputs("simavr: ", stderr);
        vfprintf(stderr, fmt, ap);
    }
}

/* simavr's default sleep callback sleeps the host thread in real time; we pace ourselves. */
static void no_sleep(avr_t *avr, avr_cycle_count_t how_long) {}

mw_sim *mw_sim_open(const char *elf_path, char *err, size_t errlen)
{
    avr_global_logger_set(quiet_logger);
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    FILE *f = fopen(elf_path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", elf_path, strerror(errno));
        return NULL;
    }
    fclose(f);
    if (elf_read_firmware(elf_path, &fw) != 0) {
        snprintf(err, errlen, "%s: not a readable AVR ELF file", elf_path);
        return NULL;
    }
    avr_t *avr = avr_make_mcu_by_name("atmega2560");
    if (!avr) {
        snprintf(err, errlen, "simavr has no atmega2560 core");
        return NULL;
    }
    mw_sim *sim = calloc(1, sizeof *sim);
    if (!sim) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    sim->avr = avr;
    avr_init(avr);
    avr->log = LOG_ERROR;
    fw.frequency = MW_SIM_F_CPU;
    avr_load_firmware(avr, &fw);
    /* avr_load_firmware copies everything it uses into the core */
    free(fw.flash);
    free(fw.eeprom);
    free(fw.fuse);
    free(fw.lockbits);
    for (uint32_t i = 0; i < fw.symbolcount; i++)
        free(fw.symbol[i]);
    free(fw.symbol);
    avr->frequency = MW_SIM_F_CPU;
    avr->sleep = no_sleep;

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    sim->uart_irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), 0);
    avr_irq_register_notify(sim->uart_irq + UART_IRQ_OUTPUT, uart_out_hook, sim);
    avr_irq_register_notify(sim->uart_irq + UART_IRQ_OUT_XON, xon_hook, sim);
    avr_irq_register_notify(sim->uart_irq + UART_IRQ_OUT_XOFF, xoff_hook, sim);
    sim->xon = 1;
    sim->cycle0 = avr->cycle;
    sim->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!sim->rng || attach_adc(sim) != 0) {
        snprintf(err, errlen, "simavr's atmega2560 has no ADC to attach to");
        mw_sim_close(sim);
        return NULL;
    }
    mw_sim_set_noise(sim, 0.5, 1);
    mw_sim_set_mains(sim, 0, 230.0, 50.0);
    mw_sim_set_board(sim, 4.096, 2.048); /* revision B, JP3 fitted */
    return sim;
}

void mw_sim_close(mw_sim *sim)
{
    if (!sim) return;
    avr_terminate(sim->avr);
    free(sim->avr);
    if (sim->rng) gsl_rng_free(sim->rng);
    free(sim);
}

void mw_sim_set_uart_sink(mw_sim *sim, mw_sim_uart_fn fn, void *ctx)
{
    sim->sink = fn;
    sim->sink_ctx = ctx;
}

int mw_sim_uart_send(mw_sim *sim, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    size_t used = (sim->rxq_head + MW_SIM_TXQ - sim->rxq_tail) % MW_SIM_TXQ;
    if (used + len >= MW_SIM_TXQ) return -1;
    for (size_t i = 0; i < len; i++) {
        sim->rxq[sim->rxq_head] = p[i];
        sim->rxq_head = (sim->rxq_head + 1) % MW_SIM_TXQ;
    }
    feed_uart(sim);
    return 0;
}

void mw_sim_set_crystal_ppm(mw_sim *sim, double ppm)
{
    sim->ppm = ppm;
}

uint64_t mw_sim_cycles(const mw_sim *sim)
{
    return sim->avr->cycle - sim->cycle0;
}

uint64_t mw_sim_time_ns(const mw_sim *sim)
{
    /* the crystal runs at F_CPU * (1 + ppm/1e6) in true time */
    double hz = MW_SIM_F_CPU * (1.0 + sim->ppm * 1e-6);
    return (uint64_t)((double)mw_sim_cycles(sim) * 1e9 / hz + 0.5);
}

int mw_sim_run_ns(mw_sim *sim, uint64_t dt_ns)
{
    double hz = MW_SIM_F_CPU * (1.0 + sim->ppm * 1e-6);
    double t_end_s = (double)(mw_sim_time_ns(sim) + dt_ns) * 1e-9;
    uint64_t end_cycle = sim->cycle0 + (uint64_t)(t_end_s * hz + 0.5);
    avr_t *avr = sim->avr;
    while (avr->cycle < end_cycle) {
        int st = avr_run(avr);
        if (st == cpu_Done || st == cpu_Crashed) return -1;
    }
    return 0;
}

avr_t *mw_sim_avr(mw_sim *sim)
{
    return sim->avr;
}

void mw_sim_reset(mw_sim *sim)
{
    avr_reset(sim->avr);
}

static int eeprom_io(mw_sim *sim, uint16_t addr, void *buf, uint16_t len, int write)
{
    if ((uint32_t)addr + len > 4096u) return -1;
    if (!len) return 0;
    avr_eeprom_desc_t d = {.ee = buf, .offset = addr, .size = len};
    /* simavr 1.6's EEPROM ioctl answers -1 on success too; -2 is its only error */
    int rc = avr_ioctl(sim->avr, write ? AVR_IOCTL_EEPROM_SET : AVR_IOCTL_EEPROM_GET, &d);
    return rc == -2 ? -1 : 0;
}

int mw_sim_eeprom_read(mw_sim *sim, uint16_t addr, void *buf, uint16_t len)
{
    return eeprom_io(sim, addr, buf, len, 0);
}

int mw_sim_eeprom_write(mw_sim *sim, uint16_t addr, const void *buf, uint16_t len)
{
    return eeprom_io(sim, addr, (void *)buf, len, 1);
}

static void isr_running_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    mw_sim *sim = param;
    if (value) {
        sim->isr_enter = sim->avr->cycle;
        sim->isr_in = 1;
        return;
    }
    if (!sim->isr_in) /* watching started inside the ISR: no entry time */
        return;
    sim->isr_in = 0;
    uint64_t d = sim->avr->cycle - sim->isr_enter;
    sim->isr_count++;
    sim->isr_total += d;
    if (d > sim->isr_max) sim->isr_max = d;
}

void mw_sim_isr_watch(mw_sim *sim, int vector)
{
    avr_irq_t *irq = avr_get_interrupt_irq(sim->avr, (uint8_t)vector);
    if (irq) avr_irq_register_notify(irq + AVR_INT_IRQ_RUNNING, isr_running_hook, sim);
}

void mw_sim_isr_stats(const mw_sim *sim, uint64_t *count, double *mean_cycles, uint64_t *max_cycles)
{
    *count = sim->isr_count;
    *mean_cycles = sim->isr_count ? (double)sim->isr_total / (double)sim->isr_count : 0;
    *max_cycles = sim->isr_max;
}
