/* simprofile — see mw_simprofile.h. The file is read through mw_lines (bounded: size, line
 * length, 10 s for a FIFO; read errors and NUL bytes are errors) and lines are split on
 * commas; numbers with mw_num_double (plain decimal: no nan, inf, hex or trailing text). */
#include "mw_simprofile.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_lines.h"
#include "mw_num.h"

struct mw_simprofile {
    int npins;
    int pins[15];
    int col_of_pin[16]; /* column index (0-based among pins) or -1 */
    size_t nrows, cap;
    double *t; /* nrows */
    double *w; /* nrows * npins */
};

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = 0;
    return s;
}

static int fail(char *err, size_t n, const char *path, size_t line, const char *msg,
                const char *what)
{
    snprintf(err, n, "%s:%zu: %s%s%s%s", path, line, msg, what ? " '" : "", what ? what : "",
             what ? "'" : "");
    return -1;
}

static int parse_header(mw_simprofile *p, char *s, const char *path, size_t line, char *err,
                        size_t errlen)
{
    char *save = NULL;
    char *tok = strtok_r(s, ",", &save);
    if (!tok || strcmp(trim(tok), "t_s") != 0)
        return fail(err, errlen, path, line, "the header must start with", "t_s");
    while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
        char *name = trim(tok);
        char *end;
        long pin = (name[0] == 'A') ? strtol(name + 1, &end, 10) : -1;
        if (name[0] != 'A' || !name[1] || *end || pin < 1 || pin > 15)
            return fail(err, errlen, path, line, "not a current input pin (A1..A15):", name);
        if (p->col_of_pin[pin] >= 0) return fail(err, errlen, path, line, "pin named twice:", name);
        p->col_of_pin[pin] = p->npins;
        p->pins[p->npins++] = (int)pin;
    }
    if (!p->npins) return fail(err, errlen, path, line, "the header names no pin", NULL);
    return 0;
}

static int parse_row(mw_simprofile *p, char *s, const char *path, size_t line, char *err,
                     size_t errlen)
{
    if (p->nrows == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        double *t = realloc(p->t, cap * sizeof *t);
        if (!t) return fail(err, errlen, path, line, "out of memory", NULL);
        p->t = t;
        double *w = realloc(p->w, cap * (size_t)p->npins * sizeof *w);
        if (!w) return fail(err, errlen, path, line, "out of memory", NULL);
        p->w = w;
        p->cap = cap;
    }
    char *save = NULL;
    int col = 0;
    for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save), col++) {
        char *f = trim(tok);
        double v;
        if (mw_num_double(f, -DBL_MAX, DBL_MAX, &v)) {
            char what[96];
            snprintf(what, sizeof what, "%.40s' in column %d ('%s", f, col + 1,
                     col ? "watts" : "t_s");
            return fail(err, errlen, path, line, "not a number:", what);
        }
        if (col > p->npins)
            return fail(err, errlen, path, line, "more columns than the header", NULL);
        if (col == 0) {
            if (p->nrows == 0 && v != 0)
                return fail(err, errlen, path, line, "the first row must be at t_s = 0", NULL);
            if (p->nrows && v <= p->t[p->nrows - 1])
                return fail(err, errlen, path, line, "times must increase:", f);
            p->t[p->nrows] = v;
        } else {
            p->w[p->nrows * (size_t)p->npins + (size_t)(col - 1)] = v;
        }
    }
    if (col != p->npins + 1)
        return fail(err, errlen, path, line, "fewer columns than the header", NULL);
    p->nrows++;
    return 0;
}

static const mw_lines_limits simprofile_limits = {
    MW_SIMPROFILE_MAX_BYTES, MW_SIMPROFILE_MAX_LINE_BYTES, MW_LINES_TIMEOUT_MS};

mw_simprofile *mw_simprofile_load(const char *path, char *err, size_t errlen)
{
    mw_lines in;
    if (mw_lines_open(&in, path, &simprofile_limits, err, errlen)) {
        mw_lines_close(&in);
        return NULL;
    }
    mw_simprofile *p = calloc(1, sizeof *p);
    if (!p) {
        mw_lines_close(&in);
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    for (int i = 0; i < 16; i++)
        p->col_of_pin[i] = -1;
    char *buf;
    int header = 0, rc = 0, got;
    while (rc == 0 && (got = mw_lines_next(&in, &buf, NULL, err, errlen)) != 0) {
        if (got < 0) {
            rc = -1;
            break;
        }
        size_t line = (size_t)in.line;
        char *hash = strchr(buf, '#');
        if (hash) *hash = 0;
        char *s = trim(buf);
        if (!*s) continue;
        rc = header ? parse_row(p, s, path, line, err, errlen)
                    : parse_header(p, s, path, line, err, errlen);
        header = 1;
    }
    size_t last = (size_t)in.line;
    mw_lines_close(&in);
    if (rc == 0 && !p->nrows) rc = fail(err, errlen, path, last, "no data rows", NULL);
    if (rc) {
        mw_simprofile_free(p);
        return NULL;
    }
    return p;
}

void mw_simprofile_free(mw_simprofile *p)
{
    if (!p) return;
    free(p->t);
    free(p->w);
    free(p);
}

int mw_simprofile_npins(const mw_simprofile *p)
{
    return p->npins;
}
int mw_simprofile_pin(const mw_simprofile *p, int i)
{
    return p->pins[i];
}

double mw_simprofile_power(const mw_simprofile *p, int pin, double t)
{
    if (pin < 0 || pin > 15 || p->col_of_pin[pin] < 0) return 0;
    /* last row with t_row <= t (binary search) */
    size_t lo = 0, hi = p->nrows;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (p->t[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return p->w[lo * (size_t)p->npins + (size_t)p->col_of_pin[pin]];
}

static double profile_fn(void *ctx, int pin, uint64_t t_ns)
{
    return mw_simprofile_power(ctx, pin, (double)t_ns * 1e-9);
}

void mw_simprofile_attach(mw_simprofile *p, mw_sim *sim, double pf, mw_sim_wave wave)
{
    for (int i = 0; i < p->npins; i++)
        mw_sim_set_load_fn(sim, p->pins[i], profile_fn, p, pf, wave);
}
