"""The whole analysis of runs: selection of pattern and launch, per-size results, caveats,
launches compared, bad input; combining and buffering predictions."""

import math

import numpy as np
import pytest

from msgperf.analysis import (AnalysisError, SampleSet, analyze_measurement, analyze_pairs,
                              analyze_series, analyze_sets, estimate_buffering, predict_combining)
from msgperf.analysis.tables.buffering import effective_bandwidth
from msgperf.errors import MsgperfError
from tests.factories import SIZES, broken, factors, launch, line, make_run, measurement, sweep_run
from tests.factories import replace

CURVE = broken(1.1e-6, 5e-11, 3e-6, 1.3e-10, 6000)


def test_run_pattern_and_launch_selection():
    rng = np.random.default_rng(0)
    ms = [measurement(p, s, 2 * c(s) * factors(200, 0.05, rng))
          for p, c in (("pingpong", CURVE), ("exchange", line(3e-6, 2e-10))) for s in SIZES[:12]]
    run = make_run(ms, path="r.jsonl")
    assert analyze_series(run).pattern == "pingpong"  # the first pattern in the file
    ex = analyze_series(run, pattern="exchange")
    assert ex.sweep.hockney.alpha_s == pytest.approx(3e-6, rel=0.02)
    with pytest.raises(AnalysisError, match="no measurements of pattern 'ring'; the run has pingpong, exchange"):
        analyze_series(run, pattern="ring")
    with pytest.raises(AnalysisError, match="has no launch 3; its launches are 0"):
        analyze_series(run, launch=3)
    with pytest.raises(AnalysisError, match="no measurements to analyse"):
        analyze_series(make_run([]))


def test_one_way_time_is_half_the_round_trip():
    # raw samples are round trips (divisor 2): the model is of the one-way time
    run = sweep_run([CURVE], n=200, noise=0.02)
    result = analyze_series(run)
    assert result.sweep.hockney.line.alpha_s == pytest.approx(CURVE(0), rel=0.05)
    assert result.sizes[0].stats.median == pytest.approx(CURVE(0), rel=0.01)
    assert result.sizes[0].measurements[0].sample_s == pytest.approx(2 * CURVE(0), rel=0.01)


def test_per_size_statistics_are_reported():
    result = analyze_series(sweep_run([CURVE], n=300, noise=0.05))
    size = result.sizes[5]
    s = size.stats
    assert (s.n, size.bytes, len(size.measurements)) == (300, 16, 1)
    assert s.min <= s.p5 <= s.p25 <= s.median <= s.p75 <= s.p95 <= s.p99 <= s.max
    assert s.ci_low <= s.median <= s.ci_high and s.mad > 0 and s.std > 0
    assert size.point.rel_sd == pytest.approx((s.ci_high - s.ci_low) / (2 * 1.959964 * s.median))


@pytest.mark.parametrize("values, where", [
    ([1e-6, -998128e-6], "sample 1 is -0.998128 s"),
    ([1e-6, 0.0], "sample 1 is 0.0 s"),
    ([float("nan")], "sample 0 is nan s"),
    ([1e-6, float("inf")], "sample 1 is inf s"),
])
def test_bad_times_rejected_with_their_position(values, where):
    with pytest.raises(MsgperfError, match=where):
        analyze_pairs([8] * len(values), values, source="mine")
    with pytest.raises(AnalysisError, match=f"record 7: {where}"):
        analyze_measurement(SampleSet(8, np.array(values), where="record 7"))


def test_bad_sizes_and_too_few_sizes():
    with pytest.raises(AnalysisError, match="whole numbers of bytes"):
        analyze_pairs([-1, 2], [1e-6, 1e-6])
    with pytest.raises(AnalysisError, match="1 message size: fitting .* needs at least two sizes"):
        analyze_pairs([8, 8, 8], [1e-6, 1.1e-6, 1e-6])
    with pytest.raises(AnalysisError, match="2 sizes but 1 times"):
        analyze_pairs([8, 16], [1e-6])


def _kinds(result, size=None):
    return {c.kind for c in result.caveats if size is None or c.bytes == size}


