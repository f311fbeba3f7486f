/* simboot — flash contents and resets of the simulated board (see mw_simboot.h). The HEX
 * parser reads a line at a time (mw_lines: the file bounded in size, line length and time) and hands each data record to a callback, so the same code
 * checks a file, loads it into flash and compares it with flash. Loading parses twice: once
 * to check the whole file, once to write, so a bad file never leaves flash half written.
 * Everything here touches simavr only through what its installed headers declare (avr_t's
 * flash, flashend, reset_pc and reset_flags; the UART's XON line). */
#include "mw_simboot.h"
#include "simboard_internal.h"

#include "mw_lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_io.h>
#include <sim_irq.h>
#include <sim_regbit.h>

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

long mw_simboot_parse_hex(const char *path, uint32_t limit, mw_simboot_hex_fn fn, void *ctx,
                          char *err, size_t errlen)
{
    /* 16 MiB and lines of 1 KiB (a record is at most 521 characters); a FIFO ends in 10 s */
    static const mw_lines_limits limits = {16u << 20, 1024, MW_LINES_TIMEOUT_MS};
    mw_lines in;
    if (mw_lines_open(&in, path, &limits, err, errlen)) {
        mw_lines_close(&in);
        return -1;
    }
    char *line;
    size_t got;
    ssize_t n;
    long lineno = 0, total = 0;
    uint32_t base = 0;
    int seen_eof = 0, more;
    long rc = 0;
    while (!seen_eof && (more = mw_lines_next(&in, &line, &got, err, errlen)) != 0) {
        if (more < 0) {
            rc = -1;
            break;
        }
        n = (ssize_t)got;
        lineno = in.line;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' ||
                         line[n - 1] == '\t'))
            line[--n] = 0;
        if (n == 0) continue;
        uint8_t rec[5 + 255];
        size_t nbytes = (size_t)(n - 1) / 2;
        if (line[0] != ':' || (n - 1) % 2 != 0 || nbytes < 5 || nbytes > sizeof rec) {
            snprintf(err, errlen, "%s:%ld: not an Intel HEX record", path, lineno);
            rc = -1;
            break;
        }
        uint8_t sum = 0;
        size_t i;
        for (i = 0; i < nbytes; i++) {
            int hi = hexval(line[1 + 2 * i]), lo = hexval(line[2 + 2 * i]);
            if (hi < 0 || lo < 0) break;
            rec[i] = (uint8_t)(hi << 4 | lo);
            sum = (uint8_t)(sum + rec[i]);
        }
        if (i < nbytes) {
            snprintf(err, errlen, "%s:%ld: bad hex digit", path, lineno);
            rc = -1;
            break;
        }
        size_t len = rec[0];
        if (nbytes != len + 5) {
            snprintf(err, errlen, "%s:%ld: record length %zu does not match the line", path, lineno,
                     len);
            rc = -1;
            break;
        }
        if (sum != 0) {
            snprintf(err, errlen, "%s:%ld: checksum error", path, lineno);
            rc = -1;
            break;
        }
        uint32_t off = (uint32_t)rec[1] << 8 | rec[2];
        const uint8_t *data = rec + 4;
        switch (rec[3]) {
        case 0x00: {
            uint64_t addr = (uint64_t)base + off;
            if (addr + len > limit) {
                snprintf(err, errlen, "%s:%ld: address 0x%llx is outside 0x0-0x%x", path, lineno,
                         (unsigned long long)(addr + len - 1), limit - 1);
                rc = -1;
                break;
            }
            if (fn && len) {
                int r = fn(ctx, (uint32_t)addr, data, len);
                if (r) {
                    rc = r;
                    break;
                }
            }
            total += (long)len;
            break;
        }
        case 0x01:
            seen_eof = 1;
            break;
        case 0x02: /* extended segment address: base = value * 16 */
        case 0x04: /* extended linear address: base = value << 16 */
            if (len != 2) {
                snprintf(err, errlen, "%s:%ld: bad address record", path, lineno);
                rc = -1;
                break;
            }
            base = ((uint32_t)data[0] << 8 | data[1]) << (rec[3] == 0x02 ? 4 : 16);
            break;
        case 0x03: /* start segment / linear address: where execution begins; the AVR */
        case 0x05: /* always starts at its reset vector, so these are ignored */
            break;
        default:
            snprintf(err, errlen, "%s:%ld: unknown record type %02X", path, lineno, rec[3]);
            rc = -1;
            break;
        }
        if (rc) break;
    }
    mw_lines_close(&in);
    if (rc) return rc;
    if (!seen_eof) {
        snprintf(err, errlen, "%s: no end-of-file record (truncated file?)", path);
        return -1;
    }
    return total;
}

typedef struct {
    avr_t *avr;
    uint32_t lo, hi;
    const char *path;
    char *err;
    size_t errlen;
} load_ctx;

static int check_range(void *p, uint32_t addr, const uint8_t *data, size_t len)
{
    load_ctx *c = p;
    if (addr < c->lo || addr + len > c->hi) {
        snprintf(c->err, c->errlen, "%s: data at 0x%x lies outside 0x%x-0x%x", c->path,
                 (unsigned)addr, (unsigned)c->lo, (unsigned)(c->hi - 1));
        return -1;
    }
    return 0;
}

