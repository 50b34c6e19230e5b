"""The standard algorithms of each collective, as sequences of point-to-point steps.

Each algorithm's time is predicted from the run's own point-to-point model, step by step:
a step that sends an m-byte message costs T(m), the one-way time of the ping-pong's piecewise
model at m bytes (so a step uses the α and β of the segment m falls in, the eager limit
included); a step that combines m bytes of a reduction costs γ·m; a local copy of m bytes costs
what the run's memcpy measured at m bytes. With one segment, T(m) = α + β·m and the sums below
are the closed forms of

- R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of Collective Communication Operations
  in MPICH" (Int. J. High Performance Computing Applications 19(1), 2005), §3-4: binomial tree,
  recursive doubling and halving, ring, Rabenseifner's reduce-scatter + allgather, the
  scatter + allgather broadcast (van de Geijn's), Bruck's alltoall and allgather, pairwise
  exchange, dissemination barrier;
- E. Chan, M. Heimlich, A. Purkayastha and R. van de Geijn, "Collective communication: theory,
  practice, and experience" (Concurrency and Computation: Practice and Experience 19(13), 2007),
  §3: the lower bounds and the reduce-then-broadcast allreduce (short-vector algorithms
  composed: ⌈log2 P⌉ steps each).

P is the number of ranks, n the collective's size in bytes (what one rank contributes: the
vector of an allreduce, reduce or bcast, the block per destination of an alltoall, per rank of an
allgather, the block each rank receives of a reduce_scatter_block). The rank-count dependence
(⌈log2 P⌉ against P - 1 steps) is the formulas'; a P that is not a power of two adds the extra
steps of Thakur et al.'s recursive algorithms (the ranks beyond the largest power of two fold
their data into a partner first and get the result last).

What is modelled and what not:
- a step in which each rank sends and receives at once (recursive doubling and halving, a ring,
  Bruck, pairwise exchange: MPI_Sendrecv) costs what the run's ``sendrecv`` pattern measured at that
  size, when the run has it; else one one-way time of the ping-pong (the papers' full-duplex
  assumption, which a shared-memory MPI need not meet). A one-way step (a tree's send, a fold)
  costs the ping-pong's one-way time;
- the time is the critical path of one call from a common start: calls run back to back may
  overlap (a root's next bcast leaves before the leaves have the last), which makes a measured
  one-way collective faster than its latency; a barrier before each call (--iteration-barrier)
  adds the ranks' skew leaving it;
- segmentation and pipelining (MPICH's pipelined tree, Open MPI's segmented and chain variants)
  are not modelled: without segmentation they are the unsegmented tree at the sizes of a sweep;
- the shared-memory variants (MPICH ch4's release_gather for bcast, reduce, allreduce and
  barrier; Open MPI's coll/sm) are not modelled: they move data through a shared buffer and
  flags, not messages, so the point-to-point model does not describe them;
- an allreduce is charged the copy of its send buffer into the result; Bruck's alltoall the local
  copies its implementations make, as memcpy: two rotations of n·P bytes and, in each step, a copy
  of the blocks it exchanges (MPICH packs them into a temporary buffer before sending, Open MPI
  copies them back after receiving: ``ompi_coll_base_alltoall_intra_bruck``); MPICH's final
  rotation goes through its temporary buffer, a third copy of n·P (``MPIR_Alltoall_intra_brucks``),
  charged where the run's MPI is MPICH (``Algorithm.steps_of``). Both build a derived datatype for
  each step's blocks, commit it, exchange through it and free it: a step is charged what the run's
  ``sendrecv-indexed`` pattern measured of that whole, its packing included, when the run has it
  (measured for one block: at more than 2 ranks a step's type has several, priced as one of their
  bytes). An alltoall's own block is a
  local copy, except in MPICH's scattered algorithm, which posts it as a message to the rank itself
  (through ch4's transport, whose self path serves only a communicator of one rank): what the
  run's ``self-message`` pattern measured, or without it a one-way time (at 1 MiB the message to
  itself took 1.5x the ping-pong's one-way time: bench/self_message.c). Open MPI's linear alltoall
  makes its requests persistent, started and freed every call: its exchange is charged what the
  run's ``exchange-init`` measured (0.52 µs at 8 B where a sendrecv took 0.27 µs);
- a binomial bcast whose calls run back to back from one root (the kernels' default) sends each
  call's messages as soon as the last call's sends returned, without waiting for them to arrive:
  its ⌈lg P⌉ sends per call are charged what the run's ``send-stream`` measured per message, not
  the one-way time (MPICH's took 1.00-1.12x the stream at 2 ranks where the one-way time gave
  0.76-1.0x: bench/bcast_stream.c); under --iteration-barrier or --root rotate each call waits for
  the last, and the one-way time is charged. Other rooted algorithms and back-to-back calls of the
  symmetric collectives (whose exchanges wait for the partner every step) keep their latencies;
- MPICH falls back from Rabenseifner to recursive doubling when the vector has fewer elements
  than ranks; sizes that small are predicted as the formula says.
"""

