/* Host decoder (host/protocol.c): windows encoded by the firmware's encoder decode to the
 * same numbers, and so does the example line of docs/protocol.md, written out here; the reader
 * resynchronises after garbage, drops bad CRCs and overlong lines; malformed fields are rejected.
 */
#include "../unit.h"

#include "frame.h"
#include "mw_proto.h"

/* A window encoded by the firmware's own encoder (firmware/portable/frame.c). */
static size_t encode(char *buf, size_t cap, int nchan)
{
    mw_frame f;
    memset(&f, 0, sizeof f);
    f.seq = 7;
    f.t0_us = 250224;
    f.t1_us = 500448;
    f.flags = MW_FLAG_OVERRUN | MW_FLAG_CAL_DEFAULT | MW_FLAG_FIRST;
    f.nsets = 401;
    f.freq_mhz = 50001;
    f.vrms_mv = 230079;
    f.nchan = (uint8_t)nchan;
    for (int k = 0; k < nchan; k++) {
        f.p_mw[k] = -150123 * (k + 1);
        f.irms_ua[k] = 653496;
        f.pf_milli[k] = -999;
        f.e_mj[k] = 5000000000LL + k;
    }
    return mw_frame_encode(&f, buf, (uint16_t)cap);
}

static int feed(mw_proto_reader *r, const char *s, size_t n, mw_proto_window *w)
{
    int got = 0;
    for (size_t i = 0; i < n; i++)
        if (mw_proto_reader_push(r, (uint8_t)s[i])) {
            assert_int_equal(mw_proto_parse_window(r->line, w), 0);
            got++;
        }
    return got;
}

static void decodes_what_the_firmware_encodes(void **s)
{
    char buf[1024];
    size_t n = encode(buf, sizeof buf, 15);
    assert_true(n > 0);
    mw_proto_reader r;
    mw_proto_reader_init(&r);
    mw_proto_window w;
    assert_int_equal(feed(&r, buf, n, &w), 1);
    assert_int_equal(w.seq, 7);
    assert_int_equal(w.t0_us, 250224);
    assert_int_equal(w.t1_us, 500448);
    assert_int_equal(w.flags, MW_FLAG_OVERRUN | MW_FLAG_CAL_DEFAULT | MW_FLAG_FIRST);
    assert_int_equal(w.nsets, 401);
    assert_int_equal(w.freq_mhz, 50001);
    assert_int_equal(w.vrms_mv, 230079);
    assert_int_equal(w.nchan, 15);
    assert_int_equal(w.ch[14].p_mw, -150123 * 15);
    assert_int_equal(w.ch[3].pf_milli, -999);
    assert_true(w.ch[2].e_mj == 5000000002LL);
}

/* The example window of docs/protocol.md, captured from the simulated board. */
static void decodes_the_documented_example(void **s)
{
    const char *line = "W,0,0,250432,18,344,0,0,50001,230178;-596,23807,-109,-149;-159,23632,-29,-39;"
                       "126,24013,23,31;-307,23427,-57,-76;-210,23975,-38,-52*B73A\r\n";
    mw_proto_reader r;
    mw_proto_reader_init(&r);
    mw_proto_window w;
    assert_int_equal(feed(&r, line, strlen(line), &w), 1);
    assert_int_equal(w.flags, MW_FLAG_FIRST | MW_FLAG_CAL_DEFAULT);
    assert_int_equal(w.t1_us, 250432);
    assert_int_equal(w.nsets, 344); /* 2,408 conversions in sets of 5 + 2 */
    assert_int_equal(w.t1_us / 104, 344 * 7);
    assert_int_equal(w.freq_mhz, 50001);
    assert_int_equal(w.nchan, 5);
    assert_int_equal(w.ch[0].p_mw, -596);
    assert_int_equal(w.ch[4].p_mw, -210);
    assert_true(w.ch[4].e_mj == -52);
}

static void resynchronises_after_garbage(void **s)
{
    char buf[1024], stream[4096];
    size_t n = encode(buf, sizeof buf, 5);
    size_t m = 0;
    memcpy(stream + m, "\xff\x00garbage", 9);
    m += 9;
    memcpy(stream + m, buf + 10, n - 10); /* a torn line: bad CRC */
    m += n - 10;
    memcpy(stream + m, buf, n); /* then a whole one */
    m += n;
    mw_proto_reader r;
    mw_proto_reader_init(&r);
    mw_proto_window w;
    assert_int_equal(feed(&r, stream, m, &w), 1);
    assert_int_equal(r.bad_crc, 1);
    /* every single-bit error in a line is caught */
    for (size_t i = 0; i < (n - 2) * 8; i++) {
        char t[1024];
        memcpy(t, buf, n);
        t[i / 8] ^= (char)(1 << (i % 8));
        if (t[i / 8] == '\r' || t[i / 8] == '\n') continue;
        mw_proto_reader_init(&r);
        int got = 0;
        for (size_t j = 0; j < n; j++)
            got += mw_proto_reader_push(&r, (uint8_t)t[j]);
        assert_int_equal(got, 0);
    }
}

static void overlong_lines_dropped(void **s)
{
    mw_proto_reader r;
    mw_proto_reader_init(&r);
    for (int i = 0; i < 100000; i++)
        assert_int_equal(mw_proto_reader_push(&r, 'A'), 0);
    assert_int_equal(mw_proto_reader_push(&r, '\n'), 0);
    assert_int_equal(r.overlong, 1);
    char buf[1024];
    size_t n = encode(buf, sizeof buf, 1);
    mw_proto_window w;
    assert_int_equal(feed(&r, buf, n, &w), 1);
}

