/* probe_mpi — automatic MPI phases: PMPI interposition (by linking libmwprobe, or with
 * LD_PRELOAD=libmwprobe.so on an unmodified program), the cross-node clock sync, and the
 * gathering of remote ranks' events at MPI_Finalize.
 *
 * Every wrapped call becomes one event of kind "comm" (data moves) or "wait" (it only
 * waits: Barrier, Wait*, Probe) named after the call, with the bytes it moves (count x
 * type size; for a receive, what arrived) and the peer or root (its rank in the call's
 * communicator; -1 when none or for collectives without a root). The time inside blocking
 * calls, waiting included, is the event's span. Calls not wrapped here run unrecorded.
 *
 * Clock sync (as Score-P does): at MPI_Init and at MPI_Finalize every rank measures its
 * clock's offset to the reference rank (the first rank on the host named by
 * MW_RECORD_HOST, the recorder's; rank 0 when unset) by SYNC_ROUNDS ping-pongs, keeping the
 * exchange with the smallest round trip: offset = t_ref - (t_send + t_recv) / 2, within
 * +- round trip / 2. Ranks on the reference's host share its clock: offset 0 exactly (set
 * MW_PROBE_SYNC_ALL=1 to measure them too, for tests). The two samples go to the spill
 * file; mw merge interpolates between them.
 *
 * Gathering: at MPI_Finalize each rank on another host than the reference sends its spill
 * file (flushed) to the reference rank, which writes it under MW_RUN_DIR/probe/, so no
 * shared file system is needed (MW_PROBE_GATHER_ALL=1 gathers from every rank, for tests).
 * The sync and the gathering only happen when every rank's probe is active (one
 * MPI_Allreduce at MPI_Init decides), so a job where some ranks lack MW_RUN_DIR cannot
 * hang. */
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe_internal.h"

#define SYNC_ROUNDS 20
#define SYNC_TAG 27767
#define GATHER_TAG 27768
#define HOST_LEN 256
#define CHUNK (1 << 20)

static int g_rank = -1, g_size = 0, g_ref = 0, g_all_active = 0;
static char *g_hosts; /* g_size x HOST_LEN */

static int64_t bytes_of(int count, MPI_Datatype t)
{
    int sz = 0;
    if (count <= 0 || t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &sz) != MPI_SUCCESS) return 0;
    return (int64_t)count * sz;
}

static int64_t recv_bytes(const MPI_Status *st, MPI_Datatype t)
{
    int n = 0;
    if (PMPI_Get_count(st, t, &n) != MPI_SUCCESS || n == MPI_UNDEFINED) return 0;
    return bytes_of(n, t);
}

static int same_host(int a, int b)
{
    return !strcmp(g_hosts + a * HOST_LEN, g_hosts + b * HOST_LEN);
}

/* ---- clock sync ------------------------------------------------------------------------ */

