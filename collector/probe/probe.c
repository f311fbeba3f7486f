/* probe — the core of libmwprobe: per-thread event buffers, the background writer and the
 * spill file (docs/probe.md).
 *
 * State. g_state is UNINIT until the first call of any entry point reads the environment:
 * without MW_RUN_DIR the probe becomes INERT for good (every entry point is then a load and
 * a branch); with it the spill file is opened, the header written, the background writer
 * started and the state becomes ACTIVE. At exit (atexit) the writer is stopped, everything
 * left is written with the D and X records, and the state becomes DONE (inert again).
 *
 * Hot path. Each thread owns a mw_thr (pointer in initial-exec TLS, allocated at its first
 * event): a single-producer/single-consumer queue of chunks of 32-byte events (4096 per
 * chunk), its stack of open phases, and a direct-mapped cache from name pointers to interned
 * name ids. An event is a state check, a cache probe, clock_gettime(CLOCK_REALTIME) (vDSO)
 * and a store into the current chunk published by a release store of its count: no lock, no
 * system call. A full chunk is followed by the thread's spare chunk (one the writer
 * finished) or a new one, so the queue grows while the writer lags (a chatty program
 * between two drains, or a writer starved of CPU by busy-polling ranks) up to
 * MW_PROBE_RING_EVENTS events per thread (default 2 Mi events, 64 MiB, only ever touched
 * when the writer lags that far); only then is an event dropped, and counted. From a
 * thread's second pending chunk on, the producer wakes the writer early (one futex wake,
 * and none while a wake is pending). Names are interned once (global table under a mutex):
 * a cache hit is a pointer compare, plus a strcmp unless the pointer lies in a read-only
 * segment of a loaded object (a string literal, whose text cannot change).
 *
 * Writer. A background thread (all signals blocked) wakes every 200 ms, or 20 ms after an
 * early wake, drains every thread's queue under g_wlock and formats the records (T before a
 * thread's first record, N before a name's first use, E per event) into one buffer written
 * with one write() per batch, so the file only ever holds whole lines, but for a process
 * killed in the middle of a write(). Threads that exited (a pthread key destructor marks them dead)
 * are drained a last time and freed by the writer, the only one that unlinks from the
 * lock-free list of threads. R and C records wait in a small buffer of their own. Before
 * each write() the descriptor is checked (fstat) to still be the spill file, so a program
 * that closes every descriptor and opens others never gets records in its own files.
 *
 * fork(): the child keeps none of the parent's probe state (its queues belong to the parent's
 * writer, and the writer thread does not exist in the child): it drops them and starts
 * afresh, with a spill file of its own pid, at its first call. */
#include <stdint.h>

#pragma GCC visibility push(default)
#include "mwprobe.h"
#include "probe_internal.h"
#pragma GCC visibility pop
#include "probe_test.h" /* hidden: for tests linked with libmwprobe.a */

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MW_LIKELY(x) __builtin_expect(!!(x), 1)
#define MW_UNLIKELY(x) __builtin_expect(!!(x), 0)

enum { ST_UNINIT = 0, ST_INERT = 1, ST_ACTIVE = 2, ST_DONE = 3 };

enum {
    MW_RING_DEFAULT = 1 << 21, /* events a thread may hold before dropping (64 MiB) */
    MW_RING_MIN = 16,          /* limits of MW_PROBE_RING_EVENTS */
    MW_RING_MAX = 1 << 26,     /* 2 GiB */
    MW_CHUNK_EVENTS = 4096,    /* events per chunk (128 KiB); a thread holds >= 2 chunks */
    MW_STACK_DEPTH = 64,       /* open phases per thread */
    MW_CACHE_SLOTS = 256,      /* name cache per thread, direct mapped */
    MW_NAME_BITS = 24,         /* name id in an event's kind_name */
    MW_NAME_MAX = 1 << 20,     /* distinct names per process */
    MW_EXCLUDED_BIT = 1 << 22, /* in a name id from name_id(): MW_PROBE_EXCLUDE names it */
    MW_NAME_CHUNK = 4096,      /* id -> name table grows by chunks */
    MW_NAME_TEXT_MAX = 4095,   /* bytes of a name written in an N record */
    MW_OUT_BYTES = 1 << 20,    /* writer buffer: one write() per batch */
    MW_PERIOD_MS = 200,        /* writer period */
    MW_KICKED_PERIOD_MS = 20,  /* at least this between drains when woken early */
};

/* ---- data --------------------------------------------------------------------------- */

