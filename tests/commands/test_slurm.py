"""msgperf slurm: no value given to it can start a shell line in the batch script."""

from __future__ import annotations

import os
import subprocess

import pytest

from msgperf.launch.slurm_script import batch_script
from msgperf.errors import MsgperfError
from msgperf.plan import Plan
from tests.conftest import run_cli

PLAN = Plan(patterns=("pingpong",), sizes=(0, 8), nranks=2, pair=(0, 1), buffer="separate", precision=0.01,
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


@pytest.fixture
def catalog_without_mpi(monkeypatch, tmp_path):
    """`slurm --kernels K` asks K for its catalog: the committed one, so no MPI is needed."""
    from tests.catalog_data import committed_catalog

    monkeypatch.setattr("msgperf.launch.catalog.pattern_catalog", lambda kernels, np: committed_catalog(np))
    kernels = tmp_path / "msgperf-kernels"
    kernels.write_text("")
    return kernels


def test_the_printed_sbatch_command_quotes_the_script_name(tmp_path, capsys, monkeypatch, catalog_without_mpi):
    """`slurm -o 'job$(touch PWNED).sh'` printed `sbatch job$(touch PWNED).sh`: copied, it ran
    the payload. Every name in a printed command is shell-quoted; the copied command submits
    the script by its name and runs nothing else."""
    from tests.cli_in_process import cli

    monkeypatch.chdir(tmp_path)
    name = "job$(touch PWNED); touch PWNED2 .sh"
    code, out, err = cli(capsys, "slurm", "--kernels", catalog_without_mpi, "-o", name)
    assert code == 0, err
    (line,) = [l for l in out.splitlines() if l.startswith("submit it with: ")]
    copied = line.removeprefix("submit it with: ")
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "sbatch").write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$SBATCH_ARGS"\n')
    (stub / "sbatch").chmod(0o755)
    env = {**os.environ, "PATH": f"{stub}:{os.environ['PATH']}", "SBATCH_ARGS": str(tmp_path / "sbatch-args")}
    subprocess.run(["bash", "-c", copied], check=True, env=env, cwd=tmp_path)
    assert (tmp_path / "sbatch-args").read_text() == name + "\n"
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "PWNED2").exists()
    # the script's own last line names the run file for a command to copy: quoted too (%q)
    script = (tmp_path / name).read_text()
    assert "printf 'add it with: msgperf import %q\\n' \"$OUT\"" in script


def test_a_script_name_with_a_newline_is_refused_with_one_line(tmp_path, capsys, monkeypatch, catalog_without_mpi):
    from tests.cli_in_process import cli

    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "slurm", "--kernels", catalog_without_mpi, "-o", "job.sh\ntouch PWNED")
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert "-o 'job.sh\\x0atouch PWNED': a script name with a newline" in err
    assert sorted(os.listdir(tmp_path)) == ["msgperf-kernels"]


def test_the_script_prints_the_run_file_quoted(tmp_path):
    """The batch script's own `msgperf import` hint: an --output-dir with $(...) stays a name."""
    text = batch_script(kernels="/k/msgperf-kernels", plan=PLAN, nodes=2, per_node=1, placement="inter",
                        command_line="msgperf slurm", output_dir="d $(touch PWNED)")
    script = tmp_path / "job.sh"
    script.write_text(text)
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "srun").write_text("#!/bin/sh\nexit 0\n")
    (stub / "srun").chmod(0o755)
    env = {**os.environ, "PATH": f"{stub}:{os.environ['PATH']}", "SLURM_SUBMIT_DIR": str(tmp_path),
           "SLURM_JOB_ID": "7"}
    result = subprocess.run(["bash", str(script)], capture_output=True, text=True, env=env, cwd=tmp_path, check=True)
    (hint,) = [l for l in result.stdout.splitlines() if l.startswith("add it with: ")]
    subprocess.run(["bash", "-c", hint.removeprefix("add it with: ").replace("msgperf import", "ls", 1)],
                   cwd=tmp_path, capture_output=True)
    assert not (tmp_path / "PWNED").exists()
    assert hint == "add it with: msgperf import d\\ \\$\\(touch\\ PWNED\\)/slurm-7-pingpong.jsonl"


def test_run_and_slurm_take_the_same_plan_options():
    """One declaration: every plan option of msgperf run is msgperf slurm's too, with the same default."""
    from msgperf.commands._options import PLAN_FLAGS
    from msgperf.commands.run import command as run
    from msgperf.commands.slurm import command as slurm

    def options(command):
        return {p.name: (p.opts, p.default, p.help) for p in command.params if p.name in PLAN_FLAGS}

    assert options(run) == options(slurm) and set(options(run)) == set(PLAN_FLAGS)


