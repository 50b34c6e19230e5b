"""msgperf slurm: write a SLURM batch script that runs the standalone kernels with srun (and,
with --submit, hand it to sbatch); the script and the submission are launch/slurm_script.py's.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click
import msgspec

from msgperf.commands._options import PlanOptions, plan_options
from msgperf.errors import MsgperfError
from msgperf.launch.slurm_script import (batch_script, check_script_values, is_msgperf_script, job_shape, one_line,
                                         submit_script)
from msgperf.plan import parse_pair

DEFAULT_SCRIPT = "msgperf-slurm.sh"


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
    if one_line(str(script_path)) != str(script_path):  # it is printed in a command to copy: one line
        raise MsgperfError(f"-o '{one_line(str(script_path))}': a script name with a newline or another control "
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
    job = submit_script(script_path)
    run_file = f"{output_dir}/slurm-{job}-{'+'.join(plan.patterns)}.jsonl"
    click.echo(f"submitted job {job}; its run file: {run_file} (then: msgperf import {shlex.quote(run_file)})")
