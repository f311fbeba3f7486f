/* mw_phase_class — the one rule of what a phase is, by its kind and name, for every reader:
 * mw analyze's working phases (work_s, the phase split), mw plot's lanes and colours,
 * mw dvfs's computation against communication and slack, mw align's busy shape.
 *
 *   MW_PHASE_RECORDER  kind mw: the recorder's own stages (idle-before, command, ...)
 *   MW_PHASE_WAIT      kind wait, and a program's own waiting phase: kind user whose name
 *                      starts with "idle" or "wait" (ASCII case-insensitive: mwb-pattern's
 *                      "idle", eeg-mofs's "wait global")
 *   MW_PHASE_WORK      kinds compute, user, omp: the CPU works
 *   MW_PHASE_GPU       kinds gpu, cuda: a device works (also working)
 *   MW_PHASE_COMM      kinds comm, mpi: MPI calls
 *   MW_PHASE_OTHER     any other kind a program recorded (counter, mark, ...)
 *
 * A rank's computation (mw_phase_computation, models/phase_class.c) is the one rule of how
 * much of its time a rank computes, used by mw analyze (work_s, work energy, the phase
 * split), mw dvfs (T_cp), mw align (the busy shape when the program marked none), mw plot
 * and mw report: its time outside MPI and outside waits. Its window runs from its first
 * phase's start (the end of MPI_Init when it called it) to its last phase's end (the start
 * of MPI_Finalize); computation = (the window, and any working phase outside it) less the
 * union of its communication and waiting phases. The part no working phase of the program
 * covers is *inferred*: a program with only PMPI phases (an unmodified binary under
 * LD_PRELOAD) has all of its computation inferred, its time between MPI calls. */
#ifndef MW_PHASE_CLASS_H
#define MW_PHASE_CLASS_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "energy.h"

typedef enum {
    MW_PHASE_WORK,
    MW_PHASE_COMM,
    MW_PHASE_WAIT,
    MW_PHASE_GPU,
    MW_PHASE_OTHER,
    MW_PHASE_RECORDER,
} mw_phase_class;

/* a program's own waiting phase: kind user named idle... or wait... */
static inline int mw_phase_user_waiting(const char *kind, const char *name)
{
    return kind && name && !strcmp(kind, "user") &&
           (!strncasecmp(name, "idle", 4) || !strncasecmp(name, "wait", 4));
}

static inline mw_phase_class mw_phase_classify(const char *kind, const char *name)
{
    if (!kind) return MW_PHASE_OTHER;
    if (!strcmp(kind, "mw")) return MW_PHASE_RECORDER;
    if (!strcmp(kind, "wait") || mw_phase_user_waiting(kind, name)) return MW_PHASE_WAIT;
    if (!strcmp(kind, "compute") || !strcmp(kind, "user") || !strcmp(kind, "omp"))
        return MW_PHASE_WORK;
    if (!strcmp(kind, "comm") || !strcmp(kind, "mpi")) return MW_PHASE_COMM;
    if (!strcmp(kind, "gpu") || !strcmp(kind, "cuda")) return MW_PHASE_GPU;
    return MW_PHASE_OTHER;
}

/* working: the CPU or a device computes (mw analyze's work_s and phase split) */
static inline int mw_phase_working(const char *kind, const char *name)
{
    mw_phase_class c = mw_phase_classify(kind, name);
    return c == MW_PHASE_WORK || c == MW_PHASE_GPU;
}

/* communication or waiting: not computing (mw dvfs's T_cm) */
static inline int mw_phase_not_computing(const char *kind, const char *name)
{
    mw_phase_class c = mw_phase_classify(kind, name);
    return c == MW_PHASE_COMM || c == MW_PHASE_WAIT;
}

/* ---- a rank's computation (models/phase_class.c) ------------------------------------- */

#define MW_PHASE_MPI_INIT 1u     /* MPI_Init, MPI_Init_thread */
#define MW_PHASE_MPI_FINALIZE 2u /* MPI_Finalize */

/* One phase of one rank (any of its threads), as the rule reads it. */
typedef struct {
    int64_t start_ns, end_ns;
    mw_phase_class cls; /* mw_phase_classify */
    unsigned edge;      /* MW_PHASE_MPI_INIT, MW_PHASE_MPI_FINALIZE or 0: mw_phase_mpi_edge */
} mw_phase_span;

static inline unsigned mw_phase_mpi_edge(const char *name)
{
    if (!name) return 0;
    if (!strcmp(name, "MPI_Init") || !strcmp(name, "MPI_Init_thread")) return MW_PHASE_MPI_INIT;
    return !strcmp(name, "MPI_Finalize") ? MW_PHASE_MPI_FINALIZE : 0;
}

static inline mw_phase_span mw_phase_span_of(const char *kind, const char *name, int64_t start_ns,
                                             int64_t end_ns)
{
    return (mw_phase_span){start_ns, end_ns, mw_phase_classify(kind, name), mw_phase_mpi_edge(name)};
}

typedef struct {
    int64_t window_start_ns, window_end_ns; /* the rank's window (end <= start: none) */
    int64_t work_ns;                        /* computation, all of it */
    int64_t marked_ns;   /* the part covered by working phases the program recorded */
    int64_t inferred_ns; /* work_ns - marked_ns: time outside MPI and waits, unmarked */
    int64_t window_work_ns; /* computation within the window (mw dvfs's T_cp) */
    int64_t window_not_ns;  /* communication and waiting within the window (T_cm) */
} mw_phase_computation;

/* The rank's computation from its phases ph[0..n) (the recorder's kind mw, marks and
 * counters left out by the caller; any order): the sorted disjoint spans, malloc'd into
 * *spans (NULL when none; out of memory aborts), their count returned, and the figures in
 * *c (may be NULL). */
size_t mw_phase_computation_spans(const mw_phase_span *ph, size_t n, mw_energy_span **spans,
                                  mw_phase_computation *c);
/* Only its inferred part: the computation less the working phases the program recorded
 * (sorted, disjoint, malloc'd into *spans, NULL when none); the count. */
size_t mw_phase_inferred_spans(const mw_phase_span *ph, size_t n, mw_energy_span **spans);
#endif
