/* line — builds one protocol line in a caller's buffer: fields appended as text, then
 * finished with "*XXXX\r\n" where XXXX is the CRC-16 (crc16.h) of everything before '*'.
 * Appends that do not fit set an overflow mark and the line is not finished (returns 0).
 * Integer formatting is done here because avr-libc's printf has no 64-bit conversions. */
#ifndef MW_LINE_H
#define MW_LINE_H
#include <stdint.h>

typedef struct {
    char *buf;
    uint16_t len, cap;
    uint8_t overflow;
} mw_line;

void mw_line_init(mw_line *l, char *buf, uint16_t cap);
void mw_line_char(mw_line *l, char c);
void mw_line_str(mw_line *l, const char *s);
void mw_line_u64(mw_line *l, uint64_t v);
void mw_line_i64(mw_line *l, int64_t v);
void mw_line_hex(mw_line *l, uint32_t v); /* upper case, no leading zeros, "0" for 0 */
/* Fixed point: v / 10^decimals printed with exactly `decimals` digits after the point. */
void mw_line_fixed(mw_line *l, int64_t v, uint8_t decimals);
/* Adds "*XXXX\r\n" and NUL; returns the line length, or 0 when it overflowed. */
uint16_t mw_line_finish(mw_line *l);

#endif
