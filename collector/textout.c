/* textout — see textout.h. */
#include "textout.h"

#include <math.h>

#include <inttypes.h>
#include <stdint.h>

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
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
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
    }
    fputc('"', out);
}

void mw_out_json_number(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.10g", v);
    else
        fputs("null", out);
}
