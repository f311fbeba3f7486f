/* main — the meter: boot (reset cause, configuration from EEPROM), then a loop that turns
 * each finished window into one frame, executes commands, and feeds the watchdog.
 *
 * The line hold (docs/protocol.md): a window's line is formatted as soon as the window is
 * taken, then held until MW_LINE_HOLD_US after the window's end, counted in conversions
 * (the last one timed with Timer1), and only then written to the UART, so the time from a
 * window's end to its first byte is the same for every window whatever its values took to
 * format. Commands that arrive meanwhile are read (up to one complete line, the rest waits
 * in the receive ring) and executed after the line has been queued; a window whose work
 * took longer than the hold is sent at once.
 *
 * Everything slow (floating point, formatting, EEPROM, UART) runs here, never in an
 * interrupt. If the loop hangs the watchdog (1 s) resets the board, and the next boot line
 * says so; brown-out resets (BOD fuse, 2.7 V on the Mega) are reported the same way, and
 * the EEPROM image's CRC guards against a write torn by a power failure.
 *
 * The calibration record (CALDATE: date and references) is kept beside the configuration
 * and saved with it (config.h). Any CAL since the last CALDATE makes it stale: a SAVE then
 * stores no record, so a date is never reported for constants it does not describe. */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <math.h>
#include <string.h>
#include <util/delay.h>

#include "afe.h"
#include "command.h"
#include "config.h"
#include "frame.h"
#include "line.h"
#include "metrology.h"
#include "sampler.h"
#include "uart.h"

static uint8_t mcusr_at_boot __attribute__((section(".noinit")));

/* Save and clear the reset cause before anything else, and stop a watchdog that may still
 * be running after a watchdog reset. */
void early_init(void) __attribute__((naked, used, section(".init3")));
void early_init(void)
{
    mcusr_at_boot = MCUSR;
    MCUSR = 0;
    wdt_disable();
}

static mw_config cfg;
static mw_config_status cfg_status;
static uint8_t streaming = 1;
static uint8_t first_pending;
static uint16_t lost_seen;
static uint64_t conv_base; /* 64-bit extension of the sampler's conversion counter */
static uint32_t conv_last;
static uint32_t hold_conv; /* the line hold in conversions */
static mw_energy energy[MW_MAX_I];
static mw_frame frame;
static float freq_last = 50.0f;
static char out[800];
static mw_cmd_reader reader;
static mw_calrec calrec;  /* date 0: none */
static uint8_t cal_dirty; /* a CAL since the record was set or loaded */

/* The configuration image lives at MW_CONFIG_ADDR. Not declared EEMEM: that would put an
 * all-zero .eeprom section in the ELF, which `avrdude -U eeprom:w:megawatt.elf` (and
 * simavr, by default) would write, so the meter would boot with a corrupt image (B,1,2)
 * instead of a blank one (B,1,1). */
#define ee_image ((uint8_t *)MW_CONFIG_ADDR)

static void send(mw_line *l)
{
    uint16_t n = mw_line_finish(l);
    if (n) uart_write(l->buf, n);
}

static void send_id(void)
{
    mw_line l;
    mw_line_init(&l, out, sizeof out);
    mw_line_str(&l, "I,megawatt," MW_VERSION "," MW_GIT_ID ",atmega2560:" MW_BOARD_NAME ",");
    mw_line_u64(&l, cfg.rate_hz);
    mw_line_char(&l, ',');
    mw_line_u64(&l, 1000u / cfg.rate_hz);
    mw_line_char(&l, ',');
    mw_line_u64(&l, cfg.nchan_i);
    mw_line_char(&l, ',');
    for (uint8_t c = 0; c <= cfg.nchan_i; c++) {
        if (c) mw_line_char(&l, ':');
        mw_line_char(&l, 'A');
        mw_line_u64(&l, cfg.pins[c]);
    }
    mw_line_str(&l, cfg_status == MW_CONFIG_OK ? ",EEPROM," : ",DEFAULT,");
    if (calrec.date_yyyymmdd) {
        mw_line_u64(&l, calrec.date_yyyymmdd);
        if (calrec.text[0]) {
            mw_line_char(&l, ':');
            mw_line_str(&l, calrec.text);
        }
    } else {
        mw_line_char(&l, '-');
    }
    send(&l);
}

static void send_ok(const char *what)
{
    mw_line l;
    mw_line_init(&l, out, sizeof out);
    mw_line_str(&l, "OK,");
    mw_line_str(&l, what);
    send(&l);
}

static void send_err(uint8_t code, const char *text)
{
    mw_line l;
    mw_line_init(&l, out, sizeof out);
    mw_line_str(&l, "E,");
    mw_line_u64(&l, code);
    mw_line_char(&l, ',');
    mw_line_str(&l, text);
    send(&l);
}

