/* mwb-alltoall — collective exchange: MPI_Alltoall over all ranks, --bytes from every rank
 * to every other, repeated for --seconds.
 *
 * Every rank sends a block of --bytes to each rank (itself included, as MPI_Alltoall does).
 * The block from rank s to rank d holds bytes that depend on s, d and the position, and every
 * rank checks all blocks it received after the last exchange. After 3 untimed warm-up
 * exchanges and a barrier, the exchanges repeat until the deadline (--seconds after the
 * barrier): after each one rank 0 decides from its clock whether to go on and broadcasts the
 * decision (a 1-int MPI_Bcast, included in the time), so all ranks stop together within one
 * exchange of the deadline. Aggregate bandwidth = P (P - 1) bytes per exchange (the blocks
 * that cross between ranks; a rank's block to itself is not counted) / time, in MB/s (1e6
 * B/s). Probe: phase "alltoall" on every rank around the timed exchanges. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <mpi.h>
#include <mwprobe.h>
#include <stdio.h>
#include <stdlib.h>

enum { WARMUP = 3 };

static const char usage[] =
    "usage: mpirun -np P mwb-alltoall [--bytes B] [--seconds S]\n"
    "MPI_Alltoall over all P ranks, B bytes (default 262144) from each rank to each rank,\n"
    "repeated for S seconds (default 10). Prints the aggregate bandwidth in MB/s (1e6 B/s;\n"
    "P (P - 1) B bytes cross between ranks per exchange) and checks the received data (exit 1\n"
    "if wrong). Probe phase \"alltoall\" on every rank.\n"
    "  --bytes B     bytes per pair of ranks, 0 to 268435456 (default 262144)\n"
    "  --seconds S   run time, 0.01 to 1e6 s (default 10)\n"
    "  --help        this text\n";

static unsigned char fill(int from, int to, int64_t i)
{
    return (unsigned char)(from * 37 + to * 101 + i * 7 + 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = 10;
    int64_t bytes = 262144;
    const struct mwb_opt opts[] = {
        {"bytes", MWB_INT, &bytes, 0, 268435456, NULL},
        {"seconds", MWB_DOUBLE, &seconds, 0.01, 1e6, NULL},
    };
    int rc = mwb_parse(argc, argv, opts, 2, usage, rank == 0);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }

    size_t total = (size_t)bytes * (size_t)size;
    unsigned char *sendbuf = malloc(total ? total : 1), *recvbuf = malloc(total ? total : 1);
    if (!sendbuf || !recvbuf) {
        fprintf(stderr, "%s: rank %d: cannot allocate 2 x %zu bytes\n", mwb_prog, rank, total);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int d = 0; d < size; d++)
        for (int64_t i = 0; i < bytes; i++)
            sendbuf[(size_t)d * (size_t)bytes + (size_t)i] = fill(rank, d, i);
    const int count = (int)bytes;

    for (int w = 0; w < WARMUP; w++)
        MPI_Alltoall(sendbuf, count, MPI_BYTE, recvbuf, count, MPI_BYTE, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    mw_phase_begin("alltoall");
    double t0 = MPI_Wtime(), now;
    long exchanges = 0;
    int go;
    do {
        MPI_Alltoall(sendbuf, count, MPI_BYTE, recvbuf, count, MPI_BYTE, MPI_COMM_WORLD);
        exchanges++;
        now = MPI_Wtime();
        go = now < t0 + seconds;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } while (go);
    now = MPI_Wtime();
    mw_phase_end("alltoall");
    double elapsed = now - t0;

    long long wrong = 0, all_wrong = 0;
    for (int s = 0; s < size; s++)
        for (int64_t i = 0; i < bytes; i++)
            wrong += recvbuf[(size_t)s * (size_t)bytes + (size_t)i] != fill(s, rank, i);
    MPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double elapsed_max = 0;
    MPI_Reduce(&elapsed, &elapsed_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Bcast(&all_wrong, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double crossed = (double)size * (double)(size - 1) * (double)bytes * (double)exchanges;
        mw_counter("bytes", (int64_t)crossed);
        printf("ranks: %d\n", size);
        printf("block: %lld bytes per pair of ranks\n", (long long)bytes);
        printf("exchanges: %ld in %.3f s (%.3f ms each)\n", exchanges, elapsed_max,
               elapsed_max / (double)exchanges * 1e3);
        printf("check: %s (%lld bytes received wrong)\n", all_wrong ? "FAILED" : "passed",
               all_wrong);
        printf("mwb-alltoall: aggregate %.3f MB/s on %d ranks, %lld bytes per pair, %.3f s, "
               "check %s\n",
               crossed / elapsed_max / 1e6, size, (long long)bytes, elapsed_max,
               all_wrong ? "FAILED" : "passed");
    }
    free(sendbuf);
    free(recvbuf);
    MPI_Finalize();
    return all_wrong ? 1 : 0;
}
