"""The collectives against the algorithms' predictions, as tables (show, the report) and as the
collective advice of ``msgperf advise --collective``. Rendering only: every number is a field of
``RunResult.collectives`` (analysis/collectives) or of a ``CollectiveAdvice``."""

from __future__ import annotations

from rich.console import Console

from msgperf import units
from msgperf.analysis.collectives import (CANNOT_TELL, FIT_TOLERANCE, MODEL_BAND, NONE, SEPARATION, CollectiveAdvice,
                                         CollectiveFit, Collectives, PointToPoint)
from msgperf.analysis.advice import HeldCollectiveAdvice
from msgperf.analysis.result import RunResult
from msgperf.present.grid import Grid
from msgperf.present.text import safe


def _short(fit: CollectiveFit, key: str) -> str:
    return next((a.short for a in fit.algorithms if a.key == key), key)


def verdict_words(fit: CollectiveFit, verdict: str, candidates: tuple[str, ...], evidence: str = "") -> str:
    if verdict == NONE:
        return NONE
    if verdict == CANNOT_TELL and evidence:  # a name withheld: what the times alone point to
        return f"cannot tell (the times point to {_short(fit, evidence)})"
    if verdict == CANNOT_TELL and len(candidates) == len(fit.algorithms) > 1:
        return "cannot tell (the times point to no single algorithm)"
    if verdict == CANNOT_TELL:
        return f"cannot tell ({' or '.join(_short(fit, c) for c in candidates)})" if candidates else CANNOT_TELL
    return _short(fit, verdict)


def _range(lo: int, hi: int) -> str:
    return units.size(lo) if lo == hi else f"{units.size(lo)}–{units.size(hi)}"


def ranges_table(c: Collectives, fit: CollectiveFit) -> Grid:
    """Per size range: where the times point, predicted/measured of each algorithm (median)."""
    names = [a.short for a in fit.algorithms]
    t = Grid(heading=f"{fit.name}, {fit.ranks} ranks: which algorithm fits, per size range"
                     + (f" (no names: {fit.why_no_names})" if fit.why_no_names else ""),
             note=(f"predicted / measured per algorithm, median over the range; named where every other prediction is "
                   f"outside {MODEL_BAND[0]:g}-{MODEL_BAND[1]:g} × the measured time at two sizes in a row and in every "
                   "launch alone (2 ranks, two launches or more, every model pattern measured: docs/collectives.md), "
                   "else \"cannot tell\" and where the times "
                   f"point: the closest prediction within {FIT_TOLERANCE:.0%} and apart from the others by the "
                   f"interval plus {SEPARATION:.0%}, several, or none"
                   + (f". Where they point to none: {fit.unmodelled}" if fit.unmodelled else "")
                   + "; what the predictions are made from: under the algorithms' table"))
    t.add_column("sizes")
    t.add_column("measured")
    for n in names:
        t.add_column(n + "\n(pred/meas)")
    t.add_column("verdict", justify="left")
    for r in fit.ranges:
        group = [v for v in fit.sizes if r.from_bytes <= v.bytes <= r.to_bytes]
        cells = [units.ratio(r.ratios[a.key]) if r.ratios.get(a.key) is not None else units.MISSING
                 for a in fit.algorithms]
        times = sorted(v.measured_s for v in group)  # lowest to highest: a range, not first to last size
        measured = (units.seconds(times[0]) if len(group) == 1 else
                    f"{units.seconds(times[0])}–{units.seconds(times[-1])}")
        t.add_row(f"{_range(r.from_bytes, r.to_bytes)} ({r.sizes})", measured, *cells,
                  verdict_words(fit, r.verdict, r.candidates, r.evidence))
    return t


def sizes_table(fit: CollectiveFit) -> Grid:
    """Per size: the measured median and interval against each prediction (the evidence)."""
    t = Grid(heading=f"{fit.name}, {fit.ranks} ranks: measured against each algorithm's prediction",
             note="measured: median with its 95 % interval; each algorithm's predicted time; why: the evidence")
    t.add_column("bytes")
    t.add_column("measured")
    t.add_column("interval", detail=True)
    for a in fit.algorithms:
        t.add_column(a.short)
    t.add_column("verdict", justify="left")
    t.add_column("why", justify="left", detail=True)
    for v in fit.sizes:
        preds = [units.seconds(p.predicted_s) for p in v.predictions]
        t.add_row(units.size(v.bytes), units.seconds(v.measured_s), units.interval(v.low_s, v.high_s, "s"),
                  *preds, verdict_words(fit, v.verdict, v.candidates, v.evidence), v.why)
    return t


