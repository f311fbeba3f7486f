/* import — see mw_import.h. The whole file is in memory (mw_import_read reads it whole);
 * megawatt's CSV is read here, the other formats by host/import_<format>.c into the same
 * trace (import_internal.h), which this file completes (window starts, gaps) and writes.
 * The CSV tokenizer copies each record's fields, NUL-terminated, into one growing buffer and
 * the rows go into one growing array per channel. Numbers are parsed exactly into the
 * store's integer units with 128-bit arithmetic (mw_imp_parse_fixed), never through binary
 * floating point; only the median spacing goes through doubles (gsl_stats_median of the
 * sorted spacings, rounded to the ns). Energies are integrated in pJ (128 bits) and rounded
 * to mJ. Every error is formatted once, by mw_imp_bad, into the caller's buffer. The file is
 * read by mw_lines_read_file (at most MW_IMPORT_MAX_BYTES; a FIFO or pipe must end within
 * 10 s); a NUL byte in a field is refused, never taken for the field's end. */
#include "mw_import.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "mw_alloc.h"
#include "mw_fs.h"
#include "mw_lines.h"
#include "mw_store.h"
#include "import_internal.h"

#define IMPORT_UNIX_TIME_NS 1000000000000000000LL /* time_s at or over 1e9 s is Unix time */

/* ---- CSV records -------------------------------------------------------------------- */

typedef struct {
    const char *p, *end;
    long line; /* line of *p */
    char *buf; /* the record's fields, each NUL-terminated */
    size_t len, cap;
    size_t *off; /* field i starts at buf + off[i] */
    int n, ncap;
} csv_in;

static int buf_put(csv_in *r, char c)
{
    if (r->len == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        char *b = realloc(r->buf, cap);
        if (!b) return -1;
        r->buf = b;
        r->cap = cap;
    }
    r->buf[r->len++] = c;
    return 0;
}

static int field_begin(csv_in *r)
{
    if (r->n == r->ncap) {
        int cap = r->ncap ? 2 * r->ncap : 16;
        size_t *o = realloc(r->off, (size_t)cap * sizeof *o);
        if (!o) return -1;
        r->off = o;
        r->ncap = cap;
    }
    r->off[r->n++] = r->len;
    return 0;
}

static const char *field(const csv_in *r, int i)
{
    return r->buf + r->off[i];
}

static int at_eol(const csv_in *r)
{
    return r->p == r->end || *r->p == '\n' || *r->p == '\r';
}

static void skip_eol(csv_in *r)
{
    if (r->p < r->end && *r->p == '\r') r->p++;
    if (r->p < r->end && *r->p == '\n') r->p++;
    r->line++;
}

/* The next record into r (fields 0..n-1), *line = the line it starts on. Returns 1, 0 at the
 * end of the file, or -1 with msg set (the bad field is field r->n, 1-based: r->n). */
static int csv_record(csv_in *r, long *line, const char **msg)
{
    for (;;) { /* skip blank and comment lines */
        const char *q = r->p;
        while (q < r->end && (*q == ' ' || *q == '\t'))
            q++;
        if (q == r->end) {
            r->p = q;
            return 0;
        }
        if (*q == '#') {
            while (q < r->end && *q != '\n' && *q != '\r')
                q++;
        } else if (*q != '\n' && *q != '\r') {
            break;
        }
        r->p = q;
        skip_eol(r);
    }
    *line = r->line;
    r->len = 0;
    r->n = 0;
    for (;;) {
        if (field_begin(r)) goto nomem;
        while (r->p < r->end && (*r->p == ' ' || *r->p == '\t'))
            r->p++;
        if (r->p < r->end && *r->p == '"') {
            r->p++;
            for (;;) {
                if (r->p == r->end) {
                    *msg = "a quoted field is not closed before the end of the file";
                    return -1;
                }
                char c = *r->p++;
                if (c == 0) goto nul;
                if (c == '"') {
                    if (r->p < r->end && *r->p == '"')
                        r->p++;
                    else
                        break;
                } else if (c == '\n') {
                    r->line++;
                }
                if (buf_put(r, c)) goto nomem;
            }
            while (r->p < r->end && (*r->p == ' ' || *r->p == '\t'))
                r->p++;
            if (!at_eol(r) && *r->p != ',') {
                *msg = "text after a closing quote";
                return -1;
            }
        } else {
            size_t keep = r->len;
            while (!at_eol(r) && *r->p != ',') {
                if (*r->p == 0) goto nul;
                if (buf_put(r, *r->p)) goto nomem;
                if (*r->p != ' ' && *r->p != '\t') keep = r->len;
                r->p++;
            }
            r->len = keep; /* trailing blanks */
        }
        if (buf_put(r, 0)) goto nomem;
        if (at_eol(r)) break;
        r->p++; /* ',' */
    }
    if (r->p < r->end) skip_eol(r);
    return 1;
nomem:
    *msg = "out of memory";
    return -1;
nul: /* C strings would end the field there: 12<NUL>345 read as 12 */
    *msg = "a NUL byte in the field (this is not a text file)";
    return -1;
}

