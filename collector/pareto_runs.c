/* pareto_runs — a seed-002 workload profile built from run directories ("mw pareto
 * RUNDIR... --units COUNTER", docs/models.md "Profiles from runs").
 *
 * Seed 002 §6.1 profiles each device alone at several problem sizes: the size, the time,
 * and the dynamic energy (total less static power x time); then all devices together to
 * check that dynamic energies add up. Here each run directory is one such measurement:
 *   - the size is the sum of the workload's counter COUNTER (kind counter, e.g. mwb-dgemm's
 *     "products") on each host that reported it;
 *   - the time is the recorder's command phase (kind mw, name command), in s;
 *   - a host's device is the channel(s) measuring that host by the one rule of
 *     models/energy.h (channels with that host, else the host-less ones), switch channels
 *     (name containing "switch") left out; its name is the channel name(s);
 *   - its idle power is the mean power over the run's idle baseline (mw phases idle-before
 *     and idle-after: record with --idle S), and its dynamic energy is its energy over the
 *     command less idle power x the window time inside the command (models/energy.h).
 * A run with work on one device measures it alone; work on several devices, each given the
 * same amount, is a together run (their dynamic energies summed); different amounts are
 * refused, since the additivity check compares equal sizes.
 *
 * The profile is written in the profile-file format so that exactly the file parser and
 * the builder (models/lbopa.h) turn it into f_i and g_i; the static power P_S of LBOPA-TE
 * is the sum of the devices' idle powers (each device's mean over its runs). */
#include "pareto_runs.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "energy.h"
#include "energy_store.h"
#include "mw_store.h"

typedef struct {
    int id;
    char *name, *host;
} pr_channel;

static int is_switch(const char *name)
{
    for (const char *p = name; *p; p++)
        if (!strncasecmp(p, "switch", 6)) return 1;
    return 0;
}

