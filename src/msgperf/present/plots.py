"""Figures of a run: what each shows. Every number comes from the run's ``RunResult`` (a series'
``SeriesAnalysis``, the contention table, a matrix grid); nothing is estimated here. Each
function returns a ``chart.Chart`` (its axes and layers, as data: tests read its series);
``save_figure`` writes it as SVG (svg_chart.py) or as PNG or PDF (mpl_chart.py, matplotlib), and
the report embeds the SVG.

Colours: Okabe & Ito's colour-blind-safe palette (Okabe & Ito 2008, "Color Universal Design").
Units: sizes in B/KiB/MiB (2^10), times in ns/µs/ms/s chosen per tick, bandwidth in MB/s
(10^6 B/s) or GB/s (10^9 B/s), stated on the axis.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import msgspec
import numpy as np

from msgperf import units
from msgperf.writing import Output
from msgperf.errors import MsgperfError
from msgperf.present import svg_chart
from msgperf.present.chart import (DPI, Axis, Bar, Box, Chart, Heatmap, Layer, Points, Rule, Span, data_range,
                                   layer_values, linear_ticks, log_ticks, padded)
from msgperf.data_text import printable

TITLE_LIMIT = 160
LEGEND_LIMIT = 80

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
             "#000000")
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW, BLACK = OKABE_ITO
CALM = (BLUE, ORANGE, GREEN, PURPLE, SKY, BLACK)  # lines that are not a warning
KINDS = ("time", "bandwidth", "variability", "launches", "contention", "matrix", "overlay")
FIGSIZE = (8.0, 5.0)
OVERLAY_MARKERS = ("o", "s", "D", "^", "v")


# ---- units ---------------------------------------------------------------------------------


def size_label(n: float) -> str:
    return units.size(n) if n > 0 else "0 B"


def time_label(s: float) -> str:
    if not math.isfinite(s) or s <= 0:
        return "0" if s == 0 else ""
    return units.seconds(s)


def rate_unit(max_bytes_per_s: float) -> tuple[float, str]:
    if max_bytes_per_s >= 1e9:
        return 1e9, "GB/s (10^9 B/s)"
    return 1e6, "MB/s (10^6 B/s)"


def zero_position(sizes: Sequence[float]) -> float:
    """Where 0 B is drawn on the log size axis: one octave left of the smallest positive size."""
    positive = [s for s in sizes if s > 0]
    return (min(positive) if positive else 1.0) / 2


def xs(sizes: Sequence[float], zero: float) -> np.ndarray:
    """Sizes as x positions: 0 B at ``zero``."""
    return np.array([s if s > 0 else zero for s in sizes], dtype=float)


def _size_axis(sizes: Sequence[float], label: str = "message size (B, KiB = 2^10 B, MiB = 2^20 B)") -> Axis:
    """Message sizes on a base-2 log axis that spans exactly the measured sizes (a margin of half
    an octave each side); 0 B, when measured, sits one octave left of the smallest positive size
    with its own tick, so neither end is clipped and no part of the width is empty."""
    zero = zero_position(sizes)
    positions = xs(sizes, zero)
    low, high = (float(positions.min()), float(positions.max())) if positions.size else (1.0, 1.0)
    exps = range(math.ceil(math.log2(max(low, 1e-300))), math.floor(math.log2(max(high, 1e-300))) + 1)
    step = max(1, math.ceil(len(exps) / 10))
    ticks = [(2.0 ** e, size_label(2.0 ** e)) for e in exps[::step] if not (0 in sizes and 2.0 ** e < zero * 1.9)]
    if 0 in sizes:
        ticks = [(zero, "0 B")] + ticks
    return Axis(label, "log", low / 2 ** 0.5, high * 2 ** 0.5, tuple(ticks), rotation=30)


def _log_axis(layers: Sequence[Layer], label: str, tick_label: Callable[[float], str]) -> Axis:
    """A log y axis over what ``layers`` draw (5 % margins), ticks at 1, 2 and 5 of every decade."""
    found = data_range((v for layer in layers for v in layer_values(layer, "y")), "log") or (1.0, 10.0)
    lo, hi = padded(*found, "log")
    return Axis(label, "log", lo, hi, log_ticks(lo, hi, tick_label))


def _time_axis(layers: Sequence[Layer], what: str = "time per message") -> Axis:
    return _log_axis(layers, f"{what} (ns, µs, ms)", time_label)


def _chart(title: str, x: Axis, y: Axis, layers: Sequence[Layer], size: tuple[float, float] = FIGSIZE) -> Chart:
    """A title and legend labels hold strings from files (hosts, MPI names, labels): shown as text
    (never as mathtext: "$\\frac{$" once raised a ParseSyntaxException in matplotlib) without
    control characters, cut when long."""
    kept = tuple(msgspec.structs.replace(layer, label=printable(layer.label, LEGEND_LIMIT))
                 if getattr(layer, "label", "") else layer for layer in layers)
    return Chart(printable(title, TITLE_LIMIT), size[0], size[1], x, y, kept)


def summaries_only(result: Any) -> bool:
    """Whether no size of the series has raw samples (another tool's output imported: one time per
    size), so there is no median, interval or spread to draw: the analysis says so in the sweep's
    ``no_per_size_noise`` caveat."""
    return any(c.kind == "no_per_size_noise" for c in result.sweep.caveats)


def _interval_points(result: Any, x: np.ndarray, colour: str, size: float, label: str, marker: str = "o") -> Points:
    """The medians with their intervals (a bound not estimated: the median itself)."""
    pts = result.sweep.points
    return Points(tuple(x.tolist()), tuple(p.time_s for p in pts), colour, marker, size,
                  low=tuple(p.ci_low_s if p.ci_low_s is not None else p.time_s for p in pts),
                  high=tuple(p.ci_high_s if p.ci_high_s is not None else p.time_s for p in pts), label=label)


def _title(result: Any, what: str, launch: int | None = None) -> str:
    """The series and what is drawn, with its scope: the one launch chosen (``plot --launch``), or
    how many launches are pooled."""
    scope = (f", launch {launch} alone" if launch is not None else
             "" if len(result.launches) <= 1 else f", {len(result.launches)} launches pooled")
    return f"{result.series}: {what}{scope}"


# ---- figures -------------------------------------------------------------------------------


def time_plot(result: Any, title: str | None = None, launch: int | None = None) -> Chart:
    """Median time per size with its interval, the piecewise model, breakpoints, anomalies."""
    sweep = result.sweep
    sizes = [p.bytes for p in sweep.points]
    zero = zero_position(sizes)
    layers: list[Layer] = [_interval_points(result, xs(sizes, zero), BLUE, 4,
                                            "the time per size (one value each: no interval)" if summaries_only(result)
                                            else f"median, {100 * result.confidence:.0f} % interval")]
    for i, seg in enumerate(sweep.piecewise.segments):
        grid = np.geomspace(max(seg.from_bytes, 1), max(seg.to_bytes, 1), 60)
        layers.append(Points(tuple(grid.tolist()), tuple(seg.predict(grid).tolist()), ORANGE, line="-", width=1.8,
                             label="piecewise model α + β·b" if i == 0 else ""))
        if seg.from_bytes == 0:
            layers.append(Points((zero,), (float(seg.predict(0)),), ORANGE, "_", 12))
    for i, bp in enumerate(sweep.piecewise.breakpoints):
        layers.append(Span(bp.low_bytes if bp.low_bytes > 0 else zero, bp.high_bytes, GREEN,
                           label="breakpoint interval" if i == 0 else ""))
        layers.append(Rule("x", math.sqrt(max(bp.best_low_bytes, zero) * bp.best_high_bytes), GREEN, "--", 1.0))
    if sweep.anomalies:
        layers.append(Points(tuple(xs([a.bytes for a in sweep.anomalies], zero).tolist()),
                             tuple(a.time_s for a in sweep.anomalies), VERMILLION, "X", 10,
                             label="anomaly (off the model)"))
    y = _time_axis(layers, "one-way time" if result.metric == "one_way" else "time per message")
    return _chart(title or _title(result, "time against size", launch), _size_axis(sizes), y, layers)


def bandwidth_plot(result: Any, upper_bound: float | None = None,
                   upper_label: str = "memcpy (hardware bound)", title: str | None = None,
                   launch: int | None = None, withheld: Mapping[str, str] | None = None) -> Chart:
    """b / T(b) per size (bytes x flows), the asymptotic bandwidth, n½ and a hardware bound;
    ``withheld``: the terms the answer cannot tell (answer.disturbed_terms), which are not drawn
    as findings (the measured points are)."""
    withheld = withheld or {}
    sweep = result.sweep
    ch = sweep.characteristics
    sizes = [r.bytes for r in sweep.regimes if r.bytes > 0]
    bw = [r.bandwidth_bytes_per_s * result.flows for r in sweep.regimes if r.bytes > 0]
    candidates = bw + [v for v in (ch.line_bandwidth.value, upper_bound) if v is not None and math.isfinite(v)]
    scale, unit = rate_unit(max(candidates, default=1.0))
    layers: list[Layer] = [Points(tuple(sizes), tuple(v / scale for v in bw), BLUE, "o", 4, "-",
                                  label="measured b / T(b)" if summaries_only(result) else "measured b / median T(b)")]
    line_bw = ch.line_bandwidth
    if line_bw.value is not None and math.isfinite(line_bw.value) and line_bw.value > 0 and "line_bandwidth" not in withheld:
        what = "1/β of the last segment" + (", extrapolated: above every measured bandwidth" if line_bw.extrapolated else "")
        layers.append(Rule("y", line_bw.value * result.flows / scale, ORANGE, ":" if line_bw.extrapolated else "--",
                           label=f"{what} = {units.rate(line_bw.value * result.flows)}"))
    asym = ch.asymptotic_bandwidth_bytes_per_s
    if asym is not None and math.isfinite(asym) and asym > 0 and "asymptotic_bandwidth" not in withheld:
        layers.append(Points((ch.asymptotic_bandwidth.sizes[-1],), (asym * result.flows / scale,), VERMILLION, "s", 8,
                             label=f"asymptotic bandwidth (Saphir: at the largest size) = {units.rate(asym * result.flows)}"))
    n_half = ch.n_half.value  # by the answer's rule: none where one line misses the sizes
    if n_half is not None and "n_half" not in withheld and sizes and min(sizes) <= n_half <= max(sizes):
        layers.append(Rule("x", n_half, GREEN, ":", 1.5, label=f"n½ = α/β = {size_label(n_half)}"))
    if upper_bound is not None and math.isfinite(upper_bound) and upper_bound > 0:
        layers.append(Rule("y", upper_bound / scale, BLACK, "-.", 1.2, label=f"{upper_label}: {units.rate(upper_bound)}"))
    y = _log_axis(layers, f"bandwidth, {unit}", lambda v: f"{v:g}")
    return _chart(title or _title(result, "bandwidth against size", launch), _size_axis(sizes or [1]), y, layers)


CROWDED = 24  # sizes on the variability plot past which its markers shrink


def variability_plot(result: Any, title: str | None = None, launch: int | None = None) -> Chart:
    """Per size: the box (quartiles, whiskers at the 5th and 95th percentiles), mean ± sd as
    error bars, min and max, and the samples flagged as outliers (from the analysis)."""
    if summaries_only(result):
        raise MsgperfError(f"{result.series}: one time per size (an imported summary, no samples): no spread to "
                           "draw; the variability plot needs a run msgperf measured")
    sizes = result.sizes
    pos = tuple(float(i) for i in range(len(sizes)))
    # markers shrink with the room each size has, so that many sizes do not bury their boxes
    marker = 4.0 if len(sizes) <= CROWDED else max(2.5, 4.0 * CROWDED / len(sizes))
    mean = [s.stats.mean for s in sizes]
    # On a log axis mean - sd can fall below zero: the bar stops at the smallest sample instead.
    layers: list[Layer] = [Points(tuple(p + 0.3 for p in pos), tuple(mean), ORANGE, "D", 0.75 * marker,
                                  low=tuple(m - max(min(s.stats.std, m - s.stats.min), 0.0) for m, s in zip(mean, sizes)),
                                  high=tuple(m + s.stats.std for m, s in zip(mean, sizes)),
                                  label="mean ± standard deviation")]
    layers.append(Points(pos, tuple(s.stats.min for s in sizes), GREEN, "v", marker, label="min"))
    layers.append(Points(pos, tuple(s.stats.max for s in sizes), PURPLE, "^", marker, label="max"))
    fx: list[float] = []
    fy: list[float] = []
    for p, s in zip(pos, sizes):
        for m in s.measurements:
            fx.extend([p - 0.3] * m.outliers.values.size)
            fy.extend(m.outliers.values.tolist())
    layers.append(Points(tuple(fx), tuple(fy), VERMILLION, "x", marker, alpha=0.7,
                         label="flagged outliers (|modified z| > 3.5)"))
    # the boxes last: drawn over the markers
    layers += [Box(p, 0.25, s.stats.p5, s.stats.p25, s.stats.median, s.stats.p75, s.stats.p95, BLUE, SKY)
               for p, s in zip(pos, sizes)]
    every = math.ceil(len(sizes) / 32)  # a label per size while they fit side by side
    x = Axis("message size; box: quartiles and median, whiskers: 5th–95th percentile", "linear", -0.6,
             len(sizes) - 0.4, tuple((p, size_label(s.bytes)) for p, s in zip(pos[::every], sizes[::every])),
             rotation=45)
    return _chart(title or _title(result, "variability per size", launch), x, _time_axis(layers), layers, (9.0, 5.0))


def launches_plot(result: Any, title: str | None = None) -> Chart:
    """One line per launch (median per size, relative to the consensus), apart launches marked."""
    comp = result.launch_comparison
    if comp is None:
        raise MsgperfError("the per-launch plot needs several launches that measured the same sizes (msgperf run "
                           "--repeat N)" + (f"; {result.series}'s {len(result.launches)} launches each measured sizes "
                                            "of their own (the sweep, the answer's sizes, a refinement)"
                                            if len(result.launches) > 1 else ""))
    apart = {v.launch: v for v in comp.verdicts}
    sizes = [sp.bytes for sp in comp.sizes]
    x = tuple(xs(sizes, zero_position(sizes)).tolist())
    layers: list[Layer] = []
    for i, launch in enumerate(comp.launches):
        rel = tuple(dict(sp.medians).get(launch, math.nan) / sp.consensus_s for sp in comp.sizes)
        v = apart.get(launch)
        outlying = v is not None and v.apart
        layers.append(Points(x, rel, VERMILLION if outlying else CALM[i % len(CALM)], "s" if outlying else "o", 4,
                             "--" if outlying else "-", 2.5 if outlying else 1.2,
                             label=f"launch {launch}" + (f" — stands apart ({units.ratio(v.typical_ratio)})"
                                                         if outlying else "")))
    layers.append(Rule("y", 1.0, BLACK, width=0.8))
    found = data_range((v for layer in layers for v in layer_values(layer, "y")), "linear") or (0.5, 1.5)
    lo, hi = padded(*found, "linear")
    y = Axis("launch median / median of the launch medians", "linear", lo, hi, linear_ticks(lo, hi, lambda v: f"{v:g}"))
    return _chart(title or f"{result.series}: {len(comp.launches)} launches, one line each", _size_axis(sizes), y, layers)


def contention_plot(contention: Any, title: str | None = None) -> Chart:
    """pairs: the slowest pair's one-way time against the number of active pairs, per size."""
    if contention is None or not contention.rows:
        raise MsgperfError("the contention plot needs a 'pairs' measurement (msgperf run --pattern pairs --np 4)")
    rows = list(contention.rows)
    if len(rows) > 6:
        idx = np.unique(np.linspace(0, len(rows) - 1, 6).round().astype(int))
        rows = [rows[i] for i in idx]
    layers: list[Layer] = [Points(tuple(float(c.active_pairs) for c in row.cells), tuple(c.slowest_s for c in row.cells),
                                  OKABE_ITO[i % 8], "o", 6, "-", label=size_label(row.bytes) if row.bytes else "0 B")
                           for i, row in enumerate(rows)]
    steps = list(contention.steps)
    x = Axis("active pairs at once", "log", min(steps) / 1.3, max(steps) * 1.3, tuple((float(s), f"{s:g}") for s in steps))
    return _chart(title or "pairs: contention as pairs are added", x, _time_axis(layers, "slowest pair's one-way time"),
                  layers)


