/* cuda_phases — a CUDA program with known GPU phases, for test_probe_cuda.sh.
 *
 * On one non-blocking stream, each bracketed with mw_cuda_begin/end (mwprobe_cuda.h):
 *   "h2d"     a 64 MiB copy host (pinned) to device, bytes 67108864
 *   "spin50"  a kernel that spins on the GPU's %globaltimer for 50 ms
 *   "spin100" the same for 100 ms
 *   "spin150" the same for 150 ms
 *   "d2h"     a 64 MiB copy device to host, bytes 67108864
 * Each item is waited for before the next is put on the stream; for each the program
 * prints "gpu NAME T0_NS T1_NS BYTES", the host's CLOCK_REALTIME just before the item is
 * queued and just after the stream synchronised, so the test knows an interval that must
 * contain the GPU event's mapped times. mw_cuda_collect() runs after each wait and
 * mw_cuda_finish() at the end. Exit status 3 when CUDA fails (no device, ...). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime.h>

#include "mwprobe_cuda.h"

#define COPY_BYTES (64LL << 20)

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

__global__ void spin_kernel(long long ns, unsigned long long *out)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while ((long long)(t - t0) < ns);
    if (threadIdx.x == 0 && blockIdx.x == 0) *out = t - t0;
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "cuda_phases: %s: %s\n", #call, cudaGetErrorString(e_));               \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

int main(void)
{
    cudaStream_t s;
    void *host, *dev;
    unsigned long long *spun;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMallocHost(&host, COPY_BYTES));
    CHECK(cudaMalloc(&dev, COPY_BYTES));
    CHECK(cudaMalloc((void **)&spun, sizeof *spun));

    int64_t t0 = now_ns();
    mw_cuda_begin("h2d", s);
    CHECK(cudaMemcpyAsync(dev, host, COPY_BYTES, cudaMemcpyHostToDevice, s));
    mw_cuda_end("h2d", s, COPY_BYTES);
    CHECK(cudaStreamSynchronize(s));
    printf("gpu h2d %lld %lld %lld\n", (long long)t0, (long long)now_ns(), COPY_BYTES);
    mw_cuda_collect();

    static const int ms[3] = {50, 100, 150};
    static const char *const names[3] = {"spin50", "spin100", "spin150"};
    for (int i = 0; i < 3; i++) {
        t0 = now_ns();
        mw_cuda_begin(names[i], s);
        spin_kernel<<<1, 32, 0, s>>>(ms[i] * 1000000LL, spun);
        CHECK(cudaGetLastError());
        mw_cuda_end(names[i], s, 0);
        CHECK(cudaStreamSynchronize(s));
        printf("gpu %s %lld %lld 0\n", names[i], (long long)t0, (long long)now_ns());
        mw_cuda_collect();
    }

    t0 = now_ns();
    MW_CUDA_RANGE("d2h", s, COPY_BYTES,
                  CHECK(cudaMemcpyAsync(host, dev, COPY_BYTES, cudaMemcpyDeviceToHost, s)));
    CHECK(cudaStreamSynchronize(s));
    printf("gpu d2h %lld %lld %lld\n", (long long)t0, (long long)now_ns(), COPY_BYTES);

    mw_cuda_finish();
    CHECK(cudaFree(spun));
    CHECK(cudaFree(dev));
    CHECK(cudaFreeHost(host));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
