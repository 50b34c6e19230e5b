"""The whole program's shares and the collectives in words: a wide range is said as only a range,
never one value, and the shares are the analysis' values."""

from __future__ import annotations

from msgperf.analysis.advice import advise_profile
from msgperf.present.profile_advice_text import collective_lines, whole_program_lines
from tests.analysis.advice.test_profile_collectives import allreduce_profile, model_run
from tests.factories import replace


def test_a_wide_range_is_only_a_range_and_a_narrow_one_is_a_range_without_the_warning():
    wide = " ".join(collective_lines(advise_profile(allreduce_profile(p=8), model_run())))
    # 100 allreduces of 8 B at P = 8: recursive doubling 3 T(8) = 6.02 µs each to the ring's 14 T(1) = 28 µs
    assert "MPI_Allreduce P=8 8 B ×100: measured 1 ms; predicted 602 µs – 2.8 ms (only a range: the algorithms " \
           "differ 4.65×, the MPI's choice decides) (rec. doubling – ring at n = 8 B)" in wide
    narrow = " ".join(collective_lines(advise_profile(allreduce_profile(), model_run())))
    assert "predicted 201 µs – 402 µs (rec. doubling – reduce+bcast at n = 8 B)" in narrow
    assert "only a range" not in narrow


def test_the_whole_programs_lines_add_up_and_say_the_waiting():
    lines = " ".join(whole_program_lines(advise_profile(allreduce_profile(), model_run())))
    assert "collectives with a model 1 ms (100.0 %): predicted 201 µs – 402 µs by the collective models" in lines
    assert "waiting for a slower rank: 0 ns (0.0 %), measured" in lines


def test_the_other_ranks_waiting_is_named_with_the_rank_waited_for():
    from tests.analysis.advice.test_profile_collectives import waiting_profile

    a = advise_profile(waiting_profile(), model_run())
    assert a.measured_rank == 0  # the same point-to-point time: the first
    held = a.whole_held
    assert held.rank == 0 and held.waits_for == 1
    lines = " ".join(whole_program_lines(a))
    assert "waiting for rank 1, the slowest outside MPI (load imbalance): 9 ms (66.7 %), measured" in lines
    assert "rank 1: 4.5 ms inside MPI, the slowest outside MPI; predicted " in lines


def test_text_and_json_say_cannot_tell_alike_when_the_ranks_waiting_is_beyond_the_tolerance():
    from msgperf.present.json_view import profile_advice_dict
    from tests.analysis.advice.test_profile_collectives import absorbed_profile

    # rank 0 waits 9 ms, all of it allocated to its point-to-point calls, beside 10 ms of allreduces
    a = advise_profile(absorbed_profile(), model_run())
    whole = " ".join(whole_program_lines(a))
    assert ("collectives with a model 10 ms (33.3 %): predicted 20.1 µs – 40.2 µs by the collective models; measured / "
            "predicted: cannot tell (the rank waited for a slower rank, and the profile does not say in which calls)"
            in whole)
    colls = " ".join(collective_lines(a))
    assert "measured / predicted: cannot tell (below)" in colls and "measured / predicted 2" not in colls
    assert "measured / predicted 4" not in colls and "cannot tell (the rank waited" in colls
    out = profile_advice_dict(a)
    share = next(s for s in out["whole"][0]["shares"] if s["part"] == "collectives predicted")
    rank = out["collectives"]["ranks"][0]
    assert share["comparable"] is False and share["verdict"] == rank["verdict"] == "cannot tell"
    assert share["ratio_measured_to_predicted"] == rank["ratio_measured_to_predicted"] == [None, None]
    assert rank["rows"][0]["ratio_measured_to_predicted"] == [None, None]
    assert share["fraction"] == 10e-3 / a.whole[0].mpi_time_s


def test_out_of_lockstep_less_than_the_fastest_is_said_without_a_ratio():

    p = allreduce_profile(time_s=1e-5)
    a = advise_profile(replace(p, ranks=(p.ranks[0], replace(p.ranks[1], wall_s=3.0))),
                       model_run())
    (coll,) = [line for line in whole_program_lines(a) if line.startswith("collectives with a model")]
    assert coll.endswith("measured / predicted: less than the fastest algorithm predicts, even with the waiting "
                         "for a slower rank in it")
    assert not any("cannot tell (the waiting" in line for line in whole_program_lines(a))  # 0 against 0: nothing said


def test_calls_beyond_the_ranks_time_inside_mpi_are_said():

    p = allreduce_profile()
    a = advise_profile(replace(p, ranks=tuple(replace(r, mpi_time_s=0.6e-3) for r in p.ranks)),
                       model_run())
    assert ("the calls' times add up to 400 µs more than the rank's time inside MPI (the record's total is below its "
            "calls'): the shares above, each call's time, add up to 1 ms") in " ".join(whole_program_lines(a))
