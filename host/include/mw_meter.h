/* mw_meter — a session with one meter: its port, the decoded lines, sequence gaps and meter
 * resets, commands and their replies, and the clock model that stamps every window in host
 * time.
 *
 * Bytes from the port are stamped with CLOCK_MONOTONIC as they are read, split into
 * CRC-checked lines (mw_proto: garbage and bit flips are dropped, decoding resumes at the
 * next valid line) and turned into events, queued in arrival order. Windows are checked
 * against the previous one: a FIRST flag, or a sequence number or meter time that goes
 * backwards, starts a new segment (the meter restarted its time: reset, RATE, CH, LOAD,
 * DEFAULTS, a reconnect) and re-anchors the clock model; a sequence number that skips
 * counts lost windows. Every window gets [t0_ns, t1_ns] in CLOCK_REALTIME ns from the clock
 * model's live fit (mw_clock.h), with its uncertainty.
 *
 * Late windows. A window whose line arrives more than 1 s after the live fit's time is
 * held back (it and every event after it) until it is clear which of two things happened.
 * Either the host read late (the recorder stalled: a busy machine, kill -STOP) and the lines
 * waited in the port's buffers: they come in a burst, the next line is on time again, and
 * the held windows are stamped by the fit as usual (their meter time is right). Or the
 * meter's time fell behind the host's (it stood still: a simulated board stopped with the
 * recorder's process, a board halted): the lines keep coming at the meter's pace, each as
 * late as the last. Held windows spanning 1 s of meter time that arrived at least half
 * that pace start a new segment (restart, stepped_ns = how late) with a fresh clock, so
 * they are stamped when they happened, not seconds early; the caller records the missing
 * time as a gap. Held events are released as late-read ones after 2 s without a decision,
 * when the port is lost or replaced, and at mw_meter_finish.
 *
 * A session can also be fed bytes without a port (mw_meter_new + mw_meter_feed): tests and
 * benchmarks decode recorded or simulated streams exactly as the recorder does. */
#ifndef MW_METER_H
#define MW_METER_H
#include <stddef.h>
#include <stdint.h>

#include "mw_clock.h"
#include "mw_port.h"
#include "mw_proto.h"

typedef struct mw_meter mw_meter;

typedef enum {
    MW_METER_WINDOW = 1, /* a W line: w, segment, restart, lost, t0_ns/t1_ns */
    MW_METER_BOOT,       /* a B line: the meter (re)booted; mcusr, config_status */
    MW_METER_IDENT,      /* an I line (also kept: mw_meter_ident) */
    MW_METER_LINE,       /* any other valid line (OK, E, C, ...) */
} mw_meter_event_type;

typedef struct {
    mw_meter_event_type type;
    char body[MW_PROTO_MAX_LINE + 1]; /* the line without "*XXXX\r\n" */
    size_t line_bytes;                /* bytes on the wire, "*XXXX\r\n" included */
    int64_t arrival_mono_ns;          /* CLOCK_MONOTONIC when its last byte was read */
    /* MW_METER_WINDOW */
    mw_proto_window w;
    int segment;            /* meter-time segment since the session began, from 0 */
    int restart;            /* 1 for the first window of a segment */
    uint32_t lost;          /* windows missing just before this one (sequence gap) */
    int64_t stepped_ns;     /* > 0: the first window of a segment begun because the meter's
                               time fell this far behind the host's (see above) */
    int64_t t0_ns, t1_ns;   /* the window in CLOCK_REALTIME ns (live clock fit) */
    int64_t uncertainty_ns; /* the clock model's uncertainty at this window */
    /* MW_METER_BOOT */
    uint32_t mcusr;
    int config_status;
} mw_meter_event;

typedef struct {
    uint64_t bytes, lines, windows, bad_crc, bad_lines, dropped_bytes, lost_windows, restarts,
        queue_overflows, time_steps;
    uint64_t predicted_reads; /* reads that brought bytes after a predicted quiet time
                                 (mw_meter_quiet_until_ns) */
    uint64_t late_reads;      /* of those, the ones that found a window line already complete:
                                 stamped late, and lines read as they come again */
} mw_meter_stats;

/* Open the meter on path and wait up to ident_ms for it to identify itself (opening resets
 * an Arduino Mega; "ID" is sent if no identification arrived after 2 s, again every
 * 1.5 s). On failure returns NULL, sets *why (MW_PORT_IO when the port opened but no
 * megawatt meter answered) and writes a message naming the port into err. */
