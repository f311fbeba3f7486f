/* probe_internal — what the automatic instrumentation (PMPI wrappers, the OMPT tool, the
 * CUDA helpers) uses of the probe core (probe.c); not installed.
 *
 * Times are the local host's CLOCK_REALTIME in ns (mw_probe_now_ns); the merge step
 * (mw merge) maps them onto the recorder host's clock with the offsets recorded by
 * mw_probe_clock_sample. Every function is a no-op costing a load and a branch when the
 * probe is inert (no MW_RUN_DIR in the environment). */
#ifndef MW_PROBE_INTERNAL_H
#define MW_PROBE_INTERNAL_H
#include <stdint.h>

/* kinds of events (the run store's phases.kind text in parentheses) */
typedef enum {
    MW_PROBE_USER = 0,    /* ("user") marked by the program: mw_phase_begin/end */
    MW_PROBE_COMPUTE = 1, /* ("compute") */
    MW_PROBE_COMM = 2,    /* ("comm") an MPI call moving data */
    MW_PROBE_WAIT = 3,    /* ("wait") an MPI call that only waits: Barrier, Wait, ... */
    MW_PROBE_OMP = 4,     /* ("omp") OpenMP parallel region or implicit task */
    MW_PROBE_GPU = 5,     /* ("gpu") a CUDA kernel or copy, device time mapped to host */
    MW_PROBE_MARK = 6,    /* ("mark") an instant: t0 == t1 */
    MW_PROBE_COUNTER = 7, /* ("counter") a value at an instant, in bytes field */
} mw_probe_kind;

/* 1 when the probe records (MW_RUN_DIR set and the spill file open). */
int mw_probe_active(void);
int64_t mw_probe_now_ns(void);

/* One complete event of the calling thread. name must stay valid for the life of the
 * process (a string literal) unless interned with mw_probe_intern. peer: MPI peer or root
 * rank, -1 when none. bytes: data moved, or a counter's value. */
void mw_probe_event(mw_probe_kind kind, const char *name, int64_t t0_ns, int64_t t1_ns,
                    int64_t bytes, int peer);
/* A copy of a transient name that stays valid (same pointer for the same text). */
const char *mw_probe_intern(const char *name);

/* Adds bytes sent by this process to its live traffic counter (probe_traffic.c; only when
 * MW_TRAFFIC_DIR is set). */
void mw_probe_traffic_add(int64_t bytes);

/* MPI rank and size of this process, once known (MPI_Init). */
void mw_probe_set_rank(int rank, int size);
/* A clock sample: at local time local_ns, the reference clock (the recorder host's) was
 * local + offset_ns, within +-uncertainty_ns. */
void mw_probe_clock_sample(int64_t local_ns, int64_t offset_ns, int64_t uncertainty_ns);
/* Write every thread's buffered events to the spill file now (blocks; for MPI_Finalize). */
void mw_probe_flush(void);
/* The spill file of this process ("" when inert). */
const char *mw_probe_spill_path(void);
#endif
