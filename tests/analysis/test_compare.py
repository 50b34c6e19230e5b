"""Run comparison statistics (analysis.compare): the launch, not the sample, is the unit of
variation. Identical configurations are not flagged more often than the stated error rate even
when launches differ by far more than their samples' intervals (the 1e-185 false alarm); a
known slowdown is found; single values and unmeasured run-to-run spread are "cannot tell"."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from msgperf.analysis import AnalysisError
from msgperf.analysis.compare import (ASSUMED_RERUN_SD, CANNOT_TELL, FAIL, PASS, SizeComparison,
                                      compare_launch_samples, compare_runs,
                                      _verdict, gate, holm, launch_samples, size_gate)
from msgperf.present.json_view import comparison_dict, dumps
from msgperf.records.format import HostLoad, LaunchHost
from tests.factories import factors, launches_run, line, make_run, measurement, sweep_run
from tests.factories import replace

SIZES = (0, 64, 1024, 16384, 262144, 1 << 20)


def _as_json(c, fail_above=None):
    """What compare --json prints for one comparison, read back."""
    return json.loads(dumps(comparison_dict(c, None if fail_above is None else gate([c], fail_above))))


def _launches(rng, launches=3, launch_sd=0.02, n=200, noise=0.05, scale=None):
    """size -> per-launch samples, each launch shifted by exp(launch_sd·N(0,1))."""
    scale = scale or {}
    return {s: tuple((2e-6 + 1e-10 * s) * scale.get(s, 1.0)
                     * math.exp(launch_sd * rng.standard_normal()) * factors(n, noise, rng)
                     for _ in range(launches)) for s in SIZES}


def _clopper_pearson_upper(k: int, n: int) -> float:
    return float(stats.binomtest(k, n).proportion_ci(0.95, method="exact").high)


def test_holm_matches_hand_computation():
    assert holm([0.01, 0.04, 0.03, None]) == pytest.approx([0.03, 0.06, 0.06, None])
    assert holm([0.5, 0.9]) == [1.0, 1.0]


def test_known_factor_on_one_size_is_detected_across_launches():
    rng = np.random.default_rng(1)
    a = _launches(rng, launches=4)
    b = _launches(rng, launches=4, scale={16384: 1.2})
    sizes, _ = compare_launch_samples(a, b)
    by = {s.bytes: s for s in sizes}
    assert by[16384].verdict == "slower"
    assert by[16384].ratio == pytest.approx(1.2, rel=0.05)
    lo, hi = by[16384].ratio_ci
    assert lo < 1.2 < hi and lo > 1.0
    assert by[16384].launches_a == by[16384].launches_b == 4
    assert all(s.verdict == "within noise" for s in sizes if s.bytes != 16384)


def test_faster_is_reported_as_faster():
    rng = np.random.default_rng(2)
    sizes, _ = compare_launch_samples(_launches(rng), _launches(rng, scale={0: 0.8}))
    assert {s.bytes: s.verdict for s in sizes}[0] == "faster"


def test_launch_spread_is_not_a_slowdown():
    """The 1e-185 false alarm: one launch each, launches 8 % apart, samples tight. Testing
    samples against samples calls this hugely significant; with the launch as the unit and no
    measure of the run-to-run spread the only honest verdict is "cannot tell"."""
    rng = np.random.default_rng(3)
    a = {s: (1e-6 * factors(5000, 0.01, rng),) for s in SIZES}
    b = {s: (1.08e-6 * factors(5000, 0.01, rng),) for s in SIZES}
    sizes, notes = compare_launch_samples(a, b)
    assert all(s.verdict == CANNOT_TELL and s.assumed for s in sizes)
    assert all(s.p_value > 1e-3 for s in sizes)
    assert any("--repeat 3" in n for n in notes)
    assert gate([_wrap(sizes)], 0.05).outcome == CANNOT_TELL


def test_gross_change_is_called_even_without_a_measured_spread():
    rng = np.random.default_rng(4)
    a = {s: (1e-6 * factors(500, 0.02, rng),) for s in SIZES}
    b = {s: (2e-6 * factors(500, 0.02, rng),) for s in SIZES}
    sizes, _ = compare_launch_samples(a, b)
    assert all(s.verdict == "slower" and s.assumed for s in sizes)
    assert gate([_wrap(sizes)], 0.05).outcome == FAIL


def _wrap(sizes):
    from msgperf.analysis.compare import RunComparison
    return RunComparison("A", "B", "pingpong", 0.05, 0.0, tuple(sizes), (), ())


def _aa_ab_rates(pairs: int, launch_sd: float, run_sd: float, shift: float, seed: int,
                 history: int = 0):
    """(false alarm pairs, detected pairs) of the --fail-above 5 gate over simulated runs of
    3 launches with launch- and run-level random effects; B of the A/B pairs is ``shift``
    slower at every size."""
    false_alarms = detected = 0
    stored = [launches_run(seed=10_000 + seed * 100 + i, launch_sd=launch_sd, run_sd=run_sd,
                           n=60) for i in range(history)]
    for i in range(pairs):
        a = launches_run(seed=seed * 100_000 + 3 * i, launch_sd=launch_sd, run_sd=run_sd, n=60)
        same = launches_run(seed=seed * 100_000 + 3 * i + 1, launch_sd=launch_sd, run_sd=run_sd, n=60)
        slow = launches_run(seed=seed * 100_000 + 3 * i + 2, launch_sd=launch_sd, run_sd=run_sd,
                            n=60, scale=1 + shift)
        aa = compare_runs(a, same, history=stored, parameters=False)
        ab = compare_runs(a, slow, history=stored, parameters=False)
        false_alarms += gate([aa], 0.05).outcome == FAIL
        detected += gate([ab], 0.05).outcome == FAIL
    return false_alarms, detected


def test_aa_false_alarms_at_most_5_percent_with_launch_effects():
    """A/A: 200 pairs of identical configurations whose launches differ by 5 % (samples by
    4 %, 60 per launch): false alarms of the 5 % gate stay within 5 % (Clopper-Pearson)."""
    alarms, _ = _aa_ab_rates(200, launch_sd=0.05, run_sd=0.0, shift=0.1, seed=1)
    assert alarms / 200 <= 0.05 or stats.binomtest(alarms, 200, 0.05, "greater").pvalue > 0.01
    assert alarms <= 10


def test_aa_false_alarms_with_run_level_drift_and_history():
    """Runs that also shift as a whole (3 %) are judged on the history's run-to-run spread."""
    alarms, _ = _aa_ab_rates(150, launch_sd=0.02, run_sd=0.03, shift=0.1, seed=2, history=8)
    assert alarms <= 7  # 5 % of 150 is 7.5


