/* Wrappers of the calls that send or receive: blocking, non-blocking, persistent, Sendrecv.
 *
 * Each reads the clock before and after the PMPI call; the bookkeeping happens after the
 * call (and its time is the application's, not MPI's). A send is counted when it is issued
 * (MPI_Isend when posted, a persistent send at each MPI_Start); a receive when it completes,
 * with the source and size its status gives. MPI_PROC_NULL peers are counted apart. */
#include "prof.h"

#define SEND_WRAPPER(NAME, PNAME, CALL, KIND)                                                  \
    int NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)  \
    {                                                                                          \
        if (!P.active)                                                                         \
            return PNAME(buf, count, type, dest, tag, comm);                                   \
        uint64_t t0 = prof_ticks();                                                                 \
        int rc = PNAME(buf, count, type, dest, tag, comm);                                     \
        uint64_t t1 = prof_ticks();                                                                 \
        uint64_t bytes = prof_bytes(count, type);                                              \
        prof_lock();                                                                           \
        prof_bookkeeping_start(t0);                                                                          \
        if (rc == MPI_SUCCESS) {                                                               \
            prof_send(KIND, comm_world_rank(comm, dest), bytes);                               \
            P.calls[CALL].bytes += bytes;                                                      \
        }                                                                                      \
        prof_leave(CALL, t0, t1, PROF_SITE);                                                              \
        prof_unlock();                                                                         \
        return rc;                                                                             \
    }

SEND_WRAPPER(MPI_Send, PMPI_Send, C_SEND, MK_SEND)
SEND_WRAPPER(MPI_Ssend, PMPI_Ssend, C_SSEND, MK_SSEND)
SEND_WRAPPER(MPI_Rsend, PMPI_Rsend, C_RSEND, MK_RSEND)
SEND_WRAPPER(MPI_Bsend, PMPI_Bsend, C_BSEND, MK_BSEND)

#define ISEND_WRAPPER(NAME, PNAME, CALL, KIND)                                                 \
    int NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,  \
             MPI_Request *request)                                                             \
    {                                                                                          \
        if (!P.active)                                                                         \
            return PNAME(buf, count, type, dest, tag, comm, request);                          \
        uint64_t t0 = prof_ticks();                                                                 \
        int rc = PNAME(buf, count, type, dest, tag, comm, request);                            \
        uint64_t t1 = prof_ticks();                                                                 \
        uint64_t bytes = prof_bytes(count, type);                                              \
        prof_lock();                                                                           \
        prof_bookkeeping_start(t0);                                                                          \
        if (rc == MPI_SUCCESS) {                                                               \
            prof_send(KIND, comm_world_rank(comm, dest), bytes);                               \
            P.calls[CALL].bytes += bytes;                                                      \
        }                                                                                      \
        prof_leave(CALL, t0, t1, PROF_SITE);                                                              \
        prof_unlock();                                                                         \
        return rc;                                                                             \
    }

ISEND_WRAPPER(MPI_Isend, PMPI_Isend, C_ISEND, MK_ISEND)
ISEND_WRAPPER(MPI_Issend, PMPI_Issend, C_ISSEND, MK_ISSEND)
ISEND_WRAPPER(MPI_Irsend, PMPI_Irsend, C_IRSEND, MK_IRSEND)
ISEND_WRAPPER(MPI_Ibsend, PMPI_Ibsend, C_IBSEND, MK_IBSEND)

/* Persistent sends: what the request will send; each MPI_Start sends it. */
#define SEND_INIT_WRAPPER(NAME, PNAME, CALL, KIND)                                             \
    int NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,  \
             MPI_Request *request)                                                             \
    {                                                                                          \
        if (!P.active)                                                                         \
            return PNAME(buf, count, type, dest, tag, comm, request);                          \
        uint64_t t0 = prof_ticks();                                                                 \
        int rc = PNAME(buf, count, type, dest, tag, comm, request);                            \
        uint64_t t1 = prof_ticks();                                                                 \
        struct req r = {0};                                                                    \
        r.kind = KIND;                                                                         \
        r.persistent = 1;                                                                      \
        r.bytes = prof_bytes(count, type);                                                     \
        prof_lock();                                                                           \
        prof_bookkeeping_start(t0);                                                                          \
        r.peer = comm_world_rank(comm, dest);                                                  \
        if (rc == MPI_SUCCESS)                                                                 \
            req_put(*request, &r);                                                             \
        prof_leave(CALL, t0, t1, PROF_SITE);                                                              \
        prof_unlock();                                                                         \
        return rc;                                                                             \
    }

