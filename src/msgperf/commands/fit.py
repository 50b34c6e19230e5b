"""msgperf fit PATH: the Hockney and piecewise model of a run file or a two-column samples file."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console

from msgperf.analysis import RunAnalysis, analysis_to_dict, analyze_pairs, analyze_run
from msgperf.analysis.points import TOLERANCE
from msgperf.present.analysis_text import render_run_analysis
from msgperf.records.read import read_run
from msgperf.records.samples_text import is_run_file, read_samples_text


def load_analysis(path: str, pattern: str | None, launch: int | None, variant: str | None,
                  tolerance: float) -> RunAnalysis:
    """Analyse PATH: a run file (one pattern and variant, launches pooled unless one is
    chosen) or a two-column samples file."""
    if is_run_file(path):
        return analyze_run(read_run(path).run, pattern=pattern, launch=launch, variant=variant,
                           tolerance=tolerance)
    if pattern is not None or launch is not None or variant is not None:
        raise click.UsageError("--pattern, --variant and --launch apply to run files; "
                               f"{path} is a two-column samples file")
    samples = read_samples_text(path)
    return analyze_pairs(samples.bytes, samples.seconds, source=str(Path(path)),
                         tolerance=tolerance)


@click.command("fit")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.option("--pattern", help="Pattern to fit (default: the first in the run file).")
@click.option("--variant", help="Variant of the pattern (default: its first), e.g. late.")
@click.option("--launch", type=int, help="Fit one launch only (default: all launches pooled).")
@click.option("--tolerance", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=TOLERANCE, show_default=True,
              help="Relative misfit below which one line is enough (no breakpoint).")
def command(path: str, as_json: bool, pattern: str | None, variant: str | None,
            launch: int | None, tolerance: float) -> None:
    """Fit T(b) = α + β·b and its piecewise refinement to PATH.

    PATH is a msgperf run file, or a text file with two columns per line, bytes and
    seconds (whitespace or comma separated, '#' comments, a size may repeat).
    """
    result = load_analysis(path, pattern, launch, variant, tolerance)
    if as_json:
        click.echo(json.dumps(analysis_to_dict(result), indent=2, allow_nan=False))
    else:
        render_run_analysis(Console(highlight=False), result)
