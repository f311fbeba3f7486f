/* channels — names of the meter's current channels (node0 ... switch) and the hosts they
 * measure.
 *
 * From a small config file, one channel per line ('#' starts a comment):
 *     # channel  name    [host]
 *     1          node0   hpc-node0
 *     5          switch
 * found at $MW_CHANNELS_FILE, else $XDG_CONFIG_HOME/megawatt/channels (default
 * ~/.config/megawatt/channels); or from a command-line list that overrides the file:
 * "node0,node1@hpc-node1,switch" names channels 1, 2, 3 in order (NAME@HOST gives the
 * host). Names are 1..31 characters of [A-Za-z0-9_.-], unique. Channels left unnamed are
 * called ch1, ch2, ...
 *
 * Several meters (mw record --meter A --meter B): channels are numbered run-wide, meter 1's
 * first (1..n1), then meter 2's (n1+1..), and so on. A file line "METER:CHANNEL NAME
 * [HOST]" names CHANNEL (1..15) of the meter called METER (its name: USB serial or sim-N, or
 * its port as given); a line naming a meter that is not recorded is an error (the run is
 * refused); a line without METER: is the first meter's. A --channels list names run-wide
 * channels in order. Unnamed channels of meter M > 1 are called mM.ch1, mM.ch2, ... */
#ifndef MW_CHANNELS_H
#define MW_CHANNELS_H
#include <stddef.h>

#define MW_CHANNELS_MAX 15 /* per meter */
#define MW_CHANNELS_METERS 4
#define MW_CHANNELS_RUN_MAX (MW_CHANNELS_MAX * MW_CHANNELS_METERS)

typedef struct {
    char name[MW_CHANNELS_RUN_MAX + 1][32];  /* [1..n], by run-wide channel */
    char host[MW_CHANNELS_RUN_MAX + 1][256]; /* "" when not given */
    char source[4200];                       /* where the names came from, for messages */
} mw_channels;

/* A recorded meter, for the file's METER: prefix. */
typedef struct {
    const char *name; /* USB serial, sim-N, ... */
    const char *port; /* as given on the command line (may be NULL) */
    int nchan;        /* its current channels, 1..15 */
} mw_channels_meter;

/* Fill ch for a meter with n current channels from list (may be NULL) or the config file.
 * Returns 0, or -1 with a message naming the file and line, or the list, in err. A missing
 * config file is not an error, unless $MW_CHANNELS_FILE names it; a file that cannot be read
 * (a loop of links, no permission, a directory, a FIFO nobody writes within 10 s) or that is
 * over 1 MiB, or a line over 4096 bytes, or a NUL byte, is. */
int mw_channels_load(mw_channels *ch, int n, const char *list, char *err, size_t errlen);
/* The same for nmeters (1..MW_CHANNELS_METERS) meters, channels numbered run-wide. */
int mw_channels_load_meters(mw_channels *ch, const mw_channels_meter *m, int nmeters,
                            const char *list, char *err, size_t errlen);
/* The config file's path (for messages and --help). */
void mw_channels_file(char *out, size_t n);
#endif
