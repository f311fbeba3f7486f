/* mw_lines — the one way megawatt reads a file a user names (the channels file, a pareto
 * profile, a vmeter load profile, a simulated cluster's configuration, an Intel HEX image,
 * an imported CSV): whole, into memory, within bounds, every failure an error.
 *
 * Bounds. Each kind of file has a largest size (mw_lines_limits.max_bytes) and a longest
 * line (max_line_bytes); a file over either is refused with a message naming the limit, never
 * read until memory runs out (/dev/zero, an endless line). A regular file is refused on its
 * size before a byte is read. A pipe, FIFO, terminal or device is read without blocking, with
 * poll(2), and must reach its end within timeout_ms of the open, else it is refused ("no end
 * of file within 10 s"): a FIFO nobody writes, or a terminal, never hangs the command. A
 * directory is refused.
 *
 * Links. The path is followed like any path the user types (a dotfile manager's link to a
 * channels file works); a link loop (ELOOP), a missing or unreadable file is an error with
 * errno kept, so a caller can treat "no such file" as "not configured" and everything else
 * as an error.
 *
 * Lines. mw_lines_next hands out one line at a time, NUL-terminated in place, without its
 * "\n" or "\r\n" (the last line may lack one). A NUL byte inside a line is an error (such a
 * file is not text, and C strings would silently cut the line there).
 *
 * Messages: "PATH: reason" for the file, "PATH:LINE: reason" for a line (mw_err.h). */
#ifndef MW_LINES_H
#define MW_LINES_H
#include <stddef.h>
#include <stdio.h>

typedef struct {
    size_t max_bytes;      /* the whole file */
    size_t max_line_bytes; /* one line, without its end; 0: no limit but max_bytes */
    int timeout_ms;        /* a pipe, FIFO, terminal or device: the whole read */
} mw_lines_limits;

/* The time a pipe, FIFO or device has to reach its end, for every kind of file. */
#define MW_LINES_TIMEOUT_MS 10000

/* Small configuration files (the channels file, a simulated cluster's configuration):
 * 1 MiB, lines of 4096 bytes. */
extern const mw_lines_limits mw_lines_config;

/* Reads the file at path whole into *text (malloc'd, NUL-terminated after *len bytes; the
 * text may hold NULs), within lim (max_line_bytes is not checked here). Returns 0, or -1 with
 * errno set (ENOENT, EACCES, ELOOP, EISDIR, EFBIG over max_bytes, ETIMEDOUT, ENOMEM, EIO...)
 * and "PATH: reason" in err. */
int mw_lines_read_file(const char *path, const mw_lines_limits *lim, char **text, size_t *len,
                       char *err, size_t errlen);

/* The same from an open stream (a test's fmemopen, a file the caller opened): read to its
 * end or to max_bytes + 1 bytes, no timeout (the caller chose the stream). name is for
 * messages. */
int mw_lines_read_stream(FILE *in, const char *name, const mw_lines_limits *lim, char **text,
                         size_t *len, char *err, size_t errlen);

typedef struct {
    char *text;     /* owned when opened with mw_lines_open */
    char *p, *end;  /* the rest of the text */
    char *name;     /* for messages (a copy) */
    long line;      /* of the line last returned, 1-based */
    size_t max_line_bytes;
} mw_lines;

/* mw_lines_read_file into r, for mw_lines_next. 0, or -1 (errno, err as above); r needs
 * mw_lines_close either way. */
int mw_lines_open(mw_lines *r, const char *path, const mw_lines_limits *lim, char *err,
                  size_t errlen);

/* Lines of text[0..len) (the caller's, modified in place: each line end becomes a NUL, so
 * text[len] must be writable, e.g. the NUL mw_lines_read_* put there; it stays the
 * caller's), named name in messages. */
void mw_lines_init(mw_lines *r, const char *name, char *text, size_t len, size_t max_line_bytes);

/* The next line into *line (and its length into *len, may be NULL). Returns 1; 0 at the end
 * of the text; -1 with "NAME:LINE: reason" in err (a line over max_line_bytes, a NUL byte). */
int mw_lines_next(mw_lines *r, char **line, size_t *len, char *err, size_t errlen);

void mw_lines_close(mw_lines *r);
#endif
