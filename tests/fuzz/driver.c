/* driver — main() for a fuzz target without libFuzzer (tests/fuzz/fuzz.h): the corpus
 * regression of `make check`, built by gcc under ASan/UBSan.
 *
 * Usage: fuzz_NAME PATH...  Each PATH is a file, or a directory whose regular files are
 * taken in name order; each file is fed once to LLVMFuzzerTestOneInput. A crash is a
 * sanitizer report or an abort: the process dies, after naming the file it was on (a
 * sanitizer death callback, a SIGABRT handler); otherwise it prints "fuzz_NAME: N inputs,
 * ok" and exits 0 (MW_FUZZ_VERBOSE=1 names every file as it goes). No input at all is an error
 * (exit 1): a corpus that went missing must not pass. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define DRIVER_SANITIZED 1
#endif

static const char *g_current = "(none)";

static void say_where(void)
{
    dprintf(2, "fuzz driver: the input that failed: %s\n", g_current);
}

static void on_abort(int sig)
{
    say_where();
    signal(sig, SIG_DFL);
    raise(sig);
}

static int run_file(const char *prog, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        dprintf(2, "%s: %s: %s\n", prog, path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *b = realloc(buf, cap *= 2);
            if (!b) free(buf);
            buf = b;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        dprintf(2, "%s: %s: cannot read\n", prog, path);
        free(buf);
        return -1;
    }
    /* an exact-size copy, so that ASan sees any read past the input's end */
    uint8_t *in = malloc(n ? n : 1);
    if (!in) {
        free(buf);
        return -1;
    }
    memcpy(in, buf, n);
    free(buf);
    const char *v = getenv("MW_FUZZ_VERBOSE");
    if (v && *v && strcmp(v, "0") != 0) dprintf(2, "%s: %s (%zu bytes)\n", prog, path, n);
    g_current = path;
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *prog, const char *dir, long *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        dprintf(2, "%s: %s: %s\n", prog, dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char **nn = realloc(names, (n + 1) * sizeof *nn);
        if (!nn) break;
        names = nn;
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(prog, path)) rc = -1;
            (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (argc < 2) {
        dprintf(2, "usage: %s FILE|DIR...\n", prog);
        return 2;
    }
    signal(SIGABRT, on_abort);
#ifdef DRIVER_SANITIZED
    __sanitizer_set_death_callback(say_where);
#endif
    LLVMFuzzerInitialize(&argc, &argv);
    long count = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            if (run_dir(prog, argv[i], &count)) rc = 1;
        } else {
            if (run_file(prog, argv[i])) rc = 1;
            count++;
        }
    }
    if (!count) {
        dprintf(2, "%s: no inputs\n", prog);
        return 1;
    }
    dprintf(2, "%s: %ld inputs, %s\n", prog, count, rc ? "some unreadable" : "ok");
    return rc;
}