static int write_flash(void *p, uint32_t addr, const uint8_t *data, size_t len)
{
    load_ctx *c = p;
    memcpy(c->avr->flash + addr, data, len);
    return 0;
}

long mw_simboot_load_hex(mw_sim *sim, const char *path, uint32_t lo, uint32_t hi, char *err,
                         size_t errlen)
{
    avr_t *avr = mw_sim_avr(sim);
    uint32_t size = avr->flashend + 1;
    if (hi > size) hi = size;
    load_ctx c = {avr, lo, hi, path, err, errlen};
    long n = mw_simboot_parse_hex(path, size, check_range, &c, err, errlen);
    if (n < 0) return -1;
    if (n == 0) {
        snprintf(err, errlen, "%s: holds no data", path);
        return -1;
    }
    mw_simboot_parse_hex(path, size, write_flash, &c, err, errlen);
    return n;
}

void mw_simboot_erase_app(mw_sim *sim)
{
    avr_t *avr = mw_sim_avr(sim);
    uint32_t end = MW_SIMBOOT_ADDR < avr->flashend + 1 ? MW_SIMBOOT_ADDR : avr->flashend + 1;
    memset(avr->flash, 0xFF, end);
}

void mw_simboot_set_bootrst(mw_sim *sim, int on)
{
    mw_sim_avr(sim)->reset_pc = on ? MW_SIMBOOT_ADDR : 0;
}

/* Reset the board (mw_sim_reset: the core, simavr's peripherals and the board model's own,
 * true time going on) and set the MCUSR reset cause: PORF at power-on, else EXTRF. */
static void reset_board(mw_sim *sim, int power_on)
{
    avr_t *avr = mw_sim_avr(sim);
    mw_sim_reset(sim);
    avr_regbit_t cause = power_on ? avr->reset_flags.porf : avr->reset_flags.extrf;
    if (cause.reg) avr_regbit_set(avr, cause);
    /* The UART's receive FIFO was emptied: let the board's input queue flow again. */
    avr_irq_t *uart = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), 0);
    if (uart) avr_raise_irq(uart + UART_IRQ_OUT_XON, 1);
}

void mw_simboot_reset(mw_sim *sim)
{
    reset_board(sim, 0);
}

mw_sim *mw_simboot_open(const char *elf_path, const char *bootloader_hex, const char *app_hex,
                        char *err, size_t errlen)
{
    /* check the HEX files first: a bad one is reported without building a board */
    const char *files[2] = {app_hex, bootloader_hex};
    for (int i = 0; i < 2; i++)
        if (files[i] &&
            mw_simboot_parse_hex(files[i], MW_SIMBOOT_FLASH_SIZE, NULL, NULL, err, errlen) < 0)
            return NULL;
    mw_sim *sim = mw_sim_open(elf_path, err, errlen);
    if (!sim) return NULL;
    if (!bootloader_hex && !app_hex) return sim;
    mw_simboot_erase_app(sim);
    if (app_hex &&
        mw_simboot_load_hex(sim, app_hex, 0, bootloader_hex ? MW_SIMBOOT_ADDR : UINT32_MAX, err,
                            errlen) < 0)
        goto fail;
    if (bootloader_hex) {
        if (mw_simboot_load_hex(sim, bootloader_hex, MW_SIMBOOT_ADDR, MW_SIMBOOT_FLASH_SIZE, err,
                                errlen) < 0)
            goto fail;
        mw_simboot_set_bootrst(sim, 1);
    }
    reset_board(sim, 1); /* the board has just been powered */
    return sim;
fail:
    mw_sim_close(sim);
    return NULL;
}

int mw_simboot_read_flash(mw_sim *sim, uint32_t addr, void *buf, size_t len)
{
    avr_t *avr = mw_sim_avr(sim);
    if ((uint64_t)addr + len > (uint64_t)avr->flashend + 1) return -1;
    memcpy(buf, avr->flash + addr, len);
    return 0;
}

typedef struct {
    avr_t *avr;
    uint32_t diff;
    int differs;
} cmp_ctx;

static int compare_flash(void *p, uint32_t addr, const uint8_t *data, size_t len)
{
    cmp_ctx *c = p;
    for (size_t i = 0; i < len; i++)
        if (c->avr->flash[addr + i] != data[i]) {
            c->diff = addr + (uint32_t)i;
            c->differs = 1;
            return 1;
        }
    return 0;
}

int mw_simboot_compare_hex(mw_sim *sim, const char *path, uint32_t *diff_addr, char *err,
                           size_t errlen)
{
    avr_t *avr = mw_sim_avr(sim);
    cmp_ctx c = {avr, 0, 0};
    long r = mw_simboot_parse_hex(path, avr->flashend + 1, compare_flash, &c, err, errlen);
    if (c.differs) {
        if (diff_addr) *diff_addr = c.diff;
        return 1;
    }
    return r < 0 ? -1 : 0;
}