/* the energy of one channel over the command and its idle baseline */
static int channel_energy(sqlite3 *db, int ch, const mw_energy_span *cmd,
                          const mw_energy_span *idle, size_t nidle, double *dyn_J, double *idle_W,
                          char *err, size_t errlen)
{
    mw_energy_window *w;
    size_t n;
    if (mw_energy_store_windows(db, ch, &w, &n, err, errlen)) return -1;
    mw_energy_trace t;
    if (mw_energy_trace_init(&t, w, n, err, errlen)) {
        free(w);
        return -1;
    }
    mw_energy_pj idle_pj = 0, cmd_pj = 0;
    int64_t idle_ns = 0, cmd_ns = 0;
    mw_energy_spans_sum(&t, idle, nidle, &idle_pj, &idle_ns);
    mw_energy_spans_sum(&t, cmd, 1, &cmd_pj, &cmd_ns);
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

static int append(char **s, const char *sep, const char *add)
{
    size_t a = *s ? strlen(*s) : 0, b = strlen(sep), c = strlen(add);
    char *ns = realloc(*s, a + b + c + 1);
    if (!ns) return -1;
    if (!a) ns[0] = 0;
    if (a) memcpy(ns + a, sep, b + 1);
    strcat(ns, add);
    *s = ns;
    return 0;
}

static int read_one(const char *dir, const char *units, mw_pareto_run *r, char *err, size_t errlen)
{
    char e2[300];
    memset(r, 0, sizeof *r);
    r->run = dir;
    mw_store *s = mw_store_open(dir, e2, sizeof e2);
    if (!s) {
        snprintf(err, errlen, "%s", e2);
        return -1;
    }
    sqlite3 *db = mw_store_db(s);
    sqlite3_stmt *st = NULL;
    pr_channel *ch = NULL;
    int nch = 0, rc = -1;
    char **hosts = NULL;
    double *hunits = NULL;
    int nh = 0;
    mw_energy_span *idle = NULL;
    size_t nidle = 0;
    mw_energy_span cmd = {0, 0};
    int has_cmd = 0;
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL); /* one snapshot */

    /* the command */
    if (sqlite3_prepare_v2(db,
                           "SELECT start_ns, end_ns FROM phases WHERE kind = 'mw' AND name = "
                           "'command' ORDER BY start_ns LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        goto sql;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        cmd = (mw_energy_span){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
        has_cmd = cmd.end_ns > cmd.start_ns;
    } else if (step != SQLITE_DONE) {
        goto sql;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (!has_cmd) {
        snprintf(err, errlen, "%s: no command phase (a run of 'mw record -- COMMAND')", dir);
        goto out;
    }
    /* the idle baseline */
    if (sqlite3_prepare_v2(db,
                           "SELECT start_ns, end_ns FROM phases WHERE kind = 'mw' AND name IN "
                           "('idle-before', 'idle-after')",
                           -1, &st, NULL) != SQLITE_OK)
        goto sql;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mw_energy_span *ni = realloc(idle, (nidle + 1) * sizeof *ni);
        if (!ni) goto oom;
        idle = ni;
        idle[nidle++] = (mw_energy_span){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
    }
    if (step != SQLITE_DONE) goto sql;
    sqlite3_finalize(st);
    st = NULL;
    nidle = mw_energy_spans_union(idle, nidle);
    if (!nidle) {
        snprintf(err, errlen, "%s: no idle baseline for the dynamic energy (record with --idle S)",
                 dir);
        goto out;
    }
    /* the work per host */
    if (sqlite3_prepare_v2(db,
                           "SELECT coalesce(host, ''), sum(bytes) FROM phases WHERE kind = "
                           "'counter' AND name = ?1 GROUP BY 1 ORDER BY 1",
                           -1, &st, NULL) != SQLITE_OK)
        goto sql;
    sqlite3_bind_text(st, 1, units, -1, SQLITE_STATIC);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        double v = sqlite3_column_double(st, 1);
        if (!(v > 0)) continue;
        char **nhs = realloc(hosts, (size_t)(nh + 1) * sizeof *nhs);
        if (!nhs) goto oom;
        hosts = nhs;
        double *nu = realloc(hunits, (size_t)(nh + 1) * sizeof *nu);
        if (!nu) goto oom;
        hunits = nu;
        if (!(hosts[nh] = strdup((const char *)sqlite3_column_text(st, 0)))) goto oom;
        hunits[nh++] = v;
    }
    if (step != SQLITE_DONE) goto sql;
    sqlite3_finalize(st);
    st = NULL;
    if (!nh) {
        snprintf(err, errlen,
                 "%s: no counter '%s' > 0 (the workload's units of work, e.g. mwb-dgemm's "
                 "'products'; see --units)",
                 dir, units);
        goto out;
    }
    /* the channels */
    if (sqlite3_prepare_v2(db,
                           "SELECT channel, name, coalesce(host, '') FROM channels ORDER BY "
                           "channel",
                           -1, &st, NULL) != SQLITE_OK)
        goto sql;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *nm = (const char *)sqlite3_column_text(st, 1);
        if (!nm || is_switch(nm)) continue;
        pr_channel *nc = realloc(ch, (size_t)(nch + 1) * sizeof *nc);
        if (!nc) goto oom;
        ch = nc;
        ch[nch].id = sqlite3_column_int(st, 0);
        ch[nch].name = strdup(nm);
        ch[nch].host = strdup((const char *)sqlite3_column_text(st, 2));
        nch++;
        if (!ch[nch - 1].name || !ch[nch - 1].host) goto oom;
    }
    if (step != SQLITE_DONE) goto sql;
    sqlite3_finalize(st);
    st = NULL;
    const char **chosts = malloc((size_t)(nch ? nch : 1) * sizeof *chosts);
    if (!chosts) goto oom;
    for (int c = 0; c < nch; c++)
        chosts[c] = ch[c].host;
    r->ndevices = nh;
    r->x_units = hunits[0];
    r->time_s = (double)(cmd.end_ns - cmd.start_ns) * 1e-9;
    for (int h = 0; h < nh; h++) {
        if (hunits[h] != hunits[0]) {
            snprintf(err, errlen,
                     "%s: counter '%s' is %.10g on host '%s' but %.10g on host '%s' (a run "
                     "of several devices gives each the same work, for the additivity check)",
                     dir, units, hunits[0], hosts[0], hunits[h], hosts[h]);
            free(chosts);
            goto out;
        }
        char *dev = NULL;
        int found = 0;
        for (int c = 0; c < nch; c++) {
            if (!mw_energy_rank_has_channel(chosts, (size_t)nch, (size_t)c, hosts[h])) continue;
            double dyn, idw;
            char e3[200];
            if (channel_energy(db, ch[c].id, &cmd, idle, nidle, &dyn, &idw, e3, sizeof e3)) {
                snprintf(err, errlen, "%s: channel '%s': %s", dir, ch[c].name, e3);
                free(dev);
                free(chosts);
                goto out;
            }
            r->energy_dyn_J += dyn;
            r->idle_W += idw;
            if (append(&dev, "+", ch[c].name)) {
                free(dev);
                free(chosts);
                goto oom;
            }
            found = 1;
        }
        if (!found) {
            snprintf(err, errlen,
                     "%s: no channel measures host '%s', where counter '%s' was counted (give "
                     "the channel that host in --channels)",
                     dir, *hosts[h] ? hosts[h] : "(none)", units);
            free(chosts);
            goto out;
        }
        int bad = append(&r->device, ",", dev);
        free(dev);
        if (bad) {
            free(chosts);
            goto oom;
        }
    }
    free(chosts);
    if (!(r->energy_dyn_J > 0)) {
        snprintf(err, errlen,
                 "%s: dynamic energy %.4g J: the work did not raise the power of %s above its "
                 "idle baseline (%.4g W)",
                 dir, r->energy_dyn_J, r->device, r->idle_W);
        goto out;
    }
    rc = 0;
    goto out;
sql:
    snprintf(err, errlen, "%s: %s", dir, sqlite3_errmsg(db));
    goto out;
oom:
    snprintf(err, errlen, "%s: out of memory", dir);
out:
    sqlite3_finalize(st);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    mw_store_close(s);
    for (int c = 0; c < nch; c++) {
        free(ch[c].name);
        free(ch[c].host);
    }
    free(ch);
    for (int h = 0; h < nh; h++)
        free(hosts[h]);
    free(hosts);
    free(hunits);
    free(idle);
    if (rc) {
        free(r->device);
        r->device = NULL;
    }
    return rc;
}

