/* align_run — a run's channel windows and busy spans for the alignment check (align.h), for
 * mw align.
 *
 * The busy phases are selected by a kind, or by a kind or a name: phases that are spans
 * (end > start), on one host (or any), of kind `what` but not a program's own waiting phases
 * (mw_phase_class.h: mwb-pattern's "idle"), or, selecting by name too, named `what`. Each
 * process's (rank, pid) selected phases are merged into their union (mw_align_merge) so that
 * nested or per-thread phases count once; the unions come in rank, then pid order. Times
 * become seconds since an origin (the run's start). Or, selecting the computation, each
 * process's computation by mw_phase_class.h's rule from all its phases on the host (for a
 * program with only MPI phases: its time between MPI calls). mw_align_selects() is the rule, numbers
 * in; the readers stream the run store through its read API (mw_run.h) and return 0, or -1
 * with mw_store_error(s) set. Out of memory aborts (mw_alloc.h). */
#ifndef MW_ALIGN_RUN_H
#define MW_ALIGN_RUN_H
#include <stddef.h>
#include <stdint.h>

#include "align.h"
#include "mw_store.h"

#define MW_ALIGN_MAX_CHANNELS 64

typedef struct {
    int channel;
    char name[128];
    char host[128]; /* "" when none */
} mw_align_channel;

typedef struct {
    const char *host; /* NULL: any host */
    const char *what; /* the kind, or the kind or name */
    int by_name;      /* 1: kind or name `what`; 0: kind `what`, waiting phases left out */
    int computation;  /* 1: instead, each process's computation by the one rule
                         (mw_phase_class.h: its time outside MPI and waits, inferred where
                         the program marked none), from all its phases; `what` unused */
} mw_align_selector;

/* 1 when the phase is one of the selected busy phases, else 0. */
int mw_align_selects(const mw_align_selector *sel, const mw_store_phase *p);

/* The first MW_ALIGN_MAX_CHANNELS channels, in channel order, into list; *n of them. */
int mw_align_run_channels(mw_store *s, mw_align_channel *list, int *n);
/* How many phases the selector selects. */
int mw_align_run_count(mw_store *s, const mw_align_selector *sel, int64_t *count);
/* The channel's windows in the order recorded (segment, seq), s since origin_ns, W:
 * *w malloc'd (NULL when none), *n. */
int mw_align_run_windows(mw_store *s, int channel, int64_t origin_ns, mw_align_window **w,
                         size_t *n);
/* The selected phases, each process's merged into their union, s since origin_ns: *sp
 * malloc'd (NULL when none), *n spans of *processes processes. */
int mw_align_run_spans(mw_store *s, const mw_align_selector *sel, int64_t origin_ns,
                       mw_align_span **sp, size_t *n, size_t *processes);
#endif