SEND_INIT_WRAPPER(MPI_Send_init, PMPI_Send_init, C_SEND_INIT, MK_SEND_INIT)
SEND_INIT_WRAPPER(MPI_Ssend_init, PMPI_Ssend_init, C_SSEND_INIT, MK_SSEND_INIT)
SEND_INIT_WRAPPER(MPI_Rsend_init, PMPI_Rsend_init, C_RSEND_INIT, MK_RSEND_INIT)
SEND_INIT_WRAPPER(MPI_Bsend_init, PMPI_Bsend_init, C_BSEND_INIT, MK_BSEND_INIT)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    if (!P.active)
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    uint64_t t0 = prof_ticks();
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    uint64_t t1 = prof_ticks();
    prof_lock();
    prof_bookkeeping_start(t0);
    if (rc == MPI_SUCCESS)
        prof_defer_recv(MK_RECV, comm, st);
    prof_leave(C_RECV, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

/* A receive posted: remember it until it completes (or, persistent, until freed). */
static void track_receive(MPI_Request request, enum msg_kind kind, int persistent, int source,
                          MPI_Comm comm, uint64_t bytes)
{
    if (source == MPI_PROC_NULL) {
        if (!persistent)
            P.proc_null++;
        return;
    }
    struct req r = {0};
    r.kind = kind;
    r.persistent = (unsigned char)persistent;
    r.active = !persistent;
    r.bytes = bytes;
    if (source == MPI_ANY_SOURCE) {
        r.peer = -3;
        r.x = comm == MPI_COMM_WORLD ? NULL : comm_xlate(comm);
    } else {
        r.peer = comm_world_rank(comm, source);
    }
    req_put(request, &r);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    if (!P.active)
        return PMPI_Irecv(buf, count, type, source, tag, comm, request);
    uint64_t t0 = prof_ticks();
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    uint64_t t1 = prof_ticks();
    uint64_t bytes = prof_bytes(count, type);
    prof_lock();
    prof_bookkeeping_start(t0);
    if (rc == MPI_SUCCESS)
        track_receive(*request, MK_IRECV, 0, source, comm, bytes);
    prof_leave(C_IRECV, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    if (!P.active)
        return PMPI_Recv_init(buf, count, type, source, tag, comm, request);
    uint64_t t0 = prof_ticks();
    int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, request);
    uint64_t t1 = prof_ticks();
    uint64_t bytes = prof_bytes(count, type);
    prof_lock();
    prof_bookkeeping_start(t0);
    if (rc == MPI_SUCCESS)
        track_receive(*request, MK_RECV_INIT, 1, source, comm, bytes);
    prof_leave(C_RECV_INIT, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

/* A Sendrecv holds a receive, so it ends every open sequence; its send joins none. */
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    if (!P.active)
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm, status);
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    uint64_t t0 = prof_ticks();
    int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                           recvtype, source, recvtag, comm, st);
    uint64_t t1 = prof_ticks();
    uint64_t bytes = prof_bytes(sendcount, sendtype);
    prof_lock();
    prof_bookkeeping_start(t0);
    prof_break_sequences();
    if (rc == MPI_SUCCESS) {
        prof_message(MK_SENDRECV_SEND, comm_world_rank(comm, dest), bytes);
        P.calls[C_SENDRECV].bytes += bytes;
        prof_recv_status(MK_SENDRECV_RECV, comm, st);
    }
    prof_leave(C_SENDRECV, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    if (!P.active)
        return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    uint64_t t0 = prof_ticks();
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, st);
    uint64_t t1 = prof_ticks();
    uint64_t bytes = prof_bytes(count, type);
    prof_lock();
    prof_bookkeeping_start(t0);
    prof_break_sequences();
    if (rc == MPI_SUCCESS) {
        prof_message(MK_SENDRECV_REPLACE_SEND, comm_world_rank(comm, dest), bytes);
        P.calls[C_SENDRECV_REPLACE].bytes += bytes;
        prof_recv_status(MK_SENDRECV_REPLACE_RECV, comm, st);
    }
    prof_leave(C_SENDRECV_REPLACE, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

/* A persistent request started: a send is counted now, a receive becomes pending. */
static void started(MPI_Request request)
{
    struct req *r = req_find(request);
    if (!r || !r->persistent)
        return;
    if (msg_kind_is_recv[r->kind])
        r->active = 1;
    else
        prof_send((enum msg_kind)r->kind, r->peer, r->bytes);
}

int MPI_Start(MPI_Request *request)
{
    if (!P.active)
        return PMPI_Start(request);
    uint64_t t0 = prof_ticks();
    int rc = PMPI_Start(request);
    uint64_t t1 = prof_ticks();
    prof_lock();
    prof_bookkeeping_start(t0);
    if (rc == MPI_SUCCESS)
        started(*request);
    prof_leave(C_START, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}

int MPI_Startall(int count, MPI_Request requests[])
{
    if (!P.active)
        return PMPI_Startall(count, requests);
    uint64_t t0 = prof_ticks();
    int rc = PMPI_Startall(count, requests);
    uint64_t t1 = prof_ticks();
    prof_lock();
    prof_bookkeeping_start(t0);
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < count; i++)
            started(requests[i]);
    prof_leave(C_STARTALL, t0, t1, PROF_SITE);
    prof_unlock();
    return rc;
}
