/* export_perfetto — a run as Chrome/Perfetto trace-event JSON (mw_export.h says what goes
 * where), the format ui.perfetto.dev and chrome://tracing open: one object
 * {"displayTimeUnit", "otherData", "traceEvents": [...]}. The schema's name and version
 * (docs/cli.md, "JSON schemas") is otherData.schema: Perfetto's JSON importer stops at a
 * top-level key it does not know, so the top level holds only the format's own keys.
 *
 * A process per host (pid 1, 2, ... in order of first sight: the phases' hosts, then the
 * channels'; a channel of no host goes to a process "meter (no host)"), named by metadata
 * events ("ph":"M", process_name); a thread per timeline (export_internal.h: a rank's
 * thread, its GPU work apart, and further lanes for phases that overlap without nesting),
 * named "rank R thread T" (tids above every pid: write_threads). Every string from the run (host, kind, name, channel), made valid
 * UTF-8 when read (export_internal.h), is escaped once by json-c and kept. Numbers are written from the stored
 * integers with integer arithmetic: ts and dur in µs with up to 3 decimals (exact ns, no
 * trailing zeros) since the run's earliest time (otherData.origin_ns, CLOCK_REALTIME ns),
 * power in W with up to 3 decimals (exact mW). The windows stream through mw_run_powers in the meter's order (one scan). */
#include <inttypes.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "mw_alloc.h"
#include "mw_err.h"
#include "mw_export.h"
#include "mw_run.h"

typedef struct {
    FILE *out;
    mw_exp_phases x;
    mw_exp_channels ch;
    char **esc;       /* per string number: its JSON text, quotes included */
    uint32_t *pid_of; /* per string number (a host): its pid, 0 = none yet */
    uint32_t npids;   /* the last pid given */
    uint32_t tid0;    /* the first timeline's tid, above every pid (tids are global) */
    int64_t origin;
    long events;
} pf_job;

