/* inband_share — how much of a node's wall power its in-band sources see (docs/inband.md):
 * per node (a host with in-band sources), over the run and per phase, the wall power (the
 * meter's channels measuring that host), each in-band source's power, their sum (the
 * additive sources only: package, dram, gpu — core and uncore lie inside the package, psys
 * around it), the share of the wall the sum covers and the rest of the node (wall − sum:
 * power supply losses, fans, disks, network, the board). With the recorder's idle
 * baselines (mw record --idle) the same split of the increase over idle: the dynamic
 * share. Numbers in, numbers out: no SQL, nothing printed.
 *
 * Powers are mean powers over the span's union of intervals, each trace over the time its
 * windows cover there (models/include/energy.h: exact integers of pJ over ns), so a
 * source with a gap is not diluted by it; a figure that does not exist is NAN. */
#ifndef MW_INBAND_SHARE_H
#define MW_INBAND_SHARE_H
#include <stddef.h>
#include <stdint.h>

#include "energy.h"

#define MW_INBAND_SHARE_NAME 128
#define MW_INBAND_SHARE_MIN_DYN_W 1.0     /* W */
#define MW_INBAND_SHARE_MIN_DYN_FRAC 0.05 /* of the idle wall power */

typedef struct {
    char name[MW_INBAND_SHARE_NAME]; /* "rapl:package-0" */
    char kind[16];                   /* "rapl", "nvml" */
    char domain[32];
    int additive;
} mw_inband_share_source;

/* One span: the run (kind NULL, name "run"), the idle baseline (kind NULL, name "idle"), or
 * a phase group (kind, name) as it lies on this node. */
typedef struct {
    char *kind, *name;
    int64_t duration_ns; /* the union's length */
    double wall_w;       /* NAN: no wall channel, or no window there */
    double *src_w;       /* per source; NAN where it has no window there */
    double inband_w;     /* the additive sources' sum; NAN when one of them is NAN */
} mw_inband_share_span;

typedef struct {
    char host[MW_INBAND_SHARE_NAME];
    char wall[256]; /* the wall channels' names, comma-separated ("" when none) */
    mw_inband_share_source *src;
    size_t nsrc;
    mw_inband_share_span *span; /* span[0]: the run */
    size_t nspan;
    int idle;                   /* index of the idle span, -1 when the run has none */
} mw_inband_share_node;

typedef struct mw_inband_share {
    mw_inband_share_node *node;
    size_t nnode;
} mw_inband_share;

/* The figures of span sp over the traces of one node: the wall channels' (summed) and each
 * source's mean power over the disjoint spans s[0..n); src_additive[i] says which sources
 * sum. sp->src_w is allocated (nsrc). */
void mw_inband_share_fill(mw_inband_share_span *sp, const mw_energy_trace *wall, size_t nwall,
                          const mw_energy_trace *src, const int *src_additive, size_t nsrc,
                          const mw_energy_span *s, size_t n);

/* share of the wall the in-band sum covers, % (NAN when either is missing or wall <= 0) */
double mw_inband_share_pct(const mw_inband_share_span *sp);
/* the rest of the node: wall - in-band sum, W */
double mw_inband_share_rest_w(const mw_inband_share_span *sp);
/* over the node's idle span: the increase of wall and in-band powers, and the share of the
 * wall's increase the in-band increase covers (%); NAN without an idle span, and the share
 * also unless the wall rose by at least MW_INBAND_SHARE_MIN_DYN_W and MW_INBAND_SHARE_MIN_DYN_FRAC
 * of its idle power (a ratio of two differences near zero is noise) */
double mw_inband_share_dyn_wall_w(const mw_inband_share_node *nd, const mw_inband_share_span *sp);
double mw_inband_share_dyn_inband_w(const mw_inband_share_node *nd,
                                    const mw_inband_share_span *sp);
double mw_inband_share_dyn_pct(const mw_inband_share_node *nd, const mw_inband_share_span *sp);

/* From run directory dir (models/inband_share_run.c, through mw_run.h): every host with
 * in-band sources, its wall channels (channels.host equal), over [from_ns, to_ns) (INT64_MIN,
 * INT64_MAX: open) cut to where both wall and in-band data exist; the spans: the run, the
 * idle baseline (the recorder's idle-before and idle-after), and every phase group of the
 * host's ranks and of the recorder (kinds mark and counter left out). *out NULL when the
 * run has no in-band source. 0, or -1 with err. */
int mw_inband_share_read(const char *dir, int64_t from_ns, int64_t to_ns, mw_inband_share **out,
                         char *err, size_t errlen);
void mw_inband_share_free(mw_inband_share *s);

/* ---- the alignment cross-check (inband_align.h), per node ------------------------------- */
#include "inband_align.h"
typedef struct {
    char host[MW_INBAND_SHARE_NAME];
    char wall[256];   /* its wall channels */
    char summed[512]; /* the additive sources correlated with them */
    int ok;           /* 1: fit; 0: note says why not */
    mw_inband_align_fit fit;
    char note[200];
} mw_inband_align_node;
/* For every host with in-band sources and a wall channel (the first, in channel order),
 * mw_inband_align of that channel against the sum of the host's additive sources, over the
 * whole run, +-max_offset_s. *out malloc'd, *n nodes (0: none). 0, or -1 with err. */
int mw_inband_align_read(const char *dir, double max_offset_s, mw_inband_align_node **out,
                         size_t *n, char *err, size_t errlen);
#endif
