/* import_kwollect — mw import --format kwollect: metrics of Grid'5000's Kwollect service
 * (https://www.grid5000.fr/w/Monitoring_Using_Kwollect), as its API returns them for
 * GET /sites/SITE/metrics?nodes=...&metrics=...: a JSON array of measurements, each an
 * object {"timestamp": "2025-07-22T13:05:25.657+02:00", "device_id": "taurus-7",
 * "metric_id": "wattmetre_power_watt", "value": 129.69, "labels": {...}}. The same
 * objects one per line (what `jq -c '.[]'` makes of the array) are read too.
 *
 * Every value is parsed by json-c (its tokenizer, in strict mode, one element at a time, so
 * that an error names the line the element is on); this file only steps over the blanks and
 * the commas between the elements. Numbers are taken from json-c's copy of their text
 * (json_object_get_string) and parsed exactly (mw_imp_parse_fixed), never through a double.
 *
 * What becomes of it: Kwollect names a metric with its unit last, so every metric whose
 * metric_id ends in "_watt" is power (W); the others (temperatures, fan speeds, energy
 * counters) are skipped. Each (device_id, metric_id, labels) is a channel named
 * "DEVICE:METRIC" (and ":KEY=VALUE" for each label whose key does not start with '_',
 * Kwollect's own annotations such as "_device_orig"), with device_id as its host. A
 * timestamp is an ISO 8601 date with a UTC offset (or a number of Unix seconds); a
 * measurement is the window ending at its timestamp. Measurements of a channel may come in
 * any order; two at the same time are an error. Errors: "FILE:LINE: what is wrong". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "import_internal.h"

#define KW_MAX_DEPTH 16

/* ---- dates ------------------------------------------------------------------------------ */

/* Days since 1970-01-01 of the proleptic Gregorian date y-m-d (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* n digits at *p into *v; advances *p. 0, or -1. */
static int digits(const char **p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9') return -1;
        *v = *v * 10 + (**p - '0');
    }
    return 0;
}

static int is_leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" as Unix ns. 0, or -1. */
static int parse_iso8601(const char *s, int64_t *ns)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, mo, d, h, mi, sec, oh = 0, om = 0;
    const char *p = s;
    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
        digits(&p, 2, &d) || (*p != 'T' && *p != 't' && *p != ' ') || !*p++ || digits(&p, 2, &h) ||
        *p++ != ':' || digits(&p, 2, &mi) || *p++ != ':' || digits(&p, 2, &sec))
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && is_leap(y)) || h > 23 ||
        mi > 59 || sec > 60)
        return -1;
    int64_t frac = 0;
    if (*p == '.' || *p == ',') {
        int n = 0;
        for (p++; *p >= '0' && *p <= '9'; p++, n++)
            if (n < 9) frac = frac * 10 + (*p - '0');
        if (!n) return -1;
        for (; n < 9; n++)
            frac *= 10;
    }
    int sign = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p++ == '-' ? -1 : 1;
        if (digits(&p, 2, &oh) || (*p == ':' && !*++p) || digits(&p, 2, &om) || oh > 23 || om > 59)
            return -1;
    } else {
        return -1; /* a date without its offset is a local time of some unknown zone */
    }
    if (*p) return -1;
    int64_t t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    t -= sign * (oh * 3600 + om * 60);
    if (t < -9000000000LL || t > 9000000000LL) return -1; /* int64 ns: years 1685 to 2255 */
    *ns = t * 1000000000 + frac;
    return 0;
}

/* ---- one measurement -------------------------------------------------------------------- */

