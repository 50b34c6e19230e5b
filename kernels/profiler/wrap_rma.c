/* Wrappers of the one-sided transfers: their time and the bytes of their origin buffer
 * (count × type size). The synchronisation calls (MPI_Win_fence, lock/unlock, post/start/
 * complete/wait, flush) are timed by the generated wrappers (other_calls.py), kind
 * "one-sided", like every MPI_Win_ call; a request-based transfer's completion is timed by
 * the wait or test that completes it. */
#include "prof.h"

#define RMA(CALL, PCALL, BYTES)                                                                \
    do {                                                                                       \
        if (!P.active)                                                                         \
            return PCALL;                                                                      \
        uint64_t t0 = prof_ticks();                                                            \
        int rc = PCALL;                                                                        \
        uint64_t t1 = prof_ticks();                                                            \
        prof_lock();                                                                           \
        if (rc == MPI_SUCCESS)                                                                 \
            P.calls[CALL].bytes += (BYTES);                                                    \
        prof_leave_other(&P.calls[CALL], CALL, t0, t1, PROF_SITE, 1);                             \
        prof_unlock();                                                                         \
        return rc;                                                                             \
    } while (0)

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    RMA(C_PUT, PMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, win),
        prof_bytes(origin_count, origin_datatype));
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    RMA(C_GET, PMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, win),
        prof_bytes(origin_count, origin_datatype));
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    RMA(C_ACCUMULATE, PMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank,
                                      target_disp, target_count, target_datatype, op, win),
        prof_bytes(origin_count, origin_datatype));
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    RMA(C_GET_ACCUMULATE,
        PMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                            result_datatype, target_rank, target_disp, target_count, target_datatype,
                            op, win),
        prof_bytes(origin_count, origin_datatype));
}

int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request)
{
    RMA(C_RPUT, PMPI_Rput(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                          target_count, target_datatype, win, request),
        prof_bytes(origin_count, origin_datatype));
}

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request)
{
    RMA(C_RGET, PMPI_Rget(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                          target_count, target_datatype, win, request),
        prof_bytes(origin_count, origin_datatype));
}

int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    RMA(C_RACCUMULATE, PMPI_Raccumulate(origin_addr, origin_count, origin_datatype, target_rank,
                                        target_disp, target_count, target_datatype, op, win, request),
        prof_bytes(origin_count, origin_datatype));
}

int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    RMA(C_RGET_ACCUMULATE,
        PMPI_Rget_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                             result_datatype, target_rank, target_disp, target_count,
                             target_datatype, op, win, request),
        prof_bytes(origin_count, origin_datatype));
}
