"""The model of a series in the terminal (rich): what ``fit`` prints and ``show`` prints under its
tables. Formatting only: every number comes from the series' ``SeriesAnalysis`` in the run's
``RunResult``."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from rich.console import Console

from msgperf import units
from msgperf.analysis.answer import (disturbed_terms, held_gaps, segments_cannot_tell, segments_disturbed_of,
                                     unconfirmed_switches)
from msgperf.analysis.model import LineFit
from msgperf.analysis.result import RunResult, SeriesResult
from msgperf.present.grid import Grid, render
from msgperf.present.text import safe


def _count(n: int, word: str, plural: str = "") -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _rows(console: Console, rows: list[tuple[str, str, str]]) -> None:
    """Aligned 'name  value  note' lines (plain text: no wrapping tables)."""
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    for name, value, note in rows:
        console.print(f"  {name:<{w0}}  {value:>{w1}}  {note}".rstrip(), markup=False)


def _ci(pair: tuple[float, float] | None, unit: str) -> str:
    return "" if pair is None else units.interval(pair[0], pair[1], unit)


def _line_rows(line: LineFit, n_half: tuple[str, str] | None = None,
               disturbed: dict[str, str] | None = None) -> list[tuple[str, str, str]]:
    """α, β, 1/β and n½ of a line; ``n_half``: (value, why) in place of the line's own n½ (the
    answer's: "cannot tell" when disturbed, "—" when the line misses the sizes); ``disturbed``:
    the answer's terms it cannot tell ("alpha", "beta": the line's)."""
    n_half_ok = math.isfinite(line.n_half_bytes)
    told = disturbed or {}
    alpha = ("α latency", "cannot tell", told["alpha"]) if "alpha" in told else \
        ("α latency", units.seconds(line.alpha_s), _ci(line.alpha_ci_s, "s"))
    beta = [("β inverse bandwidth", "cannot tell", told["beta"]), ("bandwidth 1/β", "cannot tell", told["beta"])] \
        if "beta" in told else [
        ("β inverse bandwidth", units.beta(line.beta_s_per_byte), _ci(line.beta_ci_s_per_byte, "s/B")),
        ("bandwidth 1/β", units.rate(line.bandwidth_bytes_per_s), _ci(line.bandwidth_ci_bytes_per_s, "B/s"))]
    return [
        alpha, *beta,
        ("n½ = α/β", *n_half) if n_half is not None else
        ("n½ = α/β", units.size(line.n_half_bytes) if n_half_ok else "undefined",
         _ci(line.n_half_ci_bytes, "B") if n_half_ok else ""),
    ]


def answer_says(result: RunResult, s: SeriesResult) -> tuple[dict[str, str], dict[tuple[int, int], tuple[int, int]]]:
    """What the answer block decided about this series (analysis/answer.py), for the tables to say
    the same: the terms it cannot tell because they were measured while disturbed (by the term's
    name, with the reason), and each switch's most likely gap as held to its rule (by (low, high));
    empty for another series."""
    held = held_gaps(result.answer, s.name)
    return disturbed_terms(result.answer, s.name), {k: (lo, hi) for k, (lo, hi, _) in held.items()}


# Saphir's terms as the tables name them, by their name in the model's characteristics
TERMS = (("zero-byte latency", "zero_byte_latency", "s"), ("asymptotic latency", "asymptotic_latency", "s"),
         ("peak bandwidth", "peak_bandwidth", "B/s"), ("asymptotic bandwidth", "asymptotic_bandwidth", "B/s"))


def _model(console: Console, s: SeriesResult, confidence: float, disturbed: dict[str, str] | None = None) -> None:
    model = s.model
    sweep = model.sweep
    h, ch = sweep.hockney, sweep.characteristics
    console.print(f"[bold]Hockney model[/] T(b) = α + β·b — robust fit over "
                  f"{_count(len(sweep.points), 'size')}, {100 * confidence:.0f} % intervals")
    disturbed = disturbed or {}
    half = ch.n_half
    rows = _line_rows(h.line, ("cannot tell", disturbed["n_half"]) if "n_half" in disturbed else
                      (units.NO_INTERVAL, half.note) if half.value is None else None, disturbed)
    rows.append(("fit", f"rms {units.percent(h.rms_rel_residual)}",
                 f"worst {units.percent(h.max_rel_residual, decimals=0)} at {units.size(h.max_rel_residual_bytes)}, "
                 f"weighted R² {h.r_squared:.4f}"))
    _rows(console, rows)
    console.print("[bold]Latency and bandwidth[/] (as Saphir 1994 defines them, each limited by the evidence)")
    rows = [(name, "cannot tell", disturbed[key]) if key in disturbed else term_row(name, getattr(ch, key), unit)
            for name, key, unit in TERMS]
    rows.append(("1/β, last segment", "cannot tell", disturbed["line_bandwidth"]) if "line_bandwidth" in disturbed
                else term_row("1/β, last segment", ch.line_bandwidth, "B/s"))
    _rows(console, rows)


def term_row(name: str, term, unit: str) -> tuple[str, str, str]:
    """One of Saphir's terms: its value (or "—" and why not), interval and where it was taken."""
    if term.value is None:
        return (name, units.NO_INTERVAL, term.note)
    note = f"{_ci(term.ci, unit)} {term.note}".strip()  # an extrapolated term's note says so
    return (name, units.value(term.value, unit), note)


