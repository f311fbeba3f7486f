/* mw_simpty — the simulated board's UART0 as a pseudo-terminal, run in real time.
 *
 * A pty stands where the Mega's USB serial port (/dev/ttyACM0) would be: host tools and
 * avrdude open its slave side (/dev/pts/N, or a stable symlink to it) and talk to the board
 * at 115200 8N1 (the termios settings are cosmetic: bytes move at the board's UART rate).
 * mw_simpty_run() runs the board in slices of about 1 ms of true time, keeping it level with
 * CLOCK_MONOTONIC: it sleeps in poll() on the pty when the board is ahead and runs without
 * pause while it is behind (more than 250 ms behind, it lets the difference go rather than
 * race). Bytes from the host wait in a buffer until the board's receive queue takes them
 * (none are lost); bytes from the board wait until the pty takes them.
 *
 * Clients come and go. The module keeps one slave descriptor open itself, so the pty never
 * hangs up, and watches the slave with inotify to count clients: while none has the port
 * open the board's output is discarded (as the USB side of a real Mega does), stale output is
 * flushed when one opens it, and with reset-on-open the board is reset at that moment, like
 * the Mega's DTR auto-reset (avrdude relies on it to reach the bootloader).
 *
 * One thread runs mw_simpty_run(); mw_simpty_request_stop() may be called from any thread
 * or from a signal handler.
 */
#ifndef MW_SIMPTY_H
#define MW_SIMPTY_H
#include <stddef.h>
#include <stdint.h>

#include "mw_sim.h"

typedef struct mw_simpty mw_simpty;

typedef struct {
    uint64_t to_board;     /* bytes passed from the host to the board */
    uint64_t from_board;   /* bytes the board sent */
    uint64_t discarded;    /* board bytes dropped while no client had the port open */
    uint64_t dropped;      /* board bytes dropped because a client did not read them */
    uint64_t client_opens; /* times a client opened the port with none open before */
    uint64_t resets;       /* resets made by reset-on-open */
    uint64_t max_lag_ns;   /* largest lag of the board behind real time */
    uint64_t lag_slips;    /* times the board fell more than 250 ms behind */
    int clients_known;     /* 1 when inotify tells opens and closes apart */
} mw_simpty_stats;

/* Create a pty connected to the board's UART0 (it takes over mw_sim_set_uart_sink). link:
 * NULL, or a path where a symlink to the slave is made; an existing symlink there is
 * replaced, any other file is left alone and is an error. On error returns NULL with a
 * message in err. */
mw_simpty *mw_simpty_open(mw_sim *sim, const char *link, char *err, size_t errlen);
/* Remove the symlink (if it still points at this pty) and close the pty. */
void mw_simpty_close(mw_simpty *p);

/* The slave device, e.g. "/dev/pts/3", and the symlink (NULL when none). */
const char *mw_simpty_path(const mw_simpty *p);
const char *mw_simpty_link(const mw_simpty *p);

/* Reset the board (mw_simboot_reset) whenever a client opens the port with no other client
 * having it open. Off by default. */
void mw_simpty_set_reset_on_open(mw_simpty *p, int on);

/* Also hand every byte the board sends to fn (called in the thread running the board). */
void mw_simpty_set_tap(mw_simpty *p, void (*fn)(void *ctx, uint8_t byte), void *ctx);

/* Run the board paced to real time until mw_simpty_request_stop() or, when duration_ns is
 * not 0, until the board's true time has advanced by duration_ns. Returns 0, or -1 if the
 * firmware crashed or stopped. */
int mw_simpty_run(mw_simpty *p, uint64_t duration_ns);

/* Make mw_simpty_run() return soon. Async-signal-safe and thread-safe. */
void mw_simpty_request_stop(mw_simpty *p);

/* Counters; read them when mw_simpty_run() is not running. */
void mw_simpty_get_stats(const mw_simpty *p, mw_simpty_stats *st);
#endif
