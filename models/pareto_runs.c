/* pareto_runs — a Khaleghzadeh et al. workload profile built from run directories ("mw pareto
 * RUNDIR... --units COUNTER", docs/models.md "Profiles from runs").
 *
 * Khaleghzadeh et al. §6.1 profiles each device alone at several problem sizes: the size, the time,
 * and the dynamic energy (total less static power x time); then all devices together to
 * check that dynamic energies add up. Here each run directory is one such measurement:
 *   - the size is the sum of the workload's counter COUNTER (kind counter, e.g. mwb-dgemm's
 *     "products") on each host that reported it;
 *   - the time is the recorder's command phase (kind mw, name command), in s;
 *   - a host's device is the channel(s) measuring that host by the one rule of
 *     models/include/energy.h (channels with that host, else the host-less ones), switch channels
 *     (name containing "switch") left out; its name is the channel name(s);
 *   - its idle power is the mean power over the run's idle baseline (mw phases idle-before
 *     and idle-after: record with --idle S), and its dynamic energy is its energy over the
 *     command less idle power x the window time inside the command (models/include/energy.h).
 * A run with work on one device measures it alone; work on several devices, each given the
 * same amount, is a together run (their dynamic energies summed); different amounts are
 * refused, since the additivity check compares equal sizes.
 *
 * Design. A run is read in one snapshot through the run store's cursors (mw_run.h): the
 * command phase, the idle phases, the counter's sum per host (in host order, as SQL's GROUP
 * BY gave it: sums of integers, exact), the channels; then each host's device. The profile
 * is written in the profile-file format so that exactly the file parser and the builder
 * (models/include/lbopa.h) turn it into f_i and g_i; the static power P_S of LBOPA-TE is the sum of
 * the devices' idle powers (each device's mean over its runs). */
#include "pareto_runs.h"
#include "pareto_device.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "energy.h"
#include "energy_store.h"
#include "mw_alloc.h"
#include "mw_run.h"
#include "mw_store.h"

typedef struct {
    int id;
    char *name, *host;
} pr_channel;

typedef struct {
    char *host;
    int64_t units; /* the counter's sum on it */
} pr_host;

/* what one run holds, before its devices are worked out */
typedef struct {
    const char *dir;
    mw_store *s;
    mw_energy_span cmd;
    mw_energy_span *idle;
    size_t nidle;
    pr_host *host; /* hosts with a sum > 0, by name */
    int nh;
    pr_channel *ch; /* the channels but the switches, by channel */
    int nch;
} pr_read;

static int is_switch(const char *name)
{
    for (const char *p = name; *p; p++)
        if (!strncasecmp(p, "switch", 6)) return 1;
    return 0;
}

static void append(char **s, const char *sep, const char *add)
{
    size_t a = *s ? strlen(*s) : 0, b = strlen(sep), c = strlen(add);
    char *ns = mw_xrealloc(*s, a + b + c + 1);
    if (!a) ns[0] = 0;
    if (a) memcpy(ns + a, sep, b + 1);
    strcat(ns, add);
    *s = ns;
}

static int store_fail(const pr_read *rd, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", rd->dir, mw_store_error(rd->s));
    return -1;
}

/* ---- reading a run ----------------------------------------------------------------------- */

static const char *const kinds_mw[] = {"mw", NULL};

/* the first command phase (by start) */
static int read_command(pr_read *rd, char *err, size_t errlen)
{
    mw_run_phase_filter f = mw_run_phase_all();
    f.kinds = kinds_mw;
    f.name = "command";
    mw_run_cursor *c = mw_run_phases(rd->s, &f);
    if (!c) return store_fail(rd, err, errlen);
    mw_store_phase ph;
    int rc = mw_run_phase_next(c, &ph);
    if (rc == 1) rd->cmd = (mw_energy_span){ph.start_ns, ph.end_ns};
    mw_run_close(c);
    if (rc < 0) return store_fail(rd, err, errlen);
    if (rc == 0 || !(rd->cmd.end_ns > rd->cmd.start_ns)) {
        snprintf(err, errlen, "%s: no command phase (a run of 'mw record -- COMMAND')", rd->dir);
        return -1;
    }
    return 0;
}