def matrix_plot(grid: Any, title: str | None = None) -> Chart:
    """Every ordered rank pair as a heatmap (one-way time at 0 B, bandwidth above), with lines
    at host boundaries."""
    if grid is None or not grid.times_s:
        raise MsgperfError("the matrix plot needs a 'matrix' measurement (msgperf run --pattern matrix)")
    ranks = list(grid.ranks)
    values = np.array([[math.nan if (v := grid.value(a, b)) is None else v for b in ranks] for a in ranks], dtype=float)
    if grid.quantity == "bandwidth":
        scale, unit = rate_unit(float(np.nanmax(values)))
        what = f"bandwidth, {unit}"
    else:
        scale, what = 1e-6, "one-way time, µs"
    shown = values / scale
    finite = shown[np.isfinite(shown)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if high == low:  # one value everywhere: the middle of the colours, on a range of its own
        low, high = low - 0.5, high + 0.5
    layers: list[Layer] = [Heatmap(tuple(tuple(row) for row in shown.tolist()), low, high, what,
                                   linear_ticks(low, high, lambda v: f"{v:g}", most=7))]
    hosts = grid.hosts
    if hosts:
        names = [hosts.get(r, "") for r in ranks]
        for i in range(1, len(ranks)):
            if names[i] != names[i - 1]:
                layers += [Rule("y", i - 0.5, VERMILLION, width=2), Rule("x", i - 0.5, VERMILLION, width=2)]
    ticks = tuple((float(i), str(r)) for i, r in enumerate(ranks))
    x = Axis("responder rank", "linear", -0.5, len(ranks) - 0.5, ticks)
    y = Axis("initiator rank", "linear", -0.5, len(ranks) - 0.5, ticks, inverted=True)
    return _chart(title or f"matrix: every ordered pair, {size_label(grid.bytes) if grid.bytes else '0 B'}"
                  + (" (red lines: host boundaries)" if hosts and len(set(hosts.values())) > 1 else ""),
                  x, y, layers, (6.5, 5.5))


def overlay_plot(results: Sequence[tuple[str, Any]], title: str | None = None) -> Chart:
    """Several series in one figure: each one's medians with intervals and its piecewise model."""
    if not results:
        raise MsgperfError("nothing to overlay")
    all_sizes = [p.bytes for _, result in results for p in result.sweep.points]
    zero = zero_position(all_sizes)
    layers: list[Layer] = []
    for i, (label, result) in enumerate(results):
        # past eight series the colours come round again, with another marker
        colour, marker = OKABE_ITO[i % len(OKABE_ITO)], OVERLAY_MARKERS[i // len(OKABE_ITO) % len(OVERLAY_MARKERS)]
        layers.append(_interval_points(result, xs([p.bytes for p in result.sweep.points], zero), colour, 3, label,
                                       marker))
        # the model's segments as one line broken by NaN (drawn apart, as separate lines were)
        model_x: list[float] = []
        model_y: list[float] = []
        for seg in result.sweep.piecewise.segments:
            grid = np.geomspace(max(seg.from_bytes, 1), max(seg.to_bytes, 1), 40)
            model_x += [*grid.tolist(), math.nan]
            model_y += [*seg.predict(grid).tolist(), math.nan]
        if model_x:
            layers.append(Points(tuple(model_x), tuple(model_y), colour, line="-", width=1.2, alpha=0.8))
    many = f"{len(results)} runs" if len(results) > 1 else "1 run"
    return _chart(title or f"{many}: median time and fitted model", _size_axis(all_sizes),
                  _time_axis(layers), layers)


# ---- output --------------------------------------------------------------------------------


REGIME_COLOURS = {"eager": BLUE, "rendezvous": ORANGE, "eager/rendezvous": PURPLE,
                  "latency-bound": SKY, "bandwidth-bound": GREEN}


def profile_histogram_plot(advice: Any, title: str | None = None) -> Chart:
    """The sizes a profiled program sent (power-of-two buckets, all ranks), each bar coloured by
    the model's regime there (``ProfileAdvice.histogram``), with the eager limit and n½ of the
    model's run marked."""
    bins = advice.histogram
    sizes = [max(b.low_bytes, 0) for b in bins]
    zero = zero_position(sizes)
    seen: set[str] = set()
    layers: list[Layer] = []
    for pos, b in zip(xs(sizes, zero).tolist(), bins):  # the bucket [low, 2·low)
        layers.append(Bar(pos, pos * 0.9, float(b.messages), REGIME_COLOURS.get(b.regime, BLACK),
                          b.regime if b.regime not in seen else ""))
        seen.add(b.regime)
    basis = advice.basis
    marks = [(basis.eager_limit_bytes, f"eager limit {units.exact_bytes(basis.eager_limit_bytes)}", VERMILLION, "--"),
             (basis.n_half_bytes, f"n½ = {units.size(basis.n_half_bytes)}" if basis.n_half_bytes else "", BLACK, ":")]
    layers += [Rule("x", value, colour, style, 1.2, label) for value, label, colour, style in marks if value]
    top = 2.0 * max((b.messages for b in bins), default=1)
    y = Axis("messages sent (all ranks)", "log", 0.7, top, log_ticks(0.7, top, lambda v: f"{v:g}"))  # bars from 1 up
    x = _size_axis(sizes + [2 * max(sizes, default=1)] + [v for v, *_ in marks if v],
                   "message size: each bar one power-of-two bucket [s, 2s) (B, KiB = 2^10 B, MiB = 2^20 B)")
    return _chart(title or f"{advice.program}: sizes sent against the model's regimes", x, y, layers)


def save_figure(chart: Chart, to: Output) -> Path:
    """Write ``chart`` as SVG (svg_chart.py), PNG or PDF (mpl_chart.py) by the file's suffix,
    whole, to the file the guard allowed (writing.py)."""
    fmt = to.path.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg", "pdf"):
        raise MsgperfError(f"{to.path}: write a .png, .svg or .pdf file")
    if fmt == "svg":
        with to.text(parents=True) as out:
            out.write(svg_chart.svg(chart))
    else:
        from msgperf.present import mpl_chart  # noqa: PLC0415 (lazy: matplotlib, for PNG and PDF only)

        with to.temporary(parents=True) as tmp:
            mpl_chart.figure(chart).savefig(tmp, format=fmt, dpi=DPI)
    return to.path