def _fit_words(pw, points=()) -> str:
    """What the model leaves unexplained, in words: never "within its noise" when a size is off
    the model beyond its own interval, nor when no size has an interval of its own."""
    if points and all(p.ci_low_s is None for p in points):
        return "no size has an interval of its own (one value per size): judged against the scatter between sizes"
    if pw.fits_every_size:
        return f"every size lies within its noise and the {pw.tolerance * 100:.3g} % tolerance"
    worst = pw.worst_off_model
    others = len(pw.off_model) - 1
    more = f" (and {_count(others, 'other size')})" if others else ""
    return (f"but {units.size(worst.bytes)} is off the model by "
            f"{units.percent(worst.rel_residual, signed=True, decimals=0)} beyond its own interval{more}")


def _left_out(s: SeriesResult) -> str:
    """The sizes the model leaves out, and why: an end of the sweep with too few sizes beyond a
    knee for a segment, or a single size off its neighbours."""
    pw = s.model.sweep.piecewise
    if not pw.excluded_bytes:
        return ""
    sizes = [p.bytes for p in s.model.sweep.points]
    kept = [b for b in sizes if b not in pw.excluded_bytes]
    ends = [b for b in pw.excluded_bytes if not kept or b < kept[0] or b > kept[-1]]
    regime = {b for n in s.model.sweep.narrow for b in n.sizes}
    inner = [b for b in pw.excluded_bytes if b not in ends and b not in regime]
    parts = []
    if regime & set(pw.excluded_bytes):
        parts.append(f"{', '.join(units.size(b) for b in sorted(regime & set(pw.excluded_bytes)))} (a regime between "
                     "two switches, too few sizes for a line of its own)")
    if inner:
        parts.append(f"{', '.join(map(units.size, inner))} (a single size off its neighbours)")
    if ends:
        parts.append(f"{', '.join(map(units.size, ends))} (at an end of the sweep, too few sizes beyond a knee "
                     "for a segment of their own)")
    return "left out of the model: " + "; ".join(parts)


