/* probe_traffic — a live count of the bytes this process sends over MPI, for the simulated
 * cluster's switch channel (mw_simcluster.h): when MW_TRAFFIC_DIR is set (mw record sets it
 * for --meter sim:cluster only), the first send maps the file MW_TRAFFIC_DIR/PID (16 bytes:
 * the magic "mwtx0001", then the byte count, little-endian uint64) shared and adds each
 * send's bytes to it with an atomic add; the recorder reads the files while the program
 * runs. Without MW_TRAFFIC_DIR, or when the file cannot be made, every call is a load and a
 * branch. The directory (made fresh by mw record) and the file are opened with O_NOFOLLOW:
 * a link planted in their place is refused, never written through. A forked child starts a
 * file of its own. Each byte that crosses between ranks is
 * counted once: point-to-point by its sender, a collective's by each rank's part of it
 * (Bcast and Scatter by the ranks the root's data reaches). */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe_internal.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int g_state;        /* 0: not looked yet, 1: counting, -1: off */
static _Atomic(uint64_t) *g_count; /* in the shared mapping */
static void *g_map;
static int g_atfork;

static void before_fork(void)
{
    pthread_mutex_lock(&g_lock);
}

static void parent_after_fork(void)
{
    pthread_mutex_unlock(&g_lock);
}

static void child_reset(void)
{
    /* the parent's mapping is not the child's file */
    if (g_map) munmap(g_map, 16);
    g_map = NULL;
    g_count = NULL;
    atomic_store(&g_state, 0);
    pthread_mutex_unlock(&g_lock);
}

static void open_counter(void)
{
    pthread_mutex_lock(&g_lock);
    if (atomic_load(&g_state) != 0) {
        pthread_mutex_unlock(&g_lock);
        return;
    }
    if (!g_atfork) {
        g_atfork = 1;
        pthread_atfork(before_fork, parent_after_fork, child_reset);
    }
    int state = -1;
    const char *dir = getenv("MW_TRAFFIC_DIR");
    char path[PATH_MAX], name[32];
    snprintf(name, sizeof name, "%d", (int)getpid());
    if (dir && *dir &&
        snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path) {
        mkdir(dir, 0775); /* mw record made it; never follows a link, never o+w */
        /* the directory and the file each opened without following a link: a link planted
         * in their place is refused, not written through */
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int fd = dfd < 0 ? -1
                         : openat(dfd, name, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                                  0644);
        if (dfd >= 0) close(dfd);
        if (fd >= 0 && ftruncate(fd, 16) == 0) {
            void *m = mmap(NULL, 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (m != MAP_FAILED) {
                memcpy(m, "mwtx0001", 8);
                g_map = m;
                g_count = (_Atomic(uint64_t) *)((char *)m + 8);
                atomic_store(g_count, 0);
                state = 1;
            }
        }
        if (fd >= 0) close(fd);
        if (state != 1) fprintf(stderr, "mwprobe: cannot make %s: no traffic counted\n", path);
    }
    atomic_store(&g_state, state);
    pthread_mutex_unlock(&g_lock);
}

void mw_probe_traffic_add(int64_t bytes)
{
    int s = atomic_load_explicit(&g_state, memory_order_acquire);
    if (s < 0 || bytes <= 0) return;
    if (s == 0) {
        open_counter();
        if (atomic_load(&g_state) != 1) return;
    }
    atomic_fetch_add_explicit(g_count, (uint64_t)bytes, memory_order_relaxed);
}
