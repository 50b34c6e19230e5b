/* The MPI's own view of its protocol thresholds: the MPI_T control variables whose names speak
 * of eager limits, rendezvous, cells, thresholds or limits, read through the MPI tool interface
 * (docs/record-format.md, the launch record's "mpi_t_cvars"). */
#ifndef MP_MPIT_CVARS_H
#define MP_MPIT_CVARS_H

enum mp_cvar_kind { MP_CVAR_INT, MP_CVAR_DOUBLE, MP_CVAR_STRING };

struct mp_cvar {
    char name[256];
    enum mp_cvar_kind kind;
    long long i;
    double d;
    char *s; /* MP_CVAR_STRING: the value (owned) */
};

/* Reads the matching variables not bound to an MPI object (those need a communicator or a
 * window to mean anything); *out is an array the caller frees with mpit_cvars_free. Returns
 * the count, or -1 when the library offers no MPI_T (the record then omits the field). Local:
 * any one rank may call it. */
int mpit_cvars_read(struct mp_cvar **out);
void mpit_cvars_free(struct mp_cvar *cvars, int n);

#endif
