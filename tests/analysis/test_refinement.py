"""Where refinement measures next (analysis/refinement.py): sizes strictly inside a wide
breakpoint interval, on a log scale with NetPIPE-style perturbation, never one measured already."""

from __future__ import annotations

import math

from msgperf.analysis.refinement import POINTS, PERTURB_BYTES, Bracket, next_step, sizes_inside
from msgperf.analysis.result import analyze
from tests.factories import broken, line, sweep_run
from tests.factories import replace


def test_an_octave_is_cut_into_eighths_each_perturbed_by_three_bytes():
    sizes = sizes_inside(8192, 16384)
    assert len(sizes) == POINTS and all(8192 < s < 16384 for s in sizes)
    centres = [8192 * 2 ** (k / 8) for k in range(1, 8)]
    assert all(abs(abs(s - c) - PERTURB_BYTES) <= 0.5 for s, c in zip(sizes, centres))
    assert sum(s % 2 for s in sizes) >= 3  # not powers of two, nor all even


def test_from_zero_the_interval_is_cut_linearly():
    assert sizes_inside(0, 64) == [8 + 3, 16 - 3, 24 + 3, 32 - 3, 40 + 3, 48 - 3, 56 + 3]


def test_an_interval_too_narrow_for_distinct_sizes_gives_what_fits():
    assert sizes_inside(100, 104) == [103]
    assert all(1000 < s < 1010 for s in sizes_inside(1000, 1010))


def test_located_means_an_eighth_of_an_octave_or_a_few_bytes():
    assert Bracket("pingpong", 11970, 12095).located
    assert not Bracket("pingpong", 8192, 16384).located
    assert Bracket("pingpong", 0, 16).located and not Bracket("pingpong", 0, 64).located
    assert math.isinf(Bracket("pingpong", 0, 64).octaves)


def test_the_next_step_targets_the_switch_of_the_main_pattern_only_with_new_sizes():
    sizes = [1024 * 2 ** k for k in range(11)]
    result = analyze(sweep_run([broken(1e-6, 1e-10, 5e-6, 1e-10, 12000)], n=200, noise=0.01, sizes=sizes))
    step = next_step(result, set(sizes))
    assert step is not None and step.pattern == "pingpong"
    (b,) = step.brackets
    assert (b.low_bytes, b.high_bytes) == (8192, 16384)
    assert step.new == tuple(sizes_inside(8192, 16384))
    assert step.context == (2048, 4096, 8192, 16384, 32768, 65536)  # three either side, measured again
    assert step.sizes == tuple(sorted(step.new + step.context))
    assert next_step(result, set(sizes) | set(step.sizes)) is None  # nothing new to measure


def test_a_straight_line_needs_no_step():
    sizes = [1024 * 2 ** k for k in range(11)]
    run = sweep_run([line(1e-6, 1e-10)], n=200, noise=0.01, seed=1, sizes=sizes)
    assert next_step(analyze(run), set(sizes)) is None


def test_a_run_whose_sizes_are_not_its_plan_is_modelled_not_crashed():
    """Found by the command fuzzer (seed 41, input 8606): a plan of 0 B and 8 B, measured at 1 B and
    8 B. The size off the plan counts as a refinement's; with two sizes no segment can be refitted,
    and the sweep's own line must stand."""

    from msgperf.records.runfile_read import parse_run_text
    from tests.records.test_read import good_text

    run = parse_run_text(good_text()).run
    first = replace(run.measurements[0], bytes=1)
    run = replace(run, measurements=(first, *run.measurements[1:]))
    model = analyze(run).main.model
    assert model is not None
    assert [p.bytes for p in model.sweep.points] == [1, 8]
    assert model.sweep.piecewise.residuals and len(model.sweep.piecewise.segments) == 1
