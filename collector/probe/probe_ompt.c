/* probe_ompt — the OpenMP part of libmwprobe: an OMPT tool (OpenMP 5.0 tools interface).
 *
 * An OpenMP runtime that implements OMPT (LLVM's libomp: clang -fopenmp) calls
 * ompt_start_tool at its initialisation if any object loaded into the process defines it:
 * the program linked with -lmwprobe, libmwprobe.so in LD_PRELOAD, or named in the
 * OMP_TOOL_LIBRARIES environment variable. When the probe is inert (no MW_RUN_DIR),
 * ompt_start_tool returns NULL and the runtime does not even initialise the tool, so an
 * instrumented program costs nothing more. Otherwise the tool registers two callbacks:
 *
 * - parallel_begin stores the region's start time (mw_probe_now_ns) in the region's own
 *   parallel_data word, parallel_end emits one MW_PROBE_OMP event on the encountering
 *   thread. Its name says where the region is: "omp parallel @MODULE+0xOFFSET", MODULE the
 *   basename of the executable or library holding codeptr_ra (the return address of the
 *   runtime call that opened the region) and OFFSET the distance of codeptr_ra - 1 (inside
 *   that call instruction) from the module's load address; `addr2line -e MODULE 0xOFFSET`
 *   names the line of the #pragma for PIE executables (the Debian default) and shared
 *   libraries. ("omp teams" for a league of teams; plain "omp parallel" when the runtime
 *   gives no address.) Names are interned once per code address and cached per thread, so
 *   a region costs two clock reads and one event.
 * - with MW_PROBE_OMP_TASKS=1 in the environment also implicit_task and sync_region: "omp
 *   implicit task" events on every thread of every team, one per stretch of the thread's
 *   work in the region: from the start of its implicit task, or from its leaving a barrier
 *   inside the region, to its arrival at the next barrier (barrier waits left out, so load
 *   imbalance shows). A region without barriers inside gives one event per thread, ending
 *   when the thread reaches the region's closing barrier. The initial task is left out.
 *   The closing barrier is where a worker's work ends because libomp reports the end of a
 *   worker's implicit task only when the worker is released for the next region (or at
 *   exit, too late for the spill file): the task's data word holds the start time while
 *   the thread works and MW_OMPT_AT_BARRIER once it reached a barrier, so a late end emits
 *   nothing. (libomp copies the word into the data it passes with the late end; the copy is
 *   made after the barrier arrival, so it also reads MW_OMPT_AT_BARRIER.) Only a task that
 *   met no barrier (a serialised region of one thread) is emitted at its end.
 *
 * GCC's libgomp has no OMPT: nothing here runs there; the manual API is the fallback.
 *
 * The OMPT types come from omp-tools.h when the compiler has it (clang), else from the
 * subset of the OpenMP 5.0 specification's definitions below (gcc has no omp-tools.h);
 * the ABI of these types and values is fixed by the specification. ompt_start_tool is the
 * one unprefixed public name here: the specification fixes it. */
#include <dlfcn.h>
#include <errno.h> /* program_invocation_short_name */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "probe_internal.h"

#if defined(__has_include)
#if __has_include(<omp-tools.h>)
#include <omp-tools.h>
#define MW_OMPT_HAVE_HEADER 1
#endif
#endif

#ifndef MW_OMPT_HAVE_HEADER
/* The OpenMP 5.0 definitions this tool uses (omp-tools.h, section 4.4 of the spec). */
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *interface_function_name);
typedef union ompt_data_t {
    uint64_t value;
    void *ptr;
} ompt_data_t;
typedef struct ompt_frame_t ompt_frame_t; /* only pointed to */
typedef void (*ompt_callback_t)(void);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup, int initial_device_num,
                                 ompt_data_t *tool_data);
