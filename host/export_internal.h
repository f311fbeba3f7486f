/* export_internal — what the trace exporters (export_otf2.c, export_perfetto.c) share: a
 * run's phases read once into memory with their strings interned, laid out on timelines,
 * and the run's channels.
 *
 * Timelines. Both trace formats draw a thread as a stack: a phase inside another must end
 * before it (OTF2's enter/leave, Perfetto's slices). A run's phases are complete spans that
 * need not nest (a GPU copy overlapping a kernel; a hostile store). So the phases of one
 * (host, rank, thread) — its GPU work apart — are dealt, in order of start (longest first on
 * a tie), to the first "lane" whose open phases they nest in; a phase that overlaps the
 * open ones without nesting opens another lane. A program whose phases nest has one lane per
 * thread. Each lane is one timeline (an OTF2 location, a Perfetto thread). */
#ifndef MW_EXPORT_INTERNAL_H
#define MW_EXPORT_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "mw_store.h"

/* Strings from a run go out as valid UTF-8 (JSON and OTF2 readers decode them strictly):
 * a copy of s with every byte that is not part of a valid UTF-8 sequence replaced by U+FFFD
 * (mw_alloc.h: never NULL). */
char *mw_exp_utf8(const char *s);

/* Distinct strings (made valid UTF-8 first), numbered 0, 1, ... in order of first sight. */
typedef struct {
    char **s;
    size_t n, cap;
    uint32_t *slot; /* open addressing: index + 1, 0 = empty */
    size_t nslot;
} mw_exp_strings;
/* The number of s, adding a copy when new (out of memory aborts: mw_alloc.h). */
uint32_t mw_exp_strings_id(mw_exp_strings *t, const char *s);
void mw_exp_strings_free(mw_exp_strings *t);

typedef struct {
    int64_t start_ns, end_ns, bytes;
    uint32_t host, kind, name; /* string numbers */
    int rank, thread, peer;
    uint32_t line; /* its timeline */
    uint32_t id;   /* order read (by start time), the last tie-break */
} mw_exp_phase;

typedef struct {
    uint32_t host; /* string number */
    int rank, thread;
    int gpu;  /* 1: GPU work (kind "gpu") of that thread */
    int lane; /* 0 for the first */
    size_t first, n; /* its phases: ph[first .. first + n) */
} mw_exp_line;

typedef struct {
    mw_exp_strings str;
    mw_exp_phase *ph; /* by timeline, then start, longest first, id */
    size_t nph;
    mw_exp_line *line;
    size_t nline;
} mw_exp_phases;

/* Reads every phase of the run and lays them out. 0, or -1 with the message in err. */
int mw_exp_phases_load(mw_store *s, mw_exp_phases *x, char *err, size_t errlen);
void mw_exp_phases_free(mw_exp_phases *x);

typedef struct {
    int channel;
    char *name; /* valid UTF-8, as host */
    char *host; /* NULL: no one host */
} mw_exp_channel;
typedef struct {
    mw_exp_channel *ch;
    size_t n, cap;
    uint32_t index_of[256]; /* channel numbers 0..255: their index + 1, 0 = not yet */
} mw_exp_channels;
/* Reads the channels table. 0, or -1 with the message in err. */
int mw_exp_channels_load(mw_store *s, mw_exp_channels *c, char *err, size_t errlen);
/* The index of channel number `channel`, adding one named by its number (no host) when the
 * table has none (samples of a channel the table lacks). */
size_t mw_exp_channels_index(mw_exp_channels *c, int channel);
void mw_exp_channels_free(mw_exp_channels *c);
#endif
