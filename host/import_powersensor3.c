/* import_powersensor3 — mw import --format powersensor3: the dump file of PowerSensor3
 * (https://github.com/nlesc-recruit/PowerSensor3), as its documentation (docs/USERGUIDE.md,
 * "Using a dump file") and the code that writes it (host/src/PowerSensor.cc, PowerSensor::dump
 * and dumpCurrentWattToFile) define it:
 *
 *   marker time dt_micro device_timestamp current0 voltage0 power0 ... power_total
 *   S 0.000521 521 8192 1.25 12.01 15.0125 ... 15.0125
 *
 * A header line of space-separated column names, then one line per reading of all sensors:
 * the marker character ('S', or the character a program gave PowerSensor::mark() for the
 * reading that follows the mark), time (seconds since the PowerSensor object was made, or
 * Unix seconds with six decimals when dumping with absolute timestamps), dt_micro (whole
 * microseconds since the previous line), device_timestamp, then current (A), voltage (V)
 * and power (W) of every sensor pair in use (pairs 0..3, only those in use, each named by
 * its number) and the total power. Files written before November 2024 mark with a line of
 * its own, "M c", before the reading it belongs to; both are read.
 *
 * What becomes of it: every pair N is a channel "pairN" (power, rms voltage and current);
 * power_total, the sum of the pairs, is not a channel (it would count the power twice). A
 * line is the window ending at its time and starting where the previous line's ended (the
 * first one lasts the median spacing). PowerSensor3 prints relative times with six
 * significant digits (to the ms past 100 s): lines printing the same time as the previous
 * one end dt_micro (at least 1 us) after it, and a line's time may never be less than the
 * previous line's. Each marker begins a phase named by its character, which ends at the
 * next marker or at the end of the trace. Errors: "FILE:LINE[:FIELD]: what is wrong". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "mw_lines.h"

#define PS3_MAX_FIELDS 64
#define PS3_MAX_PAIRS 10 /* pair numbers 0..9; PowerSensor3 has 4 */
#define PS3_MAX_LINE (64 * 1024)

typedef struct {
    int time, dt; /* field index, -1 when absent */
    int power[PS3_MAX_PAIRS], volt[PS3_MAX_PAIRS], amp[PS3_MAX_PAIRS]; /* -1: absent */
    int nfields;
    mw_imp_channel *ch[PS3_MAX_PAIRS];
} ps3_header;

typedef struct {
    char name[2];
    long line;
    int64_t t_ns;
} ps3_marker;

/* Split line at runs of blanks into at most max fields; returns how many (max + 1: more). */
static int split_fields(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p) return n;
        if (n == max) return max + 1;
        f[n++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (*p) *p++ = 0;
    }
}

/* "power2" -> 2 when name is prefix followed by one digit; -1 otherwise */
static int pair_of(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) || name[n] < '0' || name[n] > '9' || name[n + 1]) return -1;
    return name[n] - '0';
}

static int read_header(mw_import *d, char **f, int n, long line, ps3_header *h)
{
    memset(h, 0, sizeof *h);
    h->time = h->dt = -1;
    for (int k = 0; k < PS3_MAX_PAIRS; k++)
        h->power[k] = h->volt[k] = h->amp[k] = -1;
    if (n < 2 || strcmp(f[0], "marker") || strcmp(f[1], "time"))
        return mw_imp_bad(d, line, 0,
                          "not a PowerSensor3 dump: the first line must be the header "
                          "'marker time dt_micro ...'");
    if (n > PS3_MAX_FIELDS) return mw_imp_bad(d, line, 0, "more than %d columns", PS3_MAX_FIELDS);
    h->time = 1;
    h->nfields = n;
    int any = 0;
    for (int i = 2; i < n; i++) {
        int k, *slot = NULL;
        if (!strcmp(f[i], "dt_micro")) {
            slot = &h->dt;
        } else if ((k = pair_of(f[i], "power")) >= 0) {
            slot = &h->power[k];
            any = 1;
        } else if ((k = pair_of(f[i], "voltage")) >= 0) {
            slot = &h->volt[k];
        } else if ((k = pair_of(f[i], "current")) >= 0) {
            slot = &h->amp[k];
        }
        if (!slot) continue; /* device_timestamp, power_total */
        if (*slot >= 0)
            return mw_imp_bad(d, line, i + 1, "column '%s' repeats column %d", f[i], *slot + 1);
        *slot = i;
    }
    if (!any) return mw_imp_bad(d, line, 0, "the header names no sensor pair (power0 .. power3)");
    for (int k = 0; k < PS3_MAX_PAIRS; k++) {
        if (h->power[k] < 0) continue;
        char name[8] = "pair";
        name[4] = (char)('0' + k);
        if (!(h->ch[k] = mw_imp_channel_of(d, name, NULL, line, h->power[k] + 1))) return -1;
    }
    return 0;
}

