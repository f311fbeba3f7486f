/* export_otf2 — a run as an OTF2 archive, through the OTF2 library (mw_export.h says what
 * goes where).
 *
 * OTF2's writer wants events first, location by location, and the global definitions last
 * (they carry each location's number of events and the clock's range). So the phases are
 * read into memory and laid out on timelines (export_internal.h); each timeline's Enter/Leave
 * events are written from its sorted phases with a stack; then the windows stream through
 * mw_run_powers in the meter's order (segment, seq, channel: one scan of the table, several
 * times faster than through the time index; each channel's windows in time order) into one
 * metric location per
 * channel; then the definitions: strings (the phase table's interned strings, with the
 * labels added to the same table, so a string's number is its OTF2 StringRef), the system
 * tree (a root, a node per host), a location group per (host, rank) and one for the meter,
 * the locations, regions, attributes, the communicator, and the metric's member, class and
 * instances.
 *
 * The archive is written into a fresh directory made by mkdtemp beside the destination
 * (mode 0700: nobody else can plant a link inside while OTF2 writes), then given the usual
 * mode and renamed to the destination with RENAME_NOREPLACE; on any error it is removed.
 * OTF2 reports errors through a process-wide callback: it is pointed at a buffer for the
 * duration (the library must not print) and restored. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_internal.h"
#include "mw_alloc.h"
#include "mw_err.h"
#include "mw_export.h"
#include "mw_fs.h"
#include "mw_run.h"

static _Thread_local char otf2_msg[512];

static OTF2_ErrorCode on_otf2_error(void *user, const char *file, uint64_t line,
                                    const char *function, OTF2_ErrorCode code, const char *fmt,
                                    va_list va)
{
    char m[400] = "";
    if (*otf2_msg) return code; /* the first error says why; the rest follow from it */
    if (fmt) vsnprintf(m, sizeof m, fmt, va);
    snprintf(otf2_msg, sizeof otf2_msg, "%s%s%s", OTF2_Error_GetDescription(code), *m ? ": " : "", m);
    return code;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc,
                                void *caller, bool final)
{
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush,
                                              .otf2_post_flush = NULL};

/* MPI point-to-point calls with an OTF2 event of their own */
static const char *const send_names[] = {"MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Bsend", NULL};
static const char *const recv_names[] = {"MPI_Recv", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list)) return 1;
    return 0;
}

enum { ATTR_BYTES, ATTR_PEER };
enum { P2P_NONE, P2P_SEND, P2P_RECV };

typedef struct {
    OTF2_Archive *ar;
    OTF2_AttributeList *attrs;
    mw_exp_phases x;
    mw_exp_channels ch;
    mw_exp_strings regions; /* "KIND_ID NAME_ID" per region, numbered as the regions */
    uint64_t *nevents;      /* per location: phase lines, then channels */
    int64_t tmin, tmax;
    int have_time;
    int nranks;          /* ranks 0 .. nranks-1 each with a main timeline: a communicator */
    uint32_t *rank_line; /* the main timeline of each rank */
    char *err;
    size_t errlen;
} otf2_job;

static int otf2_fail(otf2_job *j, const char *what, OTF2_ErrorCode rc)
{
    return mw_err(j->err, j->errlen, "OTF2: %s: %s", what,
                  *otf2_msg ? otf2_msg : OTF2_Error_GetDescription(rc));
}

#define TRY(j, what, call)                                                                 \
    do {                                                                                   \
        OTF2_ErrorCode rc_ = (call);                                                       \
        if (rc_ != OTF2_SUCCESS) return otf2_fail((j), (what), rc_);                       \
    } while (0)

/* A time as an OTF2 timestamp (ns); -1 for a time before 1970, which OTF2 cannot hold. */
static int stamp(otf2_job *j, int64_t t_ns, OTF2_TimeStamp *ts)
{
    if (t_ns < 0)
        return mw_err(j->err, j->errlen, "a time before 1970 (%lld ns): OTF2 has no place for it",
                      (long long)t_ns);
    if (!j->have_time || t_ns < j->tmin) j->tmin = t_ns;
    if (!j->have_time || t_ns > j->tmax) j->tmax = t_ns;
    j->have_time = 1;
    *ts = (OTF2_TimeStamp)t_ns;
    return 0;
}

