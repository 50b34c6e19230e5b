/* msgperf's PMPI profiler: what every part of it shares.
 *
 * The wrappers (wrap_*.c) time each point-to-point call and hand what it moved to the
 * recorder (record.c): size tables per (peer, kind), the time inside MPI, and the
 * back-to-back sequences. ticks.c is the clock (the TSC where it can), requests.c remembers
 * what a pending request is, comms.c turns a communicator's rank into a world rank, faults.c
 * counts the page faults of a sample of the large collectives, output.c writes the profile
 * file, signals.c has a rank killed by a signal write its part first.
 * MPI and libc only; nothing here allocates on the path of an ordinary call (tables grow by
 * doubling, so allocation happens a logarithmic number of times). docs/profile.md. */
#ifndef MSGPERF_PROF_H
#define MSGPERF_PROF_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
/* The TSC is read directly on x86 (ticks.c); elsewhere, or built with
 * -DMSGPERF_PROFILE_NO_TSC (how the fallback's build is checked on x86), never. */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(MSGPERF_PROFILE_NO_TSC)
#define PROF_TSC 1
#include <x86intrin.h>
#endif

/* Only the MPI_* wrappers (declared by mpi.h, above) are exported; nothing of ours can clash
 * with a name in the application. */
#pragma GCC visibility push(hidden)

#ifndef MSGPERF_VERSION
#define MSGPERF_VERSION "unknown"
#endif

/* The call that issued a message; its direction follows from it (msg_kind_is_recv). */
enum msg_kind {
    MK_SEND, MK_SSEND, MK_RSEND, MK_BSEND,
    MK_ISEND, MK_ISSEND, MK_IRSEND, MK_IBSEND,
    MK_SEND_INIT, MK_SSEND_INIT, MK_RSEND_INIT, MK_BSEND_INIT,
    MK_SENDRECV_SEND, MK_SENDRECV_REPLACE_SEND,
    MK_RECV, MK_IRECV, MK_RECV_INIT,
    MK_SENDRECV_RECV, MK_SENDRECV_REPLACE_RECV,
    MK_COUNT
};
extern const char *const msg_kind_name[MK_COUNT];
extern const unsigned char msg_kind_is_recv[MK_COUNT];

/* The calls wrapped by hand, whose time is counted. Point-to-point first, then the wait and
 * test calls (C_FIRST_WAIT..C_LAST_WAIT), then the collectives and one-sided transfers
 * (wrap_coll.c, wrap_rma.c), which also count bytes. Every other MPI call is timed by the
 * generated wrappers (other_calls.py), in their own table. */
enum call_id {
    C_SEND, C_SSEND, C_RSEND, C_BSEND, C_ISEND, C_ISSEND, C_IRSEND, C_IBSEND,
    C_RECV, C_IRECV, C_SENDRECV, C_SENDRECV_REPLACE,
    C_SEND_INIT, C_SSEND_INIT, C_RSEND_INIT, C_BSEND_INIT, C_RECV_INIT, C_START, C_STARTALL,
    C_WAIT, C_WAITALL, C_WAITANY, C_WAITSOME, C_TEST, C_TESTALL, C_TESTANY, C_TESTSOME,
    C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV,
    C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW, C_REDUCE_SCATTER,
    C_REDUCE_SCATTER_BLOCK, C_SCAN, C_EXSCAN,
    C_IBARRIER, C_IBCAST, C_IREDUCE, C_IALLREDUCE, C_IGATHER, C_IGATHERV, C_ISCATTER, C_ISCATTERV,
    C_IALLGATHER, C_IALLGATHERV, C_IALLTOALL, C_IALLTOALLV, C_IALLTOALLW, C_IREDUCE_SCATTER,
    C_IREDUCE_SCATTER_BLOCK, C_ISCAN, C_IEXSCAN,
    C_PUT, C_GET, C_ACCUMULATE, C_GET_ACCUMULATE, C_RPUT, C_RGET, C_RACCUMULATE,
    C_RGET_ACCUMULATE,
    C_COMM_FREE, C_TYPE_FREE, C_REQUEST_FREE,
    C_COUNT
};
#define C_FIRST_WAIT C_WAIT
#define C_LAST_WAIT C_TESTSOME
#define C_FIRST_COLL C_BARRIER
#define C_FIRST_RMA C_PUT
#define C_FIRST_FREE C_COMM_FREE
extern const char *const call_name[C_COUNT];

/* What kind of call a wrapper times: the profile's summary adds the time up per kind. The
 * generated wrappers name theirs by the call's name (other_calls.py). */