/* ---- numbers -------------------------------------------------------------------------- */

/* The decimal s ("-12.5", "3", "1.5e-3") in units of 10^-scale, rounded half away from zero,
 * exactly (no binary floating point): parse_fixed("12.3456", 3) = 12346. Returns 0, -1 when
 * s is not a decimal number, -2 when its value is outside [lo, hi]. */
int mw_imp_parse_fixed(const char *s, int scale, int64_t lo, int64_t hi, int64_t *out)
{
    int neg = 0;
    if (*s == '+' || *s == '-') neg = *s++ == '-';
    __int128 m = 0;
    int exp10 = scale, digits = 0, point = 0;
    for (; *s; s++) {
        if (*s == '.' && !point) {
            point = 1;
        } else if (*s >= '0' && *s <= '9') {
            digits++;
            if (m < (__int128)1 << 100) {
                m = m * 10 + (*s - '0');
                if (point) exp10--;
            } else if (!point) {
                exp10++; /* digits past the 30th significant one only matter beyond int64 */
            }
        } else {
            break;
        }
    }
    if (!digits) return -1;
    if (*s == 'e' || *s == 'E') {
        s++;
        int eneg = 0, e = 0, edigits = 0;
        if (*s == '+' || *s == '-') eneg = *s++ == '-';
        for (; *s >= '0' && *s <= '9'; s++, edigits++)
            if (e < 10000) e = e * 10 + (*s - '0');
        if (!edigits) return -1;
        exp10 += eneg ? -e : e;
    }
    if (*s) return -1;
    const __int128 limit = (__int128)INT64_MAX + 1;
    if (m == 0) exp10 = 0;
    for (; exp10 > 0; exp10--) {
        m *= 10;
        if (m > limit) return -2;
    }
    if (exp10 < 0) {
        if (exp10 < -38) {
            m = 0;
        } else {
            __int128 d = 1;
            for (int i = 0; i < -exp10; i++)
                d *= 10;
            __int128 q = m / d, rem = m % d;
            m = q + (2 * rem >= d ? 1 : 0);
        }
    }
    if (m > limit || (!neg && m == limit)) return -2;
    int64_t v = neg ? (m == limit ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    if (v < lo || v > hi) return -2;
    *out = v;
    return 0;
}

static const char *const format_names[] = {
    [MW_IMPORT_CSV] = "csv",
    [MW_IMPORT_POWERSENSOR3] = "powersensor3",
    [MW_IMPORT_KWOLLECT] = "kwollect",
    [MW_IMPORT_PMLIB] = "pmlib",
};

/* ---- the file's contents -------------------------------------------------------------- */

typedef mw_import import_data;
typedef mw_imp_row import_row;
typedef mw_imp_channel import_channel;
typedef mw_imp_gap import_gap;

enum {
    COL_TIME = MW_IMP_COL_TIME,
    COL_START = MW_IMP_COL_START,
    COL_CHANNEL = MW_IMP_COL_CHANNEL,
    COL_POWER = MW_IMP_COL_POWER,
    COL_ENERGY = MW_IMP_COL_ENERGY,
    COL_VRMS = MW_IMP_COL_VRMS,
    COL_IRMS = MW_IMP_COL_IRMS,
    COL_PF = MW_IMP_COL_PF,
    COL_FLAGS = MW_IMP_COL_FLAGS,
    COL_UNC = MW_IMP_COL_UNC,
    NCOLS = MW_IMP_NCOLS
};

void mw_import_free(mw_import *d)
{
    if (!d) return;
    for (int i = 0; i < d->nch; i++) {
        free(d->ch[i].name);
        free(d->ch[i].host);
        free(d->ch[i].rows);
    }
    for (size_t i = 0; i < d->nphases; i++)
        free(d->phases[i].name);
    free(d->phases);
    free(d->gaps);
    free(d->file);
    free(d);
}

/* "FILE:LINE:COL: message" into the caller's buffer; returns -1. col 0: no column. */
int mw_imp_bad(import_data *d, long line, int col, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (col > 0)
        n = snprintf(d->err, d->errlen, "%s:%ld:%d: ", d->file, line, col);
    else
        n = snprintf(d->err, d->errlen, "%s:%ld: ", d->file, line);
    if (n >= 0 && (size_t)n < d->errlen) {
        va_start(ap, fmt);
        vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static const char *const col_names[NCOLS] = {
    [COL_TIME] = "time_s",        [COL_START] = "start_s",   [COL_CHANNEL] = "channel",
    [COL_POWER] = "power_w",      [COL_ENERGY] = "energy_j", [COL_VRMS] = "vrms_v",
    [COL_IRMS] = "irms_a",        [COL_PF] = "pf",           [COL_FLAGS] = "flags",
    [COL_UNC] = "uncertainty_ms",
};

/* Map the header's names onto the columns. Returns 0, or -1 with the message. */
static int read_header(import_data *d, const csv_in *r, long line)
{
    for (int k = 0; k < NCOLS; k++)
        d->col[k] = -1;
    int start_ns = -1, start_s = -1, time_s = -1, time_ns = -1;
    for (int i = 0; i < r->n; i++) {
        const char *h = field(r, i);
        int k = -1;
        if (!strcmp(h, "time_s")) {
            k = COL_TIME;
            time_s = i;
        } else if (!strcmp(h, "time_ns")) {
            k = COL_TIME;
            time_ns = i;
        } else if (!strcmp(h, "start_s")) {
            k = COL_START;
            start_s = i;
        } else if (!strcmp(h, "start_ns")) {
            k = COL_START;
            start_ns = i;
        } else {
            for (int j = 0; j < NCOLS; j++)
                if (j != COL_TIME && j != COL_START && !strcmp(h, col_names[j])) k = j;
        }
        if (k < 0) continue; /* a column we do not use */
        if (d->col[k] >= 0)
            return mw_imp_bad(d, line, i + 1, "column '%s' repeats column %d ('%s')", h,
                              d->col[k] + 1, field(r, d->col[k]));
        d->col[k] = i;
    }
    if (d->col[COL_TIME] < 0)
        return mw_imp_bad(d, line, 0,
                          "the header names no time column (time_s or time_ns, the window's end)");
    if (d->col[COL_CHANNEL] < 0)
        return mw_imp_bad(d, line, 0, "the header names no column 'channel'");
    if (d->col[COL_POWER] < 0)
        return mw_imp_bad(d, line, 0, "the header names no column 'power_w'");
    d->time_in_ns = time_ns >= 0;
    if (time_ns >= 0 && start_s >= 0)
        return mw_imp_bad(d, line, start_s + 1,
                          "start_s goes with time_s; with time_ns give start_ns");
    if (time_s >= 0 && start_ns >= 0)
        return mw_imp_bad(d, line, start_ns + 1,
                          "start_ns goes with time_ns; with time_s give start_s");
    d->nfields = r->n;
    return 0;
}

mw_imp_channel *mw_imp_channel_of(import_data *d, const char *name, const char *host, long line,
                                  int col)
{
    for (int i = d->nch - 1; i >= 0; i--)
        if (!strcmp(d->ch[i].name, name)) return &d->ch[i];
    if (!*name) {
        mw_imp_bad(d, line, col, "channel: empty name");
        return NULL;
    }
    if (strlen(name) > MW_IMP_MAX_NAME) {
        mw_imp_bad(d, line, col, "channel: name longer than %d bytes", MW_IMP_MAX_NAME);
        return NULL;
    }
    if (d->nch == MW_IMP_MAX_CHANNELS) {
        mw_imp_bad(d, line, col, "channel '%s': more than %d channels", name, MW_IMP_MAX_CHANNELS);
        return NULL;
    }
    import_channel *c = &d->ch[d->nch];
    c->name = strdup(name);
    c->host = host ? strdup(host) : NULL;
    if (!c->name || (host && !c->host)) {
        free(c->name);
        free(c->host);
        c->name = c->host = NULL;
        mw_imp_bad(d, line, col, "out of memory");
        return NULL;
    }
    d->nch++;
    return c;
}

int mw_imp_push_row(import_data *d, mw_imp_channel *c, const mw_imp_row *x)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 1024;
        import_row *rows = realloc(c->rows, cap * sizeof *rows);
        if (!rows) return mw_imp_bad(d, x->line, 0, "out of memory");
        c->rows = rows;
        c->cap = cap;
    }
    c->rows[c->n++] = *x;
    return 0;
}

int mw_imp_add_phase(import_data *d, const char *name, int64_t start_ns, int64_t end_ns, long line)
{
    if (d->nphases == d->pcap) {
        size_t cap = d->pcap ? 2 * d->pcap : 64;
        mw_imp_phase *p = realloc(d->phases, cap * sizeof *p);
        if (!p) return mw_imp_bad(d, line, 0, "out of memory");
        d->phases = p;
        d->pcap = cap;
    }
    char *copy = strdup(name);
    if (!copy) return mw_imp_bad(d, line, 0, "out of memory");
    d->phases[d->nphases++] = (mw_imp_phase){copy, start_ns, end_ns};
    return 0;
}

/* The numeric field of column k in units of 10^-scale within [lo, hi]: returns 1 with *v,
 * 0 when the column is absent or the field empty (an optional column), or -1 with the
 * message. */
static int num_field(import_data *d, const csv_in *r, long line, int k, int scale, int64_t lo,
                     int64_t hi, int64_t *v)
{
    int i = d->col[k];
    if (i < 0) return 0;
    const char *s = field(r, i);
    if (!*s) {
        if (k == COL_TIME || k == COL_POWER) {
            mw_imp_bad(d, line, i + 1, "%s: empty",
                       k == COL_TIME ? (d->time_in_ns ? "time_ns" : "time_s") : "power_w");
            return -1;
        }
        return 0;
    }
    int e = mw_imp_parse_fixed(s, scale, lo, hi, v);
    if (e) {
        const char *cname = col_names[k];
        if (k == COL_TIME && d->time_in_ns) cname = "time_ns";
        if (k == COL_START && d->time_in_ns) cname = "start_ns";
        mw_imp_bad(d, line, i + 1, "%s: '%s' is %s", cname, s,
                   e == -2 ? "out of range" : "not a number");
        return -1;
    }
    return 1;
}

/* Parse one data row into its channel. Returns 0, or -1 with the message. */
static int read_row(import_data *d, const csv_in *r, long line)
{
    if (r->n != d->nfields)
        return mw_imp_bad(d, line, 0, "%d field%s, the header names %d", r->n, r->n == 1 ? "" : "s",
                          d->nfields);
    import_channel *c =
        mw_imp_channel_of(d, field(r, d->col[COL_CHANNEL]), NULL, line, d->col[COL_CHANNEL] + 1);
    if (!c) return -1;
    import_row x = {.t0_ns = INT64_MIN, .energy_mj = INT64_MIN, .line = line};
    int tscale = d->time_in_ns ? 0 : 9;
    int64_t v;
    if (num_field(d, r, line, COL_TIME, tscale, INT64_MIN + 1, INT64_MAX, &x.t1_ns) < 0) return -1;
    int got = num_field(d, r, line, COL_START, tscale, INT64_MIN + 1, INT64_MAX, &v);
    if (got < 0) return -1;
    if (got) x.t0_ns = v;
    if (num_field(d, r, line, COL_POWER, 3, INT32_MIN, INT32_MAX, &v) < 0) return -1;
    x.power_mw = (int32_t)v;
    if ((got = num_field(d, r, line, COL_ENERGY, 3, INT64_MIN + 1, INT64_MAX, &v)) < 0) return -1;
    if (got) x.energy_mj = v;
    if ((got = num_field(d, r, line, COL_VRMS, 3, INT32_MIN, INT32_MAX, &v)) < 0) return -1;
    if (got) x.vrms_mv = (int32_t)v;
    if ((got = num_field(d, r, line, COL_IRMS, 6, INT32_MIN, INT32_MAX, &v)) < 0) return -1;
    if (got) x.irms_ua = (int32_t)v;
    if ((got = num_field(d, r, line, COL_PF, 3, -1000, 1000, &v)) < 0) return -1;
    if (got) x.pf_milli = (int32_t)v;
    if ((got = num_field(d, r, line, COL_FLAGS, 0, 0, UINT32_MAX, &v)) < 0) return -1;
    if (got) x.flags = (uint32_t)v;
    if ((got = num_field(d, r, line, COL_UNC, 6, 0, INT64_MAX, &v)) < 0) return -1;
    if (got) x.uncertainty_ns = v;

    const char *tname = d->time_in_ns ? "time_ns" : "time_s";
    if (c->n && x.t1_ns <= c->rows[c->n - 1].t1_ns)
        return mw_imp_bad(d, line, d->col[COL_TIME] + 1,
                          "%s: '%s' is not after the previous window of channel '%s' (line %ld)",
                          tname, field(r, d->col[COL_TIME]), c->name, c->rows[c->n - 1].line);
    if (x.t0_ns != INT64_MIN) {
        const char *sname = d->time_in_ns ? "start_ns" : "start_s";
        if (x.t0_ns >= x.t1_ns)
            return mw_imp_bad(d, line, d->col[COL_START] + 1,
                              "%s: '%s' is not before the window's end (%s '%s')", sname,
                              field(r, d->col[COL_START]), tname, field(r, d->col[COL_TIME]));
        if (c->n && x.t0_ns < c->rows[c->n - 1].t1_ns)
            return mw_imp_bad(d, line, d->col[COL_START] + 1,
                              "%s: '%s' is before the end of the previous window of channel '%s' "
                              "(line %ld)",
                              sname, field(r, d->col[COL_START]), c->name, c->rows[c->n - 1].line);
    }
    return mw_imp_push_row(d, c, &x);
}

/* Returns 0, or -1 with the message. */
static int read_file(import_data *d, const char *text, size_t len)
{
    csv_in r = {.p = text, .end = text + len, .line = 1};
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) r.p += 3; /* a UTF-8 byte-order mark */
    const char *msg = NULL;
    long line = 0;
    int rc = 0, got = csv_record(&r, &line, &msg);
    if (got == 0) {
        rc = mw_imp_bad(d, r.line, 0, "no header line (the file holds no data)");
    } else if (got < 0) {
        rc = mw_imp_bad(d, line, r.n, "%s", msg);
    } else {
        rc = read_header(d, &r, line);
        long rows = 0;
        while (rc == 0 && (got = csv_record(&r, &line, &msg)) != 0) {
            if (got < 0)
                rc = mw_imp_bad(d, line, r.n, "%s", msg);
            else
                rc = read_row(d, &r, line);
            rows++;
        }
        if (rc == 0 && !rows) rc = mw_imp_bad(d, line, 0, "a header but no rows");
    }
    free(r.buf);
    free(r.off);
    return rc;
}

