/* mw_store — the run store: one SQLite database per run, RUNDIR/trace.db (docs/run-store.md).
 *
 * A writer (mw record) creates the run directory and the database, in WAL mode, and adds
 * rows inside a transaction that mw_store_maybe_commit() ends at least once per second, so
 * a recorder killed at any moment leaves a database that opens, passes integrity_check and
 * holds every sample committed before. Readers (export, ls, show, analyze) open it
 * read-only and may run while it is being written. The schema version is PRAGMA
 * user_version and meta key "schema_version".
 *
 * Units are in the names: *_ns host CLOCK_REALTIME nanoseconds, *_us meter time, power_mw,
 * vrms_mv, irms_ua, pf_milli, energy_mj. Returns: 0 success, -1 failure with a message
 * from mw_store_error(). */
#ifndef MW_STORE_H
#define MW_STORE_H
#include <stddef.h>
#include <stdint.h>

#include "mw_clock.h"
#include "mw_inband.h"

#define MW_STORE_SCHEMA_VERSION 7
#define MW_STORE_DB_NAME "trace.db"

typedef struct mw_store mw_store;

/* Make RUNDIR (and missing parents) and RUNDIR/trace.db with the schema. An existing RUNDIR
 * is refused unless force; with force, an old trace.db (and its -wal/-shm) is removed first
 * and other files are left alone. trace.db is made with O_CREAT|O_EXCL|O_NOFOLLOW. On error
 * returns NULL, err names the path, and nothing half-made stays: what it made (trace.db and
 * SQLite's files beside it, then the directories it made, if empty) is removed by name,
 * no link followed. */
mw_store *mw_store_create(const char *rundir, int force, char *err, size_t errlen);
/* Close a store just made by mw_store_create and remove what that made, as a failed create
 * would (for a caller whose own next step failed). NULL is fine. */
void mw_store_discard(mw_store *s);
/* Open an existing run read-only (any schema version 1 up to ours; a newer one is refused).
 * Works while a writer has the run open (WAL). On error returns NULL, err names the path.
 * A file that is bad input is refused with errno EINVAL: not a megawatt run store ("PATH:
 * not a megawatt run store: ...": schema version 0, or sqlite_schema holding anything but
 * the store's tables and indexes, a trigger, a view, another table or index, checked before
 * any statement runs), not a database at all, corrupt, unreadable (permissions), or of a
 * newer schema version; every other failure (I/O, memory, a lock held too long) leaves
 * errno EIO. The mw command exits 2 for the first kind and 1 for the second (docs/cli.md).
 * Connections are opened defensively (SQLITE_DBCONFIG_DEFENSIVE, trusted_schema=OFF). */
mw_store *mw_store_open(const char *rundir, char *err, size_t errlen);
/* Open an existing run for writing too, as a second writer beside the recorder (the
 * instrumentation adding phases): its writes wait up to 5 s (busy timeout) for the other
 * writer's transaction, which mw_store_maybe_commit() ends within a second. The schema
 * version must be exactly ours. */
mw_store *mw_store_open_write(const char *rundir, char *err, size_t errlen);
/* 1 when RUNDIR/trace.db exists (a run directory), else 0. */
int mw_store_exists(const char *rundir);
/* Commit what is pending and close. NULL is fine. */
void mw_store_close(mw_store *s);
const char *mw_store_error(const mw_store *s);
/* 1 when the store's last error (mw_store_error) was the file's fault, not the system's:
 * not a database, corrupt, or a value out of its column's range read by mw_run.h (a power
 * that does not fit in int32_t). The mw command exits 2 for those, 1 otherwise. */
int mw_store_bad_input(const mw_store *s);
/* mw_store_error(s) into the caller's err (mw_err.h); returns -1. */
int mw_store_error_to(const mw_store *s, char *err, size_t errlen);
/* RUNDIR/trace.db */
const char *mw_store_path(const mw_store *s);
/* The run's time origin: meta start_ns, or else the t0_ns of the first sample recorded
 * (lowest segment, seq). -1 when the run has neither. */
int mw_store_start_ns(mw_store *s, int64_t *start_ns);

/* Run metadata, key/value text (keys in docs/run-store.md); set replaces. get returns 0 and
 * copies the value, or -1 when the key is absent. */
int mw_store_meta_set(mw_store *s, const char *key, const char *value);
int mw_store_meta_get(mw_store *s, const char *key, char *buf, size_t buflen);

/* A meter of the run (schema version 5): meter numbered from 1, name its USB serial (the
 * simulated board: "sim-N"), unique in the run; host the host it hangs off and port its
 * serial port (either may be NULL); clock_offset_ns = that host's clock minus the recording
 * host's (positive: the meter's host is ahead; the samples' t_ns are already on the
 * recording host's axis), within +-clock_uncertainty_ns. Adding a meter number again
 * replaces its row. */
int mw_store_meter_add(mw_store *s, int meter, const char *name, const char *host,
                       const char *port, int64_t clock_offset_ns, int64_t clock_uncertainty_ns);

/* A measured channel: channel is the run-wide channel number (1..N, what samples, gaps'
 * readers, plots and models are keyed by), name such as "node0" or "switch", host = the host
 * name of the machine it measures (may be NULL), pin = the ADC pin, e.g. "A1"; meter the
 * meter (mw_store_meter_add) and meter_channel its current channel on that meter, 1..15 (as
 * in W lines). */
int mw_store_channel_add_meter(mw_store *s, int channel, const char *name, const char *host,
                               const char *pin, int meter, int meter_channel);
/* The one-meter form: meter 1 (made, named "meter", when the run has none yet) and
 * meter_channel = channel. */
