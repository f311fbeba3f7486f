/* fuzz — what the fuzz targets (tests/fuzz/fuzz_*.c) share; docs/reliability.md, "Fuzzing".
 *
 * A target is one file defining LLVMFuzzerInitialize (once per process) and
 * LLVMFuzzerTestOneInput (once per input, which must not leak or keep state that changes
 * the next result). It is linked two ways: with libFuzzer by clang for `make fuzz`
 * (-fsanitize=fuzzer,address,undefined, build/fuzz/bin/), and with tests/fuzz/driver.c by
 * gcc under ASan/UBSan for `make check` (build/asan/tests/fuzz/), which feeds it every file
 * of its corpus tests/fuzz/corpus/NAME/ once. A crash is a sanitizer report or a broken
 * invariant: FUZZ_CHECK prints the condition on fd 2 and aborts.
 *
 * The parsers under test print their diagnostics on stderr, one per bad input: fuzz_quiet()
 * points the stdio stream stderr (and stdout, for the commands run in-process) at
 * /dev/null, while the sanitizers and libFuzzer keep writing to fd 2 (MW_FUZZ_VERBOSE=1
 * keeps the messages). Parsers that only read files get the input through fuzz_file(): a
 * memfd, rewritten for each input, under a /proc/self/fd path. */
#ifndef MW_FUZZ_H
#define MW_FUZZ_H
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            dprintf(2, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);                \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static inline void fuzz_quiet(void)
{
    const char *v = getenv("MW_FUZZ_VERBOSE");
    if (v && *v && strcmp(v, "0") != 0) return;
    FILE *null = fopen("/dev/null", "w");
    if (!null) return;
    stderr = null;
    stdout = null;
}

/* The input as a NUL-terminated string (malloc'd: free it); embedded NULs end it early. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    FUZZ_CHECK(s != NULL);
    if (size) memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* A path whose file holds exactly the input (the same path every call). */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("mw-fuzz-input", MFD_CLOEXEC);
        FUZZ_CHECK(fd >= 0);
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    FUZZ_CHECK(ftruncate(fd, 0) == 0);
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        FUZZ_CHECK(n > 0);
        done += (size_t)n;
    }
    return path;
}

static inline int fuzz_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
}

static inline char *fuzz_dir_path(void)
{
    static char path[4096];
    return path;
}

static inline void fuzz_rm_dir(void)
{
    if (fuzz_dir_path()[0]) nftw(fuzz_dir_path(), fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Directories BASE/mw-fuzz-PID-* of processes that are gone: a crash, a timeout or
 * libFuzzer's own exit skip atexit(). */
static inline void fuzz_rm_stale(const char *base)
{
    DIR *d = opendir(base);
    if (!d) return;
    char self[32];
    snprintf(self, sizeof self, "mw-fuzz-%ld-", (long)getpid());
    for (struct dirent *e; (e = readdir(d));) {
        long pid;
        if (sscanf(e->d_name, "mw-fuzz-%ld-", &pid) != 1 || pid <= 0) continue;
        if (!strncmp(e->d_name, self, strlen(self)) || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", base, e->d_name);
        nftw(p, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    closedir(d);
}

/* A private temporary directory (under $TMPDIR, else /dev/shm when it exists, else /tmp),
 * BASE/mw-fuzz-PID-XXXXXX, removed at exit; those of dead processes are removed first. */
static inline const char *fuzz_tmpdir(void)
{
    char *path = fuzz_dir_path();
    if (path[0]) return path;
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    fuzz_rm_stale(base);
    snprintf(path, 4096, "%s/mw-fuzz-%ld-XXXXXX", base, (long)getpid());
    FUZZ_CHECK(mkdtemp(path) != NULL);
    atexit(fuzz_rm_dir);
    return path;
}

#endif