/* ---- windows, gaps, energy ------------------------------------------------------------ */

/* v rounded to ns; a spacing can exceed INT64_MAX (times from both ends of the range) */
static int64_t round_ns(double v)
{
    return v >= 9223372036854775807.0 ? INT64_MAX : llround(v);
}

/* Median of the end-to-end spacings of rows [0, n) (n >= 2), ns; tmp holds n - 1. */
static int64_t median_spacing(const import_row *rows, size_t n, double *tmp)
{
    for (size_t i = 1; i < n; i++)
        tmp[i - 1] = (double)((__int128)rows[i].t1_ns - rows[i - 1].t1_ns);
    gsl_sort(tmp, 1, n - 1);
    return round_ns(gsl_stats_median_from_sorted_data(tmp, 1, n - 1));
}

static int add_gap(import_data *d, int64_t a, int64_t b, int channel)
{
    if (d->ngaps == d->gcap) {
        size_t cap = d->gcap ? 2 * d->gcap : 64;
        import_gap *g = realloc(d->gaps, cap * sizeof *g);
        if (!g) return -1;
        d->gaps = g;
        d->gcap = cap;
    }
    d->gaps[d->ngaps++] = (import_gap){a, b, channel};
    return 0;
}

/* Give every window its start, find the gaps. Returns 0, or -1 with the message. */
static int make_windows(import_data *d)
{
    size_t total = 0;
    for (int c = 0; c < d->nch; c++)
        total += d->ch[c].n;
    double *tmp = malloc((total > 1 ? total : 1) * sizeof *tmp);
    if (!tmp) return mw_imp_bad(d, 1, 0, "out of memory");
    /* the median over all channels, for a channel of one row */
    int64_t all_med = 0;
    size_t m = 0;
    for (int c = 0; c < d->nch; c++)
        for (size_t i = 1; i < d->ch[c].n; i++)
            tmp[m++] = (double)((__int128)d->ch[c].rows[i].t1_ns - d->ch[c].rows[i - 1].t1_ns);
    if (m) {
        gsl_sort(tmp, 1, m);
        all_med = round_ns(gsl_stats_median_from_sorted_data(tmp, 1, m));
    }
    int rc = 0, csv = d->format == MW_IMPORT_CSV;
    for (int c = 0; c < d->nch && rc == 0; c++) {
        import_channel *ch = &d->ch[c];
        int64_t med = ch->n >= 2 ? median_spacing(ch->rows, ch->n, tmp) : all_med;
        for (size_t i = 0; i < ch->n; i++) {
            import_row *x = &ch->rows[i];
            const import_row *prev = i ? &ch->rows[i - 1] : NULL;
            /* a spacing over 1.5 x the median */
            int hole = prev && 2 * ((__int128)x->t1_ns - prev->t1_ns) > (__int128)3 * med;
            if (x->t0_ns == INT64_MIN) {
                if (!med) {
                    rc = mw_imp_bad(d, x->line, d->col[COL_TIME] + 1,
                                    "channel '%s' has a single window%s: its length is "
                                    "unknown%s",
                                    ch->name, csv ? " and no start column" : "",
                                    csv ? " (give start_s)" : "");
                    break;
                }
                __int128 t0 = prev && !hole ? prev->t1_ns : (__int128)x->t1_ns - med;
                if (t0 <= INT64_MIN) {
                    rc = mw_imp_bad(d, x->line, d->col[COL_TIME] + 1,
                                    "channel '%s': the window's start (its end less the median "
                                    "spacing) is out of range%s",
                                    ch->name, csv ? " (give start_s)" : "");
                    break;
                }
                x->t0_ns = (int64_t)t0;
                if (prev && x->t0_ns < prev->t1_ns) x->t0_ns = prev->t1_ns;
            }
            if (hole && x->t0_ns > prev->t1_ns && add_gap(d, prev->t1_ns, x->t0_ns, c)) {
                rc = mw_imp_bad(d, x->line, 0, "out of memory");
                break;
            }
        }
    }
    free(tmp);
    return rc;
}

