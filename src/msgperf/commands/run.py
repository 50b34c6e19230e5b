"""msgperf run: build the kernels if needed, launch them, follow progress, print the table."""

from __future__ import annotations

import datetime as dt
import os
import shlex
import shutil
import sqlite3
import sys
from pathlib import Path

import click
from rich.console import Console

from msgperf.analysis.rows import size_rows
from msgperf.commands.report import report_next_to
from msgperf.errors import MsgperfError
from msgperf.launch.build import build_kernel
from msgperf.launch.command import detect_flavor, launch_argv
from msgperf.launch.hosts import PLACEMENTS, check_launch, pairs_per_size, parse_hosts
from msgperf.launch.run import LaunchError, execute
from msgperf.plan import ALL_RANK_PATTERNS, RunPlan, parse_active, records_per_size, parse_fraction, parse_pair, parse_seconds, parse_sizes
from msgperf.present.analysis_text import render_analysis
from msgperf.present.progress import RunProgress
from msgperf.present.table import render_rows, terminal_console
from msgperf.records.format import RecordError
from msgperf.records.read import read_run
from msgperf.records.write import append_launch_abort, cut_partial_line
from msgperf.store.db import open_store


def default_output(patterns: tuple[str, ...]) -> Path:
    """runs/<time>-<patterns>.jsonl, claimed with an exclusive create so that two runs started
    in the same second never share a file."""
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path("runs") / f"{stamp}-{'+'.join(patterns)}"
    base.parent.mkdir(parents=True, exist_ok=True)
    for n in range(1, 10000):
        path = Path(f"{base}.jsonl") if n == 1 else Path(f"{base}-{n}.jsonl")
        try:
            path.open("x").close()
            return path
        except FileExistsError:
            continue
    raise MsgperfError(f"cannot find a free run file name next to {base}; pass -o FILE")


# When there are more ranks than cores, MPICH's busy-polling ranks take the cores from the ranks
# that have work: these make its progress loop yield the core (sched_yield) after every poll.
# Recorded in the launch record's environment, so the run says it was oversubscribed.
OVERSUBSCRIBED_ENV = {"MPIR_CVAR_POLLS_BEFORE_YIELD": "1", "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1"}


def launch_env(np: int, cores: int | None = None) -> dict[str, str] | None:
    """The environment of the launch: the parent's, plus yielding polls when oversubscribed
    (a setting the user made in the environment wins)."""
    cores = cores if cores is not None else (os.cpu_count() or 1)
    if np <= cores:
        return None
    return {**OVERSUBSCRIBED_ENV, **os.environ}


def plan_from_run_file(path: Path) -> tuple[RunPlan, list[int], int, str | None]:
    """For --resume: the original plan, the sizes still to measure, the next launch index and
    the --placement the run was made with (None for --pair).
    A partial last line (the killed writer's) is cut off so that appending stays valid."""
    result = read_run(path)
    if result.truncated:
        cut_partial_line(path)
    run = result.run
    p = run.info.plan
    plan = RunPlan(patterns=p.patterns, sizes=p.sizes, np=p.nranks, pair=p.pair, buffer=p.buffer,
                   precision=p.precision, time_budget_s=p.time_budget_s, min_samples=p.min_samples,
                   max_samples=p.max_samples, active=p.active)
    missing = run.missing()
    remaining = [s for s in p.sizes if any(ms == s for _, ms in missing)]
    next_launch = max((l.index for l in run.launches), default=-1) + 1
    return plan, remaining, next_launch, None if p.placement == "pair" else p.placement


def mark_aborted(run_file: Path, launch: int, reason: str) -> None:
    """Record why a launch was stopped, if it got far enough to write its launch record; an
    empty file claimed for a launch that never started is removed."""
    try:
        run = read_run(run_file).run
    except RecordError:
        if run_file.exists() and run_file.stat().st_size == 0:
            run_file.unlink()
        return
    if any(l.index == launch for l in run.launches):
        append_launch_abort(run_file, launch, reason)


def resolve_launcher(launcher: str | None, kernel) -> list[str]:
    """The launcher's argv: --launcher as given (a bare mpiexec/mpirun means the selected MPI's
    own, beside its mpicc), else the MPI's mpiexec, else srun inside a SLURM allocation."""
    if launcher:
        argv = shlex.split(launcher)
        if argv and argv[0] in ("mpiexec", "mpirun"):
            suffix = kernel.mpicc.name[len("mpicc"):] if kernel.mpicc.name.startswith("mpicc") else ""
            beside = kernel.mpicc.parent / f"{argv[0]}{suffix}"
            if beside.is_file():
                argv[0] = str(beside)
        return argv
    if kernel.mpiexec:
        return [str(kernel.mpiexec)]
    if os.environ.get("SLURM_JOB_ID") and shutil.which("srun"):
        return ["srun"]
    raise MsgperfError(f"no mpiexec found beside {kernel.mpicc}; pass --launcher CMD (mpiexec, mpirun or srun)")


@click.command("run")
@click.option("--pattern", "patterns", multiple=True, metavar="NAME",
              help="Pattern to measure; repeat for several (default pingpong).")
@click.option("--np", "np_", type=int, default=2, show_default=True, help="Number of MPI ranks.")
@click.option("--launcher", metavar="CMD", help="Launcher: mpiexec, mpirun, srun or a command with its own options "
              "(default: the mpiexec of the selected MPI; srun inside a SLURM job when the MPI has none).")
