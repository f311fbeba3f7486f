/* pareto_device — per-device energy for the Khaleghzadeh et al. profiles from in-band
 * counters (pareto_device.h; docs/models.md "Per-device profiles from in-band counters").
 *
 * Khaleghzadeh et al. 2023 profile each device's dynamic energy separately, which a wall
 * meter can do only when each device has a node of its own. With in-band sources a node's
 * CPU sockets and GPUs are devices of their own:
 *   - a device is an additive in-band source of a working host whose name has no '/' (a RAPL
 *     package "rapl:package-0", a GPU "nvml:gpu0"), together with the additive sources
 *     named "THAT/..." (the package's dram); parts that are not additive (core, uncore lie
 *     inside the package; psys around it) are left out, as in the in-band share;
 *   - its idle power is its mean power over the run's idle baseline (idle-before and
 *     idle-after, the same baseline as the wall's static power), its dynamic energy its mean
 *     power over the command less that, times the command's time (mean powers over the time
 *     its windows cover, so a gap in a source does not dilute it; windows flagged backwards
 *     hold no energy and are left out);
 *   - it worked when that mean dynamic power reached MW_PARETO_DEVICE_MIN_W and
 *     MW_PARETO_DEVICE_MIN_FRAC of its idle power. The run's time is the command's for every
 *     device: the probe does not say which device ran when;
 *   - the wall beside them: the host's wall channels' idle power and dynamic energy by the same
 *     rule, and the rest (wall - every in-band device of the host) reported, not given to a
 *     device.
 * Numbers in, numbers out: no SQL (mw_run.h cursors), no printing. */
#include "pareto_device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy_store.h"
#include "mw_alloc.h"
#include "mw_run.h"
#include "mw_store.h"

typedef struct {
    int id;
    char *name, *host;
    int additive;
} pd_src;

/* mean powers (W) of w[0..n) over the command and over the idle baseline; -1 with why */
static int mean_powers(const mw_pareto_device_in *in, mw_energy_window *w, size_t n, double *cmd_W,
                       double *idle_W, char *why, size_t whylen)
{
    mw_energy_trace t;
    if (mw_energy_trace_init(&t, w, n, why, whylen)) return -1;
    mw_energy_pj idle_pj = 0, cmd_pj = 0;
    int64_t idle_ns = 0, cmd_ns = 0;
    mw_energy_spans_sum(&t, in->idle, in->nidle, &idle_pj, &idle_ns);
    mw_energy_spans_sum(&t, &in->cmd, 1, &cmd_pj, &cmd_ns);
    mw_energy_trace_free(&t);
    if (idle_ns <= 0 || cmd_ns <= 0) {
        snprintf(why, whylen, "no power windows %s", idle_ns <= 0 ? "in the idle baseline"
                                                                  : "during the command");
        return -1;
    }
    *idle_W = mw_energy_j(idle_pj) / ((double)idle_ns * 1e-9);
    *cmd_W = mw_energy_j(cmd_pj) / ((double)cmd_ns * 1e-9);
    return 0;
}

/* one in-band source's windows (backwards ones left out) */
static int src_windows(mw_store *s, int id, mw_energy_window **w, size_t *n)
{
    *w = NULL;
    *n = 0;
    size_t cap = 0;
    mw_run_cursor *c = mw_run_inband_windows(s, id);
    if (!c) return -1;
    mw_inband_window iw;
    int rc;
    while ((rc = mw_run_inband_window_next(c, &iw)) == 1) {
        if (iw.flags & MW_INBAND_FLAG_BACKWARDS) continue;
        if (*n == cap) *w = mw_xrealloc(*w, (cap = cap ? 2 * cap : 256) * sizeof **w);
        int64_t p = iw.power_mw > INT32_MAX ? INT32_MAX : iw.power_mw < INT32_MIN ? INT32_MIN
                                                                                   : iw.power_mw;
        (*w)[(*n)++] = (mw_energy_window){iw.t0_ns, iw.t1_ns, (int32_t)p};
    }
    mw_run_close(c);
    return rc < 0 ? -1 : 0;
}

static int read_sources(const mw_pareto_device_in *in, pd_src **src, int *n, char *err,
                        size_t errlen)
{
    mw_run_cursor *c = mw_run_inband_channels(in->s);
    mw_run_inband_channel ic;
    int rc = c ? 0 : -1;
    while (c && (rc = mw_run_inband_channel_next(c, &ic)) == 1) {
        if (!ic.additive) continue;
        *src = mw_xrealloc(*src, (size_t)(*n + 1) * sizeof **src);
        (*src)[(*n)++] = (pd_src){ic.source, mw_xstrdup(ic.name), mw_xstrdup(ic.host), 1};
    }
    mw_run_close(c);
    if (rc < 0) return mw_store_error_to(in->s, err, errlen);
    return 0;
}

