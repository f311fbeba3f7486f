/* probe_cuda — GPU phases from CUDA events (mwprobe_cuda.h), built into
 * build/lib/libmwprobe_cuda.so by nvcc when it is present (collector/probe/probe_cuda.mk).
 *
 * Host code only, written in the C subset of C++ (nvcc compiles .cu files as C++). One
 * mutex guards everything: the list of ranges (in begin order), per-device anchors and
 * per-device pools of spare events (creating CUDA events is not free). A range holds its
 * name (interned), stream, device, begin and end events, bytes, and the anchor current when
 * it began: that anchor was recorded and waited for before the range's begin event was
 * recorded, so cudaEventElapsedTime(anchor, event) is positive and small (re-anchoring every
 * MW_CUDA_REANCHOR_NS keeps float milliseconds precise to well under a microsecond).
 * Anchors are reference-counted by the ranges that use them and destroyed with the last.
 *
 * The anchor stream is created with cudaStreamNonBlocking, so recording on it never waits
 * for the program's work on the legacy default stream. Errors from CUDA drop the range
 * concerned; nothing here calls cudaGetLastError, so the program's pending error is not
 * read or cleared. Events are emitted on the thread that collects them. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "mwprobe_cuda.h"
extern "C" {
#include "probe_internal.h"
}

#define MW_CUDA_MAX_DEVICES 64
#define MW_CUDA_POOL_EVENTS 256                    /* spare events kept per device */
#define MW_CUDA_REANCHOR_NS (1000 * 1000 * 1000LL) /* re-anchor a device after 1 s */
#define MW_CUDA_ANCHOR_TRIES 3
#define MW_CUDA_COLLECT_EVERY 64 /* mw_cuda_end collects at every 64th range waiting */

struct mw_cuda_anchor {
    int device;
    cudaEvent_t event;
    int64_t host_ns;        /* host time of the event */
    int64_t uncertainty_ns; /* +- */
    int refs;               /* ranges using it + 1 while it is its device's current one */
};

struct mw_cuda_range {
    struct mw_cuda_range *next;
    const char *name;
    cudaStream_t stream;
    int device;
    int ended;
    cudaEvent_t begin, end;
    int64_t bytes;
    struct mw_cuda_anchor *anchor;
};

struct mw_cuda_device {
    cudaStream_t anchor_stream;
    struct mw_cuda_anchor *anchor;
    cudaEvent_t pool[MW_CUDA_POOL_EVENTS];
    int npool;
};

static pthread_mutex_t mw_cuda_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mw_cuda_device mw_cuda_devices[MW_CUDA_MAX_DEVICES];
static struct mw_cuda_range *mw_cuda_head, *mw_cuda_tail;
static int mw_cuda_pending;
static int mw_cuda_atexit_set;

static void mw_cuda_atexit(void)
{
    mw_cuda_finish();
}

static cudaEvent_t mw_cuda_event_get(int device)
{
    struct mw_cuda_device *d = &mw_cuda_devices[device];
    if (d->npool > 0) return d->pool[--d->npool];
    cudaEvent_t e = NULL;
    if (cudaEventCreate(&e) != cudaSuccess) return NULL;
    return e;
}

static void mw_cuda_event_put(int device, cudaEvent_t e)
{
    if (!e) return;
    struct mw_cuda_device *d = &mw_cuda_devices[device];
    if (d->npool < MW_CUDA_POOL_EVENTS)
        d->pool[d->npool++] = e;
    else
        cudaEventDestroy(e);
}

static void mw_cuda_anchor_release(struct mw_cuda_anchor *a)
{
    if (a && --a->refs == 0) {
        cudaEventDestroy(a->event);
        free(a);
    }
}

