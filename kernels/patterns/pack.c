/* MPI_Pack at the sender and MPI_Unpack at the receiver around a contiguous transfer (the
 * PVM path of Saphir 1994), against the direct transfer of the same bytes: two variants of one
 * ping-pong. */
#include <stdio.h>
#include <stdlib.h>

#include "../payload.h"

#define TAG 13
enum { DIRECT, PACKED };

struct packing {
    void *buffer;
    int size;
};

static int pack_variants(int world_size) { return (void)world_size, 2; }

static void pack_name(int variant, int world_size, char *buf, size_t len)
{
    (void)world_size;
    snprintf(buf, len, "%s", variant == DIRECT ? "direct" : "packed");
}

static int pack_setup(struct mp_ctx *c, char *err, size_t errlen)
{
    struct packing *p = calloc(1, sizeof *p);
    if (p)
        MPI_Pack_size(c->bytes, MPI_BYTE, c->comm, &p->size);
    if (p && !(p->buffer = malloc(p->size ? p->size : 1))) {
        free(p);
        p = NULL;
    }
    if (!p) {
        snprintf(err, errlen, "out of memory for a pack buffer of %d B; use smaller sizes", c->bytes);
        return -1;
    }
    c->state = p;
    return 0;
}

static void pack_teardown(struct mp_ctx *c)
{
    struct packing *p = c->state;
    free(p->buffer);
    free(p);
}

static void send_one(const struct mp_ctx *c, int to)
{
    struct packing *p = c->state;
    int position = 0;
    if (c->variant == DIRECT) {
        MPI_Send(c->send, c->bytes, MPI_BYTE, to, TAG, c->comm);
        return;
    }
    MPI_Pack(c->send, c->bytes, MPI_BYTE, p->buffer, p->size, &position, c->comm);
    MPI_Send(p->buffer, position, MPI_PACKED, to, TAG, c->comm);
}

static void recv_one(const struct mp_ctx *c, int from)
{
    struct packing *p = c->state;
    int position = 0;
    if (c->variant == DIRECT) {
        MPI_Recv(c->recv, c->bytes, MPI_BYTE, from, TAG, c->comm, MPI_STATUS_IGNORE);
        return;
    }
    MPI_Recv(p->buffer, p->size, MPI_PACKED, from, TAG, c->comm, MPI_STATUS_IGNORE);
    MPI_Unpack(p->buffer, p->size, &position, c->recv, c->bytes, MPI_BYTE, c->comm);
}

static void pack_iterate(const struct mp_ctx *c, long iterations)
{
    int other = 1 - c->me;
    for (long i = 0; i < iterations; i++) {
        if (c->me == 0) {
            send_one(c, other);
            recv_one(c, other);
        } else {
            recv_one(c, other);
            send_one(c, other);
        }
    }
}

const struct mp_pattern pattern_pack = {
    .name = "pack",
    .family = MP_FAMILY_BUFFERING, .modelled = 1,
    .timing = "one iteration = a ping-pong of `bytes` (a round trip): direct = MPI_Send/MPI_Recv of the bytes; "
              "packed = MPI_Pack into a buffer, MPI_Send as MPI_PACKED, MPI_Recv, MPI_Unpack, each way; "
              "reported = one-way time, half the round trip",
    .metric = "one_way", .divisor = 2, .variants = pack_variants, .variant_name = pack_name,
    .setup = pack_setup, .teardown = pack_teardown, .iterate = pack_iterate, .prepare = payload_prepare,
    .verify = payload_verify_partner,
};