def test_measurement_caveats():
    rng = np.random.default_rng(1)
    few = factors(5, 0.05, rng)
    drift = factors(2000, 0.02, rng)
    drift[:200] *= 1.3
    two = np.where(rng.random(3000) < 0.5, 1.0, 1.6) * factors(3000, 0.02, rng)
    spiky = factors(2000, 0.02, rng) * np.where(rng.random(2000) < 0.05, 20, 1)
    wide = factors(12, 0.15, rng)
    sets = [SampleSet(0, 1e-6 * few), SampleSet(1, 1e-6 * drift), SampleSet(2, 1e-6 * two),
            SampleSet(4, 1e-6 * spiky), SampleSet(8, 1e-6 * wide),
            SampleSet(16, 1e-6 * factors(500, 0.02, rng), divisor=2, clock_resolution_s=1e-7),
            SampleSet(32, 1e-6 * factors(500, 0.02, rng), validated=False),
            SampleSet(64, np.array([1.2e-6]))]
    result = analyze_sets(sets, "p")
    assert _kinds(result, 0) == {"few_samples"}
    assert "warmup_drift" in _kinds(result, 1)  # slow early samples are also outliers
    assert "bimodal" in _kinds(result, 2)  # (its median sits between the groups: a wide interval)
    assert _kinds(result, 4) == {"outliers"}
    assert _kinds(result, 8) == {"wide_interval"}
    assert _kinds(result, 16) == {"near_resolution"}  # a 2 us sample is 20 ticks of 100 ns
    assert _kinds(result, 32) == {"not_validated"}
    assert _kinds(result, 64) == {"single_value"}
    assert all(c.advice for c in result.caveats)
    assert result.sizes[3].outliers == result.sizes[3].measurements[0].outliers.count > 50


def test_imported_run_with_single_values_fits():
    ms = [measurement("osu-latency", s, np.array([CURVE(s)]), divisor=1, stop="imported")
          for s in SIZES]
    result = analyze_series(make_run(ms, launches=0, source="osu"))
    assert result.sweep.piecewise.breakpoints[0].best_low_bytes == 4096
    assert "no_per_size_noise" in _kinds(result)
    assert "single_value" not in _kinds(result)  # said once for the sweep, not per size
    assert all(s.point.ci_low_s is None for s in result.sizes)


def test_launches_compared_and_the_odd_one_flagged():
    slow = lambda b: 1.3 * CURVE(b)  # noqa: E731 - one launch is 30 % slow throughout
    result = analyze_series(sweep_run([CURVE, CURVE, slow, CURVE, CURVE], n=200, noise=0.03))
    cmp = result.launch_comparison
    assert cmp.launches == (0, 1, 2, 3, 4) and cmp.apart == (2,)
    verdict = cmp.verdicts[2]
    assert verdict.typical_ratio == pytest.approx(1.3, rel=0.02) and verdict.z > 3.5
    assert len(verdict.sizes_apart) == len(SIZES)
    assert cmp.within_rel == pytest.approx(0.03, rel=0.2)  # the lognormal sigma of the samples
    assert [m.launch for m in result.per_launch] == [0, 1, 2, 3, 4]
    assert result.per_launch[2].sweep.hockney.alpha_s == pytest.approx(1.3 * 1.1e-6, rel=0.05)
    assert "launch_apart" in _kinds(result)
    assert len(result.sizes[0].measurements) == 5 and result.sizes[0].stats.n == 1000


def test_thirty_launches_in_two_groups_like_blaisdell():
    rng = np.random.default_rng(4)
    curves = [(lambda b, f=f: f * CURVE(b)) for f in np.where(rng.random(30) < 0.4, 3.7, 1.0)]
    result = analyze_series(sweep_run(curves, n=20, noise=0.05, sizes=SIZES[::3]))
    slow = {i for i, c in enumerate(curves) if c(0) > 2 * CURVE(0)}
    assert set(result.launch_comparison.apart) == slow
    assert {"launch_apart", "launch_spread"} <= _kinds(result)


def test_two_launches_are_not_judged_and_agreeing_launches_not_flagged():
    two = analyze_series(sweep_run([CURVE, lambda b: 2 * CURVE(b)], n=100))
    assert two.launch_comparison.apart == () and "two_launches" in _kinds(two)
    same = analyze_series(sweep_run([CURVE] * 4, n=200, noise=0.01))
    assert same.launch_comparison.apart == () and not _kinds(same) & {"launch_apart", "launch_spread"}
    single = analyze_series(sweep_run([CURVE], n=50), launch=0)
    assert single.launch_comparison is None and single.per_launch == ()


