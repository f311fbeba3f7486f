/* opt.h — strict number parsing for the options of the eeg programs (eeg-mofs,
 * eeg-gpu-check): the whole text must be a number in [lo, hi]; otherwise one line on stderr,
 * "PROG: OPT wants an integer in LO … HI, not 'TEXT'", and −1 (the caller exits 2). */
#ifndef EEG_OPT_H
#define EEG_OPT_H

int eeg_opt_long(const char *prog, const char *opt, const char *s, long lo, long hi, long *out);
int eeg_opt_real(const char *prog, const char *opt, const char *s, double lo, double hi,
                 double *out);

#endif
