/* mw_export — a run as a trace for the tools people already use: an OTF2 archive (Vampir,
 * Score-P's tools, otf2-print, python3-otf2) and Chrome/Perfetto trace-event JSON
 * (ui.perfetto.dev, chrome://tracing). Both read the run through mw_run.h's cursors; call
 * them inside mw_run_snapshot_begin/end for one consistent snapshot of a run being recorded.
 *
 * What goes where (docs/cli.md, "mw export"):
 * - Phases: one timeline per (host, rank, thread), its GPU work apart, each a stack of
 *   nested phases; phases that overlap without nesting go to a further "lane" of the same
 *   thread. OTF2: a location per timeline (a location group per rank, in a system-tree node
 *   per host), each phase an Enter/Leave of a region per (kind, name) (description: the
 *   kind), its bytes and MPI peer as attributes "bytes", "peer" on the Enter, and MPI_Send /
 *   MPI_Ssend / MPI_Rsend / MPI_Bsend / MPI_Recv with a peer also as MpiSend / MpiRecv
 *   (msgLength: the bytes) on one communicator of all ranks (the run records no communicator
 *   nor tag: tag 0). Perfetto: a process per host, a thread per timeline, each phase a
 *   complete event ("ph":"X"; cat: the kind; args rank, thread, bytes, peer).
 * - Power: every channel's windows. OTF2: a metric (member "power", W, double,
 *   OTF2_METRIC_ABSOLUTE_LAST: each value holds since the channel's previous metric event)
 *   on its own metric location, scoped to its host's system-tree node (the root for a
 *   channel of no host); a window's power at its end, and a NaN at the start of every
 *   stretch of windows (the run's first, and after a gap) so that no value spans a gap.
 *   Perfetto: a counter track "CHANNEL" (args {"W": power}) in its host's process, a value
 *   at each window's start and 0 where a stretch ends. Either way Σ P·Δt over consecutive
 *   events is the channels' energy, window by window.
 * Times: OTF2 in CLOCK_REALTIME ns (timer resolution 1e9, global offset the earliest
 * time); Perfetto in µs since the run's earliest time (its start, first phase or first
 * window; otherData.origin_ns holds it in CLOCK_REALTIME ns), written with up to 3 decimals, so
 * exactly. */
#ifndef MW_EXPORT_H
#define MW_EXPORT_H
#include <stddef.h>
#include <stdio.h>

#include "mw_store.h"

/* Writes the run as an OTF2 archive in directory dir (dir/traces.otf2, dir/traces.def,
 * dir/traces/), made complete under a temporary name beside dir and renamed to dir only
 * then; dir must not exist (errno EEXIST). Returns 0, or -1 with errno set and the message
 * in err (nothing is left behind). */
int mw_export_otf2(mw_store *s, const char *dir, char *err, size_t errlen);

/* Writes the run as Chrome/Perfetto trace-event JSON to out. Returns 0, or -1 with the
 * message in err (a read error; out's own write errors are the caller's to check). */
/* The schema name and version of the Perfetto JSON, in its otherData.schema
 * (docs/schemas/megawatt.perfetto-1.schema.json). */
#define MW_EXPORT_PERFETTO_SCHEMA "megawatt.perfetto/1"
int mw_export_perfetto(mw_store *s, FILE *out, char *err, size_t errlen);
#endif
