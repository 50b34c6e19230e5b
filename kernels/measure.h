/* One measurement: the participants run the pattern through the driver (the other ranks sleep),
 * the result reaches world rank 0, which writes its record. */
#ifndef MP_MEASURE_H
#define MP_MEASURE_H

#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "clock.h"
#include "driver.h"
#include "options.h"
#include "pattern.h"
#include "placement.h"

/* The run state: what one measurement needs besides the pattern. The options stay const; what
 * changes during the run (the pair of this pass, the count of bad payloads) lives here. */
struct mp_run {
    const struct mp_options *o;
    const struct mp_clock_test *clock;
    int world_rank, nranks;
    int pair_a, pair_b;         /* the pair two-rank patterns measure in this pass; pair_a sends first */
    MPI_Comm pair;              /* its communicator (pair_a is rank 0), MPI_COMM_NULL elsewhere */
    unsigned char *send, *recv; /* NULL on ranks that never take part */
    FILE *out;                  /* the run file, on world rank 0 only */
    const struct mp_rank_place *places; /* rank -> host map, on world rank 0 only */
    int mismatches;             /* records whose bytes did not arrive intact (world rank 0) */
    struct mp_driver_state driver; /* zero at start: the driver marks the launch's first measurement */
    int64_t sweep_start_ns;     /* --total-time: when the measurements began (this rank's clock) */
    long remaining;             /* --total-time: measurements not yet started, this one included */
};

/* Every rank calls it for every record, in the same order. `previous` gains this variant's
 * time per iteration (on the participants). */
void measure(struct mp_run *run, const struct mp_pattern *p, long long bytes, int variant, double *previous);

#endif