/* s as a JSON string (quoted, escaped by json-c); s is valid UTF-8 (export_internal.h). */
static char *json_text(const char *s)
{
    json_object *j = json_object_new_string(s);
    char *t = mw_xstrdup(j ? json_object_to_json_string_ext(
                                 j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
                           : "\"\"");
    json_object_put(j);
    return t;
}

static const char *esc(pf_job *j, uint32_t id)
{
    if (!j->esc[id]) j->esc[id] = json_text(j->x.str.s[id]);
    return j->esc[id];
}

static char *put_milli(char *p, int64_t v);

/* v / 1000 exactly, with the decimals it needs (put_milli): ns as µs, mW as W. */
static const char *milli(char buf[32], int64_t v)
{
    *put_milli(buf, v) = '\0';
    return buf;
}

static int64_t since(int64_t t, int64_t origin)
{
    return (int64_t)((uint64_t)t - (uint64_t)origin);
}

static void event_sep(pf_job *j)
{
    fputs(j->events++ ? ",\n" : "\n", j->out);
}

/* The pid of a host (by string number), naming the process on first sight. */
static uint32_t host_pid(pf_job *j, uint32_t host)
{
    if (j->pid_of[host]) return j->pid_of[host];
    uint32_t pid = j->pid_of[host] = ++j->npids;
    event_sep(j);
    fprintf(j->out,
            "{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_name\",\"args\":{\"name\":%s}},\n"
            "{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_sort_index\","
            "\"args\":{\"sort_index\":%u}}",
            pid, esc(j, host), pid, pid);
    return pid;
}

/* A thread per timeline, tid tid0 + its number: Perfetto keeps tids global (a Linux tid
 * belongs to one process), and a process's counters go on its thread tid = pid, so timeline
 * tids stay above every pid. */
static void write_threads(pf_job *j)
{
    for (size_t i = 0; i < j->x.nline; i++) {
        const mw_exp_line *l = &j->x.line[i];
        uint32_t pid = host_pid(j, l->host);
        char rank[32] = "", lane[32] = "";
        if (l->rank >= 0) snprintf(rank, sizeof rank, "rank %d ", l->rank);
        if (l->lane) snprintf(lane, sizeof lane, " lane %d", l->lane + 1);
        event_sep(j);
        fprintf(j->out,
                "{\"ph\":\"M\",\"pid\":%u,\"tid\":%zu,\"name\":\"thread_name\","
                "\"args\":{\"name\":\"%sthread %d%s%s\"}},\n"
                "{\"ph\":\"M\",\"pid\":%u,\"tid\":%zu,\"name\":\"thread_sort_index\","
                "\"args\":{\"sort_index\":%zu}}",
                pid, j->tid0 + i, rank, l->thread, l->gpu ? " gpu" : "", lane, pid, j->tid0 + i,
                i + 1);
    }
}

static void write_phases(pf_job *j)
{
    char ts[32], dur[32];
    if (j->x.nline > UINT32_MAX - j->tid0) return; /* not in a run that fits in memory */
    for (size_t i = 0; i < j->x.nph; i++) {
        const mw_exp_phase *p = &j->x.ph[i];
        event_sep(j);
        fprintf(j->out,
                "{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%s,\"dur\":%s,\"name\":%s,\"cat\":%s,"
                "\"args\":{\"rank\":%d,\"thread\":%d,\"bytes\":%" PRId64 ",\"peer\":%d}}",
                j->pid_of[p->host], j->tid0 + p->line, milli(ts, since(p->start_ns, j->origin)),
                milli(dur, since(p->end_ns, p->start_ns)), esc(j, p->name), esc(j, p->kind),
                p->rank, p->thread, p->bytes, p->peer);
    }
}

/* The pid of channel k's process (every host string was interned before the tables were
 * sized: see mw_export_perfetto). */
static uint32_t channel_pid(pf_job *j, size_t k)
{
    const char *host = j->ch.ch[k].host;
    return host_pid(j, mw_exp_strings_id(&j->x.str, host ? host : "meter (no host)"));
}

/* The longest counter head copied into an event's buffer; a longer one (a hostile store's
 * long channel name) is written apart. */
#define MW_PF_HEAD_MAX 2048

typedef struct {
    int64_t prev_t1; /* the end of the channel's last window; INT64_MIN: none yet */
    char *head;      /* {"ph":"C","pid":P,"name":NAME,"ts": */
    size_t head_len;
} pf_track;

/* Appends v / 1000 at p, exactly, with the decimals it needs (none to 3: 250000000 ns is
 * "250000" µs, 183450 mW "183.45" W); returns the new end. The trailing zeros carry nothing
 * and are a tenth of a day's trace. */
static char *put_milli(char *p, int64_t v)
{
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, ip = a / 1000;
    unsigned fp = (unsigned)(a % 1000);
    char d[24];
    int n = 0;
    if (v < 0) *p++ = '-';
    do {
        d[n++] = (char)('0' + ip % 10);
        ip /= 10;
    } while (ip);
    while (n)
        *p++ = d[--n];
    if (fp) {
        *p++ = '.';
        *p++ = (char)('0' + fp / 100);
        if (fp % 100) *p++ = (char)('0' + fp / 10 % 10);
        if (fp % 10) *p++ = (char)('0' + fp % 10);
    }
    return p;
}

/* One counter value; the hot loop of a day's run (millions), so formatted by hand into one
 * buffer and written with one call, without stdio's lock (one thread writes out). */
static void counter(pf_job *j, const pf_track *t, int64_t t_ns, int64_t power_mw)
{
    static const char mid[] = ",\"args\":{\"W\":";
    char b[MW_PF_HEAD_MAX + 96], *p = b;
    if (j->events++) *p++ = ',';
    *p++ = '\n';
    if (t->head_len <= MW_PF_HEAD_MAX) {
        memcpy(p, t->head, t->head_len);
        p += t->head_len;
    } else { /* a hostile store's long name: the head apart */
        fwrite_unlocked(b, 1, (size_t)(p - b), j->out);
        fwrite_unlocked(t->head, 1, t->head_len, j->out);
        p = b;
    }
    p = put_milli(p, since(t_ns, j->origin));
    memcpy(p, mid, sizeof mid - 1);
    p = put_milli(p + sizeof mid - 1, power_mw);
    *p++ = '}';
    *p++ = '}';
    fwrite_unlocked(b, 1, (size_t)(p - b), j->out);
}

/* Tracks for channels [*n, upto]. */
static void add_tracks(pf_job *j, pf_track **t, size_t *n, size_t upto)
{
    for (; *n <= upto; (*n)++) {
        *t = mw_xrealloc(*t, (*n + 1) * sizeof **t);
        uint32_t pid = channel_pid(j, *n);
        char *name = json_text(j->ch.ch[*n].name);
        size_t len = strlen(name) + 64;
        char *head = mw_xcalloc(len, 1);
        snprintf(head, len, "{\"ph\":\"C\",\"pid\":%u,\"name\":%s,\"ts\":", pid, name);
        free(name);
        (*t)[*n] = (pf_track){.prev_t1 = INT64_MIN, .head = head, .head_len = strlen(head)};
    }
}

/* Each window: its power at its start; 0 where a stretch of windows ends (a gap, the end). */
static int write_counters(pf_job *j, mw_store *s, char *err, size_t errlen)
{
    pf_track *t = NULL;
    size_t n = 0;
    if (j->ch.n) add_tracks(j, &t, &n, j->ch.n - 1);
    mw_run_cursor *c = mw_run_powers(s, -1, MW_RUN_BY_WINDOW);
    int rc = c ? 0 : -1;
    mw_run_power p;
    while (c && (rc = mw_run_power_next(c, &p)) == 1) {
        size_t k = mw_exp_channels_index(&j->ch, p.channel);
        add_tracks(j, &t, &n, k);
        if (t[k].prev_t1 != INT64_MIN && p.t0_ns != t[k].prev_t1)
            counter(j, &t[k], t[k].prev_t1, 0);
        counter(j, &t[k], p.t0_ns, p.power_mw);
        t[k].prev_t1 = p.t1_ns;
    }
    mw_run_close(c);
    for (size_t k = 0; k < n; k++) {
        if (t[k].prev_t1 != INT64_MIN && rc >= 0) counter(j, &t[k], t[k].prev_t1, 0);
        free(t[k].head);
    }
    free(t);
    return rc < 0 ? mw_store_error_to(s, err, errlen) : 0;
}

/* The origin of ts: the earliest of the run's start (mw_store_start_ns), its first phase
 * and its first window (by end), so that ts is not negative (viewers expect that). */
static int first_time(pf_job *j, mw_store *s, int64_t *t_ns, char *err, size_t errlen)
{
    int have = mw_store_start_ns(s, t_ns) == 0;
    for (size_t i = 0; i < j->x.nph; i++)
        if (!have || j->x.ph[i].start_ns < *t_ns) {
            *t_ns = j->x.ph[i].start_ns;
            have = 1;
        }
    mw_run_cursor *c = mw_run_powers(s, -1, MW_RUN_BY_WINDOW);
    mw_run_power p;
    int rc = c ? mw_run_power_next(c, &p) : -1;
    mw_run_close(c);
    if (rc < 0) return mw_store_error_to(s, err, errlen);
    if (rc == 1 && (!have || p.t0_ns < *t_ns)) {
        *t_ns = p.t0_ns;
        have = 1;
    }
    if (!have) *t_ns = 0;
    return 0;
}

static void job_free(pf_job *j)
{
    for (size_t i = 0; j->esc && i < j->x.str.n; i++)
        free(j->esc[i]);
    free(j->esc);
    free(j->pid_of);
    mw_exp_phases_free(&j->x);
    mw_exp_channels_free(&j->ch);
}

int mw_export_perfetto(mw_store *s, FILE *out, char *err, size_t errlen)
{
    pf_job j = {.out = out};
    if (mw_exp_phases_load(s, &j.x, err, errlen)) return -1;
    if (mw_exp_channels_load(s, &j.ch, err, errlen)) {
        job_free(&j);
        return -1;
    }
    for (size_t k = 0; k < j.ch.n; k++)
        if (j.ch.ch[k].host) mw_exp_strings_id(&j.x.str, j.ch.ch[k].host);
    mw_exp_strings_id(&j.x.str, "meter (no host)");
    j.tid0 = (uint32_t)j.x.str.n + 1; /* pids are at most the number of strings */
    j.esc = mw_xcalloc(j.x.str.n, sizeof *j.esc);
    j.pid_of = mw_xcalloc(j.x.str.n, sizeof *j.pid_of);
    if (first_time(&j, s, &j.origin, err, errlen)) {
        job_free(&j);
        return -1;
    }
    fprintf(out,
            "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"schema\":\"%s\","
            "\"generator\":\"megawatt %s\",\"origin_ns\":\"%" PRId64 "\"},\"traceEvents\":[",
            MW_EXPORT_PERFETTO_SCHEMA, MW_VERSION, j.origin);
    write_threads(&j);
    write_phases(&j);
    int rc = write_counters(&j, s, err, errlen);
    fputs("\n]}\n", out);
    job_free(&j);
    return rc;
}
