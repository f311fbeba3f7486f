/* phase_codec — the compact encoding of a run store's phase_blocks.data (docs/run-store.md):
 * the events of one thread of one process, sorted by start, as five LEB128 varints each:
 *
 *   start_ns - the previous event's start_ns (the block's start_ns for the first), >= 0
 *   end_ns - start_ns, >= 0
 *   name: a phase_names.id, >= 0
 *   bytes, zigzag-coded (a signed value v as 2v, or -2v-1 when negative)
 *   peer, zigzag-coded
 *
 * A 0-byte MPI call 10 µs after the previous one that lasts 2 µs takes 2+2+1+1+1 = 7 bytes.
 * The decoder trusts nothing: a varint longer than 10 bytes, a block cut short, a time that
 * would overflow int64 or run backwards is an error (a trace.db may come from anyone).
 * Internal to libmw (merge.c writes, run.c reads, tests/unit/host/test_phase_codec.c). */
#ifndef MW_PHASE_CODEC_H
#define MW_PHASE_CODEC_H
#include <stddef.h>
#include <stdint.h>

/* bytes one event may take at most */
#define MW_PC_EVENT_MAX 50

typedef struct {
    int64_t start_ns, end_ns, bytes;
    int64_t name; /* phase_names.id */
    int32_t peer;
} mw_pc_event;

/* Encodes n events (sorted by start_ns, end_ns >= start_ns, name >= 0) into out, which has
 * room for n * MW_PC_EVENT_MAX bytes; the first delta is taken from base_ns (<= the first
 * start). Returns the bytes written, or 0 when the events break those rules. */
size_t mw_pc_encode(const mw_pc_event *ev, size_t n, int64_t base_ns, unsigned char *out);

typedef struct {
    const unsigned char *p, *end;
    int64_t prev_ns;
} mw_pc_reader;

void mw_pc_reader_init(mw_pc_reader *r, const void *data, size_t len, int64_t base_ns);
/* 1 with the next event in *ev, 0 at the end, -1 when the data is damaged. */
int mw_pc_next(mw_pc_reader *r, mw_pc_event *ev);
#endif
