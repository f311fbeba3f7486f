/* sysinfo (host/sysinfo.c, now in libmw): the command line quoted for a POSIX shell as mw
 * record and mw sweep note it — plain words as they are, others in single quotes with a
 * quote written '\'', the empty word as ''; a buffer too small is cut, never overrun; the
 * machine's facts are never empty. */
#include "../unit.h"

#include "mw_sysinfo.h"

static void quoting(void **state)
{
    char *const argv[] = {"mpirun", "-np", "3", "b c", "it's", "", "x=1,y:2%@+", "{s}", NULL};
    char out[256];
    mw_sysinfo_quote_argv(argv, out, sizeof out);
    assert_string_equal(out, "mpirun -np 3 'b c' 'it'\\''s' '' x=1,y:2%@+ '{s}'");
    char small[8];
    mw_sysinfo_quote_argv(argv, small, sizeof small);
    assert_string_equal(small, "mpirun ");
    char *const none[] = {NULL};
    mw_sysinfo_quote_argv(none, out, sizeof out);
    assert_string_equal(out, "");
}

static void facts(void **state)
{
    char buf[256];
    mw_sysinfo_hostname(buf, sizeof buf);
    assert_true(buf[0] != 0);
    mw_sysinfo_kernel(buf, sizeof buf);
    assert_non_null(strstr(buf, "Linux"));
    mw_sysinfo_cpu_model(buf, sizeof buf);
    assert_true(buf[0] != 0);
    mw_sysinfo_governor(buf, sizeof buf);
    assert_true(buf[0] != 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quoting),
        cmocka_unit_test(facts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
