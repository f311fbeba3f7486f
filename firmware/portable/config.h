/* config — the meter's settings (rate, channel map, calibration) and their EEPROM image.
 *
 * EEPROM layout v1 (little-endian, at EEPROM address 0, MW_CONFIG_IMAGE_SIZE bytes):
 *   0  'M' 'W'           magic
 *   2  u8 layout version (1)
 *   3  u8 rate_hz
 *   4  u8 nchan_i        current channels (1..15)
 *   5  u8 pins[16]       ADC pin of channel c (pins[0] = voltage), 0..15
 *  21  16 x {f32 gain, f32 phase_deg}
 * 149  u16 CRC-16 (crc16.h) of bytes 0..148
 * A blank (all 0xFF) or corrupt image is never used: defaults are loaded and flagged.
 *
 * The calibration record (who calibrated when, with what: `CALDATE`) lives in a block of its
 * own after the image, so version-1 images stay valid as they are and the layout version
 * does not change (docs/protocol.md, "EEPROM layout"):
 * 160  'M' 'C'           magic
 * 162  u8 record version (1)
 * 163  u8 0
 * 164  u32 date          yyyymmdd, e.g. 20250314
 * 168  char text[16]     the references used, NUL-padded (MW_CALREC_TEXT_MAX characters)
 * 184  u16 link          the CRC-16 of the configuration image it was saved with
 * 186  u16 CRC-16 of bytes 160..185
 * A record whose CRC or link does not match (a firmware without records saved a new image
 * since, or the image is not in use) is not reported; "no record" is stored as all 0xFF. */
#ifndef MW_CONFIG_H
#define MW_CONFIG_H
#include <stdint.h>

#include "afe.h"
#include "metrology.h"

#define MW_CONFIG_VERSION 1
#define MW_CONFIG_IMAGE_SIZE 151
#define MW_CONFIG_ADDR 0 /* a plain address, not an EEMEM variable: the ELF then carries no
                            .eeprom section that a programmer or simavr would write */
#define MW_CALREC_ADDR 160
#define MW_CALREC_SIZE 28
#define MW_CALREC_TEXT_MAX 16

typedef struct {
    uint8_t rate_hz;
    uint8_t nchan_i;
    uint8_t pins[MW_MAX_CHANNELS];
    mw_cal cal[MW_MAX_CHANNELS];
} mw_config;

typedef enum {
    MW_CONFIG_OK = 0,
    MW_CONFIG_BLANK,   /* erased EEPROM */
    MW_CONFIG_CORRUPT, /* bad magic or CRC */
    MW_CONFIG_VERSION_UNKNOWN,
    MW_CONFIG_INVALID /* CRC fine but values out of range */
} mw_config_status;

/* Defaults: 4 Hz, 1 voltage (A0) + 5 currents (A1..A5), front-end calibration (afe.h). */
void mw_config_defaults(mw_config *c);
/* Channel map and rate are usable (distinct pins 0..15, 1..15 currents, valid rate). */
int mw_config_valid(const mw_config *c);
void mw_config_to_image(const mw_config *c, uint8_t img[MW_CONFIG_IMAGE_SIZE]);
/* On anything but MW_CONFIG_OK, *c holds the defaults. */
mw_config_status mw_config_from_image(mw_config *c, const uint8_t img[MW_CONFIG_IMAGE_SIZE]);

/* The calibration record: date 0 = none. */
typedef struct {
    uint32_t date_yyyymmdd;
    char text[MW_CALREC_TEXT_MAX + 1]; /* NUL-terminated */
} mw_calrec;

/* The CRC stored at the end of a configuration image: the record's link. */
uint16_t mw_config_image_crc(const uint8_t img[MW_CONFIG_IMAGE_SIZE]);
/* A plausible date: 2000..2999, month 1..12, day 1..31. */
int mw_calrec_date_valid(uint32_t yyyymmdd);
/* A character the record's text may hold: letters, digits and . _ - + / : = @ */
int mw_calrec_char_valid(char c);
/* The record's EEPROM block; date 0 gives all 0xFF (no record). */
void mw_calrec_to_image(const mw_calrec *r, uint16_t link, uint8_t img[MW_CALREC_SIZE]);
/* Returns 1 and fills *r when the block is a valid record saved with the image whose CRC is
 * link; otherwise 0 and *r is "none". */
uint8_t mw_calrec_from_image(mw_calrec *r, uint16_t link, const uint8_t img[MW_CALREC_SIZE]);

#endif
