"""advise's choice of model run: a run whose launches were not read is never chosen unseen."""

from __future__ import annotations

from types import SimpleNamespace

from msgperf.analysis.advice.model_choice import Wanted, choose

WANTED = Wanted(mpi="MPICH 5.0.2", hosts=frozenset({"vm"}), nranks=2, placement="intra")


def _row(run_id: int) -> SimpleNamespace:
    return SimpleNamespace(id=run_id, source="msgperf", patterns=("pingpong",), mpi="MPICH 5.0.2", hosts=("vm",),
                           placement="intra-node", nranks=2)


def test_a_run_whose_conditions_were_not_read_is_set_aside_not_chosen():
    choice, skipped = choose([(_row(7), None)], WANTED)
    assert choice is None and skipped == [(7, "its launches not read")]


def test_the_first_run_whose_conditions_were_read_is_chosen_after_an_unread_one():
    choice, skipped = choose([(_row(9), None), (_row(8), ())], WANTED)
    assert choice is not None and choice.run_id == 8 and skipped == [(9, "its launches not read")]
    assert "set aside: run 9 (its launches not read)" in choice.why
