/* The procedure of mw calibrate (models/calib_session.c) against a simulated meter whose
 * truth is known: the mains at 230 V read through a voltage gain 5.6 % high; channel 1's
 * sensor leads by 3 degrees, its gain 2.3 % low, a resistive load of 1000 W; channel 2's
 * sensor lags by 2 degrees, a load of 2 A at PF 0.9; channel 3 without load. The meter reads
 * V = counts x gain, I likewise, P = V I cos(x - phi) with x the current's angle (sensor lead
 * minus load lag) and phi the phase set (calib.h), every window alike. Checked:
 *  - one step finds the true gains and phases (the new constants make the meter read the
 *    references), with the readings announced in order and nothing to warn about;
 *  - a channel without load is refused before anything is set;
 *  - a load that changes during the step fails the check: undone when asked (rows and
 *    constants back), else kept and flagged;
 *  - a meter refusing CAL, or failing a reading, stops the step (FATAL) saying why;
 *  - restore sets back the start's constants, keep makes them the start's; the record's
 *    text from the references used. */
#include "../unit.h"

#include "calib_session.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))
#define DEG (M_PI / 180)

typedef struct {
    double v_true, gv_true;                 /* mains V rms, the true V per count */
    double i_true[4], gi_true[4], x_deg[4]; /* channel k: current, A per count, angle */
    double gain[4], phase[4];               /* in the meter */
    double drift_after; /* from this reading on, channel 1's current x 1.05 (0: never) */
    int reads, sets, fail_set_at, fail_read_at; /* the n-th call fails (0: none) */
    char events[16][200];
    int nevents;
} fake;

static int fake_set(void *ctx, int ch, double gain, double phase_deg, double *gain_set,
                    double *phase_set, char *err, size_t errlen)
{
    fake *f = ctx;
    if (++f->sets == f->fail_set_at) {
        snprintf(err, errlen, "/dev/fake: 'CAL %d': E,RANGE", ch);
        return -1;
    }
    *gain_set = f->gain[ch] = gain;
    *phase_set = f->phase[ch] = phase_deg;
    return 0;
}

static int fake_read(void *ctx, mw_cal_windows *w, char *err, size_t errlen)
{
    fake *f = ctx;
    if (++f->reads == f->fail_read_at) {
        snprintf(err, errlen, "/dev/fake: the meter went away");
        return -1;
    }
    double v = f->v_true / f->gv_true * f->gain[0];
    for (size_t i = 0; i < w->cap; i++) {
        w->vrms_v[i] = v;
        for (int k = 1; k <= 3; k++) {
            double itrue =
                f->i_true[k] * (k == 1 && f->drift_after && f->reads >= f->drift_after ? 1.05 : 1);
            double a = itrue / f->gi_true[k] * f->gain[k];
            double pf = cos((f->x_deg[k] - f->phase[k]) * DEG);
            size_t at = (size_t)(k - 1) * w->cap + i;
            w->irms_a[at] = a;
            w->p_w[at] = v * a * pf;
            w->pf[at] = a > 0 ? pf : 0;
        }
    }
    w->n = w->cap;
    w->flagged = 1;
    return 0;
}

static void fake_event(void *ctx, mw_calib_event ev, const char *text, const mw_calib_reading *r)
{
    fake *f = ctx;
    if (f->nevents == 16) return;
    char *e = f->events[f->nevents++];
    if (ev == MW_CALIB_EV_READ)
        snprintf(e, 200, "read %zu/%zu/%zu", r->n, r->flagged, r->outliers);
    else
        snprintf(e, 200, "%s %s",
                 ev == MW_CALIB_EV_READING       ? "reading"
                 : ev == MW_CALIB_EV_READ_FAILED ? "failed"
                                                 : "say",
                 text);
}

static void start(fake *f, mw_calib_session *s)
{
    memset(f, 0, sizeof *f);
    f->v_true = 230;
    f->gv_true = 0.9;
    f->gain[0] = 0.95;
    f->i_true[1] = 1000.0 / 230;
    f->gi_true[1] = 0.05;
    f->x_deg[1] = 3; /* resistive: lead 3, lag 0 */
    f->i_true[2] = 2;
    f->gi_true[2] = 0.04;
    f->x_deg[2] = -2 - acos(0.9) / DEG; /* lead -2, lag acos 0.9 */
    f->gi_true[3] = 0.05;
    for (int k = 1; k <= 3; k++)
        f->gain[k] = 0.048828;
    mw_calib_io io = {.ctx = f, .set = fake_set, .read = fake_read, .event = fake_event};
    mw_calib_session_init(s, &io, 3, 8, f->gain, f->phase);
}

static const mw_calib_ref refs[2] = {{1, 1000, 0, 1}, {2, 0, 2, 0.9}};

