/* The recorder: size tables per (peer, kind), time inside MPI, back-to-back sequences.
 *
 * A back-to-back sequence is two or more sends to one peer with, between them, no completed
 * receive (MPI_Recv, MPI_Sendrecv, a wait or test that completes a receive) and no gap
 * outside MPI longer than P.gap_ticks (the time between leaving one wrapped call and entering
 * the next: the application's compute). Sends to other peers in between do not end it: those
 * messages could still be combined into one. Posting a receive (MPI_Irecv) does not end it
 * either; its completion does, because what follows may depend on the data received. */
#include "prof.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct prof P;

const char *const msg_kind_name[MK_COUNT] = {
    "send", "ssend", "rsend", "bsend", "isend", "issend", "irsend", "ibsend",
    "send_init", "ssend_init", "rsend_init", "bsend_init", "sendrecv", "sendrecv_replace",
    "recv", "irecv", "recv_init", "sendrecv", "sendrecv_replace",
};
const unsigned char msg_kind_is_recv[MK_COUNT] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1,
};
const char *const call_name[C_COUNT] = {
    "MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Bsend", "MPI_Isend", "MPI_Issend", "MPI_Irsend",
    "MPI_Ibsend", "MPI_Recv", "MPI_Irecv", "MPI_Sendrecv", "MPI_Sendrecv_replace",
    "MPI_Send_init", "MPI_Ssend_init", "MPI_Rsend_init", "MPI_Bsend_init", "MPI_Recv_init",
    "MPI_Start", "MPI_Startall", "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
    "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome",
    "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Gatherv",
    "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall",
    "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block",
    "MPI_Scan", "MPI_Exscan",
    "MPI_Ibarrier", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iallreduce", "MPI_Igather", "MPI_Igatherv",
    "MPI_Iscatter", "MPI_Iscatterv", "MPI_Iallgather", "MPI_Iallgatherv", "MPI_Ialltoall",
    "MPI_Ialltoallv", "MPI_Ialltoallw", "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block",
    "MPI_Iscan", "MPI_Iexscan",
    "MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Rput", "MPI_Rget",
    "MPI_Raccumulate", "MPI_Rget_accumulate", "MPI_Comm_free", "MPI_Type_free", "MPI_Request_free",
};
_Static_assert(sizeof call_name / sizeof *call_name == C_COUNT, "a name for every call_id");

atomic_flag prof_spin = ATOMIC_FLAG_INIT;
atomic_uint prof_type_generation = 1;
PROF_TLS struct type_cache prof_type_cache;

/* ---- sequences ------------------------------------------------------------------------- */

static void sort_sizes(struct run *r)
{
    for (int i = 1; i < r->nsizes && i < RUN_SIZES; i++)
        for (int j = i; j > 0 && r->size[j - 1] > r->size[j]; j--) {
            uint64_t s = r->size[j], c = r->size_count[j];
            r->size[j] = r->size[j - 1];
            r->size_count[j] = r->size_count[j - 1];
            r->size[j - 1] = s;
            r->size_count[j - 1] = c;
        }
}

static int same_shape(const struct run *a, const struct run *b)
{
    if (a->length != b->length || a->bytes != b->bytes || a->kinds != b->kinds
        || a->nsizes != b->nsizes || a->min_bytes != b->min_bytes || a->max_bytes != b->max_bytes)
        return 0;
    for (int i = 0; i < a->nsizes && i < RUN_SIZES; i++)
        if (a->size[i] != b->size[i] || a->size_count[i] != b->size_count[i])
            return 0;
    return 1;
}

static void finish_run(struct peer *p)
{
    struct run *r = &p->run;
    p->open = 0;
    if (r->length < 2)
        return;
    if (r->nsizes > RUN_SIZES)
        memset(r->size, 0, sizeof r->size), memset(r->size_count, 0, sizeof r->size_count);
    else
        sort_sizes(r);
    p->seq_count++;
    p->seq_messages += r->length;
    p->seq_bytes += r->bytes;
    for (int i = 0; i < p->nshapes; i++)
        if (same_shape(&p->shapes[i].run, r)) {
            p->shapes[i].count++;
            return;
        }
    if (!p->shapes) {
        p->shapes = calloc(SHAPES, sizeof *p->shapes);
        P.slow = 1;
    }
    if (p->shapes && p->nshapes < SHAPES) {
        p->shapes[p->nshapes].run = *r;
        p->shapes[p->nshapes++].count = 1;
        return;
    }
    p->other_count++;
    p->other_messages += r->length;
    p->other_bytes += r->bytes;
    if (r->length > p->other_max_length)
        p->other_max_length = r->length;
}

