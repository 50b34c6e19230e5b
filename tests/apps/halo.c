/* halo: a 1-D periodic halo exchange that sends each neighbour many small messages per step:
 * post the receives, compute, send K messages to the left and K to the right one after the
 * other (the back-to-back sequences a profile should find), wait for all. Message j of a step
 * has --bytes[j % n] bytes; every received byte is checked. halo_combined.c sends the same
 * data as one message per neighbour. */
#include "halo_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct halo h;
    halo_options(&h, argc, argv);
    int k = h.messages, max = halo_max_size(&h);
    unsigned char *send = malloc((size_t)2 * k * max), *recv = malloc((size_t)2 * k * max);
    MPI_Request *req = malloc((size_t)4 * k * sizeof *req);
    int peer[2] = {h.left, h.right};
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = halo_now();
    for (int step = 0; step < h.steps; step++) {
        int n = 0;
        /* from the left neighbour come its messages going right (dir 1), and vice versa */
        for (int dir = 0; dir < 2; dir++)
            for (int j = 0; j < k; j++)
                MPI_Irecv(recv + (size_t)(dir * k + j) * max, halo_size(&h, j), MPI_BYTE, peer[dir],
                          (1 - dir) * k + j, MPI_COMM_WORLD, &req[n++]);
        halo_compute(h.compute_us);
        for (int dir = 0; dir < 2; dir++)
            for (int j = 0; j < k; j++) {
                unsigned char *b = send + (size_t)(dir * k + j) * max;
                halo_fill(b, h.rank, dir, step, j, halo_size(&h, j));
                halo_compute(h.between_us);
                MPI_Isend(b, halo_size(&h, j), MPI_BYTE, peer[dir], dir * k + j, MPI_COMM_WORLD, &req[n++]);
            }
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        for (int dir = 0; dir < 2; dir++)
            for (int j = 0; j < k; j++)
                halo_check(recv + (size_t)(dir * k + j) * max, peer[dir], 1 - dir, step, j, halo_size(&h, j));
    }
    double seconds = halo_now() - t0;
    free(send);
    free(recv);
    free(req);
    return halo_finish(&h, "halo", seconds);
}
