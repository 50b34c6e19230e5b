"""Plots are real images of the expected size with the expected series (structure, not pixels)."""

from __future__ import annotations

import struct

import pytest

from msgperf.analysis import analyze_series
from msgperf.analysis.result import analyze
from msgperf.present import plots
from msgperf.writing import output
from tests.factories import REPORT_SIZES, pingpong_run, rich_run


def saved(fig, path):
    return plots.save_figure(fig, output(path, False, what="a plot"))


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_time_plot_png_size_and_series(tmp_path):
    result = analyze_series(pingpong_run())
    fig = plots.time_plot(result)
    ax = fig.axes[0]
    segments = len(result.sweep.piecewise.segments)
    assert result.sweep.piecewise.breakpoints, "the synthetic curve has a switch at 16 KiB"
    # one errorbar data line + one line per segment + one dashed line per breakpoint
    assert len(ax.get_lines()) >= 1 + segments + len(result.sweep.piecewise.breakpoints)
    assert len(ax.patches) == len(result.sweep.piecewise.breakpoints)  # the interval spans
    path = saved(fig, tmp_path / "t.png")
    assert png_size(path) == (800, 500)


def test_bandwidth_plot_marks_asymptote_n_half_and_bound(tmp_path):
    result = analyze_series(pingpong_run())
    fig = plots.bandwidth_plot(result, upper_bound=2e10)
    labels = [l.get_label() for l in fig.axes[0].get_lines()]
    assert any("asymptotic" in l for l in labels)
    assert any("n½" in l for l in labels)
    assert any("memcpy" in l for l in labels)
    assert "10^9 B/s" in fig.axes[0].get_ylabel() or "10^6 B/s" in fig.axes[0].get_ylabel()
    assert png_size(saved(fig, tmp_path / "b.png")) == (800, 500)


def test_variability_plot_has_boxes_errorbars_min_max_outliers(tmp_path):
    run = pingpong_run()
    result = analyze_series(run)
    fig = plots.variability_plot(result)
    ax = fig.axes[0]
    labels = [l.get_label() for l in ax.get_lines()]
    assert {"min", "max"} <= set(labels)
    assert any("outliers" in l for l in labels)
    assert len(ax.patches) == len(REPORT_SIZES)  # one box per size
    assert png_size(saved(fig, tmp_path / "v.png")) == (900, 500)


def test_launch_overlay_one_line_per_launch(tmp_path):
    result = analyze_series(pingpong_run(launches=3))
    fig = plots.launches_plot(result)
    launch_lines = [l for l in fig.axes[0].get_lines() if l.get_label().startswith("launch")]
    assert len(launch_lines) == 3


def test_contention_and_matrix(tmp_path):
    result = analyze(rich_run())
    fig = plots.contention_plot(result.contention)
    assert len(fig.axes[0].get_lines()) == 3  # one per size
    grid = next(g for g in result.matrices if g.bytes == 65536)
    assert grid.hosts == {0: "node0", 1: "node0", 2: "node1", 3: "node1"}
    fig = plots.matrix_plot(grid)
    ax = fig.axes[0]
    assert len(ax.images) == 1 and ax.images[0].get_array().shape == (4, 4)
    assert len(ax.get_lines()) == 2  # one host boundary, horizontal and vertical
    assert png_size(saved(fig, tmp_path / "m.png")) == (650, 550)


def test_overlay_one_series_per_run_and_formats(tmp_path):
    results = [(f"run {i}", analyze_series(pingpong_run(seed=i, scale=1 + i / 10))) for i in range(3)]
    fig = plots.overlay_plot(results)
    handles, labels = fig.axes[0].get_legend_handles_labels()
    assert labels == ["run 0", "run 1", "run 2"]
    svg = saved(fig, tmp_path / "o.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert saved(fig, tmp_path / "o.pdf").read_bytes()[:5] == b"%PDF-"
    with pytest.raises(Exception, match="png"):
        saved(fig, tmp_path / "o.gif")


def test_units_are_human():
    assert plots.size_label(0) == "0 B" and plots.size_label(4096) == "4 KiB"
    assert plots.size_label(1 << 20) == "1 MiB"
    assert plots.time_label(2e-6) == "2 µs" and plots.time_label(5e-9) == "5 ns"
    assert plots.time_label(3e-3) == "3 ms"
    assert plots.rate_unit(5e9)[1].startswith("GB/s") and plots.rate_unit(5e8)[1].startswith("MB/s")


def test_zero_bytes_sit_left_of_the_smallest_size_and_no_size_is_clipped():
    """With 0 B in the sweep the axis spans the sizes measured (no empty linear stretch) and the
    largest size lies inside the axis, not on its edge."""
    result = analyze_series(pingpong_run())
    ax = plots.time_plot(result).axes[0]
    low, high = ax.get_xlim()
    smallest = min(s for s in REPORT_SIZES if s > 0)
    assert low < plots.zero_position(REPORT_SIZES) < smallest and high > max(REPORT_SIZES)
    assert high / max(REPORT_SIZES) < 2 and smallest / low < 4  # half an octave of margin, not 40 % of the width
    assert ax.get_xticklabels()[0].get_text() == "0 B"


def test_strings_from_files_are_text_in_titles_and_legends(tmp_path):
    """A host or MPI name with "$" was parsed as mathtext: "$\\frac{$" raised a ParseSyntaxException
    when the figure was saved; control characters and very long names are shown escaped and cut."""
    evil = "$\\frac{a$_x^^\x1b[31m" + "h" * 500
    result = analyze_series(pingpong_run(host=evil))
    fig = plots.overlay_plot([(evil, result), ("plain", analyze_series(pingpong_run(seed=1)))], title=evil)
    assert png_size(saved(fig, tmp_path / "o.png")) == (800, 500)
    ax = fig.axes[0]
    title = ax.get_title()
    assert title.startswith("$\\frac{a$_x^^\\x1b[31m") and title.endswith(f"…(+{len(evil) - 160} chars)")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0].startswith("$\\frac{a$_x^^\\x1b") and legend[0].endswith("chars)") and legend[1] == "plain"
    assert not any(t.get_parse_math() for t in [ax.title, *ax.get_legend().get_texts()])


def test_profile_histogram_one_bar_per_bucket_coloured_by_regime(tmp_path):
    from matplotlib.colors import to_hex

    from msgperf.analysis.advice.profile_advice import advise_profile
    from tests.factories import sample_profile

    advice = advise_profile(sample_profile(1), analyze(rich_run()))
    fig = plots.profile_histogram_plot(advice)
    ax = fig.axes[0]
    heights = [p.get_height() for p in ax.patches]
    assert heights == [h.messages for h in advice.histogram] == [18, 6]  # 8 B and 64 B buckets
    assert {to_hex(p.get_facecolor()) for p in ax.patches} == {plots.REGIME_COLOURS["eager"].lower()}
    assert [p.get_x() for p in ax.patches] == [8, 64]  # each bar starts at its bucket's low end
    marks = {line.get_label() for line in ax.get_lines()}
    assert "eager limit 16384 B" in marks and any(m.startswith("n½ = ") for m in marks)
    path = saved(fig, tmp_path / "h.png")
    assert png_size(path) == (800, 500)
