"""A ``chart.Chart`` drawn as SVG: the report's figures and ``msgperf plot x.svg``.

Drawn here rather than by matplotlib because a report drew 12 figures at ~0.2 s each (layout,
font rasterising, PNG encoding: 3 s of a 4.6 s report, bench/RESULTS.md §34), for figures made
of lines, markers and text that SVG states directly; the browser lays out the text. The geometry
(path data: numbers only) is computed here and the markup written by templates/chart.svg, with
autoescaping: every label, which may hold a host or MPI name, is escaped there.

Pixels are the chart's inches × 100; line widths and marker sizes are in points (× 100/72), as
matplotlib draws them, so the PNG and the SVG of one chart look alike.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import msgspec

from msgperf.present.chart import (BAR_GAP, BAR_WIDTH, CAP, CHAR_WIDTH, DPI, LABEL_FONT, SAMPLE_WIDTH, TICK_FONT, Bar,
                                   Box, Chart, Frame, Heatmap, Points, Rule, Span, colour_at, legend_layout, more_words,
                                   title_layout)
from msgperf.present.templating import environment

PT = DPI / 72.0                      # pixels per point
DASHES = {"-": "", "--": (3.7, 1.6), ":": (1.0, 1.65), "-.": (6.4, 1.6, 1.0, 1.6)}  # × line width, matplotlib's


def _num(v: float) -> str:
    """A coordinate or size as SVG writes it: two decimals at most."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _path(d: str, stroke: str = "none", width: float = 1.0, fill: str = "none", opacity: float = 1.0,
          dash: Any = "", clip: bool = True, crisp: bool = False) -> dict[str, Any]:
    """A path's drawing (``crisp``: edges not anti-aliased, so abutting cells leave no seam)."""
    pattern = " ".join(_num(d_ * width * PT) for d_ in dash) if dash else ""
    return {"d": d, "stroke": stroke, "width": _num(width * PT), "fill": fill, "opacity": _num(opacity), "dash": pattern,
            "clip": clip, "crisp": crisp}


def _text(x: float, y: float, text: str, size: float, anchor: str = "middle", rotate: float = 0.0,
          dy: str = "") -> dict[str, Any]:
    """A text at (x, y), turned ``rotate`` degrees anticlockwise about that point, moved down by
    ``dy`` (".32em": centred on y)."""
    return {"x": _num(x), "y": _num(y), "text": text, "size": _num(size), "anchor": anchor,
            "rotate": f"rotate({_num(-rotate)} {_num(x)} {_num(y)})" if rotate else "", "dy": dy}


def _rect(x0: float, y0: float, x1: float, y1: float) -> str:
    return f"M{_num(x0)} {_num(y0)}H{_num(x1)}V{_num(y1)}H{_num(x0)}Z"


def _marker(shape: str, x: float, y: float, r: float) -> str:
    """One marker's path, ``r`` half its size (matplotlib's extents: a diamond's tips √2·r out)."""
    if shape == "o":
        return f"M{_num(x - r)} {_num(y)}a{_num(r)} {_num(r)} 0 1 0 {_num(2 * r)} 0a{_num(r)} {_num(r)} 0 1 0 {_num(-2 * r)} 0Z"
    if shape == "s":
        return _rect(x - r, y - r, x + r, y + r)
    if shape == "D":
        t = r * math.sqrt(2)
        return f"M{_num(x)} {_num(y - t)}L{_num(x + t)} {_num(y)}L{_num(x)} {_num(y + t)}L{_num(x - t)} {_num(y)}Z"
    if shape in "v^":
        tip = r if shape == "v" else -r
        return f"M{_num(x)} {_num(y + tip)}L{_num(x - r)} {_num(y - tip)}L{_num(x + r)} {_num(y - tip)}Z"
    if shape in "xX":
        return f"M{_num(x - r)} {_num(y - r)}L{_num(x + r)} {_num(y + r)}M{_num(x - r)} {_num(y + r)}L{_num(x + r)} {_num(y - r)}"
    if shape == "_":
        return f"M{_num(x - r)} {_num(y)}H{_num(x + r)}"
    raise ValueError(f"not a marker: {shape!r}")