from __future__ import annotations

import math
from typing import Callable

import msgspec

from msgperf.values import Value

# The collectives this module models, and what their size means
COLLECTIVES = ("allreduce", "bcast", "alltoall", "reduce", "allgather", "reduce_scatter_block", "barrier")
REDUCTIONS = frozenset({"allreduce", "reduce", "reduce_scatter_block"})


class Step(Value):
    """``count`` rounds, each sending one message of ``message_bytes`` (per rank on the critical
    path; None: no message), combining ``reduce_bytes`` and copying ``copy_bytes`` locally."""

    count: int
    message_bytes: float | None
    reduce_bytes: float = 0.0
    copy_bytes: float = 0.0
    exchange: bool = False  # each rank sends and receives at once (MPI_Sendrecv), not one way
    # the bytes combined are what the next exchange sends (recursive doubling and halving, a ring's
    # reduce-scatter); not a pairwise reduce-scatter, which combines into a block it never sends
    into_sent: bool = False
    # the exchanged blocks go through a derived datatype built, committed and freed for the step, and
    # are copied once more, packed or copied back (Bruck's alltoall, MPICH's and Open MPI's)
    indexed: bool = False
    # the message goes from a rank to itself (MPICH's scattered alltoall's own block), not to a partner
    to_self: bool = False
    # the exchange's requests are persistent ones made, started and freed every call (Open MPI's linear
    # alltoall), not MPI_Sendrecv's
    inits: bool = False
    # one-way sends from one root that, when the calls run back to back from the same root, follow the
    # last call's without waiting for it to arrive (a binomial bcast): then they cost what the
    # send-stream pattern measured per message, not the one-way time
    streamed: bool = False

    @property
    def exchange_indexed(self) -> bool:
        """An exchange through a datatype of the step's own, which sendrecv-indexed measures whole
        with its packing (the parts apart add up to less, bench/alltoall_bruck_parts.c)."""
        return self.exchange and self.indexed and self.message_bytes is not None

    @property
    def exchange_combined(self) -> bool:
        """An exchange whose received bytes are combined into what the next exchange sends, which
        sendrecv-reduce measures whole (the parts apart add up to less, bench/allreduce_parts.c)."""
        return self.exchange and self.into_sent and bool(self.message_bytes) and bool(self.reduce_bytes)


class Algorithm(Value):
    collective: str
    key: str  # "recursive_doubling"
    words: str  # "recursive doubling"
    formula: str  # the one-segment closed form, in α, β, γ
    source: str  # the cost formula's source, by title
    steps: Callable[[int, float], tuple[Step, ...]]
    short: str = ""  # a table column's name ("rec. doubling")
    # an MPI family's own steps where its implementation differs ("mpich" -> steps)
    family_steps: tuple[tuple[str, Callable[[int, float], tuple[Step, ...]]], ...] = ()

    def steps_of(self, family: str) -> Callable[[int, float], tuple[Step, ...]]:
        """The steps as ``family``'s implementation takes them ("" or another MPI: ``steps``)."""
        return next((steps for name, steps in self.family_steps if name == family), self.steps)


THAKUR = "Thakur, Rabenseifner and Gropp 2005, \"Optimization of Collective Communication Operations in MPICH\""
CHAN = "Chan, Heimlich, Purkayastha and van de Geijn 2007, \"Collective communication: theory, practice, and experience\""


def lg(p: int) -> int:
    """⌈log2 P⌉: the rounds of a binomial tree or of recursive doubling over P ranks."""
    return max(0, math.ceil(math.log2(p))) if p > 1 else 0


def _pof2(p: int) -> int:
    return 1 << (p.bit_length() - 1)


def _fold(p: int, n: float, reduce: bool) -> tuple[Step, ...]:
    """The extra steps of a recursive algorithm when P is not a power of two: the ranks beyond
    the largest power of two send their data to a partner first (which combines it) and receive
    the result last (Thakur et al. 2005, §4.4)."""
    if p == _pof2(p):
        return ()
    return (Step(1, n, n if reduce else 0.0), Step(1, n))


def _halves(p: int, n: float, reduce: bool) -> tuple[Step, ...]:
    """Recursive halving over the largest power of two: step k sends and combines n / 2^k."""
    return tuple(Step(1, n / 2 ** k, n / 2 ** k if reduce else 0.0, exchange=True, into_sent=reduce)
                 for k in range(1, lg(_pof2(p)) + 1))


