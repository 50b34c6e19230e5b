/* What a pattern is: a small set of functions the driver plugs into its one timed loop.
 * A pattern never times itself, prints, parses options or allocates message buffers. */
#ifndef MP_PATTERN_H
#define MP_PATTERN_H

#include <mpi.h>

struct mp_ctx {
    MPI_Comm comm;      /* the participants only */
    int me;             /* rank in comm; 0 is the first rank of --pair */
    int nranks;         /* size of comm */
    unsigned char *send, *recv; /* the same buffer when in place */
    int bytes;
    int inplace;
};

struct mp_pattern {
    const char *name;
    const char *timing;  /* what one iteration is and what is reported, in words */
    const char *metric;  /* "one_way": reported = sample / divisor per message */
    int divisor;         /* per iteration: the reported time = sample / (k * divisor) */
    /* Run `iterations` iterations; the driver times the call. */
    void (*iterate)(const struct mp_ctx *ctx, long iterations);
    /* Before timing: fill buffers so that verify() can prove the bytes moved. */
    void (*prepare)(const struct mp_ctx *ctx);
    /* After timing: 0 when this rank received what it should have; else the bad byte's index + 1. */
    long long (*verify)(const struct mp_ctx *ctx);
};

#endif