static void sync_clocks(void)
{
    int all = getenv("MW_PROBE_SYNC_ALL") != NULL;
    if (g_rank == g_ref) {
        for (int r = 0; r < g_size; r++) {
            if (r == g_ref || (!all && same_host(r, g_ref))) continue;
            for (int i = 0; i < SYNC_ROUNDS; i++) {
                long long dummy, t;
                PMPI_Recv(&dummy, 1, MPI_LONG_LONG, r, SYNC_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                t = mw_probe_now_ns();
                PMPI_Send(&t, 1, MPI_LONG_LONG, r, SYNC_TAG, MPI_COMM_WORLD);
            }
        }
        mw_probe_clock_sample(mw_probe_now_ns(), 0, 0);
    } else if (!all && same_host(g_rank, g_ref)) {
        mw_probe_clock_sample(mw_probe_now_ns(), 0, 0);
    } else {
        int64_t best_rtt = INT64_MAX, best_off = 0, best_at = 0;
        for (int i = 0; i < SYNC_ROUNDS; i++) {
            long long t1 = mw_probe_now_ns(), tref;
            PMPI_Send(&t1, 1, MPI_LONG_LONG, g_ref, SYNC_TAG, MPI_COMM_WORLD);
            PMPI_Recv(&tref, 1, MPI_LONG_LONG, g_ref, SYNC_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int64_t t2 = mw_probe_now_ns(), rtt = t2 - t1;
            if (rtt < best_rtt) {
                best_rtt = rtt;
                best_at = t1 + rtt / 2;
                best_off = tref - best_at;
            }
        }
        mw_probe_clock_sample(best_at, best_off, (best_rtt + 1) / 2);
    }
    PMPI_Barrier(MPI_COMM_WORLD);
}

/* ---- gathering spill files ------------------------------------------------------------- */

static void receive_spill(int from)
{
    char name[NAME_MAX + 1];
    long long len;
    PMPI_Recv(name, sizeof name, MPI_CHAR, from, GATHER_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    PMPI_Recv(&len, 1, MPI_LONG_LONG, from, GATHER_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    name[NAME_MAX] = 0;
    char path[PATH_MAX];
    const char *run = getenv("MW_RUN_DIR");
    snprintf(path, sizeof path, "%s/probe", run ? run : ".");
    mkdir(path, 0775); /* never o+w, whatever the remote umask */
    snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", name);
    int fd = len >= 0 ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644) : -1;
    char *buf = malloc(CHUNK);
    for (long long got = 0; len > 0 && got < len;) {
        int n = (int)(len - got < CHUNK ? len - got : CHUNK);
        PMPI_Recv(buf, n, MPI_CHAR, from, GATHER_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (fd >= 0 && buf && write(fd, buf, (size_t)n) != n) {
            close(fd);
            fd = -1;
        }
        got += n;
    }
    free(buf);
    if (fd >= 0) close(fd);
}

static void send_spill(void)
{
    const char *path = mw_probe_spill_path();
    const char *base = strrchr(path, '/');
    char name[NAME_MAX + 1] = {0};
    snprintf(name, sizeof name, "%s", base ? base + 1 : path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    long long len = fd >= 0 && fstat(fd, &st) == 0 ? (long long)st.st_size : -1;
    char *buf = malloc(CHUNK);
    if (!buf) len = -1;
    PMPI_Send(name, sizeof name, MPI_CHAR, g_ref, GATHER_TAG, MPI_COMM_WORLD);
    PMPI_Send(&len, 1, MPI_LONG_LONG, g_ref, GATHER_TAG, MPI_COMM_WORLD);
    for (long long sent = 0; len > 0 && sent < len;) {
        int n = (int)(len - sent < CHUNK ? len - sent : CHUNK);
        ssize_t got = pread(fd, buf, (size_t)n, sent);
        if (got < n) memset(buf + (got > 0 ? got : 0), '\n', (size_t)(n - (got > 0 ? got : 0)));
        PMPI_Send(buf, n, MPI_CHAR, g_ref, GATHER_TAG, MPI_COMM_WORLD);
        sent += n;
    }
    free(buf);
    if (fd >= 0) close(fd);
}

/* The reference's own spill file, when it is not in MW_RUN_DIR/probe (MW_PROBE_DIR set). */
static void copy_own_spill(void)
{
    const char *run = getenv("MW_RUN_DIR"), *path = mw_probe_spill_path();
    const char *base = strrchr(path, '/');
    char dst[PATH_MAX];
    snprintf(dst, sizeof dst, "%s/probe", run ? run : ".");
    mkdir(dst, 0775);
    snprintf(dst + strlen(dst), sizeof dst - strlen(dst), "/%s", base ? base + 1 : path);
    if (!strcmp(dst, path)) return;
    int in = open(path, O_RDONLY | O_CLOEXEC);
    int out = in >= 0 ? open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644) : -1;
    char buf[65536];
    ssize_t n;
    while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) break;
    if (out >= 0) close(out);
    if (in >= 0) close(in);
}

static void gather_spills(void)
{
    int all = getenv("MW_PROBE_GATHER_ALL") != NULL;
    mw_probe_flush();
    if (g_rank == g_ref && getenv("MW_PROBE_DIR")) copy_own_spill();
    for (int r = 0; r < g_size; r++) {
        if (r == g_ref || (!all && same_host(r, g_ref))) continue;
        if (g_rank == g_ref)
            receive_spill(r);
        else if (g_rank == r)
            send_spill();
    }
    PMPI_Barrier(MPI_COMM_WORLD);
}

/* ---- init and finalize ----------------------------------------------------------------- */

static void after_init(int64_t t0)
{
    int active = mw_probe_active();
    PMPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &g_size);
    PMPI_Allreduce(&active, &g_all_active, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!active) return;
    mw_probe_set_rank(g_rank, g_size);
    g_hosts = calloc((size_t)g_size, HOST_LEN);
    char host[HOST_LEN] = {0};
    gethostname(host, HOST_LEN - 1);
    PMPI_Allgather(host, HOST_LEN, MPI_CHAR, g_hosts, HOST_LEN, MPI_CHAR, MPI_COMM_WORLD);
    const char *rec = getenv("MW_RECORD_HOST");
    g_ref = 0;
    for (int r = 0; rec && r < g_size; r++)
        if (!strcmp(g_hosts + r * HOST_LEN, rec)) {
            g_ref = r;
            break;
        }
    if (g_all_active) sync_clocks();
    mw_probe_event(MW_PROBE_COMM, "MPI_Init", t0, mw_probe_now_ns(), 0, -1);
}

int MPI_Init(int *argc, char ***argv)
{
    int64_t t0 = mw_probe_now_ns();
    int r = PMPI_Init(argc, argv);
    if (r == MPI_SUCCESS) after_init(t0);
    return r;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int64_t t0 = mw_probe_now_ns();
    int r = PMPI_Init_thread(argc, argv, required, provided);
    if (r == MPI_SUCCESS) after_init(t0);
    return r;
}

int MPI_Finalize(void)
{
    if (mw_probe_active() && g_all_active && g_hosts) {
        int64_t t0 = mw_probe_now_ns();
        PMPI_Barrier(MPI_COMM_WORLD);
        sync_clocks();
        mw_probe_event(MW_PROBE_COMM, "MPI_Finalize", t0, mw_probe_now_ns(), 0, -1);
        gather_spills();
    }
    free(g_hosts);
    g_hosts = NULL;
    return PMPI_Finalize();
}

/* ---- wrapped calls --------------------------------------------------------------------- */

/* T0 starts the clock only when the probe records; EV records the call. */
#define T0 int64_t t0_ = mw_probe_active() ? mw_probe_now_ns() : 0
/* TX: bytes this process sends, for the simulated cluster's switch (probe_traffic.c) */
#define TX(bytes) mw_probe_traffic_add(bytes)
/* a root's data that crosses to each other rank (Bcast, Scatter): counted once, by the rank
 * it reaches (the root's own share never leaves it) */
#define TX_RECEIVED(comm, root, bytes)                                                             \
    do {                                                                                           \
        int me_;                                                                                   \
        if (PMPI_Comm_rank(comm, &me_) == MPI_SUCCESS && me_ != (root)) TX(bytes);                 \
    } while (0)
#define EV(kind, name, bytes, peer)                                                                \
    do {                                                                                           \
        if (t0_) mw_probe_event(kind, name, t0_, mw_probe_now_ns(), bytes, peer);                  \
    } while (0)

int MPI_Send(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    T0;
    int r = PMPI_Send(buf, count, t, dest, tag, comm);
    TX(bytes_of(count, t));
    EV(MW_PROBE_COMM, "MPI_Send", bytes_of(count, t), dest);
    return r;
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    T0;
    int r = PMPI_Ssend(buf, count, t, dest, tag, comm);
    TX(bytes_of(count, t));
    EV(MW_PROBE_COMM, "MPI_Ssend", bytes_of(count, t), dest);
    return r;
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    T0;
    int r = PMPI_Rsend(buf, count, t, dest, tag, comm);
    TX(bytes_of(count, t));
    EV(MW_PROBE_COMM, "MPI_Rsend", bytes_of(count, t), dest);
    return r;
}

int MPI_Recv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    T0;
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int r = PMPI_Recv(buf, count, t, src, tag, comm, st);
    EV(MW_PROBE_COMM, "MPI_Recv", r == MPI_SUCCESS ? recv_bytes(st, t) : 0,
       r == MPI_SUCCESS ? st->MPI_SOURCE : src);
    return r;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    T0;
    int r = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
                          status);
    TX(bytes_of(scount, stype));
    EV(MW_PROBE_COMM, "MPI_Sendrecv", bytes_of(scount, stype) + bytes_of(rcount, rtype), dest);
    return r;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype t, int dest, int stag, int src,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    T0;
    int r = PMPI_Sendrecv_replace(buf, count, t, dest, stag, src, rtag, comm, status);
    TX(bytes_of(count, t));
    EV(MW_PROBE_COMM, "MPI_Sendrecv_replace", 2 * bytes_of(count, t), dest);
    return r;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    T0;
    int r = PMPI_Isend(buf, count, t, dest, tag, comm, req);
    TX(bytes_of(count, t));
    EV(MW_PROBE_COMM, "MPI_Isend", bytes_of(count, t), dest);
    return r;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    T0;
    int r = PMPI_Irecv(buf, count, t, src, tag, comm, req);
    EV(MW_PROBE_COMM, "MPI_Irecv", bytes_of(count, t), src);
    return r;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    T0;
    int r = PMPI_Wait(req, status);
    EV(MW_PROBE_WAIT, "MPI_Wait", 0, -1);
    return r;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    T0;
    int r = PMPI_Waitall(n, reqs, statuses);
    EV(MW_PROBE_WAIT, "MPI_Waitall", 0, -1);
    return r;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    T0;
    int r = PMPI_Waitany(n, reqs, index, status);
    EV(MW_PROBE_WAIT, "MPI_Waitany", 0, -1);
    return r;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    T0;
    int r = PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    EV(MW_PROBE_WAIT, "MPI_Waitsome", 0, -1);
    return r;
}

