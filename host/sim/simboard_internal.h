/* simboard_internal — for host/ modules that extend the simulated board (pty bridge,
 * bootloader loading) and need the simavr core. Not a public header. */
#ifndef MW_SIMBOARD_INTERNAL_H
#define MW_SIMBOARD_INTERNAL_H
#include <sim_avr.h>

#include "mw_sim.h"

avr_t *mw_sim_avr(mw_sim *sim);
#endif
