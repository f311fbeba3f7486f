/* mw pareto's computation (models/pareto.c, pareto.h) on profiles read by the reader:
 *  - the hand case of test_lbopa.c (C 1 unit/s 1 J/unit, A 3 units/s 3 J/unit, B 2 units/s
 *    2 J/unit given by points with b=2; n = 12): front points (2, 28), (4, 20), (12, 12), the
 *    split at each; at 3 s the split C 3, A 3, B 6 for 24 J; for 16 J the time 8 s, split
 *    8, 0, 4; LBOPA-TE at P_S = 2 W from (2 s, 32 J) to (4 s, 28 J), so 30 J total takes 3 s;
 *    times and energies off the front; n = 13.5 has no integer split;
 *  - b= on a device with points is kept exactly; the builder's refusal names FILE:LINE and
 *    the device;
 *  - the additivity figure worked by hand (test_pareto.sh: 1.635 %), and its refusals. */
#include "../unit.h"

#include "pareto.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void read_text(const char *text, mw_profile *p)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(in);
    char err[256];
    assert_int_equal(mw_profile_read(in, "f.txt", p, err, sizeof err), 0);
    fclose(in);
}

static const char *hand = "n 12\n"
                          "static_power 2\n"
                          "device C a=1 b=1\n"
                          "device A a=0.333333333333333333 b=3\n"
                          "device B 4:2 8:4 b=2\n";

static void hand_front(void **state)
{
    (void)state;
    mw_profile p;
    mw_pareto_devices d;
    mw_pareto_solution s;
    char err[256];
    read_text(hand, &p);
    assert_int_equal(mw_pareto_devices_build(&p, &d, err, sizeof err), 0);
    assert_int_equal(d.k, 3);
    assert_int_equal(d.dev[2].kind, MW_LBOPA_F_PWL);
    assert_true(d.dev[2].b_J_per_unit == 2); /* b= kept exactly */
    assert_int_equal(d.dev[2].npoints, 2);
    assert_int_equal(
        mw_pareto_solve(d.dev, d.k, 12, 2, 1, MW_PARETO_BY_TIME, 3, &s, err, sizeof err), 0);
    const mw_pareto_front *f = &s.front;
    assert_int_equal(f->nseg, 2);
    static const double t[] = {2, 4, 12}, e[] = {28, 20, 12};
    static const double split[3][3] = {{2, 6, 4}, {4, 0, 8}, {12, 0, 0}}; /* C, A, B */
    for (int r = 0; r <= f->nseg; r++) {
        NEAR(f->t_s[r], t[r], 1e-9);
        NEAR(f->e_J[r], e[r], 1e-9);
        for (int i = 0; i < 3; i++)
            NEAR(s.split_units[r * 3 + i], split[r][i], 1e-9);
    }
    NEAR(s.t_s, 3, 1e-12);
    NEAR(s.e_J, 24, 1e-9);
    NEAR(s.x_units[0], 3, 1e-9);
    NEAR(s.x_units[1], 3, 1e-9);
    NEAR(s.x_units[2], 6, 1e-9);
    assert_true(s.has_int);
    assert_true(s.xi[0] == 3 && s.xi[1] == 3 && s.xi[2] == 6);
    NEAR(s.int_t_s, 3, 1e-9);
    NEAR(s.int_e_J, 24, 1e-9);
    assert_true(s.has_te);
    NEAR(s.te.tmin_s, 2, 1e-9);
    NEAR(s.te.emax_J, 32, 1e-9);
    assert_int_equal(s.te.npieces, 1);
    NEAR(s.te.piece[0].t1_s, 4, 1e-9);
    NEAR(s.te.piece[0].e1_J, 28, 1e-9);
    mw_pareto_solution_free(&s);

    assert_int_equal(
        mw_pareto_solve(d.dev, d.k, 12, 0, 0, MW_PARETO_BY_ENERGY, 16, &s, err, sizeof err), 0);
    assert_false(s.has_te);
    NEAR(s.t_s, 8, 1e-9);
    NEAR(s.x_units[0], 8, 1e-9);
    NEAR(s.x_units[1], 0, 1e-9);
    NEAR(s.x_units[2], 4, 1e-9);
    mw_pareto_solution_free(&s);

    assert_int_equal(
        mw_pareto_solve(d.dev, d.k, 12, 2, 1, MW_PARETO_BY_TOTAL_ENERGY, 30, &s, err, sizeof err),
        0);
    NEAR(s.t_s, 3, 1e-9);
    NEAR(s.e_J + 2 * s.t_s, 30, 1e-9);
    mw_pareto_solution_free(&s);

    assert_int_equal(
        mw_pareto_solve(d.dev, d.k, 13.5, 0, 0, MW_PARETO_BY_TIME, 5, &s, err, sizeof err), 0);
    assert_false(s.has_int); /* n not an integer */
    mw_pareto_solution_free(&s);

    assert_int_equal(
        mw_pareto_solve(d.dev, d.k, 12, 0, 0, MW_PARETO_NO_QUERY, 0, &s, err, sizeof err), 0);
    assert_int_equal(s.by, MW_PARETO_NO_QUERY);
    mw_pareto_solution_free(&s);
    mw_pareto_devices_free(&d);
    mw_profile_free(&p);
}

