/* num — see mw_num.h. The text is first checked against the decimal grammar by hand (strtod
 * alone would take "nan", "inf", hex floats and leading space), then converted by strtod or
 * strtoll, which must consume all of it; ERANGE on overflow is "out of range". */
#include "mw_num.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* 1 if s is [+-]? digits with at most one '.', at least one digit, then (if real)
 * [eE][+-]?digits, and nothing else; real = 0 (integers) allows neither. */
static int is_decimal(const char *s, int real)
{
    if (*s == '+' || *s == '-') s++;
    int digits = 0;
    while (is_digit(*s)) s++, digits++;
    if (*s == '.' && real) {
        s++;
        while (is_digit(*s)) s++, digits++;
    }
    if (!digits) return 0;
    if (real && (*s == 'e' || *s == 'E')) {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!is_digit(*s)) return 0;
        while (is_digit(*s)) s++;
    }
    return *s == 0;
}

int mw_num_double(const char *text, double min, double max, double *out)
{
    if (!text || !is_decimal(text, 1)) return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end) return -1;
    if (errno == ERANGE && (isinf(v) || fabs(v) > DBL_MIN)) return -2; /* overflow */
    if (!isfinite(v)) return -2;
    if (!(v >= min && v <= max)) return -2;
    *out = v;
    return 0;
}

int mw_num_int64(const char *text, int64_t min, int64_t max, int64_t *out)
{
    if (!text || !is_decimal(text, 0)) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end) return -1;
    if (errno == ERANGE) return -2;
    if (v < min || v > max) return -2;
    *out = (int64_t)v;
    return 0;
}
