"""The cost formulas, step by step, against their closed forms (Thakur, Rabenseifner and Gropp
2005) on a one-segment model: α and β counts per algorithm, log P against P."""

from __future__ import annotations

import math

import numpy as np
import pytest

from msgperf.analysis.collectives import PointToPoint, algorithms_of, predict
from msgperf.analysis.collectives.algorithms import find, lg
from msgperf.analysis.model import analyze_pairs

ALPHA, BETA = 2e-6, 1e-9  # 2 µs, 1 GB/s
SIZES = [1 << i for i in range(0, 23, 2)]


def model(alpha: float = ALPHA, beta: float = BETA, sizes=SIZES):
    rng = np.random.default_rng(1)
    b = np.repeat(sizes, 50)
    t = (alpha + beta * b) * np.exp(0.002 * rng.standard_normal(b.size))
    return analyze_pairs(b, t).sweep.piecewise


@pytest.fixture(scope="module")
def p2p() -> PointToPoint:
    return PointToPoint("pingpong", model(), None)


def t(n: float) -> float:
    return ALPHA + BETA * n


def close(a: float, b: float, rel: float = 0.01) -> bool:
    return math.isclose(a, b, rel_tol=rel)


def test_allreduce_at_two_ranks_counts_alphas_and_betas(p2p):
    n = 1 << 20
    rd = predict(p2p, find("allreduce", "recursive_doubling"), 2, n)
    rsag = predict(p2p, find("allreduce", "reduce_scatter_allgather"), 2, n)
    ring = predict(p2p, find("allreduce", "ring"), 2, n)
    rb = predict(p2p, find("allreduce", "reduce_bcast"), 2, n)
    assert close(rd, t(n))  # one exchange of the whole vector
    assert close(rsag, 2 * t(n / 2))  # two steps of halves
    assert close(ring, rsag)  # the ring of two ranks is Rabenseifner's two steps
    assert close(rb, 2 * t(n))  # a reduce then a bcast


def test_rank_count_dependence_log_p_against_p(p2p):
    n = 64
    for p in (2, 4, 8, 16):
        assert close(predict(p2p, find("allreduce", "recursive_doubling"), p, n), lg(p) * t(n))
        assert close(predict(p2p, find("allreduce", "ring"), p, n), 2 * (p - 1) * t(n / p))
        assert close(predict(p2p, find("bcast", "binomial"), p, n), lg(p) * t(n))
        assert close(predict(p2p, find("alltoall", "pairwise"), p, n), (p - 1) * t(n))
        assert close(predict(p2p, find("barrier", "dissemination"), p, 0), lg(p) * t(1), rel=0.02)
    # Rabenseifner at a power of two: 2 lg P α + 2 (P-1)/P n β
    n = 1 << 22
    assert close(predict(p2p, find("allreduce", "reduce_scatter_allgather"), 8, n),
                 2 * 3 * ALPHA + 2 * 7 / 8 * n * BETA)


def test_non_power_of_two_adds_the_fold_steps(p2p):
    n = 1024
    assert close(predict(p2p, find("allreduce", "recursive_doubling"), 6, n), (2 + 2) * t(n))


def test_reduction_compute_from_reduce_local_and_copies_from_memcpy():
    copy = model(alpha=1e-8, beta=0.02e-9)
    reduce_local = model(alpha=1e-8, beta=1e-9)
    full = PointToPoint("pingpong", model(), copy, reduce_local)
    n = 1 << 20
    rd = predict(full, find("allreduce", "recursive_doubling"), 2, n)
    # the copy of the send buffer into the result, one exchange, one combine of n bytes
    assert close(rd, (1e-8 + 0.02e-9 * n) + t(n) + (1e-8 + 1e-9 * n), rel=0.02)
    rsag = predict(full, find("allreduce", "reduce_scatter_allgather"), 2, n)
    assert close(rsag, (1e-8 + 0.02e-9 * n) + 2 * t(n / 2) + (1e-8 + 1e-9 * n / 2), rel=0.02)
    # bcast has no reduction and no copy: neither model changes it
    assert close(predict(full, find("bcast", "binomial"), 2, n), t(n))
    assert "from reduce-local" in full.gamma_words and "from memcpy" in full.gamma_words
    bare = PointToPoint("pingpong", model(), None)
    assert "left out" in bare.gamma_words and "add --pattern reduce-local" in bare.gamma_words
    assert close(predict(bare, find("allreduce", "recursive_doubling"), 2, n), t(n))