def _piecewise(console: Console, s: SeriesResult, held: dict[tuple[int, int], tuple[int, int]] | None = None,
               disturbed: dict[str, str] | None = None, segments: tuple[str, ...] = (),
               unconfirmed: dict[tuple[int, int], str] | None = None) -> None:
    """The piecewise model's segments and breakpoints; ``segments``: why each segment's α and β
    cannot be told (the answer's ``segments_disturbed``); ``unconfirmed``: the switches the answer
    cannot tell (``unconfirmed_switches``)."""
    pw = s.model.sweep.piecewise
    left_out = _left_out(s)
    unconfirmed = unconfirmed or {}
    if not pw.breakpoints:
        note = "" if pw.criterion else " (too few sizes to look for breakpoints)"
        found = "no breakpoint — one line" if pw.fits_every_size else "no breakpoint found"
        console.print(f"[bold]Piecewise model[/]: {found}; {_fit_words(pw, s.model.sweep.points)}{note}")
        if left_out:
            console.print(f"  {left_out}", markup=False)
        return
    console.print(f"[bold]Piecewise model[/]: {_count(len(pw.segments), 'segment')}, each breakpoint kept by an "
                  f"F test at 5 %; {_fit_words(pw, s.model.sweep.points)}")
    own = [*segments, *[""] * len(pw.segments)]
    for seg, why, told in zip(pw.segments, segments_cannot_tell(s.model.sweep, disturbed or {}, segments), own):
        n_half = f", n½ {units.size(seg.n_half_bytes)}" if math.isfinite(seg.n_half_bytes) and not why else ""
        slope = (f"β and 1/β: cannot tell ({why})" if why else f"β {units.beta(seg.beta_s_per_byte)} "
                 f"{_ci(seg.beta_ci_s_per_byte, 's/B')} = {units.rate(seg.bandwidth_bytes_per_s)}")
        # a segment whose times grow faster than a line (caches) has an intercept below 0: no latency
        below = " (an intercept below 0, no latency)" if seg.alpha_s < 0 else ""
        alpha = "α cannot tell" if told else f"α {units.seconds(seg.alpha_s)} {_ci(seg.alpha_ci_s, 's')}{below}"
        console.print(f"  {units.size(seg.from_bytes)} – {units.size(seg.to_bytes)}: {alpha}, {slope}{n_half}",
                      markup=False)
    labels = list(s.labels) + [None] * (len(pw.breakpoints) - len(s.labels))  # one per breakpoint, in order
    origins = list(s.model.sweep.provenance) + [None] * (len(pw.breakpoints) - len(s.model.sweep.provenance))
    for bp, label, origin in zip(pw.breakpoints, labels, origins):
        best = ""
        best_low, best_high = (held or {}).get((bp.low_bytes, bp.high_bytes), (bp.best_low_bytes, bp.best_high_bytes))
        if (best_low, best_high) != (bp.low_bytes, bp.high_bytes):
            best = f" (most likely between {units.size(best_low)} and {units.size(best_high)})"
        what = label.text if label is not None else "a switch"
        if (bp.low_bytes, bp.high_bytes) in unconfirmed:  # the answer's "cannot tell", said beside the label
            what = f"cannot tell ({unconfirmed[bp.low_bytes, bp.high_bytes]}): {what}"
        console.print(f"  between {units.size(bp.low_bytes)} and {units.size(bp.high_bytes)}{best}: {what}"
                      f"{_origin(origin)}", markup=False)
    if left_out:
        console.print(f"  {left_out}", markup=False)


def _origin(origin) -> str:
    if origin is None or not origin.launches:
        return ""
    by = f"{origin.launches} refinement launch{'es' if origin.launches > 1 else ''}"
    if origin.at_probe:
        return f" — {'found' if origin.found else 'located'} by {by} as a step at the eager-probe's limit"
    if origin.at_threshold:
        return f" — {'found' if origin.found else 'located'} by {by} as a step at the threshold the MPI was set to"
    return (f" — found by {by} where the sweep saw sizes off the model alone" if origin.found
            else f" — located by {by}")


FLAG_CODES = {"bimodal": "B", "warmup_drift": "W", "trend_drift": "T", "outliers": "O",
              "few_samples": "F", "wide_interval": "I", "single_value": "1",
              "near_resolution": "R", "not_validated": "X"}
FLAG_LEGEND = ("flags: SPIKE/DIP anomaly, REGIME a regime between two switches too narrow for a line (left out of "
               "the model), B bimodal, W warm-up, T trend, O outliers > 1 %, "
               "F few samples, I wide interval, 1 single value, R near clock resolution, "
               "X data mismatch")


def asymptote_cell(regime: Any, size: int, withheld: bool = False) -> str:
    """The per-size table's "÷ asym." cell: a ratio ("0.48×", "1.6×"), "?" when the asymptotic
    bandwidth is not known well enough to divide by (or the answer cannot tell it: ``withheld``),
    "-" without one (or at 0 B)."""
    if size == 0:
        return units.MISSING
    if withheld:
        return "?"
    frac = regime.fraction_of_asymptotic
    if frac is None:
        return "?" if regime.asymptote_unknown else units.MISSING
    return "<0.01×" if frac < 0.01 else units.ratio(frac, 2)


