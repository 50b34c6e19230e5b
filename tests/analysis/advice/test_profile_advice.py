"""analysis/advice/profile_advice.py on synthetic profiles against a synthetic model whose segments,
covariances, eager limit, copy speed and gap are set by hand, so that every answer below is
computed by hand from them; then once against a model fitted by ``analyze`` to a synthetic run."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from msgperf.analysis.tables.combining import Gap
from msgperf.analysis.model.hockney import LineFit
from msgperf.analysis.samples.inputs import AnalysisError
from msgperf.analysis.model.piecewise import PiecewiseFit
from msgperf.analysis.advice.profile_advice import advise_profile, regime_of, segment_index
from msgperf.records.profile_format import (CallTime, PeerMessages, PeerSequences, Profile, ProfileInfo, RankProfile,
                                            SequenceShape, SizeCount)
from tests.factories import sample_profile
from tests.factories import replace

T95 = 1.96
SD_ALPHA = 1e-8


def seg(alpha: float, beta: float, lo: int, hi: int, sd_alpha: float = SD_ALPHA) -> LineFit:
    """A segment with Var(α) = sd_alpha², β known exactly, and a 95 % interval at t = 1.96."""
    half = T95 * sd_alpha
    return LineFit(alpha_s=alpha, beta_s_per_byte=beta, alpha_ci_s=(alpha - half, alpha + half),
                   beta_ci_s_per_byte=(beta, beta), bandwidth_bytes_per_s=1 / beta,
                   bandwidth_ci_bytes_per_s=(1 / beta, 1 / beta), n_half_bytes=alpha / beta,
                   n_half_ci_bytes=(alpha / beta, alpha / beta),
                   covariance=((sd_alpha ** 2, 0.0), (0.0, 0.0)), dof=10, confidence=0.95,
                   from_bytes=lo, to_bytes=hi, n_points=12)


def piecewise(*segments: LineFit) -> PiecewiseFit:
    return PiecewiseFit(segments=segments, breakpoints=(), criterion=(), phi=1.0, tolerance=0.05)


EAGER_SEG = seg(1e-6, 1e-10, 0, 8192)  # T(s) = 1 µs + 0.1 ns/B up to the eager limit
RNDV_SEG = seg(5e-6, 5e-11, 9000, 1 << 20)  # 5 µs + 0.05 ns/B from 9000 B
COPY = piecewise(seg(0.0, 1e-10, 0, 1 << 20, sd_alpha=1e-12))  # memcpy: 10 GB/s


def T(s: float) -> float:  # the model, by hand
    return (1e-6 + 1e-10 * s) if s < 9000 else (5e-6 + 5e-11 * s)


def series(pattern: str, model: PiecewiseFit, line: LineFit):
    sweep = SimpleNamespace(piecewise=model, hockney=SimpleNamespace(line=line))
    return SimpleNamespace(key=SimpleNamespace(pattern=pattern, variant=""), name=pattern,
                           facts=SimpleNamespace(time_words="one-way time = half a round trip"),
                           model=SimpleNamespace(sweep=sweep), not_modelled="")


def model_result(eager: int | None = 8192, copy: bool = True, gap: Gap | None = None):
    """A stand-in for RunResult: the ping-pong's two segments, its single line α = 1 µs,
    β = 0.1 ns/B (n½ = 10000 B), the eager limit, memcpy's model and the LogGP gap."""
    ping = series("pingpong", piecewise(EAGER_SEG, RNDV_SEG), seg(1e-6, 1e-10, 0, 1 << 20))
    found = [ping] + ([series("memcpy", COPY, COPY.segments[0])] if copy else [])
    return SimpleNamespace(
        series=tuple(found), find=lambda: ping, gap=gap,
        eager=None if eager is None else SimpleNamespace(split_bytes=eager, agreed=True),
        source=SimpleNamespace(path="model.jsonl", label="vm · MPICH", mpi="MPICH 5.0.2", mpi_library="MPICH Version:      5.0.2", hosts=("vm",)))


def messages(peer, direction, kind, sizes: dict[int, int]) -> PeerMessages:
    pairs = tuple(SizeCount(b, n) for b, n in sizes.items())
    log2: dict[int, int] = {}
    for b, n in sizes.items():
        low = 0 if b == 0 else 1 << (b.bit_length() - 1)
        log2[low] = log2.get(low, 0) + n
    return PeerMessages(peer, direction, kind, sum(sizes.values()), sum(b * n for b, n in sizes.items()), pairs,
                        0, 0, tuple(SizeCount(b, n) for b, n in sorted(log2.items())))


