"""A figure as data: its axes (scale, limits, ticks with their labels) and its layers (points
with error bars, lines, rules, spans, boxes, bars, a heatmap), each with its colour and legend
label. ``plots.py`` decides what a figure shows and builds a ``Chart``; ``svg_chart.py`` draws it
as SVG (the report, ``plot x.svg``) and ``mpl_chart.py`` with matplotlib (``plot x.png``,
``x.pdf``), so both draw the same ticks, limits and labels: they are decided here, once.

Sizes are in inches of 100 pixels (the figure's DPI); marker sizes and line widths in points as
matplotlib has them. A value that cannot be drawn (NaN, or not positive on a log axis) breaks a
line and draws no marker, as in matplotlib.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Callable, Iterable, Union

from msgperf.values import Value

DPI = 100


class Axis(Value):
    label: str
    scale: str                                  # "log" or "linear"
    low: float
    high: float
    ticks: tuple[tuple[float, str], ...]        # (position, label)
    rotation: int = 0                           # of the tick labels, degrees
    inverted: bool = False                      # the low end at the top (a matrix's rows)


class Points(Value):
    """Markers at (x, y), joined by a line where ``line`` is set, with error bars to ``low`` and
    ``high`` where given."""
    x: tuple[float, ...]
    y: tuple[float, ...]
    colour: str
    marker: str = ""                            # o s D v ^ x X _ or "" (none)
    size: float = 4.0                           # marker size, points
    line: str = ""                              # "-", "--", ":", "-." or "" (none)
    width: float = 1.5                          # line width, points
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    alpha: float = 1.0
    label: str = ""


class Rule(Value):
    """A line across the axes at x (``axis`` "x") or at y (``axis`` "y")."""
    axis: str
    at: float
    colour: str
    line: str = "-"
    width: float = 1.5
    label: str = ""


class Span(Value):
    """A shaded band between two x positions, over the whole height."""
    low: float
    high: float
    colour: str
    alpha: float = 0.15
    label: str = ""


class Box(Value):
    """A box plot at x: the box from p25 to p75 with the median, whiskers from p5 to p95."""
    x: float
    half_width: float
    p5: float
    p25: float
    median: float
    p75: float
    p95: float
    colour: str
    face: str


class Bar(Value):
    """A bar from the bottom of the axes up to ``height``, from ``x`` to ``x + width``."""
    x: float
    width: float
    height: float
    colour: str
    label: str = ""


class Heatmap(Value):
    """Cell (i, j) at x = j, y = i, coloured by its value on ``COLOUR_MAP`` from ``low`` to
    ``high``; NaN cells are left blank. The colour bar beside it: ``quantity`` names it, ``ticks``
    mark it."""
    values: tuple[tuple[float, ...], ...]
    low: float
    high: float
    quantity: str
    ticks: tuple[tuple[float, str], ...]


Layer = Union[Points, Rule, Span, Box, Bar, Heatmap]


class Chart(Value):
    title: str
    width: float                                # inches
    height: float
    x: Axis
    y: Axis
    layers: tuple[Layer, ...]


# What both painters draw alike, in pixels (a point is DPI/72 of them).
MARGINS = (90.0, 25.0, 40.0, 75.0)   # left, right, top, bottom of the plot area
COLOUR_BAR = 95.0                    # more room on the right for a heatmap's colour bar ...
BAR_GAP, BAR_WIDTH = 20.0, 18.0      # ... which stands this far right of the plot area, this wide
TICK_FONT, LABEL_FONT, TITLE_FONT, LEGEND_FONT = 12.0, 13.0, 15.0, 11.0
CAP = 2.0                            # an error bar's cap, points each side
CHAR_WIDTH = 0.6                     # a character's width, em (the browser lays out text; this sizes room for it)
LEGEND_CHAR_WIDTH = 0.55             # ... in a legend, whose box should not cover more than its text
MIN_FONT = 9.0                       # the smallest text either painter writes


def margins(chart: Chart) -> tuple[float, float, float, float]:
    """Left, right, top and bottom of the room around the plot area, in pixels: the colour bar's
    on the right, and below the room long rotated size labels take (both painters use these)."""
    left, right, top, bottom = MARGINS
    if any(isinstance(layer, Heatmap) for layer in chart.layers):
        right += COLOUR_BAR
    if chart.x.rotation and chart.x.ticks:
        longest = max(len(label) for _, label in chart.x.ticks)
        turn = math.radians(chart.x.rotation)
        bottom = max(bottom, 12 + TICK_FONT * (CHAR_WIDTH * longest * math.sin(turn) + math.cos(turn)) + 28)
    return left, right, top, bottom


# Cividis (Nuñez, Anderton and Renslow 2018, "Optimizing colormaps with consideration for color
# vision deficiency"), nine stops from matplotlib's table; painters interpolate between them.
COLOUR_MAP = ("#00224e", "#1a386f", "#434e6c", "#61656f", "#7d7c78", "#9b9476", "#bcae6c", "#dec958",
              "#fee838")


def colour_at(fraction: float) -> str:
    """The colour map's colour at ``fraction`` of its range (clipped to [0, 1])."""
    f = min(max(fraction, 0.0), 1.0) * (len(COLOUR_MAP) - 1)
    i = min(int(f), len(COLOUR_MAP) - 2)
    a, b = COLOUR_MAP[i], COLOUR_MAP[i + 1]
    mix = [round(int(a[k:k + 2], 16) + (f - i) * (int(b[k:k + 2], 16) - int(a[k:k + 2], 16))) for k in (1, 3, 5)]
    return "#" + "".join(f"{c:02x}" for c in mix)