typedef struct {
    int64_t t0_ns, t1_ns, bytes;
    uint32_t kind_name; /* kind << MW_NAME_BITS | name id */
    int32_t peer;
} mw_ev;

typedef struct {
    const char *ptr;  /* the caller's pointer */
    const char *text; /* the interned copy */
    uint32_t id;
    uint32_t trusted; /* ptr's text cannot change: no strcmp on a hit */
} mw_cache_slot;

typedef struct mw_chunk {
    _Atomic uint32_t n;            /* events published (producer, release) */
    struct mw_chunk *_Atomic next; /* the chunk after this one (producer, release) */
    mw_ev ev[];
} mw_chunk;

typedef struct mw_thr {
    /* producer (the thread itself) */
    mw_chunk *cur;  /* the chunk being filled */
    uint32_t cur_n; /* its events */
    _Atomic uint64_t dropped, unmatched;
    _Atomic int held;        /* chunks allocated to this thread (both sides) */
    mw_chunk *_Atomic spare; /* a chunk the writer finished, for the producer to reuse */
    int depth, overflow;
    struct {
        uint32_t id;
        int64_t t0_ns;
    } stack[MW_STACK_DEPTH];
    mw_cache_slot cache[MW_CACHE_SLOTS];
    /* consumer (the writer, under g_wlock) */
    _Alignas(64) mw_chunk *rd; /* the oldest chunk not yet retired */
    uint32_t rd_pos;           /* its events written */
    _Atomic int dead;          /* the thread exited: drain, then free */
    int tid, os_tid, announced;
    struct mw_thr *next;
} mw_thr;

typedef struct {
    uint32_t id;
    unsigned char written;  /* an N record is in the current spill file (writer only) */
    unsigned char excluded; /* listed in MW_PROBE_EXCLUDE: its events are not recorded */
    char text[];
} mw_name;

static _Atomic int g_state;
static __thread mw_thr *t_self __attribute__((tls_model("initial-exec")));

static pthread_mutex_t g_initlock = PTHREAD_MUTEX_INITIALIZER; /* state changes */
static pthread_mutex_t g_wlock = PTHREAD_MUTEX_INITIALIZER;    /* writer: queues, file */
static pthread_mutex_t g_nlock = PTHREAD_MUTEX_INITIALIZER;    /* name table */
static pthread_mutex_t g_mlock = PTHREAD_MUTEX_INITIALIZER;    /* R/C records */

/* configuration, fixed while ACTIVE */
static uint64_t g_ring_events;
static uint32_t g_chunk_events; /* MW_CHUNK_EVENTS, or half a smaller g_ring_events */
static int g_max_chunks;        /* per thread */
static int g_fd = -1;
static dev_t g_dev; /* the spill file's identity, to notice a descriptor closed under us */
static ino_t g_ino;
static char g_path[4096];
static pid_t g_pid;

/* threads: pushed by producers (CAS), unlinked by the writer only */
static mw_thr *_Atomic g_threads;
static _Atomic int g_next_tid;
static pthread_key_t g_key;
static int g_once_done; /* key, atexit, atfork registered (under g_initlock) */

/* writer */
static pthread_t g_writer;
static _Atomic uint32_t g_kick; /* futex word: 1 = wake the writer */
static _Atomic int g_stop;
static char *g_out;
static size_t g_out_len;
static uint64_t g_dead_dropped, g_dead_unmatched; /* of freed threads */

/* R and C records waiting for the writer */
static char *g_meta;
static size_t g_meta_len, g_meta_cap;

/* names */
static mw_name **g_ntab; /* open addressing by text */
static size_t g_ntab_cap;
static uint32_t g_ncount;
static mw_name **g_nchunk[MW_NAME_MAX / MW_NAME_CHUNK]; /* id -> name */
static const char g_never_name[1];                      /* marks an empty cache slot */
static char *g_exclude; /* MW_PROBE_EXCLUDE, with a comma at each end: ",MPI_Test,MPI_Iprobe," */

/* ---- time --------------------------------------------------------------------------- */

/* MW_PROBE_CLOCK_SKEW_NS (read at initialisation): added to every time stamp, to test the
 * MPI layer's clock sync with clocks that disagree by known amounts. 0 normally. */
static int64_t g_skew_ns;

static inline int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + g_skew_ns;
}

int64_t mw_probe_now_ns(void)
{
    return now_ns();
}

/* ---- names -------------------------------------------------------------------------- */

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static mw_name *name_by_id(uint32_t id)
{
    return g_nchunk[id / MW_NAME_CHUNK][id % MW_NAME_CHUNK];
}