def rank(r: int, msgs, sequences=(), mpi_time=0.0, wait=0.0) -> RankProfile:
    # as long outside MPI as the other ranks (wall - mpi 1 s): no waiting for a slower rank
    return RankProfile(rank=r, host="vm", pid=100 + r, ended_by="MPI_Finalize", wall_s=1.0 + mpi_time, mpi_time_s=mpi_time,
                       wait_time_s=wait, calls=(), messages=tuple(msgs), sequences=tuple(sequences), proc_null=0,
                       unknown_peer=0, untracked_requests=0)


def profile(ranks, complete=True) -> Profile:
    info = ProfileInfo(format_version=1, profiler_version="0.1.0", argv=("./app",), mpi_library="MPICH Version: 5.0.2",
                       mpi_version="5.0", nranks=2, hosts=("vm", "vm"), start_time="", end_time="",
                       thread_level="single", clock="", clock_read_s=2e-8, sequence_gap_s=1e-6, complete=complete)
    return Profile(info=info, ranks=tuple(ranks), path="app.jsonl")


SHAPE = SequenceShape(count=100, length=3, bytes=24, min_bytes=8, max_bytes=8, kinds=("isend",),
                      sizes=(SizeCount(8, 3),))


def app_profile() -> Profile:
    """Rank 0 → 1: 300 isends of 8 B in 100 back-to-back sequences of 3, 10 sends of 12000 B
    (just above the eager limit), 5 bsends of 100 B. Rank 1 → 0: 20 sends of 64 B."""
    r0 = rank(0, [messages(1, "send", "isend", {8: 300}), messages(1, "send", "send", {12000: 10}),
                  messages(1, "send", "bsend", {100: 5}), messages(1, "recv", "recv", {64: 20})],
              [PeerSequences(1, 100, 300, 2400, (SHAPE,), 0, 0, 0, 0)], mpi_time=5e-4, wait=3e-4)
    r1 = rank(1, [messages(0, "send", "send", {64: 20}), messages(0, "recv", "irecv", {8: 300}),
                  messages(0, "recv", "recv", {12000: 10, 100: 5})], mpi_time=4e-4, wait=1e-4)
    return profile([r0, r1])


SENT0 = 300 * T(8) + 10 * T(12000) + 5 * T(100)  # 361.29 µs
SENT1 = 20 * T(64)  # 20.128 µs


def test_the_communication_time_is_the_larger_side_of_the_slowest_rank():
    a = advise_profile(app_profile(), model_result())
    assert SENT0 == pytest.approx(361.29e-6) and SENT1 == pytest.approx(20.128e-6)
    r0, r1 = a.ranks
    assert (r0.sent_s, r0.received_s) == (pytest.approx(SENT0), pytest.approx(SENT1))
    assert (r1.sent_s, r1.received_s) == (pytest.approx(SENT1), pytest.approx(SENT0))
    assert a.predicted.value_s == pytest.approx(SENT0) and a.predicted_rank == 0
    assert (a.measured_s, a.measured_rank) == (5e-4, 0) and a.ratio == pytest.approx(5e-4 / SENT0)
    assert r1.ratio == pytest.approx(4e-4 / SENT0)
    # the interval: 300 + 5 messages on the eager segment, 10 on the rendezvous one (independent)
    half = T95 * SD_ALPHA * math.sqrt(305 ** 2 + 10 ** 2)
    assert (a.predicted.low_s, a.predicted.high_s) == (pytest.approx(SENT0 - half), pytest.approx(SENT0 + half))
    assert a.basis.run == "model.jsonl" and a.basis.series == "pingpong" and a.basis.eager_limit_bytes == 8192


def test_combining_saves_two_latencies_per_sequence_of_three():
    a = advise_profile(app_profile(), model_result())
    (c,) = a.combine
    assert (c.rank, c.peer, c.sequences, c.length, c.bytes, c.sizes) == (0, 1, 100, 3, 24, ((8, 3),))
    assert c.apart_s == pytest.approx(3 * T(8)) and c.combined_s == pytest.approx(T(24))
    # 3·(α + 8β) - (α + 24β) = 2α per sequence, 100 sequences
    assert c.saving.value_s == pytest.approx(200e-6)
    half = T95 * 200 * SD_ALPHA
    assert (c.saving.low_s, c.saving.high_s) == (pytest.approx(200e-6 - half), pytest.approx(200e-6 + half))
    assert c.copy_s == pytest.approx(2 * 100 * 24 * 1e-10)  # pack and unpack at 10 GB/s
    assert c.net_saving_s == pytest.approx(200e-6 - 4.8e-7)
    # both sides of the sequences gain: rank 0's sends and rank 1's receives
    assert a.predicted_combined_s == pytest.approx(SENT0 - 200e-6)
    assert a.predicted_speedup == pytest.approx(SENT0 / (SENT0 - 200e-6))


