/* The meter's side of mw calibrate (host/calibrate.c, mw_calibrate.h) against a fake meter
 * on a pseudo-terminal (a thread answering CAL?, CAL, CALDATE, SAVE and ID, and streaming
 * windows made by the firmware's own encoder):
 *  - the constants read and set, the meter's echo taken; a refusal named with the port, the
 *    command and the reply;
 *  - CALDATE and SAVE; a firmware without the record: saved, with a warning; SAVE refused;
 *    the identification read back with its record;
 *  - a reading: windows in V, W, A and P / (V I); flagged windows counted and left out;
 *    a restart before it, no mains voltage, a clipping ADC, the stop flag or a lost port
 *    fail it, naming the port. */
#include "../unit.h"

#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <time.h>
#include <unistd.h>

#include "crc16.h"
#include "frame.h"
#include "mw_calibrate.h"

typedef struct {
    int master;
    char slave[256];
    pthread_t thread;
    volatile int quit;
    volatile int stream;      /* send a window every 2 ms */
    volatile int no_record;   /* CALDATE refused, as by firmware without the record */
    volatile int refuse_save; /* SAVE refused */
    volatile uint8_t flags;   /* of every streamed window whose seq % 3 != 0 */
    volatile uint16_t clip;   /* ... and its clipping channels */
    double gain[4], phase[4];
    char record[256];
    uint32_t seq;
} fake;

static void send_line(fake *f, const char *body)
{
    char buf[500];
    int n = snprintf(buf, sizeof buf, "%s*%04X\r\n", body, mw_crc16(body, strlen(body)));
    assert_int_equal(write(f->master, buf, (size_t)n), n);
}

static void send_window(fake *f)
{
    mw_frame w;
    memset(&w, 0, sizeof w);
    w.seq = f->seq++;
    w.t0_us = (uint64_t)w.seq * 250016;
    w.t1_us = w.t0_us + 250016;
    w.flags = w.seq % 3 ? f->flags : 0;
    w.clip = w.seq % 3 ? f->clip : 0;
    w.nsets = 401;
    w.freq_mhz = 50000;
    w.vrms_mv = 230000 + (int32_t)(w.seq % 1000);
    w.nchan = 3;
    for (int k = 0; k < 3; k++) {
        w.p_mw[k] = 100000 * (k + 1) + (int32_t)(w.seq % 1000);
        w.irms_ua[k] = 500000 * (k + 1);
        w.pf_milli[k] = 950;
    }
    char buf[1200];
    uint16_t len = mw_frame_encode(&w, buf, sizeof buf);
    assert_int_equal(write(f->master, buf, len), len);
}

static void answer(fake *f, const char *cmd)
{
    char reply[400];
    int k;
    double g, p;
    if (sscanf(cmd, "CAL? %d", &k) == 1 && k >= 0 && k < 4) {
        snprintf(reply, sizeof reply, "C,%d,%.7g,%.3f", k, f->gain[k], f->phase[k]);
    } else if (sscanf(cmd, "CAL %d %lf %lf", &k, &g, &p) == 3 && k >= 0 && k < 4) {
        f->gain[k] = g;
        f->phase[k] = p;
        snprintf(reply, sizeof reply, "C,%d,%.7g,%.3f", k, g, p);
    } else if (!strncmp(cmd, "CALDATE ", 8) && !f->no_record) {
        snprintf(f->record, sizeof f->record, "%s", cmd + 8);
        char *sp = strchr(f->record, ' ');
        if (sp) *sp = ':';
        snprintf(reply, sizeof reply, "OK,CALDATE");
    } else if (!strcmp(cmd, "SAVE") && !f->refuse_save) {
        snprintf(reply, sizeof reply, "OK,SAVE");
    } else if (!strcmp(cmd, "ID")) {
        snprintf(reply, sizeof reply,
                 "I,megawatt,0.1.0,abc123,atmega2560,4,250,3,A0:A1:A2:A3,EEPROM,%s",
                 f->record[0] ? f->record : "-");
    } else {
        snprintf(reply, sizeof reply, "E,REFUSED");
    }
    send_line(f, reply);
}

static void *meter_thread(void *arg)
{
    fake *f = arg;
    char line[256];
    size_t len = 0;
    while (!f->quit) {
        struct pollfd pfd = {.fd = f->master, .events = POLLIN};
        if (poll(&pfd, 1, 2) > 0) {
            char buf[256];
            ssize_t n = read(f->master, buf, sizeof buf);
            for (ssize_t i = 0; i < n; i++) {
                if (buf[i] == '\n') {
                    line[len] = 0;
                    if (len && line[len - 1] == '\r') line[len - 1] = 0;
                    answer(f, line);
                    len = 0;
                } else if (len < sizeof line - 1) {
                    line[len++] = buf[i];
                }
            }
        }
        if (f->stream) send_window(f);
    }
    return NULL;
}

static mw_meter *start(fake *f, mw_cal_link *l)
{
    memset(f, 0, sizeof *f);
    int s;
    assert_int_equal(openpty(&f->master, &s, f->slave, NULL, NULL), 0);
    close(s);
    f->gain[0] = 0.935874;
    for (int k = 1; k < 4; k++)
        f->gain[k] = 0.048828;
    f->phase[2] = -1.5;
    char err[256];
    mw_port *port = mw_port_open(f->slave, NULL, err, sizeof err);
    assert_non_null(port);
    mw_meter *m = mw_meter_new();
    mw_meter_set_port(m, port);
    assert_int_equal(pthread_create(&f->thread, NULL, meter_thread, f), 0);
    *l = (mw_cal_link){.m = m, .path = f->slave, .n_current = 3, .window_ms = 250};
    return m;
}

