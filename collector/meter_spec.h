/* meter_spec — the --meter argument shared by record, monitor, info and calibrate:
 *   PORT          a serial port path (/dev/ttyACM0, or the pty of 'mw vmeter')
 *   auto          the one meter on USB (mw_port_find_meter)
 *   sim[:FILE]    the simulated board started inside this process: the real firmware in
 *                 simavr on a pty, run in real time by a thread, and then opened like any
 *                 port (the same code path as a real board). Its loads are three idle
 *                 nodes and a switch (A1 156.3 W, A2 146.1 W, A3 172.8 W: Escobar et al.
 *                 Table 5; A4 3.5 W), or the step profile FILE (mw_simprofile.h).
 *   sim:cluster[=FILE]  the simulated board driven by a simulated cluster: each node's
 *                 channel follows the CPU activity of the processes playing it, the switch
 *                 the MPI traffic between them (mw_simcluster.h; mw record starts it
 *                 following the command).
 * Errors are printed as "mw CMD: ..." naming the port; the exit code is 2 for a port that
 * cannot be used (missing, denied, busy, not a meter), 1 for other failures. */
#ifndef MW_METER_SPEC_H
#define MW_METER_SPEC_H
#include "mw_meter.h"

typedef struct mw_meter_spec mw_meter_spec;

/* Every meter on USB (a VID:PID a meter uses, libserialport's enumeration: mw_port_list),
 * at most max: their paths. Returns how many (1..max), or -1 with the message (none found,
 * and the serial ports seen) in err. */
int mw_meter_spec_find_all(char (*paths)[4096], int max, char *err, size_t errlen);

/* Open the meter named by spec (NULL = auto). Returns 0 with *out, or an exit code. */
int mw_meter_spec_open(const char *cmd, const char *spec, mw_meter_spec **out);
void mw_meter_spec_close(mw_meter_spec *s);
mw_meter *mw_meter_spec_meter(mw_meter_spec *s);
/* The port path the meter is on (the pty for sim), for reconnecting and for metadata. */
const char *mw_meter_spec_path(const mw_meter_spec *s);
/* The simulated cluster behind sim:cluster, else NULL. */
struct mw_simcluster;
struct mw_simcluster *mw_meter_spec_cluster(mw_meter_spec *s);
/* 1 when the meter is the in-process simulated board. */
int mw_meter_spec_is_sim(const mw_meter_spec *s);
/* Ask the meter for the calibration of the voltage and every current channel; writes
 * "0:GAIN,PHASE;1:GAIN,PHASE;..." (gain V or A per count, phase in degrees). Returns 0, or
 * -1 with the reason in out. */
int mw_meter_spec_calibration(mw_meter *m, char *out, size_t outlen);
#endif