/* Field i as a decimal in units of 10^-scale within [lo, hi] into *v; -1 after the message. */
static int num(mw_import *d, char **f, int i, long line, const char *what, int scale, int64_t lo,
               int64_t hi, int64_t *v)
{
    int e = mw_imp_parse_fixed(f[i], scale, lo, hi, v);
    if (e)
        return mw_imp_bad(d, line, i + 1, "%s: '%s' is %s", what, f[i],
                          e == -2 ? "out of range" : "not a number");
    return 0;
}

typedef struct {
    int64_t printed_ns, t_ns; /* previous line's time as printed, and as taken */
    long line;                /* 0 before the first reading */
} ps3_clock;

/* The end of the window of this reading (see the top of the file). */
static int reading_time(mw_import *d, char **f, const ps3_header *h, long line, ps3_clock *clk,
                        int64_t *t_ns)
{
    int64_t t, dt_us = 0;
    if (num(d, f, h->time, line, "time", 9, INT64_MIN + 1, INT64_MAX, &t)) return -1;
    if (h->dt >= 0 && num(d, f, h->dt, line, "dt_micro", 0, 0, INT32_MAX, &dt_us)) return -1;
    if (clk->line && t < clk->printed_ns)
        return mw_imp_bad(d, line, h->time + 1,
                          "time: '%s' is before the previous line's (line %ld)", f[h->time],
                          clk->line);
    *t_ns = t;
    if (clk->line && t <= clk->t_ns) {
        __int128 next = (__int128)clk->t_ns + 1000 * (dt_us > 0 ? dt_us : 1);
        if (next > INT64_MAX) return mw_imp_bad(d, line, h->time + 1, "time: out of range");
        *t_ns = (int64_t)next;
    }
    clk->printed_ns = t;
    clk->t_ns = *t_ns;
    clk->line = line;
    return 0;
}

static int read_reading(mw_import *d, char **f, const ps3_header *h, long line, ps3_clock *clk,
                        int64_t *t_ns)
{
    int64_t prev = clk->line ? clk->t_ns : INT64_MIN;
    if (reading_time(d, f, h, line, clk, t_ns)) return -1;
    for (int k = 0; k < PS3_MAX_PAIRS; k++) {
        if (!h->ch[k]) continue;
        mw_imp_row x = {.t0_ns = prev, .t1_ns = *t_ns, .energy_mj = INT64_MIN, .line = line};
        int64_t v;
        if (num(d, f, h->power[k], line, "power", 3, INT32_MIN, INT32_MAX, &v)) return -1;
        x.power_mw = (int32_t)v;
        if (h->volt[k] >= 0) {
            if (num(d, f, h->volt[k], line, "voltage", 3, INT32_MIN, INT32_MAX, &v)) return -1;
            x.vrms_mv = (int32_t)v;
        }
        if (h->amp[k] >= 0) {
            if (num(d, f, h->amp[k], line, "current", 6, INT32_MIN, INT32_MAX, &v)) return -1;
            x.irms_ua = (int32_t)v;
        }
        if (mw_imp_push_row(d, h->ch[k], &x)) return -1;
    }
    return 0;
}