/* 1 when MW_PROBE_EXCLUDE lists text (",TEXT," is in g_exclude) */
static int excluded(const char *text)
{
    size_t len = strlen(text);
    if (!g_exclude || !len || strchr(text, ',')) return 0;
    for (const char *p = g_exclude; (p = strstr(p, text)); p++)
        if (p[-1] == ',' && p[len] == ',') return 1;
    return 0;
}

/* The interned entry of text, made if new (under g_nlock). NULL when out of memory. */
static mw_name *intern_locked(const char *text)
{
    if (g_ncount * 2 >= g_ntab_cap) { /* grow: keep the load at most 1/2 */
        size_t cap = g_ntab_cap ? 2 * g_ntab_cap : 1024;
        mw_name **tab = calloc(cap, sizeof *tab);
        if (!tab) return NULL;
        for (size_t i = 0; i < g_ntab_cap; i++) {
            if (!g_ntab[i]) continue;
            size_t j = name_hash(g_ntab[i]->text) & (cap - 1);
            while (tab[j])
                j = (j + 1) & (cap - 1);
            tab[j] = g_ntab[i];
        }
        free(g_ntab);
        g_ntab = tab;
        g_ntab_cap = cap;
    }
    size_t j = name_hash(text) & (g_ntab_cap - 1);
    for (; g_ntab[j]; j = (j + 1) & (g_ntab_cap - 1))
        if (strcmp(g_ntab[j]->text, text) == 0) return g_ntab[j];
    if (g_ncount == MW_NAME_MAX - 1 && strcmp(text, "(too many names)") != 0)
        return intern_locked("(too many names)"); /* the last id */
    uint32_t id = g_ncount;
    mw_name ***chunk = &g_nchunk[id / MW_NAME_CHUNK];
    if (!*chunk && !(*chunk = calloc(MW_NAME_CHUNK, sizeof **chunk))) return NULL;
    size_t len = strlen(text);
    mw_name *n = malloc(sizeof *n + len + 1);
    if (!n) return NULL;
    n->id = id;
    n->written = 0;
    memcpy(n->text, text, len + 1);
    n->excluded = (unsigned char)excluded(text);
    (*chunk)[id % MW_NAME_CHUNK] = n;
    g_ntab[j] = n;
    g_ncount++;
    return n;
}

static mw_name *intern(const char *text)
{
    pthread_mutex_lock(&g_nlock);
    mw_name *n = intern_locked(text);
    pthread_mutex_unlock(&g_nlock);
    return n;
}

const char *mw_probe_intern(const char *name)
{
    if (!name) name = "(null)";
    mw_name *n = intern(name);
    return n ? n->text : name;
}

typedef struct {
    uintptr_t lo, hi;
    int readonly;
} ro_query;

static int ro_segment(struct dl_phdr_info *info, size_t size, void *data)
{
    ro_query *q = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (q->lo >= lo && q->lo < hi) {
            q->readonly = !(ph->p_flags & PF_W) && q->hi <= hi;
            return 1;
        }
    }
    return 0;
}

/* 1 when the whole string lies in a read-only segment of a loaded object (a literal). */
static int in_readonly_segment(const char *s)
{
    ro_query q = {(uintptr_t)s, (uintptr_t)s + strlen(s) + 1, 0};
    dl_iterate_phdr(ro_segment, &q);
    return q.readonly;
}

static mw_cache_slot *cache_slot(mw_thr *t, const char *name)
{
    uintptr_t p = (uintptr_t)name;
    return &t->cache[(p ^ (p >> 9)) & (MW_CACHE_SLOTS - 1)];
}

static __attribute__((noinline)) uint32_t name_id_miss(mw_cache_slot *s, const char *name)
{
    const char *text = name ? name : "(null)";
    mw_name *n = intern(text);
    if (!n) return UINT32_MAX;
    s->ptr = name;
    s->text = n->text;
    s->id = n->id | (n->excluded ? MW_EXCLUDED_BIT : 0);
    s->trusted = !name || name == n->text || in_readonly_segment(name);
    return s->id;
}

/* The name's id (with MW_EXCLUDED_BIT when the user excluded it), UINT32_MAX when it cannot
 * be interned (out of memory). */
static inline uint32_t name_id(mw_thr *t, const char *name)
{
    mw_cache_slot *s = cache_slot(t, name);
    if (MW_LIKELY(s->ptr == name) && (MW_LIKELY(s->trusted) || strcmp(name, s->text) == 0))
        return s->id;
    return name_id_miss(s, name);
}

/* ---- threads and queues ------------------------------------------------------------- */

