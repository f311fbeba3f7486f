/* api — libmegawatt, the public reader API (megawatt.h, docs/api.md) over mw_run.h.
 *
 * A megawatt_run is a store opened read-only (mw_store_open) plus the one line of its last
 * error; a megawatt_cursor wraps one mw_run cursor and remembers what it walks, so a cursor
 * handed to the wrong next function fails with a message instead of reading garbage. Rows
 * are copied field by field from libmw's own structures into the public ones, whose layout
 * is the library's ABI and does not follow libmw's (mw_store_sample may grow; the public
 * megawatt_window does not). Only the functions marked MEGAWATT_API leave the shared library
 * (compiled -fvisibility=hidden, linked with host/megawatt.map). */
#include "megawatt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "mw_alloc.h"
#include "mw_err.h"
#include "mw_run.h"
#include "mw_store.h"

_Static_assert(MEGAWATT_WINDOW_OVERRUN == MW_FLAG_OVERRUN && MEGAWATT_WINDOW_CLIP == MW_FLAG_CLIP &&
                   MEGAWATT_WINDOW_NO_VOLTAGE == MW_FLAG_NO_VOLTAGE &&
                   MEGAWATT_WINDOW_CAL_DEFAULT == MW_FLAG_CAL_DEFAULT &&
                   MEGAWATT_WINDOW_FIRST == MW_FLAG_FIRST,
               "megawatt.h's window flags are the meter's");

struct megawatt_run {
    mw_store *s;
    char msg[512]; /* the last error; "" when none */
};

typedef enum { API_CHANNELS = 1, API_WINDOWS, API_PHASES } api_kind;

struct megawatt_cursor {
    megawatt_run *r;
    mw_run_cursor *c;
    api_kind kind;
    char *kind_name; /* megawatt_phases' kind (a copy, bound to its statement), or NULL */
};

MEGAWATT_API const char *megawatt_version(void)
{
    return MW_VERSION;
}

MEGAWATT_API megawatt_run *megawatt_open(const char *rundir, char *err, size_t errlen)
{
    if (!rundir || !*rundir) {
        mw_err(err, errlen, "no run directory given");
        return NULL;
    }
    char buf[512];
    mw_store *s = mw_store_open(rundir, buf, sizeof buf);
    if (!s) {
        mw_err(err, errlen, "%s", buf);
        return NULL;
    }
    megawatt_run *r = mw_xcalloc(1, sizeof *r);
    r->s = s;
    return r;
}

MEGAWATT_API void megawatt_close(megawatt_run *r)
{
    if (!r) return;
    mw_store_close(r->s);
    free(r);
}

MEGAWATT_API const char *megawatt_error(const megawatt_run *r)
{
    return r ? r->msg : "no run (NULL)";
}

/* the store's last error into r's message; returns -1 */
static int store_failed(megawatt_run *r)
{
    snprintf(r->msg, sizeof r->msg, "%s", mw_store_error(r->s));
    return -1;
}

MEGAWATT_API int megawatt_start_ns(megawatt_run *r, int64_t *start_ns)
{
    if (!r || !start_ns) return -1;
    if (mw_store_start_ns(r->s, start_ns) == 0) return 0;
    if (*mw_store_error(r->s)) return store_failed(r);
    snprintf(r->msg, sizeof r->msg, "%s: the run has no start (nothing was recorded)",
             mw_store_path(r->s));
    return -1;
}

/* a cursor of kind k around c (NULL: the open failed, r's message says why) */
static megawatt_cursor *cursor_new(megawatt_run *r, mw_run_cursor *c, api_kind k)
{
    if (!c) {
        store_failed(r);
        return NULL;
    }
    megawatt_cursor *m = mw_xcalloc(1, sizeof *m);
    m->r = r;
    m->c = c;
    m->kind = k;
    return m;
}

/* 1 when c is a cursor of kind k; else -1, with a message in its run when it has one */
static int cursor_check(megawatt_cursor *c, api_kind k, const char *fn)
{
    if (!c) return -1;
    if (c->kind == k) return 1;
    snprintf(c->r->msg, sizeof c->r->msg, "%s: this cursor walks something else", fn);
    return -1;
}

MEGAWATT_API megawatt_cursor *megawatt_channels(megawatt_run *r)
{
    return r ? cursor_new(r, mw_run_channels(r->s), API_CHANNELS) : NULL;
}

MEGAWATT_API int megawatt_channel_next(megawatt_cursor *c, megawatt_channel *out)
{
    if (cursor_check(c, API_CHANNELS, "megawatt_channel_next") != 1 || !out) return -1;
    mw_run_channel ch;
    int rc = mw_run_channel_next(c->c, &ch);
    if (rc < 0) return store_failed(c->r);
    if (rc == 1) *out = (megawatt_channel){.channel = ch.channel, .name = ch.name, .host = ch.host};
    return rc;
}

MEGAWATT_API megawatt_cursor *megawatt_windows(megawatt_run *r, int channel)
{
    if (!r) return NULL;
    return cursor_new(r, mw_run_windows(r->s, channel < 0 ? -1 : channel, MW_RUN_BY_TIME),
                      API_WINDOWS);
}

MEGAWATT_API int megawatt_window_next(megawatt_cursor *c, megawatt_window *out)
{
    if (cursor_check(c, API_WINDOWS, "megawatt_window_next") != 1 || !out) return -1;
    mw_store_sample w;
    int rc = mw_run_window_next(c->c, &w);
    if (rc < 0) return store_failed(c->r);
    if (rc == 1)
        *out = (megawatt_window){.channel = w.channel,
                                 .t0_ns = w.t0_ns,
                                 .t1_ns = w.t1_ns,
                                 .uncertainty_ns = w.uncertainty_ns,
                                 .power_mw = w.power_mw,
                                 .vrms_mv = w.vrms_mv,
                                 .irms_ua = w.irms_ua,
                                 .pf_milli = w.pf_milli,
                                 .energy_mj = w.energy_mj,
                                 .flags = w.flags};
    return rc;
}

MEGAWATT_API megawatt_cursor *megawatt_phases(megawatt_run *r, const char *kind)
{
    if (!r) return NULL;
    char *k = kind ? mw_xstrdup(kind) : NULL;
    const char *kinds[2] = {k, NULL};
    mw_run_phase_filter f = mw_run_phase_all();
    f.kinds = k ? kinds : NULL;
    f.order = MW_RUN_BY_START;
    megawatt_cursor *m = cursor_new(r, mw_run_phases(r->s, &f), API_PHASES);
    if (!m) {
        free(k);
        return NULL;
    }
    m->kind_name = k;
    return m;
}

MEGAWATT_API int megawatt_phase_next(megawatt_cursor *c, megawatt_phase *out)
{
    if (cursor_check(c, API_PHASES, "megawatt_phase_next") != 1 || !out) return -1;
    mw_store_phase p;
    int rc = mw_run_phase_next(c->c, &p);
    if (rc < 0) return store_failed(c->r);
    if (rc == 1)
        *out = (megawatt_phase){.kind = p.kind,
                                .name = p.name,
                                .host = p.host,
                                .rank = p.rank,
                                .thread = p.thread,
                                .start_ns = p.start_ns,
                                .end_ns = p.end_ns,
                                .bytes = p.bytes};
    return rc;
}

MEGAWATT_API void megawatt_cursor_close(megawatt_cursor *c)
{
    if (!c) return;
    mw_run_close(c->c);
    free(c->kind_name);
    free(c);
}