def drawable(v: float, scale: str) -> bool:
    return math.isfinite(v) and (scale != "log" or v > 0)


def data_range(values: Iterable[float], scale: str) -> tuple[float, float] | None:
    """The smallest and largest drawable value, or None when there is none."""
    kept = [v for v in values if drawable(v, scale)]
    return (min(kept), max(kept)) if kept else None


def padded(low: float, high: float, scale: str, margin: float = 0.05) -> tuple[float, float]:
    """``low`` and ``high`` widened by ``margin`` of their span each side (in log space on a log
    axis), as matplotlib's autoscaling does; a single value gets a span of its own."""
    if scale == "log":
        a, b = math.log10(low), math.log10(high)
        span = (b - a) or 0.5
        return 10 ** (a - margin * span), 10 ** (b + margin * span)
    span = (high - low) or (abs(low) or 1.0)
    return low - margin * span, high + margin * span


def log_ticks(low: float, high: float, label: Callable[[float], str],
              subs: tuple[float, ...] = (1.0, 2.0, 5.0)) -> tuple[tuple[float, str], ...]:
    """Ticks at ``subs`` of every decade within [low, high] (only the decades when that makes
    more than fifteen); linear ticks when the range holds fewer than two."""
    for chosen in (subs, (1.0,)):
        ticks = [s * 10.0 ** k for k in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
                 for s in chosen]
        ticks = [t for t in ticks if low <= t * (1 + 1e-9) and t <= high * (1 + 1e-9)]
        if len(ticks) <= 15:
            break
    if len(ticks) < 2:
        return linear_ticks(low, high, label)
    return _labelled(ticks, label)


def _labelled(ticks: Iterable[float], label: Callable[[float], str]) -> tuple[tuple[float, str], ...]:
    """Each tick with its label; a tick whose label repeats the one before is left out (a range
    narrower than the labels' digits)."""
    out: list[tuple[float, str]] = []
    for t in ticks:
        text = label(t)
        if not out or out[-1][1] != text:
            out.append((t, text))
    return tuple(out)


