/* mw_simcluster — a simulated cluster's power for the simulated board: on one machine each
 * simulated node is played by a set of processes (by default one MPI rank per node), and
 * the board's current channels follow what those processes really do.
 *
 * Node power. Every interval (default 50 ms, 5 samples per 250 ms meter window) the
 * sampler walks the process tree under the recorded command, gives each process to a node
 * by its MPI rank (OMPI_COMM_WORLD_RANK, PMIX_RANK or PMI_RANK in /proc/PID/environ;
 * processes without one, such as mpirun, belong to the node of rank 0, the front end) and
 * reads the CPU demand of every thread from the time it ran and the time it waited to run
 * (/proc/PID/task/TID/schedstat): a thread that did not sleep (voluntary context switches
 * in its status) counts both, so that ranks sharing too few cores still count as busy; a
 * thread that slept counts run * dt / (dt - wait), its share of its own timeline without
 * the queueing its own node would not have (a rank waking every millisecond to test for a
 * message counts its microseconds of work, not its queueing behind other nodes).
 * A node's power is linear in its demand u (threads' demand over the interval divided by
 * the node's cores, at most 1):
 *     P_node = idle_w + (work_w - idle_w) * u + N(0, noise_w)
 * The switch follows the MPI bytes the ranks send over the last 5 samples (libmwprobe's live
 * counters, files in the
 * traffic directory, see collector/probe/probe_traffic.c):
 *     P_switch = idle_w + (busy_w - idle_w) * min(1, bytes_per_s / full_bytes_per_s)
 *
 * Configuration file (whitespace-separated, '#' starts a comment):
 *     node   NAME PIN IDLE_W WORK_W [ranks=R,R..] [cores=N]
 *     switch NAME PIN IDLE_W BUSY_W [full=BYTES_PER_S]
 *     noise  W           # sd of each node's power per sample (default 1.0)
 *     interval S         # sampling interval (default 0.05)
 * PIN is A1..A15. The k-th node (k = 0, 1, ...) takes rank k unless it lists its ranks;
 * other ranks go round-robin over the nodes without ranks= but the first (the front end).
 * Without a file: the levels of Escobar et al. Table 5 (v2): N1 156.30/224.72 W on A1 (rank 0),
 * N2 146.08/160.01 W on A2, N3 172.76/226.38 W on A3, and a switch of 3.5/4.5 W on A4 that is
 * busy at gigabit line rate (125e6 B/s). This is a simulation: a real meter on
 * /dev/ttyACM0 measures real nodes instead, with the same commands. */
#ifndef MW_SIMCLUSTER_H
#define MW_SIMCLUSTER_H
#include <stddef.h>
#include <sys/types.h>

#include "mw_sim.h"
#include "mw_store.h"

typedef struct mw_simcluster mw_simcluster;

/* Loads a configuration (path NULL: the defaults above). NULL with "FILE:LINE: what" in err. */
mw_simcluster *mw_simcluster_load(const char *path, char *err, size_t errlen);
void mw_simcluster_free(mw_simcluster *c); /* stops the sampler first */

/* Drives the board's pins: every node and the switch at its idle power until started. The
 * cluster must outlive the board's use of them. */
void mw_simcluster_attach(mw_simcluster *c, mw_sim *sim);

/* Starts the sampler thread (noise on the idle levels until something is followed).
 * Returns 0 or -1. */
int mw_simcluster_start(mw_simcluster *c);
/* Follows the processes under root (and root itself; 0: none) and the traffic files in
 * traffic_dir (NULL: the switch stays idle), from the next sample on. */
void mw_simcluster_follow(mw_simcluster *c, pid_t root, const char *traffic_dir);
/* Stops the sampler thread; the nodes go back to their idle power. */
void mw_simcluster_stop(mw_simcluster *c);

/* Channels as mw record names them: "N1@N1,N2@N2,N3@N3,switch" in pin order, a channel per
 * pin A1..Amax (a pin the file does not use is named chK). */
void mw_simcluster_channels(const mw_simcluster *c, char *out, size_t outlen);
/* The node that plays MPI rank `rank` (rank < 0: the front end). */
const char *mw_simcluster_node_of_rank(const mw_simcluster *c, int rank);
/* The i-th process followed so far (i = 0, 1, ...): its pid in *pid and the name of the
 * node it played; NULL past the last. */
const char *mw_simcluster_process(mw_simcluster *c, size_t i, pid_t *pid);
/* A one-line description of the configuration, for the run's metadata. */
void mw_simcluster_describe(const mw_simcluster *c, char *out, size_t outlen);

/* The power model alone (for tests): a node's power in W at demand u (no noise). */
double mw_simcluster_node_power_w(const mw_simcluster *c, int node, double u);
double mw_simcluster_switch_power_w(const mw_simcluster *c, double bytes_per_s);
int mw_simcluster_nnodes(const mw_simcluster *c);
/* The power now driven on pin (1..15), W (0 for a pin the cluster does not use). */
double mw_simcluster_pin_power_w(mw_simcluster *c, int pin);

/* After mw record has recorded the command the cluster followed into the run store st, the
 * cluster's part of the run: the metadata key "simulated_cluster" (mw_simcluster_describe);
 * the events of each process the cluster followed get the node that process played as
 * their host (the channels' host), those of each MPI rank, and its clock samples, its rank's
 * node, even when the sampler never saw the process (one that lived less than a scan); the
 * live traffic files in traffic_dir (NULL: none) and the directory are removed. Every step
 * is tried (the processes' events up to the first that fails); returns 0, or -1 with the
 * first failure in err. */
int mw_simcluster_finish_run(mw_simcluster *c, mw_store *st, const char *traffic_dir, char *err,
                             size_t errlen);
#endif
