/* profile — see mw_profile.h. A line is cut into tokens at blanks (strtok_r) after its
 * comment; the first token is the keyword. Numbers are whole tokens read by mw_num (plain
 * decimal, the same rule as the command line's numbers) within MW_PROFILE_MAX, so that no
 * product or sum the models make of them overflows. A point token is cut at ':' into 2 or 3
 * numbers (2 for together lines). Reading stops at the first error; its message quotes the
 * token as written (up to 127 characters). The text is read whole and cut into lines by
 * mw_lines (bounded: MW_PROFILE_MAX_BYTES, MW_PROFILE_MAX_LINE_BYTES, no NUL bytes). */
#include "mw_profile.h"

#include <float.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "mw_lines.h"
#include "mw_num.h"

#define BLANKS " \t\r\n"

typedef struct {
    mw_profile *p;
    int line;
    char *err;
    size_t errlen;
} reader;

/* "FILE:LINE: message" into the caller's buffer; returns -1 */
static int bad(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(reader *r, const char *fmt, ...)
{
    int len = snprintf(r->err, r->errlen, "%s:%d: ", r->p->file, r->line);
    if (len < 0 || (size_t)len >= r->errlen) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + len, r->errlen - (size_t)len, fmt, ap);
    va_end(ap);
    return -1;
}

/* the whole string a plain decimal number (any finite double); each rule then checks its
 * range and names it in its message */
static int number(const char *s, double *v)
{
    return mw_num_double(s, -DBL_MAX, DBL_MAX, v) ? -1 : 0;
}

/* n, sizes, times, a=, b=: MW_PROFILE_MIN..MW_PROFILE_MAX */
static int positive(double x)
{
    return x >= MW_PROFILE_MIN && x <= MW_PROFILE_MAX;
}

/* energies, static_power: 0..MW_PROFILE_MAX */
static int nonnegative(double x)
{
    return x >= 0 && x <= MW_PROFILE_MAX;
}

/* "X:T[:E]" or, for together lines, "X:E". Returns the number of fields read, 0 if bad. */
static int parse_point(char *tok, double *f, int maxf)
{
    int nf = 0;
    char *save = NULL;
    for (char *s = strtok_r(tok, ":", &save); s; s = strtok_r(NULL, ":", &save)) {
        if (nf == maxf || number(s, &f[nf])) return 0;
        nf++;
    }
    return nf;
}

static void add_point(mw_profile_point **a, size_t *n, mw_profile_point pt)
{
    *a = mw_xrealloc(*a, (*n + 1) * sizeof **a);
    (*a)[(*n)++] = pt;
}

/* One X:T[:E] token of device d; *no_e set when it has no energy. */
static int device_point(reader *r, mw_profile_device *d, char *tok, int *no_e)
{
    double f[3];
    char copy[128];
    snprintf(copy, sizeof copy, "%s", tok);
    int nf = parse_point(tok, f, 3);
    if (nf < 2) return bad(r, "'%s' is not a=, b= or a point X:T[:E]", copy);
    if (!positive(f[0]) || !positive(f[1]))
        return bad(r, "point '%s': size and time must be %g to %g", copy, MW_PROFILE_MIN,
                   MW_PROFILE_MAX);
    if (nf == 3 && !nonnegative(f[2]))
        return bad(r, "point '%s': energy must be 0 to %g", copy, MW_PROFILE_MAX);
    if (nf == 3)
        d->has_energy = 1;
    else
        *no_e = 1;
    add_point(&d->pt, &d->npt, (mw_profile_point){f[0], f[1], nf == 3 ? f[2] : 0});
    return 0;
}

/* "device NAME [a=S] [b=J] [X:T[:E]]...", the tokens after the keyword in save */
static int parse_device(reader *r, char *save)
{
    mw_profile *p = r->p;
    char *name = strtok_r(NULL, BLANKS, &save);
    if (!name) return bad(r, "device needs a NAME");
    for (int i = 0; i < p->ndev; i++)
        if (!strcmp(p->dev[i].name, name)) return bad(r, "device '%s' given twice", name);
    p->dev = mw_xrealloc(p->dev, (size_t)(p->ndev + 1) * sizeof *p->dev);
    mw_profile_device *d = &p->dev[p->ndev++];
    memset(d, 0, sizeof *d);
    d->line = r->line;
    d->name = mw_xstrdup(name);
    int no_e = 0;
    for (char *tok = strtok_r(NULL, BLANKS, &save); tok; tok = strtok_r(NULL, BLANKS, &save)) {
        double v;
        if (!strncmp(tok, "a=", 2) || !strncmp(tok, "b=", 2)) {
            if (number(tok + 2, &v) || !positive(v))
                return bad(r, "'%s': needs a number from %g to %g", tok, MW_PROFILE_MIN,
                           MW_PROFILE_MAX);
            if (tok[0] == 'a')
                d->a_s_per_unit = v;
            else
                d->b_J_per_unit = v;
        } else if (device_point(r, d, tok, &no_e)) {
            return -1;
        }
    }
    if (d->a_s_per_unit > 0 && d->npt) return bad(r, "device '%s': a= or points, not both", name);
    if (!(d->a_s_per_unit > 0) && !d->npt)
        return bad(r, "device '%s': needs a= or time points X:T", name);
    if (d->b_J_per_unit > 0 && d->has_energy)
        return bad(r, "device '%s': b= or energies X:T:E, not both", name);
    if (!(d->b_J_per_unit > 0) && (!d->has_energy || no_e))
        return bad(r, "device '%s': needs b= or an energy at every point", name);
    return 0;
}