static void send_cal(uint8_t ch)
{
    mw_line l;
    mw_line_init(&l, out, sizeof out);
    mw_line_str(&l, "C,");
    mw_line_u64(&l, ch);
    mw_line_char(&l, ',');
    /* gain in micro-units per count, phase in millidegrees: exact integers on the wire */
    mw_line_fixed(&l, (int64_t)lroundf(cfg.cal[ch].gain * 1e6f), 6);
    mw_line_char(&l, ',');
    mw_line_fixed(&l, (int64_t)lroundf(cfg.cal[ch].phase_deg * 1e3f), 3);
    send(&l);
}

/* The fundamental's reference (fund.h) at the last frequency measured. */
static void set_fund(void)
{
    mw_fund_ref fr;
    mw_fund_setup(&fr, freq_last, cfg.nchan_i, 1000000ul / cfg.rate_hz);
    sampler_set_fund(&fr);
}

static void restart_sampling(void)
{
    uint32_t period_us = 1000000ul / cfg.rate_hz;
    sampler_start(cfg.pins, cfg.nchan_i, period_us);
    set_fund(); /* from the second window on (the first measures its crossings) */
    hold_conv = MW_LINE_HOLD_US(cfg.nchan_i, period_us) / MW_CONV_US;
    conv_base = 0;
    conv_last = 0;
    first_pending = 1;
    /* the first window's filters while it runs (at the last frequency measured, or 50
     * Hz): made in its line hold they could make it late (six taps) */
    mw_metrology_prepare(cfg.nchan_i, cfg.cal, freq_last);
}

static void load_config(void)
{
    uint8_t img[MW_CONFIG_IMAGE_SIZE];
    eeprom_read_block(img, ee_image, sizeof img);
    cfg_status = mw_config_from_image(&cfg, img);
    uint8_t rec[MW_CALREC_SIZE];
    eeprom_read_block(rec, (const void *)MW_CALREC_ADDR, sizeof rec);
    if (cfg_status != MW_CONFIG_OK || !mw_calrec_from_image(&calrec, mw_config_image_crc(img), rec))
        memset(&calrec, 0, sizeof calrec);
    cal_dirty = 0;
}

static void execute(const char *line)
{
    mw_cmd c;
    mw_cmd_err e = mw_cmd_parse(line, &c);
    if (e == MW_ERR_UNKNOWN) {
        send_err(e, "unknown command");
        return;
    }
    if (e == MW_ERR_ARG) {
        send_err(e, "bad argument");
        return;
    }
    if (e != MW_ERR_NONE) {
        send_err(e, "bad command");
        return;
    }
    switch (c.kind) {
    case MW_CMD_ID:
        send_id();
        break;
    case MW_CMD_RATE:
        cfg.rate_hz = c.n;
        restart_sampling();
        send_ok("RATE");
        break;
    case MW_CMD_CH:
        cfg.nchan_i = (uint8_t)(c.n - 1u);
        memcpy(cfg.pins, c.pins, c.n);
        restart_sampling();
        send_ok("CH");
        break;
    case MW_CMD_CAL_GET:
        send_cal(c.n);
        break;
    case MW_CMD_CAL_SET:
        cfg.cal[c.n].gain = c.gain;
        cfg.cal[c.n].phase_deg = c.phase_deg;
        cal_dirty = 1;
        send_cal(c.n);
        break;
    case MW_CMD_CALDATE:
        calrec.date_yyyymmdd = c.date_yyyymmdd;
        memcpy(calrec.text, c.text, sizeof calrec.text);
        cal_dirty = 0;
        send_ok("CALDATE");
        break;
    case MW_CMD_SAVE: {
        uint8_t img[MW_CONFIG_IMAGE_SIZE];
        mw_config_to_image(&cfg, img);
        eeprom_update_block(img, ee_image, sizeof img);
        cfg_status = MW_CONFIG_OK;
        if (cal_dirty) memset(&calrec, 0, sizeof calrec);
        wdt_reset(); /* up to 179 bytes at 3.4 ms each: keep well inside the 1 s */
        uint8_t rec[MW_CALREC_SIZE];
        mw_calrec_to_image(&calrec, mw_config_image_crc(img), rec);
        eeprom_update_block(rec, (void *)MW_CALREC_ADDR, sizeof rec);
        send_ok("SAVE");
        break;
    }
    case MW_CMD_LOAD:
        load_config();
        restart_sampling();
        if (cfg_status == MW_CONFIG_OK)
            send_ok("LOAD");
        else
            send_err(MW_ERR_EEPROM, "EEPROM blank or corrupt, defaults loaded");
        break;
    case MW_CMD_DEFAULTS:
        mw_config_defaults(&cfg);
        cfg_status = MW_CONFIG_BLANK;
        memset(&calrec, 0, sizeof calrec);
        restart_sampling();
        send_ok("DEFAULTS");
        break;
    case MW_CMD_RESET:
        memset(energy, 0, sizeof energy);
        send_ok("RESET");
        break;
    case MW_CMD_START:
        streaming = 1;
        send_ok("START");
        break;
    case MW_CMD_STOP:
        streaming = 0;
        send_ok("STOP");
        break;
    case MW_CMD_HANG:
#ifdef MW_TEST_HOOKS
        send_ok("HANG");
        for (;;) /* the watchdog must reset the board */
            ;
#else
        send_err(MW_ERR_UNKNOWN, "unknown command");
#endif
        break;
    case MW_CMD_STARVE:
#ifdef MW_TEST_HOOKS
        send_ok("STARVE");
        uart_flush();
        cli();
        for (uint16_t i = 0; i < c.us / 10u; i++)
            _delay_us(10);
        sei();
#else
        send_err(MW_ERR_UNKNOWN, "unknown command");
#endif
        break;
    }
}

