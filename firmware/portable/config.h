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
 * A blank (all 0xFF) or corrupt image is never used: defaults are loaded and flagged. */
#ifndef MW_CONFIG_H
#define MW_CONFIG_H
#include <stdint.h>

#include "afe.h"
#include "metrology.h"

#define MW_CONFIG_VERSION 1
#define MW_CONFIG_IMAGE_SIZE 151

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

#endif