def _doublings(p: int, block: float) -> tuple[Step, ...]:
    """Recursive doubling of blocks (an allgather): step k sends 2^(k-1) blocks."""
    return tuple(Step(1, block * 2 ** (k - 1), exchange=True) for k in range(1, lg(_pof2(p)) + 1))


# ---- allreduce ------------------------------------------------------------------------------

def _into_result(n):
    """An allreduce that is not in place first copies its send buffer into the result (MPICH's
    and Open MPI's algorithms alike), then combines into it."""
    return (Step(1, None, copy_bytes=n),)


def _allreduce_rd(p, n):
    return _into_result(n) + _fold(p, n, True) + (Step(lg(_pof2(p)), n, n, exchange=True, into_sent=True),)


def _allreduce_rsag(p, n):
    return _into_result(n) + _fold(p, n, True) + _halves(p, n, True) + tuple(reversed(_halves(p, n, False)))


def _allreduce_ring(p, n):
    return _into_result(n) + (Step(p - 1, n / p, n / p, exchange=True, into_sent=True),
                              Step(p - 1, n / p, exchange=True))


def _allreduce_reduce_bcast(p, n):
    return _into_result(n) + (Step(lg(p), n, n), Step(lg(p), n))


# ---- bcast ----------------------------------------------------------------------------------

def _bcast_binomial(p, n):
    return (Step(lg(p), n, streamed=True),)


def _scatter(p, n):
    """Binomial scatter from the root: step k hands on n / 2^k."""
    return tuple(Step(1, n / 2 ** k) for k in range(1, lg(p) + 1))


def _bcast_scatter_rd(p, n):
    return _scatter(p, n) + _fold(p, n / p, False)[:1] + _doublings(p, n / p)


def _bcast_scatter_ring(p, n):
    return _scatter(p, n) + (Step(p - 1, n / p, exchange=True),)


# ---- alltoall -------------------------------------------------------------------------------

def _alltoall_bruck(p, n):
    # step k exchanges the blocks whose index has bit k set through a datatype of its own, and copies
    # them once (packed or copied back: ``indexed``)
    rounds = tuple(Step(1, blocks, exchange=True, indexed=True)
                   for blocks in (n * sum(1 for i in range(p) if i >> k & 1) for k in range(lg(p))))
    return (Step(2, None, copy_bytes=n * p),) + rounds


def _alltoall_bruck_mpich(p, n):
    return (Step(1, None, copy_bytes=n * p),) + _alltoall_bruck(p, n)


def _alltoall_pairwise(p, n):
    return (Step(1, None, copy_bytes=n), Step(p - 1, n, exchange=True))


def _alltoall_scattered(p, n):
    # every message posted at once: the latency once, the bytes of all P - 1 one after the other
    return (Step(1, None, copy_bytes=n), Step(1, n * (p - 1), exchange=True))


def _alltoall_scattered_openmpi(p, n):
    # ompi_coll_base_alltoall_intra_basic_linear copies the own block, then makes 2(P - 1) persistent
    # requests, starts, waits for and frees them, every call
    return (Step(1, None, copy_bytes=n), Step(1, n * (p - 1), exchange=True, inits=True))


def _alltoall_scattered_mpich(p, n):
    # MPIR_Alltoall_intra_scattered posts the rank's own block as a message to itself too, which
    # ch4 sends through its transport like any other (its self path is for a communicator of one
    # rank): the same rank sends and receives it, one one-way time, beside the exchange
    return (Step(1, n, to_self=True), Step(1, n * (p - 1), exchange=True))


# ---- reduce ---------------------------------------------------------------------------------

def _reduce_binomial(p, n):
    return (Step(lg(p), n, n),)


def _reduce_scatter_gather(p, n):
    return _fold(p, n, True)[:1] + _halves(p, n, True) + tuple(reversed(_halves(p, n, False)))


# ---- allgather ------------------------------------------------------------------------------

def _allgather_rd(p, n):
    # step k exchanges what a rank holds so far: 2^(k-1) blocks, the last step what is left
    return tuple(Step(1, n * min(2 ** k, p - 2 ** k), exchange=True) for k in range(lg(p)))


def _allgather_bruck(p, n):
    rounds = tuple(Step(1, n * min(2 ** k, p - 2 ** k), exchange=True) for k in range(lg(p)))
    return rounds + (Step(1, None, copy_bytes=n * p),)


def _allgather_ring(p, n):
    return (Step(p - 1, n, exchange=True),)


# ---- reduce_scatter_block -------------------------------------------------------------------

def _rsb_halving(p, n):
    # the last halving combines into the rank's own block, the result, which is never sent
    halves = _halves(p, n * p, True)
    return (_fold(p, n * p, True)[:1] + halves[:-1]
            + tuple(msgspec.structs.replace(s, into_sent=False) for s in halves[-1:]))


def _rsb_pairwise(p, n):
    # each step sends a block of the untouched input and combines into the rank's own block
    return (Step(p - 1, n, n, exchange=True),)


