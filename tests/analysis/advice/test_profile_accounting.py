"""The accounting of a profile's time inside MPI: per kind and call, sites, per rank split into
kinds that add up to the rank's MPI time, and the waiting for a slower rank."""

from __future__ import annotations

import math

import pytest

from msgperf.analysis.advice.profile_accounting import account_profile
from tests.factories import sample_profile
from tests.factories import replace


def test_kinds_and_calls_add_up_to_the_time_inside_mpi_of_every_rank():
    profile = sample_profile(nranks=3, version=3)
    a = account_profile(profile)
    assert a.mpi_time_s == pytest.approx(3 * 0.25)
    by_kind = {k.name: (k.calls, k.bytes, k.time_s) for k in a.kinds}
    assert by_kind["collective"] == (3 * 2, 3 * 16, pytest.approx(3 * 0.03125))
    assert by_kind["wait/test"][2] == pytest.approx(3 * 0.125)
    assert [c.name for c in a.calls][:2] == ["MPI_Waitall", "MPI_Isend"]  # most time first
    assert a.calls[0].share == pytest.approx(0.125 / 0.25)
    for r in a.ranks:
        assert dict(r.by_kind) == pytest.approx({"point-to-point": 0.0625, "wait/test": 0.125, "collective": 0.03125,
                                                 "communicator/datatype": 1e-07})


def test_sites_are_summed_over_ranks_and_resolved_where_told():
    profile = sample_profile(nranks=2, version=3)
    a = account_profile(profile, {("./halo", 4660): "halo.c:42"})
    top = a.sites[0]
    assert (top.call, top.location, top.ranks, top.calls) == ("MPI_Waitall", "halo.c:42", 2, 2 * 2)
    assert a.sites[1].location is None  # no object: cannot tell
    assert a.sites_other_s == pytest.approx(2 * 0.0625)


def test_the_rank_that_computes_least_waits_for_the_slowest_inside_mpi():
    profile = sample_profile(nranks=2, version=3)
    r0, r1 = profile.ranks
    # both 2 s from MPI_Init to MPI_Finalize; rank 1 spends 0.2 s less inside MPI than rank 0
    ranks = (replace(r0, wall_s=2.0, mpi_time_s=0.5), replace(r1, wall_s=2.0, mpi_time_s=0.3))
    a = account_profile(replace(profile, ranks=ranks))
    split = {r.rank: r for r in a.ranks}
    assert split[0].waiting_s == pytest.approx(0.2) and split[0].waits_for == 1
    assert split[1].waiting_s == 0.0 and a.waiting_s == pytest.approx(0.2)


def test_ranks_out_of_lockstep_cannot_tell_the_waiting():
    profile = sample_profile(nranks=2, version=3)
    r0, r1 = profile.ranks
    a = account_profile(replace(profile, ranks=(replace(r0, wall_s=1.0),
                                                             replace(r1, wall_s=2.0))))
    assert all(r.waiting_s is None for r in a.ranks) and a.waiting_s is None
    assert any("not in lockstep" in n for n in a.notes)


def test_an_older_profile_says_what_it_did_not_wrap():
    a = account_profile(sample_profile(nranks=2, version=2))
    assert {k.name for k in a.kinds} == {"point-to-point", "wait/test"}
    assert any("format 2 profile" in n for n in a.notes)
    assert not math.isnan(a.kinds[0].share)


def test_the_point_to_point_model_is_held_against_point_to_point_time_alone():
    from msgperf.analysis.advice.profile_accounting import point_to_point_time

    v3, v2 = sample_profile(nranks=2, version=3).ranks[0], sample_profile(nranks=2, version=2).ranks[0]
    assert point_to_point_time(v3) == pytest.approx(0.0625 + 0.125)  # the Allreduce and Comm_rank left out
    assert point_to_point_time(v2) == v2.mpi_time_s  # nothing else was timed
