/* dies: rank 0 sends 5 messages of 64 B to rank 1, then one rank dies, or both wait, so that
 * a test can check what the profiler keeps of a program that ends by a signal.
 *
 *   dies --segv RANK     that rank dereferences a null pointer (SIGSEGV)
 *   dies --sigterm RANK  that rank is sent SIGTERM, as a scheduler or a launcher stops a job
 *   dies --wait          both ranks wait in MPI_Barrier rounds for ever (msgperf is stopped)
 *
 * After the messages every rank prints "sent" on stdout, so that the test knows when. Needs 2
 * ranks. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MESSAGES 5
#define BYTES 64

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks, victim = -1, sig = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc >= 3 && !strcmp(argv[1], "--segv"))
        victim = atoi(argv[2]), sig = SIGSEGV;
    else if (argc >= 3 && !strcmp(argv[1], "--sigterm"))
        victim = atoi(argv[2]), sig = SIGTERM;
    else if (argc < 2 || strcmp(argv[1], "--wait") != 0 || nranks != 2) {
        if (rank == 0)
            fprintf(stderr, "dies: --segv RANK, --sigterm RANK or --wait, with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char buf[BYTES] = {0};
    for (int i = 0; i < MESSAGES; i++) {
        if (rank == 0)
            MPI_Send(buf, BYTES, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        else
            MPI_Recv(buf, BYTES, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("sent\n");
    fflush(stdout);
    if (rank == victim && sig == SIGSEGV) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    if (rank == victim && sig == SIGTERM)
        kill(getpid(), SIGTERM);
    for (;;) {  /* the others wait for the launcher (or msgperf) to stop them */
        MPI_Barrier(MPI_COMM_WORLD);
        nanosleep(&(struct timespec){.tv_nsec = 20000000}, NULL);
    }
}
