"""``msgperf advise`` in the terminal: k messages apart versus combined, measured and predicted,
and what buffering costs. Rendering only: every number is a field of the ``CombiningPrediction``
(its ``buffering`` estimate included) the analysis made."""

from __future__ import annotations

from rich.console import Console

from msgperf import units
from msgperf.analysis.advice import CombiningAdvice
from msgperf.analysis.tables import CombiningPrediction
from msgperf.analysis.result import SeriesResult
from msgperf.present.text import safe


def paying_words(p: CombiningPrediction, line_why_not: str = "", short_why: str = "") -> str:
    """Where combining pays, within the sizes the run measured (the prediction's ``paying_bytes``), or
    below the first segment of the model that cannot be told (``short_why``: why; CombiningAdvice)."""
    k, gain = p.messages, units.percent(p.min_gain, decimals=0)
    what = f"combining {k} message{'s' if k != 1 else ''}"
    if p.within_bytes < 1:
        return (f"where {what} pays cannot tell: {short_why}" if short_why else
                f"where {what} pays is not predicted: no size s has k·s within the sizes the run measured")
    scope = (f"up to {units.size(p.within_bytes)} (k·s below the first segment of the model that cannot be told, "
             f"{short_why}; predicted)" if short_why else
             f"up to {units.size(p.within_bytes)} (k·s within the sizes measured; predicted)")
    ranges = p.paying_bytes
    if not ranges:
        return f"{what} never gains {gain} for s {scope}"
    if len(ranges) == 1 and ranges[0][0] <= 1.0:
        if p.pays_to_within:
            return f"{what} gains more than {gain} at every s {scope}"
        line = p.line_break_even_bytes
        said = ("cannot tell" if line_why_not else units.size(line) if line is not None else "never")
        return (f"{what} stops paying (gain < {gain}) above {units.size(ranges[0][1])} per message (predicted; a "
                f"single line: {said})")
    spans = ", ".join(f"{units.size(lo)}–{units.size(hi)}" if hi > lo else units.size(lo) for lo, hi in ranges)
    return f"{what} gains more than {gain} for s in {spans}, of s {scope}"


def conditions_warning(run: str, misfit: str) -> str:
    """The warning under advice from a run whose launches were not conditions to predict from
    (``misfit``, analysis/model_choice.conditions_misfit); "" when they were."""
    return (f"{run}: {misfit}: its times may not be this machine's; measure on a quiet machine (msgperf run)"
            if misfit else "")


def held(a: CombiningAdvice | CombiningPrediction) -> CombiningAdvice:
    """``a``, or a bare prediction (no run to hold it to: a table's case) with nothing withheld."""
    return a if isinstance(a, CombiningAdvice) else CombiningAdvice(a, "", "", "", "", "")


def _cannot_tell(why: str) -> str:
    return f"cannot tell: {why}"


def render_advice(console: Console, a: CombiningAdvice | CombiningPrediction, series: SeriesResult, run: str = "",
                  misfit: str = "") -> None:
    a = held(a)
    p = a.prediction
    k, s = p.messages, p.bytes
    console.print(f"[bold]{k} messages of {units.size(s)}[/] apart or combined into one of {units.size(k * s)} "
                  f"— from the model of {safe(series.name)} ({series.facts.time_words})")
    if p.measured_by_combine:
        measured = (_cannot_tell(a.measured_why_not) if a.measured_why_not else
                    f"separate {units.seconds(p.measured_apart_s)}, combined {units.seconds(p.measured_combined_s)}: "
                    f"speedup {units.ratio(p.measured_speedup)}")
        console.print(f"  measured   {safe(measured)} (the combine pattern, k = {k}, s = {units.size(s)})")
    line = (f"a single line α + β·b cannot tell: {a.line_why_not}" if a.line_why_not else
            f"a single line α + β·b says {units.ratio(p.line_speedup)}")
    if a.predicted_why_not:
        console.print(f"  predicted  {safe(_cannot_tell(a.predicted_why_not))}; {safe(line)}")
    else:
        console.print(f"  predicted  separate {units.seconds(p.apart_s)}, combined {units.seconds(p.combined_s)}: "
                      f"speedup {units.ratio(p.speedup)}; {safe(line)}")
    console.print(f"             from the {p.model_words}", style="dim")
    if not p.measured_by_combine and (p.measured_apart_s or p.measured_combined_s):
        if a.measured_why_not:
            console.print(f"  measured sizes of the series: {units.size(s)} and {units.size(k * s)} "
                          f"{safe(_cannot_tell(a.measured_why_not))}")
        else:
            console.print(f"  measured sizes of the series: {k} × T({units.size(s)}) = "
                          f"{units.seconds(p.measured_apart_s)}, T({units.size(k * s)}) = "
                          f"{units.seconds(p.measured_combined_s)} (one after the other, not pipelined)")
    if a.speedup_why_not:
        console.print(f"  speedup    {safe(_cannot_tell(a.speedup_why_not))}")
    else:
        saving = (p.measured_apart_s - p.measured_combined_s) if p.measured_by_combine else p.apart_s - p.combined_s
        console.print(f"  speedup    {units.ratio(p.answer_speedup)} "
                      f"({'measured' if p.measured_by_combine else 'predicted'}); saves {units.seconds(saving)} "
                      f"per {k} messages")
    console.print(f"  {safe(paying_words(p, a.line_why_not, a.paying_why_not))}")
    verdict = a.verdict
    console.print(f"  → {verdict}" if verdict else
                  "  → no advice to combine or not: the speedup cannot be told (measure on a quiet machine, "
                  "or the sizes the model lacks)")
    for c in p.caveats:
        console.print(f"  [yellow]![/] {safe(c.message)}\n      → {safe(c.advice)}")
    b = p.buffering
    if b is not None:
        copy = (f"copy b_c cannot tell: {safe(a.copy_why_not)}" if a.copy_why_not else
                f"copy b_c {units.rate(b.copy_bandwidth_bytes_per_s)} from {safe(b.copy_from)}")
        console.print(f"[bold]Buffering[/] ({copy}; "
                      + (f"network b_n cannot tell: {safe(a.buffering_why_not)})" if a.buffering_why_not else
                         f"network b_n {units.rate(b.network_bandwidth_bytes_per_s)} = {safe(b.network_from)})"))
        if not a.buffering_why_not:
            console.print(f"  effective bandwidth b_e = b_c·b_n/(b_c+b_n) = {units.rate(b.effective_bandwidth_bytes_per_s)}, "
                          f"{units.ratio(b.slowdown)} slower; {units.size(k * s)} takes {units.seconds(b.buffered_s)} "
                          f"buffered vs {units.seconds(b.unbuffered_s)}")
    warning = conditions_warning(run, misfit)
    if warning:
        console.print(f"  [yellow]![/] {safe(warning)}")
    for w in a.conditions:  # every disturbed launch, as show's answer says it
        console.print(f"  [yellow]![/] {safe(w.text)} → {safe(w.fix)}")
