"""Figures of a run (matplotlib, drawn off-screen): every number comes from the run's
``RunResult`` (a series' ``SeriesAnalysis``, the contention table, a matrix grid); nothing is
estimated here. Each function returns a ``matplotlib.figure.Figure``
(tests count its series); ``save_figure`` writes it as PNG, SVG or PDF by the file's suffix.

matplotlib is imported inside the functions (Agg, no display needed), so that commands that do
not plot never pay for it.

Colours: Okabe & Ito's colour-blind-safe palette (Okabe & Ito 2008, "Color Universal Design").
Units: sizes in B/KiB/MiB (2^10), times in ns/µs/ms/s chosen per tick, bandwidth in MB/s
(10^6 B/s) or GB/s (10^9 B/s), stated on the axis.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from msgperf import units
from msgperf.writing import Output
from msgperf.errors import MsgperfError
from msgperf.present.text import printable

TITLE_LIMIT = 160
LEGEND_LIMIT = 80

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
             "#000000")
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW, BLACK = OKABE_ITO
CALM = (BLUE, ORANGE, GREEN, PURPLE, SKY, BLACK)  # lines that are not a warning
KINDS = ("time", "bandwidth", "variability", "launches", "contention", "matrix", "overlay")
FIGSIZE = (8.0, 5.0)
DPI = 100


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


def _figure(nrows: int = 1, ncols: int = 1, size: tuple[float, float] = FIGSIZE):
    from matplotlib.figure import Figure  # noqa: PLC0415 (lazy: plotting only)

    # Fixed margins rather than a layout engine: constrained layout took a third of a report's
    # time (bench/analysis_cost.py) for figures whose layout never changes.
    fig = Figure(figsize=size, dpi=DPI)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    w, h = size
    fig.subplots_adjust(left=0.9 / w, right=1 - 0.25 / w, bottom=0.75 / h, top=1 - 0.4 / h)
    return fig, axes


def zero_position(sizes: Sequence[float]) -> float:
    """Where 0 B is drawn on the log size axis: one octave left of the smallest positive size."""
    positive = [s for s in sizes if s > 0]
    return (min(positive) if positive else 1.0) / 2


def xs(sizes: Sequence[float], zero: float) -> np.ndarray:
    """Sizes as x positions: 0 B at ``zero``."""
    return np.array([s if s > 0 else zero for s in sizes], dtype=float)


def _size_axis(ax: Any, sizes: Sequence[float]) -> None:
    """Message sizes on a base-2 log axis that spans exactly the measured sizes (a margin of half
    an octave each side); 0 B, when measured, sits one octave left of the smallest positive size
    with its own tick, so neither end is clipped and no part of the width is empty."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: PLC0415

    ax.set_xscale("log", base=2)
    zero = zero_position(sizes)
    positions = xs(sizes, zero)
    low, high = float(positions.min(initial=1.0)), float(positions.max(initial=1.0))
    ax.set_xlim(low / 2 ** 0.5, high * 2 ** 0.5)
    exps = range(math.ceil(math.log2(max(low, 1e-300))), math.floor(math.log2(max(high, 1e-300))) + 1)
    step = max(1, math.ceil(len(exps) / 10))
    ticks = [2.0 ** e for e in exps[::step] if not (0 in sizes and 2.0 ** e < zero * 1.9)]
    if 0 in sizes:
        ticks = [zero] + ticks
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "0 B" if 0 in sizes and abs(v - zero) < zero * 1e-9
                                               else size_label(v)))
    ax.set_xlabel("message size (B, KiB = 2^10 B, MiB = 2^20 B)")
    ax.tick_params(axis="x", which="major", labelrotation=30)  # asking each label made every tick early


def _time_axis(ax: Any, what: str = "time per message") -> None:
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator  # noqa: PLC0415

    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: time_label(v)))
    # no minor ticks: the major ones mark 1, 2 and 5 of every decade already, and the unlabelled
    # minor ones were a tenth of a report's plotting
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylabel(f"{what} (ns, µs, ms)")


