/* record_signals — how mw record takes and gives back the signals (record_signals.c). */
#ifndef MW_RECORD_SIGNALS_H
#define MW_RECORD_SIGNALS_H
#include <signal.h>

/* the last signal that ended the run, and the one to pass on to the command (0: none) */
extern volatile sig_atomic_t mw_record_forward_sig, mw_record_interrupted;

typedef struct {
    struct sigaction intr, term, hup, chld, xfsz, pipe;
} mw_record_signals;

/* Install mw record's handlers (the old ones into *old), clearing both flags. */
void mw_record_signals_catch(mw_record_signals *old);
/* Put the old handlers back (after the last write). */
void mw_record_signals_restore(const mw_record_signals *old);
#endif