def test_ab_detects_a_10_percent_slowdown_where_the_noise_allows():
    _, detected = _aa_ab_rates(60, launch_sd=0.01, run_sd=0.0, shift=0.10, seed=3)
    assert detected / 60 >= 0.9


def test_ci_of_ratio_covers_the_truth_across_launches():
    rng = np.random.default_rng(5)
    covered = 0
    for _ in range(200):
        a = {8: tuple(1e-6 * math.exp(0.05 * rng.standard_normal()) * factors(40, 0.05, rng)
                      for _ in range(3))}
        b = {8: tuple(1.1e-6 * math.exp(0.05 * rng.standard_normal()) * factors(40, 0.05, rng)
                      for _ in range(3))}
        (c,), _ = compare_launch_samples(a, b)
        covered += c.ratio_ci[0] <= 1.1 <= c.ratio_ci[1]
    assert covered / 200 >= 0.90


def test_single_values_are_untested_with_a_note_and_never_pass():
    sizes, notes = compare_launch_samples({8: (np.array([1e-6]),)}, {8: (np.array([2e-6]),)})
    assert sizes[0].verdict == "untested" and sizes[0].ratio == pytest.approx(2.0)
    assert sizes[0].ratio_ci is None and sizes[0].basis == "1 value"
    assert any("no test" in n for n in notes)
    decision = gate([_wrap(sizes)], 0.10)
    assert decision.outcome == CANNOT_TELL and "1 value" in decision.reason


def test_no_common_size_is_an_error():
    with pytest.raises(AnalysisError):
        compare_launch_samples({1: (np.ones(5),)}, {2: (np.ones(5),)})


def test_history_gives_single_launch_runs_a_verdict():
    """One launch each: with stored runs of the configuration the run-to-run spread is known,
    so an unchanged run passes and a 30 % slower one fails; without them, cannot tell."""
    history = [launches_run(seed=100 + i, launches=1, launch_sd=0.02, n=80) for i in range(10)]
    a = launches_run(seed=1, launches=1, launch_sd=0.02, n=80)
    same = launches_run(seed=2, launches=1, launch_sd=0.02, n=80)
    slow = launches_run(seed=3, launches=1, launch_sd=0.02, n=80, scale=1.3)
    alone = compare_runs(a, same, parameters=False)
    assert gate([alone], 0.10).outcome == CANNOT_TELL
    known = compare_runs(a, same, history=history, parameters=False)
    assert known.history_runs == 10
    assert all("stored runs" in s.covers and s.basis.endswith("10 runs") for s in known.sizes)
    assert gate([known], 0.10).outcome == PASS
    assert gate([compare_runs(a, slow, history=history, parameters=False)], 0.10).outcome == FAIL


