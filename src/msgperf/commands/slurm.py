"""msgperf slurm: write a SLURM batch script that runs the standalone kernels with srun (and,
with --submit, hand it to sbatch).

The script needs no Python on the compute nodes: it runs the kernel binary built for the chosen
MPI (``msgperf build --mpicc``; the path must be visible on the nodes, as a home directory on a
cluster is) under ``srun``, and writes its run file to runs/slurm-<jobid>-<patterns>.jsonl in
the directory the job was submitted from; ``msgperf import`` then adds it to the store.
Placement follows the ping-pong exercise (Marcotte, Durham): inter-node is ``--nodes=2 --ntasks-per-node=1``, intra-node is one
node with two tasks.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import msgspec

from msgperf.commands._options import PlanOptions, plan_options
from msgperf.errors import MsgperfError
from msgperf.launch.dialects import launch_argv
from msgperf.plan import Plan, parse_pair
from msgperf.present.text import printable

DEFAULT_SCRIPT = "msgperf-slurm.sh"
WRITTEN_BY = "# Written by: "  # the comment that names the command line, and so the script as msgperf's

# (nodes, tasks per node) when the user names neither
_DEFAULT_SHAPE = {"inter": (2, 1), "intra": (1, 2), "both": (2, 2), None: (2, 1)}


def job_shape(placement: str | None, nodes: int | None, per_node: int | None) -> tuple[int, int]:
    """Nodes and tasks per node for a placement; an impossible combination is a clear error."""
    d_nodes, d_per = _DEFAULT_SHAPE[placement]
    nodes = nodes if nodes is not None else d_nodes
    per_node = per_node if per_node is not None else d_per
    if nodes < 1 or per_node < 1:
        raise MsgperfError("--nodes and --ntasks-per-node must be 1 or more")
    if placement in ("inter", "both") and nodes < 2:
        raise MsgperfError(f"--placement {placement}: all {nodes * per_node} ranks are on one node; "
                           "run on two nodes, e.g. --nodes 2")
    if placement in ("intra", "both") and per_node < 2:
        raise MsgperfError(f"--placement {placement}: no two ranks share a node with --ntasks-per-node 1; "
                           "use --ntasks-per-node 2")
    if nodes * per_node < 2:
        raise MsgperfError(f"--nodes {nodes} --ntasks-per-node {per_node} gives 1 task; a pair needs 2")
    return nodes, per_node


# What sbatch accepts, and nothing that could end the "#SBATCH" line or start a shell line.
_PARTITION = re.compile(r"[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*\Z")
_TIME = re.compile(r"(\d{1,5}-)?\d{1,6}(:\d{1,2}){0,2}\Z|(?i:unlimited|infinite)\Z")
_PLUGIN = re.compile(r"[A-Za-z0-9_.-]+\Z")


def _one_line(text: str) -> str:
    """A value for a comment or an informational argument: control characters (a newline
    would start a shell line) shown as \\xNN, nothing cut."""
    return printable(text, None)


def check_script_values(*, partition: str | None, time_limit: str, srun_mpi: str | None, output_dir: str,
                        kernels: str, job_name: str = "msgperf") -> None:
    """Every value written into the batch script as it is: validated, so that none can end its
    line and start a shell command (the others are shell-quoted or shown as text)."""
    if partition is not None and not _PARTITION.match(partition):
        raise MsgperfError(f"--partition '{_one_line(partition)}': a partition name is letters, digits, '_', '.', '-' "
                           "(several separated by commas)")
    if not _TIME.match(time_limit):
        raise MsgperfError(f"--time '{_one_line(time_limit)}': write a SLURM time limit such as 30, 00:30:00, "
                           "1-12:00:00 or UNLIMITED")
    if srun_mpi is not None and not _PLUGIN.match(srun_mpi):
        raise MsgperfError(f"--mpi '{_one_line(srun_mpi)}': an srun MPI plugin name is letters, digits, '_', '.', '-' "
                           "(e.g. pmi2, pmix)")
    if not _PLUGIN.match(job_name):
        raise MsgperfError(f"job name '{_one_line(job_name)}': use letters, digits, '_', '.', '-'")
    for option, value in (("--output-dir", output_dir), ("--kernels", kernels)):
        if not value or _one_line(value) != value:
            raise MsgperfError(f"{option} '{_one_line(value)}': a path without control characters (newlines, tabs) "
                               "is needed in a batch script")


def batch_script(*, kernels: str, plan: Plan, nodes: int, per_node: int, placement: str | None,
                 command_line: str, job_name: str = "msgperf", time_limit: str = "00:30:00",
                 partition: str | None = None, srun: str = "srun", srun_mpi: str | None = None,
                 output_dir: str = "runs") -> str:
    """The batch script's text (pure). Values that go in as they are must pass
    ``check_script_values``; the rest are shell-quoted or (comments) shown as text, so no value
    can start a shell line."""
    check_script_values(partition=partition, time_limit=time_limit, srun_mpi=srun_mpi, output_dir=output_dir,
                        kernels=kernels, job_name=job_name)
    command_line = _one_line(command_line)
    ntasks = nodes * per_node
    pattern_tag = "+".join(plan.patterns)
    srun_argv = launch_argv(srun, ntasks, [], flavor="srun", ranks_per_node=per_node)
    if srun_mpi:
        srun_argv.append(f"--mpi={srun_mpi}")
    kernel_args = [*plan.kernel_args(), "--quiet", "--command-line", command_line]
    if placement:
        kernel_args += ["--placement", placement]
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name={job_name}",
        f"#SBATCH --nodes={nodes}",
        f"#SBATCH --ntasks-per-node={per_node}",
        f"#SBATCH --time={time_limit}",
        "#SBATCH --output=msgperf-slurm-%j.out",
    ]
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    lines += [
        f"{WRITTEN_BY}{command_line}",
        f"# Placement: {placement or 'the --pair'}; {nodes} node(s) x {per_node} task(s).",
        "# Runs the standalone msgperf kernels under srun; the run file lands in "
        f"{_one_line(output_dir)}/ beside the submission,",
        "# add it to the result store with: msgperf import <run file>",
        "set -euo pipefail",
        f"KERNELS={shlex.quote(kernels)}",
        'cd "${SLURM_SUBMIT_DIR:-$PWD}"',
        f"mkdir -p -- {shlex.quote(output_dir)}",
        f'OUT={shlex.quote(output_dir)}/"slurm-${{SLURM_JOB_ID:-local}}-{pattern_tag}.jsonl"',
        f"SRUN=({' '.join(shlex.quote(a) for a in srun_argv)})",
        f"ARGS=({' '.join(shlex.quote(a) for a in kernel_args)})",
        '"${SRUN[@]}" "$KERNELS" "${ARGS[@]}" --output "$OUT" --launcher-line "${SRUN[*]} $KERNELS ${ARGS[*]} --output $OUT"',
        'printf \'run file: %s\\n\' "$OUT"',
        # %q: the name shell-quoted, so a copied command runs msgperf, not what the name holds
        'printf \'add it with: msgperf import %q\\n\' "$OUT"',
        "",
    ]
    assert not any("\n" in line or "\r" in line for line in lines), "a value started a new line in the batch script"
    return "\n".join(lines)


def is_msgperf_script(path: Path) -> bool:
    """Whether ``path`` is a batch script msgperf wrote (its comment says so near the top)."""
    try:
        with path.open("rb") as f:
            head = f.read(1 << 16).decode("utf-8", "replace").splitlines()[:12]
    except OSError:
        return False
    return bool(head) and head[0] == "#!/bin/bash" and any(line.startswith(WRITTEN_BY + "msgperf ") for line in head)


@click.command("slurm")
@plan_options
@click.option("--nodes", type=int, default=None, help="Nodes (default: 2 for inter/both, 1 for intra).")
@click.option("--ntasks-per-node", "per_node", type=int, default=None,
              help="Tasks per node (default: 1 for inter, 2 for intra/both).")
@click.option("--mpicc", metavar="PATH", help="MPI to build the kernels with (default: the pip mpich's).")
@click.option("--kernels", "kernels_path", metavar="PATH",
              help="A kernel binary built already (make -C kernels MPICC=...), instead of building one.")
@click.option("--mpi", "srun_mpi", metavar="PLUGIN", help="srun --mpi=PLUGIN (e.g. pmi2, pmix); default: the site's.")
@click.option("--partition", metavar="NAME", help="#SBATCH --partition.")
@click.option("--time", "time_limit", default="00:30:00", show_default=True, help="#SBATCH --time.")
@click.option("--output-dir", default="runs", show_default=True,
              help="Where the run file lands, relative to the submission directory.")
@click.option("-o", "--output", "script_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help=f"Batch script to write  [default: {DEFAULT_SCRIPT}]")
@click.option("--force", is_flag=True, help="Replace the -o file if it exists (never a run file, profile or "
              f"database). Without it, only msgperf's own script named {DEFAULT_SCRIPT} is replaced.")
@click.option("--submit", is_flag=True, help="Submit it with sbatch and print the job id.")
def command(plan_options: PlanOptions, nodes, per_node, mpicc, kernels_path, srun_mpi, partition, time_limit,
            output_dir, script_path, force, submit) -> None:
    """Write a SLURM batch script that measures with srun (the ping-pong exercise (Marcotte, Durham): --nodes=2 --ntasks-per-node=1)."""
    from msgperf.writing import output

    chosen = script_path is None
    script_path = Path(DEFAULT_SCRIPT) if chosen else script_path
    if _one_line(str(script_path)) != str(script_path):  # it is printed in a command to copy: one line
        raise MsgperfError(f"-o '{_one_line(str(script_path))}': a script name with a newline or another control "
                           "character cannot be given to sbatch safely; choose another name")
    to = output(script_path, force, what="the batch script", ours=is_msgperf_script if chosen else None,
                chosen=chosen)
    if plan_options.placement is None and parse_pair(plan_options.pair) == (0, 1):  # the exercise's inter-node pair
        plan_options = msgspec.structs.replace(plan_options, placement="inter")
    placement = plan_options.placement
    nodes, per_node = job_shape(placement, nodes, per_node)
    # before the (slow) build: refused values never reach a script
    check_script_values(partition=partition, time_limit=time_limit, srun_mpi=srun_mpi, output_dir=output_dir,
                        kernels=kernels_path or "kernels")
    plan = plan_options.plan(nodes * per_node, lambda text: click.echo(text, err=True))
    if kernels_path:
        kernels = Path(kernels_path)
        if not kernels.is_file():
            raise MsgperfError(f"--kernels {kernels_path}: no such file; build it with make -C kernels MPICC=PATH")
    else:
        from msgperf.launch.build import build_kernel
        kernels = build_kernel(mpicc).path
    from msgperf.launch.catalog import pattern_catalog
    catalog = pattern_catalog(kernels, plan.nranks)
    plan.validate(catalog)
    if plan.total_time_s is None:  # the automatic one budget, as msgperf run chooses it for its sweep
        from msgperf.launch.session import expected_records

        plan = plan.with_total_time(len(expected_records(plan, plan.sizes, placement, catalog)))
    command_line = "msgperf " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    text = batch_script(kernels=str(kernels.absolute()), plan=plan, nodes=nodes, per_node=per_node,
                        placement=placement, command_line=command_line, time_limit=time_limit,
                        partition=partition, srun_mpi=srun_mpi, output_dir=output_dir)
    with to.text(mode=0o777) as out:  # executable, as the umask allows
        out.write(text)
    # every name in a command to copy is shell-quoted: a name with $(...) or ';' stays a name
    click.echo(f"batch script: {script_path} ({nodes} node(s) x {per_node} task(s), "
               f"placement {placement or 'the --pair'})")
    if not submit:
        named = str(script_path) if not str(script_path).startswith("-") else f"./{script_path}"  # not an option
        click.echo(f"submit it with: sbatch {shlex.quote(named)}")
        return
    sbatch = shutil.which("sbatch")
    if not sbatch:
        raise MsgperfError("sbatch not found on PATH; run on a SLURM login node, or submit the script there")
    try:
        result = subprocess.run([sbatch, "--parsable", str(script_path)], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise MsgperfError("sbatch did not answer within 120 s; is slurmctld reachable?") from None
    if result.returncode != 0:
        why = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise MsgperfError(f"sbatch failed: {why}")
    match = re.match(r"\s*(\d+)", result.stdout)
    if not match:
        raise MsgperfError(f"sbatch printed no job id: {result.stdout.strip()!r}")
    job = match.group(1)
    run_file = f"{output_dir}/slurm-{job}-{'+'.join(plan.patterns)}.jsonl"
    click.echo(f"submitted job {job}; its run file: {run_file} (then: msgperf import {shlex.quote(run_file)})")
