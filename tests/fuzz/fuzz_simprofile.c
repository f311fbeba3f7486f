/* fuzz_simprofile — the simulated board's power-profile reader (host/sim/simprofile.c,
 * mw_simprofile.h): `mw vmeter --profile FILE`.
 *
 * The input is the file. Invariants when mw_simprofile_load accepts it: 1..15 distinct
 * pins A1..A15; the power on a pin at t = 0 and at a few later times (the ends of the
 * steps and between) is a finite number, 0 for a pin the profile does not name; when it
 * refuses: a message "FILE:..." in err. */
#include <math.h>

#include "fuzz.h"
#include "mw_simprofile.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    char err[512] = "";
    mw_simprofile *p = mw_simprofile_load(path, err, sizeof err);
    if (!p) {
        FUZZ_CHECK(strncmp(err, path, strlen(path)) == 0);
        return 0;
    }
    int n = mw_simprofile_npins(p);
    FUZZ_CHECK(n >= 1 && n <= 15);
    unsigned seen = 0;
    for (int i = 0; i < n; i++) {
        int pin = mw_simprofile_pin(p, i);
        FUZZ_CHECK(pin >= 1 && pin <= 15 && !(seen & (1u << pin)));
        seen |= 1u << pin;
    }
    static const double times[] = {-1.0, 0.0, 1e-9, 0.5, 1.0, 12.5, 1e3, 1e9, 1e300, INFINITY};
    for (int pin = -1; pin <= 16; pin++)
        for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
            double w = mw_simprofile_power(p, pin, times[k]);
            FUZZ_CHECK(isfinite(w));
            if (pin < 1 || pin > 15 || !(seen & (1u << pin))) FUZZ_CHECK(w == 0);
        }
    mw_simprofile_free(p);
    return 0;
}
