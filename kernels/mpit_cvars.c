#define _GNU_SOURCE
#include "mpit_cvars.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* Names that speak of a protocol switch or a buffer bound (MPICH's ..._EAGER_THRESHOLD,
 * ..._IQUEUE_CELL_SIZE, ..._P2P_THRESHOLD; Open MPI's btl_*_eager_limit, ...rndv...). */
static const char *const wanted[] = {"eager", "rndv", "rendezvous", "cell", "threshold", "limit"};

static int is_wanted(const char *name)
{
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (strcasestr(name, wanted[i]))
            return 1;
    return 0;
}

/* One variable's value into c; 0 when read, -1 when its type or count is not a plain scalar or
 * string. */
static int read_value(int index, MPI_Datatype type, struct mp_cvar *c)
{
    MPI_T_cvar_handle handle;
    int count;
    if (MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS)
        return -1;
    int rc = -1;
    if (type == MPI_CHAR && count > 0) {
        c->s = calloc((size_t)count + 1, 1);
        if (c->s && MPI_T_cvar_read(handle, c->s) == MPI_SUCCESS) {
            c->kind = MP_CVAR_STRING;
            rc = 0;
        }
    } else if (count == 1) {
        union { int i; unsigned u; unsigned long ul; unsigned long long ull; MPI_Count n; double d; } v;
        memset(&v, 0, sizeof v);
        if (MPI_T_cvar_read(handle, &v) == MPI_SUCCESS) {
            rc = 0;
            c->kind = MP_CVAR_INT;
            if (type == MPI_INT)
                c->i = v.i;
            else if (type == MPI_UNSIGNED)
                c->i = v.u;
            else if (type == MPI_UNSIGNED_LONG)
                c->i = (long long)v.ul;
            else if (type == MPI_UNSIGNED_LONG_LONG)
                c->i = (long long)v.ull;
            else if (type == MPI_COUNT)
                c->i = (long long)v.n;
            else if (type == MPI_DOUBLE) {
                c->kind = MP_CVAR_DOUBLE;
                c->d = v.d;
            } else
                rc = -1;
        }
    }
    MPI_T_cvar_handle_free(&handle);
    if (rc) {
        free(c->s);
        c->s = NULL;
    }
    return rc;
}

int mpit_cvars_read(struct mp_cvar **out)
{
    *out = NULL;
    int provided, num;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return -1;
    if (MPI_T_cvar_get_num(&num) != MPI_SUCCESS) {
        MPI_T_finalize();
        return -1;
    }
    struct mp_cvar *cvars = calloc(num > 0 ? (size_t)num : 1, sizeof *cvars);
    int n = 0;
    for (int i = 0; cvars && i < num; i++) {
        struct mp_cvar *c = &cvars[n];
        char desc[8];
        int name_len = sizeof c->name, desc_len = sizeof desc, verbosity, bind, scope;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        if (MPI_T_cvar_get_info(i, c->name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &bind,
                                &scope) != MPI_SUCCESS)
            continue;
        if (bind == MPI_T_BIND_NO_OBJECT && is_wanted(c->name) && read_value(i, type, c) == 0)
            n++;
    }
    MPI_T_finalize();
    if (!cvars)
        return -1;
    *out = cvars;
    return n;
}

void mpit_cvars_free(struct mp_cvar *cvars, int n)
{
    for (int i = 0; cvars && i < n; i++)
        free(cvars[i].s);
    free(cvars);
}
