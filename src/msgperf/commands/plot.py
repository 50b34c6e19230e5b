"""msgperf plot: one figure of one or several runs, as PNG, SVG or PDF."""

from __future__ import annotations

from pathlib import Path

import click

from msgperf.commands._options import db_option
from msgperf.errors import MsgperfError
from msgperf.present.plots import KINDS


@click.command("plot")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Image to write: .png, .svg or .pdf.")
@click.option("--kind", type=click.Choice(KINDS), default=None,
              help="What to draw (default: time for one run, overlay for several).")
@click.option("--pattern", default=None, help="The pattern to draw (default: the run's main series, the ping-pong).")
@click.option("--variant", default=None, help="Its variant (default: the first).")
@click.option("--launch", type=int, default=None, help="Only this launch (default: all pooled).")
@click.option("--size", "size", default=None,
              help="matrix: the message size to draw, e.g. 4K (default: the largest).")
@db_option
@click.option("--force", is_flag=True, help="Replace the -o file if it exists (never a run file, profile or "
              "database).")
def command(runs: tuple[str, ...], output: Path, kind: str | None, pattern: str | None, variant: str | None,
            launch: int | None, size: str | None, db: str | None, force: bool) -> None:
    """Draw RUN... (run files, other tools' outputs or run ids): time, bandwidth, variability,
    launches, contention, matrix or several runs overlaid."""
    from msgperf.analysis import AnalysisError
    from msgperf.analysis.answer import disturbed_terms
    from msgperf.loader import load_analyzed
    from msgperf.plan import parse_size
    from msgperf.present import plots

    if output.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise MsgperfError(f"{output}: write a .png, .svg or .pdf file")
    from msgperf.writing import output as output_file

    to = output_file(output, force, what="a plot")
    kind = kind or ("overlay" if len(runs) > 1 else "time")
    if size is not None and kind != "matrix":
        raise MsgperfError(f"--size picks the matrix's message size; --kind {kind} draws every size")
    if launch is not None and kind == "launches":
        raise MsgperfError("--kind launches draws every launch, one line each; --launch picks one")
    if kind != "overlay" and len(runs) > 1:
        raise MsgperfError(f"--kind {kind} draws one run; use --kind overlay for several")
    try:
        results = [load_analyzed(r, db, launch=launch)[1] for r in runs]
        result = results[0]
        if kind == "overlay":
            chart = plots.overlay_plot([(f"{arg}: {r.source.label}", r.find(pattern, variant).model)
                                      for arg, r in zip(runs, results) if r.find(pattern, variant).model])
        elif kind == "contention":
            chart = plots.contention_plot(result.contention)
        elif kind == "matrix":
            if not result.matrices:
                raise MsgperfError("the run has no 'matrix' measurement (msgperf run --pattern matrix --np 4)")
            grids = {g.bytes: g for g in result.matrices}
            chosen = max(grids) if size is None else parse_size(size)
            if chosen not in grids:
                raise MsgperfError(f"--size {size}: the matrix was measured at "
                                   + ", ".join(map(str, sorted(grids))))
            chart = plots.matrix_plot(grids[chosen])
        else:
            series = result.find(pattern, variant)
            if series.model is None:
                raise MsgperfError(f"{series.name}: not modelled — {series.not_modelled}")
            if kind == "time":
                chart = plots.time_plot(series.model, launch=launch)
            elif kind == "bandwidth":
                memcpy = next((s for s in result.series if s.key.pattern == "memcpy" and s.model), None)
                bound = (memcpy.model.sweep.characteristics.peak_bandwidth_bytes_per_s
                         if memcpy is not None and series.key.pattern != "memcpy" else None)
                chart = plots.bandwidth_plot(series.model, bound, launch=launch,
                                             withheld=disturbed_terms(result.answer, series.name))
            elif kind == "variability":
                chart = plots.variability_plot(series.model, launch=launch)
            else:
                chart = plots.launches_plot(series.model)
    except AnalysisError as exc:
        raise MsgperfError(str(exc)) from exc
    click.echo(f"plot: {plots.save_figure(chart, to)}")
