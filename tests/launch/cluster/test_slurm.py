"""msgperf with a real SLURM (Debian's slurm-wlm and munge) on the emulated cluster: slurmctld on
h0, a slurmd on h0 and h1 (tools/slurm-test-setup). `msgperf slurm --submit` goes through sbatch
and srun; `msgperf run --launcher srun` through srun. Every daemon is stopped afterwards."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import warnings

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


# Slurm's pmi2 plugin now and then misparses a request of MPICH's PMI2 client during MPI_Init
# ("value not properly terminated in client request"; a known Slurm parser fault, worked around
# elsewhere by using Slurm's own libpmi2). It fails before msgperf's kernel runs (CI, stop 33, once
# in ~40 runs), so the job is submitted again once when, and only when, its output says so.
SLURM_PMI2_PARSER_FAULT = ("mpi/pmi2: value not properly terminated", "mpi/pmi2: invalid client request")


def submit_and_wait(slurm, tmp_path, work, script="job.sh"):
    result = slurm.msgperf("slurm", "--placement", "both", "--sizes", "0,1K", "--time-budget", "0.2",
                           "--min-samples", 10, "--time", "00:05:00", "-o", work / script, "--submit",
                           env={**slurm.slurm_env}, cwd=work)
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
    if not run_file.exists() and any(fault in log for fault in SLURM_PMI2_PARSER_FAULT):
        warnings.warn(f"job {job} failed in Slurm's PMI2 parser during MPI_Init; submitted again:\n{log}")
        job, log = submit_and_wait(slurm, tmp_path, work, "job-again.sh")
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
