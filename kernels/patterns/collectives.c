#define _GNU_SOURCE /* _SC_LEVEL3_CACHE_SIZE, _SC_AVPHYS_PAGES */
/* One MPI collective over every rank per iteration (OSU's osu_<name> and IMB-MPI1's loops time the
 * same calls): barrier, bcast, reduce, allreduce, allgather, alltoall, reduce_scatter_block.
 * `bytes` is what one rank contributes or receives per call, as OSU's "Size" column counts it:
 * allgather and alltoall move one block of `bytes` per rank, so their buffers hold P blocks.
 * Reductions are MPI_SUM over MPI_UNSIGNED_CHAR, so that every size (1 B included) has an exact
 * expected result: byte i is the sum, modulo 256, of every contributor's byte i.
 * The payload check needs every iteration's root: the state counts the iterations run. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../buffers.h"
#include "../payload.h"
#include "../record.h"

#define LINE 64                         /* set stride: whole cache lines */
#define CACHE_FALLBACK (32L << 20)      /* when the libc cannot tell the last-level cache's size */

struct coll_state {
    long done;              /* iterations run since setup: which roots and which buffer set have been */
    unsigned *seeds;        /* scratch: one seed per rank for the expected sums */
    long sets;              /* buffer sets iterations cycle through (1: the driver's buffers only) */
    size_t stride;          /* bytes from one set to the next */
    unsigned char *send, *recv; /* the sets (--off-cache), or the driver's buffers */
    long cache_bytes;       /* the last-level cache size the sets exceed twice (--off-cache) */
};

static long last_level_cache(void)
{
    long size = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (size <= 0)
        size = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return size > 0 ? size : CACHE_FALLBACK;
}

/* --off-cache (IMB's -off_cache): enough sets of both buffers, one after the other, that together
 * they exceed twice the last-level cache, so that no iteration finds its buffers cached by the
 * iterations before it. A buffer already that large is its own single set. */
static int make_sets(struct mp_ctx *c, struct coll_state *s, int blocks, char *err, size_t errlen)
{
    size_t bytes = (size_t)c->bytes * (size_t)blocks;
    s->sets = 1;
    s->stride = 0;
    s->send = c->send;
    s->recv = c->recv;
    if (!c->off_cache)
        return 0;
    s->cache_bytes = last_level_cache();
    s->stride = (bytes + LINE - 1) / LINE * LINE;
    if (s->stride == 0)
        s->stride = LINE;
    s->sets = (long)((2 * (size_t)s->cache_bytes + s->stride - 1) / s->stride);
    if (s->sets <= 1) {
        s->sets = 1;
        return 0;
    }
    /* Every rank may share this node: refuse what would not fit rather than be killed mid-run. */
    double need = 2.0 * (double)s->sets * (double)s->stride * c->nranks;
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && need > 0.9 * (double)pages * (double)page) {
        snprintf(err, errlen, "--off-cache needs %.1f GiB of buffer sets for %d ranks (twice the %ld MiB last-level "
                 "cache each) but %.1f GiB are free; drop --off-cache or use fewer ranks", need / (1 << 30), c->nranks,
                 s->cache_bytes >> 20, (double)pages * page / (1 << 30));
        s->sets = 1;
        return -1;
    }
    s->send = buffers_alloc(s->sets * s->stride);
    s->recv = buffers_alloc(s->sets * s->stride);
    if (!s->send || !s->recv) {
        snprintf(err, errlen, "out of memory for --off-cache buffers of %zu B; drop --off-cache or use smaller sizes",
                 2 * s->sets * s->stride);
        return -1;
    }
    return 0;
}

static int setup_with(struct mp_ctx *c, int blocks, char *err, size_t errlen)
{
    struct coll_state *s = calloc(1, sizeof *s);
    unsigned *seeds = s ? malloc((size_t)c->nranks * sizeof *seeds) : NULL;
    if (!s || !seeds) {
        free(s);
        snprintf(err, errlen, "out of memory for the collective's state of %d ranks", c->nranks);
        return -1;
    }
    s->seeds = seeds;
    c->state = s;
    return make_sets(c, s, blocks, err, errlen);
}

static int coll_setup(struct mp_ctx *c, char *err, size_t errlen) { return setup_with(c, 1, err, errlen); }
/* allgather, alltoall, reduce_scatter_block: buffers of one block per rank */
static int blocks_setup(struct mp_ctx *c, char *err, size_t errlen) { return setup_with(c, c->nranks, err, errlen); }

