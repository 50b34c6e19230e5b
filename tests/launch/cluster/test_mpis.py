"""Both MPIs end to end on this machine (no emulated cluster): Debian's Open MPI and MPICH,
chosen with --mpicc; the launcher's dialect is detected from its --version."""

from __future__ import annotations

import json
import os

import pytest

from msgperf.records.runfile_read import read_run

from .conftest import MPICH_CC, OPENMPI_CC, require_openmpi

FAST = ["--sizes", "0,1K", "--time-budget", "0.2", "--min-samples", "10", "--no-store", "-q"]


@pytest.mark.slow
@pytest.mark.openmpi
def test_open_mpi_from_debian_runs_and_records_its_launcher_line(msgperf, tmp_path):
    require_openmpi()
    out = tmp_path / "ompi.jsonl"
    result = msgperf("run", "--mpicc", OPENMPI_CC, "--np", 3, "--placement", "intra", *FAST, "-o", out)
    assert result.returncode == 0, result.stderr + result.stdout
    run = read_run(out).run
    launch = run.launches[0]
    assert "Open MPI" in launch.mpi_library and launch.nranks == 3
    assert all(m.validated and m.placement == "intra" and m.ranks == (0, 1) for m in run.measurements)
    line = launch.launcher_command_line
    assert line.split()[0].endswith("mpiexec.openmpi") and "-np 3" in line and "--bind-to none" in line, line
    if os.geteuid() == 0:
        assert "--allow-run-as-root" in line
    assert "--oversubscribe" in line or (os.cpu_count() or 1) >= 3


@pytest.mark.slow
@pytest.mark.openmpi
def test_open_mpi_build_picks_the_mpi(msgperf):
    require_openmpi()
    result = msgperf("build", "--mpicc", OPENMPI_CC)
    assert result.returncode == 0, result.stderr
    assert "Open MPI" in result.stdout + result.stderr


@pytest.mark.slow
def test_debian_mpich_runs(msgperf, tmp_path):
    if not MPICH_CC.exists():
        pytest.skip("Debian's MPICH is not installed (apt-get install mpich libmpich-dev; tools/install-test-deps)")
    out = tmp_path / "mpich.jsonl"
    result = msgperf("run", "--mpicc", MPICH_CC, *FAST, "-o", out)
    assert result.returncode == 0, result.stderr + result.stdout
    run = read_run(out).run
    assert "MPICH" in run.launches[0].mpi_library
    assert "mpiexec.mpich -n 2" in run.launches[0].launcher_command_line
    assert all(m.validated and m.placement == "intra" for m in run.measurements)
    rows = json.loads(msgperf("show", out, "--json").stdout)["rows"]
    assert all(r["placement"] == "intra" for r in rows)
