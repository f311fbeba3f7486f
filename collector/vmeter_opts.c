/* vmeter_opts — parsing the analog-input options of mw vmeter (vmeter_opts.h). Values are
 * plain decimal numbers checked against their range (mw_num.h); a list value ("V,HZ",
 * "PIN=W[,PF[,WAVE]]") is split in a copy, since argv strings are not ours to modify. An
 * --load without PF or WAVE, and --profile, take the --pf and --wave given before them. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mw_num.h"
#include "mw_sim.h"
#include "vmeter_opts.h"

/* A plain decimal number in [lo, hi] (mw_num.h). 0, or -1. */
static int parse_num(const char *arg, double lo, double hi, double *out)
{
    return mw_num_double(arg, lo, hi, out) ? -1 : 0;
}

static int parse_wave(const char *arg, mw_sim_wave *w)
{
    if (!strcmp(arg, "sine"))
        *w = MW_SIM_SINE;
    else if (!strcmp(arg, "smps"))
        *w = MW_SIM_SMPS;
    else
        return -1;
    return 0;
}

/* "V,HZ" (parsed from a copy: argv strings are not ours to modify) */
static int parse_mains(const char *arg, mw_vmeter_opts *o)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", arg);
    char *comma = strchr(buf, ',');
    if (!comma) return -1;
    *comma = 0;
    return parse_num(buf, 1, 400, &o->mains_v) || parse_num(comma + 1, 40, 70, &o->mains_hz) ? -1
                                                                                             : 0;
}

/* "A1=150[,0.9[,smps]]" or "1=150..." */
static int parse_load(const char *arg, mw_vmeter_opts *o)
{
    if (o->nloads >= 15) return -1;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", arg);
    char *eq = strchr(buf, '=');
    if (!eq) return -1;
    *eq = 0;
    const char *pin = buf[0] == 'A' ? buf + 1 : buf;
    int64_t p;
    if (mw_num_int64(pin, 1, 15, &p)) return -1;
    char *fields[3] = {eq + 1, NULL, NULL};
    for (int i = 1; i < 3; i++) {
        char *c = fields[i - 1] ? strchr(fields[i - 1], ',') : NULL;
        if (c) {
            *c = 0;
            fields[i] = c + 1;
        }
    }
    double w, pf = o->pf;
    mw_sim_wave wave = o->wave;
    if (parse_num(fields[0], -1e5, 1e5, &w)) return -1;
    if (fields[1] && (parse_num(fields[1], 1e-3, 1, &pf))) return -1;
    if (fields[2] && parse_wave(fields[2], &wave)) return -1;
    for (int i = 0; i < o->nloads; i++)
        if (o->loads[i].pin == (int)p) return -1;
    o->loads[o->nloads].pin = (int)p;
    o->loads[o->nloads].w = w;
    o->loads[o->nloads].pf = pf;
    o->loads[o->nloads].wave = wave;
    o->nloads++;
    return 0;
}

/* One analog-input option c (--mains, --load, --profile, --pf, --wave, --ppm, --noise) with
 * its value arg into o: -1 when it is fine, else the exit code of its usage error. */
int mw_vmeter_parse_analog(int c, const char *arg, mw_vmeter_opts *o)
{
    switch (c) {
    case 'm':
        if (parse_mains(arg, o))
            return mw_cli_usage_error("vmeter",
                                      "--mains: '%s' is not V,HZ with 1..400 V "
                                      "and 40..70 Hz",
                                      arg);
        return -1;
    case 'L':
        if (parse_load(arg, o))
            return mw_cli_usage_error("vmeter",
                                      "--load: '%s' is not PIN=W[,PF[,sine|smps]] "
                                      "with PIN A1..A15 (once each), W in -1e5..1e5, "
                                      "PF in 0.001..1",
                                      arg);
        return -1;
    case 'P':
        o->profile = arg;
        o->profile_pf = o->pf;
        o->profile_wave = o->wave;
        return -1;
    case 'f':
        if (parse_num(arg, 1e-3, 1, &o->pf))
            return mw_cli_usage_error("vmeter",
                                      "--pf: '%s' is not a power factor in "
                                      "0.001..1",
                                      arg);
        return -1;
    case 'w':
        if (parse_wave(arg, &o->wave))
            return mw_cli_usage_error("vmeter", "--wave: '%s' is not sine or smps", arg);
        return -1;
    case 'p':
        if (parse_num(arg, -1000, 1000, &o->ppm))
            return mw_cli_usage_error("vmeter",
                                      "--ppm: '%s' is not a number of ppm in "
                                      "-1000..1000",
                                      arg);
        return -1;
    case 'n':
        if (parse_num(arg, 0, 10, &o->noise_lsb))
            return mw_cli_usage_error("vmeter", "--noise: '%s' is not 0..10 LSB", arg);
        return -1;
    default:
        return -1;
    }
}
