/* The run-file writer (docs/record-format.md): the only code that writes records. Every record
 * is one JSON line, flushed as soon as it is written; each record_* returns 0, or -1 when the
 * write failed (a full disk, say). */
#ifndef MP_RECORD_H
#define MP_RECORD_H

#include <stdio.h>

#include "clock.h"
#include "host_facts.h"
#include "mpit_cvars.h"
#include "options.h"
#include "placement.h"

#define MP_FORMAT_VERSION 3 /* 3: pair_samples_s, plan.total_time_s, host_facts (docs/record-format.md) */

/* The run record's facts beyond the options. */
struct mp_run_info {
    const char *command_line;
    int nranks;
    int pair_a, pair_b; /* the first pair measured: --pair, or the one --placement chose */
};

struct mp_launch_info {
    const char *mpi_library;
    int mpi_version, mpi_subversion;
    int nranks;
    int pair_a, pair_b;        /* the first pair measured */
    const struct mp_rank_place *ranks;
    const struct mp_clock_test *clock;
    double wtick;
    const char *launcher_line; /* the launcher's command line; NULL when not known */
    const struct mp_host_facts *hosts; /* one per host (host_facts_gather) */
    int nhosts;
    const struct mp_cvar *cvars; /* the MPI's thresholds through MPI_T (mpit_cvars_read) */
    int ncvars;                  /* -1: the library offers no MPI_T; the field is left out */
};

struct mp_measurement {
    const char *pattern;
    const char *variant;  /* the record's "variant"; NULL when the pattern has one variant */
    const char *buffer;   /* "separate" or "inplace": what the pattern really used */
    const int *ranks;     /* world ranks taking part (pairs flattened: ranks[2i] <-> ranks[2i+1]) */
    int nranks;
    int npairs;           /* > 0: ranks holds that many pairs, measured at once ... */
    const double *pair_median_s; /* ... and each pair's own time (its slower rank's median / divisor) */
    const double *pair_samples_s; /* ... and each pair's samples (its slower rank's, per sample), seconds:
                                   * pair i's at [i * nsamples, (i + 1) * nsamples) */
    int flows;            /* messages of `bytes` counted by the bandwidth per reported time */
    const char *timing;
    const char *metric;
    long long bytes;
    int divisor;          /* per sample: k * pattern divisor */
    long k;
    long warmup;          /* iterations run before the first sample (first one included) */
    double first;         /* the cold first iteration, seconds (max over participants) */
    int first_of_job;     /* the launch's first measurement: `first` is the job's first message */
    double elapsed;       /* wall time spent on this measurement, seconds */
    const char *stop_reason;
    long long mismatch;   /* -1 when validated; else the first bad byte */
    const char *fields;   /* the pattern's own members, made by record_fields_end(); may be NULL */
    const char *placement; /* "intra" or "inter" for a two-rank pattern; NULL otherwise */
    const double *samples;
    long nsamples;
    long pair_nsamples; /* samples per pair in pair_samples_s */
};

void record_utc_now(char *buf, size_t len);
int record_run(FILE *f, const struct mp_options *o, const struct mp_run_info *info);
int record_launch(FILE *f, const struct mp_options *o, const struct mp_launch_info *info);
int record_measurement(FILE *f, const struct mp_options *o, const struct mp_measurement *m);
int record_launch_end(FILE *f, const struct mp_options *o, const int *cpus, const long *max_rss_kib, int nranks);

/* A pattern's own members of its measurement record, made on the rank that knows them (the
 * pattern's first rank) and carried as text to world rank 0, which writes the record:
 * record_fields_begin, then record_field_* (each writes the name and the value as JSON), then
 * record_fields_end. */
struct mp_fields {
    FILE *f;
    char *text;
    size_t len;
};
/* 0, or -1 when out of memory. */
int record_fields_begin(struct mp_fields *out);
void record_field_int(struct mp_fields *out, const char *name, long long value);
void record_field_double(struct mp_fields *out, const char *name, double value);
void record_field_bool(struct mp_fields *out, const char *name, int value);
void record_field_string(struct mp_fields *out, const char *name, const char *value);
void record_field_null(struct mp_fields *out, const char *name);
/* The members as text (the caller frees it), or NULL when out of memory. */
char *record_fields_end(struct mp_fields *out);

#endif
