/* The profile file reader (host/profile.c, mw_profile.h): a profile with every kind of line
 * is kept exactly as written (comments, blank lines, repeated sizes, b= with points), and
 * every rule it checks gives its one-line message naming FILE:LINE, with the profile left
 * empty. */
#include "../unit.h"

#include "mw_profile.h"

/* text read as a profile named "f.txt"; err gets the message */
static int read_text(const char *text, mw_profile *p, char *err, size_t errlen)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(in);
    err[0] = 0;
    int rc = mw_profile_read(in, "f.txt", p, err, errlen);
    fclose(in);
    return rc;
}

static void every_line_kept(void **state)
{
    (void)state;
    const char *text = "# a profile\n"
                       "n 12   # units\n"
                       "\n"
                       "static_power 2.5\n"
                       "device C a=1 b=1\n"
                       "\tdevice gpu 100:0.5:20 200:0.9:41 100:0.7:22\r\n"
                       "device phi 100:0.8 400:3 b=0.3\n"
                       "together 100:72 200:140\n"
                       "together 400:283\n";
    mw_profile p;
    char err[256];
    assert_int_equal(read_text(text, &p, err, sizeof err), 0);
    assert_string_equal(p.file, "f.txt");
    assert_true(p.has_n && p.has_static_power);
    assert_true(p.n_units == 12 && p.static_power_W == 2.5);
    assert_int_equal(p.ndev, 3);
    assert_string_equal(p.dev[0].name, "C");
    assert_int_equal(p.dev[0].line, 5);
    assert_true(p.dev[0].a_s_per_unit == 1 && p.dev[0].b_J_per_unit == 1);
    assert_int_equal(p.dev[0].npt, 0);
    assert_false(p.dev[0].has_energy);
    const mw_profile_device *g = &p.dev[1];
    assert_string_equal(g->name, "gpu");
    assert_int_equal(g->line, 6);
    assert_true(g->has_energy);
    assert_int_equal(g->npt, 3); /* as written: repetitions are the models' to average */
    assert_true(g->pt[2].x_units == 100 && g->pt[2].time_s == 0.7 && g->pt[2].energy_J == 22);
    assert_true(g->a_s_per_unit == 0 && g->b_J_per_unit == 0);
    const mw_profile_device *phi = &p.dev[2];
    assert_false(phi->has_energy);
    assert_true(phi->b_J_per_unit == 0.3 && phi->npt == 2);
    assert_true(phi->pt[1].x_units == 400 && phi->pt[1].time_s == 3 && phi->pt[1].energy_J == 0);
    assert_int_equal(p.ntogether, 3);
    assert_true(p.together[2].x_units == 400 && p.together[2].energy_J == 283);
    assert_int_equal(p.together_line, 9);
    mw_profile_free(&p);
    assert_null(p.dev);
    assert_null(p.file);
}

static void no_n_no_static_power(void **state)
{
    (void)state;
    mw_profile p;
    char err[256];
    assert_int_equal(read_text("device X a=2 b=3", &p, err, sizeof err), 0);
    assert_false(p.has_n || p.has_static_power);
    assert_int_equal(p.ndev, 1);
    assert_int_equal(p.ntogether, 0);
    mw_profile_free(&p);
}

static void expect_error(const char *text, const char *want)
{
    mw_profile p;
    char err[512];
    assert_int_equal(read_text(text, &p, err, sizeof err), -1);
    assert_string_equal(err, want);
    assert_null(p.dev);
    assert_int_equal(p.ndev, 0);
    assert_null(p.together);
}