/* the idle baseline: the union of the idle-before and idle-after phases */
static int read_idle(pr_read *rd, char *err, size_t errlen)
{
    mw_run_phase_filter f = mw_run_phase_all();
    f.kinds = kinds_mw;
    mw_run_cursor *c = mw_run_phases(rd->s, &f);
    if (!c) return store_fail(rd, err, errlen);
    mw_store_phase ph;
    int rc;
    while ((rc = mw_run_phase_next(c, &ph)) == 1) {
        if (strcmp(ph.name, "idle-before") && strcmp(ph.name, "idle-after")) continue;
        rd->idle = mw_xrealloc(rd->idle, (rd->nidle + 1) * sizeof *rd->idle);
        rd->idle[rd->nidle++] = (mw_energy_span){ph.start_ns, ph.end_ns};
    }
    mw_run_close(c);
    if (rc < 0) return store_fail(rd, err, errlen);
    rd->nidle = mw_energy_spans_union(rd->idle, rd->nidle);
    if (!rd->nidle) {
        snprintf(err, errlen, "%s: no idle baseline for the dynamic energy (record with --idle S)",
                 rd->dir);
        return -1;
    }
    return 0;
}

static int host_cmp(const void *a, const void *b)
{
    return strcmp(((const pr_host *)a)->host, ((const pr_host *)b)->host);
}

/* the counter's sum per host, by host name; hosts whose sum is not > 0 left out */
static int read_work(pr_read *rd, const char *units, char *err, size_t errlen)
{
    static const char *const kinds[] = {"counter", NULL};
    mw_run_phase_filter f = mw_run_phase_all();
    f.kinds = kinds;
    f.name = units;
    mw_run_cursor *c = mw_run_phases(rd->s, &f);
    if (!c) return store_fail(rd, err, errlen);
    mw_store_phase ph;
    int rc, n = 0;
    while ((rc = mw_run_phase_next(c, &ph)) == 1) {
        int h = 0;
        while (h < n && strcmp(rd->host[h].host, ph.host))
            h++;
        if (h == n) {
            rd->host = mw_xrealloc(rd->host, (size_t)(n + 1) * sizeof *rd->host);
            rd->host[n++] = (pr_host){mw_xstrdup(ph.host), 0};
        }
        rd->host[h].units += ph.bytes;
    }
    mw_run_close(c);
    rd->nh = n;
    if (rc < 0) return store_fail(rd, err, errlen);
    if (n) qsort(rd->host, (size_t)n, sizeof *rd->host, host_cmp);
    int k = 0;
    for (int h = 0; h < n; h++) {
        if ((double)rd->host[h].units > 0)
            rd->host[k++] = rd->host[h];
        else
            free(rd->host[h].host);
    }
    rd->nh = k;
    if (!k) {
        snprintf(err, errlen,
                 "%s: no counter '%s' > 0 (the workload's units of work, e.g. mwb-dgemm's "
                 "'products'; see --units)",
                 rd->dir, units);
        return -1;
    }
    return 0;
}

/* the channels, switches left out */
static int read_channels(pr_read *rd, char *err, size_t errlen)
{
    mw_run_cursor *c = mw_run_channels(rd->s);
    if (!c) return store_fail(rd, err, errlen);
    mw_run_channel ch;
    int rc;
    while ((rc = mw_run_channel_next(c, &ch)) == 1) {
        if (is_switch(ch.name)) continue;
        rd->ch = mw_xrealloc(rd->ch, (size_t)(rd->nch + 1) * sizeof *rd->ch);
        rd->ch[rd->nch++] =
            (pr_channel){ch.channel, mw_xstrdup(ch.name), mw_xstrdup(ch.host ? ch.host : "")};
    }
    mw_run_close(c);
    return rc < 0 ? store_fail(rd, err, errlen) : 0;
}

/* ---- a run's devices --------------------------------------------------------------------- */

/* the energy of one channel over the command and its idle baseline */
static int channel_energy(const pr_read *rd, int ch, double *dyn_J, double *idle_W, char *err,
                          size_t errlen)
{
    mw_energy_window *w;
    size_t n;
    if (mw_energy_store_windows(rd->s, ch, &w, &n, err, errlen)) return -1;
    mw_energy_trace t;
    if (mw_energy_trace_init(&t, w, n, err, errlen)) {
        free(w);
        return -1;
    }
    mw_energy_pj idle_pj = 0, cmd_pj = 0;
    int64_t idle_ns = 0, cmd_ns = 0;
    mw_energy_spans_sum(&t, rd->idle, rd->nidle, &idle_pj, &idle_ns);
    mw_energy_spans_sum(&t, &rd->cmd, 1, &cmd_pj, &cmd_ns);
    mw_energy_trace_free(&t);
    free(w);
    if (idle_ns <= 0) {
        snprintf(err, errlen, "no power windows in the idle baseline");
        return -1;
    }
    if (cmd_ns <= 0) {
        snprintf(err, errlen, "no power windows during the command");
        return -1;
    }
    *idle_W = mw_energy_j(idle_pj) / ((double)idle_ns * 1e-9);
    *dyn_J = mw_energy_dynamic_j(cmd_pj, *idle_W, cmd_ns);
    return 0;
}