/* The region of a phase: one per distinct (kind, name). */
static uint32_t region_id(otf2_job *j, const mw_exp_phase *p)
{
    char key[32];
    snprintf(key, sizeof key, "%u %u", p->kind, p->name);
    return mw_exp_strings_id(&j->regions, key);
}

static int p2p_of(otf2_job *j, const mw_exp_phase *p)
{
    if (p->peer < 0 || p->peer >= j->nranks || p->rank < 0 || p->rank >= j->nranks ||
        j->rank_line[p->rank] != p->line)
        return P2P_NONE;
    const char *name = j->x.str.s[p->name];
    return in_list(name, send_names) ? P2P_SEND : in_list(name, recv_names) ? P2P_RECV : P2P_NONE;
}

static int write_enter(otf2_job *j, OTF2_EvtWriter *w, const mw_exp_phase *p)
{
    OTF2_TimeStamp ts;
    if (stamp(j, p->start_ns, &ts)) return -1;
    if (p->bytes) TRY(j, "attribute", OTF2_AttributeList_AddInt64(j->attrs, ATTR_BYTES, p->bytes));
    if (p->peer >= 0) TRY(j, "attribute", OTF2_AttributeList_AddInt64(j->attrs, ATTR_PEER, p->peer));
    TRY(j, "Enter", OTF2_EvtWriter_Enter(w, j->attrs, ts, region_id(j, p)));
    if (p2p_of(j, p) == P2P_SEND)
        TRY(j, "MpiSend",
            OTF2_EvtWriter_MpiSend(w, NULL, ts, (uint32_t)p->peer, 0, 0, (uint64_t)p->bytes));
    return 0;
}

static int write_leave(otf2_job *j, OTF2_EvtWriter *w, const mw_exp_phase *p)
{
    OTF2_TimeStamp ts;
    if (stamp(j, p->end_ns, &ts)) return -1;
    if (p2p_of(j, p) == P2P_RECV)
        TRY(j, "MpiRecv",
            OTF2_EvtWriter_MpiRecv(w, NULL, ts, (uint32_t)p->peer, 0, 0, (uint64_t)p->bytes));
    TRY(j, "Leave", OTF2_EvtWriter_Leave(w, NULL, ts, region_id(j, p)));
    return 0;
}

/* One timeline's events: its phases nest (the lanes see to it), so a stack suffices. */
static int write_line(otf2_job *j, uint32_t li, size_t **stack)
{
    const mw_exp_line *l = &j->x.line[li];
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(j->ar, li);
    if (!w) return otf2_fail(j, "event writer", OTF2_ERROR_INVALID);
    *stack = mw_xrealloc(*stack, (l->n + 1) * sizeof **stack);
    size_t n = 0;
    for (size_t i = l->first; i < l->first + l->n; i++) {
        const mw_exp_phase *p = &j->x.ph[i];
        while (n && j->x.ph[(*stack)[n - 1]].end_ns <= p->start_ns)
            if (write_leave(j, w, &j->x.ph[(*stack)[--n]])) return -1;
        if (write_enter(j, w, p)) return -1;
        (*stack)[n++] = i;
    }
    while (n)
        if (write_leave(j, w, &j->x.ph[(*stack)[--n]])) return -1;
    OTF2_EvtWriter_GetNumberOfEvents(w, &j->nevents[li]);
    TRY(j, "closing an event writer", OTF2_Archive_CloseEvtWriter(j->ar, w));
    return 0;
}

/* Ranks 0 .. N-1 each with a main timeline (thread 0, lane 0, not GPU): then MpiSend/Recv
 * have a communicator to name (nranks = N), else none are written (nranks = 0). */
static void find_ranks(otf2_job *j)
{
    int max = -1;
    for (size_t i = 0; i < j->x.nline; i++)
        if (j->x.line[i].rank > max) max = j->x.line[i].rank;
    if (max < 0 || max > 1 << 24) return;
    j->rank_line = mw_xcalloc((size_t)max + 1, sizeof *j->rank_line);
    for (int r = 0; r <= max; r++)
        j->rank_line[r] = UINT32_MAX;
    for (size_t i = 0; i < j->x.nline; i++) {
        const mw_exp_line *l = &j->x.line[i];
        if (l->rank >= 0 && !l->thread && !l->lane && !l->gpu) {
            if (j->rank_line[l->rank] != UINT32_MAX) return; /* a rank on two hosts */
            j->rank_line[l->rank] = (uint32_t)i;
        }
    }
    for (int r = 0; r <= max; r++)
        if (j->rank_line[r] == UINT32_MAX) return;
    j->nranks = max + 1;
}

