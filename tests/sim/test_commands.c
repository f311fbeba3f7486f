/* Commands and EEPROM on the real firmware: calibration set/save survives a reset;
 * a blank or corrupted EEPROM gives defaults and the calibration-defaults flag, never
 * garbage; malformed, oversize and unknown commands get error replies while sampling goes
 * on undisturbed; commands that arrive while a window's line is held are all answered,
 * after that line; the watchdog recovers a hung main loop (test build). The calibration
 * record (CALDATE) is saved with the calibration, reported at the end of the I line, and
 * dropped whenever it would describe constants it was not saved with. */
#include <math.h>

#include "config.h"

#include "harness.h"

static int has_line(h_board *h, const char *prefix)
{
    for (int i = 0; i < h->nlines; i++)
        if (!strncmp(h->lines[i], prefix, strlen(prefix))) return 1;
    return 0;
}

static void reboot(h_board *h)
{
    mw_sim_reset(h->sim);
    h->nlines = 0;
    h_forget(h);
    h_wait_boot(h);
}

static void calibration_survives_reset(void **s)
{
    h_board *h = h_open();
    assert_true(has_line(h, "B,1,1")); /* power-on reset, EEPROM blank */
    assert_non_null(strstr(h->lines[1], ",DEFAULT"));
    h_run_windows(h, 2, 2.0);
    assert_true(h->win[1].flags & MW_FLAG_CAL_DEFAULT);

    /* channel 1 gain doubled (reads double power), phase 2.5 degrees */
    assert_string_equal(h_cmd(h, "CAL 1 0.09765625 2.5"), "C,1,0.097656,2.500");
    assert_string_equal(h_cmd(h, "SAVE"), "OK,SAVE");
    reboot(h);
    assert_true(has_line(h, "B,0,0") || has_line(h, "B,10,0")); /* config OK */
    assert_string_equal(h_cmd(h, "CAL? 1"), "C,1,0.097656,2.500");
    assert_string_equal(h_cmd(h, "CAL? 2"), "C,2,0.040000,0.000");
    h_run_windows(h, 2, 2.0);
    assert_false(h->win[h->nwin - 1].flags & MW_FLAG_CAL_DEFAULT);
    h_close(h);
}

static int ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), m = strlen(end);
    return n >= m && !strcmp(s + n - m, end);
}

/* The identification line's last field, the calibration record ("-" when none). */
static const char *id_record(h_board *h)
{
    const char *id = h_cmd(h, "ID");
    mw_proto_ident pid;
    assert_int_equal(mw_proto_parse_ident(id, &pid), 0);
    return strrchr(id, ',') + 1;
}

