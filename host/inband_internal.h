/* inband_internal — the in-band source object shared by host/inband*.c (mw_inband.h). */
#ifndef MW_INBAND_INTERNAL_H
#define MW_INBAND_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "mw_inband.h"

struct mw_inband_src {
    mw_inband_info info;
    /* rapl: the domain's energy_uj, kept open (-1: closed, reopened at the next read) */
    char path[4096];
    int fd;
    /* nvml */
    void *dev;      /* nvmlDevice_t */
    int gpu;        /* index */
    int use_energy; /* nvmlDeviceGetTotalEnergyConsumption works */
};

/* the RAPL reader's part of mw_inband_src_read */
int mw_inband_rapl_read(mw_inband_src *s, uint64_t *energy_uj, char *why, size_t whylen);
/* the NVML reader's part of mw_inband_src_read / _free */
int mw_inband_nvml_read(mw_inband_src *s, uint64_t *energy_uj, int64_t *power_mw, char *why,
                        size_t whylen);
void mw_inband_nvml_release(void);
#endif
