"""Several runs of one program merged (analysis/advice/profile_runs.py), on synthetic profiles whose
times are the factory's scaled per run: the medians, the smallest and largest run, the number of
runs, a call one run did not make, the refusal of different programs, partial runs kept and said,
and the advice over the runs."""

from __future__ import annotations

import math

import pytest

from msgperf.analysis.advice import advise_profile, advise_profile_runs, merge_runs
from msgperf.analysis.advice.profile_runs import spread
from msgperf.analysis.result import analyze
from msgperf.analysis.samples import AnalysisError
from tests.factories import rich_run, sample_profile
from tests.factories import replace


def scaled(factor: float, minute: int = 0, profile=None, drop: str | None = None):
    """sample_profile(3, version=3) with every time × ``factor`` (the call ``drop`` left out), started
    ``minute`` minutes later: another run of the same program."""
    base = profile or sample_profile(3, version=3)
    ranks = []
    for r in base.ranks:
        calls = tuple(replace(c, time_s=c.time_s * factor) for c in r.calls if c.call != drop)
        ranks.append(replace(r, calls=calls, wall_s=r.wall_s * factor,
                                         mpi_time_s=sum(c.time_s for c in calls), wait_time_s=r.wait_time_s * factor))
    info = replace(base.info, start_time=f"2026-11-23T10:{minute:02d}:00Z")
    return replace(base, ranks=tuple(ranks), info=info)


def test_spread_is_the_median_with_the_smallest_and_largest_run():
    s = spread([3.0, 1.0, 2.0])
    assert (s.median, s.low, s.high, s.n, s.values) == (2.0, 1.0, 3.0, 3, (3.0, 1.0, 2.0))
    assert spread([4.0, 1.0, 2.0, 3.0]).median == 2.5  # an even number: the mean of the middle two
    told = spread([1.0, math.nan, 5.0])
    assert (told.median, told.n) == (3.0, 2)  # a run that cannot tell is left out, and counted out
    assert spread([math.nan]).n == 0 and math.isnan(spread([math.nan]).median)


def test_times_and_shares_over_three_runs():
    runs = merge_runs([scaled(1.0, 0), scaled(1.2, 1), scaled(0.9, 2)], ["a", "b", "c"])
    assert runs.n == 3 and runs.nranks == 2 and runs.program == "halo"
    per_run = sum(c.time_s for c in sample_profile(3, version=3).ranks[0].calls) * 2  # two ranks
    assert runs.mpi_time_s.values == pytest.approx((per_run, 1.2 * per_run, 0.9 * per_run))
    assert (runs.mpi_time_s.median, runs.mpi_time_s.low, runs.mpi_time_s.high) == pytest.approx(
        (per_run, 0.9 * per_run, 1.2 * per_run))
    assert (runs.wall_s.median, runs.wall_s.low, runs.wall_s.high) == pytest.approx((4.5, 4.05, 5.4))
    waitall = next(c for c in runs.calls if c.name == "MPI_Waitall")
    assert (waitall.time_s.median, waitall.time_s.low, waitall.time_s.high, waitall.time_s.n) == pytest.approx(
        (0.25, 0.225, 0.3, 3))
    assert waitall.calls.median == 10 and waitall.kind == "wait/test"
    # the factory's rank: 0.0625 s Isend + 0.125 s Waitall (point-to-point), 0.03125 s Allreduce, 0.1 µs Comm_rank
    assert runs.point_to_point_share.median == pytest.approx(0.1875 / (0.21875 + 1e-7))
    assert runs.collective_share.median == pytest.approx(0.03125 / (0.21875 + 1e-7))
    assert runs.other_share.median == pytest.approx(1e-7 / (0.21875 + 1e-7))
    assert [k.name for k in runs.kinds] == ["wait/test", "point-to-point", "collective", "communicator/datatype"]
    assert [r.label for r in runs.runs] == ["a", "b", "c"] and not runs.notes


def test_a_call_one_run_did_not_make_counts_zero_there():
    runs = merge_runs([scaled(1.0, 0), scaled(1.0, 1, drop="MPI_Allreduce"), scaled(1.0, 2)])
    allreduce = next(c for c in runs.calls if c.name == "MPI_Allreduce")
    assert allreduce.time_s.values == (0.0625, 0.0, 0.0625)
    assert (allreduce.time_s.median, allreduce.time_s.low, allreduce.calls.low) == (0.0625, 0.0, 0.0)
    assert runs.collective_share.low == 0.0


def test_profiles_of_different_programs_are_refused_naming_what_differs():
    a = scaled(1.0, 0)
    other_name = replace(a, info=replace(a.info, argv=("./stencil", "--steps", "5"),
                                                                 start_time="x"))
    with pytest.raises(AnalysisError, match=r"cannot merge b with a: another program \(stencil against halo\)"):
        merge_runs([a, other_name], ["a", "b"])
    other_input = sample_profile(4, version=3)  # ./halo --steps 6
    with pytest.raises(AnalysisError, match=r"other arguments \('halo --steps 6' against 'halo --steps 5'\)"):
        merge_runs([a, other_input], ["a", "b"])
    more_ranks = sample_profile(3, nranks=3, version=3)
    with pytest.raises(AnalysisError, match=r"cannot merge b with a: 3 ranks against 2"):
        merge_runs([a, more_ranks], ["a", "b"])
    with pytest.raises(AnalysisError, match=r"c and a are the same run"):
        merge_runs([a, scaled(1.1, 1), a], ["a", "b", "c"])
    # the directory of the program is not part of it
    moved = replace(a, info=replace(a.info, argv=("/home/u/halo", "--steps", "5"),
                                                            start_time="y"))
    assert merge_runs([a, moved]).n == 2