def models_table(fit: CollectiveFit, p2p: PointToPoint | None = None) -> Grid:
    """The algorithms, their closed forms and how to select each; the note says what the predictions
    are made from (``p2p``: the run's point-to-point model)."""
    t = Grid(heading=f"{fit.collective}: the algorithms modelled",
             note="T(m) = the ping-pong's one-way time at m bytes (its piecewise model: each step uses the α and β "
                  "of the segment its message falls in); γ per byte of a reduction; closed forms for one segment"
                  + (f"; predictions from the run's {p2p.series} model; {p2p.gamma_words}" if p2p is not None else ""))
    # a setting every algorithm needs (MPICH's MPIR_CVAR_DEVICE_COLLECTIVES=none, Open MPI's dynamic
    # rules) is said once under the table: in each cell it made every line 180 columns wide
    settings = [a.select.split() for a in fit.algorithms]
    given = [words for words in settings if words]  # "" where this MPI has no such algorithm
    common = [w for w in given[0] if all(w in other for other in given[1:])] if len(given) > 1 else []
    for h in ("algorithm", "formula", "source", "select it (to measure)"):
        t.add_column(h, justify="left", detail=h in ("source",))
    for a, words in zip(fit.algorithms, settings):
        t.add_row(a.words, a.formula, a.source, " ".join(w for w in words if w not in common) or units.MISSING)
    if common:
        t.note += f"; each selection also needs {' '.join(common)}"
    return t


def collective_tables(result: RunResult) -> list[Grid]:
    c = result.collectives
    if c is None:
        return []
    out: list[Grid] = []
    for fit in c.fits:
        if not fit.sizes:
            t = Grid(heading=f"{fit.name}, {fit.ranks} ranks: no algorithm predicted", note=safe(c.why_not))
            t.add_column("why")
            t.add_row(c.why_not)
            out.append(t)
            continue
        out += [ranges_table(c, fit), sizes_table(fit), models_table(fit, c.p2p)]
    return out


def render_collective_advice(console: Console, held: CollectiveAdvice | HeldCollectiveAdvice) -> None:
    if not isinstance(held, HeldCollectiveAdvice):  # no run to hold it to: nothing withheld
        held = HeldCollectiveAdvice(held, "")
    a = held.advice
    k, s = a.messages, a.bytes
    console.print(f"[bold]{k} {a.collective}s of {units.size(s)}[/] or one of {units.size(k * s)}, "
                  f"{a.ranks} ranks")
    if a.measured_apart_s is not None and a.measured_combined_s is not None and held.measured_why_not:
        console.print(f"  measured   {k} × {units.size(s)} against {units.size(k * s)}: speedup cannot tell: "
                      f"{safe(held.measured_why_not)}", highlight=False)
    elif a.measured_apart_s is not None and a.measured_combined_s is not None:
        console.print(f"  measured   {k} × {units.seconds(a.measured_apart_s / k)} = {units.seconds(a.measured_apart_s)} "
                      f"against {units.seconds(a.measured_combined_s)}: speedup {units.ratio(a.measured_speedup)}")
    elif a.measured_apart_s is not None:
        console.print(f"  measured   {k} × {units.seconds(a.measured_apart_s / k)} = {units.seconds(a.measured_apart_s)}; "
                      f"{units.size(k * s)} not measured (msgperf run --pattern {safe(a.collective)} --sizes "
                      f"{k * s} measures it)")
    elif a.measured_combined_s is not None:
        console.print(f"  measured   {units.seconds(a.measured_combined_s)} at {units.size(k * s)}; {units.size(s)} not "
                      "measured", style="dim")
    else:
        console.print("  measured   neither size: predicted only", style="dim")
    for miss in a.misses:
        console.print(f"  [yellow]![/] at {units.size(miss.bytes)} the run measured {units.seconds(miss.measured_s)}, "
                      f"the algorithms predict {units.seconds(miss.lowest_s)}–{units.seconds(miss.highest_s)}: the "
                      "times point to none of them, so the predictions below are not this MPI's "
                      "(the collectives' tables of msgperf show)", highlight=False)
    ch = a.choice
    console.print(f"  predicted  {units.seconds(ch.apart_s)} against {units.seconds(ch.combined_s)}: speedup "
                  f"{units.ratio(ch.speedup)} with {safe(ch.algorithm)} ({safe(a.used_why)})")
    for other in a.choices:
        if other.algorithm != ch.algorithm:
            console.print(f"             {safe(other.algorithm)}: {units.seconds(other.apart_s)} against "
                          f"{units.seconds(other.combined_s)} (speedup {units.ratio(other.speedup)})", style="dim")
    console.print(f"             from the {safe(a.model_words)}", style="dim")
    console.print("  the model favours, per size (a suggestion to measure, not a finding):")
    selected = held.selected or ("",) * len(a.favoured)
    for f, already in zip(a.favoured, selected):
        where = _range(f.from_bytes, f.to_bytes)
        if not f.algorithm:
            console.print(f"    {where}: no algorithm ahead by 10 % (about equal)")
            continue
        named = f"; this run's was named {f.named}" if f.named else ""
        select = (f" — this run already selects it ({already}): its times are that algorithm's" if already else
                  f" — measure it with {f.select}" if f.select else " (no variable of this MPI selects it)")
        console.print(f"    {where}: {safe(f.algorithm)}, {units.percent(f.margin, decimals=0)} ahead of "
                      f"{safe(f.runner_up)}{safe(named)}{safe(select)}")
    for w in held.conditions:  # the answer's lines about the launches, as show says them
        console.print(f"  [yellow]![/] {safe(w.text)} → {safe(w.fix)}")
