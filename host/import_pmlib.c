/* import_pmlib — mw import --format pmlib: the CSV file pmlib's client writes with
 * pm_print_data_csv() (pmlib, the power measurement library of Universitat Jaume I; its
 * client source documents the format: pmlib_client/pm_print_data_csv.c in
 * https://github.com/figual/pmlib and Python/client/pm_print_data_csv.c in
 * https://github.com/mdolz/PMLib):
 *
 *   Set_id;Time;Value_aggregate          a counter created with aggregate, or
 *   Set_id;Time;Line 0;Line 3;Sum        one column per measured line and their sum
 *   0;0.000000;34.381172
 *
 * Fields separated by ';', one line per sample: the set (the measurement interval between
 * pm_start/pm_continue_counter and pm_stop_counter, numbered from 0), the time in seconds
 * since the set began ("%f": to the us; the samples of a set are evenly spaced over it),
 * then the power in W of each line (or of their aggregate).
 *
 * What becomes of it: each power column is a channel named as its header names it ("Line
 * 0", "Value_aggregate"); Sum, the sum of the lines, is not a channel (it would count the
 * power twice). A sample is the window ending at its time, starting where the previous one
 * ended (the first of a set lasts the spacing of the set's first two samples, or of the
 * previous set's when it has one sample; a file whose first set has one is refused). pmlib's file
 * does not say how long the counter was stopped between sets, so the sets are laid end to end: set
 * n + 1's first window starts where set n's last one ended, and each set is a phase "set N" (so
 * that mw analyze gives the energy of each). Errors: "FILE:LINE[:FIELD]: what is wrong". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "mw_lines.h"

#define PM_MAX_FIELDS 130 /* pmlib's lines: at most 128 (__NLINEBITS), and Set_id, Time */
#define PM_MAX_LINE (64 * 1024)

typedef struct {
    int nfields;
    mw_imp_channel *ch[PM_MAX_FIELDS]; /* by field; NULL: not a channel */
} pm_header;

typedef struct {
    int64_t id;
    size_t first; /* row index of its first sample (every channel has every row) */
    long line;
} pm_set;

/* Split line at ';' into at most max fields, blanks around each trimmed; returns how many
 * (max + 1: more). */
static int split_fields(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;;) {
        if (n == max) return max + 1;
        while (*p == ' ' || *p == '\t')
            p++;
        f[n++] = p;
        char *semi = strchr(p, ';');
        char *end = semi ? semi : p + strlen(p);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        *end = 0;
        if (!semi) return n;
        p = semi + 1;
    }
}

static int read_header(mw_import *d, char **f, int n, long line, pm_header *h)
{
    memset(h, 0, sizeof *h);
    if (n < 3 || strcmp(f[0], "Set_id") || strcmp(f[1], "Time"))
        return mw_imp_bad(d, line, 0,
                          "not a pmlib CSV file: the first line must be the header "
                          "'Set_id;Time;...'");
    if (n > PM_MAX_FIELDS) return mw_imp_bad(d, line, 0, "more than %d columns", PM_MAX_FIELDS);
    h->nfields = n;
    for (int i = 2; i < n; i++) {
        if (!strcmp(f[i], "Sum")) continue;
        for (int j = 2; j < i; j++)
            if (!strcmp(f[i], f[j]))
                return mw_imp_bad(d, line, i + 1, "column '%s' repeats column %d", f[i], j + 1);
        if (!(h->ch[i] = mw_imp_channel_of(d, f[i], NULL, line, i + 1))) return -1;
    }
    if (!d->nch) return mw_imp_bad(d, line, 0, "the header names no power column");
    return 0;
}

static int num(mw_import *d, char **f, int i, long line, const char *what, int scale, int64_t lo,
               int64_t hi, int64_t *v)
{
    int e = mw_imp_parse_fixed(f[i], scale, lo, hi, v);
    if (e)
        return mw_imp_bad(d, line, i + 1, "%s: '%s' is %s", what, f[i],
                          e == -2 ? "out of range" : "not a number");
    return 0;
}

/* Set n's samples moved to follow set n - 1's, and the sets as phases. */
static int lay_sets(mw_import *d, const pm_set *s, size_t nsets)
{
    mw_imp_channel *c0 = &d->ch[0];
    int64_t prev_end = 0, spacing = 0;
    for (size_t k = 0; k < nsets; k++) {
        size_t a = s[k].first, b = k + 1 < nsets ? s[k + 1].first : c0->n; /* rows [a, b) */
        if (b - a >= 2) spacing = c0->rows[a + 1].t1_ns - c0->rows[a].t1_ns;
        /* the first set keeps its times; the next start one spacing after the last end */
        int64_t shift = k == 0 ? 0 : prev_end + spacing - c0->rows[a].t1_ns;
        if ((__int128)c0->rows[b - 1].t1_ns + shift > INT64_MAX / 2)
            return mw_imp_bad(d, s[k].line, 0, "set %lld: the sets last too long together",
                              (long long)s[k].id);
        int64_t start = c0->rows[a].t1_ns + shift - spacing;
        for (int c = 0; c < d->nch; c++)
            for (size_t i = a; i < b; i++) {
                mw_imp_row *x = &d->ch[c].rows[i];
                x->t1_ns += shift;
                x->t0_ns = i == a ? start : x[-1].t1_ns;
            }
        prev_end = c0->rows[b - 1].t1_ns;
        char name[32];
        snprintf(name, sizeof name, "set %lld", (long long)s[k].id);
        if (!spacing)
            return mw_imp_bad(d, s[k].line, 0,
                              "set %lld: a single sample: the spacing of the samples is unknown",
                              (long long)s[k].id);
        if (mw_imp_add_phase(d, name, start, prev_end, s[k].line)) return -1;
    }
    return 0;
}

