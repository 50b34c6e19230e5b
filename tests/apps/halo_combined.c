/* halo_combined: halo.c's exchange with each neighbour's K messages of a step packed into
 * one message (copied in, sent, copied out): the combining a profile of halo.c suggests, which
 * combines every back-to-back send to one rank. With 2 ranks both neighbours are that one rank,
 * so both directions go as one message of 2·total bytes (halo.c sends them back to back);
 * otherwise one message per neighbour. Same options, same bytes, same checks. */
#include "halo_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct halo h;
    halo_options(&h, argc, argv);
    int k = h.messages, max = halo_max_size(&h), total = 0;
    for (int j = 0; j < k; j++)
        total += halo_size(&h, j);
    unsigned char *msg = malloc((size_t)k * max);          /* one message, as halo.c fills it */
    unsigned char *send = malloc((size_t)2 * total), *recv = malloc((size_t)2 * total);
    MPI_Request req[4];
    int peer[2] = {h.left, h.right};
    int one = h.left == h.right; /* both directions to the same rank: one message each way */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = halo_now();
    for (int step = 0; step < h.steps; step++) {
        int n = 0;
        if (one) /* the peer's [towards left | towards right]: what comes from my right, then from my left */
            MPI_Irecv(recv, 2 * total, MPI_BYTE, peer[0], 2, MPI_COMM_WORLD, &req[n++]);
        else
            for (int dir = 0; dir < 2; dir++)
                MPI_Irecv(recv + (size_t)dir * total, total, MPI_BYTE, peer[dir], 1 - dir, MPI_COMM_WORLD, &req[n++]);
        halo_compute(h.compute_us);
        for (int dir = 0; dir < 2; dir++) {
            unsigned char *packed = send + (size_t)dir * total;
            for (int j = 0, at = 0; j < k; at += halo_size(&h, j), j++) {
                halo_fill(msg, h.rank, dir, step, j, halo_size(&h, j));
                halo_compute(h.between_us);
                memcpy(packed + at, msg, (size_t)halo_size(&h, j));
            }
            if (!one)
                MPI_Isend(packed, total, MPI_BYTE, peer[dir], dir, MPI_COMM_WORLD, &req[n++]);
        }
        if (one)
            MPI_Isend(send, 2 * total, MPI_BYTE, peer[0], 2, MPI_COMM_WORLD, &req[n++]);
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        for (int dir = 0; dir < 2; dir++)
            for (int j = 0, at = 0; j < k; at += halo_size(&h, j), j++) {
                /* from the left (dir 0) comes what the left sent right: its second half when combined */
                size_t slot = one ? (size_t)(1 - dir) : (size_t)dir;
                memcpy(msg, recv + slot * total + at, (size_t)halo_size(&h, j));
                halo_check(msg, peer[dir], 1 - dir, step, j, halo_size(&h, j));
            }
    }
    double seconds = halo_now() - t0;
    free(msg);
    free(send);
    free(recv);
    return halo_finish(&h, "halo_combined", seconds);
}
