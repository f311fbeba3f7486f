/* record_inband — mw record's in-band part (docs/inband.md): the options --inband and
 * --inband-hz, and the sampler (mw_inband.h) started after the run is created and stopped
 * when the command's recording is over, with what it has to say on stderr. */
#ifndef MW_RECORD_INBAND_H
#define MW_RECORD_INBAND_H
#include "mw_inband.h"
#include "mw_store.h"

#define MW_REC_INBAND_OPT 0x1100    /* --inband LIST */
#define MW_REC_INBAND_HZ_OPT 0x1101 /* --inband-hz HZ */
#define MW_REC_INBAND_OPTIONS                                                                      \
    {"inband", required_argument, NULL, MW_REC_INBAND_OPT},                                        \
    {                                                                                              \
        "inband-hz", required_argument, NULL, MW_REC_INBAND_HZ_OPT                                 \
    }
#define MW_REC_INBAND_USAGE                                                                        \
    "  --inband LIST        in-band sources beside the meter: rapl, nvml, rapl,nvml or\n"          \
    "                       none (default: those present; docs/inband.md)\n"                       \
    "  --inband-hz HZ       their sampling rate, 1..100 (default 10)\n"

typedef struct {
    unsigned which; /* MW_INBAND_* */
    int given;      /* --inband was given: absent sources are said */
    double hz;
    mw_inband_sampler *s;
} mw_rec_inband;

void mw_rec_inband_init(mw_rec_inband *o);
/* opt one of the two options: -1 (taken), or an exit code after a usage error */
int mw_rec_inband_option(mw_rec_inband *o, int opt, const char *arg);
/* Start sampling into RUNDIR for host (MW_INBAND_HOST when set). A failure is said and
 * recording goes on without; returns 0, or -1 when the run could not be written. Without
 * any source found, meta inband "none" and inband_notes go into st (the recorder's store,
 * in its transaction). */
int mw_rec_inband_start(mw_rec_inband *o, mw_store *st, const char *rundir, const char *host,
                        int quiet);
/* Commit st (the recorder's transaction: the in-band writer's last one must not wait for
 * it), then stop; returns 0, or -1 when in-band windows were not stored (said). */
int mw_rec_inband_stop(mw_rec_inband *o, mw_store *st, int quiet);
#endif