def test_every_algorithm_is_positive_and_grows_with_size(p2p):
    for collective in ("allreduce", "bcast", "alltoall", "reduce", "allgather", "reduce_scatter_block"):
        for a in algorithms_of(collective):
            for p in (2, 3, 4, 7, 8):
                small, large = predict(p2p, a, p, 8), predict(p2p, a, p, 1 << 20)
                assert 0 < small < large, (collective, a.key, p)
                assert a.source.startswith(("Thakur", "Chan"))


def test_exchange_steps_cost_the_measured_sendrecv_one_way_steps_the_ping_pong():
    slow_both_ways = model(alpha=3e-6, beta=4e-9)  # a sendrecv slower than the one-way time
    p2p = PointToPoint("pingpong", model(), None, None, slow_both_ways)
    n = 1 << 16
    both = 3e-6 + 4e-9 * n
    assert close(predict(p2p, find("allreduce", "recursive_doubling"), 2, n), both, rel=0.02)
    assert close(predict(p2p, find("alltoall", "pairwise"), 4, n), 3 * both, rel=0.02)
    assert close(predict(p2p, find("bcast", "binomial"), 4, n), 2 * t(n))  # a tree sends one way
    # the reduce-then-bcast allreduce is one-way steps only
    assert close(predict(p2p, find("allreduce", "reduce_bcast"), 2, n), 2 * t(n))
    assert "from sendrecv" in p2p.gamma_words
    assert "add --pattern sendrecv" in PointToPoint("pingpong", model(), None).gamma_words


def test_brucks_alltoall_is_charged_the_copies_each_mpi_makes():
    """Both implementations rotate n·P bytes twice and copy each step's blocks once (MPICH packs them
    before sending, Open MPI copies them back after receiving); MPICH's final rotation goes through its
    temporary buffer, one copy of n·P more (MPIR_Alltoall_intra_brucks, ompi_coll_base_alltoall_intra_bruck)."""
    copy = model(alpha=1e-8, beta=0.05e-9)
    n = 1 << 16

    def c(m: float) -> float:
        return 1e-8 + 0.05e-9 * m

    bruck = find("alltoall", "bruck")
    for p, step_bytes in ((2, [n]), (4, [2 * n, 2 * n])):
        sent = sum(t(m) for m in step_bytes)
        common = 2 * c(n * p) + sent + sum(c(m) for m in step_bytes)
        assert close(predict(PointToPoint("pingpong", model(), copy, family="openmpi"), bruck, p, n), common, rel=0.02)
        assert close(predict(PointToPoint("pingpong", model(), copy), bruck, p, n), common, rel=0.02)
        assert close(predict(PointToPoint("pingpong", model(), copy, family="mpich"), bruck, p, n),
                     common + c(n * p), rel=0.02)
    # pairwise exchange is the same in both: the own block copied, P - 1 exchanges
    pairwise = find("alltoall", "pairwise")
    assert predict(PointToPoint("pingpong", model(), copy, family="mpich"), pairwise, 4, n) == \
        predict(PointToPoint("pingpong", model(), copy, family="openmpi"), pairwise, 4, n)


def test_mpichs_scattered_alltoall_sends_the_own_block_to_itself_open_mpi_copies_it():
    """MPICH posts the rank's own block as a message through its transport (bench/self_message.c: 0.9 µs at
    8 B and 160 µs at 1 MiB where memcpy took 0.00 and 28 µs); Open MPI's linear alltoall copies it."""
    copy = model(alpha=1e-8, beta=0.05e-9)
    n, p = 1 << 16, 4
    scattered = find("alltoall", "scattered")
    exchange = t(n * (p - 1))
    assert close(predict(PointToPoint("pingpong", model(), copy, family="openmpi"), scattered, p, n),
                 1e-8 + 0.05e-9 * n + exchange, rel=0.02)
    assert close(predict(PointToPoint("pingpong", model(), copy, family="mpich"), scattered, p, n),
                 t(n) + exchange, rel=0.02)
    # with self-message in the run (1.5x the one-way time at 1 MiB on MPICH) the own block costs what it measured
    itself = model(alpha=3e-6, beta=1.5e-9)
    assert close(predict(PointToPoint("pingpong", model(), copy, family="mpich", to_self=itself), scattered, p, n),
                 3e-6 + 1.5e-9 * n + exchange, rel=0.02)
    assert predict(PointToPoint("pingpong", model(), copy, family="openmpi", to_self=itself), scattered, p, n) == \
        predict(PointToPoint("pingpong", model(), copy, family="openmpi"), scattered, p, n)  # a copy there
    assert "self-message" in PointToPoint("pingpong", model(), copy, to_self=itself).gamma_words


