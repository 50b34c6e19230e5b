C     fortran_old: fixed-form Fortran through mpif.h: 7 allreduces of one double and a bcast.
      program fold
      include 'mpif.h'
      integer ierr, rank, i
      double precision s, t
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      s = rank
      do i = 1, 7
        call MPI_ALLREDUCE(s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                     MPI_COMM_WORLD, ierr)
      end do
      call MPI_BCAST(t, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD,
     &               ierr)
      call MPI_FINALIZE(ierr)
      end