def test_sizes_just_above_the_eager_limit_and_what_sending_them_eagerly_saves():
    a = advise_profile(app_profile(), model_result())
    (e,) = a.eager
    assert (e.bytes, e.messages, e.ranks) == (12000, 10, (0,))
    assert e.time_s == pytest.approx(5.6e-6) and e.eager_time_s == pytest.approx(2.2e-6)
    assert e.saving.value_s == pytest.approx(34e-6)
    half = T95 * SD_ALPHA * math.sqrt(10 ** 2 + 10 ** 2)
    assert (e.saving.low_s, e.saving.high_s) == (pytest.approx(34e-6 - half), pytest.approx(34e-6 + half))
    # a limit above every size: nothing sits just above it
    assert advise_profile(app_profile(), model_result(eager=20000)).eager == ()


def test_buffering_costs_one_copy_per_message_and_the_buffered_sends_pay_it_now():
    a = advise_profile(app_profile(), model_result())
    rows = {b.bytes: b for b in a.buffering}
    assert set(rows) == {8, 12000, 100, 64}  # every size sent, all ranks
    assert rows[100].buffered_messages == 5 and rows[100].cost_now_s == pytest.approx(5 * 100 * 1e-10)
    assert rows[8].buffered_messages == 0 and rows[8].cost_if_all_s == pytest.approx(300 * 8 * 1e-10)
    assert rows[12000].slowdown == pytest.approx((5.6e-6 + 1.2e-6) / 5.6e-6)
    assert a.buffering[0].bytes == 100  # the buffered size first


def test_actions_come_in_order_of_payoff():
    a = advise_profile(app_profile(), model_result())
    assert [x.kind for x in a.actions] == ["combine", "eager", "buffering"]
    assert [x.saving_s for x in a.actions] == [pytest.approx(200e-6 - 4.8e-7), pytest.approx(34e-6),
                                               pytest.approx(5e-8)]


def test_latency_and_bandwidth_bound_time_and_the_histogram_of_regimes():
    a = advise_profile(app_profile(), model_result())
    bound = {b.regime: b for b in a.bound}
    latency = 300 * T(8) + 5 * T(100) + 20 * T(64)
    assert bound["latency-bound"].messages == 325 and bound["latency-bound"].time_s == pytest.approx(latency)
    assert bound["bandwidth-bound"].messages == 10 and bound["bandwidth-bound"].bytes == 120000
    assert bound["bandwidth-bound"].time_s == pytest.approx(10 * T(12000))
    assert bound["latency-bound"].share == pytest.approx(latency / (latency + 10 * T(12000)))
    assert [(h.low_bytes, h.messages, h.regime) for h in a.histogram] == [
        (8, 300, "eager"), (64, 25, "eager"), (8192, 10, "eager/rendezvous")]
    assert regime_of(16384, 32768, 8192, 10000.0) == "bandwidth-bound"
    assert regime_of(8193 * 2, 8193 * 4, 100000, None) == "eager"
    assert regime_of(9000, 9001, 8192, None) == "rendezvous"
    assert regime_of(8, 16, None, None) == "latency-bound"


def test_the_loggp_gap_pipelines_back_to_back_sends():
    gap = Gap(0.2e-6, 0.0)
    a = advise_profile(app_profile(), model_result(gap=gap))
    (c,) = a.combine
    # rank 0 sends 315 messages to rank 1 and receives 20 from it: 295/315 of its sends are one-way
    # and pipeline; the order is unknown: each of the 3 is first with chance 1/3, else costs the gap
    share = 1 - 20 / 315
    apart = share * (T(8) + 2 * 0.2e-6) + (1 - share) * 3 * T(8)
    assert c.apart_s == pytest.approx(apart)
    assert c.saving.value_s == pytest.approx(100 * (apart - T(24)))
    sent0 = 300 * T(8) - share * 200 * (T(8) - 0.2e-6) + 10 * T(12000) + 5 * T(100)
    assert a.ranks[0].sent_s == pytest.approx(sent0) and a.ranks[1].received_s == pytest.approx(sent0)
    assert a.predicted_combined_s == pytest.approx(sent0 - c.saving.value_s)