def test_history_excludes_the_compared_runs_and_other_configurations():
    a = launches_run(seed=1, launches=1)
    b = launches_run(seed=2, launches=1)
    like = launches_run(seed=3, launches=1)
    tuned = launches_run(seed=4, launches=1)
    tuned = replace(tuned, launches=tuple(
        replace(l, environment={"MPIR_CVAR_CH4_EAGER_MAX": "1"}) for l in tuned.launches))
    c = compare_runs(a, b, history=[a, b, like, tuned], parameters=False)
    assert c.history_runs == 1  # only `like`: a and b are compared, `tuned` is another MPI setting
    c = compare_runs(a, b, history=[a, b, tuned], parameters=False)
    assert c.history_runs == 0 and all(s.assumed for s in c.sizes)


def test_gate_outcomes_per_size():
    def size(ratio, ci, verdict="within noise", assumed=False):
        return SizeComparison(8, 100, 100, 1e-6, ratio * 1e-6, ratio, ci, 0.5, 0.5, verdict,
                              3, 3, "", "", 4.0, assumed)

    assert size_gate(size(1.0, (0.97, 1.03)), 0.05).outcome == PASS
    assert size_gate(size(1.0, (0.9, 1.1)), 0.05).outcome == CANNOT_TELL
    assert size_gate(size(1.2, (1.1, 1.3), "slower"), 0.05).outcome == FAIL
    assert size_gate(size(1.03, (1.01, 1.06), "slower"), 0.05).outcome == CANNOT_TELL
    assert size_gate(size(0.8, (0.7, 0.9), "faster"), 0.05).outcome == PASS
    assert size_gate(size(1.0, (0.99, 1.01), assumed=True), 0.05).outcome == CANNOT_TELL
    with pytest.raises(AnalysisError):
        gate([], math.nan)


def test_compare_runs_and_parameters_across_launches():
    sizes = tuple(1 << i for i in range(0, 21, 2))
    a = sweep_run([line(2e-6, 1e-10)] * 3, n=100, noise=0.03, seed=5, sizes=sizes)
    b = sweep_run([line(3e-6, 1e-10)] * 3, n=100, noise=0.03, seed=6, sizes=sizes)
    c = compare_runs(a, b, label_a="old", label_b="new")
    assert c.series == "pingpong"
    small = {s.bytes: s for s in c.sizes}[1]
    assert small.verdict == "slower" and small.ratio == pytest.approx(1.5, rel=0.05)
    assert small.launches_a == small.launches_b == 3
    params = {p.name: p for p in c.parameters}
    assert params["alpha"].verdict == "slower" and "3+3 launches" in params["alpha"].covers
    assert params["alpha"].ratio == pytest.approx(1.5, rel=0.15)
    assert c.worst_slowdown() >= 0.4
    assert c.slowdowns_above(0.3)
    d = _as_json(c, 0.05)
    assert d["sizes"][0]["verdict"] in ("slower", "within noise")
    assert d["gate"]["outcome"] == FAIL and d["sizes"][0]["covers"]
    same = compare_runs(a, a)
    assert not any(s.significant for s in same.sizes)


def test_parameters_of_single_launch_runs_cannot_tell():
    sizes = tuple(1 << i for i in range(0, 21, 2))
    a = sweep_run([line(2e-6, 1e-10)], n=100, noise=0.03, seed=5, sizes=sizes)
    b = sweep_run([line(3e-6, 1e-10)], n=100, noise=0.03, seed=6, sizes=sizes)
    params = compare_runs(a, b).parameters
    assert all(p.verdict == CANNOT_TELL and "within one launch" in p.covers for p in params)
    assert {p.name: p for p in params}["alpha"].ratio == pytest.approx(1.5, rel=0.15)


def test_launch_samples_keep_launches_apart():
    run = launches_run(seed=1, launches=3, n=20)
    by = launch_samples(run, "pingpong")
    assert set(by) == {0, 1024, 65536, 1 << 20} and all(len(v) == 3 for v in by.values())
    assert all(x.size == 20 for v in by.values() for x in v)


