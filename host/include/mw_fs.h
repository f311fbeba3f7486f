/* mw_fs — file-system helpers shared by the run store and the commands that write
 * directories (mw record, import, sweep, plot, report). */
#ifndef MW_FS_H
#define MW_FS_H
#include <stddef.h>

/* Makes directory path and its missing parents (mode 0777 less the umask), like mkdir -p;
 * trailing slashes are ignored. *made (may be NULL) is how many trailing components of path
 * it created (0 when path existed), for undoing with rmdir. Returns 0, or -1 with errno set
 * and "PATH: cannot create directory COMPONENT: reason" in err (err may be NULL). */
int mw_fs_mkdirs(const char *path, int *made, char *err, size_t errlen);

/* The first readable file of: each rel[] (NULL-terminated) taken from the folder of the
 * running executable (/proc/self/exe), e.g. "../share/megawatt/plots/trace.gp" for an
 * install under any PREFIX or "../firmware/megawatt.elf" for a build tree; then the
 * absolute fallback (may be NULL). Writes it into out and returns 0; or -1, out then
 * holding the last candidate tried (for the message). */
int mw_fs_find_beside_exe(const char *const rel[], const char *fallback, char *out, size_t outlen);
#endif
