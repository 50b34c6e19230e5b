"""One budget for the whole msgperf run (launch/budget.py): the shares of --total-time add up to
what is left of it, a spent budget leaves the sweep its floor and refinement nothing, and the
session gives the kernels the sweep's share and skips refinement, saying so, when the deadline
has passed. Without MPI (tests/launch/fake_launcher.py)."""

from __future__ import annotations

import time

import pytest

from msgperf.launch import budget
from msgperf.launch.session import MeasureRequest, measure
from msgperf.plan import Plan, parse_sizes
from tests.launch.fake_launcher import Behaviour, FakeLauncher
from tests.launch.test_refinement import CURVE


@pytest.mark.parametrize("budget_s, spent_s, launches, probe, refine, finish_s", [
    (10.0, 0.7, 1, True, True, 3.0),  # msgperf run's default
    (10.0, 0.7, 1, True, True, 1.0),  # --no-report
    (30.0, 2.0, 3, True, True, 3.0),  # --repeat 3
    (10.0, 0.5, 1, False, False, 1.0),  # --no-probe --no-refine
    (60.0, 1.5, 2, True, True, 3.0),  # --placement both
])
def test_the_shares_add_up_to_what_is_left_of_the_budget(budget_s, spent_s, launches, probe, refine, finish_s):
    s = budget.split(budget_s, spent_s, launches=launches, probe=probe, refine=refine, finish_s=finish_s)
    assert spent_s + s.planned_s == pytest.approx(budget_s)  # the deadline, not a second more
    assert s.sweep_s > budget.MIN_SWEEP_S and s.finish_s == finish_s
    assert (s.probe_s > 0) == probe and (s.refine_s > 0) == refine
    # nothing kept aside for a part that does not run: the sweep gets it
    alone = budget.split(budget_s, spent_s, launches=launches, probe=False, refine=False, finish_s=finish_s)
    assert alone.sweep_s * launches == pytest.approx(s.sweep_s * launches + s.probe_s + s.refine_s)


def test_a_budget_spent_before_the_sweep_leaves_it_its_floor():
    s = budget.split(2.0, 1.5, finish_s=3.0)
    assert s.sweep_s == budget.MIN_SWEEP_S  # it runs, and its sizes say they stopped at the time budget
    assert 1.5 + s.planned_s > 2.0  # past the budget: refinement will find nothing left


def test_a_refinement_round_gets_what_is_left_never_less_than_its_sizes_need():
    assert budget.round_share(2.3 - 1e-6, 2.0, last=False, overhead_s=0.3) is None
    assert budget.round_share(-5.0, 0.02, last=True) is None  # past the deadline
    assert budget.round_share(5.3, 2.0, last=True, overhead_s=0.3) == pytest.approx(5.0)
    assert budget.round_share(5.3, 2.0, last=False, overhead_s=0.3) == pytest.approx(budget.FIRST_ROUND_FRACTION * 5)
    assert budget.round_share(2.31, 2.0, last=False, overhead_s=0.3) == pytest.approx(2.0)


def test_a_size_costs_at_least_its_fewest_samples_at_the_pace_measured_nearest():
    quiet = [(1024, 0.1, 400), (65536, 0.2, 100)]
    assert budget.size_floor_s(2000, quiet) == budget.REFINE_S_PER_SIZE  # 6 samples of 0.25 ms: the floor
    busy = [(1024, 0.15, 6), (4096, 0.3, 12)]  # 25 ms a sample: two ranks on one core
    assert budget.size_floor_s(1500, busy) == pytest.approx(0.15)
    assert budget.size_floor_s(3500, busy) == pytest.approx(0.15)  # 6 of the 12 samples at 4 KiB
    assert budget.size_floor_s(100, []) == budget.REFINE_S_PER_SIZE


def test_the_command_start_is_the_process_start_when_msgperf_is_the_process():
    age = budget.process_age_s()
    assert 0 < age < 3600  # this test process started before this test, less than an hour ago
    budget.mark_command_start(process=True)  # msgperf's own process: from its start
    assert budget.command_start() <= time.monotonic() - age + 0.05
    budget.mark_command_start(process=False)  # a command inside this process: from now
    assert time.monotonic() - budget.command_start() < 0.05


def _request(tmp_path, **changes) -> MeasureRequest:
    plan = Plan(sizes=parse_sizes("1K:1M"), time_budget_s=0.05, min_samples=8, max_samples=12,
                   total_time_s=changes.pop("total_time_s", 20.0))
    return MeasureRequest(**{"plan": plan, "output": tmp_path / "run.jsonl", "log_dir": tmp_path, "store": False,
                             "refine": True, "probe": True, "whole_budget": True, "after_s": 1.0, **changes})