def _marker_paths(shape: str, colour: str, size: float, alpha: float, at: Sequence[tuple[float, float]]) -> list[dict]:
    r = size * PT / 2
    d = "".join(_marker(shape, x, y, r) for x, y in at)
    if not d:
        return []
    if shape in "xX_":  # strokes only
        return [_path(d, colour, 2.5 if shape == "X" else 1.0, opacity=alpha)]
    return [_path(d, colour, 1.0, fill=colour, opacity=alpha)]  # edged, as matplotlib draws them


def _polyline(frame: Frame, xs: Sequence[float], ys: Sequence[float]) -> str:
    """Line segments through the drawable points, broken where one is not."""
    out, pen = [], "M"
    for x, y in zip(xs, ys):
        if frame.drawable(x, y):
            out.append(f"{pen}{_num(frame.x(x))} {_num(frame.y(y))}")
            pen = "L"
        else:
            pen = "M"
    return "".join(out)


def _points(frame: Frame, p: Points) -> list[dict]:
    paths = []
    if p.line:
        d = _polyline(frame, p.x, p.y)
        if d:
            paths.append(_path(d, p.colour, p.width, opacity=p.alpha, dash=DASHES[p.line]))
    if p.low:
        cap = CAP * PT
        bars = []
        for x, lo, hi in zip(p.x, p.low, p.high):
            if frame.drawable(x, lo) and frame.drawable(x, hi) and hi > lo:
                px, y0, y1 = frame.x(x), frame.y(lo), frame.y(hi)
                bars.append(f"M{_num(px)} {_num(y0)}V{_num(y1)}M{_num(px - cap)} {_num(y0)}H{_num(px + cap)}"
                            f"M{_num(px - cap)} {_num(y1)}H{_num(px + cap)}")
        if bars:
            paths.append(_path("".join(bars), p.colour, p.width, opacity=p.alpha))
    if p.marker:
        at = [(frame.x(x), frame.y(y)) for x, y in zip(p.x, p.y) if frame.drawable(x, y)]
        paths += _marker_paths(p.marker, p.colour, p.size, p.alpha, at)
    return paths


def _layer(frame: Frame, layer: Any) -> list[dict]:
    if isinstance(layer, (Span, Box, Bar)) and not all(math.isfinite(v) for v in msgspec.structs.astuple(layer)
                                                       if isinstance(v, (int, float))):
        return []  # a shape with an end not known is not drawn
    if isinstance(layer, Points):
        return _points(frame, layer)
    if isinstance(layer, Rule):
        if layer.axis == "x":
            d = f"M{_num(frame.x(layer.at))} {_num(frame.top)}V{_num(frame.bottom)}" if frame.drawable(layer.at, frame.y_axis.high) else ""
        else:
            d = f"M{_num(frame.left)} {_num(frame.y(layer.at))}H{_num(frame.right)}" if frame.drawable(frame.x_axis.high, layer.at) else ""
        return [_path(d, layer.colour, layer.width, dash=DASHES[layer.line])] if d else []
    if isinstance(layer, Span):
        return [_path(_rect(frame.x(layer.low), frame.top, frame.x(layer.high), frame.bottom), fill=layer.colour,
                      opacity=layer.alpha)]
    if isinstance(layer, Box):
        x0, x1, xm = frame.x(layer.x - layer.half_width), frame.x(layer.x + layer.half_width), frame.x(layer.x)
        q1, q3, med = frame.y(layer.p25), frame.y(layer.p75), frame.y(layer.median)
        w0, w1, cap = frame.y(layer.p5), frame.y(layer.p95), (x1 - x0) / 4
        whiskers = (f"M{_num(xm)} {_num(q1)}V{_num(w0)}M{_num(xm)} {_num(q3)}V{_num(w1)}"
                    f"M{_num(xm - cap)} {_num(w0)}H{_num(xm + cap)}M{_num(xm - cap)} {_num(w1)}H{_num(xm + cap)}")
        return [_path(_rect(x0, q3, x1, q1), fill=layer.face, opacity=0.5), _path(_rect(x0, q3, x1, q1), layer.colour),
                _path(whiskers, layer.colour), _path(f"M{_num(x0)} {_num(med)}H{_num(x1)}", layer.colour, 2.0)]
    if isinstance(layer, Bar):
        return [_path(_rect(frame.x(layer.x), frame.y(layer.height), frame.x(layer.x + layer.width), frame.bottom),
                      "white", 1.0, fill=layer.colour)]
    if isinstance(layer, Heatmap):
        span = (layer.high - layer.low) or 1.0
        cells = []
        for i, row in enumerate(layer.values):
            for j, v in enumerate(row):
                if math.isfinite(v):
                    cells.append(_path(_rect(frame.x(j - 0.5), frame.y(i - 0.5), frame.x(j + 0.5), frame.y(i + 0.5)),
                                       fill=colour_at((v - layer.low) / span), crisp=True))
        return cells
    raise TypeError(f"not a chart layer: {type(layer).__name__}")


