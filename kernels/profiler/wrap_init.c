/* Start and end: MPI_Init/MPI_Init_thread start recording, MPI_Finalize writes the profile,
 * MPI_Abort, an exit without MPI_Finalize and a fatal signal (signals.c) write this rank's
 * part alone. Also the calls after which a handle may be reused: MPI_Comm_free,
 * MPI_Request_free, MPI_Type_free. */
#include "prof.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(OMPI_MAJOR_VERSION)
#define BUILT_FOR "Open MPI"
#elif defined(MPICH_VERSION)
#define BUILT_FOR "MPICH"
#else
#define BUILT_FOR ""
#endif

/* Preloaded into a program of another MPI (Open MPI's handles are pointers, MPICH's ints),
 * the wrappers would pass one library's handles to the other: refuse, leave a note. */
static int same_mpi(void)
{
    static char library[16384];  /* larger than any library's MPI_MAX_LIBRARY_VERSION_STRING */
    int len = 0;
    PMPI_Get_library_version(library, &len);
    int open_mpi = strstr(library, "Open MPI") != NULL;
    if (!*BUILT_FOR || open_mpi == (strcmp(BUILT_FOR, "Open MPI") == 0))
        return 1;
    library[strcspn(library, ",\n")] = '\0';  /* "Open MPI v4.1.4", "MPICH Version: 5.0.2" */
    char path[4200];
    const char *out = getenv("MSGPERF_PROFILE_OUTPUT");
    snprintf(path, sizeof path, "%s.error", out && *out ? out : "msgperf-profile.jsonl");
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {  /* the first rank here says it once */
        char msg[1024];
        int n = snprintf(msg, sizeof msg, "the profiler was built for %s but the program runs %.200s; "
                         "build it with the program's MPI (msgperf profile --mpicc PATH)\n",
                         BUILT_FOR, library);
        if (write(fd, msg, (size_t)(n < (int)sizeof msg ? n : (int)sizeof msg - 1)) < 0 || !out)
            fprintf(stderr, "msgperf profile: %s", msg);
        close(fd);
    }
    return 0;
}

static void at_exit(void)
{
    if (P.active) {
        P.active = 0;
        prof_flush_recv();
        output_partial("exit without MPI_Finalize");
    }
}

static void start(int thread_level)
{
    if (P.active || P.done || !same_mpi())
        return;
    const char *out = getenv("MSGPERF_PROFILE_OUTPUT");
    snprintf(P.output, sizeof P.output, "%s", out && *out ? out : "msgperf-profile.jsonl");
    P.thread_level = thread_level;
    P.mt = thread_level == MPI_THREAD_MULTIPLE;
    if (prof_init()) {
        fprintf(stderr, "msgperf profile: out of memory at MPI_Init; this run is not profiled\n");
        return;
    }
    output_start();
    P.active = 1;
    atexit(at_exit);
    signals_start();
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        start(MPI_THREAD_SINGLE);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        start(*provided);
    return rc;
}

int MPI_Finalize(void)
{
    if (P.active) {
        prof_lock();
        prof_flush_recv();
        prof_break_sequences();
        P.active = 0;
        prof_unlock();
        output_finalize();
    }
    return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    if (P.active) {
        P.active = 0;
        prof_flush_recv();
        prof_break_sequences();
        output_partial("MPI_Abort");
    }
    return PMPI_Abort(comm, errorcode);
}

/* The calls that free a handle: timed like any other call, after the profiler forgot it. */
#define FREEING(CALL, PCALL, FORGET)                                                           \
    do {                                                                                       \
        if (!P.active)                                                                         \
            return PCALL;                                                                      \
        prof_lock();                                                                           \
        FORGET;                                                                                \
        prof_unlock();                                                                         \
        uint64_t t0 = prof_ticks();                                                            \
        int rc = PCALL;                                                                        \
        uint64_t t1 = prof_ticks();                                                            \
        prof_lock();                                                                           \
        prof_leave_other(&P.calls[CALL], CALL, t0, t1, PROF_SITE, 0);                             \
        prof_unlock();                                                                         \
        return rc;                                                                             \
    } while (0)

int MPI_Comm_free(MPI_Comm *comm)
{
    FREEING(C_COMM_FREE, PMPI_Comm_free(comm), comm_forget(*comm));
}

int MPI_Request_free(MPI_Request *request)
{
    FREEING(C_REQUEST_FREE, PMPI_Request_free(request), req_drop(*request));
}

int MPI_Type_free(MPI_Datatype *type)
{
    atomic_fetch_add_explicit(&prof_type_generation, 1, memory_order_relaxed);  /* even when idle */
    FREEING(C_TYPE_FREE, PMPI_Type_free(type), (void)0);
}