@click.option("--hosts", metavar="A,B,...", help="Hosts to run on, passed in the launcher's dialect "
              "(-hosts, --host, --nodelist).")
@click.option("--ranks-per-node", type=int, default=None, metavar="K",
              help="Ranks per host (-ppn, --map-by ppr:K:node, --ntasks-per-node); default round robin.")
@click.option("--placement", type=click.Choice(PLACEMENTS), default=None,
              help="Choose the measured pair from the rank->host map: two ranks on one node (intra), "
                   "on different nodes (inter), or both pairs one after the other (instead of --pair).")
@click.option("--active", metavar="N,...", help="pairs: measure only these steps of its contention sweep "
              "(concurrent pairs 1, 2, 4 ... P/2; default all).")
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
@click.option("--db", type=click.Path(dir_okay=False), help="Result database the run lands in "
              "(default: $MSGPERF_HOME/msgperf.db or ~/.local/share/msgperf/msgperf.db).")
@click.option("--no-store", is_flag=True, help="Do not add the run to the result database.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@click.option("--test-stall", hidden=True, metavar="RANK:BYTES",
              help="Test only: that rank stops responding at that size (exercises the watchdog).")
@click.option("--no-report", is_flag=True, help="Do not write the HTML report next to the run file.")
def command(patterns, np_, launcher, hosts, ranks_per_node, placement, active, pair, sizes, precision, time_budget, buffer, min_samples, max_samples,
            repeat, output, resume, mpicc, deadline, db, no_store, quiet, test_stall, no_report) -> None:
    """Measure message-passing patterns (default: a ping-pong between two ranks) over a sweep of sizes."""
    console = Console(stderr=True, quiet=quiet)
    if resume is not None:
        if not resume.is_file():
            raise MsgperfError(f"--resume {resume}: no such run file")
        plan, remaining, first_launch, placement = plan_from_run_file(resume)
        run_file, append = resume, True
        if not remaining:
            console.print(f"{resume} already holds every planned measurement; nothing to resume")
    else:
        plan = RunPlan(patterns=tuple(dict.fromkeys(patterns)) or ("pingpong",), sizes=parse_sizes(sizes), np=np_, pair=parse_pair(pair), buffer=buffer,
                       precision=parse_fraction(precision), time_budget_s=parse_seconds(time_budget),
                       min_samples=min_samples, max_samples=max_samples,
                       active=parse_active(active) if active else ())
        remaining, first_launch = list(plan.sizes), 0
        run_file, append = output, False
    plan.check_memory()
    host_list = parse_hosts(hosts)
    if placement and resume is None and plan.pair != (0, 1):
        raise MsgperfError(f"--pair {pair} and --placement {placement} both choose the measured pair; give one of them")
    check_launch(plan.np, host_list, ranks_per_node, placement)

    kernel = build_kernel(mpicc)
    launcher_argv = resolve_launcher(launcher, kernel)
    flavor = detect_flavor(launcher_argv[0])
    if run_file is None:
        run_file = default_output(plan.patterns)
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
        if placement:
            args += ["--placement", placement]
        if i == 0:
            args[args.index("--sizes") + 1] = ",".join(map(str, remaining))
        dialect = launch_argv(launcher_argv[0], plan.np, [], flavor=flavor, hosts=host_list,
                              ranks_per_node=ranks_per_node, is_root=os.geteuid() == 0, cores=os.cpu_count())
        argv = [*launcher_argv[:1], *dialect[1:], *launcher_argv[1:], *args]
        argv += ["--launcher-line", shlex.join(argv)]
        label = f"launch {i + 1}/{launches}" if launches > 1 else "measuring"
        sizes_now = remaining if i == 0 else list(plan.sizes)
        # The kernels write one record per variant: several per size for some patterns.
        pair = f"ranks {plan.pair[0]} and {plan.pair[1]}"
        if placement:
            pair = "the --placement pair"
        expected = [(p, s, f"all {plan.np} ranks" if p in ALL_RANK_PATTERNS else pair)
                    for n in range(pairs_per_size(placement)) for p in plan.patterns
                    if n == 0 or p not in ALL_RANK_PATTERNS
                    for s in sizes_now for _ in range(records_per_size(p, plan.np, plan.active))]
        try:
            with RunProgress(len(expected), console, label) as progress:
                execute(argv, run_file, expected=expected, stall_timeout_s=stall,
                        on_record=progress.record, env=launch_env(plan.np))
        except LaunchError as exc:
            mark_aborted(run_file, first_launch + i, str(exc))
            raise
        remaining = list(plan.sizes)

    run = read_run(run_file).run
    out = terminal_console()
    render_rows(out, run, size_rows(run))
    render_analysis(out, run, per_size=False)
    click.echo(f"run file: {run_file}")
    if not no_store:
        click.echo(store_run(run, db))
    if not no_report:
        click.echo(report_next_to(run, run_file))


def store_run(run, db: str | None) -> str:
    """Land the run in the result database; a database problem never loses the measurement,
    which is safe in the run file already."""
    try:
        with open_store(db) as store:
            run_id, added = store.add_run(run)
    except (MsgperfError, OSError, sqlite3.Error) as exc:
        return f"note: not stored in the result database ({exc}); add it later with: msgperf import {run.path}"
    return f"stored as run {run_id} (msgperf show {run_id})" + ("" if added else ", already there")
