/* k messages of s bytes sent separately versus one message of k·s bytes (Lawlor's message-combining lecture), for
 * k = 2 and 8: four variants of one ping-pong, each way the same. The k·s bytes live in the
 * pattern's own buffers. */
#include <stdio.h>
#include <stdlib.h>

#include "../buffers.h"
#include "../payload.h"
#include "../record.h"

#define TAG 14
static const int ks[] = {2, 8};

struct combined {
    unsigned char *send, *recv;
};

static int k_of(int variant) { return ks[variant / 2]; }
static int is_combined(int variant) { return variant % 2; }

static int combine_variants(int world_size) { return (void)world_size, 2 * (int)(sizeof ks / sizeof ks[0]); }

static void combine_name(int variant, int world_size, char *buf, size_t len)
{
    (void)world_size;
    snprintf(buf, len, "k%d-%s", k_of(variant), is_combined(variant) ? "combined" : "separate");
}

static int combine_setup(struct mp_ctx *c, char *err, size_t errlen)
{
    size_t total = (size_t)k_of(c->variant) * (size_t)c->bytes;
    struct combined *b = calloc(1, sizeof *b);
    if (b) {
        b->send = buffers_alloc(total);
        b->recv = buffers_alloc(total);
    }
    if (!b || !b->send || !b->recv || total > 0x7fffffff) {
        snprintf(err, errlen, "combine needs 2 buffers of %zu B (k x size) per rank; use smaller sizes", total);
        return -1;
    }
    c->state = b;
    return 0;
}

static void combine_teardown(struct mp_ctx *c)
{
    struct combined *b = c->state;
    buffers_free(b->send);
    buffers_free(b->recv);
    free(b);
}

static void combine_prepare(const struct mp_ctx *c)
{
    struct combined *b = c->state;
    size_t total = (size_t)k_of(c->variant) * (size_t)c->bytes;
    buffers_fill(b->send, total, payload_seed(c->me));
    buffers_fill(b->recv, total, 0);
}

static void transfer(const struct mp_ctx *c, int sending)
{
    struct combined *b = c->state;
    int k = k_of(c->variant), other = 1 - c->me;
    int parts = is_combined(c->variant) ? 1 : k, count = is_combined(c->variant) ? k * c->bytes : c->bytes;
    for (int j = 0; j < parts; j++) {
        if (sending)
            MPI_Send(b->send + (size_t)j * count, count, MPI_BYTE, other, TAG, c->comm);
        else
            MPI_Recv(b->recv + (size_t)j * count, count, MPI_BYTE, other, TAG, c->comm, MPI_STATUS_IGNORE);
    }
}

static void combine_iterate(const struct mp_ctx *c, long iterations)
{
    for (long i = 0; i < iterations; i++) {
        transfer(c, c->me == 0);
        transfer(c, c->me != 0);
    }
}

static long long combine_verify(const struct mp_ctx *c)
{
    struct combined *b = c->state;
    return buffers_check(b->recv, (size_t)k_of(c->variant) * (size_t)c->bytes, payload_seed(1 - c->me)) + 1;
}

static void combine_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    (void)median;
    record_field_int(out, "k_messages", k_of(c->variant));
    record_field_bool(out, "combined", is_combined(c->variant));
    record_field_int(out, "message_bytes", (long long)c->bytes * (is_combined(c->variant) ? k_of(c->variant) : 1));
}

const struct mp_pattern pattern_combine = {
    .name = "combine",
    .family = MP_FAMILY_COMBINING, .modelled = 0, /* its k x `bytes` are not one size */
    .timing = "one iteration = a ping-pong in which each way carries k x `bytes`: as k messages of `bytes` "
              "(separate) or as one message of k x `bytes` (combined), k = 2 and 8; reported = one-way time of "
              "the k x `bytes`, half the round trip",
    .metric = "one_way", .divisor = 2, .variants = combine_variants, .variant_name = combine_name,
    .setup = combine_setup, .teardown = combine_teardown, .iterate = combine_iterate,
    .prepare = combine_prepare, .verify = combine_verify, .fields = combine_fields,
};