def linear_ticks(low: float, high: float, label: Callable[[float], str],
                 most: int = 10) -> tuple[tuple[float, str], ...]:
    """Ticks at a round step (1, 2, 2.5 or 5 times a power of ten, as matplotlib's) within
    [low, high], at most ``most``."""
    span = high - low
    if not span > 0:
        return ((low, label(low)),)
    raw = span / (most - 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    # k·step written to 12 significant digits: 0.1 + 0.2 is a tick at 0.3, not 0.30000000000000004
    ticks = [float(f"{(first + i) * step:.12g}") for i in range(most + 1)]
    return _labelled((t for t in ticks if t <= high + step * 1e-9), label)


def layer_values(layer: Layer, axis: str) -> list[float]:
    """The values ``layer`` draws along ``axis`` ("x" or "y"): what the axis' limits must hold."""
    if isinstance(layer, Points):
        return list(layer.x) if axis == "x" else [*layer.y, *layer.low, *layer.high]
    if isinstance(layer, Rule):
        return [layer.at] if layer.axis == axis else []
    if isinstance(layer, Span):
        return [layer.low, layer.high] if axis == "x" else []
    if isinstance(layer, Box):
        return [layer.x - layer.half_width, layer.x + layer.half_width] if axis == "x" else [layer.p5, layer.p95]
    if isinstance(layer, Bar):
        return [layer.x, layer.x + layer.width] if axis == "x" else [layer.height]
    return []


# ---- layout both painters follow: where the plot area, the title and the legend go --------------


def fraction(axis: Axis, v: float) -> float:
    """Where ``v`` lies between the axis' ends (0 to 1, the low end first); a value a log axis
    cannot hold (0 at the foot of a bar) lies far below its low end, where the painters cut it."""
    if axis.scale == "log":
        if not v > 0:
            return -10.0
        return (math.log10(v) - math.log10(axis.low)) / (math.log10(axis.high) - math.log10(axis.low))
    return (v - axis.low) / (axis.high - axis.low)


def plot_area(chart: Chart) -> tuple[float, float, float, float]:
    """Left, top, right and bottom of the plot area, pixels from the image's top left."""
    left, right, top, bottom = margins(chart)
    return left, top, chart.width * DPI - right, chart.height * DPI - bottom


def text_width(text: str, size: float, em: float = CHAR_WIDTH) -> float:
    """About how wide ``text`` is at ``size`` pixels: ``em`` of the size a character, a whole one
    for the wide characters of East Asian scripts (the browser lays out the text; this sizes room)."""
    return size * sum(1.0 if unicodedata.east_asian_width(c) in "WF" else em for c in text)


def cut_to_width(text: str, room: float, size: float, em: float = CHAR_WIDTH) -> str:
    """``text``, or its beginning and "…" where it would be wider than ``room`` pixels."""
    if text_width(text, size, em) <= room:
        return text
    keep = len(text)
    while keep > 1 and text_width(text[:keep] + "…", size, em) > room:
        keep -= 1
    return text[:keep] + "…"


def title_layout(chart: Chart) -> tuple[str, float]:
    """The title as written and its size in pixels: TITLE_FONT, smaller while it does not fit over
    the plot area (centred there, inside the image), and cut with "…" below MIN_FONT."""
    left, _, right, _ = plot_area(chart)
    centre = (left + right) / 2
    room = 2 * min(centre, chart.width * DPI - centre) - 10
    size = min(TITLE_FONT, room / max(text_width(chart.title, 1.0), 1e-9))
    if size >= MIN_FONT:
        return chart.title, size
    return cut_to_width(chart.title, room, MIN_FONT), MIN_FONT


class Frame:
    """Data to pixels in one chart's plot area (y grows downwards, as in SVG)."""

    def __init__(self, chart: Chart) -> None:
        self.width, self.height = chart.width * DPI, chart.height * DPI
        self.left, self.top, self.right, self.bottom = plot_area(chart)
        self.x_axis, self.y_axis = chart.x, chart.y

    def x(self, v: float) -> float:
        return self.left + fraction(self.x_axis, v) * (self.right - self.left)

    def y(self, v: float) -> float:
        f = fraction(self.y_axis, v)
        return self.top + f * (self.bottom - self.top) if self.y_axis.inverted else self.bottom - f * (self.bottom - self.top)

    def drawable(self, x: float, y: float) -> bool:
        return drawable(x, self.x_axis.scale) and drawable(y, self.y_axis.scale)


CORNERS = ("upper left", "upper right", "lower left", "lower right")  # matplotlib's names for them


class Legend(Value):
    """The legend's box: its entries (labelled layers, in order) with their labels as written (cut
    to the box), how many labelled layers were left out for want of height (one more row says
    so), the text size, the box's size and place in pixels, and its corner of the plot area."""
    entries: tuple[Layer, ...]
    labels: tuple[str, ...]
    more: int
    font: float
    width: float
    height: float
    x: float
    y: float
    corner: str


SAMPLE_WIDTH = 28.0  # a legend entry's line or patch, pixels; then a gap of 8 before its text


def more_words(more: int) -> str:
    return f"… and {more} more"


def legend_layout(chart: Chart) -> Legend | None:
    """The legend of the labelled layers, in the corner of the plot area that hides the fewest
    drawn points (the first corner among equals: upper left); its text smaller (to MIN_FONT) while
    it is wider or taller than the plot area, then labels cut and the last entries left out.
    None when no layer has a label."""
    entries = tuple(layer for layer in chart.layers if getattr(layer, "label", ""))
    if not entries:
        return None
    frame = Frame(chart)
    left, top, right, bottom = frame.left, frame.top, frame.right, frame.bottom
    room = right - left - 12 - SAMPLE_WIDTH - 18  # for the text
    tall = bottom - top - 12 - 8
    widest = max(text_width(layer.label, 1.0, LEGEND_CHAR_WIDTH) for layer in entries)
    font = max(MIN_FONT, min(LEGEND_FONT, room / widest, tall / (1.35 * len(entries))))
    rows = max(int(tall / (font * 1.35)), 1)
    more = 0
    if len(entries) > rows:
        entries, more = entries[:rows - 1], len(entries) - (rows - 1)
    labels = tuple(cut_to_width(layer.label, room, font, LEGEND_CHAR_WIDTH) for layer in entries)
    written = [*labels, *([more_words(more)] if more else [])]
    width = SAMPLE_WIDTH + 18 + max(text_width(t, font, LEGEND_CHAR_WIDTH) for t in written)
    height = font * 1.35 * len(written) + 8
    points = [(frame.x(x), frame.y(y)) for x, y in drawn_points(chart)]
    places = {"upper left": (left + 6, top + 6), "upper right": (right - 6 - width, top + 6),
              "lower left": (left + 6, bottom - 6 - height), "lower right": (right - 6 - width, bottom - 6 - height)}

    def hidden(corner: str) -> int:
        x0, y0 = places[corner]
        return sum(x0 <= x <= x0 + width and y0 <= y <= y0 + height for x, y in points)

    corner = min(CORNERS, key=hidden)
    return Legend(entries, labels, more, font, width, height, *places[corner], corner)


def drawn_points(chart: Chart) -> list[tuple[float, float]]:
    """The data points a legend should not hide: markers and line vertices, box ends, bar tops."""
    out: list[tuple[float, float]] = []
    for layer in chart.layers:
        if isinstance(layer, Points):
            out += [(x, y) for x, y in zip(layer.x, layer.y) if drawable(x, chart.x.scale) and drawable(y, chart.y.scale)]
        elif isinstance(layer, Box):
            out += [(layer.x, v) for v in (layer.p5, layer.median, layer.p95)]
        elif isinstance(layer, Bar):
            out.append((layer.x + layer.width / 2, layer.height))
    return out
