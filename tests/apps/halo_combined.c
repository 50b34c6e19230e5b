/* halo_combined: halo.c's exchange with each neighbour's K messages of a step packed into
 * one message (copied in, sent, copied out): the combining a profile of halo.c suggests.
 * Same options, same bytes, same checks. */
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
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = halo_now();
    for (int step = 0; step < h.steps; step++) {
        for (int dir = 0; dir < 2; dir++)
            MPI_Irecv(recv + (size_t)dir * total, total, MPI_BYTE, peer[dir], 1 - dir, MPI_COMM_WORLD, &req[dir]);
        halo_compute(h.compute_us);
        for (int dir = 0; dir < 2; dir++) {
            unsigned char *packed = send + (size_t)dir * total;
            for (int j = 0, at = 0; j < k; at += halo_size(&h, j), j++) {
                halo_fill(msg, h.rank, dir, step, j, halo_size(&h, j));
                halo_compute(h.between_us);
                memcpy(packed + at, msg, (size_t)halo_size(&h, j));
            }
            MPI_Isend(packed, total, MPI_BYTE, peer[dir], dir, MPI_COMM_WORLD, &req[2 + dir]);
        }
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        for (int dir = 0; dir < 2; dir++)
            for (int j = 0, at = 0; j < k; at += halo_size(&h, j), j++) {
                memcpy(msg, recv + (size_t)dir * total + at, (size_t)halo_size(&h, j));
                halo_check(msg, peer[dir], 1 - dir, step, j, halo_size(&h, j));
            }
    }
    double seconds = halo_now() - t0;
    free(msg);
    free(send);
    free(recv);
    return halo_finish(&h, "halo_combined", seconds);
}
