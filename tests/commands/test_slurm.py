"""msgperf slurm: no value given to it can start a shell line in the batch script."""

from __future__ import annotations

import os
import subprocess

import pytest

from msgperf.commands.slurm import batch_script
from msgperf.errors import MsgperfError
from msgperf.plan import RunPlan
from tests.conftest import run_cli

PLAN = RunPlan(patterns=("pingpong",), sizes=(0, 8), np=2, pair=(0, 1), buffer="separate", precision=0.01,
               time_budget_s=1.0, min_samples=20, max_samples=1000)
INJECTED = "x\ntouch INJECTED1; $(touch INJECTED2) `touch INJECTED3`"


@pytest.mark.parametrize("option, value, message", [
    ("--partition", "debug\ntouch INJECTED", "--partition 'debug\\x0atouch INJECTED': a partition name is"),
    ("--partition", "debug;touch INJECTED", "--partition 'debug;touch INJECTED': a partition name is"),
    ("--partition", "$(touch INJECTED)", "a partition name is"),
    ("--time", "00:30:00\ntouch INJECTED", "--time '00:30:00\\x0atouch INJECTED': write a SLURM time limit"),
    ("--time", "1:00 && touch INJECTED", "write a SLURM time limit"),
    ("--mpi", "pmi2\nrm -rf ~", "an srun MPI plugin name is"),
    ("--output-dir", "runs\ntouch INJECTED", "--output-dir 'runs\\x0atouch INJECTED': a path without control"),
])
def test_hostile_values_are_refused_with_one_line_before_anything_is_built(tmp_path, option, value, message):
    result = run_cli("slurm", "--kernels", tmp_path / "no-kernels", option, value, cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("error: ") and message in result.stderr and result.stderr.count("\n") == 1
    assert os.listdir(tmp_path) == []  # no script, nothing injected


@pytest.mark.parametrize("partition, time_limit", [("debug", "30"), ("gpu,cpu", "1-12:00:00"), ("a.b_c-d", "00:30:00"),
                                                   (None, "UNLIMITED"), (None, "2-12")])
def test_ordinary_values_are_written(partition, time_limit):
    text = batch_script(kernels="/k/msgperf-kernels", plan=PLAN, nodes=2, per_node=1, placement="inter",
                        command_line="msgperf slurm", partition=partition, time_limit=time_limit)
    assert f"#SBATCH --time={time_limit}\n" in text
    assert (f"#SBATCH --partition={partition}\n" in text) == (partition is not None)


def test_echoed_arguments_stay_text_and_the_script_runs_only_srun(tmp_path):
    """The command line is echoed in a comment and given to the kernels: a newline, ';', $(...) or
    backquotes in it stay text. The script is checked with bash -n, then run with srun stubbed."""
    kernels = tmp_path / "kernels dir" / "msgperf-kernels"
    text = batch_script(kernels=str(kernels), plan=PLAN, nodes=2, per_node=1, placement="inter",
                        command_line=f"msgperf slurm --label '{INJECTED}'", output_dir="-odd dir $(touch INJECTED4)")
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert not any("touch" in line and not ("ARGS=(" in line or "OUT=" in line or "mkdir" in line) for line in body)
    assert "# Written by: msgperf slurm --label 'x\\x0atouch INJECTED1; $(touch INJECTED2)" in text
    script = tmp_path / "job.sh"
    script.write_text(text)
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "srun").write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$SRUN_ARGS"\n')
    (stub / "srun").chmod(0o755)
    env = {**os.environ, "PATH": f"{stub}:{os.environ['PATH']}", "SRUN_ARGS": str(tmp_path / "srun-args"),
           "SLURM_SUBMIT_DIR": str(tmp_path), "SLURM_JOB_ID": "7"}
    result = subprocess.run(["bash", str(script)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    created = sorted(os.listdir(tmp_path))
    assert not any("INJECTED" in name and "$(" not in name for name in created), created
    assert "-odd dir $(touch INJECTED4)" in created  # the directory, named literally
    args = (tmp_path / "srun-args").read_text().splitlines()
    assert args[0].startswith("--ntasks=2") and str(kernels) in args
    assert args[args.index("--output") + 1] == "-odd dir $(touch INJECTED4)/slurm-7-pingpong.jsonl"


def test_a_value_that_would_start_a_line_is_refused_by_the_builder_too():
    with pytest.raises(MsgperfError, match="--partition"):
        batch_script(kernels="/k", plan=PLAN, nodes=2, per_node=1, placement="inter", command_line="m",
                     partition="p\nrm -rf ~")
    with pytest.raises(MsgperfError, match="--kernels"):
        batch_script(kernels="/k\n/x", plan=PLAN, nodes=2, per_node=1, placement="inter", command_line="m")