def test_assumed_spread_is_stated():
    assert 0.05 <= ASSUMED_RERUN_SD <= 0.2


def test_compare_runs_without_a_common_pattern():
    a = make_run([measurement("pingpong", s, np.full(5, 1e-6)) for s in (0, 8)])
    b = make_run([measurement("memcpy", s, np.full(5, 1e-6)) for s in (0, 8)])
    with pytest.raises(AnalysisError, match="no pattern in common"):
        compare_runs(a, b)


PEER = __import__("pathlib").Path(__file__).parents[1] / "data" / "peer-outputs"


def _osu_run(seed=0):
    """An osu-latency run of msgperf with two launches of skewed samples (mean well above median)."""
    from msgperf.records.importers.osu import parse_osu  # noqa: F401 - the importer exists
    rng = np.random.default_rng(seed)
    sizes = (1, 2, 4, 8, 1024)
    ms = [measurement("osu-latency", s, 2 * (1.5e-6 + s * 1e-10) * (1 + rng.pareto(1.5, 200)), launch)
          for launch in (0, 1) for s in sizes]
    return make_run(ms, launches=2)


def test_compare_against_an_osu_mean_uses_msgperfs_mean_and_says_which_each_side_is():
    """OSU prints the mean (Avg Latency): msgperf's side gives the mean of its samples too,
    and the comparison names each side's statistic; with OSU's -z percentiles, both are medians."""
    from msgperf.analysis.compare import compare_runs
    from msgperf.loader import load
    run = _osu_run()
    osu = load(str(PEER / "osu_latency.txt")).run
    c = compare_runs(run, osu, label_a="msgperf", label_b="osu")
    assert c.statistic == "mean" and c.side_b == "the mean the tool printed" and "mean of its samples" in c.side_a
    for s in c.sizes:
        launches = [m.per_message_s for m in run.measurements if m.bytes == s.bytes]
        assert s.value_a_s == pytest.approx(math.exp(np.mean(np.log([np.mean(x) for x in launches]))), rel=1e-12)
        imported = next(m for m in osu.measurements if m.bytes == s.bytes)
        assert s.value_b_s == pytest.approx(imported.extra["imported"]["latency_us"] * 1e-6, rel=1e-9)
        assert s.value_a_s > 1.2 * np.mean([np.median(x) for x in launches])  # not the median
    out = _as_json(c)
    assert out["statistic"] == "mean" and out["value_b_is"] == "the mean the tool printed"
    assert out["method"]["sizes"].startswith("ratio of the geometric means of the launch means;")

    with_p50 = load(str(PEER / "osu_latency_custom_percentiles.txt")).run
    c = compare_runs(run, with_p50)
    assert c.statistic == "median" and c.side_b == "the P50 (median) the tool printed"
    first = c.sizes[0]
    p50 = next(m for m in with_p50.measurements if m.bytes == first.bytes).extra["imported"]["p50_s"]
    assert first.value_b_s == pytest.approx(p50, rel=1e-12)
    launches = [m.per_message_s for m in run.measurements if m.bytes == first.bytes]
    assert first.value_a_s == pytest.approx(math.exp(np.mean(np.log([np.median(x) for x in launches]))), rel=1e-12)


def test_two_msgperf_runs_compare_medians():
    from msgperf.analysis.compare import compare_runs
    c = compare_runs(_osu_run(0), _osu_run(1))
    assert c.statistic == "median" and c.side_a == c.side_b == "the geometric mean of its launch medians"


# ---- what would tell: launches per side ----------------------------------------------------


def _spread_launches(sd: float, launches: int = 3, center: float = 0.0):
    """One size, ``launches`` launches whose medians lie exactly at exp(center ± ...) with sample
    sd ``sd`` on the log scale (tight samples inside each launch)."""
    z = np.linspace(-1.0, 1.0, launches)
    z = z / np.std(z, ddof=1)
    within = np.array([0.999, 0.9995, 1.0, 1.0005, 1.001])
    return {8: tuple(1e-6 * math.exp(center + sd * v) * within for v in z)}


def _closed_form_launches(sd: float, threshold: float, alpha: float = 0.05) -> int:
    """Two sides of n launches with between-launch sd ``sd``: Var(d) = 2 sd² / n on 2(n − 1) df;
    the smallest n whose t margin is below log(1 + threshold)."""
    n = 2
    while stats.t.ppf(1 - alpha / 2, 2 * (n - 1)) * sd * math.sqrt(2 / n) >= math.log1p(threshold):
        n += 1
    return n


