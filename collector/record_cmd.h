/* record_cmd — the state of one "mw record" (cmd_record.c) shared with what it says while
 * recording (record_news.c): the options, the meter, the store, the recording, and the
 * status line's bookkeeping. Private to the command. */
#ifndef MW_RECORD_CMD_H
#define MW_RECORD_CMD_H
#include <stdint.h>
#include <time.h>

#include "channels.h"
#include "meter_spec.h"
#include "mw_record.h"
#include "mw_runlock.h"
#include "mw_store.h"
#include "record_inband.h"

#define STATUS_NS 500000000LL /* status line refresh */
#define SIMCLUSTER_NICE "5"   /* the command's nice value under --meter sim:cluster */
#define STAGE_DONE 4          /* after the last mw_record_stage */

#define REC_MAX_METERS MW_RECORD_MAX_METERS

typedef struct {
    const char *rundir, *channels;
    const char *meter[REC_MAX_METERS]; /* --meter, in order (none: the one meter on USB) */
    int nmeter;
    const char *meter_hosts; /* --meter-hosts: meters on several hosts (record_hosts.c) */
    double idle_s;
    int force, quiet;
    mw_rec_inband inband; /* --inband, --inband-hz */
    char **cmd;           /* after "--" */
} rec_opts;

typedef struct {
    rec_opts o;
    mw_meter_spec *ms; /* meter 1's: ms = mss[0], m its meter, rec = recs[0], path its port */
    mw_meter *m;
    mw_store *st;
    mw_record *rec;
    mw_runlock *lock;
    char path[4096], host[256];
    int nchan; /* run-wide channels, of every meter */
    /* the meters (record_meters.c), meter i + 1 of the run */
    int nmeters;
    mw_meter_spec *mss[REC_MAX_METERS];
    mw_record *recs[REC_MAX_METERS];
    int mnchan[REC_MAX_METERS];     /* its current channels */
    char mname[REC_MAX_METERS][128]; /* its name: USB serial, sim-N, or the port as given */
    mw_channels names;
    int stage; /* mw_record_stage, or STAGE_DONE */
    /* status line */
    int tty;
    int64_t start_mono, next_status;
    int store_failed;
    int reserve[4]; /* descriptors held for the end's work (cmd_record.c), or -1 */
} rec_t;

/* CLOCK c in ns */
int64_t mw_rec_now(clockid_t c);
/* A store failure: said once, for the first. */
void mw_rec_store_failed(rec_t *r, const char *msg);
/* The status line on a terminal, at most every STATUS_NS unless force. */
void mw_rec_status_line(rec_t *r, int force);
/* The recording's news (mw_record_command.news; ctx is the rec_t). */
void mw_rec_on_news(void *ctx, const mw_record_news *n);

/* ---- the meters (record_meters.c) ---- */
/* Open every --meter (auto: every meter on USB; sim: a simulated board each), refusing
 * before anything is made a meter listed twice, more than REC_MAX_METERS, sim:cluster beside
 * another meter: -1 when open (r->mss, mname, mnchan, nchan, and meter 1's ms, m, path), or
 * the exit code with nothing left open (the message said). */
int mw_rec_meters_open(rec_t *r);
/* The channels' names for every meter's channels (list: --channels). 0, or -1 with err. */
int mw_rec_meters_names(rec_t *r, const char *list, char *err, size_t errlen);
/* The meters and channels into the store (a failure: said, r->store_failed). */
void mw_rec_meters_store(rec_t *r);
/* The metadata of meters 2.. (meterN_usb, meterN_firmware, meterN_calibration, ...). */
void mw_rec_meters_meta(rec_t *r);
/* One recording session per meter, all driven by meter 1's (r->rec). */
void mw_rec_meters_sessions(rec_t *r);
/* Run-wide channel k: its last power, its energy so far; 1 when every meter is connected. */
double mw_rec_power_w(const rec_t *r, int k);
int64_t mw_rec_energy_mj(const rec_t *r, int k);
int mw_rec_connected(const rec_t *r);
/* Windows x channels, summed over the meters. */
unsigned long long mw_rec_samples(const rec_t *r);
/* Free the sessions and close the meters. */
void mw_rec_meters_close(rec_t *r);

/* ---- setting up (record_setup.c) ---- */
/* The run directory locked and its store created: an existing directory is locked before
 * --force removes its trace, a new one right after mw_store_create made it. 0, or -1 with
 * err (nothing made). */
int mw_rec_lock_and_create(rec_t *r, char *err, size_t errlen);
/* The descriptor reserve (cmd_record.c): take it (0, or -1 with errno), give it back. */
int mw_rec_reserve_take(rec_t *r);
void mw_rec_reserve_give_back(rec_t *r);
#endif
