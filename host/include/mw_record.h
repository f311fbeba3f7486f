/* mw_record — recording one meter into a run store while a command runs: mw record without
 * its command line (collector/cmd_record.c parses the options, opens the meter and the run,
 * installs the signal handlers and says what happened).
 *
 * A session reads the meter with a short timeout (mw_meter_next), stores every window of
 * every channel (mw_store_sample_add), commits at least once per second
 * (mw_store_maybe_commit), and when the meter's port goes away notes the fact and reopens the
 * port every 200 ms (at once when libusb reports a meter arriving, mw_usb.h) while the
 * command goes on. Every turn of the loop (one mw_record_pump) ends with an mw_record_news
 * handed to the caller's hook: what happened, for it to report, and the moment to refresh a
 * status line.
 *
 * mw_record_run drives the stages: the meter's first window (at most 3 s), so that the
 * command lies inside measured time; the idle baseline before; the command; the window
 * holding its end (at most 2 s); the idle baseline after. Each stage is written as a phase of
 * kind "mw" so that analysis knows which windows are idle. The command is started with
 * posix_spawnp and watched with waitpid(WNOHANG) every 10 ms (SIGCHLD may go to another
 * thread); the caller's signal handlers ask, through two flags, for the idle baselines to
 * stop and for a signal to be passed on to the command.
 *
 * A meter lost for good (its port still gone when the last stage ends, no window for 3 s or
 * 4 of its periods before it, or never a window) gets a gap from its last window to the end,
 * "meter lost (disconnected)" or "meter lost (no window)", and the outcome says so: the run
 * does not silently cover less than it seems to.
 *
 * Host energy continuity: per channel energy_mj = base + the meter's counter; when the meter
 * restarts (new segment) base becomes the last energy seen, so the run's energy never jumps
 * back (what the meter measured during a gap is lost and the gap says so). Gaps are stored
 * with their reason: "disconnected", "meter reset (CAUSE)" (the cause from the meter's boot
 * line: power-on, reset line, brown-out, watchdog, JTAG, bootloader), "sequence gap (N
 * windows lost)", "meter time fell behind (S s)" (the meter's time stood still while the
 * host's went on, mw_meter.h: its counters went on, so the energy base stays).
 *
 * At the end (mw_record_finish) every segment's final clock fit (mw_meter_finish,
 * mw_meter_segment_knots), which is better than the live fit each window got on arrival, is
 * kept in the store (table clock_knots: readers map the windows' meter times through it,
 * no window is rewritten), and the run's closing metadata is written.
 *
 * Errors: 0 or -1 with the message in the caller's buffer, or, while recording, in the news;
 * a store failure does not stop the recording. Nothing is printed. */
#ifndef MW_RECORD_H
#define MW_RECORD_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mw_meter.h"
#include "mw_store.h"

typedef struct mw_record mw_record;

#define MW_RECORD_MAX_METERS 4

/* A session recording nchan current channels (1..15) of meter m, open on port_path, into st.
 * m and st stay the caller's and must outlive the session. watch_usb: start a libusb hotplug
 * watch for reconnecting at once (where there is none, the port is retried every 200 ms). */
mw_record *mw_record_new(mw_meter *m, mw_store *st, const char *port_path, int nchan,
                         int watch_usb);
void mw_record_free(mw_record *r); /* stops the USB watch; NULL is fine */

/* Several meters in one run (schema version 5, docs/run-store.md): this session's meter is
 * the run's meter `meter` (1..), named name (its USB serial, "sim-N"), and its current
 * channel k is stored as run-wide channel first_channel + k - 1 (default: meter 1, channel
 * 1). Its gaps are its meter's. */
void mw_record_set_meter(mw_record *r, int meter, int first_channel, const char *name);
/* Record other's meter too, in r's turns: every turn waits in one poll() for any meter's
 * port, then reads each; mw_record_run waits for every meter's first window and for the
 * window holding the command's end (of every meter still connected); mw_record_finish
 * keeps the final clock fits of and ends every meter, each by its own clock model and for
 * its own channels only; a meter lost for good is in the outcome by name. Both write into
 * one store (other was made with r's), committed once a turn after every meter is read.
 * other stays the caller's (freed after r's last use) and is driven only through r from now
 * on. At most MW_RECORD_MAX_METERS in all; returns 0, or -1 when full or for another store. */
int mw_record_add_meter(mw_record *r, mw_record *other);

typedef enum {
    MW_RECORD_FIRST_WINDOW, /* waiting for the meter's first window */
    MW_RECORD_IDLE_BEFORE,
    MW_RECORD_COMMAND, /* and the window holding its end */
    MW_RECORD_IDLE_AFTER,
} mw_record_stage;

/* What happened, in this order: during one turn (pumped), or at a step of mw_record_run. */
typedef struct {
    mw_record_stage stage;
    int pumped;           /* the meter was read: the end of a turn of the loop */
    int back;             /* the lost port was reopened ... */
    double away_s;        /* ... after being away this long */
    int write_failed;     /* a window, a gap, a phase or a metadata key was not stored:
                             write_err (the first) */
    int lost;             /* the port went away: reopened every 200 ms from now on */
    int commit_failed;    /* the commit failed, what was written since the last one is lost:
                             commit_err */
    int no_window;        /* no window came in the first 3 s; recording goes on */
    int spawn_errno;      /* the command could not be started (ENOENT: not found) */
    char write_err[1024]; /* the store's message */
    char commit_err[1024];
    const char *port;     /* the port of the meter that went away or came back (several
                             meters), else of r's meter */
} mw_record_news;

