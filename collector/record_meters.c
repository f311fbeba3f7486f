/* record_meters — the meters of one "mw record" (record_cmd.h): several --meter, each a
 * meter of the run (schema version 5, docs/run-store.md).
 *
 * Every meter is opened before anything is made, and the run is refused (exit 2, one line,
 * nothing made) when a port is listed twice (compared after resolving links), when two
 * ports turn out to be one meter (the same USB serial), with more than REC_MAX_METERS, or
 * with sim:cluster beside another meter (the cluster plays the command's nodes on one
 * board). "auto" is every meter libserialport lists with a meter's USB VID:PID; none is
 * exit 2 with the ports seen. Each "sim" is a simulated board of its own (the real
 * firmware in simavr, one thread each), named sim-1, sim-2, ... in the order given; a real
 * meter is named by its USB serial, a port without one (a pty of mw vmeter) by the port as
 * given. Meter i's channels follow meter i-1's run-wide (channels.h); each meter has its own
 * recording session (mw_record.h), driven by meter 1's in one poll loop. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mw_port.h"
#include "record_cmd.h"

/* The specs to open: --meter as given, "auto" expanded. -1, or the exit code. */
static int expand_specs(rec_t *r, char (*auto_paths)[4096], const char **spec, int *n)
{
    *n = 0;
    if (r->o.nmeter == 0) { /* no --meter: the one meter on USB, as ever */
        spec[(*n)++] = NULL;
        return -1;
    }
    for (int i = 0; i < r->o.nmeter; i++) {
        const char *s = r->o.meter[i];
        if (!strcmp(s, "auto") && r->o.nmeter > 1)
            return mw_cli_usage_error("record", "--meter auto records every meter found; give "
                                                "it alone");
        if (!strncmp(s, "sim:cluster", 11) && r->o.nmeter > 1)
            return mw_cli_usage_error("record", "--meter %s drives one board; give it alone", s);
        if (strcmp(s, "auto") != 0) {
            spec[(*n)++] = s;
            continue;
        }
        char err[2048];
        int found = mw_meter_spec_find_all(auto_paths, REC_MAX_METERS, err, sizeof err);
        if (found < 0) {
            fprintf(stderr, "mw record: --meter auto: %s\n", err);
            return MW_EXIT_USAGE;
        }
        for (int k = 0; k < found; k++)
            spec[(*n)++] = auto_paths[k];
    }
    return -1;
}

/* A port listed twice (after links) is refused before any is opened. -1, or exit 2. */
static int refuse_twice(const char **spec, int n)
{
    char real[REC_MAX_METERS][PATH_MAX];
    for (int i = 0; i < n; i++) {
        int sim = spec[i] && (!strcmp(spec[i], "sim") || !strncmp(spec[i], "sim:", 4));
        if (!spec[i] || sim) {
            real[i][0] = 0;
            continue;
        }
        if (!realpath(spec[i], real[i])) snprintf(real[i], sizeof real[i], "%s", spec[i]);
        for (int j = 0; j < i; j++)
            if (real[j][0] && !strcmp(real[i], real[j])) {
                fprintf(stderr, "mw record: --meter %s: listed twice (as %s too)\n", spec[i],
                        spec[j]);
                return MW_EXIT_USAGE;
            }
    }
    return -1;
}

/* Meter i's name: sim-N, its USB serial, or the port as given. */
static void name_meter(rec_t *r, int i, const char *spec, int *sims)
{
    mw_port_info pi;
    if (mw_meter_spec_is_sim(r->mss[i])) {
        snprintf(r->mname[i], sizeof r->mname[i], "sim-%d", ++*sims);
        return;
    }
    mw_port_get_info(mw_meter_port(mw_meter_spec_meter(r->mss[i])), &pi);
    if (pi.vid >= 0 && pi.serial[0])
        snprintf(r->mname[i], sizeof r->mname[i], "%s", pi.serial);
    else
        snprintf(r->mname[i], sizeof r->mname[i], "%s",
                 spec ? spec : mw_meter_spec_path(r->mss[i]));
}