static int gap_cmp(const void *a, const void *b)
{
    const import_gap *x = a, *y = b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    if (x->end_ns != y->end_ns) return x->end_ns < y->end_ns ? -1 : 1;
    return x->channel - y->channel;
}

/* round(v / 1e9), half away from zero */
static int64_t pj_to_mj(__int128 v)
{
    __int128 a = v < 0 ? -v : v, q = (a + 500000000) / 1000000000;
    return (int64_t)(v < 0 ? -q : q);
}

/* ---- writing the run -------------------------------------------------------------------- */

typedef struct {
    int energy_given, energy_integrated; /* rows of each kind */
    size_t gap_rows;                     /* gaps written (one per span) */
} write_counts;

static int write_samples(mw_store *s, const import_data *d, int64_t base_ns, write_counts *n)
{
    for (int c = 0; c < d->nch; c++) {
        const import_channel *ch = &d->ch[c];
        if (mw_store_channel_add(s, c + 1, ch->name, ch->host, NULL)) return -1;
        __int128 run_pj = 0;
        for (size_t i = 0; i < ch->n; i++) {
            const import_row *x = &ch->rows[i];
            if (x->energy_mj != INT64_MIN) {
                run_pj = (__int128)x->energy_mj * 1000000000;
                n->energy_given++;
            } else {
                run_pj += (__int128)x->power_mw * ((__int128)x->t1_ns - x->t0_ns);
                n->energy_integrated++;
            }
            int64_t e_mj = pj_to_mj(run_pj);
            mw_store_sample y = {
                .channel = c + 1,
                .segment = 0,
                .seq = (uint32_t)i,
                .meter_t0_us = ((uint64_t)x->t0_ns - (uint64_t)base_ns) / 1000,
                .meter_t1_us = ((uint64_t)x->t1_ns - (uint64_t)base_ns) / 1000,
                .t0_ns = x->t0_ns,
                .t1_ns = x->t1_ns,
                .uncertainty_ns = x->uncertainty_ns,
                .power_mw = x->power_mw,
                .vrms_mv = x->vrms_mv,
                .irms_ua = x->irms_ua,
                .pf_milli = x->pf_milli,
                .meter_energy_mj = e_mj,
                .energy_mj = e_mj,
                .flags = x->flags,
            };
            if (mw_store_sample_add(s, &y)) return -1;
        }
    }
    for (size_t i = 0; i < d->ngaps;) { /* sorted: the channels of one span are together */
        size_t j = i;
        while (j < d->ngaps && d->gaps[j].start_ns == d->gaps[i].start_ns &&
               d->gaps[j].end_ns == d->gaps[i].end_ns)
            j++;
        char reason[256] = "import: no samples";
        if (j - i < (size_t)d->nch) {
            size_t len = strlen(reason);
            for (size_t k = i; k < j && len < sizeof reason - 1; k++) {
                len += (size_t)snprintf(reason + len, sizeof reason - len, "%s%s",
                                        k == i ? " of " : ", ", d->ch[d->gaps[k].channel].name);
                if (len >= sizeof reason) len = sizeof reason - 1;
            }
        }
        if (mw_store_gap_add(s, d->gaps[i].start_ns, d->gaps[i].end_ns, reason)) return -1;
        n->gap_rows++;
        i = j;
    }
    return 0;
}

