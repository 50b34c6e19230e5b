"""Figures hold the expected series (a ``Chart``'s layers, axes and labels), and both painters draw
them: SVG (the report, ``plot x.svg``) and matplotlib (PNG, PDF) at the expected size."""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET

import msgspec
import pytest

from msgperf.errors import MsgperfError

from msgperf.analysis import analyze_series
from msgperf.analysis.result import analyze
from msgperf.present import plots, svg_chart
from msgperf.present.chart import (MIN_FONT, Frame, Bar, Box, Heatmap, Points, Rule, Span, colour_at, legend_layout,
                                   linear_ticks, log_ticks, title_layout)
from msgperf.writing import output
from tests.factories import REPORT_SIZES, pingpong_run, rich_run, sweep_run

SVG = "{http://www.w3.org/2000/svg}"


def saved(chart, path):
    return plots.save_figure(chart, output(path, False, what="a plot"))


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def svg_tree(chart):
    return ET.fromstring(svg_chart.svg(chart).encode("utf-8"))


def texts(tree):
    return [t.text or "" for t in tree.iter(f"{SVG}text")]


def of(chart, kind):
    return [layer for layer in chart.layers if isinstance(layer, kind)]


def test_time_plot_series_and_both_painters(tmp_path):
    result = analyze_series(pingpong_run())
    chart = plots.time_plot(result)
    segments = len(result.sweep.piecewise.segments)
    breakpoints = result.sweep.piecewise.breakpoints
    assert breakpoints, "the synthetic curve has a switch at 16 KiB"
    medians = of(chart, Points)[0]
    assert medians.y == tuple(p.time_s for p in result.sweep.points) and len(medians.low) == len(medians.y)
    assert sum(1 for p in of(chart, Points) if p.line == "-") == segments
    assert len(of(chart, Span)) == len(of(chart, Rule)) == len(breakpoints)  # interval and most likely gap
    assert chart.y.scale == "log" and chart.y.low < min(medians.low) and chart.y.high > max(medians.high)
    assert png_size(saved(chart, tmp_path / "t.png")) == (800, 500)
    tree = ET.parse(saved(chart, tmp_path / "t.svg")).getroot()
    assert (tree.get("width"), tree.get("height")) == ("800", "500")
    shown = texts(tree)
    assert chart.title in shown and "0 B" in shown and "piecewise model α + β·b" in shown
    assert all(label in shown for _, label in chart.y.ticks)


def test_bandwidth_plot_marks_asymptote_n_half_and_bound(tmp_path):
    result = analyze_series(pingpong_run())
    chart = plots.bandwidth_plot(result, upper_bound=2e10)
    labels = [getattr(layer, "label", "") for layer in chart.layers]
    assert any("asymptotic" in l for l in labels)
    assert any("n½" in l for l in labels)
    assert any("memcpy" in l for l in labels)
    assert chart.y.label == "bandwidth, GB/s (10^9 B/s)"  # the bound, 20 GB/s, sets the unit
    assert png_size(saved(chart, tmp_path / "b.png")) == (800, 500)


def test_variability_plot_has_boxes_errorbars_min_max_outliers(tmp_path):
    result = analyze_series(pingpong_run())
    chart = plots.variability_plot(result)
    labels = [getattr(layer, "label", "") for layer in chart.layers]
    assert {"min", "max"} <= set(labels)
    assert any("outliers" in l for l in labels)
    boxes = of(chart, Box)
    assert len(boxes) == len(REPORT_SIZES)  # one box per size
    assert all(b.p5 <= b.p25 <= b.median <= b.p75 <= b.p95 for b in boxes)
    assert png_size(saved(chart, tmp_path / "v.png")) == (900, 500)


def test_launch_overlay_one_line_per_launch():
    chart = plots.launches_plot(analyze_series(pingpong_run(launches=3)))
    assert len([p for p in of(chart, Points) if p.label.startswith("launch")]) == 3
    assert chart.y.low < 1.0 < chart.y.high  # the consensus line is inside


