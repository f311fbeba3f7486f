/* simboard — the simulated board (see mw_sim.h). It owns one simavr avr_t loaded with the
 * firmware ELF. Output bytes are pushed to a sink callback; input bytes wait in a queue
 * and are raised into the UART when its receive FIFO signals XON. simavr's own console
 * printing and its "sleep while polling" behaviour are switched off so runs are as fast as
 * the host allows and deterministic. */
#include "mw_sim.h"
#include "simboard_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>

#define MW_SIM_F_CPU 16000000u
#define MW_SIM_TXQ 4096u

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
};

static void uart_out_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    mw_sim *sim = param;
    if (sim->sink)
        sim->sink(sim->sink_ctx, (uint8_t)value);
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
    return sim;
}

void mw_sim_close(mw_sim *sim)
{
    if (!sim)
        return;
    avr_terminate(sim->avr);
    free(sim->avr);
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
    if (used + len >= MW_SIM_TXQ)
        return -1;
    for (size_t i = 0; i < len; i++) {
        sim->rxq[sim->rxq_head] = p[i];
        sim->rxq_head = (sim->rxq_head + 1) % MW_SIM_TXQ;
    }
    feed_uart(sim);
    return 0;
}

void mw_sim_set_crystal_ppm(mw_sim *sim, double ppm) { sim->ppm = ppm; }

uint64_t mw_sim_cycles(const mw_sim *sim) { return sim->avr->cycle - sim->cycle0; }

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
        if (st == cpu_Done || st == cpu_Crashed)
            return -1;
    }
    return 0;
}

avr_t *mw_sim_avr(mw_sim *sim) { return sim->avr; }