static int write_meta(mw_store *s, const import_data *d, const write_counts *n, int64_t start_ns,
                      int64_t end_ns)
{
    char num[32], path[PATH_MAX];
    const char *src = realpath(d->file, path) ? path : d->file;
    const char *energy = !n->energy_given        ? "integrated from power_w"
                         : !n->energy_integrated ? "energy_j column"
                                                 : "energy_j column, integrated where empty";
    if (mw_store_meta_set(s, "status", "imported") || mw_store_meta_set(s, "import_source", src) ||
        mw_store_meta_set(s, "import_format", format_names[d->format]) ||
        mw_store_meta_set(s, "import_energy", energy) ||
        mw_store_meta_set(s, "channels_from", "import") ||
        mw_store_meta_set(s, "mw_version", MW_VERSION))
        return -1;
    snprintf(num, sizeof num, "%" PRId64, start_ns);
    if (mw_store_meta_set(s, "start_ns", num)) return -1;
    snprintf(num, sizeof num, "%" PRId64, end_ns);
    return mw_store_meta_set(s, "end_ns", num);
}

/* The phases the file marks (PowerSensor3's markers, pmlib's sets): rank -1, kind "user". */
static int write_phases(mw_store *s, const import_data *d)
{
    for (size_t i = 0; i < d->nphases; i++) {
        mw_store_phase p = {.rank = -1,
                            .host = "",
                            .kind = "user",
                            .name = d->phases[i].name,
                            .start_ns = d->phases[i].start_ns,
                            .end_ns = d->phases[i].end_ns,
                            .peer = -1};
        if (mw_store_phase_add(s, &p)) return -1;
    }
    return 0;
}