def _set_title(ax: Any, title: str) -> None:
    """A title holds strings from files (hosts, MPI names, labels): shown as text, never as
    mathtext ("$\\frac{$" once raised a ParseSyntaxException) nor control characters, cut when long."""
    # y=1.0: the title sits above the axes as matplotlib would place it here (no axis on top);
    # placing it itself took a fifth of a report's plotting (it measured every tick label)
    ax.set_title(printable(title, TITLE_LIMIT), fontsize=11, y=1.0).set_parse_math(False)


def _finish(ax: Any, title: str) -> None:
    _set_title(ax, title)
    ax.grid(True, which="major", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        legend = ax.legend(handles, [printable(l, LEGEND_LIMIT) for l in labels], fontsize=8, loc="best")
        for text in legend.get_texts():
            text.set_parse_math(False)


def _title(result: Any, what: str) -> str:
    scope = ("" if len(result.launches) <= 1 else f", {len(result.launches)} launches pooled")
    return f"{result.series}: {what}{scope}"


# ---- figures -------------------------------------------------------------------------------


def time_plot(result: Any, title: str | None = None):
    """Median time per size with its interval, the piecewise model, breakpoints, anomalies."""
    fig, axes = _figure()
    ax = axes[0][0]
    sweep = result.sweep
    pts = sweep.points
    sizes = [p.bytes for p in pts]
    zero = zero_position(sizes)
    x = xs(sizes, zero)
    y = np.array([p.time_s for p in pts])
    lo = np.array([p.ci_low_s if p.ci_low_s is not None else p.time_s for p in pts])
    hi = np.array([p.ci_high_s if p.ci_high_s is not None else p.time_s for p in pts])
    ax.errorbar(x, y, yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)], fmt="o", ms=4,
                color=BLUE, ecolor=BLUE, capsize=2,
                label=f"median, {100 * result.confidence:.0f} % interval")
    for i, seg in enumerate(sweep.piecewise.segments):
        grid = np.geomspace(max(seg.from_bytes, 1), max(seg.to_bytes, 1), 60)
        ax.plot(grid, seg.predict(grid), "-", color=ORANGE, lw=1.8,
                label="piecewise model α + β·b" if i == 0 else None)
        if seg.from_bytes == 0:
            ax.plot([zero], [float(seg.predict(0))], "_", color=ORANGE, ms=12)
    for i, bp in enumerate(sweep.piecewise.breakpoints):
        ax.axvspan(bp.low_bytes if bp.low_bytes > 0 else zero, bp.high_bytes, color=GREEN, alpha=0.15,
                   label="breakpoint interval" if i == 0 else None)
        ax.axvline(math.sqrt(max(bp.best_low_bytes, zero) * bp.best_high_bytes), color=GREEN, ls="--", lw=1)
    if sweep.anomalies:
        ax.plot(xs([a.bytes for a in sweep.anomalies], zero), [a.time_s for a in sweep.anomalies], "X",
                color=VERMILLION, ms=10, ls="none", label="anomaly (off the model)")
    _size_axis(ax, sizes)
    _time_axis(ax, "one-way time" if result.metric == "one_way" else "time per message")
    _finish(ax, title or _title(result, "time against size"))
    return fig


