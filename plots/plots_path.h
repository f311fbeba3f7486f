/* plots_path — where mw finds its gnuplot templates (plots/NAME.gp): $MW_PLOTS_DIR, else
 * PREFIX/bin/../share/megawatt/plots/ beside the running binary (an install under any
 * PREFIX, `make install`), then the source tree of a build (BUILD/bin/../../plots/gnuplot/: build/bin/mw
 * in the repository), else the compiled-in prefix's share directory. Mirrors firmware_path.h. */
#ifndef MW_PLOTS_PATH_H
#define MW_PLOTS_PATH_H
#include <stddef.h>

/* name is a template's file name ("trace.gp"). Writes the first existing candidate into
 * out; returns 0, or -1 (out then holds the last candidate tried, for the error message). */
int mw_plots_path(const char *name, char *out, size_t outlen);
#endif
