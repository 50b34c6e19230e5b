"""msgperf run: build the kernels if needed, launch them, follow progress, print the table."""

from __future__ import annotations

import datetime as dt
import shlex
import sys
from pathlib import Path

import click
from rich.console import Console

from msgperf.analysis.rows import size_rows
from msgperf.errors import MsgperfError
from msgperf.launch.build import build_kernel
from msgperf.launch.command import launch_argv
from msgperf.launch.run import execute
from msgperf.plan import RunPlan, parse_fraction, parse_pair, parse_seconds, parse_sizes
from msgperf.present.progress import RunProgress
from msgperf.present.table import render_rows, terminal_console
from msgperf.records.read import read_run


def default_output(patterns: tuple[str, ...]) -> Path:
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path("runs") / f"{stamp}-{'+'.join(patterns)}"
    path, n = base.with_suffix(".jsonl"), 1
    while path.exists():
        n += 1
        path = Path(f"{base}-{n}.jsonl")
    return path


def plan_from_run_file(path: Path) -> tuple[RunPlan, list[int], int]:
    """For --resume: the original plan, the sizes still to measure, the next launch index.
    A partial last line (the killed writer's) is cut off so that appending stays valid."""
    result = read_run(path)
    if result.truncated:
        data = path.read_bytes()
        path.write_bytes(data[: data.rfind(b"\n") + 1])
    run = result.run
    p = run.info.plan
    plan = RunPlan(patterns=p.patterns, sizes=p.sizes, np=p.nranks, pair=p.pair, buffer=p.buffer,
                   precision=p.precision, time_budget_s=p.time_budget_s, min_samples=p.min_samples,
                   max_samples=p.max_samples)
    missing = run.missing()
    remaining = [s for s in p.sizes if any(ms == s for _, ms in missing)]
    next_launch = max((l.index for l in run.launches), default=-1) + 1
    return plan, remaining, next_launch


@click.command("run")
@click.option("--pattern", "patterns", multiple=True, metavar="NAME",
              help="Pattern to measure; repeat for several (default pingpong).")
@click.option("--np", "np_", type=int, default=2, show_default=True, help="Number of MPI ranks.")
@click.option("--launcher", metavar="CMD", help="Launcher command (default: the mpiexec of the selected MPI).")
@click.option("--pair", default="0:1", show_default=True, help="Measured ranks A:B (A sends first); other ranks idle.")
@click.option("--sizes", default="0:64M", show_default=True,
              help="Sizes: a list 0,1,4K, a power-of-two range 1:64M, or 1:64M:4 (K, M, G = 1024-based).")
@click.option("--precision", default="1%", show_default=True,
              help="Stop sampling a size when the 95% CI of its median is within ± this.")
@click.option("--time-budget", default="1s", show_default=True, help="Time budget per size (e.g. 1s, 500ms).")
@click.option("--buffer", type=click.Choice(["separate", "inplace"]), default="separate", show_default=True,
              help="Separate send and receive buffers, or one buffer in place (data really crosses cores).")
@click.option("--min-samples", type=int, default=20, show_default=True)
@click.option("--max-samples", type=int, default=1_000_000, show_default=True)
@click.option("--repeat", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="Separate MPI launches into one run file (run-to-run variation).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Run file to write (default runs/<time>-<pattern>.jsonl).")
@click.option("--resume", type=click.Path(dir_okay=False, path_type=Path),
              help="Continue an interrupted run file: measure only what it lacks.")
@click.option("--mpicc", metavar="PATH", help="MPI to build the kernels with (default: the pip mpich's).")
@click.option("--deadline", type=float, default=None,
              help="Seconds without a finished measurement before the job is declared hung "
                   "(default 60 + 10 × time budget).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@click.option("--test-stall", hidden=True, metavar="RANK:BYTES",
              help="Test only: that rank stops responding at that size (exercises the watchdog).")
def command(patterns, np_, launcher, pair, sizes, precision, time_budget, buffer, min_samples, max_samples,
            repeat, output, resume, mpicc, deadline, quiet, test_stall) -> None:
    """Measure message-passing patterns (default: a ping-pong between two ranks) over a sweep of sizes."""
    console = Console(stderr=True, quiet=quiet)
    if resume is not None:
        if not resume.is_file():
            raise MsgperfError(f"--resume {resume}: no such run file")
        plan, remaining, first_launch = plan_from_run_file(resume)
        run_file, append = resume, True
        if not remaining:
            console.print(f"{resume} already holds every planned measurement; nothing to resume")
    else:
        plan = RunPlan(patterns=tuple(dict.fromkeys(patterns)) or ("pingpong",), sizes=parse_sizes(sizes), np=np_, pair=parse_pair(pair), buffer=buffer,
                       precision=parse_fraction(precision), time_budget_s=parse_seconds(time_budget),
                       min_samples=min_samples, max_samples=max_samples)
        remaining, first_launch = list(plan.sizes), 0
        run_file, append = output or default_output(plan.patterns), False
    plan.check_memory()

    kernel = build_kernel(mpicc)
    launcher_argv = shlex.split(launcher) if launcher else ([str(kernel.mpiexec)] if kernel.mpiexec else [])
    if not launcher_argv:
        raise MsgperfError(f"no mpiexec found beside {kernel.mpicc}; pass --launcher CMD")
    run_file.parent.mkdir(parents=True, exist_ok=True)
    command_line = "msgperf " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    stall = deadline if deadline is not None else 60 + 10 * plan.time_budget_s

    launches = repeat if not append else 1
    for i in range(launches if remaining else 0):
        args = [str(kernel.path), *plan.kernel_args(), "--output", str(run_file), "--quiet",
                "--launch", str(first_launch + i), "--command-line", command_line]
        if append or i > 0:
            args.append("--append")
        if test_stall:
            args += ["--test-stall", test_stall]
        if i == 0:
            args[args.index("--sizes") + 1] = ",".join(map(str, remaining))
        argv = [*launcher_argv[:1], *launch_argv(launcher_argv[0], plan.np, [])[1:], *launcher_argv[1:], *args]
        label = f"launch {i + 1}/{launches}" if launches > 1 else "measuring"
        total = len(plan.patterns) * len(remaining if i == 0 else plan.sizes)
        try:
            with RunProgress(total, console, label) as progress:
                execute(argv, run_file, stall_timeout_s=stall, on_record=progress.record)
        except KeyboardInterrupt:
            console.print(f"interrupted; finished measurements are in {run_file}; "
                          f"continue with: msgperf run --resume {run_file}")
            raise click.exceptions.Exit(130)
        remaining = list(plan.sizes)

    run = read_run(run_file).run
    render_rows(terminal_console(), run, size_rows(run))
    click.echo(f"run file: {run_file}")