static void one_step_finds_the_truth(void **state)
{
    (void)state;
    fake f;
    mw_calib_session s;
    start(&f, &s);
    assert_int_equal(mw_calib_step(&s, 230, refs, 2, 0), 0);
    NEAR(s.gain[0], 0.9, 1e-9);
    NEAR(s.gain[1], 0.05, 1e-9);
    NEAR(s.phase_deg[1], 3, 1e-6);
    NEAR(s.gain[2], 0.04, 1e-9);
    NEAR(s.phase_deg[2], -2, 1e-6);
    assert_true(s.gain[3] == 0.048828 && s.phase_deg[3] == 0); /* untouched */
    assert_false(s.check_failed);
    assert_int_equal(s.nrows, 5); /* voltage, channel 1 W and PF, channel 2 A and PF */
    assert_string_equal(s.rows[0].what, "voltage");
    NEAR(s.rows[0].before, 230 / 0.9 * 0.95, 1e-9);
    NEAR(s.rows[0].after, 230, 1e-9);
    assert_string_equal(s.rows[1].unit, "W");
    NEAR(s.rows[1].after, 1000, 1e-6);
    assert_true(s.rows[2].is_pf);
    NEAR(s.rows[2].after, 1, 1e-9);
    assert_string_equal(s.rows[3].unit, "A");
    NEAR(s.rows[3].after, 2, 1e-9);
    NEAR(s.rows[4].after, 0.9, 1e-9);
    static const char *const want[] = {
        "reading at the calibration in use",
        "read 8/1/0",
        "reading with the phase of channels 1 2 +5 deg",
        "read 8/1/0",
        "reading with the phase of channels 1 2 -5 deg",
        "read 8/1/0",
        "reading with the new calibration",
        "read 8/1/0",
    };
    assert_int_equal(f.nevents, 8);
    for (int i = 0; i < 8; i++)
        assert_string_equal(f.events[i], want[i]);
    assert_true(mw_calib_changed(&s));
    char note[MW_CALIB_NOTE_MAX + 1];
    mw_calib_session_note(&s, note);
    assert_string_equal(note, "V230/P:1/I:2");
    mw_calib_restore(&s);
    assert_false(mw_calib_changed(&s));
    assert_true(f.gain[1] == 0.048828 && f.phase[1] == 0); /* back in the meter */
}

static void no_load_refused(void **state)
{
    (void)state;
    fake f;
    mw_calib_session s;
    start(&f, &s);
    f.i_true[3] = 0.01;
    mw_calib_ref r = {3, 100, 0, 1};
    assert_int_equal(mw_calib_step(&s, 0, &r, 1, 0), MW_CALIB_STEP_UNDONE);
    assert_int_equal(f.sets, 0);
    assert_int_equal(f.nevents, 3);
    assert_string_equal(f.events[2], "say channel 3: 0.010 A rms is 0.2 ADC counts: no load on "
                                     "it, or far too small a one to calibrate with");
    assert_false(mw_calib_changed(&s));
    assert_int_equal(s.nrows, 0);
}

static void changing_load(void **state)
{
    (void)state;
    fake f;
    mw_calib_session s;
    start(&f, &s);
    f.drift_after = 4; /* reading D */
    assert_int_equal(mw_calib_step(&s, 0, refs, 1, 1), MW_CALIB_STEP_UNDONE);
    assert_int_equal(s.nrows, 0);
    assert_false(mw_calib_changed(&s));
    assert_true(f.gain[1] == 0.048828 && f.phase[1] == 0);
    assert_string_equal(f.events[f.nevents - 1],
                        "say the check with the new constants is out by more than 1 % (or 0.01 in "
                        "PF): the load or the mains changed meanwhile, or the reference is wrong; "
                        "this step is undone");
    start(&f, &s);
    f.drift_after = 4;
    assert_int_equal(mw_calib_step(&s, 0, refs, 1, 0), 0);
    assert_true(s.check_failed);
    assert_int_equal(s.nrows, 2);
    NEAR(s.rows[0].after, 1050, 1e-6);
    assert_true(mw_calib_changed(&s));
    mw_calib_keep(&s);
    assert_false(mw_calib_changed(&s));
}

static void meter_failures(void **state)
{
    (void)state;
    fake f;
    mw_calib_session s;
    start(&f, &s);
    f.fail_set_at = 2; /* channel 2's +5 degrees */
    assert_int_equal(mw_calib_step(&s, 0, refs, 2, 0), MW_CALIB_STEP_FATAL);
    assert_string_equal(f.events[f.nevents - 1], "say /dev/fake: 'CAL 2': E,RANGE");
    start(&f, &s);
    f.fail_read_at = 2;
    assert_int_equal(mw_calib_step(&s, 230, refs, 1, 0), MW_CALIB_STEP_FATAL);
    assert_int_equal(f.nevents, 4);
    assert_string_equal(f.events[3], "failed /dev/fake: the meter went away");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_step_finds_the_truth),
        cmocka_unit_test(no_load_refused),
        cmocka_unit_test(changing_load),
        cmocka_unit_test(meter_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
