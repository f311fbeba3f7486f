/* phase_codec — see phase_codec.h. */
#include "phase_codec.h"

static unsigned char *put_u64(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static uint64_t zigzag(int64_t v)
{
    return v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1;
}

static int64_t unzigzag(uint64_t u)
{
    return (u & 1) ? (int64_t) ~(u >> 1) : (int64_t)(u >> 1);
}

size_t mw_pc_encode(const mw_pc_event *ev, size_t n, int64_t base_ns, unsigned char *out)
{
    unsigned char *p = out;
    int64_t prev = base_ns;
    for (size_t i = 0; i < n; i++) {
        const mw_pc_event *e = &ev[i];
        if (e->start_ns < prev || e->end_ns < e->start_ns || e->name < 0) return 0;
        p = put_u64(p, (uint64_t)e->start_ns - (uint64_t)prev);
        p = put_u64(p, (uint64_t)e->end_ns - (uint64_t)e->start_ns);
        p = put_u64(p, (uint64_t)e->name);
        p = put_u64(p, zigzag(e->bytes));
        p = put_u64(p, zigzag(e->peer));
        prev = e->start_ns;
    }
    return (size_t)(p - out);
}

void mw_pc_reader_init(mw_pc_reader *r, const void *data, size_t len, int64_t base_ns)
{
    r->p = data;
    r->end = r->p ? r->p + len : r->p;
    r->prev_ns = base_ns;
}

/* 0 with the varint in *v, -1 when cut short or longer than 64 bits */
static int get_u64(mw_pc_reader *r, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p == r->end) return -1;
        unsigned char b = *r->p++;
        if (shift == 63 && b > 1) return -1;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

int mw_pc_next(mw_pc_reader *r, mw_pc_event *ev)
{
    if (r->p == r->end) return 0;
    uint64_t d, len, name, bytes, peer;
    if (get_u64(r, &d) || get_u64(r, &len) || get_u64(r, &name) || get_u64(r, &bytes) ||
        get_u64(r, &peer))
        return -1;
    int64_t peer_v = unzigzag(peer);
    __int128 start = (__int128)r->prev_ns + d, end = start + len;
    if (end > INT64_MAX || name > INT64_MAX || peer_v < INT32_MIN || peer_v > INT32_MAX) return -1;
    ev->start_ns = (int64_t)start;
    ev->end_ns = (int64_t)end;
    ev->name = (int64_t)name;
    ev->bytes = unzigzag(bytes);
    ev->peer = (int32_t)peer_v;
    r->prev_ns = (int64_t)start;
    return 1;
}
