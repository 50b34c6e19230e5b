"""Switches located, not bracketed: after the sweep, ``measure`` adds sizes inside each wide
breakpoint interval of the main pattern (analysis/refinement.py) until it is at most an eighth
of an octave wide. Without MPI: the fake kernels put the samples on a curve with a step whose
place is known."""

from __future__ import annotations

import math
from pathlib import Path

from msgperf.analysis.refinement import TARGET_OCTAVES
from msgperf.analysis.result import analyze
from msgperf.analysis.model.series import analyze_series
from msgperf.analysis.tables.size_rows import size_rows
from msgperf.launch.session import MeasureRequest, measure
from msgperf.plan import Plan, parse_sizes
from msgperf.records.runfile_read import read_run
from tests.launch.fake_launcher import Behaviour, FakeLauncher
from tests.factories import replace

STEP_AT = 12_000  # sizes from here on pay the step: a switch in (11999, 12000]
# 1 µs + 0.1 ns/B (10 GB/s), +4 µs from STEP_AT: as an eager -> rendezvous switch looks
CURVE = (1e-6, 1e-10, STEP_AT, 4e-6)
SWEEP = parse_sizes("1K:1M")  # ratio 2: 11 sizes, the step between 8 and 16 KiB
PINGPONG_RUN = Path(__file__).resolve().parents[1] / "data" / "kernel-runs" / "pingpong-unexpected-ring.jsonl"


def request(tmp_path, **changes) -> MeasureRequest:
    plan = Plan(sizes=SWEEP, time_budget_s=0.05, min_samples=8, max_samples=12)
    return MeasureRequest(**{"plan": plan, "output": tmp_path / "run.jsonl", "log_dir": tmp_path, "store": False,
                             "refine": True, **changes})


def breakpoints(run):
    return analyze(run).main.model.sweep.piecewise.breakpoints


def test_refinement_narrows_the_switch_to_an_eighth_of_an_octave_around_the_truth(tmp_path):
    launcher = FakeLauncher(every=Behaviour(curve=CURVE))
    notes, starts = [], []
    outcome = measure(request(tmp_path), launcher=launcher, on_note=notes.append, on_launch=starts.append)
    refining = [l for l in outcome.launches if l.refining]
    assert refining, "no refinement launch"
    first = refining[0]
    new = [s for s in first.sizes if s not in SWEEP]
    assert len(new) == 7 and all(8192 < s < 16384 for s in new)
    assert sorted(set(first.sizes) & set(SWEEP)) == [2048, 4096, 8192, 16384, 32768, 65536]
    # only the main pattern, and the sizes asked, are measured in a refinement launch
    args = launcher.commands[outcome.launches.index(first)]
    assert args[args.index("--sizes") + 1] == ",".join(map(str, first.sizes))
    assert args.count("--pattern") == 1 and args[args.index("--pattern") + 1] == "pingpong"
    (b,) = breakpoints(outcome.run)
    assert b.low_bytes < STEP_AT <= b.high_bytes
    assert math.log2(b.high_bytes / b.low_bytes) <= TARGET_OCTAVES + 1e-9
    # the refinement's last look is the analysis of the run as returned: msgperf run need not redo it
    assert outcome.result is not None and outcome.result.main.model.sweep.piecewise.breakpoints == (b,)
    # what the round is for is its progress phase, not a note (nothing is printed off a terminal)
    assert notes == []
    assert [(s.label, s.detail) for s in starts if s.refining][0] == \
        ("refine 1/3", "switch 8 KiB–16 KiB; 7 new size(s), 6 again beside them")
    # the plan is untouched: the run is complete, the extra sizes are additions
    assert read_run(outcome.run_file).run.missing() == []
    assert outcome.run.info.plan.sizes == SWEEP
    # show's rows: by size, each plan size timed by the sweep's launch alone (the refinement's
    # anchors locate, they do not add a launch to its interval), each refined size by its own
    rows = [r for r in size_rows(outcome.run) if r.pattern == "pingpong"]
    assert [r.bytes for r in rows] == sorted(r.bytes for r in rows)
    assert all(r.launch_ids == (0,) for r in rows if r.bytes in SWEEP)
    assert all(len(r.launch_ids) == 1 and r.launch_ids[0] > 0 for r in rows if r.bytes not in SWEEP)


def test_without_refinement_the_switch_stays_an_octave_wide(tmp_path):
    plain = replace(request(tmp_path), refine=False)
    assert MeasureRequest(plan=plain.plan).refine is False  # the API's default; msgperf run asks for it
    outcome = measure(plain, launcher=FakeLauncher(every=Behaviour(curve=CURVE)))
    assert not any(l.refining for l in outcome.launches) and len(outcome.launches) == 1
    assert outcome.result is None  # nothing analysed it: the caller does
    (b,) = breakpoints(outcome.run)
    assert (b.low_bytes, b.high_bytes) == (8192, 16384)


