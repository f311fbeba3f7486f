/* probe_test — hooks of the probe core (probe.c) for its own tests and benchmark; not
 * installed, not part of the API.
 *
 * The probe reads its environment (MW_RUN_DIR, MW_PROBE_DIR, MW_PROBE_RING_EVENTS) once, at
 * the first call of any entry point. A test that wants another configuration in the same
 * process changes the environment and calls mw_probe_shutdown(); the next call then starts
 * afresh. */
#ifndef MW_PROBE_TEST_H
#define MW_PROBE_TEST_H

/* Finish the spill file as at exit (remaining events, D and X records), stop the background
 * thread, free every thread's buffer and forget the configuration. Only while no other
 * thread uses the probe (they must have exited or be idle for good). */
void mw_probe_shutdown(void);
#endif
