/* world_attr: an attribute with copy and delete callbacks set on MPI_COMM_WORLD, as a library that
 * counts references through attributes does; after MPI_Finalize each rank prints how often the MPI
 * ran them ("copy_fn=0 delete_fn=1" without any profiler: nothing duplicated the communicator, and
 * MPI_Finalize deleted the attribute once). */
#include <mpi.h>
#include <stdio.h>

static int copies, deletes;

static int copy_fn(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)key, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)value, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, key;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, &copies);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    printf("rank=%d copy_fn=%d delete_fn=%d\n", rank, copies, deletes);
    return 0;
}
