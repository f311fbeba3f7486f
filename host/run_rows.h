/* run_rows — the window cursors of a schema 6 run (run.c's mw_run_windows, mw_run_powers,
 * mw_run_named_windows, mw_run_window_find): windows holds one row per window of a meter
 * (store_internal.h), read back as version 5's samples, in the same orders. Internal to
 * host/. */
#ifndef MW_RUN_ROWS_H
#define MW_RUN_ROWS_H
#include <stdint.h>

#include "mw_store.h"

typedef struct mw_run_rows mw_run_rows;
/* The samples of channel `channel` (every channel when < 0), by time (t1_ns, t0_ns,
 * segment, seq, channel) or by window (segment, seq, channel). full = 0 checks only what
 * mw_run_power hands out (channel, power_mw) against its range. names = 1 keeps the
 * channels' names for mw_run_rows_name. what names the reading in messages. NULL on error
 * (the store's error set). */
mw_run_rows *mw_run_rows_open(mw_store *s, int channel, int by_time, int full, int names,
                              const char *what);
/* 1 with the next sample in *out, 0 at the end, -1 on error (the store's error set; a value
 * out of its column's range: mw_store_bad_input). */
int mw_run_rows_next(mw_run_rows *r, mw_store_sample *out);
/* The name of a channel (channels.name, or its number as text when it has no row there);
 * valid until the next call. */
const char *mw_run_rows_name(mw_run_rows *r, int channel);
/* 1 when opened with names (mw_run_named_windows), else 0 */
int mw_run_rows_named(const mw_run_rows *r);
void mw_run_rows_close(mw_run_rows *r);
/* The window of `channel` with these host times, the first by (segment, seq): 1 with it,
 * 0 when there is none, -1 on error. */
int mw_run_rows_find(mw_store *s, int channel, int64_t t0_ns, int64_t t1_ns,
                     mw_store_sample *out);
#endif
