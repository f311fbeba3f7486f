/* plots_path — see plots_path.h. The same search as firmware_path.c (mw_fs_find_beside_exe),
 * with the templates' place in the source tree (plots/gnuplot/ beside build/). */
#include "plots_path.h"

#include "mw_fs.h"

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
    /* an install under any PREFIX (PREFIX/bin/mw: PREFIX/share/megawatt/plots), then a build
       tree (REPO/build/bin/mw: REPO/plots/gnuplot), then the compiled-in prefix */
    char rel_install[PATH_MAX], rel_build[PATH_MAX], fallback[PATH_MAX];
    snprintf(rel_install, sizeof rel_install, "../share/megawatt/plots/%s", name);
    snprintf(rel_build, sizeof rel_build, "../../plots/gnuplot/%s", name);
    snprintf(fallback, sizeof fallback, "%s/share/megawatt/plots/%s", MW_PREFIX, name);
    const char *const rel[] = {rel_install, rel_build, NULL};
    return mw_fs_find_beside_exe(rel, fallback, out, outlen);
}
