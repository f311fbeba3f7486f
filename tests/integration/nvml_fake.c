/* nvml_fake — a stand-in libnvidia-ml.so.1 for test_inband.sh on machines without an NVIDIA
 * driver: the NVML entry points mw's reader (host/inband_nvml.c) dlopens, answering from
 * GPUs whose truth the test knows. Built with gcc -shared by the test, found through
 * LD_LIBRARY_PATH by the real dlopen path.
 *
 * FAKE_NVML_POWER_MW: the GPUs' constant powers, comma-separated (default
 * "250000,75000": two GPUs); FAKE_NVML_NO_ENERGY: the index of a GPU without an energy
 * counter (nvmlDeviceGetTotalEnergyConsumption says NOT_SUPPORTED, as on pre-Volta GPUs;
 * default 1, -1 for none); FAKE_NVML_INIT_FAIL=1: nvmlInit fails (driver not loaded). A GPU's
 * energy counter is its power x the CLOCK_MONOTONIC time since nvmlInit, in mJ. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define MAX_GPUS 8

typedef struct fake_gpu {
    unsigned index;
    long long power_mw;
} fake_gpu;

static fake_gpu gpus[MAX_GPUS];
static unsigned ngpus;
static int no_energy = 1;
static long long t0_ns;

static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int nvmlInit_v2(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int rc);
int nvmlDeviceGetCount_v2(unsigned *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, fake_gpu **dev);
int nvmlDeviceGetName(fake_gpu *dev, char *name, unsigned len);
int nvmlDeviceGetTotalEnergyConsumption(fake_gpu *dev, unsigned long long *mj);
int nvmlDeviceGetPowerUsage(fake_gpu *dev, unsigned *mw);

int nvmlInit_v2(void)
{
    const char *f = getenv("FAKE_NVML_INIT_FAIL");
    if (f && !strcmp(f, "1")) return NVML_ERROR_DRIVER_NOT_LOADED;
    const char *p = getenv("FAKE_NVML_POWER_MW");
    char buf[256];
    snprintf(buf, sizeof buf, "%s", p ? p : "250000,75000");
    ngpus = 0;
    for (char *t = strtok(buf, ","); t && ngpus < MAX_GPUS; t = strtok(NULL, ",")) {
        gpus[ngpus].index = ngpus;
        gpus[ngpus].power_mw = atoll(t);
        ngpus++;
    }
    const char *ne = getenv("FAKE_NVML_NO_ENERGY");
    no_energy = ne ? atoi(ne) : 1;
    t0_ns = mono_ns();
    return NVML_SUCCESS;
}

int nvmlShutdown(void)
{
    return NVML_SUCCESS;
}

const char *nvmlErrorString(int rc)
{
    return rc == NVML_ERROR_DRIVER_NOT_LOADED ? "Driver Not Loaded"
           : rc == NVML_ERROR_NOT_SUPPORTED   ? "Not Supported"
                                              : "Unknown Error";
}

int nvmlDeviceGetCount_v2(unsigned *n)
{
    *n = ngpus;
    return NVML_SUCCESS;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, fake_gpu **dev)
{
    if (i >= ngpus) return NVML_ERROR_INVALID_ARGUMENT;
    *dev = &gpus[i];
    return NVML_SUCCESS;
}

int nvmlDeviceGetName(fake_gpu *dev, char *name, unsigned len)
{
    snprintf(name, len, "Fake GPU %u", dev->index);
    return NVML_SUCCESS;
}

int nvmlDeviceGetTotalEnergyConsumption(fake_gpu *dev, unsigned long long *mj)
{
    if ((int)dev->index == no_energy) return NVML_ERROR_NOT_SUPPORTED;
    /* mW x ns = pJ; / 1e9 = mJ */
    *mj = (unsigned long long)((__int128)dev->power_mw * (mono_ns() - t0_ns) / 1000000000);
    return NVML_SUCCESS;
}

int nvmlDeviceGetPowerUsage(fake_gpu *dev, unsigned *mw)
{
    *mw = (unsigned)dev->power_mw;
    return NVML_SUCCESS;
}