def _colour_bar(frame: Frame, heat: Heatmap) -> tuple[list[dict], list[dict]]:
    x0, x1 = frame.right + BAR_GAP, frame.right + BAR_GAP + BAR_WIDTH
    steps = 48
    height = (frame.bottom - frame.top) / steps
    paths = [_path(_rect(x0, frame.bottom - (k + 1) * height, x1, frame.bottom - k * height),
                   fill=colour_at(k / (steps - 1)), clip=False, crisp=True) for k in range(steps)]
    paths.append(_path(_rect(x0, frame.top, x1, frame.bottom), "black", 0.8, clip=False))
    span = (heat.high - heat.low) or 1.0
    texts = []
    for v, label in heat.ticks:
        y = frame.bottom - (v - heat.low) / span * (frame.bottom - frame.top)
        paths.append(_path(f"M{_num(x1)} {_num(y)}h{_num(3.5 * PT)}", "black", 0.8, clip=False))
        texts.append(_text(x1 + 7, y, label, TICK_FONT, "start", dy=".32em"))
    texts.append(_text(x1 + 62, (frame.top + frame.bottom) / 2, heat.quantity, LABEL_FONT, rotate=90))
    return paths, texts


def _axes(frame: Frame, chart: Chart, grid: bool) -> tuple[list[dict], list[dict], list[dict]]:
    """The grid (drawn behind the data); the frame and the ticks; their labels, the axis labels
    and the title."""
    paths: list[dict] = []
    behind: list[dict] = []
    texts: list[dict] = []
    tick = 3.5 * PT
    marks, lines = [], []
    for v, label in chart.x.ticks:
        if not frame.drawable(v, frame.y_axis.high):
            continue
        x = frame.x(v)
        marks.append(f"M{_num(x)} {_num(frame.bottom)}v{_num(tick)}")
        lines.append(f"M{_num(x)} {_num(frame.top)}V{_num(frame.bottom)}")
        below = frame.bottom + tick + 3
        if chart.x.rotation:
            texts.append(_text(x + 4, below + 8, label, TICK_FONT, "end", chart.x.rotation, ".32em"))
        else:
            texts.append(_text(x, below + TICK_FONT * 0.8, label, TICK_FONT))
    for v, label in chart.y.ticks:
        if not frame.drawable(frame.x_axis.high, v):
            continue
        y = frame.y(v)
        marks.append(f"M{_num(frame.left)} {_num(y)}h{_num(-tick)}")
        lines.append(f"M{_num(frame.left)} {_num(y)}H{_num(frame.right)}")
        texts.append(_text(frame.left - tick - 3, y, label, TICK_FONT, "end", dy=".32em"))
    if grid and lines:
        behind.append(_path("".join(lines), "#b0b0b0", 0.8, opacity=0.3, clip=False))
    paths.append(_path(_rect(frame.left, frame.top, frame.right, frame.bottom), "black", 0.8, clip=False))
    if marks:
        paths.append(_path("".join(marks), "black", 0.8, clip=False))
    centre = (frame.left + frame.right) / 2
    # the axis labels beside their tick labels, as matplotlib places them (rotated ones reach the foot)
    longest_y = max((len(label) for _, label in chart.y.ticks), default=0)
    below = frame.height - 10 if chart.x.rotation else frame.bottom + tick + 3 + TICK_FONT * 1.2 + LABEL_FONT
    texts.append(_text(centre, below, chart.x.label, LABEL_FONT))
    beside = max(frame.left - tick - 3 - CHAR_WIDTH * TICK_FONT * longest_y - LABEL_FONT * 0.9, LABEL_FONT)
    texts.append(_text(beside, (frame.top + frame.bottom) / 2, chart.y.label, LABEL_FONT, rotate=90))
    title, size = title_layout(chart)
    texts.append(_text(centre, frame.top - 10, title, size))
    return behind, paths, texts


