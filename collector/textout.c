/* textout — see textout.h. */
#include "textout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <inttypes.h>
#include <stdint.h>

#include "mw_alloc.h"
#include "mw_utf8.h"

/* v / step rounded half away from zero, "int.frac" with `decimals` decimals (step = one
 * unit of the last decimal), then " unit" when unit is not empty. */
const char *mw_out_fixed(char *buf, size_t len, __int128 v, __int128 step, int decimals,
                         const char *unit)
{
    __int128 a = v < 0 ? -v : v;
    __int128 q = a / step + (a % step >= (step + 1) / 2 ? 1 : 0);
    __int128 p10 = 1;
    for (int i = 0; i < decimals; i++)
        p10 *= 10;
    __int128 ip = q / p10, fp = q % p10;
    char digits[48];
    int k = (int)sizeof digits - 1;
    digits[k] = 0;
    do {
        digits[--k] = (char)('0' + (int)(ip % 10));
        ip /= 10;
    } while (ip);
    const char *sign = v < 0 && q != 0 ? "-" : "";
    if (decimals)
        snprintf(buf, len, "%s%s.%0*" PRIu64 "%s%s", sign, digits + k, decimals, (uint64_t)fp,
                 *unit ? " " : "", unit);
    else
        snprintf(buf, len, "%s%s%s%s", sign, digits + k, *unit ? " " : "", unit);
    return buf;
}

void mw_out_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = mw_utf8_len(p);
        if (!n) { /* JSON is UTF-8 (RFC 8259): a byte that is not becomes U+FFFD */
            fputs("\\ufffd", out);
            p++;
            continue;
        }
        if (n > 1) {
            fwrite(p, 1, n, out);
            p += n;
            continue;
        }
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '\t')
            fputs("\\t", out);
        else if (*p == '\r')
            fputs("\\r", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
        p++;
    }
    fputc('"', out);
}

/* The escape of byte c into e (at most 5 bytes with the NUL); 0 when c is written as is. */
static int text_escape(unsigned char c, char e[5])
{
    if (c >= 0x20 && c != 0x7f) return 0;
    if (c == '\n' || c == '\r' || c == '\t')
        snprintf(e, 5, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
    else
        snprintf(e, 5, "\\x%02x", c);
    return 1;
}

void mw_out_text(FILE *out, const char *s)
{
    char e[5];
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (text_escape(*p, e))
            fputs(e, out);
        else
            fputc(*p, out);
}

int mw_out_text_width(const char *s)
{
    char e[5];
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += text_escape(*p, e) ? (int)strlen(e) : 1;
    return n;
}

void mw_out_text_pad(FILE *out, const char *s, int width)
{
    mw_out_text(out, s);
    for (int n = mw_out_text_width(s); n < width; n++)
        fputc(' ', out);
}

char *mw_out_text_dup(const char *s)
{
    char e[5];
    if (!s) s = "";
    char *d = mw_xcalloc((size_t)mw_out_text_width(s) + 1, 1), *q = d;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (text_escape(*p, e)) {
            memcpy(q, e, strlen(e));
            q += strlen(e);
        } else {
            *q++ = (char)*p;
        }
    *q = 0;
    return d;
}

void mw_out_json_number(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.10g", v);
    else
        fputs("null", out);
}

/* ---- standard error, guarded --------------------------------------------------------- */
static FILE *raw_stderr; /* the process's own stderr, for mw_out_tty */

/* the cookie's write: every byte as mw_out_text writes it, but a line's end and tabs kept */
static ssize_t guard_write(void *cookie, const char *buf, size_t n)
{
    FILE *out = cookie;
    char e[5];
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c != '\n' && c != '\t' && text_escape(c, e))
            fputs(e, out);
        else
            fputc(c, out);
    }
    fflush(out);
    return (ssize_t)n;
}

void mw_out_guard_stderr(void)
{
    if (raw_stderr) return;
    cookie_io_functions_t io = {.write = guard_write};
    FILE *g = fopencookie(stderr, "w", io);
    if (!g) return; /* out of memory at start: messages stay unguarded */
    setvbuf(g, NULL, _IONBF, 0);
    raw_stderr = stderr;
    stderr = g;
}

const char *mw_out_tty(const char *seq)
{
    FILE *out = raw_stderr ? raw_stderr : stderr;
    fputs(seq, out);
    fflush(out);
    return "";
}