def halo_profile(mpi=(4e-3, 3e-3), wall=(10e-3, 10e-3)) -> Profile:
    """Two ranks exchanging every step, 100 steps: each sends the other 4 × 8 B back to back and
    receives 4 × 8 B, then one MPI_Waitall; times inside MPI and from MPI_Init to MPI_Finalize
    as given."""
    shape = SequenceShape(count=100, length=4, bytes=32, min_bytes=8, max_bytes=8, kinds=("isend",),
                          sizes=(SizeCount(8, 4),))
    ranks = []
    for r in (0, 1):
        ranks.append(replace(
            rank(r, [messages(1 - r, "send", "isend", {8: 400}), messages(1 - r, "recv", "irecv", {8: 400})],
                 [PeerSequences(1 - r, 100, 400, 3200, (shape,), 0, 0, 0, 0)], mpi_time=mpi[r], wait=mpi[r] / 2),
            wall_s=wall[r], calls=(CallTime("MPI_Isend", 400, 1e-4), CallTime("MPI_Irecv", 400, 1e-4),
                                   CallTime("MPI_Waitall", 100, mpi[r] - 2e-4))))
    return profile(ranks)


def test_an_exchange_pays_every_message_and_the_peers_last_one_in_flight_per_phase():
    """Ranks that receive as much from a peer as they send to it exchange: the gap does not
    pipeline their sends (the receives' overheads fall between them), and each MPI_Waitall finds
    the peer's last message on its way: half a one-way time at the mean size received."""
    a = advise_profile(halo_profile(), model_result(gap=Gap(0.2e-6, 0.0)))
    r0 = a.ranks[0]
    assert r0.sent_s == pytest.approx(400 * T(8)) and r0.received_s == pytest.approx(400 * T(8))
    assert r0.phases == 100 and r0.phase_s == pytest.approx(100 * 0.5 * T(8))
    assert r0.transfers.value_s == pytest.approx(400 * T(8) + 50 * T(8))
    (c, _) = a.combine
    assert c.apart_s == pytest.approx(4 * T(8))  # no gap: an exchange
    # all combined: 100 messages of 32 B each way, 100 phases at 32 B received
    assert a.predicted_combined_s == pytest.approx(100 * T(32) + 50 * T(32) + r0.waiting_s)


def test_a_rank_that_computes_less_waits_for_the_other_and_the_wait_is_measured():
    """Rank 1 spends 1 ms less outside MPI (wall 10 ms, 4 ms inside MPI against rank 0's 3 ms
    inside and 7 ms outside): in lockstep it waits 1 ms inside MPI, added to its transfers and
    unchanged by combining."""
    a = advise_profile(halo_profile(mpi=(3e-3, 4e-3)), model_result())
    r0, r1 = a.ranks
    assert r0.waiting_s == pytest.approx(0.0) and r1.waiting_s == pytest.approx(1e-3)
    assert r1.predicted.value_s == pytest.approx(r1.transfers.value_s + 1e-3)
    assert r1.predicted.low_s == pytest.approx(r1.transfers.low_s + 1e-3)
    assert a.predicted_rank == 1 and a.predicted.value_s == pytest.approx(r1.predicted.value_s)
    assert a.predicted_combined_s == pytest.approx(100 * T(32) + 50 * T(32) + 1e-3)
    # not in lockstep (one rank reached MPI_Finalize 20 % earlier): the waiting cannot be told, none is
    # added to the prediction, and that is said
    b = advise_profile(halo_profile(mpi=(3e-3, 4e-3), wall=(10e-3, 8e-3)), model_result())
    assert [r.waiting_s for r in b.ranks] == [None, None] and [r.waiting_added_s for r in b.ranks] == [0.0, 0.0]
    assert all(r.predicted.value_s == pytest.approx(r.transfers.value_s) for r in b.ranks)
    assert any("not in lockstep" in n for n in b.notes)
    # walls 4 % apart (still lockstep): the waiting never exceeds what the rank spent inside MPI
    c = advise_profile(halo_profile(mpi=(0.5e-3, 1e-3), wall=(100e-3, 96e-3)), model_result())
    assert c.ranks[1].waiting_s == pytest.approx(1e-3) and c.ranks[0].waiting_s == 0.0


