/* mw_simprofile — power profiles for the simulated board's current inputs, from a file.
 *
 * Format: CSV, '#' starts a comment, blank lines ignored. The first non-comment line is
 * the header: `t_s` then one ADC pin name per column (A1..A15), e.g.
 *     t_s,A1,A2,A5
 *     0,150.3,146.1,3.5
 *     12.5,224.7,146.1,4.2
 * Each row gives, from its time (seconds, strictly increasing, first row at 0) until the
 * next row's, the real power in W of the load on each named pin (a step profile); after
 * the last row its values hold. Errors name the file, line and column.
 * Bounds (mw_lines.h): 64 MiB, lines of 64 KiB, no NUL byte; a FIFO or pipe must end within
 * 10 s; a file that cannot be read is an error. */
#ifndef MW_SIMPROFILE_H
#define MW_SIMPROFILE_H
#include <stddef.h>

#include "mw_sim.h"

#define MW_SIMPROFILE_MAX_BYTES (64u << 20)
#define MW_SIMPROFILE_MAX_LINE_BYTES (64u << 10)

typedef struct mw_simprofile mw_simprofile;

/* Returns NULL and a message "FILE:LINE: what" in err on any error. */
mw_simprofile *mw_simprofile_load(const char *path, char *err, size_t errlen);
void mw_simprofile_free(mw_simprofile *p);

/* Number of pins the profile drives, and the i-th pin (1..15). */
int mw_simprofile_npins(const mw_simprofile *p);
int mw_simprofile_pin(const mw_simprofile *p, int i);
/* Power in W on `pin` at t seconds (0 for a pin the profile does not name). */
double mw_simprofile_power(const mw_simprofile *p, int pin, double t);

/* Drive every pin of the profile on the board (power factor pf, waveform wave). The profile
 * must outlive the board. */
void mw_simprofile_attach(mw_simprofile *p, mw_sim *sim, double pf, mw_sim_wave wave);

#endif
