/* mw_utf8 — the one UTF-8 validity rule of megawatt's outputs (JSON strings, OTF2 and
 * Perfetto names): RFC 3629, so no overlong forms, no surrogates and nothing above U+10FFFF.
 * A byte that does not start a valid sequence is written as U+FFFD by the callers. */
#ifndef MW_UTF8_H
#define MW_UTF8_H
#include <stddef.h>

/* The length (1 to 4) of the valid UTF-8 sequence at s, or 0 when s does not start one.
 * s must be NUL-terminated (a sequence cut by the NUL is not valid). */
size_t mw_utf8_len(const unsigned char *s);
#endif
