/* import_internal — what the importers of libmw share (host/import.c and one
 * host/import_<format>.c per foreign format): the parsed trace (channels of windows, gaps,
 * phases), the one error formatter, the exact decimal parser, and the channel, row and
 * phase builders. A format's reader fills a trace with rows (window ends, and starts where
 * the format knows them), phases and channel hosts; import.c then gives every window its
 * start (make_windows), and writes the run. Not installed. */
#ifndef MW_IMPORT_INTERNAL_H
#define MW_IMPORT_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "mw_import.h"

#define MW_IMP_MAX_CHANNELS 64 /* what mw ls / mw show keep per run */
#define MW_IMP_MAX_NAME 127    /* bytes of a channel or phase name */

enum {
    MW_IMP_COL_TIME,
    MW_IMP_COL_START,
    MW_IMP_COL_CHANNEL,
    MW_IMP_COL_POWER,
    MW_IMP_COL_ENERGY,
    MW_IMP_COL_VRMS,
    MW_IMP_COL_IRMS,
    MW_IMP_COL_PF,
    MW_IMP_COL_FLAGS,
    MW_IMP_COL_UNC,
    MW_IMP_NCOLS
};

typedef struct {
    int64_t t0_ns, t1_ns; /* t0_ns: INT64_MIN until known */
    int64_t energy_mj;    /* INT64_MIN: not given */
    int64_t uncertainty_ns;
    int32_t power_mw, vrms_mv, irms_ua, pf_milli;
    uint32_t flags;
    long line;
} mw_imp_row;

typedef struct {
    char *name;
    char *host; /* NULL: not known */
    mw_imp_row *rows;
    size_t n, cap;
} mw_imp_channel;

typedef struct {
    int64_t start_ns, end_ns;
    int channel; /* index */
} mw_imp_gap;

typedef struct {
    char *name;
    int64_t start_ns, end_ns;
} mw_imp_phase;

struct mw_import {
    char *file; /* as the caller named it, for messages and import_source */
    char *err;  /* the caller's buffer, while parsing */
    size_t errlen;
    mw_import_format format;
    int col[MW_IMP_NCOLS]; /* CSV: field index of each column, -1 when absent */
    int time_in_ns;        /* times are Unix time (time_ns, ISO 8601 dates) */
    int nfields;           /* CSV: fields in the header */
    const char *time_name; /* the time field, for the gap finder's messages */
    mw_imp_channel ch[MW_IMP_MAX_CHANNELS];
    int nch;
    mw_imp_gap *gaps; /* sorted by span, then channel, once parsed */
    size_t ngaps, gcap;
    mw_imp_phase *phases;
    size_t nphases, pcap;
};

/* "FILE:LINE[:COL]: message" into the caller's buffer; returns -1. col 0: no column. */
int mw_imp_bad(mw_import *d, long line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The decimal s ("-12.5", "3", "1.5e-3") in units of 10^-scale, rounded half away from
 * zero, exactly (no binary floating point). 0, -1 when s is not a decimal number, -2 when
 * its value is outside [lo, hi]. */
int mw_imp_parse_fixed(const char *s, int scale, int64_t lo, int64_t hi, int64_t *out);

/* The channel called name (host may be NULL), added when new; NULL after the message
 * (an empty or too long name, too many channels). */
mw_imp_channel *mw_imp_channel_of(mw_import *d, const char *name, const char *host, long line,
                                  int col);

/* Append x to c's rows. 0, or -1 after the message (out of memory). */
int mw_imp_push_row(mw_import *d, mw_imp_channel *c, const mw_imp_row *x);

/* A phase [start_ns, end_ns) named name. 0, or -1 after the message. */
int mw_imp_add_phase(mw_import *d, const char *name, int64_t start_ns, int64_t end_ns, long line);

/* The readers of the other formats: text[0..len) is the file's (modifiable, text[len] == 0),
 * read into d. 0, or -1 after the message. */
int mw_imp_read_powersensor3(mw_import *d, char *text, size_t len);
int mw_imp_read_kwollect(mw_import *d, char *text, size_t len);
int mw_imp_read_pmlib(mw_import *d, char *text, size_t len);
#endif