typedef struct ompt_start_tool_result_t {
    ompt_initialize_t initialize;
    ompt_finalize_t finalize;
    ompt_data_t tool_data;
} ompt_start_tool_result_t;
typedef enum ompt_callbacks_t {
    ompt_callback_parallel_begin = 3,
    ompt_callback_parallel_end = 4,
    ompt_callback_implicit_task = 7,
    ompt_callback_sync_region = 23,
} ompt_callbacks_t;
typedef enum ompt_sync_region_t { ompt_sync_region_barrier_explicit = 3 } ompt_sync_region_t;
typedef enum ompt_set_result_t {
    ompt_set_error = 0,
    ompt_set_never = 1,
    ompt_set_impossible = 2,
    ompt_set_sometimes = 3,
    ompt_set_sometimes_paired = 4,
    ompt_set_always = 5
} ompt_set_result_t;
typedef ompt_set_result_t (*ompt_set_callback_t)(ompt_callbacks_t event, ompt_callback_t callback);
typedef enum ompt_scope_endpoint_t {
    ompt_scope_begin = 1,
    ompt_scope_end = 2,
    ompt_scope_beginend = 3
} ompt_scope_endpoint_t;
typedef enum ompt_task_flag_t { ompt_task_initial = 0x00000001 } ompt_task_flag_t;
typedef enum ompt_parallel_flag_t { ompt_parallel_league = 0x40000000 } ompt_parallel_flag_t;
#endif

/* Per-thread cache of region names by code address: direct-mapped, MW_OMPT_CACHE_SLOTS. */
#define MW_OMPT_CACHE_SLOTS 32
typedef struct {
    const void *codeptr;
    int league;
    const char *name;
} mw_ompt_name_slot;
static _Thread_local mw_ompt_name_slot mw_ompt_names[MW_OMPT_CACHE_SLOTS];

/* "omp parallel @MODULE+0xOFFSET" for the code address, interned (stays valid). */
static const char *mw_ompt_region_name(const void *codeptr, int league)
{
    const char *what = league ? "omp teams" : "omp parallel";
    if (!codeptr) return what;
    size_t slot = ((uintptr_t)codeptr >> 2) % MW_OMPT_CACHE_SLOTS;
    mw_ompt_name_slot *s = &mw_ompt_names[slot];
    if (s->codeptr == codeptr && s->league == league && s->name) return s->name;

    char buf[320];
    Dl_info info;
    const char *call = (const char *)codeptr - 1; /* inside the call instruction */
    if (dladdr(call, &info) && info.dli_fname && info.dli_fbase) {
        const char *base = strrchr(info.dli_fname, '/');
        base = base ? base + 1 : info.dli_fname;
        if (!*base) base = program_invocation_short_name; /* the main program, unnamed */
        snprintf(buf, sizeof buf, "%s @%.200s+0x%llx", what, base,
                 (unsigned long long)((uintptr_t)call - (uintptr_t)info.dli_fbase));
    } else {
        snprintf(buf, sizeof buf, "%s @0x%llx", what, (unsigned long long)(uintptr_t)call);
    }
    const char *name = mw_probe_intern(buf);
    if (!name) return what;
    s->codeptr = codeptr;
    s->league = league;
    s->name = name;
    return name;
}

static void mw_ompt_parallel_begin(ompt_data_t *encountering_task_data,
                                   const ompt_frame_t *encountering_task_frame,
                                   ompt_data_t *parallel_data, unsigned int requested_parallelism,
                                   int flags, const void *codeptr_ra)
{
    if (parallel_data) parallel_data->value = (uint64_t)mw_probe_now_ns();
}

static void mw_ompt_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data,
                                 int flags, const void *codeptr_ra)
{
    int64_t t1_ns = mw_probe_now_ns();
    if (!parallel_data || !parallel_data->value) return;
    int64_t t0_ns = (int64_t)parallel_data->value;
    parallel_data->value = 0;
    int league = (flags & ompt_parallel_league) != 0;
    mw_probe_event(MW_PROBE_OMP, mw_ompt_region_name(codeptr_ra, league), t0_ns, t1_ns, 0, -1);
}

/* ompt_sync_region_t values that are barriers (OpenMP 5.1 numbering; 1 and 2 are the 5.0
 * names libomp 14 still reports, deprecated in 5.1), and the closing barrier of a parallel
 * region when the runtime says so (5.1). */