static const char *member_string(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

/* "DEVICE:METRIC[:KEY=VALUE...]" into name (NAME_MAX + 1 bytes). 0, or -1 after the message. */
static int channel_name(mw_import *d, json_object *o, const char *dev, const char *metric,
                        long line, char *name, size_t size)
{
    size_t n = (size_t)snprintf(name, size, "%s:%s", dev, metric);
    json_object *labels;
    if (json_object_object_get_ex(o, "labels", &labels) &&
        !json_object_is_type(labels, json_type_null)) {
        if (!json_object_is_type(labels, json_type_object))
            return mw_imp_bad(d, line, 0, "labels: not an object");
        json_object_object_foreach(labels, key, val)
        {
            if (key[0] == '_') continue;
            const char *v = json_object_is_type(val, json_type_string)
                                ? json_object_get_string(val)
                                : json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN);
            if (n < size) n += (size_t)snprintf(name + n, size - n, ":%s=%s", key, v);
        }
    }
    if (n >= size)
        return mw_imp_bad(d, line, 0, "channel '%s:%s...': name longer than %d bytes", dev, metric,
                          MW_IMP_MAX_NAME);
    return 0;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

/* One element of the array (or one line). 0, or -1 after the message. */
static int read_measurement(mw_import *d, json_object *o, long line)
{
    if (!json_object_is_type(o, json_type_object))
        return mw_imp_bad(d, line, 0, "a measurement is not a JSON object");
    const char *dev = member_string(o, "device_id"), *metric = member_string(o, "metric_id");
    if (!dev) return mw_imp_bad(d, line, 0, "device_id: missing or not a string");
    if (!metric) return mw_imp_bad(d, line, 0, "metric_id: missing or not a string");
    json_object *ts, *val;
    if (!json_object_object_get_ex(o, "timestamp", &ts))
        return mw_imp_bad(d, line, 0, "timestamp: missing");
    if (!json_object_object_get_ex(o, "value", &val))
        return mw_imp_bad(d, line, 0, "value: missing");
    if (!ends_with(metric, "_watt")) return 0; /* not power */
    mw_imp_row x = {.t0_ns = INT64_MIN, .energy_mj = INT64_MIN, .line = line};
    const char *s = json_object_get_string(ts);
    int64_t v;
    if (json_object_is_type(ts, json_type_string)) {
        if (parse_iso8601(s, &x.t1_ns))
            return mw_imp_bad(d, line, 0,
                              "timestamp: '%s' is not an ISO 8601 date with its UTC offset "
                              "(2025-07-22T13:05:25.657+02:00)",
                              s);
    } else if (json_object_is_type(ts, json_type_int) ||
               json_object_is_type(ts, json_type_double)) {
        if (mw_imp_parse_fixed(s, 9, INT64_MIN + 1, INT64_MAX, &x.t1_ns))
            return mw_imp_bad(d, line, 0, "timestamp: %s is out of range", s);
    } else {
        return mw_imp_bad(d, line, 0, "timestamp: not a date nor a number");
    }
    if (!json_object_is_type(val, json_type_int) && !json_object_is_type(val, json_type_double))
        return mw_imp_bad(d, line, 0, "value: not a number (metric %s of %s)", metric, dev);
    s = json_object_get_string(val);
    int e = mw_imp_parse_fixed(s, 3, INT32_MIN, INT32_MAX, &v);
    if (e)
        return mw_imp_bad(d, line, 0, "value: %s is %s", s,
                          e == -2 ? "out of range" : "not a number");
    x.power_mw = (int32_t)v;
    char name[MW_IMP_MAX_NAME + 1];
    if (channel_name(d, o, dev, metric, line, name, sizeof name)) return -1;
    mw_imp_channel *c = mw_imp_channel_of(d, name, dev, line, 0);
    return c ? mw_imp_push_row(d, c, &x) : -1;
}

/* ---- the file ------------------------------------------------------------------------- */

typedef struct {
    const char *text, *p, *end;
    long line; /* of *p */
    json_tokener *tok;
} kw_in;

static void skip_blanks(kw_in *in)
{
    for (; in->p < in->end; in->p++) {
        if (*in->p == '\n')
            in->line++;
        else if (*in->p != ' ' && *in->p != '\t' && *in->p != '\r')
            break;
    }
}

/* The JSON value at in->p, parsed by json-c; NULL after the message. */
static json_object *next_value(mw_import *d, kw_in *in)
{
    json_tokener_reset(in->tok);
    size_t left = (size_t)(in->end - in->p) + 1; /* with the NUL after the text */
    json_object *o = json_tokener_parse_ex(in->tok, in->p, (int)left);
    enum json_tokener_error jerr = json_tokener_get_error(in->tok);
    size_t used = json_tokener_get_parse_end(in->tok);
    for (size_t i = 0; i < used && in->p + i < in->end; i++)
        if (in->p[i] == '\n') in->line++;
    if (!o || jerr != json_tokener_success) {
        json_object_put(o);
        mw_imp_bad(d, in->line, 0, "not JSON: %s",
                   jerr == json_tokener_continue ? "the file ends inside a value"
                                                 : json_tokener_error_desc(jerr));
        return NULL;
    }
    in->p += used;
    return o;
}

static int each_value(mw_import *d, kw_in *in, int array)
{
    for (long n = 0;; n++) {
        skip_blanks(in);
        if (array && n == 0 && in->p < in->end && *in->p == ']') {
            in->p++;
            return 0;
        }
        if (in->p == in->end) {
            if (array) return mw_imp_bad(d, in->line, 0, "the file ends inside the array (no ']')");
            return 0;
        }
        long line = in->line;
        json_object *o = next_value(d, in);
        if (!o) return -1;
        int rc = read_measurement(d, o, line);
        json_object_put(o);
        if (rc) return -1;
        if (!array) continue;
        skip_blanks(in);
        if (in->p == in->end) {
            return mw_imp_bad(d, in->line, 0, "the file ends inside the array (no ']')");
        } else if (*in->p == ',') {
            in->p++;
        } else if (*in->p == ']') {
            in->p++;
            return 0;
        } else {
            return mw_imp_bad(d, in->line, 0, "expected ',' or ']' after a measurement");
        }
    }
}

static int row_cmp(const void *a, const void *b)
{
    const mw_imp_row *x = a, *y = b;
    if (x->t1_ns != y->t1_ns) return x->t1_ns < y->t1_ns ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Each channel's measurements in time order, no two at one time. */
static int sort_rows(mw_import *d)
{
    for (int c = 0; c < d->nch; c++) {
        mw_imp_channel *ch = &d->ch[c];
        qsort(ch->rows, ch->n, sizeof *ch->rows, row_cmp);
        for (size_t i = 1; i < ch->n; i++)
            if (ch->rows[i].t1_ns == ch->rows[i - 1].t1_ns) {
                long a = ch->rows[i - 1].line, b = ch->rows[i].line;
                return mw_imp_bad(d, a > b ? a : b, 0,
                                  "channel '%s' has two measurements at the same time "
                                  "(lines %ld and %ld)",
                                  ch->name, a < b ? a : b, a > b ? a : b);
            }
    }
    return 0;
}

int mw_imp_read_kwollect(mw_import *d, char *text, size_t len)
{
    d->time_in_ns = 1;
    d->time_name = "timestamp";
    const char *nul = memchr(text, 0, len);
    if (nul) {
        long line = 1;
        for (const char *q = text; q < nul; q++)
            line += *q == '\n';
        return mw_imp_bad(d, line, 0, "a NUL byte (this is not a text file)");
    }
    kw_in in = {text, text, text + len, 1, json_tokener_new_ex(KW_MAX_DEPTH)};
    if (!in.tok) return mw_imp_bad(d, 1, 0, "out of memory");
    json_tokener_set_flags(in.tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS |
                                       JSON_TOKENER_VALIDATE_UTF8);
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) in.p += 3; /* a UTF-8 byte-order mark */
    skip_blanks(&in);
    int rc;
    if (in.p == in.end) {
        rc = mw_imp_bad(d, in.line, 0, "no measurements (the file is empty)");
    } else if (*in.p == '[') {
        in.p++;
        rc = each_value(d, &in, 1);
        if (rc == 0) {
            skip_blanks(&in);
            if (in.p < in.end) rc = mw_imp_bad(d, in.line, 0, "text after the array");
        }
    } else {
        rc = each_value(d, &in, 0);
    }
    json_tokener_free(in.tok);
    if (rc == 0 && d->nch == 0)
        rc = mw_imp_bad(d, in.line, 0,
                        "no power measurements (no metric_id ending in _watt, e.g. "
                        "wattmetre_power_watt)");
    return rc ? rc : sort_rows(d);
}