def test_a_refinement_launch_on_another_level_is_aligned_and_still_locates_the_switch(tmp_path):
    """The refinement launches run 15 % faster than the sweep (as seen on real MPICH): measured
    again beside the switch, they are put on the sweep's level, and the switch is still found."""
    faster = (CURVE[0] * 0.85, CURVE[1] * 0.85, STEP_AT, CURVE[3] * 0.85)
    notes = []
    outcome = measure(request(tmp_path), launcher=FakeLauncher(Behaviour(curve=CURVE), every=Behaviour(curve=faster)),
                      on_note=notes.append)
    assert sum(l.refining for l in outcome.launches) >= 1
    model = analyze(outcome.run).main.model
    aligned = [c for c in model.caveats if c.kind == "launch_aligned"]
    assert aligned and all("0.85x the sweep's level" in c.message for c in aligned)
    (b,) = model.sweep.piecewise.breakpoints
    assert b.low_bytes < STEP_AT <= b.high_bytes
    assert math.log2(b.high_bytes / b.low_bytes) <= TARGET_OCTAVES + 1e-9
    assert model.launch_comparison is None  # a refinement is not a repetition


def test_a_straight_line_is_not_refined(tmp_path):
    line = (1e-6, 1e-10, 1 << 40, 0.0)
    outcome = measure(request(tmp_path), launcher=FakeLauncher(every=Behaviour(curve=line)))
    assert len(outcome.launches) == 1 and breakpoints(outcome.run) == ()


def test_a_spent_budget_stops_refining_and_says_where_the_switch_is(tmp_path):
    notes = []
    outcome = measure(request(tmp_path, refine_budget_s=1e-9), launcher=FakeLauncher(every=Behaviour(curve=CURVE)),
                      on_note=notes.append)
    assert [l.refining for l in outcome.launches] == [False]
    assert notes == ["not refined: the refinement budget (1e-09 s) is spent; left as measured: pingpong: a switch "
                     "between 8 KiB and 16 KiB"]


def test_a_switch_the_sweep_took_for_a_spike_is_found_and_located(tmp_path):
    """A short sweep on a busy machine: one size past the switch, the bandwidth sizes off the
    line by 7-20 % (as on the 2-core VM), and the sweep alone sees no breakpoint, only a size
    off the model. The refinement measures around it, finds the step in its own launch and
    locates it; the spike was a switch (bench/RESULTS.md §7)."""
    wobble = ((65536, 1.07), (262144, 0.86), (1048576, 1.2))
    curve = (1e-6, 1.2e-10, 32689, 3e-6, wobble)
    plan = Plan(sizes=parse_sizes("4K:1M"), time_budget_s=0.05, min_samples=8, max_samples=12)
    starts = []
    outcome = measure(request(tmp_path, plan=plan), launcher=FakeLauncher(every=Behaviour(curve=curve)),
                      on_launch=starts.append)
    alone = analyze_series(outcome.run, "pingpong", launch=0).sweep
    assert alone.piecewise.breakpoints == () and alone.suspects == ((16384, 131072),)
    assert [s.detail for s in starts if s.refining][0].startswith("off the model 16 KiB–128 KiB; 7 new size(s)")
    (b,) = breakpoints(outcome.run)
    assert b.low_bytes < 32689 <= b.high_bytes
    assert math.log2(b.high_bytes / b.low_bytes) <= TARGET_OCTAVES + 1e-9
    assert analyze(outcome.run).main.model.sweep.suspects == ()


def test_a_threshold_set_by_a_cvar_is_located_to_the_byte_by_a_step_there(tmp_path):
    """A single-copy threshold set to 128 KiB (sizes from 131072 B on are 2 µs faster, as MPICH's
    CMA on this VM): the refinement measures both sides of it in one launch, which puts the switch
    in (131071, 131072]; without the CVAR in the launch's environment the same curve is located
    only to an interval around it."""
    curve = (1e-6, 1e-10, 131072, -2e-6)
    cvar = (("MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD", "131072"),)
    located = {}
    for name, env in (("set", cvar), ("not set", ())):
        work = tmp_path / name.replace(" ", "-")
        work.mkdir()
        outcome = measure(request(work), launcher=FakeLauncher(every=Behaviour(curve=curve, environment=env)))
        result = analyze(outcome.run)
        (b,) = result.main.model.sweep.piecewise.breakpoints
        (origin,) = result.main.model.sweep.provenance
        located[name] = (b.low_bytes, b.high_bytes, origin.at_threshold)
        assert b.low_bytes < 131072 <= b.high_bytes, (name, b)
    # measured on both sides of the threshold, the two lines over the window already pin it there
    # (the step test narrows it when they do not: tests/analysis/model/test_switch_location.py)
    assert located["set"][:2] == (131071, 131072)
    assert located["not set"][:2] != (131071, 131072) and not located["not set"][2]