static void stop(fake *f, mw_meter *m)
{
    f->quit = 1;
    pthread_join(f->thread, NULL);
    mw_meter_close(m);
    close(f->master);
}

static void constants(void **state)
{
    (void)state;
    fake f;
    mw_cal_link l;
    mw_meter *m = start(&f, &l);
    double gain[4], phase[4], g, p;
    char err[512], want[512];
    assert_int_equal(mw_cal_read_constants(&l, gain, phase, err, sizeof err), 0);
    assert_true(gain[0] == 0.935874 && gain[3] == 0.048828 && phase[2] == -1.5);
    assert_int_equal(mw_cal_set(&l, 1, 0.05123456789, 3.21, &g, &p, err, sizeof err), 0);
    assert_true(g == 0.05123457 && p == 3.21); /* as the meter keeps them */
    assert_int_equal(mw_cal_set(&l, 9, 0.05, 3, &g, &p, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: 'CAL 9 0.05 3.000': E,REFUSED", f.slave);
    assert_string_equal(err, want);
    l.n_current = 4; /* the fake has channels 0..3 */
    assert_int_equal(mw_cal_read_constants(&l, gain, phase, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: 'CAL? 4': E,REFUSED", f.slave);
    assert_string_equal(err, want);
    stop(&f, m);
}

static void record(void **state)
{
    (void)state;
    fake f;
    mw_cal_link l;
    mw_meter *m = start(&f, &l);
    char warn[512], err[512], want[512];
    assert_int_equal(mw_cal_save(&l, 20250314, "V230/P:1", warn, sizeof warn, err, sizeof err), 0);
    assert_string_equal(warn, "");
    const mw_proto_ident *id = mw_cal_ident(&l);
    assert_non_null(id);
    assert_int_equal(id->cal_date_yyyymmdd, 20250314);
    assert_string_equal(id->cal_ref, "V230/P:1");
    f.no_record = 1;
    assert_int_equal(mw_cal_save(&l, 20250315, "", warn, sizeof warn, err, sizeof err), 0);
    assert_string_equal(warn, "warning: the meter's firmware keeps no calibration record "
                              "(E,REFUSED): saving the constants without date (flash this "
                              "version's firmware)");
    f.refuse_save = 1;
    assert_int_equal(mw_cal_save(&l, 20250315, "", warn, sizeof warn, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: 'SAVE': E,REFUSED", f.slave);
    assert_string_equal(err, want);
    stop(&f, m);
}

typedef struct {
    double v[4], p[12], i[12], pf[12];
    mw_cal_windows w;
} room;

static void room_init(room *r)
{
    memset(r, 0, sizeof *r);
    r->w = (mw_cal_windows){.vrms_v = r->v, .p_w = r->p, .irms_a = r->i, .pf = r->pf, .cap = 4};
}

static void windows(void **state)
{
    (void)state;
    fake f;
    mw_cal_link l;
    mw_meter *m = start(&f, &l);
    room r;
    room_init(&r);
    char err[512];
    f.stream = 1;
    assert_int_equal(mw_cal_read_windows(&l, &r.w, err, sizeof err), 0);
    assert_int_equal(r.w.n, 4);
    assert_int_equal(r.w.flagged, 0);
    for (int i = 0; i < 4; i++) {
        double extra = r.v[i] - 230; /* seq / 1000 */
        assert_true(extra >= 0 && extra < 1);
        for (int k = 0; k < 3; k++) {
            double p = 100 * (k + 1) + extra, a = 0.5 * (k + 1);
            assert_true(fabs(r.p[k * 4 + i] - p) < 1e-9);
            assert_true(fabs(r.i[k * 4 + i] - a) < 1e-9);
            assert_true(fabs(r.pf[k * 4 + i] - p / (r.v[i] * a)) < 1e-12);
        }
    }
    f.flags = MW_FLAG_OVERRUN; /* two of every three windows */
    assert_int_equal(mw_cal_read_windows(&l, &r.w, err, sizeof err), 0);
    assert_int_equal(r.w.n, 4);
    assert_true(r.w.flagged >= 6 && r.w.flagged <= 8);
    stop(&f, m);
}

static void expect_failure(uint8_t flags, uint16_t clip, const char *boot, int stop_flag,
                           int hang_up, const char *why)
{
    fake f;
    mw_cal_link l;
    mw_meter *m = start(&f, &l);
    volatile sig_atomic_t stopped = stop_flag;
    l.stop = &stopped;
    if (boot) {
        send_line(&f, boot);
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    f.flags = flags;
    f.clip = clip;
    f.stream = !hang_up;
    if (hang_up) {
        f.quit = 1;
        pthread_join(f.thread, NULL);
        close(f.master);
    }
    room r;
    room_init(&r);
    char err[512], want[512];
    assert_int_equal(mw_cal_read_windows(&l, &r.w, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: %s", f.slave, why);
    assert_string_equal(err, want);
    if (hang_up) {
        mw_meter_close(m);
        return;
    }
    stop(&f, m);
}

static void failures_named(void **state)
{
    (void)state;
    expect_failure(0, 0, "B,2,1", 0, 0, "the meter restarted (its calibration in RAM is lost)");
    expect_failure(MW_FLAG_NO_VOLTAGE, 0, NULL, 0, 0, "no mains voltage on the voltage input");
    expect_failure(MW_FLAG_CLIP, 0x5, NULL, 0, 0,
                   "the ADC clips on channel 0 2: beyond full scale");
    expect_failure(0, 0, NULL, SIGINT, 0, "interrupted");
    expect_failure(0, 0, NULL, 0, 1, "the meter went away");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constants),
        cmocka_unit_test(record),
        cmocka_unit_test(windows),
        cmocka_unit_test(failures_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
