/* crc16 — bitwise CRC-16/CCITT-FALSE. A table would cost 512 bytes of flash for a
 * few hundred bytes of output per window; the bitwise loop is fast enough. */
#include "crc16.h"

uint16_t mw_crc16_update(uint16_t crc, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    while (len--) {
        crc ^= (uint16_t)((uint16_t)*p++ << 8);
        for (uint8_t b = 0; b < 8; b++)
            crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
    }
    return crc;
}

uint16_t mw_crc16(const void *data, size_t len)
{
    return mw_crc16_update(MW_CRC16_INIT, data, len);
}
