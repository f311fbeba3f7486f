/* pareto_device — per-device energy for the Khaleghzadeh et al. profiles ("mw pareto RUNDIR...
 * --units COUNTER --per-device", docs/models.md "Per-device profiles from in-band counters"):
 * the devices of a run are its in-band devices (RAPL packages, NVML GPUs) rather than the
 * wall channels. Used by pareto_runs.c, which reads the run's phases, counter and channels;
 * this reads the in-band sources through mw_run.h (no SQL) and turns them into devices. */
#ifndef MW_PARETO_DEVICE_H
#define MW_PARETO_DEVICE_H
#include <stddef.h>

#include "energy.h"
#include "pareto_runs.h"

struct mw_store;

/* a device worked when its mean dynamic power over the command reached both */
#define MW_PARETO_DEVICE_MIN_W 1.0     /* W */
#define MW_PARETO_DEVICE_MIN_FRAC 0.05 /* of its idle power */

/* One run as pareto_runs.c has read it. */
typedef struct {
    const char *dir;
    struct mw_store *s;
    mw_energy_span cmd;         /* the command phase */
    const mw_energy_span *idle; /* the idle baseline: sorted, disjoint */
    size_t nidle;
    const char *const *host; /* the hosts with work (counter > 0), units[h] on each */
    const double *units;
    int nh;
    const int *ch_id;          /* the channels but the switches: ids and hosts */
    const char *const *ch_host;
    int nch;
} mw_pareto_device_in;

/* The run's in-band devices on its working hosts, their dynamic energies and the wall beside
 * them into r (r->part, the wall and rest figures; r->time_s); names, device string and x
 * come in mw_pareto_device_finish. -1 with a reason naming the run in err: a working host
 * without an in-band source, a source without windows over the command or the idle
 * baseline. */
int mw_pareto_device_run(const mw_pareto_device_in *in, const char *units, mw_pareto_run *r,
                         char *err, size_t errlen);

/* Once every run is read: device names (the source's, "HOST/" before it when the runs have
 * in-band devices on more than one host; blanks, '#', ',', '+' and control bytes made '_',
 * which a profile line cannot hold), each run's device string (the devices that
 * worked, ','-joined), ndevices, x_units (the host's counter / the devices that worked
 * there, the same on every host), energy_dyn_J and idle_W (of the devices that worked).
 * -1 with a reason naming the run: no device worked, or unequal work per device. */
int mw_pareto_device_finish(mw_pareto_runs *r, const char *units, char *err, size_t errlen);

void mw_pareto_device_parts_free(mw_pareto_run *r);
#endif