/* The metric events of one window; prev_t1 < 0: the channel's first. */
static int write_window(otf2_job *j, OTF2_EvtWriter *w, uint32_t metric, const mw_run_power *p,
                        int64_t prev_t1)
{
    OTF2_Type type = OTF2_TYPE_DOUBLE;
    OTF2_MetricValue v;
    OTF2_TimeStamp ts;
    if (p->t0_ns > prev_t1 || prev_t1 < 0) { /* a stretch starts: no value before it */
        if (stamp(j, p->t0_ns, &ts)) return -1;
        v.floating_point = NAN;
        TRY(j, "Metric", OTF2_EvtWriter_Metric(w, NULL, ts, metric, 1, &type, &v));
    }
    if (p->t1_ns <= prev_t1) return 0; /* out of order (a hostile store): left out */
    if (stamp(j, p->t1_ns, &ts)) return -1;
    v.floating_point = p->power_mw / 1000.0;
    TRY(j, "Metric", OTF2_EvtWriter_Metric(w, NULL, ts, metric, 1, &type, &v));
    return 0;
}

/* Event writers for channels [*nw, upto], each with no previous window yet. */
static int open_writers(otf2_job *j, OTF2_EvtWriter ***w, int64_t **prev, size_t *nw, size_t upto)
{
    for (; *nw <= upto; (*nw)++) {
        *w = mw_xrealloc(*w, (*nw + 1) * sizeof **w);
        *prev = mw_xrealloc(*prev, (*nw + 1) * sizeof **prev);
        (*prev)[*nw] = -1;
        (*w)[*nw] = OTF2_Archive_GetEvtWriter(j->ar, j->x.nline + *nw);
        if (!(*w)[*nw]) return otf2_fail(j, "event writer", OTF2_ERROR_INVALID);
    }
    return 0;
}

/* Every window into its channel's metric location (location nline + channel index, metric
 * instance number channel index + 1; 0 is the class). Channels without windows get an
 * empty event file, which readers expect of every location. */
static int write_windows(otf2_job *j, mw_store *s)
{
    OTF2_EvtWriter **w = NULL;
    int64_t *prev = NULL;
    size_t nw = 0;
    int rc = j->ch.n ? open_writers(j, &w, &prev, &nw, j->ch.n - 1) : 0;
    mw_run_cursor *c = rc ? NULL : mw_run_powers(s, -1, MW_RUN_BY_WINDOW);
    if (!rc && !c) rc = mw_store_error_to(s, j->err, j->errlen);
    mw_run_power p;
    while (!rc && (rc = mw_run_power_next(c, &p)) == 1) {
        size_t k = mw_exp_channels_index(&j->ch, p.channel);
        rc = open_writers(j, &w, &prev, &nw, k);
        if (!rc) rc = write_window(j, w[k], (uint32_t)k + 1, &p, prev[k]);
        if (!rc && p.t1_ns > prev[k]) prev[k] = p.t1_ns;
    }
    if (rc < 0 && !*j->err) mw_store_error_to(s, j->err, j->errlen);
    mw_run_close(c);
    j->nevents = mw_xrealloc(j->nevents, (j->x.nline + nw + 1) * sizeof *j->nevents);
    for (size_t k = 0; k < nw; k++) {
        j->nevents[j->x.nline + k] = 0;
        OTF2_EvtWriter_GetNumberOfEvents(w[k], &j->nevents[j->x.nline + k]);
        OTF2_ErrorCode e = OTF2_Archive_CloseEvtWriter(j->ar, w[k]);
        if (e != OTF2_SUCCESS && rc >= 0) rc = otf2_fail(j, "closing an event writer", e);
    }
    free(w);
    free(prev);
    return rc < 0 ? -1 : 0;
}

/* ---- definitions ------------------------------------------------------------------------ */

