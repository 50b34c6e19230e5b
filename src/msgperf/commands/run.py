"""msgperf run: options -> a validated request -> ``measure`` (launch/session.py) -> render."""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from click.core import ParameterSource
from rich.console import Console

from msgperf.analysis.answer_sizes import ANSWER_LAUNCHES
from msgperf.commands._options import PLAN_FLAGS, PlanOptions, db_option, plan_options
from msgperf.commands.report import report_next_to
from msgperf.errors import MsgperfError
from msgperf.launch import budget as budgets
from msgperf.launch.hosts import parse_hosts
from msgperf.launch.request import MAX_ANSWER_LAUNCHES
from msgperf.launch.session import LaunchStart, MeasureRequest, StoreOutcome, measure, parse_deadline
from msgperf.present.progress import CommandProgress
from msgperf.present.terminal import console as terminal_console

# What to measure comes from the run file with --resume: these options would be ignored.
FROM_THE_RUN_FILE = {"patterns": "--pattern", "np_": "--np", **PLAN_FLAGS, "repeat": "--repeat", "output": "-o",
                     "force": "--force", "answer_launches": "--answer-launches"}



def _steps_family(options: PlanOptions, mpicc: str | None) -> str | None:
    """Whose collective algorithms the run's MPI runs (``steps_family`` of the kernels' MPI), so that
    a collective brings only the patterns that MPI's steps are priced with; None (every MPI's) when
    there is no collective, or the kernels cannot be built here (the run says why, later)."""
    from msgperf.analysis.collectives import collective_name, steps_family
    from msgperf.launch.build import build_kernel

    if not options.model_patterns or not any(collective_name(p) for p in options.patterns):
        return None
    try:
        return steps_family(build_kernel(mpicc).mpi_version)  # cached: the run builds them anyway
    except MsgperfError:
        return None

@click.command("run")
@plan_options
@click.option("--np", "np_", type=int, default=2, show_default=True, help="Number of MPI ranks.")
@click.option("--launcher", metavar="CMD", help="Launcher: mpiexec, mpirun, srun or a command with its own options "
              "(default: the mpiexec of the selected MPI; srun inside a SLURM job when the MPI has none).")
@click.option("--hosts", metavar="A,B,...", help="Hosts to run on, passed in the launcher's dialect "
              "(-hosts, --host, --nodelist).")
@click.option("--ranks-per-node", type=int, default=None, metavar="K",
              help="Ranks per host (-ppn, --map-by ppr:K:node, --ntasks-per-node); default round robin.")
@click.option("--repeat", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="Separate MPI launches into one run file (run-to-run variation).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Run file to write (default runs/<time>-<pattern>.jsonl); an existing one is refused "
                   "unless --force.")
@click.option("--force", is_flag=True, help="Replace the run file given with -o if it exists (never a file "
              "that is not a msgperf run file).")
@click.option("--resume", type=click.Path(dir_okay=False, path_type=Path),
              help="Continue an interrupted run file: measure only what it lacks.")
@click.option("--mpicc", metavar="PATH", help="MPI to build the kernels with (default: the pip mpich's).")
@click.option("--deadline", default=None, metavar="SECONDS",
              help="Seconds without a finished measurement before the job is declared hung "
                   "(default 60 + 10 × the time budget, per size or for the sweep).")
@db_option
@click.option("--no-store", is_flag=True, help="Do not add the run to the result database.")
@click.option("-q", "--quiet", is_flag=True, help="No progress line.")
@click.option("--test-stall", hidden=True, metavar="RANK:BYTES",
              help="Test only: that rank stops responding at that size (exercises the watchdog).")
@click.option("--no-report", is_flag=True, help="Do not write the HTML report next to the run file.")
@click.option("--no-probe", is_flag=True,
              help="Do not run the short eager-probe launch after the sweep (about a second; its eager "
                   "limit names the switches the model finds).")
@click.option("--answer-launches", type=click.IntRange(0, MAX_ANSWER_LAUNCHES), default=ANSWER_LAUNCHES,
              show_default=True, metavar="N",
              help="After the sweep, measure the answer's sizes (the smallest, and the peak bandwidth's with the "
                   "sizes beside it) again in N short launches of their own, so that the latency's and peak "
                   "bandwidth's intervals cover the spread between launches, not one launch's; 0: the sweep's "
                   "launch alone. A run that measures the ping-pong only (a collective's run does: its predictions are made from "
                   "it); not with --repeat, where every size has its launches.")
@click.option("--detail", is_flag=True, help="After the answer and the tables, the fine print: the machine and each "
              "launch's conditions, every column and size, first messages, models and caveats (as show --detail).")
@click.option("--all", "all_sizes", is_flag=True, help="Every size in the tables, also those a refinement added "
              "that carry no switch.")