def aligned_note(model: Any) -> str:
    """What the model's per-size times are where a refinement launch measured at another level
    (fit's table and the report's say it alike); "" where none was."""
    aligned = model.aligned_bytes
    if not aligned:
        return ""
    return (f"{len(aligned)} size(s) a refinement added are on the sweep's level (multiplied by their launch's "
            f"factor; msgperf show lists them as measured): {', '.join(units.size(b) for b in aligned[:6])}"
            + (" …" if len(aligned) > 6 else ""))


def _per_size(console: Console, s: SeriesResult, disturbed: dict[str, str] | None = None) -> None:
    model = s.model
    sweep = model.sweep
    flags: dict[int, list[str]] = defaultdict(list)
    for a in sweep.anomalies:
        flags[a.bytes].append(a.kind.upper())
    for n in sweep.narrow:
        for b in n.sizes:
            flags[b].append("REGIME")
    for c in model.caveats:
        code = FLAG_CODES.get(c.kind)
        if c.bytes is not None and code and code not in flags[c.bytes]:
            flags[c.bytes].append(code)
    table = Grid(box="none")
    for name in ("size", "time", "model", "resid", "", "msgs/s", "bandwidth", "÷ asym.", "outl.", "flags"):
        table.add_column(name, justify="left" if name in ("size", "flags", "") else "right")
    for size, regime in zip(model.sizes, sweep.regimes):
        predicted = sweep.model_at(size.bytes)
        table.add_row(
            units.size(size.bytes), units.seconds(size.point.time_s), units.seconds(predicted),
            units.percent((size.point.time_s - predicted) / predicted, signed=True).replace(" %", "%")
            if predicted > 0 else units.MISSING,
            "α" if regime.regime == "alpha" else "β", units.count(regime.messages_per_s),
            units.rate(regime.bandwidth_bytes_per_s),
            asymptote_cell(regime, size.bytes, "asymptotic_bandwidth" in (disturbed or {})),
            str(size.outliers) if size.stats.n > 1 else units.MISSING, " ".join(flags[size.bytes]))
    render(console, table)
    level = aligned_note(model)
    level = f"time: {level}; " if level else ""
    unknown = ((disturbed or {}).get("asymptotic_bandwidth")
               or next((r.asymptote_unknown for r in sweep.regimes if r.asymptote_unknown), ""))
    asym = ("÷ asym.: the size's bandwidth over the asymptotic bandwidth (above 1× where the curve peaks "
            "before the largest size)" + (f", ?: cannot tell, {unknown}" if unknown else ""))
    console.print(f"  {level}α/β: which Hockney term dominates; {asym}; {FLAG_LEGEND}", style="dim")


def render_caveats(console: Console, caveats: Any) -> None:
    if not caveats:
        console.print("[bold]Caveats[/]: none")
        return
    console.print("[bold]Caveats[/]")
    by_kind: dict[str, list[Any]] = defaultdict(list)
    for c in caveats:
        by_kind[c.kind].append(c)
    for kind, items in by_kind.items():
        sizes = sorted({c.bytes for c in items if c.bytes is not None})
        if len(items) == 1 or not sizes:
            for c in items:
                console.print(f"  [yellow]![/] {safe(c.message)}\n    → {safe(c.advice)}")
            continue
        listed = ", ".join(units.size(b) for b in sizes[:5]) + (", …" if len(sizes) > 5 else "")
        console.print(f"  [yellow]![/] {kind.replace('_', ' ')} at {_count(len(sizes), 'size')} "
                      f"({listed}), e.g. {safe(items[0].message)}\n    → {safe(items[0].advice)}")


def _breaks(sweep) -> str:
    return ", ".join(f"{units.size(b.low_bytes)}–{units.size(b.high_bytes)}"
                     for b in sweep.piecewise.breakpoints) or "none"


