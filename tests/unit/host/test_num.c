/* The number reader (host/num.c, mw_num.h). The answers are written out by hand: decimal
 * texts and the values they denote (exact binary fractions, or the double the C compiler
 * makes of the same literal), the texts that are not plain decimal, and the edges of the
 * ranges, including the limits of int64 and of double written in full. */
#include "../unit.h"

#include "mw_num.h"

#include <float.h>

static void doubles_read(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double want;
    } ok[] = {
        {"0", 0.0},       {"12", 12.0},   {"-0.5", -0.5},     {".5", 0.5},
        {"3.", 3.0},      {"+7", 7.0},    {"1e-3", 1e-3},     {"2.5E+2", 250.0},
        {"007", 7.0},     {"-0", 0.0},    {"0.1", 0.1},       {"1e-400", 0.0},
        {"179769313486231570814527423731704356798070567525844996598917476803157260780028538760"
         "589558632766878171540458953514382464234321326889464182768467546703537516986049910576"
         "551282076245490090389328944075868508455133942304583236903222948165808559332123348274"
         "797826204144723168738177180919299881250404026184124858368",
         DBL_MAX},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v = -99;
        assert_int_equal(mw_num_double(ok[i].text, -DBL_MAX, DBL_MAX, &v), 0);
        assert_true(v == ok[i].want);
    }
}

static void doubles_not_numbers(void **state)
{
    (void)state;
    static const char *bad[] = {
        "",     " 1",     "1 ",    "\t1",  "nan",  "NaN",     "-nan", "inf",   "-inf",
        "INF",  "infinity", "0x10", "0X1p3", "0x",  "1e",      "1e+",  "e5",    ".",
        "-",    "+",      "1..2",  "1.2.3", "10s", "1,5",     "1 2",  "--1",   "+-1",
        "1e5.5", "１",    "1\n",   "0b1",  "1f",   "1_000",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = -99;
        if (mw_num_double(bad[i], -DBL_MAX, DBL_MAX, &v) != -1) fail_msg("accepted '%s'", bad[i]);
        assert_true(v == -99); /* nothing written */
    }
    double v = -99;
    assert_int_equal(mw_num_double(NULL, 0, 1, &v), -1);
}

static void doubles_range(void **state)
{
    (void)state;
    double v = -99;
    assert_int_equal(mw_num_double("1e308", 0, 1e6, &v), -2);
    assert_int_equal(mw_num_double("1e400", -DBL_MAX, DBL_MAX, &v), -2);  /* overflow */
    assert_int_equal(mw_num_double("-1e400", -DBL_MAX, DBL_MAX, &v), -2); /* overflow */
    assert_int_equal(mw_num_double("-0.001", 0, 1, &v), -2);
    assert_int_equal(mw_num_double("1.0000001", 0, 1, &v), -2);
    assert_true(v == -99);
    assert_int_equal(mw_num_double("1", 0, 1, &v), 0); /* the ends belong to the range */
    assert_true(v == 1.0);
    assert_int_equal(mw_num_double("0", 0, 1, &v), 0);
    assert_true(v == 0.0);
    assert_int_equal(mw_num_double("1e-400", 1e-300, 1, &v), -2); /* underflow: 0, then range */
}

static void ints_read(void **state)
{
    (void)state;
    int64_t v = -99;
    assert_int_equal(mw_num_int64("42", INT64_MIN, INT64_MAX, &v), 0);
    assert_true(v == 42);
    assert_int_equal(mw_num_int64("-17", INT64_MIN, INT64_MAX, &v), 0);
    assert_true(v == -17);
    assert_int_equal(mw_num_int64("+8", INT64_MIN, INT64_MAX, &v), 0);
    assert_true(v == 8);
    assert_int_equal(mw_num_int64("0010", INT64_MIN, INT64_MAX, &v), 0);
    assert_true(v == 10);
    assert_int_equal(mw_num_int64("9223372036854775807", INT64_MIN, INT64_MAX, &v), 0);
    assert_true(v == INT64_MAX);
    assert_int_equal(mw_num_int64("-9223372036854775808", INT64_MIN, INT64_MAX, &v), 0);
    assert_true(v == INT64_MIN);
}

static void ints_refused(void **state)
{
    (void)state;
    static const char *bad[] = {
        "", " 1", "1 ", "0x10", "010x", "1.0", "1.", ".5", "1e3", "nan", "inf", "-", "+",
        "12abc", "1,000", "--1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = -99;
        if (mw_num_int64(bad[i], INT64_MIN, INT64_MAX, &v) != -1) fail_msg("accepted '%s'", bad[i]);
        assert_true(v == -99);
    }
    int64_t v = -99;
    assert_int_equal(mw_num_int64(NULL, 0, 1, &v), -1);
    assert_int_equal(mw_num_int64("9223372036854775808", INT64_MIN, INT64_MAX, &v), -2);
    assert_int_equal(mw_num_int64("-9223372036854775809", INT64_MIN, INT64_MAX, &v), -2);
    assert_int_equal(mw_num_int64("99999999999999999999999", INT64_MIN, INT64_MAX, &v), -2);
    assert_int_equal(mw_num_int64("11", 1, 10, &v), -2);
    assert_int_equal(mw_num_int64("0", 1, 10, &v), -2);
    assert_true(v == -99);
    assert_int_equal(mw_num_int64("10", 1, 10, &v), 0);
    assert_true(v == 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(doubles_read),  cmocka_unit_test(doubles_not_numbers),
        cmocka_unit_test(doubles_range), cmocka_unit_test(ints_read),
        cmocka_unit_test(ints_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
