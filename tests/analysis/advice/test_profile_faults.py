"""The page faults inside large collectives (analysis/advice/profile_faults.py): which rows fault
their pages in call after call, what keeping the pages would save the program, and the setting
that keeps them; "cannot tell" where the profile cannot say."""

from __future__ import annotations

import pytest

from msgperf.analysis.advice.profile_faults import PageFaults, page_faults
from msgperf.records.profile_format import CollectiveCalls
from tests.factories import sample_profile
from tests.factories import replace


def with_rows(profile, rows_by_rank, page_s=2.5e-06):
    """``profile`` with each rank's collectives replaced by ``rows_by_rank[rank]`` and its page cost set."""
    ranks = tuple(replace(r, collectives=tuple(rows_by_rank.get(r.rank, ())),
                                      page_fault_s=page_s(r.rank) if callable(page_s) else page_s)
                  for r in profile.ranks)
    return replace(profile, ranks=ranks)


def reduce_row(calls=1000, sampled=125, per_call=129, nbytes=524288, time_s=0.36, faulted=None, call="MPI_Reduce",
               p=2):
    return CollectiveCalls(call, p, nbytes, calls, time_s, faults_n=sampled, faults=round(sampled * per_call),
                           faulted_n=(sampled if per_call else 0) if faulted is None else faulted)


def test_the_saving_is_the_time_faulting_of_the_rank_that_faults_most():
    profile = with_rows(sample_profile(nranks=2, version=4),
                        {0: [reduce_row(per_call=7)], 1: [reduce_row(per_call=129)]})
    f = page_faults(profile)
    assert [(r.rank, r.faults_per_call) for r in f.rows] == [(1, 129.0), (0, 7.0)]
    assert f.rows[0].faulting_s == pytest.approx(1000 * 129 * 2.5e-06)
    assert f.rows[0].share == pytest.approx(1000 * 129 * 2.5e-06 / 0.36)
    # every rank of a collective waits for the others: the program saves the rank that faults most, not the sum
    assert (f.saving_rank, f.saving_s) == (1, pytest.approx(0.3225))
    wall = max(r.wall_s for r in profile.ranks)
    assert f.wall_s == wall and f.speedup == pytest.approx(wall / (wall - 0.3225))
    assert f.cannot_tell == ""


@pytest.mark.parametrize("nbytes, per_call, threshold", [
    (65536, 17, 256 << 10), (524288, 129, 1 << 20), (600000, 147, 2 << 20), (16 << 20, 4097, 32 << 20),
    (65536, 193, 1 << 20),  # the buffer holds more than the data: its faulted pages set the threshold
])
def test_the_setting_fixes_glibcs_thresholds_above_the_largest_faulting_buffer(nbytes, per_call, threshold):
    f = page_faults(with_rows(sample_profile(nranks=2, version=4), {1: [reduce_row(nbytes=nbytes, per_call=per_call,
                                                                                    time_s=20.0)]}))
    assert f.threshold_bytes == threshold
    assert f.setting == f"MALLOC_MMAP_THRESHOLD_={threshold} MALLOC_TRIM_THRESHOLD_={4 * threshold}"


def test_buffers_beyond_glibcs_largest_mmap_threshold_cannot_be_kept():
    f = page_faults(with_rows(sample_profile(nranks=2, version=4), {1: [reduce_row(nbytes=32 << 20, per_call=2,
                                                                                    calls=10)]}))
    assert f.saving_s is None and f.speedup is None and f.setting == ""
    assert "beyond glibc's largest mmap threshold (32 MiB)" in f.cannot_tell


@pytest.mark.parametrize("rows, page_s, said", [
    # a rank whose record ended before MPI_Finalize measured no page cost
    ({1: [reduce_row()]}, None, "did not measure what a page costs"),
    # faults of one call in many (a first touch): nothing faults call after call
    ({1: [reduce_row(per_call=0)]}, 2.5e-06, "no collective faulted pages in call after call"),
    # an estimate beyond the calls' own measured time (0.32 s faulting in 0.01 s of calls)
    ({1: [reduce_row(time_s=0.01)]}, 2.5e-06, "rank 1's estimated time faulting exceeds its calls' own measured"),
])
def test_what_cannot_be_told_says_why(rows, page_s, said):
    f = page_faults(with_rows(sample_profile(nranks=2, version=4), rows, page_s))
    assert f.saving_s is None and f.speedup is None and said in f.cannot_tell