int mw_rec_meters_open(rec_t *r)
{
    char auto_paths[REC_MAX_METERS][4096];
    const char *spec[REC_MAX_METERS];
    int n, rc, sims = 0;
    if ((rc = expand_specs(r, auto_paths, spec, &n)) >= 0) return rc;
    if ((rc = refuse_twice(spec, n)) >= 0) return rc;
    r->nchan = 0;
    for (int i = 0; i < n; i++) {
        if ((rc = mw_meter_spec_open("record", spec[i], &r->mss[i])) != 0) {
            mw_rec_meters_close(r);
            return MW_EXIT_USAGE; /* "could not start" is 2 for mw record (docs/cli.md) */
        }
        r->nmeters = i + 1;
        name_meter(r, i, spec[i], &sims);
        for (int j = 0; j < i; j++)
            if (!strcmp(r->mname[i], r->mname[j])) {
                fprintf(stderr, "mw record: --meter %s and --meter %s: the same meter (%s)\n",
                        spec[j] ? spec[j] : "auto", spec[i] ? spec[i] : "auto", r->mname[i]);
                mw_rec_meters_close(r);
                return MW_EXIT_USAGE;
            }
        const mw_proto_ident *id = mw_meter_ident(mw_meter_spec_meter(r->mss[i]));
        r->mnchan[i] = id->n_current > MW_CHANNELS_MAX ? MW_CHANNELS_MAX : id->n_current;
        r->nchan += r->mnchan[i];
    }
    r->ms = r->mss[0];
    r->m = mw_meter_spec_meter(r->ms);
    snprintf(r->path, sizeof r->path, "%s", mw_meter_spec_path(r->ms));
    return -1;
}

int mw_rec_meters_names(rec_t *r, const char *list, char *err, size_t errlen)
{
    mw_channels_meter m[REC_MAX_METERS];
    for (int i = 0; i < r->nmeters; i++)
        m[i] = (mw_channels_meter){r->mname[i], r->o.nmeter ? r->o.meter[i] : NULL, r->mnchan[i]};
    if (r->o.nmeter == 1 && !strcmp(r->o.meter[0], "auto"))
        for (int i = 0; i < r->nmeters; i++)
            m[i].port = mw_meter_spec_path(r->mss[i]);
    return mw_channels_load_meters(&r->names, m, r->nmeters, list, err, errlen);
}

void mw_rec_meters_store(rec_t *r)
{
    for (int i = 0, k = 1; i < r->nmeters; i++) {
        if (mw_store_meter_add(r->st, i + 1, r->mname[i], r->host, mw_meter_spec_path(r->mss[i]),
                               0, 0) != 0)
            mw_rec_store_failed(r, mw_store_error(r->st));
        const mw_proto_ident *id = mw_meter_ident(mw_meter_spec_meter(r->mss[i]));
        for (int c = 1; c <= r->mnchan[i]; c++, k++) {
            char pin[8];
            snprintf(pin, sizeof pin, "A%d", id->pin[c]);
            if (mw_store_channel_add_meter(r->st, k, r->names.name[k],
                                           r->names.host[k][0] ? r->names.host[k] : NULL, pin,
                                           i + 1, c) != 0)
                mw_rec_store_failed(r, mw_store_error(r->st));
        }
    }
}

void mw_rec_meters_sessions(rec_t *r)
{
    for (int i = 0, first = 1; i < r->nmeters; first += r->mnchan[i], i++) {
        r->recs[i] = mw_record_new(mw_meter_spec_meter(r->mss[i]), r->st,
                                   mw_meter_spec_path(r->mss[i]), r->mnchan[i],
                                   !mw_meter_spec_is_sim(r->mss[i]));
        mw_record_set_meter(r->recs[i], i + 1, first, r->mname[i]);
        if (i) mw_record_add_meter(r->recs[0], r->recs[i]);
    }
    r->rec = r->recs[0];
}

/* The session and its channel of run-wide channel k, or NULL. */
static const mw_record *session_of(const rec_t *r, int k, int *kk)
{
    for (int i = 0; i < r->nmeters; k -= r->mnchan[i], i++)
        if (k >= 1 && k <= r->mnchan[i]) {
            *kk = k;
            return r->recs[i];
        }
    return NULL;
}

double mw_rec_power_w(const rec_t *r, int k)
{
    int kk;
    const mw_record *s = session_of(r, k, &kk);
    return s ? mw_record_power_w(s, kk) : 0;
}

int64_t mw_rec_energy_mj(const rec_t *r, int k)
{
    int kk;
    const mw_record *s = session_of(r, k, &kk);
    return s ? mw_record_energy_mj(s, kk) : 0;
}

int mw_rec_connected(const rec_t *r)
{
    for (int i = 0; i < r->nmeters; i++)
        if (r->recs[i] && !mw_record_connected(r->recs[i])) return 0;
    return 1;
}

unsigned long long mw_rec_samples(const rec_t *r)
{
    unsigned long long n = 0;
    for (int i = 0; i < r->nmeters; i++)
        if (r->recs[i]) n += mw_record_windows(r->recs[i]) * (unsigned long long)r->mnchan[i];
    return n;
}

void mw_rec_meters_close(rec_t *r)
{
    for (int i = 0; i < REC_MAX_METERS; i++) {
        mw_record_free(r->recs[i]);
        r->recs[i] = NULL;
    }
    r->rec = NULL;
    for (int i = 0; i < REC_MAX_METERS; i++) {
        mw_meter_spec_close(r->mss[i]);
        r->mss[i] = NULL;
    }
    r->ms = NULL;
    r->m = NULL;
}
