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
};

double mw_sim_wave_value(mw_sim_wave wave, double x)
{
    if (wave == MW_SIM_SMPS)
        return sin(x) - 0.75 * sin(3 * x) + 0.5 * sin(5 * x) - 0.25 * sin(7 * x);
    return sin(x);
}

static double true_seconds(const mw_sim *sim, uint64_t cycle)
{
    return (double)(cycle - sim->cycle0) / (MW_SIM_F_CPU * (1.0 + sim->ppm * 1e-6));
}

/* Instantaneous value at pin `pin` in physical units (V for mains, A for loads). */
static double pin_value(mw_sim *sim, int pin, double t)
{
    const pin_source *p = &sim->pins[pin];
    double w = 2.0 * M_PI * sim->mains_hz;
    double vpk = sim->mains_vrms * M_SQRT2;
    double i1;
    switch (p->kind) {
    case SRC_MAINS:
        return vpk * sin(w * t);
    case SRC_VWAVE:
    case SRC_IWAVE:
        return p->wfn(p->ctx, t);
    case SRC_CURRENT:
        i1 = p->i1_peak;
        break;
    case SRC_POWER:
    case SRC_FN: {
        double pw = p->kind == SRC_FN ? p->fn(p->ctx, pin, (uint64_t)(t * 1e9)) : p->p_w;
        /* P = Vrms * I1rms * pf  ->  I1 peak = sqrt2 * P / (Vrms * pf) */
        i1 = sim->mains_vrms > 0 ? M_SQRT2 * pw / (sim->mains_vrms * p->pf) : 0;
        break;
    }
    default:
        return 0;
    }
    return i1 * mw_sim_wave_value(p->wave, w * t - p->lag);
}

static uint16_t pin_code(mw_sim *sim, int pin, double t)
{
    double x = pin_value(sim, pin, t);
    src_kind k = sim->pins[pin].kind;
    double ratio = k == SRC_MAINS || k == SRC_VWAVE ? MW_AFE_V_RATIO : MW_AFE_I_RATIO;
    double volts = sim->bias_v + x / ratio;
    if (sim->adc_vref <= 0) return 1023; /* open AREF: any input is above the reference */
    double code = floor(volts * 1024.0 / sim->adc_vref +
                        (sim->noise_lsb > 0 ? gsl_ran_gaussian(sim->rng, sim->noise_lsb) : 0));
    if (code < 0) code = 0;
    if (code > 1023) code = 1023;
    return (uint16_t)code;
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
    int first = sim->adc_first;
    sim->adc_first = 0;
    if (first) sim->adc_enable_cycle = start;
    uint64_t delay = first ? MW_ADC_FIRST_SAMPLE_DELAY_CYCLES : MW_ADC_SAMPLE_DELAY_CYCLES;
    uint64_t length = (first ? 25u : 13u) * MW_ADC_PRESCALER;
    sim->adc_vref = adc_reference(sim, admux);
    sim->pending = pin < 0 ? 0 : pin_code(sim, pin, true_seconds(sim, start + delay));
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
