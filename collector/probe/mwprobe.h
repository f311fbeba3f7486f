/* mwprobe — mark what a program is doing, for megawatt's power traces (docs/probe.md).
 *
 * Link with libmwprobe (`pkg-config --cflags --libs mwprobe`) and bracket the interesting
 * parts of the program with phases; `mw record -o RUNDIR -- ./prog` then puts them on the
 * run's time axis next to the measured power. Outside `mw record` (no MW_RUN_DIR in the
 * environment) every call returns at once: no thread, no file, a load and a branch per call.
 *
 * Every function is safe from any thread. Phases nest per thread: mw_phase_end(name) closes
 * the innermost open phase of the calling thread, which must have the same name text; an end
 * that does not match is counted (spill file D record) and otherwise ignored. A phase is
 * recorded when it ends; phases still open at exit are not recorded.
 *
 * Names: string literals are cheapest, but any NUL-terminated string works. The text is
 * copied (interned) the first time a thread sees it; later calls find the copy through a
 * small per-thread cache keyed by the pointer (verified against the text unless the pointer
 * lies in read-only memory), so a buffer may be reused for other names. A name is read only
 * during the call. NULL stands for "(null)". */
#ifndef MW_PROBE_H
#define MW_PROBE_H
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define MW_PROBE_API __attribute__((visibility("default")))
#else
#define MW_PROBE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Open a phase named name on the calling thread, at the current time. */
MW_PROBE_API void mw_phase_begin(const char *name);
/* Close the calling thread's innermost open phase, whose name must equal name. */
MW_PROBE_API void mw_phase_end(const char *name);
/* An instant: an event of zero duration at the current time. */
MW_PROBE_API void mw_mark(const char *name);
/* A value (bytes moved, iterations done, a residual scaled to an integer, ...) at the
 * current time. */
MW_PROBE_API void mw_counter(const char *name, int64_t value);

/* Used by MW_PHASE_SCOPE. */
static inline const char *mw_phase_scope_begin_(const char *name)
{
    mw_phase_begin(name);
    return name;
}
static inline void mw_phase_scope_end_(const char *const *name)
{
    mw_phase_end(*name);
}

#define MW_PROBE_CAT2_(a, b) a##b
#define MW_PROBE_CAT_(a, b) MW_PROBE_CAT2_(a, b)

/* MW_PHASE_SCOPE(name); — a phase from here to the end of the enclosing block (however the
 * block is left: return, break, goto). name is evaluated once and must keep its text until
 * the block ends. GCC and clang only (__attribute__((cleanup))). */
#if defined(__GNUC__) || defined(__clang__)
#define MW_PHASE_SCOPE(name)                                                                       \
    const char *const MW_PROBE_CAT_(mw_phase_scope_, __COUNTER__)                                  \
        __attribute__((cleanup(mw_phase_scope_end_), unused)) = mw_phase_scope_begin_(name)
#endif

#ifdef __cplusplus
}
#endif
#endif
