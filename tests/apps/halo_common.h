/* What halo.c and halo_combined.c share: options, the neighbours, the message sizes, the
 * compute, the check of received bytes and the closing report. MPI and libc only. */
#ifndef HALO_COMMON_H
#define HALO_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SIZES 16

struct halo {
    int steps, messages;            /* steps; messages per neighbour per step */
    int nsizes, sizes[MAX_SIZES];   /* message j of a step has sizes[j % nsizes] bytes */
    double compute_us;              /* compute before each step's sends */
    double between_us;              /* compute between two sends (breaks back-to-back runs) */
    int exit_code, exit_after_finalize;
    int rank, nranks, left, right;
};

static void halo_usage(const char *name)
{
    fprintf(stderr, "usage: %s [--steps N] [--messages K] [--bytes B1,B2,...] [--compute-us C] "
            "[--compute-between-us X] [--exit-code N [--exit-after-finalize]]\n", name);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void halo_options(struct halo *h, int argc, char **argv)
{
    h->steps = 100;
    h->messages = 16;
    h->nsizes = 3;
    h->sizes[0] = 8, h->sizes[1] = 64, h->sizes[2] = 256;
    h->compute_us = 20;
    h->between_us = 0;
    h->exit_code = 0;
    h->exit_after_finalize = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--exit-after-finalize")) {
            h->exit_after_finalize = 1;
            continue;
        }
        if (!v)
            halo_usage(argv[0]);
        i++;
        if (!strcmp(a, "--steps"))
            h->steps = atoi(v);
        else if (!strcmp(a, "--messages"))
            h->messages = atoi(v);
        else if (!strcmp(a, "--compute-us"))
            h->compute_us = atof(v);
        else if (!strcmp(a, "--compute-between-us"))
            h->between_us = atof(v);
        else if (!strcmp(a, "--exit-code"))
            h->exit_code = atoi(v);
        else if (!strcmp(a, "--bytes")) {
            h->nsizes = 0;
            for (const char *p = v; *p && h->nsizes < MAX_SIZES;) {
                h->sizes[h->nsizes++] = atoi(p);
                p = strchr(p, ',');
                if (!p)
                    break;
                p++;
            }
        } else
            halo_usage(argv[0]);
    }
    if (h->steps < 1 || h->messages < 1 || h->nsizes < 1)
        halo_usage(argv[0]);
    MPI_Comm_rank(MPI_COMM_WORLD, &h->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &h->nranks);
    h->left = (h->rank + h->nranks - 1) % h->nranks;
    h->right = (h->rank + 1) % h->nranks;
}

static int halo_size(const struct halo *h, int j)
{
    return h->sizes[j % h->nsizes];
}

static int halo_max_size(const struct halo *h)
{
    int m = 0;
    for (int i = 0; i < h->nsizes; i++)
        m = h->sizes[i] > m ? h->sizes[i] : m;
    return m;
}

static double halo_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Stand-in for the application's work: spin for `us` microseconds. */
static void halo_compute(double us)
{
    if (us <= 0)
        return;
    double end = halo_now() + us * 1e-6;
    while (halo_now() < end)
        ;
}

/* The bytes of message j of a step, sent by `from` towards direction dir (0 left, 1 right). */
static unsigned char halo_byte(int from, int dir, int step, int j, int i)
{
    return (unsigned char)(from * 31 + dir * 7 + step * 13 + j * 5 + i);
}

static void halo_fill(unsigned char *buf, int from, int dir, int step, int j, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = halo_byte(from, dir, step, j, i);
}

static void halo_check(const unsigned char *buf, int from, int dir, int step, int j, int n)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != halo_byte(from, dir, step, j, i)) {
            fprintf(stderr, "halo: wrong byte %d of message %d from rank %d in step %d\n", i, j, from, step);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

/* The slowest rank's time for the steps, then the ending the options ask for. */
static int halo_finish(const struct halo *h, const char *name, double seconds)
{
    double worst = 0;
    MPI_Reduce(&seconds, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (h->rank == 0)
        printf("%s: ranks=%d steps=%d messages=%d time_s=%.9f\n", name, h->nranks, h->steps,
               h->messages, worst);
    fflush(stdout);
    if (h->exit_code && !h->exit_after_finalize)
        exit(h->exit_code);  /* without MPI_Finalize, on purpose */
    MPI_Finalize();
    return h->exit_code;
}

#endif
