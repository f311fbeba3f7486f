/* crc16 — CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor).
 * Protects every line the meter sends and the calibration block in EEPROM. Check value:
 * crc16 of the ASCII bytes "123456789" is 0x29B1. Portable C: the firmware and the host
 * decoder use this same file. */
#ifndef MW_CRC16_H
#define MW_CRC16_H
#include <stddef.h>
#include <stdint.h>

#define MW_CRC16_INIT 0xFFFFu

/* Continue a CRC over len bytes; start with MW_CRC16_INIT. */
uint16_t mw_crc16_update(uint16_t crc, const void *data, size_t len);
uint16_t mw_crc16(const void *data, size_t len);

#endif