static void remove_tmp_run(const char *dir)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    for (unsigned i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s/%s%s", dir, MW_STORE_DB_NAME, suffix[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* Missing parents of path, as mkdir -p. */
static int make_parents(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf) return 0;
    *slash = 0;
    return mw_fs_mkdirs(buf, NULL, NULL, 0);
}

/* The store written in tmp: the samples, the gaps, the metadata. Returns 0, or -1 with the
 * message. */
static int write_store(const import_data *d, const char *tmp, write_counts *n, char *err,
                       size_t errlen)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int c = 0; c < d->nch; c++)
        for (size_t i = 0; i < d->ch[c].n; i++) {
            if (d->ch[c].rows[i].t0_ns < lo) lo = d->ch[c].rows[i].t0_ns;
            if (d->ch[c].rows[i].t1_ns > hi) hi = d->ch[c].rows[i].t1_ns;
        }
    /* relative time_s: the origin of the file's times is the run's start, so exports give
     * the same numbers back; Unix time (time_ns, or time_s >= 1e9 s): the first window */
    int64_t start_ns = !d->time_in_ns && hi < IMPORT_UNIX_TIME_NS ? 0 : lo;
    mw_store *s = mw_store_create(tmp, 1, err, errlen);
    if (!s) return -1;
    if (write_samples(s, d, lo, n) || write_phases(s, d) || write_meta(s, d, n, start_ns, hi) ||
        mw_store_commit(s)) {
        snprintf(err, errlen, "%s", mw_store_error(s));
        mw_store_close(s);
        return -1;
    }
    mw_store_close(s);
    return 0;
}