def test_a_spike_stays_a_spike(tmp_path):
    """One size off a straight line, in every launch: the refinement measures around it, sees no
    switch, and says so; no breakpoint is made of it."""
    curve = (1e-6, 1e-10, 1 << 40, 0.0, ((32768, 1.3),))
    plan = Plan(sizes=parse_sizes("4K:1M"), time_budget_s=0.05, min_samples=8, max_samples=12)
    outcome = measure(request(tmp_path, plan=plan), launcher=FakeLauncher(every=Behaviour(curve=curve)))
    assert sum(l.refining for l in outcome.launches) == 1
    model = analyze(outcome.run).main.model
    assert model.sweep.piecewise.breakpoints == () and model.sweep.suspects == ()
    (spike,) = [c for c in model.caveats if c.kind == "spike_confirmed"]
    assert spike.message.startswith("32 KiB stands off the model alone: the refinement measured sizes between "
                                    "16 KiB and 64 KiB and its launch shows no switch there"), spike.message


def test_a_short_eager_probe_follows_the_sweep_and_names_the_switch(tmp_path):
    """msgperf run's default: one eager-probe launch (0 B) after the sweep; its eager limit
    labels the breakpoint the model finds. Not with --no-probe, nor when the plan probes."""
    at_the_probes_limit = (1e-6, 1e-10, 32689, 4e-6)  # the fake probe says 32688 B
    launcher = FakeLauncher(every=Behaviour(curve=at_the_probes_limit))
    outcome = measure(request(tmp_path, refine=False, probe=True), launcher=launcher)
    assert len(outcome.launches) == 2 and outcome.launches[1].sizes == (0, 1)  # two searches that must agree
    args = launcher.commands[1]
    assert args[args.index("--pattern") + 1] == "eager-probe" and args.count("--pattern") == 1
    result = analyze(outcome.run)
    assert result.eager is not None and result.eager.limit_bytes == 32688
    assert read_run(outcome.run_file).run.missing() == []
    (label,) = result.main.labels
    assert (label.breakpoint.low_bytes, label.breakpoint.high_bytes) == (16384, 32768)
    assert "eager-probe: 32688 B" in label.text, label.text
    plain = measure(request(tmp_path / "x", refine=False), launcher=FakeLauncher(every=Behaviour(curve=CURVE)))
    assert len(plain.launches) == 1


def test_a_failed_probe_launch_loses_only_itself(tmp_path):
    notes = []
    launcher = FakeLauncher(Behaviour(curve=CURVE), Behaviour(after=-1, code=1, log=("probe went wrong",)))
    outcome = measure(request(tmp_path, refine=False, probe=True), launcher=launcher, on_note=notes.append)
    assert len(outcome.launches) == 1 and outcome.run.missing() == []
    assert any(n.startswith("the eager-probe launch failed; the sweep is complete and kept") for n in notes), notes


def test_a_disturbed_refinement_launch_locates_nothing_and_its_sizes_are_measured_again(tmp_path):
    """A refinement launch whose ranks were descheduled measures another curve: its sweep sizes
    disagree with the sweep's far beyond one level (here 16 KiB at 40x). It is named, it locates
    nothing, and the next round measures the same sizes again, which locate the switch."""
    disturbed = (*CURVE, ((16384, 40.0), (4096, 3.0)))
    notes, starts = [], []
    launcher = FakeLauncher(Behaviour(curve=CURVE), Behaviour(curve=disturbed), every=Behaviour(curve=CURVE))
    outcome = measure(request(tmp_path), launcher=launcher, on_note=notes.append, on_launch=starts.append)
    refining = [l for l in outcome.launches if l.refining]
    assert len(refining) >= 2 and refining[0].sizes == refining[1].sizes, notes
    # the same round again is not the same paragraph again (msgperf run printed it twice): no note at
    # all, and the second round's phase says why it repeats the first
    rounds = [(s.label, s.detail) for s in starts if s.refining]
    assert notes == [] and len(set(rounds)) == len(rounds)
    assert rounds[1] == ("refine 2/3", "again (refinement launch 1 was disturbed): " + rounds[0][1])
    model = analyze(outcome.run).main.model
    (bad,) = [c for c in model.caveats if c.kind == "refinement_disturbed"]
    assert bad.launch == 1 and "it locates no switch" in bad.message
    # it gives no size its time, in show's rows as in the model
    assert all(1 not in r.launch_ids for r in size_rows(outcome.run))
    assert all(m.launch != 1 for s in model.sizes for m in s.measurements)
    (b,) = model.sweep.piecewise.breakpoints
    assert b.low_bytes < STEP_AT <= b.high_bytes
    assert math.log2(b.high_bytes / b.low_bytes) <= TARGET_OCTAVES + 1e-9


