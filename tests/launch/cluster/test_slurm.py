"""msgperf with a real SLURM (Debian's slurm-wlm and munge) on the emulated cluster: slurmctld on
h0, a slurmd on h0 and h1 (tools/slurm-test-setup). `msgperf slurm --submit` goes through sbatch
and srun; `msgperf run --launcher srun` through srun. Every daemon is stopped afterwards."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from msgperf.records.runfile_read import read_run

from .conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.cluster, pytest.mark.slurm]
SETUP = ROOT / "tools" / "slurm-test-setup"


@pytest.fixture
def slurm(make_cluster, tmp_path):
    for tool in ("slurmctld", "slurmd", "sbatch", "munged", "nsenter"):
        if not shutil.which(tool):
            pytest.skip(f"{tool} not found; install slurm-wlm and munge (tools/install-test-deps does it as root)")
    cluster = make_cluster(2)
    state = tmp_path / "slurm"
    try:
        up = subprocess.run([str(SETUP), "up", str(state)], capture_output=True, text=True, env=cluster.env, timeout=120)
        assert up.returncode == 0, f"slurm-test-setup up failed: {up.stderr}{up.stdout}"
        cluster.slurm_env = {"SLURM_CONF": str(state / "slurm.conf")}
        yield cluster
    finally:
        subprocess.run([str(SETUP), "down", str(state)], capture_output=True, text=True, env=cluster.env, timeout=60)


# The batch job's kernels are built with Debian's MPICH (configured --with-slurm), not the pip
# wheel's: the wheel's MPICH speaks PMI-1 to Slurm's pmi2 plugin and puts its UCX address in lines
# of up to ~1,080 bytes ("cmd=put ... value=<1,024 characters>"), while Slurm (22.05,
# handle_pmi1_cmd) reads a PMI-1 request with one read() of 1,024 bytes; a long line is cut in two
# and MPI_Init fails ("mpi/pmi2: value not properly terminated in client request", then "request
# not begin with 'cmd='"). Whether a line is long depends on how well the address's hex compresses,
# so it failed in both CI runs after stop 32 (the job resubmitted too) and never here (lines up
# to ~985 bytes). docs/cluster.md tells users the same. The srun-launcher test below keeps the wheel.
# Debian's MPICH (UCX 1.13) hung in MPI_Finalize in 2 of 6 launches here with the emulated cluster's
# UCX_TLS=tcp,self (ranks of one node then talk over TCP loopback), in none of 12 with shared memory
# allowed between the ranks of a node, so the job gets tcp,sm,self.
MPICH_CC = Path("/usr/bin/mpicc.mpich")
MPICH_ENV = {"UCX_TLS": "tcp,sm,self"}


def submit_and_wait(slurm, tmp_path, work):
    if not MPICH_CC.exists():
        pytest.skip("Debian's MPICH is not installed (apt-get install mpich libmpich-dev; tools/install-test-deps)")
    result = slurm.msgperf("slurm", "--mpicc", MPICH_CC, "--placement", "both", "--sizes", "0,1K", "--time-budget", "0.2",
                           "--min-samples", 10, "--time", "00:05:00", "-o", work / "job.sh", "--submit",
                           env={**slurm.slurm_env, **MPICH_ENV}, cwd=work)
    assert result.returncode == 0, result.stderr + result.stdout
    job = result.stdout.split("submitted job ")[1].split(";")[0]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        queue = subprocess.run([str(SETUP), "run", str(tmp_path / "slurm"), "squeue", "-h", "-j", job],
                               capture_output=True, text=True, env=slurm.env)
        if job not in queue.stdout:
            break
        time.sleep(1)
    out = work / f"msgperf-slurm-{job}.out"  # the script's #SBATCH --output=msgperf-slurm-%j.out
    return job, out.read_text() if out.exists() else "(no job output)"


def test_batch_script_through_sbatch_and_srun_measures_both_placements(slurm, tmp_path):
    work = tmp_path / "submit"
    work.mkdir()
    job, log = submit_and_wait(slurm, tmp_path, work)
    run_file = work / "runs" / f"slurm-{job}-pingpong.jsonl"
    assert "#SBATCH --nodes=2" in (work / "job.sh").read_text()
    shm = shutil.disk_usage("/dev/shm")
    assert run_file.exists(), (f"job {job} wrote no run file; /dev/shm: {shm.free >> 20} MiB free of "
                               f"{shm.total >> 20} MiB; job output:\n{log}")
    run = read_run(run_file).run
    launch = run.launches[0]
    assert [r.host for r in launch.ranks] == ["h0", "h0", "h1", "h1"]
    assert launch.launcher_command_line.startswith("srun --ntasks=4 --nodes=2 --ntasks-per-node=2")
    assert {(m.ranks, m.placement) for m in run.measurements} == {((0, 1), "intra"), ((0, 2), "inter")}
    imported = slurm.msgperf("import", run_file)
    assert imported.returncode == 0 and "added" in imported.stdout, imported.stderr
    rows = json.loads(slurm.msgperf("show", run_file, "--json").stdout)["rows"]
    assert {r["placement"] for r in rows} == {"intra", "inter"}


def test_msgperf_run_with_srun_launcher(slurm, tmp_path):
    out = tmp_path / "srun.jsonl"
    result = slurm.msgperf("run", "--launcher", "srun", "--np", 2, "--hosts", "h0,h1", "--ranks-per-node", 1,
                           "--placement", "inter", "--sizes", "0,1K", "--time-budget", "0.2", "--min-samples", 10,
                           "--no-store", "-q", "-o", out, env=slurm.slurm_env, timeout=180)
    assert result.returncode == 0, result.stderr + result.stdout
    run = read_run(out).run
    assert [r.host for r in run.launches[0].ranks] == ["h0", "h1"]
    assert run.launches[0].launcher_command_line.startswith(
        "srun --ntasks=2 --nodes=2 --ntasks-per-node=1 --nodelist=h0,h1")
    assert all(m.placement == "inter" for m in run.measurements)
