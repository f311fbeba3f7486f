/* mw_port — the serial transport to a meter: open a port by path at 115200 8N1, read with a
 * timeout, write, and find meters among the USB serial ports by VID:PID.
 *
 * Ports are opened with libserialport (/dev/ttyACM*, /dev/ttyUSB*). libserialport 0.1.1
 * only knows devices listed in /sys/class/tty and refuses pseudo-terminals, so a path it
 * does not know but that is a terminal (the simulated board's pty, or a symlink to it) is
 * opened with termios instead: same settings, same reads and writes, no USB identity. An
 * open port is locked with flock(LOCK_EX) so that two megawatt programs never share a
 * meter; a port already locked is reported busy.
 *
 * Errors are classified (mw_port_err) so that callers can tell "no such port", "permission
 * denied", "busy" and "not a serial port" apart; messages name the port. */
#ifndef MW_PORT_H
#define MW_PORT_H
#include <stddef.h>
#include <stdint.h>

typedef struct mw_port mw_port;

typedef enum {
    MW_PORT_OK = 0,
    MW_PORT_NOT_FOUND,  /* no such file */
    MW_PORT_DENIED,     /* permission denied (add the user to group dialout) */
    MW_PORT_BUSY,       /* another program holds it */
    MW_PORT_NOT_SERIAL, /* exists, but is not a terminal */
    MW_PORT_IO,         /* any other failure */
} mw_port_err;

/* USB identity of a port; vid < 0 when the port is not on USB (a pty, a built-in UART). */
typedef struct {
    char path[4096];
    int vid, pid;
    char serial[128];       /* USB serial number, "" when unknown */
    char manufacturer[128]; /* "" when unknown */
    char product[128];      /* "" when unknown */
    int bus, address;       /* -1 when unknown */
    const char *kind;       /* "Arduino Mega 2560", "CH340 serial (Mega clone)", ... or NULL
                               when the VID:PID is not one a meter uses */
} mw_port_info;

/* Open path at 115200 8N1, no flow control, and lock it. On failure returns NULL, sets
 * *why (may be NULL) and writes "PATH: reason" into err. */
mw_port *mw_port_open(const char *path, mw_port_err *why, char *err, size_t errlen);
void mw_port_close(mw_port *p);
const char *mw_port_path(const mw_port *p);
/* The descriptor to poll() for input. */
int mw_port_fd(const mw_port *p);
/* Line mode on (1) or off (0, as opened): with it on, the kernel's terminal layer holds
 * input until a '\n' has come and poll() and each read then give one whole line, its bytes
 * unchanged (canonical input with every special character disabled; a line over 4095
 * bytes is cut to 4095 and its '\n', bytes without a '\n' are never seen). A meter sends
 * CR LF lines, so a reader wakes once a line, when its last byte has come (issue 22).
 * Returns 0, or -1 (the mode is then as it was). Not for binary protocols (mw flash). */
int mw_port_set_lines(mw_port *p, int on);
/* 1 when line mode is on. */
int mw_port_lines(const mw_port *p);
/* USB identity of the open port (libserialport; vid = -1 for a pty). */
void mw_port_get_info(const mw_port *p, mw_port_info *info);

/* Read what is there, waiting up to timeout_ms (0 = do not wait) for the first byte.
 * Returns bytes read (> 0), 0 when nothing came, -1 when the port is gone (unplugged,
 * hung up) or failed. */
int mw_port_read(mw_port *p, void *buf, size_t n, int timeout_ms);
/* The same, also returning early, with 0 and *woken = 1, when wake_fd (-1: none) becomes
 * readable or a signal interrupts the wait (bytes already there are read first). In line
 * mode a call that does not wait (timeout_ms 0) is one read(), without a poll() and without
 * looking at wake_fd: for a caller whose own poll() said the port has something. */
int mw_port_read_wake(mw_port *p, void *buf, size_t n, int timeout_ms, int wake_fd, int *woken);
/* Write all of buf within timeout_ms. Returns 0, or -1. */
int mw_port_write(mw_port *p, const void *buf, size_t n, int timeout_ms);
/* Discard bytes received but not yet read. */
void mw_port_flush_input(mw_port *p);

/* Every serial port the system lists, meters (known VID:PID) first. Returns the count and
 * a malloc'd array in *out (free with free()), or -1 when ports cannot be listed. */
int mw_port_list(mw_port_info **out);
/* The VID:PID is one a meter uses: returns its description, or NULL. */
const char *mw_port_meter_kind(int vid, int pid);
/* The one meter on USB: 0 with its path, or -1 with a message (none, or several: listed). */
int mw_port_find_meter(char *path, size_t pathlen, char *err, size_t errlen);
#endif
