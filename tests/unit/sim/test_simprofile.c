/* Power profiles (host/sim/simprofile.c): a valid file's step values at and between rows, and
 * an error naming file and line for each kind of bad input. */
#include "../unit.h"

#include <unistd.h>

#include "mw_simprofile.h"

static char path[64];

static void write_file(const char *text)
{
    snprintf(path, sizeof path, "/tmp/mw-profile-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void steps(void **s)
{
    write_file("# a comment\n\nt_s, A1 ,A5\n0,150,3.5\n12.5,224.7,4\n20,156.3,3.5 # idle\n");
    char err[256];
    mw_simprofile *p = mw_simprofile_load(path, err, sizeof err);
    unlink(path);
    if (!p) fail_msg("%s", err);
    assert_int_equal(mw_simprofile_npins(p), 2);
    assert_int_equal(mw_simprofile_pin(p, 1), 5);
    assert_true(mw_simprofile_power(p, 1, 0) == 150);
    assert_true(mw_simprofile_power(p, 1, 12.4999) == 150);
    assert_true(mw_simprofile_power(p, 1, 12.5) == 224.7);
    assert_true(mw_simprofile_power(p, 5, 19) == 4);
    assert_true(mw_simprofile_power(p, 1, 1e6) == 156.3);
    assert_true(mw_simprofile_power(p, 2, 5) == 0); /* not in the profile */
    mw_simprofile_free(p);
}

static void errors_name_file_and_line(void **s)
{
    struct {
        const char *text, *want;
    } cases[] = {
        {"t,A1\n0,1\n", ":1: the header must start with 't_s'"},
        {"t_s,B1\n0,1\n", ":1: not a current input pin (A1..A15): 'B1'"},
        {"t_s,A0\n0,1\n", ":1: not a current input pin"},
        {"t_s,A1,A1\n0,1,2\n", ":1: pin named twice: 'A1'"},
        {"t_s\n0\n", ":1: the header names no pin"},
        {"t_s,A1\n0,1\n1,x\n", ":3: not a number: 'x' in column 2"},
        {"t_s,A1\n0,1\n0,2\n", ":3: times must increase"},
        {"t_s,A1\n1,1\n", ":2: the first row must be at t_s = 0"},
        {"t_s,A1\n0,1,2\n", ":2: more columns than the header"},
        {"t_s,A1,A2\n0,1\n", ":2: fewer columns than the header"},
        {"t_s,A1\n0,nan\n", ":2: not a number"},
        {"t_s,A1\n", "no data rows"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_file(cases[i].text);
        char err[256] = "";
        mw_simprofile *p = mw_simprofile_load(path, err, sizeof err);
        unlink(path);
        assert_null(p);
        if (!strstr(err, cases[i].want) || !strstr(err, path))
            fail_msg("case %u: got '%s', want '...%s'", i, err, cases[i].want);
    }
    char err[256];
    assert_null(mw_simprofile_load("/nonexistent/profile.csv", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/profile.csv: No such file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(steps),
                                       cmocka_unit_test(errors_name_file_and_line)};
    return cmocka_run_group_tests_name("simprofile", tests, NULL, NULL);
}