def test_a_run_with_missing_ranks_is_kept_and_said():
    whole = scaled(1.0, 0)
    partial = scaled(1.0, 1)
    ended = replace(partial.ranks[0], ended_by="signal SIGSEGV")
    partial = replace(partial, ranks=(ended,), info=replace(partial.info, complete=False))
    runs = merge_runs([whole, partial, scaled(1.0, 2)], ["w", "p", "v"])
    assert runs.n == 3 and runs.runs[1].missing_ranks == (1,) and not runs.runs[1].complete
    assert runs.mpi_time_s.low == pytest.approx(runs.mpi_time_s.median / 2)  # one rank's time of two
    assert any(n.startswith("p is a partial run (no record from rank(s) 1; rank(s) 0 ended without MPI_Finalize)")
               for n in runs.notes), runs.notes


def test_an_empty_list_or_a_profile_without_ranks_is_refused():
    with pytest.raises(AnalysisError, match="no profile to merge"):
        merge_runs([])
    empty = replace(scaled(1.0), ranks=())
    with pytest.raises(AnalysisError, match="e: no rank left a record"):
        merge_runs([scaled(1.0), empty], ["a", "e"])


def test_the_advice_over_runs_holds_each_runs_own_and_their_median():
    result = analyze(rich_run())
    profiles = [scaled(1.0, 0), scaled(1.2, 1), scaled(0.9, 2), scaled(1.5, 3)]
    labels = ["a", "b", "c", "d"]
    merged = advise_profile_runs(profiles, labels, result, model_label="m")
    alone = [advise_profile(p, result, profile_label=label) for p, label in zip(profiles, labels)]
    assert merged.measured_s.values == pytest.approx([a.measured_s for a in alone])
    assert merged.measured_s.median == pytest.approx((alone[0].measured_s + alone[1].measured_s) / 2)
    assert merged.predicted_s.values == pytest.approx([a.predicted.value_s for a in alone])
    ratios = [a.ratio for a in alone]
    assert (merged.ratio.low, merged.ratio.high) == pytest.approx((min(ratios), max(ratios)))
    assert merged.median_run == 0  # measured 1.0 and 1.2 in the middle: the lower one
    assert merged.median_advice.profile == "a" and merged.runs.n == 4 and not merged.notes


def test_runs_whose_messages_differ_are_said():
    result = analyze(rich_run())
    a = scaled(1.0, 0)
    fewer = a.ranks[1]
    fewer = replace(fewer, messages=fewer.messages[1:], sequences=())  # rank 1 sent nothing
    b = replace(scaled(1.0, 1), ranks=(scaled(1.0, 1).ranks[0], fewer))
    merged = advise_profile_runs([a, b], ["a", "b"], result)
    assert any("the runs' messages differ" in n for n in merged.notes)


def test_resolution_of_a_saving_from_the_runs_spread():
    """σ is the larger of MAD × 1.4826 and the range over its expected value for n normal samples;
    the medians of n runs per side detect (1.96 + 0.84) · 1.2533 · σ · √2 / √n at 95 % four times
    in five; no spread, or fewer than 3 runs, cannot tell."""
    from msgperf.analysis.advice.profile_runs import expected_range, resolution

    assert [round(expected_range(n), 3) for n in (2, 3, 5, 10)] == [1.128, 1.693, 2.326, 3.078]  # d2, tabulated
    walls = [1.00, 1.02, 0.98, 1.01, 0.99]  # median 1.00, MAD 0.01, range 0.04
    r = resolution(walls, 0.05)
    sigma = max(1.4826 * 0.01, 0.04 / 2.326)
    assert r.sigma_s == pytest.approx(sigma, rel=1e-3)
    assert r.resolves_s == pytest.approx((1.959964 + 0.841621) * 1.2533 * sigma * math.sqrt(2) / math.sqrt(5),
                                         rel=1e-3)
    assert r.shows and r.runs == 5
    small = resolution(walls, 0.01)
    assert not small.shows
    assert small.runs_needed == math.ceil(((1.959964 + 0.841621) * 1.2533 * r.sigma_s * math.sqrt(2) / 0.01) ** 2)
    assert resolution(walls, -0.05).shows  # combining predicted slower: judged the same way
    assert resolution(walls, 1e-6).runs_needed is None  # more runs than anyone would make
    # two runs agreeing by chance do not make a spread of nothing: the range sets it
    lopsided = resolution([10.0, 10.001, 12.0], 0.01)
    assert lopsided.sigma_s == pytest.approx(2.0 / 1.693, rel=1e-3) and not lopsided.shows
    assert not resolution([1.0, 1.0, 1.0], 1e-3).shows  # no spread at all: cannot tell
    assert resolution(walls[:2], 0.05) is None and resolution(walls, math.nan) is None
