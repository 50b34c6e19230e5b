! fortran_halo: a ring exchange and an allreduce through the `mpi` module, 10 steps, so that a
! test can check that the profiler sees a Fortran program's calls (MPICH's Fortran bindings
! call the C MPI_ functions, which the profiler wraps). Any number of ranks.
program fortran_halo
  use mpi
  implicit none
  integer :: ierr, rank, nranks, i, req(2), stat(MPI_STATUS_SIZE, 2)
  double precision :: a(1000), b(1000), s, t
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  a = rank
  do i = 1, 10
    call MPI_Irecv(b, 1000, MPI_DOUBLE_PRECISION, mod(rank + nranks - 1, nranks), 1, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(a, 1000, MPI_DOUBLE_PRECISION, mod(rank + 1, nranks), 1, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, stat, ierr)
    s = sum(b)
    call MPI_Allreduce(s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program fortran_halo