static void off_the_front(void **state)
{
    (void)state;
    mw_profile p;
    mw_pareto_devices d;
    mw_pareto_solution s;
    char err[256];
    read_text(hand, &p);
    assert_int_equal(mw_pareto_devices_build(&p, &d, err, sizeof err), 0);
    assert_int_equal(
        mw_pareto_solve(d.dev, d.k, 12, 0, 0, MW_PARETO_BY_TIME, 1, &s, err, sizeof err),
        MW_PARETO_OFF_FRONT);
    NEAR(s.front.t_s[0], 2, 1e-9); /* the front is there for the message */
    mw_pareto_solution_free(&s);
    assert_int_equal(
        mw_pareto_solve(d.dev, d.k, 12, 0, 0, MW_PARETO_BY_TIME, 100, &s, err, sizeof err),
        MW_PARETO_OFF_FRONT);
    mw_pareto_solution_free(&s);
    assert_int_equal(
        mw_pareto_solve(d.dev, d.k, 12, 0, 0, MW_PARETO_BY_ENERGY, 5, &s, err, sizeof err),
        MW_PARETO_OFF_FRONT);
    NEAR(s.front.e_J[s.front.nseg], 12, 1e-9);
    mw_pareto_solution_free(&s);
    assert_int_equal(
        mw_pareto_solve(d.dev, d.k, 12, 2, 1, MW_PARETO_BY_TOTAL_ENERGY, 5, &s, err, sizeof err),
        MW_PARETO_OFF_FRONT);
    NEAR(mw_pareto_te_least_energy_J(&s.te), 28, 1e-9);
    double t;
    assert_int_equal(mw_pareto_te_time_for_energy_s(&s.te, 40, &t), 0);
    NEAR(t, 2, 1e-12); /* above the fastest point's energy: the fastest point */
    mw_pareto_solution_free(&s);
    mw_pareto_devices_free(&d);
    mw_profile_free(&p);
}

static void builder_refusal_named(void **state)
{
    (void)state;
    mw_profile p;
    mw_pareto_devices d;
    char err[256];
    read_text("n 10\ndevice X a=1 b=1\ndevice Y 5:1 3:2 b=1\n", &p);
    assert_int_equal(mw_pareto_devices_build(&p, &d, err, sizeof err), -1);
    assert_string_equal(err, "f.txt:3: device 'Y': mean time 1 s at size 5 is not above 2 s at "
                             "size 3");
    assert_null(d.dev);
    mw_profile_free(&p);
    read_text("n 3\ndevice X 1:2:0 2:3:0\n", &p);
    assert_int_equal(mw_pareto_devices_build(&p, &d, err, sizeof err), -1);
    assert_string_equal(err, "f.txt:2: device 'X': dynamic energy per unit 0 J is not positive");
    mw_profile_free(&p);
}

static void additivity(void **state)
{
    (void)state;
    mw_profile p;
    char err[256];
    double rel;
    size_t n;
    read_text("n 1000\n"
              "device cpu 100:1.0:50 200:2.1:101 400:4.3:199 200:2.1:99\n"
              "device gpu 100:0.5:20 200:0.9:41 400:1.7:80\n"
              "together 100:72 200:140 400:283\n",
              &p);
    assert_int_equal(mw_pareto_additivity(&p, &rel, &n, err, sizeof err), 0);
    /* 100: |70 - 72| / 72; 200: |100 + 41 - 140| / 140; 400: |279 - 283| / 283 */
    NEAR(rel, (2.0 / 72 + 1.0 / 140 + 4.0 / 283) / 3, 1e-12);
    assert_int_equal(n, 3);
    mw_profile_free(&p);
    read_text("device X a=1 b=1\ntogether 1:2\n", &p);
    assert_int_equal(mw_pareto_additivity(&p, &rel, &n, err, sizeof err), -1);
    assert_string_equal(err, "f.txt:2: together needs energies X:T:E for every device");
    mw_profile_free(&p);
    read_text("device X 1:1:2 2:2:4\ntogether 5:2\n", &p);
    assert_int_equal(mw_pareto_additivity(&p, &rel, &n, err, sizeof err), -1);
    assert_string_equal(err, "f.txt:2: no size of 'together' was measured on every device");
    mw_profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_front),
        cmocka_unit_test(off_the_front),
        cmocka_unit_test(builder_refusal_named),
        cmocka_unit_test(additivity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
