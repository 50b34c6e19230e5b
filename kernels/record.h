/* The run-file writer (each record_* returns 0, or -1 when the write failed, e.g. a full disk) (docs/record-format.md): the only code that writes records.
 * Every record is one JSON line, flushed as soon as it is written. */
#ifndef MP_RECORD_H
#define MP_RECORD_H

#include <stdio.h>

#include "clock.h"
#include "options.h"
#include "placement.h"

#define MP_FORMAT_VERSION 1

struct mp_measurement {
    const char *pattern;
    const char *buffer;   /* "separate" or "inplace": what the pattern really used */
    const int *ranks;     /* world ranks taking part (pairs flattened: ranks[2i] <-> ranks[2i+1]) */
    int nranks;
    int flows;            /* messages of `bytes` counted by the bandwidth per reported time */
    const char *extra;    /* pattern-specific JSON members, each starting with a comma; may be NULL */
    const char *timing;
    const char *metric;
    long long bytes;
    int divisor;          /* per sample: k * pattern divisor */
    long k;
    long warmup;          /* iterations run before the first sample (first one included) */
    double first;         /* the cold first iteration, seconds (max over participants) */
    double elapsed;       /* wall time spent on this measurement, seconds */
    const char *stop_reason;
    long long mismatch;   /* -1 when validated; else the first bad byte */
    const double *samples;
    long nsamples;
};

struct mp_launch_info {
    const char *mpi_library;
    int mpi_version, mpi_subversion;
    int nranks;
    const struct mp_rank_place *ranks;
    const struct mp_clock_test *clock;
    double wtick;
};

void record_utc_now(char *buf, size_t len);
int record_run(FILE *f, const struct mp_options *o, int nranks, const char *command_line);
int record_launch(FILE *f, const struct mp_options *o, const struct mp_launch_info *info);
int record_measurement(FILE *f, const struct mp_options *o, const struct mp_measurement *m);
int record_launch_end(FILE *f, const struct mp_options *o, const int *cpus, const long *max_rss_kib, int nranks);

#endif
