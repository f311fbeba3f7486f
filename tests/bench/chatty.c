/* chatty — a synthetic chatty MPI program for bench_chatty.sh and test_probe_chatty.sh: ranks
 * 0 and 1 play 1-byte MPI_Send/MPI_Recv ping-pongs (2 calls per rank each) for SECONDS
 * seconds, paced to RATE calls per second per rank (0: as fast as they go); the byte rank 0
 * sends says whether to go on, so both stop together. Other ranks only wait in the final
 * MPI_Barrier. Rank 0 prints the calls each of the two made and the rate it got:
 * "chatty: CALLS calls per rank in SECONDS s: RATE calls/s per rank". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double rate = argc > 1 ? atof(argv[1]) : 0, seconds = argc > 2 ? atof(argv[2]) : 1;
    char go = 1;
    long long calls = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    while (go && rank < 2) {
        if (rank == 0) {
            double t = MPI_Wtime() - t0;
            while (rate > 0 && t < (double)calls / rate) /* paced: wait until due */
                t = MPI_Wtime() - t0;
            go = t < seconds;
            MPI_Send(&go, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&go, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&go, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&go, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
        calls += 2;
    }
    double dt = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("chatty: %lld calls per rank in %.3f s: %.0f calls/s per rank\n", calls, dt,
               calls / dt);
    MPI_Finalize();
    return 0;
}
