/* The hardware floor on one node: the same round trip as the ping-pong, through shared memory
 * (MPI_Win_allocate_shared) with no MPI call in the loop: the sender copies the payload into
 * the partner's inbox and raises a flag on its own cache line; the receiver spins on that
 * flag and copies the payload out. At 0 B it is one cache-line round trip between the cores. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../payload.h"

#define LINE 64

struct floor_state {
    MPI_Comm shm;
    MPI_Win win;
    unsigned char *mine, *theirs; /* inbox: a flag line, then the payload */
    long seq;
};

static int floor_setup(struct mp_ctx *c, char *err, size_t errlen)
{
    struct floor_state *s = calloc(1, sizeof *s);
    int size;
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->me, MPI_INFO_NULL, &s->shm);
    MPI_Comm_size(s->shm, &size);
    int together = size == 2;
    MPI_Allreduce(MPI_IN_PLACE, &together, 1, MPI_INT, MPI_MIN, c->comm);
    if (!together) {
        MPI_Comm_free(&s->shm);
        free(s);
        snprintf(err, errlen, "pattern floor needs both ranks of --pair on one node (shared memory); choose "
                 "a --pair on one node");
        return -1;
    }
    MPI_Aint bytes = LINE + ((c->bytes + LINE - 1) / LINE) * LINE, their_size;
    int unit;
    MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, s->shm, &s->mine, &s->win);
    MPI_Win_shared_query(s->win, 1 - c->me, &their_size, &unit, &s->theirs);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, s->win);
    atomic_store((_Atomic long *)s->mine, 0);
    MPI_Win_sync(s->win);
    MPI_Barrier(s->shm);
    c->state = s;
    return 0;
}

static void floor_teardown(struct mp_ctx *c)
{
    struct floor_state *s = c->state;
    MPI_Win_unlock_all(s->win);
    MPI_Win_free(&s->win);
    MPI_Comm_free(&s->shm);
    free(s);
}

static void deliver(struct floor_state *s, const struct mp_ctx *c)
{
    memcpy(s->theirs + LINE, c->send, c->bytes);
    atomic_store_explicit((_Atomic long *)s->theirs, s->seq, memory_order_release);
}

static void collect(struct floor_state *s, const struct mp_ctx *c)
{
    while (atomic_load_explicit((_Atomic long *)s->mine, memory_order_acquire) != s->seq)
        ;
    memcpy(c->recv, s->mine + LINE, c->bytes);
}

static void floor_iterate(const struct mp_ctx *c, long iterations)
{
    struct floor_state *s = c->state;
    for (long i = 0; i < iterations; i++) {
        s->seq++;
        if (c->me == 0) {
            deliver(s, c);
            collect(s, c);
        } else {
            collect(s, c);
            deliver(s, c);
        }
    }
}

const struct mp_pattern pattern_floor = {
    .name = "floor",
    .family = MP_FAMILY_HARDWARE, .modelled = 1,
    .timing = "one iteration = a round trip through shared memory (MPI_Win_allocate_shared), no MPI call: "
              "memcpy into the partner's inbox, release-store of a flag on its own cache line, the partner "
              "spins on it and copies out, then back; reported = one-way time, half the round trip",
    .metric = "one_way", .divisor = 2, .setup = floor_setup, .teardown = floor_teardown,
    .iterate = floor_iterate, .prepare = payload_prepare, .verify = payload_verify_partner,
};