def test_the_waiting_for_a_slower_rank_is_the_accountings_and_the_prediction_adds_what_its_calls_hold():
    """One rule (profile_accounting.lockstep_waiting) for the advice and the whole program's accounting.
    Rank 0 spends 5 ms in an MPI_Allreduce besides its 4 ms of point-to-point calls and waits (wall
    20 ms: 11 ms outside MPI); rank 1, 4 ms inside MPI, 16 ms outside. Rank 0 waits 5 ms inside MPI for
    rank 1: the accounting's figure, which the advice shows as it is; its prediction adds only the
    4 ms its point-to-point calls hold. A third rank that only calls collectives and computes longest
    (18.5 ms outside MPI) is waited for too: every rank inside MPI is taken, not only those that
    exchange messages."""
    halo = halo_profile(mpi=(4e-3, 4e-3), wall=(20e-3, 20e-3))
    r0, r1 = halo.ranks
    r0 = replace(r0, mpi_time_s=9e-3, calls=(*r0.calls, CallTime("MPI_Allreduce", 100, 5e-3, "collective")))
    a = advise_profile(replace(halo, ranks=(r0, r1)), model_result())
    split = {s.rank: s for s in a.accounting.ranks}
    assert a.ranks[0].waiting_s == pytest.approx(5e-3) == split[0].waiting_s and split[0].waits_for == 1
    assert a.ranks[0].waiting_added_s == pytest.approx(4e-3) and a.ranks[0].measured_s == pytest.approx(4e-3)
    assert a.ranks[0].predicted.value_s == pytest.approx(a.ranks[0].transfers.value_s + 4e-3)
    assert a.ranks[1].waiting_s == 0.0 == split[1].waiting_s
    # a third rank, collectives only, the longest outside MPI
    r2 = replace(rank(2, [], mpi_time=1.5e-3), wall_s=20e-3,
                             calls=(CallTime("MPI_Allreduce", 100, 1.5e-3, "collective"),))
    b = advise_profile(replace(halo, ranks=(r0, r1, r2)), model_result())
    split = {s.rank: s for s in b.accounting.ranks}
    assert [r.waiting_s for r in b.ranks] == [split[r.rank].waiting_s for r in b.ranks]
    assert b.ranks[1].waiting_s == pytest.approx(2.5e-3) and split[1].waits_for == 2
    assert b.ranks[0].waiting_s == pytest.approx(7.5e-3) and b.ranks[0].waiting_added_s == pytest.approx(4e-3)


def test_without_eager_probe_or_memcpy_the_advice_says_what_it_cannot_tell():
    a = advise_profile(app_profile(), model_result(eager=None, copy=False))
    assert a.eager == () and a.buffering == () and a.basis.copy_from == ""
    assert any("eager limit" in n for n in a.notes) and any("memcpy" in n for n in a.notes)
    assert a.combine[0].copy_s is None and a.combine[0].net_saving_s == pytest.approx(200e-6)
    assert [x.kind for x in a.actions] == ["combine"]


def test_sizes_not_counted_exactly_are_taken_at_their_bucket_middle():
    m = PeerMessages(1, "send", "send", 12, 8 * 10 + 2 * 3000, (SizeCount(8, 10),), 2, 6000,
                     (SizeCount(8, 10), SizeCount(2048, 2)))
    a = advise_profile(profile([rank(0, [m]), rank(1, [])]), model_result())
    assert a.ranks[0].sent_s == pytest.approx(10 * T(8) + 2 * T(3072))
    assert any("did not count exactly" in n for n in a.notes)


def test_a_profile_without_ranks_is_refused_in_one_line():
    with pytest.raises(AnalysisError, match="no rank left a record"):
        advise_profile(profile([]), model_result())


def test_a_profile_without_messages_says_there_is_nothing_to_advise_on():
    a = advise_profile(profile([rank(0, [], mpi_time=1e-6), rank(1, [])]), model_result())
    assert a.predicted.value_s == 0 and a.ratio is None and a.predicted_speedup is None
    assert (a.combine, a.eager, a.buffering, a.bound, a.histogram, a.actions) == ((), (), (), (), (), ())
    assert any("no point-to-point message" in n for n in a.notes)


def test_a_partial_profile_is_advised_on_and_said_so():
    p = app_profile()
    p = replace(p, info=replace(p.info, complete=False))
    a = advise_profile(p, model_result())
    assert not a.complete and any("partial" in n for n in a.notes)


def test_segment_index_agrees_with_the_model():
    model = piecewise(EAGER_SEG, RNDV_SEG)
    for s in (0, 8, 8192, 8999, 9000, 1 << 22):
        assert model.segments[segment_index(model, s)] is model.segment_for(s)