int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *status)
{
    T0;
    int r = PMPI_Probe(src, tag, comm, status);
    EV(MW_PROBE_WAIT, "MPI_Probe", 0, src);
    return r;
}

int MPI_Barrier(MPI_Comm comm)
{
    T0;
    int r = PMPI_Barrier(comm);
    EV(MW_PROBE_WAIT, "MPI_Barrier", 0, -1);
    return r;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
    T0;
    int r = PMPI_Bcast(buf, count, t, root, comm);
    TX_RECEIVED(comm, root, bytes_of(count, t));
    EV(MW_PROBE_COMM, "MPI_Bcast", bytes_of(count, t), root);
    return r;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, int root,
               MPI_Comm comm)
{
    T0;
    int r = PMPI_Reduce(sbuf, rbuf, count, t, op, root, comm);
    TX(bytes_of(count, t));
    EV(MW_PROBE_COMM, "MPI_Reduce", bytes_of(count, t), root);
    return r;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    T0;
    int r = PMPI_Allreduce(sbuf, rbuf, count, t, op, comm);
    TX(bytes_of(count, t));
    EV(MW_PROBE_COMM, "MPI_Allreduce", bytes_of(count, t), -1);
    return r;
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    T0;
    int r = PMPI_Scan(sbuf, rbuf, count, t, op, comm);
    TX(bytes_of(count, t));
    EV(MW_PROBE_COMM, "MPI_Scan", bytes_of(count, t), -1);
    return r;
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype t, MPI_Op op,
                       MPI_Comm comm)
{
    T0;
    int r = PMPI_Reduce_scatter(sbuf, rbuf, rcounts, t, op, comm);
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    TX(bytes_of(rcounts[me], t));
    EV(MW_PROBE_COMM, "MPI_Reduce_scatter", bytes_of(rcounts[me], t), -1);
    return r;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
               MPI_Datatype rt, int root, MPI_Comm comm)
{
    T0;
    int r = PMPI_Gather(sbuf, scount, st, rbuf, rcount, rt, root, comm);
    TX(bytes_of(scount, st));
    EV(MW_PROBE_COMM, "MPI_Gather", bytes_of(scount, st), root);
    return r;
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rt, int root, MPI_Comm comm)
{
    T0;
    int r = PMPI_Gatherv(sbuf, scount, st, rbuf, rcounts, displs, rt, root, comm);
    TX(bytes_of(scount, st));
    EV(MW_PROBE_COMM, "MPI_Gatherv", bytes_of(scount, st), root);
    return r;
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                MPI_Datatype rt, int root, MPI_Comm comm)
{
    T0;
    int r = PMPI_Scatter(sbuf, scount, st, rbuf, rcount, rt, root, comm);
    TX_RECEIVED(comm, root, bytes_of(rcount, rt));
    EV(MW_PROBE_COMM, "MPI_Scatter", bytes_of(rcount, rt), root);
    return r;
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype st,
                 void *rbuf, int rcount, MPI_Datatype rt, int root, MPI_Comm comm)
{
    T0;
    int r = PMPI_Scatterv(sbuf, scounts, displs, st, rbuf, rcount, rt, root, comm);
    TX_RECEIVED(comm, root, bytes_of(rcount, rt));
    EV(MW_PROBE_COMM, "MPI_Scatterv", bytes_of(rcount, rt), root);
    return r;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                  MPI_Datatype rt, MPI_Comm comm)
{
    T0;
    int r = PMPI_Allgather(sbuf, scount, st, rbuf, rcount, rt, comm);
    TX(bytes_of(scount, st));
    EV(MW_PROBE_COMM, "MPI_Allgather", bytes_of(scount, st), -1);
    return r;
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, const int rcounts[],
                   const int displs[], MPI_Datatype rt, MPI_Comm comm)
{
    T0;
    int r = PMPI_Allgatherv(sbuf, scount, st, rbuf, rcounts, displs, rt, comm);
    TX(bytes_of(scount, st));
    EV(MW_PROBE_COMM, "MPI_Allgatherv", bytes_of(scount, st), -1);
    return r;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                 MPI_Datatype rt, MPI_Comm comm)
{
    T0;
    int r = PMPI_Alltoall(sbuf, scount, st, rbuf, rcount, rt, comm);
    int n = 0;
    PMPI_Comm_size(comm, &n);
    TX(bytes_of(scount, st) * n);
    EV(MW_PROBE_COMM, "MPI_Alltoall", bytes_of(scount, st) * n, -1);
    return r;
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype st,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rt,
                  MPI_Comm comm)
{
    T0;
    int r = PMPI_Alltoallv(sbuf, scounts, sdispls, st, rbuf, rcounts, rdispls, rt, comm);
    int64_t b = 0;
    if (t0_) {
        int n = 0;
        PMPI_Comm_size(comm, &n);
        for (int i = 0; i < n; i++)
            b += bytes_of(scounts[i], st);
    }
    TX(b);
    EV(MW_PROBE_COMM, "MPI_Alltoallv", b, -1);
    return r;
}
