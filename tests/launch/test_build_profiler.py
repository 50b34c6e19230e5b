"""The profiler library is built like the kernels: cached per MPI identity and source."""

from __future__ import annotations

import subprocess
import sys

from msgperf.launch.build import PROFILER_NAME, build_kernel, build_profiler


def test_the_profiler_is_cached_beside_the_kernels(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_CACHE", str(tmp_path / "cache"))
    first = build_profiler()
    assert first.path.name == PROFILER_NAME and first.path.is_file()
    assert first.mpi_version.startswith("MPICH") and first.mpiexec is not None
    mtime = first.path.stat().st_mtime_ns
    again = build_profiler()
    assert again.path == first.path and again.path.stat().st_mtime_ns == mtime  # not rebuilt
    assert build_kernel().path.parent != first.path.parent  # its own sources, its own key
    exported = subprocess.run(["nm", "-D", "--defined-only", str(first.path)], capture_output=True, text=True).stdout
    names = {line.split()[-1] for line in exported.splitlines() if line.strip()}
    # the MPI calls it wraps and nothing of its own that could clash with an application's names
    assert {"MPI_Send", "MPI_Waitall", "MPI_Startall", "MPI_Init_thread", "MPI_Finalize"} <= names
    assert all(n.startswith("MPI_") or n.startswith("_") for n in names), sorted(names)
    # every other MPI call too: collectives and one-sided by hand, the rest generated from mpi.h
    assert {"MPI_Allreduce", "MPI_Ialltoall", "MPI_Put", "MPI_Win_fence", "MPI_Probe", "MPI_Comm_split",
            "MPI_File_open"} <= names
    assert not {"MPI_Wtime", "MPI_Wtick", "MPI_Pcontrol", "MPI_Comm_c2f"} & names  # left out on purpose


def test_the_profiler_builds_without_the_tsc_as_on_other_architectures(tmp_path):
    """Off x86 the profiler has no TSC to read: -DMSGPERF_PROFILE_NO_TSC compiles that path
    here, warnings as errors, and it exports the same calls."""
    from msgperf.launch.build import find_mpicc, kernels_dir
    root = kernels_dir() / "profiler"
    sources = sorted(str(p) for p in root.glob("*.c"))
    generated = tmp_path / "other_calls.c"
    subprocess.run([sys.executable, str(root / "other_calls.py"), str(find_mpicc()), str(generated), *sources],
                   check=True)
    library = tmp_path / PROFILER_NAME
    result = subprocess.run([str(find_mpicc()), "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra",
                             "-Werror", "-DMSGPERF_PROFILE_NO_TSC", f"-I{root}", "-fPIC", "-shared", "-o", str(library),
                             *sources, str(generated)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    exported = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True).stdout
    assert "MPI_Type_free" in exported and "MPI_Isend" in exported


def test_the_generated_wrappers_follow_the_headers_declarations_and_kinds():
    """other_calls.py on a declaration list: names, parameters forwarded, kinds by name."""
    import importlib.util

    from msgperf.launch.build import kernels_dir
    spec = importlib.util.spec_from_file_location("other_calls", kernels_dir() / "profiler" / "other_calls.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    header = ("typedef int MPI_Comm; int MPI_Win_fence(int assert, MPI_Win win) __attribute__((x(1))); "
              "int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, "
              "MPI_Comm *comm_cart); double MPI_Wtime(void); int MPI_Pcontrol(const int level, ...); "
              "MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);"
              '__attribute__((visibility("default"))) int MPI_Barrier(MPI_Comm comm) '
              '__attribute__((__deprecated__("not (really)")));')  # Open MPI's attributes come first
    decls = {d[1]: d for d in gen.declarations(header)}
    # MPI_Pcontrol's variable arguments cannot be forwarded
    assert set(decls) == {"MPI_Win_fence", "MPI_Cart_create", "MPI_Wtime", "MPI_Aint_add", "MPI_Barrier"}
    assert decls["MPI_Barrier"][0] == "int" and decls["MPI_Barrier"][3] == ["comm"]
    assert decls["MPI_Cart_create"][3] == ["comm_old", "ndims", "dims", "periods", "reorder", "comm_cart"]
    assert decls["MPI_Aint_add"][0] == "MPI_Aint"
    kinds = {name: gen.KINDS[gen.kind_of(name)] for name in (
        "MPI_Win_fence", "MPI_Ineighbor_alltoall", "MPI_Allreduce_init", "MPI_Bcast_c", "MPI_Improbe", "MPI_Mrecv",
        "MPI_Type_create_struct", "MPI_File_read_all", "MPI_Request_get_status")}
    assert kinds == {"MPI_Win_fence": "one-sided", "MPI_Ineighbor_alltoall": "collective",
                     "MPI_Allreduce_init": "collective", "MPI_Bcast_c": "collective", "MPI_Improbe": "probe",
                     "MPI_Mrecv": "point-to-point", "MPI_Type_create_struct": "communicator/datatype",
                     "MPI_File_read_all": "other MPI", "MPI_Request_get_status": "wait/test"}
    assert gen.delivers_data("MPI_File_read_all") and gen.delivers_data("MPI_Win_fence")
    assert not gen.delivers_data("MPI_Buffer_attach") and not gen.delivers_data("MPI_Iprobe")
