/* utf8 — see mw_utf8.h. */
#include "mw_utf8.h"

size_t mw_utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80) return 1;
    size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (!n || s[0] > 0xf4) return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xf0 && s[1] < 0x90)) return 0; /* overlong */
    if (s[0] == 0xed && s[1] >= 0xa0) return 0;                                  /* surrogate */
    if (s[0] == 0xf4 && s[1] >= 0x90) return 0;                                  /* > U+10FFFF */
    return n;
}