static void kick_writer(void)
{
    if (atomic_load_explicit(&g_kick, memory_order_relaxed)) return;
    if (atomic_exchange_explicit(&g_kick, 1, memory_order_acq_rel)) return;
    syscall(SYS_futex, &g_kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline void bump(_Atomic uint64_t *c) /* producer-owned counter: no RMW needed */
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static mw_chunk *chunk_new(void)
{
    mw_chunk *c = malloc(sizeof *c + (size_t)g_chunk_events * sizeof(mw_ev));
    if (!c) return NULL;
    atomic_init(&c->n, 0);
    atomic_init(&c->next, NULL);
    return c;
}

/* The chunk after the full t->cur (the spare, or a new one while the thread holds fewer
 * than g_max_chunks), linked and made current; NULL: the event is dropped. */
static __attribute__((noinline)) mw_chunk *chunk_next(mw_thr *t)
{
    mw_chunk *c = atomic_exchange_explicit(&t->spare, NULL, memory_order_acquire);
    if (!c) {
        if (atomic_load_explicit(&t->held, memory_order_relaxed) >= g_max_chunks ||
            !(c = chunk_new())) {
            kick_writer();
            return NULL;
        }
        atomic_fetch_add_explicit(&t->held, 1, memory_order_relaxed);
    }
    atomic_store_explicit(&c->n, 0, memory_order_relaxed);
    atomic_store_explicit(&c->next, NULL, memory_order_relaxed);
    atomic_store_explicit(&t->cur->next, c, memory_order_release);
    t->cur = c;
    t->cur_n = 0;
    if (atomic_load_explicit(&t->held, memory_order_relaxed) > 2) kick_writer();
    return c;
}

static inline void push(mw_thr *t, unsigned kind, uint32_t id, int64_t t0_ns, int64_t t1_ns,
                        int64_t bytes, int peer)
{
    if (MW_UNLIKELY(id & MW_EXCLUDED_BIT)) { /* excluded, or UINT32_MAX: not interned */
        if (id == UINT32_MAX) bump(&t->dropped);
        return;
    }
    mw_chunk *c = t->cur;
    if (MW_UNLIKELY(t->cur_n == g_chunk_events) && !(c = chunk_next(t))) {
        bump(&t->dropped);
        return;
    }
    uint32_t n = t->cur_n;
    mw_ev *e = &c->ev[n];
    e->t0_ns = t0_ns;
    e->t1_ns = t1_ns < t0_ns ? t0_ns : t1_ns; /* CLOCK_REALTIME may be stepped back */
    e->bytes = bytes;
    e->kind_name = (uint32_t)(kind & 0xff) << MW_NAME_BITS | id;
    e->peer = peer;
    t->cur_n = n + 1;
    atomic_store_explicit(&c->n, n + 1, memory_order_release);
}

static void thread_exit(void *p)
{
    mw_thr *t = p;
    if (t_self == t) t_self = NULL;
    atomic_store_explicit(&t->dead, 1, memory_order_release);
}

static void free_thread(mw_thr *t)
{
    for (mw_chunk *c = t->rd, *next; c; c = next) {
        next = atomic_load_explicit(&c->next, memory_order_relaxed);
        free(c);
    }
    free(atomic_load_explicit(&t->spare, memory_order_relaxed));
    free(t);
}

static __attribute__((noinline)) mw_thr *thread_register(void)
{
    mw_thr *t = aligned_alloc(_Alignof(mw_thr), sizeof *t);
    if (!t) return NULL;
    memset(t, 0, sizeof *t);
    if (!(t->cur = t->rd = chunk_new())) {
        free(t);
        return NULL;
    }
    atomic_init(&t->held, 1);
    for (int i = 0; i < MW_CACHE_SLOTS; i++)
        t->cache[i].ptr = g_never_name;
    t->os_tid = (int)syscall(SYS_gettid);
    t->tid = atomic_fetch_add(&g_next_tid, 1);
    t->next = atomic_load_explicit(&g_threads, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&g_threads, &t->next, t, memory_order_release,
                                                  memory_order_relaxed)) {
    }
    t_self = t;
    pthread_setspecific(g_key, t);
    return t;
}

static int probe_init(void);

/* The calling thread's buffer, NULL when the probe does not record. */
static inline mw_thr *self(void)
{
    int s = atomic_load_explicit(&g_state, memory_order_acquire);
    if (MW_LIKELY(s == ST_ACTIVE)) {
        mw_thr *t = t_self;
        return MW_LIKELY(t != NULL) ? t : thread_register();
    }
    if (s != ST_UNINIT || probe_init() != ST_ACTIVE) return NULL;
    return t_self ? t_self : thread_register();
}

/* ---- the public API ----------------------------------------------------------------- */

void mw_phase_begin(const char *name)
{
    mw_thr *t = self();
    if (!t) return;
    uint32_t id = name_id(t, name);
    if (MW_UNLIKELY(t->depth == MW_STACK_DEPTH || id == UINT32_MAX)) {
        t->overflow++; /* its end is taken as matching */
        bump(&t->dropped);
        return;
    }
    t->stack[t->depth].id = id;
    t->stack[t->depth].t0_ns = now_ns();
    t->depth++;
}

void mw_phase_end(const char *name)
{
    mw_thr *t = self();
    if (!t) return;
    int64_t t1 = now_ns();
    if (MW_UNLIKELY(t->overflow)) {
        t->overflow--;
        return;
    }
    uint32_t id = name_id(t, name);
    if (MW_UNLIKELY(t->depth == 0 || t->stack[t->depth - 1].id != id)) {
        bump(&t->unmatched);
        return;
    }
    t->depth--;
    push(t, MW_PROBE_USER, id, t->stack[t->depth].t0_ns, t1, 0, -1);
}

void mw_mark(const char *name)
{
    mw_thr *t = self();
    if (!t) return;
    uint32_t id = name_id(t, name);
    int64_t t0 = now_ns();
    push(t, MW_PROBE_MARK, id, t0, t0, 0, -1);
}

void mw_counter(const char *name, int64_t value)
{
    mw_thr *t = self();
    if (!t) return;
    uint32_t id = name_id(t, name);
    int64_t t0 = now_ns();
    push(t, MW_PROBE_COUNTER, id, t0, t0, value, -1);
}

/* ---- the internal API --------------------------------------------------------------- */

int mw_probe_active(void)
{
    int s = atomic_load_explicit(&g_state, memory_order_acquire);
    if (s == ST_UNINIT) s = probe_init();
    return s == ST_ACTIVE;
}

void mw_probe_event(mw_probe_kind kind, const char *name, int64_t t0_ns, int64_t t1_ns,
                    int64_t bytes, int peer)
{
    mw_thr *t = self();
    if (!t) return;
    push(t, (unsigned)kind, name_id(t, name), t0_ns, t1_ns, bytes, peer);
}

static char *fmt_i64(char *p, int64_t v);

static void meta_record(char type, int64_t a, int64_t b, int64_t c, int n)
{
    char line[96], *p = line;
    *p++ = type;
    int64_t v[3] = {a, b, c};
    for (int i = 0; i < n; i++) {
        *p++ = '\t';
        p = fmt_i64(p, v[i]);
    }
    *p++ = '\n';
    size_t len = (size_t)(p - line);
    pthread_mutex_lock(&g_mlock);
    if (g_meta_len + len > g_meta_cap) {
        size_t cap = g_meta_cap ? 2 * g_meta_cap : 1024;
        while (cap < g_meta_len + len)
            cap *= 2;
        char *m = realloc(g_meta, cap);
        if (m) {
            g_meta = m;
            g_meta_cap = cap;
        }
    }
    if (g_meta_len + len <= g_meta_cap) {
        memcpy(g_meta + g_meta_len, line, len);
        g_meta_len += len;
    }
    pthread_mutex_unlock(&g_mlock);
}

void mw_probe_set_rank(int rank, int size)
{
    if (!mw_probe_active()) return;
    meta_record('R', rank, size, 0, 2);
}

void mw_probe_clock_sample(int64_t local_ns, int64_t offset_ns, int64_t uncertainty_ns)
{
    if (!mw_probe_active()) return;
    meta_record('C', local_ns, offset_ns, uncertainty_ns, 3);
}

const char *mw_probe_spill_path(void)
{
    return mw_probe_active() ? g_path : "";
}

/* ---- the writer --------------------------------------------------------------------- */

static char *fmt_u64(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *fmt_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return fmt_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return fmt_u64(p, (uint64_t)v);
}

static void write_all(const char *buf, size_t len)
{
    struct stat st;
    if (g_fd >= 0 && (fstat(g_fd, &st) != 0 || st.st_dev != g_dev || st.st_ino != g_ino))
        g_fd = -1; /* the program closed our descriptor (and may reuse it): write no more */
    while (len > 0 && g_fd >= 0) {
        ssize_t n = write(g_fd, buf, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return; /* a full disk: the rest of this batch is lost */
        buf += n;
        len -= (size_t)n;
    }
}

static void out_flush(void)
{
    write_all(g_out, g_out_len);
    g_out_len = 0;
}

/* Room for a record of at most len bytes in g_out. */
static char *out_reserve(size_t len)
{
    if (g_out_len + len > MW_OUT_BYTES) out_flush();
    return g_out + g_out_len;
}

static void out_name(const mw_name *n)
{
    char *p = out_reserve(32 + MW_NAME_TEXT_MAX), *p0 = p;
    *p++ = 'N';
    *p++ = '\t';
    p = fmt_u64(p, n->id);
    *p++ = '\t';
    for (size_t i = 0; n->text[i] && i < MW_NAME_TEXT_MAX; i++) {
        char c = n->text[i];
        *p++ = c == '\t' || c == '\n' || c == '\r' ? ' ' : c;
    }
    *p++ = '\n';
    g_out_len += (size_t)(p - p0);
}

static void out_thread(const mw_thr *t)
{
    char *p = out_reserve(64), *p0 = p;
    *p++ = 'T';
    *p++ = '\t';
    p = fmt_i64(p, t->tid);
    *p++ = '\t';
    p = fmt_i64(p, t->os_tid);
    *p++ = '\n';
    g_out_len += (size_t)(p - p0);
}

static void out_event(int tid, const mw_ev *e)
{
    uint32_t id = e->kind_name & ((1u << MW_NAME_BITS) - 1);
    mw_name *n = name_by_id(id);
    if (!n->written) {
        out_name(n);
        n->written = 1;
    }
    char *p = out_reserve(160), *p0 = p;
    *p++ = 'E';
    *p++ = '\t';
    p = fmt_i64(p, tid);
    *p++ = '\t';
    p = fmt_u64(p, e->kind_name >> MW_NAME_BITS);
    *p++ = '\t';
    p = fmt_u64(p, id);
    *p++ = '\t';
    p = fmt_i64(p, e->t0_ns);
    *p++ = '\t';
    p = fmt_i64(p, e->t1_ns);
    *p++ = '\t';
    p = fmt_i64(p, e->bytes);
    *p++ = '\t';
    p = fmt_i64(p, e->peer);
    *p++ = '\n';
    g_out_len += (size_t)(p - p0);
}

/* A chunk the writer finished: the thread's spare (the one before is freed). */
static void chunk_retire(mw_thr *t, mw_chunk *c)
{
    mw_chunk *old = atomic_exchange_explicit(&t->spare, c, memory_order_acq_rel);
    if (old) {
        free(old);
        atomic_fetch_sub_explicit(&t->held, 1, memory_order_relaxed);
    }
}

/* Write the thread's published events; retire every chunk the producer has left. */
static void drain_thread(mw_thr *t)
{
    for (;;) {
        uint32_t n = atomic_load_explicit(&t->rd->n, memory_order_acquire);
        for (; t->rd_pos < n; t->rd_pos++)
            out_event(t->tid, &t->rd->ev[t->rd_pos]);
        if (n < g_chunk_events) return;
        mw_chunk *next = atomic_load_explicit(&t->rd->next, memory_order_acquire);
        if (!next) return; /* full, and the producer has not needed another yet */
        mw_chunk *done = t->rd;
        t->rd = next;
        t->rd_pos = 0;
        chunk_retire(t, done);
    }
}

/* Everything buffered into the file (under g_wlock). */
static void drain(void)
{
    pthread_mutex_lock(&g_mlock);
    if (g_meta_len > MW_OUT_BYTES / 2) {
        out_flush();
        write_all(g_meta, g_meta_len);
    } else if (g_meta_len) {
        memcpy(out_reserve(g_meta_len), g_meta, g_meta_len);
        g_out_len += g_meta_len;
    }
    g_meta_len = 0;
    pthread_mutex_unlock(&g_mlock);

    mw_thr *prev = NULL, *t = atomic_load_explicit(&g_threads, memory_order_acquire);
    while (t) {
        mw_thr *next = t->next;
        if (!t->announced) {
            out_thread(t);
            t->announced = 1;
        }
        int dead = atomic_load_explicit(&t->dead, memory_order_acquire);
        drain_thread(t);
        if (dead) { /* the thread exited before we drained it: nothing more will come */
            g_dead_dropped += atomic_load_explicit(&t->dropped, memory_order_relaxed);
            g_dead_unmatched += atomic_load_explicit(&t->unmatched, memory_order_relaxed);
            if (prev) {
                prev->next = next;
            } else {
                mw_thr *expect = t;
                if (!atomic_compare_exchange_strong(&g_threads, &expect, next)) {
                    /* new threads came in front: find t's predecessor among them */
                    prev = expect;
                    while (prev->next != t)
                        prev = prev->next;
                    prev->next = next;
                }
            }
            free_thread(t);
        } else {
            prev = t;
        }
        t = next;
    }
    out_flush();
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void *writer_main(void *arg)
{
    while (!atomic_load(&g_stop)) {
        struct timespec ts = {0, (long)MW_PERIOD_MS * 1000000};
        syscall(SYS_futex, &g_kick, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
        int kicked = atomic_exchange(&g_kick, 0);
        pthread_mutex_lock(&g_wlock);
        drain();
        pthread_mutex_unlock(&g_wlock);
        if (kicked && !atomic_load(&g_stop)) sleep_ms(MW_KICKED_PERIOD_MS);
    }
    return NULL;
}

void mw_probe_flush(void)
{
    if (atomic_load_explicit(&g_state, memory_order_acquire) != ST_ACTIVE) return;
    pthread_mutex_lock(&g_wlock);
    drain();
    pthread_mutex_unlock(&g_wlock);
}

/* ---- start and finish --------------------------------------------------------------- */

static void probe_atexit(void);
static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

static int mkdir_p(const char *dir)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0775) != 0 && errno != EEXIST) return -1; /* never o+w */
        *p = '/';
    }
    return mkdir(buf, 0775) != 0 && errno != EEXIST ? -1 : 0;
}

