/* Meter session against the real firmware: the simulated board on its pty, opened by the
 * same code as a real meter (collector/meter_spec.c "sim"). Identification at open, replies
 * matched to commands while windows keep arriving (none lost in between), an error reply
 * reported as such, and a RATE change seen as a new segment with windows of the new length.
 * Runs in real time (a few seconds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "meter_spec.h"

static void commands_and_windows(void **state)
{
    mw_meter_spec *ms;
    assert_int_equal(mw_meter_spec_open("test", "sim", &ms), 0);
    mw_meter *m = mw_meter_spec_meter(ms);
    const mw_proto_ident *id = mw_meter_ident(m);
    assert_non_null(id);
    assert_string_equal(id->fw_version, MW_VERSION);
    assert_int_equal(id->rate_hz, 4);
    assert_int_equal(id->n_current, 5);
    assert_int_equal(id->pin[3], 3);

    char reply[256];
    /* replies within 10 s (a few ms on a quiet machine; a board lagging on a loaded one
     * answers late, and waiting longer costs nothing when it answers) */
    assert_int_equal(mw_meter_command(m, "CAL? 1", "C,", reply, sizeof reply, 10000), 0);
    assert_string_equal(reply, "C,1,0.040000,0.000");
    assert_int_equal(mw_meter_command(m, "RATE 3", "OK,RATE", reply, sizeof reply, 10000), 1);
    assert_string_equal(reply, "E,2,bad argument");
    char cal[512];
    assert_int_equal(mw_meter_spec_calibration(m, cal, sizeof cal), 0);
    assert_true(!strncmp(cal, "0:0.7666", 8));
    assert_non_null(strstr(cal, ";1:0.040000,0.000;2:"));

    /* windows: seq continuous through the commands above, then RATE 10 restarts them */
    mw_meter_event ev;
    int n4 = 0, n10 = 0, seg0 = -1;
    uint32_t last = 0;
    int sent = 0;
    for (int i = 0; i < 400 && n10 < 5; i++) {
        int r = mw_meter_next(m, &ev, 500);
        assert_true(r >= 0);
        if (r == 0 || ev.type != MW_METER_WINDOW) continue;
        if (seg0 < 0) seg0 = ev.segment;
        if (ev.segment == seg0) {
            if (n4) assert_int_equal(ev.w.seq, last + 1);
            assert_int_equal(ev.lost, 0);
            last = ev.w.seq;
            n4++;
            if (n4 == 3 && !sent) {
                assert_int_equal(
                    mw_meter_command(m, "RATE 10", "OK,RATE", reply, sizeof reply, 10000), 0);
                sent = 1;
            }
        } else {
            assert_int_equal(ev.segment, seg0 + 1);
            assert_int_equal(ev.restart, n10 == 0);
            /* 100 ms windows, give or take one sample set */
            assert_true(ev.w.t1_us - ev.w.t0_us > 99000 && ev.w.t1_us - ev.w.t0_us < 101000);
            n10++;
        }
    }
    assert_true(n4 >= 3);
    assert_int_equal(n10, 5);
    mw_meter_stats st;
    mw_meter_get_stats(m, &st);
    assert_int_equal(st.bad_crc, 0);
    assert_int_equal(st.restarts, 1);
    mw_meter_spec_close(ms);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(commands_and_windows)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
