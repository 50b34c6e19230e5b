/* Wrappers of the collectives, blocking and non-blocking: their time (a non-blocking one's
 * completion is timed by the wait or test that completes it), their bytes and the size of
 * their communicator (sites.c keeps them per (call, size, bytes)).
 *
 * Bytes are the call's data at this rank: its send buffer (count × type size; the sum of
 * its counts for the v and w variants; Alltoall: a block per rank of the communicator), or
 * its receive buffer where the rank only receives or sends in place (Bcast, Scatter(v),
 * MPI_IN_PLACE). docs/profile.md. */
#include "prof.h"

static uint64_t sum_bytes(const int counts[], int n, MPI_Datatype type)
{
    uint64_t total = 0;
    for (int i = 0; counts && i < n; i++)
        total += prof_bytes(counts[i], type);
    return total;
}

static uint64_t sum_bytes_w(const int counts[], const MPI_Datatype types[], int n)
{
    uint64_t total = 0;
    for (int i = 0; counts && types && i < n; i++)
        total += prof_bytes(counts[i], types[i]);
    return total;
}

/* The body of every wrapper: PCALL is the PMPI call, BYTES what it moved at this rank (computed
 * before the call: a large call's page faults may be counted, faults.c), TYPE a reduction's
 * datatype (MPI_DATATYPE_NULL for the others): γ depends on it. */
#define COLL_TYPED(TYPE, CALL, PCALL, COMM, BYTES)                                              \
    do {                                                                                       \
        if (!P.active)                                                                         \
            return PCALL;                                                                      \
        uint64_t bytes_ = (BYTES);                                                             \
        struct prof_usage u0 = prof_faults_begin(bytes_);                                      \
        uint64_t t0 = prof_ticks();                                                            \
        int rc = PCALL;                                                                        \
        uint64_t t1 = prof_ticks();                                                            \
        struct prof_usage u1 = u0.faults >= 0 ? prof_usage_now() : u0;                         \
        int counted = u0.faults >= 0 && u1.faults >= u0.faults && rc == MPI_SUCCESS;           \
        prof_lock();                                                                           \
        prof_coll(CALL, COMM, rc == MPI_SUCCESS ? bytes_ : 0, t1 - t0,                         \
                  counted ? u1.faults - u0.faults : -1, counted ? u1.preempted - u0.preempted : 0, TYPE); \
        prof_leave_other(&P.calls[CALL], CALL, t0, t1, PROF_SITE, 1);                             \
        prof_unlock();                                                                         \
        return rc;                                                                             \
    } while (0)
#define COLL(CALL, PCALL, COMM, BYTES) COLL_TYPED(MPI_DATATYPE_NULL, CALL, PCALL, COMM, BYTES)
#define REDUCTION(CALL, PCALL, COMM, BYTES) COLL_TYPED(type, CALL, PCALL, COMM, BYTES)

#define IN_PLACE(buf) ((buf) == MPI_IN_PLACE)

int MPI_Barrier(MPI_Comm comm)
{
    COLL(C_BARRIER, PMPI_Barrier(comm), comm, 0);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    COLL(C_IBARRIER, PMPI_Ibarrier(comm, request), comm, 0);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    COLL(C_BCAST, PMPI_Bcast(buf, count, type, root, comm), comm, prof_bytes(count, type));
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request)
{
    COLL(C_IBCAST, PMPI_Ibcast(buf, count, type, root, comm, request), comm, prof_bytes(count, type));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    REDUCTION(C_REDUCE, PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm), comm,
         prof_bytes(count, type));
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request)
{
    REDUCTION(C_IREDUCE, PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request), comm,
         prof_bytes(count, type));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    REDUCTION(C_ALLREDUCE, PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm), comm,
         prof_bytes(count, type));
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    REDUCTION(C_IALLREDUCE, PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request), comm,
         prof_bytes(count, type));
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    REDUCTION(C_SCAN, PMPI_Scan(sendbuf, recvbuf, count, type, op, comm), comm, prof_bytes(count, type));
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              MPI_Request *request)
{
    REDUCTION(C_ISCAN, PMPI_Iscan(sendbuf, recvbuf, count, type, op, comm, request), comm,
         prof_bytes(count, type));
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    REDUCTION(C_EXSCAN, PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm), comm, prof_bytes(count, type));
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, MPI_Request *request)
{
    REDUCTION(C_IEXSCAN, PMPI_Iexscan(sendbuf, recvbuf, count, type, op, comm, request), comm,
         prof_bytes(count, type));
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm)
{
    REDUCTION(C_REDUCE_SCATTER, PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm), comm,
         sum_bytes(recvcounts, comm_size_of(comm), type));
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    REDUCTION(C_IREDUCE_SCATTER, PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request),
         comm, sum_bytes(recvcounts, comm_size_of(comm), type));
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    REDUCTION(C_REDUCE_SCATTER_BLOCK, PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm),
         comm, prof_bytes(recvcount, type) * (uint64_t)comm_size_of(comm));
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    REDUCTION(C_IREDUCE_SCATTER_BLOCK,
         PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request), comm,
         prof_bytes(recvcount, type) * (uint64_t)comm_size_of(comm));
}

