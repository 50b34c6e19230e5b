"""``msgperf advise`` in the terminal: k messages apart versus combined, measured and predicted,
and what buffering costs. Rendering only: every number is a field of the ``CombiningPrediction``
(its ``buffering`` estimate included) the analysis made."""

from __future__ import annotations

from rich.console import Console

from msgperf import units
from msgperf.analysis.tables import CombiningPrediction
from msgperf.analysis.result import SeriesResult
from msgperf.present.text import safe


def paying_words(p: CombiningPrediction) -> str:
    """Where combining pays, within the sizes the run measured (the prediction's ``paying_bytes``)."""
    k, gain = p.messages, units.percent(p.min_gain, decimals=0)
    what = f"combining {k} message{'s' if k != 1 else ''}"
    if p.within_bytes < 1:
        return f"where {what} pays is not predicted: no size s has k·s within the sizes the run measured"
    scope = f"up to {units.size(p.within_bytes)} (k·s within the sizes measured; predicted)"
    ranges = p.paying_bytes
    if not ranges:
        return f"{what} never gains {gain} for s {scope}"
    if len(ranges) == 1 and ranges[0][0] <= 1.0:
        if p.pays_to_within:
            return f"{what} gains more than {gain} at every s {scope}"
        line = p.line_break_even_bytes
        return (f"{what} stops paying (gain < {gain}) above {units.size(ranges[0][1])} per message (predicted; a "
                f"single line: {units.size(line) if line is not None else 'never'})")
    spans = ", ".join(f"{units.size(lo)}–{units.size(hi)}" if hi > lo else units.size(lo) for lo, hi in ranges)
    return f"{what} gains more than {gain} for s in {spans}, of s {scope}"


def conditions_warning(run: str, misfit: str) -> str:
    """The warning under advice from a run whose launches were not conditions to predict from
    (``misfit``, analysis/model_choice.conditions_misfit); "" when they were."""
    return (f"{run}: {misfit}: its times may not be this machine's; measure on a quiet machine (msgperf run)"
            if misfit else "")


def render_advice(console: Console, p: CombiningPrediction, series: SeriesResult, run: str = "",
                  misfit: str = "") -> None:
    k, s = p.messages, p.bytes
    console.print(f"[bold]{k} messages of {units.size(s)}[/] apart or combined into one of {units.size(k * s)} "
                  f"— from the model of {safe(series.name)} ({series.facts.time_words})")
    if p.measured_by_combine:
        console.print(f"  measured   separate {units.seconds(p.measured_apart_s)}, combined "
                      f"{units.seconds(p.measured_combined_s)}: speedup {units.ratio(p.measured_speedup)} "
                      f"(the combine pattern, k = {k}, s = {units.size(s)})")
    console.print(f"  predicted  separate {units.seconds(p.apart_s)}, combined {units.seconds(p.combined_s)}: "
                  f"speedup {units.ratio(p.speedup)}; a single line α + β·b says {units.ratio(p.line_speedup)}")
    console.print(f"             from the {p.model_words}", style="dim")
    if not p.measured_by_combine and (p.measured_apart_s or p.measured_combined_s):
        console.print(f"  measured sizes of the series: {k} × T({units.size(s)}) = {units.seconds(p.measured_apart_s)}, "
                      f"T({units.size(k * s)}) = {units.seconds(p.measured_combined_s)} (one after the other, "
                      "not pipelined)")
    saving = (p.measured_apart_s - p.measured_combined_s) if p.measured_by_combine else p.apart_s - p.combined_s
    console.print(f"  speedup    {units.ratio(p.answer_speedup)} "
                  f"({'measured' if p.measured_by_combine else 'predicted'}); saves {units.seconds(saving)} "
                  f"per {k} messages")
    console.print(f"  {paying_words(p)}")
    speedup = p.answer_speedup
    verdict = ("combine them" if speedup >= 1 + p.min_gain else
               "combining gains little here" if speedup >= 1 else "send them apart")
    console.print(f"  → {verdict}")
    for c in p.caveats:
        console.print(f"  [yellow]![/] {safe(c.message)}\n      → {safe(c.advice)}")
    b = p.buffering
    if b is not None:
        console.print(f"[bold]Buffering[/] (copy b_c {units.rate(b.copy_bandwidth_bytes_per_s)} from {safe(b.copy_from)}; "
                      f"network b_n {units.rate(b.network_bandwidth_bytes_per_s)} = {safe(b.network_from)})")
        console.print(f"  effective bandwidth b_e = b_c·b_n/(b_c+b_n) = {units.rate(b.effective_bandwidth_bytes_per_s)}, "
                      f"{units.ratio(b.slowdown)} slower; {units.size(k * s)} takes {units.seconds(b.buffered_s)} "
                      f"buffered vs {units.seconds(b.unbuffered_s)}")
    warning = conditions_warning(run, misfit)
    if warning:
        console.print(f"  [yellow]![/] {safe(warning)}")
