/* mwprobe_cuda — GPU phases for libmwprobe: bracket kernels and copies with CUDA events.
 *
 * mw_cuda_begin(name, stream) records a CUDA event on the stream before the work,
 * mw_cuda_end(name, stream, bytes) one after it; neither waits for the GPU. When the end
 * event has completed, mw_cuda_collect() reads both events' device times, puts them on the
 * host clock and writes one event of kind "gpu" (MW_PROBE_GPU) with the name and bytes.
 * Call mw_cuda_collect() at points where the program synchronises anyway (it never blocks)
 * and mw_cuda_finish() (which waits) before the program's last CUDA call; it also runs at
 * exit. A begin is closed by the latest open end of the same name on the same stream, so
 * ranges may nest.
 *
 * Device time to host time: an anchor event is recorded on an idle stream of its own right
 * after a host time stamp and waited for (the fastest of 3 tries; the anchor is the middle
 * of host time before the record and after the wait, half that span its uncertainty, which
 * is recorded as the counter "cuda anchor uncertainty ns"). An event's host time is the
 * anchor's plus cudaEventElapsedTime(anchor, event). Each device is re-anchored when its
 * anchor is over 1 s old, so the error from clock drift stays below drift x 1 s (10 us at
 * 10 ppm) and float rounding below 0.1 us.
 *
 * Link with -lmwprobe_cuda -lmwprobe (build/lib/libmwprobe_cuda.so, built when nvcc is
 * present). Without MW_RUN_DIR (inert probe) every function returns at once and makes no
 * CUDA call at all. Thread-safe: one lock around the list of ranges. Names must stay valid
 * until mw_cuda_begin returns (they are interned). Usable from C and C++/CUDA. */
#ifndef MWPROBE_CUDA_H
#define MWPROBE_CUDA_H
#include <stdint.h>
#include <cuda_runtime_api.h>

#if defined(__GNUC__) || defined(__clang__)
#define MW_CUDA_API __attribute__((visibility("default")))
#else
#define MW_CUDA_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Records the start of the GPU work named name that the caller is about to put on stream
 * (0 or cudaStreamLegacy: the legacy default stream; cudaStreamPerThread works too). */
MW_CUDA_API void mw_cuda_begin(const char *name, cudaStream_t stream);
/* Records the end of the latest open range of this name on stream; bytes: data moved (a
 * copy's size), 0 for a kernel. An end without a begin is ignored. */
MW_CUDA_API void mw_cuda_end(const char *name, cudaStream_t stream, int64_t bytes);
/* Emits every range whose end event has completed; never waits. Returns how many ranges
 * are still pending (open, or not yet completed on the GPU). */
MW_CUDA_API int mw_cuda_collect(void);
/* Waits for every ended range's events, emits them, and drops ranges still open. */
MW_CUDA_API void mw_cuda_finish(void);

/* MW_CUDA_RANGE(name, stream, bytes, statements...): the statements bracketed. */
#define MW_CUDA_RANGE(name, stream, bytes, ...)                                                    \
    do {                                                                                           \
        mw_cuda_begin((name), (stream));                                                           \
        __VA_ARGS__;                                                                               \
        mw_cuda_end((name), (stream), (bytes));                                                    \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