def test_rows_with_too_few_calls_counted_are_set_aside_and_counted():
    f = page_faults(with_rows(sample_profile(nranks=2, version=4),
                              {1: [reduce_row(sampled=2), reduce_row(nbytes=65536)]}))
    assert [r.bytes for r in f.rows] == [65536] and f.unsampled_rows == 1


def test_a_profile_that_counted_no_faults_has_no_page_fault_advice():
    assert page_faults(sample_profile(nranks=2, version=3)) is None
    assert isinstance(page_faults(sample_profile(nranks=2, version=4)), PageFaults)


def test_a_saving_that_reaches_the_whole_run_or_a_run_without_time_cannot_be_told():
    profile = with_rows(sample_profile(nranks=2, version=4), {1: [reduce_row(calls=10 ** 5, time_s=40.0)]})
    assert "reaches the whole run" in page_faults(profile).cannot_tell  # 32 s of faults in a 1.5 s run
    timeless = replace(profile, ranks=tuple(replace(r, wall_s=0.0) for r in profile.ranks))
    f = page_faults(replace(timeless, ranks=tuple(
        replace(r, collectives=(reduce_row(),)) for r in timeless.ranks)))
    assert f.saving_s is None and "no time from MPI_Init to MPI_Finalize" in f.cannot_tell


def test_one_sampled_calls_first_touch_is_not_spread_over_every_call():
    """A 4 MiB bcast whose first call touches a fresh buffer: 1024 faults in 1 of 3 sampled calls is not 341 a
    call; most sampled calls must fault."""
    burst = reduce_row(calls=24, sampled=3, per_call=1024 / 3, nbytes=4 << 20, faulted=1, call="MPI_Bcast")
    f = page_faults(with_rows(sample_profile(nranks=2, version=4), {1: [burst]}))
    assert f.rows == () and f.saving_s is None and f.cannot_tell == "no collective faulted pages in call after call"


def test_a_ranks_rows_add_up_and_a_gathers_buffer_holds_every_ranks_block():
    rows = [reduce_row(per_call=100, time_s=0.3), reduce_row(per_call=60, nbytes=65536, time_s=0.3)]
    f = page_faults(with_rows(sample_profile(nranks=2, version=4), {0: [reduce_row(per_call=120)], 1: rows}))
    assert (f.saving_rank, f.saving_s) == (1, pytest.approx(1000 * 160 * 2.5e-06))  # 100 + 60 a call, one rank
    gather = reduce_row(per_call=129, nbytes=65536, call="MPI_Gather", p=16)  # 16 blocks of 64 KiB at the root
    assert page_faults(with_rows(sample_profile(nranks=2, version=4), {1: [gather]})).threshold_bytes == 2 << 20


def test_a_rank_descheduled_inside_its_counted_calls_cannot_tell():
    """On a busy machine the faults take longer than a page's cost (the saving came out at half the measured
    one beside two busy loops): more than a tenth of the counted calls descheduled, and the saving is withheld."""
    busy = replace(reduce_row(), preempted_n=40)  # 40 of 125 counted calls
    f = page_faults(with_rows(sample_profile(nranks=2, version=4), {1: [busy]}))
    assert f.saving_s is None and f.rows[0].preempted == 40
    assert f.cannot_tell == ("rank 1 was descheduled inside 40 of its 125 counted calls: on a busy machine faults "
                             "take longer than a page's cost")
    quiet = replace(reduce_row(), preempted_n=12)  # 9.6 %: a quiet machine's few
    assert page_faults(with_rows(sample_profile(nranks=2, version=4), {1: [quiet]})).saving_s is not None
