/* newcomer_mpi — an MPI program that knows nothing of megawatt (no mwprobe.h, no
 * -lmwprobe), for tests/integration/test_newcomer.sh: each rank computes ROUNDS x BURN_MS
 * (spinning on CLOCK_MONOTONIC to a deadline, so the wall time is known however busy the
 * machine is), with an MPI_Allreduce and an MPI_Barrier after each round. Its computation,
 * the time outside MPI, is therefore ROUNDS x BURN_MS plus the few microseconds between
 * calls; it prints nothing but one line from rank 0 at the end. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 4
#define BURN_MS 400

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    volatile double x = 1;
    for (int r = 0; r < ROUNDS; r++) {
        double until = now_s() + BURN_MS / 1e3;
        while (now_s() < until)
            for (int k = 0; k < 1000; k++)
                x = x * 1.0000001 + 1e-9;
        double sum, v = x;
        MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (!rank) printf("newcomer_mpi: %d rounds of %d ms done\n", ROUNDS, BURN_MS);
    MPI_Finalize();
    return 0;
}
