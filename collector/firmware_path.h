/* firmware_path — where mw finds the firmware it carries: $MW_FIRMWARE_ELF, else next to
 * the running binary (BUILD/bin/../firmware/), then PREFIX/bin/../share/megawatt/firmware/
 * (an install under any PREFIX), else the compiled-in prefix's share directory. */
#ifndef MW_FIRMWARE_PATH_H
#define MW_FIRMWARE_PATH_H
#include <stddef.h>

/* ext is "elf" or "hex". Writes the first existing candidate into out; returns 0, or -1
 * (out then holds the last candidate tried, for the error message). */
int mw_firmware_path(const char *ext, char *out, size_t outlen);
#endif