/* host h's device: the channels measuring it, their energies added to r */
static int host_device(const pr_read *rd, const char *const *chosts, int h, const char *units,
                       mw_pareto_run *r, char *err, size_t errlen)
{
    const char *host = rd->host[h].host;
    char *dev = NULL;
    for (int c = 0; c < rd->nch; c++) {
        if (!mw_energy_rank_has_channel(chosts, (size_t)rd->nch, (size_t)c, host)) continue;
        double dyn, idw;
        char e3[200];
        if (channel_energy(rd, rd->ch[c].id, &dyn, &idw, e3, sizeof e3)) {
            snprintf(err, errlen, "%s: channel '%s': %s", rd->dir, rd->ch[c].name, e3);
            free(dev);
            return -1;
        }
        r->energy_dyn_J += dyn;
        r->idle_W += idw;
        append(&dev, "+", rd->ch[c].name);
    }
    if (!dev) {
        snprintf(err, errlen,
                 "%s: no channel measures host '%s', where counter '%s' was counted (give "
                 "the channel that host in --channels)",
                 rd->dir, *host ? host : "(none)", units);
        return -1;
    }
    append(&r->device, ",", dev);
    free(dev);
    return 0;
}

/* every host's device; the same work on each */
static int run_devices(const pr_read *rd, const char *units, mw_pareto_run *r, char *err,
                       size_t errlen)
{
    const char **chosts = mw_xcalloc((size_t)(rd->nch ? rd->nch : 1), sizeof *chosts);
    for (int c = 0; c < rd->nch; c++)
        chosts[c] = rd->ch[c].host;
    double x0 = (double)rd->host[0].units;
    r->ndevices = rd->nh;
    r->x_units = x0;
    r->time_s = (double)(rd->cmd.end_ns - rd->cmd.start_ns) * 1e-9;
    int rc = 0;
    for (int h = 0; h < rd->nh && !rc; h++) {
        double xh = (double)rd->host[h].units;
        if (xh != x0) {
            snprintf(err, errlen,
                     "%s: counter '%s' is %.10g on host '%s' but %.10g on host '%s' (a run "
                     "of several devices gives each the same work, for the additivity check)",
                     rd->dir, units, x0, rd->host[0].host, xh, rd->host[h].host);
            rc = -1;
        } else {
            rc = host_device(rd, chosts, h, units, r, err, errlen);
        }
    }
    free(chosts);
    return rc;
}

static void read_free(pr_read *rd)
{
    for (int c = 0; c < rd->nch; c++) {
        free(rd->ch[c].name);
        free(rd->ch[c].host);
    }
    free(rd->ch);
    for (int h = 0; h < rd->nh; h++)
        free(rd->host[h].host);
    free(rd->host);
    free(rd->idle);
}

/* per-device mode: the run's in-band devices (pareto_device.c) */
static int run_inband_devices(const pr_read *rd, const char *units, mw_pareto_run *r, char *err,
                              size_t errlen)
{
    int nh = rd->nh, nch = rd->nch;
    const char **hosts = mw_xcalloc((size_t)(nh ? nh : 1), sizeof *hosts);
    double *x = mw_xcalloc((size_t)(nh ? nh : 1), sizeof *x);
    const char **chosts = mw_xcalloc((size_t)(nch ? nch : 1), sizeof *chosts);
    int *ids = mw_xcalloc((size_t)(nch ? nch : 1), sizeof *ids);
    for (int h = 0; h < nh; h++) {
        hosts[h] = rd->host[h].host;
        x[h] = (double)rd->host[h].units;
    }
    for (int c = 0; c < nch; c++) {
        chosts[c] = rd->ch[c].host;
        ids[c] = rd->ch[c].id;
    }
    mw_pareto_device_in in = {rd->dir, rd->s, rd->cmd, rd->idle, rd->nidle, hosts, x, nh,
                              ids, chosts, nch};
    int rc = mw_pareto_device_run(&in, units, r, err, errlen);
    free(hosts);
    free(x);
    free(chosts);
    free(ids);
    return rc;
}

