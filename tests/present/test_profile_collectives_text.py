"""The whole program's shares and the collectives in words: a wide range is said as only a range,
never one value, and the shares are the analysis' values."""

from __future__ import annotations

from msgperf.analysis.advice import advise_profile
from msgperf.present.profile_advice_text import collective_lines, whole_program_lines
from tests.analysis.advice.test_profile_collectives import allreduce_profile, model_run


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
    assert "collectives predicted 1 ms (100.0 %): predicted 201 µs – 402 µs by the collective models" in lines
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