/* The string numbers the definitions use, all interned before any is written. */
typedef struct {
    uint32_t empty, root, machine, node, process, meter, bytes, bytes_d, peer, peer_d, power,
        power_d, watt, comm;
    uint32_t *line_name;  /* per timeline */
    uint32_t *chan_name;  /* per channel: "power NAME" */
    uint32_t *group_name; /* per location group */
    uint32_t *host_node;  /* per string number: its system-tree node, 0 = none (the root) */
    uint32_t *node_host;  /* per node 1..: the host's string */
    uint32_t nnodes;      /* with the root */
    uint32_t *line_group; /* per timeline: its location group */
    mw_exp_strings groups;
} otf2_names;

static uint32_t fmt_id(otf2_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static uint32_t fmt_id(otf2_job *j, const char *fmt, ...)
{
    char b[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    return mw_exp_strings_id(&j->x.str, b);
}

static uint32_t host_node(otf2_job *j, otf2_names *n, uint32_t host)
{
    if (!n->host_node[host]) {
        n->node_host = mw_xrealloc(n->node_host, (n->nnodes + 1) * sizeof *n->node_host);
        n->node_host[n->nnodes] = host;
        n->host_node[host] = n->nnodes++;
    }
    return n->host_node[host];
}

static void name_lines(otf2_job *j, otf2_names *n)
{
    n->line_name = mw_xcalloc(j->x.nline + 1, sizeof *n->line_name);
    n->line_group = mw_xcalloc(j->x.nline + 1, sizeof *n->line_group);
    for (size_t i = 0; i < j->x.nline; i++) {
        const mw_exp_line *l = &j->x.line[i];
        char lane[32] = "";
        if (l->lane) snprintf(lane, sizeof lane, " lane %d", l->lane + 1);
        n->line_name[i] = fmt_id(j, "thread %d%s%s", l->thread, l->gpu ? " gpu" : "", lane);
        char key[48];
        snprintf(key, sizeof key, "%u %d", l->host, l->rank);
        n->line_group[i] = mw_exp_strings_id(&n->groups, key);
        if (n->line_group[i] == n->groups.n - 1) { /* a new group */
            n->group_name = mw_xrealloc(n->group_name, n->groups.n * sizeof *n->group_name);
            n->group_name[n->line_group[i]] =
                l->rank >= 0 ? fmt_id(j, "rank %d", l->rank) : fmt_id(j, "no rank");
        }
    }
    n->group_name = mw_xrealloc(n->group_name, (n->groups.n + 1) * sizeof *n->group_name);
    n->group_name[n->groups.n] = n->meter;
}

static void prepare_names(otf2_job *j, otf2_names *n)
{
    memset(n, 0, sizeof *n);
    n->empty = mw_exp_strings_id(&j->x.str, "");
    n->root = fmt_id(j, "megawatt run");
    n->machine = fmt_id(j, "machine");
    n->node = fmt_id(j, "node");
    n->meter = fmt_id(j, "megawatt meter");
    n->bytes = fmt_id(j, "bytes");
    n->bytes_d = fmt_id(j, "data moved (bytes); a counter's value for kind counter");
    n->peer = fmt_id(j, "peer");
    n->peer_d = fmt_id(j, "MPI peer or root, a rank in the call's communicator");
    n->power = fmt_id(j, "power");
    n->power_d = fmt_id(j, "real power, the mean of the meter's window ending here");
    n->watt = fmt_id(j, "W");
    n->comm = fmt_id(j, "MPI communicator (not recorded: peers are ranks in it)");
    n->chan_name = mw_xcalloc(j->ch.n + 1, sizeof *n->chan_name);
    for (size_t k = 0; k < j->ch.n; k++) {
        n->chan_name[k] = fmt_id(j, "power %s", j->ch.ch[k].name);
        if (j->ch.ch[k].host) mw_exp_strings_id(&j->x.str, j->ch.ch[k].host);
    }
    name_lines(j, n);
    /* every string is interned now: nodes are numbered per host string */
    n->host_node = mw_xcalloc(j->x.str.n + 1, sizeof *n->host_node);
    n->nnodes = 1;
    n->node_host = mw_xcalloc(1, sizeof *n->node_host);
    for (size_t i = 0; i < j->x.nline; i++)
        host_node(j, n, j->x.line[i].host);
    for (size_t k = 0; k < j->ch.n; k++)
        if (j->ch.ch[k].host) host_node(j, n, mw_exp_strings_id(&j->x.str, j->ch.ch[k].host));
}

static void free_names(otf2_names *n)
{
    free(n->line_name);
    free(n->chan_name);
    free(n->group_name);
    free(n->host_node);
    free(n->node_host);
    free(n->line_group);
    mw_exp_strings_free(&n->groups);
}

static void region_kind(const char *kind, const char *name, OTF2_RegionRole *role,
                        OTF2_Paradigm *paradigm)
{
    *role = OTF2_REGION_ROLE_CODE;
    *paradigm = OTF2_PARADIGM_USER;
    if (!strcmp(kind, "comm") || !strcmp(kind, "wait")) {
        *paradigm = OTF2_PARADIGM_MPI;
        *role = !strcmp(name, "MPI_Barrier")         ? OTF2_REGION_ROLE_BARRIER
                : in_list(name, send_names) || in_list(name, recv_names) ? OTF2_REGION_ROLE_POINT2POINT
                                                                         : OTF2_REGION_ROLE_FUNCTION;
    } else if (!strcmp(kind, "omp")) {
        *paradigm = OTF2_PARADIGM_OPENMP;
        *role = strstr(name, "task") ? OTF2_REGION_ROLE_TASK : OTF2_REGION_ROLE_PARALLEL;
    } else if (!strcmp(kind, "gpu")) {
        *paradigm = OTF2_PARADIGM_CUDA;
        *role = OTF2_REGION_ROLE_FUNCTION;
    } else if (!strcmp(kind, "mw")) {
        *paradigm = OTF2_PARADIGM_MEASUREMENT_SYSTEM;
        *role = OTF2_REGION_ROLE_ARTIFICIAL;
    } else if (!strcmp(kind, "mark") || !strcmp(kind, "counter")) {
        *role = OTF2_REGION_ROLE_ARTIFICIAL;
    }
}

static int write_regions(otf2_job *j, OTF2_GlobalDefWriter *g)
{
    for (size_t r = 0; r < j->regions.n; r++) {
        unsigned kind, name;
        if (sscanf(j->regions.s[r], "%u %u", &kind, &name) != 2) continue;
        OTF2_RegionRole role;
        OTF2_Paradigm paradigm;
        region_kind(j->x.str.s[kind], j->x.str.s[name], &role, &paradigm);
        TRY(j, "Region",
            OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)r, name, name, kind, role,
                                             paradigm, OTF2_REGION_FLAG_NONE,
                                             OTF2_UNDEFINED_STRING, 0, 0));
    }
    return 0;
}