/* A fresh anchor for the current device (which is device), or NULL. */
static struct mw_cuda_anchor *mw_cuda_anchor_new(int device)
{
    struct mw_cuda_device *d = &mw_cuda_devices[device];
    if (!d->anchor_stream &&
        cudaStreamCreateWithFlags(&d->anchor_stream, cudaStreamNonBlocking) != cudaSuccess) {
        d->anchor_stream = NULL;
        return NULL;
    }
    cudaEvent_t best = NULL;
    int64_t best_t0 = 0, best_span = INT64_MAX;
    for (int i = 0; i < MW_CUDA_ANCHOR_TRIES; i++) {
        cudaEvent_t e = NULL;
        if (cudaEventCreate(&e) != cudaSuccess) break;
        int64_t t0 = mw_probe_now_ns();
        if (cudaEventRecord(e, d->anchor_stream) != cudaSuccess ||
            cudaEventSynchronize(e) != cudaSuccess) {
            cudaEventDestroy(e);
            break;
        }
        int64_t span = mw_probe_now_ns() - t0;
        if (span < best_span) {
            if (best) cudaEventDestroy(best);
            best = e;
            best_t0 = t0;
            best_span = span;
        } else {
            cudaEventDestroy(e);
        }
    }
    if (!best) return NULL;
    struct mw_cuda_anchor *a = (struct mw_cuda_anchor *)calloc(1, sizeof *a);
    if (!a) {
        cudaEventDestroy(best);
        return NULL;
    }
    a->device = device;
    a->event = best;
    a->host_ns = best_t0 + best_span / 2;
    a->uncertainty_ns = (best_span + 1) / 2;
    a->refs = 1;
    mw_probe_event(MW_PROBE_COUNTER, "cuda anchor uncertainty ns", a->host_ns, a->host_ns,
                   a->uncertainty_ns, -1);
    if (!mw_cuda_atexit_set) { /* after the CUDA runtime's own: ours runs before it */
        mw_cuda_atexit_set = 1;
        atexit(mw_cuda_atexit);
    }
    return a;
}

/* The device's current anchor, renewed when older than MW_CUDA_REANCHOR_NS. */
static struct mw_cuda_anchor *mw_cuda_anchor_current(int device)
{
    struct mw_cuda_device *d = &mw_cuda_devices[device];
    if (d->anchor && mw_probe_now_ns() - d->anchor->host_ns < MW_CUDA_REANCHOR_NS) return d->anchor;
    struct mw_cuda_anchor *a = mw_cuda_anchor_new(device);
    if (!a) return d->anchor; /* keep the old one rather than none */
    mw_cuda_anchor_release(d->anchor);
    d->anchor = a;
    return a;
}

static int64_t mw_cuda_host_ns(const struct mw_cuda_anchor *a, float ms)
{
    return a->host_ns + (int64_t)((double)ms * 1e6 + (ms >= 0 ? 0.5 : -0.5));
}

/* Unlinks r (prev is its predecessor or NULL), returns its events, frees it. */
static void mw_cuda_range_drop(struct mw_cuda_range *prev, struct mw_cuda_range *r)
{
    if (prev)
        prev->next = r->next;
    else
        mw_cuda_head = r->next;
    if (mw_cuda_tail == r) mw_cuda_tail = prev;
    if (r->ended) mw_cuda_pending--;
    mw_cuda_event_put(r->device, r->begin);
    mw_cuda_event_put(r->device, r->end);
    mw_cuda_anchor_release(r->anchor);
    free(r);
}

/* Emits the ended ranges whose end event completed (waiting for them when wait); with
 * drop_open also discards ranges never ended. Returns how many ranges remain. */
