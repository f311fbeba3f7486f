/* megawatt.h — the public, stable C API for reading megawatt runs (libmegawatt, docs/api.md).
 *
 * Installed as <megawatt/megawatt.h>; build with `cc prog.c $(pkg-config --cflags --libs
 * megawatt)`. It reads what `mw record` wrote (RUNDIR/trace.db, store schema versions 1 to 6)
 * without SQL: open a run read-only, walk its channels, its windows (the meter's power
 * readings) and its phases (what the measured program did) with cursors, one typed row at a
 * time, in constant memory. It never writes the run and may read one that is still being
 * recorded (a cursor then reads what was committed when it started).
 *
 * This is a thin layer over libmw's internal read API (mw_run.h), with its own structures:
 * their layout and the functions below are the library's ABI (soname libmegawatt.so.1);
 * a change to either comes with a new soname. Every name starts with megawatt_ / MEGAWATT_.
 *
 * Units are in the names: *_ns host CLOCK_REALTIME nanoseconds (since 1970, UTC), power_mw
 * milliwatts, energy_mj millijoules, *_mv millivolts, *_ua microamperes, pf_milli
 * thousandths. Errors: functions returning a pointer give NULL, those returning int give -1,
 * and megawatt_error() says why in one line naming the file. next functions give 1 (a row
 * in *out), 0 (the end) or -1. Strings in a row live until the next call on the same cursor.
 *
 * Threads: a run and its cursors belong to one thread at a time; different runs (even of the
 * same directory) may be used by different threads at once. Out of memory aborts. */
#ifndef MEGAWATT_H
#define MEGAWATT_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MEGAWATT_API __attribute__((visibility("default")))
#else
#define MEGAWATT_API
#endif

/* The interface this header declares; raised with every soname change. */
#define MEGAWATT_API_VERSION 1

typedef struct megawatt_run megawatt_run;       /* one open run */
typedef struct megawatt_cursor megawatt_cursor; /* one walk over a run's rows */

/* The library's version, e.g. "0.1.0" (the megawatt release it came with). */
MEGAWATT_API const char *megawatt_version(void);

/* Open the run in directory rundir read-only. NULL on error, with one line in err (err may
 * be NULL; errlen 0 writes nothing): "RUNDIR/trace.db: ...". A file that is not a megawatt
 * run store, or is of a newer store version than this library reads, is refused. */
MEGAWATT_API megawatt_run *megawatt_open(const char *rundir, char *err, size_t errlen);
/* Close the run; close its cursors first. NULL is fine. */
MEGAWATT_API void megawatt_close(megawatt_run *r);
/* The last error on r or on one of its cursors, one line; "" when there was none. */
MEGAWATT_API const char *megawatt_error(const megawatt_run *r);
/* The run's time origin (the recording's start) in *start_ns: 0, or -1 when the run has none
 * (nothing was recorded). */
MEGAWATT_API int megawatt_start_ns(megawatt_run *r, int64_t *start_ns);

/* ---- channels, in channel order ------------------------------------------------------ */
typedef struct {
    int channel;      /* 1..: the run-wide channel number windows carry */
    const char *name; /* e.g. "node0", "switch"; never NULL */
    const char *host; /* the host the channel measures; NULL when none (a switch) */
} megawatt_channel;
MEGAWATT_API megawatt_cursor *megawatt_channels(megawatt_run *r);
MEGAWATT_API int megawatt_channel_next(megawatt_cursor *c, megawatt_channel *out);

/* ---- windows: one reading of one channel over [t0_ns, t1_ns) ------------------------- */
/* flags of a window (the meter's own, docs/protocol.md) */
#define MEGAWATT_WINDOW_OVERRUN 0x01u     /* conversions missed or windows dropped */
#define MEGAWATT_WINDOW_CLIP 0x02u        /* the ADC reached its limit on some channel */
#define MEGAWATT_WINDOW_NO_VOLTAGE 0x04u  /* no mains voltage: power meaningless */
#define MEGAWATT_WINDOW_CAL_DEFAULT 0x08u /* the meter ran on default calibration */
#define MEGAWATT_WINDOW_FIRST 0x10u       /* first window after the meter (re)started */
typedef struct {
    int channel;
    int64_t t0_ns, t1_ns;   /* the window on the host clock; t1_ns > t0_ns */
    int64_t uncertainty_ns; /* of t0_ns and t1_ns (the clock model's) */
    int32_t power_mw;       /* mean real power over the window; negative: power exported */
    int32_t vrms_mv;        /* rms voltage */
    int32_t irms_ua;        /* rms current */
    int32_t pf_milli;       /* power factor */
    int64_t energy_mj;      /* the channel's energy since the run started, at t1_ns */
    uint32_t flags;         /* MEGAWATT_WINDOW_* (other bits: ignore them) */
} megawatt_window;
/* The windows of one channel (channel < 0: of every channel), by t1_ns then t0_ns. A
 * channel's windows follow one another; a span without any is a gap in the recording (meter
 * disconnected or reset). The energy of a window is power_mw * (t1_ns - t0_ns) (mW * ns =
 * pJ); their sum over a channel is the energy measured on it. */
MEGAWATT_API megawatt_cursor *megawatt_windows(megawatt_run *r, int channel);
MEGAWATT_API int megawatt_window_next(megawatt_cursor *c, megawatt_window *out);

/* ---- phases: what the measured program did, from start_ns to end_ns ------------------ */
typedef struct {
    const char *kind; /* never NULL: "user" (marked by the program, mwprobe.h), "compute",
                         "comm", "wait" (MPI), "omp", "gpu", "mark" (an instant), "counter",
                         "mw" (the recorder's own: "idle-before", "command", "idle-after") */
    const char *name; /* e.g. "solve", "MPI_Allreduce"; never NULL */
    const char *host; /* "" when not recorded */
    int rank;         /* MPI rank; -1 when none */
    int thread;       /* thread within the rank; 0 the main one */
    int64_t start_ns, end_ns; /* end_ns == start_ns: an instant (a marker, a counter) */
    int64_t bytes;            /* bytes moved (MPI, CUDA copies) or a counter's value; else 0 */
} megawatt_phase;
/* The phases of kind `kind` (NULL: every kind), by start_ns, then in the order they were
 * recorded. */
MEGAWATT_API megawatt_cursor *megawatt_phases(megawatt_run *r, const char *kind);
MEGAWATT_API int megawatt_phase_next(megawatt_cursor *c, megawatt_phase *out);

/* Close a cursor (NULL is fine). */
MEGAWATT_API void megawatt_cursor_close(megawatt_cursor *c);

#ifdef __cplusplus
}
#endif
#endif