def test_combining_across_a_protocol_switch():
    result = analyze_series(sweep_run([CURVE], n=200, noise=0.01))
    sweep = result.sweep
    measured = {s.bytes: s.stats.median for s in result.sizes}
    p = predict_combining(sweep.piecewise, sweep.hockney.line, 8, 1024, measured=measured)
    assert p.apart_s == pytest.approx(8 * CURVE(1024), rel=0.02)
    assert p.combined_s == pytest.approx(CURVE(8192), rel=0.02)  # rendezvous alpha, not eager
    assert p.measured_apart_s == pytest.approx(8 * measured[1024])
    assert p.measured_combined_s == measured[8192]
    assert p.speedup == pytest.approx(8 * CURVE(1024) / CURVE(8192), rel=0.03)
    far = predict_combining(sweep.piecewise, sweep.hockney.line, 4, 2**25)
    assert [c.kind for c in far.caveats] == ["extrapolated"]
    inside = predict_combining(sweep.piecewise, sweep.hockney.line, 1, 5000)
    assert [c.kind for c in inside.caveats] == ["inside_breakpoint"]
    with pytest.raises(AnalysisError, match="--messages"):
        predict_combining(sweep.piecewise, sweep.hockney.line, 0, 8)


@pytest.mark.parametrize("copy, network, expected", [
    # Saphir 1994, Table 1 (MB/s): the effective buffered bandwidth column
    (4.8, 35, 4.2), (69, 35, 23), (19, 167, 17), (19, 2.8, 2.4), (9, 8.7, 4.4),
    (1.0, 1.0, 0.5),  # equal speeds halve the bandwidth
])
def test_buffered_bandwidth_saphir_table(copy, network, expected):
    # "All results are accurate to within 5 %" (Saphir), and the table rounds to 2 digits
    assert effective_bandwidth(copy * 1e6, network * 1e6) / 1e6 == pytest.approx(expected, rel=0.05)


def test_buffering_estimate_and_errors():
    est = estimate_buffering(5e9, 10e9, size=1 << 20, unbuffered_s=120e-6)
    assert est.slowdown == pytest.approx(3.0)
    assert est.buffered_s == pytest.approx(120e-6 + (1 << 20) / 5e9)
    with pytest.raises(AnalysisError, match="copy bandwidth must be a positive"):
        effective_bandwidth(0, 1e9)
    with pytest.raises(AnalysisError, match="network bandwidth"):
        effective_bandwidth(1e9, math.nan)


def test_launch_records_keep_their_clock():
    run = make_run([measurement("pp", s, np.full(200, 4e-7) * factors(200, 0.01, np.random.default_rng(s)))
                    for s in (0, 8, 64, 512, 4096, 32768)])
    coarse = replace(run, launches=(launch(0, replace(run.launches[0].clock,
                                                                              resolution_s=1e-8)),))
    assert "near_resolution" in _kinds(analyze_series(coarse))  # 400 ns samples = 40 ticks


def test_variants_are_separate_series_and_pairs_pooled_with_a_caveat():
    rng = np.random.default_rng(8)
    ms = []
    for variant, factor in (("preposted", 1.0), ("late", 1.8)):
        ms += [replace(measurement("unexpected", s, 2 * factor * CURVE(s) * factors(50, 0.02, rng)),
                                   variant=variant) for s in SIZES[:14]]
    run = make_run(ms)
    first = analyze_series(run)
    assert (first.variant, first.series) == ("preposted", "unexpected [preposted]")
    late = analyze_series(run, variant="late")
    assert late.sweep.hockney.alpha_s == pytest.approx(1.8 * first.sweep.hockney.alpha_s, rel=0.03)
    assert late.sizes[0].stats.n == 50  # not pooled with the other variant
    with pytest.raises(AnalysisError, match="no variant 'both'; its variants are 'preposted', 'late'"):
        analyze_series(run, variant="both")
    pairs_run = make_run([replace(m, ranks=(0, 1 + i % 2)) for i, m in enumerate(ms[:14])])
    assert "pooled_pairs" in _kinds(analyze_series(pairs_run))
