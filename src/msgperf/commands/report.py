"""msgperf report: one self-contained HTML file (summary, plots, tables, caveats, combining
advice, comparisons, metadata) that can be mailed or attached to a ticket."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from msgperf.commands._options import db_option
from msgperf.errors import MsgperfError


def default_report_path(run_file: str | Path) -> Path:
    """``runs/x.jsonl`` -> ``runs/x.html``."""
    return Path(run_file).with_suffix(".html")


def report_next_to(run: Any, run_file: str | Path, result: Any = None) -> str:
    """Write the report beside the run file (the end of ``msgperf run``); never fails the run,
    whose measurements are safe in the run file already. ``result``: the run's analysis, when
    the caller has it."""
    from msgperf.analysis.result import analyze
    from msgperf.present.report import write_report

    from msgperf.writing import is_msgperf_report, output

    path = default_report_path(run_file)
    try:
        to = output(path, False, what="the report", ours=is_msgperf_report, chosen=True)
        write_report([(result if result is not None else analyze(run), run)], to)
    except Exception as exc:  # noqa: BLE001 - a report problem must not lose a measurement
        return f"note: no report written ({type(exc).__name__}: {exc}); try: msgperf report {run_file}"
    return f"report: {path}"


def analyze_runs(runs: list[Any], alpha: float = 0.05,
                 results: list[Any] | None = None) -> tuple[list[tuple[Any, Any]], list[Any]]:
    """The report's inputs: each run analysed once (or its ``results`` when the caller has them),
    and each later run compared with the first (or the reason it could not be)."""
    from msgperf.analysis import AnalysisError
    from msgperf.analysis.compare import compare_runs
    from msgperf.analysis.result import analyze

    results = list(zip(results if results is not None else [analyze(run) for run in runs], runs))
    comparisons: list[Any] = []
    base = results[0][0]
    for i, (result, run) in enumerate(results[1:], start=2):
        try:
            comparisons.append(compare_runs(runs[0], run, alpha=alpha, label_a=f"1: {base.source.label}",
                                            label_b=f"{i}: {result.source.label}",
                                            answers=(base.answer, result.answer)))
        except AnalysisError as exc:
            comparisons.append(f"Run {i} not compared: {exc}")
    return results, comparisons


@click.command("report")
@click.argument("runs", nargs=-1, metavar="[RUN]...")
@click.option("--profile", "profile_arg", metavar="P",
              help="Add a section for an application's profile (a profile file or stored id): its sizes "
                   "against the model's regimes and the advice, from the first RUN's model (default: the "
                   "newest stored ping-pong run of the profile's hosts and MPI).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="HTML file to write (default: beside the first run when it is a file, "
                   "else report-<id>.html in the current directory).")
@click.option("--title", default=None, help="Heading of the report.")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Significance level of the comparisons (several runs).")
@db_option
@click.option("--force", is_flag=True, help="Replace the -o file if it exists (never a run file, profile or "
              "database). Without it, only msgperf's own report at the default name is replaced.")
def command(runs: tuple[str, ...], output: Path | None, title: str | None, alpha: float,
            db: str | None, profile_arg: str | None, force: bool) -> None:
    """Write a self-contained HTML report of RUN... (run files, other tools' outputs or run ids);
    several runs are overlaid and compared against the first. With --profile P, the report
    opens with the profile's section, advised from the first RUN's model."""
    if not 0 < alpha < 1:
        raise MsgperfError(f"--alpha {alpha}: give a level between 0 and 1, e.g. 0.05")
    if not runs and profile_arg is None:
        raise click.UsageError("give RUN... (run files or ids), or --profile P [RUN]")
    _report(runs, _checked_output(runs, profile_arg, output, force), title, alpha, db, profile_arg)


def _checked_output(runs: tuple[str, ...], profile_arg: str | None, output: Path | None,
                    force: bool) -> Any:
    """The report's file (-o, else beside the first run or profile when it is a file, else
    report-<id>.html here) as writing.py's ``Output``, checked before anything is measured or
    read, and again before the report is renamed into place. A report msgperf wrote is
    replaced without --force, at any name: writing it again is the point of the command."""
    from msgperf.writing import is_msgperf_report, output as output_file

    chosen = output is None
    if output is None:
        first = profile_arg if profile_arg is not None else runs[0]
        output = (default_report_path(first) if Path(first).is_file()
                  else Path(f"report-{'profile-' if profile_arg is not None else ''}{first.lstrip('#')}.html"))
    if output.suffix.lower() not in (".html", ".htm"):
        raise MsgperfError(f"{output}: the report is HTML; name it something.html")
    return output_file(output, force, what="the report", ours=is_msgperf_report, chosen=chosen)


def _report(runs: tuple[str, ...], to: Any, title: str | None, alpha: float,
            db: str | None, profile_arg: str | None) -> None:
    from msgperf.loader import load_analyzed
    from msgperf.present.report import write_report

    profiles = []
    if profile_arg is not None:
        from msgperf.commands.advise_profile import profile_advice
        from msgperf.loader import load_profile

        choice = None
        if not runs:
            from msgperf.commands.advise_profile import default_model

            choice = default_model(load_profile(profile_arg, db)[0], db)
            runs = (str(choice.run_id),)
        profiles.append(profile_advice(profile_arg, None if choice else runs[0], db, choice=choice))
    pairs = [load_analyzed(r, db) for r in runs]
    loaded = [item for item, _ in pairs]
    results, comparisons = analyze_runs([item.run for item in loaded], alpha, [r for _, r in pairs])
    path = write_report(results, to, comparisons, title=title, profiles=profiles)
    click.echo(f"report: {path}")