int mw_pareto_runs_read(char *const *dirs, int ndirs, const char *units, mw_pareto_runs *out,
                        char *err, size_t errlen)
{
    out->run = calloc((size_t)(ndirs > 0 ? ndirs : 1), sizeof *out->run);
    out->n = 0;
    if (!out->run) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < ndirs; i++) {
        if (read_one(dirs[i], units, &out->run[i], err, errlen)) {
            mw_pareto_runs_free(out);
            return -1;
        }
        out->n++;
    }
    return 0;
}

void mw_pareto_runs_free(mw_pareto_runs *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->run[i].device);
    free(r->run);
    r->run = NULL;
    r->n = 0;
}

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

int mw_pareto_runs_write_profile(const mw_pareto_runs *r, const char *units, FILE *out, char *err,
                                 size_t errlen)
{
    /* the devices measured alone, in order of first appearance */
    int *first = malloc((size_t)(r->n ? r->n : 1) * sizeof *first), k = 0;
    if (!first) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < r->n; i++) {
        if (r->run[i].ndevices != 1) continue;
        int seen = 0;
        for (int j = 0; j < k && !seen; j++)
            seen = !strcmp(r->run[first[j]].device, r->run[i].device);
        if (!seen) first[k++] = i;
    }
    int rc = -1;
    if (!k) {
        snprintf(err, errlen,
                 "no run measures one device alone (the profile needs each "
                 "device alone at two sizes or more)");
        goto out;
    }
    /* together runs: exactly the devices measured alone */
    for (int i = 0; i < r->n; i++) {
        const mw_pareto_run *t = &r->run[i];
        if (t->ndevices == 1) continue;
        int all = t->ndevices == k;
        for (int j = 0; all && j < k; j++)
            all = in_list(t->device, r->run[first[j]].device);
        if (!all) {
            snprintf(err, errlen,
                     "%s: a together run must run exactly the devices measured alone (%d of "
                     "them); it ran %s",
                     t->run, k, t->device);
            goto out;
        }
    }
    /* the builder needs time increasing with size: say which runs break that */
    for (int j = 0; j < k; j++) {
        const char *dev = r->run[first[j]].device;
        for (int i = 0; i < r->n; i++) {
            if (r->run[i].ndevices != 1 || strcmp(r->run[i].device, dev)) continue;
            double ti = 0, tl = 0;
            int ni = 0, nl = 0, lower = -1;
            for (int m = 0; m < r->n; m++) {
                const mw_pareto_run *q = &r->run[m];
                if (q->ndevices != 1 || strcmp(q->device, dev)) continue;
                if (q->x_units == r->run[i].x_units) {
                    ti += q->time_s;
                    ni++;
                } else if (q->x_units < r->run[i].x_units &&
                           (lower < 0 || q->x_units > r->run[lower].x_units)) {
                    lower = m;
                }
            }
            if (lower < 0) continue;
            for (int m = 0; m < r->n; m++)
                if (r->run[m].ndevices == 1 && !strcmp(r->run[m].device, dev) &&
                    r->run[m].x_units == r->run[lower].x_units) {
                    tl += r->run[m].time_s;
                    nl++;
                }
            if (ti / ni <= tl / nl) {
                snprintf(err, errlen,
                         "device %s: %.10g units took %.4g s (%s) but %.10g units %.4g s (%s): "
                         "a profile needs time increasing with size (sizes further apart, or "
                         "more repetitions)",
                         dev, r->run[i].x_units, ti / ni, r->run[i].run, r->run[lower].x_units,
                         tl / nl, r->run[lower].run);
                goto out;
            }
        }
    }
    double ps = 0;
    for (int j = 0; j < k; j++) {
        double sum = 0;
        int m = 0;
        for (int i = 0; i < r->n; i++)
            if (r->run[i].ndevices == 1 && !strcmp(r->run[i].device, r->run[first[j]].device)) {
                sum += r->run[i].idle_W;
                m++;
            }
        ps += sum / m;
    }
    fprintf(out, "# profile built by mw pareto from %d run%s; units: counter '%s'\n", r->n,
            r->n == 1 ? "" : "s", units);
    fprintf(out, "static_power %.17g # W, the devices' idle powers summed\n", ps);
    for (int j = 0; j < k; j++) {
        fprintf(out, "device %s", r->run[first[j]].device);
        for (int i = 0; i < r->n; i++)
            if (r->run[i].ndevices == 1 && !strcmp(r->run[i].device, r->run[first[j]].device))
                fprintf(out, " %.17g:%.17g:%.17g", r->run[i].x_units, r->run[i].time_s,
                        r->run[i].energy_dyn_J);
        fputc('\n', out);
    }
    int tog = 0;
    for (int i = 0; i < r->n; i++)
        if (r->run[i].ndevices > 1) {
            fprintf(out, "%s %.17g:%.17g", tog ? "" : "together", r->run[i].x_units,
                    r->run[i].energy_dyn_J);
            tog = 1;
        }
    if (tog) fputc('\n', out);
    rc = 0;
out:
    free(first);
    return rc;
}