static int read_one(const char *dir, const char *units, int per_device, mw_pareto_run *r,
                    char *err, size_t errlen)
{
    char e2[300];
    memset(r, 0, sizeof *r);
    r->run = dir;
    pr_read rd = {.dir = dir};
    if (!(rd.s = mw_store_open(dir, e2, sizeof e2))) {
        snprintf(err, errlen, "%s", e2);
        return -1;
    }
    mw_run_snapshot_begin(rd.s);
    int rc = -1;
    if (!read_command(&rd, err, errlen) && !read_idle(&rd, err, errlen) &&
        !read_work(&rd, units, err, errlen) && !read_channels(&rd, err, errlen)) {
        if (per_device)
            rc = run_inband_devices(&rd, units, r, err, errlen);
        else if (run_devices(&rd, units, r, err, errlen))
            rc = -1;
        else if (!(r->energy_dyn_J > 0))
            snprintf(err, errlen,
                     "%s: dynamic energy %.4g J: the work did not raise the power of %s above "
                     "its idle baseline (%.4g W)",
                     dir, r->energy_dyn_J, r->device, r->idle_W);
        else
            rc = 0;
    }
    mw_run_snapshot_end(rd.s);
    mw_store_close(rd.s);
    read_free(&rd);
    if (rc) {
        free(r->device);
        r->device = NULL;
        mw_pareto_device_parts_free(r);
    }
    return rc;
}

int mw_pareto_runs_read_mode(char *const *dirs, int ndirs, const char *units, int per_device,
                             mw_pareto_runs *out, char *err, size_t errlen)
{
    out->run = mw_xcalloc((size_t)(ndirs > 0 ? ndirs : 1), sizeof *out->run);
    out->n = 0;
    out->per_device = per_device;
    for (int i = 0; i < ndirs; i++) {
        if (read_one(dirs[i], units, per_device, &out->run[i], err, errlen)) {
            mw_pareto_runs_free(out);
            return -1;
        }
        out->n++;
    }
    if (per_device && mw_pareto_device_finish(out, units, err, errlen)) {
        mw_pareto_runs_free(out);
        return -1;
    }
    return 0;
}

int mw_pareto_runs_read(char *const *dirs, int ndirs, const char *units, mw_pareto_runs *out,
                        char *err, size_t errlen)
{
    return mw_pareto_runs_read_mode(dirs, ndirs, units, 0, out, err, errlen);
}

void mw_pareto_runs_free(mw_pareto_runs *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->run[i].device);
        mw_pareto_device_parts_free(&r->run[i]);
    }
    free(r->run);
    r->run = NULL;
    r->n = 0;
}

/* ---- the profile ------------------------------------------------------------------------- */

/* is name one of the ','-joined list? */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        p = c ? c + 1 : NULL;
    }
    return 0;
}

/* run i measures device dev alone */
static int alone_on(const mw_pareto_runs *r, int i, const char *dev)
{
    return r->run[i].ndevices == 1 && !strcmp(r->run[i].device, dev);
}

/* the mean time of dev's runs of x units */
static double mean_time_s(const mw_pareto_runs *r, const char *dev, double x)
{
    double t = 0;
    int n = 0;
    for (int m = 0; m < r->n; m++)
        if (alone_on(r, m, dev) && r->run[m].x_units == x) {
            t += r->run[m].time_s;
            n++;
        }
    return t / n;
}

/* The builder needs time increasing with size: -1 naming the first runs that break it. */
static int check_increasing(const mw_pareto_runs *r, const char *dev, char *err, size_t errlen)
{
    for (int i = 0; i < r->n; i++) {
        if (!alone_on(r, i, dev)) continue;
        int lower = -1;
        for (int m = 0; m < r->n; m++)
            if (alone_on(r, m, dev) && r->run[m].x_units < r->run[i].x_units &&
                (lower < 0 || r->run[m].x_units > r->run[lower].x_units))
                lower = m;
        if (lower < 0) continue;
        double ti = mean_time_s(r, dev, r->run[i].x_units);
        double tl = mean_time_s(r, dev, r->run[lower].x_units);
        if (ti <= tl) {
            snprintf(err, errlen,
                     "device %s: %.10g units took %.4g s (%s) but %.10g units %.4g s (%s): "
                     "a profile needs time increasing with size (sizes further apart, or "
                     "more repetitions)",
                     dev, r->run[i].x_units, ti, r->run[i].run, r->run[lower].x_units, tl,
                     r->run[lower].run);
            return -1;
        }
    }
    return 0;
}