static void calibration_record_follows_the_calibration(void **s)
{
    h_board *h = h_open();
    assert_true(ends_with(h->lines[1], ",DEFAULT,-")); /* blank EEPROM: no record */
    assert_string_equal(h_cmd(h, "CAL 1 0.05 1.5"), "C,1,0.050000,1.500");
    assert_string_equal(h_cmd(h, "CALDATE 20250314 V230/1:1000W"), "OK,CALDATE");
    assert_string_equal(h_cmd(h, "CALDATE 20251301"), "E,2,bad argument");
    assert_string_equal(id_record(h), "20250314:V230/1:1000W"); /* in RAM, not saved yet */
    assert_string_equal(h_cmd(h, "SAVE"), "OK,SAVE");
    reboot(h);
    assert_true(ends_with(h->lines[1], ",EEPROM,20250314:V230/1:1000W"));
    /* the record block as config.h lays it out, linked to the image */
    uint8_t img[MW_CONFIG_IMAGE_SIZE], rec[MW_CALREC_SIZE];
    assert_int_equal(mw_sim_eeprom_read(h->sim, 0, img, sizeof img), 0);
    assert_int_equal(mw_sim_eeprom_read(h->sim, MW_CALREC_ADDR, rec, sizeof rec), 0);
    mw_calrec r;
    assert_int_equal(mw_calrec_from_image(&r, mw_config_image_crc(img), rec), 1);
    assert_int_equal(r.date_yyyymmdd, 20250314);

    /* a date without a text; a RATE saved later keeps the record */
    assert_string_equal(h_cmd(h, "CALDATE 20250315"), "OK,CALDATE");
    assert_string_equal(h_cmd(h, "RATE 2"), "OK,RATE");
    assert_string_equal(h_cmd(h, "SAVE"), "OK,SAVE");
    reboot(h);
    assert_true(ends_with(h->lines[1], ",2,500,5,A0:A1:A2:A3:A4:A5,EEPROM,20250315"));

    /* a CAL saved without a new CALDATE: the record no longer applies */
    assert_string_equal(h_cmd(h, "CAL 2 0.05 0"), "C,2,0.050000,0.000");
    assert_string_equal(id_record(h), "20250315"); /* unsaved: the EEPROM's still holds */
    assert_string_equal(h_cmd(h, "SAVE"), "OK,SAVE");
    assert_string_equal(id_record(h), "-");
    reboot(h);
    assert_true(ends_with(h->lines[1], ",EEPROM,-"));

    /* a record saved, then the image rewritten as firmware 0.1.0 would (no record block
     * written): the link no longer matches, the record is not believed */
    assert_string_equal(h_cmd(h, "CALDATE 20250316 x"), "OK,CALDATE");
    assert_string_equal(h_cmd(h, "SAVE"), "OK,SAVE");
    mw_config c;
    assert_int_equal(mw_sim_eeprom_read(h->sim, 0, img, sizeof img), 0);
    assert_int_equal(mw_config_from_image(&c, img), MW_CONFIG_OK);
    c.cal[3].gain = 0.06f;
    mw_config_to_image(&c, img);
    assert_int_equal(mw_sim_eeprom_write(h->sim, 0, img, sizeof img), 0);
    reboot(h);
    assert_true(ends_with(h->lines[1], ",EEPROM,-"));
    assert_string_equal(h_cmd(h, "CAL? 3"), "C,3,0.060000,0.000"); /* the v1 image is used */

    /* LOAD brings the saved record back, DEFAULTS drops it */
    assert_string_equal(h_cmd(h, "CALDATE 20250317 y"), "OK,CALDATE");
    assert_string_equal(h_cmd(h, "SAVE"), "OK,SAVE");
    assert_string_equal(h_cmd(h, "DEFAULTS"), "OK,DEFAULTS");
    assert_string_equal(id_record(h), "-");
    assert_true(ends_with(h_cmd(h, "ID"), ",DEFAULT,-"));
    assert_string_equal(h_cmd(h, "LOAD"), "OK,LOAD");
    assert_string_equal(id_record(h), "20250317:y");
    h_close(h);
}

static void corrupt_eeprom_gives_defaults(void **s)
{
    h_board *h = h_open();
    assert_string_equal(h_cmd(h, "CAL 2 0.06 1.0"), "C,2,0.060000,1.000");
    assert_string_equal(h_cmd(h, "SAVE"), "OK,SAVE");
    uint8_t b;
    assert_int_equal(mw_sim_eeprom_read(h->sim, 30, &b, 1), 0);
    b ^= 0x40; /* one flipped bit inside the calibration block */
    assert_int_equal(mw_sim_eeprom_write(h->sim, 30, &b, 1), 0);
    reboot(h);
    assert_true(has_line(h, "B,0,2") || has_line(h, "B,10,2"));    /* 2 = corrupt */
    assert_string_equal(h_cmd(h, "CAL? 2"), "C,2,0.040000,0.000"); /* defaults */
    assert_string_equal(h_cmd(h, "LOAD"), "E,4,EEPROM blank or corrupt, defaults loaded");
    h_run_windows(h, 2, 2.0);
    assert_true(h->win[h->nwin - 1].flags & MW_FLAG_CAL_DEFAULT);
    h_close(h);
}

