/* channels — see channels.h. The file is read through mw_lines (bounded in size, line length
 * and time; read errors are errors); the format is two or three words a line, so strtok
 * splitting is all it needs. */
#include "channels.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_err.h"
#include "mw_lines.h"
#include "mw_num.h"

void mw_channels_file(char *out, size_t n)
{
    const char *f = getenv("MW_CHANNELS_FILE");
    if (f && *f) {
        snprintf(out, n, "%s", f);
        return;
    }
    const char *x = getenv("XDG_CONFIG_HOME");
    if (x && *x)
        snprintf(out, n, "%s/megawatt/channels", x);
    else
        snprintf(out, n, "%s/.config/megawatt/channels", getenv("HOME") ? getenv("HOME") : ".");
}

static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 31) return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *s))
            return 0;
    return 1;
}

/* The meters of the run: run-wide channel of meter i's channel k is first[i] + k - 1. */
typedef struct {
    const mw_channels_meter *m;
    int nm, n; /* meters, run-wide channels */
    int first[MW_CHANNELS_METERS];
} layout;

/* Returns the channel already called name, or 0. */
static int taken(const mw_channels *ch, int n, const char *name, int except)
{
    for (int k = 1; k <= n; k++)
        if (k != except && !strcmp(ch->name[k], name)) return k;
    return 0;
}

static int from_list(mw_channels *ch, int n, const char *list, char *err, size_t errlen)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", list);
    int k = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (++k > n) {
            snprintf(err, errlen, "--channels: %d names for %d current channels", k,
                     n);
            return -1;
        }
        char *at = strchr(t, '@');
        if (at) {
            *at = 0;
            if (!at[1]) {
                snprintf(err, errlen, "--channels: '%s@' has no host", t);
                return -1;
            }
            snprintf(ch->host[k], sizeof ch->host[k], "%s", at + 1);
        }
        if (!valid_name(t)) {
            snprintf(err, errlen, "--channels: '%s' is not a name of 1..31 letters, digits, _ . -",
                     t);
            return -1;
        }
        if (taken(ch, n, t, 0)) {
            snprintf(err, errlen, "--channels: '%s' is given twice", t);
            return -1;
        }
        snprintf(ch->name[k], sizeof ch->name[k], "%s", t);
    }
    if (k == 0) {
        snprintf(err, errlen, "--channels: the list is empty");
        return -1;
    }
    snprintf(ch->source, sizeof ch->source, "--channels");
    return 0;
}

/* One line of the file (its comment not yet cut). 0, or -1 with "PATH:LINE: ..." in err. */
/* The meter a line's "METER:" names (its name, or its port as given): its index, or -1
 * with "PATH:LINE: ..." in err. */
static int line_meter(const layout *L, const char *meter, const char *path, long lineno,
                      char *err, size_t errlen)
{
    char names[600] = "";
    size_t len = 0;
    for (int i = 0; i < L->nm; i++) {
        if ((L->m[i].name && !strcmp(L->m[i].name, meter)) ||
            (L->m[i].port && !strcmp(L->m[i].port, meter)))
            return i;
        if (len < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%.100s", i ? ", " : "",
                                    L->m[i].name ? L->m[i].name : "?");
    }
    return mw_err(err, errlen, "%s:%ld: meter '%.100s' is not recorded (the meters: %s)", path,
                  lineno, meter, names);
}

static int file_line(mw_channels *ch, const layout *L, long *named_at, const char *path,
                     long lineno, char *line, char *err, size_t errlen)
{
    int n = L->n;
    line[strcspn(line, "#\r")] = 0;
    char *tok[4], *save = NULL;
    int got = 0;
    for (char *t = strtok_r(line, " \t\v\f", &save); t && got < 4;
         t = strtok_r(NULL, " \t\v\f", &save))
        tok[got++] = t;
    if (got == 0) return 0;
    int64_t k = 0;
    int mi = 0;
    char *colon = got >= 2 ? strrchr(tok[0], ':') : NULL, *meter = "";
    if (colon) {
        *colon = 0;
        meter = tok[0];
        if ((mi = line_meter(L, tok[0], path, lineno, err, errlen)) < 0) return -1;
        tok[0] = colon + 1;
    }
    if (got < 2 || got > 3 || mw_num_int64(tok[0], 1, MW_CHANNELS_MAX, &k))
        return mw_err(err, errlen,
                      "%s:%ld: expected 'CHANNEL NAME [HOST]' with CHANNEL 1..15 (or "
                      "METER:CHANNEL)",
                      path, lineno);
    if (!valid_name(tok[1]))
        return mw_err(err, errlen, "%s:%ld: '%.40s' is not a name of 1..31 letters, digits, _ . -",
                      path, lineno, tok[1]);
    if (got == 3 && strlen(tok[2]) >= sizeof ch->host[0])
        return mw_err(err, errlen, "%s:%ld: host name longer than %zu characters", path, lineno,
                      sizeof ch->host[0] - 1);
    if (k > L->m[mi].nchan) return 0; /* a channel this meter does not have */
    k = L->first[mi] + k - 1;         /* run-wide */
    if (named_at[k]) /* a second line would silently win (and drop the first's host) */
        return mw_err(err, errlen, "%s:%ld: channel %.40s%s%d is already named at line %ld",
                      path, lineno, meter, colon ? ":" : "", (int)(k - L->first[mi] + 1),
                      named_at[k]);
    named_at[k] = lineno;
    int other = taken(ch, n, tok[1], (int)k);
    if (other && strcmp(ch->name[other], "") != 0)
        return mw_err(err, errlen, "%s:%ld: '%s' is already channel %d", path, lineno, tok[1],
                      other);
    snprintf(ch->name[k], sizeof ch->name[k], "%.31s", tok[1]);
    snprintf(ch->host[k], sizeof ch->host[k], "%s", got == 3 ? tok[2] : "");
    return 0;
}

