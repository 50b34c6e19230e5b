/* What a pattern is: a small set of functions the driver plugs into its one timed loop.
 * A pattern never times (its samples, or the extra series of series(), which the driver times
 * too), prints, parses options or allocates the message buffers; what it needs beyond them
 * (requests, a Bsend buffer, a shared window) it makes in setup(). */
#ifndef MP_PATTERN_H
#define MP_PATTERN_H

#include <stddef.h>

#include <mpi.h>

struct mp_ctx {
    MPI_Comm comm;      /* the participants only */
    int me;             /* rank in comm; for a pair, 0 is the first rank of --pair */
    int nranks;         /* size of comm */
    unsigned char *send, *recv; /* the same buffer when in place */
    int bytes;
    int inplace;
    int variant;        /* which variant (round, k, phase) of the pattern: 0 .. variants-1 */
    const int *world;   /* world rank of each comm rank */
    int world_size;
    const double *previous; /* median time per iteration (s) of the earlier variants at this size */
    void *state;        /* the pattern's own: made by setup(), freed by teardown() */
    int rotate_root;    /* rooted collectives: root = iteration mod nranks (--root rotate); else rank 0 */
    int off_cache;      /* collectives: cycle through buffer sets beyond the last-level cache (--off-cache) */
    int iteration_barrier; /* collectives: the driver times one call per sample after a barrier (--iteration-barrier) */
};

enum mp_participants { MP_PAIR, MP_ALL };

/* What kind of question a pattern answers (the catalog's "family"; names in catalog.c).
 * MP_FAMILY_NONE is never valid: a pattern without a family is refused by the catalog. */
enum mp_family {
    MP_FAMILY_NONE,
    MP_FAMILY_PINGPONG,      /* ping-pong, its send modes, non-blocking and persistent forms, loggp */
    MP_FAMILY_BIDIRECTIONAL, /* both ranks send at once: sendrecv, pingping, exchange, exchange-sync,
                                exchange-init */
    MP_FAMILY_COMPAT,        /* the loops of OSU and IMB */
    MP_FAMILY_MANY_RANKS,    /* every rank takes part: ring, pairs, matrix */
    MP_FAMILY_BUFFERING,     /* the buffered path: unexpected receive, pack/unpack */
    MP_FAMILY_COMBINING,     /* k messages apart versus combined */
    MP_FAMILY_OVERLAP,       /* communication hidden behind computation */
    MP_FAMILY_PROBE,         /* the eager limit, found directly */
    MP_FAMILY_HARDWARE,      /* costs the models charge, not bandwidths: memcpy, reduce-local, sendrecv-reduce,
                                sendrecv-indexed, self-message, send-stream, the floor */
    MP_FAMILY_COLLECTIVE,    /* one MPI collective over every rank: barrier, bcast, allreduce, alltoall ... */
};

struct mp_fields; /* a measurement record's pattern members (record.h) */

/* One extra series (pattern series()): `tests` tests, each `calls` calls and a closing call. */
struct mp_series {
    int tests;           /* 0: no more series */
    int calls;           /* calls of one test before its closing call */
    double pause_s;      /* this rank waits this long, untimed, before each call after the first */
    int time_first_call; /* whether the first call counts in the time per call */
    int calls_on;        /* comm rank whose time per call is kept (-1: none) */
};

/* What the driver measured of a series, the same on every rank: medians over its tests. */
struct mp_series_result {
    double test_s;       /* a whole test, as comm rank 0 saw it */
    double call_s;       /* one call, as comm rank calls_on saw it (mean of its calls in a test) */
};

struct mp_pattern {
    const char *name;
    enum mp_family family;
    int modelled;        /* 1 when a Hockney time-vs-size model of its records is meaningful */
    const char *timing;  /* what one iteration is and what is reported, in words */
    const char *metric;  /* one_way, round_trip, per_iteration, per_message, per_hop, copy, per_call, probe */
    int divisor;         /* reported time = sample / (k * divisor); 0: divisor = comm size */
    int flows;           /* messages of `bytes` the bandwidth counts per reported time; 0 means 1 */
    enum mp_participants participants; /* the --pair, or every rank */
    int inplace_ok;      /* honours --buffer inplace (others run with separate buffers, and say so) */
    int even_ranks;      /* needs an even number of ranks (checked before anything runs) */
    int per_rank_blocks; /* 1: the message buffers hold one block of `bytes` per rank of comm (allgather,
                            alltoall; a pair pattern: two) */
    int iteration_barrier; /* 1: always one iteration per sample, each after an untimed barrier (osu_* collectives) */
    /* Number of variants (NULL: 1), each its own record: rounds, k values, phases. */
    int (*variants)(int world_size);
    /* Optional: the concurrent pairs a variant runs (pairs' contention sweep), so that --active
     * can choose which steps of the sweep to measure. */
    int (*active_pairs)(int world_size, int variant);
    /* The variant's name for the record's "variant" field (NULL: no field). */
    void (*variant_name)(int variant, int world_size, char *buf, size_t len);
    /* Whether a world rank takes part in a variant (NULL: every rank). */
    int (*member)(int world_rank, int world_size, int variant);
    /* Optional, collective: 0, or -1 with a one-line message (problem and fix) in err. */
    int (*setup)(struct mp_ctx *ctx, char *err, size_t errlen);
    void (*teardown)(struct mp_ctx *ctx);
    /* Run `iterations` iterations; the driver times the call. */
    void (*iterate)(const struct mp_ctx *ctx, long iterations);
    /* Before timing: fill buffers so that verify() can prove the bytes moved. */
    void (*prepare)(const struct mp_ctx *ctx);
    /* After timing: 0 when this rank received what it should have; else the bad byte's index + 1. */
    long long (*verify)(const struct mp_ctx *ctx);
    /* Optional: the pairs measured at once, as comm ranks (initiator first); returns how many. */
    int (*pairs)(const struct mp_ctx *ctx, int *pairs, int max_pairs);
    /* Optional, collective: extra series after the samples (loggp's PRTT tests), timed by the
     * driver (series.c) and then checked by verify() again. Called with index 0, 1, ...: fill
     * *next (the same on every rank but pause_s), given the results of series 0 .. index-1;
     * next->tests = 0 ends them. series_call() runs call `call` of a test (call == calls: the
     * closing call). */
    void (*series)(const struct mp_ctx *ctx, int index, const struct mp_series_result *done,
                   struct mp_series *next);
    void (*series_call)(const struct mp_ctx *ctx, int call);
    /* Optional, on comm rank 0 after verify(): the pattern's own record members, each through a
     * record_field_* call (record.h); median = this variant's time per iteration. */
    void (*fields)(const struct mp_ctx *ctx, double median, struct mp_fields *out);
};

#endif