/* The devices measured alone (first[0..*k), runs in first appearance order), every together
 * run exactly those devices, each device's time increasing with size. */
static int check_devices(const mw_pareto_runs *r, int *first, int *k, char *err, size_t errlen)
{
    *k = 0;
    for (int i = 0; i < r->n; i++) {
        if (r->run[i].ndevices != 1) continue;
        int seen = 0;
        for (int j = 0; j < *k && !seen; j++)
            seen = !strcmp(r->run[first[j]].device, r->run[i].device);
        if (!seen) first[(*k)++] = i;
    }
    if (!*k) {
        snprintf(err, errlen,
                 "no run measures one device alone (the profile needs each "
                 "device alone at two sizes or more)");
        return -1;
    }
    for (int i = 0; i < r->n; i++) {
        const mw_pareto_run *t = &r->run[i];
        if (t->ndevices == 1) continue;
        int all = t->ndevices == *k;
        for (int j = 0; all && j < *k; j++)
            all = in_list(t->device, r->run[first[j]].device);
        if (!all) {
            snprintf(err, errlen,
                     "%s: a together run must run exactly the devices measured alone (%d of "
                     "them); it ran %s",
                     t->run, *k, t->device);
            return -1;
        }
    }
    for (int j = 0; j < *k; j++)
        if (check_increasing(r, r->run[first[j]].device, err, errlen)) return -1;
    return 0;
}

typedef struct {
    char *s;
    size_t len, cap;
} pr_text;

static void text_add(pr_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(pr_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = 2 * (t->len + (size_t)n + 1);
        t->s = mw_xrealloc(t->s, t->cap);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* per-device: the devices are in-band ones; the rest of the node is not in static_power */
static void profile_rest_note(const mw_pareto_runs *r, pr_text *t)
{
    double sum = 0;
    int m = 0;
    for (int i = 0; i < r->n; i++)
        if (isfinite(r->run[i].rest_idle_W)) {
            sum += r->run[i].rest_idle_W;
            m++;
        }
    text_add(t, "# devices: in-band counters (--per-device)");
    if (m)
        text_add(t, "; the rest of the node at idle (wall - in-band), %.6g W on average, is "
                    "not in static_power (--static-power to count it)", sum / m);
    text_add(t, "\n");
}

int mw_pareto_runs_profile_text(const mw_pareto_runs *r, const char *units, char **text, char *err,
                                size_t errlen)
{
    *text = NULL;
    int *first = mw_xcalloc((size_t)(r->n ? r->n : 1), sizeof *first), k;
    if (check_devices(r, first, &k, err, errlen)) {
        free(first);
        return -1;
    }
    double ps = 0;
    for (int j = 0; j < k; j++) {
        double sum = 0;
        int m = 0;
        for (int i = 0; i < r->n; i++)
            if (alone_on(r, i, r->run[first[j]].device)) {
                sum += r->run[i].idle_W;
                m++;
            }
        ps += sum / m;
    }
    pr_text t = {mw_xcalloc(1, 1), 0, 1};
    text_add(&t, "# profile built by mw pareto from %d run%s; units: counter '%s'\n", r->n,
             r->n == 1 ? "" : "s", units);
    text_add(&t, "static_power %.17g # W, the devices' idle powers summed\n", ps);
    if (r->per_device) profile_rest_note(r, &t);
    for (int j = 0; j < k; j++) {
        text_add(&t, "device %s", r->run[first[j]].device);
        for (int i = 0; i < r->n; i++)
            if (alone_on(r, i, r->run[first[j]].device))
                text_add(&t, " %.17g:%.17g:%.17g", r->run[i].x_units, r->run[i].time_s,
                         r->run[i].energy_dyn_J);
        text_add(&t, "\n");
    }
    int tog = 0;
    for (int i = 0; i < r->n; i++)
        if (r->run[i].ndevices > 1) {
            text_add(&t, "%s %.17g:%.17g", tog ? "" : "together", r->run[i].x_units,
                     r->run[i].energy_dyn_J);
            tog = 1;
        }
    if (tog) text_add(&t, "\n");
    free(first);
    *text = t.s;
    return 0;
}