/* The file at path, read whole within mw_lines_config (1 MiB, lines of 4096 bytes, 10 s for
 * a pipe or FIFO). A file that is not there is no error unless named by $MW_CHANNELS_FILE;
 * any other failure to read it (a loop of links, no permission, a directory) is. Returns 0,
 * or -1 with the message in err. */
static int from_file(mw_channels *ch, const layout *L, const char *path, int named, char *err,
                     size_t errlen)
{
    mw_lines r;
    int rc = mw_lines_open(&r, path, &mw_lines_config, err, errlen);
    if (rc && errno == ENOENT && !named) {
        mw_lines_close(&r);
        snprintf(ch->source, sizeof ch->source, "default names");
        return 0;
    }
    if (rc && named && errno == ENOENT)
        mw_err(err, errlen, "%s: %s (named by MW_CHANNELS_FILE)", path, strerror(ENOENT));
    char *line;
    int got;
    long named_at[MW_CHANNELS_RUN_MAX + 1] = {0}; /* the line that named each channel */
    while (rc == 0 && (got = mw_lines_next(&r, &line, NULL, err, errlen)) != 0)
        rc = got < 0 ? -1 : file_line(ch, L, named_at, path, r.line, line, err, errlen);
    mw_lines_close(&r);
    if (rc == 0) snprintf(ch->source, sizeof ch->source, "%s", path);
    return rc;
}

int mw_channels_load_meters(mw_channels *ch, const mw_channels_meter *m, int nmeters,
                            const char *list, char *err, size_t errlen)
{
    memset(ch, 0, sizeof *ch);
    layout L = {m, nmeters, 0, {0}};
    if (nmeters < 1 || nmeters > MW_CHANNELS_METERS)
        return mw_err(err, errlen, "%d meters: 1 to %d can be recorded", nmeters,
                      MW_CHANNELS_METERS);
    for (int i = 0; i < nmeters; i++) {
        L.first[i] = L.n + 1;
        L.n += m[i].nchan < 0 ? 0 : m[i].nchan > MW_CHANNELS_MAX ? MW_CHANNELS_MAX : m[i].nchan;
    }
    int n = L.n, rc = 0;
    if (list) {
        rc = from_list(ch, n, list, err, errlen);
    } else {
        char path[4096];
        mw_channels_file(path, sizeof path);
        const char *named = getenv("MW_CHANNELS_FILE");
        rc = from_file(ch, &L, path, named && *named, err, errlen);
    }
    if (rc) return rc;
    for (int i = 0; i < nmeters; i++)
        for (int k = L.first[i]; k < (i + 1 < nmeters ? L.first[i + 1] : n + 1); k++) {
            if (ch->name[k][0]) continue;
            char def[32];
            if (i)
                snprintf(def, sizeof def, "m%d.ch%d", i + 1, k - L.first[i] + 1);
            else
                snprintf(def, sizeof def, "ch%d", k);
            if (taken(ch, n, def, k)) {
                snprintf(err, errlen, "%s: channel %d has no name and '%s' is taken", ch->source,
                         k, def);
                return -1;
            }
            snprintf(ch->name[k], sizeof ch->name[k], "%s", def);
        }
    return 0;
}

int mw_channels_load(mw_channels *ch, int n, const char *list, char *err, size_t errlen)
{
    mw_channels_meter one = {NULL, NULL, n > MW_CHANNELS_MAX ? MW_CHANNELS_MAX : n};
    return mw_channels_load_meters(ch, &one, 1, list, err, errlen);
}
