/* fuzz_proto — the host's decoder of the meter's wire protocol (host/protocol.c, mw_proto.h).
 *
 * The input is a byte stream from the meter: it goes byte by byte through mw_proto_reader,
 * and each line that passes the CRC goes to every body parser (window, identification,
 * boot, calibration); the whole input, as one string, goes to the parsers and to the CRC
 * check too, so inputs need not carry a valid CRC to reach them. Invariants beyond "no
 * sanitizer report":
 *   - the reader's line is NUL-terminated within MW_PROTO_MAX_LINE, its counters only grow;
 *   - a parsed window has nchan <= 15, t1 >= t0, a period of the six rates, a line hold
 *     below that period; a window whose values fit the firmware's frame is encoded again by
 *     the firmware's own encoder (mw_frame_encode) and that line decodes to the same window
 *     (the decoder and the encoder agree on the grammar);
 *   - an identification has 1..15 channels, pins 0..15, terminated strings, a plausible
 *     date; a calibration line has a finite gain and phase. */
#include <math.h>

#include "frame.h"
#include "fuzz.h"
#include "mw_proto.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    return 0;
}

static void same_window(const mw_proto_window *a, const mw_proto_window *b)
{
    FUZZ_CHECK(a->seq == b->seq && a->t0_us == b->t0_us && a->t1_us == b->t1_us);
    FUZZ_CHECK(a->flags == b->flags && a->nsets == b->nsets && a->missed == b->missed);
    FUZZ_CHECK(a->clip == b->clip && a->freq_mhz == b->freq_mhz && a->vrms_mv == b->vrms_mv);
    FUZZ_CHECK(a->nchan == b->nchan);
    for (int k = 0; k < a->nchan; k++) {
        FUZZ_CHECK(a->ch[k].p_mw == b->ch[k].p_mw && a->ch[k].irms_ua == b->ch[k].irms_ua);
        FUZZ_CHECK(a->ch[k].pf_milli == b->ch[k].pf_milli && a->ch[k].e_mj == b->ch[k].e_mj);
    }
}

/* Encode w with the firmware's encoder when it fits the frame's types, decode it again. */
static void round_trip(const mw_proto_window *w)
{
    if (w->flags > 0xFF || w->nsets > 0xFFFF || w->missed > 0xFFFF || w->clip > 0xFFFF ||
        w->nchan > MW_MAX_I)
        return;
    mw_frame f = {.seq = w->seq,
                  .t0_us = w->t0_us,
                  .t1_us = w->t1_us,
                  .flags = (uint8_t)w->flags,
                  .nsets = (uint16_t)w->nsets,
                  .missed = (uint16_t)w->missed,
                  .clip = (uint16_t)w->clip,
                  .freq_mhz = w->freq_mhz,
                  .vrms_mv = w->vrms_mv,
                  .nchan = (uint8_t)w->nchan};
    for (int k = 0; k < w->nchan; k++) {
        f.p_mw[k] = w->ch[k].p_mw;
        f.irms_ua[k] = w->ch[k].irms_ua;
        f.pf_milli[k] = (int16_t)w->ch[k].pf_milli;
        f.e_mj[k] = w->ch[k].e_mj;
    }
    char buf[MW_PROTO_MAX_LINE + 8];
    uint16_t n = mw_frame_encode(&f, buf, sizeof buf);
    if (!n) return; /* longer than a line may be: the decoder never sees it */
    mw_proto_reader r;
    mw_proto_reader_init(&r);
    int lines = 0;
    mw_proto_window back;
    for (uint16_t i = 0; i < n; i++)
        if (mw_proto_reader_push(&r, (uint8_t)buf[i])) {
            lines++;
            FUZZ_CHECK(mw_proto_parse_window(r.line, &back) == 0);
        }
    FUZZ_CHECK(lines == 1);
    same_window(w, &back);
}

static int in_cstr(const char *s, size_t cap)
{
    return memchr(s, 0, cap) != NULL;
}

static void bodies(const char *body)
{
    mw_proto_window w;
    if (mw_proto_parse_window(body, &w) == 0) {
        FUZZ_CHECK(w.nchan >= 0 && w.nchan <= MW_PROTO_MAX_I);
        FUZZ_CHECK(w.t1_us >= w.t0_us);
        uint32_t period = mw_proto_period_us(&w);
        FUZZ_CHECK(period == 1000000 || period == 500000 || period == 250000 || period == 200000 ||
                   period == 125000 || period == 100000);
        int64_t hold = mw_proto_hold_ns(&w);
        FUZZ_CHECK(hold >= 0 && hold < (int64_t)period * 1000);
        round_trip(&w);
    }
    mw_proto_ident id;
    if (mw_proto_parse_ident(body, &id) == 0) {
        FUZZ_CHECK(id.n_current >= 1 && id.n_current <= MW_PROTO_MAX_I);
        for (int k = 0; k <= id.n_current; k++)
            FUZZ_CHECK(id.pin[k] >= 0 && id.pin[k] <= 15);
        FUZZ_CHECK(in_cstr(id.fw_version, sizeof id.fw_version));
        FUZZ_CHECK(in_cstr(id.build_id, sizeof id.build_id));
        FUZZ_CHECK(in_cstr(id.mcu, sizeof id.mcu));
        FUZZ_CHECK(in_cstr(id.cal_source, sizeof id.cal_source));
        FUZZ_CHECK(in_cstr(id.cal_ref, sizeof id.cal_ref));
        FUZZ_CHECK(id.cal_date_yyyymmdd == 0 ||
                   (id.cal_date_yyyymmdd >= 20000101 && id.cal_date_yyyymmdd <= 29991231));
    }
    uint32_t mcusr;
    int status;
    if (mw_proto_parse_boot(body, &mcusr, &status) == 0) FUZZ_CHECK(status >= 0 && status <= 255);
    int channel;
    double gain, phase;
    if (mw_proto_parse_cal(body, &channel, &gain, &phase) == 0) {
        FUZZ_CHECK(channel >= 0 && channel <= MW_PROTO_MAX_I);
        FUZZ_CHECK(isfinite(gain) && isfinite(phase));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mw_proto_reader r;
    mw_proto_reader_init(&r);
    uint64_t bad = 0, dropped = 0, overlong = 0;
    for (size_t i = 0; i < size; i++) {
        int got = mw_proto_reader_push(&r, data[i]);
        FUZZ_CHECK(r.len <= MW_PROTO_MAX_LINE);
        FUZZ_CHECK(r.bad_crc >= bad && r.dropped_bytes >= dropped && r.overlong >= overlong);
        bad = r.bad_crc;
        dropped = r.dropped_bytes;
        overlong = r.overlong;
        if (got) {
            FUZZ_CHECK(in_cstr(r.line, sizeof r.line));
            bodies(r.line);
        }
    }
    char *s = fuzz_cstr(data, size);
    size_t len = strlen(s);
    int body = mw_proto_check_crc(s, len);
    FUZZ_CHECK(body == -1 || (body >= 0 && (size_t)body + 5 == len));
    bodies(s);
    free(s);
    return 0;
}
