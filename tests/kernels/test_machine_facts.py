"""What a real run records about its machine (issue 16): each host's facts as this machine's
own OS reports them, and the MPI's thresholds through MPI_T, checked against a CVAR set in the
environment (ground truth: the value MPICH was told to use)."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import pytest

from msgperf.records.runfile_read import read_run

pytestmark = pytest.mark.mpi
FAST = ["--sizes", "8,64", "--pattern", "pingpong", "--time-budget", "0.05", "--min-samples", "10",
        "--no-probe", "--no-refine", "--no-report", "-q"]
CELL = "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE"
# MPICH refuses a cell larger than its pack buffer at MPI_Init, so the buffer grows with it
SET_CELL = {CELL: "32768", "MPIR_CVAR_CH4_PACK_BUFFER_SIZE": "262144"}


def _cpuinfo_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def _governor() -> str:
    path = Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    return path.read_text().strip() if path.exists() else "unknown"  # VMs have no cpufreq


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two runs, the second with the cell size set (run in this module's own MSGPERF_HOME)."""
    from tests.conftest import run_cli

    tmp = tmp_path_factory.mktemp("facts")
    home = {"MSGPERF_HOME": str(tmp / "home")}
    paths = []
    for name, env in (("default", {}), ("cell", SET_CELL)):
        out = tmp / f"{name}.jsonl"
        result = run_cli("run", *FAST, "-o", str(out), env={**home, **env}, timeout=300)
        assert result.returncode == 0, result.stderr
        paths.append(out)
    return paths, home


def test_a_run_records_this_hosts_facts(runs):
    launch = read_run(runs[0][0]).run.launches[0]
    assert len(launch.host_facts) == 1  # one host, both ranks on it
    h = launch.host_facts[0]
    uname = platform.uname()
    assert h.host == launch.ranks[0].host and h.ranks == 2
    assert h.cpu_model == _cpuinfo_model()
    assert h.logical_cpus == os.cpu_count()
    assert h.usable_cpus == len(os.sched_getaffinity(0))  # mpiexec does not bind ranks here
    assert h.kernel == f"{uname.system} {uname.release}" and h.arch == uname.machine
    assert h.memory_bytes == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert h.governor == _governor()
    if Path("/sys/devices/system/cpu/smt/active").exists():
        active = Path("/sys/devices/system/cpu/smt/active").read_text().strip()
        assert h.smt == {"1": "on", "0": "off"}[active]


def test_mpi_t_records_a_cvar_set_in_the_environment(runs):
    default, cell = (read_run(p).run.launches[0].mpi_t_cvars for p in runs[0])
    assert cell[CELL] == 32768  # what MPICH was told, read back through MPI_T
    assert default[CELL] != 32768 and isinstance(default[CELL], int)
    assert all(any(w in n.lower() for w in ("eager", "rndv", "rendezvous", "cell", "threshold", "limit"))
               for n in default)


def test_show_runs_and_compare_name_the_machine(runs, msgperf):
    (default, cell), home = runs
    h = read_run(default).run.launches[0].host_facts[0]
    shown = msgperf("show", default, "--detail").stdout
    assert "Machine" in shown and h.cpu_model in shown and f"governor {h.governor}" in shown
    assert f"IQUEUE_CELL_SIZE={read_run(default).run.launches[0].mpi_t_cvars[CELL]}" in shown
    listed = msgperf("runs", env=home).stdout
    assert listed.count(f"{h.physical_cores or h.logical_cpus} cores") == 2
    compared = msgperf("compare", default, cell, "--no-history").stdout
    assert f"Machines differ: MPI_T {CELL} " in compared and " vs 32768" in compared


@pytest.mark.slow
@pytest.mark.openmpi
def test_open_mpi_reports_its_eager_limit_as_set(msgperf, tmp_path):
    """The same ground truth with another MPI: Open MPI's shared-memory BTL eager limit, set
    through its MCA environment variable, read back through MPI_T."""
    cc = Path("/usr/bin/mpicc.openmpi")
    if not cc.exists():
        pytest.skip("Debian's Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev)")
    out = tmp_path / "ompi.jsonl"
    done = msgperf("run", *FAST, "--no-store", "--mpicc", cc, "-o", out, env={"OMPI_MCA_btl_vader_eager_limit": "8192"})
    assert done.returncode == 0, done.stderr
    cvars = read_run(out).run.launches[0].mpi_t_cvars
    assert cvars["btl_vader_eager_limit"] == 8192  # the name in Open MPI 4 (Debian 12); 5 calls the BTL sm