enum call_kind { K_P2P, K_WAIT, K_COLL, K_RMA, K_PROBE, K_MAKE, K_OTHER, K_COUNT };
extern const char *const call_kind_name[K_COUNT];
static inline enum call_kind call_kind_of(enum call_id c)
{
    return c < C_FIRST_WAIT ? K_P2P : c <= C_LAST_WAIT ? K_WAIT : c < C_FIRST_RMA ? K_COLL
           : c < C_FIRST_FREE ? K_RMA : c == C_REQUEST_FREE ? K_OTHER : K_MAKE;
}

#define SIZE_SLOTS 16     /* distinct sizes counted exactly per (peer, kind) */
#define LOG2_BUCKETS 65   /* 0: 0 B; b >= 1: [2^(b-1), 2^b) */
#define RUN_SIZES 4       /* distinct sizes kept exactly per back-to-back sequence */
#define SHAPES 32         /* distinct sequence shapes kept per peer */

struct size_stats {
    uint64_t count, bytes;
    uint64_t other_count, other_bytes; /* sizes that found the exact table full */
    int nsizes, last;                  /* last: the slot hit last (most calls repeat a size) */
    uint64_t size[SIZE_SLOTS], size_count[SIZE_SLOTS];
    uint64_t log2[LOG2_BUCKETS];
};

/* A back-to-back sequence: its length, bytes, the send kinds in it, its sizes. */
struct run {
    uint64_t length, bytes, min_bytes, max_bytes;
    uint32_t kinds;      /* bit k: a message of msg_kind k */
    int nsizes;          /* distinct sizes in size[]; RUN_SIZES + 1: more than fit */
    uint64_t size[RUN_SIZES], size_count[RUN_SIZES];
};

struct shape {
    struct run run;      /* what the sequences of this shape hold (sizes sorted) */
    uint64_t count;      /* how many sequences had it */
};

struct peer {
    int world;                           /* the peer's rank in MPI_COMM_WORLD */
    int open;                            /* a sequence to this peer is open */
    struct size_stats *kind[MK_COUNT];   /* allocated on the first message of a kind */
    struct run run;                      /* the open sequence */
    struct shape *shapes;                /* allocated with the first finished sequence */
    int nshapes;
    uint64_t seq_count, seq_messages, seq_bytes;
    uint64_t other_count, other_messages, other_bytes, other_max_length; /* shapes table full */
};

struct call_stat {
    uint64_t n;
    uint64_t ticks;
    uint64_t bytes;          /* collectives and one-sided transfers (wrap_coll.c) */
};

/* The generated wrappers of every other MPI call (other_calls.py writes other_calls.c). */
extern const int prof_other_count;
extern const char *const prof_other_name[];
extern const unsigned char prof_other_kind[];
extern struct call_stat prof_other_stat[];

/* Call sites (sites.c): per return address of a wrapped call, its count and time. */
#define SITES 1024
struct site {
    uintptr_t addr;          /* 0: empty */
    int call;                /* call_id, or C_COUNT + index of a generated wrapper */
    uint64_t n, ticks;
    const char *object;      /* dladdr's file name at the first call, or NULL */
    uintptr_t base;          /* its load address */
};

/* Collectives per (call, communicator size, bytes) (sites.c), for the collective models. */
#define COLL_SLOTS 256
struct coll_stat {
    int call;                /* 0: empty; else a call_id of a collective */
    int comm_size;
    uint64_t bytes, n, ticks;
    uint64_t faults_n, faults;  /* calls whose page faults were counted (faults.c), and theirs */
    uint64_t faulted_n;         /* of those calls, the ones that faulted at all */
    uint64_t preempted_n;       /* ... and the ones in which the thread was descheduled */
    int datatype;               /* a reduction's: 0 none, else DATATYPE_OTHER, _MIXED or 1 + index in
                                   prof_datatype_name (sites.c) */
};
#define DATATYPE_OTHER (-1)  /* a type not in the table (derived, pairs, ...) */
#define DATATYPE_MIXED (-2)  /* the row's calls reduced different types */
const char *prof_datatype_name(int datatype);  /* NULL for 0 */

