"""msgperf plot: one figure of one or several runs, as PNG, SVG or PDF."""

from __future__ import annotations

from pathlib import Path

import click

from msgperf.errors import MsgperfError
from msgperf.present.plots import KINDS
from msgperf.store.resolve import resolve_run


@click.command("plot")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Image to write: .png, .svg or .pdf.")
@click.option("--kind", type=click.Choice(KINDS), default=None,
              help="What to draw (default: time for one run, overlay for several).")
@click.option("--pattern", default=None, help="The pattern to draw (default: the run's first).")
@click.option("--launch", type=int, default=None, help="Only this launch (default: all pooled).")
@click.option("--size", "size", type=int, default=None,
              help="matrix: the message size to draw (default: the largest).")
@click.option("--db", type=click.Path(dir_okay=False), help="Result database for run ids.")
def command(runs: tuple[str, ...], output: Path, kind: str | None, pattern: str | None,
            launch: int | None, size: int | None, db: str | None) -> None:
    """Draw RUN... (run files or run ids): time, bandwidth, variability, launches,
    contention, matrix or several runs overlaid."""
    from msgperf.analysis import AnalysisError, analyze_run
    from msgperf.analysis.rows import size_rows
    from msgperf.present import plots
    from msgperf.present.pattern_tables import pair_matrix
    from msgperf.present.report import run_label

    if output.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise MsgperfError(f"{output}: write a .png, .svg or .pdf file")
    loaded = [resolve_run(r, db) for r in runs]
    kind = kind or ("overlay" if len(loaded) > 1 else "time")
    if kind != "overlay" and len(loaded) > 1:
        raise MsgperfError(f"--kind {kind} draws one run; use --kind overlay for several")
    run = loaded[0]
    try:
        if kind == "overlay":
            fig = plots.overlay_plot([(f"{arg}: {run_label(r)}", analyze_run(r, pattern, launch))
                                      for arg, r in zip(runs, loaded)])
        elif kind == "contention":
            fig = plots.contention_plot(size_rows(run))
        elif kind == "matrix":
            cells = pair_matrix(size_rows(run))
            if not cells:
                raise MsgperfError("the run has no 'matrix' measurement (msgperf run --pattern matrix --np 4)")
            chosen = max(cells) if size is None else size
            if chosen not in cells:
                raise MsgperfError(f"--size {size}: the matrix was measured at "
                                   + ", ".join(map(str, sorted(cells))))
            hosts = {r.rank: r.host for r in run.launches[-1].ranks} if run.launches else None
            fig = plots.matrix_plot(cells[chosen], chosen, hosts)
        else:
            result = analyze_run(run, pattern, launch)
            if kind == "time":
                fig = plots.time_plot(result)
            elif kind == "bandwidth":
                bound = None
                if result.pattern != "memcpy" and any(m.pattern == "memcpy" for m in run.measurements):
                    bound = analyze_run(run, "memcpy").sweep.characteristics.peak_bandwidth_bytes_per_s
                fig = plots.bandwidth_plot(result, bound)
            elif kind == "variability":
                fig = plots.variability_plot(result, plots.series_samples(run, result))
            else:
                fig = plots.launches_plot(result)
    except AnalysisError as exc:
        raise MsgperfError(str(exc)) from exc
    click.echo(f"plot: {plots.save_figure(fig, output)}")