static void coll_teardown(struct mp_ctx *c)
{
    struct coll_state *s = c->state;
    if (s->sets > 1) {
        buffers_free(s->send);
        buffers_free(s->recv);
    }
    free(s->seeds);
    free(s);
    c->state = NULL;
}

/* The context of iteration j: its buffer set in place of the driver's buffers. */
static struct mp_ctx view_of(const struct mp_ctx *c, long j)
{
    const struct coll_state *s = c->state;
    struct mp_ctx v = *c;
    size_t at = (size_t)(j % s->sets) * s->stride;
    v.send = s->send + at;
    v.recv = s->recv + at;
    return v;
}

/* Fill (or check) every set alike; a check returns the first bad set's answer. */
static void prepare_sets(const struct mp_ctx *c, void (*fill)(const struct mp_ctx *))
{
    const struct coll_state *s = c->state;
    for (long j = 0; j < s->sets; j++) {
        struct mp_ctx v = view_of(c, j);
        fill(&v);
    }
}

/* Sets that iterations have used: each holds the (same) result. */
static long long verify_used_sets(const struct mp_ctx *c, long long (*check)(const struct mp_ctx *))
{
    const struct coll_state *s = c->state;
    long used = s->done < s->sets ? s->done : s->sets;
    for (long j = 0; j < used; j++) {
        struct mp_ctx v = view_of(c, j);
        long long bad = check(&v);
        if (bad)
            return bad;
    }
    return 0;
}

/* The root of the j-th iteration: rank 0, or j mod P with --root rotate (IMB's rotation). */
static int root_of(const struct mp_ctx *c, long j) { return c->rotate_root ? (int)(j % c->nranks) : 0; }

/* The seed of the block rank `from` sends to rank `to` (alltoall, reduce_scatter_block): distinct
 * for every ordered pair up to 15 ranks, and never the stale seed 0 (seeds act modulo 256). */
static unsigned block_seed(const struct mp_ctx *c, int from, int to)
{
    return 1u + (unsigned)(from * c->nranks + to) % 255u;
}

static unsigned char *block(unsigned char *buf, int bytes, int j) { return buf + (size_t)j * (size_t)bytes; }

/* ---- barrier: no payload; bytes is ignored (each size measures the same call) ---- */

static void barrier_iterate(const struct mp_ctx *c, long iterations)
{
    for (long i = 0; i < iterations; i++)
        MPI_Barrier(c->comm);
}
static void nothing_prepare(const struct mp_ctx *c) { (void)c; }
static long long nothing_verify(const struct mp_ctx *c) { (void)c; return 0; }

/* ---- bcast: the root's send buffer to every other rank's receive buffer ---- */

static void bcast_iterate(const struct mp_ctx *c, long iterations)
{
    struct coll_state *s = c->state;
    for (long i = 0; i < iterations; i++, s->done++) {
        int root = root_of(c, s->done);
        struct mp_ctx v = view_of(c, s->done);
        MPI_Bcast(c->me == root ? v.send : v.recv, c->bytes, MPI_BYTE, root, c->comm);
    }
}

static void bcast_prepare(const struct mp_ctx *c) { prepare_sets(c, payload_prepare); }

/* The receive buffer of the last iteration whose root this rank was not holds that root's payload;
 * with no such iteration, it is untouched. */
static long long bcast_verify(const struct mp_ctx *c)
{
    const struct coll_state *s = c->state;
    for (long j = s->done - 1; j >= 0 && j >= s->done - 2; j--)
        if (root_of(c, j) != c->me) {
            struct mp_ctx v = view_of(c, j);
            return payload_verify_from(&v, root_of(c, j));
        }
    struct mp_ctx v = view_of(c, 0);
    return payload_verify_untouched(&v);
}

/* ---- reduce and allreduce: MPI_SUM of every rank's payload ---- */

static void reduce_iterate(const struct mp_ctx *c, long iterations)
{
    struct coll_state *s = c->state;
    for (long i = 0; i < iterations; i++, s->done++) {
        struct mp_ctx v = view_of(c, s->done);
        MPI_Reduce(v.send, v.recv, c->bytes, MPI_UNSIGNED_CHAR, MPI_SUM, root_of(c, s->done), c->comm);
    }
}

