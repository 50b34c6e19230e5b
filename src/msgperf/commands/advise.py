"""msgperf advise PATH --messages K --bytes S: should K messages of S bytes be combined?"""

from __future__ import annotations

import json
import math

import click
from rich.console import Console

from msgperf.analysis import (CombiningPrediction, analysis_to_dict, estimate_buffering,
                              predict_combining)
from msgperf.analysis.points import TOLERANCE
from msgperf.commands.fit import load_analysis
from msgperf.plan import parse_size
from msgperf.present.analysis_text import fmt_rate, fmt_size, fmt_time


def _render(console: Console, p: CombiningPrediction, buffering) -> None:
    k, s = p.messages, p.bytes
    console.print(f"[bold]{k} messages of {fmt_size(s)}[/] (piecewise model; single line in brackets)")
    console.print(f"  apart     {k} × T({fmt_size(s)})   = {fmt_time(p.apart_s)}   "
                  f"[{fmt_time(p.line_apart_s)}]"
                  + (f"   measured {fmt_time(p.measured_apart_s)}" if p.measured_apart_s else ""))
    console.print(f"  combined  T({fmt_size(k * s)})   = {fmt_time(p.combined_s)}   "
                  f"[{fmt_time(p.line_combined_s)}]"
                  + (f"   measured {fmt_time(p.measured_combined_s)}" if p.measured_combined_s else ""))
    console.print(f"  speedup   {p.speedup:.2f}x   [{p.line_speedup:.2f}x]; "
                  f"saves {fmt_time(p.apart_s - p.combined_s)} per {k} messages")
    gain = f"{100 * p.min_gain:.0f} %"
    if p.break_even_bytes is None:
        console.print(f"  combining {k} messages gains more than {gain} at every size up to 1 TiB")
    elif p.break_even_bytes == 0:
        console.print(f"  combining {k} messages never gains {gain}")
    else:
        line = p.line_break_even_bytes
        console.print(f"  combining stops paying (gain < {gain}) above {fmt_size(p.break_even_bytes)} "
                      f"per message [{fmt_size(line) if line is not None else 'never'}]")
    verdict = ("combine them" if p.speedup >= 1 + p.min_gain else
               "combining gains little here" if p.speedup >= 1 else "send them apart")
    console.print(f"  → {verdict}")
    for c in p.caveats:
        console.print(f"  [yellow]![/] {c.message}\n      → {c.advice}")
    if buffering is not None:
        b = buffering
        console.print(f"[bold]Buffering[/] (copy {fmt_rate(b.copy_bandwidth_bytes_per_s)}, network "
                      f"{fmt_rate(b.network_bandwidth_bytes_per_s)} = the asymptotic bandwidth)")
        console.print(f"  effective bandwidth b_e = b_c·b_n/(b_c+b_n) = "
                      f"{fmt_rate(b.effective_bandwidth_bytes_per_s)}, {b.slowdown:.2f}x slower; "
                      f"{fmt_size(k * s)} takes {fmt_time(b.buffered_s)} buffered vs "
                      f"{fmt_time(b.unbuffered_s)}")


@click.command("advise")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--messages", "-k", type=click.IntRange(min=1), required=True,
              help="How many messages the application sends.")
@click.option("--bytes", "-s", "size", required=True, help="Bytes per message (e.g. 64, 4K, 1M).")
@click.option("--pattern", help="Pattern whose model to use (default: the first in the run file).")
@click.option("--variant", help="Variant of the pattern (default: its first).")
@click.option("--launch", type=int, help="Use one launch's model (default: all pooled).")
@click.option("--min-gain", type=click.FloatRange(0, min_open=True), default=0.10,
              show_default=True, help="Speedup below 1 + this no longer pays for combining.")
@click.option("--copy-bandwidth", type=click.FloatRange(0, min_open=True),
              help="Memory copy bandwidth in bytes/s: also estimate what buffering costs.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def command(path: str, messages: int, size: str, pattern: str | None, variant: str | None,
            launch: int | None, min_gain: float, copy_bandwidth: float | None,
            as_json: bool) -> None:
    """Predict K messages of S bytes sent apart versus combined into one (seeds/000)."""
    nbytes = parse_size(size)
    result = load_analysis(path, pattern, launch, variant, TOLERANCE)
    sweep = result.sweep
    measured = {s.bytes: s.summary.median for s in result.sizes}
    p = predict_combining(sweep.piecewise, sweep.hockney.line, messages, nbytes, min_gain, measured)
    buffering = None
    network = sweep.characteristics.asymptotic_bandwidth_bytes_per_s
    if copy_bandwidth is not None:
        if network is None:
            raise click.UsageError("the fit has no positive asymptotic bandwidth to buffer against")
        buffering = estimate_buffering(copy_bandwidth, network, messages * nbytes, p.combined_s)
    if as_json:
        def num(v):
            return v if isinstance(v, (int, float)) and math.isfinite(v) else None
        out = {k: num(v) if isinstance(v, float) else v for k, v in vars(p).items() if k != "caveats"}
        out["caveats"] = [{"kind": c.kind, "message": c.message, "advice": c.advice} for c in p.caveats]
        out["buffering"] = None if buffering is None else {k: num(v) if isinstance(v, float) else v
                                                            for k, v in vars(buffering).items()}
        model = analysis_to_dict(result)
        out["model"] = {k: model[k] for k in ("alpha_s", "beta_s_per_byte", "breakpoints_bytes",
                                              "segments")}
        click.echo(json.dumps(out, indent=2, allow_nan=False))
    else:
        _render(Console(highlight=False), p, buffering)
