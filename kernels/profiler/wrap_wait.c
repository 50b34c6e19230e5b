/* Wrappers of the wait and test calls: the time inside them, and the receives they complete.
 *
 * Before the call, each request is looked up (its handle becomes MPI_REQUEST_NULL when it
 * completes); a receive among them needs a status to read its source and size, so when the
 * application passed MPI_STATUS(ES)_IGNORE the wrapper passes its own. After the call, each
 * receive that completed is counted and ends the open back-to-back sequences. Waiting for
 * sends only ends nothing. The scratch arrays are per thread and grow by doubling. */
#include "prof.h"

#include <stdlib.h>

struct pending {
    int index;               /* position in the application's array */
    MPI_Request handle;
    struct req r;
};

static PROF_TLS struct pending *pend;
static PROF_TLS int *where;         /* index -> position in pend, or -1 */
static PROF_TLS MPI_Status *stats;
static PROF_TLS int cap;

static int reserve(int n)
{
    if (n <= cap)
        return 0;
    int c = cap ? cap : 64;
    while (c < n)
        c *= 2;
    struct pending *p = realloc(pend, (size_t)c * sizeof *p);
    if (p)
        pend = p;
    int *w = realloc(where, (size_t)c * sizeof *w);
    if (w)
        where = w;
    MPI_Status *s = realloc(stats, (size_t)c * sizeof *s);
    if (s)
        stats = s;
    if (!p || !w || !s)
        return 1;
    cap = c;
    return 0;
}

/* The pending receives among requests[0..n): into pend (count returned), where[] set. */
static int scan(int n, const MPI_Request requests[])
{
    int npend = 0;
    if (n <= 0 || !req_pending() || reserve(n))
        return 0;
    prof_lock();
    for (int i = 0; i < n; i++) {
        where[i] = -1;
        struct req *r = req_find(requests[i]);
        if (r && r->active && msg_kind_is_recv[r->kind]) {
            where[i] = npend;
            pend[npend].index = i;
            pend[npend].handle = requests[i];
            pend[npend++].r = *r;
        }
    }
    prof_unlock();
    return npend;
}

/* One receive completed (the lock is held). */
static void completed(const struct pending *p, const MPI_Status *status)
{
    int source = status->MPI_SOURCE;
    int world;
    if (p->r.peer != -3)
        world = p->r.peer;
    else if (source == MPI_PROC_NULL)
        world = -1;
    else
        world = p->r.x ? xlate_world_rank(p->r.x, source) : source;
    prof_recv((enum msg_kind)p->r.kind, world, prof_status_bytes(status));
    if (p->r.persistent) {
        struct req *r = req_find(p->handle);
        if (r)
            r->active = 0;
    } else {
        req_drop(p->handle);
    }
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!P.active)
        return PMPI_Wait(request, status);
    uint64_t t0 = prof_ticks();
    int npend = scan(1, request);
    MPI_Status local;
    MPI_Status *st = npend && status == MPI_STATUS_IGNORE ? &local : status;
    int rc = PMPI_Wait(request, st);
    uint64_t t1 = prof_ticks();
    prof_lock();
    prof_bookkeeping_start(t0);
    if (npend && rc == MPI_SUCCESS)
        completed(&pend[0], st);
    prof_leave(C_WAIT, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!P.active)
        return PMPI_Test(request, flag, status);
    uint64_t t0 = prof_ticks();
    int npend = scan(1, request);
    MPI_Status local;
    MPI_Status *st = npend && status == MPI_STATUS_IGNORE ? &local : status;
    int rc = PMPI_Test(request, flag, st);
    uint64_t t1 = prof_ticks();
    prof_lock();
    prof_bookkeeping_start(t0);
    if (npend && rc == MPI_SUCCESS && *flag)
        completed(&pend[0], st);
    prof_leave(C_TEST, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (!P.active)
        return PMPI_Waitall(count, requests, statuses);
    uint64_t t0 = prof_ticks();
    int npend = scan(count, requests);
    MPI_Status *st = npend && statuses == MPI_STATUSES_IGNORE ? stats : statuses;
    int rc = PMPI_Waitall(count, requests, st);
    uint64_t t1 = prof_ticks();
    prof_lock();
    prof_bookkeeping_start(t0);
    if (rc == MPI_SUCCESS)
        for (int k = 0; k < npend; k++)
            completed(&pend[k], &st[pend[k].index]);
    prof_leave(C_WAITALL, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (!P.active)
        return PMPI_Testall(count, requests, flag, statuses);
    uint64_t t0 = prof_ticks();
    int npend = scan(count, requests);
    MPI_Status *st = npend && statuses == MPI_STATUSES_IGNORE ? stats : statuses;
    int rc = PMPI_Testall(count, requests, flag, st);
    uint64_t t1 = prof_ticks();
    prof_lock();
    prof_bookkeeping_start(t0);
    if (rc == MPI_SUCCESS && *flag)
        for (int k = 0; k < npend; k++)
            completed(&pend[k], &st[pend[k].index]);
    prof_leave(C_TESTALL, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (!P.active)
        return PMPI_Waitany(count, requests, index, status);
    uint64_t t0 = prof_ticks();
    int npend = scan(count, requests);
    MPI_Status local;
    MPI_Status *st = npend && status == MPI_STATUS_IGNORE ? &local : status;
    int rc = PMPI_Waitany(count, requests, index, st);
    uint64_t t1 = prof_ticks();
    prof_lock();
    prof_bookkeeping_start(t0);
    if (npend && rc == MPI_SUCCESS && *index != MPI_UNDEFINED && where[*index] >= 0)
        completed(&pend[where[*index]], st);
    prof_leave(C_WAITANY, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    if (!P.active)
        return PMPI_Testany(count, requests, index, flag, status);
    uint64_t t0 = prof_ticks();
    int npend = scan(count, requests);
    MPI_Status local;
    MPI_Status *st = npend && status == MPI_STATUS_IGNORE ? &local : status;
    int rc = PMPI_Testany(count, requests, index, flag, st);
    uint64_t t1 = prof_ticks();
    prof_lock();
    prof_bookkeeping_start(t0);
    if (npend && rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED && where[*index] >= 0)
        completed(&pend[where[*index]], st);
    prof_leave(C_TESTANY, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    if (!P.active)
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    uint64_t t0 = prof_ticks();
    int npend = scan(incount, requests);
    MPI_Status *st = npend && statuses == MPI_STATUSES_IGNORE ? stats : statuses;
    int rc = PMPI_Waitsome(incount, requests, outcount, indices, st);
    uint64_t t1 = prof_ticks();
    prof_lock();
    prof_bookkeeping_start(t0);
    if (npend && rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        for (int k = 0; k < *outcount; k++)
            if (where[indices[k]] >= 0)
                completed(&pend[where[indices[k]]], &st[k]);
    prof_leave(C_WAITSOME, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    if (!P.active)
        return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    uint64_t t0 = prof_ticks();
    int npend = scan(incount, requests);
    MPI_Status *st = npend && statuses == MPI_STATUSES_IGNORE ? stats : statuses;
    int rc = PMPI_Testsome(incount, requests, outcount, indices, st);
    uint64_t t1 = prof_ticks();
    prof_lock();
    prof_bookkeeping_start(t0);
    if (npend && rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        for (int k = 0; k < *outcount; k++)
            if (where[indices[k]] >= 0)
                completed(&pend[where[indices[k]]], &st[k]);
    prof_leave(C_TESTSOME, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}
