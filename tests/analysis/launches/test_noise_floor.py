"""The run-to-run noise floor (analysis.noise_floor): known launch- and run-level spreads are
recovered, the variance of a new run's value follows the nested model, and configurations that
differ (MPI tuning variables, hidden test options, hosts) do not share a floor."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from msgperf.analysis.launches.noise_floor import (NoiseFloor, VarianceTerm, configuration,
                                          configuration_floors, launch_medians, noise_floor,
                                          noise_floors, rerun_interval, satterthwaite)
from tests.factories import launches_run
from tests.factories import replace


def _simulated(rng, runs: int, launches: int, run_sd: float, launch_sd: float):
    return [list(np.exp(run_sd * rng.standard_normal() + launch_sd * rng.standard_normal(launches)))
            for _ in range(runs)]


def test_recovers_the_launch_and_run_spreads():
    rng = np.random.default_rng(1)
    floor = noise_floor(8, _simulated(rng, 400, 3, run_sd=0.04, launch_sd=0.02))
    assert floor.launch_sd == pytest.approx(0.02, rel=0.08)
    assert floor.run_sd == pytest.approx(0.04, rel=0.1)
    assert floor.runs == 400 and floor.launches == 1200 and floor.df_within == 800
    # a run of 3 launches moves by sqrt(0.04² + 0.02²/3)
    assert floor.rerun_sd(3) == pytest.approx(math.sqrt(0.04 ** 2 + 0.02 ** 2 / 3), rel=0.1)
    lo, hi = floor.rerun_sd_interval(1)
    assert lo < floor.rerun_sd(1) < hi


def test_within_only_runs_count_for_their_launches_not_their_level():
    shifted = [[1.0, 1.02, 0.98], [2.0, 2.04, 1.96]]  # levels a factor 2 apart
    floor = noise_floor(8, [], within_only=shifted)
    assert floor.between_var is None and floor.runs == 0
    assert floor.launch_sd == pytest.approx(0.02, rel=0.05)
    assert floor.covers.startswith("between launches within runs")


def test_nothing_measured_gives_no_terms():
    floor = noise_floor(8, [[1e-6]], within_only=[[1e-6], [1.1e-6]])
    assert floor.terms(1) == () and floor.rerun_sd() is None
    assert floor.covers == "nothing measured"


def test_single_launch_history_is_the_run_to_run_spread():
    rng = np.random.default_rng(2)
    history = [[float(np.exp(0.05 * rng.standard_normal()))] for _ in range(300)]
    floor = noise_floor(8, history)
    assert floor.within_var is None and floor.run_sd is None
    (term,) = floor.terms(1)
    assert term.source == "runs" and math.sqrt(term.variance) == pytest.approx(0.05, rel=0.1)


def test_terms_never_below_the_launches_alone():
    """When the history's runs agree better than launches do, the launches' spread rules."""
    floor = NoiseFloor(8, within_var=0.03 ** 2, df_within=20, between_var=0.001 ** 2,
                       df_between=5, mean_inverse_launches=1 / 3, launches=30, runs=6)
    v, _ = satterthwaite(floor.terms(3))
    assert v == pytest.approx(0.03 ** 2 / 3)


def test_satterthwaite_merges_sources_and_matches_the_formula():
    v, df = satterthwaite([VarianceTerm("x", 0.5, 4.0, 10), VarianceTerm("x", 0.5, 4.0, 10)])
    assert (v, df) == (4.0, 10)
    v, df = satterthwaite([VarianceTerm("x", 1.0, 1.0, 4), VarianceTerm("y", 1.0, 1.0, 4)])
    assert v == 2.0 and df == pytest.approx(8.0)
    assert satterthwaite([]) == (0.0, math.inf)


def test_noise_floors_per_size_and_launch_medians_from_a_run():
    run = launches_run(seed=1, launches=3, n=30)
    medians = launch_medians(run, "pingpong")
    assert set(medians) == {0, 1024, 65536, 1 << 20} and all(len(m) == 3 for m in medians.values())
    floors = noise_floors([medians, launch_medians(launches_run(seed=2), "pingpong")])
    assert set(floors) == set(medians) and all(f.runs == 2 for f in floors.values())


def test_configuration_separates_tuning_and_test_options():
    run = launches_run(seed=1)
    key = configuration(run, "pingpong")
    assert configuration(launches_run(seed=2), "pingpong") == key

    def with_launch(**changes):
        ls = tuple(replace(l, **changes) for l in run.launches)
        return replace(run, launches=ls)

    assert configuration(with_launch(environment={"PMI_RANK": "0"}), "pingpong") == key
    assert configuration(with_launch(environment={"MPIR_CVAR_CH4_EAGER_MAX": "1"}), "pingpong") != key
    delayed = with_launch(launcher_command_line="mpiexec -n 2 k --test-delay-ns 500 --sizes 0")
    assert configuration(delayed, "pingpong") != key
    other_host = with_launch(ranks=tuple(replace(r, host="elsewhere")
                                         for r in run.launches[0].ranks))
    assert configuration(other_host, "pingpong") != key


def test_configuration_floors_and_the_interval_of_a_rerun():
    history = [launches_run(seed=10 + i, launches=1, launch_sd=0.03, n=40) for i in range(12)]
    run = launches_run(seed=1, launches=1, launch_sd=0.03, n=40)
    floors = configuration_floors(run, history + [run], "pingpong")
    assert all(f.runs == 13 for f in floors.values())  # the stored copy of run counts once
    f = floors[1024]
    iv = rerun_interval(1e-6, 1, f)
    assert iv.covers.startswith("re-runs (between 13 stored runs")
    assert iv.halfwidth_rel == pytest.approx(math.sinh(iv.rel_se * stats.t.ppf(0.975, 12)), rel=1e-6)
    assert 0.01 < iv.rel_se < 0.06
    assert rerun_interval(1e-6, 1, configuration_floors(run, [], "pingpong")[1024]) is None
