"""The answer's sizes measured again in launches of their own (launch/session.py ``answer``,
analysis/answer_sizes.py), so that the latency and bandwidth msgperf run leads with carry an
interval across launches. Without MPI: the fake kernels put each launch's samples on a curve of
its own (a launch-to-launch spread whose size is known)."""

from __future__ import annotations

import pytest

from msgperf.analysis.answer_sizes import answer_sizes
from msgperf.analysis.result import analyze
from msgperf.errors import MsgperfError
from msgperf.launch import budget as budgets
from msgperf.launch.session import MeasureRequest, measure
from msgperf.plan import Plan
from tests.launch.fake_launcher import Behaviour, FakeLauncher

KiB, MiB = 1024, 1024 * 1024
SWEEP = (0, 1, 64, 1 * KiB, 8 * KiB, 64 * KiB, 256 * KiB, 1 * MiB)
# 1 µs + 0.1 ns/B, no switch; each launch a level of its own (the sweep's the fastest), as launches
# of one command on the 2-core VM spread by ±10-30 % at 0 B
LEVELS = (1.0, 1.25, 1.1, 1.35)


@pytest.fixture(autouse=True)
def no_host_load(monkeypatch):
    """No launch_host records: the load of the machine running the tests (another suite beside
    them) would call these launches disturbed, and the answer "cannot tell"; that rule has tests of
    its own (tests/analysis/test_under_load.py)."""
    monkeypatch.setattr("msgperf.launch.session.record_host", lambda *args, **kwargs: None)


def curve(level: float) -> tuple:
    return (1e-6 * level, 1e-10 * level, 1 << 40, 0.0)


def request(tmp_path, **changes) -> MeasureRequest:
    plan = Plan(sizes=SWEEP, time_budget_s=0.05, min_samples=8, max_samples=12)
    return MeasureRequest(**{"plan": plan, "output": tmp_path / "run.jsonl", "log_dir": tmp_path, "store": False,
                             "answer_launches": 3, **changes})


def launchers(levels=LEVELS) -> FakeLauncher:
    return FakeLauncher(*(Behaviour(curve=curve(level)) for level in levels))


