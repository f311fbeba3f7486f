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
 *   MW_PHASE_OTHER     any other kind a program recorded (counter, mark, ...) */
#ifndef MW_PHASE_CLASS_H
#define MW_PHASE_CLASS_H
#include <string.h>
#include <strings.h>

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
#endif