/* Put the run written in tmp in place: rename tmp to rundir, or with force replace the
 * trace.db of an existing rundir. Returns 0, or -1 with errno set. */
static int put_in_place(const char *tmp, const char *rundir, int force)
{
    struct stat st;
    int rc = 0;
    if (stat(rundir, &st) != 0) {
        rc = rename(tmp, rundir);
    } else if (!S_ISDIR(st.st_mode) || !force) {
        errno = S_ISDIR(st.st_mode) ? EEXIST : ENOTDIR;
        rc = -1;
    } else {
        char from[PATH_MAX + 64], to[PATH_MAX + 64];
        static const char *const suffix[] = {"-wal", "-shm", "-journal"};
        for (unsigned i = 0; i < 3; i++) {
            snprintf(to, sizeof to, "%s/%s%s", rundir, MW_STORE_DB_NAME, suffix[i]);
            if (unlink(to) != 0 && errno != ENOENT) rc = -1;
        }
        snprintf(from, sizeof from, "%s/%s", tmp, MW_STORE_DB_NAME);
        snprintf(to, sizeof to, "%s/%s", rundir, MW_STORE_DB_NAME);
        if (!rc) rc = rename(from, to);
    }
    return rc;
}

int mw_import_write(const mw_import *d, const char *rundir, int force, mw_import_summary *sum,
                    char *err, size_t errlen)
{
    char tmp[PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.import-XXXXXX", rundir) >= sizeof tmp - 64) {
        snprintf(err, errlen, "%s: name too long", rundir);
        return -1;
    }
    if (make_parents(rundir) || !mkdtemp(tmp)) {
        snprintf(err, errlen, "%s: cannot create: %s", rundir, strerror(errno));
        return -1;
    }
    chmod(tmp, 0777 & ~mw_fs_umask()); /* mkdtemp makes 0700; a run directory 0777 & ~umask */
    write_counts n = {0};
    if (write_store(d, tmp, &n, err, errlen)) {
        remove_tmp_run(tmp);
        return -1;
    }
    if (put_in_place(tmp, rundir, force)) {
        snprintf(err, errlen, "%s: %s", rundir, strerror(errno));
        remove_tmp_run(tmp);
        return -1;
    }
    remove_tmp_run(tmp); /* with force: the emptied temporary directory */
    if (sum) {
        sum->windows = 0;
        for (int c = 0; c < d->nch; c++)
            sum->windows += (int64_t)d->ch[c].n;
        sum->channels = d->nch;
        sum->gaps = n.gap_rows;
    }
    return 0;
}