def test_against_a_model_fitted_by_analyze():
    """The whole chain on a synthetic run (ping-pong, memcpy, eager-probe): every predicted time is
    the fitted piecewise model's T(s), and combining the sample profile's sequences pays."""
    from msgperf.analysis.result import analyze
    from tests.factories import rich_run

    result = analyze(rich_run())
    model = result.main.model.sweep.piecewise
    p = sample_profile(0)  # 2 steps: per rank 3 × 8 B and 1 × 64 B per step, one sequence each
    a = advise_profile(p, result)
    expected = 2 * (3 * model.predict(8) + model.predict(64))
    phases = 0.5 * 2 * model.predict(22)  # two MPI_Waitall, 22 B received on average
    assert a.ranks[0].sent_s == pytest.approx(expected) and a.predicted.value_s == pytest.approx(expected + phases)
    (c0, c1) = sorted(a.combine, key=lambda c: c.rank)
    assert c0.combined_s == pytest.approx(model.predict(88))
    assert c0.saving.value_s == pytest.approx(2 * (3 * model.predict(8) + model.predict(64) - model.predict(88)))
    assert c0.saving.value_s > 0 and a.predicted_speedup > 1
    assert a.basis.eager_limit_bytes == 16384 and a.basis.copy_from


def test_the_whole_programs_speedup_scales_the_saving_by_measured_over_predicted_when_below_one():
    """The saving of combining every sequence, scaled by the program's own measured / predicted
    when the program spent less inside MPI than the model's transfers (its messages cost less
    than the model says), and left as predicted above 1; the whole program's speedup is its
    MPI_Init to MPI_Finalize over that time less the saving."""
    fast = advise_profile(halo_profile(mpi=(2e-5, 2e-5)), model_result())  # far below the model's transfers
    assert fast.ratio < 1 and fast.saving_scale == pytest.approx(fast.ratio)
    model_saving = fast.predicted.value_s - fast.predicted_combined_s
    assert model_saving > 0
    # less the slowest rank's packing (its 100 sequences of 32 B) and unpacking (its peer's): memcpy 0.1 ns/B
    copies = 2 * 100 * 32 * 1e-10
    assert fast.program_copies_s == pytest.approx(copies)
    assert fast.program_saving_s == pytest.approx(model_saving * fast.ratio - copies)
    assert fast.program_wall_s == pytest.approx(10e-3)
    assert fast.program_speedup == pytest.approx(10e-3 / (10e-3 - model_saving * fast.ratio + copies))
    assert fast.program_cannot_tell is None
    slow = advise_profile(halo_profile(mpi=(5.4e-4, 5.4e-4)), model_result())  # a little more than the model
    assert 1 < slow.ratio < 1.5 and slow.saving_scale == 1.0
    assert slow.program_saving_s == pytest.approx(slow.predicted.value_s - slow.predicted_combined_s - copies)
    assert slow.program_speedup > 1
    # a saving that reaches the whole time cannot be told
    tiny = advise_profile(halo_profile(mpi=(5.4e-4, 5.4e-4), wall=(1e-5, 1e-5)), model_result())
    assert tiny.program_speedup is None and "reaches the whole time" in tiny.program_cannot_tell
    # nothing to combine: no saving, no speedup
    alone = advise_profile(app_profile_without_sequences(), model_result())
    assert alone.program_speedup is None and alone.program_cannot_tell == "no back-to-back sends to combine"


def test_the_whole_programs_speedup_cannot_be_told_when_mpi_time_is_far_above_the_model():
    """Far more time inside MPI than the model's transfers (waiting for descheduled peers: LULESH
    on 8 ranks oversubscribing 2 cores spent 89× the prediction) is time that fewer messages can
    shorten too (there: 1.22× faster combined, against 1.002× from the model's saving): the whole
    program's speedup and saving are "cannot tell", with the ratio said, not the model's saving."""
    far = advise_profile(halo_profile(mpi=(4e-3, 4e-3)), model_result())
    assert far.ratio == pytest.approx(8.88, rel=0.01) and far.ratio_reading == "more"
    assert far.predicted.value_s - far.predicted_combined_s > 0  # the model still predicts a saving inside MPI
    assert far.program_speedup is None and far.program_saving_s is None
    assert far.program_cannot_tell.startswith("the time inside MPI is 8.88× the model's transfers")


def app_profile_without_sequences() -> Profile:
    p = halo_profile()
    return replace(p, ranks=tuple(replace(r, sequences=()) for r in p.ranks))