static long long check_sum_of_payloads(const struct mp_ctx *c)
{
    struct coll_state *s = c->state;
    for (int r = 0; r < c->nranks; r++)
        s->seeds[r] = payload_seed(r);
    return buffers_check_sum(c->recv, c->bytes, s->seeds, c->nranks) + 1;
}

/* The receive buffer of the last iteration this rank was the root of holds the sum; a rank that
 * was never the root never had a receive buffer written. */
static long long reduce_verify(const struct mp_ctx *c)
{
    const struct coll_state *s = c->state;
    for (long j = s->done - 1; j >= 0 && j >= s->done - c->nranks; j--)
        if (root_of(c, j) == c->me) {
            struct mp_ctx v = view_of(c, j);
            return check_sum_of_payloads(&v);
        }
    struct mp_ctx v = view_of(c, 0);
    return payload_verify_untouched(&v);
}

static void allreduce_iterate(const struct mp_ctx *c, long iterations)
{
    struct coll_state *s = c->state;
    for (long i = 0; i < iterations; i++, s->done++) {
        struct mp_ctx v = view_of(c, s->done);
        MPI_Allreduce(v.send, v.recv, c->bytes, MPI_UNSIGNED_CHAR, MPI_SUM, c->comm);
    }
}

static long long allreduce_verify(const struct mp_ctx *c) { return verify_used_sets(c, check_sum_of_payloads); }

/* ---- allgather: block j of every receive buffer is rank j's payload ---- */

static void fill_allgather(const struct mp_ctx *c)
{
    buffers_fill(c->send, c->bytes, payload_seed(c->me));
    buffers_fill(c->recv, (size_t)c->bytes * c->nranks, 0);
}
static void allgather_prepare(const struct mp_ctx *c) { prepare_sets(c, fill_allgather); }

static void allgather_iterate(const struct mp_ctx *c, long iterations)
{
    struct coll_state *s = c->state;
    for (long i = 0; i < iterations; i++, s->done++) {
        struct mp_ctx v = view_of(c, s->done);
        MPI_Allgather(v.send, c->bytes, MPI_BYTE, v.recv, c->bytes, MPI_BYTE, c->comm);
    }
}

static long long check_allgather(const struct mp_ctx *c)
{
    for (int j = 0; j < c->nranks; j++) {
        long long bad = buffers_check(block(c->recv, c->bytes, j), c->bytes, payload_seed(j));
        if (bad >= 0)
            return (long long)j * c->bytes + bad + 1;
    }
    return 0;
}
static long long allgather_verify(const struct mp_ctx *c) { return verify_used_sets(c, check_allgather); }

/* ---- alltoall and reduce_scatter_block: block j of the send buffer is meant for rank j ---- */

static void fill_blocks(const struct mp_ctx *c)
{
    for (int j = 0; j < c->nranks; j++)
        buffers_fill(block(c->send, c->bytes, j), c->bytes, block_seed(c, c->me, j));
    buffers_fill(c->recv, (size_t)c->bytes * c->nranks, 0);
}
static void blocks_prepare(const struct mp_ctx *c) { prepare_sets(c, fill_blocks); }

static void alltoall_iterate(const struct mp_ctx *c, long iterations)
{
    struct coll_state *s = c->state;
    for (long i = 0; i < iterations; i++, s->done++) {
        struct mp_ctx v = view_of(c, s->done);
        MPI_Alltoall(v.send, c->bytes, MPI_BYTE, v.recv, c->bytes, MPI_BYTE, c->comm);
    }
}

static long long check_alltoall(const struct mp_ctx *c)
{
    for (int j = 0; j < c->nranks; j++) {
        long long bad = buffers_check(block(c->recv, c->bytes, j), c->bytes, block_seed(c, j, c->me));
        if (bad >= 0)
            return (long long)j * c->bytes + bad + 1;
    }
    return 0;
}
static long long alltoall_verify(const struct mp_ctx *c) { return verify_used_sets(c, check_alltoall); }

static void reduce_scatter_block_iterate(const struct mp_ctx *c, long iterations)
{
    struct coll_state *s = c->state;
    for (long i = 0; i < iterations; i++, s->done++) {
        struct mp_ctx v = view_of(c, s->done);
        MPI_Reduce_scatter_block(v.send, v.recv, c->bytes, MPI_UNSIGNED_CHAR, MPI_SUM, c->comm);
    }
}