/* A marker character: printable ASCII other than blank. */
static int marker_ok(mw_import *d, const char *m, long line)
{
    if (strlen(m) != 1) return mw_imp_bad(d, line, 1, "marker: '%s' is not one character", m);
    if (*m < 0x21 || *m > 0x7e)
        return mw_imp_bad(d, line, 1, "marker: not a printable ASCII character");
    return 0;
}

static int add_marker(mw_import *d, ps3_marker **m, size_t *n, size_t *cap, char c, long line)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        ps3_marker *p = realloc(*m, nc * sizeof *p);
        if (!p) return mw_imp_bad(d, line, 0, "out of memory");
        *m = p;
        *cap = nc;
    }
    (*m)[(*n)++] = (ps3_marker){{c, 0}, line, INT64_MIN};
    return 0;
}

/* Each marker a phase up to the next one, the last up to end_ns. */
static int make_phases(mw_import *d, const ps3_marker *m, size_t n, int64_t end_ns)
{
    for (size_t i = 0; i < n; i++) {
        int64_t start = m[i].t_ns == INT64_MIN ? end_ns : m[i].t_ns;
        int64_t end = i + 1 < n && m[i + 1].t_ns != INT64_MIN ? m[i + 1].t_ns : end_ns;
        if (mw_imp_add_phase(d, m[i].name, start, end, m[i].line)) return -1;
    }
    return 0;
}

/* The lines after the header. */
static int read_body(mw_import *d, mw_lines *r, const ps3_header *h)
{
    ps3_marker *m = NULL;
    size_t nm = 0, cap = 0, pending = 0; /* markers waiting for their reading */
    ps3_clock clk = {0};
    char *line, *f[PS3_MAX_FIELDS];
    int got, rc = 0;
    while (rc == 0 && (got = mw_lines_next(r, &line, NULL, d->err, d->errlen)) == 1) {
        int n = split_fields(line, f, PS3_MAX_FIELDS);
        if (n == 0) continue;
        if (n == 2 && !strcmp(f[0], "M")) { /* before November 2024: "M c" */
            rc = marker_ok(d, f[1], r->line) || add_marker(d, &m, &nm, &cap, f[1][0], r->line);
            continue;
        }
        if (n != h->nfields) {
            rc = mw_imp_bad(d, r->line, 0, "%s%d field%s, the header names %d",
                            n > PS3_MAX_FIELDS ? "more than " : "",
                            n > PS3_MAX_FIELDS ? PS3_MAX_FIELDS : n, n == 1 ? "" : "s", h->nfields);
            break;
        }
        if ((rc = marker_ok(d, f[0], r->line))) break;
        if (f[0][0] != 'S') rc = add_marker(d, &m, &nm, &cap, f[0][0], r->line);
        int64_t t = 0;
        if (rc || (rc = read_reading(d, f, h, r->line, &clk, &t))) break;
        for (; pending < nm; pending++)
            m[pending].t_ns = t;
    }
    if (got < 0) rc = -1; /* the message is in d->err */
    if (rc == 0 && !clk.line) rc = mw_imp_bad(d, r->line, 0, "a header but no readings");
    if (rc == 0) rc = make_phases(d, m, nm, clk.t_ns);
    free(m);
    return rc;
}

int mw_imp_read_powersensor3(mw_import *d, char *text, size_t len)
{
    mw_lines r;
    mw_lines_init(&r, d->file, text, len, PS3_MAX_LINE);
    d->time_name = "time";
    char *line, *f[PS3_MAX_FIELDS + 1];
    int got, n = 0;
    while ((got = mw_lines_next(&r, &line, NULL, d->err, d->errlen)) == 1)
        if ((n = split_fields(line, f, PS3_MAX_FIELDS)) > 0) break;
    int rc = -1;
    ps3_header h;
    if (got == 0)
        mw_imp_bad(d, r.line ? r.line : 1, 0, "no header line (the file holds no data)");
    else if (got == 1 && read_header(d, f, n, r.line, &h) == 0)
        rc = read_body(d, &r, &h);
    mw_lines_close(&r);
    return rc;
}
