/* sysinfo (host/sysinfo.c, now in libmw): the command line quoted for a POSIX shell as mw
 * record and mw sweep note it — plain words as they are, others in single quotes with a
 * quote written '\'', the empty word as ''; a buffer too small is cut, never overrun; the
 * machine's facts against what the test reads itself: uname's node name and system, the
 * first "model name" of /proc/cpuinfo (read with sscanf here), cpu0's scaling governor
 * or "none" when the file is not there. */
#include "../unit.h"

#include <sys/utsname.h>

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

/* the first value of "key : value" in path, or "" */
static void first_value(const char *path, const char *key, char *out, size_t n)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char k[256], v[768];
        if (sscanf(line, "%255[^\t:]%*[\t ]: %767[^\n]", k, v) == 2 && !strcmp(k, key)) {
            snprintf(out, n, "%.255s", v);
            break;
        }
    }
    fclose(f);
}

static void facts(void **state)
{
    char buf[256], want[256];
    struct utsname u;
    assert_int_equal(uname(&u), 0);
    mw_sysinfo_hostname(buf, sizeof buf);
    assert_string_equal(buf, u.nodename);
    mw_sysinfo_kernel(buf, sizeof buf);
    snprintf(want, sizeof want, "%s %s %s", u.sysname, u.release, u.machine);
    assert_string_equal(buf, want);
    first_value("/proc/cpuinfo", "model name", want, sizeof want);
    mw_sysinfo_cpu_model(buf, sizeof buf);
    if (want[0]) assert_string_equal(buf, want);
    FILE *g = fopen("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "r");
    snprintf(want, sizeof want, "none");
    if (g) {
        if (fgets(want, sizeof want, g)) want[strcspn(want, "\n")] = 0;
        fclose(g);
    }
    mw_sysinfo_governor(buf, sizeof buf);
    assert_string_equal(buf, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quoting),
        cmocka_unit_test(facts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
