/* protocol — see mw_proto.h. Fields are parsed with strtoll/strtoull and checked for
 * complete consumption, so a malformed field is an error, never a silent zero. A line with
 * a byte that is not printable ASCII is dropped like a bad CRC (docs/protocol.md: the meter
 * sends only printable ASCII), so a NUL cannot hide bytes the CRC covered from the parser
 * and no control character reaches a name the host prints or stores. */
#include "mw_proto.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crc16.h"

/* Meter time beyond 2^50 us (35 years of sampling) is not a meter's: refused, so that the
 * clock model's nanosecond arithmetic on it cannot overflow. */
#define METER_US_MAX (1LL << 50)

static int printable(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] > 0x7e) return 0;
    return 1;
}

void mw_proto_reader_init(mw_proto_reader *r)
{
    memset(r, 0, sizeof *r);
}

int mw_proto_check_crc(const char *line, size_t len)
{
    if (len < 5 || line[len - 5] != '*') return -1;
    unsigned v = 0;
    for (size_t i = len - 4; i < len; i++) {
        char c = line[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    size_t body = len - 5;
    return mw_crc16(line, body) == v ? (int)body : -1;
}

int mw_proto_reader_push(mw_proto_reader *r, uint8_t b)
{
    if (b == '\n' || b == '\r') {
        int ok = 0;
        if (r->overflow) {
            r->overlong++;
        } else if (r->len) {
            int body = printable(r->line, r->len) ? mw_proto_check_crc(r->line, r->len) : -1;
            if (body >= 0) {
                r->line[body] = 0;
                ok = 1;
            } else {
                r->bad_crc++;
                r->dropped_bytes += r->len;
            }
        }
        if (!ok) r->line[0] = 0;
        r->len = 0;
        r->overflow = 0;
        return ok;
    }
    if (r->overflow) {
        r->dropped_bytes++;
        return 0;
    }
    if (r->len >= MW_PROTO_MAX_LINE) {
        r->overflow = 1;
        r->dropped_bytes += r->len + 1;
        r->len = 0;
        return 0;
    }
    r->line[r->len++] = (char)b;
    return 0;
}

/* Next field ending at `sep` (or end of string when sep is 0). */
static int field_i64(const char **p, char sep, int64_t *out)
{
    char *end;
    errno = 0;
    if (!**p || **p == sep) return -1;
    long long v = strtoll(*p, &end, 10);
    if (errno || end == *p || (*end != sep && !(sep == 0 && *end == 0))) return -1;
    *out = v;
    *p = *end ? end + 1 : end;
    return 0;
}

static int field_hex(const char **p, char sep, uint32_t *out)
{
    char *end;
    errno = 0;
    if (!**p || **p == sep || **p == '-' || **p == '+') return -1;
    unsigned long v = strtoul(*p, &end, 16);
    if (errno || end == *p || *end != sep || v > 0xFFFFFFFFul) return -1;
    *out = (uint32_t)v;
    *p = end + 1;
    return 0;
}

int mw_proto_parse_window(const char *body, mw_proto_window *w)
{
    memset(w, 0, sizeof *w);
    if (strncmp(body, "W,", 2) != 0) return -1;
    const char *p = body + 2;
    int64_t v;
    if (field_i64(&p, ',', &v) || v < 0 || v > UINT32_MAX) return -1;
    w->seq = (uint32_t)v;
    if (field_i64(&p, ',', &v) || v < 0 || v > METER_US_MAX) return -1;
    w->t0_us = (uint64_t)v;
    if (field_i64(&p, ',', &v) || v < 0 || v > METER_US_MAX || (uint64_t)v < w->t0_us) return -1;
    w->t1_us = (uint64_t)v;
    if (field_hex(&p, ',', &w->flags)) return -1;
    if (field_i64(&p, ',', &v) || v < 0 || v > UINT32_MAX) return -1;
    w->nsets = (uint32_t)v;
    if (field_i64(&p, ',', &v) || v < 0 || v > UINT32_MAX) return -1;
    w->missed = (uint32_t)v;
    if (field_hex(&p, ',', &w->clip)) return -1;
    if (field_i64(&p, ',', &v) || v < INT32_MIN || v > INT32_MAX) return -1;
    w->freq_mhz = (int32_t)v;
    /* the voltage is followed by ';' and the channels, or ends the body */
    const char *semi = strchr(p, ';');
    if (field_i64(&p, semi ? ';' : 0, &v) || v < INT32_MIN || v > INT32_MAX) return -1;
    w->vrms_mv = (int32_t)v;
    while (semi) {
        if (w->nchan >= MW_PROTO_MAX_I) return -1;
        semi = strchr(p, ';');
        char last = semi ? ';' : 0;
        int64_t a, b, c, d;
        if (field_i64(&p, ',', &a) || field_i64(&p, ',', &b) || field_i64(&p, ',', &c) ||
            field_i64(&p, last, &d))
            return -1;
        if (a < INT32_MIN || a > INT32_MAX || b < 0 || b > INT32_MAX || c < -2000 || c > 2000)
            return -1;
        w->ch[w->nchan].p_mw = (int32_t)a;
        w->ch[w->nchan].irms_ua = (int32_t)b;
        w->ch[w->nchan].pf_milli = (int32_t)c;
        w->ch[w->nchan].e_mj = d;
        w->nchan++;
    }
    return *p ? -1 : 0;
}

/* Copy the next comma-separated field into out. */
static int field_str(const char **p, char *out, size_t outlen)
{
    const char *c = strchr(*p, ',');
    size_t n = c ? (size_t)(c - *p) : strlen(*p);
    if (n == 0 || n >= outlen) return -1;
    memcpy(out, *p, n);
    out[n] = 0;
    *p += n + (c ? 1 : 0);
    return 0;
}

/* The calibration record field: "-", "yyyymmdd" or "yyyymmdd:TEXT" (1..16 characters of
 * A-Z a-z 0-9 . _ - + / : = @), up to the end of the line. */
static int parse_cal_record(const char **p, mw_proto_ident *id)
{
    const char *s = *p;
    size_t n = strlen(s);
    if (n == 1 && s[0] == '-') {
        *p = s + 1;
        return 0;
    }
    int date = 0;
    for (int i = 0; i < 8; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        date = date * 10 + (s[i] - '0');
    }
    int y = date / 10000, m = date / 100 % 100, d = date % 100;
    if (y < 2000 || y > 2999 || m < 1 || m > 12 || d < 1 || d > 31) return -1;
    s += 8;
    if (*s == ':') {
        size_t len = strlen(++s);
        if (len < 1 || len >= sizeof id->cal_ref) return -1;
        for (size_t i = 0; i < len; i++) {
            char c = s[i];
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  strchr("._-+/:=@", c)))
                return -1;
        }
        memcpy(id->cal_ref, s, len + 1);
        s += len;
    }
    if (*s) return -1;
    id->cal_date_yyyymmdd = date;
    *p = s;
    return 0;
}