static int write_tree(otf2_job *j, OTF2_GlobalDefWriter *g, const otf2_names *n)
{
    TRY(j, "SystemTreeNode",
        OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, n->root, n->machine,
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    for (uint32_t k = 1; k < n->nnodes; k++)
        TRY(j, "SystemTreeNode",
            OTF2_GlobalDefWriter_WriteSystemTreeNode(g, k, n->node_host[k], n->node, 0));
    uint32_t next = 0; /* groups are numbered in order of their first timeline */
    for (size_t i = 0; i < j->x.nline; i++) {
        uint32_t gr = n->line_group[i];
        if (gr != next) continue;
        next++;
        TRY(j, "LocationGroup",
            OTF2_GlobalDefWriter_WriteLocationGroup(
                g, gr, n->group_name[gr], OTF2_LOCATION_GROUP_TYPE_PROCESS,
                n->host_node[j->x.line[i].host], OTF2_UNDEFINED_LOCATION_GROUP));
    }
    TRY(j, "LocationGroup",
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)n->groups.n, n->meter,
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP));
    for (size_t i = 0; i < j->x.nline; i++)
        TRY(j, "Location",
            OTF2_GlobalDefWriter_WriteLocation(
                g, i, n->line_name[i],
                j->x.line[i].gpu ? OTF2_LOCATION_TYPE_ACCELERATOR_STREAM : OTF2_LOCATION_TYPE_CPU_THREAD,
                j->nevents[i], n->line_group[i]));
    for (size_t k = 0; k < j->ch.n; k++)
        TRY(j, "Location",
            OTF2_GlobalDefWriter_WriteLocation(g, j->x.nline + k, n->chan_name[k],
                                               OTF2_LOCATION_TYPE_METRIC,
                                               j->nevents[j->x.nline + k],
                                               (uint32_t)n->groups.n));
    return 0;
}

