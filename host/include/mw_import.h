/* mw_import — power traces from other meters (or from mw export) made into runs, so that
 * every reader of runs works on them (docs/analysis.md, "Importing traces"). The command is
 * "mw import --format csv FILE -o RUNDIR [--force]" (collector/cmd_import.c); the fuzz target
 * tests/fuzz/fuzz_import.c feeds mw_import_check arbitrary files.
 *
 * A file is read and checked whole before anything is written: a CSV tokenizer (RFC 4180
 * quotes, '#' comment lines, blank lines, CRLF, a UTF-8 byte-order mark) yields records with
 * the line they start on; the header names the columns (time_s | time_ns, channel, power_w;
 * optional start_s | start_ns, energy_j, vrms_v, irms_a, pf, flags, uncertainty_ms; others
 * are ignored), the rows are parsed field by field into the store's integer units with exact
 * decimal arithmetic (power_w "12.345" is 12,345 mW, time_s to the ns), and each channel's
 * rows must go forward in time. Windows without a start column begin where the channel's
 * previous window ended, the first one a median spacing (of the channel's end-to-end
 * spacings) before its end; a spacing over 1.5 x the median is a hole: that window gets the
 * median length and the hole becomes a gap row (one row per span, shared by the channels
 * that have it). At most 64 channels, names of 1..127 bytes. A file is at most
 * MW_IMPORT_MAX_BYTES (1 GiB; a FIFO or pipe must end within 10 s: mw_lines.h); a NUL byte
 * in a field is an error ("FILE:LINE:COLUMN: a NUL byte in the field"), never its end.
 *
 * The run is written with the mw_store API into a temporary directory next to RUNDIR,
 * closed (the WAL is checkpointed away), and renamed to RUNDIR — or, with force onto an
 * existing RUNDIR, only its trace.db is replaced — so a failure never leaves a half-made run.
 * Channels are numbered 1, 2, ... in order of first appearance, all windows are in segment 0
 * with seq = the window's index in its channel. Times: time_ns and time_s from 1e9 s on are
 * Unix time, and the run starts at its first window; smaller time_s count from an origin put
 * at the Unix epoch, which is the run's start_ns, so that mw export writes the file's times
 * back.
 *
 * Errors: 0 or a pointer on success; -1 or NULL with a one-line message in the caller's err
 * buffer, for a bad file "FILE:LINE:COLUMN: what is wrong" (":COLUMN" when one field is to
 * blame), for a run that cannot be written e.g. "RUNDIR: cannot create: reason". */
#ifndef MW_IMPORT_H
#define MW_IMPORT_H
#include <stddef.h>
#include <stdint.h>

#define MW_IMPORT_MAX_BYTES (1u << 30)

typedef struct mw_import mw_import; /* a checked file, every window with its start and end */

/* The formats mw import reads (docs/cli.md, "Importing traces", says where each is
 * documented): megawatt's CSV; PowerSensor3's dump file (host/import_powersensor3.c),
 * Grid'5000 Kwollect's JSON (host/import_kwollect.c), pmlib's CSV (host/import_pmlib.c). */
typedef enum {
    MW_IMPORT_CSV,
    MW_IMPORT_POWERSENSOR3,
    MW_IMPORT_KWOLLECT,
    MW_IMPORT_PMLIB,
} mw_import_format;

/* The format called name ("csv", "powersensor3", "kwollect", "pmlib"): 0 with *fmt, or -1. */
int mw_import_format_from_name(const char *name, mw_import_format *fmt);
/* The names, for messages: "csv, powersensor3, kwollect, pmlib". */
const char *mw_import_format_names(void);

/* mw_import_parse and mw_import_read for a file of format fmt. */
mw_import *mw_import_parse_as(mw_import_format fmt, const char *file, const char *text,
                              size_t len, char *err, size_t errlen);
mw_import *mw_import_read_as(mw_import_format fmt, const char *file, char *err, size_t errlen);

/* Parse and check CSV text (len bytes, the contents of file, which names it in messages).
 * Returns the trace, or NULL with "FILE:LINE[:COLUMN]: what is wrong" in err. */
mw_import *mw_import_parse(const char *file, const char *text, size_t len, char *err,
                           size_t errlen);
/* The same for the contents of file; a file that cannot be read gives "FILE: reason". */
mw_import *mw_import_read(const char *file, char *err, size_t errlen);
void mw_import_free(mw_import *im); /* NULL is fine */

/* Calls each(ctx, channel, t0_ns, t1_ns) for every window: channels 0, 1, ... in order of
 * first appearance, each channel's windows in order. */
void mw_import_each_window(const mw_import *im,
                           void (*each)(void *ctx, int channel, int64_t t0_ns, int64_t t1_ns),
                           void *ctx);

/* mw_import_parse, then mw_import_each_window (each may be NULL), then mw_import_free:
 * exactly what mw import checks before it writes anything. Returns 0 when the file would
 * import, or -1 with the message in err. */
int mw_import_check(const char *file, const char *text, size_t len,
                    void (*each)(void *ctx, int channel, int64_t t0_ns, int64_t t1_ns), void *ctx,
                    char *err, size_t errlen);

typedef struct {
    int64_t windows; /* of all channels */
    int channels;
    size_t gaps; /* gap rows written, one per span */
} mw_import_summary;

/* Write im as the run RUNDIR (and its missing parents). An existing RUNDIR is refused unless
 * force, which replaces its trace.db (and -wal, -shm, -journal) and leaves other files alone.
 * Returns 0 with *sum (may be NULL), or -1 with the message in err and nothing left behind
 * (no temporary directory, RUNDIR as it was). */
int mw_import_write(const mw_import *im, const char *rundir, int force, mw_import_summary *sum,
                    char *err, size_t errlen);
#endif