/* the device whose top source is top (no '/'), on host: its sources' powers summed */
static int device_powers(const mw_pareto_device_in *in, const pd_src *src, int n, int top,
                         double *cmd_W, double *idle_W, char *err, size_t errlen)
{
    size_t len = strlen(src[top].name);
    *cmd_W = *idle_W = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(src[i].host, src[top].host)) continue;
        if (i != top && (strncmp(src[i].name, src[top].name, len) || src[i].name[len] != '/'))
            continue;
        mw_energy_window *w;
        size_t nw;
        char why[200];
        if (src_windows(in->s, src[i].id, &w, &nw)) {
            mw_store_error_to(in->s, err, errlen);
            return -1;
        }
        double c, id;
        int bad = mean_powers(in, w, nw, &c, &id, why, sizeof why);
        free(w);
        if (bad) {
            snprintf(err, errlen, "%s: in-band source '%s' on host '%s': %s", in->dir,
                     src[i].name, src[i].host, why);
            return -1;
        }
        *cmd_W += c;
        *idle_W += id;
    }
    return 0;
}

/* is source i a device's top source: no '/', or no additive source on its host names the
 * part before it */
static int is_top(const pd_src *src, int n, int i)
{
    const char *slash = strchr(src[i].name, '/');
    if (!slash) return 1;
    size_t len = (size_t)(slash - src[i].name);
    for (int j = 0; j < n; j++)
        if (j != i && !strcmp(src[j].host, src[i].host) && strlen(src[j].name) == len &&
            !strncmp(src[j].name, src[i].name, len))
            return 0;
    return 1;
}

static void add_part(mw_pareto_run *r, const pd_src *s, double units, double cmd_W, double idle_W)
{
    r->part = mw_xrealloc(r->part, (size_t)(r->npart + 1) * sizeof *r->part);
    double dyn_W = cmd_W - idle_W;
    r->part[r->npart++] = (mw_pareto_dev_part){
        .host = mw_xstrdup(s->host),
        .source = mw_xstrdup(s->name),
        .host_units = units,
        .dyn_J = dyn_W * r->time_s,
        .idle_W = idle_W,
        .worked = dyn_W >= MW_PARETO_DEVICE_MIN_W && dyn_W >= MW_PARETO_DEVICE_MIN_FRAC * idle_W,
    };
    r->inband_dyn_J += dyn_W * r->time_s;
    r->inband_idle_W += idle_W;
}

/* the wall channels of host h, added to the run's wall figures; *found + 1 when it has one */
static int host_wall(const mw_pareto_device_in *in, int h, mw_pareto_run *r, int *found,
                     char *err, size_t errlen)
{
    int any = 0;
    for (int c = 0; c < in->nch; c++) {
        if (!mw_energy_rank_has_channel(in->ch_host, (size_t)in->nch, (size_t)c, in->host[h]))
            continue;
        mw_energy_window *w;
        size_t nw;
        char why[200];
        if (mw_energy_store_windows(in->s, in->ch_id[c], &w, &nw, why, sizeof why)) {
            snprintf(err, errlen, "%s: %s", in->dir, why);
            return -1;
        }
        double cmd_W, idle_W;
        int bad = mean_powers(in, w, nw, &cmd_W, &idle_W, why, sizeof why);
        free(w);
        if (bad) {
            snprintf(err, errlen, "%s: wall channel of host '%s': %s", in->dir, in->host[h], why);
            return -1;
        }
        r->wall_dyn_J += (cmd_W - idle_W) * r->time_s;
        r->wall_idle_W += idle_W;
        any = 1;
    }
    *found += any;
    return 0;
}

static void src_free(pd_src *src, int n)
{
    for (int i = 0; i < n; i++) {
        free(src[i].name);
        free(src[i].host);
    }
    free(src);
}

