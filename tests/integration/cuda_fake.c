/* cuda_fake — libmwprobe_cuda on a simulated GPU, for test_probe_cuda.sh on machines with
 * no GPU (and on those with one).
 *
 * This program defines the 9 CUDA runtime functions libmwprobe_cuda.so calls; the dynamic
 * linker binds the library's calls to these (the executable comes first in the lookup
 * order), not to libcudart. The fake has two devices whose clocks run FAKE_DRIFT_PPM fast
 * and FAKE_OFFSET_NS (device 0) or FAKE_OFFSET1_NS (device 1) off the host's
 * CLOCK_REALTIME. Streams and events belong to the device current when they were created;
 * like the real runtime, recording an event on another device's stream and timing events
 * of two devices against each other fail. A stream is busy
 * until some host time; fake_launch(stream, ns) queues "work" of ns after what is queued;
 * an event recorded on a stream completes when the stream's queued work is done, and its
 * device time is the device clock then. cudaEventQuery/Synchronize/ElapsedTime follow the
 * real semantics (not ready before completion, elapsed in float milliseconds). Events and
 * streams carry a magic word: a use after cudaEventDestroy aborts the program.
 *
 * The scenario, each step printing the host-time truth "expect NAME T0_NS T1_NS BYTES":
 *   "k1"        30 ms of work on stream a
 *   "outer"     (bytes 7) around "inner" (10 ms) then 5 ms more, on stream a: nesting
 *   "a40","b20" 40 ms on stream a and 20 ms on stream b at the same time
 *   "dev1"      (bytes 3) 25 ms on a stream of device 1, ended while device 0 is current
 *   "late"      15 ms after the host slept 1.2 s: the device is re-anchored first
 *   "p50"       50 ms: mw_cuda_collect() right after the end reports it pending
 *               ("pending_now N"), after 70 ms of sleep not ("pending_later N")
 *   "last"      10 ms, ended but never collected: the atexit hook must emit it
 * plus an end without a begin and a begin never ended, which must leave no event. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "mwprobe_cuda.h"

#define FAKE_DRIFT_PPM 1000
#define FAKE_OFFSET_NS (-4242LL * 1000000000LL)
#define FAKE_OFFSET1_NS (777LL * 1000000000LL)
#define FAKE_MAGIC 0x6661CE
#define MS 1000000LL

struct CUevent_st {
    int magic;
    int device;
    int recorded;
    int64_t done_host_ns; /* when the work before it is done */
};
struct CUstream_st {
    int magic;
    int device;
    int64_t busy_until_ns;
};

static int64_t fake_t0_ns;
static int fake_device; /* the current device */

static int64_t host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_until(int64_t t_ns)
{
    struct timespec ts = {(time_t)(t_ns / 1000000000), (long)(t_ns % 1000000000)};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
}

static int64_t device_ns(int device, int64_t h)
{
    int64_t since = h - fake_t0_ns;
    return fake_t0_ns + (device ? FAKE_OFFSET1_NS : FAKE_OFFSET_NS) + since +
           since / 1000000 * FAKE_DRIFT_PPM;
}

static struct CUstream_st fake_default_stream = {FAKE_MAGIC, 0, 0};

static struct CUstream_st *fake_stream(cudaStream_t s)
{
    struct CUstream_st *st = s ? s : &fake_default_stream;
    if (st->magic != FAKE_MAGIC) {
        fprintf(stderr, "cuda_fake: bad stream %p\n", (void *)s);
        abort();
    }
    return st;
}

static void fake_check_event(cudaEvent_t e, const char *what)
{
    if (!e || e->magic != FAKE_MAGIC) {
        fprintf(stderr, "cuda_fake: %s of a bad or destroyed event %p\n", what, (void *)e);
        abort();
    }
}

