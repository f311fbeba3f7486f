/* report_html — HTML escaping, URL segments and numbers with units for `mw report`
 * (report_html.h).
 *
 * mw_html_text walks the string as UTF-8: a well-formed sequence (no overlong form, no
 * surrogate, at most U+10FFFF) is copied, the five markup characters become references,
 * anything else (a stray byte, a C0 control but tab and newline, DEL) becomes U+FFFD. The
 * page declares UTF-8, so what it shows is exactly the text, never markup. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "report_html.h"

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* The character reference of a markup character, or NULL. */
static const char *entity(unsigned char c)
{
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&#39;";
    default:
        return NULL;
    }
}

void mw_html_text(FILE *out, const char *s)
{
    if (!s) return;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        const char *e = entity(*p);
        if (e) {
            fputs(e, out);
            p++;
            continue;
        }
        if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7F) {
            fputs("\xEF\xBF\xBD", out);
            p++;
            continue;
        }
        size_t n = utf8_len(p);
        if (!n) {
            fputs("\xEF\xBF\xBD", out);
            p++;
            continue;
        }
        fwrite(p, 1, n, out);
        p += n;
    }
}

void mw_html_url_segment(FILE *out, const char *name)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        unsigned c = *p;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~')
            fputc((int)c, out);
        else
            fprintf(out, "%%%c%c", hex[c >> 4], hex[c & 15]);
    }
}

const char *mw_html_num(char *buf, size_t len, double v, int decimals, const char *unit)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "\xE2\x80\x93");
        return buf;
    }
    if (v == 0) v = 0; /* no "-0.000" */
    int n = snprintf(buf, len, "%.*f", decimals, v);
    /* a negative value rounding to zero prints "-0.000": drop the sign */
    if (n > 0 && buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
        memmove(buf, buf + 1, strlen(buf));
    if (unit && unit[0]) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, " %s", unit);
    }
    return buf;
}

const char *mw_html_energy(char *buf, size_t len, double j)
{
    double a = fabs(j);
    if (isfinite(j) && a >= 1e7) return mw_html_num(buf, len, j / 1e6, 3, "MJ");
    if (isfinite(j) && a >= 1e4) return mw_html_num(buf, len, j / 1e3, 3, "kJ");
    return mw_html_num(buf, len, j, 3, "J");
}

const char *mw_html_seconds(char *buf, size_t len, double s)
{
    mw_html_num(buf, len, s, 3, "s");
    if (isfinite(s) && s >= 60) {
        long long t = (long long)floor(s + 0.5);
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, " (%lld:%02lld:%02lld)", t / 3600, t / 60 % 60, t % 60);
    }
    return buf;
}

const char *mw_html_utc(char *buf, size_t len, long long t_ns)
{
    time_t t = (time_t)(t_ns >= 0 ? t_ns / 1000000000LL : (t_ns - 999999999LL) / 1000000000LL);
    long long ms = (t_ns - (long long)t * 1000000000LL) / 1000000LL;
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(buf, len, "\xE2\x80\x93");
        return buf;
    }
    char d[64];
    strftime(d, sizeof d, "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(buf, len, "%s.%03lld UTC", d, ms);
    return buf;
}
