/* mw_inband — in-band power beside the wall meter (docs/inband.md): the host's own energy
 * counters, read in a sampling thread while mw record runs and stored in the run beside the
 * meter's windows, on the same host CLOCK_REALTIME time axis.
 *
 * Sources:
 * - RAPL through the powercap sysfs: every directory ROOT/intel-rapl:N[:M] (and
 *   intel-rapl-mmio:N, amd-rapl:N) with a `name` (package-N, core, uncore, dram, psys) and
 *   an `energy_uj` counter that wraps at `max_energy_range_uj`. ROOT is
 *   /sys/class/powercap, or the environment's MW_POWERCAP_ROOT: the same code reads a tree
 *   shaped like /sys in a test directory. A domain whose energy_uj cannot be read (root-only
 *   on recent kernels) is left out with one note saying how to grant access.
 * - NVIDIA GPUs through NVML, loaded at run time (dlopen of libnvidia-ml.so.1, or of the
 *   environment's MW_NVML_LIBRARY): per GPU its total energy counter
 *   (nvmlDeviceGetTotalEnergyConsumption, mJ) where the GPU has one, else its power
 *   (nvmlDeviceGetPowerUsage, mW) integrated between samples. No library, no GPU: one note.
 *
 * Each source becomes one stream of windows [t0_ns, t1_ns) between consecutive reads: the
 * energy of the window (the counter's difference, exact across a wrap), its mean power, the
 * energy since the recording began. A read that fails leaves a gap (from the last good read
 * to the next), reported once per source; the window after it spans the gap and still holds
 * the counter's exact difference. A counter that goes backwards other than by a wrap (the
 * difference modulo the range is at least half the range) is flagged and not summed.
 *
 * The library prints nothing: what a user should hear comes back as notes (one line each). */
#ifndef MW_INBAND_H
#define MW_INBAND_H
#include <stddef.h>
#include <stdint.h>

#define MW_INBAND_NAME 96
#define MW_INBAND_MAX_SOURCES 64
#define MW_INBAND_MAX_HZ 100.0
#define MW_INBAND_DEFAULT_HZ 10.0

/* which sources to read (mw record --inband) */
#define MW_INBAND_RAPL 1u
#define MW_INBAND_NVML 2u

/* window flags */
#define MW_INBAND_FLAG_WRAP 1u      /* the counter wrapped inside this window */
#define MW_INBAND_FLAG_BACKWARDS 2u /* it went backwards (not a wrap): energy 0, not summed */
#define MW_INBAND_FLAG_AFTER_GAP 4u /* reads failed inside this window */
#define MW_INBAND_FLAG_SAMPLED 8u   /* power samples integrated, not an energy counter */

/* ---- the energy of a counter ---------------------------------------------------------- */

/* A cumulative counter's energy since its first reading. range_uj: the counter wraps to 0
 * on reaching it (0: unknown, any step back is "backwards"). */
typedef struct {
    uint64_t range_uj;
    int have;         /* a reading was taken */
    uint64_t last_uj; /* the last reading */
    int64_t total_uj; /* energy since the first reading */
} mw_inband_counter;

/* The next reading: *delta_uj the energy since the last one (0 for the first), returns its
 * flags (MW_INBAND_FLAG_WRAP, MW_INBAND_FLAG_BACKWARDS). */
unsigned mw_inband_counter_step(mw_inband_counter *c, uint64_t reading_uj, int64_t *delta_uj);

/* ---- sources --------------------------------------------------------------------------- */

typedef struct mw_inband_src mw_inband_src;

/* A source as stored (the run store's inband_channels row, docs/run-store.md). */
typedef struct {
    char name[MW_INBAND_NAME];   /* "rapl:package-0", "rapl:package-0/core", "nvml:gpu0" */
    const char *kind;            /* "rapl" or "nvml" */
    char domain[32];             /* package, core, uncore, dram, psys, gpu, or the name read */
    char device[MW_INBAND_NAME]; /* the powercap directory, or the GPU's name */
    uint64_t range_uj;           /* the counter's wrap (0: none) */
    int additive;                /* 1: counted in the node's in-band sum (package, dram,
                                    gpu); 0: a part of, or overlapping, another (core,
                                    uncore, psys) */
    int sampled;                 /* 1: power samples, not an energy counter (NVML) */
} mw_inband_info;

