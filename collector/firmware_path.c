/* firmware_path — see firmware_path.h. */
#include "firmware_path.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MW_PREFIX
#define MW_PREFIX "/usr/local"
#endif

int mw_firmware_path(const char *ext, char *out, size_t outlen)
{
    const char *env = getenv(strcmp(ext, "hex") ? "MW_FIRMWARE_ELF" : "MW_FIRMWARE_HEX");
    if (env && *env) {
        snprintf(out, outlen, "%s", env);
        return access(out, R_OK) == 0 ? 0 : -1;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        const char *dir = dirname(exe);
        /* a build tree (build/bin/mw), then an install under any PREFIX (PREFIX/bin/mw) */
        snprintf(out, outlen, "%s/../firmware/megawatt.%s", dir, ext);
        if (access(out, R_OK) == 0)
            return 0;
        snprintf(out, outlen, "%s/../share/megawatt/firmware/megawatt.%s", dir, ext);
        if (access(out, R_OK) == 0)
            return 0;
    }
    snprintf(out, outlen, "%s/share/megawatt/firmware/megawatt.%s", MW_PREFIX, ext);
    return access(out, R_OK) == 0 ? 0 : -1;
}