def _script_args(tmp_path, capsys, kernels, *options):
    from tests.cli_in_process import cli

    code, out, err = cli(capsys, "slurm", "--kernels", kernels, "-o", tmp_path / "job.sh", *options)
    assert code == 0, err
    (line,) = [l for l in (tmp_path / "job.sh").read_text().splitlines() if l.startswith("ARGS=(")]
    return line


def test_slurm_passes_the_plan_options_run_has(tmp_path, capsys, catalog_without_mpi):
    """--total-time, --iterations-per-sample and --buffer were missing in slurm; --sizes is checked
    and ordered as run does it."""
    line = _script_args(tmp_path, capsys, catalog_without_mpi, "--total-time", "5s", "--iterations-per-sample", "1",
                        "--buffer", "inplace", "--sizes", "8,0,8")
    assert "--total-time 5.0" in line and "--iterations-per-sample 1" in line and "--buffer inplace" in line
    assert "--sizes 0,8" in line and "--placement inter" in line


def test_slurm_chooses_the_automatic_budget_as_run_does(tmp_path, capsys, catalog_without_mpi):
    """No budget given: one budget for the launch, 10 s for the default 28 sizes (was 1 s per size)."""
    line = _script_args(tmp_path, capsys, catalog_without_mpi)
    assert "--total-time 10.0" in line and "--time-budget 1.0" in line


@pytest.mark.parametrize("options, message", [
    (("--total-time", "2d"), "cannot read duration '2d'"),
    (("--total-time", "100000"), "time budget 100000 is out of range; use more than 0 and at most a day"),
    (("--total-time", "5s", "--time-budget", "1s"), "--total-time and --time-budget: give one"),
    (("--min-samples", "3"), "--min-samples 3 / --max-samples 1000000: need 6 <= min"),
    (("--pair", "0:2", "--placement", "intra"), "--pair 0:2 and --placement intra both choose the measured pair"),
])
def test_a_bad_plan_option_is_the_same_one_line_error_in_run_and_slurm(tmp_path, capsys, catalog_without_mpi,
                                                                        options, message):
    from tests.cli_in_process import cli

    for command in (("run", "--no-store", "-o", tmp_path / "run.jsonl"),
                    ("slurm", "--kernels", catalog_without_mpi, "-o", tmp_path / "job.sh")):
        code, out, err = cli(capsys, *command, *options)
        assert code == 1 and message in err and err.count("\n") == 1, (command, err)
    assert sorted(os.listdir(tmp_path)) == ["msgperf-kernels"]


def test_a_collective_brings_the_point_to_point_patterns_its_predictions_are_made_from(tmp_path, capsys,
                                                                                    catalog_without_mpi):
    """run and slurm alike (one plan option): the model's patterns first, said in a note; what the
    algorithms need only (a bcast and a barrier have no copy or reduction at 2 ranks; a bcast's calls back to
    back from one root stream its binomial sends); none added with
    --no-model-patterns or without a collective."""
    from tests.cli_in_process import cli

    def patterns(*options):
        code, _, err = cli(capsys, "slurm", "--kernels", catalog_without_mpi, "-o", tmp_path / "job.sh",
                           "--force", *options)
        assert code == 0, err
        (line,) = [l for l in (tmp_path / "job.sh").read_text().splitlines() if l.startswith("ARGS=(")]
        words = line.removeprefix("ARGS=(").split()
        return [words[i + 1] for i, w in enumerate(words) if w == "--pattern"], err

    got, err = patterns("--pattern", "allreduce", "--pattern", "alltoall")
    assert got == ["pingpong", "sendrecv", "memcpy", "reduce-local", "sendrecv-reduce", "sendrecv-indexed",
                   "self-message", "exchange-init", "allreduce", "alltoall"]
    assert ("note: measuring pingpong, sendrecv, memcpy, reduce-local, sendrecv-reduce, sendrecv-indexed, "
            "self-message, exchange-init too") in err
    assert "--no-model-patterns" in err
    got, err = patterns("--pattern", "bcast", "--pattern", "pingpong")
    assert got == ["sendrecv", "send-stream", "bcast", "pingpong"] and "measuring sendrecv, send-stream too" in err
    # a barrier before each call, or a rotating root: a binomial bcast's sends no longer stream
    for option in (("--iteration-barrier",), ("--root", "rotate")):
        got, err = patterns("--pattern", "bcast", "--pattern", "pingpong", *option)
        assert got == ["sendrecv", "bcast", "pingpong"] and "measuring sendrecv too" in err, option
    got, err = patterns("--pattern", "allreduce", "--no-model-patterns")
    assert got == ["allreduce"] and "note: measuring" not in err
    got, err = patterns("--pattern", "pingpong", "--pattern", "osu-allreduce")
    assert got == ["pingpong", "osu-allreduce"] and "note: measuring" not in err