def test_contention_and_matrix(tmp_path):
    result = analyze(rich_run())
    chart = plots.contention_plot(result.contention)
    assert len(of(chart, Points)) == 3  # one per size
    grid = next(g for g in result.matrices if g.bytes == 65536)
    assert grid.hosts == {0: "node0", 1: "node0", 2: "node1", 3: "node1"}
    chart = plots.matrix_plot(grid)
    (heat,) = of(chart, Heatmap)
    assert len(heat.values) == 4 and all(len(row) == 4 for row in heat.values)
    assert len(of(chart, Rule)) == 2  # one host boundary, horizontal and vertical
    assert heat.low < heat.high and chart.y.inverted
    assert png_size(saved(chart, tmp_path / "m.png")) == (650, 550)
    assert heat.quantity == "bandwidth, GB/s (10^9 B/s)" and heat.quantity in texts(svg_tree(chart))
    assert [label for _, label in heat.ticks] and all(heat.low <= v <= heat.high for v, _ in heat.ticks)


def test_overlay_one_series_per_run_and_formats(tmp_path):
    results = [(f"run {i}", analyze_series(pingpong_run(seed=i, scale=1 + i / 10))) for i in range(3)]
    chart = plots.overlay_plot(results)
    assert [p.label for p in of(chart, Points) if p.label] == ["run 0", "run 1", "run 2"]
    svg = saved(chart, tmp_path / "o.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert saved(chart, tmp_path / "o.pdf").read_bytes()[:5] == b"%PDF-"
    with pytest.raises(Exception, match="png"):
        saved(chart, tmp_path / "o.gif")


def test_units_are_human():
    assert plots.size_label(0) == "0 B" and plots.size_label(4096) == "4 KiB"
    assert plots.size_label(1 << 20) == "1 MiB"
    assert plots.time_label(2e-6) == "2 µs" and plots.time_label(5e-9) == "5 ns"
    assert plots.time_label(3e-3) == "3 ms"
    assert plots.rate_unit(5e9)[1].startswith("GB/s") and plots.rate_unit(5e8)[1].startswith("MB/s")


def test_ticks_are_round_and_inside():
    assert [t for t, _ in log_ticks(1.5e-6, 30e-6, str)] == pytest.approx([2e-6, 5e-6, 1e-5, 2e-5])
    assert [t for t, _ in log_ticks(1e-7, 1e-1, str)] == pytest.approx([10.0 ** k for k in range(-7, 0)])  # decades
    assert [t for t, _ in log_ticks(1.1, 1.5, str)] == [1.1, 1.15, 1.2, 1.25, 1.3, 1.35, 1.4, 1.45, 1.5]  # no 1-2-5 there
    assert linear_ticks(0.83, 1.26, lambda v: f"{v:g}") == tuple((v, f"{v:g}") for v in
                                                                (0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2, 1.25))
    assert [t for t, _ in linear_ticks(0.5, 3.0, str)] == [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    assert [t for t, _ in linear_ticks(0.0, 2.0, str)] == [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0]
    # a range narrower than the labels' digits: each label once, never more ticks than asked
    assert len(linear_ticks(0.0, 1e-13, str)) <= 10 and len({l for _, l in linear_ticks(0.0, 1e-13, str)}) > 1
    narrow = log_ticks(1e-6, 1.0001e-6, plots.time_label)
    assert [l for _, l in narrow] == ["1 µs"]
    assert colour_at(0.0) == "#00224e" and colour_at(1.0) == "#fee838" and colour_at(7.0) == "#fee838"


def test_zero_bytes_sit_left_of_the_smallest_size_and_no_size_is_clipped():
    """With 0 B in the sweep the axis spans the sizes measured (no empty linear stretch) and the
    largest size lies inside the axis, not on its edge."""
    chart = plots.time_plot(analyze_series(pingpong_run()))
    low, high = chart.x.low, chart.x.high
    smallest = min(s for s in REPORT_SIZES if s > 0)
    assert low < plots.zero_position(REPORT_SIZES) < smallest and high > max(REPORT_SIZES)
    assert high / max(REPORT_SIZES) < 2 and smallest / low < 4  # half an octave of margin, not 40 % of the width
    assert chart.x.ticks[0] == (plots.zero_position(REPORT_SIZES), "0 B")


def test_every_drawn_point_lies_inside_the_plot_area():
    """The SVG's markers sit where the axes say: inside the plot area, larger sizes to the right,
    longer times higher up."""
    chart = plots.time_plot(analyze_series(pingpong_run()))
    frame = Frame(chart)
    medians = of(chart, Points)[0]
    at = [(frame.x(x), frame.y(y)) for x, y in zip(medians.x, medians.y)]
    assert all(frame.left < x < frame.right and frame.top < y < frame.bottom for x, y in at)
    assert [x for x, _ in at] == sorted(x for x, _ in at)
    slowest = max(range(len(medians.y)), key=medians.y.__getitem__)
    assert at[slowest][1] == min(y for _, y in at)


def test_strings_from_files_are_text_in_titles_and_legends(tmp_path):
    """A host or MPI name with "$" was parsed as mathtext: "$\\frac{$" raised a ParseSyntaxException
    when the figure was saved; markup in one must not become SVG elements; control characters and
    very long names are shown escaped and cut."""
    evil = "$\\frac{a$_x^^\x1b[31m<script>alert(1)</script>&" + "h" * 500
    result = analyze_series(pingpong_run(host=evil))
    chart = plots.overlay_plot([(evil, result), ("plain", analyze_series(pingpong_run(seed=1)))], title=evil)
    assert png_size(saved(chart, tmp_path / "o.png")) == (800, 500)
    assert chart.title.startswith("$\\frac{a$_x^^\\x1b[31m<script>") and chart.title.endswith(f"…(+{len(evil) - 160} chars)")
    legend = [p.label for p in of(chart, Points) if p.label]
    assert legend[0].startswith("$\\frac{a$_x^^\\x1b") and legend[0].endswith("chars)") and legend[1] == "plain"
    tree = svg_tree(chart)  # parses: nothing broke the markup
    assert not list(tree.iter(f"{SVG}script"))
    shown, size = title_layout(chart)  # cut to what fits over the plot area (725 px), at the smallest size
    assert shown in texts(tree) and shown.endswith("…") and chart.title.startswith(shown[:-1]) and size == MIN_FONT
    assert len(shown) == 134  # 725 px / (0.6 em x 9 px)
    png = __import__("msgperf.present.mpl_chart", fromlist=["figure"]).figure(chart).axes[0]
    assert png.get_title() == shown and png.title.get_fontsize() == pytest.approx(MIN_FONT * 0.72)
    assert legend[0] in texts(tree)
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", svg_chart.svg(chart))


def test_profile_histogram_one_bar_per_bucket_coloured_by_regime(tmp_path):
    from msgperf.analysis.advice.profile_advice import advise_profile
    from tests.factories import sample_profile

    advice = advise_profile(sample_profile(1), analyze(rich_run()))
    chart = plots.profile_histogram_plot(advice)
    bars = of(chart, Bar)
    assert [b.height for b in bars] == [h.messages for h in advice.histogram] == [18, 6]  # 8 B and 64 B buckets
    assert {b.colour for b in bars} == {plots.REGIME_COLOURS["eager"]}
    assert [b.x for b in bars] == [8, 64]  # each bar starts at its bucket's low end
    marks = {r.label for r in of(chart, Rule)}
    assert "eager limit 16384 B" in marks and any(m.startswith("n½ = ") for m in marks)
    assert chart.y.low < 1 and chart.y.high >= 36
    assert png_size(saved(chart, tmp_path / "h.png")) == (800, 500)


def test_values_an_axis_cannot_hold_are_left_out_not_written_as_nan():
    """NaN breaks a line; a box with an unknown end is not drawn; a bar from 0 on a log axis is cut
    at the axis, and no path holds "nan" or "inf" (a browser stops drawing a path there)."""
    from msgperf.present.chart import Axis, Chart

    log = Axis("y", "log", 1.0, 100.0, ((1.0, "1"), (10.0, "10"), (100.0, "100")))
    x = Axis("x", "linear", 0.0, 4.0, ((0.0, "0"), (4.0, "4")))
    nan = float("nan")
    chart = Chart("t", 8.0, 5.0, x, log, (
        Points((0.0, 1.0, 2.0, 3.0), (2.0, nan, 0.0, 50.0), "#000000", "o", line="-", label="line"),
        Box(1.0, 0.2, nan, 2.0, 3.0, 4.0, 5.0, "#000000", "#ffffff"),
        Bar(2.0, 0.5, 0.0, "#000000"), Bar(3.0, 0.5, 30.0, "#000000")))
    tree = svg_tree(chart)
    paths = [p.get("d") for p in tree.iter(f"{SVG}path")]
    assert not any(re.search(r"nan|inf", d, re.I) for d in paths)
    line = next(p.get("d") for p in tree.iter(f"{SVG}path") if p.get("stroke-width") == "2.08")
    assert line.count("M") == 2 and line.count("L") == 0  # two points alone: 1 and 3 fell out, no segment joins them
    assert "#ffffff" not in svg_chart.svg(chart)  # the box with an unknown whisker end


def _fills(tree):
    """(top, left, fill) of every cell-sized filled rectangle path, from its "M x y" start."""
    out = []
    for p in tree.iter(f"{SVG}path"):
        m = re.match(r"M([\d.]+) ([\d.]+)H[\d.]+V[\d.]+H[\d.]+Z$", p.get("d"))
        if m and p.get("fill") not in ("none", "white") and p.get("shape-rendering") == "crispEdges":
            out.append((float(m.group(2)), float(m.group(1)), p.get("fill")))
    return out


def test_heatmap_row_zero_at_the_top_and_the_colour_bar_low_at_the_bottom():
    """Row i is the initiator rank i, drawn top to bottom; the lowest value takes the colour map's
    first colour, at the foot of the colour bar."""
    from msgperf.present.chart import Axis, Chart, COLOUR_MAP

    ticks = ((0.0, "0"), (1.0, "1"))
    chart = Chart("m", 6.5, 5.5, Axis("responder", "linear", -0.5, 1.5, ticks),
                  Axis("initiator", "linear", -0.5, 1.5, ticks, inverted=True),
                  (Heatmap(((1.0, 2.0), (3.0, 4.0)), 1.0, 4.0, "q", ((1.0, "1"), (4.0, "4"))),))
    cells = _fills(svg_tree(chart))
    grid = sorted(cells[:4])  # the four cells come first, then the colour bar's steps
    assert [fill for _, _, fill in grid] == [COLOUR_MAP[0], colour_at(1 / 3), colour_at(2 / 3), COLOUR_MAP[-1]]
    assert grid[0][0] < grid[2][0] and grid[0][1] < grid[1][1]  # row 0 above row 1, column 0 left of column 1
    steps = sorted(cells[4:], reverse=True)  # from the bottom up
    assert steps[0][2] == COLOUR_MAP[0] and steps[-1][2] == COLOUR_MAP[-1]
    frame = Frame(chart)
    assert frame.y(0) < frame.y(1)
    flipped = Frame(msgspec.structs.replace(chart, y=msgspec.structs.replace(chart.y, inverted=False)))
    assert flipped.y(0) > flipped.y(1)


def test_error_bars_are_drawn_from_low_to_high():
    """Each median's interval is a vertical segment from its low to its high end, with caps."""
    chart = plots.time_plot(analyze_series(pingpong_run()))
    medians = of(chart, Points)[0]
    frame = Frame(chart)
    tree = svg_tree(chart)
    bars = [p.get("d") for p in tree.iter(f"{SVG}path") if p.get("fill") == "none" and "V" in p.get("d")
            and p.get("stroke") == medians.colour]
    assert len(bars) == 1
    drawn = sorted((float(x), float(a), float(b)) for x, a, b in re.findall(r"M([\d.]+) ([\d.]+)V([\d.]+)", bars[0]))
    wanted = sorted((frame.x(x), frame.y(lo), frame.y(hi))
                    for x, lo, hi in zip(medians.x, medians.low, medians.high) if hi > lo)
    assert len(wanted) > 5 and len(drawn) == len(wanted)
    assert all(d == pytest.approx(w, abs=0.006) for d, w in zip(drawn, wanted))  # the SVG's 0.01 px


def test_the_size_axis_spans_the_sizes_measured_not_from_one_byte():
    """64 KiB to 64 MiB: the axis starts half an octave below 64 KiB (it started at 1 B, leaving
    60 % of the width empty)."""
    sizes = [65536 << k for k in range(11)]
    chart = plots.time_plot(analyze_series(sweep_run([lambda b: 1e-6 + b / 1e10], n=40, sizes=sizes)))
    assert chart.x.low == pytest.approx(65536 / 2 ** 0.5) and chart.x.high == pytest.approx(sizes[-1] * 2 ** 0.5)
    assert chart.x.ticks[0][1] == "64 KiB"


def test_the_legend_sits_where_it_hides_fewest_points_and_both_painters_use_that_corner():
    """Time rises with size: the upper left is empty. A legend over data would hide it."""
    chart = plots.time_plot(analyze_series(pingpong_run()))
    legend = legend_layout(chart)
    assert legend.corner == "upper left"
    medians = of(chart, Points)[0]
    falling = msgspec.structs.replace(medians, y=tuple(reversed(medians.y)), low=tuple(reversed(medians.low)),
                                      high=tuple(reversed(medians.high)))
    flipped = msgspec.structs.replace(chart, layers=(falling,))  # times falling with size: the upper left is full
    assert legend_layout(flipped).corner != "upper left"
    fig = __import__("msgperf.present.mpl_chart", fromlist=["figure"]).figure(chart)
    assert fig.axes[0].get_legend()._loc == 2  # matplotlib's code for "upper left"


def test_imported_summaries_draw_no_spread_and_say_so():
    """One time per size (OSU's average): no interval in the legend, and no variability plot."""
    from tests.factories import make_run, measurement

    run = make_run([measurement("pingpong", s, [2e-6 + s / 1e10]) for s in (1, 64, 4096, 65536, 1 << 20)])
    result = analyze_series(run)
    assert plots.summaries_only(result)
    assert of(plots.time_plot(result), Points)[0].label == "the time per size (one value each: no interval)"
    with pytest.raises(MsgperfError, match="no spread to draw"):
        plots.variability_plot(result)


def test_a_legend_taller_or_wider_than_the_plot_shrinks_then_cuts_and_says_how_many_are_left_out():
    """40 overlaid runs: the legend stops at the plot area's foot and its last row counts the
    runs not listed; a label wider than the plot is cut; both painters write the same rows."""
    one = analyze_series(pingpong_run())
    chart = plots.overlay_plot([(f"run {i}" + ("測" * 79 if i == 0 else ""), one) for i in range(40)])
    legend = legend_layout(chart)
    left, top, right, bottom = __import__("msgperf.present.chart", fromlist=["plot_area"]).plot_area(chart)
    assert legend.y + legend.height <= bottom and legend.x + legend.width <= right
    assert legend.more == 40 - len(legend.entries) > 0 and legend.font == MIN_FONT
    assert legend.labels[0].endswith("…") and legend.labels[1] == "run 1"
    assert "… and %d more" % legend.more in texts(svg_tree(chart))
    png = __import__("msgperf.present.mpl_chart", fromlist=["figure"]).figure(chart).axes[0].get_legend()
    assert [t.get_text() for t in png.get_texts()] == [*legend.labels, "… and %d more" % legend.more]
    markers = [p.marker for p in of(chart, Points) if p.label]
    assert markers[0] != markers[8] and markers[:8] == ["o"] * 8  # past eight colours, another marker
    assert plots.overlay_plot([("a", one)]).title.startswith("1 run:")


def test_a_title_of_wide_characters_is_held_inside_the_image():
    """East Asian characters are about one em wide, not 0.6: the title's size and cut count them so."""
    chart = plots.time_plot(analyze_series(pingpong_run()), title="測" * 100)
    shown, size = title_layout(chart)
    assert size * len(shown.rstrip("…")) <= 725 + size  # 725 px over the plot area


def test_many_sizes_shrink_the_variability_markers_and_the_boxes_are_drawn_over_them():
    few = plots.variability_plot(analyze_series(pingpong_run()))
    many_sizes = [2 ** i for i in range(60)]
    many = plots.variability_plot(analyze_series(sweep_run([lambda b: 1e-6 + b * 1e-10], n=60, sizes=many_sizes)))
    assert len(REPORT_SIZES) <= plots.CROWDED < len(many_sizes)
    assert {p.size for p in of(few, Points) if p.label == "min"} == {4.0}
    assert {p.size for p in of(many, Points) if p.label == "min"} == {2.5}  # 4 x 24/60, held at its floor
    for chart in (few, many):  # every marker first, then the boxes on top of them
        kinds = [type(layer) for layer in chart.layers]
        assert kinds.index(Box) > max(i for i, k in enumerate(kinds) if k is Points)


def test_a_plot_of_one_launch_says_so_in_its_title():
    result = analyze_series(pingpong_run(launches=3))
    assert plots.time_plot(result).title.endswith(", 3 launches pooled")
    for draw in (plots.time_plot, plots.bandwidth_plot, plots.variability_plot):
        assert draw(analyze_series(pingpong_run(launches=3), launch=1), launch=1).title.endswith(", launch 1 alone")