def test_the_answer_sizes_are_measured_again_in_launches_of_their_own(tmp_path):
    launcher = launchers()
    outcome = measure(request(tmp_path), launcher=launcher)
    run = outcome.run
    assert [l.index for l in run.launches] == [0, 1, 2, 3] and all(l.finished for l in run.launches)
    sweep = {m.bytes: float(sorted(m.per_message_s)[len(m.per_message_s) // 2])
             for m in run.measurements if m.launch == 0}
    chosen = answer_sizes(sweep)
    assert chosen == (0, 256 * KiB, 1 * MiB)  # the smallest, the peak (the largest here) and the size below it
    for launch in (1, 2, 3):
        assert sorted(m.bytes for m in run.measurements if m.launch == launch) == list(chosen)
        args = launcher.kernel_args(launch)
        assert args[args.index("--sizes") + 1] == ",".join(map(str, chosen))
        assert args.count("--pattern") == 1 and args[args.index("--pattern") + 1] == "pingpong"
        assert float(args[args.index("--total-time") + 1]) == budgets.ANSWER_S
        assert int(args[args.index("--min-samples") + 1]) == 6
        assert "--append" in args
    assert [o.index for o in outcome.launches] == [0, 1, 2, 3]


def test_the_answer_is_told_across_the_launches_and_its_interval_holds_each_of_them(tmp_path):
    """The sweep's launch alone gave 1.0 µs ±1 %; the four launches measured 1.0-1.35 µs at 0 B.
    The answer is their estimate, its interval covers every launch's own value and says what it
    covers; the sizes measured once keep their one-launch interval and say so."""
    result = analyze(measure(request(tmp_path), launcher=launchers()).run)
    answer = result.answer
    latency = answer.latency
    assert latency.covers == "across 4 launches" and latency.bytes == 0
    assert latency.low < 1e-6 and latency.high > 1.35e-6, (latency.low, latency.high)
    assert 1e-6 < latency.value < 1.35e-6
    peak = answer.peak_bandwidth
    assert peak.covers == "across 4 launches" and peak.bytes == 1 * MiB
    main = result.main.model
    points = {p.bytes: p for p in main.sweep.points}
    assert points[64].launches == 1 and points[64].interval.covers == "within one launch"
    (table,) = [t for t in result.tables if t.pattern == "pingpong"]
    rows = {r.bytes: r for r in table.rows}
    assert rows[0].time_s == latency.value and rows[0].interval.covers == "across 4 launches"  # one value
    assert rows[1 * MiB].bandwidth_bytes_per_s == pytest.approx(peak.value)
    assert rows[64].interval.covers == "within one launch"
    kinds = {c.kind for c in main.caveats}
    assert "one_launch" not in kinds  # the answer's intervals do cover launches
    # ... and so the launches' spread (35 % here) is a caveat, not one of the answer's warnings
    assert "launch_spread" in kinds and "launch_spread" not in {w.kind for w in answer.warnings}
    # no launch gets a model of its own from three sizes, to be set beside the sweep's pooled one
    assert main.per_launch == () and main.parameters_across_launches == ()
    # the launches are compared on the sizes they all measured
    compared = {s.bytes for s in main.launch_comparison.sizes}
    assert compared == {0, 256 * KiB, 1 * MiB}


def test_without_answer_launches_the_answer_says_it_covers_one_launch(tmp_path):
    result = analyze(measure(request(tmp_path, answer_launches=0), launcher=launchers()).run)
    assert result.answer.latency.covers == "within one launch"
    assert "one_launch" in {c.kind for c in result.main.model.caveats}


def test_no_answer_launches_with_repeat_or_without_a_ping_pong(tmp_path):
    """--repeat measures every size in each of its launches already; a run without the ping-pong
    has no answer to measure again."""
    repeated = measure(request(tmp_path, repeat=2), launcher=launchers())
    assert [l.index for l in repeated.run.launches] == [0, 1]
    ring = Plan(patterns=("ring",), sizes=SWEEP, time_budget_s=0.05, min_samples=8, max_samples=12)
    other = measure(request(tmp_path / "b", plan=ring), launcher=FakeLauncher())
    assert [l.index for l in other.run.launches] == [0]


def test_the_probe_comes_first_and_the_indices_follow_on(tmp_path):
    launcher = FakeLauncher(every=Behaviour(curve=curve(1.0)))
    outcome = measure(request(tmp_path, probe=True), launcher=launcher)
    assert [o.index for o in outcome.launches] == [0, 1, 2, 3, 4]
    assert outcome.launches[1].sizes == (0, 1)  # the eager probe
    assert all(o.sizes == (0, 256 * KiB, 1 * MiB) for o in outcome.launches[2:])


def test_a_failed_answer_launch_loses_only_itself_and_ends_them(tmp_path):
    """A launch that could not start its ranks would fail again: one note, no more launches."""
    notes = []
    launcher = FakeLauncher(Behaviour(curve=curve(1.0)), Behaviour(after=-1, code=1, log=("went wrong",)),
                            every=Behaviour(curve=curve(1.2)))
    outcome = measure(request(tmp_path), launcher=launcher, on_note=notes.append)
    assert [o.index for o in outcome.launches] == [0] and outcome.run.missing() == []
    failed = [n for n in notes if n.startswith("a launch of the answer's sizes failed; the sweep is complete")]
    assert len(failed) == 1, notes
    assert analyze(outcome.run).answer.latency.covers == "within one launch"


def test_an_answer_launch_stopped_part_way_keeps_the_peak_among_the_sizes_measured_again(tmp_path):
    """Launch 2 wrote its 0 B record and failed: 0 B has three launches, the peak's sizes two. The
    peak is still 1 MiB (not a size the sweep measured alone), the latency across three launches."""
    launcher = FakeLauncher(*(Behaviour(curve=curve(level)) for level in LEVELS[:2]),
                            Behaviour(curve=curve(1.1), after=1, code=1))
    outcome = measure(request(tmp_path), launcher=launcher)
    assert [o.index for o in outcome.launches] == [0, 1]
    answer = analyze(outcome.run).answer
    assert answer.latency.covers == "across 3 launches"
    assert answer.peak_bandwidth.bytes == 1 * MiB and answer.peak_bandwidth.covers == "across 2 launches"


def test_with_placement_both_the_answer_launches_measure_the_intra_node_pair(tmp_path):
    """The answer describes the intra-node pair (result._main): the launches measure it alone, at
    the sizes its sweep chose."""
    launcher = FakeLauncher(every=Behaviour(curve=curve(1.0)))
    outcome = measure(request(tmp_path, placement="both", plan=Plan(sizes=SWEEP, nranks=4, time_budget_s=0.05,
                                                                    min_samples=8, max_samples=12)),
                      launcher=launcher)
    assert [o.index for o in outcome.launches] == [0, 1, 2, 3]
    for launch in (1, 2, 3):
        args = launcher.kernel_args(launch)
        assert args[args.index("--placement") + 1] == "intra"
        assert {m.placement for m in outcome.run.measurements if m.launch == launch} == {"intra"}


def test_a_launch_of_the_largest_sizes_gets_the_time_their_floor_of_samples_takes(tmp_path):
    """Where the peak lies at the largest sizes (64 MiB between hosts), six samples of them take
    longer than ANSWER_S: the launch's budget is what the sweep's pace says they need."""
    from msgperf.launch.session import SweepSize, answer_need_s

    # 20 round trips of 1 ns/B each way, and 10 ms of warm-up and calibration
    swept = {b: SweepSize(b, 1e-9 * b, 0.01 + 2e-9 * b * 20, 20) for b in (0, 32 * MiB, 64 * MiB)}
    assert answer_need_s((0,), swept) == budgets.ANSWER_S
    need = answer_need_s((0, 32 * MiB, 64 * MiB), swept)
    # 0 B its least (REFINE_S_PER_SIZE), 32 and 64 MiB six of their 20 samples' time: 0.42 and 0.81 s
    assert need == pytest.approx(budgets.REFINE_S_PER_SIZE + 0.3 * (0.01 + 2e-9 * 32 * MiB * 20)
                                 + 0.3 * (0.01 + 2e-9 * 64 * MiB * 20))
    assert need > 5 * budgets.ANSWER_S


def test_launches_that_no_longer_fit_the_budget_are_not_started_and_the_note_says_so(tmp_path):
    """With one budget for the command, what follows the measurements (here 60 s of it) is kept
    aside first: no answer launch fits, and the note says how many were made."""
    notes = []
    plan = Plan(sizes=SWEEP, total_time_s=2.0, min_samples=8, max_samples=12)
    outcome = measure(request(tmp_path, plan=plan, whole_budget=True, after_s=60.0), launcher=launchers(),
                      on_note=notes.append)
    assert [o.index for o in outcome.launches] == [0]
    assert any(n.startswith("the answer's sizes were measured again in 0 of 3 launches: the --total-time budget "
                            "is spent") for n in notes), notes


@pytest.mark.parametrize("count", [-1, 21, True, 1.5])
def test_a_count_out_of_range_is_refused(tmp_path, count):
    with pytest.raises(MsgperfError, match=r"--answer-launches .*: use 0 to 20 launches"):
        request(tmp_path, answer_launches=count)