static uint64_t extend(uint32_t conv)
{
    uint64_t v = conv_base + (uint32_t)(conv - conv_last);
    conv_base = v;
    conv_last = conv;
    return v;
}

/* Formats the window's line into out; returns its length (0 if it did not fit). */
static uint16_t report(const mw_sums *s)
{
    mw_metrology r;
    mw_metrology_compute(s, cfg.nchan_i, cfg.cal, freq_last, &r);
    sampler_set_vthreshold(mw_metrology_vmean(s));
    if (r.freq_ok && r.freq_hz > 40.0f && r.freq_hz < 70.0f) freq_last = r.freq_hz;
    set_fund();

    uint8_t flags = 0;
    uint16_t lost = sampler_lost_windows();
    if (s->missed || lost != lost_seen) flags |= MW_FLAG_OVERRUN;
    lost_seen = lost;
    if (s->clip) flags |= MW_FLAG_CLIP;
    if (r.vrms_v < MW_FRAME_MIN_VRMS_V) flags |= MW_FLAG_NO_VOLTAGE;
    if (cfg_status != MW_CONFIG_OK) flags |= MW_FLAG_CAL_DEFAULT;
    if (!r.freq_ok) flags |= MW_FLAG_NO_FREQ;
    if (first_pending) {
        flags |= MW_FLAG_FIRST;
        if (mcusr_at_boot & _BV(WDRF)) flags |= MW_FLAG_WDT_RESET;
        if (mcusr_at_boot & _BV(BORF)) flags |= MW_FLAG_BOR_RESET;
        first_pending = 0;
        mcusr_at_boot = 0;
    }
    uint64_t c0 = extend(s->conv0);
    uint64_t c1 = extend(s->conv1);

    frame.seq = s->seq;
    frame.t0_us = c0 * MW_CONV_US;
    frame.t1_us = c1 * MW_CONV_US;
    frame.flags = flags;
    frame.nsets = s->nsets;
    frame.missed = s->missed;
    frame.clip = s->clip;
    mw_frame_set_values(&frame, &r, cfg.nchan_i);
    for (uint8_t k = 0; k < cfg.nchan_i; k++) {
        mw_energy_add(&energy[k], frame.p_mw[k], (uint32_t)(frame.t1_us - frame.t0_us));
        frame.e_mj[k] = mw_energy_mj(&energy[k]);
    }
    return mw_frame_encode(&frame, out, sizeof out);
}

/* Reads received bytes into the command reader until a line is complete: returns 1 (a
 * command in reader.buf, valid until the next byte is pushed), -1 (an overlong line ended)
 * or 0 (no complete line yet; everything received so far is consumed). */
static int8_t read_command(void)
{
    int16_t ch;
    while ((ch = uart_getc()) >= 0) {
        int8_t r = mw_cmd_reader_push(&reader, (char)ch);
        if (r) return r;
    }
    return 0;
}

static void handle_command(int8_t r)
{
    if (r == 1)
        execute(reader.buf);
    else if (r < 0)
        send_err(MW_ERR_LONG, "line too long");
}

int main(void)
{
    DDRB |= _BV(PB7);
    uart_init();
    load_config();
    mw_cmd_reader_init(&reader);
    wdt_enable(WDTO_1S);
    sei();
    {
        mw_line l;
        mw_line_init(&l, out, sizeof out);
        mw_line_str(&l, "B,");
        mw_line_hex(&l, mcusr_at_boot);
        mw_line_char(&l, ',');
        mw_line_u64(&l, cfg_status);
        send(&l);
    }
    send_id();
    restart_sampling();
    for (;;) {
        wdt_reset();
        int8_t r;
        while ((r = read_command()) != 0)
            handle_command(r);
        const mw_sums *s = sampler_take();
        if (s) {
            PORTB ^= _BV(PB7);                   /* LED toggles once per window */
            uint32_t due = s->conv1 + hold_conv; /* the window ends as conversion conv1 starts */
            uint16_t n = report(s);
            sampler_release();
            if (streaming && n) {
                /* the line hold: out holds the line, so a command that completes meanwhile
                 * (its reply would use out) waits in the reader until the line is queued */
                r = 0;
                do {
                    wdt_reset();
                    if (!r) r = read_command();
                } while (!sampler_reached(due));
                uart_write(out, n);
                handle_command(r);
            }
            /* the next window's filters, now, outside its line hold */
            mw_metrology_prepare(cfg.nchan_i, cfg.cal, freq_last);
        }
    }
}