def test_the_sweep_gets_its_share_of_the_whole_budget_and_the_rest_goes_to_the_probe_and_refinement(tmp_path):
    launcher = FakeLauncher(every=Behaviour(curve=CURVE))
    started = time.monotonic() - 0.5
    starts = []
    outcome = measure(_request(tmp_path, started_s=started), launcher=launcher, on_launch=starts.append)
    sweep = float(launcher.kernel_args(0)[launcher.kernel_args(0).index("--total-time") + 1])
    assert 0 < 20.0 - 0.5 - sweep - budget.LAUNCH_OVERHEAD_S - budget.PROBE_S - budget.LAUNCH_OVERHEAD_S - \
        budget.REFINE_FRACTION * 20.0 - 1.0 < 0.5  # less only by the time measure took to start the sweep
    assert outcome.run.info.plan.total_time_s == sweep  # the run file records the sweep launch's budget
    # the replayed sweep ends long before its budget: no overrun for the next run to keep aside
    assert outcome.sweep_overrun_s is not None and outcome.sweep_overrun_s < 0
    assert [s.label for s in starts][:3] == ["sweep", "eager probe", "refine 1/3"]
    assert all(s.deadline_s == pytest.approx(started + 20.0) for s in starts)
    # each refinement launch got at most what was left before the deadline, less the time kept after
    for i, s in enumerate(starts):
        if s.refining:
            share = float(launcher.kernel_args(i)[launcher.kernel_args(i).index("--total-time") + 1])
            assert share <= started + 20.0 - 1.0


def test_a_spent_budget_skips_refinement_with_one_line(tmp_path):
    notes, starts = [], []
    outcome = measure(_request(tmp_path, started_s=time.monotonic() - 20.0), launcher=FakeLauncher(
        every=Behaviour(curve=CURVE)), on_note=notes.append, on_launch=starts.append)
    assert [s.label for s in starts] == ["sweep", "eager probe"]
    assert outcome.run.info.plan.total_time_s == budget.MIN_SWEEP_S
    assert notes == ["not refined: the --total-time budget (20 s) is spent; left as measured: pingpong: a switch "
                     "between 8 KiB and 16 KiB; pingpong: the eager-probe limit between 16 KiB and 32 KiB (more time "
                     "locates them: --total-time 40s)"]


def test_the_automatic_budget_counts_every_launch_of_a_repeat(tmp_path):
    """--repeat 2 without --total-time: twice the automatic 10 s, so each launch still gets its share."""
    launcher = FakeLauncher(every=Behaviour(curve=CURVE))
    measure(_request(tmp_path, total_time_s=None, repeat=2, refine=False, probe=False, started_s=time.monotonic()),
            launcher=launcher)
    shares = [float(a[a.index("--total-time") + 1]) for a in (launcher.kernel_args(0), launcher.kernel_args(1))]
    assert shares[0] == shares[1] and 2 * shares[0] == pytest.approx(20.0 - 1.0 - 2 * budget.LAUNCH_OVERHEAD_S, abs=0.3)


def test_what_follows_the_measurements_is_kept_aside_at_what_it_took_last_time(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_CACHE", str(tmp_path / "cache"))
    assert budget.remembered_finish(report=True) == budget.FINISH_S + budget.REPORT_S  # nothing measured yet
    assert budget.remembered_finish(report=False) == budget.FINISH_S
    budget.remember_finish(answer_s=1.7, report_s=4.2)
    assert budget.remembered_finish(report=True) == pytest.approx(5.9)
    budget.remember_finish(answer_s=0.8)  # a run without a report keeps the report's last time
    assert budget.remembered_finish(report=True) == pytest.approx(5.0)
    assert budget.remembered_finish(report=False) == pytest.approx(0.8)
    (tmp_path / "cache" / "kernels" / budget.FINISH_TIMES).write_text('{"answer_s": NaN, "report_s": "x"}')
    assert budget.remembered_finish(report=True) == budget.FINISH_S + budget.REPORT_S  # no memory, not an error
    (tmp_path / "cache" / "kernels" / budget.FINISH_TIMES).write_text("[1, 2")
    assert budget.remembered_finish(report=False) == budget.FINISH_S


def test_the_sweep_keeps_aside_what_its_kernels_went_past_their_budget_last_time(tmp_path, monkeypatch):
    monkeypatch.setenv("MSGPERF_CACHE", str(tmp_path / "cache"))
    assert budget.remembered_overrun(2**26) == 0.0
    budget.remember_finish(sweep_overrun_s=1.8, largest=2**26)
    budget.remember_finish(sweep_overrun_s=-0.2, largest=2**16)  # under its budget: nothing to keep aside
    assert budget.remembered_overrun(2**26) == pytest.approx(1.8) and budget.remembered_overrun(2**16) == 0.0
    plain = budget.split(10.0, 1.0, finish_s=2.0)
    late = budget.split(10.0, 1.0, finish_s=2.0, overrun_s=1.8)
    assert late.sweep_s == pytest.approx(plain.sweep_s - 1.8) and 1.0 + late.planned_s == pytest.approx(10.0)
