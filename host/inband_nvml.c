/* inband_nvml — NVIDIA GPUs through NVML, loaded at run time (mw_inband.h, docs/inband.md).
 *
 * libnvidia-ml.so.1 (or MW_NVML_LIBRARY) is opened with dlopen, so mw neither links nor
 * needs it: a machine without the driver gets one note. The entry points are NVML's stable
 * C ABI (nvml.h): nvmlInit_v2, nvmlShutdown, nvmlErrorString, nvmlDeviceGetCount_v2,
 * nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetName, nvmlDeviceGetTotalEnergyConsumption
 * (mJ since the driver loaded; Volta and later) and nvmlDeviceGetPowerUsage (mW, the board's
 * power averaged by the driver). Per GPU the energy counter is used where it answers at
 * discovery, else the power is sampled (MW_INBAND_FLAG_SAMPLED windows). The library stays
 * loaded while any of its sources lives; the last one shuts NVML down. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inband_internal.h"
#include "mw_alloc.h"

#define NVML_SUCCESS 0
#define NVML_NAME_LEN 96

typedef void *nvml_dev; /* nvmlDevice_t, an opaque pointer */

static struct {
    void *lib;
    int refs;
    int (*init)(void);
    int (*shutdown)(void);
    const char *(*error_string)(int);
    int (*count)(unsigned *);
    int (*handle)(unsigned, nvml_dev *);
    int (*name)(nvml_dev, char *, unsigned);
    int (*energy)(nvml_dev, unsigned long long *);
    int (*power)(nvml_dev, unsigned *);
} nv;

static const char *nv_err(int rc)
{
    const char *s = nv.error_string ? nv.error_string(rc) : NULL;
    return s ? s : "NVML error";
}

/* dlopen and dlsym every entry point: 0, or -1 with why */
static int nv_load(char *why, size_t whylen)
{
    const char *path = getenv("MW_NVML_LIBRARY");
    if (!path || !*path) path = "libnvidia-ml.so.1";
    nv.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!nv.lib) {
        snprintf(why, whylen, "%s", dlerror());
        return -1;
    }
    struct {
        const char *sym;
        void **fn;
    } t[] = {
        {"nvmlInit_v2", (void **)&nv.init},
        {"nvmlShutdown", (void **)&nv.shutdown},
        {"nvmlErrorString", (void **)&nv.error_string},
        {"nvmlDeviceGetCount_v2", (void **)&nv.count},
        {"nvmlDeviceGetHandleByIndex_v2", (void **)&nv.handle},
        {"nvmlDeviceGetName", (void **)&nv.name},
        {"nvmlDeviceGetTotalEnergyConsumption", (void **)&nv.energy},
        {"nvmlDeviceGetPowerUsage", (void **)&nv.power},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!(*t[i].fn = dlsym(nv.lib, t[i].sym))) {
            snprintf(why, whylen, "%s: no %s", path, t[i].sym);
            dlclose(nv.lib);
            memset(&nv, 0, sizeof nv);
            return -1;
        }
    int rc = nv.init();
    if (rc != NVML_SUCCESS) {
        snprintf(why, whylen, "nvmlInit: %s", nv_err(rc));
        dlclose(nv.lib);
        memset(&nv, 0, sizeof nv);
        return -1;
    }
    return 0;
}

void mw_inband_nvml_release(void)
{
    if (!nv.lib || --nv.refs > 0) return;
    nv.shutdown();
    dlclose(nv.lib);
    memset(&nv, 0, sizeof nv);
}

static mw_inband_src *gpu_source(unsigned i, nvml_dev dev)
{
    mw_inband_src *s = mw_xcalloc(1, sizeof *s);
    s->fd = -1;
    s->dev = dev;
    s->gpu = (int)i;
    snprintf(s->info.name, sizeof s->info.name, "nvml:gpu%u", i);
    s->info.kind = "nvml";
    snprintf(s->info.domain, sizeof s->info.domain, "gpu");
    char name[NVML_NAME_LEN] = "";
    if (nv.name(dev, name, sizeof name) != NVML_SUCCESS) snprintf(name, sizeof name, "GPU %u", i);
    name[sizeof name - 1] = 0;
    snprintf(s->info.device, sizeof s->info.device, "%s", name);
    s->info.additive = 1;
    unsigned long long mj;
    s->use_energy = nv.energy(dev, &mj) == NVML_SUCCESS;
    s->info.sampled = !s->use_energy;
    return s;
}

int mw_inband_nvml_find(mw_inband_src **src, int max, mw_inband_notes *notes)
{
    char why[512];
    if (!nv.lib && nv_load(why, sizeof why)) {
        mw_inband_note(notes, "nvml: no NVIDIA GPU recorded (%s)", why);
        return 0;
    }
    nv.refs++;
    unsigned n = 0;
    int rc = nv.count(&n);
    if (rc != NVML_SUCCESS || n == 0) {
        mw_inband_note(notes, "nvml: no NVIDIA GPU recorded (%s)",
                       rc != NVML_SUCCESS ? nv_err(rc) : "NVML sees none");
        mw_inband_nvml_release();
        return 0;
    }
    int added = 0;
    for (unsigned i = 0; i < n && added < max; i++) {
        nvml_dev dev;
        if ((rc = nv.handle(i, &dev)) != NVML_SUCCESS) {
            mw_inband_note(notes, "nvml:gpu%u: left out: %s", i, nv_err(rc));
            continue;
        }
        src[added++] = gpu_source(i, dev);
        nv.refs++;
    }
    mw_inband_nvml_release(); /* the discovery's own reference */
    return added;
}

int mw_inband_nvml_read(mw_inband_src *s, uint64_t *energy_uj, int64_t *power_mw, char *why,
                        size_t whylen)
{
    int rc;
    if (s->use_energy) {
        unsigned long long mj;
        if ((rc = nv.energy(s->dev, &mj)) == NVML_SUCCESS) {
            *energy_uj = mj > UINT64_MAX / 1000 ? UINT64_MAX : mj * 1000;
            return 0;
        }
    } else {
        unsigned mw;
        if ((rc = nv.power(s->dev, &mw)) == NVML_SUCCESS) {
            *power_mw = mw;
            return 0;
        }
    }
    snprintf(why, whylen, "%s", nv_err(rc));
    return -1;
}
