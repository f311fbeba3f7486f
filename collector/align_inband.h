/* align_inband — mw align --inband (collector/align_inband.c). */
#ifndef MW_ALIGN_INBAND_H
#define MW_ALIGN_INBAND_H
/* the cross-check of RUNDIR printed; returns the exit status */
int mw_align_inband_cmd(const char *rundir, int json);
#endif