def _launches(console: Console, s: SeriesResult) -> None:
    model = s.model
    comparison = model.launch_comparison
    if comparison is None:
        return
    within = comparison.within_rel
    n = len(comparison.launches)
    compared = [c.bytes for c in comparison.sizes]
    where = "" if len(compared) == len(model.sizes) else \
        f", compared on the sizes measured again ({', '.join(units.size(b) for b in compared)})"
    console.print(f"[bold]Launches[/]: {_count(n, 'launch', 'launches')}{where}; robust spread of "
                  f"samples within a launch {units.MISSING if within is None else units.percent(within)}, "
                  f"of launch medians {units.percent(comparison.between_rel)} (median over sizes)")
    models = {m.launch: m.sweep for m in model.per_launch}
    table = Grid(box="none", padding=(2, 1))
    for name in ("launch", "ratio", "z", "apart", "α", "β", "bandwidth", "switches"):
        table.add_column(name, justify="left" if name == "launch" else "right")
    for v in comparison.verdicts:
        sweep = models.get(v.launch)
        line = sweep.hockney.line if sweep else None
        table.add_row(str(v.launch), f"{v.typical_ratio:.3f}", f"{v.z:+.1f}", "yes" if v.apart else "no",
                      units.seconds(line.alpha_s) if line else units.MISSING,
                      units.beta(line.beta_s_per_byte) if line else units.MISSING,
                      units.rate(line.bandwidth_bytes_per_s) if line else units.MISSING,
                      str(len(sweep.piecewise.breakpoints)) if sweep else units.MISSING,
                      styles={3: "red"} if v.apart else None)
    line = model.sweep.hockney.line
    table.add_row("pooled", "", "", "", units.seconds(line.alpha_s), units.beta(line.beta_s_per_byte),
                  units.rate(line.bandwidth_bytes_per_s), str(len(model.sweep.piecewise.breakpoints)))
    render(console, table)
    for v in comparison.verdicts:
        if v.launch in models:
            console.print(f"  launch {v.launch} switches: {_breaks(models[v.launch])}")
    console.print(f"  ratio: a launch's typical time over the consensus; apart: {comparison.rule}; "
                  "launches that stand apart stay in the pooled model"
                  + ("" if models else "; no launch has a model of its own: not every size was measured again"),
                  style="dim")


def heading(s: SeriesResult, result: RunResult) -> str:
    """'Model of pingpong (launch 0): one-way time = half a round trip' — says what a time is."""
    if s.model is None:
        return f"Model of {s.name}"
    launches = s.model.launches
    scope = f"launch {launches[0]}" if len(launches) == 1 else f"{len(launches)} launches pooled"
    return f"Model of {s.name} ({scope}): {s.facts.time_words}"


# Caveats about the whole run rather than one series: said once under every model by show.
RUN_LEVEL = ("one_launch",)


def render_series(console: Console, s: SeriesResult, result: RunResult, per_size: bool = True,
                  skip: tuple[str, ...] = ()) -> None:
    """One series' model (what ``msgperf fit`` shows); caveats of the kinds in ``skip`` are left
    for the caller to say once."""
    if s.model is None:
        console.print(f"[bold]Model of {safe(s.name)}[/]: not fitted — {safe(s.not_modelled)}")
        return
    console.print(f"[bold]{safe(heading(s, result))}[/]")
    if s.model.flows > 1:
        console.print(f"  (each time covers {s.model.flows} messages of b bytes: bandwidths here "
                      "are per message; show's table counts all of them)", style="dim")
    disturbed, held = answer_says(result, s)
    _model(console, s, result.confidence, disturbed)
    _piecewise(console, s, held, disturbed, segments_disturbed_of(result.answer, s.name),
               unconfirmed_switches(result.answer, s.name))
    anomalies = s.model.sweep.anomalies
    console.print("[bold]Anomalies[/]: " + (", ".join(
        f"{units.size(a.bytes)} ({a.kind}, {units.percent(a.rel_deviation, signed=True, decimals=0)} off the model)"
        for a in anomalies) if anomalies else "none"))
    if per_size:
        _per_size(console, s, disturbed)
    _launches(console, s)
    render_caveats(console, [c for c in s.model.caveats if c.kind not in skip])


def render_models(console: Console, result: RunResult, per_size: bool = False) -> None:
    """Every series' model, or a one-line note where there is none (what ``show`` prints); the
    caveats about the whole run once, at the end."""
    run_level: dict[str, object] = {}
    for s in result.series:
        if s.model is None and s.not_modelled.startswith("no time-against-size model"):
            continue  # its own table says what it measured
        render_series(console, s, result, per_size=per_size, skip=RUN_LEVEL)
        console.print()
        for c in s.model.caveats if s.model is not None else ():
            if c.kind in RUN_LEVEL:
                run_level.setdefault(c.kind, c)
    if run_level:
        console.print("[bold]About the whole run[/]")
        for c in run_level.values():
            console.print(f"  [yellow]![/] {safe(c.message)}\n    → {safe(c.advice)}")