struct prof {
    int active;              /* recording: between MPI_Init and MPI_Finalize */
    int done;                /* a profile (whole or this rank's part) has been written */
    int mt;                  /* MPI_THREAD_MULTIPLE: bookkeeping takes a lock */
    int thread_level;
    int rank, size;
    MPI_Comm comm;           /* MPI_COMM_WORLD split, made at MPI_Finalize for the gather */
    MPI_Group world_group;
    int tsc;                 /* the clock is the TSC (ticks.c), else CLOCK_MONOTONIC in ns */
    double ticks_per_ns_init, ticks_per_ns;  /* calibration: 2 ms at MPI_Init, the whole run */
    uint64_t cal_ticks0;     /* the first calibration pair */
    int64_t cal_ns0, cal_span_ns, clock_read_ns, gap_ns;
    uint64_t t_init, t_last_exit, gap_ticks;  /* in ticks, as everything below */
    struct timespec real_start;
    struct call_stat calls[C_COUNT];
    uint64_t mpi_ticks, wait_ticks;
    struct site *sites;      /* SITES slots, open addressing by address */
    uint64_t sites_other_n, sites_other_ticks;   /* calls from sites that found the table full */
    struct coll_stat *colls; /* COLL_SLOTS slots */
    uint64_t colls_other_n, colls_other_ticks;
    struct peer **peers;     /* by world rank, allocated on a peer's first message */
    struct peer **open;      /* peers with an open sequence */
    int nopen;
    int slow;                /* the bookkeeping allocated: its time is not the application's gap */
    uint64_t proc_null, unknown_peer, requests_untracked;
    /* A blocking receive's counting, put off to the next call's bookkeeping (record.c) */
    int deferred;
    enum msg_kind deferred_kind;
    int deferred_world;
    MPI_Status deferred_status;
    char host[MPI_MAX_PROCESSOR_NAME + 1];
    char output[4096];       /* MSGPERF_PROFILE_OUTPUT or the default name */
};
extern struct prof P;

static inline int64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The wrappers' clock (ticks.c): the TSC where it is invariant, else CLOCK_MONOTONIC. */
static inline uint64_t prof_ticks(void)
{
#ifdef PROF_TSC
    if (__builtin_expect(P.tsc, 1))
        return __rdtsc();
#endif
    return (uint64_t)mono_ns();
}

/* ticks.c */
void ticks_start(void);                      /* at MPI_Init: choose the clock, calibrate */
void ticks_end(void);                        /* at the end: the rate over the whole run */
int64_t ticks_to_ns(uint64_t ticks);
uint64_t ns_to_ticks(int64_t ns);
const char *ticks_clock_name(void);

/* record.c */
void prof_slow_done(void);
void prof_send(enum msg_kind kind, int world_peer, uint64_t bytes);     /* may join a sequence */
void prof_message(enum msg_kind kind, int world_peer, uint64_t bytes);  /* counted only */
void prof_recv(enum msg_kind kind, int world_peer, uint64_t bytes);
void prof_break_sequences(void);
uint64_t prof_type_size(MPI_Datatype type);
void prof_recv_status(enum msg_kind kind, MPI_Comm comm, const MPI_Status *status);
void prof_defer_recv(enum msg_kind kind, MPI_Comm comm, const MPI_Status *status);
void prof_flush_recv(void);
void prof_flush_recv_in_signal(void);           /* no allocation: see record.c */
uint64_t prof_status_bytes(const MPI_Status *status);
int prof_init(void);

/* The bookkeeping of every wrapped call, inline: these run on every call.
 * MPI_THREAD_MULTIPLE only: a spin lock around the tables. */
extern atomic_flag prof_spin;

static inline void prof_lock(void)
{
    if (__builtin_expect(P.mt, 0))
        while (atomic_flag_test_and_set_explicit(&prof_spin, memory_order_acquire))
            ;
}

static inline void prof_unlock(void)
{
    if (__builtin_expect(P.mt, 0))
        atomic_flag_clear_explicit(&prof_spin, memory_order_release);
}

/* The start of every call's bookkeeping, after its PMPI call: first the receive an MPI_Recv
 * before it put off, then the gap: entering a call after more than the gap outside MPI ends
 * the open sequences (signed: with threads, another thread may have left a call after this
 * one entered). */
static inline void prof_bookkeeping_start(uint64_t t_enter)
{
    if (__builtin_expect(P.deferred, 0))
        prof_flush_recv();
    if ((int64_t)(t_enter - P.t_last_exit) > (int64_t)P.gap_ticks && P.nopen)
        prof_break_sequences();
}

/* sites.c */
void prof_site_slow(const void *addr, int call, uint64_t ticks);
int prof_sites_init(void);
/* The size of a communicator's group (the remote group of an intercommunicator). */
int comm_size_of(MPI_Comm comm);
/* faults < 0: the call's page faults were not counted; preempted: its involuntary context switches */
void prof_coll(enum call_id call, MPI_Comm comm, uint64_t bytes, uint64_t ticks, int64_t faults,
               int64_t preempted, MPI_Datatype reduced);

/* faults.c: the minor page faults of a sample of the large collectives, and a page's cost */
struct prof_usage {
    int64_t faults;     /* minor page faults so far; -1: not counted */
    int64_t preempted;  /* involuntary context switches so far */
};
struct prof_usage prof_faults_begin(uint64_t bytes);  /* the counts now if this call is sampled */
struct prof_usage prof_usage_now(void);
double prof_page_fault_ns(void);                       /* map, first touch, unmap: per page; 0 if unknown */