/* Gather: this rank's block (the root in place: its receive block). */
#define GATHER_BYTES (IN_PLACE(sendbuf) ? prof_bytes(recvcount, recvtype) : prof_bytes(sendcount, sendtype))

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    COLL(C_GATHER, PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
         comm, GATHER_BYTES);
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    COLL(C_IGATHER,
         PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request),
         comm, GATHER_BYTES);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    COLL(C_ALLGATHER, PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
         comm, GATHER_BYTES);
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    COLL(C_IALLGATHER,
         PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request),
         comm, GATHER_BYTES);
}

static int comm_rank_of(MPI_Comm comm)
{
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

/* Gatherv/Allgatherv: this rank's block (in place: its own entry of recvcounts). */
#define GATHERV_BYTES \
    (IN_PLACE(sendbuf) ? prof_bytes(recvcounts[comm_rank_of(comm)], recvtype) : prof_bytes(sendcount, sendtype))

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    COLL(C_GATHERV,
         PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm),
         comm, GATHERV_BYTES);
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    COLL(C_IGATHERV,
         PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                       request),
         comm, GATHERV_BYTES);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    COLL(C_ALLGATHERV,
         PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),
         comm, GATHERV_BYTES);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    COLL(C_IALLGATHERV,
         PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                          request),
         comm, GATHERV_BYTES);
}

/* Scatter: the block this rank receives (the root in place: its send block). */
#define SCATTER_BYTES (IN_PLACE(recvbuf) ? prof_bytes(sendcount, sendtype) : prof_bytes(recvcount, recvtype))

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    COLL(C_SCATTER, PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
         comm, SCATTER_BYTES);
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    COLL(C_ISCATTER,
         PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request),
         comm, SCATTER_BYTES);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    COLL(C_SCATTERV,
         PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm),
         comm, IN_PLACE(recvbuf) ? prof_bytes(sendcounts[comm_rank_of(comm)], sendtype)
                                  : prof_bytes(recvcount, recvtype));
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    COLL(C_ISCATTERV,
         PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                        request),
         comm, IN_PLACE(recvbuf) ? prof_bytes(sendcounts[comm_rank_of(comm)], sendtype)
                                  : prof_bytes(recvcount, recvtype));
}

/* Alltoall: every block this rank sends (in place: receives). */
#define ALLTOALL_BYTES                                                                         \
    ((IN_PLACE(sendbuf) ? prof_bytes(recvcount, recvtype) : prof_bytes(sendcount, sendtype))   \
     * (uint64_t)comm_size_of(comm))

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    COLL(C_ALLTOALL, PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
         comm, ALLTOALL_BYTES);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    COLL(C_IALLTOALL,
         PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request),
         comm, ALLTOALL_BYTES);
}

#define ALLTOALLV_BYTES                                                                        \
    (IN_PLACE(sendbuf) ? sum_bytes(recvcounts, comm_size_of(comm), recvtype)                   \
                       : sum_bytes(sendcounts, comm_size_of(comm), sendtype))

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm)
{
    COLL(C_ALLTOALLV,
         PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                        comm),
         comm, ALLTOALLV_BYTES);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    COLL(C_IALLTOALLV,
         PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                         comm, request),
         comm, ALLTOALLV_BYTES);
}

#define ALLTOALLW_BYTES                                                                        \
    (IN_PLACE(sendbuf) ? sum_bytes_w(recvcounts, recvtypes, comm_size_of(comm))                \
                       : sum_bytes_w(sendcounts, sendtypes, comm_size_of(comm)))

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    COLL(C_ALLTOALLW,
         PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                        comm),
         comm, ALLTOALLW_BYTES);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    COLL(C_IALLTOALLW,
         PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, request),
         comm, ALLTOALLW_BYTES);
}
