/* all_calls: every point-to-point call the profiler wraps, once or a few times, between two
 * ranks, with sizes chosen so that each (call, size) says where it came from. The profile of
 * this program is known message by message (tests/commands/test_profile.py lists it):
 * receives into larger buffers than the message (the profile keeps the received size),
 * MPI_ANY_SOURCE, MPI_PROC_NULL, a communicator whose ranks are not the world's, derived
 * datatypes, persistent requests, buffered sends, and every wait and test. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static char out[1024], in[1024];

static void attach(void)
{
    static char bsend_buffer[4096 + MPI_BSEND_OVERHEAD * 4];
    MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer);
}

static void detach(void)
{
    void *b;
    int n;
    MPI_Buffer_detach(&b, &n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks, flag, index, outcount, indices[2];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 2) {
        fprintf(stderr, "all_calls: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Request r[3];
    MPI_Status st;
    MPI_Comm W = MPI_COMM_WORLD;

    /* 1. MPI_Send 10 B; received with MPI_ANY_SOURCE into 100 B */
    if (rank == 0) MPI_Send(out, 10, MPI_CHAR, 1, 1, W);
    else MPI_Recv(in, 100, MPI_CHAR, MPI_ANY_SOURCE, 1, W, &st);
    /* 2. MPI_Ssend 3 ints = 12 B, 1 -> 0 */
    if (rank == 1) MPI_Ssend(out, 3, MPI_INT, 0, 2, W);
    else MPI_Recv(in, 3, MPI_INT, 1, 2, W, MPI_STATUS_IGNORE);
    /* 3. MPI_Rsend 2 doubles = 16 B, to a receive posted before the barrier */
    if (rank == 1) MPI_Irecv(in, 2, MPI_DOUBLE, 0, 3, W, &r[0]);
    MPI_Barrier(W);
    if (rank == 0) MPI_Rsend(out, 2, MPI_DOUBLE, 1, 3, W);
    else MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    /* 4. MPI_Bsend 100 B */
    attach();
    if (rank == 0) MPI_Bsend(out, 100, MPI_BYTE, 1, 4, W);
    else MPI_Recv(in, 100, MPI_BYTE, 0, 4, W, MPI_STATUS_IGNORE);
    detach();
    /* 5. 3 x MPI_Isend 20 B, completed by MPI_Testall; received by MPI_Waitall */
    for (int i = 0; i < 3; i++) {
        if (rank == 0) MPI_Isend(out + 20 * i, 20, MPI_BYTE, 1, 5, W, &r[i]);
        else MPI_Irecv(in + 20 * i, 20, MPI_BYTE, 0, 5, W, &r[i]);
    }
    if (rank == 0)
        do MPI_Testall(3, r, &flag, MPI_STATUSES_IGNORE); while (!flag);
    else
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    /* 6. MPI_Issend 24 B, 1 -> 0, into an MPI_ANY_SOURCE receive of 64 B */
    if (rank == 1) MPI_Issend(out, 24, MPI_BYTE, 0, 6, W, &r[0]);
    else MPI_Irecv(in, 64, MPI_BYTE, MPI_ANY_SOURCE, 6, W, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    /* 7. MPI_Irsend 8 B, both sides completed by MPI_Test */
    if (rank == 1) MPI_Irecv(in, 8, MPI_BYTE, 0, 7, W, &r[0]);
    MPI_Barrier(W);
    if (rank == 0) MPI_Irsend(out, 8, MPI_BYTE, 1, 7, W, &r[0]);
    do MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE); while (!flag);
    /* 8. MPI_Ibsend 40 B */
    attach();
    if (rank == 0) {
        MPI_Ibsend(out, 40, MPI_BYTE, 1, 8, W, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    } else
        MPI_Recv(in, 40, MPI_BYTE, 0, 8, W, MPI_STATUS_IGNORE);
    detach();
    /* 9. persistent 32 B, started twice on both sides */
    if (rank == 0) MPI_Send_init(out, 32, MPI_BYTE, 1, 9, W, &r[0]);
    else MPI_Recv_init(in, 32, MPI_BYTE, 0, 9, W, &r[0]);
    for (int i = 0; i < 2; i++) {
        MPI_Start(&r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&r[0]);
    /* 10. MPI_Ssend_init 4 B, 1 -> 0, into MPI_Recv_init from MPI_ANY_SOURCE; MPI_Startall, MPI_Waitany */
    if (rank == 1) MPI_Ssend_init(out, 4, MPI_BYTE, 0, 10, W, &r[0]);
    else MPI_Recv_init(in, 4, MPI_BYTE, MPI_ANY_SOURCE, 10, W, &r[0]);
    MPI_Startall(1, r);
    MPI_Waitany(1, r, &index, MPI_STATUS_IGNORE);
    MPI_Request_free(&r[0]);
    /* 11. MPI_Rsend_init 6 B */
    if (rank == 1) MPI_Irecv(in, 6, MPI_BYTE, 0, 11, W, &r[0]);
    MPI_Barrier(W);
    if (rank == 0) {
        MPI_Rsend_init(out, 6, MPI_BYTE, 1, 11, W, &r[0]);
        MPI_Start(&r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Request_free(&r[0]);
    } else
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    /* 12. MPI_Bsend_init 5 B, completed by MPI_Testany */
    attach();
    if (rank == 0) {
        MPI_Bsend_init(out, 5, MPI_BYTE, 1, 12, W, &r[0]);
        MPI_Start(&r[0]);
        do MPI_Testany(1, r, &index, &flag, MPI_STATUS_IGNORE); while (!flag);
        MPI_Request_free(&r[0]);
    } else
        MPI_Recv(in, 5, MPI_BYTE, 0, 12, W, MPI_STATUS_IGNORE);
    detach();
    /* 13. MPI_Sendrecv: 0 sends 50 B, 1 sends 60 B, both receive into 100 B */
    MPI_Sendrecv(out, rank == 0 ? 50 : 60, MPI_BYTE, 1 - rank, 13, in, 100, MPI_BYTE, 1 - rank, 13, W,
                 MPI_STATUS_IGNORE);
    /* 14. MPI_Sendrecv_replace 4 ints = 16 B each way */
    MPI_Sendrecv_replace(in, 4, MPI_INT, 1 - rank, 14, 1 - rank, 14, W, MPI_STATUS_IGNORE);
    /* 15. 8 B and 16 B: sent with MPI_Isend + MPI_Testsome, received with MPI_Irecv + MPI_Waitsome */
    for (int i = 0; i < 2; i++) {
        if (rank == 0) MPI_Isend(out + 64 * i, 8 * (i + 1), MPI_BYTE, 1, 15 + i, W, &r[i]);
        else MPI_Irecv(in + 64 * i, 8 * (i + 1), MPI_BYTE, 0, 15 + i, W, &r[i]);
    }
    for (int done = 0; done < 2;) {
        if (rank == 0) MPI_Testsome(2, r, &outcount, indices, MPI_STATUSES_IGNORE);
        else MPI_Waitsome(2, r, &outcount, indices, MPI_STATUSES_IGNORE);
        done += outcount == MPI_UNDEFINED ? 2 : outcount;
    }
    /* 16. MPI_PROC_NULL: a send, a receive, a non-blocking receive (counted apart) */
    MPI_Send(out, 1, MPI_BYTE, MPI_PROC_NULL, 16, W);
    MPI_Recv(in, 1, MPI_BYTE, MPI_PROC_NULL, 16, W, MPI_STATUS_IGNORE);
    MPI_Irecv(in, 1, MPI_BYTE, MPI_PROC_NULL, 16, W, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    /* 17. 7 B over a communicator that numbers the ranks backwards: world 0 is its rank 1 */
    MPI_Comm back;
    MPI_Comm_split(W, 0, -rank, &back);
    if (rank == 0) MPI_Send(out, 7, MPI_BYTE, 0, 17, back);
    else {
        MPI_Irecv(in, 7, MPI_BYTE, MPI_ANY_SOURCE, 17, back, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&back);
    /* 18. derived datatypes: 2 x contiguous(5 ints) = 40 B, 0 -> 1; vector(3, 1, 2) of ints = 12 B, 1 -> 0 */
    MPI_Datatype five, strided;
    MPI_Type_contiguous(5, MPI_INT, &five);
    MPI_Type_commit(&five);
    MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    if (rank == 0) {
        MPI_Send(out, 2, five, 1, 18, W);
        MPI_Recv(in, 3, MPI_INT, 1, 18, W, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, 2, five, 0, 18, W, MPI_STATUS_IGNORE);
        MPI_Send(out, 1, strided, 0, 18, W);
    }
    MPI_Type_free(&strided);
    MPI_Type_free(&five);
    /* 19. a new type after a free, likely under the freed handle (the profiler keeps the last
     * type's size until a free): contiguous(2 ints) = 8 B, 0 -> 1 */
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    if (rank == 0)
        MPI_Send(out, 1, two, 1, 19, W);
    else
        MPI_Recv(in, 2, MPI_INT, 0, 19, W, MPI_STATUS_IGNORE);
    MPI_Type_free(&two);
    MPI_Finalize();
    return 0;
}
