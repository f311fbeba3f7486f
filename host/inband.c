/* inband — the energy of a counter, the sources' common calls and mw record's in-band
 * sampler (mw_inband.h, docs/inband.md).
 *
 * A counter's step: the difference of two readings, or across a wrap (the reading fell) the
 * difference modulo the range, taken as a wrap only when it is less than half the range
 * (a counter that wraps every minute at full power cannot pass half its range in one
 * sampling interval); else the counter went backwards (reset, another device behind the
 * name): the step is flagged, counts 0 and the next steps count from the new reading.

 * The sampler of mw record is in inband_sampler.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inband_internal.h"
#include "mw_alloc.h"

unsigned mw_inband_counter_step(mw_inband_counter *c, uint64_t reading_uj, int64_t *delta_uj)
{
    unsigned flags = 0;
    uint64_t d = 0;
    if (!c->have) {
        c->have = 1;
    } else if (reading_uj >= c->last_uj) {
        d = reading_uj - c->last_uj;
    } else if (c->range_uj && c->last_uj <= c->range_uj &&
               (d = c->range_uj - c->last_uj + reading_uj) < c->range_uj / 2) {
        flags = MW_INBAND_FLAG_WRAP;
    } else {
        d = 0;
        flags = MW_INBAND_FLAG_BACKWARDS;
    }
    if (d > (uint64_t)INT64_MAX - (uint64_t)(c->total_uj < 0 ? 0 : c->total_uj)) {
        d = 0; /* a counter of another kind: never overflow */
        flags |= MW_INBAND_FLAG_BACKWARDS;
    }
    c->last_uj = reading_uj;
    c->total_uj += (int64_t)d;
    *delta_uj = (int64_t)d;
    return flags;
}

void mw_inband_note(mw_inband_notes *n, const char *fmt, ...)
{
    if (n->n >= MW_INBAND_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->line[n->n++], sizeof n->line[0], fmt, ap);
    va_end(ap);
}

int mw_inband_parse(const char *list, unsigned *which)
{
    char buf[64];
    if (!list || snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf || !buf[0]) return -1;
    if (!strcmp(buf, "none")) {
        *which = 0;
        return 0;
    }
    unsigned w = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "rapl"))
            w |= MW_INBAND_RAPL;
        else if (!strcmp(t, "nvml"))
            w |= MW_INBAND_NVML;
        else
            return -1;
    }
    if (!w || list[strlen(list) - 1] == ',' || list[0] == ',' || strstr(list, ",,")) return -1;
    *which = w;
    return 0;
}

const mw_inband_info *mw_inband_src_info(const mw_inband_src *s)
{
    return &s->info;
}

int mw_inband_src_read(mw_inband_src *s, uint64_t *energy_uj, int64_t *power_mw, char *why,
                       size_t whylen)
{
    if (!strcmp(s->info.kind, "nvml")) return mw_inband_nvml_read(s, energy_uj, power_mw, why, whylen);
    return mw_inband_rapl_read(s, energy_uj, why, whylen);
}

void mw_inband_src_free(mw_inband_src *s)
{
    if (!s) return;
    if (!strcmp(s->info.kind, "nvml")) mw_inband_nvml_release();
    if (s->fd >= 0) close(s->fd);
    free(s);
}
