"""The model summary in the terminal (rich): what ``msgperf show`` prints under its table and
``msgperf fit`` prints alone. Formatting only: every number comes from ``msgperf.analysis``.

Entry points: ``render_analysis(console, run)`` (analyses each pattern of a run and prints
it) and ``render_run_analysis(console, result)`` (prints an existing ``RunAnalysis``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from msgperf.analysis import AnalysisError, RunAnalysis, analyze_run, series_of
from msgperf.analysis.hockney import LineFit
from msgperf.analysis.points import TOLERANCE
from msgperf.present.units import format_count, format_seconds

# ---- units (display only) ------------------------------------------------------------------

_TIME = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))
_SIZE = (("GiB", float(1 << 30)), ("MiB", float(1 << 20)), ("KiB", float(1 << 10)), ("B", 1.0))
_RATE = (("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3), ("B/s", 1.0))  # decimal, as OSU and IMB
_BETA = (("µs/B", 1e-6), ("ns/B", 1e-9), ("ps/B", 1e-12))
Units = tuple[tuple[str, float], ...]


def _unit(value: float, units: Units) -> tuple[str, float]:
    for name, scale in units:
        if abs(value) >= scale:
            return name, scale
    return units[-1]


def _fmt(value: float | None, units: Units) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    name, scale = _unit(value, units)
    return f"{value / scale:.3g} {name}"


def fmt_time(seconds: float | None) -> str:
    return "-" if seconds is None else format_seconds(seconds)


def fmt_size(size: float | None) -> str:
    """Whole sizes exactly (4 KiB, 1536 KiB, 2045 B); fractional ones (an n½) to 3 digits."""
    if size is None or not math.isfinite(size):
        return "-"
    if float(size).is_integer():
        n = int(size)
        for name, scale in _SIZE:
            if abs(n) >= scale and n % int(scale) == 0:
                return f"{n // int(scale)} {name}"
    return _fmt(size, _SIZE)


def fmt_rate(bytes_per_s: float | None) -> str:
    return _fmt(bytes_per_s, _RATE)


def fmt_beta(s_per_byte: float | None) -> str:
    return _fmt(s_per_byte, _BETA)


def _ci(value: float, pair: tuple[float, float] | None, units: Units) -> str:
    """'[low – high unit]' in the unit of ``value``."""
    if pair is None:
        return ""
    lo, hi = pair
    if not math.isfinite(lo) and not math.isfinite(hi):
        return "[unbounded]"
    name, scale = _unit(max(abs(v) for v in (value, lo, hi) if math.isfinite(v)), units)
    left = f"{lo / scale:.3g}" if math.isfinite(lo) else "-∞"
    right = f"{hi / scale:.3g}" if math.isfinite(hi) else "∞"
    return f"[{left} – {right} {name}]"


def _count(n: int, word: str, plural: str = "") -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _rows(console: Console, rows: list[tuple[str, str, str]]) -> None:
    """Aligned 'name  value  note' lines (plain text: no wrapping tables)."""
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    for name, value, note in rows:
        console.print(f"  {name:<{w0}}  {value:>{w1}}  {note}".rstrip(), highlight=False,
                      markup=False)


# ---- sections ------------------------------------------------------------------------------


def _line_rows(line: LineFit) -> list[tuple[str, str, str]]:
    n_half_ok = math.isfinite(line.n_half_bytes)
    return [
        ("α latency", fmt_time(line.alpha_s), _ci(line.alpha_s, line.alpha_ci_s, _TIME)),
        ("β inverse bandwidth", fmt_beta(line.beta_s_per_byte),
         _ci(line.beta_s_per_byte, line.beta_ci_s_per_byte, _BETA)),
        ("bandwidth 1/β", fmt_rate(line.bandwidth_bytes_per_s),
         _ci(line.bandwidth_bytes_per_s, line.bandwidth_ci_bytes_per_s, _RATE)),
        ("n½ = α/β", fmt_size(line.n_half_bytes) if n_half_ok else "undefined",
         _ci(line.n_half_bytes, line.n_half_ci_bytes, _SIZE) if n_half_ok else ""),
    ]


def _model(console: Console, result: RunAnalysis) -> None:
    sweep = result.sweep
    h, pw, ch = sweep.hockney, sweep.piecewise, sweep.characteristics
    console.print(f"[bold]Hockney model[/] T(b) = α + β·b — robust fit over "
                  f"{_count(len(sweep.points), 'size')}, {100 * result.confidence:.0f} % intervals")
    rows = _line_rows(h.line)
    rows.append(("fit", f"rms {100 * h.rms_rel_residual:.1f} %",
                 f"worst {100 * h.max_rel_residual:.0f} % at {fmt_size(h.max_rel_residual_bytes)}, "
                 f"weighted R² {h.r_squared:.4f}"))
    _rows(console, rows)
    last = pw.segments[-1]
    which = "line" if len(pw.segments) == 1 else \
        f"last segment, {fmt_size(last.from_bytes)} – {fmt_size(last.to_bytes)}"
    zero = "at 0 B" if ch.zero_byte_size == 0 else \
        f"at {fmt_size(ch.zero_byte_size)}, the smallest size (0 B not measured)"
    console.print("[bold]Latency and bandwidth[/] (as Saphir 1994 defines them)")
    _rows(console, [
        ("zero-byte latency", fmt_time(ch.zero_byte_latency_s),
         f"{_ci(ch.zero_byte_latency_s, ch.zero_byte_latency_ci_s, _TIME)} measured {zero}".lstrip()),
        ("asymptotic latency", fmt_time(ch.asymptotic_latency_s),
         f"{_ci(ch.asymptotic_latency_s, ch.asymptotic_latency_ci_s, _TIME)} intercept of the {which}"),
        ("peak bandwidth", fmt_rate(ch.peak_bandwidth_bytes_per_s),
         f"measured at {fmt_size(ch.peak_bandwidth_size)}"),
        ("asymptotic bandwidth", fmt_rate(ch.asymptotic_bandwidth_bytes_per_s),
         f"{_ci(ch.asymptotic_bandwidth_bytes_per_s or math.nan, ch.asymptotic_bandwidth_ci_bytes_per_s, _RATE)}"
         f" 1/β of the {which}"),
    ])


def _piecewise(console: Console, result: RunAnalysis) -> None:
    pw = result.sweep.piecewise
    if not pw.breakpoints:
        note = "" if pw.criterion else " (too few sizes to look for breakpoints)"
        console.print(f"[bold]Piecewise model[/]: no breakpoint — one line fits every size "
                      f"within its noise and the {100 * pw.tolerance:.3g} % tolerance{note}")
        return
    console.print(f"[bold]Piecewise model[/]: {_count(len(pw.segments), 'segment')}, "
                  "breakpoints chosen by BIC")
    for s in pw.segments:
        n_half = f", n½ {fmt_size(s.n_half_bytes)}" if math.isfinite(s.n_half_bytes) else ""
        console.print(f"  {fmt_size(s.from_bytes)} – {fmt_size(s.to_bytes)}: α {fmt_time(s.alpha_s)} "
                      f"{_ci(s.alpha_s, s.alpha_ci_s, _TIME)}, β {fmt_beta(s.beta_s_per_byte)} "
                      f"{_ci(s.beta_s_per_byte, s.beta_ci_s_per_byte, _BETA)} = "
                      f"{fmt_rate(s.bandwidth_bytes_per_s)}{n_half}", highlight=False, markup=False)
    for bp in pw.breakpoints:
        best = ""
        if (bp.best_low_bytes, bp.best_high_bytes) != (bp.low_bytes, bp.high_bytes):
            best = (f" (most likely between {fmt_size(bp.best_low_bytes)} and "
                    f"{fmt_size(bp.best_high_bytes)})")
        console.print(f"  protocol switch between {fmt_size(bp.low_bytes)} and "
                      f"{fmt_size(bp.high_bytes)}{best}", highlight=False)


FLAG_CODES = {"bimodal": "B", "warmup_drift": "W", "trend_drift": "T", "outliers": "O",
              "few_samples": "F", "wide_interval": "I", "single_value": "1",
              "near_resolution": "R", "not_validated": "X"}
FLAG_LEGEND = ("flags: SPIKE/DIP anomaly, B bimodal, W warm-up, T trend, O outliers > 1 %, "
               "F few samples, I wide interval, 1 single value, R near clock resolution, "
               "X data mismatch")


def _per_size(console: Console, result: RunAnalysis) -> None:
    sweep = result.sweep
    flags: dict[int, list[str]] = defaultdict(list)
    for a in sweep.anomalies:
        flags[a.bytes].append(a.kind.upper())
    for c in result.caveats:
        code = FLAG_CODES.get(c.kind)
        if c.bytes is not None and code and code not in flags[c.bytes]:
            flags[c.bytes].append(code)
    table = Table(box=None, padding=(0, 1, 0, 1), show_edge=False)
    for name in ("size", "median", "model", "resid", "", "msgs/s", "bandwidth", "asym.",
                 "outl.", "flags"):
        table.add_column(name, justify="left" if name in ("size", "flags", "") else "right",
                         no_wrap=name != "flags")
    for size, regime in zip(result.sizes, sweep.regimes):
        model = sweep.piecewise.predict(size.bytes)
        frac = regime.fraction_of_asymptotic
        table.add_row(
            fmt_size(size.bytes), fmt_time(size.summary.median), fmt_time(model),
            f"{100 * (size.summary.median - model) / model:+.1f}%" if model > 0 else "-",
            "α" if regime.regime == "alpha" else "β", format_count(regime.messages_per_s),
            fmt_rate(regime.bandwidth_bytes_per_s),
            f"{100 * frac:.0f}%" if frac is not None and size.bytes > 0 else "-",
            str(size.outliers) if size.summary.n > 1 else "-", " ".join(flags[size.bytes]))
    console.print(table)
    console.print(f"  α/β: which Hockney term dominates; asym.: share of the asymptotic "
                  f"bandwidth; {FLAG_LEGEND}", style="dim", highlight=False)


def _caveats(console: Console, result: RunAnalysis) -> None:
    if not result.caveats:
        console.print("[bold]Caveats[/]: none")
        return
    console.print("[bold]Caveats[/]")
    by_kind: dict[str, list[Any]] = defaultdict(list)
    for c in result.caveats:
        by_kind[c.kind].append(c)
    for kind, items in by_kind.items():
        sizes = sorted({c.bytes for c in items if c.bytes is not None})
        if len(items) == 1 or not sizes:
            for c in items:
                console.print(f"  [yellow]![/] {escape(c.message)}\n    → {escape(c.advice)}",
                              highlight=False)
            continue
        listed = ", ".join(fmt_size(s) for s in sizes[:5]) + (", …" if len(sizes) > 5 else "")
        console.print(f"  [yellow]![/] {kind.replace('_', ' ')} at {_count(len(sizes), 'size')} "
                      f"({listed}), e.g. {escape(items[0].message)}\n    → {escape(items[0].advice)}",
                      highlight=False)


def _breaks(sweep) -> str:
    return ", ".join(f"{fmt_size(b.low_bytes)}–{fmt_size(b.high_bytes)}"
                     for b in sweep.piecewise.breakpoints) or "none"


def _launches(console: Console, result: RunAnalysis) -> None:
    comparison = result.launch_comparison
    if comparison is None:
        return
    within = comparison.within_rel
    n = len(comparison.launches)
    console.print(f"[bold]Launches[/]: {_count(n, 'launch', 'launches')}; robust spread of "
                  f"samples within a launch {'-' if within is None else f'{100 * within:.1f} %'}, "
                  f"of launch medians {100 * comparison.between_rel:.1f} % (median over sizes)",
                  highlight=False)
    models = {m.launch: m.sweep for m in result.per_launch}
    table = Table(box=None, padding=(0, 1, 0, 2), show_edge=False)
    for name in ("launch", "ratio", "z", "apart", "α", "β", "bandwidth", "switches"):
        table.add_column(name, justify="left" if name == "launch" else "right", no_wrap=True)
    for v in comparison.verdicts:
        sweep = models.get(v.launch)
        line = sweep.hockney.line if sweep else None
        table.add_row(str(v.launch), f"{v.typical_ratio:.3f}", f"{v.z:+.1f}",
                      "[red]yes[/]" if v.apart else "no",
                      fmt_time(line.alpha_s) if line else "-",
                      fmt_beta(line.beta_s_per_byte) if line else "-",
                      fmt_rate(line.bandwidth_bytes_per_s) if line else "-",
                      str(len(sweep.piecewise.breakpoints)) if sweep else "-")
    line = result.sweep.hockney.line
    table.add_row("pooled", "", "", "", fmt_time(line.alpha_s), fmt_beta(line.beta_s_per_byte),
                  fmt_rate(line.bandwidth_bytes_per_s), str(len(result.sweep.piecewise.breakpoints)))
    console.print(table)
    for v in comparison.verdicts:
        if v.launch in models:
            console.print(f"  launch {v.launch} switches: {_breaks(models[v.launch])}",
                          highlight=False)
    console.print(f"  ratio: a launch's typical time over the consensus; apart: {comparison.rule}; "
                  "launches that stand apart stay in the pooled model", style="dim",
                  highlight=False)


def render_run_analysis(console: Console, result: RunAnalysis, per_size: bool = True) -> None:
    """Print one pattern's analysis (what ``msgperf fit`` shows)."""
    scope = (f"launch {result.launches[0]}" if len(result.launches) == 1
             else f"{len(result.launches)} launches pooled")
    console.print(f"[bold]Model of {escape(result.series or 'samples')}[/] ({scope}): time per "
                  "message, one-way = half a round trip", highlight=False)
    if result.flows > 1:
        console.print(f"  (each time covers {result.flows} messages of b bytes: bandwidths here "
                      "are per message; show's table counts all of them)", style="dim",
                      highlight=False)
    _model(console, result)
    _piecewise(console, result)
    anomalies = result.sweep.anomalies
    console.print("[bold]Anomalies[/]: " + (", ".join(
        f"{fmt_size(a.bytes)} ({a.kind}, {100 * a.rel_deviation:+.0f} % off the model)"
        for a in anomalies) if anomalies else "none"), highlight=False)
    if per_size:
        _per_size(console, result)
    _launches(console, result)
    _caveats(console, result)


def render_analysis(console: Console, run: Any, pattern: str | None = None,
                    launch: int | None = None, per_size: bool = True,
                    tolerance: float = TOLERANCE) -> None:
    """Analyse and print every series (pattern and variant) of ``run``, or those of
    ``pattern``: what ``show`` calls. A series that cannot be modelled (a single size, say)
    gets a one-line note instead."""
    for name, variant in series_of(run):
        if pattern is not None and name != pattern:
            continue
        try:
            result = analyze_run(run, pattern=name, launch=launch, tolerance=tolerance,
                                 variant=variant)
        except AnalysisError as exc:
            label = f"{name} [{variant}]" if variant else name
            console.print(f"[bold]Model of {escape(label)}[/]: not fitted — {escape(str(exc))}",
                          highlight=False)
            continue
        render_run_analysis(console, result, per_size=per_size)
        console.print()