static void malformed_windows_rejected(void **s)
{
    mw_proto_window w;
    const char *bad[] = {"W",
                         "W,",
                         "W,1,2,1,0,1,0,0,50000,230000",           /* t1 < t0 */
                         "W,1,0,1,G,1,0,0,50000,230000",           /* bad hex */
                         "W,1,0,1,0,1,0,0,50000",                  /* missing field */
                         "W,1,0,1,0,1,0,0,50000,230000;1,2,3",     /* short channel */
                         "W,1,0,1,0,1,0,0,50000,230000;1,2,3,4,5", /* long channel */
                         "W,1,0,1,0,1,0,0,50000,230000;1,-2,3,4",  /* negative Irms */
                         "W,-1,0,1,0,1,0,0,50000,230000",          /* negative seq */
                         "W,1,0,1,0,1,0,0,50000,230000;",          /* empty channel */
                         "W,1,0,1,0,1,0,0,5e4,230000",             /* not an integer */
                         "I,megawatt"};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (mw_proto_parse_window(bad[i], &w) == 0) fail_msg("accepted '%s'", bad[i]);
    assert_int_equal(mw_proto_parse_window("W,1,0,1,0,1,0,0,50000,230000", &w), 0);
    assert_int_equal(w.nchan, 0);
}

/* The line hold of a window (docs/protocol.md), worked out by hand: min(8 ms + 6.2 ms per
 * current channel, period - 20 ms), rounded down to whole conversions of 104 us; the period
 * is the nominal one nearest to the window's length (a window is whole sample sets long). */
static void line_hold_of_a_window(void **s)
{
    mw_proto_window w;
    memset(&w, 0, sizeof w);
    static const struct {
        uint64_t len_us; /* t1 - t0 */
        int nchan;
        uint32_t period_us;
        int64_t hold_ns;
    } c[] = {
        {250224, 5, 250000, 39000000},     /* 39 ms = 375 conversions */
        {249600, 1, 250000, 14144000},     /* 14.2 ms -> 136 -> 14.144 ms */
        {1000896, 15, 1000000, 100984000}, /* 101 ms -> 971 -> 100.984 */
        {100048, 15, 100000, 79976000},    /* capped: 80 ms -> 769 -> 79.976 */
        {100048, 11, 100000, 76128000},    /* 76.2 ms -> 732 -> 76.128 */
        {125008, 15, 125000, 100984000},   /* 105 ms cap not reached */
        {200096, 15, 200000, 100984000},
        {499408, 2, 500000, 20384000}, /* 20.4 ms -> 196 -> 20.384 */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        w.t0_us = 1000000000ull;
        w.t1_us = w.t0_us + c[i].len_us;
        w.nchan = c[i].nchan;
        assert_int_equal(mw_proto_period_us(&w), c[i].period_us);
        assert_int_equal(mw_proto_hold_ns(&w), c[i].hold_ns);
    }
}

/* Identification lines of firmware 0.1.0 end at cal_source; newer ones add the
 * calibration record ("-", "yyyymmdd" or "yyyymmdd:TEXT"): both parse, anything else not. */
static void identification_old_and_new(void **s)
{
    mw_proto_ident id;
    assert_int_equal(
        mw_proto_parse_ident("I,megawatt,0.1.0,abc123,atmega2560,4,250,5,A0:A1:A2:A3:A4:A5,DEFAULT",
                             &id),
        0);
    assert_string_equal(id.cal_source, "DEFAULT");
    assert_int_equal(id.n_current, 5);
    assert_int_equal(id.pin[5], 5);
    assert_int_equal(id.cal_date_yyyymmdd, 0);
    assert_string_equal(id.cal_ref, "");
    assert_int_equal(
        mw_proto_parse_ident("I,megawatt,0.1.0,abc123,atmega2560,4,250,2,A0:A1:A7,DEFAULT,-", &id),
        0);
    assert_int_equal(id.pin[2], 7);
    assert_int_equal(id.cal_date_yyyymmdd, 0);
    assert_string_equal(id.cal_ref, "");
    assert_int_equal(
        mw_proto_parse_ident("I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,20250314", &id),
        0);
    assert_string_equal(id.cal_source, "EEPROM");
    assert_int_equal(id.cal_date_yyyymmdd, 20250314);
    assert_string_equal(id.cal_ref, "");
    assert_int_equal(
        mw_proto_parse_ident(
            "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,20251231:V230/1:1000W", &id),
        0);
    assert_int_equal(id.cal_date_yyyymmdd, 20251231);
    assert_string_equal(id.cal_ref, "V230/1:1000W");
    const char *bad[] = {
        "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,",             /* empty */
        "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,2025031",      /* 7 digits */
        "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,20251301",     /* month 13 */
        "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,20250314:",    /* empty text */
        "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,20250314:a b", /* space */
        "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,20250314:a;b", /* ; */
        "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,20250314:12345678901234567",
        "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,20250314,extra", /* 12 fields */
        "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,--",
        "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1,EEPROM,202503140",
        "I,megawatt,0.1.0,x,atmega2560,4,250,1,A0:A1", /* no source */
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (mw_proto_parse_ident(bad[i], &id) == 0) fail_msg("accepted '%s'", bad[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(decodes_what_the_firmware_encodes),
                                       cmocka_unit_test(decodes_the_documented_example),
                                       cmocka_unit_test(resynchronises_after_garbage),
                                       cmocka_unit_test(overlong_lines_dropped),
                                       cmocka_unit_test(malformed_windows_rejected),
                                       cmocka_unit_test(line_hold_of_a_window),
                                       cmocka_unit_test(identification_old_and_new)};
    return cmocka_run_group_tests_name("protocol", tests, NULL, NULL);
}
