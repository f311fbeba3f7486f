/* mwb-pingpong — point-to-point latency and bandwidth between MPI ranks 0 and 1.
 *
 * Rank 0 sends --bytes to rank 1 (MPI_Send), which sends them back; one round trip is a
 * ping and a pong. After 10 untimed warm-up round trips the ranks meet at a barrier, then
 * rank 0 repeats round trips until the deadline (--seconds after the barrier) and ends the
 * exchange with an empty message of another tag, which rank 1 answers by leaving its loop
 * (so only rank 0 reads the clock, and both stop within one round trip of the deadline).
 * Latency = elapsed / (2 round trips): the half round trip, in us; bandwidth = bytes / half
 * round trip, in MB/s (1e6 B/s). Rank 1 echoes what it received, and rank 0 checks the last
 * echo byte by byte. Ranks above 1 take no part; they wait in the final MPI_Reduce.
 * Probe: phase "pingpong" on every rank, from the barrier to the end of its part (with
 * libmwprobe's PMPI layer the MPI calls are recorded as well). Needs at least 2 ranks. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <mpi.h>
#include <mwprobe.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_DATA = 1, TAG_STOP = 2, WARMUP = 10 };

static const char usage[] =
    "usage: mpirun -np 2 mwb-pingpong [--bytes B] [--seconds S]\n"
    "MPI ping-pong between ranks 0 and 1 (other ranks wait): messages of B bytes (default\n"
    "1048576) back and forth for S seconds (default 10). Prints the half round-trip latency\n"
    "(us) and the bandwidth (MB/s, 1e6 B/s: B bytes per half round trip); checks the echoed\n"
    "data (exit 1 if wrong). Probe phase \"pingpong\" on every rank. Needs 2 or more ranks.\n"
    "  --bytes B     message size, 0 to 1073741824 bytes (default 1048576)\n"
    "  --seconds S   run time, 0.01 to 1e6 s (default 10)\n"
    "  --help        this text\n";

static unsigned char fill(int64_t i)
{
    return (unsigned char)(i * 131 + 7);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = 10;
    int64_t bytes = 1048576;
    const struct mwb_opt opts[] = {
        {"bytes", MWB_INT, &bytes, 0, 1073741824, NULL},
        {"seconds", MWB_DOUBLE, &seconds, 0.01, 1e6, NULL},
    };
    int rc = mwb_parse(argc, argv, opts, 2, usage, rank == 0);
    if (rc < 0 && size < 2) {
        fprintf(stderr, "%s: needs at least 2 MPI ranks (mpirun -np 2 ...), not %d\n", mwb_prog,
                size);
        rc = 2;
    }
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }

    unsigned char *buf = malloc(bytes ? (size_t)bytes : 1);
    if (!buf) {
        fprintf(stderr, "%s: rank %d: cannot allocate %lld bytes\n", mwb_prog, rank,
                (long long)bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int64_t i = 0; i < bytes; i++)
        buf[i] = fill(i);
    const int count = (int)bytes;

    for (int w = 0; w < WARMUP && rank < 2; w++) {
        if (rank == 0) {
            MPI_Send(buf, count, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(buf, count, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, count, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, count, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    mw_phase_begin("pingpong");
    double t0 = MPI_Wtime(), elapsed = 0;
    long trips = 0;
    if (rank == 0) {
        double deadline = t0 + seconds, now;
        do {
            MPI_Send(buf, count, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(buf, count, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            trips++;
            now = MPI_Wtime();
        } while (now < deadline);
        elapsed = now - t0;
        MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_STOP, MPI_COMM_WORLD);
    } else if (rank == 1) {
        for (;;) {
            MPI_Status st;
            MPI_Recv(buf, count, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == TAG_STOP) break;
            MPI_Send(buf, count, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        }
    }
    mw_phase_end("pingpong");

    int64_t wrong = 0;
    if (rank == 0)
        for (int64_t i = 0; i < bytes; i++)
            wrong += buf[i] != fill(i);
    long total_trips = 0;
    MPI_Reduce(&trips, &total_trips, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double half_us = elapsed / (2.0 * (double)trips) * 1e6;
        double mbs = (double)bytes / (half_us * 1e-6) / 1e6;
        mw_counter("bytes", (int64_t)(2.0 * (double)bytes * (double)trips));
        printf("ranks: %d (2 exchanging)\n", size);
        printf("message: %lld bytes\n", (long long)bytes);
        printf("round trips: %ld in %.3f s\n", total_trips, elapsed);
        printf("check: %s (%lld bytes of the last echo wrong)\n", wrong ? "FAILED" : "passed",
               (long long)wrong);
        printf("mwb-pingpong: latency %.3f us, bandwidth %.3f MB/s, %lld bytes, %.3f s, check "
               "%s\n",
               half_us, mbs, (long long)bytes, elapsed, wrong ? "FAILED" : "passed");
    }
    free(buf);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