enum {
    MW_OMPT_SYNC_BARRIER = 1,
    MW_OMPT_SYNC_BARRIER_IMPLICIT = 2,
    MW_OMPT_SYNC_BARRIER_EXPLICIT = 3,
    MW_OMPT_SYNC_BARRIER_IMPLEMENTATION = 4,
    MW_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
    MW_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
    MW_OMPT_SYNC_BARRIER_TEAMS = 10,
};
/* An implicit task's data word: 0, the start of the current stretch of work (a positive
 * time), or this: the thread is at a barrier (its last stretch was emitted). */
#define MW_OMPT_AT_BARRIER ((uint64_t)1 << 63)

static int mw_ompt_is_barrier(int kind)
{
    switch (kind) {
    case MW_OMPT_SYNC_BARRIER:
    case MW_OMPT_SYNC_BARRIER_IMPLICIT:
    case MW_OMPT_SYNC_BARRIER_EXPLICIT:
    case MW_OMPT_SYNC_BARRIER_IMPLEMENTATION:
    case MW_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE:
    case MW_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL:
    case MW_OMPT_SYNC_BARRIER_TEAMS:
        return 1;
    default:
        return 0;
    }
}

/* Emits the stretch of work that started at the time in the task's word, if one did. */
static void mw_ompt_work_done(ompt_data_t *task_data, int64_t t1_ns)
{
    uint64_t v = task_data->value;
    if (v && !(v & MW_OMPT_AT_BARRIER))
        mw_probe_event(MW_PROBE_OMP, "omp implicit task", (int64_t)v, t1_ns, 0, -1);
}

static void mw_ompt_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                  ompt_data_t *task_data, unsigned int actual_parallelism,
                                  unsigned int index, int flags)
{
    if ((flags & ompt_task_initial) || !task_data) return;
    if (endpoint == ompt_scope_begin) {
        task_data->value = (uint64_t)mw_probe_now_ns();
    } else if (endpoint == ompt_scope_end) {
        mw_ompt_work_done(task_data, mw_probe_now_ns());
        task_data->value = 0;
    }
}

static void mw_ompt_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task_data,
                                const void *codeptr_ra)
{
    if (!task_data || !mw_ompt_is_barrier((int)kind)) return;
    if (endpoint == ompt_scope_begin) {
        if (!task_data->value) return; /* not a task of ours (the initial task) */
        mw_ompt_work_done(task_data, mw_probe_now_ns());
        task_data->value = MW_OMPT_AT_BARRIER;
    } else if (endpoint == ompt_scope_end && task_data->value == MW_OMPT_AT_BARRIER &&
               parallel_data && (int)kind != MW_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL) {
        /* a barrier inside the region: work goes on. (The closing barrier's end comes with
         * no parallel data from libomp 14, and late for workers.) */
        task_data->value = (uint64_t)mw_probe_now_ns();
    }
}

/* 1 when MW_PROBE_OMP_TASKS asks for implicit tasks ("1", "yes", "true", "on"). */
static int mw_ompt_tasks_wanted(void)
{
    const char *v = getenv("MW_PROBE_OMP_TASKS");
    if (!v) return 0;
    return !strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
           !strcasecmp(v, "on");
}

static int mw_ompt_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                              ompt_data_t *tool_data)
{
    ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set_callback) return 0;
    /* the specification wants the callbacks passed as ompt_callback_t */
    if (set_callback(ompt_callback_parallel_begin, (ompt_callback_t)mw_ompt_parallel_begin) !=
            ompt_set_always ||
        set_callback(ompt_callback_parallel_end, (ompt_callback_t)mw_ompt_parallel_end) !=
            ompt_set_always)
        return 0; /* 0: the runtime drops the tool */
    if (mw_ompt_tasks_wanted()) {
        set_callback(ompt_callback_implicit_task, (ompt_callback_t)mw_ompt_implicit_task);
        set_callback(ompt_callback_sync_region, (ompt_callback_t)mw_ompt_sync_region);
    }
    return 1;
}

static void mw_ompt_finalize(ompt_data_t *tool_data) {}

/* The OpenMP runtime looks this name up (OpenMP 5.0, 4.2.1); omp-tools.h does not declare it. */
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

__attribute__((visibility("default"))) ompt_start_tool_result_t *
ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    static ompt_start_tool_result_t result = {mw_ompt_initialize, mw_ompt_finalize, {0}};
    if (!mw_probe_active()) return NULL;
    return &result;
}