mw_meter *mw_meter_open(const char *path, int ident_ms, mw_port_err *why, char *err, size_t errlen);
/* A session without a port, fed with mw_meter_feed. */
mw_meter *mw_meter_new(void);
void mw_meter_close(mw_meter *m);

/* Decode bytes that arrived at arrival_mono_ns (CLOCK_MONOTONIC). */
void mw_meter_feed(mw_meter *m, const void *buf, size_t n, int64_t arrival_mono_ns);

/* Next event, reading the port for up to timeout_ms. Returns 1 (event in *ev), 0 when
 * nothing came (also early: a signal, or the wake descriptor readable), -1 when the port is
 * gone (queued events are still returned first). */
int mw_meter_next(mw_meter *m, mw_meter_event *ev, int timeout_ms);
/* A descriptor (a child's pidfd; -1: none) whose readability ends mw_meter_next's wait, so
 * that a caller waits for the meter and for that at once, without polling. Not closed here;
 * unset it before closing it, and once it stays readable. */
void mw_meter_set_wake_fd(mw_meter *m, int fd);
/* Predicted reads (docs/performance.md): CLOCK_MONOTONIC ns until which no window line can
 * have ended on the port — the next window's end on the live fit, plus its line hold, the
 * transport's latency and the shortest recent line's bytes at the UART's rate, less a margin
 * of 1 ms and the fit's uncertainty — or 0 when the port must be read as bytes come: no
 * settled fit (20 pairs, uncertainty under 5 ms), or within 8 window lines
 * after a sequence gap, a reset or time step, a held late window, bad bytes, a reconnect, or
 * a line found complete at the first read after such a quiet time (counted in late_reads).
 * While a line has begun, the time its rest takes at the UART's rate (less 2 ms) is also
 * quiet, without a prediction. A predicted answer marks the next read that brings bytes as
 * the first one after it; until then the caller may leave the port out of its poll().
 * mw_meter_next does this itself, waiting on the wake descriptor alone. Always 0 while the
 * port is in line mode (mw_port_set_lines, which mw_meter_open and mw_meter_set_port turn
 * on): the kernel then wakes the reader once a line by itself. */
int64_t mw_meter_quiet_until_ns(mw_meter *m);

/* The next queued event without reading the port: after mw_meter_finish, the held windows
 * it released. Returns 1 (event in *ev) or 0. */
int mw_meter_queued(mw_meter *m, mw_meter_event *ev);

/* Send "cmd\r\n" and wait up to timeout_ms for the reply: the first line starting with
 * expect (e.g. "OK,RATE", "C,", "I,") or "E,". Events arriving meanwhile stay queued for
 * mw_meter_next. Returns 0 and the reply body in reply, 1 for an "E,..." reply (in reply),
 * -1 on timeout or a lost port (message in reply). */
int mw_meter_command(mw_meter *m, const char *cmd, const char *expect, char *reply, size_t replylen,
                     int timeout_ms);

/* The last identification, or NULL before one arrived. */
const mw_proto_ident *mw_meter_ident(const mw_meter *m);
/* The port (NULL when detached or fed). */
mw_port *mw_meter_port(mw_meter *m);
/* Replace the port after a reconnect (the old one is closed; NULL detaches). The next
 * window is checked against the last one as usual, so a meter that was reset by the
 * reopen starts a new segment. */
void mw_meter_set_port(mw_meter *m, mw_port *p);
mw_clock *mw_meter_clock(mw_meter *m);
void mw_meter_get_stats(const mw_meter *m, mw_meter_stats *st);

/* Final fits (held windows are released first). When a segment ends (the meter restarted its time)
 * the clock model is refit over all of the segment's pairs and that line is kept; mw_meter_finish()
 * does the same for the current segment at the end of a recording. mw_meter_map_segment maps meter
 * time of segment seg to CLOCK_REALTIME ns with that final line (the current segment: its current
 * fit) and gives its uncertainty. Returns 0, or -1 for an unknown segment. */
void mw_meter_finish(mw_meter *m);
int mw_meter_map_segment(const mw_meter *m, int seg, uint64_t meter_us, int64_t *t_ns,
                         int64_t *uncertainty_ns);
/* Segment seg's mapping as mw_meter_map_segment applies it, as points (mw_clock_knots, the
 * meter's real-time origin added): returns their number (call with cap 0 to size), 0 when
 * the segment has no clock kept. */
int mw_meter_segment_knots(const mw_meter *m, int seg, mw_clock_knot *out, int cap);
#endif
