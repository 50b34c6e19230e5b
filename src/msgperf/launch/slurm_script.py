"""A SLURM batch script that runs the standalone kernels with srun (``msgperf slurm``), and its
submission to sbatch.

The script needs no Python on the compute nodes: it runs the kernel binary built for the chosen
MPI (``msgperf build --mpicc``; the path must be visible on the nodes, as a home directory on a
cluster is) under ``srun``, and writes its run file to runs/slurm-<jobid>-<patterns>.jsonl in
the directory the job was submitted from; ``msgperf import`` then adds it to the store.
Placement follows the ping-pong exercise (Marcotte, Durham): inter-node is ``--nodes=2
--ntasks-per-node=1``, intra-node is one node with two tasks.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

from msgperf.errors import MsgperfError
from msgperf.launch.dialects import launch_argv
from msgperf.plan import Plan
from msgperf.data_text import printable

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


def one_line(text: str) -> str:
    """A value for a comment or an informational argument: control characters (a newline
    would start a shell line) shown as \\xNN, nothing cut."""
    return printable(text, None)


def check_script_values(*, partition: str | None, time_limit: str, srun_mpi: str | None, output_dir: str,
                        kernels: str, job_name: str = "msgperf") -> None:
    """Every value written into the batch script as it is: validated, so that none can end its
    line and start a shell command (the others are shell-quoted or shown as text)."""
    if partition is not None and not _PARTITION.match(partition):
        raise MsgperfError(f"--partition '{one_line(partition)}': a partition name is letters, digits, '_', '.', '-' "
                           "(several separated by commas)")
    if not _TIME.match(time_limit):
        raise MsgperfError(f"--time '{one_line(time_limit)}': write a SLURM time limit such as 30, 00:30:00, "
                           "1-12:00:00 or UNLIMITED")
    if srun_mpi is not None and not _PLUGIN.match(srun_mpi):
        raise MsgperfError(f"--mpi '{one_line(srun_mpi)}': an srun MPI plugin name is letters, digits, '_', '.', '-' "
                           "(e.g. pmi2, pmix)")
    if not _PLUGIN.match(job_name):
        raise MsgperfError(f"job name '{one_line(job_name)}': use letters, digits, '_', '.', '-'")
    for option, value in (("--output-dir", output_dir), ("--kernels", kernels)):
        if not value or one_line(value) != value:
            raise MsgperfError(f"{option} '{one_line(value)}': a path without control characters (newlines, tabs) "
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
    command_line = one_line(command_line)
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
        f"{one_line(output_dir)}/ beside the submission,",
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


def submit_script(script_path: Path) -> str:
    """Hand the script to sbatch; its job id."""
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
    return match.group(1)
