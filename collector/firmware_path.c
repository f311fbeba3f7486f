/* firmware_path — see firmware_path.h. */
#include "firmware_path.h"

#include "mw_fs.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

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
    /* a build tree (build/bin/mw), then an install under any PREFIX (PREFIX/bin/mw), then
       the compiled-in prefix */
    char rel_build[64], rel_install[64], fallback[PATH_MAX];
    snprintf(rel_build, sizeof rel_build, "../firmware/megawatt.%s", ext);
    snprintf(rel_install, sizeof rel_install, "../share/megawatt/firmware/megawatt.%s", ext);
    snprintf(fallback, sizeof fallback, "%s/share/megawatt/firmware/megawatt.%s", MW_PREFIX, ext);
    const char *const rel[] = {rel_build, rel_install, NULL};
    return mw_fs_find_beside_exe(rel, fallback, out, outlen);
}
