/* mpi_phases — an MPI + OpenMP test program with phases of known length, for
 * test_probe_mpi.sh. Every rank: "compute" (busy 200 ms), "rest" (sleeps 100 ms), a
 * barrier, rank 0 sends 1 MiB to every other rank, a barrier, "threads" (an OpenMP
 * parallel region busy for 100 ms, marked by hand: GCC's libgomp has no OMPT), a final
 * barrier. It prints one line per rank with the wall time (CLOCK_REALTIME ns) at which it
 * left the last barrier, so the test can compare it with the recorded MPI_Barrier end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mwprobe.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile double sink;

static void busy(double seconds)
{
    double t0 = now_s(), x = 1;
    while (now_s() - t0 < seconds)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    mw_phase_begin("compute");
    busy(0.2);
    mw_phase_end("compute");
    mw_phase_begin("rest");
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL);
    mw_phase_end("rest");
    MPI_Barrier(MPI_COMM_WORLD);

    enum { N = 1 << 20 };
    char *buf = calloc(N, 1);
    if (rank == 0)
        for (int r = 1; r < size; r++)
            MPI_Send(buf, N, MPI_CHAR, r, 7, MPI_COMM_WORLD);
    else
        MPI_Recv(buf, N, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);

    mw_phase_begin("threads");
#pragma omp parallel
    busy(0.1);
    mw_phase_end("threads");
    MPI_Barrier(MPI_COMM_WORLD);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    printf("rank %d left the last barrier at %lld\n", rank,
           (long long)rt.tv_sec * 1000000000LL + rt.tv_nsec);
    MPI_Finalize();
    return 0;
}
