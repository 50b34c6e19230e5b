/* What every rank of the job shares once MPI is up: stopping the whole job with one line
 * (problem and fix), and waiting for a message without holding a core. */
#ifndef MP_JOB_H
#define MP_JOB_H

#include <mpi.h>

/* One line (on world rank 0; another rank that fails alone says it after a second, naming itself),
 * then every rank stops with `code`. */
void job_fail(const char *message, int code);
/* The same, called by every rank at once (a check they all made alike): world rank 0 says why,
 * every rank finalizes and exits with `code` (a clean end: MPI removes its shared memory). */
void job_fail_together(const char *message, int code);
/* The run file could not be written (a full disk, say): what reached it is kept. */
void job_fail_write(const char *path);
/* Complete a request while sleeping between polls, so a waiting rank leaves its core to the
 * ranks being measured (oversubscribed nodes). */
void job_wait_sleeping(MPI_Request *request);

#endif
