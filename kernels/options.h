/* Command-line options of msgperf-kernels: parsed once, then passed down as const (what changes
 * during a run, such as the pair being measured, lives in the run state, measure.h). */
#ifndef MP_OPTIONS_H
#define MP_OPTIONS_H

#include <stddef.h>

#define MP_MAX_PATTERNS 64
#define MP_ERRLEN 512
#define MP_MAX_ACTIVE 64

enum mp_buffer_mode { MP_BUFFER_SEPARATE, MP_BUFFER_INPLACE };
/* --placement: measure --pair as given, or choose the pair from the rank->host map. */
enum mp_placement { MP_PLACE_PAIR, MP_PLACE_INTRA, MP_PLACE_INTER, MP_PLACE_BOTH };

struct mp_options {
    const char *patterns[MP_MAX_PATTERNS];
    int npatterns;
    long long *sizes;       /* owned; options_free() releases it */
    int nsizes;
    int pair_a, pair_b;     /* --pair: the measured pair; pair_a sends first */
    enum mp_buffer_mode buffer;
    double precision;       /* target relative half-width of the median's 95% CI */
    double time_budget;     /* seconds per (pattern, size) */
    double total_time;      /* seconds for the whole launch, shared out as measurements finish
                               (0: each measurement gets --time-budget) */
    long min_samples, max_samples;
    long iterations_per_sample; /* --iterations-per-sample: k as given; 0: calibrated (driver.c) */
    const char *output;     /* run file; "-" is stdout */
    int append;             /* add a launch to an existing run file (resume, repeat) */
    int overwrite;          /* replace an existing run file (without it the file must not exist) */
    int repeat;             /* launches planned for the run (msgperf run --repeat), recorded in the plan */
    int after_given;        /* --after: what msgperf run does after the sweep, recorded in the plan */
    int after_probe, after_refine;
    int launch_index;
    int quiet;
    const char *command_line; /* recorded in the run record; default: argv joined */
    enum mp_placement placement;
    const char *launcher_line; /* the launcher's full command line, recorded in each launch record */
    const char *test_stall;   /* test-only: "RANK:BYTES" makes that rank stall at that size */
    int active[MP_MAX_ACTIVE]; /* --active: the concurrent-pair counts of the sweep to measure */
    int nactive;               /* 0: every step, 1, 2, 4 ... P/2 */
    long long test_corrupt;   /* test-only: flip a received byte at this size (-1: never) */
    long long test_delay_ns;  /* test-only: each participant spins this long per iteration, inside the timing */
    int list_patterns;        /* --list-patterns: print the catalog and stop (no MPI) */
    int list_np;              /* --np: the number of ranks the catalog's variants are counted for */
    int rotate_root;          /* --root rotate: a rooted collective's root moves by one rank per iteration (IMB);
                                 0: rank 0 is always the root (OSU's default) */
    int iteration_barrier;    /* --iteration-barrier: collectives time one call per sample, each after an
                                 MPI_Barrier outside the timing (OSU); 0: k calls back to back (IMB) */
    int off_cache;            /* --off-cache: collectives cycle through buffer sets larger than the last-level
                                 cache (IMB -off_cache); 0: the same buffers every iteration */
};

/* 0 on success; -1 with a one-line message (problem and fix) in err; 1 when --help was shown.
 * Needs no MPI: it runs before MPI_Init, so --help and --list-patterns need no launcher. */
int options_parse(int argc, char **argv, struct mp_options *o, char *err, size_t errlen);
/* --active: is this step of a contention sweep (that many concurrent pairs) to be measured? */
int options_active_chosen(const struct mp_options *o, int active);
void options_free(struct mp_options *o);
const char *options_buffer_name(enum mp_buffer_mode mode);

#endif