int mw_proto_parse_ident(const char *body, mw_proto_ident *id)
{
    memset(id, 0, sizeof *id);
    if (strncmp(body, "I,megawatt,", 11) != 0) return -1;
    const char *p = body + 11;
    int64_t v;
    char pins[128];
    if (field_str(&p, id->fw_version, sizeof id->fw_version) ||
        field_str(&p, id->build_id, sizeof id->build_id) || field_str(&p, id->mcu, sizeof id->mcu))
        return -1;
    if (field_i64(&p, ',', &v) || v < 1 || v > 100) return -1;
    id->rate_hz = (int)v;
    if (field_i64(&p, ',', &v) || v < 1 || v > 10000) return -1;
    id->window_ms = (int)v;
    if (field_i64(&p, ',', &v) || v < 1 || v > MW_PROTO_MAX_I) return -1;
    id->n_current = (int)v;
    if (field_str(&p, pins, sizeof pins) || field_str(&p, id->cal_source, sizeof id->cal_source))
        return -1;
    if (p[-1] == ',' && parse_cal_record(&p, id) != 0) return -1; /* newer firmware */
    if (*p) return -1;
    /* "A0:A1:...": voltage first, then every current channel */
    const char *q = pins;
    for (int k = 0; k <= id->n_current; k++) {
        char *end;
        if (q[0] != 'A') return -1;
        long pin = strtol(q + 1, &end, 10);
        if (end == q + 1 || pin < 0 || pin > 15) return -1;
        id->pin[k] = (int)pin;
        if (k < id->n_current && *end != ':') return -1;
        if (k == id->n_current && *end) return -1;
        q = end + 1;
    }
    return 0;
}

int mw_proto_parse_boot(const char *body, uint32_t *mcusr, int *config_status)
{
    if (strncmp(body, "B,", 2) != 0) return -1;
    const char *p = body + 2;
    int64_t v;
    if (field_hex(&p, ',', mcusr) || field_i64(&p, 0, &v) || v < 0 || v > 255) return -1;
    *config_status = (int)v;
    return 0;
}

int mw_proto_parse_cal(const char *body, int *channel, double *gain, double *phase_deg)
{
    if (strncmp(body, "C,", 2) != 0) return -1;
    const char *p = body + 2;
    int64_t v;
    if (field_i64(&p, ',', &v) || v < 0 || v > MW_PROTO_MAX_I) return -1;
    *channel = (int)v;
    char *end;
    errno = 0;
    *gain = strtod(p, &end);
    if (errno || end == p || *end != ',') return -1;
    p = end + 1;
    *phase_deg = strtod(p, &end);
    if (errno || end == p || *end) return -1;
    /* strtod also reads "nan" and "inf", which no meter sends (docs/protocol.md: decimals) */
    if (!isfinite(*gain) || !isfinite(*phase_deg)) return -1;
    return 0;
}

uint32_t mw_proto_period_us(const mw_proto_window *w)
{
    static const uint32_t periods[] = {1000000, 500000, 250000, 200000, 125000, 100000};
    uint64_t len = w->t1_us - w->t0_us;
    uint32_t best = periods[0];
    for (size_t i = 1; i < sizeof periods / sizeof periods[0]; i++) {
        uint64_t d = len > periods[i] ? len - periods[i] : periods[i] - len;
        uint64_t db = len > best ? len - best : best - len;
        if (d < db) best = periods[i];
    }
    return best;
}

int64_t mw_proto_hold_ns(const mw_proto_window *w)
{
    return (int64_t)MW_LINE_HOLD_US(w->nchan, mw_proto_period_us(w)) * 1000;
}