def bandwidth_plot(result: Any, upper_bound: float | None = None,
                   upper_label: str = "memcpy (hardware bound)", title: str | None = None):
    """b / T(b) per size (bytes x flows), the asymptotic bandwidth, n½ and a hardware bound."""
    fig, axes = _figure()
    ax = axes[0][0]
    sweep = result.sweep
    ch = sweep.characteristics
    sizes = [r.bytes for r in sweep.regimes if r.bytes > 0]
    bw = [r.bandwidth_bytes_per_s * result.flows for r in sweep.regimes if r.bytes > 0]
    candidates = bw + [v for v in (ch.line_bandwidth.value, upper_bound) if v is not None and math.isfinite(v)]
    scale, unit = rate_unit(max(candidates, default=1.0))
    ax.plot(sizes, np.array(bw) / scale, "o-", color=BLUE, ms=4, label="measured b / median T(b)")
    line_bw = ch.line_bandwidth
    if line_bw.value is not None and math.isfinite(line_bw.value) and line_bw.value > 0:
        what = "1/β of the last segment" + (", extrapolated: above every measured bandwidth" if line_bw.extrapolated else "")
        ax.axhline(line_bw.value * result.flows / scale, color=ORANGE, ls=":" if line_bw.extrapolated else "--",
                   label=f"{what} = {units.rate(line_bw.value * result.flows)}")
    asym = ch.asymptotic_bandwidth_bytes_per_s
    if asym is not None and math.isfinite(asym) and asym > 0:
        ax.plot([ch.asymptotic_bandwidth.sizes[-1]], [asym * result.flows / scale], "s", color=VERMILLION, ms=8,
                ls="none", label=f"asymptotic bandwidth (Saphir: at the largest size) = {units.rate(asym * result.flows)}")
    n_half = sweep.hockney.line.n_half_bytes
    if math.isfinite(n_half) and n_half > 0 and sizes and min(sizes) <= n_half <= max(sizes):
        ax.axvline(n_half, color=GREEN, ls=":", lw=1.5, label=f"n½ = α/β = {size_label(n_half)}")
    if upper_bound is not None and math.isfinite(upper_bound) and upper_bound > 0:
        ax.axhline(upper_bound / scale, color=BLACK, ls="-.", lw=1.2,
                   label=f"{upper_label}: {units.rate(upper_bound)}")
    _size_axis(ax, sizes or [1])
    from matplotlib.ticker import FuncFormatter  # noqa: PLC0415

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_ylabel(f"bandwidth, {unit}")
    _finish(ax, title or _title(result, "bandwidth against size"))
    return fig


def variability_plot(result: Any, title: str | None = None):
    """Per size: the box (quartiles, whiskers at the 5th and 95th percentiles), mean ± sd as
    error bars, min and max, and the samples flagged as outliers (from the analysis)."""
    fig, axes = _figure(size=(9.0, 5.0))
    ax = axes[0][0]
    sizes = result.sizes
    pos = np.arange(len(sizes), dtype=float)
    boxes = [{"med": s.stats.median, "q1": s.stats.p25, "q3": s.stats.p75,
              "whislo": s.stats.p5, "whishi": s.stats.p95, "fliers": [],
              "label": size_label(s.bytes)} for s in sizes]
    ax.bxp(boxes, positions=pos, widths=0.5, showfliers=False, patch_artist=True,
           boxprops={"facecolor": SKY, "alpha": 0.5, "edgecolor": BLUE},
           medianprops={"color": BLUE, "lw": 2}, whiskerprops={"color": BLUE},
           capprops={"color": BLUE})
    mean = np.array([s.stats.mean for s in sizes])
    sd = np.array([s.stats.std for s in sizes])
    low = np.array([s.stats.min for s in sizes])
    # On a log axis mean - sd can fall below zero: the bar stops at the smallest sample instead.
    ax.errorbar(pos + 0.3, mean, yerr=[np.clip(np.minimum(sd, mean - low), 0, None), sd], fmt="D", ms=3,
                color=ORANGE, capsize=2, label="mean ± standard deviation")
    ax.plot(pos, [s.stats.min for s in sizes], "v", color=GREEN, ms=4, ls="none", label="min")
    ax.plot(pos, [s.stats.max for s in sizes], "^", color=PURPLE, ms=4, ls="none", label="max")
    fx, fy = [], []
    for i, s in enumerate(sizes):
        for m in s.measurements:
            fx.extend([pos[i] - 0.3] * m.outliers.values.size)
            fy.extend(m.outliers.values.tolist())
    ax.plot(fx, fy, "x", color=VERMILLION, ms=4, ls="none", alpha=0.7,
            label="flagged outliers (|modified z| > 3.5)")
    ax.set_xticks(pos, [b["label"] for b in boxes], rotation=45, fontsize=8)
    ax.set_xlim(-0.6, len(sizes) - 0.4)
    ax.set_xlabel("message size; box: quartiles and median, whiskers: 5th–95th percentile")
    _time_axis(ax)
    _finish(ax, title or _title(result, "variability per size"))
    return fig