typedef struct {
    pm_set *sets;
    size_t n, cap;
    int64_t last_t; /* time of the previous sample of the current set */
    long last_line;
} pm_state;

/* Set_id and Time of a sample: a new set, or the next sample of the current one. */
static int sample_set(mw_import *d, char **f, long line, pm_state *st, size_t row, int64_t *t)
{
    int64_t id;
    if (num(d, f, 0, line, "Set_id", 0, 0, INT32_MAX, &id) ||
        num(d, f, 1, line, "Time", 9, 0, INT64_MAX / 4, t))
        return -1;
    if (st->n && st->sets[st->n - 1].id == id) {
        if (*t <= st->last_t)
            return mw_imp_bad(d, line, 2,
                              "Time: '%s' is not after the previous sample's (line %ld)", f[1],
                              st->last_line);
    } else {
        for (size_t k = 0; k < st->n; k++)
            if (st->sets[k].id == id)
                return mw_imp_bad(d, line, 1, "Set_id: set %lld again (it ended on line %ld)",
                                  (long long)id, st->last_line);
        if (st->n == st->cap) {
            size_t cap = st->cap ? 2 * st->cap : 16;
            pm_set *p = realloc(st->sets, cap * sizeof *p);
            if (!p) return mw_imp_bad(d, line, 0, "out of memory");
            st->sets = p;
            st->cap = cap;
        }
        st->sets[st->n++] = (pm_set){id, row, line};
    }
    st->last_t = *t;
    st->last_line = line;
    return 0;
}

static int read_body(mw_import *d, mw_lines *r, const pm_header *h)
{
    pm_state st = {0};
    char *line, *f[PM_MAX_FIELDS + 1];
    int got, rc = 0;
    size_t row = 0;
    while (rc == 0 && (got = mw_lines_next(r, &line, NULL, d->err, d->errlen)) == 1) {
        if (line[strspn(line, " \t")] == 0) continue;
        int n = split_fields(line, f, PM_MAX_FIELDS);
        if (n != h->nfields) {
            rc = mw_imp_bad(d, r->line, 0, "%s%d field%s, the header names %d",
                            n > PM_MAX_FIELDS ? "more than " : "",
                            n > PM_MAX_FIELDS ? PM_MAX_FIELDS : n, n == 1 ? "" : "s", h->nfields);
            break;
        }
        int64_t t, v;
        if ((rc = sample_set(d, f, r->line, &st, row, &t))) break;
        for (int i = 2; i < n && rc == 0; i++) {
            if (!h->ch[i]) continue;
            mw_imp_row x = {
                .t0_ns = INT64_MIN, .t1_ns = t, .energy_mj = INT64_MIN, .line = r->line};
            if ((rc = num(d, f, i, r->line, "power", 3, INT32_MIN, INT32_MAX, &v))) break;
            x.power_mw = (int32_t)v;
            rc = mw_imp_push_row(d, h->ch[i], &x);
        }
        row++;
    }
    if (got < 0) rc = -1; /* the message is in d->err */
    if (rc == 0 && !row) rc = mw_imp_bad(d, r->line, 0, "a header but no samples");
    if (rc == 0) rc = lay_sets(d, st.sets, st.n);
    free(st.sets);
    return rc;
}

int mw_imp_read_pmlib(mw_import *d, char *text, size_t len)
{
    mw_lines r;
    mw_lines_init(&r, d->file, text, len, PM_MAX_LINE);
    d->time_name = "Time";
    char *line, *f[PM_MAX_FIELDS + 1];
    int got, n = 0;
    while ((got = mw_lines_next(&r, &line, NULL, d->err, d->errlen)) == 1)
        if (line[strspn(line, " \t")] != 0) break;
    int rc = -1;
    pm_header h;
    if (got == 0) {
        mw_imp_bad(d, r.line ? r.line : 1, 0, "no header line (the file holds no data)");
    } else if (got == 1) {
        n = split_fields(line, f, PM_MAX_FIELDS);
        if (read_header(d, f, n, r.line, &h) == 0) rc = read_body(d, &r, &h);
    }
    mw_lines_close(&r);
    return rc;
}
