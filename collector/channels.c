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
            snprintf(err, errlen, "--channels: %d names for a meter with %d current channels", k,
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
static int file_line(mw_channels *ch, int n, const char *path, long lineno, char *line,
                     char *err, size_t errlen)
{
    line[strcspn(line, "#\r")] = 0;
    char *tok[4], *save = NULL;
    int got = 0;
    for (char *t = strtok_r(line, " \t\v\f", &save); t && got < 4;
         t = strtok_r(NULL, " \t\v\f", &save))
        tok[got++] = t;
    if (got == 0) return 0;
    int64_t k = 0;
    if (got < 2 || got > 3 || mw_num_int64(tok[0], 1, MW_CHANNELS_MAX, &k))
        return mw_err(err, errlen, "%s:%ld: expected 'CHANNEL NAME [HOST]' with CHANNEL 1..15",
                      path, lineno);
    if (!valid_name(tok[1]))
        return mw_err(err, errlen, "%s:%ld: '%.40s' is not a name of 1..31 letters, digits, _ . -",
                      path, lineno, tok[1]);
    if (got == 3 && strlen(tok[2]) >= sizeof ch->host[0])
        return mw_err(err, errlen, "%s:%ld: host name longer than %zu characters", path, lineno,
                      sizeof ch->host[0] - 1);
    if (k > n) return 0; /* a channel this meter does not have */
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
static int from_file(mw_channels *ch, int n, const char *path, int named, char *err,
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
    while (rc == 0 && (got = mw_lines_next(&r, &line, NULL, err, errlen)) != 0)
        rc = got < 0 ? -1 : file_line(ch, n, path, r.line, line, err, errlen);
    mw_lines_close(&r);
    if (rc == 0) snprintf(ch->source, sizeof ch->source, "%s", path);
    return rc;
}

int mw_channels_load(mw_channels *ch, int n, const char *list, char *err, size_t errlen)
{
    memset(ch, 0, sizeof *ch);
    if (n > MW_CHANNELS_MAX) n = MW_CHANNELS_MAX;
    int rc = 0;
    if (list) {
        rc = from_list(ch, n, list, err, errlen);
    } else {
        char path[4096];
        mw_channels_file(path, sizeof path);
        const char *named = getenv("MW_CHANNELS_FILE");
        rc = from_file(ch, n, path, named && *named, err, errlen);
    }
    if (rc) return rc;
    for (int k = 1; k <= n; k++) {
        if (ch->name[k][0]) continue;
        char def[32];
        snprintf(def, sizeof def, "ch%d", k);
        if (taken(ch, n, def, k)) {
            snprintf(err, errlen, "%s: channel %d has no name and 'ch%d' is taken", ch->source, k,
                     k);
            return -1;
        }
        snprintf(ch->name[k], sizeof ch->name[k], "%s", def);
    }
    return 0;
}