cudaError_t cudaGetDevice(int *device)
{
    *device = fake_device;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    if (device < 0 || device > 1) return cudaErrorInvalidDevice;
    fake_device = device;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    (void)flags;
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s) return cudaErrorMemoryAllocation;
    s->magic = FAKE_MAGIC;
    s->device = fake_device;
    *stream = s;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e) return cudaErrorMemoryAllocation;
    e->magic = FAKE_MAGIC;
    e->device = fake_device;
    *event = e;
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    fake_check_event(event, "cudaEventDestroy");
    event->magic = 0;
    free(event);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    fake_check_event(event, "cudaEventRecord");
    struct CUstream_st *s = fake_stream(stream);
    if (stream && s->device != event->device) return cudaErrorInvalidResourceHandle;
    int64_t now = host_ns();
    event->recorded = 1;
    event->done_host_ns = s->busy_until_ns > now ? s->busy_until_ns : now;
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    fake_check_event(event, "cudaEventQuery");
    if (!event->recorded) return cudaSuccess;
    return host_ns() >= event->done_host_ns ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    fake_check_event(event, "cudaEventSynchronize");
    if (event->recorded) sleep_until(event->done_host_ns);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    fake_check_event(start, "cudaEventElapsedTime");
    fake_check_event(end, "cudaEventElapsedTime");
    if (!start->recorded || !end->recorded || start->device != end->device)
        return cudaErrorInvalidResourceHandle;
    int64_t now = host_ns();
    if (now < start->done_host_ns || now < end->done_host_ns) return cudaErrorNotReady;
    *ms = (float)((double)(device_ns(end->device, end->done_host_ns) -
                           device_ns(start->device, start->done_host_ns)) /
                  1e6);
    return cudaSuccess;
}

/* Queues ns of work on the stream; returns when it will start (host time). */
static int64_t fake_launch(cudaStream_t stream, int64_t ns)
{
    struct CUstream_st *s = fake_stream(stream);
    int64_t now = host_ns();
    int64_t start = s->busy_until_ns > now ? s->busy_until_ns : now;
    s->busy_until_ns = start + ns;
    return start;
}

static void expect(const char *name, int64_t t0, int64_t t1, int64_t bytes)
{
    printf("expect %s %lld %lld %lld\n", name, (long long)t0, (long long)t1, (long long)bytes);
}

int main(void)
{
    fake_t0_ns = host_ns();
    cudaStream_t a, b;
    if (cudaStreamCreateWithFlags(&a, 0) != cudaSuccess ||
        cudaStreamCreateWithFlags(&b, 0) != cudaSuccess)
        return 1;

    mw_cuda_end("never begun", a, 1);

    mw_cuda_begin("k1", a);
    int64_t t = fake_launch(a, 30 * MS);
    mw_cuda_end("k1", a, 0);
    expect("k1", t, t + 30 * MS, 0);

    mw_cuda_begin("outer", a);
    mw_cuda_begin("inner", a);
    int64_t ti = fake_launch(a, 10 * MS);
    mw_cuda_end("inner", a, 0);
    int64_t to = fake_launch(a, 5 * MS);
    mw_cuda_end("outer", a, 7);
    expect("inner", ti, ti + 10 * MS, 0);
    expect("outer", ti, to + 5 * MS, 7);

    mw_cuda_begin("a40", a);
    int64_t ta = fake_launch(a, 40 * MS);
    mw_cuda_end("a40", a, 0);
    mw_cuda_begin("b20", b);
    int64_t tb = fake_launch(b, 20 * MS);
    mw_cuda_end("b20", b, 0);
    expect("a40", ta, ta + 40 * MS, 0);
    expect("b20", tb, tb + 20 * MS, 0);
    mw_cuda_collect();

    cudaStream_t c;
    if (cudaSetDevice(1) != cudaSuccess || cudaStreamCreateWithFlags(&c, 0) != cudaSuccess)
        return 1;
    mw_cuda_begin("dev1", c);
    t = fake_launch(c, 25 * MS);
    cudaSetDevice(0);
    mw_cuda_end("dev1", c, 3);
    expect("dev1", t, t + 25 * MS, 3);

    sleep_until(host_ns() + 1200 * MS);
    mw_cuda_begin("late", a);
    t = fake_launch(a, 15 * MS);
    mw_cuda_end("late", a, 0);
    expect("late", t, t + 15 * MS, 0);

    mw_cuda_begin("p50", b);
    t = fake_launch(b, 50 * MS);
    mw_cuda_end("p50", b, 0);
    expect("p50", t, t + 50 * MS, 0);
    printf("pending_now %d\n", mw_cuda_collect());
    sleep_until(t + 70 * MS);
    printf("pending_later %d\n", mw_cuda_collect());

    mw_cuda_begin("never ended", b);
    mw_cuda_begin("last", a);
    t = fake_launch(a, 10 * MS);
    mw_cuda_end("last", a, 0);
    expect("last", t, t + 10 * MS, 0);
    printf("fake_t0 %lld drift_ppm %d\n", (long long)fake_t0_ns, FAKE_DRIFT_PPM);
    fflush(stdout);
    free(a); /* the fake's streams; the pending events need none of them */
    free(b);
    free(c);
    return 0; /* "last" is still pending: the library's atexit hook emits it */
}