@pytest.mark.parametrize("sd, threshold", [(0.08, 0.10), (0.05, 0.05), (0.12, 0.10)])
def test_cannot_tell_says_how_many_launches_per_side_would_tell(sd, threshold):
    sizes, _ = compare_launch_samples(_spread_launches(sd), _spread_launches(sd))
    s = sizes[0]
    assert s.floor_a.within_var == pytest.approx(sd ** 2)  # the spread the test used is the known one
    decision = gate([_wrap(sizes)], threshold)
    assert decision.outcome == CANNOT_TELL
    expected = _closed_form_launches(sd, threshold)
    assert 3 < expected <= 50
    assert decision.sizes[0].launches_needed.launches == expected
    assert decision.launches_needed.launches == expected
    assert (f"about {expected} launches per side would resolve a {100 * threshold:g} % slowdown: "
            f"msgperf run --repeat {expected}") in decision.reason


def test_the_count_resolves_the_threshold_when_measured_again():
    """Runs of the count's launches per side, drawn with the same launch spread and nothing
    changed: the gate passes in about half of them (the margin at the count is below the
    threshold for the expected spread; 0.53 of 400 at seed 27), and with a third of the launches
    in about one in ten."""
    sd, threshold = 0.08, 0.10
    rng = np.random.default_rng(27)
    sizes, _ = compare_launch_samples(_spread_launches(sd), _spread_launches(sd))
    n = gate([_wrap(sizes)], threshold).launches_needed.launches

    def passes(launches: int) -> float:
        ok = 0
        for _ in range(200):
            side = lambda: {8: tuple(1e-6 * math.exp(sd * rng.standard_normal())  # noqa: E731
                                     * np.array([0.999, 1.0, 1.001]) for _ in range(launches))}
            ok += gate([_wrap(compare_launch_samples(side(), side())[0])], threshold).outcome == PASS
        return ok / 200

    assert passes(n) >= 0.4
    assert passes(max(2, n // 3)) < 0.2


def test_different_configurations_use_each_sides_own_spread():
    a, b = _spread_launches(0.03), _spread_launches(0.09)
    sizes, _ = compare_launch_samples(a, b, history_a=(), history_b=())
    s = sizes[0]
    assert s.floor_b is not None
    decision = gate([_wrap(sizes)], 0.10)
    n = decision.launches_needed.launches
    # Welch-Satterthwaite with n launches a side: Var = (0.03² + 0.09²) / n,
    # df = Var² / ((0.03²/n)²/(n-1) + (0.09²/n)²/(n-1))
    def margin(k):
        va, vb = 0.03 ** 2 / k, 0.09 ** 2 / k
        df = (va + vb) ** 2 / (va ** 2 / (k - 1) + vb ** 2 / (k - 1))
        return stats.t.ppf(0.975, df) * math.sqrt(va + vb)
    assert margin(n) < math.log(1.1) <= margin(n - 1)


def test_one_launch_per_side_cannot_tell_how_many():
    a = {8: (1e-6 * np.array([0.99, 1.0, 1.01]),)}
    b = {8: (1.02e-6 * np.array([0.99, 1.0, 1.01]),)}
    sizes, _ = compare_launch_samples(a, b, min_effect=0.1)
    assert sizes[0].verdict == CANNOT_TELL
    words = "cannot tell how many: one launch per side measures no spread"
    assert sizes[0].launches_needed.launches is None and sizes[0].launches_needed.words == words
    decision = gate([_wrap(sizes)], 0.10)
    assert decision.outcome == CANNOT_TELL and decision.reason.endswith(words)
    plain = _as_json(_wrap(sizes), 0.10)
    assert plain["sizes"][0]["launches_needed"]["words"] == words
    assert plain["gate"]["launches_needed"]["launches_per_side"] is None


def test_a_spread_too_wide_for_the_threshold_says_more_than_the_cap():
    sizes, _ = compare_launch_samples(_spread_launches(0.4), _spread_launches(0.4))
    decision = gate([_wrap(sizes)], 0.02)
    needed = decision.launches_needed
    assert needed.launches is None and needed.more_than == 50
    assert "more than 50 launches per side" in decision.reason
    assert _as_json(_wrap(sizes), 0.02)["gate"]["launches_needed"]["more_than"] == 50


def test_a_passing_gate_and_a_failing_one_say_nothing_of_launches():
    sizes, _ = compare_launch_samples(_spread_launches(0.01), _spread_launches(0.01))
    decision = gate([_wrap(sizes)], 0.10)
    assert decision.outcome == PASS and decision.launches_needed is None
    assert "launches_needed" not in _as_json(_wrap(sizes), 0.10)["gate"]


def test_a_ratio_near_the_threshold_is_not_blamed_on_the_spread():
    """Launches 1 % apart, B 9.5 % slower, threshold 10 %: the interval reaches past +10 %
    because of where the ratio lies; three launches already give the width, so no count is asked."""
    sizes, _ = compare_launch_samples(_spread_launches(0.01), _spread_launches(0.01, center=math.log(1.095)))
    decision = gate([_wrap(sizes)], 0.10)
    assert decision.outcome == CANNOT_TELL
    needed = decision.launches_needed
    assert needed.already and needed.launches <= 3
    assert "the ratio itself lies near the threshold" in decision.reason
    assert "msgperf run --repeat" not in decision.reason


def _beside_other_work(run):
    """``run`` with every launch recorded beside other work (1.8 of 2 cores busy with something else)."""
    busy = LaunchHost(host="node0", usable_cores=2, online_cores=2, progress={}, before=HostLoad(2.0, 0.5, 0.5, 1),
                      after=HostLoad(2.1, 0.5, 0.5, 1), interval_s=2.0, steal_fraction=0.0, other_cores=1.8)
    return replace(run, launches=tuple(replace(l, host=busy) for l in run.launches))


def test_stored_runs_made_beside_other_work_stay_out_of_the_noise_floor():
    """A tester's store held runs made beside busy loops and with both ranks on one core: they
    widened two quiet runs' interval at 512 B to 0.08-10.6 ("within noise"). Their launches are
    left out of the floor, and the comparison says so."""
    quiet = [launches_run(seed=100 + i, launches=1, launch_sd=0.02, n=80) for i in range(6)]
    loaded = [_beside_other_work(launches_run(seed=200 + i, launches=1, launch_sd=0.02, n=80, scale=5.0 + i))
              for i in range(4)]
    a = launches_run(seed=1, launches=1, launch_sd=0.02, n=80)
    b = launches_run(seed=2, launches=1, launch_sd=0.02, n=80)
    clean = compare_runs(a, b, history=quiet, parameters=False)
    mixed = compare_runs(a, b, history=quiet + loaded, parameters=False)
    assert mixed.history_runs == clean.history_runs == 6
    assert [s.ratio_ci for s in mixed.sizes] == [s.ratio_ci for s in clean.sizes]
    assert any("4 launch(es) of stored runs of this configuration ran oversubscribed or beside other work: "
               "left out of the noise floor" in n for n in mixed.notes)
    assert not any("beside other work" in n for n in clean.notes)


def test_a_store_of_crowded_runs_only_is_no_history_and_the_notes_say_so_once():
    """A tester's notes read "no stored runs of this configuration" beside "23 launch(es) of stored
    runs of this configuration ran oversubscribed": every stored run was left out."""
    loaded = [_beside_other_work(launches_run(seed=200 + i, launches=1, launch_sd=0.02, n=80, scale=5.0 + i))
              for i in range(3)]
    a = launches_run(seed=1, launches=2, launch_sd=0.02, n=80)
    b = launches_run(seed=2, launches=2, launch_sd=0.02, n=80)
    c = compare_runs(a, b, history=loaded, parameters=False)
    assert c.history_runs == 0
    assert any(n.startswith("no stored runs of this configuration made on a quiet machine: ") for n in c.notes)
    assert any(n.startswith("3 launch(es) of stored runs of this configuration ran oversubscribed") for n in c.notes)


def test_a_compared_run_made_beside_other_work_cannot_tell_but_one_on_one_core_can():
    """A tester compared a quiet run with one made beside a busy loop: "slower" by 4.5x at 2 MiB, and
    the gate failed, where the run's own answer said "cannot tell: disturbed". A size a run measured
    beside other work is "cannot tell" whatever the samples say, and the gate cannot tell; both
    ranks on one core (oversubscribed, no other work) is how that run was made: compared."""
    a = launches_run(seed=1, launches=2)
    b = _beside_other_work(launches_run(seed=2, launches=2, scale=3.0))
    c = compare_runs(a, b, label_b="busy.jsonl", parameters=False)
    assert any(n.startswith("busy.jsonl: 2 of the 2 launches that measured pingpong ran oversubscribed or beside "
                            "other work") for n in c.notes)
    assert all(s.verdict == CANNOT_TELL and s.disturbed == "busy.jsonl: launches 0, 1 beside other work"
               for s in c.sizes)
    assert any(n.startswith(f"{len(c.sizes)} size(s) measured beside other work") for n in c.notes)
    decision = gate([c], 0.10)
    assert decision.outcome == CANNOT_TELL and "measured beside other work" in decision.reason
    one_core = LaunchHost(host="node0", usable_cores=1, online_cores=2, progress={}, before=HostLoad(1.0, 0.5, 0.5, 1),
                          after=HostLoad(1.0, 0.5, 0.5, 1), interval_s=2.0, steal_fraction=0.0, other_cores=0.0)
    pinned = launches_run(seed=2, launches=2, scale=3.0)
    pinned = replace(pinned, launches=tuple(replace(l, host=one_core) for l in pinned.launches))
    c = compare_runs(a, pinned, label_b="taskset.jsonl", parameters=False)
    assert all(s.verdict == "slower" and not s.disturbed for s in c.sizes)


def test_a_compared_run_cut_off_before_its_conditions_were_recorded_cannot_tell():
    """A run killed inside a launch has no record of the machine over it: compared, its sizes are
    "cannot tell" as a run beside other work is, and the note says which it was."""
    a = launches_run(seed=1, launches=2)
    b = launches_run(seed=2, launches=2, scale=3.0)
    last = b.launches[-1]
    b = replace(b, launches=(*b.launches[:-1], replace(last, end_time=None, end_cpus=None, host=None)))
    c = compare_runs(a, b, label_b="killed.jsonl", parameters=False)
    assert all(s.verdict == CANNOT_TELL and s.disturbed == "killed.jsonl: launch 1 cut off, conditions not recorded"
               for s in c.sizes)
    assert any(n.startswith(f"{len(c.sizes)} size(s) measured in a launch cut off before its conditions were "
                            "recorded") for n in c.notes)


def test_a_size_that_differs_alone_but_not_after_holms_correction_cannot_tell():
    """Its own interval leaves out 1; across the sizes compared it is not significant: neither
    "within noise" (the interval says otherwise) nor "slower" (the correction says otherwise)."""
    assert _verdict(1.5, (1.1, 2.0), 0.2, 0.05, 0.0) == CANNOT_TELL
    assert _verdict(1.5, (0.9, 2.0), 0.9, 0.05, 0.0) == "within noise"
    assert _verdict(1.5, (1.1, 2.0), 0.01, 0.05, 0.0) == "slower"
    assert _verdict(1.05, (1.01, 1.09), 0.2, 0.05, 0.10) == "within noise"  # inside --min-effect


def test_a_run_and_an_imported_output_of_no_common_pattern_are_told_which_loop_to_measure():
    """A tester compared a default msgperf run (pingpong) with an imported osu_latency output
    (osu-latency): the error named the patterns but not that msgperf measures OSU's own loop."""
    from msgperf.analysis.compare import compare_runs
    from msgperf.loader import load
    osu = load(str(PEER / "osu_latency.txt")).run
    with pytest.raises(AnalysisError) as refused:
        compare_runs(launches_run(seed=1), osu, label_a="6", label_b="7")
    assert str(refused.value) == ("6 and 7 have no pattern in common (pingpong vs osu-latency); to compare with the "
                                  "imported output, measure its loop: msgperf run --pattern osu-latency")
    with pytest.raises(AnalysisError) as plain:
        compare_runs(launches_run(seed=1), replace(osu, info=replace(osu.info, source="msgperf")))
    assert "measure its loop" not in str(plain.value)
    netpipe = load(str(PEER / "netpipe_mpich.np")).run  # a loop msgperf has no mode of: no command suggested
    with pytest.raises(AnalysisError) as other:
        compare_runs(launches_run(seed=1), netpipe)
    assert str(other.value).endswith("; msgperf has no mode of netpipe-pingpong's loop: compare that output with "
                                     "another of its tool")


def test_the_no_history_note_stays_beside_a_size_the_correction_leaves_undecided():
    """Two runs of two launches each and no stored run: the floor is the launches' spread, and the
    note says a drift between the runs counts as a change, whatever else the notes say."""
    sizes = [1 << i for i in range(0, 22, 2)]
    a = launches_run(seed=1, launches=2, launch_sd=0.02, sizes=sizes)
    b = launches_run(seed=2, launches=2, launch_sd=0.02, sizes=sizes, scale={sizes[3]: 1.03})
    c = compare_runs(a, b, parameters=False)
    split = [s for s in c.sizes if s.verdict == CANNOT_TELL and not s.assumed]
    assert split and all(not s.ratio_ci[0] <= 1 <= s.ratio_ci[1] and s.p_adjusted >= 0.05 for s in split)
    assert any(n.startswith("no stored runs of this configuration") for n in c.notes)
    assert any(n.startswith(f"{len(split)} size(s) whose own interval leaves out 1 are not significant after "
                            "Holm's correction") for n in c.notes)


def test_a_parameter_the_runs_answer_cannot_tell_is_not_compared():
    """A reviewer: compare printed B's n½ 19.8 KiB, zero-byte latency and asymptotic bandwidth
    where show, fit and summary of B say "cannot tell" (measured beside other work)."""
    from msgperf.analysis.compare import compare_runs
    from msgperf.analysis.result import analyze

    quiet = launches_run(seed=1, launches=2)
    said = {"n_half": "disturbed: 2 launches beside other work (…)",
            "zero_byte_latency": "disturbed: launch 0 beside other work (1 µs)"}
    busy_answer = replace(analyze(quiet).answer, disturbed=said)
    c = compare_runs(quiet, launches_run(seed=2, launches=2), answers=(None, busy_answer))
    by = {p.name: p for p in c.parameters}
    for name, why in said.items():
        p = by[name]
        assert p.verdict == CANNOT_TELL and p.why_not_b == why and not p.why_not_a
        assert math.isnan(p.value_b) and math.isfinite(p.value_a) and p.ratio_ci is None
    assert by["alpha"].why_not_b == "" and math.isfinite(by["alpha"].value_b)
    out = json.loads(dumps(comparison_dict(c)))
    n_half = next(p for p in out["parameters"] if p["name"] == "n_half")
    assert n_half["b"] is None and n_half["b_why_not"] == said["n_half"]


def test_compare_reads_each_size_from_the_launches_show_reads_it_from():
    """A refinement launch measures sizes of the sweep again as anchors beside a switch; show's
    table does not take them as the sizes' time, and compare read them (a tester's 2 MiB: 169 µs
    in compare, 158 µs in show, the refinement launch at 237 µs)."""
    from pathlib import Path

    from msgperf.analysis.compare import launch_samples
    from msgperf.analysis.tables import size_rows
    from msgperf.records.runfile_read import read_run

    run = read_run(Path(__file__).parents[1] / "data" / "kernel-runs" / "mpich-default-quiet-refined.jsonl").run
    rows = {r.bytes: r for r in size_rows(run) if r.pattern == "pingpong"}
    samples = launch_samples(run, "pingpong")
    anchored = [b for b in rows if len({m.launch for m in run.measurements
                                        if m.pattern == "pingpong" and m.bytes == b}) > rows[b].launches]
    assert anchored  # the case this test is about: sizes a refinement launch measured again
    for b, row in rows.items():
        assert len(samples[b]) == row.launches
        values = np.concatenate(samples[b])
        assert values.size == row.stats.n


def test_a_busy_refinement_launch_s_anchors_do_not_make_a_size_cannot_tell():
    """A refinement launch measures sweep sizes again as anchors; show's rows and compare's samples
    leave them out, and a reviewer found compare still calling those sizes "measured beside other
    work" when that launch was busy."""
    from pathlib import Path

    import msgspec

    from msgperf.records.format import HostLoad
    from msgperf.records.runfile_read import read_run

    run = read_run(Path(__file__).parents[1] / "data" / "kernel-runs" / "mpich-default-quiet-refined.jsonl").run
    last = run.launches[-1]
    busy = msgspec.structs.replace(last.host, other_cores=1.8, before=HostLoad(1.9, 1, 1, 3),
                                   after=HostLoad(1.9, 1, 1, 3))
    loaded = msgspec.structs.replace(run, launches=(*run.launches[:-1], msgspec.structs.replace(last, host=busy)))
    from msgperf.analysis.tables import size_rows

    rows = {r.bytes: r for r in size_rows(loaded) if r.pattern == "pingpong"}
    measured = {m.bytes for m in loaded.measurements if m.launch == last.index and m.pattern == "pingpong"}
    anchors = {b for b in measured if last.index not in rows[b].launch_ids}
    c = compare_runs(run, loaded, parameters=False)
    assert anchors
    assert not any(s.disturbed for s in c.sizes if s.bytes in anchors)
