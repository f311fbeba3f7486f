/* import — the checking half of mw import (collector/cmd_import.c), callable without the
 * command: the fuzz target tests/fuzz/fuzz_import.c feeds it arbitrary files. */
#ifndef MW_IMPORT_H
#define MW_IMPORT_H
#include <stddef.h>
#include <stdint.h>

/* Parse and check text (len bytes, the contents of file, named in messages) exactly as
 * mw import does before it writes anything. Returns -1 when the file would import, after
 * calling each(ctx, channel, t0_ns, t1_ns) for every window (channels 0, 1, ... in order of
 * first appearance, each channel's windows in order); otherwise the exit code, after the
 * message on stderr. */
int mw_import_check(const char *file, const char *text, size_t len,
                    void (*each)(void *ctx, int channel, int64_t t0_ns, int64_t t1_ns), void *ctx);
#endif