static void every_rule_named(void **state)
{
    (void)state;
    expect_error("n 0\ndevice X a=1 b=1\n",
                 "f.txt:1: "
                 "n needs a number (n 1e-09 to 1e+15, static_power 0 to 1e+15)");
    expect_error("n 3 4\n", "f.txt:1: n takes one value");
    expect_error(
        "static_power -1\n",
        "f.txt:1: static_power needs a number (n 1e-09 to 1e+15, static_power 0 to 1e+15)");
    expect_error(
        "static_power\n",
        "f.txt:1: static_power needs a number (n 1e-09 to 1e+15, static_power 0 to 1e+15)");
    expect_error("n 1e400\n", "f.txt:1: "
                              "n needs a number (n 1e-09 to 1e+15, static_power 0 to 1e+15)");
    expect_error("n 10\ndevice X a=1 b=1\nfrobnicate 3\n",
                 "f.txt:3: 'frobnicate' is not n, static_power, device or together");
    expect_error("n 3\ndevice\n", "f.txt:2: device needs a NAME");
    expect_error("device X a=1 b=1\ndevice X a=2 b=1\n", "f.txt:2: device 'X' given twice");
    expect_error("device X a=0 b=1\n", "f.txt:1: 'a=0': needs a number from 1e-09 to 1e+15");
    expect_error("device X a=1 b=x\n", "f.txt:1: 'b=x': needs a number from 1e-09 to 1e+15");
    expect_error("device X 1:2:3:4 b=1\n", "f.txt:1: '1:2:3:4' is not a=, b= or a point X:T[:E]");
    expect_error("device X 1:x b=1\n", "f.txt:1: '1:x' is not a=, b= or a point X:T[:E]");
    expect_error("device X q=3\n", "f.txt:1: 'q=3' is not a=, b= or a point X:T[:E]");
    expect_error("device X 0:2 b=1\n",
                 "f.txt:1: point '0:2': size and time must be 1e-09 to 1e+15");
    expect_error("device X 1:2:-1\n", "f.txt:1: point '1:2:-1': energy must be 0 to 1e+15");
    expect_error("device X a=1 1:2 b=1\n", "f.txt:1: device 'X': a= or points, not both");
    expect_error("device X b=1\n", "f.txt:1: device 'X': needs a= or time points X:T");
    expect_error("device X 1:2:3 b=1\n", "f.txt:1: device 'X': b= or energies X:T:E, not both");
    expect_error("device X 1:2:3 2:3\n",
                 "f.txt:1: device 'X': needs b= or an energy at every point");
    expect_error("device X a=1\n", "f.txt:1: device 'X': needs b= or an energy at every point");
    expect_error("device X a=1 b=1\ntogether 1:0\n",
                 "f.txt:2: '1:0' is not a point X:E (both 1e-09 to 1e+15)");
    expect_error("device X a=1 b=1\ntogether 1:2:3\n",
                 "f.txt:2: '1:2:3' is not a point X:E (both 1e-09 to 1e+15)");
    expect_error("n 3\n# nothing\n", "f.txt:2: no device lines");
    /* issue 19, case 13: absurd values are refused, naming the range, never computed with */
    expect_error("device X a=1e300 b=1\n",
                 "f.txt:1: 'a=1e300': needs a number from 1e-09 to 1e+15");
    expect_error("device X a=1 b=1e16\n", "f.txt:1: 'b=1e16': needs a number from 1e-09 to 1e+15");
    expect_error("device X 1:2:1e300\n", "f.txt:1: point '1:2:1e300': energy must be 0 to 1e+15");
    expect_error("device X 1e300:2 b=1\n",
                 "f.txt:1: point '1e300:2': size and time must be 1e-09 to 1e+15");
    expect_error(
        "static_power 1e300\n",
        "f.txt:1: static_power needs a number (n 1e-09 to 1e+15, static_power 0 to 1e+15)");
    /* and what is not plain decimal is not a number */
    expect_error("n 0x10\n", "f.txt:1: "
                             "n needs a number (n 1e-09 to 1e+15, static_power 0 to 1e+15)");
    expect_error("n nan\n", "f.txt:1: "
                            "n needs a number (n 1e-09 to 1e+15, static_power 0 to 1e+15)");
    expect_error("device X a=inf b=1\n", "f.txt:1: 'a=inf': needs a number from 1e-09 to 1e+15");
    expect_error("device X 1:2:nan\n", "f.txt:1: '1:2:nan' is not a=, b= or a point X:T[:E]");
    expect_error("", "f.txt:0: no device lines");
}

/* a token longer than the quoted copy: the message quotes its first 127 characters */
static void long_token_quoted_in_part(void **state)
{
    (void)state;
    char text[512], want[512], tok[301];
    memset(tok, '7', 300);
    tok[300] = 0;
    snprintf(text, sizeof text, "device X a=1 b=1 %s:x\n", tok);
    snprintf(want, sizeof want, "f.txt:1: '%.127s' is not a=, b= or a point X:T[:E]", tok);
    expect_error(text, want);
}

/* a message longer than the caller's buffer is cut, NUL-terminated */
static void short_buffer(void **state)
{
    (void)state;
    mw_profile p;
    char err[12];
    assert_int_equal(read_text("frobnicate\n", &p, err, sizeof err), -1);
    assert_string_equal(err, "f.txt:1: 'f");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_line_kept),  cmocka_unit_test(no_n_no_static_power),
        cmocka_unit_test(every_rule_named), cmocka_unit_test(long_token_quoted_in_part),
        cmocka_unit_test(short_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