static int write_comm(otf2_job *j, OTF2_GlobalDefWriter *g, const otf2_names *n)
{
    if (!j->nranks) return 0;
    uint64_t *m = mw_xcalloc((size_t)j->nranks, sizeof *m);
    for (int r = 0; r < j->nranks; r++)
        m[r] = j->rank_line[r];
    OTF2_ErrorCode rc = OTF2_GlobalDefWriter_WriteGroup(
        g, 0, n->empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
        (uint32_t)j->nranks, m);
    for (int r = 0; r < j->nranks; r++)
        m[r] = (uint64_t)r;
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteGroup(g, 1, n->empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                             (uint32_t)j->nranks, m);
    free(m);
    TRY(j, "Group", rc);
    TRY(j, "Comm",
        OTF2_GlobalDefWriter_WriteComm(g, 0, n->comm, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    return 0;
}

static int write_metrics(otf2_job *j, OTF2_GlobalDefWriter *g, const otf2_names *n)
{
    TRY(j, "MetricMember",
        OTF2_GlobalDefWriter_WriteMetricMember(g, 0, n->power, n->power_d, OTF2_METRIC_TYPE_OTHER,
                                               OTF2_METRIC_ABSOLUTE_LAST, OTF2_TYPE_DOUBLE,
                                               OTF2_BASE_DECIMAL, 0, n->watt));
    OTF2_MetricMemberRef member = 0;
    TRY(j, "MetricClass",
        OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                              OTF2_RECORDER_KIND_ABSTRACT));
    for (size_t k = 0; k < j->ch.n; k++) {
        const char *host = j->ch.ch[k].host;
        uint32_t node = host ? n->host_node[mw_exp_strings_id(&j->x.str, host)] : 0;
        TRY(j, "MetricInstance",
            OTF2_GlobalDefWriter_WriteMetricInstance(g, (OTF2_MetricRef)(k + 1), 0,
                                                     j->x.nline + k,
                                                     OTF2_SCOPE_SYSTEM_TREE_NODE, node));
    }
    return 0;
}

static int write_global_defs(otf2_job *j, const otf2_names *n)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(j->ar);
    if (!g) return otf2_fail(j, "global definitions", OTF2_ERROR_INVALID);
    int64_t t0 = j->have_time ? j->tmin : 0, len = j->have_time ? j->tmax - j->tmin + 1 : 0;
    TRY(j, "ClockProperties",
        OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, (uint64_t)t0, (uint64_t)len,
                                                  (uint64_t)t0));
    for (size_t i = 0; i < j->x.str.n; i++)
        TRY(j, "String", OTF2_GlobalDefWriter_WriteString(g, (uint32_t)i, j->x.str.s[i]));
    if (write_tree(j, g, n) || write_regions(j, g)) return -1;
    TRY(j, "Attribute",
        OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_BYTES, n->bytes, n->bytes_d, OTF2_TYPE_INT64));
    TRY(j, "Attribute",
        OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_PEER, n->peer, n->peer_d, OTF2_TYPE_INT64));
    return write_comm(j, g, n) || write_metrics(j, g, n) ? -1 : 0;
}

/* Empty local definitions for every location (readers open each one's file). */
static int write_local_defs(otf2_job *j)
{
    TRY(j, "definition files", OTF2_Archive_OpenDefFiles(j->ar));
    for (size_t i = 0; i < j->x.nline + j->ch.n; i++) {
        OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(j->ar, i);
        if (!d) return otf2_fail(j, "definition writer", OTF2_ERROR_INVALID);
        TRY(j, "definition writer", OTF2_Archive_CloseDefWriter(j->ar, d));
    }
    TRY(j, "definition files", OTF2_Archive_CloseDefFiles(j->ar));
    return 0;
}