/* MW_PROBE_RING_EVENTS (rounded up to a power of 2 within the limits), and the chunks. */
static void ring_events(void)
{
    const char *s = getenv("MW_PROBE_RING_EVENTS");
    long long v = s ? atoll(s) : 0;
    uint64_t n = MW_RING_MIN;
    while (n < (uint64_t)v && n < MW_RING_MAX)
        n *= 2;
    g_ring_events = v <= 0 ? MW_RING_DEFAULT : n;
    g_chunk_events =
        g_ring_events / 2 < MW_CHUNK_EVENTS ? (uint32_t)(g_ring_events / 2) : MW_CHUNK_EVENTS;
    g_max_chunks = (int)(g_ring_events / g_chunk_events);
}

/* Read the environment; open the spill file and start the writer when MW_RUN_DIR is set.
 * Returns the new state. */
static int probe_init(void)
{
    pthread_mutex_lock(&g_initlock);
    int s = atomic_load(&g_state);
    if (s != ST_UNINIT) {
        pthread_mutex_unlock(&g_initlock);
        return s;
    }
    if (!g_once_done) {
        g_once_done = 1;
        pthread_key_create(&g_key, thread_exit);
        pthread_atfork(fork_prepare, fork_parent, fork_child);
        atexit(probe_atexit);
    }
    s = ST_INERT;
    const char *run = getenv("MW_RUN_DIR"), *dir = getenv("MW_PROBE_DIR");
    const char *skew = getenv("MW_PROBE_CLOCK_SKEW_NS"), *ex = getenv("MW_PROBE_EXCLUDE");
    g_skew_ns = skew ? strtoll(skew, NULL, 10) : 0;
    free(g_exclude);
    g_exclude = NULL;
    if (ex && *ex && (g_exclude = malloc(strlen(ex) + 3))) sprintf(g_exclude, ",%s,", ex);
    char host[256], pdir[4096];
    if (run && *run) {
        if (dir && *dir)
            snprintf(pdir, sizeof pdir, "%s", dir);
        else
            snprintf(pdir, sizeof pdir, "%s/probe", run);
        if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "unknown");
        host[sizeof host - 1] = 0;
        for (char *p = host; *p; p++)
            if (*p == '\t' || *p == '\n' || *p == '/') *p = '_';
        g_pid = getpid();
        int n = snprintf(g_path, sizeof g_path, "%s/%s.%d.mwp", pdir, host, (int)g_pid);
        const char *why = NULL;
        if (n >= (int)sizeof g_path)
            why = "path too long";
        else if (!g_out && !(g_out = malloc(MW_OUT_BYTES)))
            why = "out of memory";
        else if (mkdir_p(pdir) != 0 ||
                 (g_fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644)) <
                     0)
            why = strerror(errno);
        if (why) {
            fprintf(stderr, "mwprobe: cannot write %s (%s): recording no events\n", g_path, why);
            g_path[0] = 0;
        } else {
            struct stat st;
            fstat(g_fd, &st);
            g_dev = st.st_dev;
            g_ino = st.st_ino;
            ring_events();
            for (uint32_t i = 0; i < g_ncount; i++) {
                name_by_id(i)->written = 0;
                name_by_id(i)->excluded = (unsigned char)excluded(name_by_id(i)->text);
            }
            char *p = g_out;
            p += sprintf(p, "H\t1\t%s\t%d\tCLOCK_REALTIME\n", host, (int)g_pid);
            g_out_len = (size_t)(p - g_out);
            out_flush();
            atomic_store(&g_stop, 0);
            atomic_store(&g_kick, 0);
            sigset_t all, old;
            sigfillset(&all);
            pthread_sigmask(SIG_SETMASK, &all, &old);
            int rc = pthread_create(&g_writer, NULL, writer_main, NULL);
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            if (rc != 0) {
                close(g_fd);
                g_fd = -1;
                g_path[0] = 0;
            } else {
                s = ST_ACTIVE;
                if (!t_self) thread_register(); /* this thread is tid 0 */
            }
        }
    }
    atomic_store_explicit(&g_state, s, memory_order_release);
    pthread_mutex_unlock(&g_initlock);
    return s;
}