static void bad_commands_get_errors_sampling_unaffected(void **s)
{
    h_board *h = h_open();
    mw_sim_set_load(h->sim, 1, 200.0, 1.0, MW_SIM_SINE);
    h_run_windows(h, 2, 2.0);
    assert_string_equal(h_cmd(h, "FROB"), "E,1,unknown command");
    assert_string_equal(h_cmd(h, "STARVE 10"), "E,1,unknown command"); /* release build */
    assert_string_equal(h_cmd(h, "CAL 1 abc 0"), "E,2,bad argument");
    assert_string_equal(h_cmd(h, "CAL 16 1 0"), "E,2,bad argument");
    assert_string_equal(h_cmd(h, "CAL 1 1 95"), "E,2,bad argument");
    assert_string_equal(h_cmd(h, "CH 0 1 1"), "E,2,bad argument");
    assert_string_equal(h_cmd(h, "CH 0"), "E,2,bad argument");
    assert_string_equal(h_cmd(h, "ID extra"), "E,2,bad argument");
    char big[400];
    memset(big, 'A', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_string_equal(h_cmd(h, big), "E,3,line too long");
    /* binary garbage with a line end: rejected, and the next command still works */
    int before = h->nlines;
    const char junk[] = "\x01\xff\xfe\x80garbage\r\n";
    assert_int_equal(mw_sim_uart_send(h->sim, junk, sizeof junk - 1), 0);
    h_run(h, 0.05);
    assert_int_equal(h->nlines, before + 1); /* one reply to the junk line ... */
    assert_string_equal(h->lines[before], "E,1,unknown command");
    assert_true(!strncmp(h_cmd(h, "ID"), "I,megawatt,", 11)); /* ... and still listening */
    /* sampling carried on: consecutive windows, nothing missed, power right */
    h_run_windows(h, 2, 2.0);
    for (int i = 1; i < h->nwin; i++) {
        assert_int_equal(h->win[i].seq, h->win[i - 1].seq + 1);
        assert_int_equal(h->win[i].missed, 0);
        assert_true(fabs(h->win[i].ch[0].p_mw / 1e3 - 200.0) < 2.0);
    }
    assert_int_equal(h->rd.bad_crc, 0);
    h_close(h);
}

static void stop_start_and_energy_reset(void **s)
{
    h_board *h = h_open();
    mw_sim_set_load(h->sim, 1, 1000.0, 1.0, MW_SIM_SINE);
    h_run_windows(h, 4, 2.0);
    assert_true(h->win[h->nwin - 1].ch[0].e_mj > 500000); /* > 0.5 kJ after ~1 s */
    assert_string_equal(h_cmd(h, "STOP"), "OK,STOP");
    int n = h->nwin;
    h_run(h, 1.0);
    assert_int_equal(h->nwin, n);
    assert_string_equal(h_cmd(h, "RESET"), "OK,RESET");
    assert_string_equal(h_cmd(h, "START"), "OK,START");
    h_run_windows(h, 1, 1.0);
    /* energy restarted from zero: at most one window (0.25 s * 1 kW = 250 J) */
    assert_true(h->win[h->nwin - 1].ch[0].e_mj <= 260000);
    h_close(h);
}

/* With 15 channels the main loop formats a window's line for ~90 ms, then holds it until
 * 101 ms after the window's end; 117 bytes of commands sent 10 ms into that (fourteen CAL?
 * queries, nearly the 128-byte receive ring) are all answered, in order, after the window's
 * line, which still leaves on time. Lines are recorded in order as they complete. */
typedef struct {
    h_board *h;
    char kind[64]; /* 'W' or the first letter of each other line, in order */
    int n, nbytes;
    int64_t first_ns[64];
} order_rec;

static void order_sink(void *ctx, uint8_t b)
{
    order_rec *R = ctx;
    if (R->nbytes++ == 0 && R->n < 64) R->first_ns[R->n] = (int64_t)mw_sim_time_ns(R->h->sim);
    int nwin = R->h->nwin, nlines = R->h->nlines;
    h_sink(R->h, b);
    if (R->n < 64 && (R->h->nwin > nwin || R->h->nlines > nlines))
        R->kind[R->n++] = R->h->nwin > nwin ? 'W' : R->h->lines[nlines][0];
    if (b == '\n') R->nbytes = 0;
}

static void commands_during_the_line_hold(void **s)
{
    h_board *h = h_open();
    assert_string_equal(h_cmd(h, "RATE 1"), "OK,RATE");
    assert_string_equal(h_cmd(h, "CH 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"), "OK,CH");
    for (int p = 1; p <= 15; p++)
        mw_sim_set_load(h->sim, p, 500, 0.9, MW_SIM_SINE);
    h_forget(h);
    h_run_windows(h, 1, 2.0);
    /* the window after it ends 1 s after this one (within a sample set); 10 ms later its
     * line is being held until 100.984 ms after that end */
    double end_s = mw_sim_adc_sample_time(h->sim, h->win[0].t1_us / 104);
    double now_s = (double)mw_sim_time_ns(h->sim) * 1e-9;
    h_run(h, end_s + 1.010 - now_s);
    order_rec R = {.h = h};
    mw_sim_set_uart_sink(h->sim, order_sink, &R);
    int nlines = h->nlines, nwin = h->nwin;
    char burst[256];
    int len = 0;
    for (int c = 1; c <= 14; c++)
        len += snprintf(burst + len, sizeof burst - (size_t)len, "CAL? %d\r\n", c);
    assert_int_equal(len, 117);
    assert_int_equal(mw_sim_uart_send(h->sim, burst, (size_t)len), 0);
    h_run(h, 0.3);
    assert_int_equal(h->nwin, nwin + 1);
    assert_int_equal(h->nlines, nlines + 14);
    assert_true(R.n == 15 && !strncmp(R.kind, "WCCCCCCCCCCCCCC", 15));
    for (int c = 1; c <= 14; c++) {
        char want[32];
        snprintf(want, sizeof want, "C,%d,0.040000,0.000", c);
        assert_string_equal(h->lines[nlines + c - 1], want);
    }
    /* the window's line left when its hold ended (the board's clock runs true here) */
    const mw_proto_window *w = &h->win[nwin];
    double end1_s = mw_sim_adc_sample_time(h->sim, w->t1_us / 104) - 192.0 / 16e6;
    double off_us = ((double)R.first_ns[0] * 1e-9 - end1_s) * 1e6 - 100984.0;
    print_message("line hold: first byte %+.1f us from its end; then %d replies\n", off_us,
                  R.n - 1);
    assert_true(fabs(off_us) < 5.0);
    h_close(h);
}

static void watchdog_recovers_a_hang(void **s)
{
    h_board *h = h_open_elf(h_elf("MW_FIRMWARE_TEST_ELF", "build/firmware/megawatt-test.elf"));
    h_wait_boot(h);
    assert_string_equal(h_cmd(h, "HANG"), "OK,HANG");
    h->nlines = 0;
    h_forget(h);
    h_run(h, 1.5);                    /* watchdog timeout is 1 s */
    assert_true(has_line(h, "B,8,")); /* WDRF */
    h_run_windows(h, 1, 1.0);
    assert_true(h->win[0].flags & MW_FLAG_WDT_RESET);
    h_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(calibration_survives_reset),
        cmocka_unit_test(calibration_record_follows_the_calibration),
        cmocka_unit_test(corrupt_eeprom_gives_defaults),
        cmocka_unit_test(bad_commands_get_errors_sampling_unaffected),
        cmocka_unit_test(stop_start_and_energy_reset),
        cmocka_unit_test(commands_during_the_line_hold),
        cmocka_unit_test(watchdog_recovers_a_hang),
    };
    return cmocka_run_group_tests_name("commands", tests, NULL, NULL);
}