/* This rank's block: the sum of every rank's block meant for it. */
static long long check_reduce_scatter_block(const struct mp_ctx *c)
{
    struct coll_state *s = c->state;
    for (int r = 0; r < c->nranks; r++)
        s->seeds[r] = block_seed(c, r, c->me);
    return buffers_check_sum(c->recv, c->bytes, s->seeds, c->nranks) + 1;
}
static long long reduce_scatter_block_verify(const struct mp_ctx *c)
{
    return verify_used_sets(c, check_reduce_scatter_block);
}

/* ---- the method the record states: root choice ---- */

/* ---- the method each record states: the options' choices, defaults included ---- */

static void barrier_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    (void)median;
    record_field_bool(out, "iteration_barrier", c->iteration_barrier);
}

static void method_fields(const struct mp_ctx *c, struct mp_fields *out)
{
    const struct coll_state *s = c->state;
    record_field_bool(out, "iteration_barrier", c->iteration_barrier);
    record_field_bool(out, "off_cache", c->off_cache);
    if (c->off_cache) {
        record_field_int(out, "buffer_sets", s->sets);
        record_field_int(out, "last_level_cache_bytes", s->cache_bytes);
    }
}

static void coll_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    (void)median;
    method_fields(c, out);
}

static void rooted_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    (void)median;
    record_field_string(out, "root", c->rotate_root ? "rotate" : "0");
    method_fields(c, out);
}

#define REPORTED "; reported = time per call, sample / k, max over ranks (the slowest rank's)"
#define COLLECTIVE(NAME, WORDS, SETUP, ITERATE, PREPARE, VERIFY, FIELDS)                                        \
    .name = NAME, .family = MP_FAMILY_COLLECTIVE, .modelled = 0, .timing = WORDS REPORTED,                    \
    .metric = "per_iteration", .divisor = 1, .participants = MP_ALL, .setup = SETUP,                          \
    .teardown = coll_teardown, .iterate = ITERATE, .prepare = PREPARE, .verify = VERIFY, .fields = FIELDS

const struct mp_pattern pattern_barrier = {
    .name = "barrier", .family = MP_FAMILY_COLLECTIVE, .modelled = 0,
    .timing = "one iteration = MPI_Barrier over every rank (no payload: the size is ignored)" REPORTED,
    .metric = "per_iteration", .divisor = 1, .participants = MP_ALL,
    .iterate = barrier_iterate, .prepare = nothing_prepare, .verify = nothing_verify, .fields = barrier_fields,
};
const struct mp_pattern pattern_bcast = {
    COLLECTIVE("bcast", "one iteration = MPI_Bcast of size bytes from the root to every rank",
               coll_setup, bcast_iterate, bcast_prepare, bcast_verify, rooted_fields),
};
const struct mp_pattern pattern_reduce = {
    COLLECTIVE("reduce", "one iteration = MPI_Reduce (MPI_SUM, MPI_UNSIGNED_CHAR) of size bytes per rank to the root",
               coll_setup, reduce_iterate, bcast_prepare, reduce_verify, rooted_fields),
};
const struct mp_pattern pattern_allreduce = {
    COLLECTIVE("allreduce", "one iteration = MPI_Allreduce (MPI_SUM, MPI_UNSIGNED_CHAR) of size bytes per rank",
               coll_setup, allreduce_iterate, bcast_prepare, allreduce_verify, coll_fields),
};
const struct mp_pattern pattern_allgather = {
    COLLECTIVE("allgather", "one iteration = MPI_Allgather: size bytes from each rank to every rank "
               "(each receives P x size)", blocks_setup, allgather_iterate, allgather_prepare, allgather_verify,
               coll_fields),
    .per_rank_blocks = 1,
};
const struct mp_pattern pattern_alltoall = {
    COLLECTIVE("alltoall", "one iteration = MPI_Alltoall: size bytes from each rank to each rank "
               "(each sends and receives P x size)", blocks_setup, alltoall_iterate, blocks_prepare, alltoall_verify,
               coll_fields),
    .per_rank_blocks = 1,
};
const struct mp_pattern pattern_reduce_scatter_block = {
    COLLECTIVE("reduce-scatter-block", "one iteration = MPI_Reduce_scatter_block (MPI_SUM, MPI_UNSIGNED_CHAR): "
               "each rank contributes P x size bytes and receives its reduced block of size bytes",
               blocks_setup, reduce_scatter_block_iterate, blocks_prepare, reduce_scatter_block_verify, coll_fields),
    .per_rank_blocks = 1,
};
