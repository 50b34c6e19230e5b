"""A ``chart.Chart`` drawn with matplotlib (off-screen, Agg): ``msgperf plot x.png`` and ``x.pdf``.
The axes' limits, ticks and labels are the chart's; matplotlib only draws them. Imported only
when a PNG or PDF is written, so no other command pays for matplotlib.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msgperf.present.chart import (BAR_GAP, BAR_WIDTH, CAP, COLOUR_MAP, DPI, LABEL_FONT, TICK_FONT, Axis, Bar, Box,
                                   Chart, Heatmap, Points, Rule, Span, legend_layout, margins, more_words,
                                   title_layout)

POINTS = 72.0 / DPI  # matplotlib sizes text in points, the chart in pixels


def _axis(ax: Any, which: str, axis: Axis) -> None:
    from matplotlib.ticker import FixedLocator, NullLocator  # noqa: PLC0415

    # a value a log axis cannot hold breaks the line, as in the SVG (matplotlib's default clips it to the edge)
    getattr(ax, f"set_{which}scale")(axis.scale, **({"nonpositive": "mask"} if axis.scale == "log" else {}))
    getattr(ax, f"set_{which}lim")((axis.high, axis.low) if axis.inverted else (axis.low, axis.high))
    target = ax.xaxis if which == "x" else ax.yaxis
    target.set_major_locator(FixedLocator([v for v, _ in axis.ticks]))
    target.set_minor_locator(NullLocator())
    turned = {"rotation": axis.rotation, "ha": "right", "rotation_mode": "anchor"} if axis.rotation else {}
    target.set_ticklabels([label for _, label in axis.ticks], **turned)  # turned about their end, as svg_chart.py
    target.set_tick_params(labelsize=TICK_FONT * POINTS)
    getattr(ax, f"set_{which}label")(axis.label, fontsize=LABEL_FONT * POINTS)


def _draw(ax: Any, layer: Any) -> Any:
    """Draw ``layer``; the artist a legend entry of it shows (the image, for a heatmap)."""
    if isinstance(layer, Points):
        x, y = np.asarray(layer.x, dtype=float), np.asarray(layer.y, dtype=float)
        if layer.low:
            yerr = [np.maximum(y - np.asarray(layer.low), 0), np.maximum(np.asarray(layer.high) - y, 0)]
            return ax.errorbar(x, y, yerr=yerr, fmt=layer.marker or "none", ms=layer.size, color=layer.colour,
                               capsize=CAP, ls=layer.line or "none", lw=layer.width, elinewidth=layer.width,
                               alpha=layer.alpha)
        return ax.plot(x, y, marker=layer.marker or None, ms=layer.size, ls=layer.line or "none", lw=layer.width,
                       color=layer.colour, alpha=layer.alpha)[0]
    if isinstance(layer, Rule):
        return (ax.axvline if layer.axis == "x" else ax.axhline)(layer.at, color=layer.colour, ls=layer.line,
                                                                 lw=layer.width)
    if isinstance(layer, Span):
        return ax.axvspan(layer.low, layer.high, color=layer.colour, alpha=layer.alpha)
    if isinstance(layer, Box):
        return ax.bxp([{"med": layer.median, "q1": layer.p25, "q3": layer.p75, "whislo": layer.p5,
                        "whishi": layer.p95, "fliers": []}], positions=[layer.x], widths=2 * layer.half_width,
                      showfliers=False, patch_artist=True,
                      boxprops={"facecolor": layer.face, "alpha": 0.5, "edgecolor": layer.colour},
                      medianprops={"color": layer.colour, "lw": 2}, whiskerprops={"color": layer.colour},
                      capprops={"color": layer.colour}, manage_ticks=False)
    if isinstance(layer, Bar):
        return ax.bar(layer.x, layer.height, width=layer.width, align="edge", color=layer.colour, edgecolor="white")
    if isinstance(layer, Heatmap):
        from matplotlib.colors import LinearSegmentedColormap  # noqa: PLC0415

        cmap = LinearSegmentedColormap.from_list("msgperf", COLOUR_MAP)
        return ax.imshow(np.asarray(layer.values, dtype=float), cmap=cmap, vmin=layer.low, vmax=layer.high,
                         interpolation="nearest", aspect="auto")
    raise TypeError(f"not a chart layer: {type(layer).__name__}")


def figure(chart: Chart) -> Any:
    """``chart`` as a matplotlib ``Figure``."""
    from matplotlib.figure import Figure  # noqa: PLC0415 (lazy: plotting only)

    fig = Figure(figsize=(chart.width, chart.height), dpi=DPI)
    ax = fig.subplots()
    left, right, top, bottom = margins(chart)
    heat = next((layer for layer in chart.layers if isinstance(layer, Heatmap)), None)
    w, h = chart.width * DPI, chart.height * DPI
    fig.subplots_adjust(left=left / w, right=1 - right / w, bottom=bottom / h, top=1 - top / h)
    drawn = [_draw(ax, layer) for layer in chart.layers]
    if heat is not None:  # the colour bar in the margin kept for it, as svg_chart.py draws it
        bar = fig.add_axes(((w - right + BAR_GAP) / w, bottom / h, BAR_WIDTH / w, (h - top - bottom) / h))
        colours = fig.colorbar(drawn[chart.layers.index(heat)], cax=bar)
        colours.set_ticks([v for v, _ in heat.ticks], labels=[text for _, text in heat.ticks])
        colours.ax.tick_params(labelsize=TICK_FONT * POINTS)
        colours.set_label(heat.quantity, fontsize=LABEL_FONT * POINTS)
    _axis(ax, "x", chart.x)
    _axis(ax, "y", chart.y)
    # strings from files are text, never mathtext ("$\\frac{$" raised a ParseSyntaxException)
    title, size = title_layout(chart)
    ax.set_title(title, fontsize=size * POINTS).set_parse_math(False)
    if heat is None:
        ax.grid(True, which="major", alpha=0.3)
    placed = legend_layout(chart)
    if placed is not None:  # the entries, labels, size and corner the SVG has
        from matplotlib.patches import Patch  # noqa: PLC0415

        handles = [drawn[chart.layers.index(layer)] for layer in placed.entries]
        labels = list(placed.labels)
        if placed.more:
            handles, labels = handles + [Patch(alpha=0)], labels + [more_words(placed.more)]
        legend = ax.legend(handles, labels, fontsize=placed.font * POINTS, loc=placed.corner)
        for text in legend.get_texts():
            text.set_parse_math(False)
    return fig
