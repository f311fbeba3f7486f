/* escobar_study — the Escobar model (escobar.h) against a set of recorded eeg-mofs runs: what
 * `mw fit --model escobar` reports, the model figure of `mw plot` draws and `mw report` shows.
 *
 * A study takes runs (read by mw_escobar_from_run) and gives per run its row: the parameters
 * used, the measured and predicted time and energy and their relative errors; per version
 * (2, then 3: those that have runs) the NRMSE of time and energy next to the paper's, and in
 * fit mode the fitted time parameters with their intervals. Modes:
 *   predict  each run's own parameters, or with a calibration run its time parameters (W/F
 *            by rank and device, else the calibration's mean; T_master, T_com, T_Lm) and its
 *            channels' power levels by name (and its switch's); every time parameter the
 *            runs need must be there (an error names the missing one and how to get it);
 *   fit      per version, the time parameters shared by that version's runs fitted by least
 *            squares to their measured times (mw_escobar_fit_time); the rows then use them.
 *
 * Two entry points: mw_escobar_study_of_runs takes runs already read (and the calibration run
 * itself); mw_escobar_study_run takes directories: each RUNDIR, or a SWEEPDIR's finished runs
 * (mw_sweepindex.h), and the calibration RUNDIR of the options. Both check the runs in input
 * order, a run's parameters right after it is read, so the first problem met is the one told.
 *
 * Nothing is printed: an error comes back as a status and a message in err worded for
 * `mw fit`, which prints it after "mw fit: "; a note (a fit that stopped at its iteration
 * limit, a fitted value < 0) goes to the options' note function as it happens. */
#ifndef MW_ESCOBAR_STUDY_H
#define MW_ESCOBAR_STUDY_H
#include <stddef.h>

#include "escobar.h"

/* The paper's NRMSE (Escobar et al. §5.2, Fig. 5: time; Fig. 9: energy), index version - 2. */
extern const double mw_escobar_paper_nrmse_time[2];   /* v2 0.439, v3 0.787 */
extern const double mw_escobar_paper_nrmse_energy[2]; /* v2 0.403, v3 0.744 */

typedef enum {
    MW_ESCOBAR_STUDY_OK = 0,
    MW_ESCOBAR_STUDY_BAD_INPUT, /* what the user can mend: an unreadable run or sweep, a
                                   missing parameter, too few runs for the fit, parameters
                                   the model refuses (mw fit: exit 2) */
    MW_ESCOBAR_STUDY_FAILED     /* the caller's mistake: options out of range (exit 1) */
} mw_escobar_study_status;

typedef struct {
    int fit;                 /* 0: predict mode; 1: fit mode */
    double confidence;       /* of the fit's intervals, in (0, 1) (0 means 0.95) */
    const char *switch_name; /* the switch's channel when reading runs (NULL: *switch*) */
    const char *calibration; /* mw_escobar_study_run: the calibration RUNDIR, or NULL */
    /* notes as they happen ("v2: the fit stopped at ..."), or NULL to drop them */
    void (*note)(void *ctx, const char *text);
    void *note_ctx;
} mw_escobar_study_opts;

typedef struct {
    const mw_escobar_run *run; /* as measured (into the study's runs) */
    mw_escobar_params p;       /* as used for the prediction */
    mw_escobar_prediction pr;
    double t_cpu_s, t_gpu_s;     /* p's mean W/F over the requesters using that device, NaN
                                    for none */
    double t_err_rel, e_err_rel; /* (predicted - measured) / measured; NaN when undefined */
} mw_escobar_study_row;

typedef struct {
    int version, nruns;
    double nrmse_t, nrmse_e;             /* NaN when undefined (one run, equal times) */
    double paper_nrmse_t, paper_nrmse_e; /* the paper's for this version */
    int fitted;                          /* fit mode: fit holds this version's fit */
    mw_escobar_fit fit;
} mw_escobar_study_group;

typedef struct {
    int fit;           /* the mode */
    double confidence; /* used */
    int nrows;
    mw_escobar_run *runs;       /* nrows, in input order */
    mw_escobar_study_row *rows; /* nrows, rows[i].run == &runs[i] */
    int ngroups;
    mw_escobar_study_group group[2]; /* v2, v3 (those with runs), in that order */
} mw_escobar_study;

/* The study of runs[0..n-1] (copied; n >= 0), with cal the calibration run (NULL: each run's
 * own parameters; in fit mode it is the fit's starting point). *out is the study (free with
 * mw_escobar_study_free), or NULL on failure with the message in err. */
mw_escobar_study_status mw_escobar_study_of_runs(const mw_escobar_study_opts *o,
                                                 const mw_escobar_run *runs, int n,
                                                 const mw_escobar_run *cal, mw_escobar_study **out,
                                                 char *err, size_t errlen);

/* The same for inputs[0..n-1] (n >= 1), each a RUNDIR or a SWEEPDIR (its finished runs), and
 * o->calibration read as the calibration run. */
mw_escobar_study_status mw_escobar_study_run(const mw_escobar_study_opts *o, char *const *inputs,
                                             int n, mw_escobar_study **out, char *err,
                                             size_t errlen);

void mw_escobar_study_free(mw_escobar_study *s);

/* The group of version v in s, or NULL. */
const mw_escobar_study_group *mw_escobar_study_group_of(const mw_escobar_study *s, int v);
#endif
