/* mw_sysinfo — what the recorder notes about the machine and the command in a run's metadata
 * (and mw sweep in its index): host name, kernel, CPU model and frequency governor, the MPI
 * implementation that mpirun belongs to, and the command line quoted for a POSIX shell. */
#ifndef MW_SYSINFO_H
#define MW_SYSINFO_H
#include <stddef.h>

void mw_sysinfo_hostname(char *out, size_t n);
void mw_sysinfo_kernel(char *out, size_t n);    /* as uname -srm: "Linux 6.1.0-18-amd64 x86_64" */
void mw_sysinfo_cpu_model(char *out, size_t n); /* /proc/cpuinfo "model name", "unknown" */
void mw_sysinfo_governor(char *out, size_t n);  /* cpu0's scaling_governor, or "none" */
/* First line of "mpirun --version" (e.g. "mpirun (Open MPI) 4.1.4"), or "none". Waits at
 * most 5 s. */
void mw_sysinfo_mpi(char *out, size_t n);
/* argv joined with spaces, each word quoted for a POSIX shell when it needs it. */
void mw_sysinfo_quote_argv(char *const *argv, char *out, size_t n);

/* The run's machine metadata into s (docs/run-store.md): command (cmd quoted),
 * record_command ("mw " and mw_argv quoted), hostname, kernel, cpu_model, cpu_governor, mpi,
 * mw_version, mw_git_id. 0, or -1 with the store's message in err at the first failure. */
typedef struct mw_store mw_store;
int mw_sysinfo_meta(mw_store *s, char *const *cmd, char *const *mw_argv, const char *hostname,
                    char *err, size_t errlen);
#endif