def launches_plot(result: Any, title: str | None = None):
    """One line per launch (median per size, relative to the consensus), apart launches marked."""
    fig, axes = _figure()
    ax = axes[0][0]
    comp = result.launch_comparison
    if comp is None:
        raise MsgperfError("the per-launch plot needs several launches (msgperf run --repeat N)")
    apart = {v.launch: v for v in comp.verdicts}
    sizes = [sp.bytes for sp in comp.sizes]
    x = xs(sizes, zero_position(sizes))
    for i, launch in enumerate(comp.launches):
        rel = [dict(sp.medians).get(launch, math.nan) / sp.consensus_s for sp in comp.sizes]
        v = apart.get(launch)
        outlying = v is not None and v.apart
        ax.plot(x, rel, "o-" if not outlying else "s--", ms=4, lw=2.5 if outlying else 1.2,
                color=VERMILLION if outlying else CALM[i % len(CALM)],
                label=f"launch {launch}" + (f" — stands apart ({units.ratio(v.typical_ratio)})" if outlying else ""))
    ax.axhline(1.0, color=BLACK, lw=0.8)
    _size_axis(ax, sizes)
    ax.set_ylabel("launch median / median of the launch medians")
    _finish(ax, title or f"{result.series}: {len(comp.launches)} launches, one line each")
    return fig


def contention_plot(contention: Any, title: str | None = None):
    """pairs: the slowest pair's one-way time against the number of active pairs, per size."""
    if contention is None or not contention.rows:
        raise MsgperfError("the contention plot needs a 'pairs' measurement (msgperf run --pattern pairs --np 4)")
    fig, axes = _figure()
    ax = axes[0][0]
    rows = list(contention.rows)
    if len(rows) > 6:
        idx = np.unique(np.linspace(0, len(rows) - 1, 6).round().astype(int))
        rows = [rows[i] for i in idx]
    for i, row in enumerate(rows):
        ax.plot([c.active_pairs for c in row.cells], [c.slowest_s for c in row.cells], "o-",
                color=OKABE_ITO[i % 8], label=size_label(row.bytes) if row.bytes else "0 B")
    ax.set_xscale("log", base=2)
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: PLC0415
    ax.xaxis.set_major_locator(FixedLocator(list(contention.steps)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlim(min(contention.steps) / 1.3, max(contention.steps) * 1.3)
    ax.set_xlabel("active pairs at once")
    _time_axis(ax, "slowest pair's one-way time")
    _finish(ax, title or "pairs: contention as pairs are added")
    return fig


def matrix_plot(grid: Any, title: str | None = None):
    """Every ordered rank pair as a heatmap (one-way time at 0 B, bandwidth above), with lines
    at host boundaries."""
    if grid is None or not grid.times_s:
        raise MsgperfError("the matrix plot needs a 'matrix' measurement (msgperf run --pattern matrix)")
    ranks = list(grid.ranks)
    values = np.full((len(ranks), len(ranks)), np.nan)
    for a in ranks:
        for b in ranks:
            v = grid.value(a, b)
            if v is not None:
                values[ranks.index(a), ranks.index(b)] = v
    fig, axes = _figure(size=(6.5, 5.5))
    ax = axes[0][0]
    if grid.quantity == "bandwidth":
        scale, unit = rate_unit(float(np.nanmax(values)))
        what = f"bandwidth, {unit}"
    else:
        scale, unit, what = 1e-6, "µs", "one-way time, µs"
    img = ax.imshow(values / scale, cmap="cividis", interpolation="nearest")
    fig.colorbar(img, ax=ax, label=what)
    ax.set_xticks(range(len(ranks)), [str(r) for r in ranks])
    ax.set_yticks(range(len(ranks)), [str(r) for r in ranks])
    ax.set_xlabel("responder rank")
    ax.set_ylabel("initiator rank")
    hosts = grid.hosts
    if hosts:
        names = [hosts.get(r, "") for r in ranks]
        for i in range(1, len(ranks)):
            if names[i] != names[i - 1]:
                ax.axhline(i - 0.5, color=VERMILLION, lw=2)
                ax.axvline(i - 0.5, color=VERMILLION, lw=2)
    _set_title(ax, title or f"matrix: every ordered pair, {size_label(grid.bytes) if grid.bytes else '0 B'}"
               + (" (red lines: host boundaries)" if hosts and len(set(hosts.values())) > 1 else ""))
    return fig


def overlay_plot(results: Sequence[tuple[str, Any]], title: str | None = None):
    """Several series in one figure: each one's medians with intervals and its piecewise model."""
    if not results:
        raise MsgperfError("nothing to overlay")
    fig, axes = _figure()
    ax = axes[0][0]
    all_sizes = [p.bytes for _, result in results for p in result.sweep.points]
    zero = zero_position(all_sizes)
    for i, (label, result) in enumerate(results):
        colour = OKABE_ITO[i % len(OKABE_ITO)]
        pts = result.sweep.points
        x = xs([p.bytes for p in pts], zero)
        y = np.array([p.time_s for p in pts])
        lo = np.array([p.ci_low_s if p.ci_low_s is not None else p.time_s for p in pts])
        hi = np.array([p.ci_high_s if p.ci_high_s is not None else p.time_s for p in pts])
        ax.errorbar(x, y, yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)], fmt="o",
                    ms=3, color=colour, capsize=2, label=label)
        # the model's segments as one line broken by NaN (drawn apart, as separate lines were):
        # a report of every pattern drew hundreds of lines, each an artist to make and lay out
        model_x, model_y = [], []
        for seg in result.sweep.piecewise.segments:
            grid = np.geomspace(max(seg.from_bytes, 1), max(seg.to_bytes, 1), 40)
            model_x += [grid, [np.nan]]
            model_y += [seg.predict(grid), [np.nan]]
        if model_x:
            ax.plot(np.concatenate(model_x), np.concatenate(model_y), "-", color=colour, lw=1.2, alpha=0.8)
    _size_axis(ax, all_sizes)
    _time_axis(ax)
    _finish(ax, title or f"{len(results)} runs: median time and fitted model")
    return fig