def test_a_resume_does_after_the_sweep_what_the_run_was_asked_to(tmp_path):
    """`--resume` of a run made with --no-refine --no-probe ran three refinement launches: the
    plan records the choice (plan.after), and the resume honours it (msgperf run --resume asks
    for refinement, its default)."""
    from msgperf.launch.job import LaunchError

    two = request(tmp_path).plan
    for refine, name in ((False, "plain.jsonl"), (True, "refined.jsonl")):
        first = MeasureRequest(plan=two, output=tmp_path / name, log_dir=tmp_path, store=False, refine=refine,
                               probe=False, repeat=2)
        try:
            measure(first, launcher=FakeLauncher(Behaviour(curve=CURVE), Behaviour(after=1, then="die", curve=CURVE),
                                                 every=Behaviour(curve=CURVE)))
        except LaunchError:
            pass  # the second launch died: the run is to be resumed
        else:
            raise AssertionError("the second launch was to die")
        assert read_run(tmp_path / name).run.info.plan.after == (("refine",) if refine else ())
        launcher = FakeLauncher(every=Behaviour(curve=CURVE))
        resumed = measure(MeasureRequest(resume=tmp_path / name, log_dir=tmp_path, store=False, refine=True,
                                         probe=True), launcher=launcher)
        refined = [l for l in resumed.launches if l.refining]
        assert resumed.run.missing() == []
        if refine:
            assert refined, "a run made to refine is refined when resumed"
        else:
            assert not refined and len(resumed.launches) == 1 and len(launcher.commands) == 1


def test_a_round_short_of_time_refines_the_intervals_that_fit_small_sizes_first(tmp_path, monkeypatch):
    """A switch at 12000 B and a size off the model at 256 KiB; the time left covers the small
    sizes' floors but not the large ones': the switch is located, the large interval is left as
    measured and said so once (a default run on a busy machine refined nothing: 'not refined',
    and its eager switch stayed 'cause unknown')."""
    from msgperf.launch import budget as budgets

    monkeypatch.setattr(budgets, "size_floor_s", lambda size, paces: 5.0 if size >= 100_000 else 0.001)
    curve = (1e-6, 1e-10, STEP_AT, 4e-6, ((262144, 1.3),))
    notes = []
    outcome = measure(request(tmp_path, refine_budget_s=3.0), launcher=FakeLauncher(every=Behaviour(curve=curve)),
                      on_note=notes.append)
    refined = [l for l in outcome.launches if l.refining]
    assert refined and all(max(l.sizes) < 100_000 for l in refined)
    switch = next(b for b in breakpoints(outcome.run) if b.low_bytes < STEP_AT <= b.high_bytes)
    assert math.log2(switch.high_bytes / switch.low_bytes) <= TARGET_OCTAVES + 1e-9
    assert notes == ["not refined in part: the refinement budget (3 s) is spent; left as measured: pingpong: "
                     "a size off the model alone between 128 KiB and 512 KiB"]


def test_intervals_that_hold_a_measured_limit_come_first_then_the_smallest():
    from types import SimpleNamespace

    from msgperf.analysis.refinement import Bracket, by_priority

    small, held, large = (Bracket("pingpong", 512, 1024), Bracket("pingpong", 4096, 8192, suspect=True),
                          Bracket("pingpong", 4 << 20, 8 << 20))
    result = SimpleNamespace(eager=SimpleNamespace(switch_bytes=8112, agreed=True), thresholds=())
    assert by_priority(result, [large, small, held]) == [held, small, large]


def test_the_last_look_keeps_no_analysis_of_a_run_with_collectives(tmp_path):
    """The refinement analyses without naming collectives (each launch alone is the costly part),
    so its last look is no analysis to print for a run that has them: msgperf run printed "no
    names: judged from one launch ... (msgperf run --repeat 2)" for runs made with --repeat 2, where
    show names pairwise alltoall at 64 KiB and up. The run is kept; the analysis is redone."""
    from msgperf.launch.refine_rounds import refine
    from tests.analysis.collectives.test_naming import run_of
    from tests.factories import write_run

    path = write_run(run_of("recursive_doubling"), tmp_path / "c.jsonl")
    look: list = []
    made = refine(path, end_s=0.0, next_index=1, launch=lambda *a: None, note=lambda s: None, last_look=look)
    assert made == 0 and look and look[0] is not None and look[1] is None
    plain = write_run(read_run(PINGPONG_RUN).run, tmp_path / "p.jsonl")
    refine(plain, end_s=0.0, next_index=1, launch=lambda *a: None, note=lambda s: None, last_look=look)
    assert look[1] is not None and look[1].collectives is None