/* Read the meter for up to timeout_ms (while the port is gone: try to reopen it, and wait at
 * most 50 ms), store what came, commit when the last commit is 1 s old. Returns 0, or -1
 * when something was not stored (news->write_failed or news->commit_failed). */
int mw_record_pump(mw_record *r, int timeout_ms, mw_record_news *news);

/* CLOCK_REALTIME ns when the session was made: the run's start_ns. */
int64_t mw_record_start_ns(const mw_record *r);
/* The session so far. */
uint64_t mw_record_windows(const mw_record *r);         /* windows received */
int mw_record_connected(const mw_record *r);            /* 0 while the port is gone */
double mw_record_power_w(const mw_record *r, int k);    /* channel k's (1..nchan) last power */
int64_t mw_record_energy_mj(const mw_record *r, int k); /* and energy since the run began */

/* Metadata of the meter: meter_port, meter_usb (VID:PID and serial; "none", or "none
 * (simulated board)" when sim, off USB), meter_firmware, meter_build, meter_rate_hz,
 * meter_pins, meter_cal_source and, when the meter was calibrated, meter_calibration_date
 * and meter_calibration_ref. Every key is tried; returns 0, or -1 with the first failure. */
int mw_record_meter_meta(mw_store *st, mw_meter *m, const char *port_path, int sim, char *err,
                         size_t errlen);
/* The same for meter `meter` of a run of several: meter 1's keys are those above, meter N's
 * (N > 1) meterN_port, meterN_usb, meterN_firmware, ... */
int mw_record_meter_meta_as(mw_store *st, mw_meter *m, int meter, const char *port_path, int sim,
                            char *err, size_t errlen);

/* The command to record, and the caller's part. */
typedef struct {
    char *const *cmd;   /* the command, cmd[0] found on PATH */
    const char *rundir; /* the run: MW_RUN_DIR (made absolute), MW_TRACE_DB (its trace.db) */
    const char *host;   /* this host's name: MW_RECORD_HOST, the host of the stages' phases */
    int traffic;        /* MW_TRAFFIC_DIR = RUNDIR/traffic (absolute) too */
    const char *nice;   /* NULL, or run the command under "nice -n NICE" */
    double idle_s;      /* the idle baselines before and after the command, s (0: none) */
    /* set by the caller's signal handlers (may be NULL): a signal number that stops the
     * first-window wait and the idle baselines; one to pass on to the command (cleared) */
    volatile sig_atomic_t *interrupted, *forward;
    void *ctx;
    void (*news)(void *ctx, const mw_record_news *news); /* each news (may be NULL) */
    /* the command started as process pid with traffic_dir (NULL without traffic), or ended
     * (pid 0, traffic_dir NULL); may be NULL */
    void (*command)(void *ctx, pid_t pid, const char *traffic_dir);
} mw_record_command;

typedef struct {
    const char *status;    /* "complete", "command failed" (it ran and exited non-zero or was
                              killed), "interrupted", "failed: command not found",
                              "failed: command cannot start"; with ", meter lost at S s" added
                              when meter_lost (S since mw_record_start_ns) */
    int exit_code;         /* the command's exit status (128 + N: killed by signal N); 127 not
                              found, 126 cannot start, 128 + N interrupted before it started */
    int meter_lost;        /* the meter was lost for good: its port still gone at the end, or
                              no window for 3 s (or 4 periods) before it, or never a window */
    int64_t meter_lost_ns; /* ... from then on (CLOCK_REALTIME ns): its last window's end, or
                              the session's start */
    char status_buf[512];  /* where status is composed then */
} mw_record_outcome;

/* Run the stages. The command gets MW_RUN_DIR, MW_TRACE_DB, MW_RECORD_HOST (and
 * MW_TRAFFIC_DIR) in its environment: they are set in this process's (MW_TRAFFIC_DIR only
 * while the command starts), and when cmd[0] is Open MPI's launcher (mpirun, mpiexec or
 * orterun, and the run's meta "mpi" names Open MPI or OpenRTE) they are passed to every rank
 * with -x. Metadata: cmd_start_ns, cmd_end_ns, exit_status. Returns 0, or -1 when something
 * was not stored (said in a news). */
int mw_record_run(mw_record *r, const mw_record_command *c, mw_record_outcome *out);

/* The end of a recording: every segment's final clock fit written to clock_knots (schema 7:
 * readers map the rows' meter times through it; a segment without a fit keeps the live
 * fit's times), the gap of a meter lost for good (from its last window as mapped by that
 * fit), then the metadata clock_drift_ppm,
 * clock_uncertainty_ns (the worst of the segments' final fits), end_ns (now), status,
 * meter_bad_crc_lines, meter_lost_windows, meter_restarts and reconnects (with several
 * meters: the drift of the first meter, the largest uncertainty, the statistics summed;
 * every meter's fit kept and its lost gap written). Nothing is
 * committed. Every key is tried; returns 0, or -1 with the first failure in err. */
int mw_record_finish(mw_record *r, const char *status, char *err, size_t errlen);
#endif
