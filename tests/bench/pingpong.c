/* pingpong — 0-byte MPI ping-pong between ranks 0 and 1 for bench_probe_mpi.sh: prints the
 * mean round-trip time in ns over N round trips (after 1000 warm-up ones). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n = argc > 1 ? atoi(argv[1]) : 100000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char b = 0;
    double t0 = 0;
    for (int i = -1000; i < n; i++) {
        if (i == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        if (rank == 0) {
            MPI_Send(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0) printf("%.1f\n", t / n * 1e9);
    MPI_Finalize();
    return 0;
}
