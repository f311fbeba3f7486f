/* mw_simboot — flash contents and reset behaviour of the simulated board, so it can hold
 * what a real Arduino Mega holds: the stk500v2 bootloader in the boot section (byte address
 * 0x3E000, BOOTSZ = 4096 words, BOOTRST programmed so every reset starts there) and,
 * optionally, an application written below it.
 *
 * Intel HEX is read by a small strict parser of our own (record types 00-05, checksums,
 * addresses checked against the flash size) rather than simavr's read_ihex_chunks, which
 * writes "unsupported check type 03" to stderr for the genuine Mega bootloader and cannot
 * say which line of a corrupt file is wrong.
 *
 * Resets go through mw_sim_reset(), so the board model's own peripherals restart with the
 * core and true time goes on; the reset cause is set in MCUSR as the chip would.
 */
#ifndef MW_SIMBOOT_H
#define MW_SIMBOOT_H
#include <stddef.h>
#include <stdint.h>

#include "mw_sim.h"

/* Boot section of the ATmega2560 with BOOTSZ = 4096 words, as on every Arduino Mega. */
#define MW_SIMBOOT_ADDR 0x3E000u
#define MW_SIMBOOT_FLASH_SIZE 0x40000u
/* The genuine Arduino Mega 2560 bootloader as Debian's arduino-core-avr installs it. */
#define MW_SIMBOOT_STK500V2_HEX                                                                    \
    "/usr/share/arduino/hardware/arduino/avr/bootloaders/stk500v2/stk500boot_v2_mega2560.hex"

/* Called for every data record: len bytes at absolute byte address addr. Return 0 to go on,
 * anything else to stop parsing (the parser then returns that value). */
typedef int (*mw_simboot_hex_fn)(void *ctx, uint32_t addr, const uint8_t *data, size_t len);

/* Parse an Intel HEX file, calling fn (may be NULL: check only) for each data record.
 * Addresses must lie below limit. Returns the number of data bytes, or -1 with a message
 * naming the file and line in err. */
long mw_simboot_parse_hex(const char *path, uint32_t limit, mw_simboot_hex_fn fn, void *ctx,
                          char *err, size_t errlen);

/* Write an Intel HEX file into the board's flash at its addresses, which must all lie in
 * [lo, hi). The file is checked completely before flash is touched. Returns the number of
 * bytes written, or -1 with a message in err. */
long mw_simboot_load_hex(mw_sim *sim, const char *path, uint32_t lo, uint32_t hi, char *err,
                         size_t errlen);

/* Erase the application section (flash below MW_SIMBOOT_ADDR) to 0xFF. */
void mw_simboot_erase_app(mw_sim *sim);

/* BOOTRST fuse: on (1), resets start at MW_SIMBOOT_ADDR; off (0), at 0. Takes effect at the
 * next reset. */
void mw_simboot_set_bootrst(mw_sim *sim, int on);

/* External reset (the Mega's DTR auto-reset): the core and its peripherals restart at the
 * reset vector, EXTRF is set in MCUSR, flash and true time are kept. */
void mw_simboot_reset(mw_sim *sim);

/* Open a board the way a real Mega would be found. The ELF only provides the core (simavr
 * builds boards from ELF files); its code is kept unless bootloader_hex or app_hex is given.
 * app_hex (or NULL): application flash contents, as avrdude would have written them.
 * bootloader_hex (or NULL): bootloader in the boot section, BOOTRST on; without app_hex the
 * application section is erased (a board fresh from the factory). Returns NULL with a
 * message in err on failure. */
mw_sim *mw_simboot_open(const char *elf_path, const char *bootloader_hex, const char *app_hex,
                        char *err, size_t errlen);

/* Copy len bytes of flash from byte address addr. Returns 0, or -1 if out of range. */
int mw_simboot_read_flash(mw_sim *sim, uint32_t addr, void *buf, size_t len);

/* Compare flash with an Intel HEX file. Returns 0 when every byte of the file is in flash,
 * 1 when one differs (its address in *diff_addr when not NULL), -1 on a file error. */
int mw_simboot_compare_hex(mw_sim *sim, const char *path, uint32_t *diff_addr, char *err,
                           size_t errlen);
#endif
