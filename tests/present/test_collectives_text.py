"""The collectives' per-range table prints the ratios analysis stores (``SizeRange.ratios``: the
median over the range's finite ratios), so the text and ``show --json`` give the same value."""

from __future__ import annotations

import io

from rich.console import Console

from msgperf import units
from msgperf.analysis.result import analyze
from msgperf.present.collectives_text import ranges_table
from msgperf.present.grid import render
from msgperf.present.json_view import show_json
from tests.analysis.collectives.test_naming import run_of
from tests.factories import replace


def test_a_range_of_an_even_count_of_sizes_shows_the_json_s_median():
    result = analyze(run_of("far_off"))  # no algorithm fits: one range of 18 sizes
    fit = result.collectives.find("allreduce")
    assert len(fit.ranges) == 1 and fit.ranges[0].sizes % 2 == 0
    out = io.StringIO()
    render(Console(file=out, width=400, color_system=None, highlight=False), ranges_table(result.collectives, fit))
    row = next(line for line in out.getvalue().splitlines() if f"({fit.ranges[0].sizes})" in line)
    shown = show_json(result)["collectives"]["fits"]
    ratios = next(f for f in shown if f["collective"] == "allreduce")["ranges"][0]["ratios"]
    assert set(ratios) == {a.key for a in fit.algorithms}
    cells = [units.ratio(ratios[a.key]) for a in fit.algorithms]
    assert all(c in row for c in cells), (cells, row)
    # the median of an even count lies between the two middle ratios, not on the upper one
    r = sorted(p.ratio(v.measured_s) for v in fit.sizes for p in v.predictions if p.algorithm == fit.algorithms[0].key)
    assert r[len(r) // 2 - 1] < ratios[fit.algorithms[0].key] < r[len(r) // 2]
    assert units.ratio(r[len(r) // 2]) not in row


def test_a_setting_every_algorithm_needs_is_said_once_under_the_table():
    from msgperf.present.collectives_text import models_table

    fit = analyze(run_of("recursive_doubling")).collectives.find("allreduce")
    # MPICH has no reduce-then-bcast allreduce to select: its cell stays "-"
    assert [a.select.split()[:1] for a in fit.algorithms] == [["MPIR_CVAR_DEVICE_COLLECTIVES=none"]] * 3 + [[]]
    t = models_table(fit)
    cells = [row[-1] for row in t.rows]
    assert cells == [a.select.split()[1] for a in fit.algorithms[:3]] + [units.MISSING]
    assert "each selection also needs MPIR_CVAR_DEVICE_COLLECTIVES=none" in t.note
    assert max(len(line) for line in t.without_detail().lines()) < 150  # 180 with the setting in each cell


def test_a_range_s_measured_times_go_from_the_lowest_to_the_highest():
    """A tester read "2.84 µs–1.21 µs": the times at the range's first and last sizes, 0 B slower
    than 8 B on a busy machine. The cell is the range of times measured."""
    result = analyze(run_of("far_off"))
    fit = result.collectives.find("allreduce")
    slow = fit.sizes[0]
    fit = replace(fit, sizes=(replace(slow, measured_s=slow.measured_s * 50), *fit.sizes[1:]))
    t = ranges_table(result.collectives, fit)
    times = sorted(v.measured_s for v in fit.sizes if fit.ranges[0].from_bytes <= v.bytes <= fit.ranges[0].to_bytes)
    assert t.rows[0][1] == f"{units.seconds(times[0])}–{units.seconds(times[-1])}"
