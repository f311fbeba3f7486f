/* line — see line.h. */
#include "line.h"

#include "crc16.h"

void mw_line_init(mw_line *l, char *buf, uint16_t cap)
{
    l->buf = buf;
    l->len = 0;
    l->cap = cap;
    l->overflow = 0;
}

void mw_line_char(mw_line *l, char c)
{
    /* keep room for "*XXXX\r\n" and the NUL */
    if (l->len + 8u >= l->cap) {
        l->overflow = 1;
        return;
    }
    l->buf[l->len++] = c;
}

void mw_line_str(mw_line *l, const char *s)
{
    while (*s)
        mw_line_char(l, *s++);
}

/* In 32-bit arithmetic where the value fits (almost every field): on the AVR a 64-bit
 * division by 10 per digit cost several thousand cycles, and a window's line has ~100
 * digits (with 1 V + 5 I a large part of the main loop's work in the line hold). Wider
 * values are cut into 9-digit parts by one 64-bit division each. */
void mw_line_u64(mw_line *l, uint64_t v)
{
    char tmp[20];
    uint8_t n = 0;
    while (v > 0xFFFFFFFFu) {
        uint64_t q = v / 1000000000u;
        uint32_t r = (uint32_t)(v - q * 1000000000u);
        for (uint8_t i = 0; i < 9; i++) {
            tmp[n++] = (char)('0' + (r % 10u));
            r /= 10u;
        }
        v = q;
    }
    uint32_t w = (uint32_t)v;
    do {
        tmp[n++] = (char)('0' + (w % 10u));
        w /= 10u;
    } while (w);
    while (n)
        mw_line_char(l, tmp[--n]);
}

void mw_line_i64(mw_line *l, int64_t v)
{
    if (v < 0) {
        mw_line_char(l, '-');
        mw_line_u64(l, (uint64_t)0 - (uint64_t)v);
    } else {
        mw_line_u64(l, (uint64_t)v);
    }
}

void mw_line_hex(mw_line *l, uint32_t v)
{
    static const char digits[] = "0123456789ABCDEF";
    char tmp[8];
    uint8_t n = 0;
    do {
        tmp[n++] = digits[v & 15u];
        v >>= 4;
    } while (v);
    while (n)
        mw_line_char(l, tmp[--n]);
}

void mw_line_fixed(mw_line *l, int64_t v, uint8_t decimals)
{
    uint64_t p = 1;
    for (uint8_t i = 0; i < decimals; i++)
        p *= 10u;
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (v < 0) mw_line_char(l, '-');
    mw_line_u64(l, a / p);
    if (!decimals) return;
    mw_line_char(l, '.');
    uint64_t frac = a % p;
    for (uint64_t d = p / 10u; d; d /= 10u) {
        mw_line_char(l, (char)('0' + (frac / d) % 10u));
    }
}

uint16_t mw_line_finish(mw_line *l)
{
    if (l->overflow) return 0;
    uint16_t crc = mw_crc16(l->buf, l->len);
    l->buf[l->len++] = '*';
    static const char digits[] = "0123456789ABCDEF";
    for (int8_t sh = 12; sh >= 0; sh -= 4)
        l->buf[l->len++] = digits[(crc >> sh) & 15u];
    l->buf[l->len++] = '\r';
    l->buf[l->len++] = '\n';
    l->buf[l->len] = 0;
    return l->len;
}