def test_open_mpis_linear_alltoall_is_charged_its_requests_made_every_call():
    """ompi_coll_base_alltoall_intra_basic_linear makes persistent requests, starts and frees them every call
    (exchange-init: 0.43-0.52 µs at 8 B where MPI_Irecv/MPI_Isend/MPI_Waitall took 0.27-0.30 µs); MPICH's
    scattered alltoall and every other exchange keep sendrecv's time."""
    copy, exchange, inits = model(alpha=1e-8, beta=0.05e-9), model(alpha=3e-6), model(alpha=5e-6)
    n, p = 4096.0, 4
    ompi = PointToPoint("pingpong", model(), copy, None, exchange, family="openmpi", exchange_init=inits)
    mpich = PointToPoint("pingpong", model(), copy, None, exchange, family="mpich", exchange_init=inits)
    scattered = find("alltoall", "scattered")
    assert close(predict(ompi, scattered, p, n), ompi.copy(n) + 5e-6 + BETA * n * (p - 1), rel=0.02)
    without = PointToPoint("pingpong", model(), copy, None, exchange, family="openmpi")
    assert close(predict(without, scattered, p, n), without.copy(n) + 3e-6 + BETA * n * (p - 1), rel=0.02)
    assert predict(mpich, scattered, p, n) == predict(PointToPoint("pingpong", model(), copy, None, exchange,
                                                                   family="mpich"), scattered, p, n)
    assert predict(ompi, find("alltoall", "pairwise"), p, n) == predict(without, find("alltoall", "pairwise"), p, n)
    assert "exchange-init" in ompi.gamma_words


def test_the_patterns_a_prediction_is_made_from_follow_the_algorithms_steps():
    """What `msgperf run --pattern C` adds: read off the steps, so a copy or a reduction added to an
    algorithm brings memcpy or reduce-local with it."""
    from msgperf.analysis.collectives import model_patterns
    assert model_patterns(("allreduce",), 2) == ("pingpong", "sendrecv", "memcpy", "reduce-local", "sendrecv-reduce")
    assert model_patterns(("reduce-scatter-block",), 4) == ("pingpong", "sendrecv", "reduce-local", "sendrecv-reduce")
    assert model_patterns(("reduce",), 2) == ("pingpong", "sendrecv", "reduce-local", "sendrecv-reduce")
    assert model_patterns(("alltoall", "barrier"), 8) == ("pingpong", "sendrecv", "memcpy", "sendrecv-indexed",
                                                          "self-message", "exchange-init")
    assert model_patterns(("barrier",), 8) == ("pingpong", "sendrecv")
    # the MPI that will run them known: only its algorithms' steps (msgperf run reads it off the kernels)
    assert model_patterns(("alltoall",), 2, "mpich") == ("pingpong", "sendrecv", "memcpy", "sendrecv-indexed",
                                                         "self-message")
    assert model_patterns(("alltoall",), 2, "openmpi") == ("pingpong", "sendrecv", "memcpy", "sendrecv-indexed",
                                                           "exchange-init")
    assert model_patterns(("alltoall",), 2, "") == ("pingpong", "sendrecv", "memcpy", "sendrecv-indexed")
    assert model_patterns(("bcast",), 2) == ("pingpong", "sendrecv", "send-stream")
    # a barrier before each call, or a rotating root: the binomial's sends wait for the last call's
    assert model_patterns(("bcast",), 2, back_to_back=False) == ("pingpong", "sendrecv")
    assert model_patterns(("pingpong", "osu-allreduce", "memcpy"), 2) == ()  # no collective the model predicts
    # at 2 ranks a reduce_scatter_block's one step combines into the result, never sent again
    assert model_patterns(("reduce-scatter-block",), 2) == ("pingpong", "sendrecv", "reduce-local")


def test_a_binomial_bcast_run_back_to_back_is_charged_the_send_stream():
    """At 2 ranks a binomial bcast's calls back to back from one root send as a stream: each message
    leaves when the last one's send returned (bench/bcast_stream.c: MPICH 1.00-1.12x the stream, where
    the one-way time gave 0.76-1.0x). With send-stream in the run and the calls back to back, the step
    costs the stream; one call at a time (a barrier before each, a rotating root), the one-way time;
    without send-stream, the one-way time either way. The other bcasts are unchanged."""
    from tests.factories import replace

    ping, exchange, stream = model(alpha=1.5e-6), model(alpha=1.6e-6), model(alpha=1.2e-6, beta=1e-10)
    without = PointToPoint("pingpong", ping, None, exchange=exchange)
    with_it = replace(without, stream=stream)
    binomial, scatter = find("bcast", "binomial"), find("bcast", "scatter_ring_allgather")
    for n in (8.0, 65536.0):
        assert predict(with_it, binomial, 2, n, back_to_back=True) == pytest.approx(float(stream.predict(n)))
        assert predict(with_it, binomial, 2, n) == pytest.approx(with_it.one_way(n))
        assert predict(without, binomial, 2, n, back_to_back=True) == pytest.approx(without.one_way(n))
        # at 8 ranks the root sends three times a call
        assert predict(with_it, binomial, 8, n, back_to_back=True) == pytest.approx(3 * float(stream.predict(n)))
        assert predict(with_it, scatter, 4, n, back_to_back=True) == predict(without, scatter, 4, n, back_to_back=True)
    assert "send-stream" in with_it.gamma_words and "send-stream" not in without.gamma_words
    assert "send-stream" in with_it.patterns and "send-stream" not in without.patterns


