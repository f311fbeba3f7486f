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

typedef struct {
    const char *rundir, *meter, *channels;
    const char *meter_hosts; /* --meter-hosts: meters on several hosts (record_hosts.c) */
    double idle_s;
    int force, quiet;
    mw_rec_inband inband; /* --inband, --inband-hz */
    char **cmd;           /* after "--" */
} rec_opts;

typedef struct {
    rec_opts o;
    mw_meter_spec *ms;
    mw_meter *m;
    mw_store *st;
    mw_record *rec;
    mw_runlock *lock;
    char path[4096], host[256];
    int nchan;
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
#endif