void prof_break_sequences(void)
{
    for (int i = 0; i < P.nopen; i++)
        finish_run(P.open[i]);
    P.nopen = 0;
}

static void extend_run(struct peer *p, enum msg_kind kind, uint64_t bytes)
{
    struct run *r = &p->run;
    if (!p->open) {  /* field by field: a memset of the whole run costs more than the rest */
        p->open = 1;
        P.open[P.nopen++] = p;
        r->length = 1;
        r->bytes = r->min_bytes = r->max_bytes = bytes;
        r->kinds = 1u << kind;
        r->nsizes = 1;
        r->size[0] = bytes;
        r->size_count[0] = 1;
        return;
    }
    r->length++;
    r->bytes += bytes;
    r->kinds |= 1u << kind;
    if (bytes < r->min_bytes)
        r->min_bytes = bytes;
    if (bytes > r->max_bytes)
        r->max_bytes = bytes;
    if (r->nsizes > RUN_SIZES)
        return;
    for (int i = 0; i < r->nsizes; i++)
        if (r->size[i] == bytes) {
            r->size_count[i]++;
            return;
        }
    if (r->nsizes < RUN_SIZES) {
        r->size[r->nsizes] = bytes;
        r->size_count[r->nsizes++] = 1;
    } else {
        r->nsizes = RUN_SIZES + 1;
    }
}

/* ---- size tables ----------------------------------------------------------------------- */

static struct peer *peer_of(int world)
{
    struct peer *p = P.peers[world];
    if (p)
        return p;
    p = calloc(1, sizeof *p);
    P.slow = 1;
    if (p) {
        p->world = world;
        P.peers[world] = p;
    }
    return p;
}

static inline __attribute__((always_inline)) void count_size(struct size_stats *s, uint64_t bytes)
{
    s->count++;
    s->bytes += bytes;
    s->log2[bytes ? 64 - __builtin_clzll(bytes) : 0]++;
    if (s->nsizes && s->size[s->last] == bytes) {
        s->size_count[s->last]++;
        return;
    }
    for (int i = 0; i < s->nsizes; i++)
        if (s->size[i] == bytes) {
            s->size_count[i]++;
            s->last = i;
            return;
        }
    if (s->nsizes < SIZE_SLOTS) {
        s->last = s->nsizes++;
        s->size[s->last] = bytes;
        s->size_count[s->last] = 1;
        return;
    }
    s->other_count++;
    s->other_bytes += bytes;
}

static inline __attribute__((always_inline)) struct peer *count_message(enum msg_kind kind, int world, uint64_t bytes)
{
    if (world == -1) {
        P.proc_null++;
        return NULL;
    }
    if (world < 0 || world >= P.size) {
        P.unknown_peer++;
        return NULL;
    }
    struct peer *p = peer_of(world);
    if (!p) {
        P.unknown_peer++;
        return NULL;
    }
    struct size_stats *s = p->kind[kind];
    if (!s) {
        s = p->kind[kind] = calloc(1, sizeof *s);
        P.slow = 1;
        if (!s) {
            P.unknown_peer++;
            return NULL;
        }
    }
    count_size(s, bytes);
    return p;
}

void prof_message(enum msg_kind kind, int world_peer, uint64_t bytes)
{
    count_message(kind, world_peer, bytes);
}

void prof_send(enum msg_kind kind, int world_peer, uint64_t bytes)
{
    struct peer *p = count_message(kind, world_peer, bytes);
    if (p)
        extend_run(p, kind, bytes);
}

void prof_recv(enum msg_kind kind, int world_peer, uint64_t bytes)
{
    count_message(kind, world_peer, bytes);
    prof_break_sequences();
}

/* A completed receive's source and size, from its status (never MPI_STATUS_IGNORE here). */
void prof_recv_status(enum msg_kind kind, MPI_Comm comm, const MPI_Status *status)
{
    if (status->MPI_SOURCE == MPI_PROC_NULL) {
        P.proc_null++;
        return;
    }
    prof_recv(kind, comm_world_rank(comm, status->MPI_SOURCE), prof_status_bytes(status));
}

/* A blocking receive (MPI_Recv): its peer now, its counting (MPI_Get_count, the size table,
 * the end of the open sequences) at the start of the next call's bookkeeping, after that
 * call's PMPI call. In ping-pong the time between leaving MPI_Recv and entering MPI_Send is
 * on the critical path; the counting then happens while the reply travels. Nothing is
 * counted in between, so the sequences come out the same. MPI_Finalize, MPI_Abort and an
 * exit count it before writing. With MPI_THREAD_MULTIPLE, at once. */