static int mw_cuda_collect_locked(int wait, int drop_open)
{
    int current = -1, remaining = 0;
    cudaGetDevice(&current);
    int device = current;
    struct mw_cuda_range *prev = NULL, *r = mw_cuda_head;
    while (r) {
        struct mw_cuda_range *next = r->next;
        if (!r->ended) {
            if (drop_open) {
                mw_cuda_range_drop(prev, r);
            } else {
                prev = r;
                remaining++;
            }
            r = next;
            continue;
        }
        if (r->device != device && cudaSetDevice(r->device) == cudaSuccess) device = r->device;
        cudaError_t st = wait ? cudaEventSynchronize(r->end) : cudaEventQuery(r->end);
        if (st == cudaErrorNotReady) {
            prev = r;
            remaining++;
            r = next;
            continue;
        }
        float ms0 = 0, ms1 = 0;
        if (st == cudaSuccess &&
            cudaEventElapsedTime(&ms0, r->anchor->event, r->begin) == cudaSuccess &&
            cudaEventElapsedTime(&ms1, r->anchor->event, r->end) == cudaSuccess)
            mw_probe_event(MW_PROBE_GPU, r->name, mw_cuda_host_ns(r->anchor, ms0),
                           mw_cuda_host_ns(r->anchor, ms1), r->bytes, -1);
        mw_cuda_range_drop(prev, r);
        r = next;
    }
    if (device != current && current >= 0) cudaSetDevice(current);
    return remaining;
}

extern "C" void mw_cuda_begin(const char *name, cudaStream_t stream)
{
    if (!mw_probe_active() || !name) return;
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= MW_CUDA_MAX_DEVICES)
        return;
    const char *iname = mw_probe_intern(name);
    if (!iname) return;
    struct mw_cuda_range *r = (struct mw_cuda_range *)calloc(1, sizeof *r);
    if (!r) return;
    pthread_mutex_lock(&mw_cuda_lock);
    struct mw_cuda_anchor *a = mw_cuda_anchor_current(device);
    r->begin = a ? mw_cuda_event_get(device) : NULL;
    if (!r->begin || cudaEventRecord(r->begin, stream) != cudaSuccess) {
        mw_cuda_event_put(device, r->begin);
        pthread_mutex_unlock(&mw_cuda_lock);
        free(r);
        return;
    }
    r->name = iname;
    r->stream = stream;
    r->device = device;
    r->anchor = a;
    a->refs++;
    if (mw_cuda_tail)
        mw_cuda_tail->next = r;
    else
        mw_cuda_head = r;
    mw_cuda_tail = r;
    pthread_mutex_unlock(&mw_cuda_lock);
}

extern "C" void mw_cuda_end(const char *name, cudaStream_t stream, int64_t bytes)
{
    if (!mw_probe_active() || !name) return;
    pthread_mutex_lock(&mw_cuda_lock);
    struct mw_cuda_range *found = NULL, *found_prev = NULL, *prev = NULL;
    for (struct mw_cuda_range *r = mw_cuda_head; r; prev = r, r = r->next)
        if (!r->ended && r->stream == stream && strcmp(r->name, name) == 0) {
            found = r; /* the latest one wins */
            found_prev = prev;
        }
    if (found) {
        /* the end event belongs to the range's device, whatever the current one is now */
        int current = -1;
        cudaGetDevice(&current);
        int switched = current != found->device && cudaSetDevice(found->device) == cudaSuccess;
        found->end = mw_cuda_event_get(found->device);
        found->ended = 1;
        found->bytes = bytes;
        mw_cuda_pending++;
        cudaError_t st = found->end ? cudaEventRecord(found->end, stream) : cudaErrorUnknown;
        if (switched) cudaSetDevice(current);
        if (st != cudaSuccess)
            mw_cuda_range_drop(found_prev, found);
        else if (mw_cuda_pending % MW_CUDA_COLLECT_EVERY == 0)
            mw_cuda_collect_locked(0, 0);
    }
    pthread_mutex_unlock(&mw_cuda_lock);
}

extern "C" int mw_cuda_collect(void)
{
    if (!mw_probe_active()) return 0;
    pthread_mutex_lock(&mw_cuda_lock);
    int n = mw_cuda_head ? mw_cuda_collect_locked(0, 0) : 0;
    pthread_mutex_unlock(&mw_cuda_lock);
    return n;
}

extern "C" void mw_cuda_finish(void)
{
    if (!mw_probe_active()) return;
    pthread_mutex_lock(&mw_cuda_lock);
    if (mw_cuda_head) mw_cuda_collect_locked(1, 1);
    pthread_mutex_unlock(&mw_cuda_lock);
}
