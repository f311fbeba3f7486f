/* mw_energy RUNDIR — the energy of each channel of a megawatt run and the time spent in each
 * kind of phase, through libmegawatt (docs/api.md). Build against the installed library:
 *   cc mw_energy.c $(pkg-config --cflags --libs megawatt) -o mw_energy */
#include <megawatt/megawatt.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    char err[512] = "usage: mw_energy RUNDIR";
    megawatt_run *run = argc == 2 ? megawatt_open(argv[1], err, sizeof err) : NULL;
    if (!run) return fprintf(stderr, "mw_energy: %s\n", err), 2;
    megawatt_cursor *chans = megawatt_channels(run);
    megawatt_channel ch;
    megawatt_window w;
    megawatt_phase p;
    int rc;
    while ((rc = megawatt_channel_next(chans, &ch)) == 1) {
        double joules = 0; /* mW * ns = 1e-12 J */
        megawatt_cursor *ws = megawatt_windows(run, ch.channel);
        while ((rc = megawatt_window_next(ws, &w)) == 1)
            joules += (double)w.power_mw * (double)(w.t1_ns - w.t0_ns) * 1e-12;
        megawatt_cursor_close(ws);
        if (rc < 0) break;
        printf("channel %d %s: %.6f J\n", ch.channel, ch.name, joules);
    }
    megawatt_cursor_close(chans);
    const char *kinds[] = {"mw", "user", "compute", "comm", "wait", "omp", "gpu"};
    for (int k = 0; k < 7 && rc >= 0; k++) {
        double seconds = 0;
        megawatt_cursor *ps = megawatt_phases(run, kinds[k]);
        while ((rc = megawatt_phase_next(ps, &p)) == 1) seconds += (p.end_ns - p.start_ns) * 1e-9;
        megawatt_cursor_close(ps);
        if (seconds > 0) printf("phases %s: %.3f s\n", kinds[k], seconds);
    }
    if (rc < 0) fprintf(stderr, "mw_energy: %s\n", megawatt_error(run));
    megawatt_close(run);
    return rc < 0;
}