# ---- output --------------------------------------------------------------------------------


REGIME_COLOURS = {"eager": BLUE, "rendezvous": ORANGE, "eager/rendezvous": PURPLE,
                  "latency-bound": SKY, "bandwidth-bound": GREEN}


def profile_histogram_plot(advice: Any, title: str | None = None):
    """The sizes a profiled program sent (power-of-two buckets, all ranks), each bar coloured by
    the model's regime there (``ProfileAdvice.histogram``), with the eager limit and n½ of the
    model's run marked."""
    fig, axes = _figure()
    ax = axes[0][0]
    bins = advice.histogram
    sizes = [max(b.low_bytes, 0) for b in bins]
    zero = zero_position(sizes)
    x = xs(sizes, zero)
    seen: set[str] = set()
    for pos, b in zip(x, bins):
        ax.bar(pos, b.messages, width=pos * 0.9, align="edge", color=REGIME_COLOURS.get(b.regime, BLACK),
               edgecolor="white", label=b.regime if b.regime not in seen else None)  # the bucket [low, 2·low)
        seen.add(b.regime)
    basis = advice.basis
    marks = [(basis.eager_limit_bytes, f"eager limit {units.exact_bytes(basis.eager_limit_bytes)}", VERMILLION, "--"),
             (basis.n_half_bytes, f"n½ = {units.size(basis.n_half_bytes)}" if basis.n_half_bytes else "", BLACK, ":")]
    for value, label, colour, style in marks:
        if value:
            ax.axvline(value, color=colour, ls=style, lw=1.2, label=label)
    ax.set_yscale("log")
    ax.set_ylim(0.7, 2.0 * max((b.messages for b in bins), default=1))  # bars from 1 message up
    ax.set_ylabel("messages sent (all ranks)")
    _size_axis(ax, sizes + [2 * max(sizes, default=1)] + [v for v, *_ in marks if v])
    ax.set_xlabel("message size: each bar one power-of-two bucket [s, 2s) (B, KiB = 2^10 B, MiB = 2^20 B)")
    _finish(ax, title or f"{advice.program}: sizes sent against the model's regimes")
    return fig


def save_figure(fig: Any, to: Output) -> Path:
    """Write ``fig`` as PNG, SVG or PDF (by suffix) whole, to the file the guard allowed
    (writing.py)."""
    fmt = to.path.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg", "pdf"):
        raise MsgperfError(f"{to.path}: write a .png, .svg or .pdf file")
    with to.temporary(parents=True) as tmp:
        fig.savefig(tmp, format=fmt, dpi=DPI)
    return to.path


def figure_png(fig: Any) -> bytes:
    """The figure as PNG bytes (the report embeds them)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()
