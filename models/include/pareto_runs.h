/* pareto_runs — a Khaleghzadeh et al. workload profile (docs/models.md "Profile file") built from
 * run directories, for "mw pareto RUNDIR...". See pareto_runs.c for the rules. The runs are read
 * through the run store's cursors (mw_run.h); the profile comes back as text in the
 * profile-file format, which the caller parses with the one profile parser (so its
 * FILE:LINE messages are those of a profile file). */
#ifndef MW_PARETO_RUNS_H
#define MW_PARETO_RUNS_H
#include <stddef.h>

/* Per-device mode (mw pareto --per-device, models/pareto_device.c): one in-band device of a
 * node the run worked on — a RAPL package (with its additive parts: dram) = one CPU socket,
 * an NVML GPU = one GPU. */
typedef struct {
    char *host, *source; /* where it is, and its in-band source's name */
    double host_units;   /* the counter's sum on its host */
    char *name;     /* the source's name ("rapl:package-0"), "HOST/" before it when the runs
                       have in-band devices on several hosts (pareto_device.h) */
    double dyn_J;   /* its mean power over the command less its idle power, x the command's time */
    double idle_W;  /* its mean power over the idle baseline */
    int worked;     /* its mean dynamic power reached MW_PARETO_DEVICE_MIN_W and
                       MW_PARETO_DEVICE_MIN_FRAC of its idle power */
} mw_pareto_dev_part;

/* What one run gave. A run whose work (the counter) is on one host measures that host's
 * device alone; work on several hosts, each the same amount, is a "together" run. In
 * per-device mode the devices are the in-band devices that worked: one alone, several a
 * together run (each given its host's counter / the number that worked there). */
typedef struct {
    const char *run;     /* the directory, as given */
    char *device;        /* the device's channel name(s), '+'-joined; together: ','-joined */
    int ndevices;        /* 1 alone, > 1 together */
    double x_units;      /* the counter's sum on the (each) device */
    double time_s;       /* the command's time */
    double energy_dyn_J; /* energy over the command less idle power x time, all its devices */
    double idle_W;       /* the devices' idle power (idle-before/after baseline), summed */
    /* per-device mode only (npart > 0): every in-band device of the working hosts, and the
     * wall beside them (NAN where the hosts have no wall channel) */
    mw_pareto_dev_part *part;
    int npart;
    double wall_dyn_J, wall_idle_W;     /* the hosts' wall channels */
    double inband_dyn_J, inband_idle_W; /* every part, worked or not */
    double rest_dyn_J, rest_idle_W;     /* wall - in-band: not assigned to any device */
} mw_pareto_run;

typedef struct {
    mw_pareto_run *run;
    int n;
    int per_device; /* the devices are in-band devices (mw pareto --per-device) */
} mw_pareto_runs;

/* Reads every directory; units is the counter's name. -1 with a one-line reason in err
 * (naming the directory) for the first unusable run. */
int mw_pareto_runs_read(char *const *dirs, int ndirs, const char *units, mw_pareto_runs *out,
                        char *err, size_t errlen);
/* The same with per_device 1: the devices from the in-band sources (pareto_device.c). */
int mw_pareto_runs_read_mode(char *const *dirs, int ndirs, const char *units, int per_device,
                             mw_pareto_runs *out, char *err, size_t errlen);
void mw_pareto_runs_free(mw_pareto_runs *r);

/* The profile text (*text malloc'd, NUL-terminated; the caller frees it): a comment line,
 * "static_power" (the sum over devices of each device's mean idle power), a "device" line
 * of X:T:E points per device (first appearance order) and a "together" line, each number
 * %.17g. -1 with a reason in err (*text NULL) when no run measures one device alone, when a
 * together run's devices are not exactly the devices measured alone, or when a device's
 * time does not increase with its size. */
int mw_pareto_runs_profile_text(const mw_pareto_runs *r, const char *units, char **text, char *err,
                                size_t errlen);
#endif