int mw_store_channel_add(mw_store *s, int channel, const char *name, const char *host,
                         const char *pin);

/* One window of one channel. */
typedef struct {
    int channel;
    int segment;          /* increments on every meter-time restart (reset, reconnect) */
    uint32_t seq;         /* window number within the segment (W line) */
    uint64_t meter_t0_us; /* window in meter time */
    uint64_t meter_t1_us;
    int64_t t0_ns, t1_ns;   /* window in host CLOCK_REALTIME ns (clock model) */
    int64_t uncertainty_ns; /* clock model's alignment uncertainty */
    int32_t power_mw;       /* real power, negative = export */
    int32_t vrms_mv;
    int32_t irms_ua;
    int32_t pf_milli;
    int64_t meter_energy_mj; /* the meter's counter (restarts with the meter) */
    int64_t energy_mj;       /* energy since the run started, continuous across resets */
    uint32_t flags;          /* MW_FLAG_* of the window */
} mw_store_sample;
int mw_store_sample_add(mw_store *s, const mw_store_sample *x);

/* A span with no samples: reason e.g. "disconnected", "sequence gap", "meter reset"; of the
 * whole run (every meter). */
int mw_store_gap_add(mw_store *s, int64_t start_ns, int64_t end_ns, const char *reason);
/* The same for one meter's channels only (meter >= 1; 0 = every meter, as mw_store_gap_add). */
int mw_store_gap_add_meter(mw_store *s, int64_t start_ns, int64_t end_ns, const char *reason,
                           int meter);

/* A program phase (written by the instrumentation). host, kind, name may not be NULL. */
typedef struct {
    int rank; /* MPI rank, -1 when none */
    const char *host;
    int thread;       /* thread number within the rank (OpenMP), 0 for the main thread */
    const char *kind; /* "user", "mpi", "omp", "cuda", ... */
    const char *name;
    int64_t start_ns, end_ns;
    int64_t bytes; /* bytes moved (MPI/CUDA copies), 0 when none */
    int64_t pid;   /* process id on its host, 0 when unknown */
    int peer;      /* MPI peer or root rank, -1 when none */
} mw_store_phase;
int mw_store_phase_add(mw_store *s, const mw_store_phase *p);

/* Remove what a merge of the instrumentation wrote: every phase but the recorder's own
 * (kind "mw") and every clock sample, so that a merge can be redone. */
int mw_store_probe_clear(mw_store *s);

/* A clock sample of one process (the instrumentation's sync, docs/probe.md): at its local
 * CLOCK_REALTIME local_ns, the recorder host's clock read local_ns + offset_ns, within
 * +-uncertainty_ns. */
int mw_store_clock_sync_add(mw_store *s, int rank, const char *host, int64_t pid, int64_t local_ns,
                            int64_t offset_ns, int64_t uncertainty_ns);

/* Schema 7: a segment's final clock mapping (mw_meter_segment_knots), kept in table
 * clock_knots instead of rewriting its windows' times: readers (the read API, the view
 * samples) map each window's meter times through it, and give the window uncertainty_ns.
 * meter is the windows' meter number; 0: every meter whose windows this writer stored.
 * n >= 1 points sorted by x_us. */
int mw_store_knots_add(mw_store *s, int meter, int segment, const mw_clock_knot *k, int n,
                       int64_t uncertainty_ns);

/* Every write joins the open transaction (the first write after a commit begins one).
 * mw_store_maybe_commit() commits it if the last commit is 1 s old or more
 * (CLOCK_MONOTONIC); call it after every batch of writes. mw_store_commit() commits now.
 * What is committed survives the writer being killed (SIGKILL) at any moment. The first
 * write of a transaction waits up to 5 s (busy timeout) for another writer's transaction
 * to end; a failed commit leaves the transaction open for the next call. */
int mw_store_maybe_commit(mw_store *s);
int mw_store_commit(mw_store *s);
/* Change the 1 s of mw_store_maybe_commit() (tests; 0 = commit on every call). */
void mw_store_set_commit_interval_ns(mw_store *s, int64_t interval_ns);
/* When mw_store_maybe_commit() will commit (CLOCK_MONOTONIC ns), INT64_MAX when nothing is
 * waiting: a writer that sleeps between batches wakes then, so that what it wrote is
 * committed within the interval without waking more often. */
int64_t mw_store_commit_due_ns(const mw_store *s);

/* Bookkeeping of a run recorded on one machine playing several (the simulated cluster,
 * mw_simcluster.h): the program's events are given the host they played. */
/* The distinct MPI ranks (>= 0) of the run's phases, in ascending order, into a malloc'd
 * array (*ranks NULL when there are none; free it). */
int mw_store_phase_ranks(mw_store *s, int **ranks, size_t *nranks);
/* host becomes the host of every phase of process pid but the recorder's own (kind "mw"). */
int mw_store_phases_set_host_of_pid(mw_store *s, int64_t pid, const char *host);
/* host becomes the host of every phase of MPI rank `rank` but the recorder's own (kind "mw")
 * and of its clock samples. Both updates are tried; the first failure is reported. */
int mw_store_set_host_of_rank(mw_store *s, int rank, const char *host);

/* In-band sources (mw_inband.h, schema version 4): a source of host, numbered by the store
 * (*source); windows w[0..n) (any sources); a span a source could not be read. */
int mw_store_inband_channel_add(mw_store *s, const char *host, const mw_inband_info *info,
                                int *source);
int mw_store_inband_windows_add(mw_store *s, const mw_inband_window *w, size_t n);
int mw_store_inband_gap_add(mw_store *s, int source, int64_t start_ns, int64_t end_ns,
                            const char *reason);
#endif