/* ---- reading and checking ------------------------------------------------------------- */

int mw_import_format_from_name(const char *name, mw_import_format *fmt)
{
    for (unsigned i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
        if (!strcmp(name, format_names[i])) {
            *fmt = (mw_import_format)i;
            return 0;
        }
    return -1;
}

const char *mw_import_format_names(void)
{
    return "csv, powersensor3, kwollect, pmlib";
}

/* Parse text (text[len] == 0, modifiable: the line readers cut it into lines) as fmt. */
static mw_import *parse_text(mw_import_format fmt, const char *file, char *text, size_t len,
                             char *err, size_t errlen)
{
    mw_import *d = mw_xcalloc(1, sizeof *d);
    d->file = mw_xstrdup(file);
    d->err = err;
    d->errlen = errlen;
    d->format = fmt;
    for (int k = 0; k < NCOLS; k++)
        d->col[k] = -1;
    int rc;
    switch (fmt) {
    case MW_IMPORT_POWERSENSOR3:
        rc = mw_imp_read_powersensor3(d, text, len);
        break;
    case MW_IMPORT_KWOLLECT:
        rc = mw_imp_read_kwollect(d, text, len);
        break;
    case MW_IMPORT_PMLIB:
        rc = mw_imp_read_pmlib(d, text, len);
        break;
    default:
        rc = read_file(d, text, len);
        break;
    }
    if (rc == 0 && d->nch == 0) rc = mw_imp_bad(d, 1, 0, "no power samples in the file");
    if (rc == 0) rc = make_windows(d);
    d->err = NULL;
    d->errlen = 0;
    if (rc) {
        mw_import_free(d);
        return NULL;
    }
    if (d->ngaps) qsort(d->gaps, d->ngaps, sizeof *d->gaps, gap_cmp);
    return d;
}

mw_import *mw_import_parse_as(mw_import_format fmt, const char *file, const char *text, size_t len,
                              char *err, size_t errlen)
{
    char *copy = mw_xrealloc(NULL, len + 1);
    memcpy(copy, text, len);
    copy[len] = 0;
    mw_import *d = parse_text(fmt, file, copy, len, err, errlen);
    free(copy);
    return d;
}

mw_import *mw_import_parse(const char *file, const char *text, size_t len, char *err, size_t errlen)
{
    return mw_import_parse_as(MW_IMPORT_CSV, file, text, len, err, errlen);
}

mw_import *mw_import_read_as(mw_import_format fmt, const char *file, char *err, size_t errlen)
{
    static const mw_lines_limits limits = {MW_IMPORT_MAX_BYTES, 0, MW_LINES_TIMEOUT_MS};
    size_t len = 0;
    char *text;
    if (mw_lines_read_file(file, &limits, &text, &len, err, errlen)) return NULL;
    mw_import *d = parse_text(fmt, file, text, len, err, errlen);
    free(text);
    return d;
}

mw_import *mw_import_read(const char *file, char *err, size_t errlen)
{
    return mw_import_read_as(MW_IMPORT_CSV, file, err, errlen);
}

void mw_import_each_window(const mw_import *d,
                           void (*each)(void *ctx, int channel, int64_t t0_ns, int64_t t1_ns),
                           void *ctx)
{
    for (int c = 0; each && c < d->nch; c++)
        for (size_t i = 0; i < d->ch[c].n; i++)
            each(ctx, c, d->ch[c].rows[i].t0_ns, d->ch[c].rows[i].t1_ns);
}

int mw_import_check(const char *file, const char *text, size_t len,
                    void (*each)(void *ctx, int channel, int64_t t0_ns, int64_t t1_ns), void *ctx,
                    char *err, size_t errlen)
{
    mw_import *d = mw_import_parse(file, text, len, err, errlen);
    if (!d) return -1;
    mw_import_each_window(d, each, ctx);
    mw_import_free(d);
    return 0;
}