/* "together X:E..." */
static int parse_together(reader *r, char *save)
{
    mw_profile *p = r->p;
    p->together_line = r->line;
    for (char *tok = strtok_r(NULL, BLANKS, &save); tok; tok = strtok_r(NULL, BLANKS, &save)) {
        double f[2];
        char copy[128];
        snprintf(copy, sizeof copy, "%s", tok);
        if (parse_point(tok, f, 2) != 2 || !positive(f[0]) || !positive(f[1]))
            return bad(r, "'%s' is not a point X:E (both %g to %g)", copy, MW_PROFILE_MIN,
                       MW_PROFILE_MAX);
        add_point(&p->together, &p->ntogether, (mw_profile_point){f[0], 0, f[1]});
    }
    return 0;
}

/* "n N" or "static_power W" */
static int parse_value(reader *r, const char *key, char *save)
{
    mw_profile *p = r->p;
    char *v = strtok_r(NULL, BLANKS, &save);
    double x;
    int is_n = key[0] == 'n';
    if (!v || number(v, &x) || (is_n ? !positive(x) : !nonnegative(x)))
        return bad(r, "%s needs a number (n %g to %g, static_power 0 to %g)", key, MW_PROFILE_MIN,
                   MW_PROFILE_MAX, MW_PROFILE_MAX);
    if (strtok_r(NULL, BLANKS, &save)) return bad(r, "%s takes one value", key);
    if (is_n) {
        p->n_units = x;
        p->has_n = 1;
    } else {
        p->static_power_W = x;
        p->has_static_power = 1;
    }
    return 0;
}

static int parse_line(reader *r, char *buf)
{
    char *hash = strchr(buf, '#');
    if (hash) *hash = 0;
    char *save = NULL, *key = strtok_r(buf, BLANKS, &save);
    if (!key) return 0;
    if (!strcmp(key, "n") || !strcmp(key, "static_power")) return parse_value(r, key, save);
    if (!strcmp(key, "device")) return parse_device(r, save);
    if (!strcmp(key, "together")) return parse_together(r, save);
    return bad(r, "'%s' is not n, static_power, device or together", key);
}

void mw_profile_free(mw_profile *p)
{
    for (int i = 0; i < p->ndev; i++) {
        free(p->dev[i].name);
        free(p->dev[i].pt);
    }
    free(p->dev);
    free(p->together);
    free(p->file);
    memset(p, 0, sizeof *p);
}

/* The lines of text (the caller's, cut in place) into out. 0, or -1 with the message. */
static int parse_text(char *text, size_t len, const char *file, mw_profile *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->file = mw_xstrdup(file);
    reader r = {.p = out, .err = err, .errlen = errlen};
    mw_lines in;
    mw_lines_init(&in, file, text, len, MW_PROFILE_MAX_LINE_BYTES);
    char *line;
    int rc = 0, got;
    while (rc == 0 && (got = mw_lines_next(&in, &line, NULL, err, errlen)) != 0) {
        r.line = (int)in.line;
        rc = got < 0 ? -1 : parse_line(&r, line);
    }
    mw_lines_close(&in);
    if (rc == 0 && out->ndev == 0) rc = bad(&r, "no device lines");
    if (rc) mw_profile_free(out);
    return rc;
}

static const mw_lines_limits profile_limits = {MW_PROFILE_MAX_BYTES, MW_PROFILE_MAX_LINE_BYTES,
                                               MW_LINES_TIMEOUT_MS};

int mw_profile_read(FILE *in, const char *file, mw_profile *out, char *err, size_t errlen)
{
    char *text;
    size_t len;
    memset(out, 0, sizeof *out);
    if (mw_lines_read_stream(in, file, &profile_limits, &text, &len, err, errlen)) return -1;
    int rc = parse_text(text, len, file, out, err, errlen);
    free(text);
    return rc;
}

int mw_profile_load(const char *path, mw_profile *out, char *err, size_t errlen)
{
    char *text;
    size_t len;
    memset(out, 0, sizeof *out);
    if (mw_lines_read_file(path, &profile_limits, &text, &len, err, errlen)) return -1;
    int rc = parse_text(text, len, path, out, err, errlen);
    free(text);
    return rc;
}