def _legend_sample(layer: Any, x: float, y: float) -> list[dict]:
    """What one legend entry shows: its line, its marker, or a patch of its fill."""
    if isinstance(layer, (Span, Bar)):
        return [_path(_rect(x, y - 5, x + 28, y + 5), fill=layer.colour,
                      opacity=layer.alpha if isinstance(layer, Span) else 1.0, clip=False)]
    out = []
    line = layer.line if isinstance(layer, (Points, Rule)) else ""
    if line:
        out.append(_path(f"M{_num(x)} {_num(y)}h28", layer.colour, layer.width, dash=DASHES[line], clip=False))
    if isinstance(layer, Points) and layer.low:  # an error bar, as drawn
        out.append(_path(f"M{_num(x + 14)} {_num(y - 6)}v12M{_num(x + 11)} {_num(y - 6)}h6M{_num(x + 11)} {_num(y + 6)}h6",
                         layer.colour, 1.0, opacity=layer.alpha, clip=False))
    if isinstance(layer, Points) and layer.marker:
        out += [dict(p, clip=False) for p in _marker_paths(layer.marker, layer.colour, layer.size, layer.alpha,
                                                           [(x + 14, y)])]
    return out


def _legend(chart: Chart) -> tuple[list[dict], list[dict]]:
    """The legend's box (chart.legend_layout: its place and size), each entry's sample and text."""
    legend = legend_layout(chart)
    if legend is None:
        return [], []
    x0, y0 = legend.x, legend.y
    paths = [_path(_rect(x0, y0, x0 + legend.width, y0 + legend.height), "#cccccc", 0.8, fill="white", opacity=0.85,
                   clip=False)]
    texts = []
    row = legend.font * 1.35
    for k, (layer, label) in enumerate(zip(legend.entries, legend.labels)):
        y = y0 + 4 + row * (k + 0.5)
        paths += _legend_sample(layer, x0 + 6, y)
        texts.append(_text(x0 + 6 + SAMPLE_WIDTH + 8, y, label, legend.font, "start", dy=".32em"))
    if legend.more:
        y = y0 + 4 + row * (len(legend.entries) + 0.5)
        texts.append(_text(x0 + 6 + SAMPLE_WIDTH + 8, y, more_words(legend.more), legend.font, "start", dy=".32em"))
    return paths, texts


def svg(chart: Chart) -> str:
    """``chart`` as a standalone SVG document."""
    frame = Frame(chart)
    heat = next((layer for layer in chart.layers if isinstance(layer, Heatmap)), None)
    data = [path for layer in chart.layers for path in _layer(frame, layer)]
    grid, axis_paths, texts = _axes(frame, chart, grid=heat is None)
    extra_paths: list[dict] = []
    if heat is not None:
        extra_paths, bar_texts = _colour_bar(frame, heat)
        texts += bar_texts
    legend_paths, legend_texts = _legend(chart)
    return environment().get_template("chart.svg").render(
        width=_num(frame.width), height=_num(frame.height),
        plot={"x": _num(frame.left), "y": _num(frame.top), "width": _num(frame.right - frame.left),
              "height": _num(frame.bottom - frame.top)},
        paths=grid + data + axis_paths + extra_paths + legend_paths, texts=texts + legend_texts)
