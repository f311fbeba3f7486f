/* vmeter_opts — the options of "mw vmeter" (cmd_vmeter.c) in one struct, and the parsing of
 * those that set the simulated board's analog inputs (--mains, --load, --profile, --pf,
 * --wave, --ppm, --noise; docs/analog-front-end.md). cmd_vmeter.c's getopt loop hands each
 * of these options here and keeps the others (the firmware, the port, --stdout). */
#ifndef MW_VMETER_OPTS_H
#define MW_VMETER_OPTS_H
#include "mw_sim.h"

typedef struct {
    char elf[4096];
    const char *link;       /* --link PATH */
    const char *bootloader; /* --bootloader HEX */
    const char *hex;        /* --hex APP.hex */
    const char *log_frames; /* --log-frames FILE */
    double seconds;         /* 0 = until interrupted */
    int use_stdout;
    int no_reset;
    /* analog inputs */
    double mains_v, mains_hz; /* --mains V,HZ */
    double ppm, noise_lsb;    /* --ppm, --noise (noise < 0: board default) */
    double pf;                /* --pf: default for --load and --profile */
    mw_sim_wave wave;         /* --wave: default for --load and --profile */
    int nloads;
    struct {
        int pin;
        double w, pf;
        mw_sim_wave wave;
    } loads[15];         /* --load */
    const char *profile; /* --profile FILE */
    double profile_pf;
    mw_sim_wave profile_wave;
} mw_vmeter_opts;

/* One analog-input option c (its getopt_long value: 'm' --mains, 'L' --load, 'P' --profile,
 * 'f' --pf, 'w' --wave, 'p' --ppm, 'n' --noise) with its value arg into o: -1 when it is
 * fine (or c is none of these), else the exit code of its usage error ("mw vmeter: ..."
 * printed, cli.h). */
int mw_vmeter_parse_analog(int c, const char *arg, mw_vmeter_opts *o);
#endif
