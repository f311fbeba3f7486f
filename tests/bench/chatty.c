/* chatty — a synthetic chatty MPI program for bench_merge.sh and test_probe_chatty.sh: ranks 0
 * and 1 play 0-byte MPI_Send/MPI_Recv ping-pongs (2 calls per rank each), paced to RATE calls
 * per second per rank (0: as fast as they go), for SECONDS seconds. Other ranks only wait in
 * the final MPI_Barrier. Prints, from rank 0, the calls each rank made and the rate it got. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double rate = argc > 1 ? atof(argv[1]) : 0, seconds = argc > 2 ? atof(argv[2]) : 1;
    char b = 0;
    long long calls = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), t = t0;
    int go = 1;
    while (go) {
        if (rank == 0) {
            MPI_Send(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        } else {
            break;
        }
        calls += 2;
        /* pace: wait until this many calls are due (rank 0 decides when to stop, in band:
         * a 1-byte message would change the pattern, so both stop on the same count) */
        if (rate > 0)
            while ((t = MPI_Wtime()) - t0 < (double)calls / rate) {
            }
        else if ((calls & 1023) == 0)
            t = MPI_Wtime();
        if (rate > 0)
            go = (double)calls < rate * seconds;
        else
            go = calls < (long long)(seconds * 2e6); /* at full speed: a fixed count */
    }
    double dt = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("%lld calls per rank in %.3f s: %.0f calls/s per rank\n", calls, dt,
                          calls / dt);
    MPI_Finalize();
    return 0;
}