def test_an_exchange_that_combines_is_charged_as_sendrecv_reduce_measured_it():
    """Recursive doubling at 2 ranks: one exchange of n whose received bytes are summed into what is
    sent next. Apart, a sendrecv and a reduce-local add up to less than that step (RESULTS §19), so
    with sendrecv-reduce in the run the step costs what it measured, whole; without it, the parts.
    A step of doubles keeps the parts (sendrecv-reduce sums bytes)."""
    from tests.factories import replace

    ping, exchange, gamma = model(), model(alpha=3e-6), model(alpha=1e-7, beta=2e-9)
    whole = model(alpha=4e-6, beta=5e-9)
    parts = PointToPoint("pingpong", ping, None, gamma, exchange, reduce_local_double=gamma)
    both = replace(parts, exchange_combine=whole)
    rd, ring, bruck = find("allreduce", "recursive_doubling"), find("allreduce", "ring"), find("alltoall", "bruck")
    n = 65536.0
    assert predict(parts, rd, 2, n) == pytest.approx(parts.both_ways(n) + parts.combine(n))
    assert predict(both, rd, 2, n) == pytest.approx(float(whole.predict(n)))
    # the ring's reduce-scatter step is such a step, its allgather step a plain exchange
    assert predict(both, ring, 2, n) == pytest.approx(float(whole.predict(n / 2)) + both.both_ways(n / 2))
    assert predict(both, bruck, 4, n) == predict(parts, bruck, 4, n)  # no combining: unchanged
    assert predict(both, rd, 2, n) == predict(replace(both, exchange_indexed=model(alpha=9e-6)), rd, 2, n)
    # a pairwise reduce_scatter_block combines into its own block, which it never sends: its parts
    pairwise = find("reduce_scatter_block", "pairwise")
    assert predict(both, pairwise, 4, n) == pytest.approx(3 * (both.both_ways(n) + both.combine(n)))
    halving = find("reduce_scatter_block", "recursive_halving")  # the last halving is the result's
    assert predict(both, halving, 2, n) == predict(parts, halving, 2, n)
    assert predict(both, halving, 4, n) != predict(parts, halving, 4, n)
    assert both.for_datatype("MPI_DOUBLE").exchange_combine is None
    assert "sendrecv-reduce" in both.gamma_words and "sendrecv-reduce" not in parts.gamma_words


def test_brucks_step_through_its_own_datatype_is_charged_as_sendrecv_indexed_measured_it():
    """Each Bruck step builds, commits and frees a datatype for its blocks and packs them; apart, a
    sendrecv and a memcpy of the block add up to less (bench/alltoall_bruck_parts.c: 1.3 µs + 0.0 µs
    against 1.85 µs at 8 B on MPICH), so with sendrecv-indexed in the run the step costs what it
    measured, whole; without it, the sendrecv and the copy. The rotations stay memcpy's."""
    from tests.factories import replace

    copy, exchange, indexed = model(alpha=1e-8, beta=0.05e-9), model(alpha=3e-6), model(alpha=5e-6, beta=2e-9)
    parts = PointToPoint("pingpong", model(), copy, None, exchange, family="mpich")
    whole = replace(parts, exchange_indexed=indexed)
    bruck = find("alltoall", "bruck")
    n = 4096.0
    rotations = 3 * parts.copy(2 * n)  # MPICH: two rotations and the final one through its buffer
    assert predict(parts, bruck, 2, n) == pytest.approx(rotations + parts.both_ways(n) + parts.copy(n))
    assert predict(whole, bruck, 2, n) == pytest.approx(rotations + float(indexed.predict(n)))
    # at 4 ranks two steps, each of two blocks through one datatype
    assert predict(whole, bruck, 4, n) == pytest.approx(3 * parts.copy(4 * n) + 2 * float(indexed.predict(2 * n)))
    # the other alltoalls send contiguous blocks: unchanged
    for key in ("pairwise", "scattered"):
        assert predict(whole, find("alltoall", key), 4, n) == predict(parts, find("alltoall", key), 4, n)
    assert "sendrecv-indexed" in whole.gamma_words and "sendrecv-indexed" not in parts.gamma_words
