/* plots_path — see plots_path.h. The same search as firmware_path.c, with the templates'
 * place in the source tree (plots/ beside build/) instead of the build's firmware/. */
#include "plots_path.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef MW_PREFIX
#define MW_PREFIX "/usr/local"
#endif

int mw_plots_path(const char *name, char *out, size_t outlen)
{
    const char *env = getenv("MW_PLOTS_DIR");
    if (env && *env) {
        snprintf(out, outlen, "%s/%s", env, name);
        return access(out, R_OK) == 0 ? 0 : -1;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        const char *dir = dirname(exe);
        /* an install under any PREFIX (PREFIX/bin/mw: PREFIX/share/megawatt/plots), then a
           build tree (REPO/build/bin/mw: REPO/plots) */
        snprintf(out, outlen, "%s/../share/megawatt/plots/%s", dir, name);
        if (access(out, R_OK) == 0) return 0;
        snprintf(out, outlen, "%s/../../plots/gnuplot/%s", dir, name);
        if (access(out, R_OK) == 0) return 0;
    }
    snprintf(out, outlen, "%s/share/megawatt/plots/%s", MW_PREFIX, name);
    return access(out, R_OK) == 0 ? 0 : -1;
}