/* Stop the writer and end the spill file (under g_initlock, state ACTIVE). */
static void finish_locked(int next_state)
{
    atomic_store_explicit(&g_state, next_state, memory_order_release);
    atomic_store(&g_stop, 1);
    atomic_store(&g_kick, 1);
    syscall(SYS_futex, &g_kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    pthread_join(g_writer, NULL);
    pthread_mutex_lock(&g_wlock);
    drain();
    uint64_t dropped = g_dead_dropped, unmatched = g_dead_unmatched;
    for (mw_thr *t = atomic_load(&g_threads); t; t = t->next) {
        dropped += atomic_load_explicit(&t->dropped, memory_order_relaxed);
        unmatched += atomic_load_explicit(&t->unmatched, memory_order_relaxed);
    }
    char *p = out_reserve(128), *p0 = p;
    if (dropped || unmatched) {
        *p++ = 'D';
        *p++ = '\t';
        p = fmt_u64(p, dropped);
        *p++ = '\t';
        p = fmt_u64(p, unmatched);
        *p++ = '\n';
    }
    *p++ = 'X';
    *p++ = '\t';
    p = fmt_i64(p, now_ns());
    *p++ = '\n';
    g_out_len += (size_t)(p - p0);
    out_flush();
    if (g_fd >= 0) close(g_fd);
    g_fd = -1;
    pthread_mutex_unlock(&g_wlock);
}

/* Forget every thread and buffered record (no writer running). */
static void forget_threads(void)
{
    mw_thr *t = atomic_exchange(&g_threads, NULL);
    while (t) {
        mw_thr *next = t->next;
        free_thread(t);
        t = next;
    }
    t_self = NULL;
    if (g_once_done) pthread_setspecific(g_key, NULL);
    atomic_store(&g_next_tid, 0);
    g_dead_dropped = g_dead_unmatched = 0;
    g_meta_len = 0;
    g_out_len = 0;
    g_path[0] = 0;
}

static void probe_atexit(void)
{
    pthread_mutex_lock(&g_initlock);
    if (atomic_load(&g_state) == ST_ACTIVE) finish_locked(ST_DONE);
    pthread_mutex_unlock(&g_initlock);
}

void mw_probe_shutdown(void)
{
    pthread_mutex_lock(&g_initlock);
    if (atomic_load(&g_state) == ST_ACTIVE) {
        finish_locked(ST_UNINIT);
        forget_threads();
    }
    atomic_store(&g_state, ST_UNINIT);
    pthread_mutex_unlock(&g_initlock);
}

/* When the library is unloaded (dlclose) the key's destructor must not outlive it. */
static __attribute__((destructor)) void probe_unload(void)
{
    if (g_once_done) pthread_key_delete(g_key);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&g_initlock);
    pthread_mutex_lock(&g_wlock);
    pthread_mutex_lock(&g_mlock);
    pthread_mutex_lock(&g_nlock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&g_nlock);
    pthread_mutex_unlock(&g_mlock);
    pthread_mutex_unlock(&g_wlock);
    pthread_mutex_unlock(&g_initlock);
}

static void fork_child(void)
{
    pthread_mutex_init(&g_nlock, NULL);
    pthread_mutex_init(&g_mlock, NULL);
    pthread_mutex_init(&g_wlock, NULL);
    pthread_mutex_init(&g_initlock, NULL);
    if (atomic_load(&g_state) == ST_ACTIVE) {
        /* the parent's file, rings and writer are the parent's: start afresh */
        if (g_fd >= 0) close(g_fd);
        g_fd = -1;
        forget_threads();
        atomic_store(&g_state, ST_UNINIT);
    }
}