/* Events, then definitions, into the open archive. */
static int write_archive(otf2_job *j, mw_store *s)
{
    TRY(j, "flush callbacks", OTF2_Archive_SetFlushCallbacks(j->ar, &flush_callbacks, NULL));
    TRY(j, "collectives", OTF2_Archive_SetSerialCollectiveCallbacks(j->ar));
    OTF2_Archive_SetCreator(j->ar, "megawatt " MW_VERSION);
    TRY(j, "event files", OTF2_Archive_OpenEvtFiles(j->ar));
    find_ranks(j);
    j->nevents = mw_xcalloc(j->x.nline + 1, sizeof *j->nevents);
    size_t *stack = NULL;
    int rc = 0;
    for (size_t i = 0; i < j->x.nline && !rc; i++)
        rc = write_line(j, (uint32_t)i, &stack);
    free(stack);
    if (rc || write_windows(j, s)) return -1;
    TRY(j, "event files", OTF2_Archive_CloseEvtFiles(j->ar));
    if (write_local_defs(j)) return -1;
    otf2_names n;
    prepare_names(j, &n);
    rc = write_global_defs(j, &n);
    free_names(&n);
    return rc;
}

/* The archive in directory tmp; 0 or -1 with j->err. */
static int export_into(otf2_job *j, mw_store *s, const char *tmp)
{
    if (mw_exp_phases_load(s, &j->x, j->err, j->errlen) ||
        mw_exp_channels_load(s, &j->ch, j->err, j->errlen))
        return -1;
    j->ar = OTF2_Archive_Open(tmp, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!j->ar) return otf2_fail(j, "cannot open the archive", OTF2_ERROR_INVALID);
    j->attrs = OTF2_AttributeList_New();
    int rc = j->attrs ? write_archive(j, s) : otf2_fail(j, "attribute list", OTF2_ERROR_MEM_ALLOC_FAILED);
    OTF2_ErrorCode e = OTF2_Archive_Close(j->ar);
    if (!rc && e != OTF2_SUCCESS) rc = otf2_fail(j, "closing the archive", e);
    return rc;
}

static void remove_tmp(const char *tmp)
{
    char sub[4300];
    snprintf(sub, sizeof sub, "%s/traces", tmp);
    mw_fs_remove_dir(sub, NULL, 0);
    mw_fs_remove_dir(tmp, NULL, 0);
}

static void job_free(otf2_job *j)
{
    if (j->attrs) OTF2_AttributeList_Delete(j->attrs);
    mw_exp_phases_free(&j->x);
    mw_exp_channels_free(&j->ch);
    mw_exp_strings_free(&j->regions);
    free(j->nevents);
    free(j->rank_line);
}

int mw_export_otf2(mw_store *s, const char *dir, char *err, size_t errlen)
{
    char tmp[4200];
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    struct stat st;
    if (!len) return errno = EINVAL, mw_err(err, errlen, "an empty directory name");
    if (lstat(dir, &st) == 0) return errno = EEXIST, mw_err(err, errlen, "%s: exists", dir);
    if (len > 4000) return errno = ENAMETOOLONG, mw_err(err, errlen, "%s: name too long", dir);
    snprintf(tmp, sizeof tmp, "%.*s.tmp-XXXXXX", (int)len, dir);
    if (!mkdtemp(tmp)) {
        int e = errno;
        mw_err(err, errlen, "%s: cannot create: %s", dir, strerror(e));
        return errno = e, -1;
    }
    char msg[1024] = "";
    otf2_job j = {.err = msg, .errlen = sizeof msg};
    otf2_msg[0] = 0;
    OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(on_otf2_error, NULL);
    int rc = export_into(&j, s, tmp);
    OTF2_Error_RegisterCallback(old, NULL);
    job_free(&j);
    int e = EIO;
    if (!rc && chmod(tmp, 0777 & ~mw_fs_umask()) != 0) {
        e = errno;
        rc = mw_err(msg, sizeof msg, "%s: %s", dir, strerror(e));
    }
    if (!rc && renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_NOREPLACE) != 0) {
        e = errno;
        rc = mw_err(msg, sizeof msg, "%s: %s", dir, strerror(e));
    }
    if (rc) {
        remove_tmp(tmp);
        mw_err(err, errlen, "%s", msg);
        errno = e;
    }
    return rc;
}