/* Notes: up to MW_INBAND_NOTES lines of what a user should hear. */
#define MW_INBAND_NOTES 16
typedef struct {
    char line[MW_INBAND_NOTES][320];
    int n;
} mw_inband_notes;
void mw_inband_note(mw_inband_notes *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Every RAPL domain under the powercap root (MW_POWERCAP_ROOT or /sys/class/powercap) into
 * src[*n..max), in the order of their directory names. No RAPL, an unreadable domain: a
 * note each. Returns how many were added. */
int mw_inband_rapl_find(mw_inband_src **src, int max, mw_inband_notes *notes);
/* Every NVIDIA GPU NVML sees. No library, no GPU: a note. Returns how many were added. */
int mw_inband_nvml_find(mw_inband_src **src, int max, mw_inband_notes *notes);

const mw_inband_info *mw_inband_src_info(const mw_inband_src *s);
/* Read the source's counter now: 0 with *energy_uj (cumulative, as the device counts it;
 * for a sampled source: *power_mw and energy_uj unset), or -1 with a reason in why. */
int mw_inband_src_read(mw_inband_src *s, uint64_t *energy_uj, int64_t *power_mw, char *why,
                       size_t whylen);
void mw_inband_src_free(mw_inband_src *s);

/* ---- the stream of windows of one source ----------------------------------------------- */

typedef struct {
    int source;
    uint32_t seq;
    int64_t t0_ns, t1_ns;
    int64_t power_mw;   /* mean power of the window */
    int64_t energy_uj;  /* energy since the recording began, end of the window */
    int64_t counter_uj; /* the device's counter at t1 (sampled: the power sample, mW) */
    uint32_t flags;
} mw_inband_window;

/* ---- the sampler of mw record ---------------------------------------------------------- */

typedef struct mw_inband_sampler mw_inband_sampler;

/* Parse "rapl,nvml", "rapl", "nvml" or "none" into MW_INBAND_* bits: 0, or -1. */
int mw_inband_parse(const char *list, unsigned *which);

/* Find the sources which names (MW_INBAND_RAPL | MW_INBAND_NVML), store them in the run
 * RUNDIR (as host, through a connection of its own: mw_store_open_write) and start
 * reading them hz times a second (1..100) in a thread; a second thread writes what was read
 * once a second, one short transaction each. notes gets what the user should hear (no
 * source, unreadable domains). NULL with err when the run cannot be written; a sampler
 * with no source when none was found: it does nothing and writes nothing (the caller may
 * keep the notes in the run). Metadata written with sources: inband (their names),
 * inband_hz, inband_notes, and at the stop inband_cpu_ns. */
mw_inband_sampler *mw_inband_start(const char *rundir, const char *host, unsigned which,
                                   double hz, mw_inband_notes *notes, char *err, size_t errlen);
/* The number of sources read. */
int mw_inband_sources(const mw_inband_sampler *s);
/* Stop: a last read of every source, the rest written and committed, the threads joined.
 * notes gets one line per source whose reads failed (how many, the first reason) and a
 * store failure. Returns 0, or -1 when something was not stored (said in notes). Frees s;
 * NULL is fine. cpu_ns (may be NULL): the CPU time of the sampling and writing threads. */
int mw_inband_stop(mw_inband_sampler *s, mw_inband_notes *notes, int64_t *cpu_ns);
/* The same, with the two threads' CPU times apart (either may be NULL): the sampling
 * thread's (reads) and the writing thread's (storing), ns. For the benchmark. */
int mw_inband_stop_split(mw_inband_sampler *s, mw_inband_notes *notes, int64_t *sample_cpu_ns,
                         int64_t *write_cpu_ns);
#endif