# ---- barrier --------------------------------------------------------------------------------

def _barrier_dissemination(p, n):
    return (Step(lg(p), 0.0, exchange=True),)


def _barrier_linear(p, n):
    return (Step(2 * (p - 1), 0.0),)


ALGORITHMS: tuple[Algorithm, ...] = (
    Algorithm("allreduce", "recursive_doubling", "recursive doubling",
              "⌈lg P⌉(α + nβ + nγ)", THAKUR, _allreduce_rd, "rec. doubling"),
    Algorithm("allreduce", "reduce_scatter_allgather", "Rabenseifner (reduce-scatter + allgather)",
              "2⌈lg P⌉α + 2(P-1)/P·nβ + (P-1)/P·nγ", THAKUR, _allreduce_rsag, "Rabenseifner"),
    Algorithm("allreduce", "ring", "ring", "2(P-1)α + 2(P-1)/P·nβ + (P-1)/P·nγ", THAKUR, _allreduce_ring, "ring"),
    Algorithm("allreduce", "reduce_bcast", "binomial reduce then binomial bcast",
              "2⌈lg P⌉(α + nβ) + ⌈lg P⌉nγ", CHAN, _allreduce_reduce_bcast, "reduce+bcast"),
    Algorithm("bcast", "binomial", "binomial tree", "⌈lg P⌉(α + nβ)", THAKUR, _bcast_binomial, "binomial"),
    Algorithm("bcast", "scatter_recursive_doubling_allgather", "scatter + recursive-doubling allgather",
              "2⌈lg P⌉α + 2(P-1)/P·nβ", THAKUR, _bcast_scatter_rd, "scatter+rec.dbl"),
    Algorithm("bcast", "scatter_ring_allgather", "scatter + ring allgather",
              "(⌈lg P⌉ + P - 1)α + 2(P-1)/P·nβ", THAKUR, _bcast_scatter_ring, "scatter+ring"),
    Algorithm("alltoall", "bruck", "Bruck",
              "⌈lg P⌉α + nP/2·⌈lg P⌉β + 2 copies of nP (MPICH: 3) + a copy of each step's blocks", THAKUR,
              _alltoall_bruck, "Bruck", (("mpich", _alltoall_bruck_mpich),)),
    Algorithm("alltoall", "pairwise", "pairwise exchange", "(P-1)(α + nβ)", THAKUR, _alltoall_pairwise, "pairwise"),
    Algorithm("alltoall", "scattered", "all sends posted at once", "α + (P-1)nβ + a copy of n (MPICH: a message of n to itself)",
              THAKUR, _alltoall_scattered, "scattered",
              (("mpich", _alltoall_scattered_mpich), ("openmpi", _alltoall_scattered_openmpi))),
    Algorithm("reduce", "binomial", "binomial tree", "⌈lg P⌉(α + nβ + nγ)", THAKUR, _reduce_binomial, "binomial"),
    Algorithm("reduce", "reduce_scatter_gather", "Rabenseifner (reduce-scatter + gather)",
              "2⌈lg P⌉α + 2(P-1)/P·nβ + (P-1)/P·nγ", THAKUR, _reduce_scatter_gather, "Rabenseifner"),
    Algorithm("allgather", "recursive_doubling", "recursive doubling", "⌈lg P⌉α + (P-1)nβ", THAKUR, _allgather_rd, "rec. doubling"),
    Algorithm("allgather", "bruck", "Bruck", "⌈lg P⌉α + (P-1)nβ + a copy of nP", THAKUR, _allgather_bruck, "Bruck"),
    Algorithm("allgather", "ring", "ring", "(P-1)(α + nβ)", THAKUR, _allgather_ring, "ring"),
    Algorithm("reduce_scatter_block", "recursive_halving", "recursive halving",
              "⌈lg P⌉α + (P-1)nβ + (P-1)nγ", THAKUR, _rsb_halving, "rec. halving"),
    Algorithm("reduce_scatter_block", "pairwise", "pairwise exchange", "(P-1)(α + nβ + nγ)", THAKUR, _rsb_pairwise, "pairwise"),
    Algorithm("barrier", "dissemination", "dissemination", "⌈lg P⌉α", THAKUR, _barrier_dissemination, "dissemination"),
    Algorithm("barrier", "linear", "gather to one rank, then release", "2(P-1)α", THAKUR, _barrier_linear, "linear"),
)


def algorithms_of(collective: str) -> tuple[Algorithm, ...]:
    return tuple(a for a in ALGORITHMS if a.collective == collective)


def find(collective: str, key: str) -> Algorithm:
    for a in ALGORITHMS:
        if a.collective == collective and a.key == key:
            return a
    raise KeyError(f"{collective}: no algorithm {key!r}")