int mw_pareto_device_run(const mw_pareto_device_in *in, const char *units, mw_pareto_run *r,
                         char *err, size_t errlen)
{
    pd_src *src = NULL;
    int n = 0, rc = read_sources(in, &src, &n, err, errlen), walls = 0;
    r->time_s = (double)(in->cmd.end_ns - in->cmd.start_ns) * 1e-9;
    for (int h = 0; h < in->nh && !rc; h++) {
        int ndev = 0;
        for (int i = 0; i < n && !rc; i++) {
            if (strcmp(src[i].host, in->host[h]) || !is_top(src, n, i)) continue;
            double cmd_W, idle_W;
            rc = device_powers(in, src, n, i, &cmd_W, &idle_W, err, errlen);
            if (!rc) add_part(r, &src[i], in->units[h], cmd_W, idle_W);
            ndev++;
        }
        if (!rc && !ndev) {
            snprintf(err, errlen,
                     "%s: --per-device: host '%s', where counter '%s' was counted, has no "
                     "additive in-band source (record with --inband rapl,nvml there)",
                     in->dir, in->host[h], units);
            rc = -1;
        }
        if (!rc) rc = host_wall(in, h, r, &walls, err, errlen);
    }
    src_free(src, n);
    if (walls < in->nh) r->wall_dyn_J = r->wall_idle_W = NAN;
    r->rest_dyn_J = r->wall_dyn_J - r->inband_dyn_J;
    r->rest_idle_W = r->wall_idle_W - r->inband_idle_W;
    return rc;
}

/* ---- once every run is read -------------------------------------------------------------- */

static void append(char **list, const char *sep, const char *name)
{
    size_t a = *list ? strlen(*list) : 0, b = strlen(name), c = a ? strlen(sep) : 0;
    *list = mw_xrealloc(*list, a + c + b + 1);
    if (c) memcpy(*list + a, sep, c);
    memcpy(*list + a + c, name, b + 1);
}

/* several hosts among the runs' devices? */
static int several_hosts(const mw_pareto_runs *r)
{
    const char *first = NULL;
    for (int i = 0; i < r->n; i++)
        for (int j = 0; j < r->run[i].npart; j++) {
            if (!first) first = r->run[i].part[j].host;
            if (strcmp(first, r->run[i].part[j].host)) return 1;
        }
    return 0;
}

/* run i's devices that worked: device string, x, energies */
static int finish_run(mw_pareto_run *run, const char *units, char *err, size_t errlen)
{
    int nw = 0;
    for (int j = 0; j < run->npart; j++)
        nw += run->part[j].worked;
    char *devs = NULL;
    for (int j = 0; j < run->npart; j++)
        append(&devs, ", ", run->part[j].name);
    if (!nw) {
        snprintf(err, errlen,
                 "%s: --per-device: no in-band device's power rose by %.3g W and %.3g %% of its "
                 "idle power during the command (%s)",
                 run->run, MW_PARETO_DEVICE_MIN_W, 100 * MW_PARETO_DEVICE_MIN_FRAC, devs);
        free(devs);
        return -1;
    }
    free(devs);
    run->ndevices = nw;
    for (int j = 0; j < run->npart; j++) {
        const mw_pareto_dev_part *p = &run->part[j];
        if (!p->worked) continue;
        int on_host = 0; /* devices that worked on its host */
        for (int m = 0; m < run->npart; m++)
            on_host += run->part[m].worked && !strcmp(run->part[m].host, p->host);
        double x = p->host_units / on_host;
        if (run->device && x != run->x_units) {
            snprintf(err, errlen,
                     "%s: --per-device: counter '%s' gives %.10g units to each device that "
                     "worked on host '%s' but %.10g on the first (a together run gives each "
                     "device the same work, for the additivity check)",
                     run->run, units, x, p->host, run->x_units);
            return -1;
        }
        run->x_units = x;
        append(&run->device, ",", p->name);
        run->energy_dyn_J += p->dyn_J;
        run->idle_W += p->idle_W;
    }
    return 0;
}

/* a name a profile line can hold: blanks, '#' (a comment), ',' and '+' (the device lists'
 * separators) and control bytes become '_' */
static void profile_safe(char *name)
{
    for (unsigned char *c = (unsigned char *)name; *c; c++)
        if (*c <= ' ' || *c == 0x7f || *c == '#' || *c == ',' || *c == '+') *c = '_';
}

int mw_pareto_device_finish(mw_pareto_runs *r, const char *units, char *err, size_t errlen)
{
    int prefix = several_hosts(r);
    for (int i = 0; i < r->n; i++) {
        mw_pareto_run *run = &r->run[i];
        for (int j = 0; j < run->npart; j++) {
            mw_pareto_dev_part *p = &run->part[j];
            free(p->name);
            p->name = NULL;
            if (prefix) append(&p->name, "", p->host);
            if (prefix) append(&p->name, "", "/");
            append(&p->name, "", p->source);
            profile_safe(p->name);
        }
        if (finish_run(run, units, err, errlen)) return -1;
    }
    return 0;
}

void mw_pareto_device_parts_free(mw_pareto_run *r)
{
    for (int j = 0; j < r->npart; j++) {
        free(r->part[j].host);
        free(r->part[j].source);
        free(r->part[j].name);
    }
    free(r->part);
    r->part = NULL;
    r->npart = 0;
}