void prof_defer_recv(enum msg_kind kind, MPI_Comm comm, const MPI_Status *status)
{
    if (P.mt || status->MPI_SOURCE == MPI_PROC_NULL) {
        prof_recv_status(kind, comm, status);
        return;
    }
    P.deferred_kind = kind;
    P.deferred_world = comm_world_rank(comm, status->MPI_SOURCE);
    P.deferred_status = *status;
    P.deferred = 1;
}

void prof_flush_recv(void)
{
    if (!P.deferred)
        return;
    P.deferred = 0;
    prof_recv(P.deferred_kind, P.deferred_world, prof_status_bytes(&P.deferred_status));
}

/* The same from a signal handler (signals.c), where nothing may allocate: counted when its
 * peer and kind have their table already (always but for the first such message); the
 * sequences it ends stay open, as finishing one may allocate. PMPI_Get_count only reads the
 * status. */
void prof_flush_recv_in_signal(void)
{
    int w = P.deferred_world;
    if (!P.deferred || w < 0 || w >= P.size || !P.peers[w] || !P.peers[w]->kind[P.deferred_kind])
        return;
    P.deferred = 0;
    count_size(P.peers[w]->kind[P.deferred_kind], prof_status_bytes(&P.deferred_status));
}

/* Bytes received: the count in MPI_BYTE (both MPICH and Open MPI keep it in bytes). */
uint64_t prof_status_bytes(const MPI_Status *status)
{
    int n = 0;
    PMPI_Get_count(status, MPI_BYTE, &n);
    return n == MPI_UNDEFINED || n < 0 ? 0 : (uint64_t)n;
}

/* The size of one element of `type`, asked of MPI; what prof_bytes caches. */
uint64_t prof_type_size(MPI_Datatype type)
{
    /* the generation before the question: a free in between leaves the entry stale, not wrong */
    unsigned generation = atomic_load_explicit(&prof_type_generation, memory_order_relaxed);
    int size = 0;
    PMPI_Type_size(type, &size);
    if (size == MPI_UNDEFINED) {  /* larger than an int: not cached (rare, and its own call) */
        MPI_Count big = 0;
        PMPI_Type_size_x(type, &big);
        return big > 0 ? (uint64_t)big : 0;
    }
    prof_type_cache.type = type;
    prof_type_cache.generation = generation;
    prof_type_cache.size = size > 0 ? (uint64_t)size : 0;
    return prof_type_cache.size;
}

/* ---- time ------------------------------------------------------------------------------ */

/* The bookkeeping allocated (a first message to a peer): the gap starts after that. */
void prof_slow_done(void)
{
    P.t_last_exit = prof_ticks();
    P.slow = 0;
}

/* ---- start ----------------------------------------------------------------------------- */

/* After PMPI_Init: who we are, the tables. 0 on success. Our own communicator is made at
 * MPI_Finalize (output.c), not here: a duplicate of MPI_COMM_WORLD made at MPI_Init changed Open
 * MPI 4.1's heap for the whole run, so that a program's per-call temporary buffers stopped
 * faulting in (its Rabenseifner reduce ran 5x faster profiled than not, bench/RESULTS.md §31). */
int prof_init(void)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &P.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &P.size);
    PMPI_Comm_group(MPI_COMM_WORLD, &P.world_group);
    int len = 0;
    PMPI_Get_processor_name(P.host, &len);
    P.host[len < 0 ? 0 : len] = '\0';
    P.peers = calloc((size_t)P.size, sizeof *P.peers);
    P.open = calloc((size_t)P.size, sizeof *P.open);
    if (!P.peers || !P.open || prof_sites_init())
        return 1;
    double gap_s = 1e-6;
    const char *gap = getenv("MSGPERF_PROFILE_GAP_S");
    if (gap && *gap) {
        char *end;
        double g = strtod(gap, &end);
        if (*end == '\0' && g >= 0 && g < 1e3)
            gap_s = g;
    }
    P.gap_ns = (int64_t)(gap_s * 1e9 + 0.5);
    ticks_start();
    P.gap_ticks = ns_to_ticks(P.gap_ns);
    clock_gettime(CLOCK_REALTIME, &P.real_start);
    P.t_init = P.t_last_exit = prof_ticks();
    return 0;
}