@click.option("--refine/--no-refine", default=True, show_default=True,
              help="After the sweep, measure extra sizes inside each switch it found (and around a size that "
                   "stands off the model alone: switch or spike?), until each switch is located to an eighth of "
                   "an octave, within what is left of --total-time (with --time-budget: as long as the sweep, "
                   "at least 10 s); see docs/statistics.md.")
def command(plan_options: PlanOptions, np_, launcher, hosts, ranks_per_node, repeat, output, force, resume, mpicc,
            deadline, db, no_store, quiet, test_stall, no_report, no_probe, answer_launches, detail, all_sizes,
            refine) -> None:
    """Measure message-passing patterns (default: a ping-pong between two ranks) over a sweep of sizes."""
    started = budgets.command_start()
    console = Console(stderr=True, quiet=quiet)
    notes = Console(stderr=True)

    def warn(text: str) -> None:  # one line however long: the terminal wraps it, a log keeps it whole
        notes.print(text, markup=False, highlight=False, soft_wrap=True)

    deadline = parse_deadline(deadline) if deadline is not None else None
    if resume is not None:
        given = [flag for name, flag in FROM_THE_RUN_FILE.items()
                 if click.get_current_context().get_parameter_source(name) not in (ParameterSource.DEFAULT, None)]
        if given:
            raise MsgperfError(f"--resume {resume} takes the plan from the run file; drop {', '.join(given)} "
                               "(or measure anew without --resume)")
        plan = None
    else:
        plan = plan_options.plan(np_, warn, _steps_family(plan_options, mpicc))
    source = click.get_current_context().get_parameter_source("answer_launches")
    if repeat > 1 and answer_launches and source not in (ParameterSource.DEFAULT, None):
        raise MsgperfError(f"--answer-launches {answer_launches} with --repeat {repeat}: every size is measured in "
                           f"each of the {repeat} launches already; drop one of them")
    request = MeasureRequest(
        plan=plan, resume=resume, output=output, force=force, repeat=repeat, placement=plan_options.placement,
        hosts=parse_hosts(hosts), ranks_per_node=ranks_per_node, launcher=launcher, mpicc=mpicc,
        deadline_s=deadline, command_line="msgperf " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
        test_stall=test_stall, store=not no_store, db=db, refine=refine, probe=not no_probe,
        answer_launches=answer_launches,
        whole_budget=plan_options.time_budget is None, started_s=started,
        after_s=budgets.remembered_finish(report=not no_report),
        overrun_s=budgets.remembered_overrun(max(plan.sizes)) if plan is not None else 0.0)

    progress = CommandProgress(console, started)
    launched = [started]  # when the last launch ended: what follows is the answer's time

    @contextmanager
    def on_launch(start: LaunchStart) -> Iterator[None]:
        with progress.launch(start):
            yield
        launched[0] = time.monotonic()

    with progress:
        outcome = measure(request, on_note=warn, on_phase=progress.phase, on_launch=on_launch,
                          on_record=progress.record)
        run, run_file = outcome.run, outcome.run_file
        from msgperf.analysis.result import analyze
        from msgperf.present.run_text import render_run

        progress.phase("analysis")
        result = outcome.result if outcome.result is not None else analyze(run)
    from msgperf import analysis_cache
    from msgperf.analysis.model import TOLERANCE

    # The first show of this run file reuses this analysis (the key is the file as it is now).
    analysis_cache.put(analysis_cache.file_key(run_file), (None, TOLERANCE, 0.95), (run, (), result))
    render_run(terminal_console(), result, detail=detail, all_sizes=all_sizes)
    click.echo(f"run file: {run_file}")
    if outcome.stored is not None:
        click.echo(stored_message(outcome.stored, run_file))
    answered = time.monotonic()
    report_s = None
    if not no_report:
        with progress:
            progress.phase("report")
            written = report_next_to(run, run_file, result)
        report_s = time.monotonic() - answered
        click.echo(written)
    if plan is not None:  # what the end took, for the next run's --total-time (launch/budget.py)
        budgets.remember_finish(answer_s=answered - launched[0], report_s=report_s,
                                sweep_overrun_s=outcome.sweep_overrun_s, largest=max(plan.sizes))
    if not detail:
        from msgperf.commands.show import MORE

        click.echo(MORE.replace("more: ", f"more: msgperf show {run_file} ", 1))


def stored_message(stored: StoreOutcome, run_file: Path) -> str:
    if stored.error is not None:
        return (f"note: not stored in the result database ({stored.error}); "
                f"add it later with: msgperf import {run_file}")
    return f"stored as run {stored.run_id} (msgperf show {stored.run_id})" + ("" if stored.added else ", already there")
