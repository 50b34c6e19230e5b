/* World ranks of a communicator's ranks, cached per communicator.
 *
 * MPI_COMM_WORLD needs no table. For any other communicator the first message to a rank asks
 * MPI_Group_translate_ranks once and keeps the answer; an intercommunicator's ranks are those
 * of its remote group. MPI_Comm_free drops the communicator's table, since MPI reuses the
 * handle of a freed communicator; a receive still pending on it keeps the table alive
 * (a reference) until it completes. */
#include "prof.h"

#include <stdlib.h>

#define UNKNOWN (-3)

struct xlate {
    MPI_Comm comm;
    MPI_Group group;
    int size, live, refs;
    int *world;          /* UNKNOWN until first asked */
};

static struct xlate **table;
static int ntable, captable, last;

static struct xlate *make(MPI_Comm comm)
{
    int inter = 0;
    struct xlate *x = calloc(1, sizeof *x);
    P.slow = 1;
    if (!x)
        return NULL;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
        PMPI_Comm_remote_size(comm, &x->size);
        PMPI_Comm_remote_group(comm, &x->group);
    } else {
        PMPI_Comm_size(comm, &x->size);
        PMPI_Comm_group(comm, &x->group);
    }
    x->world = malloc((size_t)(x->size > 0 ? x->size : 1) * sizeof *x->world);
    if (!x->world) {
        PMPI_Group_free(&x->group);
        free(x);
        return NULL;
    }
    for (int i = 0; i < x->size; i++)
        x->world[i] = UNKNOWN;
    x->comm = comm;
    x->live = 1;
    return x;
}

static void destroy(struct xlate *x)
{
    PMPI_Group_free(&x->group);  /* only ever called while MPI is initialized */
    free(x->world);
    free(x);
}

static struct xlate *lookup(MPI_Comm comm)
{
    if (ntable && table[last]->comm == comm)
        return table[last];
    for (int i = 0; i < ntable; i++)
        if (table[i]->comm == comm) {
            last = i;
            return table[i];
        }
    if (ntable == captable) {
        int cap = captable ? 2 * captable : 16;
        struct xlate **t = realloc(table, (size_t)cap * sizeof *t);
        if (!t)
            return NULL;
        table = t;
        captable = cap;
    }
    struct xlate *x = make(comm);
    if (!x)
        return NULL;
    last = ntable;
    table[ntable++] = x;
    return x;
}

int xlate_world_rank(struct xlate *x, int rank)
{
    if (rank == MPI_PROC_NULL)
        return -1;
    if (!x || rank < 0 || rank >= x->size)
        return -2;
    if (x->world[rank] == UNKNOWN) {
        int w = MPI_UNDEFINED;
        PMPI_Group_translate_ranks(x->group, 1, &rank, P.world_group, &w);
        P.slow = 1;
        x->world[rank] = w == MPI_UNDEFINED ? -2 : w;
    }
    return x->world[rank];
}

int comm_other_rank(MPI_Comm comm, int rank)
{
    return xlate_world_rank(lookup(comm), rank);
}

struct xlate *comm_xlate(MPI_Comm comm)
{
    struct xlate *x = lookup(comm);
    if (x)
        x->refs++;
    return x;
}

void comm_release(struct xlate *x)
{
    if (x && --x->refs == 0 && !x->live)
        destroy(x);
}

void comm_forget(MPI_Comm comm)
{
    for (int i = 0; i < ntable; i++)
        if (table[i]->comm == comm) {
            struct xlate *x = table[i];
            table[i] = table[--ntable];
            last = 0;
            x->live = 0;
            if (x->refs == 0)
                destroy(x);
            return;
        }
}