/* The call's site: the return address in the application (the caller of the MPI_ wrapper).
 * Only a wrapper itself can take it, so each passes PROF_SITE. */
#define PROF_SITE __builtin_return_address(0)

static inline void prof_site(const void *addr, int call, uint64_t ticks)
{
    uintptr_t a = (uintptr_t)addr;
    struct site *s = &P.sites[(a ^ (a >> 12)) * 0x9E3779B97F4A7C15ull >> 54];  /* 10 bits: SITES */
    if (__builtin_expect(s->addr == a, 1)) {
        s->n++;
        s->ticks += ticks;
        return;
    }
    prof_site_slow(addr, call, ticks);
}

static inline void prof_leave(enum call_id call, uint64_t t_enter, uint64_t t_exit, const void *site)
{
    uint64_t d = t_exit - t_enter;
    P.calls[call].n++;
    P.calls[call].ticks += d;
    P.mpi_ticks += d;
    if (call >= C_FIRST_WAIT && call <= C_LAST_WAIT)
        P.wait_ticks += d;
    prof_site(site, call, d);
    P.t_last_exit = t_exit;
    if (__builtin_expect(P.slow, 0))
        prof_slow_done();
}

/* A call that is not one of the hand-wrapped point-to-point calls: its time is MPI's. One
 * that can hand the program data (`ends`: a collective, a one-sided call, a matched receive,
 * a completion, a file read) ends the open back-to-back sequences, since what the program
 * sends next may depend on it; a probe, a communicator or datatype call, or any other call
 * does not (other_calls.py: delivers_data). */
static inline void prof_leave_other(struct call_stat *stat, int call, uint64_t t_enter,
                                    uint64_t t_exit, const void *site, int ends)
{
    uint64_t d = t_exit - t_enter;
    prof_bookkeeping_start(t_enter);
    if (ends && P.nopen)
        prof_break_sequences();
    stat->n++;
    stat->ticks += d;
    P.mpi_ticks += d;
    prof_site(site, call, d);
    P.t_last_exit = t_exit;
    if (__builtin_expect(P.slow, 0))
        prof_slow_done();
}

/* Bytes of `count` elements of `type`. MPI_Type_size is a call into MPI on every message;
 * the last type's size is kept per thread instead, until any MPI_Type_free (wrap_init.c),
 * after which MPI may give a new type the freed one's handle. */
#define PROF_TLS _Thread_local __attribute__((tls_model("initial-exec")))  /* no __tls_get_addr */
struct type_cache {
    MPI_Datatype type;
    unsigned generation;     /* of prof_type_generation when cached; 0: empty */
    uint64_t size;
};
extern atomic_uint prof_type_generation;
extern PROF_TLS struct type_cache prof_type_cache;

static inline uint64_t prof_bytes(MPI_Count count, MPI_Datatype type)
{
    uint64_t size = prof_type_cache.type == type
                    && prof_type_cache.generation
                       == atomic_load_explicit(&prof_type_generation, memory_order_relaxed)
                    ? prof_type_cache.size : prof_type_size(type);
    return count > 0 ? (uint64_t)count * size : 0;
}

/* comms.c: world rank of `rank` in `comm`; -1 for MPI_PROC_NULL, -2 when it cannot tell. */
struct xlate;
int comm_other_rank(MPI_Comm comm, int rank);  /* not MPI_COMM_WORLD */
static inline int comm_world_rank(MPI_Comm comm, int rank)
{
    if (rank == MPI_PROC_NULL)
        return -1;
    return comm == MPI_COMM_WORLD ? rank : comm_other_rank(comm, rank);
}
struct xlate *comm_xlate(MPI_Comm comm);     /* referenced: release with comm_release */
int xlate_world_rank(struct xlate *x, int rank);
void comm_release(struct xlate *x);
void comm_forget(MPI_Comm comm);             /* before MPI_Comm_free */

/* requests.c */
struct req {
    uint64_t key;
    unsigned char used, kind, persistent, active;
    int peer;                /* world rank; -3: any source, translate at completion via x */
    struct xlate *x;
    uint64_t bytes;          /* the message size (sends) or the posted buffer (receives) */
};
extern uint64_t req_used;                    /* entries: none, no receive is pending */
static inline int req_pending(void)
{
    return req_used != 0;
}
struct req *req_find(MPI_Request request);
void req_put(MPI_Request request, const struct req *r);
void req_drop(MPI_Request request);

/* output.c */
void output_start(void);                     /* at MPI_Init: what the header needs later */
void output_finalize(void);                  /* collective: gather, rank 0 writes */
void output_partial(const char *ended_by);   /* this rank alone, async-signal-safe: <output>.rank<N> */

/* signals.c */
void signals_start(void);                    /* a fatal signal writes this rank's part first */

#pragma GCC visibility pop

#endif
